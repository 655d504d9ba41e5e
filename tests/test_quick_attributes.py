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
    {"a": {"string": "x" * 65}, "b": {"string": "\u00e9" * 33}},  # too long for validation, not for the type check
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
    assert warnings == ['unknown field "spec.devices[1].attributes.a.bogus"']  # the strict decoder's form


# ---- attribute maps deferred to validation (webhook.admit): every answer is the one without deferral ----

from functools import partial  # noqa: E402

from support import review_body  # noqa: E402
from webhook import admit  # noqa: E402
from webhook.api import attributes as attribute_types  # noqa: E402
from webhook.profile import make_profile  # noqa: E402
from webhook.review import decode_review  # noqa: E402
from webhook.validation.options import Options  # noqa: E402


def _answers(monkeypatch, call) -> tuple[dict, dict]:
    """(answer with the deferral, answer of the flow that type-checks everything first)."""
    deferred = call().to_dict()
    with monkeypatch.context() as patched:
        patched.setattr(admit, "_validate_request", partial(admit._validate_request, defer_attribute_types=False))
        direct = call().to_dict()
    return deferred, direct


def _many(devices: int, odd: dict | None = None, at: int = 100) -> dict:
    obj = _slice({})
    obj["spec"]["devices"] = [{"name": f"d{i}", "attributes": {"a": {"int": i}, "b": {"string": "x"}}}
                              for i in range(devices)]
    if odd is not None:
        obj["spec"]["devices"][at]["attributes"] = odd
    return obj


ODD_OBJECTS = [
    _slice({"a": {"int": True}, "b": {"bogus": 1}}) | {"bogus": 1},  # an unknown field besides
    _many(129),  # more devices than allowed: validation visits none
    _many(129, {"a": {"int": True}}),
    _many(64, {"a": {"int": 2**64}}, at=63),
    _slice({1: {"int": 1}}),  # a key that is not a string (a YAML document can have one)
    {**_slice({}), "spec": {**_slice({})["spec"], "devices": [{"name": "d", "attributes": [1]}, "x"]}},
]


@pytest.mark.parametrize("version", ["1.36", "1.37"])
@pytest.mark.parametrize("obj", [_slice(a) for a in COMMON + UNCOMMON + [None]] + ODD_OBJECTS)
def test_a_served_slice_gets_the_answer_of_the_full_type_check_first(monkeypatch, obj, version):
    profile = make_profile(version)
    request = decode_review(review_body(obj))
    deferred, direct = _answers(monkeypatch, lambda: admit.validate(request, profile=profile))
    assert deferred == direct


@pytest.mark.parametrize("attributes", [COMMON[1], UNCOMMON[2], UNCOMMON[7], UNCOMMON[10]])
@pytest.mark.parametrize("sub_resource", ["", "status"])
def test_an_update_gets_the_answer_of_the_full_type_check_first(monkeypatch, attributes, sub_resource):
    old = _slice(UNCOMMON[2])
    request = decode_review(review_body(_slice(attributes), operation="UPDATE", old=old, sub_resource=sub_resource))
    deferred, direct = _answers(monkeypatch, lambda: admit.validate(request))
    assert deferred == direct


@pytest.mark.parametrize("attributes", [COMMON[1], UNCOMMON[7], {"a": {"ints": ["x"]}}, {"a": {"ints": [1], "b": 2}}])
@pytest.mark.parametrize("gates", ["", "DRAListTypeAttributes=true"])
def test_a_manifest_gets_the_answer_of_the_full_type_check_first(monkeypatch, attributes, gates):
    profile = make_profile("1.36", gates, allow_locked=True)
    request = decode_review(review_body(_slice(attributes)))
    deferred, direct = _answers(monkeypatch, lambda: admit.review_manifest(request, profile=profile))
    assert deferred == direct


def test_a_rule_that_fails_on_a_deferred_map_is_answered_as_without_deferral(monkeypatch):
    from dataclasses import replace

    from webhook import kinds

    def fragile(obj, opts):  # a rule that trusts the types, as rules may after the type check
        return [] if all(type(d["attributes"]["a"]["int"]) is int for d in obj["spec"]["devices"]) else 1 / 0

    monkeypatch.setitem(kinds.KINDS, "ResourceSlice", replace(kinds.KINDS["ResourceSlice"], create=fragile))
    request = decode_review(review_body(_slice({"a": {"int": "1"}})))
    deferred, direct = _answers(monkeypatch, lambda: admit.validate(request))
    assert deferred == direct
    assert deferred["status"]["code"] == 400  # the type error, not the rule's failure


def test_common_maps_are_deferred_and_vouched_for_by_validation():
    obj = _slice(COMMON[1] | {"e": {"string": "\u00e9" * 32}})  # 64 bytes: still common
    deferred = attribute_types.Deferred()
    with attribute_types.deferring(deferred):
        assert check_types(SLICE_REFS[0], obj) == ([], [])
        assert [id(m) for m in deferred.maps] == [id(d["attributes"]) for d in obj["spec"]["devices"]]
        deferred.recording = False
        assert not deferred.complete()
        assert KINDS["ResourceSlice"].create(obj, Options()) == []
    assert deferred.complete()


def test_an_uncommon_map_is_not_vouched_for():
    obj = _slice(UNCOMMON[7])  # list attributes: valid, but not the common kind
    deferred = attribute_types.Deferred()
    with attribute_types.deferring(deferred):
        check_types(SLICE_REFS[0], obj)
        deferred.recording = False
        KINDS["ResourceSlice"].create(obj, Options())
    assert len(deferred.maps) == 2 and not deferred.complete()


SERVED = [COMMON[1], COMMON[2], UNCOMMON[0], UNCOMMON[2], UNCOMMON[7], UNCOMMON[10], UNCOMMON[14]]


@pytest.mark.parametrize("attributes", SERVED)
def test_the_served_answer_over_https_is_the_one_without_deferral(webhook_server, monkeypatch, attributes):
    body = review_body(_many(100, attributes, at=77), uid="uid-deferral")
    served = webhook_server.review("/validate", body)
    with monkeypatch.context() as patched:
        patched.setattr(admit, "_validate_request", partial(admit._validate_request, defer_attribute_types=False))
        direct = admit.validate(decode_review(body)).to_dict()
    assert served == direct


# ---- seeded random slices: every answer with the deferral is the one without ----

import copy  # noqa: E402
import random  # noqa: E402

_VALUES = [1, -1, INT64_MAX, INT64_MAX + 1, -INT64_MAX - 2, True, False, None, "x", "", "1.2.3", "v1",
           "\u00e9" * 17, "x" * 70, 1.5, [1], [True], ["1.0.0"], ["a"], {}, {"a": 1}]
_FIELDS = ["int", "bool", "string", "version", "ints", "bools", "strings", "versions", "bogus"]
_KEYS = ["a", "example.com/b", "Bad Key", "x/y/z", "", "c_1", "d" * 70]


def _random_attribute(rnd: random.Random):
    roll = rnd.random()
    if roll < 0.6:
        return rnd.choice([{"int": rnd.randint(-5, 5)}, {"bool": rnd.random() < 0.5}, {"string": "s"},
                           {"version": f"1.{rnd.randint(0, 3)}.0"}])
    if roll < 0.9:
        return {rnd.choice(_FIELDS): rnd.choice(_VALUES) for _ in range(rnd.randint(0, 2))}
    return rnd.choice(_VALUES)


def _random_slice(rnd: random.Random, devices: int) -> dict:
    obj = _slice({})
    obj["metadata"]["resourceVersion"] = "1"
    obj["spec"]["devices"] = []
    for i in range(devices):
        device: dict = {"name": f"gpu-{i}"}
        if rnd.random() < 0.95:
            device["attributes"] = ({f"{rnd.choice(_KEYS)}{j % 3}": _random_attribute(rnd) for j in range(rnd.randint(0, 6))}
                                    if rnd.random() < 0.97 else rnd.choice(_VALUES))
        if rnd.random() < 0.1:
            device["capacity"] = {"mem": {"value": rnd.choice(["1Gi", "x", 5])}}
        if rnd.random() < 0.05:
            device["taints"] = [{"key": "k", "effect": "NoSchedule"}]
        if rnd.random() < 0.03:
            device["bogus"] = 1
        obj["spec"]["devices"].append(device)
    return obj


def _random_request(rnd: random.Random) -> dict:
    devices = rnd.choice([0, 1, 3, 10, 65, 129])
    obj = _random_slice(rnd, devices)
    if rnd.random() < 0.3:
        old = copy.deepcopy(obj) if rnd.random() < 0.5 else _random_slice(rnd, devices)
        return review_body(obj, operation="UPDATE", old=old, sub_resource="status" if rnd.random() < 0.1 else "")
    return review_body(obj)


@pytest.mark.parametrize("version", ["1.36", "1.37"])
@pytest.mark.parametrize("seed", range(4))
def test_random_slices_get_the_answers_of_the_full_type_check_first(monkeypatch, seed, version):
    rnd = random.Random(seed)
    profile = make_profile(version)
    for _ in range(40):
        request = decode_review(_random_request(rnd))
        deferred, direct = _answers(monkeypatch, lambda: admit.validate(request, profile=profile))
        assert deferred == direct


def test_the_new_objects_type_errors_come_before_the_old_objects():
    old = _slice({"a": {"int": 1}})
    old["spec"]["devices"][0]["capacity"] = {"mem": {"value": "x"}}
    response = admit.validate(decode_review(review_body(_slice({"a": {"int": True}}), operation="UPDATE", old=old)))
    assert [c["field"] for c in response.status["details"]["causes"]] == ["spec.devices[1].attributes[a].int"]
