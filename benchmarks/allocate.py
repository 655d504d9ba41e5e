"""`dra-webhook allocate --all-nodes` on a 1,000-node cluster.

    python benchmarks/allocate.py [--nodes 1000]

Each node publishes one slice of 8 GPUs; the class has two selectors, the claim two requests with a
selector each (2 + 3 GPUs of one model, the other model on every second node). Reported side by side in
one run: seconds for the whole command (reading, defaulting, allocating on every node, the JSON
report) and for allocation alone, and CEL evaluations against the (selector, device) pairs that
exist: each pair must be evaluated at most once (ratio <= 1). Target: <= 2 s on a 2-core machine.
Then allocation alone for the same objects under Kubernetes 1.37, and under 1.37 with both requests
deriving `derived/bucket` (index / 8) for a matchAttribute constraint (DRADerivedAttributes on), as
ratios to 1.36.
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

from webhook import cli
from webhook.allocation import inputs, outcome
from webhook.profile import DEFAULT, make_profile

CLASS_SELECTORS = ['device.driver == "gpu.example.com"',
                   'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0']
REQUESTS = [("small", 2, 'device.attributes["gpu.example.com"].model == "a100"'),
            ("large", 3, 'device.attributes["gpu.example.com"].index >= 4')]


def cluster(nodes: int) -> list:
    objects: list = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                      "spec": {"selectors": [{"cel": {"expression": e}} for e in CLASS_SELECTORS]}}]
    for n in range(nodes):
        model = "a100" if n % 2 == 0 else "h100"
        devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": model}, "index": {"int": i}},
                    "capacity": {"memory": {"value": "80Gi"}}} for i in range(8)]
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                        "metadata": {"name": f"node-{n}-gpus"},
                        "spec": {"driver": "gpu.example.com", "nodeName": f"node-{n}", "devices": devices,
                                 "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1}}})
    objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "train", "namespace": "ml"},
                    "spec": {"devices": {"requests": [
                        {"name": name, "exactly": {"deviceClassName": "gpu", "count": count,
                                                   "selectors": [{"cel": {"expression": e}}]}}
                        for name, count, e in REQUESTS]}}})
    return objects


def _derived(objects: list) -> list:
    """The same cluster, the claim's requests aligned on a derived attribute."""
    objects = json.loads(json.dumps(objects))
    devices = objects[-1]["spec"]["devices"]
    for request in devices["requests"]:
        request["exactly"]["derivedAttributes"] = [
            {"name": "derived/bucket", "expression": 'device.attributes["gpu.example.com"].index / 8'}]
    devices["constraints"] = [{"matchAttribute": "derived/bucket"}]
    return objects


def _alone(objects: list, tmp: str, profile) -> float:
    path = Path(tmp) / "variant.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    read = inputs.read([str(path)], profile)
    start = time.perf_counter()
    allocator = outcome.build_allocator(read, profile)
    for name in inputs.node_names(read):
        outcome.allocate_on(allocator, inputs.node_object(read, name), read)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster(args.nodes)}))

        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = cli.main(["allocate", str(path), "--all-nodes", "--output", "json"])
        whole = time.perf_counter() - start
        fits = sum(1 for r in json.loads(out.getvalue()) if r["allocated"])

        read = inputs.read([str(path)])
        start = time.perf_counter()
        allocator = outcome.build_allocator(read, DEFAULT)
        for name in inputs.node_names(read):
            outcome.allocate_on(allocator, inputs.node_object(read, name), read)
        alone = time.perf_counter() - start
        objects = cluster(args.nodes)
        alone_137 = _alone(objects, tmp, make_profile("1.37"))
        derived_137 = _alone(_derived(objects), tmp, make_profile("1.37", "DRADerivedAttributes=true"))

    devices = args.nodes * 8
    pairs = devices * (len(CLASS_SELECTORS) + len(REQUESTS))
    evaluations = allocator.selection.evaluations
    print(f"allocate --all-nodes, {args.nodes} nodes x 8 GPUs (exit {code}, {fits} nodes fit)")
    print(f"  whole command        {whole:7.3f} s   (target <= 2 s)")
    print(f"  allocation alone     {alone:7.3f} s   ({alone / whole:.2f} of the whole command)")
    print(f"  CEL evaluations      {evaluations:7d}     of {pairs} (selector, device) pairs: ratio "
          f"{evaluations / pairs:.2f} (<= 1: each pair at most once)")
    print(f"  allocation alone, 1.37                    {alone_137:7.3f} s   ({alone_137 / alone:.2f} x 1.36)")
    print(f"  allocation alone, 1.37, derived attribute {derived_137:7.3f} s   ({derived_137 / alone:.2f} x 1.36)")
    if evaluations > pairs:
        sys.exit("a (selector, device) pair was evaluated more than once")


if __name__ == "__main__":
    main()
