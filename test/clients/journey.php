<?php

// A partner's PHP server, through the PHP client, against the running service (php-client.test.ts):
// quote, register an account, book at the quote, read, list, cancel, and ride a manual sandbox
// delivery to its proof. Prints what it saw as one JSON object.

declare(strict_types=1);

require __DIR__ . '/../../clients/php/autoload.php';

use PartnerDelivery\PartnerApiError;
use PartnerDelivery\PartnerClient;

$partner = new PartnerClient(getenv('DELIVERY_BASE_URL'), getenv('DELIVERY_API_KEY'));
$route = ['pickup_lat' => 5.5497, 'pickup_lng' => -0.2096, 'dropoff_lat' => 5.6052, 'dropoff_lng' => -0.1668];
$booking = $route + [
    'pickup_address' => 'Makola Market, Accra',
    'dropoff_address' => 'Kotoka International Airport, Accra',
    'package_size' => 'small',
    'recipient_name' => 'Ama Serwaa Mensah',
    'recipient_phone' => '+233241234567',
    'payment_method' => 'gateway',
];

$seen = [];
$quote = $partner->quotes->create($route);
$seen['quote'] = $quote;
$seen['account'] = $partner->paymentMethods->create(['provider' => 'network_a', 'phone' => '+233241231111', 'account_name' => 'Test Shop Ltd']);
$booked = $partner->deliveries->create($booking + ['quote_id' => $quote['quote_id']], idempotencyKey: 'php-order-' . getenv('RUN_ID'));
$seen['booked'] = $booked;
// The same key again answers with the first booking.
$seen['repeated'] = $partner->deliveries->create($booking + ['quote_id' => $quote['quote_id']], idempotencyKey: 'php-order-' . getenv('RUN_ID'));
$seen['read'] = $partner->deliveries->get($booked['id']);
$seen['listed'] = array_column($partner->deliveries->list(['limit' => 5]), 'id');
$seen['cancelled'] = $partner->deliveries->cancel($booked['id']);

$manual = $partner->deliveries->create($booking, sandboxRider: 'manual');
foreach (['accept', 'pickup', 'depart'] as $step) {
    $partner->deliveries->simulate($manual['id'], $step);
}
try {
    $partner->deliveries->cancel($manual['id']);
} catch (PartnerApiError $error) {
    $seen['refused'] = ['status' => $error->status, 'code' => $error->errorCode, 'message' => $error->getMessage(), 'details' => $error->details, 'request_id' => $error->requestId];
}
$seen['delivered'] = $partner->deliveries->simulate($manual['id'], 'deliver');
$seen['proof'] = $partner->deliveries->proof($manual['id']);
$seen['tracking'] = $partner->tracking->get($manual['id']);

echo json_encode($seen, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\n";
