"""The quick check of device attribute maps: every verdict, error and warning is the full validator's."""

from __future__ import annotations

import pytest

from webhook.api import mirror, schema_cache, type_errors
from webhook.api.attributes import check_common_attributes
from webhook.api.decode import check_types
from webhook.kinds import KINDS

SLICE_REFS = sorted({ref for ref in KINDS["ResourceSlice"].model.values()})
INT64_MAX = 2**63 - 1

# Attribute maps the quick check accepts: single scalars of the right JSON type (null included).
COMMON = [
    {},
    {"a": {"int": 1}, "example.com/b": {"string": "x" * 64}, "c": {"bool": False}, "d": {"version": "1.2.3"}},
    {"a": {"int": INT64_MAX}, "b": {"int": -INT64_MAX - 1}, "c": {"int": 0}},
    {"a": {"int": None}, "b": {"bool": None}, "c": {"string": None}, "d": {"version": None}},
    {"a": {"version": "not semver"}, "b": {"string": ""}},  # type-correct: validation judges the values
]
# Attribute maps it refuses, which the full validator then decides (valid or not).
UNCOMMON = [
    {"a": {"int": INT64_MAX + 1}},
    {"a": {"int": -INT64_MAX - 2}},
    {"a": {"int": True}},
    {"a": {"bool": 1}},
    {"a": {"int": 1.0}},
    {"a": {"string": 5}},
    {"a": {"version": ["1.0.0"]}},
    {"a": {"ints": [1, 2]}, "b": {"strings": ["x"]}, "c": {"bools": [True]}, "d": {"versions": ["1.0.0"]}},
    {"a": {"ints": [True]}},
    {"a": {"int": 1, "bool": True}},
    {"a": {"int": 1, "bogus": 2}},
    {"a": {"bogus": 2}},
    {"a": {}},
    {"a": None},
    {"a": "x"},
    {"a": [1]},
    {"a": {"ints": None}},
    "not a map",
    ["a"],
    5,
]


def _slice(attributes) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                     "devices": [{"name": "d0", "attributes": {"ok": {"int": 1}}},
                                 {"name": "d1", "attributes": attributes}]}}


def _full(ref: str, obj: dict) -> tuple:
    """What check_types answered before the quick check: the full validator's verdict alone."""
    try:
        schema_cache.validator(ref).validate_python(obj)
    except schema_cache.ValidationError as exc:
        return type_errors.convert(mirror.load_model(ref), obj, exc, "v1")
    return [], []


@pytest.mark.parametrize("ref", SLICE_REFS)
def test_a_slice_model_has_a_quick_validator(ref):
    assert schema_cache.quick_validator(ref) is not None


def test_a_model_without_attribute_maps_has_none():
    assert schema_cache.quick_validator(KINDS["ResourceClaim"].model["1.36"]) is None


@pytest.mark.parametrize("attributes", COMMON)
def test_common_maps_pass_the_quick_check(attributes):
    assert check_common_attributes(attributes) is attributes


@pytest.mark.parametrize("attributes", UNCOMMON)
def test_uncommon_maps_are_refused_by_the_quick_check(attributes):
    with pytest.raises(ValueError):
        check_common_attributes(attributes)


@pytest.mark.parametrize("ref", SLICE_REFS)
@pytest.mark.parametrize("attributes", COMMON + UNCOMMON + [None])
def test_check_types_answers_as_the_full_validator(ref, attributes):
    obj = _slice(attributes)
    got = check_types(ref, obj)
    assert [str(e) for e in got[0]] == [str(e) for e in _full(ref, obj)[0]]
    assert got[1] == _full(ref, obj)[1]


def test_an_uncommon_valid_map_passes_and_a_bad_one_reports_the_full_errors():
    ref = KINDS["ResourceSlice"].model["1.36"]
    assert check_types(ref, _slice({"a": {"ints": [1, 2]}})) == ([], [])
    errors, warnings = check_types(ref, _slice({"a": {"int": True, "bogus": 1}}))
    assert [e.field for e in errors] == ["spec.devices[1].attributes[a].int"]
    assert warnings == ['unknown field "spec.devices[1].attributes[a].bogus"']
