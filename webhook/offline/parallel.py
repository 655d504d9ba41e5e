"""Ordered parallel map over worker processes (a pool for large inputs, one fork per part for mid-size
ones), and a progress line for long runs on a terminal."""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from typing import Callable, Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def ordered(work: Callable[[T, object], R], tasks: Iterable[T], options: object, *, jobs: int,
            initializer: Callable | None = None, initargs: tuple = ()) -> Iterator[R]:
    """work(task, options) for every task, results in task order.

    The first task runs here, which also warms this process up (imports, schemas, compiled CEL);
    with jobs > 1 the rest go to that many forked processes, which inherit the warm state, at most
    2 per process in flight so that input is read as it is consumed. One small input never starts
    a process.
    """
    tasks = iter(tasks)
    first = next(tasks, None)
    if first is None:
        return
    if initializer is not None:
        initializer(*initargs)
    yield work(first, options)
    second = next(tasks, None)
    if second is None:
        return
    if jobs <= 1:
        yield work(second, options)
        for task in tasks:
            yield work(task, options)
        return
    import multiprocessing  # only when processes are started: it is not free to import
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=initializer,
                             initargs=initargs) as pool:
        pending = deque([pool.submit(work, second, options)])
        for task in tasks:
            pending.append(pool.submit(work, task, options))
            while len(pending) >= 2 * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def can_fork() -> bool:
    """Forking copies only the calling thread: with other threads running (a lock held, say) the child
    could hang, so parts are forked only from a single-threaded process."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def in_parts(work: Callable[[T, object], R], parts: list[T], options: object) -> Iterator[R]:
    """work(part, options) for every part, results in part order: the first part here, each other one
    in a child forked for it, which inherits this process as it is (nothing to start, nothing to send)
    and sends its result back pickled through a pipe. A part whose child cannot be started or fails
    is done here: the verdict never depends on the split."""
    import signal

    children: list[tuple[int, int] | None] = []
    try:
        for part in parts[1:]:
            try:
                children.append(_fork(work, part, options))
            except OSError:  # no process to be had (a limit reached): this one does the part
                children.append(None)
        yield work(parts[0], options)
        for index, part in enumerate(parts[1:]):
            child, children[index] = children[index], None
            result = _collect(*child) if child is not None else None
            yield work(part, options) if result is None else result[0]
    finally:  # stopped early (an interrupt, a closed generator): no child outlives the run
        for child in children:
            if child is not None:
                pid, read = child
                os.close(read)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def _fork(work: Callable[[T, object], R], part: T, options: object) -> tuple[int, int]:
    import pickle

    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # the child: an exit that runs no handler and flushes no buffer inherited from the parent
        code = 1
        try:
            os.close(read)
            data = pickle.dumps(work(part, options), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(pid: int, read: int) -> tuple[object] | None:
    """The child's result (in a 1-tuple), or None when it failed."""
    import pickle

    with os.fdopen(read, "rb") as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    return (pickle.loads(data),) if status == 0 else None


class Progress:
    """Bytes read so far, on a terminal's stderr, once the run has taken more than a second."""

    def __init__(self, out: TextIO, delay: float = 1.0):
        self.out, self.delay = out, delay
        self.started = time.monotonic()
        self.shown = 0.0
        self.bytes = 0
        self.files = 0
        self.results = 0

    @classmethod
    def for_terminal(cls, out: TextIO | None = None) -> Progress | None:
        out = out or sys.stderr
        return cls(out) if out.isatty() else None

    def add(self, size: int) -> None:
        self.bytes += size
        self.files += 1

    def result(self) -> None:
        self.results += 1
        now = time.monotonic()
        if now - self.started >= self.delay and now - self.shown >= 0.2:
            self.shown = now
            self.out.write(f"\r{self.results} document(s) checked, {self.files} file(s), "
                           f"{self.bytes / 1e6:.1f} MB read ")
            self.out.flush()

    def done(self) -> None:
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()
