"""Inputs for the offline benchmarks, written as kubectl would print them (block-style YAML)."""

from __future__ import annotations

from pathlib import Path

import yaml


def typical_slice(i: int) -> dict:
    """A ResourceSlice of 8 GPUs with a few attributes and capacities each."""
    devices = [{"name": f"gpu-{d}",
                "attributes": {"model": {"string": "LATEST-GPU-MODEL"}, "uuid": {"string": f"gpu-{i}-{d}"},
                               "driverVersion": {"version": "1.2.3"}, "index": {"int": d}},
                "capacity": {"memory": {"value": "80Gi"}}} for d in range(8)]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{i}-gpus"},
            "spec": {"driver": "gpu.example.com", "nodeName": f"node-{i}",
                     "pool": {"name": f"node-{i}", "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


def typical_claim(i: int) -> dict:
    """A ResourceClaim with one request and one CEL selector."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"claim-{i}", "namespace": "ml"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com",
                "selectors": [{"cel": {"expression":
                                       'device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL"'}}],
            }}]}}}


def max_slice(i: int) -> dict:
    """A ResourceSlice at the device limit: 128 devices (named, one attribute each)."""
    devices = [{"name": f"gpu-{d}", "attributes": {"index": {"int": d}}} for d in range(128)]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{i}-max"},
            "spec": {"driver": "gpu.example.com", "nodeName": f"node-{i}",
                     "pool": {"name": f"node-{i}", "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


def typical(n: int) -> list[dict]:
    return [typical_slice(i) if i % 2 == 0 else typical_claim(i) for i in range(n)]


def write(path: Path, objects: list[dict]) -> Path:
    with path.open("w") as out:
        yaml.dump_all(objects, out, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
    return path
