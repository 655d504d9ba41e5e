"""The allocator differential: `dra-webhook allocate` against the real structured allocator of each release
(k8s.io/dynamic-resource-allocation/structured at the release's tag, built from tests/upstream/kube-1.3X/
cmd/allocator) on generated scenarios (tests/allocator_scenarios.py).

Full run (per release, its default gates and every DRA gate on; counts per release and feature):

    .venv/bin/python tests/allocator_differential.py                 # 2,500 scenarios per gate set
    .venv/bin/python tests/allocator_differential.py --scenarios 500 --releases 1.36

What is compared, per scenario: the outcome (allocated, not allocated, or an error), and for an allocation
every claim's results in order — request, driver, pool, device, admin access, tolerations, binding
(failure) conditions, consumed capacity, whether a share ID is set, skipped node operations — and its
node selector. DeviceTaintRules reach the real allocator as the scheduler's do: through the real
resourceslice tracker (tests/upstream/allocator/tracker.go). The device
choice is deterministic where the real allocator's is: from 1.36 its search is first fit in a fixed order
(pools sorted by driver and name, slices by name, devices as listed, requests and subrequests as written)
with backtracking, so the devices are compared in every allocated scenario; 1.34 and 1.35 take the pools in
Go map order (random from run to run), so there, with more than one pool, the product's answer is taken
for each order of the pools, and agrees when one of them is upstream's (counted as "in another pool order"
when the order as listed did not). A share ID's value is a new random UID: only its presence is compared.
Error texts are not compared (only that both refuse with an error). Both sides give up on a scenario after
the scheduler's filter timeout (10 s, --timeout); a scenario either side gave up on is counted, not compared.

A disagreement is explained when it matches an entry of tests/upstream/known-allocator-differences.yaml
(release, gate set, the scenario's tags, what each side answered) with its upstream cause.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
UPSTREAM = HERE / "upstream"
KNOWN = UPSTREAM / "known-allocator-differences.yaml"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import allocator_scenarios  # noqa: E402
from support import UPSTREAM_CACHE  # noqa: E402

RELEASES = ("1.34", "1.35", "1.36", "1.37")
HOW_TO_GET = ("install Go >= 1.26 (GOTOOLCHAIN=local) and run `make upstream` (tests/upstream/build.sh) to build "
              "the upstream allocators")
CACHE = UPSTREAM_CACHE  # where build.sh puts the binaries (support.py: read at import, one place)


def tags() -> dict:
    """{release: tag}, as build.sh pins them (one place)."""
    text = (UPSTREAM / "build.sh").read_text()
    return dict(re.findall(r"\[(1\.\d+)\]=(v1\.\d+\.\d+)", text))


def binary(version: str) -> Path:
    return CACHE / tags()[version] / "allocator"


def build(versions) -> str | None:
    """Builds (or finds up to date) the allocators of `versions`; None when done, else why not."""
    if shutil.which("go") is None:
        return "Go is not installed"
    env = {**os.environ, "UPSTREAM_RELEASES": " ".join(versions), "UPSTREAM_PROGRAMS": "allocator",
           "DRA_WEBHOOK_UPSTREAM_CACHE": str(CACHE)}
    done = subprocess.run(["bash", str(UPSTREAM / "build.sh")], env=env, capture_output=True, text=True)
    if done.returncode:
        return f"tests/upstream/build.sh failed: {done.stderr.strip()[-2000:]}"
    return None


# Gates upstream refuses to turn on without others (featuregate dependencies) that are no DRA gates and
# that the product's profile does not list: turned on beside them, for the real allocator only.
DEPENDENCIES = {"DRAWorkloadResourceClaims": ("GenericWorkload",)}


def gate_sets(version: str) -> dict:
    """{"default": "", "dra-on": every DRA gate of the release on}."""
    from webhook.profile import GATES

    on = sorted(g for g in GATES[version] if g.startswith("DRA"))
    return {"default": "", "dra-on": ",".join(f"{g}=true" for g in on)}


def upstream_gates(gates: str) -> str:
    extra = [d for g in gates.split(",") if g.endswith("=true") for d in DEPENDENCIES.get(g[:-5], ())]
    return ",".join([g for g in gates.split(",") if g] + [f"{d}=true" for d in extra])


def enabled(version: str, gates: str) -> dict:
    from webhook.profile import GATES, make_profile

    profile = make_profile(version, gates, allow_locked=True)
    return {g: profile.gate(g) for g in GATES[version]}


# The two sides ---------------------------------------------------------------------------------------

# The scheduler's filterTimeout (DRASchedulerFilterTimeout, on by default): both sides give up on a scenario
# after this long; such a scenario is counted as given up, not compared.
TIMEOUT = 10.0


def _outcome(answer: dict) -> str:
    return ("gave up" if answer.get("gaveUp") else "error" if answer.get("error")
            else "allocated" if answer["allocated"] else "unallocated")


def run_upstream(version: str, gates: str, scenarios: list, timeout: float = TIMEOUT) -> dict:
    """{id: answer} from the release's real allocator (one process for all scenarios of a gate set)."""
    fields = ("id", "node", "classes", "slices", "claims", "allocated", "taintRules", "boundPods")
    lines = "".join(json.dumps({k: s.get(k) or [] for k in fields} | {"id": s["id"], "node": s["node"],
                                                                     "pod": s.get("pod")}) + "\n"
                    for s in scenarios)
    command = [str(binary(version)), "--feature-gates", upstream_gates(gates), "--timeout", f"{timeout}s"]
    done = subprocess.run(command, input=lines, capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"upstream allocator {version} failed ({done.returncode}): {done.stderr[-2000:]}")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {a["id"]: {"outcome": _outcome(a),
                      "results": a.get("results") or [], "error": a.get("error") or "",
                      "stack": a.get("stack") or "", "footprint": a.get("footprint") or {},
                      "footprintError": a.get("footprintError") or "", "fits": a.get("fits"),
                      "fitReasons": a.get("fitReasons") or []} for a in answers}


def run_product(version: str, gates: str, scenario: dict, timeout: float = TIMEOUT) -> dict:
    """What `dra-webhook allocate --output json` answers for the scenario, computed in-process the way the
    command does (inputs read and defaulted, claims focused, one node answered)."""
    from webhook.allocation import inputs as read_inputs
    from webhook.allocation import outcome, pods
    from webhook.allocation.deadline import Deadline
    from webhook.profile import make_profile

    profile = make_profile(version, gates, allow_locked=True)
    inputs = read_inputs.Inputs()
    now = datetime.now(timezone.utc)
    for obj in objects(scenario):
        read_inputs.add(inputs, obj, "scenario", now, profile)
    if inputs.problems:
        return {"outcome": "error", "results": [], "error": "; ".join(p for _, p in inputs.problems)}
    units = pods.focus(inputs, None, None, profile)
    assert len(units) == 1, units
    unit = units[0]
    if unit.problem:
        return {"outcome": "error", "results": [], "error": f"{unit.stage}: {unit.problem}"}
    allocator = outcome.build_allocator(inputs, profile)
    done = pods.answer(allocator, inputs, unit, scenario["node"]["metadata"]["name"], Deadline(timeout))
    if done.gave_up:
        return {"outcome": "gave up", "results": [], "error": done.error}
    if done.error:
        return {"outcome": "error", "results": [], "error": done.error}
    problems = [p for c in done.claims if c.footprint is not None for p in c.footprint.problems]
    return {"outcome": "allocated" if done.allocated else "unallocated",
            "results": [c.allocation for c in done.claims] if done.allocated else [], "error": "",
            "footprint": done.footprint.to_dict() if done.footprint is not None else {},
            "footprintError": "; ".join(problems), "fits": done.fit["fits"] if done.fit else None,
            "fit": done.fit}


def objects(scenario: dict) -> list:
    """The scenario as the documents `dra-webhook allocate` reads."""
    return ([scenario["node"]] + scenario["classes"] + scenario["slices"] + scenario.get("taintRules", [])
            + scenario["allocated"] + scenario["claims"] + ([scenario["pod"]] if scenario.get("pod") else [])
            + scenario.get("boundPods", []))


# Comparing -------------------------------------------------------------------------------------------

def _quantity(text) -> Decimal:
    from webhook.quantity import parse_quantity

    return parse_quantity(str(text)).value


def _result_key(r: dict) -> tuple:
    return (r["request"], r["driver"], r["pool"], r["device"], bool(r.get("adminAccess")),
            json.dumps(r.get("tolerations") or [], sort_keys=True), tuple(r.get("bindingConditions") or []),
            tuple(r.get("bindingFailureConditions") or []),
            tuple(sorted((k, _quantity(v)) for k, v in (r.get("consumedCapacity") or {}).items())),
            r.get("shareID") is not None, tuple(r.get("skipNodeOperations") or ()))


def _selector_key(selector) -> str:
    return json.dumps(selector or None, sort_keys=True)


def allocation_key(allocation: dict) -> tuple:
    devices = allocation.get("devices") or {}
    return (tuple(_result_key(r) for r in devices.get("results") or []),
            _selector_key(allocation.get("nodeSelector")))


# Releases whose GatherPools returns the pools in Go map order (`for poolID, slicesForPool := range pools`,
# no sort before 1.36): with more than one pool the first fit, and so the devices, change from run to run.
MAP_ORDER_RELEASES = ("1.34", "1.35")


def deterministic(version: str, scenario: dict) -> bool:
    """Whether the real allocator's device choice is the same on every run (see MAP_ORDER_RELEASES)."""
    pools = {(s["spec"]["driver"], s["spec"]["pool"]["name"]) for s in scenario["slices"]}
    return version not in MAP_ORDER_RELEASES or len(pools) <= 1


def pool_orders(scenario: dict):
    """Every order of the scenario's pools (driver, pool): the orders Go's map iteration may give
    the real allocator of a MAP_ORDER_RELEASES release (at most 120)."""
    import itertools

    pools = list(dict.fromkeys((s["spec"]["driver"], s["spec"]["pool"]["name"]) for s in scenario["slices"]))
    return itertools.islice(itertools.permutations(pools), 120)


@contextlib.contextmanager
def pools_in_order(order):
    """The product's GatherPools with its pools in `order` (a test seam: the product takes them as listed,
    upstream in map order); pools with binding conditions stay last where the product puts them last."""
    from webhook.allocation import allocator, pools

    original = allocator.gather_pools
    rank = {key: i for i, key in enumerate(order)}

    def reordered(slices_for_node, node, features, all_slices):
        found = original(slices_for_node, node, features, all_slices)
        late = [features.experimental and not features.sorts_by_name and pools._has_binding_conditions(p)
                for p in found]
        return sorted(found, key=lambda p: (late[found.index(p)], rank.get((p.driver, p.pool), len(rank))))

    allocator.gather_pools = reordered
    try:
        yield
    finally:
        allocator.gather_pools = original


def footprint_key(answer: dict):
    """What the Pod takes from the node (non-zero amounts by value), or that it cannot be counted."""
    if answer.get("footprintError"):
        return "error"
    return sorted((name, _quantity(v)) for name, v in (answer.get("footprint") or {}).items() if _quantity(v))


def compare(ours: dict, theirs: dict, devices: bool = True) -> str | None:
    """None when the answers agree, else what differs: "outcome", (with `devices`) "devices", or (for the
    same devices) "footprint", or whether the Pod then fits on the node ("fit", where upstream checked it)."""
    if ours["outcome"] != theirs["outcome"]:
        return "outcome"
    if ours["outcome"] == "allocated" and devices:
        if [allocation_key(a) for a in ours["results"]] != [allocation_key(a) for a in theirs["results"]]:
            return "devices"
        if footprint_key(ours) != footprint_key(theirs):
            return "footprint"
        if theirs.get("fits") is not None and ours.get("fits") != theirs["fits"]:
            return "fit"
    return None


def known_differences() -> list:
    import yaml

    if not KNOWN.exists():
        return []
    return yaml.safe_load(KNOWN.read_text()).get("differences") or []


def explain(known: list, version: str, gate_set: str, scenario: dict, kind: str, ours: dict, theirs: dict):
    """The known difference a disagreement is, or None."""
    for entry in known:
        if version not in entry.get("releases", RELEASES) or gate_set not in entry.get("gates", (gate_set,)):
            continue
        if entry.get("disagreement", kind) != kind:
            continue
        if not set(entry.get("tags", ())) <= set(scenario["tags"]):
            continue
        if entry.get("product", ours["outcome"]) != ours["outcome"]:
            continue
        if entry.get("upstream", theirs["outcome"]) != theirs["outcome"]:
            continue
        pattern = entry.get("upstream_error")
        if pattern and not re.search(pattern, theirs["error"]):
            continue
        return entry
    return None


def run(version: str, gate_set: str, gates: str, seeds, known: list | None = None, timeout: float = TIMEOUT) -> dict:
    """One release and gate set: the tallies, and the unexplained disagreements (with both answers)."""
    known = known_differences() if known is None else known
    switched = enabled(version, gates)
    scenarios = [allocator_scenarios.scenario(seed, version, switched) for seed in seeds]
    theirs = run_upstream(version, gates, scenarios, timeout)
    tally = defaultdict(Counter)  # feature -> Counter(scenarios, agree, known, unexplained, outcomes...)
    unexplained, explained = [], Counter()
    for s in scenarios:
        ours, answer = run_product(version, gates, s, timeout), theirs[s["id"]]
        fixed = deterministic(version, s)
        undecided = "gave up" in (ours["outcome"], answer["outcome"])
        kind = None if undecided else compare(ours, answer, fixed)
        reordered = False
        if kind and not fixed:  # pools in Go map order: does some order give upstream's answer?
            reordered = False
            for order in pool_orders(s):
                with pools_in_order(order):
                    if compare(run_product(version, gates, s, timeout), answer) is None:
                        reordered = True
                        break
            kind = None if reordered else kind
        entry = explain(known, version, gate_set, s, kind, ours, answer) if kind else None
        verdict = "gave up" if undecided else "agree" if kind is None else "known" if entry else "unexplained"
        for feature in ["all"] + s["tags"]:
            tally[feature]["scenarios"] += 1
            tally[feature]["devices compared"] += answer["outcome"] == "allocated" and fixed
            tally[feature]["footprints compared"] += answer["outcome"] == "allocated" and fixed and bool(
                answer["footprint"] or answer["footprintError"])
            tally[feature]["fits compared"] += answer["outcome"] == "allocated" and fixed and \
                answer.get("fits") is not None
            tally[feature]["in another pool order"] += reordered
            tally[feature][verdict] += 1
            tally[feature]["upstream " + answer["outcome"]] += 1  # its answers (a verdict is counted above)
        if entry:
            explained[entry["name"]] += 1
        elif kind:
            unexplained.append({"id": s["id"], "gates": gate_set, "disagreement": kind, "product": ours,
                                "upstream": answer, "scenario": s})
    return {"tally": tally, "unexplained": unexplained, "explained": explained}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=2500, help="scenarios per release and gate set")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--releases", nargs="+", default=list(RELEASES), choices=RELEASES)
    parser.add_argument("--gates", nargs="+", default=["default", "dra-on"], choices=["default", "dra-on"])
    parser.add_argument("--timeout", type=float, default=TIMEOUT,
                        help="seconds either side may take on one scenario (0: no limit; default %(default)s)")
    parser.add_argument("--write-unexplained", metavar="FILE", help="write each unexplained disagreement (JSON lines)")
    args = parser.parse_args(argv)
    problem = build(args.releases)
    if problem:
        print(f"allocator differential: cannot build the upstream allocators ({problem}): {HOW_TO_GET}",
              file=sys.stderr)
        return 2
    known = known_differences()
    seeds = range(args.first_seed, args.first_seed + args.scenarios)
    failures = []
    print(f"{'release':8} {'gates':8} {'feature':18} {'scenarios':>9} {'agree':>7} {'known':>6} {'unexpl':>6} "
          f"{'alloc':>6} {'unalloc':>7} {'error':>6} {'devices compared':>16} {'footprints':>10} {'fits':>4} {'other order':>11} "
          f"{'gave up':>7}")
    for version in args.releases:
        for gate_set in args.gates:
            started = time.monotonic()
            result = run(version, gate_set, gate_sets(version)[gate_set], seeds, known, args.timeout)
            for feature in sorted(result["tally"], key=lambda f: (f != "all", f)):
                t = result["tally"][feature]
                print(f"{version:8} {gate_set:8} {feature:18} {t['scenarios']:9} {t['agree']:7} {t['known']:6} "
                      f"{t['unexplained']:6} {t['upstream allocated']:6} {t['upstream unallocated']:7} "
                      f"{t['upstream error']:6} "
                      f"{t['devices compared']:16} {t['footprints compared']:10} {t['fits compared']:4} "
                      f"{t['in another pool order']:11} "
                      f"{t['gave up']:7}")
            for name, count in sorted(result["explained"].items()):
                print(f"{version:8} {gate_set:8}   known difference {name}: {count}")
            print(f"{version:8} {gate_set:8}   ({time.monotonic() - started:.0f} s)", flush=True)
            failures += result["unexplained"]
    if args.write_unexplained:
        with open(args.write_unexplained, "w") as out:
            for failure in failures:
                out.write(json.dumps(failure) + "\n")
    print(f"unexplained disagreements: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
