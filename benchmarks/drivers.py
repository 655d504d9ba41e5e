"""Driver profiles: what checking `opaque.parameters` costs a served review, and hostile input.

1. Served latency, side by side in one run against one server (bundled profiles on, one worker): the same
   ResourceClaim with a gpu.example.com configuration (checked by its bundled profile) and with the same
   parameters for a driver that has no profile (not checked), requests interleaved. Goal: p99 within 1.2x.
2. Hostile input: a profile whose `pattern` is the catastrophic-backtracking `^(a+)+$` and whose CEL rule
   calls `matches('^(a|aa)+$')`, given a 100 KB tenant string, served and in process; Python's backtracking
   `re` on the same pattern with 24 characters for contrast.

Run: python benchmarks/drivers.py [requests per claim, default 1500]
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _servers import Certificates, start_ours  # noqa: E402

HOSTILE_PROFILE = """\
apiVersion: dra-webhook/v1alpha1
kind: DriverProfile
drivers: [hostile.example.org]
kinds:
- apiVersion: hostile.example.org/v1
  kind: Config
  openAPIV3Schema:
    type: object
    properties:
      name:
        type: string
        pattern: '^(a+)+$'
        x-kubernetes-validations:
        - rule: "!self.matches('^(a|aa)+$')"
          message: too repetitive
"""


def claim(driver: str, parameters: dict, name: str = "c") -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {
                "requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
                    "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]}}],
                "config": [{"requests": ["gpu"], "opaque": {"driver": driver, "parameters": parameters}}]}}}


def review(obj: dict, uid: str) -> bytes:
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": uid, "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceclaims"},
        "operation": "CREATE", "name": obj["metadata"]["name"], "namespace": "default",
        "userInfo": {"username": "bench"}, "object": obj}}).encode()


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def served_latency(requests: int) -> None:
    parameters = {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig",
                  "sharing": {"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 4}}}
    bodies = {"bundled profile (checked)": review(claim("gpu.example.com", parameters), "a"),
              "no profile (not checked)": review(claim("unprofiled.example.com", parameters), "b")}
    certs = Certificates()
    server = start_ours(certs, "--workers", "1")
    try:
        times: dict[str, list[float]] = {name: [] for name in bodies}
        with httpx.Client(verify=certs.context, timeout=30) as client:
            for body in bodies.values():  # warm-up: selector verdicts cached, profiles compiled
                for _ in range(50):
                    reply = client.post(server.url + "/validate", content=body,
                                        headers={"content-type": "application/json"})
                    assert reply.json()["response"]["allowed"] is True, reply.text
            for _ in range(requests):
                for name, body in bodies.items():  # interleaved: both see the same machine noise
                    start = time.perf_counter()
                    reply = client.post(server.url + "/validate", content=body,
                                        headers={"content-type": "application/json"})
                    times[name].append(time.perf_counter() - start)
                    assert reply.status_code == 200
    finally:
        server.stop()
    print(f"served /validate, {requests} requests each, interleaved, one server:")
    for name, samples in times.items():
        print(f"  {name:28s} p50 {statistics.median(samples) * 1e3:7.3f} ms   "
              f"p99 {percentile(samples, 99) * 1e3:7.3f} ms")
    checked, unchecked = times.values()
    print(f"  p99 ratio checked/unchecked: {percentile(checked, 99) / percentile(unchecked, 99):.2f}x "
          f"(p50 ratio {statistics.median(checked) / statistics.median(unchecked):.2f}x; goal p99 <= 1.2x)")


def hostile() -> None:
    from webhook.drivers.check import validate_opaque_parameters
    from webhook.drivers.profiles import read_profile
    from webhook.drivers.registry import DriverSet
    from webhook.field import Path as FieldPath

    profile = read_profile(HOSTILE_PROFILE, "hostile.yaml")
    drivers = DriverSet({"hostile.example.org": profile}, {"hostile.example.org": {}})
    path = FieldPath("spec", "devices", "config").index(0).child("opaque").child("parameters")
    print("hostile input (100,000-character tenant strings):")
    for label, text in (("pattern fails at the end", "a" * 100_000 + "!"), ("pattern passes, rule fails", "a" * 100_000)):
        body = {"apiVersion": "hostile.example.org/v1", "kind": "Config", "name": text}
        start = time.perf_counter()
        errors = validate_opaque_parameters(profile, drivers, "hostile.example.org", body, path)
        elapsed = time.perf_counter() - start
        print(f"  in process, {label:28s} {elapsed * 1e3:8.2f} ms  -> {[e.type.value for e in errors]}")
    directory = Path(tempfile.mkdtemp(prefix="dra-bench-profiles-"))
    (directory / "hostile.yaml").write_text(HOSTILE_PROFILE)
    certs = Certificates()
    # Built-in rules enforced, as offline: in a cluster the API server refuses parameters over 10 KiB itself,
    # before any webhook; served here, the tenant's 100 KB string reaches every check.
    server = start_ours(certs, "--workers", "1", "--driver-profiles", str(directory), "--enforce-builtin-rules",
                        "--kubernetes-version", "1.36", "--profile-from-cluster", "never")
    try:
        with httpx.Client(verify=certs.context, timeout=30) as client:
            warm = review(claim("hostile.example.org", {"apiVersion": "hostile.example.org/v1", "kind": "Config",
                                                        "name": "b"}), "w")
            for _ in range(20):  # the claim's selector verdict cached, the profile loaded in every process
                client.post(server.url + "/validate", content=warm, headers={"content-type": "application/json"})
            for label, text in (("served, pattern fails at end", "a" * 100_000 + "!"),
                                ("served, rule fails", "a" * 100_000)):
                body = review(claim("hostile.example.org", {"apiVersion": "hostile.example.org/v1", "kind": "Config",
                                                             "name": text}), "h")
                start = time.perf_counter()
                reply = client.post(server.url + "/validate", content=body,
                                    headers={"content-type": "application/json"})
                elapsed = time.perf_counter() - start
                response = reply.json()["response"]
                causes = [c["reason"] for c in (response.get("status") or {}).get("details", {}).get("causes", [])]
                print(f"  {label:40s} {elapsed * 1e3:8.2f} ms  -> {causes}")
    finally:
        server.stop()
    backtracking = re.compile("^(a+)+$")
    for n in (20, 22, 24):
        start = time.perf_counter()
        backtracking.search("a" * n + "!")
        print(f"  for contrast, Python re on {n} characters:     {(time.perf_counter() - start) * 1e3:8.2f} ms")


def main() -> None:
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    if requests:
        served_latency(requests)
    hostile()


if __name__ == "__main__":
    main()
