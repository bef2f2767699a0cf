<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/**
 * @phpstan-import-type PaymentMethod from Schemas
 * @phpstan-import-type PaymentMethodRequest from Schemas
 * @phpstan-import-type Deleted from Schemas
 */
final class PaymentMethods
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * Mobile Money accounts, default first.
     *
     * @return list<PaymentMethod>
     */
    public function list(): array
    {
        return $this->client->call('listPaymentMethods');
    }

    /**
     * Registers a Mobile Money account; the number is checked with its network first.
     *
     * @param PaymentMethodRequest $account
     * @return PaymentMethod
     */
    public function create(array $account, ?string $idempotencyKey = null): array
    {
        return $this->client->call('createPaymentMethod', body: $account, idempotencyKey: $idempotencyKey);
    }

    /** @return Deleted */
    public function delete(string $id): array
    {
        return $this->client->call('deletePaymentMethod', path: ['id' => $id]);
    }
}
