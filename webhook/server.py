"""The HTTPS admission server: Starlette routes over uvicorn.

Routes: POST /validate, POST /mutate (AdmissionReview in, AdmissionReview out), GET /healthz,
GET /readyz. Malformed requests get a 4xx with a one-line reason; nothing a client sends yields a
500 or a traceback. Request bodies are never logged.
"""

from __future__ import annotations

import json
import logging
import ssl
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from webhook import admit
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
    graceful_shutdown_seconds: float = 10.0


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


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _log_request(path: str, req: AdmissionRequest, resp: AdmissionResponse, started: float) -> None:
    obj = req.object if isinstance(req.object, dict) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    log.info(json.dumps({
        "msg": "admission review",
        "path": path,
        "uid": req.uid,
        "kind": req.kind.kind or obj.get("kind"),
        "name": meta.get("name") or req.name,
        "namespace": req.namespace or meta.get("namespace") or "",
        "operation": req.operation,
        "subResource": req.sub_resource,
        "dryRun": req.dry_run,
        "allowed": resp.allowed,
        "code": (resp.status or {}).get("code", 200),
        "durationMs": round((time.perf_counter() - started) * 1000, 3),
    }, default=str))


Handler = Callable[[AdmissionRequest], AdmissionResponse]


def _review_endpoint(handler: Handler, settings: ServerSettings) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        if not _is_json(request.headers.get("content-type", "")):
            return PlainTextResponse("content type must be application/json\n", status_code=415)
        try:
            body = await _read_body(request, settings.max_body_bytes)
        except BodyTooLarge:
            return PlainTextResponse(f"request body exceeds {settings.max_body_bytes} bytes\n", status_code=413)
        except ClientDisconnect:
            return PlainTextResponse("client disconnected\n", status_code=400)
        try:
            parsed = json.loads(body)
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
        _log_request(request.url.path, review_request, response, started)
        return JSONResponse(encode_review(response, review_request.review_api_version))

    return endpoint


async def _unexpected(request: Request, exc: Exception) -> Response:
    # Last line of defence: endpoints catch their own errors, so reaching this is a bug of ours.
    log.exception("unhandled error on %s", request.url.path)
    return PlainTextResponse("internal error\n", status_code=500)


async def healthz(_: Request) -> Response:
    return PlainTextResponse("ok\n")


def create_app(settings: ServerSettings) -> Starlette:
    async def readyz(_: Request) -> Response:
        return PlainTextResponse("ok\n")

    routes = [
        Route("/validate", _review_endpoint(admit.validate, settings), methods=["POST"]),
        Route("/mutate", _review_endpoint(admit.mutate, settings), methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={Exception: _unexpected})


def ssl_context(settings: ServerSettings) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = TLS_VERSIONS[settings.tls_min_version]
    context.load_cert_chain(settings.cert_file, settings.key_file)
    return context


class _TLSConfig(uvicorn.Config):
    """uvicorn's Config with our own SSLContext (minimum TLS version, later hot reload)."""

    def __init__(self, *args, tls_context: ssl.SSLContext | None = None, **kwargs):
        self._tls_context = tls_context
        super().__init__(*args, **kwargs)

    def load(self) -> None:
        super().load()
        if self._tls_context is not None:
            self.ssl = self._tls_context


def run(settings: ServerSettings) -> None:
    app = create_app(settings)
    tls = None if settings.insecure_http else ssl_context(settings)
    config = _TLSConfig(
        app,
        host=settings.host,
        port=settings.port,
        ssl_certfile=None if settings.insecure_http else settings.cert_file,
        ssl_keyfile=None if settings.insecure_http else settings.key_file,
        tls_context=tls,
        log_config=None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
    )
    scheme = "http" if settings.insecure_http else "https"
    log.info(json.dumps({"msg": "serving", "url": f"{scheme}://{settings.host}:{settings.port}"}))
    uvicorn.Server(config).run()
