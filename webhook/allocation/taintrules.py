"""DeviceTaintRules applied to ResourceSlices as the scheduler sees them (resourceslice/tracker applyPatches).

With DRADeviceTaintRules on (1.34: DRADeviceTaints), the scheduler reads slices through a tracker that
appends each matching rule's taint (key, value, effect, timeAdded) to the device's `taints`; the
allocator then checks them with the request's tolerations like a driver's own taints. A rule matches
by `spec.deviceSelector` `driver`, `pool` and `device`, each optional (none given: every device); in
1.34 also by class and CEL selectors. A rule without `deviceSelector` taints every device before 1.37 and
none from 1.37 (the API documents "none" throughout). Rules are applied in input order (the tracker's informer order is
not defined; the taints are only read as a set).

A taint from a rule carries the rule's name under `RULE`, a key no input can hold, so an explanation
can say which rule tainted the device.
"""

from __future__ import annotations

RULE = object()  # key of a patched taint: the name of the DeviceTaintRule it comes from


def _name(rule: dict) -> str:
    return ((rule.get("metadata") or {}).get("name")) or ""


class Selectors:
    """Kubernetes 1.34's rule selection beyond driver/pool/device: `deviceClassName` (the class's selectors)
    and CEL `selectors`, each of which must accept the device; a runtime error means no match (behaviour
    taint_rule_cel_selectors; 1.35 removed both fields)."""

    def __init__(self, classes: dict, selection) -> None:
        self.classes, self.selection = classes, selection

    def expressions(self, selector: dict) -> list | None:
        """The CEL expressions a device must pass, None when the rule's class does not exist."""
        out = []
        if selector.get("deviceClassName") is not None:
            device_class = self.classes.get(selector["deviceClassName"])
            if device_class is None:
                return None  # "DeviceTaintRule does not apply, DeviceClass does not exist"
            out += _cel((device_class.get("spec") or {}).get("selectors"))
        return out + _cel(selector.get("selectors"))

    def accept(self, expressions: list, driver: str, device: dict) -> bool:
        from webhook.allocation.selection import SelectorError

        try:
            return all(self.selection.matches(e, driver, device) for e in expressions)
        except SelectorError:
            return False


def _cel(selectors) -> list:
    return [s["cel"].get("expression") or "" for s in selectors or []
            if isinstance(s, dict) and isinstance(s.get("cel"), dict)]


def apply_patches(slice_: dict, rules: list, selectors: Selectors | None, *, no_selector_matches_all: bool) -> dict:
    """applyPatches: the v1 slice with the rules' taints appended to matching devices (a copy when any
    matches; the slice itself otherwise). `selectors`: 1.34's CEL selection, None in later releases.
    `no_selector_matches_all`: a rule without `deviceSelector` taints every device (behaviour
    taint_rule_no_selector_matches_all; else it taints none, as 1.37's tracker does).
    Each device's new taints are gathered first and its copy made once: copying it per rule was quadratic
    in the number of rules matching it."""
    spec = slice_.get("spec") or {}
    devices = spec.get("devices") or []
    added_to: dict[int, list] = {}  # device index -> the taints the rules add, in rule order
    for rule in rules:
        rule_spec = rule.get("spec") or {}
        if rule_spec.get("deviceSelector") is None and not no_selector_matches_all:
            continue  # "DeviceTaintRule does not apply, no selector"
        selector = rule_spec.get("deviceSelector") or {}
        if selector.get("driver") is not None and selector["driver"] != spec.get("driver"):
            continue
        if selector.get("pool") is not None and selector["pool"] != (spec.get("pool") or {}).get("name"):
            continue
        device_name = selector.get("device")
        expressions = selectors.expressions(selector) if selectors is not None else []
        if expressions is None:
            continue
        taint = rule_spec.get("taint") or {}
        added = {k: taint[k] for k in ("key", "value", "effect", "timeAdded") if taint.get(k) is not None}
        added[RULE] = _name(rule)
        for index, device in enumerate(devices):
            if device_name is not None and device_name != (device or {}).get("name"):
                continue
            if expressions and not selectors.accept(expressions, spec.get("driver") or "", device):
                continue
            added_to.setdefault(index, []).append(added)  # one dict per rule, shared: taints are only read
    if not added_to:
        return slice_
    patched = list(devices)
    for index, taints in added_to.items():
        patched[index] = {**patched[index], "taints": list(patched[index].get("taints") or []) + taints}
    return {**slice_, "spec": {**spec, "devices": patched}}


def describe(taint: dict) -> str:
    """A taint as explanations print it, with the rule it comes from."""
    text = f"taint {taint.get('key')}={taint.get('value') or ''}:{taint.get('effect')}"
    rule = taint.get(RULE)
    return text + (f" from DeviceTaintRule {rule}" if rule is not None else "")
