"""`dra-webhook allocate` per pod on a cluster dump: the typical pod side by side with the crafted worst case.

    python benchmarks/allocate_pods.py [--nodes 100] [--pods 50]

The dump: `--nodes` nodes of 8 identical-model GPUs (one slice each), `--pods` pending pods, each with a
claim from a template (generated, named in the pod's status) asking for 2 GPUs of one model bound by a
`matchAttribute` constraint, and a DeviceTaintRule draining one GPU of every fourth node (gate on).

1. Typical: every pod on every node (`--all-nodes`), the whole command, and per (pod, node) answer.
2. Worst case: one more pod whose claim is the crafted search (tests/allocation_objects.py
   `hopeless_search`: 50 identical devices, 10 requests bound by `matchAttribute`, a last request whose
   `firstAvailable` subrequests, `allocationMode: All` then one device, match nothing; years without a
   limit) answered alone on its node with the default `--timeout` (the scheduler's 10 s filterTimeout):
   it must give up (exit 3) within the timeout plus 1 s. The ratio to the typical pod's answer is printed.
3. The bound holds per pod: three such pods with `--timeout 1s` give up after about 1 s each, and with
   `--total-timeout 2s` after 2 s in all (the third is not searched).
Target: the whole run under 60 s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from allocation_objects import hopeless_search  # noqa: E402

from webhook import cli  # noqa: E402

V1 = "resource.k8s.io/v1"


def _pod(name: str, refs: list, statuses: list | None = None) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpus"}]}}],
                    "resourceClaims": refs},
           "status": {"phase": "Pending"}}
    if statuses:
        pod["status"]["resourceClaimStatuses"] = statuses
    return pod


def cluster(nodes: int, pods: int) -> list:
    objects: list = [{"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
                      "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}]
    for n in range(nodes):
        devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": "a100" if n % 2 else "h100"},
                                                        "numa": {"int": i // 4}}} for i in range(8)]
        objects.append({"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": f"node-{n}-gpus"},
                        "spec": {"driver": "gpu.example.com", "nodeName": f"node-{n}", "devices": devices,
                                 "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1}}})
        objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{n}"}})
        if n % 4 == 0:
            objects.append({"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
                            "metadata": {"name": f"drain-node-{n}-gpu-0"},
                            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": f"node-{n}",
                                                        "device": "gpu-0"},
                                     "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"}}})
    spec = {"devices": {"requests": [{"name": "gpus", "exactly": {
        "deviceClassName": "gpu.example.com", "count": 2,
        "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}]}}],
        "constraints": [{"matchAttribute": "gpu.example.com/numa"}]}}
    objects.append({"apiVersion": V1, "kind": "ResourceClaimTemplate",
                    "metadata": {"name": "two-gpus", "namespace": "default"}, "spec": {"spec": spec}})
    for p in range(pods):
        objects.append({"apiVersion": V1, "kind": "ResourceClaim",
                        "metadata": {"name": f"p{p}-gpus-x1", "namespace": "default"}, "spec": spec})
        objects.append(_pod(f"p{p}", [{"name": "gpus", "resourceClaimTemplateName": "two-gpus"}],
                            [{"name": "gpus", "resourceClaimName": f"p{p}-gpus-x1"}]))
    return objects


def hopeless_pods(count: int) -> list:
    """The crafted worst case on node-1, claimed by `count` pods (each its own copy of the claim)."""
    objects = hopeless_search()
    crafted = objects.pop()
    for i in range(count):
        copy = json.loads(json.dumps(crafted))
        copy["metadata"]["name"] = f"hopeless-{i}"
        objects += [copy, _pod(f"stuck-{i}", [{"name": "gpus", "resourceClaimName": f"hopeless-{i}"}])]
    return objects


def _run(path: Path, *argv: str) -> tuple[int, float, object]:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", "1.36",
                         "--feature-gates", "DRADeviceTaintRules=true", *argv])
    return code, time.perf_counter() - start, json.loads(out.getvalue() or "null")


def _write(tmp: str, name: str, objects: list) -> Path:
    path = Path(tmp) / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--pods", type=int, default=50)
    args = parser.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        dump = _write(tmp, "dump.json", cluster(args.nodes, args.pods))
        code, whole, report = _run(dump, "--all-nodes")
        answers = len(report)
        placed = len({r["pod"] for r in report if r["allocated"]})
        print(f"typical: {args.pods} pods x {args.nodes} nodes, --all-nodes (exit {code}, {placed} pods placed)")
        print(f"  whole command          {whole:8.3f} s   {answers:,} (pod, node) answers, "
              f"{whole / answers * 1e3:.3f} ms each")
        _, one, _ = _run(dump, "--pod", "default/p0", "--node", "node-1")
        print(f"  one pod on one node    {one:8.3f} s   (the whole command: reading the dump included)")

        crafted = _write(tmp, "crafted.json", hopeless_pods(1))
        code, worst, report = _run(crafted, "--pod", "default/stuck-0", "--node", "node-1")
        steps = report["error"].split("(")[1].split(" search steps")[0] if report.get("error") else "?"
        print("worst case: the crafted pod alone on its node, default --timeout 10s "
              f"(exit {code}, gave up: {report.get('gaveUp', False)})")
        print(f"  whole command          {worst:8.3f} s   {steps} search steps; {worst / one:,.0f} x the typical pod")
        if code != 3 or worst > 11:
            failed.append("the crafted pod did not give up within the default timeout (+1 s) with exit 3")

        three = _write(tmp, "three.json", hopeless_pods(3))
        code, each, report = _run(three, "--node", "node-1", "--timeout", "1s", "--total-timeout", "0")
        print(f"per pod: 3 crafted pods, --timeout 1s: {each:.3f} s in all (exit {code}; gave up: "
              f"{[r.get('gaveUp', False) for r in report]})")
        if code != 3 or not 3 <= each < 4.5:
            failed.append("three crafted pods did not each give up after about 1 s")
        code, total, report = _run(three, "--node", "node-1", "--timeout", "1s", "--total-timeout", "2s")
        print(f"  and --total-timeout 2s: {total:.3f} s in all (exit {code}; the last: "
              f"{report[-1]['error'][:40]}...)")
        if code != 3 or total > 3:
            failed.append("--total-timeout did not bound the pods together")
    if failed:
        sys.exit("; ".join(failed))


if __name__ == "__main__":
    main()
