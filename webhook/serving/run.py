"""Wiring: certificates, worker processes, the health port, uvicorn with our limits; SIGTERM, SIGINT
and SIGHUP let requests in flight finish. The serving certificate is reloaded from its files without a restart."""

from __future__ import annotations

import gc
import logging
from dataclasses import replace

import uvicorn

from webhook import logs, tlsreload
from webhook.metrics import Metrics
from webhook.serving.accept import ConnectionFactory
from webhook.serving.app import create_app
from webhook.serving.health import HealthServer
from webhook.serving.inline import InlineReviewer
from webhook.serving.limits import HeadBudget
from webhook.serving.pool import WorkerPool
from webhook.serving import worker
from webhook.serving.settings import DEFAULT_MAX_BODY_BYTES, ServerSettings
from webhook.serving.shutdown import DrainingServer

log = logging.getLogger("dra-webhook")


class ServingConfig(uvicorn.Config):
    """uvicorn's Config with the header read timeout LimitedH11Protocol reads. TLS is not
    uvicorn's: the protocol factory (serving/accept.py) wraps each accepted connection itself."""

    def __init__(self, *args, header_read_timeout: float = 32.0, max_buffered_header_bytes: int = 32 << 20,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, **kwargs):
        self.header_read_timeout = header_read_timeout
        self.max_body_bytes = max_body_bytes  # what a chunked body may cost (serving/chunks.py)
        self.head_budget = HeadBudget(max_buffered_header_bytes)
        super().__init__(*args, **kwargs)


def readiness_check(pool: WorkerPool, reloader: tlsreload.CertificateReloader | None):
    def problem() -> str | None:
        # Without TLS (local debugging) there is no certificate to be ready with.
        certificate = reloader and tlsreload.certificate_problem(reloader.current.certificate)
        if certificate:
            return certificate
        if pool.ready_workers() == 0:
            return "no worker process is running"
        return None

    return problem


def run(settings: ServerSettings, log_level: str = "info") -> None:
    metrics = Metrics()
    background = []  # coroutines run beside the server (on its event loop) until it stops
    follower = None
    if settings.profile_source is not None:
        from webhook.clusterstate import profilesource

        profile, found = profilesource.at_start(settings.profile_source, settings.profile, metrics)
        settings = replace(settings, profile=profile)
        follower = profilesource.Follower(settings.profile_source, profile, lambda p: None, metrics, found)
        background.append(follower.run)
    reloader = None
    if not settings.insecure_http:
        reloader = tlsreload.CertificateReloader(
            settings.tls_options(), on_load=lambda pair: metrics.certificate_loaded(pair.not_after),
            on_attempt=metrics.reload_attempted)
    pool = WorkerPool(settings.workers, settings.cel_engine, log_level, settings.profile,
                      settings.enforce_builtin_rules)
    metrics.watch_workers(pool.busy_workers, pool.ready_workers, pool.waiting_requests)
    inline = None
    if settings.inline_max_body_bytes:
        from webhook import admit, cel  # noqa: F401 - imported before serving, and kept out of the collector

        cel.configure(settings.cel_engine)
        inline = InlineReviewer(settings.profile, settings.inline_max_body_bytes, settings.enforce_builtin_rules)
    state = None
    if settings.cluster_state is not None:
        from webhook.clusterstate.cache import ClusterState
        from webhook.clusterstate.store import Store

        state = ClusterState(settings.cluster_state, Store(settings.profile), metrics)
        background.append(state.run)
    if follower is not None:
        def apply(profile) -> None:
            pool.set_profile(profile)
            if inline is not None:
                inline.profile = profile
            if state is not None:
                state.store.profile = profile
                state.matching.clear()

        follower.apply = apply
    readiness = readiness_check(pool, reloader)
    from webhook.serving.app import state_note

    health = HealthServer(settings.host, settings.health_port, readiness,
                          lambda: state_note(state)) if settings.health_port else None
    # The TLS context of each new connection is the newest good one (reloaded certificate, client CA).
    connections = ConnectionFactory(settings.max_connections, settings.header_read_timeout_seconds,
                                    reloader and (lambda: reloader.current.context))
    config = ServingConfig(
        create_app(settings, pool, metrics, readiness, inline, background=background, state=state),
        host=settings.host,
        port=settings.port,
        http=connections,  # type: ignore[arg-type] - called like a protocol class, for each accepted connection
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.idle_timeout_seconds,
        header_read_timeout=settings.header_read_timeout_seconds,
        max_buffered_header_bytes=settings.max_buffered_header_bytes,
        max_body_bytes=settings.max_body_bytes,
        backlog=2048,
        log_config=None,
        access_log=False,
        server_header=False,
        # The API server calls the webhook directly: no proxy's X-Forwarded-* headers to believe.
        proxy_headers=False,
        timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
    )
    pool.start()
    try:
        scheme = "http" if settings.insecure_http else "https"
        log.info("serving", extra=logs.fields(
            url=f"{scheme}://{settings.host}:{settings.port}", healthPort=settings.health_port or "",
            workers=settings.workers, requestTimeoutSeconds=settings.request_timeout_seconds,
            clientCertificates="required" if settings.client_ca_file else "not asked",
            reloadIntervalSeconds=settings.reload_interval_seconds))
        if health:
            health.start()
        if reloader:
            reloader.start(settings.reload_interval_seconds)
        # What exists now lives until exit: keep it out of every collection (no long GC pauses), and
        # collect the young generation less often: a review builds many short-lived objects, which are
        # freed by reference counting before a collection would have to look at them.
        gc.collect()
        gc.freeze()
        gc.set_threshold(*worker.GC_THRESHOLDS)
        server = DrainingServer(config)
        server.run()
        log.info("stopped", extra=logs.fields(signal=server.stop_signal or ""))
    finally:
        if health:
            health.stop()
        if reloader:
            reloader.stop()
        pool.stop()
