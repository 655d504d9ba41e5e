"""`allocate` on a cluster dump, per pod: the claims of one pod are allocated together and each pending
pod is answered on its own; DeviceTaintRules taint devices as the scheduler's slice tracker does; claims
in use through shared allocations charge their devices' counters; `--node`, `--pod`, `--claim` and
inputs that allocate does not use.

The fixtures in tests/data/allocate_dump are written as `kubectl get ... -A -o yaml` prints them (a
List, or one document per object)."""

from __future__ import annotations

import json
from pathlib import Path

from allocation_objects import claim, device_class, gpu, hopeless_search, node, request, resource_slice, write
from test_allocate_cli import allocate

DUMP = Path(__file__).parent / "data" / "allocate_dump"
CLUSTER, RULE, SHARED = str(DUMP / "cluster.yaml"), str(DUMP / "drain-rule.yaml"), str(DUMP / "shared-counters.yaml")
RULES_ON = ("--feature-gates", "DRADeviceTaintRules=true")


def run_json(capsys, *argv: str):
    code, out, err = allocate(capsys, *argv, "--output", "json")
    return code, (json.loads(out) if out.strip() else None), err


def test_each_pending_pod_is_placed_on_its_own(capsys):
    # 2 nodes x 1 GPU, 2 pods of one GPU each: every pod fits on either node (as one pod, 0 of 2 did).
    code, report, err = run_json(capsys, CLUSTER, "--all-nodes")
    assert code == 0, err
    assert [(r["pod"], r["node"], r["allocated"]) for r in report] == [
        ("ml/trainer", "node-a", True), ("ml/trainer", "node-b", True),
        ("serving/infer", "node-a", True), ("serving/infer", "node-b", True)]
    # The template's claim is the one the pod's status names; the other pod names its claim directly.
    assert [[c["name"] for c in r["claims"]] for r in report[::2]] == [["trainer-gpu-5xq8n"], ["infer-gpu"]]
    code, out, _ = allocate(capsys, CLUSTER, "--all-nodes")
    assert code == 0
    assert out.startswith("pod ml/trainer: 2 of 2 nodes fit: node-a, node-b\nnode node-a: all claims allocated\n")
    assert "\npod serving/infer: 2 of 2 nodes fit: node-a, node-b\n" in out


def test_device_taint_rule_refuses_the_tainted_gpu_and_names_the_rule(capsys):
    code, report, _ = run_json(capsys, CLUSTER, RULE, "--pod", "ml/trainer", "--node", "node-a", *RULES_ON)
    assert code == 1 and report["pod"] == "ml/trainer" and report["allocated"] is False
    tainted = {e["reason"]: e for e in report["claims"][0]["explanation"][0]["removed"]}
    assert tainted["tainted without a matching toleration"]["examples"] == [{
        "device": "gpu.example.com/node-a/gpu-0",
        "why": "taint example.com/maintenance=fan:NoSchedule from DeviceTaintRule drain-node-a-gpu is not tolerated"}]
    code, report, _ = run_json(capsys, CLUSTER, RULE, "--pod", "ml/trainer", "--node", "node-b", *RULES_ON)
    assert code == 0 and report["claims"][0]["allocation"]["devices"]["results"][0]["pool"] == "node-b"
    # 1.37 has the gate on by default; --all-nodes then places the pod on node-b only.
    code, report, _ = run_json(capsys, CLUSTER, RULE, "--pod", "ml/trainer", "--all-nodes",
                               "--kubernetes-version", "1.37")
    assert code == 0 and [(r["node"], r["allocated"]) for r in report] == [("node-a", False), ("node-b", True)]


def test_a_toleration_or_a_rule_for_another_device_lets_the_gpu_be_allocated(tmp_path, capsys):
    text = Path(RULE).read_text()
    other = tmp_path / "other.yaml"
    other.write_text(text.replace("device: gpu-0", "device: gpu-1"))
    code, _, _ = run_json(capsys, CLUSTER, str(other), "--pod", "ml/trainer", "--node", "node-a", *RULES_ON)
    assert code == 0
    tolerating = tmp_path / "tolerating.yaml"
    tolerating.write_text(Path(CLUSTER).read_text().replace(
        "          count: 1\n", "          count: 1\n          tolerations:\n          - key: example.com/maintenance\n"
        "            operator: Exists\n"))
    code, report, _ = run_json(capsys, str(tolerating), RULE, "--pod", "ml/trainer", "--node", "node-a", *RULES_ON)
    assert code == 0, report
    assert report["claims"][0]["allocation"]["devices"]["results"][0]["tolerations"] == [
        {"key": "example.com/maintenance", "operator": "Exists"}]


def test_a_rule_the_scheduler_does_not_read_is_listed_not_applied(capsys):
    # 1.36: DRADeviceTaintRules is beta and off; the scheduler's tracker then reads no rule.
    code, _, err = run_json(capsys, CLUSTER, RULE, "--pod", "ml/trainer", "--node", "node-a")
    assert code == 0
    assert err.count("ignored") == 1
    assert "note: ignored (not used to allocate): 2 ConfigMap, DeviceTaintRule (DRADeviceTaintRules is off)" in err


def test_a_node_no_input_names_is_a_usage_error(capsys):
    code, out, err = allocate(capsys, CLUSTER, "--node", "node-z")
    assert code == 2 and out == ""
    assert "--node node-z: no input names this node (the inputs name node-a, node-b)" in err


def test_no_objects_is_said_as_such(tmp_path, capsys):
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing here\n")
    code, out, err = allocate(capsys, str(empty), "--all-nodes")
    assert code == 2 and out == "" and "no objects" in err and "node" not in err


def test_pod_and_claim_focus(capsys):
    code, report, _ = run_json(capsys, CLUSTER, "--claim", "serving/infer-gpu", "--node", "node-b")
    assert code == 0 and report["pod"] is None and [c["name"] for c in report["claims"]] == ["infer-gpu"]
    assert allocate(capsys, CLUSTER, "--pod", "ml/nobody", "--all-nodes")[0] == 2
    code, _, err = allocate(capsys, CLUSTER, "--claim", "ml/nothing", "--all-nodes")
    assert code == 2 and "no pending ResourceClaim or ResourceClaimTemplate ml/nothing" in err


def test_in_use_shared_allocation_charges_the_devices_counters(capsys):
    # inference/server runs with a share of `shared` (1 of the 65536 units); `whole` needs all 65536.
    code, report, _ = run_json(capsys, SHARED, "--pod", "batch/exclusive")
    assert code == 1 and report["pod"] == "batch/exclusive"
    removed = {e["reason"]: e for e in report["claims"][0]["explanation"][0]["removed"]}
    assert removed["counters exhausted"]["examples"] == [
        {"device": "mem.example.com/node-1/whole", "why": "hbm/memory needs 65536, 65535 left"}]
    # The running pod has nothing left to allocate: only the pending one is answered.
    code, report, _ = run_json(capsys, SHARED)
    assert code == 1 and report["pod"] == "batch/exclusive"


def _pod(name: str, *claims: str, node_name: str = "", templates: tuple = ()) -> dict:
    refs = [{"name": c, "resourceClaimName": c} for c in claims]
    refs += [{"name": t, "resourceClaimTemplateName": t} for t in templates]
    spec: dict = {"containers": [{"name": "c", "image": "x"}], "resourceClaims": refs}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


GPU_CLASS = device_class("gpu.example.com", 'device.driver == "gpu.example.com"')
SLICES = [resource_slice(f"{n}-gpus", [gpu("gpu-0")], node=n) for n in ("node-a", "node-b")]


def test_a_bound_pod_is_checked_on_its_node_only(tmp_path, capsys):
    objects = [GPU_CLASS, *SLICES, claim("c", request("gpu")), _pod("p", "c", node_name="node-b")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 0 and [(r["node"], r["pod"]) for r in report] == [("node-b", "default/p")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--node", "node-a")
    assert code == 1 and report["error"] == "pod default/p is bound to node node-b"


def test_a_pods_allocated_claim_keeps_it_on_that_node(tmp_path, capsys):
    on_a = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a",
                                     "device": "gpu-0"}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}
    two = [resource_slice(f"{n}-gpus", [gpu("gpu-0"), gpu("gpu-1")], node=n) for n in ("node-a", "node-b")]
    objects = [GPU_CLASS, *two, claim("done", request("gpu"), allocation=on_a), claim("more", request("gpu")),
               _pod("p", "done", "more"), node("node-a"), node("node-b")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 0 and [(r["node"], r["allocated"]) for r in report] == [("node-a", True), ("node-b", False)]
    assert report[0]["claims"][0]["allocation"]["devices"]["results"][0]["device"] == "gpu-1"  # gpu-0 in use
    assert report[1]["error"] == "claim default/done is allocated, and not available on this node"


def test_a_template_without_its_claim_yet_is_allocated_for_the_pod(tmp_path, capsys):
    from allocation_objects import template

    objects = [GPU_CLASS, *SLICES, template("t", request("gpu")), _pod("p", templates=("t",)),
               _pod("q", "missing")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 1  # pod q waits for a claim that does not exist
    # Pod q is refused before any node is tried: one answer, with no node.
    assert [(r["pod"], r["node"], r["allocated"]) for r in report] == [
        ("default/p", "node-a", True), ("default/p", "node-b", True), ("default/q", None, False)]
    assert report[2]["error"] == "spec.resourceClaims[0]: ResourceClaim default/missing is not in the inputs"


def test_claims_no_pod_references_are_answered_each_on_its_own(tmp_path, capsys):
    objects = [GPU_CLASS, SLICES[0], claim("a", request("gpu")), claim("b", request("gpu")),
               claim("c", request("gpu")), _pod("p", "a")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--node", "node-a")
    assert code == 0
    assert [(r["pod"], [c["name"] for c in r["claims"]]) for r in report] == [
        ("default/p", ["a"]), (None, ["b"]), (None, ["c"])]


def test_the_timeout_holds_per_pod(tmp_path, capsys):
    # One hopeless pod gives up at its own timeout; the other pod is still answered, and allocated.
    hopeless = hopeless_search()
    objects = [*hopeless, claim("easy", request("gpu")), _pod("stuck", "hopeless"), _pod("fine", "easy")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--timeout", "0.3")
    assert code == 3
    assert [(r["pod"], r["allocated"], bool(r.get("gaveUp"))) for r in report] == [
        ("default/stuck", False, True), ("default/fine", True, False)]
    assert report[0]["error"].startswith("gave up after 0.")


def test_only_kinds_allocate_does_not_use_is_no_objects_and_nothing_pending_is_said(tmp_path, capsys):
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    code, out, err = allocate(capsys, write(tmp_path / "in.json", [config, config]), "--all-nodes")
    assert code == 2 and out == "" and "no objects: the inputs hold no object allocate uses (2 ignored)" in err
    assert "note: ignored (not used to allocate): 2 ConfigMap" in err
    running = {**_pod("p", "c", node_name="node-a"), "status": {"phase": "Running"}}
    done = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a",
                                     "device": "gpu-0"}]}}
    objects = [GPU_CLASS, *SLICES, claim("c", request("gpu"), allocation=done), running]
    code, out, _ = allocate(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 0 and out == "nothing to allocate: no pending pod or claim\n"


def _rule_1_34(name: str, **selector) -> dict:
    return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": selector, "taint": {"key": "example.com/broken", "effect": "NoExecute"}}}


def test_kubernetes_1_34_rules_select_by_class_and_cel_too(tmp_path, capsys):
    # 1.34's tracker (gate DRADeviceTaints) also matches the rule's class selectors and CEL selectors.
    a100 = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}]
    h100 = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]
    argv = ("--pod", "ml/trainer", "--all-nodes", "--kubernetes-version", "1.34", "--feature-gates",
            "DRADeviceTaints=true")
    cases = [(_rule_1_34("a100s", pool="node-a", deviceClassName="gpu.example.com", selectors=a100), [False, True]),
             (_rule_1_34("h100s", selectors=h100), [True, True]),
             (_rule_1_34("no-class", deviceClassName="missing"), [True, True]),
             (_rule_1_34("every-gpu", driver="gpu.example.com"), [False, False])]
    for rule, fits in cases:
        code, report, err = run_json(capsys, CLUSTER, write(tmp_path / "rule.json", [rule]), *argv)
        assert [r["allocated"] for r in report] == fits, (rule["metadata"]["name"], err)
        assert code == (0 if any(fits) else 1)


def test_pod_names_are_escaped_in_the_text_report_and_on_stderr(tmp_path, capsys):
    evil = "p\x1b[2J\nnode node-a: all claims allocated"
    pod = {**_pod("x", "c"), "metadata": {"name": evil, "namespace": "default"}}
    path = write(tmp_path / "in.json", [GPU_CLASS, *SLICES, claim("c", request("gpu")), pod])
    code, out, _ = allocate(capsys, path, "--all-nodes")
    assert code == 0 and "\x1b" not in out
    assert out.startswith("pod default/p\\x1b[2J\\nnode node-a: all claims allocated: 2 of 2 nodes fit")
    code, out, err = allocate(capsys, path, "--all-nodes", "--pod", "default/" + evil + "2")
    assert code == 2 and out == "" and "\x1b" not in err and "\n" not in err.rstrip("\n")


def test_explanations_name_the_claim_with_its_namespace_and_index_selectors_like_field_paths(tmp_path, capsys):
    two = resource_slice("node-a-gpus", [gpu("gpu-0"), gpu("gpu-1", model="h100")], node="node-a")
    a100 = 'device.attributes["gpu.example.com"].model == "a100"'
    wants_a = claim("a", request("gpu"), namespace="ml")
    wants_b = claim("b", request("gpu", "gpu.example.com", 3, "true", a100), namespace="ml")
    pod = {**_pod("p", "a", "b"), "metadata": {"name": "p", "namespace": "ml"}}
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", [GPU_CLASS, two, wants_a, wants_b, pod]),
                               "--node", "node-a")
    assert code == 1 and report["pod"] == "ml/p"
    first, second = (c["explanation"][0] for c in report["claims"])
    # Claim a could be allocated alone: the note names the claim that cannot, with its namespace.
    assert first["note"] == "enough usable devices; allocation fails on claim ml/b request gpu"
    assert second["note"] == "needs 3, only 1 usable"
    assert second["removed"][0]["examples"] == [{"device": "gpu.example.com/node-a/gpu-1",
                                                 "why": f"request selectors[1] is false: {a100}"}]


def test_kubernetes_1_35_rules_need_both_gates_and_say_so(tmp_path, capsys):
    # 1.35 serves DeviceTaintRule v1alpha3 only, both gates alpha: the allocator checks taints only with
    # DRADeviceTaints, the tracker reads rules only with DRADeviceTaintRules.
    rule = tmp_path / "rule.yaml"
    rule.write_text(Path(RULE).read_text().replace("v1beta2", "v1alpha3"))
    argv = ("--pod", "ml/trainer", "--all-nodes", "--kubernetes-version", "1.35", "--feature-gates")
    code, report, err = run_json(capsys, CLUSTER, str(rule), *argv, "DRADeviceTaintRules=true")
    assert code == 0 and [r["allocated"] for r in report] == [True, True]
    assert "with DRADeviceTaints off the allocator checks no taint" in err
    code, report, err = run_json(capsys, CLUSTER, str(rule), *argv, "DRADeviceTaintRules=true,DRADeviceTaints=true")
    assert code == 0 and [r["allocated"] for r in report] == [False, True] and "checks no taint" not in err
    code, report, err = run_json(capsys, CLUSTER, RULE, *argv, "DRADeviceTaintRules=true,DRADeviceTaints=true")
    assert [r["allocated"] for r in report] == [True, True]
    assert "DeviceTaintRule (v1beta2 is not served by 1.35)" in err


def test_a_bound_pod_needs_no_node_flag(tmp_path, capsys):
    objects = [GPU_CLASS, *SLICES, claim("c", request("gpu")), _pod("p", "c", node_name="node-b"),
               node("node-a"), node("node-b")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--pod", "default/p")
    assert code == 0 and report["node"] == "node-b" and report["pod"] == "default/p"


def test_a_claim_being_deleted_keeps_its_pod_pending(tmp_path, capsys):
    going = claim("c", request("gpu"))
    going["metadata"]["deletionTimestamp"] = "2026-12-01T10:00:00Z"
    objects = [GPU_CLASS, *SLICES, going, _pod("p", "c")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--node", "node-a")
    assert code == 1 and report["error"] == "spec.resourceClaims[0]: ResourceClaim default/c is being deleted"


def test_a_claim_reserved_for_the_most_consumers_keeps_another_pod_waiting(tmp_path, capsys):
    done = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a",
                                     "device": "gpu-0"}]}}
    full = claim("shared", request("gpu"), allocation=done)
    full["status"]["reservedFor"] = [{"resource": "pods", "name": f"w{i}", "uid": f"uid-{i}"} for i in range(256)]
    waiting = _pod("late", "shared", "mine")
    waiting["metadata"]["uid"] = "uid-late"
    objects = [GPU_CLASS, *SLICES, full, claim("mine", request("gpu")), waiting]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--node", "node-b")
    assert code == 1 and report["error"] == ("spec.resourceClaims[0]: ResourceClaim default/shared is in use: "
                                             "reserved for 256 consumers, the most it can be")
    waiting["metadata"]["uid"] = "uid-7"  # one of the 256: it may use the claim
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--node", "node-b")
    assert code == 0 and report["claims"][0]["name"] == "mine"


def test_a_malformed_pod_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    for spec in ("nope", {"resourceClaims": [{"name": "x", "resourceClaimName": {"a": 1}}]},
                 {"resourceClaims": [{"name": "x", "resourceClaimTemplateName": ["t"]}]}):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": spec}
        code, out, err = allocate(capsys, write(tmp_path / "in.json", [GPU_CLASS, *SLICES, pod]), "--all-nodes")
        assert code == 2 and out == "" and "malformed input: " in err and "Traceback" not in err, (spec, err)
        assert "in.json#0.items[3]: Pod default/p: " in err, err  # which input, which pod
        if isinstance(spec, dict):  # --pod reads the one pod only
            code, _, err = allocate(capsys, write(tmp_path / "in.json", [GPU_CLASS, *SLICES, pod]), "--pod", "p")
            assert code == 2 and "in.json#0.items[3]: Pod default/p: " in err, err


def test_without_pods_the_pending_claims_are_one_pods_and_a_note_says_so(tmp_path, capsys):
    objects = [GPU_CLASS, *SLICES, claim("a", request("gpu")), claim("b", request("gpu"))]
    code, report, err = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 1 and [r["allocated"] for r in report] == [False, False]  # 2 GPUs, one per node
    assert "note: no Pod in the inputs: the 2 pending claims are allocated together, as one pod's" in err
