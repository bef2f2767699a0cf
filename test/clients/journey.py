"""A partner's Python server, through the Python client, against the running service (python-client.test.ts).

Quote, register an account, book at the quote, read, list, cancel, and ride a manual sandbox
delivery to its proof. Prints what it saw as one JSON object.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python", "src"))

from partner_delivery import BookingRequest, PartnerApiError, PartnerClient  # noqa: E402

partner = PartnerClient(os.environ["DELIVERY_BASE_URL"], os.environ["DELIVERY_API_KEY"])
route = {"pickup_lat": 5.5497, "pickup_lng": -0.2096, "dropoff_lat": 5.6052, "dropoff_lng": -0.1668}
booking: BookingRequest = {
    **route,  # type: ignore[typeddict-item]
    "pickup_address": "Makola Market, Accra",
    "dropoff_address": "Kotoka International Airport, Accra",
    "package_size": "small",
    "recipient_name": "Ama Serwaa Mensah",
    "recipient_phone": "+233241234567",
    "payment_method": "gateway",
}

seen = {}
quote = partner.quotes.create(route)  # type: ignore[arg-type]
seen["quote"] = quote
seen["account"] = partner.payment_methods.create({"provider": "network_a", "phone": "+233241231111", "account_name": "Test Shop Ltd"})
key = "python-order-" + os.environ["RUN_ID"]
booked = partner.deliveries.create({**booking, "quote_id": quote["quote_id"]}, idempotency_key=key)
seen["booked"] = booked
# The same key again answers with the first booking.
seen["repeated"] = partner.deliveries.create({**booking, "quote_id": quote["quote_id"]}, idempotency_key=key)
seen["read"] = partner.deliveries.get(booked["id"])
seen["listed"] = [d["id"] for d in partner.deliveries.list({"limit": 5})]
seen["cancelled"] = partner.deliveries.cancel(booked["id"])

manual = partner.deliveries.create(booking, sandbox_rider="manual")
for step in ("accept", "pickup", "depart"):
    partner.deliveries.simulate(manual["id"], step)  # type: ignore[arg-type]
try:
    partner.deliveries.cancel(manual["id"])
except PartnerApiError as error:
    seen["refused"] = {"status": error.status, "code": error.code, "message": error.message, "details": error.details, "request_id": error.request_id}
seen["delivered"] = partner.deliveries.simulate(manual["id"], "deliver")
seen["proof"] = partner.deliveries.proof(manual["id"])
seen["tracking"] = partner.tracking.get(manual["id"])

print(json.dumps(seen))
