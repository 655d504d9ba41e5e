"""Typing gaps of the faithful engine against cel-go, found by the CEL sweep (tests/upstream/celsweep.py): capacity
values next to has(device.capacity), dyn results, flatten next to sortBy, cross-type numeric comparisons, literal
homogeneity with attribute values, and evaluating includes() on values of every kind.

The same expressions run against each release's registry oracle in tests/test_cel_sweep.py."""

from __future__ import annotations

import pytest
from support import require_faithful_cel

require_faithful_cel()

from webhook import cel  # noqa: E402
from webhook.cel import compiler  # noqa: E402
from webhook.cel import evaluation as ev  # noqa: E402
from webhook.cel.environment import Features, get_environment  # noqa: E402
from webhook.field import Path  # noqa: E402

PATH = Path("spec").child("selectors").index(0).child("cel", "expression")
A = 'device.attributes["dra.example.com"]'
C = 'device.capacity["dra.example.com"]'
LIST_TYPES = Features(list_type_attributes=True)


def verdict(expression: str, features: Features = Features(), stored: bool = False):
    return compiler._uncached(expression, stored, features)


def outcome(expression: str, features: Features = Features()) -> str:
    return verdict(expression, features).outcome


# --- has(device.capacity): capacity values stay Quantity

@pytest.mark.parametrize("presence", ["has(device.capacity)", "has( device . capacity )", "!has(device.capacity)"])
def test_capacity_values_are_quantities_next_to_a_presence_test(presence):
    v = verdict(f"{presence} && {C}.memory > 1")
    assert v.outcome == "invalid"
    assert "found no matching overload for '_>_' applied to '(kubernetes.Quantity, int)'" in v.detail
    assert f" | {presence} && {C}.memory > 1\n" in v.detail  # the source line as written
    assert outcome(f'{presence} || {C}.memory.isGreaterThan(quantity("1Gi"))') == "ok"


def test_a_presence_test_costs_what_it_did():
    # has() costs nothing (PresenceTestHasCost(false)); the field it is rewritten to is as long and as cheap.
    assert verdict("has(device.capacity)").cost == verdict("has(device.driver)").cost
    with_test = verdict(f'has(device.capacity) && {C}.memory == quantity("1")').cost
    assert with_test == verdict(f'has(device.driver) && {C}.memory == quantity("1")').cost


def test_the_rewrite_does_not_show_in_messages_or_string_literals():
    v = verdict(f'device.driver == "has(device.capacity)" && {C}.memory > 1')
    assert 'device.driver == "has(device.capacity)"' in v.detail and "driver  " not in v.detail
    assert outcome('device.driver == "has(device.capacity)"') == "ok"


# --- the result type: bool, or the attribute values' type

@pytest.mark.parametrize("expression", [
    "[][215]", "dyn(1)", f"{A}.gpu.model", f"{A}.gpu[0]", f"-{A}.gpu", f"{A}.a + {A}.b",
    f"cel.bind(x, {A}, x.y.z)", '{"x": dyn(1)}.x', f"true ? {A}.isGPU : dyn(1)",
    f"cel.bind(x, true ? {A}.isGPU : dyn(1), x)",
    # cel-go joins `any` and `dyn` inside lists and maps too (mostGeneral: the later branch's, a literal's first)
    f"(true ? [{A}.isGPU] : [dyn(1)])[0]", f'(true ? {{"a": {A}.isGPU}} : {{"a": dyn(1)}})["a"]',
    f"(true ? dyn([1]) : [{A}.isGPU])[0]", f"([{A}.isGPU] + [dyn(1)])[0]", f"[dyn({A}.isGPU)].map(y, y)[0]",
])
def test_a_dyn_result_is_refused_where_attribute_values_are_any(expression):
    v = verdict(expression)
    assert (v.outcome, v.detail) == ("invalid", "must evaluate to bool or the unknown type, not dyn")
    assert outcome(expression, LIST_TYPES) == "ok"  # attribute values are dyn then, and dyn is accepted
    assert verdict(expression, stored=True).outcome == "invalid"  # stored expressions too (1.34-1.36)


@pytest.mark.parametrize("expression", [
    f"{A}.isGPU", f'{A}["isGPU"]', f"cel.bind(x, {A}.isGPU, x)", f"[{A}.isGPU][0]", f"true ? {A}.isGPU : false",
    f"[[{A}.isGPU]].flatten()[0]", f'{A}[?"isGPU"].orValue(false)', f"optional.of({A}.isGPU).value()",
    f"[{A}.isGPU].map(x, x)[0]", f"true ? dyn(1) : {A}.isGPU",  # (the later branch's type wins)
    f"(true ? [dyn(1)] : [{A}.isGPU])[0]", f"[{A}.isGPU].filter(y, true)[0]", f"[dyn(1)][?0].orValue({A}.isGPU)",
    f"(true ? [{A}.isGPU] : [true])[0]",
])
def test_an_attribute_value_result_is_any_and_accepted(expression):
    assert outcome(expression) == "ok"


def test_literal_elements_are_compared_with_cel_go_types():
    """An element that indexes a list of attribute values is `any` in cel-go, as the attribute value beside it (the
    faithful engine types it `dyn`: refused before); a comprehension's variable takes its range's element type."""
    assert outcome(f'[[{A}["isGPU"], {A}.isGPU][0], {A}.isGPU][0]') == "ok"
    assert outcome(f"[[{A}.model, {A}.cores].map(y, y)[0], cel.bind(v, {A}.isGPU, v)][0] == true") == "ok"
    assert "expected type 'any' but found 'dyn'" in verdict(f"[[{A}.model][0], dyn(1)][0] == true").detail


def test_non_bool_results_are_still_refused():
    assert verdict("device.driver").detail == "must evaluate to bool or the unknown type, not string"
    assert verdict(f"{A}.map(k, {A}[k])").outcome == "invalid"


# --- flatten next to sortBy

def test_flatten_is_typed_as_cel_go_types_it_next_to_sort_by():
    v = verdict('[[1]].flatten().sortBy(x, x)[0] == "a"')
    assert v.outcome == "invalid" and "applied to '(int, string)'" in v.detail
    assert outcome('[["a"]].flatten().sortBy(x, x)[0] == "a"') == "ok"
    v = verdict("[1].flatten().sortBy(x, x).size() > 0")
    assert v.outcome == "invalid" and "'flatten'" in v.detail and "flatte_" not in v.detail
    assert " | [1].flatten().sortBy(x, x).size() > 0\n" in v.detail


def test_the_renamed_flatten_is_no_function_of_the_user():
    v = verdict("[[1]].flatte_().size() > 0")
    assert v.outcome == "invalid" and "flatte_" in v.detail
    # Both names: flatten keeps the compiler's own typing (lenient), flatte_ stays undeclared.
    assert verdict("[[1]].flatten().size() > 0 || [[1]].flatte_().size() > 0").outcome == "invalid"


def test_without_the_lists_extension_flatten_is_undeclared():
    no_lists = Features(lists_extension=False)  # new expressions on a 1.34 server
    assert verdict("[[1]].flatten().size() > 0", no_lists).outcome == "invalid"
    assert verdict("[[1]].flatten().size() > 0", no_lists, stored=True).outcome == "ok"


# --- cross-type numeric comparisons (cel.CrossTypeNumericComparisons in Kubernetes' base environment)

@pytest.mark.parametrize("expression", [
    "1 < 2.0", "2.5 >= 1u", "1u <= 2", f"{C}.memory.asApproximateFloat() > 1", f"{A}.cores >= 1u",
    "[1, 2].all(x, x <= 1.5)", '"a" < "b"', 'duration("1s") < duration("2s")', "timestamp(0) < timestamp(1)",
])
def test_numbers_of_different_types_compare(expression):
    assert outcome(expression) == "ok"


@pytest.mark.parametrize("expression", ["1 == 1.0", '"a" < 1', "true < 1", "[1] < [2]"])
def test_what_cel_go_does_not_compare_stays_refused(expression):
    assert outcome(expression) == "invalid"


def test_cross_type_comparisons_evaluate():
    device = ev.device_input("dra.example.com", {"attributes": {"cores": {"int": 8}},
                                                 "capacity": {"memory": {"value": "2"}}})
    assert ev.selector(f"{C}.memory.asApproximateFloat() > 1 && {A}.cores < 8.5 && 2u > 1").matches(device)
    assert not ev.selector(f"{A}.cores <= 7.5").matches(device)


# --- literals of one type: an attribute value is `any`

def test_a_literal_mixing_an_attribute_value_and_another_type_is_refused():
    v = verdict(f'[{A}.model, "x"].size() > 0')
    assert v.outcome == "invalid" and "expected type 'any' but found 'string'" in v.detail
    assert "expected type 'any' but found 'dyn'" in verdict(f"[{A}.model, dyn(1)][0] == 1").detail
    assert "expected type 'dyn' but found 'any'" in verdict(f"[dyn(1), {A}.model][0] == 1").detail
    assert outcome(f"[{A}.model, {A}.vendor].size() > 0") == "ok"
    assert "expected type 'dyn' but found 'string'" in verdict(f'[{A}.model, "x"].size() > 0', LIST_TYPES).detail


def test_the_selector_api_gives_the_type_errors():
    assert [e.key for e in cel.validate_cel_selector(f"has(device.capacity) && {C}.memory > 1", PATH)] == [
        (str(PATH), "FieldValueInvalid")]
    assert [e.key for e in cel.validate_cel_selector("[][215]", PATH)] == [(str(PATH), "FieldValueInvalid")]
    assert cel.validate_cel_selector("[][215]", PATH, features=LIST_TYPES) == []


# --- includes() evaluates on values of every kind, as upstream's (dyn, dyn) overload

@pytest.mark.parametrize("expression, expected", [
    (f"{A}.cores.includes(8.0)", True), (f"{A}.cores.includes(8u)", True), (f"{A}.cores.includes(8.5)", False),
    (f"{A}.vlans.includes(20.0)", True), (f"{A}.cores.includes(device.capacity['dra.example.com'].memory"
                                         ".asApproximateFloat() * 4.0)", True),
    ("(1.5).includes(1.5)", True), (f'{A}.model.includes(1)', False), (f"{A}.cores.includes(null)", False),
    (f"{A}.cores.includes([8])", False), ('{"a": 1}.includes({"a": 1})', True), ('b"x".includes(b"x")', True),
    ('duration("1s").includes(duration("1000ms"))', True), (f'{C}.memory.includes(quantity("2000m"))', True),
])
@pytest.mark.parametrize("release_137", [False, True])
def test_includes_takes_any_value(expression, expected, release_137):
    features = Features(list_type_attributes=True, includes_in_lists_library=release_137)
    device = ev.device_input("dra.example.com", {
        "attributes": {"cores": {"int": 8}, "model": {"string": "a"}, "vlans": {"ints": [10, 20]}},
        "capacity": {"memory": {"value": "2"}}}, features)
    assert ev.selector(expression, features).matches(device) is expected


def test_dra_includes_finds_a_match_before_its_limit():
    # dracel includesFunc (1.36) compares in order and fails only on reaching a 49th value.
    features = Features(list_type_attributes=True)
    device = ev.device_input("dra.example.com", {}, features)
    assert ev.selector("lists.range(60).includes(3)", features).matches(device)
    with pytest.raises(ev.EvaluationError, match="longer than 48 values"):
        ev.selector("lists.range(60).includes(48)", features).matches(device)


def test_includes_through_the_plain_evaluation_path():
    assert cel.evaluate(f"{A}.cores.includes(8.0) && (1.5).includes(1.5)",
                        {"driver": "dra.example.com", "attributes": {"dra.example.com": {"cores": 8}}},
                        features=Features(list_type_attributes=True))


def test_environments_are_shared():
    assert get_environment(False) is get_environment(False)
