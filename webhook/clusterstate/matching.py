"""Which published devices a DeviceClass (and a request's selectors on top) can ever select.

Results are kept per key, (class, request selectors), slice by slice: a watch event on a slice makes only
that slice pending again, one on a class drops that class's results. A check evaluates pending slices
until its budget is spent, keeping what it evaluated, so a cold cache warms over a few requests and the
answer is "unknown" (no warning) meanwhile. Devices are judged by webhook.allocation's own explanation
(`explain.selector_verdict` over a `selection.Selection`), so the reason given is the allocator's.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

from webhook.allocation.explain import CLASS_SELECTOR, EXAMPLES, REQUEST_SELECTOR, SELECTOR_ERROR, RequestExplanation, \
    selector_verdict
from webhook.allocation.features import Features
from webhook.allocation.selection import Selection
from webhook.clusterstate.store import CLASS, SLICE, Store

MAX_KEYS = 512  # (class, selectors) results kept; the least recently used go first


def qualified(name: str, driver: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


@dataclass(slots=True)
class _PerSlice:
    matching: int  # devices that pass
    attributes: frozenset  # qualified attribute names of those devices (one shared object per distinct set)
    capacity: frozenset
    removed: dict  # reason -> (count, [(device, why)])


@dataclass
class Result:
    """What the devices published so far say about one key; `complete` once every slice is evaluated."""

    class_name: str
    selectors: tuple  # the request's selector expressions ("" key part for the class alone)
    slices: dict = field(default_factory=dict)  # slice name -> _PerSlice
    pending: set = field(default_factory=set)
    matching: int = 0
    considered: int = 0
    removed: dict | None = None  # the sum of the slices' removals, kept until a slice changes
    names: dict | None = None  # "attribute"/"capacity" -> the union over the slices, likewise

    def changed(self) -> None:
        self.removed = None
        self.names = None

    @property
    def complete(self) -> bool:
        return not self.pending

    def _names(self, what: str) -> frozenset:
        if self.names is None:
            # Slices mostly share one name set (matching._shared): union the distinct ones only.
            attributes = {id(s.attributes): s.attributes for s in self.slices.values()}
            capacity = {id(s.capacity): s.capacity for s in self.slices.values()}
            self.names = {"attribute": frozenset().union(*attributes.values()),
                          "capacity": frozenset().union(*capacity.values())}
        return self.names[what]

    def attribute_names(self) -> frozenset:
        return self._names("attribute")

    def capacity_names(self) -> frozenset:
        return self._names("capacity")

    def explanation(self, request: str, wanted: str) -> RequestExplanation:
        if self.removed is None:
            removed: dict = {}
            for name in sorted(self.slices):
                for reason, (count, examples) in self.slices[name].removed.items():
                    entry = removed.setdefault(reason, [0, []])
                    entry[0] += count
                    entry[1].extend(examples[:EXAMPLES - len(entry[1])])
            self.removed = removed
        out = RequestExplanation(request, self.class_name, wanted, considered=self.considered, usable=self.matching)
        out.removed = {reason: [count, list(examples)] for reason, (count, examples) in self.removed.items()}
        return out


class OutOfTime(Exception):
    pass


class Matching:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.results: OrderedDict[tuple, Result] = OrderedDict()
        self.evaluated_slices = 0  # slices evaluated (a measure of the work done)
        self._names: dict[frozenset, frozenset] = {}  # the distinct name sets, shared by every slice that has one
        store.listeners.append(self._changed)

    def clear(self) -> None:
        self.results.clear()

    def _changed(self, kind: str, name: str) -> None:
        if kind == CLASS:
            for key in [k for k in self.results if k[0] == name]:
                del self.results[key]
        elif kind == SLICE:
            for result in self.results.values():
                result.changed()
                old = result.slices.pop(name, None)
                if old is not None:
                    result.matching -= old.matching
                    result.considered -= old.matching + sum(c for c, _ in old.removed.values())
                if name in self.store.slices:
                    result.pending.add(name)
                else:
                    result.pending.discard(name)

    def result(self, class_name: str, selectors: tuple, deadline: float, touch: bool = True) -> Result:
        """The key's result, evaluated as far as `deadline` (time.monotonic()) allows; see Result.complete.
        `touch=False` (the background warmer) leaves the key's place among the recently used."""
        key = (class_name, selectors)
        result = self.results.get(key)
        if result is None:
            result = Result(class_name, selectors, pending=set(self.store.slices))
            self.results[key] = result
            while len(self.results) > MAX_KEYS:
                self.results.popitem(last=False)
        elif touch:
            self.results.move_to_end(key)
        if result.pending:
            self._evaluate(result, deadline)
        return result

    def _shared(self, names: set) -> frozenset:
        frozen = frozenset(names)
        if len(self._names) > 4096:
            self._names.clear()
        return self._names.setdefault(frozen, frozen)

    def _evaluate(self, result: Result, deadline: float) -> None:
        class_selectors = self.store.classes.get(result.class_name)
        if class_selectors is None:
            return
        features = Features.from_profile(self.store.profile)
        request_selectors = [{"cel": {"expression": e}} for e in result.selectors]
        while result.pending:
            if time.monotonic() >= deadline:
                return
            name = result.pending.pop()
            record = self.store.slices.get(name)
            if record is None:
                continue
            selection = Selection(features)  # its cache lives as long as this slice's evaluation
            matching, attributes, capacity, removed = 0, set(), set(), {}
            for device in record.device_list():
                label = f"{record.driver}/{record.pool}/{device.get('name')}"
                failed, why = selector_verdict(selection, device, record.driver, class_selectors,
                                               f"class {result.class_name}")
                reason = (failed or CLASS_SELECTOR) if why else ""
                if not why and request_selectors:
                    failed, why = selector_verdict(selection, device, record.driver, request_selectors, "request")
                    reason = (failed or REQUEST_SELECTOR) if why else ""
                if why:
                    count, examples = removed.get(reason, (0, []))
                    if len(examples) < EXAMPLES:
                        examples.append((label, why))
                    removed[reason] = (count + 1, examples)
                    continue
                matching += 1
                attributes.update(qualified(n, record.driver) for n in device.get("attributes") or ())
                capacity.update(qualified(n, record.driver) for n in device.get("capacity") or ())
            result.changed()
            result.slices[name] = _PerSlice(matching, self._shared(attributes), self._shared(capacity), removed)
            result.matching += matching
            result.considered += record.device_count
            self.evaluated_slices += 1


__all__ = ["Matching", "Result", "OutOfTime", "SELECTOR_ERROR", "qualified"]
