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
from typing import Awaitable, Callable

from webhook.logs import fields
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


class WorkerPool:
    def __init__(self, count: int, cel_engine: str, log_level: str) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.count = count
        self._cel_engine = cel_engine
        self._log_level = log_level
        self._workers: list[_Worker] = []
        self._idle: collections.deque[_Worker] = collections.deque()
        self._waiters: collections.deque[asyncio.Future] = collections.deque()  # small requests
        self._large_waiters: collections.deque[asyncio.Future] = collections.deque()
        self._large_busy = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        self.mean_seconds = 0.01  # moving average of job time, for the queue estimate

    # Life cycle ------------------------------------------------------------------------------

    def _spawn(self, slot: int) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(target=worker.serve, name=f"dra-webhook-worker-{slot}", daemon=True,
                                        args=(child, self._cel_engine, self._log_level))
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

    def ready_workers(self) -> int:
        return sum(1 for w in self._workers if w.ready)

    def waiting_requests(self) -> int:
        return sum(1 for q in (self._waiters, self._large_waiters) for waiter in q if not waiter.done())

    def busy_workers(self) -> int:
        return sum(1 for w in self._workers if w.future is not None)

    # Scheduling ------------------------------------------------------------------------------

    def _large_limit(self) -> int:
        return max(1, self.count - 1)

    def _release(self, w: _Worker) -> None:
        """Hands a free worker to the next small request, else to the next large one if the
        reserve allows, else keeps it idle."""
        if w.large:
            w.large = False
            self._large_busy -= 1
        for queue, large in ((self._waiters, False), (self._large_waiters, True)):
            if large and self._large_busy >= self._large_limit():
                break
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    if large:
                        w.large = True
                        self._large_busy += 1
                    waiter.set_result(w)
                    return
        self._idle.append(w)

    async def _acquire(self, deadline: float, large: bool) -> _Worker:
        if self._idle and not (large and self._large_busy >= self._large_limit()):
            w = self._idle.popleft()
            if large:
                w.large = True
                self._large_busy += 1
            return w
        queue = self._large_waiters if large else self._waiters
        lanes = self._large_limit() if large else self.count
        remaining = deadline - time.monotonic()
        if (len(queue) + 1) * self.mean_seconds / lanes > remaining:
            raise Saturated()
        waiter = self._loop.create_future()
        queue.append(waiter)
        try:
            return await asyncio.wait_for(waiter, remaining)
        except asyncio.TimeoutError:
            raise Timeout() from None
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # handed a worker while being cancelled: pass it on
            raise

    async def run(self, job: worker.Job, deadline: float,
                  wait_for_disconnect: Callable[[], Awaitable[None]]) -> worker.Reply:
        """The worker's reply; raises Saturated, Timeout, WorkerLost or Disconnected.

        Callbacks rather than tasks: most replies come within milliseconds, and only a request
        still running after WATCH_AFTER_SECONDS gets a task watching for its client to leave.
        """
        w = await self._acquire(deadline, len(job.body) > SMALL_BODY_BYTES)
        w.sequence += 1
        w.started = time.monotonic()
        w.future = reply = self._loop.create_future()
        try:
            w.connection.send(replace(job, deadline=deadline, sequence=w.sequence))
        except (BrokenPipeError, OSError):
            self._lost(w)
            raise WorkerLost() from None
        outcome = self._loop.create_future()

        def settle(result: str) -> None:
            if not outcome.done():
                outcome.set_result(result)

        watcher: asyncio.Task | None = None

        def watch() -> None:
            nonlocal watcher
            watcher = asyncio.ensure_future(wait_for_disconnect())
            watcher.add_done_callback(lambda t: t.cancelled() or t.exception() or settle("disconnected"))

        reply.add_done_callback(lambda _: settle("reply"))
        timer = self._loop.call_later(max(0.0, deadline - time.monotonic()), settle, "timeout")
        starter = self._loop.call_later(WATCH_AFTER_SECONDS, watch)
        try:
            result = await outcome
        except asyncio.CancelledError:
            self._abandon(w)
            raise
        finally:
            timer.cancel()
            starter.cancel()
            if watcher is not None:
                watcher.cancel()
        if result == "reply":
            return reply.result()  # a reply, or WorkerLost
        self._abandon(w)
        raise Disconnected() if result == "disconnected" else Timeout()

    def _abandon(self, w: _Worker) -> None:
        """Nobody waits for the worker's job any more: stop it, and kill it if it does not stop."""
        sequence = w.sequence
        try:
            w.connection.send(worker.Cancel(sequence))
        except (BrokenPipeError, OSError):
            pass  # it is gone already; _readable replaces it
        if w.future is not None:
            w.future.add_done_callback(lambda f: f.cancelled() or f.exception())  # nobody else reads it

        def overdue() -> None:
            if w.sequence == sequence and w.future is not None and w.process.is_alive():
                log.warning("worker did not stop at the deadline; restarting it",
                            extra=fields(worker=w.slot, pid=w.process.pid))
                w.process.kill()  # its pipe closes: _readable sees EOF and replaces it

        self._loop.call_later(KILL_GRACE_SECONDS, overdue)

    # Pipe events -----------------------------------------------------------------------------

    def _readable(self, w: _Worker) -> None:
        try:
            message = w.connection.recv()
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
