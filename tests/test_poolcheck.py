"""Pool-level checks: the pure function, and its warnings in `dra-webhook review`."""

from __future__ import annotations

import json

from allocation_objects import claim, device_class, gpu, node, request, resource_slice, template, write
from webhook import cli
from webhook.allocation.poolcheck import check


def _slices(*specs) -> list:
    return [(f"s.yaml#{i}", s) for i, s in enumerate(specs)]


def test_single_slices_and_consistent_pools_give_nothing():
    assert check(_slices(resource_slice("a", [gpu("gpu-0")]))) == []
    a = resource_slice("a", [gpu("gpu-0")], count=2)
    b = resource_slice("b", [gpu("gpu-1")], count=2)
    assert check(_slices(a, b)) == []


def test_repeated_device_names_name_both_slices():
    a = resource_slice("a", [gpu("gpu-0")], count=2)
    b = resource_slice("b", [gpu("gpu-0")], count=2)
    [(sources, message)] = check(_slices(a, b))
    assert sources == ["s.yaml#0", "s.yaml#1"]
    assert message == ("pool gpu.example.com/node-1: device name gpu-0 appears in ResourceSlice a (s.yaml#0) and "
                       "ResourceSlice b (s.yaml#1); the scheduler treats the pool as invalid")


def test_disagreeing_counts_and_generations_and_incomplete_pools():
    a = resource_slice("a", [gpu("gpu-0")], count=3)
    b = resource_slice("b", [gpu("gpu-1")], count=2)
    warnings = check(_slices(a, b))
    assert warnings[0] == (["s.yaml#0", "s.yaml#1"], "pool gpu.example.com/node-1: its slices disagree on "
                           "resourceSliceCount (3 in ResourceSlice a (s.yaml#0); 2 in ResourceSlice b (s.yaml#1))")
    assert "is incomplete: 2 of its 3 slices (generation 1)" in warnings[1][1]
    old = resource_slice("old", [gpu("gpu-0")], count=2, generation=1)
    new = resource_slice("new", [gpu("gpu-0")], count=2, generation=2)
    messages = [m for _, m in check(_slices(old, new))]
    assert any("disagree on generation" in m for m in messages)
    assert any("1 of its 2 slices (generation 2)" in m for m in messages)
    assert not any("device name" in m for m in messages)  # different generations do not collide


def test_counter_sets_consumed_but_defined_nowhere():
    counters = resource_slice("counters", [], count=2, sharedCounters=[{"name": "set-a", "counters": {
        "mem": {"value": "1Gi"}}}])
    devices = resource_slice("devices", [{"name": "p0", "consumesCounters": [
        {"counterSet": "set-b", "counters": {"mem": {"value": "1Gi"}}}]}], count=2)
    [(sources, message)] = check(_slices(counters, devices))
    assert sources == ["s.yaml#1"]
    assert message == ("pool gpu.example.com/node-1: counter set set-b is consumed by devices of ResourceSlice devices "
                       "(s.yaml#1) but defined in no slice of the pool")


def test_unknown_device_class_only_when_classes_are_given():
    objects = [("c.yaml#0", claim("c", request("gpu", "gpu.example.com"))),
               ("t.yaml#0", template("t", {"name": "x", "firstAvailable": [
                   {"name": "big", "deviceClassName": "big.example.com"}]}))]
    assert check(objects) == []
    objects.append(("classes.yaml#0", device_class("gpu.example.com", "true")))
    assert check(objects) == [(["t.yaml#0"], "ResourceClaimTemplate t (t.yaml#0): request x/big names DeviceClass "
                                            "big.example.com, which is not among the DeviceClasses given "
                                            "(gpu.example.com)")]


def test_review_attaches_the_warning_to_every_document_involved(tmp_path, capsys):
    a = write(tmp_path / "a.json", [resource_slice("a", [gpu("gpu-0")], count=2)])
    b = write(tmp_path / "b.json", [resource_slice("b", [gpu("gpu-0")], count=2)])
    code = cli.main(["review", "--output", "json", a, b])
    report = json.loads(capsys.readouterr().out)["results"]
    assert code == 0 and len(report) == 2
    for item in report:
        assert any("device name gpu-0 appears in" in w for w in item["response"]["warnings"])
    assert cli.main(["review", "--warnings-as-errors", a, b]) == 1
    out = capsys.readouterr().out
    assert out.count("warning [pool]: pool gpu.example.com/node-1: device name gpu-0") == 2


def test_review_and_allocate_apply_one_rule_to_more_slices_than_declared(tmp_path, capsys):
    """Two slices of one pool that each say resourceSliceCount 1: gatherPools calls the pool incomplete (a count
    that differs, not only a smaller one), and so do both commands, in the same words."""
    slices = [resource_slice("a", [gpu("gpu-0")], count=1), resource_slice("b", [gpu("gpu-1")], count=1)]
    said = "pool gpu.example.com/node-1 is incomplete: 2 slices (generation 1) for a resourceSliceCount of 1"
    path = write(tmp_path / "pool.json", slices)
    assert cli.main(["review", "--output", "json", "--warnings-as-errors", path]) == 1
    warnings = [w for item in json.loads(capsys.readouterr().out)["results"] for w in item["response"]["warnings"]]
    assert len(warnings) == 2 and all(w.startswith(said + " are given") for w in warnings)
    everything = write(tmp_path / "cluster.json", [device_class("gpu.example.com"), *slices,
                                                    claim("c", request("gpu")), node("node-1")])
    assert cli.main(["allocate", "--node", "node-1", everything]) == 1
    assert said + " are published" in capsys.readouterr().out
    # Declared right, both agree the other way: allocated, and no pool warning.
    fixed = [resource_slice("a", [gpu("gpu-0")], count=2), resource_slice("b", [gpu("gpu-1")], count=2)]
    assert check(_slices(*fixed)) == []
    assert cli.main(["allocate", "--node", "node-1", write(tmp_path / "fixed.json", [
        device_class("gpu.example.com"), *fixed, claim("c", request("gpu")), node("node-1")])]) == 0


def test_a_slice_alone_says_its_pool_could_not_be_checked(tmp_path, capsys):
    """A note, not a warning: nothing is wrong with the slice, and --warnings-as-errors still passes."""
    alone = write(tmp_path / "alone.json", [resource_slice("a", [gpu("gpu-0")], count=2)])
    assert cli.main(["review", "--warnings-as-errors", alone]) == 0
    out = capsys.readouterr().out
    assert ("note: pool gpu.example.com/node-1: checks across its slices were not possible: ResourceSlice a") in out
    assert "is the only one of its 2 slices among the inputs" in out
    assert cli.main(["review", "--output", "json", alone]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert len(summary["notes"]) == 1 and "checks across its slices were not possible" in summary["notes"][0]
    # A pool of one slice is whole, and the whole pool given is checked: nothing to note.
    for objects in ([resource_slice("a", [gpu("gpu-0")], count=1)],
                    [resource_slice("a", [gpu("gpu-0")], count=2), resource_slice("b", [gpu("gpu-1")], count=2)]):
        assert cli.main(["review", "--output", "json", write(tmp_path / "whole.json", objects)]) == 0
        assert "notes" not in json.loads(capsys.readouterr().out)["summary"]
