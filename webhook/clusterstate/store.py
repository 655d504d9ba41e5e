"""The cluster's DeviceClasses, ResourceSlices and DeviceTaintRules as the admission warnings need them.

Bounded memory: a slice is kept as its pool, its counter sets and one compact JSON blob of its devices
(name, attributes, capacity, counter sets consumed, taints), parsed again only when a check reads it; a
class as its selectors; a DeviceTaintRule as its spec and the API version it came in (which says whether
the profile's gate lets the scheduler read it). Every change is told to the listeners (the checks' caches), slice by slice or class by class.
Objects arrive in any served version and are converted to v1 first. Pure: no I/O.
"""

from __future__ import annotations

import copy

from dataclasses import dataclass
from typing import Callable

import orjson

from webhook import kinds
from webhook.profile import DEFAULT, Profile

CLASS, SLICE, TAINT_RULE = "DeviceClass", "ResourceSlice", "DeviceTaintRule"
KINDS = (CLASS, SLICE, TAINT_RULE)


def _d(value) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value) -> list:
    return value if isinstance(value, list) else []


@dataclass(slots=True)
class SliceRecord:
    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    counter_sets: tuple  # names of the counter sets it defines
    devices: bytes  # orjson of [{"name", "attributes", "capacity", "consumesCounters": [{"counterSet"}],
    #                  "taints": [{"key", "value", "effect"}]}]
    device_count: int

    def device_list(self) -> list:
        return orjson.loads(self.devices)

    def essentials(self) -> dict:
        """The slice as webhook.allocation.poolcheck reads it."""
        devices = [{"name": d.get("name"), "consumesCounters": d.get("consumesCounters") or []}
                   for d in self.device_list()]
        return {"apiVersion": f"{kinds.GROUP}/v1", "kind": SLICE, "metadata": {"name": self.name},
                "spec": {"driver": self.driver, "pool": {"name": self.pool, "generation": self.generation,
                                                         "resourceSliceCount": self.slice_count},
                         "devices": devices, "sharedCounters": [{"name": n} for n in self.counter_sets]}}


def _int(value, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def slice_record(v1: dict) -> SliceRecord:
    spec = _d(v1.get("spec"))
    pool = _d(spec.get("pool"))
    devices = []
    for device in _l(spec.get("devices")):
        device = _d(device)
        entry = {"name": device.get("name")}
        if device.get("attributes"):
            entry["attributes"] = device["attributes"]
        if device.get("capacity"):
            entry["capacity"] = device["capacity"]
        consumed = [{"counterSet": _d(c).get("counterSet")} for c in _l(device.get("consumesCounters"))]
        if consumed:
            entry["consumesCounters"] = consumed
        taints = [{k: _d(t)[k] for k in ("key", "value", "effect") if _d(t).get(k) is not None}
                  for t in _l(device.get("taints"))]
        if taints:
            entry["taints"] = taints
        devices.append(entry)
    return SliceRecord(str(_d(v1.get("metadata")).get("name") or ""), str(spec.get("driver") or ""),
                       str(pool.get("name") or ""), _int(pool.get("generation")),
                       _int(pool.get("resourceSliceCount"), 1),
                       tuple(str(_d(cs).get("name")) for cs in _l(spec.get("sharedCounters"))),
                       orjson.dumps(devices), len(devices))


def api_version(obj: dict) -> str:
    return str(obj.get("apiVersion") or "").rpartition("/")[2] or "v1"


def to_v1(kind: str, obj: dict, profile: Profile) -> dict | None:
    version = api_version(obj)
    try:
        converted, _ = kinds.to_v1(kind, version, obj, profile)
    except (TypeError, ValueError, AttributeError, KeyError):
        return None
    return converted if isinstance(converted, dict) else None


class Store:
    def __init__(self, profile: Profile = DEFAULT) -> None:
        self.profile = profile
        self.classes: dict[str, list] = {}  # name -> its selectors (v1 spec.selectors)
        self.slices: dict[str, SliceRecord] = {}
        self.pools: dict[tuple, set] = {}  # (driver, pool) -> slice names
        self.taint_rules: dict[str, dict] = {}  # name -> its v1 spec
        self.taint_rule_versions: dict[str, str] = {}  # name -> the API version it came in
        self.devices = 0
        self.listeners: list[Callable[[str, str], None]] = []  # (kind, name) changed

    def _tell(self, kind: str, name: str) -> None:
        for listener in self.listeners:
            listener(kind, name)

    def counts(self) -> dict:
        return {CLASS: len(self.classes), SLICE: len(self.slices), TAINT_RULE: len(self.taint_rules),
                "devices": self.devices}

    def scheduler_taint_rules(self) -> list:
        """The DeviceTaintRules the scheduler reads under the profile, as [{metadata.name, spec}]: served in
        the API version each came in, with its gate on (webhook.allocation.inputs does the same for allocate)."""
        out = []
        for name, spec in self.taint_rules.items():
            api = kinds.KINDS[TAINT_RULE].api_version(self.profile, self.taint_rule_versions.get(name, ""))
            if isinstance(api, kinds.ApiVersion) and (not api.gate or self.profile.gate(api.gate)):
                out.append({"metadata": {"name": name}, "spec": spec})
        return out

    def put(self, kind: str, obj: dict) -> None:
        name = _d(obj.get("metadata")).get("name")
        if not isinstance(name, str) or not name:
            return
        try:
            self._put(kind, name, obj)
        except (RecursionError, orjson.JSONEncodeError):
            # Nested deeper than it can be converted, copied or compared: unusable, as an object that does
            # not convert (nothing is changed before these steps).
            return

    def _put(self, kind: str, name: str, obj: dict) -> None:
        v1 = to_v1(kind, obj, self.profile)
        if v1 is None:
            return
        # A relist brings every object again: what did not change invalidates nothing (no evaluated result lost).
        if kind == CLASS:
            # A copy: kept apart from the object it came in (which its sender may change), compared on the next put.
            selectors = copy.deepcopy([s for s in _l(_d(v1.get("spec")).get("selectors")) if isinstance(s, dict)])
            if self.classes.get(name) == selectors:
                return
            self.classes[name] = selectors
        elif kind == SLICE:
            record = slice_record(v1)
            if self.slices.get(name) == record:
                return
            self._drop_slice(name)
            self.slices[name] = record
            self.pools.setdefault((record.driver, record.pool), set()).add(name)
            self.devices += record.device_count
        elif kind == TAINT_RULE:
            spec, version = copy.deepcopy(_d(v1.get("spec"))), api_version(obj)
            if self.taint_rules.get(name) == spec and self.taint_rule_versions.get(name) == version:
                return
            self.taint_rules[name] = spec
            self.taint_rule_versions[name] = version
        self._tell(kind, name)

    def delete(self, kind: str, name: str) -> None:
        if kind == CLASS:
            self.classes.pop(name, None)
        elif kind == SLICE:
            self._drop_slice(name)
        elif kind == TAINT_RULE:
            self.taint_rules.pop(name, None)
            self.taint_rule_versions.pop(name, None)
        self._tell(kind, name)

    def _drop_slice(self, name: str) -> None:
        old = self.slices.pop(name, None)
        if old is not None:
            self.devices -= old.device_count
            members = self.pools.get((old.driver, old.pool))
            if members is not None:
                members.discard(name)
                if not members:
                    del self.pools[(old.driver, old.pool)]

    def replace(self, kind: str, objects: list) -> None:
        """A relist: exactly these objects of `kind`, the others gone (each change told)."""
        names = {_d(o.get("metadata")).get("name") for o in objects if isinstance(o, dict)}
        held = {CLASS: self.classes, SLICE: self.slices, TAINT_RULE: self.taint_rules}[kind]
        for name in [n for n in held if n not in names]:
            self.delete(kind, name)
        for obj in objects:
            if isinstance(obj, dict):
                self.put(kind, obj)

    def load(self, documents: list) -> list:
        """Every DeviceClass, ResourceSlice and DeviceTaintRule of `documents` (a `kubectl get -o yaml` dump:
        List objects are opened); returns what could not be used, as [(index, reason)]."""
        problems = []
        for index, doc in enumerate(documents):
            for obj in _l(doc.get("items")) if isinstance(doc, dict) and doc.get("kind") == "List" else [doc]:
                kind = obj.get("kind") if isinstance(obj, dict) else None
                if kind in KINDS and str(obj.get("apiVersion") or "").startswith(kinds.GROUP + "/"):
                    self.put(kind, obj)
                else:
                    problems.append((index, f"{kind or 'not an object'}: not a DeviceClass, ResourceSlice or "
                                            f"DeviceTaintRule"))
        return problems
