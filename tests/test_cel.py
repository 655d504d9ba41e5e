"""CEL selector checks: the public API, length limits, result types, engines, hostile inputs, budget."""

from __future__ import annotations


import pytest

from heavy import chain
from webhook import cel
from webhook.cel import engines
from webhook.field import Path

PATH = Path("spec").child("selectors").index(0).child("cel", "expression")
HAS_CEL_EXPR = engines.cel_expr_available()
needs_cel_expr = pytest.mark.usefixtures("faithful_cel")  # a skip only where pyproject.toml does not require it


def reasons(expression: str, **kwargs) -> list[tuple[str, str]]:
    return [e.key for e in cel.validate_cel_selector(expression, PATH, **kwargs)]


@pytest.fixture
def engine():
    """Switches the engine for one test and restores the previous one."""
    previous = cel.active_engine()
    yield cel.configure
    cel.configure(previous)


def padded(size: int, filler: str = "a") -> str:
    """A valid selector of exactly `size` UTF-8 bytes: a string literal comparison."""
    head = 'device.driver == "'
    unit = len(filler.encode())
    body = (size - len(head) - 1) // unit
    text = head + filler * body + '"'
    return text + " " * (size - len(text.encode()))


# --- length (bytes, not characters; compile is skipped)

@pytest.mark.parametrize(("size", "expected"), [(10240, []), (10241, [(str(PATH), "FieldValueTooLong")])])
def test_length_boundary_in_bytes(size, expected):
    expression = padded(size)
    assert len(expression.encode()) == size
    assert reasons(expression) == expected


def test_multi_byte_characters_count_as_bytes():
    expression = padded(10241, "é")  # about 5,100 characters, 10,241 bytes
    assert len(expression) < 10240
    assert reasons(expression) == [(str(PATH), "FieldValueTooLong")]


def test_too_long_renders_like_kubernetes():
    [error] = cel.validate_cel_selector("x" * 10241, PATH)
    assert str(error) == "spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"


def test_lone_surrogate_counts_as_replacement_character():
    assert reasons("'\ud800' == device.driver") == []
    assert reasons(padded(10238) + "\ud800") == [(str(PATH), "FieldValueTooLong")]  # U+FFFD is 3 bytes


@needs_cel_expr
def test_one_mebibyte_is_rejected_by_length_before_compiling():
    from webhook.cel import compiler

    cel.clear_cache()
    assert reasons("(" * (1 << 20)) == [(str(PATH), "FieldValueTooLong")]
    # Never compiled: a compiled expression, even a failing one, leaves its verdict in the cache.
    assert compiler.CACHE.stats()["general_entries"] == 0
    assert reasons("(" * 10) != [] and compiler.CACHE.stats()["general_entries"] == 1


# --- engines

def test_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown CEL engine 'cel-go'"):
        cel.configure("cel-go")


def test_auto_prefers_the_faithful_engine(engine):
    assert engine("auto") == ("cel-expr" if HAS_CEL_EXPR else "cel-python")


def test_portable_engine_checks_syntax_and_warns(engine):
    engine("cel-python")
    assert cel.active_engine() == "cel-python"
    with cel.collect_warnings() as warnings:
        assert reasons("?!") == [(str(PATH), "FieldValueInvalid")]
        assert reasons("device.driver == 1") == []  # no type check in this engine
    assert warnings == [f"{PATH}: type and cost checks of CEL selectors were skipped (portable CEL engine)"]
    assert reasons("x" * 10241) == [(str(PATH), "FieldValueTooLong")]
    assert reasons("(" * 250 + "true" + ")" * 250) == [(str(PATH), "FieldValueInvalid")]


# --- compile verdicts with the faithful engine

@needs_cel_expr
@pytest.mark.parametrize(("expression", "reason", "detail"), [
    ("", "FieldValueInvalid", "compilation failed: ERROR: <input>:1:1: Syntax error: mismatched input '<EOF>'"),
    ("device.driver == 1", "FieldValueInvalid",
     "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'"),
    ("foo(1) || true", "FieldValueInvalid", "compilation failed: ERROR: <input>:1:4: undeclared reference to 'foo'"),
    ("device.foo", "FieldValueInvalid", "compilation failed: ERROR: <input>:1:7: undefined field 'foo'"),
    ("1", "FieldValueInvalid", "must evaluate to bool or the unknown type, not int"),
    ('"a"', "FieldValueInvalid", "must evaluate to bool or the unknown type, not string"),
    ('device.attributes["d"]', "FieldValueInvalid", "must evaluate to bool or the unknown type, not map("),
    ("[true]", "FieldValueInvalid", "must evaluate to bool or the unknown type, not list(bool)"),
    ('device.attributes["d"].a', None, ""),  # the unknown type is accepted
    ('[1, "a"].size() > 0', "FieldValueInvalid", "expected type 'int' but found 'string'"),
    ('"a".matches("[")', "FieldValueInvalid", "invalid matches argument"),
    ('duration("1x") > duration("1s")', "FieldValueInvalid", "invalid duration argument"),
    ('timestamp("yesterday") < timestamp("2020-01-01T00:00:00Z")', "FieldValueInvalid", "invalid timestamp argument"),
    ('device.attributes["d"].a.exists(x, x > 0)', "FieldValueInvalid", "cannot be the range of a comprehension"),
    ('"a".reverse() == "a"', "FieldValueInvalid", "found no matching overload for 'reverse'"),  # strings v2 only
    ('math.greatest(1, 2) == 2', "FieldValueInvalid", "undeclared reference to 'math'"),
    ('cel.bind(d, device.attributes["dra.example.com"], d.a && d.b)', None, ""),
    ('device.attributes["d"].all(k, v, k != "")', None, ""),
    ('device.attributes["d"].?x.orValue(false)', None, ""),
    ("device.attributes[\"d\"].`my-attr`", None, ""),
    ('sets.contains(["a"], [device.driver])', None, ""),
    ('device.capacity["d"].memory.isGreaterThan(quantity("1Gi")) && isSemver("1.0.0")', None, ""),
    ('device.attributes["d"].v.isGreaterThan(semver("1.0.0")) && device.attributes["d"].v.major() == 1', None, ""),
    ('ip("10.0.0.1").family() == 4 && cidr("10.0.0.0/8").containsIP("10.0.0.1")', None, ""),
    ('url("https://a.example").getHost() == "a.example"', None, ""),
    ('"abc".find("[a-z]+") == "abc" && [1, 2].isSorted() && [1, 2].sum() == 3', None, ""),
])
def test_compile_verdicts(expression, reason, detail):
    errors = cel.validate_cel_selector(expression, PATH)
    if reason is None:
        assert errors == []
        return
    [error] = errors
    assert error.key == (str(PATH), reason)
    assert detail in error.detail
    assert error.bad_value == expression


@needs_cel_expr
def test_forbidden_renders_like_kubernetes():
    nested = "int('1'.find('[0-9]*')) < 100"
    for var in ("z5", "z4", "z3", "z2", "z", "y", "x"):
        nested = f"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all({var}, {nested})"
    [error] = cel.validate_cel_selector(nested, PATH)
    assert str(error) == "spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit"


@needs_cel_expr
@pytest.mark.parametrize(("expression", "cost"), [
    # hand-derived with cel-go's rules, not run against Go
    ('device.attributes["d"].all(k, v, k != "")', 132),
    ('sets.contains(["a","b"], [device.driver])', 25),
    ('device.attributes["d"].pci.matches("^0000:[0-9a-f]{2}")', 39),
])
def test_hand_checked_costs(expression, cost):
    from webhook.cel.compiler import check

    assert check(expression).cost == cost


@needs_cel_expr
def test_new_and_stored_environments():
    from webhook.cel.compiler import check
    from webhook.cel.environment import Features

    includes = 'device.attributes["d"].a.includes("x")'
    assert reasons(includes) == [(str(PATH), "FieldValueInvalid")]  # gate off for new expressions
    assert reasons(includes, stored=True) == []  # stored expressions see every function
    multi = "device.allowMultipleAllocations"
    assert reasons(multi) == []  # DRAConsumableCapacity is on in 1.36
    assert check(multi, False, Features(consumable_capacity=False)).outcome == "invalid"
    assert check(multi, True, Features(consumable_capacity=False)).outcome == "ok"


# --- known divergences from cel-go, pinned so a library upgrade shows up here

@needs_cel_expr
def test_cross_type_numeric_comparisons_are_accepted():
    # Kubernetes' base environment has CrossTypeNumericComparisons: ordering, not equality.
    assert reasons("1 < 2.0") == []
    assert reasons("1 == 1.0") == [(str(PATH), "FieldValueInvalid")]


@needs_cel_expr
def test_a_dyn_result_is_refused_unless_attribute_values_are_dyn():
    # Kubernetes accepts bool and the attribute values' type: `any`, or `dyn` with list-type attributes.
    assert reasons("dyn(1)") == [(str(PATH), "FieldValueInvalid")]
    assert reasons("dyn(1)", features=cel.Features(list_type_attributes=True)) == []
    assert reasons('device.attributes["dra.example.com"].isGPU') == []  # `any` there


@needs_cel_expr
def test_nesting_between_32_and_250_through_parentheses_gets_every_check():
    with cel.collect_warnings() as warnings:
        [error] = cel.validate_cel_selector("(" * 40 + "device.driver == 1" + ")" * 40, PATH)
        assert reasons("(" * 40 + 'device.driver == "a"' + ")" * 40) == []
    assert error.key == (str(PATH), "FieldValueInvalid") and "found no matching overload for '_==_'" in error.detail
    assert warnings == []  # type and cost checked: nothing skipped
    assert reasons("(" * 40 + "true" + ")" * 39) == [(str(PATH), "FieldValueInvalid")]  # syntax still checked
    assert reasons("(" * 249 + "true" + ")" * 249) == []
    assert reasons("(" * 250 + "true" + ")" * 250) == [(str(PATH), "FieldValueInvalid")]


def _all_nest(depth: int, values: str) -> str:
    nest = "true"
    for i in range(depth):
        nest = f"[{values}].all(x{i}, {nest})"
    return nest


@needs_cel_expr
def test_nested_comprehensions_too_deep_for_the_faithful_engine_are_still_costed():
    # cel-go estimates 2^31 iterations and more: the API server says Forbidden
    deep = _all_nest(31, "1, 2")
    [error] = cel.validate_cel_selector(deep, PATH)
    assert str(error) == "spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit"
    claim_path = Path("spec").child("devices", "requests").index(0).child("exactly", "selectors").index(1)
    claim_path = claim_path.child("cel", "expression")
    assert [e.key for e in cel.validate_cel_selector(deep, claim_path)] == [(str(claim_path), "FieldValueForbidden")]
    with cel.collect_warnings() as warnings:  # one iteration per level: far below the limit, allowed
        assert reasons(_all_nest(31, "1")) == []
    assert warnings == []  # the innermost loops, closed, written as a literal: the rest type-checks


@needs_cel_expr
def test_nests_too_deep_for_the_protobuf_decoder_are_costed_not_crashed():
    # 25 levels compile, but the checked tree nests deeper than protobuf's decoder reads (100 messages)
    assert reasons(_all_nest(25, "1, 2")) == [(str(PATH), "FieldValueForbidden")]
    assert reasons(_all_nest(25, "1")) == []


@needs_cel_expr
def test_closed_parts_of_a_deep_nest_are_costed_by_the_faithful_engine():
    # Per iteration the body costs far more than one: only its own estimate shows the nest is too expensive.
    ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    inner = f'"{"x" * 1000}".matches("[a-z]+")'
    for var in "abc":
        inner = f"{ten}.all({var}, {inner})"
    outer = inner
    for i in range(31):
        outer = f"[1].all(x{i}, {outer})"
    assert reasons(inner) == []  # about 206,000: allowed alone
    wider = outer.replace("[1].all(x30,", "[1, 2, 3, 4, 5, 6, 7, 8].all(x30,", 1)
    assert reasons(wider) == [(str(PATH), "FieldValueForbidden")]
    assert reasons(outer) == []  # one iteration per outer level: still allowed


@needs_cel_expr
def test_long_chains_between_32_and_250_get_every_check():
    # the parts that type-check alone are written as literals of their types: the rest is shallow
    with cel.collect_warnings() as warnings:
        assert reasons("1" + " + 1" * 40 + " == 41") == []
        [error] = cel.validate_cel_selector("1" + " + 1" * 40 + ' == "41"', PATH)
    assert warnings == []
    assert "found no matching overload for '_==_' applied to '(int, string)'" in error.detail
    costly = "size(device.attributes.filter(a, device.attributes[a].all(b, true)))"  # 3,662
    with cel.collect_warnings() as warnings:
        assert [e.detail for e in cel.validate_cel_selector(" + ".join([costly] * 40) + " > 0", PATH)] == []
        costlier = costly.replace("all(b, true)", "all(b, device.attributes[a].all(c, true))")
        assert reasons(" + ".join([costlier] * 40) + " > 0") == [(str(PATH), "FieldValueForbidden")]
    assert warnings == []


@needs_cel_expr
def test_deep_parts_in_branches_or_using_loop_variables_keep_the_skipped_warning():
    # a ternary costs its larger branch, so no part there is added as it is; a part that uses a loop
    # variable does not compile alone
    for expression in ("device.driver == 'a' ? " + "1" + " + 1" * 40 + " == 41 : false",
                       "[1, 2].all(x, x" + " + 1" * 40 + " == 42)"):
        with cel.collect_warnings() as warnings:
            assert reasons(expression) == []
        assert warnings and "type and cost checks were skipped" in warnings[0]


@needs_cel_expr
def test_deep_closed_parts_in_loop_bodies_count_once_per_element():
    from webhook.cel import compiler  # needs the faithful engine

    with cel.collect_warnings() as warnings:
        assert reasons("[1, 2].all(x, x > 0 && " + "1" + " + 1" * 40 + " == 41)") == []
        # cel-go: the list 10, the result 1, per element 46 (loop condition 2, step 3 + the body's 41)
        assert compiler.check("[1, 2].all(x, x > 0 && " + "1" + " + 1" * 40 + " == 41)").cost == 10 + 2 * 46 + 1
    assert warnings == []
    body = "1" + " + 1" * 40 + ' == "41"'  # ill-typed: found through the loop
    assert reasons(f"[1, 2].all(x, x > 0 && {body})") == [(str(PATH), "FieldValueInvalid")]


@needs_cel_expr
def test_list_index_of_as_kubernetes_declares_it():
    from webhook.cel import compiler  # needs the faithful engine

    # Kubernetes' lists library: <list(A)>.indexOf(A), next to the strings extension's string overloads.
    assert reasons("[1, 2].indexOf(2) == 1 && [1, 2].lastIndexOf(1) == 0") == []
    assert reasons('"abc".indexOf("c") == 2 && device.driver.lastIndexOf("a", 1) >= 0') == []
    assert reasons("dyn([1]).indexOf(1) == 0") == []
    # cel-go: the list 10, the traversal 2 (1 per element), `==` 1.
    assert compiler.check("[1, 2].indexOf(2) == 1").cost == 13
    # Strings add the traversal of an element, whose size cel-go's estimator does not know even in a literal.
    assert reasons('["a", device.driver].indexOf("b") == 0') == [(str(PATH), "FieldValueForbidden")]
    assert reasons('["ab", "c"].indexOf("c") == 1') == [(str(PATH), "FieldValueForbidden")]
    # The type parameter binds to the element type: anything else finds no overload, as in cel-go.
    for expression in ('["a"].indexOf(1) == 0', "[1.0].lastIndexOf(1) == 0", '[[1]].indexOf(["a"]) == 0'):
        assert reasons(expression) == [(str(PATH), "FieldValueInvalid")], expression
        assert "found no matching overload for" in compiler.check(expression).detail


@needs_cel_expr
@pytest.mark.parametrize("expression, detail", [
    ('"%s-%d".format([device.attributes["d"].name, 1]) == ""',
     ("error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
      "types, durations, and timestamps, was given google.protobuf.Any")),  # an attribute value is `any`
    ('"%d".format(["a"]) == ""', "decimal clause can only be used on integers, was given string"),
    ('"%X".format([1.0]) == ""', "only integers, byte buffers, and strings can be formatted as hex, was given double"),
    ('"%s".format([quantity("1")]) == ""', "was given kubernetes.Quantity"),
    ('"%".format([1]) == ""', "unexpected end of string"),
    ('"%s %s".format([1]) == ""', "index 1 out of range"),
    ('"%s".format([1, 2]) == ""', "too many arguments supplied to string.format (expected 1, got 2)"),
    ('"%q".format([1]) == ""', 'could not parse formatting clause: unrecognized formatting clause "q"'),
    ('"%.f".format([1.0]) == ""', 'strconv.Atoi: parsing "": invalid syntax'),
    ('"%.2".format([1.0]) == ""', "could not find end of precision specifier"),
    ('"%.' + "9" * 9000 + 'f".format([1.0]) == ""', ": value out of range"),  # no int() of 9000 digits
])
def test_format_calls_are_checked_as_cel_go_checks_them(expression, detail):
    from webhook.cel import compiler  # needs the faithful engine

    verdict = compiler.check(expression)
    assert verdict.outcome == "invalid" and detail in verdict.detail, verdict


@needs_cel_expr
def test_format_calls_cel_go_accepts():
    for expression in ('"%s-%d".format(["a", 1u]) == "a-1"', '"%.2f %e %s".format([1.0, "NaN", [1, "a"]]) != ""',
                       '"%b %x %o %%".format([true, b"a", 1]) != ""', '"%s".format([{"a": [1]}, ]) != ""',
                       '"%s %s %s".format([duration("1s"), null, int]) != ""', '"%s".format(dyn([1])) != ""',
                       'device.driver.format([1, 2]) != ""', '"%d".format([dyn("a")]) != ""'):
        assert reasons(expression) == [], expression
    # With list-type attributes, attribute values are dyn: any clause takes them.
    assert reasons('"%d".format([device.attributes["d"].n]) != ""',
                   features=cel.Features(list_type_attributes=True)) == []


def test_portable_engine_accepts_the_list_library(engine):
    # Syntax only, as for every selector there (and a warning that type and cost checks were skipped).
    engine("cel-python")
    with cel.collect_warnings() as warnings:
        for expression in ("[1, 2].indexOf(2) == 1", '[["a"]].flatten().lastIndexOf("a") == 0',
                           "[[2, 1]].flatten().sortBy(x, -x) == [2, 1]"):
            assert reasons(expression) == [], expression
    assert warnings and all("type and cost checks" in w for w in warnings)


@needs_cel_expr
def test_flatten_is_typed_by_the_element_type():
    # cel-go declares list(list(T)).flatten() -> list(T); the compiler's extension says list(dyn).
    for expression in ('[[1]].flatten()[0] == "a"', "[1].flatten() == [1]",
                       '[[device.driver]].flatten().exists(x, x == 1)',
                       ('sets.intersects([["a"], [device.driver]].flatten(), '
                        '["b"].transformMap(i, v, v.size()).map(k, k))')):
        assert reasons(expression) == [(str(PATH), "FieldValueInvalid")], expression
    for expression in ("[[1]].flatten()[0] == 1", "[[2, 1]].flatten().sort() == [1, 2]",
                       "dyn([[1]]).flatten()[0] == 'a'",
                       "[[1]].flatten(1)[0] == 'a'", "[[2, 1]].flatten().sortBy(x, -x) == [2, 1]",
                       "has(device.capacity) && [[1]].flatten() == [1]"):
        assert reasons(expression) == [], expression


# --- hostile inputs: a clean verdict, quickly, never a crash

@pytest.mark.parametrize("expression", [
    "(" * 10000,
    "(" * 5000 + "true" + ")" * 5000,
    "[" * 5000 + "]" * 5000,
    "int(" * 2000 + "1" + ")" * 2000,
    "!" * 10000 + "true",
    " && ".join(["true"] * 1000),
    '"' + "a" * 10200 + '" == device.driver',
    '"' + "é" * 5100 + '" == device.driver',
    "?!&|" * 2560,
    "a." * 3000,
    "device.attributes.all(a, " * 12 + "true" + ")" * 12,
    "1 + " * 2000 + "1 > 0",
])
def test_hostile_inputs_get_a_clean_verdict(expression):
    errors = cel.validate_cel_selector(expression, PATH)
    assert all(e.field == str(PATH) for e in errors)
    assert all(e.type.value in ("FieldValueInvalid", "FieldValueTooLong", "FieldValueForbidden") for e in errors)


@needs_cel_expr
def test_deeply_nested_comprehensions_saturate_and_are_forbidden():
    expression = "device.attributes.all(a, " * 12 + "true" + ")" * 12
    assert reasons(expression) == [(str(PATH), "FieldValueForbidden")]


# --- the per-request budget

def test_exhausted_budget_raises_instead_of_a_verdict():
    with cel.request_budget(0), pytest.raises(cel.DeadlineExceeded):
        cel.validate_cel_selector("device.driver == 'budget'", PATH)
    assert reasons("device.driver == 'budget'") == []  # the budget ends with its block


def test_budget_bounds_a_claim_of_maximal_selectors_and_progress_is_kept():
    # 1,024 distinct maximum-length selectors: far more work than any budget allows.
    selectors = [chain(10240, seed=i) for i in range(1024)]
    assert {len(s.encode()) for s in selectors} == {10240}
    assert reasons(selectors[-1]) == []
    checked = []
    with cel.request_budget(0.5), pytest.raises(cel.DeadlineExceeded):
        for s in selectors:
            checked.append(cel.validate_cel_selector(s, PATH))
    assert len(checked) < len(selectors)
    # Whatever was checked before the deadline keeps its verdict: a moved deadline that has
    # already passed stops the next request before any work, yet the verdicts were not lost.
    moved = [0.0]
    with cel.request_deadline(lambda: moved[0]), pytest.raises(cel.DeadlineExceeded):
        cel.validate_cel_selector(selectors[0], PATH)
    assert [cel.validate_cel_selector(s, PATH) for s in selectors[:len(checked)]] == checked


def test_warnings_are_collected_per_block(engine):
    engine("cel-python")
    with cel.collect_warnings() as outer:
        cel.validate_cel_selector("true", PATH)
    cel.validate_cel_selector("true", PATH)  # outside any block: dropped
    assert len(outer) == 1


# --- offline evaluation

@needs_cel_expr
def test_evaluate_matches_a_device():
    device = {"driver": "dra.example.com", "attributes": {"dra.example.com": {"model": "a100", "count": 4}}}
    assert cel.evaluate('device.driver == "dra.example.com" && device.attributes["dra.example.com"].model == "a100"',
                        device) is True
    assert cel.evaluate('device.attributes["dra.example.com"].count > 8', device) is False
    with pytest.raises(ValueError, match="does not compile"):
        cel.evaluate("1", device)
    assert cel.evaluate('[1, 2].lastIndexOf(2) == 1 && device.driver.indexOf(".") == 3', device) is True
