"""A fixed set of worker processes, driven from the event loop without threads.

Each worker takes one job at a time over its own pipe; the event loop waits on the pipes with
`add_reader`. A request waits for a free worker only while its deadline allows: when the queue in
front of it would outlast its deadline it is refused at once (Saturated, answered 429), which is
cheaper for everyone than a 504 later. Small requests go first, and large ones never hold the last
worker (SMALL_BODY_BYTES). A job whose caller has gone (deadline passed, client disconnected) is
cancelled over the pipe, so the worker stops at its next deadline check; a
worker that is still busy `KILL_GRACE_SECONDS` later is killed and replaced, so capacity always
comes back.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import multiprocessing
import time
from dataclasses import dataclass, replace
from typing import Awaitable, Callable, NamedTuple

from webhook.logs import fields
from webhook.profile import DEFAULT, Profile
from webhook.serving import worker

log = logging.getLogger("dra-webhook")

KILL_GRACE_SECONDS = 2.0
# Bodies above this size are "large": together they may hold all workers but one, so ordinary
# requests always find a worker soon. Review work grows with the body (CEL compilation with the
# bytes of the expressions), so a flood of big claims cannot starve the small ones.
SMALL_BODY_BYTES = 64 * 1024
WATCH_AFTER_SECONDS = 0.05
START_SECONDS = 120.0


class Saturated(Exception):
    """No worker will be free before the request's deadline."""


class Timeout(Exception):
    """The deadline passed before the reply."""


class WorkerLost(Exception):
    """The worker process running the job exited."""


class Disconnected(Exception):
    """The client went away before the reply."""


@dataclass(eq=False)
class _Worker:
    slot: int
    process: multiprocessing.process.BaseProcess
    connection: object
    ready: bool = False
    future: asyncio.Future | None = None
    large: bool = False
    sequence: int = 0
    started: float = 0.0


class _Dispatched(NamedTuple):
    worker: _Worker
    sequence: int
    reply: asyncio.Future


@dataclass(eq=False)
class _Waiting:
    job: worker.Job
    deadline: float
    started: asyncio.Future  # resolves to a _Dispatched once a worker has the job


class WorkerPool:
    def __init__(self, count: int, cel_engine: str, log_level: str, profile: Profile = DEFAULT,
                 enforce_builtin: bool = True) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._enforce_builtin = enforce_builtin
        self.count = count
        self._profile = profile
        self._cel_engine = cel_engine
        self._log_level = log_level
        self._workers: list[_Worker] = []
        self._idle: collections.deque[_Worker] = collections.deque()
        self._waiters: collections.deque[_Waiting] = collections.deque()  # small requests
        self._large_waiters: collections.deque[_Waiting] = collections.deque()
        self._large_busy = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        self.mean_seconds = 0.01  # moving average of job time, for the queue estimate

    # Life cycle ------------------------------------------------------------------------------

    def _spawn(self, slot: int) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(target=worker.serve, name=f"dra-webhook-worker-{slot}", daemon=True,
                                        args=(child, self._cel_engine, self._log_level, self._profile,
                                              self._enforce_builtin))
        process.start()
        child.close()
        return _Worker(slot, process, parent)

    def start(self) -> None:
        """Starts every worker and waits until each has imported everything (before serving)."""
        self._workers = [self._spawn(slot) for slot in range(self.count)]
        for w in self._workers:
            if not w.connection.poll(START_SECONDS):
                raise RuntimeError(f"worker {w.slot} did not start within {START_SECONDS:.0f} s")
            try:
                w.connection.recv()
            except EOFError:
                raise RuntimeError(f"worker {w.slot} exited while starting (code {w.process.exitcode})") from None
            w.ready = True

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        for w in self._workers:
            loop.add_reader(w.connection.fileno(), self._readable, w)
            self._idle.append(w)

    def stop(self) -> None:
        self._stopping = True
        for w in self._workers:
            if self._loop is not None and not self._loop.is_closed():
                try:
                    self._loop.remove_reader(w.connection.fileno())
                except (ValueError, OSError):
                    pass
            w.connection.close()  # the worker sees EOF and returns
        for w in self._workers:
            w.process.join(2.0)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(2.0)

    def set_profile(self, profile: Profile) -> None:
        """Every worker reviews with `profile` from its next job on; replacements start with it."""
        self._profile = profile
        for w in self._workers:
            try:
                w.connection.send_bytes(worker.encode_profile(profile))
            except (BrokenPipeError, OSError):
                pass  # it is gone: its replacement is spawned with the new profile

    def ready_workers(self) -> int:
        return sum(1 for w in self._workers if w.ready)

    def waiting_requests(self) -> int:
        return sum(1 for q in (self._waiters, self._large_waiters) for waiting in q if not waiting.started.done())

    def busy_workers(self) -> int:
        return sum(1 for w in self._workers if w.future is not None)

    # Scheduling ------------------------------------------------------------------------------

    def _large_limit(self) -> int:
        return max(1, self.count - 1)

    def _send(self, w: _Worker, job: worker.Job, deadline: float, large: bool) -> _Dispatched:
        """Starts `job` on the free worker `w`; raises WorkerLost when its pipe is gone."""
        if large:
            w.large = True
            self._large_busy += 1
        w.sequence += 1
        w.started = time.monotonic()
        w.future = self._loop.create_future()
        try:
            w.connection.send_bytes(worker.encode_job(replace(job, deadline=deadline, sequence=w.sequence)))
        except (BrokenPipeError, OSError):
            self._lost(w)
            raise WorkerLost() from None
        return _Dispatched(w, w.sequence, w.future)

    def _release(self, w: _Worker) -> None:
        """Starts the next small request on a free worker, else the next large one if the reserve
        allows, else keeps the worker idle. The job is sent here, in the callback that freed the
        worker, so the worker never waits for the waiting request's task to be scheduled."""
        if w.large:
            w.large = False
            self._large_busy -= 1
        for queue, large in ((self._waiters, False), (self._large_waiters, True)):
            if large and self._large_busy >= self._large_limit():
                break
            while queue:
                waiting = queue.popleft()
                if waiting.started.done():
                    continue  # its request timed out or was cancelled while queued
                try:
                    waiting.started.set_result(self._send(w, waiting.job, waiting.deadline, large))
                except WorkerLost as lost:
                    waiting.started.set_exception(lost)
                return
        self._idle.append(w)

    async def _dispatch(self, job: worker.Job, deadline: float, large: bool) -> _Dispatched:
        if self._idle and not (large and self._large_busy >= self._large_limit()):
            # The worker freed last: its CEL cache is the warmest (a retry, or the next request
            # with the same selectors, finds them compiled); under load every worker is busy anyway.
            return self._send(self._idle.pop(), job, deadline, large)
        queue = self._large_waiters if large else self._waiters
        lanes = self._large_limit() if large else self.count
        remaining = deadline - time.monotonic()
        if (len(queue) + 1) * self.mean_seconds / lanes > remaining:
            raise Saturated()
        waiting = _Waiting(job, deadline, self._loop.create_future())
        queue.append(waiting)
        try:
            return await asyncio.wait_for(waiting.started, remaining)
        except asyncio.TimeoutError:
            raise Timeout() from None
        except asyncio.CancelledError:
            started = waiting.started
            if started.done() and not started.cancelled() and started.exception() is None:
                self._abandon(started.result())  # started while being cancelled: stop it
            raise

    async def run(self, job: worker.Job, deadline: float,
                  wait_for_disconnect: Callable[[], Awaitable[None]]) -> worker.Reply:
        """The worker's reply; raises Saturated, Timeout, WorkerLost or Disconnected.

        Callbacks rather than tasks: most replies come within milliseconds, and only a request
        still running after WATCH_AFTER_SECONDS gets a task watching for its client to leave.
        """
        dispatched = await self._dispatch(job, deadline, len(job.body) > SMALL_BODY_BYTES)
        reply = dispatched.reply
        outcome = self._loop.create_future()

        def settle(result: str) -> None:
            if not outcome.done():
                outcome.set_result(result)

        watcher: asyncio.Task | None = None

        def watch() -> None:
            nonlocal watcher
            watcher = asyncio.ensure_future(wait_for_disconnect())
            watcher.add_done_callback(lambda t: t.cancelled() or t.exception() or settle("disconnected"))

        if reply.done():
            settle("reply")
        else:
            reply.add_done_callback(lambda _: settle("reply"))
        timer = self._loop.call_later(max(0.0, deadline - time.monotonic()), settle, "timeout")
        starter = self._loop.call_later(WATCH_AFTER_SECONDS, watch)
        try:
            result = await outcome
        except asyncio.CancelledError:
            self._abandon(dispatched)
            raise
        finally:
            timer.cancel()
            starter.cancel()
            if watcher is not None:
                watcher.cancel()
        if result == "reply":
            return reply.result()  # a reply, or WorkerLost
        self._abandon(dispatched)
        raise Disconnected() if result == "disconnected" else Timeout()

    def _abandon(self, dispatched: _Dispatched) -> None:
        """Nobody waits for the job any more: stop it, and kill its worker if it does not stop."""
        w, sequence, reply = dispatched
        reply.add_done_callback(lambda f: f.cancelled() or f.exception())  # nobody else reads it
        if reply.done():
            return
        try:
            w.connection.send_bytes(worker.encode_cancel(sequence))
        except (BrokenPipeError, OSError):
            pass  # it is gone already; _readable replaces it

        def overdue() -> None:
            if w.sequence == sequence and not reply.done() and w.process.is_alive():
                log.warning("worker did not stop at the deadline; restarting it",
                            extra=fields(worker=w.slot, pid=w.process.pid))
                w.process.kill()  # its pipe closes: _readable sees EOF and replaces it

        self._loop.call_later(KILL_GRACE_SECONDS, overdue)

    # Pipe events -----------------------------------------------------------------------------

    def _readable(self, w: _Worker) -> None:
        try:
            message = worker.decode_reply(w.connection.recv_bytes())
        except (EOFError, OSError):
            self._lost(w)
            return
        if isinstance(message, tuple):  # ("ready", pid) of a replacement worker
            w.ready = True
            self._release(w)
            return
        seconds = time.monotonic() - w.started
        self.mean_seconds += (seconds - self.mean_seconds) * 0.2
        future, w.future = w.future, None
        if future is not None and not future.done():
            future.set_result(message)
        self._release(w)

    def _lost(self, w: _Worker) -> None:
        try:
            self._loop.remove_reader(w.connection.fileno())
        except (ValueError, OSError):
            pass
        w.connection.close()
        w.process.join(0.1)
        if w.future is not None and not w.future.done():
            w.future.set_exception(WorkerLost())
        if w in self._idle:
            self._idle.remove(w)
        if w.large:
            w.large = False
            self._large_busy -= 1
        if self._stopping:
            return
        log.error("worker process exited; starting a new one",
                  extra=fields(worker=w.slot, pid=w.process.pid, exitCode=w.process.exitcode))
        replacement = self._spawn(w.slot)
        self._workers[w.slot] = replacement
        self._loop.add_reader(replacement.connection.fileno(), self._readable, replacement)
