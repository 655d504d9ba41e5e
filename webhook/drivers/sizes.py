"""Worst-case sizes below `self` for cel-go's estimator, read from a profile's schema (apiserver's DeclType
MaxElements). Where the schema sets no bound, the bound is what fits in an opaque configuration:
Kubernetes refuses `parameters` over 10 KiB, as the request size bounds a CRD's values.
"""

from __future__ import annotations

from webhook.cel.estimates import Estimate
from webhook.drivers.schema import Schema
from webhook.limits import OPAQUE_PARAMETERS_MAX_LENGTH

# The largest string a 10 KiB JSON object holds (its quotes and braces excluded), and the most list
# items or map entries (the smallest item, `0,`, takes two bytes).
_MAX_STRING = OPAQUE_PARAMETERS_MAX_LENGTH - 4
_MAX_ITEMS = OPAQUE_PARAMETERS_MAX_LENGTH // 2


def max_elements(node: Schema) -> int:
    """MaxElements of a node: characters of a string, items of a list, entries of a map, 0 for scalars."""
    if node.type == "string" or node.int_or_string:
        return node.max_length if node.max_length is not None else _MAX_STRING
    if node.type == "array":
        return node.max_items if node.max_items is not None else _MAX_ITEMS
    if node.type == "object" and node.additional is not None:
        return node.max_properties if node.max_properties is not None else _MAX_ITEMS
    if node.type == "object" or node.preserve_unknown:
        return len(node.properties) if node.properties else _MAX_ITEMS
    return 0


class SchemaSizes:
    """The estimator's view of one rule's `self`: the schema node the rule is written on."""

    def __init__(self, root: Schema) -> None:
        self.root = root
        self._string_key = Schema(type="string")

    def resolve(self, path: tuple[str, ...] | None) -> Schema | None:
        if not path or path[0] != "self":
            return None
        node = self.root
        for name in path[1:]:
            if name in ("@items", "@values"):
                nxt = node.items if node.type == "array" else node.additional
            elif name in ("@keys", "@indices"):
                nxt = self._string_key if name == "@keys" else None
            else:
                nxt = node.properties.get(name)
            if nxt is None:
                return None
            node = nxt
        return node

    def value_type(self, path: tuple[str, ...] | None) -> tuple | None:
        return None  # the compiler types `self` as dyn; the schema adds no narrower type here

    def estimate(self, path: tuple[str, ...] | None) -> Estimate | None:
        node = self.resolve(path)
        if node is None:
            return None
        return (0, max_elements(node))


class ValueSizes:
    """The estimator's view of one rule's `self` when the value is known: each size is the largest the
    value has at that path, so the estimate bounds what this evaluation can cost (cel-go's actual cost)."""

    def __init__(self, value) -> None:
        self.value = value

    def _at(self, path: tuple[str, ...]) -> list:
        found = [self.value]
        for name in path[1:]:
            step = []
            for v in found:
                if name in ("@items", "@values"):
                    step.extend(v if isinstance(v, list) else v.values() if isinstance(v, dict) else ())
                elif name in ("@keys", "@indices"):
                    step.extend(v.keys() if isinstance(v, dict) else ())
                elif isinstance(v, dict) and name in v:
                    step.append(v[name])
            found = step
        return found

    def value_type(self, path: tuple[str, ...] | None) -> tuple | None:
        return None

    def estimate(self, path: tuple[str, ...] | None) -> Estimate | None:
        if not path or path[0] != "self":
            return None
        sizes = [len(v) for v in self._at(path) if isinstance(v, (str, list, dict))]
        return (0, max(sizes, default=0))
