"""apiequality.Semantic on JSON values (webhook/validation/equality.py): quantities by value, times by instant,
and only where the wire models have a quantity or a time."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webhook.api.gotime import instant
from webhook.api.semantic import QUANTITY, TIME, struct_shape
from webhook.validation.equality import semantic_equal


def _requests(memory, name="gpu"):
    return {"devices": {"requests": [{"name": name, "exactly": {"capacity": {"requests": {"memory": memory}}}}]}}


@pytest.mark.parametrize("a, b", [("1Gi", "1024Mi"), ("1Gi", 1073741824), ("1Gi", " 1Gi"), ("1k", "1000"),
                                  ("0.5", "500m"), ("1e3", "1k")])
def test_quantities_equal_by_value(a, b):
    assert semantic_equal(_requests(a), _requests(b), "ResourceClaimSpec")
    assert not semantic_equal(_requests(a), _requests(b))  # without the struct: as sent


@pytest.mark.parametrize("a, b", [("1Gi", "1G"), ("1", "1001m"), ("1Gi", "x")])
def test_other_quantities_differ(a, b):
    assert not semantic_equal(_requests(a), _requests(b), "ResourceClaimSpec")


def test_a_string_that_reads_as_a_quantity_is_still_a_string():
    assert not semantic_equal(_requests("1Gi", name="1k"), _requests("1Gi", name="1000"), "ResourceClaimSpec")


def test_quantities_deep_in_a_slice():
    def devices(value, step):
        return [{"name": "d", "capacity": {"mem": {"value": value, "requestPolicy": {"validRange": {"step": step}}}},
                 "consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": value}}}]}]

    assert semantic_equal(devices("1Gi", "1Mi"), devices("1024Mi", "1024Ki"), "ResourceSliceSpec", "devices")
    assert not semantic_equal(devices("1Gi", "1Mi"), devices("1024Mi", "1Ki"), "ResourceSliceSpec", "devices")
    assert semantic_equal(devices("1Gi", "1Mi")[0]["capacity"], devices("1024Mi", "1Mi")[0]["capacity"],
                          "Device", "capacity")


@pytest.mark.parametrize("a, b, equal", [
    ("2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00", True),
    ("2026-01-01T00:00:00Z", "2025-12-31T23:30:00-00:30", True),
    ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", True),
    ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", False),
    ("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", False),
])
def test_times_equal_by_instant(a, b, equal):
    assert semantic_equal({"allocationTimestamp": a}, {"allocationTimestamp": b}, "AllocationResult") is equal


def test_instant_reads_what_go_reads():
    assert instant("1970-01-01T00:00:00Z") == (0, 0)
    assert instant("2024-02-29T12:00:00.123456789999+02:00") == (1709200800, 123456789)
    assert instant("2026-01-01 00:00:00Z") is None  # Go's RFC 3339 wants the T
    assert instant("2026-02-30T00:00:00Z") is None


def test_shapes_come_from_the_models_of_every_release():
    device = struct_shape("Device")
    assert device["capacity"] == ("map", {"value": QUANTITY, "requestPolicy": {
        "default": QUANTITY, "validValues": ("list", QUANTITY),
        "validRange": {"min": QUANTITY, "max": QUANTITY, "step": QUANTITY}}})
    assert device["taints"] == ("list", {"timeAdded": TIME})
    assert "nodeAllocatableResourceMappings" in device and "nodeAllocatableResources" in device  # 1.36 and 1.37
    assert struct_shape("DeviceClassSpec") is None  # nothing there compares by value
    assert struct_shape("NoSuchStruct") is None


def test_the_models_are_asked_only_for_two_forms_of_one_value():
    """A review that compares values which are equal as sent, or differ in a way no form explains, never
    imports pydantic for it (the wire models load only for "1Gi" against "1024Mi")."""
    probe = ("import sys\nfrom webhook.validation.equality import semantic_equal as eq\n"
             "spec = lambda m, n: {'devices': {'requests': [{'name': n, 'exactly': {'capacity': {'requests': "
             "{'memory': m}}}}]}}\n"
             "assert eq(spec('1Gi', 'a'), spec('1Gi', 'a'), 'ResourceClaimSpec')\n"
             "assert not eq(spec('1Gi', 'a'), spec('2Gi', 'a'), 'ResourceClaimSpec')\n"
             "assert not eq(spec('1Gi', 'a'), spec('1Gi', 'b'), 'ResourceClaimSpec')\n"
             "print('pydantic' in sys.modules)\n"
             "assert eq(spec('1Gi', 'a'), spec('1024Mi', 'a'), 'ResourceClaimSpec')\n"
             "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
