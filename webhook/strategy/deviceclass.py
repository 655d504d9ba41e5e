"""DeviceClass: `dropDisabledFields` of the 1.36 registry strategy (create and update alike)."""

from __future__ import annotations

from webhook.field import Path
from webhook.strategy.dropper import STRING, Dropper, child, is_set

SPEC = Path("spec")


def drop_disabled_fields(new: dict, old: dict | None, d: Dropper) -> None:
    drop_disabled_dra_extended_resource_fields(new, old, d)


def drop_disabled_dra_extended_resource_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAExtendedResource"
    if d.enabled(gate) or dra_extended_resource_feature_in_use(old):
        return
    d.drop(d.child(new, "spec"), SPEC, "extendedResourceName", STRING, gate)


def dra_extended_resource_feature_in_use(device_class: dict | None) -> bool:
    return is_set(child(device_class, "spec"), "extendedResourceName", STRING)
