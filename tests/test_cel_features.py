"""CEL selector fidelity by category: feature gates, Quantity-typed capacity, long chains; and the verdict cache."""

from __future__ import annotations

import pytest

from webhook import cel
from webhook.cel.features import Features
from webhook.field import Path
from webhook.profile import make_profile

pytestmark = pytest.mark.usefixtures("faithful_cel")

PATH = Path("spec").child("selectors").index(0).child("cel", "expression")
OFF = Features(consumable_capacity=True, list_type_attributes=False)  # 1.36 defaults
LIST_ON = Features(consumable_capacity=True, list_type_attributes=True)
ALL_OFF = Features(consumable_capacity=False, list_type_attributes=False)
ALL_ON = Features(consumable_capacity=True, list_type_attributes=True)
ANY_RANGE = "expression of type 'any' cannot be the range of a comprehension (must be list, map, or dynamic)"


@pytest.fixture(autouse=True)
def faithful_engine():
    previous = cel.active_engine()
    cel.configure("cel-expr")
    yield
    cel.configure(previous)


def verdict(expression: str, **kwargs) -> list[tuple[str, str, str]]:
    return [(e.field, e.type.value, e.detail) for e in cel.validate_cel_selector(expression, PATH, **kwargs)]


def cost(expression: str, features: Features = OFF, stored: bool = False) -> int | None:
    from webhook.cel import compiler

    result = compiler.check(expression, stored, features)
    assert result.outcome == "ok", result
    return result.cost


# --- the profile decides the environment


@pytest.mark.parametrize(("gates", "expected"), [
    (None, Features(consumable_capacity=True, list_type_attributes=False)),
    ("DRAListTypeAttributes=true", Features(consumable_capacity=True, list_type_attributes=True)),
    ("DRAConsumableCapacity=false", Features(consumable_capacity=False, list_type_attributes=False)),
    ("DRAConsumableCapacity=false,DRAListTypeAttributes=true",
     Features(consumable_capacity=False, list_type_attributes=True)),
])
def test_features_follow_the_profile(gates, expected):
    assert cel.features_for(make_profile("1.36", gates)) == expected


# --- DRAListTypeAttributes: comprehensions over attribute values and includes()

LIST_FORMS = [
    'device.attributes["dra.example.com"].models.exists(m, m == "a100")',
    'device.attributes["dra.example.com"].models.all(m, m.startsWith("a"))',
    'device.attributes["dra.example.com"].ids.exists_one(i, i > 3)',
    'device.attributes["dra.example.com"].ids.filter(i, i > 3).size() > 1',
    'device.attributes["dra.example.com"].ids.map(i, i * 2).exists(i, i == 8)',
    'cel.bind(a, device.attributes["dra.example.com"], a.models.exists(m, m == "h100"))',
    'device.attributes["dra.example.com"]["models"].exists(m, m == "a100")',
]


@pytest.mark.parametrize("expression", LIST_FORMS)
def test_comprehension_over_attribute_values_needs_list_type_attributes(expression):
    assert verdict(expression, features=LIST_ON) == []
    [(field, reason, detail)] = verdict(expression, features=OFF)
    assert (field, reason) == (str(PATH), "FieldValueInvalid")
    assert detail.startswith("compilation failed: ERROR: <input>:1:") and ANY_RANGE in detail


def test_exists_cost_with_list_type_attributes():
    # upstream compile_test "macro-exists-on-string": 5 + (3 + 3) * max(64, 48)
    assert cost('device.attributes["dra.example.com"].name.exists(x, x == "fish")', LIST_ON) == 5 + 6 * 64


@pytest.mark.parametrize("expression", [
    'device.attributes["dra.example.com"].models.includes("a100")',
    'device.attributes["dra.example.com"].ids.includes(3) && device.driver == "dra.example.com"',
])
def test_includes_needs_list_type_attributes(expression):
    assert verdict(expression, features=LIST_ON) == []
    [(_, reason, detail)] = verdict(expression, features=OFF)
    assert reason == "FieldValueInvalid" and "undeclared reference to 'includes'" in detail


def test_includes_costs_the_longest_list():
    assert cost('device.attributes["dra.example.com"].name.includes(true)', LIST_ON) == 4 + 48


def test_stored_expressions_keep_includes_whatever_the_gate():
    assert verdict('device.attributes["dra.example.com"].models.includes("a")', stored=True, features=OFF) == []


def test_dyn_result_is_accepted():
    assert verdict('device.attributes["dra.example.com"].models', features=LIST_ON) == []
    assert verdict('device.attributes["dra.example.com"].models', features=OFF) == []


# --- DRAConsumableCapacity: device.allowMultipleAllocations


def test_allow_multiple_allocations_needs_consumable_capacity():
    expression = "device.allowMultipleAllocations"
    assert verdict(expression, features=ALL_ON) == []
    [(_, reason, detail)] = verdict(expression, features=ALL_OFF)
    assert reason == "FieldValueInvalid" and "undefined field 'allowMultipleAllocations'" in detail
    assert verdict(expression, features=ALL_OFF, stored=True) == []  # stored expressions see every field


# --- capacity values are Quantity, as the DRA compiler declares them

QUANTITY_RESULT = "must evaluate to bool or the unknown type, not kubernetes.Quantity"


@pytest.mark.parametrize("features", [OFF, LIST_ON, ALL_OFF], ids=["defaults", "list-types", "all-off"])
@pytest.mark.parametrize("expression", [
    'device.capacity["dra.example.com"].slices',
    'device.capacity["dra.example.com"]["slices"]',
    'cel.bind(c, device.capacity["dra.example.com"], c.slices)',
])
def test_capacity_value_is_not_a_selector_result(expression, features):
    assert verdict(expression, features=features) == [(str(PATH), "FieldValueInvalid", QUANTITY_RESULT)]


@pytest.mark.parametrize("features", [OFF, LIST_ON, ALL_OFF], ids=["defaults", "list-types", "all-off"])
@pytest.mark.parametrize(("expression", "expected"), [
    # device 1 + .capacity 1 + [] 1 + .memory 1; quantity("64Gi") ceil(0.1 * 4) = 1; Quantity == Quantity 1
    ('device.capacity["driver.example.com"].memory == quantity("64Gi")', 6),
    ('device.capacity["driver.example.com"]["memory"] == quantity("64Gi")', 6),
    ('device.capacity["driver.example.com"].memory.compareTo(quantity("64Gi")) >= 0', 7),
    ('device.capacity["driver.example.com"].memory.isGreaterThan(quantity("1Gi"))', 6),
])
def test_quantity_comparisons_cost_like_upstream(expression, expected, features):
    assert verdict(expression, features=features) == []
    assert cost(expression, features) == expected


@pytest.mark.parametrize("expression", [
    'device.capacity["dra.example.com"].memory > 1',
    'device.capacity["dra.example.com"]["memory"] == "64Gi"',
    'size(device.capacity["dra.example.com"].memory) > 0',
])
def test_capacity_misuse_is_a_type_error(expression):
    [(_, reason, detail)] = verdict(expression)
    assert reason == "FieldValueInvalid"
    assert "found no matching overload for" in detail and "kubernetes.Quantity" in detail


@pytest.mark.parametrize(("expression", "expected"), [
    ("has(device.capacity)", 1),  # presence test 0 + device 1
    ('has(device.capacity) && device.capacity["d"].memory == quantity("1")', 7),
    ('"d" in device.capacity', 3),
])
def test_capacity_map_itself(expression, expected):
    assert verdict(expression) == []
    assert cost(expression) == expected


# --- long left-associative chains: cel-go's parser allows depth 250


@pytest.mark.parametrize("features", [OFF, ALL_ON], ids=["defaults", "all-on"])
@pytest.mark.parametrize("expression", [
    " + ".join(["1"] * 64) + " > 0",
    " + ".join(['device.attributes["dra.example.com"].n'] * 40) + " > 0",
    " - ".join(["100"] * 64) + " < 0",
])
def test_long_chains_are_accepted(expression, features):
    assert verdict(expression, features=features) == []


def test_long_chain_with_a_syntax_error_is_still_invalid():
    [(_, reason, detail)] = verdict(" + ".join(["1"] * 64) + " > ")
    assert reason == "FieldValueInvalid" and detail.startswith("compilation failed: ")


# --- the verdict cache


def test_pinned_selectors_survive_a_flood_of_claim_selectors():
    from webhook.cel.cache import ENTRY_OVERHEAD, VerdictCache
    from webhook.cel.verdict import OK, Verdict

    cache = VerdictCache(general_bytes=100 * (ENTRY_OVERHEAD + 100), pinned_bytes=10 * (ENTRY_OVERHEAD + 100))
    cache.put(("class-selector", False, OFF), Verdict(OK, cost=1), pinned=True)
    for i in range(5000):
        cache.put((f"one-off claim selector {i}", False, OFF), Verdict(OK, cost=2), pinned=False)
    assert cache.get(("class-selector", False, OFF), pinned=False) == Verdict(OK, cost=1)
    stats = cache.stats()
    assert stats["general_bytes"] <= 100 * (ENTRY_OVERHEAD + 100)
    assert 0 < stats["general_entries"] < 5000
    assert cache.get(("one-off claim selector 0", False, OFF), pinned=False) is None  # oldest evicted
    assert cache.get(("one-off claim selector 4999", False, OFF), pinned=False) is not None


def test_a_pinned_lookup_promotes_a_claim_selector():
    from webhook.cel.cache import VerdictCache
    from webhook.cel.verdict import OK, Verdict

    cache = VerdictCache(general_bytes=10_000, pinned_bytes=10_000)
    cache.put(("shared", False, OFF), Verdict(OK), pinned=False)
    assert cache.get(("shared", False, OFF), pinned=True) == Verdict(OK)
    assert cache.stats()["pinned_entries"] == 1 and cache.stats()["general_entries"] == 0


def test_validate_selector_pins_device_class_selectors():
    from webhook.cel import compiler

    cel.clear_cache()
    verdict('device.driver == "pinned.example.com"', pinned=True)
    verdict('device.driver == "claim.example.com"')
    stats = compiler.CACHE.stats()
    assert (stats["pinned_entries"], stats["general_entries"]) == (1, 1)


def test_verdicts_are_the_same_cold_and_warm():
    expressions = [*LIST_FORMS, 'device.capacity["dra.example.com"].slices', "device.nope", "1 +",
                   " + ".join(["1"] * 64) + " > 0"]
    cel.clear_cache()
    with cel.collect_warnings() as cold_warnings:
        cold = [verdict(e, features=f) for f in (OFF, LIST_ON) for e in expressions]
    with cel.collect_warnings() as warm_warnings:
        warm = [verdict(e, features=f) for f in (OFF, LIST_ON) for e in expressions]
    assert cold == warm and cold_warnings == warm_warnings


def test_offline_matching_follows_the_gates():
    device = {"driver": "dra.example.com", "attributes": {"dra.example.com": {"models": ["a100", "h100"]}},
              "capacity": {}}
    expression = 'device.attributes["dra.example.com"].models.exists(m, m == "%s")'
    assert cel.evaluate(expression % "h100", device, features=LIST_ON) is True
    assert cel.evaluate(expression % "v100", device, features=LIST_ON) is False
    with pytest.raises(ValueError, match="cannot be the range of a comprehension"):
        cel.evaluate(expression % "h100", device, features=OFF)
