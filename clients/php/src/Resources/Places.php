<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\PartnerClient;

final class Places
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * Suggestions for what a customer typed; needs no key.
     *
     * @return list<array{place_id: string, title: string, subtitle: string}>
     */
    public function autocomplete(string $q): array
    {
        return $this->client->call('autocompletePlaces', query: ['q' => $q]);
    }

    /**
     * A suggestion's address and coordinates, to book with; needs no key.
     *
     * @return array{address: string, lat: int|float, lng: int|float}
     */
    public function resolve(string $placeId): array
    {
        return $this->client->call('resolvePlace', query: ['place_id' => $placeId]);
    }
}
