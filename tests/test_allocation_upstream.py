"""The upstream allocator tables (Kubernetes 1.36.2 TestAllocator and TestLexicographicalAllocator; 1.35.6
TestAllocator; 1.34.9 TestAllocator), replayed through
`dra-webhook allocate --kubernetes-version V --output json`.

tests/data/allocator_upstream.json is that table ported to our own data: per case the gates (every
allocator gate not named by the case is off, as in the upstream test), the objects (classes, slices,
claims to allocate, a claim in use holding the case's allocated devices, the Node), and what the
scheduler's allocator returns: an error containing a substring, or one allocation per claim (empty:
no allocation). allocator_upstream_1_35.json is 1.35's table as a delta of that one (the cases dropped,
replaced and added), and allocator_upstream_1_34.json 1.34's as a delta of 1.35's, so a case releases share is
written once.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from webhook import cli
from webhook.quantity import parse_quantity

DATA = Path(__file__).parent / "data"


def _table(version: str) -> list[dict]:
    """The upstream table of `version`: the 1.36 one, or a delta file's base minus its dropped cases,
    with its replaced ones, and only the gates that release has."""
    from webhook.profile import GATES

    return [{**case, "gates": {g: on for g, on in case["gates"].items() if g in GATES[version]}}
            for case in _cases(f"allocator_upstream_{version.replace('.', '_')}.json" if version != "1.36"
                               else "allocator_upstream.json")]


def _cases(name: str) -> list[dict]:
    data = json.loads((DATA / name).read_text())
    if isinstance(data, list):
        return data
    replaced = {case["name"]: case for case in data["replace"]}
    dropped = set(data["drop"])
    return [replaced.get(case["name"], case) for case in _cases(data["base"])
            if case["name"] not in dropped] + data.get("add", [])


TABLES = {version: _table(version) for version in ("1.34", "1.35", "1.36")}
CASES = TABLES["1.36"]
VERSIONED_CASES = [(version, case) for version, table in TABLES.items() for case in table]


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


def pending_claims(case: dict) -> list[str]:
    """The names of the case's claims to allocate: every ResourceClaim without an allocation."""
    return [o["metadata"]["name"] for o in case["objects"]
            if o["kind"] == "ResourceClaim" and not (o.get("status") or {}).get("allocation")]


def check_allocations(case: dict, code: int, report: dict, expect: dict | None = None) -> None:
    """The report answers for every claim to allocate, and its allocations are the expected ones (`expect`,
    default the case's own): all of them, or (no results expected) none of them."""
    assert report["error"] is None, report["error"]
    assert sorted(c["name"] for c in report["claims"]) == sorted(pending_claims(case))
    wanted = (expect if expect is not None else case["expect"]).get("results") or []
    if not report["claims"]:  # nothing to allocate: the allocator returns an empty result, success
        assert report["allocated"] is True and code == 0
        return
    if not wanted:
        assert report["allocated"] is False and code == 1
        assert all(c["allocation"] is None for c in report["claims"])
        return
    assert report["allocated"] is True and code == 0
    assert len(wanted) == len(report["claims"])
    got = Counter(_allocation_key(c["allocation"]) for c in report["claims"])
    assert got == Counter(_allocation_key(a) for a in wanted)


def run_case(case: dict, tmp_path, capsys, version: str = "1.36") -> tuple[int, dict, str]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": case["objects"]}))
    gates = ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(case["gates"].items()))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", version,
                     "--feature-gates", gates])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_table_sizes():
    """1.35.6 has 180 TestAllocator cases: 179 as in 1.36.2, one with its slices renamed. 1.34.9 has 151:
    119 as in 1.35.6, 29 in 1.34's terms (objects, results or errors of its own), 3 that 1.35 removed or
    renamed."""
    assert {version: len(table) for version, table in TABLES.items()} == {"1.34": 151, "1.35": 180, "1.36": 219}


# TestAllocator (1.36.2) gives these cases the allocator's ListTypeAttributes directly; v1.36.3's
# kube-scheduler never does (AllocatorFeatures passes DRAListTypeAttributes to the CEL cache only, behaviour
# allocator_gets_list_types), so through the scheduler's gates its allocator compares list attributes as
# scalars and allocates nothing: the answer of the real v1.36.3 allocator called as the plugin calls it
# (tests/allocator_differential.py), which `allocate` gives.
NOT_ALLOCATED_BY_THE_1_36_SCHEDULER = {f"list-attributes-{kind}" for kind in (
    "match-constaint-list-of-string-values-with-common-elements",
    "match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements",
    "match-constaint-list-of-int-values-with-common-elements",
    "match-constaint-list-of-bool-values-with-common-elements",
    "match-constaint-list-of-version-values-with-common-elements",
    "distinct-constraint-list-of-string-values-all-distinct", "distinct-constraint-mixed-scalar-and-list-all-distinct",
    "distinct-constraint-list-of-int-values-all-distinct", "distinct-constraint-list-of-bool-values-all-distinct",
    "distinct-constraint-list-of-version-values-all-distinct")}


def test_cases_not_allocated_by_the_1_36_scheduler_exist():
    assert NOT_ALLOCATED_BY_THE_1_36_SCHEDULER <= {case["name"] for case in TABLES["1.36"]}


@pytest.mark.parametrize(("version", "case"), VERSIONED_CASES, ids=[f"{v}-{c['name']}" for v, c in VERSIONED_CASES])
def test_upstream_allocator_case(version, case, tmp_path, capsys):
    code, report, err = run_case(case, tmp_path, capsys, version)
    assert "not ported" not in err
    expect = case["expect"]
    if version == "1.36" and case["name"] in NOT_ALLOCATED_BY_THE_1_36_SCHEDULER:
        expect = {"error": None, "results": []}
    assert code in (0, 1), err
    if expect["error"] is not None:
        assert report["error"] is not None, report
        assert expect["error"] in report["error"]
        assert code == 1
        return
    check_allocations(case, code, report, expect)
