"""The generated corpus: valid seeds (seeds.py) with one to three mutations each, moving a field across its
limits, formats, enums and unions, changing CEL selectors (syntax, types, cost), and changing updates and status
transitions. Deterministic: the same count, seed and release give the same requests.

A mutation picks a node of the object (for an update or a status update, of the new object; the old object is
the stored one) and replaces it: another value of its type near a limit, a value of another type, an empty or
missing value, a list grown past its limit or with a duplicate, a map key that is not a valid name, an unknown
field, a sibling from another union member.
"""

from __future__ import annotations

import copy
import random
import sys
from typing import Any, Iterator

from . import corpus as inputs
from . import seeds

_LENGTHS = (0, 1, 8, 32, 63, 64, 65, 128, 253, 254, 256, 1024, 1025)
_COUNTS = (0, 1, 2, 4, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129)
_NUMBERS = (0, -1, 1, 2, 3, 8, 31, 32, 33, 64, 100, 128, 129, 255, 256, 1000, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 1.5)
_STRINGS = (
    "", "a", "A", "-a", "a-", "a.b", "a_b", "a b", "a/b", "/a", "a/", "example.com/a", "Example.com/a", "a.example.com/",
    "a.example.com/b/c", "ü", "1", "0", "-1", "1Gi", "1.5", "0.5", "1m", "-1Gi", "1e3", "+1", "v1.2.3", "1.2.3",
    "1.2", "NoSchedule", "NoExecute", "None", "Bogus", "Exists", "Equal", "All", "ExactCount", "FromClaim",
    "FromClass", "True", "False", "Unknown", "pods", "metadata.name", "In", "NotIn", "10.0.0.5/24", "10.0.0.5",
    "fd00::5/64", "ea:9f:ab:cd:ef:01", "EA-9F-AB-CD-EF-01", "0123456789abcdef0123456789abcdef", "xyz",
    "dra.example.com/ready", "gpu.example.com", "node-1", "gpu-0", "2026-01-01T00:00:00Z", "eth1", "a" * 63 + ".b",
    "example.com/" + "a" * 64, "a" * 64 + "/b",
)
_CEL_FIXED = (
    "", "true", "1", '"x"', "device.driver ==", "device.driver == 1", 'device.attributes["x"].y',
    "device.nope", 'device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0',
    "[1,2,3].all(x, [1,2,3].all(y, [1,2,3].all(z, x + y + z > 0)))",
    'device.attributes["dra.example.com"].exists(k, v, true)',
    '"' + "x" * 10240 + '"', 'device.attributes["a"].b.matches("[")', "device.allowMultipleAllocations",
)


class Mutator:
    def __init__(self, rng: random.Random, cel: list[str]):
        self.r = rng
        self.cel = cel

    def nodes(self, value: Any, path: tuple = ()) -> Iterator[tuple]:
        yield path
        if isinstance(value, dict):
            for key, child in value.items():
                if path == () and key in ("apiVersion", "kind"):
                    continue
                yield from self.nodes(child, path + (key,))
        elif isinstance(value, list):
            for i, child in enumerate(value):
                yield from self.nodes(child, path + (i,))

    def mutate(self, obj: dict, update: bool = False) -> str:
        """One mutation of `obj`. Never of metadata.namespace (the API server takes it from the URL), nor for an
        update of other metadata than labels and annotations (the URL names the stored object; its
        resourceVersion is checked before validation)."""
        paths = [p for p in self.nodes(obj) if p and not _frozen(p, update)]
        if not paths:
            return "nothing left to mutate"
        path = self.r.choice(paths)
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        current = parent[last]
        op = self.r.random()
        label = "/".join(str(p) for p in path)
        if op < 0.08 and isinstance(parent, dict):
            del parent[last]
            return f"remove {label}"
        if op < 0.12 and isinstance(parent, dict):
            parent["bogusField" if self.r.random() < 0.5 else "Name"] = copy.deepcopy(current)
            return f"unknown sibling of {label}"
        if op < 0.18:
            parent[last] = self.r.choice((None, {}, [], "x", 1, True, -1, 1.5))
            return f"retype {label}"
        if isinstance(current, list):
            return self._list(parent, last, current, label)
        if isinstance(current, dict):
            return self._map(parent, last, current, label)
        if isinstance(current, bool):
            parent[last] = not current if self.r.random() < 0.7 else self.r.choice(("true", 0, None))
            return f"flip {label}"
        if isinstance(current, (int, float)):
            parent[last] = self.r.choice(_NUMBERS) * (1 if self.r.random() < 0.8 else -1)
            return f"number {label}"
        if isinstance(current, str):
            parent[last] = self._string(last, current)
            return f"string {label}"
        parent[last] = self.r.choice(_STRINGS)
        return f"set {label}"

    def _string(self, key: Any, current: str) -> Any:
        choice = self.r.random()
        if key == "expression":
            return self.r.choice(self.cel) if choice < 0.7 else self.r.choice(_CEL_FIXED)
        if choice < 0.45:
            return self.r.choice(_STRINGS)
        if choice < 0.75:
            n = self.r.choice(_LENGTHS)
            base = (current or "a").rstrip("/")
            head, sep, tail = base.rpartition("/")
            if sep and self.r.random() < 0.5:  # stretch one side of a qualified name
                return (head + "/" + (tail * (n // max(1, len(tail)) + 1))[:n]) if self.r.random() < 0.5 else \
                    ((head * (n // max(1, len(head)) + 1))[:n] + "/" + tail)
            return (base * (n // max(1, len(base)) + 1))[:n]
        if choice < 0.9:
            return current.upper() if current.lower() == current else current.lower()
        return current + self.r.choice(("-", ".", "/", "_", "..", "!", " ", "/x"))

    def _list(self, parent: Any, last: Any, current: list, label: str) -> str:
        choice = self.r.random()
        if not current or choice < 0.15:
            parent[last] = []
            return f"empty {label}"
        if choice < 0.4:
            parent[last] = current + [copy.deepcopy(self.r.choice(current))]
            return f"duplicate in {label}"
        if choice < 0.7:
            n = self.r.choice(_COUNTS)
            parent[last] = [_renamed(copy.deepcopy(current[i % len(current)]), i) for i in range(n)]
            return f"grow {label} to {n}"
        del current[self.r.randrange(len(current))]
        return f"drop from {label}"

    def _map(self, parent: Any, last: Any, current: dict, label: str) -> str:
        choice = self.r.random()
        if not current or choice < 0.1:
            parent[last] = {}
            return f"empty {label}"
        key = self.r.choice(list(current))
        if choice < 0.45:  # a new key: an odd name, or many keys
            if self.r.random() < 0.3:
                n = self.r.choice(_COUNTS)
                for i in range(n):
                    current[f"k{i}"] = copy.deepcopy(current[key])
                return f"grow {label} to {len(current)} keys"
            current[self.r.choice(_STRINGS)] = copy.deepcopy(current[key])
            return f"new key in {label}"
        if choice < 0.6:  # rename a key
            current[self.r.choice(_STRINGS)] = current.pop(key)
            return f"rename key of {label}"
        if choice < 0.8:  # a union member next to another
            other = self.r.choice(_UNION_MEMBERS)
            current[other[0]] = copy.deepcopy(other[1])
            return f"add {other[0]} to {label}"
        parent[last] = None
        return f"null {label}"


def _frozen(path: tuple, update: bool) -> bool:
    if path[0] != "metadata":
        return False
    if len(path) == 1:
        return update
    return path[1] == "namespace" or (update and path[1] not in ("labels", "annotations"))


_UNION_MEMBERS = (
    ("exactly", {"deviceClassName": "gpu.example.com"}),
    ("firstAvailable", [{"name": "a", "deviceClassName": "gpu.example.com"}]),
    ("matchAttribute", "dra.example.com/numa"), ("distinctAttribute", "dra.example.com/numa"),
    ("nodeName", "node-1"), ("allNodes", True), ("perDeviceNodeSelection", True),
    ("nodeSelector", {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}),
    ("string", "x"), ("int", 1), ("bool", False), ("version", "1.0.0"),
    ("sharedCounters", [{"name": "c", "counters": {"m": {"value": "1"}}}]), ("devices", [{"name": "d"}]),
    ("opaque", {"driver": "gpu.example.com", "parameters": {}}), ("adminAccess", True),
    ("allocationMode", "All"), ("count", 3), ("tolerations", [{"operator": "Exists"}]),
    ("bindsToNode", True), ("bindingConditions", ["a.example.com/b"]), ("taints", [{"key": "k", "effect": "None"}]),
)


def _renamed(value: Any, i: int) -> Any:
    """A copy of a list element that keeps names unique (a grown list tests the limit, not the duplicates)."""
    if i and isinstance(value, dict):
        for key in ("name", "request", "device"):
            if isinstance(value.get(key), str):
                value[key] = f"{value[key]}-{i}"
                break
    elif i and isinstance(value, str):
        value = f"{value}-{i}"
    return value


def corpus(count: int, *, seed: int = 1, release: str = "1.36") -> list[dict]:
    """`count` requests: mutations of the seeds of `release`, round robin over them."""
    if str(inputs.TESTS) not in sys.path:
        sys.path.insert(0, str(inputs.TESTS))
    import cel_corpus  # the project's generator of selector expressions

    rng = random.Random(f"{seed}-{release}")
    mutator = Mutator(rng, cel_corpus.expressions(120, seed=seed))
    starts = seeds.seeds(release)
    out = []
    for i in range(count):
        kind, operation, subresource, obj, old = starts[i % len(starts)]
        obj = copy.deepcopy(obj)
        notes = [mutator.mutate(obj, operation == "update") for _ in range(rng.choice((1, 1, 1, 2, 3)))]
        if operation == "update" and isinstance(obj.get("metadata"), dict):
            obj["metadata"].setdefault("resourceVersion", "1")
        req = inputs.request(f"generated:{i}:{kind}:{operation}{'/' + subresource if subresource else ''}:"
                             + "; ".join(notes), obj, copy.deepcopy(old) if old is not None else None, subresource)
        if req is not None:  # (apiVersion and kind are never mutated)
            out.append(req)
    return out
