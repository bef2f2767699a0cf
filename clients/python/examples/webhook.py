"""A callback receiver. Run: DELIVERY_WEBHOOK_SECRET=… python3 webhook.py (port 8080, or PORT)"""

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from partner_delivery import verify_webhook


class Callbacks(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))  # the exact bytes: never json.dumps(json.loads(...)) them
        if not verify_webhook(raw, self.headers.get("X-Service-Signature"), os.environ.get("DELIVERY_WEBHOOK_SECRET", "")):
            self.send_response(401)  # not from the service
            self.end_headers()
            return
        event = json.loads(raw)
        if event["event"].startswith("delivery."):
            # Your work: update the order, notify the customer... The same event may come again:
            # act once per delivery_id + status (a unique index in your database).
            print(event["event"], event["delivery_id"], event["data"]["payment_status"], flush=True)
        self.send_response(204)  # any 2xx within 10 s
        self.end_headers()


ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8080"))), Callbacks).serve_forever()
