"""A deterministic generator of DRA selector expressions over `device`, for differential checks.

Typed productions (bool, int, string, quantity, lists, maps) yield mostly well-typed expressions that
reach every part of the cost estimator: attribute and capacity paths, index and select, literals of
every kind, operators, string and list functions, the Kubernetes libraries, macros, binds, two-variable
comprehensions, optionals, sets and lists extensions. A share of deliberately ill-typed or odd forms
reaches the compiler's and the validators' error paths. Same seed, same expressions.
"""

from __future__ import annotations

import random

DOMAINS = ("dra.example.com", "gpu.example.com", "x.y")
NAMES = ("model", "index", "name", "memory", "cores", "a")


class Generator:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def pick(self, *options):
        return self.r.choice(options)

    # --- leaves

    def attribute(self) -> str:
        d, n = self.pick(*DOMAINS), self.pick(*NAMES)
        return self.pick(f'device.attributes["{d}"].{n}', f'device.attributes["{d}"]["{n}"]')

    def capacity(self) -> str:
        d, n = self.pick(*DOMAINS), self.pick(*NAMES)
        return self.pick(f'device.capacity["{d}"].{n}', f'device.capacity["{d}"]["{n}"]')

    def string_literal(self) -> str:
        return '"' + "x" * self.r.randrange(0, 40) + '"'

    def int_literal(self) -> str:
        return str(self.r.randrange(-5, 300))

    # --- typed productions

    def bool_(self, depth: int) -> str:
        if depth <= 0:
            return self.pick("true", "false", f"{self.attribute()} == {self.string_literal()}",
                             f"has({self.attribute()})", f'"{self.pick(*DOMAINS)}" in device.attributes')
        d = depth - 1
        choice = self.r.randrange(24)
        if choice == 0:
            return f"{self.bool_(d)} && {self.bool_(d)}"
        if choice == 1:
            return f"({self.bool_(d)} || {self.bool_(d)})"
        if choice == 2:
            return f"!{self.bool_(d)}"
        if choice == 3:
            return f"{self.string(d)} {self.pick('==', '!=', '<', '>=')} {self.string(d)}"
        if choice == 4:
            return f"{self.int_(d)} {self.pick('==', '!=', '<', '<=', '>', '>=')} {self.int_(d)}"
        if choice == 5:
            return f"{self.string(d)}.{self.pick('startsWith', 'endsWith', 'contains', 'matches')}({self.string(d)})"
        if choice == 6:
            return f'{self.string(d)}.matches("{self.pick("^a+$", "[a-z", "(x|y)*", "a{2,3}")}")'
        if choice == 7:
            return f"{self.quantity(d)}.{self.pick('isGreaterThan', 'isLessThan')}({self.quantity(d)})"
        if choice == 8:
            return f"{self.quantity(d)} == {self.quantity(d)}"
        if choice == 9:
            var = self.pick("x", "y", "v")
            return f"{self.list_(d)}.{self.pick('exists', 'all', 'exists_one')}({var}, {var} == {self.string(0)})"
        if choice == 10:
            return f"{self.attribute()}.{self.pick('exists', 'all')}(x, x {self.pick('== 1', '> 0', '== true')})"
        if choice == 11:
            return f"cel.bind(v, {self.string(d)}, v == {self.string(d)} || v.size() > {self.int_literal()})"
        if choice == 12:
            return f"{self.string(d)} in {self.list_(d)}"
        if choice == 13:
            return f"sets.{self.pick('contains', 'intersects', 'equivalent')}({self.list_(d)}, {self.list_(d)})"
        if choice == 14:
            return f"{self.bool_(d)} ? {self.bool_(d)} : {self.bool_(d)}"
        if choice == 15:
            return f'{self.attribute()}.includes({self.pick(self.string_literal(), "1", "true")})'
        if choice == 16:
            return f'isQuantity({self.string(d)}) && isSemver("1.2.3")'
        if choice == 17:
            return f'duration("{self.pick("1h", "10s", "bad", "1.5m", "-2us")}") < duration("2h")'
        if choice == 18:
            return f'timestamp("{self.pick("2024-01-01T00:00:00Z", "nope", "2024-13-01T00:00:00Z")}") != timestamp(0)'
        if choice == 19:
            return f"{self.map_(d)}.exists(k, v, k == {self.string(0)} && v > 0)"
        if choice == 20:
            return f"{self.list_(d)}.all(i, v, i < {self.int_literal()} || v == {self.string(0)})"
        if choice == 21:
            return f"device.allowMultipleAllocations == {self.pick('true', 'false')}"
        if choice == 22:
            return f'semver("1.0.0").isLessThan(semver("{self.pick("2.0.0", "1.2")}"))'
        operator = f"{self.attribute()} {self.pick('==', '>', '!=')}"
        return f"{operator} {self.pick(self.int_literal(), self.string_literal(), 'true')}"

    def int_(self, depth: int) -> str:
        if depth <= 0:
            return self.pick(self.int_literal(), f"{self.string(0)}.size()", "device.attributes.size()")
        d = depth - 1
        choice = self.r.randrange(9)
        if choice == 0:
            return f"{self.int_(d)} {self.pick('+', '-', '*', '/', '%')} {self.int_(d)}"
        if choice == 1:
            return f"{self.list_(d)}.size()"
        if choice == 2:
            return f"size({self.string(d)})"
        if choice == 3:
            return f"{self.quantity(d)}.compareTo({self.quantity(d)})"
        if choice == 4:
            return f"int({self.attribute()})"
        if choice == 5:
            return f"{self.list_(d)}.map(x, x.size()).{self.pick('sum()', 'max()', 'min()', 'size()')}"
        if choice == 6:
            return f"{self.list_(d)}.indexOf({self.string(0)})"
        if choice == 7:
            return f"{self.quantity(d)}.asInteger()"
        return f"{self.string(d)}.{self.pick('indexOf', 'lastIndexOf')}({self.string(0)})"

    def string(self, depth: int) -> str:
        if depth <= 0:
            return self.pick(self.string_literal(), "device.driver", self.attribute())
        d = depth - 1
        choice = self.r.randrange(10)
        if choice == 0:
            return f"{self.string(d)} + {self.string(d)}"
        if choice == 1:
            return f"{self.string(d)}.{self.pick('lowerAscii()', 'upperAscii()', 'trim()')}"
        if choice == 2:
            return f"{self.string(d)}.replace({self.string(0)}, {self.string(0)})"
        if choice == 3:
            return f"{self.string(d)}.substring({self.int_literal()})"
        if choice == 4:
            return f"{self.list_(d)}.join({self.pick('', self.string_literal())})"
        if choice == 5:
            return f"string({self.attribute()})"
        if choice == 6:
            return f'"%s-%d".format([{self.string(d)}, {self.int_(d)}])'
        if choice == 7:
            return f"{self.list_(d)}[{self.int_literal()}]"
        if choice == 8:
            return f"{self.string(d)}.find({self.string_literal()})"
        return f"{self.bool_(d)} ? {self.string(d)} : {self.string(d)}"

    def quantity(self, depth: int) -> str:
        if depth <= 0 or self.r.random() < 0.5:
            return self.pick(self.capacity(), f'quantity("{self.pick("1", "64Gi", "100m", "bad")}")')
        d = depth - 1
        return self.pick(f"{self.quantity(d)}.add({self.quantity(d)})", f"{self.quantity(d)}.sub({self.int_literal()})")

    def list_(self, depth: int) -> str:
        if depth <= 0:
            return self.pick("[]", f"[{self.string_literal()}]", f"[{self.string_literal()}, {self.string_literal()}]",
                             f"{self.string(0)}.split({self.string_literal()})")
        d = depth - 1
        choice = self.r.randrange(11)
        if choice == 0:
            return f"[{', '.join(self.string(d) for _ in range(self.r.randrange(1, 4)))}]"
        if choice == 1:
            return f"{self.list_(d)} + {self.list_(d)}"
        if choice == 2:
            return f"{self.list_(d)}.filter(x, x != {self.string(0)})"
        if choice == 3:
            return f"{self.list_(d)}.map(x, x + {self.string(0)})"
        if choice == 4:
            return f"{self.list_(d)}.{self.pick('sort()', 'distinct()', 'reverse()')}"
        if choice == 5:
            return f"{self.list_(d)}.slice(0, {self.pick('0', '1')})"
        if choice == 6:
            return f"{self.string(d)}.split({self.string(0)}, {self.int_literal()})"
        if choice == 7:
            return f"lists.range({self.pick('3', '10', '0')}).map(i, string(i))"
        if choice == 8:
            return f"[[{self.string(0)}], [{self.string(0)}]].flatten()"
        if choice == 9:
            return f"{self.map_(d)}.map(k, k)"
        return f"{self.bool_(d)} ? {self.list_(d)} : {self.list_(d)}"

    def map_(self, depth: int) -> str:
        if depth <= 0 or self.r.random() < 0.5:
            return self.pick(f"{{{self.string_literal()}: 1}}",
                             f"{{{self.string_literal()}: 1, {self.string_literal()}: 2}}",
                             "{}")
        return f"{self.list_(depth - 1)}.transformMap(i, v, v.size())"

    def simple(self, depth: int) -> str:
        """Only literals, `device`, selections, indexing, presence tests and operators (the common shapes)."""
        if depth <= 0:
            return self.pick(
                f"{self.attribute()} {self.pick('==', '!=')} "
                f"{self.pick(self.string_literal(), self.int_literal(), 'true', '1u', '2.5')}",
                f"{self.attribute()} {self.pick('<', '<=', '>', '>=')} "
                f"{self.pick(self.int_literal(), '1.5', self.string_literal())}",
                f"device.driver {self.pick('==', '!=', '<', '>=')} {self.string_literal()}",
                f"has({self.attribute()})", f"has(device.{self.pick('attributes', 'capacity', 'driver')})",
                f'"{self.pick(*DOMAINS)}" in device.{self.pick("attributes", "capacity")}',
                f'"{self.pick(*NAMES)}" in device.attributes["{self.pick(*DOMAINS)}"]',
                f"{self.attribute()} + {self.int_literal()} {self.pick('>', '==')} {self.attribute()} * 2",
                f"{self.attribute()} == {self.attribute()}", f"{self.capacity()} == {self.capacity()}",
                f"device.attributes[{self.string_literal()}][device.driver] == {self.string_literal()}",
                "device.allowMultipleAllocations", f"{self.capacity()} != {self.capacity()}",
                f"-{self.attribute()} < {self.int_literal()}", f"{self.attribute()} % 2 == 0",
                f"{self.attribute()}",
            )
        d = depth - 1
        return self.pick(f"{self.simple(d)} && {self.simple(d)}", f"({self.simple(d)} || {self.simple(d)})",
                         f"!({self.simple(d)})", f"{self.simple(d)} == {self.simple(d)}")

    def odd(self) -> str:
        """Ill-typed or unusual forms: heterogeneous literals, non-bool results, optionals, bad calls."""
        return self.pick(
            f"[1, {self.string_literal()}].size() > 0",
            f'{{"a": 1, 2: "b"}}.size() > 0',
            f"{self.int_(1)}",
            f"{self.string(1)}",
            f"{self.capacity()}",
            f"{self.attribute()}",
            f"{self.attribute()}.size()",
            f'device.attributes[?"{self.pick(*DOMAINS)}"].hasValue()',
            f'device.attributes["{self.pick(*DOMAINS)}"].?{self.pick(*NAMES)}.orValue(0) == 1',
            f"dyn({self.attribute()}) == 1",
            f"{self.attribute()}.noSuchFunction()",
            "device.nope == 1",
            'device.attributes.all(d, device.attributes[d].size() > 0)',
            'device.capacity.exists(d, device.capacity[d].exists(n, '
            'device.capacity[d][n].isGreaterThan(quantity("1"))))',
            'has(device.capacity)',
            f'{self.list_(2)}.sortBy(x, x.size()).size() > 0',
            f'device.attributes["{self.pick(*DOMAINS)}"].{self.pick(*NAMES)}.map(x, x).size() > 0',
            self.attribute() + " == " + self.pick("1u", "2.5", "-0.0", 'b"ab"', "null", "-9223372036854775808",
                                                  "18446744073709551615u", "1e300"),
            f"{self.attribute()} {self.pick('<', '>=')} {self.pick('3u', '2.5', '-7', '1.0e-3')}",
            f"[1u, 2u] == [{self.pick('1u', '1')}, 2u]",
            '{1: b"x", 2: b"\\xff"}[' + self.pick("1", "2") + '] != b""',
            f"{self.attribute()} == {self.string_literal()} && {self.attribute()} != {self.string_literal()}",
            f'"{"é" * self.r.randrange(1, 5)}" == device.driver',
            f"{self.attribute()} == {self.attribute()}",
            f"{self.capacity()} == {self.capacity()} || {self.capacity()} != {self.capacity()}",
        )


def expressions(count: int, seed: int = 12) -> list[str]:
    """`count` distinct expressions (the generator repeats itself now and then; repeats are skipped)."""
    g = Generator(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        draw = g.r.random()
        if draw < 0.12:
            expression = g.odd()
        elif draw < 0.45:
            expression = g.simple(g.r.randrange(0, 4))
        else:
            expression = g.bool_(g.r.randrange(0, 4))
        seen.setdefault(expression)
    return list(seen)


# --- type joins: where attribute values (`any` without list-type attributes) meet `dyn` and other types

_JOIN_LEAVES = ('device.attributes["dra.example.com"].isGPU', 'device.attributes["dra.example.com"]["isGPU"]',
                'device.attributes["dra.example.com"].model', 'device.attributes["dra.example.com"].cores',
                "dyn(1)", "dyn(true)", "true", "false", "1", '"s"')


def _join(r: random.Random, shape: tuple, depth: int) -> str:
    """An expression of `shape` ("s": a value, ("l", s): a list of s, ("m", s): a map to s) built from
    the constructs whose result types cel-go joins: conditionals, list and map literals, indexes,
    selections, dyn(), binds, map and filter macros, optionals."""
    kind, draw = shape[0], r.random()
    if kind == "s":
        if depth <= 0 or draw < 0.3:
            return r.choice(_JOIN_LEAVES)
        forms = ((0.45, lambda: f"(true ? {_join(r, shape, depth - 1)} : {_join(r, shape, depth - 1)})"),
                 (0.58, lambda: f"{_join(r, ('l', shape), depth - 1)}[0]"),
                 (0.66, lambda: f'{_join(r, ("m", shape), depth - 1)}["a"]'),
                 (0.72, lambda: f"{_join(r, ('m', shape), depth - 1)}.a"),
                 (0.78, lambda: f"cel.bind(v, {_join(r, shape, depth - 1)}, v)"),
                 (0.84, lambda: f"{_join(r, ('l', shape), depth - 1)}.map(y, y)[0]"),
                 (0.88, lambda: f"optional.of({_join(r, shape, depth - 1)}).value()"),
                 (0.92, lambda: f"{_join(r, ('l', shape), depth - 1)}[?0].orValue({_join(r, shape, depth - 1)})"),
                 (0.96, lambda: f"{_join(r, ('l', shape), depth - 1)}.filter(y, true)[0]"),
                 (1.0, lambda: f"dyn({_join(r, shape, depth - 1)})"))
        return next(form for limit, form in forms if draw < limit)()
    if depth <= 0 or draw < 0.4:
        if kind == "l":
            return "[" + ", ".join(_join(r, shape[1], depth - 1) for _ in range(r.choice((1, 1, 2, 2, 3)))) + "]"
        keys = ("a",) if r.random() < 0.5 else ("a", "b")
        return "{" + ", ".join(f'"{k}": {_join(r, shape[1], depth - 1)}' for k in keys) + "}"
    if draw < 0.7:
        return f"(true ? {_join(r, shape, depth - 1)} : {_join(r, shape, depth - 1)})"
    if draw < 0.8 or kind == "m":
        return f"dyn({_join(r, shape, depth - 1)})"
    if draw < 0.9:
        return f"{_join(r, shape, depth - 1)}.map(z, z)"
    return f"{_join(r, ('l', shape), depth - 1)}[0]"


def joins(count: int, seed: int = 12) -> list[str]:
    """`count` distinct expressions of joined types (a value, sometimes compared with `true`)."""
    r = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        expression = _join(r, ("s",), r.choice((2, 3, 4)))
        seen.setdefault(f"{expression} == true" if r.random() < 0.2 else expression)
    return list(seen)
