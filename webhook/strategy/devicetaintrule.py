"""DeviceTaintRule: the 1.36 registry strategy drops no fields. The kind itself is what the
DRADeviceTaintRules gate governs (served or not), which is not a field drop."""

from __future__ import annotations

from webhook.strategy.dropper import Dropper


def drop_disabled_fields(new: dict, old: dict | None, d: Dropper) -> None:
    return None
