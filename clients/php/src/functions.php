<?php

// Verifying a callback: `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>`,
// keyed with the webhook secret (the contract's "Signature"). The scheme signs no timestamp, so
// there is none to check: against replays, de-duplicate on `X-Service-Event-Id` (or
// `delivery_id` plus `status`), as the TypeScript client's verifyWebhook says.

declare(strict_types=1);

namespace PartnerDelivery;

/**
 * True when $signatureHeader is the service's signature of exactly these bytes. Pass the body as
 * received, `file_get_contents('php://input')`: JSON decoded and encoded again may differ in
 * spacing, key order or escaping (PHP escapes `/` and non-ASCII unless told not to), and then no
 * longer matches.
 */
function verifyWebhook(string $rawBody, ?string $signatureHeader, string $secret): bool
{
    if ($signatureHeader === null || $secret === '') {
        return false;
    }
    $expected = 'sha256=' . hash_hmac('sha256', $rawBody, $secret);
    // hash_equals takes as long whatever the first differing byte; the length of a valid header is no secret.
    return hash_equals($expected, $signatureHeader);
}
