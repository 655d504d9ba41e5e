"""Kubernetes 1.37 requestPolicy rules, ported from upstream's consumable-capacity test tables.

Upstream builds twelve multi-allocatable devices from one template (capacity 100, default 10,
validValues 5/10/100) and changes one thing per device; the same slice is checked with
DRAFractionalCapacityRange off ("integer") and on ("fractional").
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.field import Path
from webhook.profile import make_profile
from webhook.validation.options import Options
from webhook.validation.resourceslice import validate_resource_slice_spec

MAX_INT64 = str(2**63 - 1)
TEMPLATE = {"value": "100", "requestPolicy": {"default": "10", "validValues": ["5", "10", "100"]}}


def _device(i: int, capacity: dict) -> dict:
    return {"name": f"device-{i}", "allowMultipleAllocations": True, "capacity": {"a": capacity}}


def _changed(change) -> dict:
    capacity = copy.deepcopy(TEMPLATE)
    change(capacity, capacity["requestPolicy"])
    return capacity


def _range_only(policy: dict, default: str, **valid_range: str) -> None:
    policy["default"] = default
    policy.pop("validValues")
    policy["validRange"] = valid_range


CHANGES = [
    lambda c, p: None,
    lambda c, p: c.update(value="-1"),
    lambda c, p: p.update(default="-1"),
    lambda c, p: p.pop("validValues"),  # no constraints on consumption
    lambda c, p: p.update(validRange={"min": "10"}),  # both policies
    lambda c, p: (p.pop("validValues"), p.update(validRange={"min": "1"})),
    lambda c, p: p.update(default="10.1", validValues=["5.1", "10.1", "100"]),
    lambda c, p: _range_only(p, "1.05", min="1.1"),
    lambda c, p: p.update(validValues=["9.9", "10", "100"]),
    lambda c, p: (c.update(value=MAX_INT64), _range_only(p, MAX_INT64, min="0", step="1", max=MAX_INT64)),
    lambda c, p: (c.update(value=MAX_INT64 + "m"),
                  _range_only(p, MAX_INT64 + "m", min="0", step="1m", max=MAX_INT64 + "m")),
    lambda c, p: (c.update(value=MAX_INT64), _range_only(p, MAX_INT64, min="0", step="1m", max=MAX_INT64)),
]


def _path(i: int, *rest) -> str:
    return str(Path("spec", "devices").index(i).child("capacity").key("a").child("requestPolicy", *rest))


COMMON = Counter({
    (_path(1, "validValues[0]"), "FieldValueInvalid"): 1,
    (_path(1, "validValues[1]"), "FieldValueInvalid"): 1,
    (_path(1, "validValues[2]"), "FieldValueInvalid"): 1,
    (_path(2, "validValues"), "FieldValueInvalid"): 1,
    (_path(4), "FieldValueForbidden"): 1,
    (_path(7, "validRange", "default"), "FieldValueInvalid"): 1,
})


@pytest.mark.parametrize("fractional,expected", [
    pytest.param(False, COMMON + Counter({(_path(8, "validValues[1]"), "FieldValueDuplicate"): 1}),
                 id="consumable-capacity-integer"),
    pytest.param(True, COMMON + Counter({(_path(11, "validRange", "default"), "FieldValueInvalid"): 1,
                                         (_path(11, "validRange", "max"), "FieldValueInvalid"): 1}),
                 id="consumable-capacity-fractional"),
])
def test_consumable_capacity_table(fractional, expected):
    spec = {"driver": "test.example.com", "pool": {"name": "foo", "resourceSliceCount": 1}, "nodeName": "foo",
            "devices": [_device(i, _changed(change)) for i, change in enumerate(CHANGES)]}
    profile = make_profile("1.37", {"DRAFractionalCapacityRange": fractional})
    errors = validate_resource_slice_spec(spec, None, Path("spec"), Options(profile))
    assert Counter(e.key for e in errors) == expected
    details = {e.field: e.detail for e in errors}
    assert details[_path(7, "validRange", "default")] == "default is less than min: 1100m"
    if fractional:
        assert details[_path(11, "validRange", "max")] == "value cannot be represented as a milli value"


@pytest.mark.parametrize("step,value", [("0", "0"), ("-1Mi", "-1Mi")])
def test_a_step_must_be_positive(step, value):
    spec = {"driver": "d.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n",
            "devices": [_device(1, {"value": "1Gi", "requestPolicy": {
                "default": "10Mi", "validRange": {"min": "1Mi", "max": "100Mi", "step": step}}})]}
    errors = validate_resource_slice_spec(spec, None, Path("spec"), Options(make_profile("1.37")))
    assert [(e.field, e.type.value, e.bad_value, e.detail) for e in errors] == [
        (_path(0, "validRange", "step"), "FieldValueInvalid", value, "must be greater than zero")]


def _list_5_twice(c, p):
    p.update(default="5", validValues=["5", "5", "100"])


def _just_below_10(c, p):
    p["validValues"][0] = "9.9"


def _negative_min(c, p):
    c["requestPolicy"] = {"default": "0", "validRange": {"min": "-1", "step": "1"}}


def _too_large_for_milli(c, p):
    c.update(value=MAX_INT64)
    _range_only(p, MAX_INT64, min="0", step="1m", max=MAX_INT64)


def _add_capacity_b(device):
    device["capacity"]["b"] = {"value": "1"}


def _relabel(device):
    pass  # only metadata changes


# (name, fractional gate, old capacity change, new capacity change, device change, causes)
UPDATES = [
    ("valid-values-integer", False, None, _just_below_10, None, {("validValues[1]", "FieldValueDuplicate")}),
    ("valid-values-integer-okay-if-stored", False, _just_below_10, _just_below_10, None, set()),
    ("valid-values-twice-fractional-gate", True, None, _list_5_twice, None,
     {("validValues[1]", "FieldValueDuplicate")}),
    ("valid-values-twice-fractional-gate-okay-if-stored", True, _list_5_twice, _list_5_twice, _relabel, set()),
    ("valid-values-twice-fractional-gate-rechecked", True, _list_5_twice, _list_5_twice, _add_capacity_b,
     {("validValues[1]", "FieldValueDuplicate")}),
    ("valid-range-out-of-int64-bound", False, None, _negative_min, None, {("validRange.min", "FieldValueInvalid")}),
    ("valid-range-out-of-int64-bound-okay-if-stored", False, _negative_min, _negative_min, None, set()),
    ("valid-values-milli-values", True, None, _just_below_10, None, set()),
    ("valid-range-integer", False, None, _too_large_for_milli, None, set()),
    ("valid-range-integer-okay-if-stored", True, _too_large_for_milli, _too_large_for_milli, None, set()),
    ("valid-range-milli-values", True, None, _too_large_for_milli, None,
     {("validRange.default", "FieldValueInvalid"), ("validRange.max", "FieldValueInvalid")}),
]


@pytest.mark.parametrize("fractional,causes", [(False, [("validValues[1]", "FieldValueDuplicate", "5")]),
                                               (True, [])])
def test_valid_values_spelled_apart_are_apart_with_the_fractional_gate(fractional, causes):
    """quantityKeyAsDec is AsDec().String(): 5 and 5.0 keep their own scale, so they are not duplicates (as
    kube-apiserver 1.37 with DRAFractionalCapacityRange answers: tests/apiserver_sample.py); without the gate
    the key is Value(), 5 for both."""
    spec = {"driver": "valid", "pool": {"name": "valid", "resourceSliceCount": 1}, "nodeName": "valid",
            "devices": [_device(0, _changed(lambda c, p: p.update(default="5", validValues=["5", "5.0", "100"])))]}
    profile = make_profile("1.37", {"DRAFractionalCapacityRange": fractional})
    errors = validate_resource_slice_spec(spec, None, Path("spec"), Options(profile))
    prefix = _path(0) + "."
    assert [(e.field.removeprefix(prefix), e.type.value, e.bad_value) for e in errors] == causes


@pytest.mark.parametrize("fractional,old_change,new_change,device_change,causes",
                         [pytest.param(*u[1:], id=u[0]) for u in UPDATES])
def test_capacity_is_ratcheted_on_update(fractional, old_change, new_change, device_change, causes):
    def spec(change):
        capacity = _changed(change or (lambda c, p: None))
        return {"driver": "valid", "pool": {"name": "valid", "resourceSliceCount": 1}, "nodeName": "valid",
                "devices": [_device(0, capacity)]}

    old, new = spec(old_change), spec(new_change)
    if device_change is not None:
        device_change(new["devices"][0])
    profile = make_profile("1.37", {"DRAFractionalCapacityRange": fractional})
    errors = validate_resource_slice_spec(new, old, Path("spec"), Options(profile))
    prefix = _path(0) + "."
    assert {(e.field.removeprefix(prefix), e.type.value) for e in errors} == causes
