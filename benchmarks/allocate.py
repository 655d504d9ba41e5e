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

Then the crafted worst case of the search (tests/allocation_objects.py `hopeless_search`: 50 identical
devices, 10 requests bound by a matchAttribute constraint, a last request whose firstAvailable
subrequests, `allocationMode: All` and one device, match nothing) through the command with the
default timeout: it must end in <= 20 s, exit code 3. Without a limit it would search every way of
giving 3 of the devices to each of the first 9 requests: the number of those is computed, the steps
per way measured on small instances run to the end, and the time estimated from the steps per second.
Last, selectors past the CEL engine's 10,000 iterations: time per iteration evaluated by the engine
(just below the limit) and unrolled (just above it), as a ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from allocation_objects import hopeless_search  # noqa: E402

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


def _ways(devices: int, requests: int) -> int:
    """Complete choices for the first requests of `hopeless_search` (each takes `count` devices, in order)."""
    count = max(1, min(devices // requests, 31 // max(1, requests - 1)))
    ways = 1
    for k in range(requests - 1):
        ways *= math.comb(devices - count * k, count)
    return ways


def _search(devices: int, requests: int, tmp: str, *argv: str) -> tuple[int, float, dict]:
    path = Path(tmp) / f"hopeless-{devices}-{requests}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": hopeless_search(devices, requests)}))
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = cli.main(["allocate", str(path), "--output", "json", *argv])
    return code, time.perf_counter() - start, json.loads(out.getvalue())


def worst_case(tmp: str) -> None:
    code, seconds, report = _search(50, 10, tmp)
    steps = int(report["error"].split("(")[1].split(" search steps")[0].replace(",", ""))
    print(f"crafted worst case, 50 devices x 10 requests, default --timeout (exit {code}, gave up: "
          f"{report.get('gaveUp', False)})")
    print(f"  whole command        {seconds:7.3f} s   (target <= 20 s), {steps:,} search steps, "
          f"{steps / seconds:,.0f} steps/s")
    per_way = []
    for devices, requests in ((9, 3), (12, 3)):
        _, small_seconds, small = _search(devices, requests, tmp, "--timeout", "0")
        from webhook.allocation import inputs as read_inputs, outcome as run_outcome
        read = read_inputs.read([str(Path(tmp) / f"hopeless-{devices}-{requests}.json")])
        allocator = run_outcome.build_allocator(read, DEFAULT)
        run_outcome.allocate_on(allocator, read_inputs.node_object(read, "node-1"), read)
        per_way.append(allocator.num_allocate_one / _ways(devices, requests))
        print(f"  {devices} devices x {requests} requests, no limit: {small_seconds:7.3f} s, "
              f"{allocator.num_allocate_one:,} steps for {_ways(devices, requests):,} ways "
              f"({per_way[-1]:.1f} steps per way)")
    ways = _ways(50, 10)
    estimate = ways * min(per_way) / (steps / seconds)
    print(f"  without a limit: {ways:.2e} ways x >= {min(per_way):.1f} steps each at {steps / seconds:,.0f} "
          f"steps/s = {estimate:.1e} s ({estimate / 3.15e7:.1e} years)")
    if seconds > 20 or code != 3:
        sys.exit("the crafted worst case did not give up within 20 s with exit code 3")


def unrolled_cel() -> None:
    from webhook.cel import evaluation

    device = evaluation.device_input("gpu.example.com", {"name": "gpu-0"})
    rows = []
    for n in (99, 101):  # n * n + n iterations: 9,900 (the engine) and 10,302 (unrolled)
        numbers = "[" + ",".join(str(i) for i in range(n)) + "]"
        selector = evaluation.selector(f"{numbers}.all(x, {numbers}.all(y, y >= 0))")
        start = time.perf_counter()
        for _ in range(3):
            assert selector.matches(dict(device)) is True
        rows.append((n * n + n, (time.perf_counter() - start) / 3))
    (engine_n, engine_s), (unrolled_n, unrolled_s) = rows
    print("selectors past the CEL engine's 10,000 iterations")
    print(f"  engine   {engine_n:6,} iterations {engine_s * 1e3:8.2f} ms  ({engine_s / engine_n * 1e6:6.2f} us each)")
    print(f"  unrolled {unrolled_n:6,} iterations {unrolled_s * 1e3:8.2f} ms  ({unrolled_s / unrolled_n * 1e6:6.2f} us "
          f"each, {(unrolled_s / unrolled_n) / (engine_s / engine_n):.0f} x the engine's)")


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
    print()
    with tempfile.TemporaryDirectory() as tmp:
        worst_case(tmp)
    print()
    unrolled_cel()


if __name__ == "__main__":
    main()
