<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/**
 * @phpstan-import-type Quote from Schemas
 * @phpstan-import-type QuoteRequest from Schemas
 */
final class Quotes
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * Prices a route without booking it; book it with its `quote_id` before `expires_at` to pay this fare.
     *
     * @param QuoteRequest $quote
     * @return Quote
     */
    public function create(array $quote): array
    {
        return $this->client->call('createQuote', body: $quote);
    }
}
