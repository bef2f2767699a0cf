"""The partner API from a partner's own server, on the standard library alone.

One method per partner and public operation of the service's OpenAPI document, grouped as the
TypeScript client groups them. Which method and path each operation has, and whether it takes the
key and an Idempotency-Key, come from the generated table (schema.OPERATIONS); the answers are typed
with the generated TypedDicts.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Literal, Mapping, cast

from .errors import PartnerApiError
from .schema import (
    OPERATIONS,
    AutocompletePlacesResponseItem,
    BookingRequest,
    CreateDeliverySandboxRider,
    Deleted,
    Delivery,
    DeliveryChangeRequest,
    Handover,
    ListDeliveriesQuery,
    ListWebhookDeliveriesQuery,
    PaymentMethod,
    PaymentMethodRequest,
    PublicTracking,
    Quote,
    QuoteRequest,
    ResolvePlaceResponse,
    ServiceArea,
    SimulateRequestStep,
    WebhookDelivery,
    WebhookSetting,
    WebhookUrl,
)

#: The document's ``servers[0].url``: every path of the API is under it.
API_PREFIX = "/api/v1"
VERSION = "0.1.0"

#: Only these may succeed later: 429 (over a rate limit, after Retry-After) and 503 (a backing service unreachable).
_RETRIED = frozenset({429, 503})

SandboxRider = CreateDeliverySandboxRider
SimulateStep = SimulateRequestStep
PlaceSuggestion = AutocompletePlacesResponseItem
ResolvedPlace = ResolvePlaceResponse


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The key never follows a redirect elsewhere: a 3xx is an answer like any other."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects())


class PartnerClient:
    """The partner API.

    ``base_url`` is the service's address, such as ``https://deliveries.example.com.gh`` (the API is
    under ``/api/v1`` of it); ``api_key`` is ``sk_live_…`` or ``sk_test_…``, sent to the partner
    endpoints only. A 429 or 503 is tried again ``retries`` times (3): after its ``Retry-After``,
    else ``initial_delay`` seconds (0.5) doubled each time, never longer than ``max_delay`` (30; a
    ``Retry-After`` beyond it is not waited for). ``sleep`` is how to wait (tests pass their own).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retries: int = 3,
        initial_delay: float = 0.5,
        max_delay: float = 30.0,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._api_url = base_url.rstrip("/") + API_PREFIX
        self._api_key = api_key
        self._retries = retries
        self._initial_delay = initial_delay
        self._max_delay = max_delay
        self._timeout = timeout
        self._sleep = sleep
        self.quotes = Quotes(self)
        self.service_area = ServiceAreaResource(self)
        self.deliveries = Deliveries(self)
        self.payment_methods = PaymentMethods(self)
        self.webhook = Webhook(self)
        self.tracking = Tracking(self)
        self.places = Places(self)

    def __repr__(self) -> str:
        # The key stays out of logs and tracebacks.
        return f"PartnerClient({self._api_url!r})"

    def call(
        self,
        operation_id: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Calls one operation of the document by its operationId and returns the decoded JSON answer.

        An operation that takes an Idempotency-Key is sent one: ``idempotency_key``, or one made
        here, the same on every retry, so a try that was answered but whose answer was lost does
        not act twice. Every answer outside 2xx raises a PartnerApiError.
        """
        operation = OPERATIONS[operation_id]
        path = path or {}
        url = self._api_url + "/".join(
            urllib.parse.quote(path[segment[1:-1]], safe="") if segment.startswith("{") else segment
            for segment in operation.path.split("/")
        )
        query = {name: value for name, value in (query or {}).items() if value is not None}
        unknown = set(query) - set(operation.query)
        if unknown:
            raise ValueError(f"{operation_id} takes no query parameter {', '.join(sorted(unknown))}")
        if query:
            url += "?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote)
        send = {"Accept": "application/json"}
        if operation.keyed:
            send["Authorization"] = f"Bearer {self._api_key}"
        if operation.idempotent:
            send["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        for name, value in (headers or {}).items():
            if name not in operation.headers:
                raise ValueError(f"{operation_id} takes no header {name}")
            send[name] = value
        data = None
        if body is not None:
            send["Content-Type"] = "application/json"
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        answer = self._with_retries(lambda: self._send(operation.method, url, send, data))
        return json.loads(answer) if answer else None

    def download(self, url: str) -> bytes:
        """GETs an absolute URL without the key (a proof photo's signed link is its own credential)."""
        return self._with_retries(lambda: self._send("GET", url, {}, None))

    def _with_retries(self, attempt: Callable[[], bytes]) -> bytes:
        """Runs ``attempt`` until it succeeds, is refused for good, or the retries are spent, as the TypeScript client's withRetries does."""
        tries = 0
        while True:
            try:
                return attempt()
            except PartnerApiError as error:
                if error.status not in _RETRIED or tries >= self._retries:
                    raise
                wait = float(error.retry_after_seconds) if error.retry_after_seconds is not None else min(self._initial_delay * 2**tries, self._max_delay)
                # Trying sooner than the service asked would only be refused again.
                if wait > self._max_delay:
                    raise
                self._sleep(wait)
                tries += 1

    def _send(self, method: str, url: str, headers: Mapping[str, str], data: bytes | None) -> bytes:
        request = urllib.request.Request(url, data=data, method=method, headers={**headers, "User-Agent": f"partner-delivery-python/{VERSION}"})
        try:
            with _opener.open(request, timeout=self._timeout) as response:
                status, received, body = response.status, response.headers, response.read()
        except urllib.error.HTTPError as answer:
            status, received, body = answer.code, answer.headers, answer.read()
        if 200 <= status < 300:
            return cast(bytes, body)
        raise PartnerApiError.from_response(status, {name.lower(): value for name, value in received.items()}, body)


class Quotes:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def create(self, quote: QuoteRequest) -> Quote:
        """Prices a route without booking it; book it with its ``quote_id`` before ``expires_at`` to pay this fare."""
        return cast(Quote, self._client.call("createQuote", body=quote))


class ServiceAreaResource:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def get(self) -> ServiceArea:
        """The areas every pickup, stop and drop-off must lie in: a GeoJSON FeatureCollection of named polygons."""
        return cast(ServiceArea, self._client.call("getServiceArea"))


class Deliveries:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def create(self, booking: BookingRequest, *, idempotency_key: str | None = None, sandbox_rider: SandboxRider | None = None) -> Delivery:
        """Books a delivery; it starts ``pending``, and the Mobile Money debit follows.

        Pass your own ``idempotency_key`` (an order number) to make a booking repeated later, after
        a crash, answer with the first delivery instead of booking again; without one, a key is
        made for this call. ``sandbox_rider="manual"`` (test keys only) books a delivery no robo
        rider rides: take its steps with ``simulate``.
        """
        headers = {} if sandbox_rider is None else {"Sandbox-Rider": sandbox_rider}
        return cast(Delivery, self._client.call("createDelivery", body=booking, headers=headers, idempotency_key=idempotency_key))

    def list(self, query: ListDeliveriesQuery | None = None) -> list[Delivery]:
        """Newest first; ``limit`` 20 unless set (at most 100)."""
        return cast("list[Delivery]", self._client.call("listDeliveries", query=query))

    def get(self, id: str) -> Delivery:
        """One delivery with its whole event trail: what polling reads."""
        return cast(Delivery, self._client.call("getDelivery", path={"id": id}))

    def change(self, id: str, change: DeliveryChangeRequest, *, idempotency_key: str | None = None) -> Delivery:
        """Changes who receives the final drop and each stop (by index), or the parcel's description, until that drop is handed over."""
        return cast(Delivery, self._client.call("changeDelivery", path={"id": id}, body=change, idempotency_key=idempotency_key))

    def cancel(self, id: str) -> Delivery:
        """Cancels until the rider holds the parcel; after that, 400 with ``details.status``."""
        return cast(Delivery, self._client.call("cancelDelivery", path={"id": id}))

    def simulate(self, id: str, step: SimulateStep) -> Delivery:
        """Test mode: takes one step of the manual sandbox rider of a delivery booked with ``sandbox_rider="manual"``."""
        return cast(Delivery, self._client.call("simulateDelivery", path={"id": id}, body={"step": step}))

    def proof(self, id: str) -> list[Handover]:
        """Proof of delivery: each hand-over so far (stops, then the final drop)."""
        return cast("list[Handover]", self._client.call("getDeliveryProof", path={"id": id}))

    def photo(self, photo_url: str) -> bytes:
        """A hand-over photo's bytes, by the proof's signed ``photo_url`` (no key sent); a link past its time raises a 403 PartnerApiError."""
        return self._client.download(photo_url)


class PaymentMethods:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def list(self) -> list[PaymentMethod]:
        """Mobile Money accounts, default first."""
        return cast("list[PaymentMethod]", self._client.call("listPaymentMethods"))

    def create(self, account: PaymentMethodRequest, *, idempotency_key: str | None = None) -> PaymentMethod:
        """Registers a Mobile Money account; the number is checked with its network first."""
        return cast(PaymentMethod, self._client.call("createPaymentMethod", body=account, idempotency_key=idempotency_key))

    def delete(self, id: str) -> Deleted:
        return cast(Deleted, self._client.call("deletePaymentMethod", path={"id": id}))


class Webhook:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def get(self) -> WebhookUrl:
        return cast(WebhookUrl, self._client.call("getWebhook"))

    def set(self, webhook_url: str | None) -> WebhookSetting:
        """Sets the callback URL and returns a fresh secret (the previous one stops working); None stops callbacks."""
        return cast(WebhookSetting, self._client.call("putWebhook", body={"webhook_url": webhook_url}))

    def deliveries(self, query: ListWebhookDeliveriesQuery | None = None) -> list[WebhookDelivery]:
        """The callback log, newest first, with each attempt."""
        return cast("list[WebhookDelivery]", self._client.call("listWebhookDeliveries", query=query))

    def redeliver(self, id: str) -> WebhookDelivery:
        """Sends a callback again, signed with the current secret."""
        return cast(WebhookDelivery, self._client.call("redeliverWebhook", path={"id": id}))


class Tracking:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def get(self, id: str) -> PublicTracking:
        """The public, redacted view behind the hosted tracking page; needs no key."""
        return cast(PublicTracking, self._client.call("getPublicTracking", path={"id": id}))


class Places:
    def __init__(self, client: PartnerClient) -> None:
        self._client = client

    def autocomplete(self, q: str) -> list[PlaceSuggestion]:
        """Suggestions for what a customer typed; needs no key."""
        return cast("list[PlaceSuggestion]", self._client.call("autocompletePlaces", query={"q": q}))

    def resolve(self, place_id: str) -> ResolvedPlace:
        """A suggestion's address and coordinates, to book with; needs no key."""
        return cast(ResolvedPlace, self._client.call("resolvePlace", query={"place_id": place_id}))
