"""Every answer outside 2xx, as one exception: what the API's error envelope says, and the request id to quote to support."""

from __future__ import annotations

import json
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any, Mapping


class PartnerApiError(Exception):
    """An answer outside 2xx.

    ``status`` is the HTTP status; ``code`` the envelope's ``error.code`` (``bad_request``,
    ``payment_required``, ``not_found``, ``rate_limited``, ``unavailable``…); ``message`` its
    ``error.message``; ``details`` its ``error.details`` (for a 400, each field at fault and what is
    wrong with it); ``request_id`` the ``X-Request-Id`` of the answer, or the envelope's
    ``details.request_id``; ``retry_after_seconds`` what ``Retry-After`` asked for.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any],
        request_id: str | None,
        retry_after_seconds: int | None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after_seconds = retry_after_seconds

    def __repr__(self) -> str:
        return f"PartnerApiError(status={self.status}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"

    @classmethod
    def from_response(cls, status: int, headers: Mapping[str, str], body: bytes) -> PartnerApiError:
        """Reads the error out of a non-2xx answer; a body that is not the envelope (a proxy's HTML page) still gives one."""
        try:
            envelope = json.loads(body.decode("utf-8"))
        except ValueError:
            envelope = None
        error = envelope.get("error") if isinstance(envelope, dict) else None
        error = error if isinstance(error, dict) else {}
        details = error.get("details") if isinstance(error.get("details"), dict) else {}
        request_id = headers.get("x-request-id") or (details.get("request_id") if isinstance(details.get("request_id"), str) else None)
        return cls(
            status,
            error["code"] if isinstance(error.get("code"), str) else "unexpected_response",
            error["message"] if isinstance(error.get("message"), str) else f"HTTP {status} without the error envelope",
            details,
            request_id,
            _retry_after_seconds(headers.get("retry-after")),
        )


def _retry_after_seconds(header: str | None) -> int | None:
    """``Retry-After`` is seconds or an HTTP date; either becomes seconds from now."""
    if header is None or header.strip() == "":
        return None
    if re.fullmatch(r"\d+", header.strip()):
        return int(header.strip())
    try:
        at = parsedate_to_datetime(header).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(at - time.time() + 0.999))
