"""Hostile allocate dumps: what a dump may hold that makes the work grow faster than the dump."""

from __future__ import annotations

import json

from allocation_objects import shared_claim_dump, taint_rules_dump
from test_offline_hostile import run_measured


def test_many_taint_rules_on_many_devices_cost_what_the_taints_do(tmp_path):
    """Every rule's taint was appended by copying the device's taints so far: 6,000 rules on 128 devices
    took 30 s and more (quadratic); each device is now copied once, with all its rules' taints."""
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(taint_rules_dump(6000)))
    result, _, peak = run_measured(tmp_path, "allocate", "-o", "json", "--feature-gates",
                                   "DRADeviceTaintRules=true", str(path), timeout=600)  # a hang guard only
    assert result.returncode == 1, result.stderr  # the last rule's taint, on every device, is not tolerated
    explained = json.loads(result.stdout)["claims"][0]["explanation"][0]
    assert explained["considered"] == 128 and explained["usable"] == 0
    assert explained["removed"][0]["count"] == 128
    assert "k5999=:NoExecute from DeviceTaintRule rule-5999" in explained["removed"][0]["examples"][0]["why"]
    assert "Traceback" not in result.stderr
    assert peak < 512 * 2**20, peak  # its time, linear in the rules, is benchmarks/hostile.py's (j)


def test_many_pods_sharing_a_claim_with_a_long_reserved_for_cost_what_the_dump_does(tmp_path):
    """Each pod scanned the shared claim's whole reservedFor for its uid: 3,000 pods and 100,000 entries
    (a 6 MB dump) took 23 s; the uids are now indexed once per claim. The verdicts stay: the first pod is
    among the consumers, the others cannot be added to a full list (PreBind would fail)."""
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(shared_claim_dump(3000, 100_000)))
    result, _, peak = run_measured(tmp_path, "allocate", "-o", "json", str(path), timeout=600)
    assert result.returncode == 1, result.stderr
    answers = json.loads(result.stdout)
    assert len(answers) == 3000 and answers[0]["pod"] == "ml/p0" and answers[0]["allocated"] is True
    full = ("spec.resourceClaims[0]: ResourceClaim ml/shared is in use: reserved for 100000 consumers, the most it "
            "can be")
    assert all(a["allocated"] is False and a["error"] == full for a in answers[1:])
    assert "Traceback" not in result.stderr
    assert peak < 512 * 2**20, peak  # its time, linear in the dump, is benchmarks/hostile.py's (k)
