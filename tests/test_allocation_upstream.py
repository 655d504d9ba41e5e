"""The upstream allocator table (Kubernetes 1.36.2 TestAllocator and TestLexicographicalAllocator),
replayed through `dra-webhook allocate --output json`.

tests/data/allocator_upstream.json is that table ported to our own data: per case the gates (every
allocator gate not named by the case is off, as in the upstream test), the objects (classes, slices,
claims to allocate, a claim in use holding the case's allocated devices, the Node), and what the
scheduler's allocator returns: an error containing a substring, or one allocation per claim (empty:
no allocation).
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from webhook import cli
from webhook.quantity import parse_quantity

CASES = json.loads((Path(__file__).parent / "data" / "allocator_upstream.json").read_text())


def _quantity(text) -> Decimal:
    return parse_quantity(str(text)).value


def _result_key(result: dict) -> tuple:
    consumed = result.get("consumedCapacity") or {}
    return (result["request"], result["driver"], result["pool"], result["device"], bool(result.get("adminAccess")),
            json.dumps(result.get("tolerations") or [], sort_keys=True),
            tuple(result.get("bindingConditions") or []), tuple(result.get("bindingFailureConditions") or []),
            tuple(sorted((k, _quantity(v)) for k, v in consumed.items())), "shareID" in result)


def _selector_key(selector: dict | None):
    if not selector:
        return None
    terms = []
    for term in selector.get("nodeSelectorTerms") or []:
        parts = []
        for kind in ("matchExpressions", "matchFields"):
            reqs = sorted((r["key"], r["operator"], tuple(sorted(r.get("values") or []))) for r in term.get(kind) or [])
            parts.append(tuple(reqs))
        terms.append(tuple(parts))
    return tuple(sorted(terms))


def _config_key(configs) -> str:
    return json.dumps(configs or [], sort_keys=True)


def _allocation_key(allocation: dict) -> tuple:
    devices = allocation.get("devices") or {}
    return (tuple(sorted(Counter(_result_key(r) for r in devices.get("results") or []).items())),
            _config_key(devices.get("config")), _selector_key(allocation.get("nodeSelector")))


def run_case(case: dict, tmp_path, capsys) -> tuple[int, dict, str]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": case["objects"]}))
    gates = ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(case["gates"].items()))
    code = cli.main(["allocate", str(path), "--output", "json", "--feature-gates", gates])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_upstream_allocator_case(case, tmp_path, capsys):
    code, report, err = run_case(case, tmp_path, capsys)
    expect = case["expect"]
    assert code in (0, 1), err
    if expect["error"] is not None:
        assert report["error"] is not None, report
        assert expect["error"] in report["error"]
        assert code == 1
        return
    assert report["error"] is None, report["error"]
    wanted = expect.get("results") or []
    if not report["claims"]:  # nothing to allocate: the allocator returns an empty result, success
        assert report["allocated"] is True and code == 0
        return
    if not wanted:
        assert report["allocated"] is False and code == 1
        assert all(c["allocation"] is None for c in report["claims"])
        return
    assert report["allocated"] is True and code == 0
    got = Counter(_allocation_key(c["allocation"]) for c in report["claims"])
    assert got == Counter(_allocation_key(a) for a in wanted)
