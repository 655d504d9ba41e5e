"""Throughput and tail of `dra-webhook serve` next to the do-nothing floor, and /mutate of a huge claim.

    python benchmarks/serving_load.py [--seconds 10] [--no-pin]

(a) wrk, one run, each configuration against both servers back to back: a typical ~1.9 KB claim
    review and a 153 KB max-size ResourceSlice at 10 connections, the claim at 1 connection.
    Goals: >= 0.5x the floor's rate (typical, c=10), >= 0.3x (max-size slice, c=10), p99 <= 2x the
    floor's at c=1 and c=10. Both servers are pinned to CPU 0 (the Deployment's `cpu: 1`), wrk to CPU 1.
(b) /mutate of a 30,000-request claim (2.1 MB; fits through the API server) over HTTPS: goal
    <= 0.5 s; next to the floor receiving the same body, and to the whole-object diff it replaced.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from _servers import Certificates, start_floor, start_ours
from resourceslice import max_slice

WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("{path}", "rb")
wrk.body = f:read("*a")
f:close()
"""


def review(obj: dict, operation: str = "CREATE") -> dict:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "3f1c2a44-bench", "kind": {"group": "resource.k8s.io", "version": "v1",
                                                          "kind": obj["kind"]},
                        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceclaims"},
                        "namespace": "default", "operation": operation, "userInfo": {"username": "bench"},
                        "object": obj}}


def typical_claim() -> dict:
    """A claim as users write them: two requests, a CEL selector each, a toleration, an opaque config."""
    def request(name: str, model: str) -> dict:
        return {"name": name, "exactly": {
            "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
            "selectors": [{"cel": {"expression": f'device.attributes["gpu.example.com"].model == "{model}" && '
                                                 f'device.capacity["gpu.example.com"].memory.compareTo('
                                                 f'quantity("40Gi")) >= 0'}}],
            "tolerations": [{"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]}}

    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "training-job-7f9c-gpus", "namespace": "default",
                         "labels": {"app.kubernetes.io/name": "trainer", "app.kubernetes.io/instance": "job-7f9c"}},
            "spec": {"devices": {
                "requests": [request("gpu-a", "a100"), request("gpu-b", "h100")],
                "constraints": [{"requests": ["gpu-a", "gpu-b"], "matchAttribute": "gpu.example.com/numa"}],
                "config": [{"requests": ["gpu-a"], "opaque": {"driver": "gpu.example.com", "parameters": {
                    "apiVersion": "gpu.example.com/v1", "kind": "GpuConfig",
                    "sharing": {"strategy": "TimeSlicing"}}}}]}}}


def wrk(url: str, body: Path, connections: int, seconds: int, pin: str | None) -> tuple[float, float]:
    """(requests/s, p99 ms) of one wrk run."""
    script = body.with_suffix(".lua")
    script.write_text(WRK_SCRIPT.format(path=body))
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), url + "/validate"]
    if pin is not None:
        argv = ["taskset", "-c", pin, *argv]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    p99_ms = float(p99.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[p99.group(2)]
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non_2xx:
        raise RuntimeError(f"{url}: {non_2xx.group(1)} answers were not 200")
    return rate, p99_ms


def bench_wrk(seconds: int, pin: bool) -> None:
    if not shutil.which("wrk"):
        print("(a) skipped: wrk is not installed (Debian: apt-get install wrk)")
        return
    certs = Certificates()
    server_cpu, client_cpu = ("0", "1") if pin else (None, None)
    ours, floor = start_ours(certs, pin=server_cpu), start_floor(certs, pin=server_cpu)
    tmp = Path(tempfile.mkdtemp(prefix="dra-wrk-"))
    bodies = {"typical claim": tmp / "claim.json", "max-size slice": tmp / "slice.json"}
    bodies["typical claim"].write_text(json.dumps(review(typical_claim())))
    bodies["max-size slice"].write_text(json.dumps(review(max_slice())))
    try:
        for name, path in bodies.items():
            reply = httpx.post(ours.url + "/validate", content=path.read_bytes(), verify=certs.context,
                               headers={"content-type": "application/json"})
            assert reply.status_code == 200 and reply.json()["response"]["allowed"], reply.text
        print(f"(a) wrk {seconds} s per run; servers on CPU {server_cpu}, wrk on CPU {client_cpu}")
        for name, connections in (("typical claim", 10), ("max-size slice", 10), ("typical claim", 1)):
            size = bodies[name].stat().st_size
            ours_rate, ours_p99 = wrk(ours.url, bodies[name], connections, seconds, client_cpu)
            floor_rate, floor_p99 = wrk(floor.url, bodies[name], connections, seconds, client_cpu)
            print(f"    {name} ({size / 1024:.1f} KiB), c={connections}: {ours_rate:.0f} req/s vs floor "
                  f"{floor_rate:.0f} -> {ours_rate / floor_rate:.2f}x; p99 {ours_p99:.2f} ms vs floor "
                  f"{floor_p99:.2f} ms -> {ours_p99 / floor_p99:.2f}x")
        print(f"    answered in the server process itself (no worker hop): {inline_share(ours)}")
    finally:
        ours.stop()
        floor.stop()


def inline_share(server) -> str:
    """How many reviews the server answered without a worker (small bodies with compiled selectors)."""
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(server.url + "/metrics", verify=server.context).text
    totals = {"inline": 0.0, "all": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "dra_webhook_inline_reviews_total":
                totals["inline"] += sample.value
            elif sample.name == "dra_webhook_requests_total":
                totals["all"] += sample.value
    return f"{totals['inline']:.0f} of {totals['all']:.0f} reviews"


def huge_claim(requests: int = 30_000) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "huge", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": f"request-{i:05d}",
                                               "exactly": {"deviceClassName": "gpu.example.com"}}
                                              for i in range(requests)]}}}


def bench_mutate() -> None:
    import jsonpatch

    from webhook import kinds

    certs = Certificates()
    ours, floor = start_ours(certs), start_floor(certs)
    obj = huge_claim()
    body = json.dumps(review(obj)).encode()
    headers = {"content-type": "application/json"}
    try:
        times: dict[str, list[float]] = {"ours": [], "floor": []}
        with httpx.Client(verify=certs.context, timeout=60) as client:
            for _ in range(5):
                for name, server, path in (("ours", ours, "/mutate"), ("floor", floor, "/validate")):
                    start = time.perf_counter()
                    reply = client.post(server.url + path, content=body, headers=headers)
                    times[name].append(time.perf_counter() - start)
                    assert reply.status_code == 200, reply.text
        patch_ops = len(json.loads(__import__("base64").b64decode(
            client_reply_patch(ours, body, headers))))
        defaulted = kinds.apply_defaults("ResourceClaim", "v1", obj, None, "CREATE", None)
        start = time.perf_counter()
        jsonpatch.make_patch(obj, defaulted)
        diff = time.perf_counter() - start
        best_ours, best_floor = min(times["ours"]), min(times["floor"])
        print(f"(b) /mutate of a 30,000-request claim ({len(body) / 1e6:.1f} MB, {patch_ops} patch operations): "
              f"best {best_ours:.3f} s, median {statistics.median(times['ours']):.3f} s (goal <= 0.5 s); floor "
              f"receiving the same body {best_floor:.3f} s -> {best_ours / best_floor:.1f}x; the whole-object diff "
              f"alone took {diff:.3f} s -> {diff / best_ours:.1f}x our whole answer")
    finally:
        ours.stop()
        floor.stop()


def client_reply_patch(server, body: bytes, headers: dict) -> str:
    reply = httpx.post(server.url + "/mutate", content=body, headers=headers, verify=server.context, timeout=60)
    return reply.json()["response"]["patch"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--no-pin", action="store_true", help="do not pin servers and wrk to CPUs")
    parser.add_argument("--only", choices=("wrk", "mutate"))
    args = parser.parse_args()
    if args.only in (None, "wrk"):
        bench_wrk(args.seconds, not args.no_pin)
    if args.only in (None, "mutate"):
        bench_mutate()


if __name__ == "__main__":
    sys.exit(main())
