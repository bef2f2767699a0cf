<?php

// Every answer outside 2xx, as one exception: what the API's error envelope says, and the request
// id to quote to support.

declare(strict_types=1);

namespace PartnerDelivery;

final class PartnerApiError extends \RuntimeException
{
    /**
     * @param int $status The HTTP status (also getCode()).
     * @param string $errorCode The envelope's `error.code` (`bad_request`, `payment_required`, `not_found`, `rate_limited`, `unavailable`…).
     * @param array<string, mixed> $details The envelope's `error.details`: for a 400, each field at fault and what is wrong with it.
     * @param ?string $requestId The `X-Request-Id` of the answer, or the envelope's `details.request_id`.
     * @param ?int $retryAfterSeconds Seconds the service asked to wait before trying again (`Retry-After`).
     */
    public function __construct(
        public readonly int $status,
        public readonly string $errorCode,
        string $message,
        public readonly array $details,
        public readonly ?string $requestId,
        public readonly ?int $retryAfterSeconds,
    ) {
        parent::__construct($message, $status);
    }

    /**
     * Reads the error out of a non-2xx answer. A body that is not the envelope (a proxy's HTML page)
     * still gives a typed error.
     *
     * @param array<string, string> $headers lower-case names
     */
    public static function fromResponse(int $status, array $headers, string $body): self
    {
        $envelope = json_decode($body, true);
        $error = is_array($envelope) && is_array($envelope['error'] ?? null) ? $envelope['error'] : [];
        $details = is_array($error['details'] ?? null) ? $error['details'] : [];
        $requestId = $headers['x-request-id'] ?? (is_string($details['request_id'] ?? null) ? $details['request_id'] : null);
        return new self(
            $status,
            is_string($error['code'] ?? null) ? $error['code'] : 'unexpected_response',
            is_string($error['message'] ?? null) ? $error['message'] : "HTTP {$status} without the error envelope",
            $details,
            $requestId,
            self::retryAfterSeconds($headers['retry-after'] ?? null),
        );
    }

    /** `Retry-After` is seconds or an HTTP date; either becomes seconds from now. */
    private static function retryAfterSeconds(?string $header): ?int
    {
        if ($header === null || trim($header) === '') {
            return null;
        }
        if (preg_match('/^\d+$/', trim($header)) === 1) {
            return (int) trim($header);
        }
        $at = strtotime($header);
        return $at === false ? null : max(0, $at - time());
    }
}
