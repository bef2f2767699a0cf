"""Quote a route, then book it at the quoted fare. Run: DELIVERY_API_KEY=sk_test_… python3 book.py"""

import json
import os
import sys
import uuid

from partner_delivery import PartnerApiError, PartnerClient

partner = PartnerClient(os.environ.get("DELIVERY_BASE_URL", "http://localhost:3000"), os.environ["DELIVERY_API_KEY"])

route = {"pickup_lat": 5.5497, "pickup_lng": -0.2096, "dropoff_lat": 5.6052, "dropoff_lng": -0.1668}
try:
    quote = partner.quotes.create(route)
    delivery = partner.deliveries.create(
        {
            **route,
            "pickup_address": "Makola Market, Accra",
            "dropoff_address": "Kotoka International Airport",
            "package_size": "small",
            "recipient_name": "Ama Serwaa",
            "recipient_phone": "+233241234567",
            "payment_method": "gateway",
            "quote_id": quote["quote_id"],
        },
        idempotency_key=f"order-{uuid.uuid4()}",  # your order number: the same on a retry of this booking
    )
    print(delivery["reference"], delivery["status"], delivery["total_fare"], "GHS", delivery["tracking_url"])
except PartnerApiError as error:
    # 400 bad_request {"dropoff_lat": "outside the service area"} 5f0c…
    print(error.status, error.code, json.dumps(error.details), error.request_id, file=sys.stderr)
    sys.exit(1)
