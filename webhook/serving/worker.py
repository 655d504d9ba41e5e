"""One worker process: parse the body, review it, encode the answer, all off the server's event loop.

The server process only accepts, speaks TLS and HTTP, and answers probes; JSON parsing and the
checks (CEL compilation included) run here, so the interpreter lock they hold is not the one the
event loop and the health thread need. A job is one request with its deadline (time.monotonic(),
the same clock in every process); a `Cancel` sent while it runs (the client disconnected) ends it
at the next deadline check.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import pickle
import select
import signal
import struct
import time
from dataclasses import dataclass, field

from webhook import jsonload, logs
from webhook.field import TRUNCATED, bounded_echo
from webhook.profile import DEFAULT, Profile
from webhook.serving import mismatch
from webhook.serving.memory import release_freed_memory
from webhook.serving.statuses import status_body

log = logging.getLogger("dra-webhook")


@dataclass(frozen=True)
class Job:
    path: str
    body: bytes
    deadline: float = 0.0
    sequence: int = 0
    share_verdicts: bool = False  # return the CEL verdicts compiled for it (the server caches them too)


@dataclass(frozen=True)
class Cancel:
    sequence: int


@dataclass(frozen=True)
class NewProfile:
    """The cluster's profile changed (read again from the cluster): reviews after this one use it."""

    profile: Profile


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"
    review: dict = field(default_factory=dict)  # log fields of an answered review (strings only)
    metric: tuple | None = None  # (kind, operation, allowed, dry_run) of an answered review
    body_unread: bool = False  # the server's own: refused before the whole body was read (close after)
    verdicts: tuple = ()  # (cache key, verdict, pinned) compiled for a job with share_verdicts
    mismatches: tuple = ()  # the built-in rules that failed on an object answered allowed (mismatch.py)


# The wire between server and worker: raw bytes, one pipe message per job, cancel and reply (no
# pickled classes; a job's body is sent as it came). Job: b"J", deadline, sequence, share_verdicts,
# path length, path, body. Cancel: b"C", sequence. Reply: a pickled tuple of Reply's fields.
_JOB_HEAD = struct.Struct("<dQ?H")
_CANCEL = struct.Struct("<Q")


def encode_job(job: Job) -> bytes:
    path = job.path.encode()
    return b"J" + _JOB_HEAD.pack(job.deadline, job.sequence, job.share_verdicts, len(path)) + path + job.body


def encode_cancel(sequence: int) -> bytes:
    return b"C" + _CANCEL.pack(sequence)


def encode_profile(profile: Profile) -> bytes:
    return b"P" + pickle.dumps(profile, pickle.HIGHEST_PROTOCOL)


def decode_message(data: bytes) -> Job | Cancel | NewProfile:
    if data[:1] == b"C":
        return Cancel(_CANCEL.unpack_from(data, 1)[0])
    if data[:1] == b"P":  # from the server process only (a profile it built), never from a client
        return NewProfile(pickle.loads(data[1:]))
    deadline, sequence, share_verdicts, size = _JOB_HEAD.unpack_from(data, 1)
    start = 1 + _JOB_HEAD.size
    return Job(data[start:start + size].decode(), data[start + size:], deadline, sequence, share_verdicts)


def encode_reply(reply: Reply) -> bytes:
    return pickle.dumps((reply.status, reply.body, reply.content_type, reply.review, reply.metric,
                         reply.verdicts, reply.mismatches), pickle.HIGHEST_PROTOCOL)


def decode_reply(data: bytes) -> Reply | tuple:
    """A Reply, or the ("ready", pid) a worker sends once it has started."""
    message = pickle.loads(data)
    if message[0] == "ready":
        return message
    status, body, content_type, review, metric, verdicts, mismatches = message
    # `body_unread` is the server's own
    return Reply(status, body, content_type, review, metric, verdicts=verdicts, mismatches=mismatches)


TRIM_AFTER_BYTES = 1024 * 1024
GC_THRESHOLDS = (50_000, 50, 100)
WORKER_NICENESS = 5


def _reject_constant(name: str) -> None:
    # Go's encoding/json knows no NaN or Infinity; neither does the API server.
    raise ValueError(f"{name} is not valid JSON")


# A refusal quotes the request (`kind must be AdmissionReview, not '…'`): a bounded part of it, so
# that a refusal is never larger than what caused it.
REFUSAL_MESSAGE_CHARS = 1024


def _refuse(message: str) -> Reply:
    if len(message) > REFUSAL_MESSAGE_CHARS:
        message = message[:REFUSAL_MESSAGE_CHARS] + TRUNCATED
    text = f"invalid AdmissionReview: {message}"
    return Reply(400, f"{text}\n".encode(), "text/plain; charset=utf-8", review={"reason": logs.text(text)})


@functools.cache
def _review_modules():
    """The review stack, imported on first use (a server that never reviews in-process never loads it)."""
    from webhook import admit, cel, metrics, review

    return admit, cel, metrics.KINDS, metrics.OPERATIONS, review


def handle(job: Job, deadline, profile: Profile = DEFAULT, enforce_builtin: bool = True) -> Reply:
    """The reply to one job; `deadline()` is the monotonic time at which work must stop. Without
    `enforce_builtin` (serve's default), a built-in rule's failure is answered allowed (mismatch.py)."""
    admit, cel, KINDS, OPERATIONS, review = _review_modules()
    try:
        parsed = jsonload.loads(job.body, parse_constant=_reject_constant)
    except RecursionError:
        return _refuse("JSON nested too deeply")
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "not JSON"
        return _refuse(f"body is not valid JSON: {reason}")
    try:
        request = review.decode_review(parsed)
    except review.ReviewError as exc:
        return _refuse(str(exc))
    try:
        # What the reply echoes of the request is bounded (field.py, review.py): replies never amplify.
        with (cel.request_deadline(deadline), cel.recording_verdicts(job.share_verdicts) as verdicts,
              bounded_echo()):
            cel.check_deadline()
            if job.path == "/mutate":
                response = admit.mutate(request, profile=profile, in_place=True)
            else:
                response = admit.validate(request, profile=profile)
    except cel.DeadlineExceeded:
        return timeout_reply()
    kind = request.kind.kind if request.kind.kind in KINDS else "other"
    mismatches: tuple = ()
    if not enforce_builtin and job.path == "/validate":
        response, mismatches = mismatch.relax(response, kind, profile)
    review.bound_echoes(response)
    operation = request.operation if request.operation in OPERATIONS else "other"
    return Reply(200, review.encode_review_bytes(response, request.review_api_version),
                 review=logs.review_fields(request, response),
                 metric=(kind, operation, response.allowed, request.dry_run),
                 verdicts=tuple(verdicts) if verdicts else (), mismatches=mismatches)


TIMEOUT_MESSAGE = "dra-webhook: the request's deadline passed before the checks were done; the object was not judged"


def timeout_reply() -> Reply:
    return Reply(504, status_body(504, "Timeout", TIMEOUT_MESSAGE), review={"reason": TIMEOUT_MESSAGE})


def serve(connection, cel_engine: str, log_level: str, profile: Profile = DEFAULT,
          enforce_builtin: bool = True) -> None:
    """The worker's main loop: one job in, one reply out, until the server closes the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when workers stop
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # (a terminal's hangup reaches the whole group)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The server process comes first: a worker woken by a new job must not preempt the event loop
    # that accepts, speaks TLS and answers probes (it would, on a busy CPU, as a pipe wakeup puts it
    # on the writer's CPU). Workers run on what the server leaves.
    os.nice(WORKER_NICENESS)
    logs.setup(log_level)
    from webhook import admit, cel  # noqa: F401 - import everything before saying "ready"

    cel.configure(cel_engine)
    # Long-lived module state (schemas, environments) is never garbage: keep the collector off it,
    # and collect the young generations less often (jobs build large short-lived trees).
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    connection.send(("ready", os.getpid()))

    job = Job("", b"")
    cancelled = -1
    newer: list[Profile] = []  # a profile that arrived while a job ran: used from the next job on
    # One poll object for every check (Connection.poll builds a selector each time).
    pending = select.poll()
    pending.register(connection.fileno(), select.POLLIN)

    def deadline() -> float:
        # Called at every deadline check: a cancel for this job may be waiting in the pipe.
        nonlocal cancelled
        while pending.poll(0):
            try:
                message = decode_message(connection.recv_bytes())
            except (EOFError, OSError):
                return 0.0  # the server is gone: stop; the main loop sees the EOF
            if isinstance(message, Cancel):
                cancelled = message.sequence
            elif isinstance(message, NewProfile):
                newer.append(message.profile)
        return 0.0 if cancelled == job.sequence else job.deadline

    while True:
        try:
            job = decode_message(connection.recv_bytes())
        except (EOFError, OSError):
            return
        if newer:
            profile = newer[-1]
            newer.clear()
        if isinstance(job, NewProfile):
            profile = job.profile
            continue
        if isinstance(job, Cancel):  # for a job already answered
            continue
        started = time.monotonic()
        try:
            reply = handle(job, deadline, profile, enforce_builtin)
        except Exception:  # a bug of ours: a clean 500, and the worker lives on
            log.exception("internal error in worker")
            reply = Reply(500, status_body(500, "InternalError", "dra-webhook internal error"),
                          review={"reason": "internal error"})
        reply.review["workMs"] = round((time.monotonic() - started) * 1000, 3)
        if len(job.body) > TRIM_AFTER_BYTES:
            release_freed_memory()  # a big body's parse tree is gone: so is its memory
        try:
            connection.send_bytes(encode_reply(reply))
        except (BrokenPipeError, OSError):
            return
