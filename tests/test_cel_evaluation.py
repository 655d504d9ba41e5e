"""Evaluating selectors against devices as the scheduler does: typed attributes, quantities, versions,
unknown domains, list attributes, and the errors a selector can raise at runtime."""

from __future__ import annotations

import pytest

from webhook.cel import evaluation as ev
from webhook.cel.environment import Features

DEVICE = {"name": "gpu-0", "allowMultipleAllocations": True,
          "attributes": {"model": {"string": "a100"}, "numa": {"int": 1}, "mig": {"bool": False},
                         "driverVersion": {"version": "1.10.0-rc.1+build.5"},
                         "other.example.com/zone": {"string": "a"}},
          "capacity": {"memory": {"value": "40Gi"}, "cores": {"value": "1500m"}}}
D = 'device.attributes["gpu.example.com"]'
C = 'device.capacity["gpu.example.com"]'


def matches(expression: str, device: dict = DEVICE, features: Features = Features()) -> bool:
    return ev.selector(expression, features).matches(ev.device_input("gpu.example.com", device, features))


@pytest.mark.parametrize("expression, expected", [
    ('device.driver == "gpu.example.com"', True),
    ("device.allowMultipleAllocations", True),
    (f'{D}.model == "a100" && {D}.numa == 1 && !{D}.mig', True),
    (f'device.attributes["other.example.com"].zone == "a"', True),
    (f'"zone" in device.attributes["unknown.example.com"]', False),  # an unknown domain is an empty map
    (f'{C}.memory.compareTo(quantity("40960Mi")) == 0', True),
    (f'{C}.memory == quantity("40Gi")', True),
    (f'{C}.memory.isGreaterThan(quantity("39Gi")) && {C}.memory.isLessThan(quantity("41Gi"))', True),
    (f'{C}.cores.isInteger()', False),
    (f'{C}.cores.add(quantity("500m")).asInteger() == 2', True),
    (f'sign({C}.cores.sub(1)) == 1', True),
    (f'{D}.driverVersion.isLessThan(semver("1.10.0"))', True),  # a pre-release sorts first
    (f'{D}.driverVersion.isGreaterThan(semver("1.9.99"))', True),
    (f'{D}.driverVersion == semver("1.10.0-rc.1")', True),  # build metadata is ignored
    (f'{D}.driverVersion.major() == 1 && {D}.driverVersion.minor() == 10', True),
    ('semver("v1.2", true).compareTo(semver("1.2.0")) == 0 && isSemver("1.0") == false', True),
    ('isQuantity("1Gi") && !isQuantity("1 Gi")', True),
])
def test_typed_values(expression, expected):
    assert matches(expression) is expected


@pytest.mark.parametrize("expression", [
    "[1, 2, 2].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2 && [1].indexOf(3) == -1",
    f'[{D}.numa].indexOf(1) == 0 && "a100".indexOf("1") == 1',
    "[dyn(1), dyn(1u), dyn(1.0)].lastIndexOf(1) == 2 && [dyn(true), dyn(1)].indexOf(1) == 1",  # CEL equality
    f'[{C}.memory].indexOf(quantity("40960Mi")) == 0 && [{D}.driverVersion].lastIndexOf(semver("1.10.0")) == -1',
    "[[1], [2]].indexOf([2]) == 1 && [[2, 1]].flatten().sort().indexOf(2) == 1",
])
def test_list_index_of(expression):
    """Kubernetes' lists library: the first or last index of an equal element, or -1."""
    assert matches(expression) is True


@pytest.mark.parametrize("expression, message", [
    (f"{D}.nope == 1", "no such key"),
    (f"{D}.numa", "could not be converted to bool"),
])
def test_runtime_errors(expression, message):
    with pytest.raises(ev.EvaluationError, match=message):
        matches(expression)


def test_compile_errors_are_evaluation_errors():
    with pytest.raises(ev.EvaluationError, match="undeclared reference"):
        ev.selector("noSuchVar")


def test_list_attributes_need_the_gate():
    device = {"name": "nic", "attributes": {"vlans": {"ints": [10, 20]}}}
    with pytest.raises(ev.EvaluationError, match="unsupported attribute value"):
        ev.device_input("gpu.example.com", device)
    gated = Features(list_type_attributes=True)
    assert matches(f"{D}.vlans.includes(20)", device, gated)
    assert not matches(f"{D}.vlans.includes(30)", device, gated)
    versions = {"name": "fw", "attributes": {"fw": {"versions": ["1.0.0", "2.0.0"]}, "one": {"version": "2.0.0"}}}
    assert matches(f'{D}.fw.includes(semver("2.0.0")) && {D}.one.includes(semver("2.0.0"))', versions, gated)


def test_includes_of_each_release():
    gated_136 = Features(list_type_attributes=True)
    gated_137 = Features(list_type_attributes=True, includes_in_lists_library=True)
    # DRA's includes (1.36) stops at 48 values; the lists library's (1.37) takes any list.
    with pytest.raises(ev.EvaluationError, match="cannot be applied to lists longer than 48 values"):
        matches("lists.range(60).includes(59)", features=gated_136)
    assert matches("lists.range(60).includes(59)", features=gated_137)
    for features in (gated_136, gated_137):  # CEL equality: a bool is no number, numbers compare by value
        assert not matches("[1].includes(true)", features=features)
        assert matches("[1.0].includes(1)", features=features)


def test_map_equality_looks_keys_up(monkeypatch):
    """`includes`/`indexOf` compare maps by CEL equality: a tenant's 300-key map literal against the same map in
    another order takes one comparison per key and value, not one per pair of keys (quadratic: seconds per
    device). Counted, not timed."""
    from webhook.cel import library

    calls = 0
    equal = library.cel_equal

    def counting(a, b):
        nonlocal calls
        calls += 1
        return equal(a, b)

    monkeypatch.setattr(library, "cel_equal", counting)
    a = {i: 0 for i in range(300)}
    assert library.cel_equal(a, dict(reversed(list(a.items()))))
    assert calls <= 2 * len(a) + 1
    assert not library.cel_equal({True: 1}, {1: 1})  # a bool key is not a number's
    assert library.cel_equal({"a": [1]}, {"a": [1.0]}) and not library.cel_equal({1: 1}, {2: 1})
