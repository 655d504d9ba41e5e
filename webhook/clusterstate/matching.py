"""Which published devices a DeviceClass (and a request's selectors on top) can ever select.

Results are kept per key, (class, request selectors), slice by slice: a watch event on a slice makes only
that slice pending again, one on a class drops that class's results. A check evaluates pending slices
until its budget is spent, keeping what it evaluated, so a cold cache warms over a few requests and the
answer is "unknown" (no warning) meanwhile. Devices are judged by webhook.allocation's own explanation
(`explain.selector_verdict` over a `selection.Selection`), so the reason given is the allocator's.

Taints are kept beside, as the allocator checks them: with DRADeviceTaints on, each device gets the taints
of the DeviceTaintRules that select it (`taintrules.apply_patches`, the scheduler's tracker) after its own,
and the devices that match are counted per distinct set of taints. Which of them block a request depends
only on its tolerations (`requests.blocking_taint`), so a key serves every toleration list. A change of a
DeviceTaintRule makes the slices it can touch (its driver and pool, old and new) pending again.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from types import MappingProxyType

from webhook.allocation import taintrules
from webhook.allocation.explain import CLASS_SELECTOR, EXAMPLES, REQUEST_SELECTOR, SELECTOR_ERROR, TAINTED, \
    RequestExplanation, selector_verdict
from webhook.allocation.deadline import Deadline, GaveUp
from webhook.allocation.features import Features
from webhook.allocation.requests import Request, blocking_taint
from webhook.allocation.selection import Selection
from webhook.clusterstate.store import CLASS, SLICE, TAINT_RULE, Store

MAX_KEYS = 512  # (class, selectors) results kept; the least recently used go first
MAX_TAINT_SETS = 256  # distinct sets of taints counted per key; past it, taints are not judged (no warning)
NO_TAINTS = MappingProxyType({})  # shared by every (slice, key) whose matching devices have no taint


def _taint_set(device: dict) -> tuple:
    """The device's taints as a hashable tuple of (key, value, effect, rule or None), in order."""
    return tuple((t.get("key"), t.get("value"), t.get("effect"), t.get(taintrules.RULE))
                 for t in device.get("taints") or () if isinstance(t, dict))


def _taints(taint_set: tuple) -> list:
    out = []
    for key, value, effect, rule in taint_set:
        taint = {k: v for k, v in (("key", key), ("value", value), ("effect", effect)) if v is not None}
        if rule is not None:
            taint[taintrules.RULE] = rule
        out.append(taint)
    return out


def qualified(name: str, driver: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


@dataclass
class Blocked:
    """The devices that match a key but that a request's tolerations do not let through."""

    count: int = 0
    examples: list = field(default_factory=list)  # [(device, why)], a few
    by_taint: dict = field(default_factory=dict)  # the taint that blocks (described) -> devices

    def taints(self, limit: int = 4) -> str:
        """`taint k=v:NoSchedule on 2 devices, ...`: which taints to tolerate (or lift), most devices first."""
        ordered = sorted(self.by_taint.items(), key=lambda item: (-item[1], item[0]))
        shown = [f"{name} on {count} device{'s' if count != 1 else ''}" for name, count in ordered[:limit]]
        more = len(ordered) - limit
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


@dataclass(slots=True)
class _PerSlice:
    matching: int  # devices that pass
    attributes: frozenset  # qualified attribute names of those devices (one shared object per distinct set)
    capacity: frozenset
    removed: dict  # reason -> (count, [(device, why)])
    tainted: dict | None  # of the devices that pass: taint set -> [count, first device]; None: too many sets


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
    tainted: dict | None = None  # the sum of the slices' taint sets, likewise ({None: ...}: too many)

    def changed(self) -> None:
        self.removed = None
        self.names = None
        self.tainted = None

    def _taint_sets(self) -> dict | None:
        if self.tainted is None:
            total: dict = {}
            for name in sorted(self.slices):
                sets = self.slices[name].tainted
                if sets is None:
                    total = {None: None}
                    break
                for taint_set, (count, device) in sets.items():
                    entry = total.setdefault(taint_set, [0, device])
                    entry[0] += count
                if len(total) > MAX_TAINT_SETS:
                    total = {None: None}
                    break
            self.tainted = total
        return None if None in self.tainted else self.tainted

    def blocked(self, tolerations: list, features: Features) -> Blocked | None:
        """The matching devices a taint keeps from a request with these tolerations, as the allocator judges
        it (allocateDevice: DRADeviceTaints on, then taintPreventsAllocation); None when there are too many
        distinct sets of taints to say."""
        if not features.device_taints:
            return Blocked()
        sets = self._taint_sets()
        if sets is None:
            return None
        request = Request("", {"tolerations": tolerations})
        out = Blocked()
        for taint_set, (devices, device) in sets.items():
            taint = blocking_taint({"taints": _taints(taint_set)}, request, features.taint_prevents_by_effect)
            if taint is None:
                continue
            out.count += devices
            described = taintrules.describe(taint)
            if len(out.examples) < EXAMPLES:
                out.examples.append((device, f"{described} is not tolerated"))
            out.by_taint[described] = out.by_taint.get(described, 0) + devices
        return out

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

    def explanation(self, request: str, wanted: str, blocked: Blocked | None = None) -> RequestExplanation:
        if self.removed is None:
            removed: dict = {}
            for name in sorted(self.slices):
                for reason, (count, examples) in self.slices[name].removed.items():
                    entry = removed.setdefault(reason, [0, []])
                    entry[0] += count
                    entry[1].extend(examples[:EXAMPLES - len(entry[1])])
            self.removed = removed
        out = RequestExplanation(request, self.class_name, wanted, considered=self.considered,
                                 usable=self.matching - (blocked.count if blocked else 0))
        out.removed = {reason: [count, list(examples)] for reason, (count, examples) in self.removed.items()}
        if blocked and blocked.count:
            out.removed[TAINTED] = [blocked.count, list(blocked.examples)]
        return out


class OutOfTime(Exception):
    pass


class Matching:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.results: OrderedDict[tuple, Result] = OrderedDict()
        self.evaluated_slices = 0  # slices evaluated (a measure of the work done)
        self._names: dict[frozenset, frozenset] = {}  # the distinct name sets, shared by every slice that has one
        self._rule_scopes = {name: _scope(spec) for name, spec in store.taint_rules.items()}
        self._features: tuple | None = None
        store.listeners.append(self._changed)

    def clear(self) -> None:
        self.results.clear()

    def features(self) -> Features:
        """The allocator's features under the store's profile (kept until the profile is replaced)."""
        if self._features is None or self._features[0] is not self.store.profile:
            self._features = (self.store.profile, Features.from_profile(self.store.profile))
        return self._features[1]

    def _changed(self, kind: str, name: str) -> None:
        if kind == CLASS:
            for key in [k for k in self.results if k[0] == name]:
                del self.results[key]
            # 1.34's rules may select by DeviceClass: what they taint follows the class.
            self._again(self._touched([_scope(spec) for spec in self.store.taint_rules.values()
                                       if _d(spec.get("deviceSelector")).get("deviceClassName") == name]))
        elif kind == SLICE:
            self._again((name,))
        elif kind == TAINT_RULE:
            scopes = [self._rule_scopes.pop(name, None)]
            if name in self.store.taint_rules:
                scopes.append(self._rule_scopes.setdefault(name, _scope(self.store.taint_rules[name])))
            self._again(self._touched([s for s in scopes if s is not None]))

    def _touched(self, scopes: list) -> list:
        """The slices that rules of these (driver, pool) scopes can touch."""
        if not scopes:
            return []
        return [n for (driver, pool), names in self.store.pools.items()
                if any(s[0] in (None, driver) and s[1] in (None, pool) for s in scopes) for n in names]

    def _again(self, names) -> None:
        """These slices changed (or their taints): evaluated again, for every key."""
        if not names:
            return
        for result in self.results.values():
            result.changed()
            for name in names:
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
        features = self.features()
        request_selectors = [{"cel": {"expression": e}} for e in result.selectors]
        rules = self.store.scheduler_taint_rules() if features.device_taints else []
        cel_rules = self.store.profile.behaviours.taint_rule_cel_selectors
        classes = {n: {"spec": {"selectors": s}} for n, s in self.store.classes.items()} if rules and cel_rules else {}
        while result.pending:
            if time.monotonic() >= deadline:
                return
            name = result.pending.pop()
            record = self.store.slices.get(name)
            if record is None:
                continue
            try:
                self._evaluate_slice(result, name, record, class_selectors, request_selectors, rules, classes,
                                     features, deadline)
            except GaveUp:  # the budget ran out inside a selector: the slice stays to evaluate, nothing recorded
                result.pending.add(name)
                return

    def _evaluate_slice(self, result: Result, name: str, record, class_selectors: list, request_selectors: list,
                        rules: list, classes: dict, features: Features, deadline: float) -> None:
        """One slice's matching devices into `result`; GaveUp (before anything is recorded) past `deadline`,
        which CEL checks too, so a tenant's costly selectors cannot hold the server past the budget."""
        cel_rules = self.store.profile.behaviours.taint_rule_cel_selectors
        selection = Selection(features)  # its cache lives as long as this slice's evaluation
        selection.deadline = Deadline(None, total_end=deadline)
        matching, attributes, capacity, removed, tainted = 0, set(), set(), {}, {}
        devices = record.device_list()
        if rules:  # as the scheduler's tracker shows the slice
            shown = {"spec": {"driver": record.driver, "pool": {"name": record.pool}, "devices": devices}}
            selectors = taintrules.Selectors(classes, selection) if cel_rules else None
            no_selector = self.store.profile.behaviours.taint_rule_no_selector_matches_all
            devices = taintrules.apply_patches(shown, rules, selectors,
                                               no_selector_matches_all=no_selector)["spec"]["devices"]
        for device in devices:
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
            if tainted is not None and device.get("taints"):
                entry = tainted.setdefault(_taint_set(device), [0, label])
                entry[0] += 1
                if len(tainted) > MAX_TAINT_SETS:
                    tainted = None
            attributes.update(qualified(n, record.driver) for n in device.get("attributes") or ())
            capacity.update(qualified(n, record.driver) for n in device.get("capacity") or ())
        result.changed()
        result.slices[name] = _PerSlice(matching, self._shared(attributes), self._shared(capacity), removed,
                                        tainted if tainted != {} else NO_TAINTS)
        result.matching += matching
        result.considered += record.device_count
        self.evaluated_slices += 1


def _d(value) -> dict:
    return value if isinstance(value, dict) else {}


def _scope(spec: dict) -> tuple:
    """(driver, pool) of the slices a DeviceTaintRule can touch; None: any."""
    selector = _d(spec.get("deviceSelector"))
    return selector.get("driver"), selector.get("pool")


__all__ = ["Blocked", "Matching", "Result", "OutOfTime", "SELECTOR_ERROR", "qualified"]
