"""Mid-size inputs cut into parts, one forked process each: same results, in input order, whatever happens
to a child."""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime, timezone

import pytest

from support import cli as run_cli
from support import valid_slice
from test_suite import write
from webhook.offline import loading, parallel, reviewing
from webhook.offline.results import Result
from webhook.profile import DEFAULT

NOW = "2026-01-01T00:00:00Z"
CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com",
             "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}]}}]}}}


def _mid_size(tmp_path):
    """Two files between SPLIT_BYTES and PARALLEL_BYTES together, with denials and a broken document."""
    docs = []
    for i in range(40):
        docs.append(valid_slice(devices=20, name=f"s-{i}" if i % 7 else f"Bad_{i}"))
        docs.append({**CLAIM, "metadata": {"name": f"c-{i}", "namespace": "ml"}})
    write(tmp_path / "a.yaml", docs[:50])
    write(tmp_path / "b.yaml", docs[50:])
    (tmp_path / "c.yaml").write_text("kind: [unclosed\n")
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    assert reviewing.SPLIT_BYTES <= size < reviewing.PARALLEL_BYTES
    return tmp_path


def test_parts_give_the_sequential_output(tmp_path):
    inputs = str(_mid_size(tmp_path))
    assert reviewing.default_jobs([inputs]) == parallel.available_cpus()
    missing = str(tmp_path / "missing.yaml")  # a result before any document is read
    one = run_cli("review", "-o", "json", "-v", "--now", NOW, "-j", "1", missing, inputs)
    two = run_cli("review", "-o", "json", "-v", "--now", NOW, "-j", "2", missing, inputs)
    three = run_cli("review", "-o", "json", "-v", "--now", NOW, "-j", "3", missing, inputs)
    default = run_cli("review", "-o", "json", "-v", "--now", NOW, missing, inputs)
    assert one.returncode == two.returncode == three.returncode == default.returncode == 1
    assert one.stdout == two.stdout == three.stdout == default.stdout
    assert two.stderr == ""
    results = json.loads(two.stdout)["results"]
    assert len(results) == 82 and [r["verdict"] for r in results].count("denied") == 6
    assert results[0]["verdict"] == results[-1]["verdict"] == "unreadable"


def test_in_parts_keeps_order_and_redoes_the_part_of_a_failed_child():
    here = os.getpid()

    def work(part, options):
        if os.getpid() != here and part == ["b"]:
            os._exit(3)  # this child dies: its part must be done by the parent
        return [(item, options, os.getpid() != here) for item in part]

    results = list(parallel.in_parts(work, [["a"], ["b"], ["c", "d"]], "o"))
    assert results == [[("a", "o", False)], [("b", "o", False)], [("c", "o", True), ("d", "o", True)]]


def test_in_parts_does_a_part_here_when_no_process_can_be_started(monkeypatch):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN at a process limit

    monkeypatch.setattr(os, "fork", no_fork)
    here = os.getpid()
    descriptors = len(os.listdir("/proc/self/fd"))
    results = list(parallel.in_parts(lambda part, options: [(x, os.getpid() == here) for x in part],
                                     [[1], [2], [3, 4]], None))
    assert results == [[(1, True)], [(2, True)], [(3, True), (4, True)]]
    assert len(os.listdir("/proc/self/fd")) == descriptors  # no pipe left open


def test_in_parts_kills_and_reaps_its_children_when_stopped_early(tmp_path):
    here = os.getpid()

    def work(part, options):
        if os.getpid() == here:  # this process's part: done once both children are running
            deadline = time.monotonic() + 60  # only a bound for a broken fork: the assertions say what failed
            while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            return part
        (tmp_path / str(os.getpid())).touch()
        time.sleep(60)  # still running when the run is stopped
        return part

    running = parallel.in_parts(work, [[1], [2], [3]], None)
    assert next(running) == [1]
    running.close()
    children = [int(p.name) for p in tmp_path.iterdir()]
    assert len(children) == 2
    for pid in children:
        with pytest.raises(ChildProcessError):  # reaped already: not left for anyone to wait for
            os.waitpid(pid, os.WNOHANG)


def test_parts_are_consecutive_non_empty_and_about_even():
    items = [loading.Chunk("f", i, 1, "x" * size) for i, size in enumerate([10, 10, 10, 10, 30, 10, 10, 10])]
    error = Result("g", "file", "error", "unreadable")
    parts = reviewing._parts([error, *items], 3)
    assert [item for part in parts for item in part] == [error, *items]
    assert [sum(len(i.text) for i in part if isinstance(i, loading.Chunk)) for part in parts] == [40, 30, 30]
    assert reviewing._parts(items[:1], 4) == [items[:1]]  # never an empty part
    assert reviewing._first([error, *items], 20) == 3 and reviewing._first(items, 1000) == len(items)
    assert reviewing._first(items, 1) == 1


def test_no_fork_while_another_thread_runs(tmp_path):
    inputs = [str(_mid_size(tmp_path))]
    options = reviewing.Options(profile=DEFAULT, now=datetime(2026, 1, 1, tzinfo=timezone.utc))
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not parallel.can_fork()
        here = [(r.name, r.verdict) for r in reviewing.run(inputs, options, jobs=2)]
    finally:
        release.set()
        other.join()
    assert here == [(r.name, r.verdict) for r in reviewing.run(inputs, options, jobs=1)]
