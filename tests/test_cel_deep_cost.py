"""cel-go's cost for selectors nested too deep for the faithful engine (issue 21 item 9).

The deep path (`deepcost`) must never exceed cel-go's estimate: a differential check against the
faithful engine's full estimate on nests shallow enough for it, then deep nests over the ranges
Kubernetes sizes (`device.attributes`, `device.capacity`, an attribute domain).
"""

from __future__ import annotations

import random

import pytest
from support import require_faithful_cel  # noqa: E402

require_faithful_cel()

from webhook import cel  # noqa: E402
from webhook.cel import compiler, deepcost, depth, grammar  # noqa: E402
from webhook.cel.environment import get_environment  # noqa: E402
from webhook.field import Path  # noqa: E402

PATH = Path("spec").child("devices", "requests").index(0).child("exactly", "selectors").index(0)
PATH = PATH.child("cel", "expression")

FORBIDDEN = f"{PATH}: Forbidden: too complex, exceeds cost limit"


def reasons(expression: str) -> list[tuple[str, str]]:
    return [e.key for e in cel.validate_cel_selector(expression, PATH)]


def deep_bound(expression: str, parts: bool = True) -> int:
    """The deep path's bound, whatever the expression's depth (the faithful engine sizes ranges)."""
    env = get_environment(False, cel.Features())
    part_cost = (lambda text: compiler._part_cost(text, env)) if parts else None
    return deepcost.lower_bound(grammar.parse(expression), part_cost,
                                lambda text: compiler._range_size(text, env))


def deep_verdict(expression: str):
    """The deep path's verdict, whatever the expression's depth: every callback is the real one."""
    env = get_environment(False, cel.Features())
    return depth.check_deep_expression(
        expression, lambda text: compiler._verdict(text, env, rerender=False), False,
        lambda text: compiler._part_cost(text, env), lambda text: compiler._range_size(text, env),
        lambda text: compiler._verdict(text, env, rerender=False, deep=False))


# --- a seeded generator of well-typed nests

_CLOSED_RANGES = ["device.attributes", "device.capacity", 'device.attributes["dom.example"]',
                  'device.capacity["dom.example"]', "[1, 2, 3]", '{"a": 1, "b": 2}', "[1, 2].map(z, z * 2)",
                  "[1, 2, 3, 4].filter(z, z > 1)", "device.attributes.dom"]


def _nest(rng: random.Random, levels: int) -> str:
    """`levels` comprehensions and binds; ranges may use an enclosing map key (`device.attributes[k]`)."""
    domain_keys: list[str] = []  # variables over device.attributes: domain names
    parts = []  # (head, tail) pairs, outermost first
    for level in range(levels):
        var = f"v{level}"
        choice = rng.random()
        if choice < 0.15:
            parts.append((f"cel.bind({var}, [1, 2], ", ")"))
            continue
        if domain_keys and choice < 0.4:
            source = f"device.attributes[{rng.choice(domain_keys)}]"
        else:
            source = rng.choice(_CLOSED_RANGES)
        if source == "device.attributes":
            domain_keys.append(var)
        macro = rng.choice(["all", "exists", "exists_one"])
        extra = rng.choice(["", ' && device.driver.startsWith("a")', " || 1 + 2 == 3"])
        parts.append((f"{source}.{macro}({var}, (", f"){extra})"))
    body = rng.choice(["true", 'device.driver == "x"', "size(device.attributes) > 1"])
    return "".join(h for h, _ in parts) + body + "".join(t for _, t in reversed(parts))


def test_deep_path_never_exceeds_the_faithful_estimate():
    rng = random.Random(21)
    compared = tight = 0
    for _ in range(60):
        expression = _nest(rng, rng.randint(1, 5))
        verdict = compiler.check(expression)
        assert verdict.outcome in ("ok", "forbidden"), (expression, verdict)
        assert deep_bound(expression, parts=False) <= verdict.cost, expression  # the rules alone
        bound = deep_bound(expression)  # with closed parts costed by the faithful engine
        assert bound <= verdict.cost, expression
        compared += 1
        tight += bound * 2 >= verdict.cost  # within a factor of two
    assert compared == 60 and tight == 60


def _int_term(rng: random.Random, depth_left: int) -> str:
    """An int expression: sums, products, ternaries, sizes of device maps and strings, comprehensions."""
    if depth_left == 0:
        return rng.choice(["1", "size(device.attributes)", 'size(device.driver)', '"abc".size()',
                           '(device.driver.matches("^[a-z]+$") ? 1 : 2)'])
    a, b = _int_term(rng, depth_left - 1), _int_term(rng, depth_left - 1)
    return rng.choice([f"{a} + {b}", f"{a} * {b}", f"({a} - {b})", f"(device.driver == \"x\" ? {a} : {b})",
                       f"({a} > {b} ? {b} : {a})", f"size([{a}, {b}])",
                       f"device.attributes.filter(k, {a} > 1).size() + {b}",
                       f"[1, 2, 3].map(x, x + {a}).size()", f"cel.bind(n, {a}, n + {b})"])


def _selector(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.4:
        return _nest(rng, rng.randint(1, 4))
    terms = [f"{_int_term(rng, rng.randint(0, 3))} {rng.choice(['>', '==', '<='])} {rng.randint(0, 9)}"
             for _ in range(rng.randint(1, 3))]
    if shape < 0.6:
        terms.append(_nest(rng, rng.randint(1, 3)))
    if shape > 0.9:
        terms.append('"a" + 1 == 2')  # ill-typed
    return rng.choice([" && ", " || "]).join(terms)


def _complete_agreements(rng: random.Random, rounds: int) -> int:
    """Random selectors through the deep path and the faithful engine: a complete check (no warning) gives
    the verdict and, when allowed, cel-go's estimate exactly; otherwise it never refuses what the faithful
    engine allows. Returns how many checks were complete."""
    complete = 0
    for _ in range(rounds):
        expression = _selector(rng)
        faithful, deep = compiler.check(expression), deep_verdict(expression)
        if deep.warning:
            assert deep.outcome == "ok" or faithful.outcome == "forbidden", expression
            continue
        complete += 1
        assert deep.outcome == faithful.outcome, (expression, deep, faithful)
        if deep.outcome == "ok":
            assert deep.cost == faithful.cost, (expression, deep, faithful)
        elif deep.outcome == "forbidden":  # refused by the bound, or by the whole estimate
            assert deep.cost <= faithful.cost, (expression, deep, faithful)
    return complete


def test_the_deep_path_agrees_with_the_faithful_engine_where_both_apply():
    # Shallow selectors through the deep path: a complete check (no warning) gives the verdict and,
    # when allowed, cel-go's estimate exactly; otherwise it never refuses what the faithful engine allows.
    assert _complete_agreements(random.Random(2109), 150) >= 100


class _Mixed:
    """Typed expressions over every construct a part may meet: has(), optionals, messages, unary
    operators on numbers of each type, ternaries, binds, macros, capacity quantities."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bool(self, d: int) -> str:
        r = self.rng
        if d <= 0:
            return r.choice(['has(device.attributes.x)', 'device.attributes[?"dom"].hasValue()', "!true", "true",
                             "(-1.5 < 0.0)", "(2u > 1u)", 'device.driver.startsWith("a")', "null == null",
                             "device.allowMultipleAllocations", "google.protobuf.Int64Value{value: 1} == 1",
                             'device.capacity["d"]["c"].isGreaterThan(quantity("1"))'])
        x, y = self.bool(d - 1), self.bool(d - 1)
        return r.choice([f"({x} && {y})", f"({x} || {y})", f"!({x})", f"({x} ? {y} : false)",
                         f"[1, 2].exists(v, v > 0 && {x})", f"cel.bind(z, {self.int(d - 1)}, z > 0 && {x})",
                         f"{self.int(d - 1)} > {self.int(d - 1)}", f"({self.double(d - 1)} < 1.0)",
                         f"[{x}, {y}].all(q, q)", f"device.attributes.exists(k, {x})", f"({x}) == ({y})"])

    def int(self, d: int) -> str:
        r = self.rng
        if d <= 0:
            return r.choice(["1", "-1", "size(device.attributes)", "int(2u)", "dyn(3)"])
        return r.choice([f"({self.int(d - 1)} + {self.int(d - 1)})", f"-({self.int(d - 1)})",
                         f"int({self.double(d - 1)})", f"({self.bool(d - 1)} ? {self.int(d - 1)} : 0)",
                         f"[1, 2].map(w, w + {self.int(d - 1)}).size()", f"({self.int(d - 1)} % 3)"])

    def double(self, d: int) -> str:
        if d <= 0:
            return self.rng.choice(["1.5", "-2.0", "double(1)"])
        return self.rng.choice([f"({self.double(d - 1)} * {self.double(d - 1)})", f"-({self.double(d - 1)})",
                                f"double({self.int(d - 1)})"])


@pytest.mark.parametrize("engine_depth", [2, 4])
def test_mixed_constructs_agree_with_the_faithful_engine(monkeypatch, engine_depth):
    # `-part` written as `-0` would read as a literal and lose the negation's cost: found by this test
    monkeypatch.setattr(deepcost, "ENGINE_DEPTH", engine_depth)
    mixed = _Mixed(random.Random(engine_depth))
    complete = 0
    for _ in range(120):
        expression = mixed.bool(mixed.rng.randint(1, 4))
        faithful, deep = compiler.check(expression), deep_verdict(expression)
        if deep.warning:
            assert deep.outcome == "ok" or faithful.outcome == "forbidden", expression
            continue
        complete += 1
        assert (deep.outcome, deep.cost) == (faithful.outcome, faithful.cost), expression
    assert complete >= 20


@pytest.mark.parametrize("engine_depth", [2, 4, 6])
def test_rounds_and_climbs_agree_with_the_faithful_engine(monkeypatch, engine_depth):
    # Pretending the engine parses fewer levels makes shallow selectors take every step of the deep
    # path (parts written as literals, climbs up the highest path, rounds), where the whole can still
    # be checked by the engine.
    monkeypatch.setattr(deepcost, "ENGINE_DEPTH", engine_depth)
    assert _complete_agreements(random.Random(engine_depth), 80) >= 8


def _tree(levels: int) -> str:
    return '1 + "a"' if levels == 0 else f"[{_tree(levels - 1)}, {_tree(levels - 1)}]"


@pytest.mark.parametrize("name, expression, outcome", [
    ("nest", "device.attributes.all(a, " * 240 + "true" + ")" * 240, "forbidden"),
    ("chain", " + ".join(f'size(device.attributes["dom{i}"])' for i in range(240)) + " > 0", "ok"),
    ("calls", "int(" * 240 + "1" + ")" * 240 + " == 1", "ok"),
    ("ill-typed beside a chain", f"size({_tree(9)}) > 0 && 1" + " + 1" * 200 + " == 201", "invalid"),
])
def test_maximal_deep_selectors_are_checked_quickly(name, expression, outcome):
    # up to 10 KiB, up to cel-go's 250 levels: every check, in well under a second (0.2 s here)
    import time

    expression = expression + " " * (10240 - len(expression))
    started = time.monotonic()
    verdict = compiler.check(expression)
    assert time.monotonic() - started < 3
    assert (verdict.outcome, verdict.warning) == (outcome, "")


def test_a_range_of_unknown_size_saturates_as_in_cel_go():
    # a domain selected as a field has no size in Kubernetes' estimator: cel-go's bound is the maximum
    assert compiler.check("device.attributes.dom.all(a, true)").outcome == "forbidden"
    assert reasons("device.attributes.dom.all(a, " * 40 + "true" + ")" * 40) == [(str(PATH), "FieldValueForbidden")]


@pytest.mark.parametrize("source", ["device.attributes", "device.capacity", 'device.attributes["dom.example"]'])
def test_deep_nests_over_device_maps_are_forbidden(source):
    # 32 entries per level: 32^40 iterations; the old bound counted these ranges as empty
    expression = f"{source}.all(a, " * 40 + "true" + ")" * 40
    [error] = cel.validate_cel_selector(expression, PATH)
    assert str(error) == FORBIDDEN


def test_a_range_sized_with_its_declaring_comprehension():
    # device.attributes[d] is a domain's map (32 entries) because d ranges over the domains
    ones = "[1].all(y, " * 30
    inner = "device.attributes[d].all(z, device.attributes[d].all(w, true))"
    expression = f"device.attributes.all(d, device.attributes[d].all(k, {ones}{inner}{')' * 30}))"
    assert reasons(expression) == [(str(PATH), "FieldValueForbidden")]  # 32^5 iterations
    with cel.collect_warnings() as warnings:
        allowed = f"device.attributes.all(d, {ones}device.attributes[d].all(k, true){')' * 30})"
        assert reasons(allowed) == []  # 32 x 32 iterations: allowed, the range sizes known
    assert warnings and "type and cost checks were skipped" in warnings[0]


def test_literals_and_identifiers_count_in_the_deep_bound():
    # 32 x 32 iterations of 100 levels over `[1]`: each level costs its list (10), its accumulator and `y`
    ones = "[1].all(y, " * 100
    expression = f"device.attributes.all(d, device.attributes[d].all(k, {ones}y == 1{')' * 100}))"
    assert deep_bound(expression) > compiler.SELECTOR_EXPRESSION_MAX_COST
    assert reasons(expression) == [(str(PATH), "FieldValueForbidden")]
    assert reasons(f"device.attributes.all(d, device.attributes[d].all(k, {'[1].all(y, ' * 50}y == 1{')' * 52}") == []


def test_list_attribute_ranges_are_sized_with_list_type_attributes():
    # DRAListTypeAttributes: an attribute value may be a list of up to 64 (the value bound): 64^4 x 40 levels
    features = cel.Features(list_type_attributes=True)
    values = 'device.attributes["dom.example"]["list"]'
    nest = "".join(f"{values}.all({v}, " for v in "abcd") + "[1].all(y, " * 40 + "true" + ")" * 44
    [error] = cel.validate_cel_selector(nest, PATH, features=features)
    assert str(error) == FORBIDDEN
    allowed = f"{values}.all(a, " + "[1].all(y, " * 40 + "true" + ")" * 41
    assert cel.validate_cel_selector(allowed, PATH, features=features) == []
