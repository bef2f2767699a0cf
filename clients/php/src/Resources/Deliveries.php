<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/**
 * @phpstan-import-type Delivery from Schemas
 * @phpstan-import-type BookingRequest from Schemas
 * @phpstan-import-type DeliveryChangeRequest from Schemas
 * @phpstan-import-type Handover from Schemas
 */
final class Deliveries
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /**
     * Books a delivery; it starts `pending`, and the Mobile Money debit follows. Pass your own
     * $idempotencyKey (an order number) to make a booking repeated later, after a crash, answer
     * with the first delivery instead of booking again; without one, a key is made for this call.
     *
     * @param BookingRequest $booking
     * @param ?string $sandboxRider test-mode keys only: `manual` books a delivery no robo rider rides (take its steps with simulate())
     * @return Delivery
     */
    public function create(array $booking, ?string $idempotencyKey = null, ?string $sandboxRider = null): array
    {
        $headers = $sandboxRider === null ? [] : ['Sandbox-Rider' => $sandboxRider];
        return $this->client->call('createDelivery', body: $booking, headers: $headers, idempotencyKey: $idempotencyKey);
    }

    /**
     * Newest first; `limit` 20 unless set (at most 100).
     *
     * @param array{limit?: int, offset?: int, status?: string} $query
     * @return list<Delivery>
     */
    public function list(array $query = []): array
    {
        return $this->client->call('listDeliveries', query: $query);
    }

    /**
     * One delivery with its whole event trail: what polling reads.
     *
     * @return Delivery
     */
    public function get(string $id): array
    {
        return $this->client->call('getDelivery', path: ['id' => $id]);
    }

    /**
     * Changes who receives the final drop and each stop (by index), or the parcel's description,
     * until that drop is handed over; after that, 400 with `details.status`.
     *
     * @param DeliveryChangeRequest $change
     * @return Delivery
     */
    public function change(string $id, array $change, ?string $idempotencyKey = null): array
    {
        return $this->client->call('changeDelivery', path: ['id' => $id], body: $change, idempotencyKey: $idempotencyKey);
    }

    /**
     * Cancels until the rider holds the parcel; after that, 400 with `details.status`.
     *
     * @return Delivery
     */
    public function cancel(string $id): array
    {
        return $this->client->call('cancelDelivery', path: ['id' => $id]);
    }

    /**
     * Test mode: takes one step (`accept`, `pickup`, `depart`, `complete_stop`, `deliver`, `expire`)
     * of the manual sandbox rider of a delivery booked with $sandboxRider `manual`.
     *
     * @return Delivery
     */
    public function simulate(string $id, string $step): array
    {
        return $this->client->call('simulateDelivery', path: ['id' => $id], body: ['step' => $step]);
    }

    /**
     * Proof of delivery: each hand-over so far (stops, then the final drop).
     *
     * @return list<Handover>
     */
    public function proof(string $id): array
    {
        return $this->client->call('getDeliveryProof', path: ['id' => $id]);
    }

    /**
     * A hand-over photo's bytes, by the proof's signed `photo_url` (no key sent: the link's
     * signature is its credential). A link past its time throws a PartnerApiError with status 403.
     */
    public function photo(string $photoUrl): string
    {
        return $this->client->download($photoUrl);
    }
}
