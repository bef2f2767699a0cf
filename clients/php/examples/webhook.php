<?php

// A callback receiver. Run: DELIVERY_WEBHOOK_SECRET=… php -S 0.0.0.0:8080 webhook.php
require __DIR__ . '/../autoload.php'; // or Composer's vendor/autoload.php

use function PartnerDelivery\verifyWebhook;

$raw = file_get_contents('php://input'); // the exact bytes: never json_encode(json_decode(...)) them
if (!verifyWebhook($raw, $_SERVER['HTTP_X_SERVICE_SIGNATURE'] ?? null, getenv('DELIVERY_WEBHOOK_SECRET') ?: '')) {
    http_response_code(401); // not from the service
    exit;
}
$event = json_decode($raw, true);
if (str_starts_with($event['event'], 'delivery.')) {
    // Your work: update the order, notify the customer... The same event may come again:
    // act once per delivery_id + status (a unique index in your database).
    error_log("{$event['event']} {$event['delivery_id']} {$event['data']['payment_status']}");
}
http_response_code(204); // any 2xx within 10 s
