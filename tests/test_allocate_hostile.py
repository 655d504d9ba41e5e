"""Hostile allocate dumps: what a dump may hold that makes the work grow faster than the dump."""

from __future__ import annotations

import json

from test_offline_hostile import run_measured


def _dump(rules: int, devices: int = 128) -> dict:
    """One node, one slice of `devices` devices, a claim tolerating every NoSchedule taint, and `rules`
    DeviceTaintRules without a selector: every rule taints every device, the last one NoExecute."""
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-a",
                  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": f"gpu-{i}"} for i in range(devices)]}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com",
             "tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}}]}}},
        *({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": f"rule-{r}"},
           "spec": {"taint": {"key": f"k{r}", "effect": "NoExecute" if r == rules - 1 else "NoSchedule"}}}
          for r in range(rules))]}


def test_many_taint_rules_on_many_devices_cost_what_the_taints_do(tmp_path):
    """Every rule's taint was appended by copying the device's taints so far: 6,000 rules on 128 devices
    took 30 s and more (quadratic); each device is now copied once, with all its rules' taints."""
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(_dump(6000)))
    result, seconds, peak = run_measured(tmp_path, "allocate", "-o", "json", "--feature-gates",
                                         "DRADeviceTaintRules=true", str(path), timeout=60)
    assert result.returncode == 1, result.stderr  # the last rule's taint, on every device, is not tolerated
    explained = json.loads(result.stdout)["claims"][0]["explanation"][0]
    assert explained["considered"] == 128 and explained["usable"] == 0
    assert explained["removed"][0]["count"] == 128
    assert "k5999=:NoExecute from DeviceTaintRule rule-5999" in explained["removed"][0]["examples"][0]["why"]
    assert "Traceback" not in result.stderr
    assert seconds < 15 and peak < 512 * 2**20, (seconds, peak)  # measured: 2.8 s (before: 33 s)


def _shared_claim_dump(pods: int, reserved: int) -> dict:
    """`pods` pods sharing one allocated claim whose reservedFor has `reserved` entries (the last one the
    first pod), each pod also asking for a claim from a template that a free device satisfies."""
    reserved_for = [{"resource": "pods", "name": f"other-{i}", "uid": f"other-{i}"} for i in range(reserved - 1)]
    reserved_for.append({"resource": "pods", "name": "p0", "uid": "uid-0"})
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-a",
                  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
         "status": {"allocation": {
             "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}]},
             "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                 {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
             "reservedFor": reserved_for}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "t", "namespace": "ml"},
         "spec": {"spec": {"devices": {"requests": [
             {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}},
        *({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{p}", "namespace": "ml", "uid": f"uid-{p}"},
           "spec": {"containers": [{"name": "c"}], "resourceClaims": [
               {"name": "shared", "resourceClaimName": "shared"}, {"name": "own", "resourceClaimTemplateName": "t"}]}}
          for p in range(pods))]}


def test_many_pods_sharing_a_claim_with_a_long_reserved_for_cost_what_the_dump_does(tmp_path):
    """Each pod scanned the shared claim's whole reservedFor for its uid: 3,000 pods and 100,000 entries
    (a 6 MB dump) took 23 s; the uids are now indexed once per claim. The verdicts stay: the first pod is
    among the consumers, the others cannot be added to a full list (PreBind would fail)."""
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(_shared_claim_dump(3000, 100_000)))
    result, seconds, peak = run_measured(tmp_path, "allocate", "-o", "json", str(path), timeout=60)
    assert result.returncode == 1, result.stderr
    answers = json.loads(result.stdout)
    assert len(answers) == 3000 and answers[0]["pod"] == "ml/p0" and answers[0]["allocated"] is True
    full = ("spec.resourceClaims[0]: ResourceClaim ml/shared is in use: reserved for 100000 consumers, the most it "
            "can be")
    assert all(a["allocated"] is False and a["error"] == full for a in answers[1:])
    assert "Traceback" not in result.stderr
    assert seconds < 15 and peak < 512 * 2**20, (seconds, peak)  # measured: 1 s (before: 23 s)
