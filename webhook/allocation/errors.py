"""What the search and its preparation share: the result limit, errors, candidates, claim names."""

from __future__ import annotations

from dataclasses import dataclass

from webhook.limits import ALLOCATION_RESULTS_MAX_SIZE

__all__ = ["ALLOCATION_RESULTS_MAX_SIZE", "AllocationError", "Candidate", "ResultMaxSizeExceeded", "claim_ref"]


class AllocationError(Exception):
    """The input makes allocation impossible (the scheduler's Allocate error)."""


class ResultMaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack harder, a claim would get too many devices."""


@dataclass(frozen=True)
class Candidate:
    id: tuple  # (driver, pool, device)
    device: dict
    slice: object
    pool: object


def claim_ref(claim: dict) -> str:
    """klog.KObj: namespace/name, or the name alone."""
    meta = claim.get("metadata") or {}
    return f"{meta['namespace']}/{meta.get('name', '')}" if meta.get("namespace") else meta.get("name", "")
