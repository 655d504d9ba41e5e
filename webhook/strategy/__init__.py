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

from webhook.strategy.dropper import DroppedField, Dropper

__all__ = ["DropStep", "DroppedField", "disabled_fields_present", "drop_disabled_fields"]

# The drop step of one registry strategy (which kind and subresource uses which: webhook.kinds).
DropStep = Callable[[dict, "dict | None", Dropper], None]


def _run(step: DropStep | None, obj: Any, old: Any, profile: Any, remove: bool) -> list[DroppedField]:
    dropper = Dropper(profile, remove)
    if step is not None and isinstance(obj, dict):
        step(obj, old if isinstance(old, dict) else None, dropper)
    return dropper.dropped


def drop_disabled_fields(step: DropStep | None, obj: Any, old: Any, profile: Any) -> tuple[Any, list[DroppedField]]:
    """`obj` without the fields the strategy drops (a deep copy when anything goes), and what was dropped.

    Never mutates its input; wrongly typed parts are left for the type check that follows.
    """
    if not _run(step, obj, old, profile, remove=False):
        return obj, []
    dropped_copy = copy.deepcopy(obj)
    return dropped_copy, _run(step, dropped_copy, old, profile, remove=True)


def disabled_fields_present(step: DropStep | None, obj: Any, old: Any, profile: Any) -> list[DroppedField]:
    """What `drop_disabled_fields` would drop, found without copying or touching `obj`."""
    return _run(step, obj, old, profile, remove=False)
