"""The HTTPS admission server: Starlette routes over uvicorn.

Routes: POST /validate, POST /mutate (AdmissionReview in, AdmissionReview out), GET /healthz
(the process answers), GET /readyz (the certificate being served is loaded and within its validity
period: a check of the loaded certificate, not a TLS call to our own port), GET /metrics
(Prometheus). Malformed requests get a 4xx with a one-line reason; nothing a client sends yields a
500 or a traceback. Request bodies are never logged. The serving certificate is reloaded from its
files without a restart (tlsreload), and SIGTERM lets requests in flight finish.
"""

from __future__ import annotations

import json
import logging
import ssl
import time
from dataclasses import dataclass
from functools import partial
from typing import Awaitable, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from webhook import admit, logs, tlsreload
from webhook.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from webhook.metrics import Metrics
from webhook.profile import DEFAULT, Profile
from webhook.review import AdmissionRequest, AdmissionResponse, ReviewError, decode_review, encode_review

log = logging.getLogger("dra-webhook")

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
    profile: Profile = DEFAULT  # the cluster the verdicts are for (--kubernetes-version, --feature-gates)

    def tls_options(self) -> tlsreload.TLSOptions:
        return tlsreload.TLSOptions(self.cert_file or "", self.key_file or "", TLS_VERSIONS[self.tls_min_version],
                                    self.client_ca_file)


class BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


def _reject_constant(name: str) -> None:
    # Go's encoding/json knows no NaN or Infinity; neither does the API server.
    raise ValueError(f"{name} is not valid JSON")


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


Handler = Callable[[AdmissionRequest], AdmissionResponse]


async def _answer(request: Request, handler: Handler,
                  settings: ServerSettings) -> Response | tuple[AdmissionRequest, AdmissionResponse]:
    """The review's request and response, or the 4xx response refusing a malformed request."""
    if not _is_json(request.headers.get("content-type", "")):
        return PlainTextResponse("content type must be application/json\n", status_code=415)
    try:
        body = await _read_body(request, settings.max_body_bytes)
    except BodyTooLarge:
        return PlainTextResponse(f"request body exceeds {settings.max_body_bytes} bytes\n", status_code=413)
    except ClientDisconnect:
        return PlainTextResponse("client disconnected\n", status_code=400)
    try:
        parsed = json.loads(body, parse_constant=_reject_constant)
    except RecursionError:
        return PlainTextResponse("invalid AdmissionReview: JSON nested too deeply\n", status_code=400)
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "not JSON"
        return PlainTextResponse(f"invalid AdmissionReview: body is not valid JSON: {reason}\n", status_code=400)
    try:
        review_request = decode_review(parsed)
    except ReviewError as exc:
        return PlainTextResponse(f"invalid AdmissionReview: {exc}\n", status_code=400)
    response = await run_in_threadpool(handler, review_request)
    return review_request, response


def _review_endpoint(handler: Handler, settings: ServerSettings,
                     metrics: Metrics) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        path = request.url.path
        started = time.perf_counter()
        metrics.in_flight.labels(path).inc()
        try:
            outcome = await _answer(request, handler, settings)
        finally:
            metrics.in_flight.labels(path).dec()
        seconds = time.perf_counter() - started
        if isinstance(outcome, Response):
            metrics.observe_rejected(path, outcome.status_code)
            log.info("request refused", extra=logs.fields(path=path, code=outcome.status_code,
                                                          durationMs=round(seconds * 1000, 3)))
            return outcome
        review_request, response = outcome
        metrics.observe_review(path, review_request, response, seconds)
        log.info("admission review", extra={"fields": logs.request_fields(path, review_request, response, seconds)})
        return JSONResponse(encode_review(response, review_request.review_api_version))

    return endpoint


async def _unexpected(request: Request, exc: Exception) -> Response:
    # Last line of defence: endpoints catch their own errors, so reaching this is a bug of ours.
    log.exception("unhandled error on %s", request.url.path)
    return PlainTextResponse("internal error\n", status_code=500)


async def healthz(_: Request) -> Response:
    return PlainTextResponse("ok\n")


def create_app(settings: ServerSettings, metrics: Metrics | None = None,
               reloader: tlsreload.CertificateReloader | None = None) -> Starlette:
    metrics = metrics or Metrics()

    async def readyz(_: Request) -> Response:
        # Without TLS (local debugging) there is no certificate to be ready with.
        problem = reloader and tlsreload.certificate_problem(reloader.current.certificate)
        if problem:
            return PlainTextResponse(f"not ready: {problem}\n", status_code=503)
        return PlainTextResponse("ok\n")

    async def metrics_endpoint(_: Request) -> Response:
        return Response(metrics.render(), media_type=METRICS_CONTENT_TYPE)

    routes = [
        Route("/validate", _review_endpoint(partial(admit.validate, profile=settings.profile), settings, metrics),
              methods=["POST"]),
        Route("/mutate", _review_endpoint(partial(admit.mutate, profile=settings.profile), settings, metrics),
              methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={Exception: _unexpected})


class _TLSConfig(uvicorn.Config):
    """uvicorn's Config with our own SSLContext (minimum TLS version, client CA, hot reload)."""

    def __init__(self, *args, tls_context: ssl.SSLContext | None = None, **kwargs):
        self._tls_context = tls_context
        super().__init__(*args, **kwargs)

    def load(self) -> None:
        super().load()
        if self._tls_context is not None:
            self.ssl = self._tls_context


def run(settings: ServerSettings) -> None:
    metrics = Metrics()
    reloader = None
    if not settings.insecure_http:
        reloader = tlsreload.CertificateReloader(
            settings.tls_options(), on_load=lambda pair: metrics.certificate_loaded(pair.not_after),
            on_attempt=metrics.reload_attempted)
    app = create_app(settings, metrics, reloader)
    config = _TLSConfig(
        app,
        host=settings.host,
        port=settings.port,
        ssl_certfile=None if settings.insecure_http else settings.cert_file,
        ssl_keyfile=None if settings.insecure_http else settings.key_file,
        tls_context=reloader and reloader.listener_context(),
        log_config=None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
    )
    scheme = "http" if settings.insecure_http else "https"
    log.info("serving", extra=logs.fields(url=f"{scheme}://{settings.host}:{settings.port}",
                                          clientCertificates="required" if settings.client_ca_file else "not asked",
                                          reloadIntervalSeconds=settings.reload_interval_seconds))
    if reloader:
        reloader.start(settings.reload_interval_seconds)
    try:
        uvicorn.Server(config).run()
    finally:
        if reloader:
            reloader.stop()
