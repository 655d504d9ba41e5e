"""DeviceTaintRule: `spec.taint.timeAdded` defaults to now, and (since 1.36) moves to now when the effect changes.

The second rule is the registry's update strategy: TimeAdded tracks when the *effect* was added,
which is what toleration durations count from, unless the client changed the time itself. Kubernetes
1.35 has the first rule only (behaviour `taint_rule_effect_moves_time`).
"""

from __future__ import annotations

from datetime import datetime

from webhook.mutation._walk import Patch, child
from webhook.mutation.taints import default_time_added, same_time, timestamp


def defaulter(effect_moves_time: bool):
    """The defaulter of a release, by its behaviour `taint_rule_effect_moves_time`."""
    return default_device_taint_rule if effect_moves_time else default_time_added_only


def default_time_added_only(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    taint, at = child(obj, "", "spec", "taint")
    if taint is not None:
        default_time_added(taint, at, now, patch)


def default_device_taint_rule(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    taint, at = child(obj, "", "spec", "taint")
    if taint is None:
        return
    # Compared before defaulting so that "both absent" counts as unchanged.
    incoming_time = taint.get("timeAdded")
    default_time_added(taint, at, now, patch)
    old_taint, _ = child(old, "", "spec", "taint") if operation == "UPDATE" else (None, "")
    if old_taint is None:
        return
    moved = timestamp(now)
    if (_effect(taint) != _effect(old_taint) and same_time(incoming_time, old_taint.get("timeAdded"))
            and taint.get("timeAdded") != moved):
        patch.set(taint, at, "timeAdded", moved)


def _effect(taint: dict) -> object:
    effect = taint.get("effect")
    return "" if effect is None else effect
