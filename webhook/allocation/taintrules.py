"""DeviceTaintRules applied to ResourceSlices as the scheduler sees them (resourceslice/tracker applyPatches).

With DRADeviceTaintRules on, the scheduler reads slices through a tracker that appends each matching
rule's taint (key, value, effect, timeAdded) to the device's `taints`; the allocator then checks them
with the request's tolerations like a driver's own taints. A rule matches by `spec.deviceSelector`
`driver`, `pool` and `device`, each optional (none given: every device). Rules are applied in input
order (the tracker's informer order is not defined; the taints are only read as a set).

A taint from a rule carries the rule's name under `RULE`, a key no input can hold, so an explanation
can say which rule tainted the device.
"""

from __future__ import annotations

RULE = object()  # key of a patched taint: the name of the DeviceTaintRule it comes from


def _name(rule: dict) -> str:
    return ((rule.get("metadata") or {}).get("name")) or ""


def unsupported(rule: dict) -> str:
    """Why this port cannot apply the rule as the scheduler would, or "".

    Kubernetes 1.34's v1alpha3 rule also selects by `deviceClassName` and CEL `selectors`; the 1.36
    tracker that runs here has no such selection."""
    selector = (rule.get("spec") or {}).get("deviceSelector") or {}
    fields = [f for f in ("deviceClassName", "selectors") if selector.get(f)]
    if fields:
        return f"DeviceTaintRule {_name(rule)}: deviceSelector.{fields[0]} is not applied by this allocator"
    return ""


def apply_patches(slice_: dict, rules: list) -> dict:
    """applyPatches: the v1 slice with the rules' taints appended to matching devices (a copy when any
    matches; the slice itself otherwise)."""
    spec = slice_.get("spec") or {}
    patched = slice_
    for rule in rules:
        rule_spec = rule.get("spec") or {}
        selector = rule_spec.get("deviceSelector") or {}
        if selector.get("driver") is not None and selector["driver"] != spec.get("driver"):
            continue
        if selector.get("pool") is not None and selector["pool"] != (spec.get("pool") or {}).get("name"):
            continue
        device_name = selector.get("device")
        taint = rule_spec.get("taint") or {}
        for index, device in enumerate(spec.get("devices") or []):
            if device_name is not None and device_name != (device or {}).get("name"):
                continue
            added = {k: taint[k] for k in ("key", "value", "effect", "timeAdded") if taint.get(k) is not None}
            added[RULE] = _name(rule)
            if patched is slice_:
                patched = {**slice_, "spec": {**spec, "devices": list(spec.get("devices") or [])}}
            devices = patched["spec"]["devices"]
            devices[index] = {**devices[index], "taints": list(devices[index].get("taints") or []) + [added]}
    return patched


def describe(taint: dict) -> str:
    """A taint as explanations print it, with the rule it comes from."""
    text = f"taint {taint.get('key')}={taint.get('value') or ''}:{taint.get('effect')}"
    rule = taint.get(RULE)
    return text + (f" from DeviceTaintRule {rule}" if rule is not None else "")
