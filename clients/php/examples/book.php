<?php

// Quote a route, then book it at the quoted fare. Run: DELIVERY_API_KEY=sk_test_… php book.php
require __DIR__ . '/../autoload.php'; // or Composer's vendor/autoload.php

use PartnerDelivery\PartnerApiError;
use PartnerDelivery\PartnerClient;

$partner = new PartnerClient(getenv('DELIVERY_BASE_URL') ?: 'http://localhost:3000', getenv('DELIVERY_API_KEY'));

$route = ['pickup_lat' => 5.5497, 'pickup_lng' => -0.2096, 'dropoff_lat' => 5.6052, 'dropoff_lng' => -0.1668];
try {
    $quote = $partner->quotes->create($route);
    $delivery = $partner->deliveries->create($route + [
        'pickup_address' => 'Makola Market, Accra',
        'dropoff_address' => 'Kotoka International Airport',
        'package_size' => 'small',
        'recipient_name' => 'Ama Serwaa',
        'recipient_phone' => '+233241234567',
        'payment_method' => 'gateway',
        'quote_id' => $quote['quote_id'],
    ], idempotencyKey: 'order-' . bin2hex(random_bytes(8))); // your order number: the same on a retry of this booking
    echo "{$delivery['reference']} {$delivery['status']} {$delivery['total_fare']} GHS {$delivery['tracking_url']}\n";
} catch (PartnerApiError $error) {
    // 400 bad_request {"dropoff_lat":"outside the service area"} 5f0c…
    fwrite(STDERR, "{$error->status} {$error->errorCode} " . json_encode($error->details) . " {$error->requestId}\n");
    exit(1);
}
