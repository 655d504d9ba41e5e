"""ResourceSlice v1beta1 -> v1 (device fields under `basic`). v1beta2 has the v1 shape."""

from __future__ import annotations


def resource_slice_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    return obj, []
