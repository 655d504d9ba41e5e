"""The Starlette app of the main port: POST /validate and /mutate, GET /healthz, /readyz, /metrics.

This process checks the envelope (content type, size, deadline), reads the body under a timeout and
a budget of bytes in flight (charged as they arrive, budget.py), and hands the body to a worker
process (pool.py), unless the review is known to be small: then it answers itself (inline.py).
Malformed requests get a 4xx with a one-line reason; overload a 429 and a missed deadline a 504,
each as a metav1.Status; nothing a client sends yields a 500 or a traceback. Replies are charged to
the same budget until sent, and a client that stops reading is cut off (writes.py). Request bodies
are never logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import asynccontextmanager
from typing import Callable

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from webhook import logs
from webhook.numbers import parse_decimal
from webhook.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from webhook.metrics import Metrics
from webhook.serving import timeouts
from webhook.serving.budget import ByteBudget, Charge
from webhook.serving.inline import InlineReviewer
from webhook.serving.limits import release_freed_memory_periodically
from webhook.serving.pool import Disconnected, Saturated, Timeout, WorkerLost, WorkerPool
from webhook.serving.settings import ServerSettings
from webhook.serving.statuses import status_body
from webhook.serving.worker import Job, Reply, timeout_reply
from webhook.serving.writes import REPLY_CHUNK_BYTES, WriteTimeout

log = logging.getLogger("dra-webhook")

REVIEW_PATHS = ("/validate", "/mutate")
# Allowed reviews are the bulk of the traffic and the metrics count them: their log line is at debug level,
# unless one took this long. Denials, refusals and errors are logged at info.
SLOW_REVIEW_SECONDS = 1.0


class BodyTooLarge(Exception):
    pass


class OverBudget(Exception):
    """A chunk of the body does not fit in --max-bytes-in-flight beside the other requests."""


def _plain(code: int, text: str) -> Reply:
    return Reply(code, (text + "\n").encode(), "text/plain; charset=utf-8", review={"reason": text})


def _status(code: int, reason: str, message: str) -> Reply:
    return Reply(code, status_body(code, reason, message), review={"reason": message})


def _envelope_headers(raw: list[tuple[bytes, bytes]]) -> tuple[str, str | None]:
    """Content-Type ("" when absent) and Content-Length (None when absent), from the ASGI scope's raw
    headers (lower-cased names; the first of each counts, as Starlette's Headers.get has it)."""
    content_type = length = None
    for name, value in raw:
        if name == b"content-type":
            if content_type is None:
                content_type = value.decode("latin-1")
        elif name == b"content-length" and length is None:
            length = value.decode("latin-1")
    return content_type or "", length


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def _read_body(request: Request, limit: int, charge: Charge) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge()
        if not charge.take(len(chunk)):
            raise OverBudget()
        chunks.append(chunk)
    return b"".join(chunks)


async def _wait_for_disconnect(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


class Admission:
    """The review endpoints' shared state: the pool, the limits and the counters of work in flight."""

    def __init__(self, settings: ServerSettings, pool: WorkerPool, metrics: Metrics,
                 inline: InlineReviewer | None = None, state=None) -> None:
        self.settings = settings
        self.state = state  # clusterstate.cache.ClusterState with --cluster-state
        self.pool = pool
        self.metrics = metrics
        self.inline = inline
        self.read_watch = timeouts.ReadWatch()
        self.requests_in_flight = 0  # reviews under way: their body is complete
        self.budget = ByteBudget(settings.max_bytes_in_flight)
        metrics.watch_budget(lambda: self.budget.used)

    async def endpoint(self, request: Request) -> Response:
        path = request.scope["path"]
        started = time.perf_counter()
        self.metrics.started(path)
        reply = None
        charge = self.budget.charge()
        try:
            reply = self._charge_answer(await self._answer(request, path, charge), charge)
        except BaseException:
            charge.release()
            raise
        finally:
            seconds = time.perf_counter() - started
            self.metrics.finished(path, reply.status if reply else 499, seconds)
        if reply.mismatches:
            for rule in reply.mismatches:
                self.metrics.profile_mismatch(reply.metric[0], rule)
            log.warning("built-in rule failed on an object the API server accepted: answered allowed with a "
                        "[profile-mismatch] warning", extra=logs.fields(path=path, rules=",".join(reply.mismatches),
                                                                        **reply.review))
        if reply.metric is not None:
            self.metrics.observe_review(path, *reply.metric, seconds)
            level = logging.DEBUG if reply.metric[2] and seconds < SLOW_REVIEW_SECONDS else logging.INFO
            if log.isEnabledFor(level):
                log.log(level, "admission review", extra=logs.fields(path=path, **reply.review,
                                                                     durationMs=round(seconds * 1000, 3)))
        else:
            self.metrics.observe_rejected(path, reply.status)
            log.info("request refused", extra=logs.fields(path=path, code=reply.status,
                                                          durationMs=round(seconds * 1000, 3), **reply.review))
        headers = {}
        if reply.status == 429:
            headers["Retry-After"] = "1"
        if reply.status in (408, 413) or reply.body_unread:
            headers["Connection"] = "close"  # the rest of the body is not read: the connection cannot go on
        return _Sent(reply.body, reply.status, headers=headers or None, media_type=reply.content_type,
                     charge=charge)

    @staticmethod
    def _charge_answer(reply: Reply, charge: Charge) -> Reply:
        """The body's bytes are gone once reviewed; the answer's count until it is sent. An answer
        that does not fit beside the others' bytes (a patch can be 4x its request) is not kept: a
        429 goes out instead, as for a body that does not fit."""
        charge.release()
        if charge.take(len(reply.body)):
            return reply
        refused = _status(429, "TooManyRequests", "dra-webhook is sending too many answer bytes already; retry")
        refused.body_unread = reply.body_unread
        charge.force(len(refused.body))
        return refused

    async def _answer(self, request: Request, path: str, charge: Charge) -> Reply:
        settings = self.settings
        content_type, declared = _envelope_headers(request.scope["headers"])
        if not _is_json(content_type):
            return _plain(415, "content type must be application/json")
        try:
            query_timeout = timeouts.timeout_parameter(request.scope["query_string"], lambda: request.query_params)
            seconds = timeouts.work_seconds(query_timeout, settings.request_timeout_seconds,
                                            settings.max_request_timeout_seconds)
        except ValueError as exc:
            return _plain(400, f"invalid timeout parameter: {exc}")
        deadline = time.monotonic() + seconds
        # A Content-Length of more than 30 digits is larger than any limit (and never converted).
        size = parse_decimal(declared, max_digits=30) if declared is not None else None
        if size is not None and size > settings.max_body_bytes or declared is not None and len(declared) > 30:
            return _plain(413, f"request body exceeds {settings.max_body_bytes} bytes")
        return await self._review(request, path, deadline, charge)

    async def _review(self, request: Request, path: str, deadline: float, charge: Charge) -> Reply:
        settings = self.settings
        now = time.monotonic()
        read_by = min(deadline, now + settings.body_read_timeout_seconds)
        task = asyncio.current_task()
        # The event loop's clock is time.monotonic() too, but say so rather than rely on it.
        self.read_watch.start(task, asyncio.get_running_loop().time() + (read_by - now))
        try:
            body = await _read_body(request, settings.max_body_bytes, charge)
        except BodyTooLarge:
            return _plain(413, f"request body exceeds {settings.max_body_bytes} bytes")
        except OverBudget:
            reply = _status(429, "TooManyRequests", "dra-webhook is reading too many request bytes already; retry")
            reply.body_unread = True
            return reply
        except ClientDisconnect:
            return _plain(400, "client disconnected")
        except asyncio.CancelledError:
            if self.read_watch.stop(task):
                return _plain(408, "request body not received in time")
            raise
        finally:
            self.read_watch.stop(task)
        # Only reviews count: a body still arriving is bounded by the body read timeout and its
        # connection by --max-connections.
        if self.requests_in_flight >= settings.max_requests_in_flight:
            return _status(429, "TooManyRequests", f"dra-webhook is handling {settings.max_requests_in_flight} "
                                                   f"requests already; retry")
        self.requests_in_flight += 1
        try:
            return await self._judge(path, body, deadline, request)
        finally:
            self.requests_in_flight -= 1

    async def _judge(self, path: str, body: bytes, deadline: float, request: Request) -> Reply:
        reply = await self._judge_object(path, body, deadline, request)
        if self.state is not None and path == "/validate" and reply.status == 200 and reply.metric is not None:
            from webhook.clusterstate.admission import add_warnings

            add_warnings(self.state, body, reply, self.metrics)
        return reply

    async def _judge_object(self, path: str, body: bytes, deadline: float, request: Request) -> Reply:
        job = Job(path, body)
        inline = self.inline
        if inline is not None and inline.eligible(body):
            reply = inline.review(job, deadline)
            if reply is not None:
                self.metrics.reviewed_inline()
                return reply
            job = Job(path, body, share_verdicts=True)  # so that the next one with its selectors stays here
        try:
            reply = await self.pool.run(job, deadline, lambda: _wait_for_disconnect(request))
            if reply.verdicts and inline is not None:
                inline.learn(reply.verdicts)
            return reply
        except Saturated:
            return _status(429, "TooManyRequests", "dra-webhook cannot start this request before its deadline; "
                                                   "retry")
        except Timeout:
            return timeout_reply()
        except Disconnected:
            return _plain(499, "client disconnected before the answer")
        except WorkerLost:
            return _status(503, "ServiceUnavailable", "dra-webhook worker process exited while reviewing; retry")


class _Sent(Response):
    """A Response that releases its request's charge once the connection has taken the reply (or
    died). A large reply goes out in REPLY_CHUNK_BYTES pieces, each handed over once the client has
    read enough of the ones before (uvicorn waits for a paused transport to drain), so a connection
    buffers no more than its transport's high-water mark, and the write timeout (writes.py) sees a
    client that stops reading."""

    def __init__(self, *args, charge: Charge, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._charge = charge

    async def __call__(self, scope, receive, send) -> None:
        try:
            body = self.body
            if len(body) <= REPLY_CHUNK_BYTES:
                await super().__call__(scope, receive, send)
                return
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            view = memoryview(body)
            for start in range(0, len(body), REPLY_CHUNK_BYTES):
                await send({"type": "http.response.body", "body": view[start:start + REPLY_CHUNK_BYTES],
                            "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._charge.release()


async def _unexpected(request: Request, exc: Exception) -> Response:
    # Last line of defence: endpoints catch their own errors, so reaching this is a bug of ours.
    log.exception("unhandled error on %s", request.url.path)
    return PlainTextResponse("internal error\n", status_code=500)


def state_note(state) -> str:
    """What /readyz adds with --cluster-state: whether the cache has synced (the webhook is ready either way:
    without the cache it answers without state warnings)."""
    if state is None:
        return ""
    if state.synced:
        return f" (cluster state: synced, {state.store.counts()['ResourceSlice']} ResourceSlices)"
    why = state.why_not_synced()
    return f" (cluster state: not synced{': ' + why if why else ''})"


async def healthz(_: Request) -> Response:
    return PlainTextResponse("ok\n")


def create_app(settings: ServerSettings, pool: WorkerPool, metrics: Metrics,
               readiness: Callable[[], str | None], inline: InlineReviewer | None = None,
               background: list | None = None, state=None) -> WriteTimeout:
    admission = Admission(settings, pool, metrics, inline, state)

    async def readyz(_: Request) -> Response:
        problem = readiness()
        if problem:
            return PlainTextResponse(f"not ready: {problem}\n", status_code=503)
        return PlainTextResponse(f"ok{state_note(state)}\n")

    async def metrics_endpoint(_: Request) -> Response:
        return Response(metrics.render(), media_type=METRICS_CONTENT_TYPE)

    @asynccontextmanager
    async def lifespan(_: Starlette):
        pool.attach(asyncio.get_running_loop())
        trimmer = asyncio.ensure_future(release_freed_memory_periodically())
        tasks = [asyncio.ensure_future(start()) for start in background or ()]
        yield
        trimmer.cancel()
        for task in tasks:
            task.cancel()

    routes = [Route(path, admission.endpoint, methods=["POST"]) for path in REVIEW_PATHS] + [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={Exception: _unexpected}, lifespan=lifespan)
    return WriteTimeout(app, settings.write_timeout_seconds)
