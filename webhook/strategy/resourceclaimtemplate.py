"""ResourceClaimTemplate: `dropDisabledFields` of the 1.36 registry strategy, the claim spec rules
applied to `spec.spec` (create and update alike)."""

from __future__ import annotations

from webhook.field import Path
from webhook.strategy import resourceclaimspec
from webhook.strategy.dropper import Dropper, child

SPEC_SPEC = Path("spec", "spec")


def drop_disabled_fields(new: dict, old: dict | None, d: Dropper) -> None:
    resourceclaimspec.drop_disabled_fields(d.child(d.child(new, "spec"), "spec"), SPEC_SPEC,
                                           child(old, "spec", "spec"), d)
