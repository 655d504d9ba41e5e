"""What the registry strategies of the target Kubernetes drop when a DRA feature gate is off.

Kubernetes removes gated fields in `PrepareForCreate` / `PrepareForUpdate` (`dropDisabledFields`
and friends in pkg/registry/resource/*/strategy.go), before validation and before admission
webhooks see the object. Offline, `drop_disabled_fields` does the same so the verdict is the
cluster's, and names each dropped field with its gate. Served, a validating webhook sees objects
after the drop, so `disabled_fields_present` finding anything means `--feature-gates` does not
match the cluster.

Both work on the v1 shape (objects are converted to v1 first). `old` is None on create. Upstream
keeps a gate's fields on update when the old object already used that gate's fields anywhere.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from webhook.strategy import deviceclass, devicetaintrule, resourceclaim, resourceclaimtemplate, resourceslice
from webhook.strategy.dropper import DroppedField, Dropper

__all__ = ["DroppedField", "STRATEGIES", "disabled_fields_present", "drop_disabled_fields"]

DropFunc = Callable[[dict, "dict | None", Dropper], None]

# (kind, subresource) -> the drop step of that registry strategy.
STRATEGIES: dict[tuple[str, str], DropFunc] = {
    ("ResourceSlice", ""): resourceslice.drop_disabled_fields,
    ("ResourceClaim", ""): resourceclaim.drop_disabled_spec_fields,
    ("ResourceClaim", "status"): resourceclaim.drop_disabled_status_fields,
    ("ResourceClaimTemplate", ""): resourceclaimtemplate.drop_disabled_fields,
    ("DeviceClass", ""): deviceclass.drop_disabled_fields,
    ("DeviceTaintRule", ""): devicetaintrule.drop_disabled_fields,
    ("DeviceTaintRule", "status"): devicetaintrule.drop_disabled_fields,
}


def _run(kind: str, obj: Any, old: Any, profile: Any, subresource: str, remove: bool) -> list[DroppedField]:
    step = STRATEGIES.get((kind, subresource))
    dropper = Dropper(profile, remove)
    if step is not None and isinstance(obj, dict):
        step(obj, old if isinstance(old, dict) else None, dropper)
    return dropper.dropped


def drop_disabled_fields(kind: str, obj: Any, old: Any, profile: Any, *,
                         subresource: str = "") -> tuple[Any, list[DroppedField]]:
    """A deep copy of `obj` without the fields the strategy drops, and what was dropped.

    Never mutates its input; wrongly typed parts are left for the type check that follows.
    """
    dropped_copy = copy.deepcopy(obj)
    return dropped_copy, _run(kind, dropped_copy, old, profile, subresource, remove=True)


def disabled_fields_present(kind: str, obj: Any, old: Any, profile: Any, *,
                            subresource: str = "") -> list[DroppedField]:
    """What `drop_disabled_fields` would drop, found without copying or touching `obj`."""
    return _run(kind, obj, old, profile, subresource, remove=False)
