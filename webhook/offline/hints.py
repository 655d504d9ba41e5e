"""A short line on how to fix a common mistake, beside the API server's own words (which stay as they are).

Only where the fix is mechanical: each hint is keyed on a cause's reason, field and message, never on a
file's text, and says what to write instead. Every reporter prints it after its cause.
"""

from __future__ import annotations

import re

# spec.devices[0].capacity[memory]: Invalid value: "24Gi": json: cannot unmarshal string into ... DeviceCapacity
_CAPACITY_FIELD = re.compile(r"\.capacity\[([^\]]{1,253})\]$")
_CAPACITY_TEXT = re.compile(r'^Invalid value: "([^"]{0,64})": json: cannot unmarshal (?:string|number) '
                            r'.*DeviceCapacity')
_COUNTERS_BESIDE_DEVICES = "only one of `sharedCounters` or `devices` is allowed"


def hint(field: str, reason: str, text: str) -> str:
    """The hint for one cause, or ""."""
    capacity = _CAPACITY_FIELD.search(field or "")
    value = _CAPACITY_TEXT.match(text or "") if capacity else None
    if value is not None:
        name, quantity = capacity.group(1), value.group(1) or "24Gi"
        return (f"capacity takes an object since resource.k8s.io/v1beta1: write `{name}: {{value: {quantity}}}`, "
                f"not `{name}: {quantity}` (the v1alpha3 shape)")
    if field == "spec" and _COUNTERS_BESIDE_DEVICES in (text or ""):
        return ("since Kubernetes 1.35 a slice holds devices or sharedCounters, not both: move sharedCounters to a "
                "ResourceSlice of its own in the same pool (same driver, pool name and generation) and raise "
                "resourceSliceCount by one on every slice of the pool")
    return ""
