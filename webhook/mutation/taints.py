"""DeviceTaint.timeAdded: the default shared by ResourceSlice devices and DeviceTaintRule."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from webhook.mutation._walk import Patch, is_unset


def timestamp(now: datetime) -> str:
    """metav1.Time on the wire: UTC, truncated to whole seconds (the encoding drops fractions)."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_time_added(taint: dict, pointer: str, now: datetime, patch: Patch) -> None:
    if is_unset(taint, "timeAdded"):
        patch.set(taint, pointer, "timeAdded", timestamp(now))


def same_time(a: Any, b: Any) -> bool:
    """metav1.Time.Equal on raw values: both unset, or the same instant (offsets may differ)."""
    if a is None or b is None:
        return a is None and b is None
    if a == b:
        return True
    parsed_a, parsed_b = _parse(a), _parse(b)
    return parsed_a is not None and parsed_a == parsed_b


def _parse(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
