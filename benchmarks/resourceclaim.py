"""Validation of a large ResourceClaim next to json.loads of the same body.

32 requests with 8 subrequests each (one selector and 16 tolerations per subrequest), 32
constraints and 32 config entries. Run: python benchmarks/resourceclaim.py
"""

from __future__ import annotations

import json

from _timing import best_of
from webhook.validation.resourceclaim import validate_resource_claim


def large_claim() -> dict:
    tolerations = [{"key": f"example.com/t{i}", "operator": "Equal", "value": "v", "effect": "NoSchedule"}
                   for i in range(16)]
    requests = []
    for r in range(32):
        subs = [{"name": f"sub-{s}", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount",
                 "count": 1, "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                 "tolerations": tolerations} for s in range(8)]
        requests.append({"name": f"req-{r}", "firstAvailable": subs})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "big", "namespace": "default"},
            "spec": {"devices": {
                "requests": requests,
                "constraints": [{"requests": [f"req-{i}", f"req-{i}/sub-1"], "matchAttribute": "gpu.example.com/model"}
                                for i in range(32)],
                "config": [{"requests": [f"req-{i}"], "opaque": {"driver": "gpu.example.com",
                                                                 "parameters": {"kind": "Config", "n": i}}}
                           for i in range(32)]}}}


def main() -> None:
    claim = large_claim()
    body = json.dumps(claim)
    assert validate_resource_claim(claim) == [], validate_resource_claim(claim)
    parse = best_of(lambda: json.loads(body))
    check = best_of(lambda: validate_resource_claim(claim))
    print(f"body: {len(body)} bytes")
    print(f"json.loads:              {parse * 1e3:8.3f} ms")
    print(f"validate_resource_claim: {check * 1e3:8.3f} ms")
    print(f"ratio validate/json.loads: {check / parse:.1f}x")


if __name__ == "__main__":
    main()
