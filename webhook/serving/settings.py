"""Everything `dra-webhook serve` can be told, with defaults taken from kube-apiserver's own server
(header read timeout 32 s, idle 90 s) and its webhook client (10 s timeout, small request heads)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass

from webhook import tlsreload
from webhook.profile import DEFAULT, Profile

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


@dataclass(frozen=True)
class ServerSettings:
    host: str = "0.0.0.0"
    port: int = 8443
    cert_file: str | None = None
    key_file: str | None = None
    insecure_http: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    tls_min_version: str = "1.2"
    client_ca_file: str | None = None
    reload_interval_seconds: float = tlsreload.DEFAULT_INTERVAL_SECONDS
    graceful_shutdown_seconds: float = 10.0
    # Plain-HTTP /healthz and /readyz on their own thread; None: only on the main port.
    health_port: int | None = None
    # Time: used when the API server sends no ?timeout= (its default webhook timeout is 10 s).
    request_timeout_seconds: float = 10.0
    # No request works longer, whatever its ?timeout=: the API server never waits longer for a webhook
    # (timeoutSeconds is at most 30).
    max_request_timeout_seconds: float = 30.0
    # Bounded work.
    workers: int = 2
    # Reviews of bodies up to this size whose CEL selectors are compiled run in the server process (0: never).
    inline_max_body_bytes: int = 16 * 1024
    max_requests_in_flight: int = 64
    max_bytes_in_flight: int = 64 * 1024 * 1024
    # Connections.
    header_read_timeout_seconds: float = 32.0
    body_read_timeout_seconds: float = 32.0
    idle_timeout_seconds: float = 90.0
    # A client that takes none of its reply for this long is cut off (its reply's memory is freed).
    write_timeout_seconds: float = 30.0
    # Request heads: one (an AdmissionReview POST's is a few KiB at most), and all those still being received.
    max_header_bytes: int = 64 * 1024
    max_buffered_header_bytes: int = 32 * 1024 * 1024
    max_connections: int = 4096
    cel_engine: str = "auto"
    profile: Profile = DEFAULT  # the cluster the verdicts are for (--kubernetes-version, --feature-gates)
    # Deny on a built-in rule's failure (--enforce-builtin-rules); by default it is a [profile-mismatch] warning.
    enforce_builtin_rules: bool = False
    # Where the profile is read from the cluster (clusterstate.profilesource.Source); None: the flags alone.
    profile_source: object = None
    # The live cluster state for admission warnings (clusterstate.cache.Settings); None: off.
    cluster_state: object = None

    def tls_options(self) -> tlsreload.TLSOptions:
        return tlsreload.TLSOptions(self.cert_file or "", self.key_file or "", TLS_VERSIONS[self.tls_min_version],
                                    self.client_ca_file)
