"""Selector evaluation with a cache: each (selector, device) pair is evaluated at most once per run.

The scheduler caches per (device, request) within one Allocate call; offline, `--all-nodes` runs the
allocator once per node over the same devices, so the cache is keyed by expression and device and
lives as long as the run. `evaluations` counts the CEL evaluations actually made. Each evaluation
first checks the current run's deadline (`deadline.GaveUp`), as the scheduler's CEL checks its context.
"""

from __future__ import annotations

from webhook.allocation.deadline import NO_DEADLINE
from webhook.cel import evaluation


class SelectorError(ValueError):
    """A selector that does not compile, or fails at runtime for a device."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class Selection:
    def __init__(self, features) -> None:
        self.features = features
        self.evaluations = 0
        self.deadline = NO_DEADLINE  # the running allocation's (set by the run)
        self._results: dict[tuple[str, int], bool | SelectorError] = {}
        self._inputs: dict[int, dict | SelectorError] = {}
        self._keep: list = []  # the devices keyed by id() stay alive as long as the cache

    def _input(self, driver: str, device: dict):
        key = id(device)
        value = self._inputs.get(key)
        if value is None:
            self._keep.append(device)
            try:
                value = evaluation.device_input(driver, device, self.features.cel)
            except evaluation.EvaluationError as error:
                value = SelectorError("CEL runtime error", str(error))
            self._inputs[key] = value
        return value

    def matches(self, expression: str, driver: str, device: dict) -> bool:
        """Whether the selector accepts the device; SelectorError (compile or runtime) otherwise."""
        key = (expression, id(device))
        result = self._results.get(key)
        if result is None:
            result = self._evaluate(expression, driver, device)
            self._results[key] = result
        if isinstance(result, SelectorError):
            raise result
        return result

    def _evaluate(self, expression: str, driver: str, device: dict):
        try:
            program = evaluation.selector(expression, self.features.cel)
        except evaluation.EvaluationError as error:
            return SelectorError("CEL compile error", str(error))
        value = self._input(driver, device)
        if isinstance(value, SelectorError):
            return value
        self.deadline.check()
        self.evaluations += 1
        try:
            return program.matches(dict(value), self.deadline)
        except evaluation.EvaluationError as error:
            return SelectorError("CEL runtime error", str(error))
