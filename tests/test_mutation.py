"""Defaults the API server applies (catalogue §7.1), per kind and per served version.

Every case is checked three ways: the defaulted copy equals the expectation, the input is left
untouched, and defaulting the output again changes nothing. `CASES` is shared with the HTTPS tests.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import jsonpatch
import pytest

from webhook.kinds import apply_defaults, default_with_patch

# Sub-second part on purpose: the default must be truncated to whole seconds.
NOW = datetime(2026, 5, 1, 12, 30, 45, 987654, tzinfo=timezone.utc)
NOW_TEXT = "2026-05-01T12:30:45Z"
# Stands for "the time of the request" in expectations; replaced by the test that runs them.
NOW_MARK = "<now>"
EARLIER = "2025-01-02T03:04:05Z"


def with_time(expected, time_text: str):
    """`expected` with every NOW_MARK replaced by `time_text`."""
    if expected == NOW_MARK:
        return time_text
    if isinstance(expected, dict):
        return {key: with_time(value, time_text) for key, value in expected.items()}
    if isinstance(expected, list):
        return [with_time(value, time_text) for value in expected]
    return expected


# ---- object builders ---------------------------------------------------------------------------

def slice_(version: str, devices: list) -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceSlice",
            "metadata": {"name": "node-1-gpu"},
            "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def claim(version: str, requests: list, results: list | None = None) -> dict:
    obj = {"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceClaim",
           "metadata": {"name": "claim-1", "namespace": "default"},
           "spec": {"devices": {"requests": requests}}}
    if results is not None:
        obj["status"] = {"allocation": {"devices": {"results": results}}}
    return obj


def template(version: str, requests: list) -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "template-1", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": requests}}}}


def taint_rule(version: str, taint: dict) -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "DeviceTaintRule",
            "metadata": {"name": "rule-1"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": taint}}


def result(**extra) -> dict:
    return {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", **extra}


TAINT = {"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
TAINT_AT_NOW = {**TAINT, "timeAdded": NOW_MARK}
TAINT_AT_EARLIER = {**TAINT, "timeAdded": EARLIER}
EXACT_ONE = {"allocationMode": "ExactCount", "count": 1}
CLASS = {"deviceClassName": "gpu.example.com"}
TOLERATION = {"key": "example.com/unhealthy", "effect": "NoSchedule"}
TOLERATION_EQUAL = {**TOLERATION, "operator": "Equal"}
TOLERATION_EXISTS = {"key": "example.com/unhealthy", "operator": "Exists"}


# ---- the table: (id, kind, version, input, expected) ------------------------------------------

def _slice_cases() -> list:
    cases = []
    for version in ("v1", "v1beta2"):
        cases += [
            (f"slice-{version}-taint-time-added", version,
             slice_(version, [{"name": "gpu-0", "taints": [TAINT, {**TAINT, "key": "b"}]}]),
             slice_(version, [{"name": "gpu-0", "taints": [TAINT_AT_NOW, {**TAINT_AT_NOW, "key": "b"}]}])),
            (f"slice-{version}-taint-null-time-added", version,
             slice_(version, [{"name": "gpu-0", "taints": [{**TAINT, "timeAdded": None}]}]),
             slice_(version, [{"name": "gpu-0", "taints": [TAINT_AT_NOW]}])),
            (f"slice-{version}-taint-explicit-time-kept", version,
             slice_(version, [{"name": "gpu-0", "taints": [TAINT_AT_EARLIER]}]),
             slice_(version, [{"name": "gpu-0", "taints": [TAINT_AT_EARLIER]}])),
            (f"slice-{version}-mapping-multiplier", version,
             slice_(version, [{"name": "gpu-0", "nodeAllocatableResourceMappings": {
                 "cpu": {}, "memory": {"capacityKey": "dra.example.com/memory"}}}]),
             slice_(version, [{"name": "gpu-0", "nodeAllocatableResourceMappings": {
                 "cpu": {"allocationMultiplier": "1"},
                 "memory": {"capacityKey": "dra.example.com/memory", "allocationMultiplier": "1"}}}])),
            (f"slice-{version}-mapping-explicit-multiplier-kept", version,
             slice_(version, [{"name": "gpu-0", "nodeAllocatableResourceMappings": {
                 "cpu": {"allocationMultiplier": "2"}, "memory": {"allocationMultiplier": "2Gi"}}}]),
             slice_(version, [{"name": "gpu-0", "nodeAllocatableResourceMappings": {
                 "cpu": {"allocationMultiplier": "2"}, "memory": {"allocationMultiplier": "2Gi"}}}])),
        ]
    cases += [
        ("slice-v1beta1-basic-taint-time-added", "v1beta1",
         slice_("v1beta1", [{"name": "gpu-0", "basic": {"taints": [TAINT, TAINT_AT_EARLIER]}}]),
         slice_("v1beta1", [{"name": "gpu-0", "basic": {"taints": [TAINT_AT_NOW, TAINT_AT_EARLIER]}}])),
        ("slice-v1beta1-basic-mapping-multiplier", "v1beta1",
         slice_("v1beta1", [{"name": "gpu-0", "basic": {"nodeAllocatableResourceMappings": {
             "cpu": {}, "memory": {"capacityKey": "dra.example.com/memory"}, "pods": {"allocationMultiplier": "3"}}}}]),
         slice_("v1beta1", [{"name": "gpu-0", "basic": {"nodeAllocatableResourceMappings": {
             "cpu": {"allocationMultiplier": "1"},
             "memory": {"capacityKey": "dra.example.com/memory", "allocationMultiplier": "1"},
             "pods": {"allocationMultiplier": "3"}}}}])),
        # v1beta1 has no device-level taints: such a field is unknown there, not defaulted.
        ("slice-v1beta1-fields-outside-basic-untouched", "v1beta1",
         slice_("v1beta1", [{"name": "gpu-0", "taints": [TAINT]}]),
         slice_("v1beta1", [{"name": "gpu-0", "taints": [TAINT]}])),
        ("slice-v1-without-devices-unchanged", "v1",
         slice_("v1", []), slice_("v1", [])),
    ]
    return [(case_id, "ResourceSlice", version, obj, expected) for case_id, version, obj, expected in cases]


def _claim_cases() -> list:
    cases = []
    for version in ("v1", "v1beta2"):
        cases += [
            (f"claim-{version}-exactly-mode-and-count", claim(version, [{"name": "gpu", "exactly": CLASS}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE}}])),
            (f"claim-{version}-exactly-empty-mode", claim(version, [{"name": "gpu", "exactly": {
                **CLASS, "allocationMode": ""}}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE}}])),
            (f"claim-{version}-exactly-count-zero-becomes-one", claim(version, [{"name": "gpu", "exactly": {
                **CLASS, "allocationMode": "ExactCount", "count": 0}}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE}}])),
            (f"claim-{version}-exactly-negative-count-kept", claim(version, [{"name": "gpu", "exactly": {
                **CLASS, "count": -1}}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, "allocationMode": "ExactCount", "count": -1}}])),
            (f"claim-{version}-exactly-explicit-count-kept", claim(version, [{"name": "gpu", "exactly": {
                **CLASS, "count": 3}}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, "allocationMode": "ExactCount", "count": 3}}])),
            (f"claim-{version}-exactly-mode-all-has-no-count", claim(version, [{"name": "gpu", "exactly": {
                **CLASS, "allocationMode": "All"}}]),
             claim(version, [{"name": "gpu", "exactly": {**CLASS, "allocationMode": "All"}}])),
            (f"claim-{version}-first-available", claim(version, [{"name": "gpu", "firstAvailable": [
                {"name": "big", **CLASS}, {"name": "all", **CLASS, "allocationMode": "All"},
                {"name": "zero", **CLASS, "count": 0}, {"name": "two", **CLASS, "count": 2}]}]),
             claim(version, [{"name": "gpu", "firstAvailable": [
                 {"name": "big", **CLASS, **EXACT_ONE}, {"name": "all", **CLASS, "allocationMode": "All"},
                 {"name": "zero", **CLASS, **EXACT_ONE}, {"name": "two", **CLASS, "allocationMode": "ExactCount",
                                                         "count": 2}]}])),
            (f"claim-{version}-toleration-operator", claim(
                version,
                [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE, "tolerations": [TOLERATION, TOLERATION_EXISTS]}},
                 {"name": "alt", "firstAvailable": [{"name": "a", **CLASS, **EXACT_ONE,
                                                     "tolerations": [{**TOLERATION, "operator": ""}]}]}],
                [result(tolerations=[TOLERATION, TOLERATION_EXISTS])]),
             claim(version,
                   [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE,
                                                "tolerations": [TOLERATION_EQUAL, TOLERATION_EXISTS]}},
                    {"name": "alt", "firstAvailable": [{"name": "a", **CLASS, **EXACT_ONE,
                                                        "tolerations": [TOLERATION_EQUAL]}]}],
                   [result(tolerations=[TOLERATION_EQUAL, TOLERATION_EXISTS])])),
        ]
    for version in ("v1beta1", "v1alpha3"):
        cases += [
            (f"claim-{version}-flat-with-class", claim(version, [{"name": "gpu", **CLASS}]),
             claim(version, [{"name": "gpu", **CLASS, **EXACT_ONE}])),
            (f"claim-{version}-flat-count-zero-becomes-one", claim(version, [{"name": "gpu", **CLASS, "count": 0}]),
             claim(version, [{"name": "gpu", **CLASS, **EXACT_ONE}])),
            (f"claim-{version}-flat-negative-count-kept", claim(version, [{"name": "gpu", **CLASS, "count": -2}]),
             claim(version, [{"name": "gpu", **CLASS, "allocationMode": "ExactCount", "count": -2}])),
            (f"claim-{version}-flat-without-class-not-defaulted", claim(version, [{"name": "gpu", "firstAvailable": [
                {"name": "a", **CLASS}]}]),
             claim(version, [{"name": "gpu", "firstAvailable": [{"name": "a", **CLASS, **EXACT_ONE}]}])),
            (f"claim-{version}-flat-without-class-count-zero-kept", claim(version, [{"name": "gpu", "count": 0}]),
             claim(version, [{"name": "gpu", "count": 0}])),
            # Flat tolerations are defaulted whether or not the request names a class.
            (f"claim-{version}-flat-toleration-operator", claim(
                version,
                [{"name": "gpu", **CLASS, "tolerations": [TOLERATION, TOLERATION_EXISTS]},
                 {"name": "alt", "tolerations": [TOLERATION],
                  "firstAvailable": [{"name": "a", **CLASS, "tolerations": [TOLERATION]}]}],
                [result(tolerations=[TOLERATION])]),
             claim(version,
                   [{"name": "gpu", **CLASS, **EXACT_ONE, "tolerations": [TOLERATION_EQUAL, TOLERATION_EXISTS]},
                    {"name": "alt", "tolerations": [TOLERATION_EQUAL],
                     "firstAvailable": [{"name": "a", **CLASS, **EXACT_ONE, "tolerations": [TOLERATION_EQUAL]}]}],
                   [result(tolerations=[TOLERATION_EQUAL])])),
        ]
    return [(case_id, "ResourceClaim", case_id.split("-")[1], obj, expected) for case_id, obj, expected in cases]


def _template_cases() -> list:
    cases = []
    for version in ("v1", "v1beta2"):
        cases.append((
            f"template-{version}-exactly-first-available-tolerations", version,
            template(version, [{"name": "gpu", "exactly": {**CLASS, "count": 0, "tolerations": [TOLERATION]}},
                               {"name": "alt", "firstAvailable": [{"name": "a", **CLASS, "tolerations": [TOLERATION]},
                                                                  {"name": "b", **CLASS, "allocationMode": "All"}]}]),
            template(version, [{"name": "gpu", "exactly": {**CLASS, **EXACT_ONE, "tolerations": [TOLERATION_EQUAL]}},
                               {"name": "alt", "firstAvailable": [
                                   {"name": "a", **CLASS, **EXACT_ONE, "tolerations": [TOLERATION_EQUAL]},
                                   {"name": "b", **CLASS, "allocationMode": "All"}]}])))
    for version in ("v1beta1", "v1alpha3"):
        cases.append((
            f"template-{version}-flat", version,
            template(version, [{"name": "gpu", **CLASS, "tolerations": [TOLERATION]},
                               {"name": "alt", "firstAvailable": [{"name": "a", **CLASS, "count": 0}]}]),
            template(version, [{"name": "gpu", **CLASS, **EXACT_ONE, "tolerations": [TOLERATION_EQUAL]},
                               {"name": "alt", "firstAvailable": [{"name": "a", **CLASS, **EXACT_ONE}]}])))
    return [(case_id, "ResourceClaimTemplate", version, obj, expected) for case_id, version, obj, expected in cases]


def _taint_rule_cases() -> list:
    cases = []
    for version in ("v1beta2", "v1alpha3"):
        cases += [
            (f"taintrule-{version}-time-added", version, taint_rule(version, TAINT), taint_rule(version, TAINT_AT_NOW)),
            (f"taintrule-{version}-explicit-time-kept", version, taint_rule(version, TAINT_AT_EARLIER),
             taint_rule(version, TAINT_AT_EARLIER)),
        ]
    return [(case_id, "DeviceTaintRule", version, obj, expected) for case_id, version, obj, expected in cases]


def _unchanged_cases() -> list:
    device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                    "spec": {"selectors": [{"cel": {"expression": "true"}}]}}
    unknown_version = slice_("v1alpha3", [{"name": "gpu-0", "basic": {"taints": [TAINT]}}])
    unknown_kind = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourcePoolStatusSnapshot",
                    "metadata": {"name": "r"}, "spec": {"driver": "gpu.example.com"}}
    pool_status_v1 = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourcePoolStatusRequest",
                      "metadata": {"name": "r"}, "spec": {"driver": "gpu.example.com"}}
    return [
        ("deviceclass-v1-has-no-defaults", "DeviceClass", "v1", device_class, device_class),
        ("slice-unknown-version-unchanged", "ResourceSlice", "v1alpha3", unknown_version, unknown_version),
        ("taintrule-v1-not-served-unchanged", "DeviceTaintRule", "v1", taint_rule("v1", TAINT),
         taint_rule("v1", TAINT)),
        ("unknown-kind-unchanged", "ResourcePoolStatusSnapshot", "v1", unknown_kind, unknown_kind),
        ("pool-status-request-v1-not-served-unchanged", "ResourcePoolStatusRequest", "v1", pool_status_v1,
         pool_status_v1),
    ]


def _pool_status_cases() -> list:
    def request(spec):
        obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusRequest", "metadata": {"name": "r"}}
        return obj if spec is None else {**obj, "spec": spec}
    return [
        ("pool-status-limit-100", "ResourcePoolStatusRequest", "v1alpha3", request({"driver": "gpu.example.com"}),
         request({"driver": "gpu.example.com", "limit": 100})),
        ("pool-status-null-limit-100", "ResourcePoolStatusRequest", "v1alpha3",
         request({"driver": "gpu.example.com", "limit": None}), request({"driver": "gpu.example.com", "limit": 100})),
        ("pool-status-limit-kept", "ResourcePoolStatusRequest", "v1alpha3", request({"driver": "d", "limit": 7}),
         request({"driver": "d", "limit": 7})),
        # The spec is a struct: a request without one decodes to an empty spec, defaulted like any other.
        ("pool-status-no-spec", "ResourcePoolStatusRequest", "v1alpha3", request(None), request({"limit": 100})),
    ]


CASES = (_slice_cases() + _claim_cases() + _template_cases() + _taint_rule_cases() + _unchanged_cases()
         + _pool_status_cases())
CASE_IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_defaults(case_id, kind, version, obj, expected):
    received = copy.deepcopy(obj)
    defaulted = apply_defaults(kind, version, obj, None, "CREATE", NOW)
    assert defaulted == with_time(expected, NOW_TEXT)
    assert obj == received, "the input must not be mutated"


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_defaults_are_idempotent(case_id, kind, version, obj, expected):
    once = apply_defaults(kind, version, obj, None, "CREATE", NOW)
    later = datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert apply_defaults(kind, version, once, None, "CREATE", later) == once
    assert default_with_patch(kind, version, once, None, "CREATE", later)[1] == []


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_patch_applied_to_input_gives_defaulted_object(case_id, kind, version, obj, expected):
    received = copy.deepcopy(obj)
    defaulted, patch = default_with_patch(kind, version, obj, None, "CREATE", NOW)
    assert obj == received, "the input must not be mutated"
    assert jsonpatch.apply_patch(obj, patch) == defaulted
    assert (patch == []) == (obj == defaulted)
    assert all(op["op"] in ("add", "replace") for op in patch), "defaults only add or replace"


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_input_is_given_back_as_it_was_and_copied_only_when_defaulted(case_id, kind, version, obj, expected):
    # Defaults are applied to the input and taken back: its key order must come back too (output is JSON).
    received = copy.deepcopy(obj)
    defaulted, patch = default_with_patch(kind, version, obj, None, "CREATE", NOW)
    assert json.dumps(obj) == json.dumps(received)
    assert (defaulted is obj) == (patch == [])
    assert defaulted == with_time(expected, NOW_TEXT)


def test_defaults_apply_on_update_too():
    # The API server defaults every decoded object, the new one of an UPDATE included.
    obj = slice_("v1", [{"name": "gpu-0", "taints": [TAINT]}])
    old = slice_("v1", [{"name": "gpu-0", "taints": [TAINT_AT_EARLIER]}])
    defaulted = apply_defaults("ResourceSlice", "v1", obj, old, "UPDATE", NOW)
    assert defaulted["spec"]["devices"][0]["taints"][0]["timeAdded"] == NOW_TEXT


def test_naive_clock_is_taken_as_utc():
    naive = datetime(2026, 5, 1, 12, 30, 45, 5)
    defaulted = apply_defaults("DeviceTaintRule", "v1beta2", taint_rule("v1beta2", TAINT), None, "CREATE", naive)
    assert defaulted["spec"]["taint"]["timeAdded"] == NOW_TEXT


def test_clock_in_other_zone_is_written_as_utc():
    from datetime import timedelta

    local = NOW.astimezone(timezone(timedelta(hours=2)))
    defaulted = apply_defaults("DeviceTaintRule", "v1beta2", taint_rule("v1beta2", TAINT), None, "CREATE", local)
    assert defaulted["spec"]["taint"]["timeAdded"] == NOW_TEXT


def test_patch_escapes_map_keys():
    obj = slice_("v1", [{"name": "gpu-0", "nodeAllocatableResourceMappings": {"example.com/foo~bar": {}}}])
    defaulted, patch = default_with_patch("ResourceSlice", "v1", obj, None, "CREATE", NOW)
    assert jsonpatch.apply_patch(obj, patch) == defaulted
    assert patch == [{"op": "add", "path": "/spec/devices/0/nodeAllocatableResourceMappings/example.com~1foo~0bar"
                                           "/allocationMultiplier", "value": "1"}]


# ---- wrongly typed input: never a crash, nothing invented where the shape is wrong -------------

def one_exact_request(**fields) -> dict:
    return {"spec": {"devices": {"requests": [{"exactly": fields}]}}}


MALFORMED = [
    ("ResourceSlice", "v1", {"spec": []}),
    ("ResourceSlice", "v1", {"spec": {"devices": {"name": "x"}}}),
    ("ResourceSlice", "v1", {"spec": {"devices": [None, 1, "x", {"taints": "no"}, {"taints": [None, 3, []]}]}}),
    ("ResourceSlice", "v1", {"spec": {"devices": [{"taints": [{"timeAdded": 5}, {"timeAdded": ""}]}]}}),
    ("ResourceSlice", "v1", {"spec": {"devices": [{"nodeAllocatableResourceMappings": []}]}}),
    ("ResourceSlice", "v1", {"spec": {"devices": [{"nodeAllocatableResourceMappings": {"cpu": None, "mem": "x"}}]}}),
    ("ResourceSlice", "v1beta1", {"spec": {"devices": [{"basic": []}, {"basic": "x"}, {"basic": {"taints": {}}}]}}),
    ("ResourceClaim", "v1", {"spec": {"devices": {"requests": {"name": "gpu"}}}}),
    ("ResourceClaim", "v1", {"spec": {"devices": {"requests": [None, {"exactly": []}, {"firstAvailable": "x"}]}}}),
    ("ResourceClaim", "v1", one_exact_request(allocationMode=5, count=0)),
    ("ResourceClaim", "v1", one_exact_request(allocationMode="ExactCount", count="0")),
    ("ResourceClaim", "v1", one_exact_request(allocationMode="ExactCount", count=False)),
    ("ResourceClaim", "v1", one_exact_request(allocationMode="ExactCount", count=0.0)),
    ("ResourceClaim", "v1", one_exact_request(allocationMode="ExactCount", count=1,
                                              tolerations=[{"operator": 7}, "x", None])),
    ("ResourceClaim", "v1", {"status": {"allocation": {"devices": {"results": [{"tolerations": {}}, None]}}}}),
    ("ResourceClaim", "v1", {"status": {"allocation": "x"}}),
    ("ResourceClaim", "v1beta1", {"spec": {"devices": {"requests": [{"deviceClassName": 5}, {"tolerations": "x"}]}}}),
    ("ResourceClaimTemplate", "v1", {"spec": {"spec": []}}),
    ("ResourceClaimTemplate", "v1beta1", {"spec": "x"}),
    ("DeviceTaintRule", "v1beta2", {"spec": {"taint": []}}),
    ("DeviceTaintRule", "v1beta2", {"spec": "x"}),
    ("DeviceTaintRule", "v1alpha3", {"spec": {"taint": {"timeAdded": 12}}}),
]


@pytest.mark.parametrize("kind, version, obj", MALFORMED, ids=[f"{k}-{v}-{i}" for i, (k, v, _) in enumerate(MALFORMED)])
def test_malformed_input_is_left_as_is(kind, version, obj):
    received = copy.deepcopy(obj)
    defaulted = apply_defaults(kind, version, obj, obj, "UPDATE", NOW)
    assert obj == received
    assert defaulted == obj, "only dict-shaped parts with unset fields get defaults"
    assert default_with_patch(kind, version, obj, obj, "UPDATE", NOW)[1] == []


def test_malformed_parts_do_not_stop_defaults_elsewhere():
    obj = slice_("v1", [None, {"name": "gpu-0", "taints": ["x", TAINT]}])
    defaulted = apply_defaults("ResourceSlice", "v1", obj, None, "CREATE", NOW)
    assert defaulted["spec"]["devices"] == [None, {"name": "gpu-0", "taints": ["x", {**TAINT, "timeAdded": NOW_TEXT}]}]


@pytest.mark.parametrize("obj", [None, [], "x", 3], ids=["null", "list", "string", "number"])
def test_non_object_input_is_returned_as_is(obj):
    assert apply_defaults("ResourceSlice", "v1", obj, None, "CREATE", NOW) == obj


@pytest.mark.parametrize("incoming,old", [
    ({**TAINT, "effect": "NoExecute"}, TAINT),  # effect changed, no time: defaulted to now
    ({**TAINT_AT_EARLIER, "effect": "NoExecute"}, TAINT_AT_EARLIER),  # effect changed, old time kept: moved
    ({**TAINT_AT_EARLIER, "effect": "NoExecute"}, {**TAINT, "timeAdded": "2020-01-01T00:00:00Z"}),  # client's time
    (TAINT_AT_EARLIER, TAINT_AT_EARLIER),  # nothing to do
], ids=["unset", "moved", "client-set", "unchanged"])
def test_update_patch_of_a_device_taint_rule_applies_to_its_defaulted_object(incoming, old):
    obj, previous = taint_rule("v1beta2", incoming), taint_rule("v1beta2", old)
    received = copy.deepcopy(obj)
    defaulted, patch = default_with_patch("DeviceTaintRule", "v1beta2", obj, previous, "UPDATE", NOW)
    assert json.dumps(obj) == json.dumps(received)  # a replaced value is given back in its place
    assert jsonpatch.apply_patch(obj, patch) == defaulted
    assert len({op["path"] for op in patch}) == len(patch), "one operation per field"
    in_place, in_place_patch = default_with_patch("DeviceTaintRule", "v1beta2", obj, previous, "UPDATE", NOW,
                                                  in_place=True)
    assert in_place is obj and obj == defaulted and in_place_patch == patch
