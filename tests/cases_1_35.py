"""Objects whose verdict differs between Kubernetes 1.35 and 1.36: the same request, both verdicts.

Ported from upstream's 1.35 table `validation_resourceslice_test.go` (kubernetes@93fc7422, PR #134189:
`bad-attribute`, `bad-attribute-c-identifier`, `bad-attribute-domain`, `bad-key-too-long`,
`bad-attribute-empty-domain-and-c-identifier`, `bad-countername-shared-counters`), plus cases derived
from the 1.35 sources (capacity and consumed-counter keys, list attributes and node-allocatable mappings
as unknown fields, RD-03, CEL). Each version runs with every one of its DRA gates on. Causes are
{(field, reason): count}; an empty dict means allowed. Shared by the in-process and the HTTPS tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cases_1_37 import FORBIDDEN, INVALID, NOT_FOUND, TOO_LONG, TOO_MANY, claim, exact, slice_
from webhook.profile import GATES

ALL_GATES_1_35 = ",".join(f"{name}=true" for name in sorted(GATES["1.35"]))
ALL_GATES_1_36 = ",".join(f"{name}=true" for name in sorted(GATES["1.36"]))

BAD = "!@#$%^"  # upstream's badName
_D = "spec.devices"


def _device(i: int, **fields) -> dict:
    """testResourceSlice's device: four attributes and a capacity, unless overridden."""
    device = {"name": f"device-{i}",
              "attributes": {"int": {"int": 42}, "string": {"string": "hello world"},
                             "version": {"version": "1.2.3"}, "bool": {"bool": True}},
              "capacity": {"memory": {"value": "1Gi"}}}
    device.update(fields)
    return device


def _counter_slice(counters: dict) -> dict:
    obj = slice_()
    del obj["spec"]["devices"]
    obj["spec"]["sharedCounters"] = [{"name": "foo", "counters": counters}]
    return obj


@dataclass
class Case:
    name: str
    obj: dict
    v135: dict
    v136: dict
    # Substrings one warning must contain, per version.
    warnings_135: list[str] = field(default_factory=list)
    warnings_136: list[str] = field(default_factory=list)


_CEL = "spec.devices.requests[0].exactly.selectors[0].cel.expression"
_X64_Y33 = "x" * 64 + "/" + "y" * 33
_X64_Y33_SHORT = "x" * 47 + "..." + "x" * 12 + "/" + "y" * 33  # truncateIfTooLong(key, 96)
_LONG_COUNTER = "C" * 70
_LONG_COUNTER_SHORT = "C" * 30 + "..." + "C" * 30  # truncateIfTooLong(key, 63)

CASES = [
    Case("bad-attribute",
         slice_(_device(0), _device(1, attributes={BAD: {}}),
                _device(2, attributes={"foo": {"string": "x", "version": "1.2.3"}}),
                _device(3, attributes={"foo": {"version": "x" * 65}}),
                _device(4, attributes={"foo": {"string": "x" * 65}})),
         {(f"{_D}[1].attributes[{BAD}]", INVALID): 2, (f"{_D}[2].attributes[foo]", INVALID): 1,
          (f"{_D}[3].attributes[foo].version", INVALID): 1, (f"{_D}[3].attributes[foo].version", TOO_LONG): 1,
          (f"{_D}[4].attributes[foo].string", TOO_LONG): 1},
         {(f"{_D}[1].attributes", INVALID): 1, (f"{_D}[1].attributes[{BAD}]", INVALID): 1,
          (f"{_D}[2].attributes[foo]", INVALID): 1,
          (f"{_D}[3].attributes[foo].version", INVALID): 1, (f"{_D}[3].attributes[foo].version", TOO_LONG): 1,
          (f"{_D}[4].attributes[foo].string", TOO_LONG): 1}),
    Case("good-attribute-names",
         slice_(_device(0), _device(1, attributes={"x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}})),
         {}, {}),
    Case("bad-attribute-c-identifier",
         slice_(_device(0), _device(1, attributes={"." * 33: {"string": "y"}})),
         {(f"{_D}[1].attributes[{'.' * 33}]", TOO_LONG): 1, (f"{_D}[1].attributes[{'.' * 33}]", INVALID): 1},
         {(f"{_D}[1].attributes", TOO_LONG): 1, (f"{_D}[1].attributes", INVALID): 1}),
    Case("bad-attribute-domain",
         slice_(_device(0), _device(1, attributes={"_" * 64 + "/y": {"string": "z"}})),
         {(f"{_D}[1].attributes[{'_' * 64}/y]", TOO_LONG): 1, (f"{_D}[1].attributes[{'_' * 64}/y]", INVALID): 1},
         {(f"{_D}[1].attributes", TOO_LONG): 1, (f"{_D}[1].attributes", INVALID): 1}),
    Case("bad-key-too-long",
         slice_(_device(0), _device(1, attributes={_X64_Y33: {"string": "z"}})),
         {(f"{_D}[1].attributes[{_X64_Y33_SHORT}]", TOO_LONG): 2},
         {(f"{_D}[1].attributes", TOO_LONG): 2}),
    Case("bad-attribute-empty-domain-and-c-identifier",
         slice_(_device(0), _device(1, attributes={"/": {"string": "z"}})),
         {(f"{_D}[1].attributes[/]", INVALID): 2},
         {(f"{_D}[1].attributes", INVALID): 2}),
    Case("bad-countername-shared-counters",
         _counter_slice({BAD: {"value": "1Gi"}}),
         {(f"spec.sharedCounters[0].counters[{BAD}]", INVALID): 1},
         {("spec.sharedCounters[0].counters", INVALID): 1}),
    # A v1beta1 request: converted to v1, validated there, paths v1-shaped (no declarative takeover in 1.35).
    Case("bad-attribute-v1beta1",
         slice_({"name": "device-0", "basic": {"attributes": {BAD: {"string": "x"}},
                                               "capacity": {"memory": {"value": "1Gi"}}}}, version="v1beta1"),
         {(f"{_D}[0].attributes[{BAD}]", INVALID): 1}, {(f"{_D}[0].attributes", INVALID): 1}),
    # Same verdict in both: the TooMany check before validateMap's loop, and the 64-device limit.
    Case("too-many-counters-in-counter-set",
         _counter_slice({f"memory-{i}": {"value": "1Gi"} for i in range(33)}),
         {("spec.sharedCounters[0].counters", TOO_MANY): 1}, {("spec.sharedCounters[0].counters", TOO_MANY): 1}),
    Case("too-many-counters-in-device-counter-consumption",
         slice_({"name": "device-0", "consumesCounters": [
             {"counterSet": "counterset-0", "counters": {f"memory-{i}": {"value": "1Gi"} for i in range(33)}}]}),
         {(f"{_D}[0].consumesCounters[0].counters", TOO_MANY): 1},
         {(f"{_D}[0].consumesCounters[0].counters", TOO_MANY): 1}),
    Case("too-many-devices-with-consumes-counters",
         slice_(*[_device(i, **({"consumesCounters": [{"counterSet": "counterset-0",
                                                       "counters": {"memory": {"value": "1Gi"}}}]} if i == 0 else {}))
                  for i in range(65)]),
         {(_D, TOO_MANY): 1}, {(_D, TOO_MANY): 1}),
    Case("too-large-taints",
         slice_(*[_device(i, taints=[{"key": "example.com/taint", "effect": "NoExecute"}]) for i in range(65)]),
         {(_D, TOO_MANY): 1}, {(_D, TOO_MANY): 1}),
    # Derived: the same validateMap for capacity (96) and consumed counters (63, shortened).
    Case("bad-capacity-key",
         slice_(_device(0, capacity={"bad key": {"value": "1"}})),
         {(f"{_D}[0].capacity[bad key]", INVALID): 1},
         {(f"{_D}[0].capacity", INVALID): 1}),
    Case("bad-countername-consumes-counters",
         slice_(_device(0, consumesCounters=[{"counterSet": "set", "counters": {_LONG_COUNTER: {"value": "1"}}}])),
         {(f"{_D}[0].consumesCounters[0].counters[{_LONG_COUNTER_SHORT}]", INVALID): 2},
         {(f"{_D}[0].consumesCounters[0].counters", INVALID): 2}),
    # Derived: 1.35 has no list-type attributes; the API server drops them as unknown fields.
    Case("list-attribute-is-an-unknown-field",
         slice_(_device(0, attributes={"cores": {"ints": [1, 2]}})),
         {(f"{_D}[0].attributes[cores]", INVALID): 1}, {},
         warnings_135=[f'unknown field "{_D}[0].attributes.cores.ints"']),
    Case("list-attribute-next-to-a-scalar",  # 1.35 sees the scalar only; 1.36 two values
         slice_(_device(0, attributes={"cores": {"int": 1, "ints": [1, 2]}})),
         {}, {(f"{_D}[0].attributes[cores]", INVALID): 1},
         warnings_135=[f'unknown field "{_D}[0].attributes.cores.ints"']),
    # RS-14: list attributes lower the device limit to 64 only where they exist.
    Case("list-attributes-do-not-lower-the-device-limit",
         slice_(*[{"name": f"d-{i}", "attributes": {"a": {"int": 1, "ints": [1]}}} for i in range(65)]),
         {}, {(_D, TOO_MANY): 1},
         warnings_135=[f'unknown field "{_D}[0].attributes.a.ints"']),
    # RD-03 (48 attribute values) came with list attributes.
    Case("attribute-values-limit",
         slice_({"name": "d", "attributes": {f"a{i}": {"int": i} for i in range(49)}}),
         {(f"{_D}[0]", INVALID): 1}, {(f"{_D}[0]", INVALID): 2}),
    # RD-29..RD-33: no nodeAllocatableResourceMappings in 1.35.
    Case("node-allocatable-resource-mappings-are-unknown",
         slice_({"name": "d", "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "missing"}}}),
         {}, {(f"{_D}[0].nodeAllocatableResourceMappings[memory].capacityKey", NOT_FOUND): 1},
         warnings_135=[f'unknown field "{_D}[0].nodeAllocatableResourceMappings"']),
    # CEL: attribute values are `any` in 1.35 (no includes(), no comprehension over them).
    Case("cel-includes",
         claim(exact(selectors=[{"cel": {"expression": 'device.attributes["gpu.example.com"].cores.includes(1)'}}])),
         {("spec.devices.requests[0].exactly.selectors[0].cel.expression", INVALID): 1}, {}),
    Case("cel-comprehension-over-an-attribute",
         claim(exact(selectors=[{"cel": {"expression":
                                         'device.attributes["gpu.example.com"].cores.exists(c, c > 1)'}}])),
         {("spec.devices.requests[0].exactly.selectors[0].cel.expression", INVALID): 1}, {}),
    Case("cel-attribute-as-a-number",
         claim(exact(selectors=[{"cel": {"expression": 'device.attributes["gpu.example.com"].cores * 2 > 1'}}])),
         {}, {}),
    # CEL: Kubernetes' lists library has <list(A)>.indexOf(A) / lastIndexOf(A) next to the strings extension's.
    *[Case(f"cel-list-{name}", claim(exact(selectors=[{"cel": {"expression": expression}}])), want, want)
      for name, expression, want in (
          ("index-of", "[1, 2].indexOf(2) == 1 && [1, 2].lastIndexOf(1) == 0", {}),
          ("index-of-on-a-string", 'device.driver.indexOf("a") >= 0 && "abc".lastIndexOf("c", 1) == -1', {}),
          ("index-of-a-dyn-list", "dyn([1]).indexOf(1) == 0 && [dyn(1)].lastIndexOf('a') == -1", {}),
          ("index-of-another-type", '["a"].indexOf(1) == 0', {(_CEL, INVALID): 1}),
          ("index-of-int-in-doubles", "[1.0].lastIndexOf(1) == 0", {(_CEL, INVALID): 1}),
          # The element of a list built around an attribute has no size limit: its strings cost too much.
          ("index-of-an-unbounded-element", '["a", device.driver].indexOf("b") == 0', {(_CEL, FORBIDDEN): 1}),
          # cel-go types flatten() as list(list(T)) -> list(T).
          ("flatten-keeps-the-element-type", '[[1]].flatten()[0] == "a"', {(_CEL, INVALID): 1}),
          ("flatten-of-a-flat-list", "[1].flatten() == [1]", {(_CEL, INVALID): 1}),
          ("flatten-of-strings-and-ints", ('sets.intersects([["a"], [device.driver]].flatten(), '
                                           '["b"].transformMap(i, v, v.size()).map(k, k))'), {(_CEL, INVALID): 1}),
          ("flatten-and-list-functions", ("[[2, 1]].flatten().sort() == [1, 2] && [[2]].flatten().distinct() == [2] && "
                                          "[[2, 1]].flatten().slice(0, 1) == [2] && [[1]].flatten().indexOf(1) == 0"),
           {}),
          # sortBy keeps the compiler's own lists extension (list(dyn)): the same verdict when well typed.
          ("flatten-and-sort-by", "[[2, 1]].flatten().sortBy(x, -x) == [2, 1]", {}),
          ("flatten-of-dyn-lists", "dyn([[1]]).flatten()[0] == 'a' && [[1]].flatten(1)[0] == 'a'", {}),
      )],
    # CEL: the strings extension checks format calls on a literal with a list literal (cel-go's validator).
    *[Case(f"cel-format-{name}", claim(exact(selectors=[{"cel": {"expression": expression}}])), want, want)
      for name, expression, want in (
          ("clauses", '"%s-%d %.2f %x %%".format(["a", 1u, 2.0, b"c"]) != ""', {}),
          ("too-many-arguments", '"%s".format([1, 2]) != ""', {(_CEL, INVALID): 1}),
          ("a-decimal-string", '"%d".format(["a"]) != ""', {(_CEL, INVALID): 1}),
      )],
    # Costs at the limit: the largest range that fits, and one more (upstream's estimators, to the unit).
    *[Case(f"cel-cost-limit-{name}-{n + extra}",
           claim(exact(selectors=[{"cel": {"expression": template.format(n=n + extra)}}])), want, want)
      for name, template, n in (
          ("list-index-of", "lists.range({n}).all(i, [1, 2, 3].indexOf(i) < 5)", 52630),
          ("flatten-last-index-of", "[lists.range({n})].flatten().lastIndexOf(7) > 0", 999965),
          ("list-functions", "lists.range({n}).sort().reverse().distinct().slice(0, 2).indexOf(1) == 1", 26),
          ("string-last-index-of", 'lists.range({n}).all(i, device.driver.lastIndexOf("b") < 1000)', 71427),
          ("format", 'lists.range({n}).all(i, "%d-%s".format([i, device.driver]) != "")', 55554),
      )
      for extra, want in ((0, {}), (1, {(_CEL, FORBIDDEN): 1}))],
    # An attribute value is `any` (no clause formats it) unless list-type attributes make it dyn (1.36 here).
    Case("cel-format-an-attribute-as-a-string",
         claim(exact(selectors=[{"cel": {"expression":
                                         '"%s".format([device.attributes["gpu.example.com"].model]) != ""'}}])),
         {(_CEL, INVALID): 1}, {}),
]


def cases_by_id() -> list:
    import pytest

    return [pytest.param(case, id=case.name) for case in CASES]
