"""What validating one object needs besides the object itself.

Upstream reads feature gates from a process-wide gate and threads a `stored` flag (CEL environment,
opaque-parameter size) through the claim and class validators; here both travel as one small value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from webhook.profile import DEFAULT, Profile
from webhook.validation.adminaccess import Namespaces


@dataclass(frozen=True)
class Options:
    profile: Profile = DEFAULT
    # Stored semantics: the stored-expressions CEL environment and no size limit on opaque parameters,
    # for parts of an update that did not change.
    stored: bool = False
    # The namespaces and their labels where known (offline); None for a served request, which cannot see them.
    namespaces: Namespaces = None
    # The old object's DeviceClaim (`devices`) when the create rules run on an update (ResourceClaimTemplate):
    # enforced declarative validation compares with it and skips what did not change (ratcheting).
    old_device_claim: dict | None = None
    # This part is unchanged for declarative validation: its declarative-only rules do not run, and a covered
    # hand-written error stays as it is.
    declarative_ratcheted: bool = False

    def with_stored(self, stored: bool) -> Options:
        return self if stored == self.stored else replace(self, stored=stored)

    def with_declarative_ratcheted(self, ratcheted: bool) -> Options:
        return self if ratcheted == self.declarative_ratcheted else replace(self, declarative_ratcheted=ratcheted)


DEFAULT_OPTIONS = Options()


def declarative_rules(opts: Options) -> bool:
    """Whether enforced declarative rules run on this part (behaviour declarative_validation, not ratcheted)."""
    return opts.profile.behaviours.declarative_validation and not opts.declarative_ratcheted


def short_circuit(opts: Options) -> bool:
    """Whether a list over its limit is only TooMany (behaviour list_size_short_circuit)."""
    return opts.profile.behaviours.list_size_short_circuit


def name_field(opts: Options, field: str = "name") -> str:
    """Where validateSet reports a repeated key: at `field` of the item (1.34) or at the item ("")."""
    return field if opts.profile.behaviours.duplicate_at_key_field else ""
