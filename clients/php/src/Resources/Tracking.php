<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/** @phpstan-import-type PublicTracking from Schemas */
final class Tracking
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * The public, redacted view behind the hosted tracking page; needs no key.
     *
     * @return PublicTracking
     */
    public function get(string $id): array
    {
        return $this->client->call('getPublicTracking', path: ['id' => $id]);
    }
}
