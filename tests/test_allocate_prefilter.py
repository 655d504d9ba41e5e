"""`allocate` answers a pod the scheduler tries on no node once, as the scheduler's PreEnqueue and PreFilter
refuse it (a claim missing, a generated claim of another pod, scheduling gates, a DeviceClass that does not
exist, subrequests with DRAPrioritizedList off), says "nothing pending" for a bound pod whose claims are
allocated and reserved for it, names what the total time was shared by, and ends quietly with its verdict's
exit code when the reader of its output leaves early.

tests/data/allocate_dump/prefilter.yaml is written as `kubectl get ... -A -o yaml` prints it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from allocation_objects import claim, device_class, gpu, hopeless_search, node, request, resource_slice, write
from test_allocate_cli import allocate

DUMP = Path(__file__).parent / "data" / "allocate_dump" / "prefilter.yaml"
PREFILTER = str(DUMP)
NOT_OWNER = "ResourceClaim ml/trainer-gpu-5xq8n was not created for {pod} ml/trainer ({pod} is not owner)"


def run_json(capsys, *argv: str):
    code, out, err = allocate(capsys, *argv, "--output", "json")
    return code, (json.loads(out) if out.strip() else None), err


def _pod(name: str, *claims: str, uid: str = "", **spec) -> dict:
    body = {"containers": [{"name": "c", "image": "x"}],
            "resourceClaims": [{"name": c, "resourceClaimName": c} for c in claims], **spec}
    meta = {"name": name, "namespace": "default", **({"uid": uid} if uid else {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def test_pods_refused_before_the_node_search_are_answered_once_not_per_node(capsys):
    code, out, err = allocate(capsys, PREFILTER, "--all-nodes")
    assert code == 1, err
    assert out == (
        "pod ml/waiting: not scheduled, no node tried (PreEnqueue): spec.resourceClaims[0]: ResourceClaim "
        "ml/shared-gpu is not in the inputs\n\n"
        f"pod ml/trainer: not scheduled, no node tried (PreEnqueue): {NOT_OWNER.format(pod='Pod')}\n\n"
        "pod ml/gated: not scheduled, no node tried (PreEnqueue): waiting for scheduling gates: "
        "[example.com/quota example.com/approval]\n\n"
        "pod ml/fpga-user: not scheduled, no node tried (PreFilter): request fpga: device class fpga.example.com "
        "does not exist\n")
    code, report, _ = run_json(capsys, PREFILTER, "--all-nodes")
    assert code == 1
    assert [(r["pod"], r["node"], r["refusedAt"]) for r in report] == [
        ("ml/waiting", None, "PreEnqueue"), ("ml/trainer", None, "PreEnqueue"), ("ml/gated", None, "PreEnqueue"),
        ("ml/fpga-user", None, "PreFilter")]
    # Without --all-nodes and with two Node objects, no node needs to be named for a pod that searches none.
    code, report, err = run_json(capsys, PREFILTER, "--pod", "ml/waiting")
    assert code == 1 and report["node"] is None and report["claims"] == [], err
    assert report["error"] == "spec.resourceClaims[0]: ResourceClaim ml/shared-gpu is not in the inputs"


def test_a_generated_claim_must_be_owned_by_its_pod_in_upstreams_words(tmp_path, capsys):
    # The claim the pod's status names was generated for an earlier pod of the same name (another UID).
    code, report, _ = run_json(capsys, PREFILTER, "--pod", "ml/trainer")
    assert code == 1 and report["error"] == NOT_OWNER.format(pod="Pod") and report["refusedAt"] == "PreEnqueue"
    for version in ("1.34", "1.35"):  # resourceclaim.IsForPod before v0.36 says "pod"
        code, report, _ = run_json(capsys, PREFILTER, "--pod", "ml/trainer", "--kubernetes-version", version)
        assert code == 1 and report["error"] == NOT_OWNER.format(pod="pod")
    # Owned by this pod (its UID): allocated as usual.
    mine = tmp_path / "mine.yaml"
    mine.write_text(DUMP.read_text().replace("uid: 0b9e8f7d-0000-4000-8000-000000000001",
                                             "uid: 7d1c5e2a-3b4f-4c6d-8e9f-0a1b2c3d4e02"))
    code, report, _ = run_json(capsys, str(mine), "--pod", "ml/trainer", "--node", "node-b")
    assert code == 0 and report["claims"][0]["name"] == "trainer-gpu-5xq8n" and "refusedAt" not in report
    # An owner reference that is not the controller does not make the pod its owner.
    loose = tmp_path / "loose.yaml"
    loose.write_text(mine.read_text().replace("      controller: true\n      kind: Pod\n      name: trainer\n",
                                              "      controller: false\n      kind: Pod\n      name: trainer\n"))
    code, report, _ = run_json(capsys, str(loose), "--pod", "ml/trainer", "--node", "node-b")
    assert code == 1 and report["error"] == NOT_OWNER.format(pod="Pod")


def test_a_claim_owned_by_the_pods_pod_group_is_the_pods_with_workload_resource_claims(tmp_path, capsys):
    text = DUMP.read_text().replace(
        "    - apiVersion: v1\n      blockOwnerDeletion: true\n      controller: true\n      kind: Pod\n"
        "      name: trainer\n      uid: 0b9e8f7d-0000-4000-8000-000000000001\n",
        "    - apiVersion: scheduling.k8s.io/v1alpha2\n      controller: true\n      kind: PodGroup\n"
        "      name: team\n      uid: 5a5a5a5a-0000-4000-8000-000000000009\n").replace(
        "    resourceClaims:\n    - name: gpu\n      resourceClaimTemplateName: one-gpu\n  status:\n"
        "    phase: Pending\n    resourceClaimStatuses:",
        "    resourceClaims:\n    - name: gpu\n      resourceClaimTemplateName: one-gpu\n    schedulingGroup:\n"
        "      podGroupName: team\n  status:\n    phase: Pending\n    resourceClaimStatuses:")
    grouped = tmp_path / "grouped.yaml"
    grouped.write_text(text)
    argv = (str(grouped), "--pod", "ml/trainer", "--node", "node-b")
    code, report, _ = run_json(capsys, *argv, "--feature-gates", "DRAWorkloadResourceClaims=true")
    assert code == 0 and report["allocated"] is True
    code, report, _ = run_json(capsys, *argv)  # the gate is off: the PodGroup is no owner of the pod's
    assert code == 1 and report["error"] == NOT_OWNER.format(pod="Pod")
    other = tmp_path / "other.yaml"
    other.write_text(text.replace("      podGroupName: team\n", "      podGroupName: other-team\n"))
    code, report, _ = run_json(capsys, str(other), "--pod", "ml/trainer", "--node", "node-b", "--feature-gates",
                               "DRAWorkloadResourceClaims=true")
    assert code == 1 and report["error"] == ("ResourceClaim ml/trainer-gpu-5xq8n was not created for Pod ml/trainer "
                                             "(neither Pod nor PodGroup other-team is the owner)")


def test_a_gated_pod_is_not_pending_for_devices_and_not_searched(tmp_path, capsys):
    code, out, _ = allocate(capsys, PREFILTER, "--pod", "ml/gated", "--all-nodes")
    assert code == 1 and out == ("pod ml/gated: not scheduled, no node tried (PreEnqueue): waiting for scheduling "
                                 "gates: [example.com/quota example.com/approval]\n")
    # A gate's name from the inputs is escaped in the text report; a pod without claims is not allocate's.
    objects = [device_class("gpu.example.com"), resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a"),
               claim("c", request("gpu")), _pod("p", "c", schedulingGates=[{"name": "evil\x1b[2J\nnode x"}]),
               _pod("plain", schedulingGates=[{"name": "example.com/quota"}])]
    code, out, _ = allocate(capsys, write(tmp_path / "in.json", objects))
    assert code == 1 and "\x1b" not in out
    assert out == ("pod default/p: not scheduled, no node tried (PreEnqueue): waiting for scheduling gates: "
                   "[evil\\x1b[2J\\nnode x]\n")


def test_prefilter_refuses_a_missing_device_class_and_subrequests_without_prioritized_list(tmp_path, capsys):
    code, report, _ = run_json(capsys, PREFILTER, "--pod", "ml/fpga-user", "--all-nodes")
    assert code == 1 and report == [{"node": None, "pod": "ml/fpga-user", "allocated": False, "claims": [],
                                     "error": "request fpga: device class fpga.example.com does not exist",
                                     "refusedAt": "PreFilter"}]
    first = {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "gpu.example.com"},
                                               {"name": "any", "deviceClassName": "missing.example.com"}]}
    objects = [device_class("gpu.example.com"), resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a"),
               node("node-b"), claim("c", first), _pod("p", "c")]
    path = write(tmp_path / "in.json", objects)
    code, report, _ = run_json(capsys, path, "--all-nodes")
    assert code == 1 and [r["error"] for r in report] == ["request gpu/any: device class missing.example.com does "
                                                          "not exist"]
    code, report, _ = run_json(capsys, path, "--all-nodes", "--feature-gates", "DRAPrioritizedList=false")
    assert code == 1 and [r["error"] for r in report] == [
        "resource claim default/c, request gpu: has subrequests, but the DRAPrioritizedList feature is disabled"]


def test_a_bound_pod_with_its_claims_allocated_and_reserved_has_nothing_pending(tmp_path, capsys):
    code, out, err = allocate(capsys, PREFILTER, "--pod", "ml/server")
    assert code == 0, err
    assert out == ("nothing pending: pod ml/server is bound to node node-a, its claims are allocated and reserved "
                   "for it\n")
    code, report, _ = run_json(capsys, PREFILTER, "--pod", "ml/server")
    assert code == 0 and report == {"pod": "ml/server", "node": "node-a", "pending": False, "reason": (
        "pod ml/server is bound to node node-a, its claims are allocated and reserved for it")}
    # A pod without claims: the DRA plugin skips it.
    code, out, _ = allocate(capsys, write(tmp_path / "plain.json", [node("node-a"), _pod("plain")]), "--pod", "plain")
    assert code == 0 and out == ("nothing pending: pod default/plain has no resource claims (the scheduler's DRA "
                                 "plugin skips it)\n")
    # Reserved for another pod only: the scheduler has not finished with this one, so it is answered.
    other = tmp_path / "other.yaml"
    other.write_text(DUMP.read_text().replace("      uid: 7d1c5e2a-3b4f-4c6d-8e9f-0a1b2c3d4e05\n",
                                              "      uid: 7d1c5e2a-3b4f-4c6d-8e9f-0a1b2c3d4e99\n", 1))
    code, out, _ = allocate(capsys, str(other), "--pod", "ml/server")
    assert not out.startswith("nothing pending")


def test_the_total_timeout_says_it_was_shared_by_the_pods(tmp_path, capsys):
    stuck = hopeless_search()
    second = claim("hopeless-2", *stuck[3]["spec"]["devices"]["requests"],
                   constraints=stuck[3]["spec"]["devices"].get("constraints"))
    objects = [*stuck, second, _pod("one", "hopeless"), _pod("two", "hopeless-2")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--timeout", "0", "--total-timeout",
                               "0.5")
    assert code == 3 and [r.get("pod") for r in report] == ["default/one", None]
    assert "the time for all pods ran out (--total-timeout 0.5s)" in report[0]["error"]
    assert report[1]["notTried"] == {"answers": 1, "pods": 1, "nodes": 1}
    assert "the time for all pods ran out (--total-timeout 0.5s)" in report[1]["error"]


def _many_pods(tmp_path: Path, allocatable: bool) -> str:
    # ~1,500 answers: far more text than a pipe holds, each cheap (one device, or no search at all).
    names = [f"c-{i:04d}" for i in range(1500)]
    claims = [claim(n, request("gpu")) for n in names] if allocatable else []
    objects = [device_class("gpu.example.com"), resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a"),
               *claims, *(_pod(f"p-{n}", n) for n in names)]
    return write(tmp_path / f"many-{allocatable}.json", objects)


def test_a_reader_that_stops_early_gets_the_verdicts_exit_code_quietly(tmp_path):
    """`allocate ... | head -1`: the reader leaves after one line of far more than a pipe holds."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    for allocatable, output in ((False, "text"), (False, "json"), (True, "text")):
        process = subprocess.Popen([sys.executable, "-m", "webhook", "allocate", _many_pods(tmp_path, allocatable),
                                    "-o", output], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        first = process.stdout.readline()
        process.stdout.close()  # as head does after its line
        stderr = process.stderr.read()
        assert process.wait(timeout=120) == (0 if allocatable else 1), stderr
        assert first and stderr == b""


def test_a_claim_reserved_for_the_most_consumers_fails_at_binding_on_a_node_that_fits(tmp_path, capsys):
    # resourceclaim.CanBeReserved is always true: only a node that fits gets as far as PreBind, which fails.
    done = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a",
                                     "device": "gpu-0"}]}}
    full = claim("shared", request("gpu"), allocation=done)
    full["status"]["reservedFor"] = [{"resource": "pods", "name": f"w{i}", "uid": f"uid-{i}"} for i in range(256)]
    slices = [resource_slice(f"{n}-gpus", [gpu("gpu-0")], node=n) for n in ("node-a", "node-b")]
    objects = [device_class("gpu.example.com"), *slices, full, claim("mine", request("gpu")),
               _pod("late", "shared", "mine", uid="uid-late")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 1 and [(r["node"], r["error"]) for r in report] == [
        ("node-a", None),  # gpu-0 is taken: the claims cannot all be allocated there
        ("node-b", "spec.resourceClaims[0]: ResourceClaim default/shared is in use: reserved for 256 consumers, "
                   "the most it can be")]
    assert report[0]["claims"][0]["allocation"] is None


def test_an_allocated_claims_node_selector_that_cannot_be_parsed_is_one_prefilter_error(tmp_path, capsys):
    bad = {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a",
                                    "device": "gpu-0"}]},
           "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
               {"key": "zone", "operator": "Gt", "values": ["a"]}]}]}}
    slices = [resource_slice(f"{n}-gpus", [gpu("gpu-0")], node=n) for n in ("node-a", "node-b")]
    objects = [device_class("gpu.example.com"), *slices, claim("done", request("gpu"), allocation=bad),
               claim("more", request("gpu")), _pod("p", "done", "more"), node("node-a"), node("node-b")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 1 and [(r["node"], r["refusedAt"]) for r in report] == [(None, "PreFilter")]
    assert report[0]["error"] == ("claim default/done: allocation.nodeSelector: zone: for 'Gt', 'Lt' operators, "
                                  "exactly one integer value is required")


def test_an_extended_resource_a_device_class_provides_is_said_not_modelled(tmp_path, capsys):
    gpus = device_class("gpu.example.com")
    gpus["spec"]["extendedResourceName"] = "example.com/gpu"
    wants = _pod("legacy", "c")
    wants["spec"]["containers"][0]["resources"] = {"requests": {"example.com/gpu": "1"},
                                                   "limits": {"example.com/gpu": "1"}}
    implicit = _pod("implicit")
    implicit["spec"]["initContainers"] = [{"name": "i", "image": "x", "resources": {
        "limits": {"deviceclass.resource.kubernetes.io/gpu.example.com": "2"}}}]
    objects = [gpus, resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a"), claim("c", request("gpu")),
               wants, implicit]
    path = write(tmp_path / "in.json", objects)
    _, _, err = allocate(capsys, path)
    tail = (": the scheduler allocates it through a claim of its own (DRAExtendedResource), which allocate does "
            "not model")
    assert err.count("note: pod ") == 2
    assert ("note: pod default/legacy requests example.com/gpu, which DeviceClass gpu.example.com provides" + tail
            in err)
    assert ("note: pod default/implicit requests deviceclass.resource.kubernetes.io/gpu.example.com, which "
            "DeviceClass gpu.example.com provides" + tail in err)
    _, _, err = allocate(capsys, path, "--feature-gates", "DRAExtendedResource=false")
    assert "DRAExtendedResource" not in err


def test_a_pod_claim_naming_neither_a_claim_nor_a_template_is_refused_as_upstream(tmp_path, capsys):
    pod = _pod("p")
    pod["spec"]["resourceClaims"] = [{"name": "gpu"}]
    objects = [device_class("gpu.example.com"), resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a"),
               node("node-b"), pod]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert code == 1 and [(r["node"], r["error"]) for r in report] == [
        (None, 'pod "default/p", spec.resourceClaim "gpu": none of the supported fields are set')]


def test_a_hand_written_pod_without_uid_owns_its_generated_claim_unless_another_pod_controls_it(tmp_path, capsys):
    generated = claim("p-gpu-x1", request("gpu"))
    pod = _pod("p")
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    pod["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x1"}]}
    base = [device_class("gpu.example.com"), resource_slice("s", [gpu("gpu-0")], node="node-a"), node("node-a")]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", [*base, generated, pod]))
    assert code == 0 and report["claims"][0]["name"] == "p-gpu-x1"
    generated["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "q", "uid": "u-q",
                                                 "controller": True}]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", [*base, generated, pod]))
    assert code == 1 and report["error"] == ("ResourceClaim default/p-gpu-x1 was not created for Pod default/p "
                                             "(Pod is not owner)")
    pod["metadata"]["uid"] = "u-p"  # as in a dump: a claim without a controller is no pod's
    del generated["metadata"]["ownerReferences"]
    code, report, _ = run_json(capsys, write(tmp_path / "in.json", [*base, generated, pod]))
    assert code == 1 and report["refusedAt"] == "PreEnqueue"
