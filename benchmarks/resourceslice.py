"""Validation time of a maximum-size ResourceSlice next to json.loads of the same body.

128 devices with 32 attributes each (the per-device limit for attributes plus capacities).
Prints both timings and their ratio; the target is a ratio of at most 5.
"""

from __future__ import annotations

import json

from _timing import best_of
from webhook.validation.resourceslice import validate_resource_slice


def max_slice() -> dict:
    devices = []
    for d in range(128):
        attributes = {}
        for a in range(32):
            key = f"dra.example.com/attr{a}" if a % 2 else f"attr_{a}"
            kind = a % 4
            if kind == 0:
                attributes[key] = {"int": a * d}
            elif kind == 1:
                attributes[key] = {"string": f"value-{a}-{d}"}
            elif kind == 2:
                attributes[key] = {"bool": bool(a & 1)}
            else:
                attributes[key] = {"version": f"1.{a}.{d}"}
        devices.append({"name": f"gpu-{d}", "attributes": attributes})
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpus"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                 "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1}, "devices": devices},
    }


def main() -> None:
    body = json.dumps(max_slice())
    obj = json.loads(body)
    assert validate_resource_slice(obj) == [], validate_resource_slice(obj)
    parse = best_of(lambda: json.loads(body))
    check = best_of(lambda: validate_resource_slice(obj))
    print(f"body size        {len(body):>10} bytes")
    print(f"json.loads       {parse * 1e3:>10.3f} ms")
    print(f"validation       {check * 1e3:>10.3f} ms")
    print(f"ratio            {check / parse:>10.2f}x (target <= 5x)")


if __name__ == "__main__":
    main()
