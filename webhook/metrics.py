"""Prometheus metrics of the admission server, in a registry of its own (one per app).

Today's `dra_webhook_*` series, the series controller-runtime webhooks expose (so existing
dashboards work: `controller_runtime_webhook_requests_total{webhook,code}`,
`controller_runtime_webhook_latency_seconds{webhook}`,
`controller_runtime_webhook_requests_in_flight{webhook}`), and the process and Python collectors.
No `_created` series. Label values come from a closed set: a client can POST any kind or
operation, and a label per made-up value would grow the scrape without bound.
"""

from __future__ import annotations

from datetime import datetime

import prometheus_client
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

KINDS = frozenset({"ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "DeviceTaintRule",
                   "ResourcePoolStatusRequest"})
# The rules a [profile-mismatch] counts: metav1 cause types, and the decoding refusal.
RULES = frozenset({"FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported", "FieldValueDuplicate",
                   "FieldValueForbidden", "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid",
                   "FieldValueNotFound", "InternalError", "Invalid", "BadRequest"})
OPERATIONS = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})
REVIEW_LABELS = ("path", "kind", "operation", "allowed", "dry_run")
# The API server gives up after the webhook's timeoutSeconds (5 s in deploy/), so finer buckets
# below that matter more than any above it.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST

prometheus_client.disable_created_metrics()


def _bool(value: bool) -> str:
    return "true" if value else "false"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._children: dict = {}  # per path, and labelled children (_child)
        self._in_flight: dict[str, int] = {}  # requests being handled, per path
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            self.registry.register(collector)
        self.requests = Counter("dra_webhook_requests", "Admission reviews answered.",
                                REVIEW_LABELS, registry=self.registry)
        self.duration = Histogram("dra_webhook_request_duration_seconds",
                                  "Time from request start to the AdmissionReview answer.",
                                  REVIEW_LABELS, buckets=LATENCY_BUCKETS, registry=self.registry)
        self.in_flight = Gauge("dra_webhook_requests_in_flight", "Admission requests being handled now.",
                               ("path",), registry=self.registry)
        self.inline_reviews = Counter("dra_webhook_inline_reviews",
                                      "Admission reviews answered in the server process itself (small, with "
                                      "compiled selectors), without a worker process.", registry=self.registry)
        self.rejected = Counter("dra_webhook_rejected_requests",
                                "Requests answered without a review (malformed, too large, too slow, overload, "
                                "deadline).", ("path", "code"), registry=self.registry)
        self.cert_expiry = Gauge("dra_webhook_serving_certificate_expiry_timestamp_seconds",
                                 "notAfter of the serving certificate in use, in seconds since the epoch.",
                                 registry=self.registry)
        self.cert_reloads = Counter("dra_webhook_certificate_reloads",
                                    "Attempts to load changed certificate files, by result.",
                                    ("result",), registry=self.registry)
        self.profile_mismatches = Counter("dra_webhook_profile_mismatches",
                                          "Built-in rules that failed on objects the API server had accepted "
                                          "(answered allowed with a [profile-mismatch] warning), by kind and rule.",
                                          ("kind", "rule"), registry=self.registry)
        self.profile_reads = Counter("dra_webhook_cluster_profile_reads",
                                     "Readings of the cluster's profile (/version, discovery, /metrics), by result.",
                                     ("result",), registry=self.registry)
        self.profile_disagreements = Gauge("dra_webhook_cluster_profile_disagreements",
                                           "Flags (--kubernetes-version, --feature-gates) that say otherwise than "
                                           "the cluster, at the last reading.", registry=self.registry)
        # controller-runtime's names and labels (webhook = the request path).
        self.cr_requests = Counter("controller_runtime_webhook_requests",
                                   "Total number of admission requests by HTTP status code.",
                                   ("webhook", "code"), registry=self.registry)
        self.cr_latency = Histogram("controller_runtime_webhook_latency_seconds",
                                    "Histogram of the latency of processing admission requests.",
                                    ("webhook",), buckets=LATENCY_BUCKETS, registry=self.registry)
        self.cr_in_flight = Gauge("controller_runtime_webhook_requests_in_flight",
                                  "Current number of admission requests being served.",
                                  ("webhook",), registry=self.registry)

    def watch_workers(self, busy, ready, waiting) -> None:
        """Gauges read at scrape time from the worker pool."""
        Gauge("dra_webhook_requests_waiting", "Requests read and waiting for a free worker process.",
              registry=self.registry).set_function(waiting)
        Gauge("dra_webhook_workers_busy", "Worker processes reviewing a request now.",
              registry=self.registry).set_function(busy)
        Gauge("dra_webhook_workers_ready", "Worker processes started and able to review.",
              registry=self.registry).set_function(ready)

    def watch_budget(self, used) -> None:
        """The bytes held against --max-bytes-in-flight, read at scrape time."""
        Gauge("dra_webhook_bytes_in_flight", "Request body bytes received and reply bytes not yet sent, held "
              "against --max-bytes-in-flight.", registry=self.registry).set_function(used)

    def _per_path(self, path: str):
        # Label lookups take a lock and build a key: done once per path, not per request. The
        # in-flight gauges read a plain per-path count at scrape time (no lock per request).
        latency = self._children.get(path)
        if latency is None:
            self._in_flight[path] = 0
            for gauge in (self.in_flight, self.cr_in_flight):
                gauge.labels(path).set_function(lambda path=path: self._in_flight[path])
            latency = self._children[path] = self.cr_latency.labels(path)
        return latency

    def started(self, path: str) -> None:
        self._per_path(path)
        self._in_flight[path] += 1

    def finished(self, path: str, code: int, seconds: float) -> None:
        self._per_path(path).observe(seconds)
        self._in_flight[path] -= 1
        self._child(self.cr_requests, (path, code)).inc()

    def _child(self, metric, labels: tuple):
        # A labelled child looked up once (labels() takes a lock and builds its key every call);
        # every label value comes from a closed set, so the cache stays small.
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*(str(v) for v in labels))
        return child

    def reviewed_inline(self) -> None:
        self.inline_reviews.inc()

    def observe_review(self, path: str, kind: str, operation: str, allowed: bool, dry_run: bool,
                       seconds: float) -> None:
        key = (path, kind, operation, allowed, dry_run)
        children = self._children.get(key)
        if children is None:
            kind = kind if kind in KINDS else "other"
            operation = operation if operation in OPERATIONS else "other"
            labels = (path, kind, operation, _bool(allowed), _bool(dry_run))
            children = self._children[key] = (self._child(self.requests, labels), self._child(self.duration, labels))
        requests, duration = children
        requests.inc()
        duration.observe(seconds)

    def profile_mismatch(self, kind: str, rule: str) -> None:
        kind = kind if kind in KINDS else "other"
        rule = rule if rule in RULES else "other"
        self._child(self.profile_mismatches, (kind, rule)).inc()

    def cluster_profile_read(self, ok: bool) -> None:
        self.profile_reads.labels("success" if ok else "failure").inc()

    def cluster_profile_disagreements(self, count: int) -> None:
        self.profile_disagreements.set(count)

    def watch_cluster_state(self, state) -> None:
        """Gauges read at scrape time from serve --cluster-state's cache, and its event counter."""
        objects = Gauge("dra_webhook_cluster_state_objects", "Objects in the cluster-state cache, by kind.",
                        ("kind",), registry=self.registry)
        for kind in ("DeviceClass", "ResourceSlice", "DeviceTaintRule"):
            objects.labels(kind).set_function(lambda kind=kind: state.store.counts()[kind])
        Gauge("dra_webhook_cluster_state_devices", "Devices of the cached ResourceSlices.",
              registry=self.registry).set_function(lambda: state.store.devices)
        Gauge("dra_webhook_cluster_state_synced", "1 while every watch of the cluster-state cache runs after a "
              "complete list (admission checks use the cache only then).",
              registry=self.registry).set_function(lambda: 1 if state.synced else 0)
        Gauge("dra_webhook_cluster_state_age_seconds", "Seconds since the last list or watch event of the "
              "cluster-state cache (-1 before the first).", registry=self.registry).set_function(state.age_seconds)
        Gauge("dra_webhook_cluster_state_silence_seconds", "Seconds since the stalest watch of the cluster-state "
              "cache last heard from the API server (a list, event, bookmark or end of a watch; -1 before the "
              "first lists); past the read timeout the watch is dropped and listed again.",
              registry=self.registry).set_function(state.silence_seconds)
        Gauge("dra_webhook_cluster_state_relists", "Lists made again after a watch expired (410 Gone).",
              registry=self.registry).set_function(state.relists)
        self.state_events = Counter("dra_webhook_cluster_state_events",
                                    "Watch events and failures of the cluster-state cache, by kind and what.",
                                    ("kind", "event"), registry=self.registry)
        self.state_checks = Counter("dra_webhook_cluster_state_checks",
                                    "Admission checks against the cluster state, by result (warned, clean, "
                                    "unsynced, out_of_time, error).", ("result",), registry=self.registry)

    def cluster_state_event(self, kind: str, event: str) -> None:
        self._child(self.state_events, (kind, event)).inc()

    def cluster_state_checked(self, result: str) -> None:
        self._child(self.state_checks, (result,)).inc()

    def observe_rejected(self, path: str, code: int) -> None:
        self._child(self.rejected, (path, code)).inc()

    def certificate_loaded(self, not_after: datetime) -> None:
        self.cert_expiry.set(not_after.timestamp())

    def reload_attempted(self, ok: bool) -> None:
        self.cert_reloads.labels("success" if ok else "failure").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
