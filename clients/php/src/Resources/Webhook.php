<?php

declare(strict_types=1);

namespace PartnerDelivery\Resources;

use PartnerDelivery\Generated\Schemas;
use PartnerDelivery\PartnerClient;

/**
 * @phpstan-import-type WebhookUrl from Schemas
 * @phpstan-import-type WebhookSetting from Schemas
 * @phpstan-import-type WebhookDelivery from Schemas
 */
final class Webhook
{
    public function __construct(private readonly PartnerClient $client)
    {
    }

    /** @return WebhookUrl */
    public function get(): array
    {
        return $this->client->call('getWebhook');
    }

    /**
     * Sets the callback URL and returns a fresh secret (the previous one stops working); null stops callbacks.
     *
     * @return WebhookSetting
     */
    public function set(?string $webhookUrl): array
    {
        return $this->client->call('putWebhook', body: ['webhook_url' => $webhookUrl]);
    }

    /**
     * The callback log, newest first, with each attempt.
     *
     * @param array{limit?: int, offset?: int} $query
     * @return list<WebhookDelivery>
     */
    public function deliveries(array $query = []): array
    {
        return $this->client->call('listWebhookDeliveries', query: $query);
    }

    /**
     * Sends a callback again, signed with the current secret.
     *
     * @return WebhookDelivery
     */
    public function redeliver(string $id): array
    {
        return $this->client->call('redeliverWebhook', path: ['id' => $id]);
    }
}
