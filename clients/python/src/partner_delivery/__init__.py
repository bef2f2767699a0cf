"""Python client for the Partner Delivery API, and a webhook signature check (standard library only)."""

from .client import API_PREFIX, PartnerClient, PlaceSuggestion, ResolvedPlace, SandboxRider, SimulateStep
from .errors import PartnerApiError
from .schema import (
    BookingRequest,
    Delivery,
    DeliveryCallback,
    DeliveryChangeRequest,
    Handover,
    PaymentMethod,
    PaymentMethodRequest,
    PublicTracking,
    Quote,
    QuoteRequest,
    ServiceArea,
    TestCallback,
    WebhookDelivery,
    WebhookSetting,
)
from .webhooks import verify_webhook

__all__ = [
    "API_PREFIX",
    "BookingRequest",
    "Delivery",
    "DeliveryCallback",
    "DeliveryChangeRequest",
    "Handover",
    "PartnerApiError",
    "PartnerClient",
    "PaymentMethod",
    "PaymentMethodRequest",
    "PlaceSuggestion",
    "PublicTracking",
    "Quote",
    "QuoteRequest",
    "ResolvedPlace",
    "SandboxRider",
    "ServiceArea",
    "SimulateStep",
    "TestCallback",
    "WebhookDelivery",
    "WebhookSetting",
    "verify_webhook",
]
