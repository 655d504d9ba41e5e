"""The feature gates that shape the DRA selector environment (kept free of any CEL library import)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Features:
    """Defaults are Kubernetes 1.36's; `webhook.cel.features_for(profile)` derives them from a profile."""

    consumable_capacity: bool = True  # DRAConsumableCapacity: beta, on
    list_type_attributes: bool = False  # DRAListTypeAttributes: alpha, off
