"""--total-timeout bounds the report as well as the search, and every phase of allocate runs under a
deadline (issue 37). The clock is a counter here (each read is one second): nothing depends on the
machine's speed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from allocation_objects import claim, device_class, gpu, node, request, resource_slice, write
from test_allocate_cli import allocate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from allocate_pods import cluster  # noqa: E402  (the benchmark's dump: N nodes, M pending pods)


@pytest.fixture
def counted_clock(monkeypatch):
    """Each read of the deadlines' clock advances it by one second."""
    from webhook.allocation import deadline

    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return float(reads[0])

    monkeypatch.setattr(deadline, "clock", clock)
    return reads


def test_answers_not_tried_are_one_line_and_the_report_is_bounded(tmp_path, capsys, counted_clock):
    dump = write(tmp_path / "dump.json", cluster(40, 30))  # 1,200 (pod, node) answers
    code, out, err = allocate(capsys, dump, "--all-nodes", "--total-timeout", "200", "--max-report-bytes", "20Ki",
                              "--feature-gates", "DRADeviceTaintRules=true")
    assert code == 3, err
    lines = out.splitlines()
    not_tried = [line for line in lines if line.startswith("not tried: ")]
    assert len(not_tried) == 1, not_tried
    assert "(--total-timeout 3m20s)" in not_tried[0]
    tried = sum(1 for line in lines if line.startswith("node "))
    untried = int(not_tried[0].split()[2].replace(",", ""))
    shown = [line for line in lines if line.startswith("not shown: ")]
    hidden = int(shown[0].split()[2].replace(",", "")) if shown else 0
    assert tried + hidden + untried == 1200 and untried > 1000, (tried, hidden, untried)
    assert len(out) < 20 * 1024 + 4096


def test_the_json_report_ends_with_what_was_not_tried(tmp_path, capsys, counted_clock):
    dump = write(tmp_path / "dump.json", cluster(40, 30))
    code, out, _ = allocate(capsys, dump, "--all-nodes", "--total-timeout", "200", "-o", "json",
                            "--feature-gates", "DRADeviceTaintRules=true")
    report = json.loads(out)
    assert code == 3
    answered = [r for r in report if "node" in r]
    [last] = [r for r in report if "notTried" in r]
    assert report[-1] is last and last["gaveUp"] is True and last["notTried"]["nodes"] == 40
    assert len(answered) + last["notTried"]["answers"] == 1200


def test_a_complete_run_is_never_cut(tmp_path, capsys, counted_clock):
    dump = write(tmp_path / "dump.json", cluster(4, 3))
    code, out, _ = allocate(capsys, dump, "--all-nodes", "--total-timeout", "0", "--max-report-bytes", "1",
                            "-o", "json", "--feature-gates", "DRADeviceTaintRules=true")
    assert code == 0 and len(json.loads(out)) == 12


def _tainting_rules(count: int) -> list:
    expression = "[" + ",".join(map(str, range(30))) + "].all(x, x >= 0)"
    return [{"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": f"r{i}"},
             "spec": {"deviceSelector": {"selectors": [{"cel": {"expression": f"{expression} && {i} >= 0"}}]},
                      "taint": {"key": "example.com/broken", "effect": "NoSchedule"}}} for i in range(count)]


def test_device_taint_rule_selectors_of_1_34_run_under_the_deadline(tmp_path, capsys, counted_clock):
    objects = [device_class("gpu.example.com", 'device.driver == "gpu.example.com"'),
               resource_slice("s", [gpu(f"gpu-{i}") for i in range(64)], node="node-1"), node("node-1"),
               *_tainting_rules(20), claim("c", request("r"))]
    path = write(tmp_path / "rules.json", objects)
    code, out, err = allocate(capsys, path, "--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true",
                              "--timeout", "30")
    assert code == 3, (out, err)
    assert out.startswith("not tried: 1 answer"), out
    assert "gave up applying the DeviceTaintRules before any node" in out and "--timeout 30s" in out
    assert counted_clock[0] < 80  # stopped at the deadline: not one read per rule and device (1,280)
    # Without a limit the same rules are applied, and taint every device.
    code, out, _ = allocate(capsys, path, "--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true",
                            "--timeout", "0")
    assert code == 1 and "64 tainted without a matching toleration" in out, out
