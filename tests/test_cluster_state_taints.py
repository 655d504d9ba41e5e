"""Taints in the cluster-state warnings, judged as the allocator judges them: a device's own taints and the
DeviceTaintRules of the dump (each under its gate: DRADeviceTaints for taints at all, DRADeviceTaintRules, or
1.34's DRADeviceTaints, for the rules), NoSchedule/NoExecute only from 1.35 (1.34: every effect), against the
request's tolerations. Offline end to end (`review --cluster-state FILE`), each verdict held against
`dra-webhook allocate` on the same files: a claim the warnings call unsatisfiable or short of devices is one the
allocator cannot allocate on the dump's only node, and the other way round."""

from __future__ import annotations

import pytest
import yaml

from support import cli, valid_slice
from test_cluster_state_https import gpu_claim, gpu_class

BROKEN = {"key": "example.com/broken", "value": "fan", "effect": "NoSchedule"}
MAINTENANCE = {"key": "example.com/maintenance", "operator": "Exists"}


def taint_rule(version: str = "v1alpha3", device: str = "gpu-1", effect: str = "NoExecute") -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "DeviceTaintRule", "metadata": {"name": "drain"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": device},
                     "taint": {"key": "example.com/maintenance", "effect": effect}}}


def tainted_slice() -> dict:
    """gpu-0 tainted by its driver (NoSchedule), gpu-1 clean (the rule taints it)."""
    published = valid_slice(2)
    published["spec"]["devices"][0]["taints"] = [BROKEN]
    return published


def claim(name: str, count: int = 1, tolerations: list | None = None) -> dict:
    out = gpu_claim("gpu", count=count, name=name)
    if tolerations:
        out["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = tolerations
    return out


CLAIMS = [claim("plain"), claim("tolerates-maintenance", tolerations=[MAINTENANCE]),
          claim("two-tolerating-maintenance", count=2, tolerations=[MAINTENANCE]),
          claim("tolerates-all", count=2, tolerations=[{"operator": "Exists"}])]
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}

# flags -> the state warning codes per claim (None: no warning): the allocator's own gates and effects.
PROFILES = {
    "1.34": (["--kubernetes-version", "1.34"], [None, None, None, None]),  # DRADeviceTaints off: taints ignored
    "1.34-taints": (["--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true"],
                    ["unsatisfiable", None, "count-above-devices", None]),
    "1.36": (["--kubernetes-version", "1.36"], [None, None, "count-above-devices", None]),  # no rules: gate off
    "1.36-rules": (["--kubernetes-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true"],
                   ["unsatisfiable", None, "count-above-devices", None]),
    "1.37": (["--kubernetes-version", "1.37"], ["unsatisfiable", None, "count-above-devices", None]),
}


def state_codes(stdout: str) -> dict:
    import json

    out = {}
    for result in json.loads(stdout)["results"]:
        codes = [w.split("]", 1)[0].lstrip("[") for w in result.get("warnings") or [] if w.startswith("[")]
        out[result["name"].split("/")[1].split(" ")[0]] = codes
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("taints")
    (root / "cluster.yaml").write_text(yaml.safe_dump_all([gpu_class(), tainted_slice(), taint_rule(), NODE]))
    for one in CLAIMS:
        (root / f"{one['metadata']['name']}.yaml").write_text(yaml.safe_dump(one))
    return root


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_warnings_follow_the_allocator(files, profile):
    flags, expected = PROFILES[profile]
    result = cli("review", *flags, "--cluster-state", str(files / "cluster.yaml"), "-o", "json",
                 *[str(files / f"{c['metadata']['name']}.yaml") for c in CLAIMS])
    assert result.returncode == 0, result.stdout + result.stderr
    found = state_codes(result.stdout)
    for one, code in zip(CLAIMS, expected):
        name = one["metadata"]["name"]
        assert found[name] == ([code] if code else []), (name, found[name])
        allocated = cli("allocate", *flags, "--node", "node-1", str(files / "cluster.yaml"),
                        str(files / f"{name}.yaml"))
        assert allocated.returncode == (1 if code else 0), (name, allocated.stdout + allocated.stderr)
        if code:
            assert "tainted without a matching toleration" in allocated.stdout, allocated.stdout


def test_the_warning_names_the_taints_and_the_rule(files):
    result = cli("review", "--kubernetes-version", "1.37", "--cluster-state", str(files / "cluster.yaml"),
                 str(files / "plain.yaml"), str(files / "two-tolerating-maintenance.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("warning [unsatisfiable]: ResourceClaim request gpus: no device in the cluster can satisfy it while the "
            "taints stay: gpus (DeviceClass gpu): every device that matches is tainted (taint "
            "example.com/broken=fan:NoSchedule on 1 device, taint example.com/maintenance=:NoExecute from "
            "DeviceTaintRule drain on 1 device): needs 1, 0 usable of 2 devices: tainted without a matching "
            "toleration: 2 (e.g. gpu.example.com/node-1/gpu-0: taint example.com/broken=fan:NoSchedule is not "
            "tolerated)") in result.stdout, result.stdout
    assert ("warning [count-above-devices]: ResourceClaim request gpus (DeviceClass gpu): asks for 2 devices, 2 in "
            "the whole cluster match, 1 of them tainted (taint example.com/broken=fan:NoSchedule on 1 device): needs "
            "2, 1 usable of 2 devices: tainted without a matching toleration: 1") in result.stdout, result.stdout


@pytest.mark.parametrize(("flags", "warned"), [
    (["--kubernetes-version", "1.37"], False),
    (["--kubernetes-version", "1.36"], False),
    (["--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true"], True)], ids=["1.37", "1.36", "1.34"])
def test_a_taint_of_effect_none_blocks_only_in_1_34(tmp_path, flags, warned):
    """taintPreventsAllocation (1.35+) blocks NoSchedule and NoExecute only; 1.34's allTaintsTolerated every
    taint not tolerated. The allocator on the same files agrees."""
    published = valid_slice(1)
    published["spec"]["devices"][0]["taints"] = [{"key": "example.com/note", "effect": "None"}]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([gpu_class(), published, NODE]))
    (tmp_path / "claim.yaml").write_text(yaml.safe_dump(claim("plain")))
    result = cli("review", *flags, "--cluster-state", str(tmp_path / "cluster.yaml"), str(tmp_path / "claim.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("warning [unsatisfiable]" in result.stdout) == warned, result.stdout
    if warned:
        assert "every device that matches is tainted (taint example.com/note=:None on 1 device)" in result.stdout
    allocated = cli("allocate", *flags, "--node", "node-1", str(tmp_path / "cluster.yaml"), str(tmp_path / "claim.yaml"))
    assert allocated.returncode == (1 if warned else 0), allocated.stdout + allocated.stderr


def _check(store, matching, one: dict) -> list:
    import time

    from webhook.clusterstate import checks

    return checks.check("ResourceClaim", one, store, matching, time.monotonic() + 30).warnings


def _other_pool() -> dict:
    other = valid_slice(2, name="node-2-gpu")
    other["spec"]["pool"]["name"] = other["spec"]["nodeName"] = "node-2"
    return other


def test_a_rule_makes_only_the_slices_it_can_touch_evaluated_again():
    """Through the store as the watch feeds it: a rule created, brought again unchanged by a relist, deleted."""
    from webhook.clusterstate.matching import Matching
    from webhook.clusterstate.store import Store
    from webhook.profile import make_profile

    store = Store(make_profile("1.37"))
    for obj in (gpu_class(), valid_slice(2), _other_pool()):
        store.put(obj["kind"], obj)
    matching = Matching(store)
    assert _check(store, matching, claim("plain")) == []
    evaluated = matching.evaluated_slices
    rule = taint_rule("v1beta2", device=None)
    del rule["spec"]["deviceSelector"]["device"]  # every device of pool node-1
    store.put("DeviceTaintRule", rule)
    assert _check(store, matching, claim("plain")) == []  # node-2's devices are clean
    assert matching.evaluated_slices == evaluated + 1  # only node-1's slice again
    [warning] = _check(store, matching, claim("four", count=4))
    assert "2 in the whole cluster match" not in warning and ", 2 of them tainted (taint " \
        "example.com/maintenance=:NoExecute from DeviceTaintRule drain on 2 devices)" in warning, warning
    evaluated = matching.evaluated_slices
    store.replace("DeviceTaintRule", [rule])  # a relist: the same rule, nothing to evaluate again
    _check(store, matching, claim("four", count=4))
    assert matching.evaluated_slices == evaluated
    store.delete("DeviceTaintRule", "drain")
    [warning] = _check(store, matching, claim("five", count=5))
    assert "tainted" not in warning, warning


def test_a_1_34_rule_that_selects_by_class_follows_the_class():
    """1.34's DeviceTaintRule may select devices by DeviceClass: a change of that class changes the taints."""
    from webhook.clusterstate.matching import Matching
    from webhook.clusterstate.store import Store
    from webhook.profile import make_profile

    store = Store(make_profile("1.34", "DRADeviceTaints=true"))
    narrow = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "first"},
              "spec": {"selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].index == 0'}}]}}
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "by-class"},
            "spec": {"deviceSelector": {"deviceClassName": "first"},
                     "taint": {"key": "example.com/maintenance", "effect": "NoExecute"}}}
    for obj in (gpu_class(), valid_slice(2), narrow, rule):
        store.put(obj["kind"], obj)
    matching = Matching(store)
    [warning] = _check(store, matching, claim("two", count=2))
    assert ", 1 of them tainted (taint example.com/maintenance=:NoExecute from DeviceTaintRule by-class on 1 " \
           "device)" in warning, warning
    narrow["spec"]["selectors"][0]["cel"]["expression"] = "true"  # the class now selects both devices
    store.put("DeviceClass", narrow)
    [warning] = _check(store, matching, claim("one"))
    assert warning.startswith("[unsatisfiable] ResourceClaim request gpus: no device in the cluster can satisfy it "
                              "while the taints stay"), warning


@pytest.mark.parametrize("flags, code", [
    (["--kubernetes-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true"], "unsatisfiable"),  # all
    (["--kubernetes-version", "1.37"], None),  # 1.37's tracker: a rule without deviceSelector taints none
])
def test_a_rule_without_a_device_selector_follows_the_release(tmp_path, flags, code):
    rule = taint_rule()
    del rule["spec"]["deviceSelector"]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([gpu_class(), tainted_slice(), rule, NODE]))
    (tmp_path / "plain.yaml").write_text(yaml.safe_dump(claim("plain")))
    result = cli("review", *flags, "--cluster-state", str(tmp_path / "cluster.yaml"), "-o", "json",
                 str(tmp_path / "plain.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert state_codes(result.stdout)["plain"] == ([code] if code else [])
    allocated = cli("allocate", *flags, "--node", "node-1", str(tmp_path / "cluster.yaml"), str(tmp_path / "plain.yaml"))
    assert allocated.returncode == (1 if code else 0), allocated.stdout + allocated.stderr


def test_the_budget_holds_inside_a_selector(monkeypatch):
    """The request's budget is checked by CEL too, not only between slices: a tenant's costly selector cannot run
    over the whole of a slice past it. With the budget's clock past its end inside the selector (a counter, not the
    machine's speed), the slice stays pending and nothing half-evaluated is recorded; with time, it completes."""
    import time

    from webhook.allocation import deadline
    from webhook.clusterstate.matching import Matching
    from webhook.clusterstate.store import Store
    from webhook.profile import make_profile

    store = Store(make_profile("1.37"))
    for obj in (gpu_class(), valid_slice(2)):
        store.put(obj["kind"], obj)
    matching = Matching(store)
    selectors = ('device.driver == "gpu.example.com"',)
    monkeypatch.setattr(deadline, "clock", lambda: float("inf"))  # every budget is over once CEL looks
    result = matching.result("gpu", selectors, time.monotonic() + 3600)
    assert result.pending and not result.slices and matching.evaluated_slices == 0
    monkeypatch.undo()
    result = matching.result("gpu", selectors, time.monotonic() + 3600)
    assert not result.pending and result.matching == 2


def test_a_relist_of_unchanged_objects_keeps_what_was_evaluated():
    """A relist (after 410 Gone or a silent watch) brings every slice and class again: unchanged, they leave every
    evaluated result in place; a changed slice is evaluated again, alone."""
    from webhook.clusterstate.matching import Matching
    from webhook.clusterstate.store import Store
    from webhook.profile import make_profile

    store = Store(make_profile("1.36"))
    slices = [valid_slice(2), _other_pool()]
    for obj in (gpu_class(), *slices):
        store.put(obj["kind"], obj)
    matching = Matching(store)
    [warning] = _check(store, matching, claim("five", count=5))
    evaluated = matching.evaluated_slices
    store.replace("DeviceClass", [gpu_class()])
    store.replace("ResourceSlice", [valid_slice(2), _other_pool()])
    assert _check(store, matching, claim("five", count=5)) == [warning]
    assert matching.evaluated_slices == evaluated
    grown = _other_pool()
    grown["spec"]["devices"].append({**grown["spec"]["devices"][0], "name": "gpu-2"})
    store.replace("ResourceSlice", [valid_slice(2), grown])
    _check(store, matching, claim("five", count=5))
    assert matching.evaluated_slices == evaluated + 1
