"""The allocator differential's own parts that need no Go: the comparison and the known differences."""

from __future__ import annotations

import json

import allocator_differential as differential


def test_compare_tells_outcome_and_devices_apart():
    allocated = {"outcome": "allocated", "error": "", "results": [
        {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "a"}]}}]}
    other = json.loads(json.dumps(allocated))
    other["results"][0]["devices"]["results"][0]["device"] = "b"
    assert differential.compare(allocated, allocated) is None
    assert differential.compare(allocated, other) == "devices"
    assert differential.compare(allocated, other, devices=False) is None
    assert differential.compare(allocated, {"outcome": "error", "error": "x", "results": []}) == "outcome"


def test_known_differences_name_their_cause():
    known = differential.known_differences()
    assert known, "tests/upstream/known-allocator-differences.yaml lists no difference"
    for entry in known:
        assert entry.get("name") and len(entry.get("cause", "")) > 40, entry
        assert set(entry.get("releases", [])) <= set(differential.RELEASES), entry


def test_compare_tells_footprints_apart_by_value():
    allocated = {"outcome": "allocated", "error": "", "results": [], "footprint": {"cpu": "1", "memory": "1Gi"},
                 "footprintError": ""}
    same = {**allocated, "footprint": {"cpu": "1000m", "memory": "1073741824", "hugepages-2Mi": "0"}}
    assert differential.compare(allocated, same) is None
    assert differential.compare(allocated, {**allocated, "footprint": {"cpu": "2", "memory": "1Gi"}}) == "footprint"
    refused = {**allocated, "footprint": {}, "footprintError": "claim c: not referenced by any container"}
    assert differential.compare(allocated, refused) == "footprint"
    assert differential.compare(refused, {**refused, "footprint": {"cpu": "1"}}) is None  # refused: amounts moot
