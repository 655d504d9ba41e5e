"""`review --explain` for ResourceSlices: what each device takes from its node, in the release's model
(1.36: footprint.py, 1.37: nodeallocatable.py)."""

from __future__ import annotations

from webhook import kinds
from webhook.allocation import footprint, nodeallocatable
from webhook.behaviours import RESOURCES
from webhook.profile import DEFAULT


def describe_slice(obj: dict, profile=DEFAULT) -> list:
    """`device: what it takes` lines for the devices of a v1 ResourceSlice that map node resources."""
    field_name = profile.behaviours.node_allocatable_model
    describe = nodeallocatable.describe_device if field_name == RESOURCES else footprint.describe_device
    out = []
    for device in ((obj.get("spec") or {}).get("devices") or []):
        if isinstance(device, dict) and isinstance(device.get(field_name), dict):
            try:
                parts = describe(device)
            except (TypeError, ValueError, AttributeError):
                continue
            if parts:
                out.append(f"device {device.get('name')} takes from its node per allocation: {'; '.join(parts)}")
    return out


def explain(obj: dict, profile=DEFAULT) -> list:
    """`review --explain`: what each device of a ResourceSlice (any served version) takes from its node."""
    if not isinstance(obj, dict) or obj.get("kind") != "ResourceSlice" or \
            not str(obj.get("apiVersion") or "").startswith("resource.k8s.io/"):
        return []
    try:
        v1, _ = kinds.to_v1("ResourceSlice", str(obj["apiVersion"]).rpartition("/")[2], obj, profile)
    except (TypeError, ValueError, AttributeError, KeyError):
        return []
    return describe_slice(v1, profile)
