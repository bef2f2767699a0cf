"""Every method of the Python client once, against the stand-in server of test/unit/php-python-clients.test.ts.

Then a call it answers 429 and 503 before 201, and one it refuses. Prints the waits and the error
as one JSON object.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python", "src"))

from partner_delivery import PartnerApiError, PartnerClient  # noqa: E402

base = os.environ["DELIVERY_BASE_URL"]
waits: list[float] = []
partner = PartnerClient(base, "sk_test_key", sleep=waits.append)
booking = json.loads(os.environ["BOOKING"])

partner.quotes.create({"pickup_lat": 5.5, "pickup_lng": -0.2, "dropoff_lat": 5.6, "dropoff_lng": -0.1})
partner.service_area.get()
partner.deliveries.create(booking)
partner.deliveries.create(booking, idempotency_key="order-42", sandbox_rider="manual")
partner.deliveries.list({"limit": 5, "status": "pending"})
partner.deliveries.get("d-1")
partner.deliveries.change("d-1", {"recipient_name": "Efua Mensah"}, idempotency_key="change-1")
partner.deliveries.cancel("d-1")
partner.deliveries.simulate("d-1", "accept")
partner.deliveries.proof("d-1")
photo = partner.deliveries.photo(f"{base}/api/v1/proof-photos/d-1/final?expires=1&signature=s")
partner.payment_methods.list()
partner.payment_methods.create({"provider": "network_a", "phone": "+233241230001", "account_name": "Shop"})
partner.payment_methods.delete("pm-1")
partner.webhook.get()
partner.webhook.set("https://shop.example.com/hooks")
partner.webhook.deliveries({"limit": 5})
partner.webhook.redeliver("cb-1")
partner.tracking.get("d-1")
partner.places.autocomplete("Osu Castle")
partner.places.resolve("place-1")

retried = partner.deliveries.create({**booking, "package_description": "retry-me"})
refused = None
try:
    partner.deliveries.get("refuse-me")
except PartnerApiError as error:
    refused = {"status": error.status, "code": error.code, "message": error.message, "details": error.details, "request_id": error.request_id}
print(json.dumps({"photo": photo.decode(), "retried": retried, "waits": [w * 1000 for w in waits], "refused": refused, "unknown_field": None}))
