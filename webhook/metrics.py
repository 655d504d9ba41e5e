"""Prometheus metrics of the admission server, in a registry of its own (one per app).

Label values come from a closed set: a client can POST any kind or operation, and a label per
made-up value would grow the scrape without bound.
"""

from __future__ import annotations

from datetime import datetime

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from webhook.review import AdmissionRequest, AdmissionResponse

KINDS = frozenset({"ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "DeviceTaintRule"})
OPERATIONS = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})
REVIEW_LABELS = ("path", "kind", "operation", "allowed", "dry_run")
# The API server gives up after the webhook's timeoutSeconds (5 s in deploy/), so finer buckets
# below that matter more than any above it.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


def _bool(value: bool) -> str:
    return "true" if value else "false"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("dra_webhook_requests", "Admission reviews answered.",
                                REVIEW_LABELS, registry=self.registry)
        self.duration = Histogram("dra_webhook_request_duration_seconds",
                                  "Time from request start to the AdmissionReview answer.",
                                  REVIEW_LABELS, buckets=LATENCY_BUCKETS, registry=self.registry)
        self.in_flight = Gauge("dra_webhook_requests_in_flight", "Admission requests being handled now.",
                               ("path",), registry=self.registry)
        self.rejected = Counter("dra_webhook_rejected_requests",
                                "Requests refused before review (not JSON, not an AdmissionReview, too large).",
                                ("path", "code"), registry=self.registry)
        self.cert_expiry = Gauge("dra_webhook_serving_certificate_expiry_timestamp_seconds",
                                 "notAfter of the serving certificate in use, in seconds since the epoch.",
                                 registry=self.registry)
        self.cert_reloads = Counter("dra_webhook_certificate_reloads",
                                    "Attempts to load changed certificate files, by result.",
                                    ("result",), registry=self.registry)

    def observe_review(self, path: str, request: AdmissionRequest, response: AdmissionResponse,
                       seconds: float) -> None:
        kind = request.kind.kind if request.kind.kind in KINDS else "other"
        operation = request.operation if request.operation in OPERATIONS else "other"
        labels = (path, kind, operation, _bool(response.allowed), _bool(request.dry_run))
        self.requests.labels(*labels).inc()
        self.duration.labels(*labels).observe(seconds)

    def observe_rejected(self, path: str, code: int) -> None:
        self.rejected.labels(path, str(code)).inc()

    def certificate_loaded(self, not_after: datetime) -> None:
        self.cert_expiry.set(not_after.timestamp())

    def reload_attempted(self, ok: bool) -> None:
        self.cert_reloads.labels("success" if ok else "failure").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
