"""The allocator differential's fixed-seed subset: `dra-webhook allocate` against the real structured
allocator of each release (tests/upstream/kube-1.3X/cmd/allocator) on the first scenarios of
tests/allocator_scenarios.py, with the release's default gates and with every DRA gate on. The full run
(thousands per release) is `python tests/allocator_differential.py`.

Without Go these tests skip with one line saying how to get them; with CI=true they fail instead.
"""

from __future__ import annotations

import json
import shutil

import pytest

import allocator_differential as differential
import allocator_scenarios
from support import in_ci
from webhook import cli

SUBSET = 150  # scenarios per release and gate set (the seeds 0..149): about 10 s for all four releases
IN_CI = in_ci()

if shutil.which("go") is None and not IN_CI:
    pytest.skip(f"allocator differential: Go is not installed: {differential.HOW_TO_GET}", allow_module_level=True)


@pytest.fixture(scope="module")
def allocators():
    """The real allocators of every release, built (or found up to date) once."""
    problem = differential.build(differential.RELEASES)
    if problem:
        pytest.fail(f"allocator differential: {problem}")
    return {version: differential.binary(version) for version in differential.RELEASES}


ALPHA_1_37 = {"compatibilityGroups", "derivedAttributes", "fractionalCapacity", "skipNodeOperations"}
CASES = [(version, gate_set) for version in differential.RELEASES for gate_set in ("default", "dra-on")]


@pytest.mark.parametrize(("version", "gate_set"), CASES, ids=[f"{v}-{g}" for v, g in CASES])
def test_fixed_seed_subset_agrees(allocators, version, gate_set):
    # No time limit: these seeds finish in well under a second each on both sides, and a verdict must
    # not depend on the clock.
    result = differential.run(version, gate_set, differential.gate_sets(version)[gate_set], range(SUBSET),
                              timeout=0)
    tally = result["tally"]["all"]
    assert tally["scenarios"] == SUBSET and tally["gave up"] == 0
    assert not result["unexplained"], json.dumps(
        [{k: u[k] for k in ("id", "gates", "disagreement")} | {"product": u["product"]["outcome"],
                                                               "upstream": u["upstream"]["outcome"],
                                                               "upstream error": u["upstream"]["error"][:200]}
         for u in result["unexplained"]], indent=1)
    # The scenarios reach each outcome, and devices are compared, or the subset would prove little.
    assert tally["upstream allocated"] and tally["upstream unallocated"] and tally["upstream error"]
    assert tally["devices compared"]
    # The features added later are mixed in: DeviceTaintRules everywhere, the 1.37 alpha allocator features,
    # and with DRANodeAllocatableResources on, footprints compared.
    features = {"taintRules"} | (ALPHA_1_37 if version == "1.37" else set())
    assert {f for f in features if result["tally"][f]["scenarios"]} == features
    if gate_set == "dra-on" and version in ("1.36", "1.37"):
        assert tally["footprints compared"]
        # and pending Pods with pod-level resources and with claims generated from templates, whose fit on
        # the node is compared (in a tenth of the full run's scenarios with every DRA gate on).
        assert result["tally"]["podLevelResources"]["footprints compared"]
        assert result["tally"]["claimTemplates"]["footprints compared"]
        assert tally["fits compared"] >= SUBSET // 20


def test_command_answers_as_in_process(allocators, tmp_path, capsys):
    """The in-process answer the differential compares is what `dra-webhook allocate --output json` prints."""
    for seed in range(20):
        scenario = allocator_scenarios.scenario(seed, "1.36", differential.enabled("1.36", ""))
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": differential.objects(scenario)}))
        code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", "1.36",
                         "--node", scenario["node"]["metadata"]["name"]])
        out, err = capsys.readouterr()
        ours = differential.run_product("1.36", "", scenario, timeout=0)
        report = json.loads(out)
        assert code == (0 if ours["outcome"] == "allocated" else 1), err
        assert report["allocated"] == (ours["outcome"] == "allocated")
        assert bool(report["error"]) == (ours["outcome"] == "error")
        if report["allocated"]:
            assert [differential.allocation_key(c["allocation"]) for c in report["claims"]] == \
                [differential.allocation_key(a) for a in ours["results"]]
