<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/** @phpstan-import-type ServiceArea from Schemas as ServiceAreaShape */
final class ServiceArea
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * The areas every pickup, stop and drop-off must lie in, as a GeoJSON FeatureCollection of
     * named polygons ([longitude, latitude]); a point outside them is refused with 400.
     *
     * @return ServiceAreaShape
     */
    public function get(): array
    {
        return $this->client->call('getServiceArea');
    }
}
