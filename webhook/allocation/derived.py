"""Derived attributes (Kubernetes 1.37, DRADerivedAttributes): a request's own attribute values.

`derivedAttributes: [{name, expression}]` on a request or subrequest computes, per candidate device, a
value that constraints of the claim read under `name` for that request only, in place of the driver's
attribute of that name (lookupAttribute). Values are evaluated when a constraint checks the device,
once per (device, expression) in an Allocate call; an evaluation error stops the allocation.
"""

from __future__ import annotations

from webhook.allocation.constraints import lookup_attribute
from webhook.allocation.deadline import NO_DEADLINE, Deadline
from webhook.allocation.errors import AllocationError
from webhook.cel import evaluation


class DerivedAttributes:
    def __init__(self, features, deadline: Deadline = NO_DEADLINE) -> None:
        self.features, self.deadline = features, deadline  # the run's: each evaluation checks it
        self.cache: dict[tuple, dict] = {}  # (device id, expression) -> DeviceAttribute

    def lookup(self, derived: dict, candidate):
        """The attribute lookup a constraint uses for this request and device."""
        if not derived:
            return lookup_attribute

        def lookup(device: dict, driver: str, name: str) -> dict | None:
            expression = derived.get(name)
            if expression is None:
                return lookup_attribute(device, driver, name)
            return self.evaluate(name, expression, candidate)
        return lookup

    def evaluate(self, name: str, expression: str, candidate) -> dict:
        key = (candidate.id, expression)
        found = self.cache.get(key)
        if found is not None:
            return found
        cel = self.features.cel
        try:
            program = evaluation.derived_attribute(expression, cel)
        except evaluation.EvaluationError as error:
            raise AllocationError(f"compile derived attribute {name} failed: {error}") from None
        self.deadline.check()
        try:
            found = program.evaluate(evaluation.device_input(candidate.id[0], candidate.device, cel), self.deadline)
        except evaluation.EvaluationError as error:
            raise AllocationError(f"evaluate derived attribute {name} on device {'/'.join(candidate.id)} "
                                  f"failed: {error}") from None
        self.cache[key] = found
        return found
