"""Verifying a callback.

``X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>``, keyed with the webhook
secret (the contract's "Signature"). The scheme signs no timestamp, so there is none to check:
against replays, de-duplicate on ``X-Service-Event-Id`` (or ``delivery_id`` plus ``status``), as
the TypeScript client's ``verifyWebhook`` says.
"""

from __future__ import annotations

import hashlib
import hmac


def verify_webhook(raw_body: bytes | bytearray | memoryview | str, signature_header: str | None, secret: str) -> bool:
    """True when ``signature_header`` is the service's signature of exactly these bytes.

    Pass the body as received (``request.body`` in Django, ``request.get_data()`` in Flask, the
    bytes read from ``wsgi.input``): JSON parsed and dumped again may differ in spacing, key order
    or escaping (``json.dumps`` escapes non-ASCII unless told not to), and then no longer matches.
    A ``str`` is taken as UTF-8.
    """
    if not isinstance(signature_header, str) or secret == "":
        return False
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    # compare_digest takes as long whatever the first differing byte; the length of a valid header is no secret.
    return hmac.compare_digest(expected.encode("ascii"), signature_header.encode("utf-8"))
