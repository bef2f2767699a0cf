<?php

// Every method of the PHP client once, against the stand-in server of
// test/unit/php-python-clients.test.ts, then a call it answers 429 and 503 before 201, and one it
// refuses. Prints the waits and the error as one JSON object.

declare(strict_types=1);

require __DIR__ . '/../../clients/php/autoload.php';

use PartnerDelivery\PartnerApiError;
use PartnerDelivery\PartnerClient;

$base = getenv('DELIVERY_BASE_URL');
$waits = [];
$partner = new PartnerClient($base, 'sk_test_key', ['sleep' => static function (int $ms) use (&$waits): void {
    $waits[] = $ms;
}]);
$booking = json_decode(getenv('BOOKING'), true);

$partner->quotes->create(['pickup_lat' => 5.5, 'pickup_lng' => -0.2, 'dropoff_lat' => 5.6, 'dropoff_lng' => -0.1]);
$partner->serviceArea->get();
$partner->deliveries->create($booking);
$partner->deliveries->create($booking, idempotencyKey: 'order-42', sandboxRider: 'manual');
$partner->deliveries->list(['limit' => 5, 'status' => 'pending']);
$partner->deliveries->get('d-1');
$partner->deliveries->change('d-1', ['recipient_name' => 'Efua Mensah'], idempotencyKey: 'change-1');
$partner->deliveries->cancel('d-1');
$partner->deliveries->simulate('d-1', 'accept');
$partner->deliveries->proof('d-1');
$photo = $partner->deliveries->photo("{$base}/api/v1/proof-photos/d-1/final?expires=1&signature=s");
$partner->paymentMethods->list();
$partner->paymentMethods->create(['provider' => 'network_a', 'phone' => '+233241230001', 'account_name' => 'Shop']);
$partner->paymentMethods->delete('pm-1');
$partner->webhook->get();
$partner->webhook->set('https://shop.example.com/hooks');
$partner->webhook->deliveries(['limit' => 5]);
$partner->webhook->redeliver('cb-1');
$partner->tracking->get('d-1');
$partner->places->autocomplete('Osu Castle');
$partner->places->resolve('place-1');

$retried = $partner->deliveries->create($booking + ['package_description' => 'retry-me']);
try {
    $partner->deliveries->get('refuse-me');
} catch (PartnerApiError $error) {
    $refused = ['status' => $error->status, 'code' => $error->errorCode, 'message' => $error->getMessage(), 'details' => $error->details, 'request_id' => $error->requestId];
}
try {
    $partner->deliveries->create($booking + ['recipent_name' => 'typo']);
} catch (InvalidArgumentException $error) {
    $unknownField = $error->getMessage();
}
echo json_encode(['photo' => $photo, 'retried' => $retried, 'waits' => $waits, 'refused' => $refused ?? null, 'unknown_field' => $unknownField ?? null]), "\n";
