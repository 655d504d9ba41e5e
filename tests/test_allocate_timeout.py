"""`dra-webhook allocate` ends in bounded time: a per-node wall clock as the scheduler's filterTimeout, a
total for `--all-nodes`, "gave up after ..." and exit code 3.

The crafted search would run for years without a limit (identical devices, requests bound by a
matchAttribute constraint, a last request whose firstAvailable subrequests match nothing), so it
outlasts a half-second timeout on any machine: the verdicts below do not depend on the machine's speed.
The text report escapes the control characters of the inputs.
"""

from __future__ import annotations

import pytest

from allocation_objects import claim, device_class, gpu, hopeless_search, node, request, resource_slice, write
from test_allocate_cli import allocate, allocate_json

GPU_CLASS = device_class("gpu.example.com", 'device.driver == "gpu.example.com"')


def test_a_hopeless_search_gives_up_at_the_timeout(tmp_path, capsys):
    code, out, err = allocate(capsys, write(tmp_path / "in.json", hopeless_search()), "--timeout", "0.5")
    assert code == 3, (out, err)
    assert out.startswith("node node-1: cannot allocate: gave up after 0.")
    assert "searching devices for claim default/hopeless (" in out and "--timeout 0.5s" in out
    assert "timed out trying to allocate devices" in out and "Traceback" not in err


def test_the_json_report_says_it_gave_up(tmp_path, capsys):
    code, report, _ = allocate_json(capsys, tmp_path, hopeless_search(), "--timeout", "500ms")
    assert code == 3 and report["gaveUp"] is True and report["allocated"] is False
    assert report["error"].startswith("gave up after ") and "search steps" in report["error"]


def test_all_nodes_stop_at_the_total_timeout(tmp_path, capsys):
    objects = hopeless_search()
    slices = [resource_slice(f"gpus-{n}", objects[1]["spec"]["devices"], node=f"node-{n}") for n in range(3)]
    objects = [objects[0], *slices, objects[3]]
    code, report, _ = allocate_json(capsys, tmp_path, objects, "--all-nodes", "--timeout", "0",
                                    "--total-timeout", "0.5")
    assert code == 3 and [r.get("node") for r in report] == ["node-0", None]
    assert all(r["gaveUp"] for r in report)
    assert "the time for all nodes ran out (--total-timeout 0.5s)" in report[0]["error"]
    assert report[0]["error"].startswith("gave up after 0.")
    # The time is spent on the first node: the others are not tried at all, and said so in one entry.
    assert report[1]["notTried"] == {"answers": 2, "pods": 1, "nodes": 2}
    assert report[1]["error"] == ("not tried: 2 answers (1 pod on 2 nodes): the time for all nodes ran out "
                                  "(--total-timeout 0.5s)")


def test_an_ordinary_allocation_is_unaffected_by_the_default_timeout(tmp_path, capsys):
    devices = [gpu(f"gpu-{i}") for i in range(8)]
    objects = [GPU_CLASS, resource_slice("gpus", devices), node("node-1"),
               claim("c", request("a", "gpu.example.com", 2), request("b", "gpu.example.com", 3),
                     constraints=[{"matchAttribute": "gpu.example.com/model"}])]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and "gaveUp" not in report and report["error"] is None
    results = report["claims"][0]["allocation"]["devices"]["results"]
    assert [r["device"] for r in results] == [f"gpu-{i}" for i in range(5)]
    # Without any limit the answer is the same.
    assert allocate_json(capsys, tmp_path, objects, "--timeout", "0")[1] == report


def test_a_node_that_fits_wins_over_one_given_up_on(tmp_path, capsys):
    hopeless = hopeless_search()
    # node-1 has 28 h100s: r0..r8 take 27, the `all` subrequest fails at once, `one` takes the last.
    h100 = [gpu(f"gpu-{i}", model="h100") for i in range(28)]
    objects = [hopeless[0], resource_slice("gpus-0", hopeless[1]["spec"]["devices"], node="node-0"),
               resource_slice("gpus-1", h100, node="node-1"), hopeless[3]]
    code, report, _ = allocate_json(capsys, tmp_path, objects, "--all-nodes", "--timeout", "0.3")
    assert code == 0 and [r["allocated"] for r in report] == [False, True]
    assert report[0]["gaveUp"] and "gaveUp" not in report[1]
    results = report[1]["claims"][0]["allocation"]["devices"]["results"]
    assert len(results) == 28 and results[-1]["request"] == "last/one"


@pytest.mark.parametrize("value", ["soon", "-1s", "-2", "nan", "1x"])
def test_a_bad_timeout_is_a_usage_error(tmp_path, capsys, value):
    path = write(tmp_path / "in.json", [GPU_CLASS, node("node-1")])
    with pytest.raises(SystemExit) as exit_info:
        allocate(capsys, path, "--timeout", value)
    assert exit_info.value.code == 2 and "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize("value, seconds", [("10", 10.0), ("2.5", 2.5), ("1m30s", 90.0), ("500ms", 0.5), ("0", 0.0)])
def test_timeouts_take_go_durations_or_seconds(value, seconds):
    from webhook.allocation.command import duration

    assert duration(value) == seconds


def test_the_default_is_the_schedulers_filter_timeout(capsys):
    from webhook import cli

    args = cli.build_parser().parse_args(["allocate", "x"])
    assert args.timeout == 10.0 and args.total_timeout == 60.0


def test_the_text_report_escapes_control_characters_from_the_inputs(tmp_path, capsys):
    forged = "c\nnode node-9: all claims allocated"
    selector = 'device.attributes["gpu.example.com"].model == "\x1b[2J\u202e"'
    objects = [GPU_CLASS, resource_slice("gpus", [gpu("gpu-0")]), node("node-1"),
               claim(forged, request("gpu", "gpu.example.com", 1, selector))]
    code, out, err = allocate(capsys, write(tmp_path / "in.json", objects), "--node", "node-1")
    assert code == 1 and "Traceback" not in err
    assert "\x1b" not in out and "\u202e" not in out and "\nnode node-9" not in out
    assert "claim default/c\\nnode node-9: all claims allocated: not allocated" in out
    assert '== "\\x1b[2J\\u202e"' in out


def test_with_the_schedulers_timeout_gate_off_the_report_says_it_would_keep_searching(tmp_path, capsys):
    code, out, err = allocate(capsys, write(tmp_path / "in.json", hopeless_search()), "--timeout", "0.3",
                              "--feature-gates", "DRASchedulerFilterTimeout=false")
    assert code == 3 and "gave up after" in out
    assert "with DRASchedulerFilterTimeout off the scheduler has no time limit" in err
