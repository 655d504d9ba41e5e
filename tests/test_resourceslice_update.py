"""ResourceSlice update validation (upstream TestValidateResourceSliceUpdate), capacity requestPolicy
(upstream TestValidateDeviceCapacity), warnings, and the full admission path incl. v1beta1."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from test_resourceslice import DRIVER, test_slice
from webhook.admit import validate
from webhook.field import Path
from webhook.review import decode_review
from webhook.validation.requestpolicy import validate_request_policy
from webhook.quantity import parse_quantity
from webhook.validation.options import Options
from webhook.validation.resourceslice import resource_slice_strategy_checks, validate_resource_slice_update

from support import causes, review_body

INV, REQ, FORBIDDEN, DUP, NOT_SUPPORTED = (
    "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueDuplicate", "FieldValueNotSupported")


def valid() -> dict:
    slice_ = test_slice(name="valid", node="valid", driver="valid")
    slice_["metadata"]["resourceVersion"] = "1"
    return slice_


def with_bad_taints() -> dict:
    slice_ = valid()
    slice_["spec"]["devices"][0]["taints"] = [{"key": "unhealthy-power", "effect": "NoExecute"},
                                              {"key": "unhealthy-mem", "effect": "some-other-effect"}]
    return slice_


def _selector(value: str) -> dict:
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": [value]}]}]}


def _old_with_selector() -> dict:
    slice_ = valid()
    del slice_["spec"]["nodeName"]
    slice_["spec"]["nodeSelector"] = _selector("bar")
    return slice_


def _add_device(s):
    device = copy.deepcopy(s["spec"]["devices"][0])
    device["name"] += "-other"
    s["spec"]["devices"].append(device)


UPDATE_CASES = [
    ("valid-no-op-update", valid(), lambda s: None, []),
    ("invalid-name-update", valid(), lambda s: s["metadata"].update(name="valid-update"), [("metadata.name", INV)]),
    ("invalid-update-nodename", valid(), lambda s: s["spec"].update(nodeName="valid-updated"), [("spec.nodeName", INV)]),
    ("invalid-update-drivername", valid(), lambda s: s["spec"].update(driver="valid-updated"), [("spec.driver", INV)]),
    ("invalid-update-pool", valid(), lambda s: s["spec"]["pool"].update(name="valid-updated"),
     [("spec.pool.name", INV)]),
    ("invalid-update-to-invalid-nodeselector-label-value", _old_with_selector(),
     lambda s: s["spec"].update(nodeSelector=_selector("-1")),
     [("spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]", INV)]),
    ("invalid-new-effect-in-old-device", valid(),
     lambda s: s["spec"]["devices"][0].update(taints=with_bad_taints()["spec"]["devices"][0]["taints"]),
     [("spec.devices[0].taints[1].effect", NOT_SUPPORTED)]),
    ("valid-old-effect", with_bad_taints(),
     lambda s: s["spec"]["devices"][0]["attributes"].update(foo={"string": "bar"}), []),
    ("invalid-new-effect-in-new-device", with_bad_taints(), _add_device,
     [("spec.devices[1].taints[1].effect", NOT_SUPPORTED)]),
    ("nodename-unset-to-set", _old_with_selector(), lambda s: s["spec"].update(nodeName="valid"),
     [("spec.nodeName", INV), ("spec", INV)]),
]


@pytest.mark.parametrize("old, update, expected", [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_validate_resource_slice_update(old, update, expected):
    new = copy.deepcopy(old)
    update(new)
    assert Counter(e.key for e in validate_resource_slice_update(new, old)) == Counter(expected)


P = "spec.devices.capacity.requestPolicy"
VV, VR = P + ".validValues", P + ".validRange"


def policy(default=None, values=None, min=None, max=None, step=None, range_=False) -> dict:
    out: dict = {}
    if default is not None:
        out["default"] = default
    if values is not None:
        out["validValues"] = values
    if range_ or min is not None or max is not None or step is not None:
        out["validRange"] = {k: v for k, v in (("min", min), ("max", max), ("step", step)) if v is not None}
    return out


CAPACITY_CASES = [
    ("policy-without-default", "1Gi", policy(), []),
    ("policy-with-valid-values-without-default", "1Gi", policy(values=["1Gi"]), [(P + ".default", REQ)]),
    ("policy-with-valid-range-without-default", "1Gi", policy(min="1Gi"), [(P + ".default", REQ)]),
    ("policy-with-valid-range-without-min", "1Gi", policy("1Gi", range_=True), [(VR + ".min", REQ)]),
    ("valid-simple-range", "10Gi", policy("1Gi", min="1Gi"), []),
    ("valid-range-with-max", "10Gi", policy("1Gi", min="1Gi", max="10Gi"), []),
    ("valid-range-with-step", "10Gi", policy("1Gi", min="1Gi", step="1Gi"), []),
    ("valid-range-with-max-and-step", "10Gi", policy("1Gi", min="1Gi", max="10Gi", step="1Gi"), []),
    ("valid-single-option", "10Gi", policy("1Gi", ["1Gi"]), []),
    ("valid-two-options", "10Gi", policy("1Gi", ["1Gi", "10Gi"]), []),
    ("default-without-policy", "10Gi", policy("1Gi"), []),
    ("more-than-one-policy", "10Gi", policy("1Gi", ["1Gi"], min="1Gi"), [(P, FORBIDDEN)]),
    ("invalid-options", "10Gi", policy("1Gi", ["20Gi"]), [(VV + "[0]", INV), (VV, INV)]),
    ("invalid-options-duplicate", "10Gi", policy("1Gi", ["1Gi", "1Gi"]), [(VV + "[1]", DUP)]),
    ("invalid-options-duplicate-normalized", "10Gi", policy("1Ki", ["1Ki", "1024"]), [(VV + "[1]", DUP)]),
    ("invalid-options-unsort", "10Gi", policy("1Gi", ["2Gi", "1Gi"]), [(VV + "[1]", INV)]),
    ("invalid-range-large-min-small-max", "10Gi", policy("2Gi", min="20Gi", max="1Gi"),
     [(VR + ".min", INV), (VR + ".min", INV), (VR + ".max", INV), (VR + ".max", INV)]),
    ("invalid-range-large-max", "10Gi", policy("1Gi", min="1Gi", max="20Gi"), [(VR + ".max", INV)]),
    ("invalid-range-multiple-of-step", "10Gi", policy("2Gi", min="1Gi", max="10Gi", step="2Gi"),
     [(VR + ".step", INV), (VR + ".step", INV)]),
    ("invalid-range-large-step", "10Gi", policy("1Gi", min="1Gi", step="10Gi"), [(VR + ".step", INV)]),
    # Catalogue rows beyond the upstream table.
    ("duplicate-by-rounded-value", "10", policy("1", ["0.5", "1"]), [(VV + "[1]", DUP)]),
    ("too-many-options-default-never-found", "100", policy("1", [str(i) for i in range(1, 12)]),
     [(VV, "FieldValueTooMany"), (VV, INV)]),
    ("step-zero-after-rounding", "10", policy("1", min="1", step="0"), [(VR + ".step", "InternalError")]),
]


@pytest.mark.parametrize("value, pol, expected", [c[1:] for c in CAPACITY_CASES], ids=[c[0] for c in CAPACITY_CASES])
def test_validate_device_capacity(value, pol, expected):
    errs = validate_request_policy(parse_quantity(value), pol, Path("spec", "devices", "capacity", "requestPolicy"))
    assert Counter(e.key for e in errs) == Counter(expected)


def test_request_policy_messages():
    errs = validate_request_policy(parse_quantity("10Gi"), policy("2Gi", min="20Gi", max="1Gi"),
                                   Path("spec", "devices", "capacity", "requestPolicy"))
    assert [e.body() for e in errs] == [
        'Invalid value: "20Gi": min is larger than capacity value: 10Gi',
        'Invalid value: "2Gi": default is less than min: 20Gi',
        'Invalid value: "20Gi": min is larger than max: 1Gi',
        'Invalid value: "2Gi": default is more than max: 1Gi',
    ]
    errs = validate_request_policy(parse_quantity("10Gi"), policy("1Gi", min="1Gi", step="10Gi"), Path("p"))
    assert [e.body() for e in errs] == ['Invalid value: "10Gi": one step 11Gi is larger than capacity value: 10Gi']
    errs = validate_request_policy(parse_quantity("10Gi"), policy("1Gi", ["1Gi", "1Gi"]), Path("p"))
    assert [e.body() for e in errs] == ['Duplicate value: "1073741824"']


def test_policy_checked_through_slice_when_multi_allocatable():
    slice_ = test_slice()
    device = slice_["spec"]["devices"][0]
    device["allowMultipleAllocations"] = True
    device["capacity"] = {"memory": {"value": "10Gi", "requestPolicy": policy("2Gi", min="1Gi", step="2Gi")}}
    from webhook.validation.resourceslice import validate_resource_slice
    assert [e.key for e in validate_resource_slice(slice_)] == [
        ("spec.devices[0].capacity[memory].requestPolicy.validRange.step", INV)]


def test_warnings():
    assert resource_slice_strategy_checks(test_slice(driver="Gpu.Example.com"), None, Options()) == ([], [
        'spec.driver: driver names should be lowercase; "Gpu.Example.com" contains uppercase characters'])
    assert resource_slice_strategy_checks(test_slice(driver=DRIVER), None, Options()) == ([], [])


def _review(obj, **kw) -> dict:
    response = validate(decode_review(review_body(obj, kind="ResourceSlice", **kw)))
    return {"allowed": response.allowed, "status": response.status, "warnings": response.warnings}


def test_admit_create_v1():
    slice_ = test_slice(driver="Upper.example.com")
    slice_["spec"]["devices"][0]["attributes"]["bad key!"] = {"int": 1}
    result = _review(slice_)
    assert not result["allowed"]
    assert causes(result) == Counter({("spec.devices[0].attributes", INV): 1})
    # rest.BeforeCreate returns the errors before it asks the strategy for warnings (the real
    # kube-apiserver 1.36 gives none here: tests/apiserver_sample.py)
    assert not any("uppercase" in w for w in result["warnings"])
    del slice_["spec"]["devices"][0]["attributes"]["bad key!"]
    valid_one = _review(slice_)
    assert valid_one["allowed"] and any("uppercase" in w for w in valid_one["warnings"])


def test_admit_update_immutable_driver():
    old = valid()
    new = copy.deepcopy(old)
    new["spec"]["driver"] = "other"
    result = _review(new, operation="UPDATE", old=old)
    assert causes(result) == Counter({("spec.driver", INV): 1})


def test_admit_v1beta1_paths_are_v1():
    slice_ = test_slice()
    slice_["apiVersion"] = "resource.k8s.io/v1beta1"
    spec = slice_["spec"]
    spec["allNodes"] = False  # v1beta1 zero value: unset
    for device in spec["devices"]:
        device["basic"] = {"attributes": device.pop("attributes"), "capacity": device.pop("capacity")}
    spec["devices"][0]["basic"]["attributes"]["x"] = {"version": "not-semver"}
    spec["devices"][0]["basic"]["taints"] = [{"key": "k", "effect": "Bogus"}]
    result = _review(slice_)
    assert causes(result) == Counter({("spec.devices[0].attributes[x].version", INV): 1,
                                      ("spec.devices[0].taints[0].effect", NOT_SUPPORTED): 1})


def test_admit_v1beta1_empty_node_name_is_unset():
    slice_ = test_slice()
    slice_["apiVersion"] = "resource.k8s.io/v1beta1"
    slice_["spec"]["nodeName"] = ""
    slice_["spec"]["allNodes"] = True
    for device in slice_["spec"]["devices"]:
        device["basic"] = {"attributes": device.pop("attributes")}
    assert _review(slice_)["allowed"]


def test_admit_wrong_types_are_type_invalid():
    slice_ = test_slice()
    slice_["spec"]["devices"][0]["capacity"]["memory"]["value"] = "lots"
    slice_["spec"]["pool"]["generation"] = "1"
    result = _review(slice_)
    assert not result["allowed"]
    assert causes(result) == Counter({("spec.devices[0].capacity[memory].value", "FieldValueTypeInvalid"): 1,
                                      ("spec.pool.generation", "FieldValueTypeInvalid"): 1})


def test_admit_v1beta1_wrongly_typed_basic_does_not_crash():
    slice_ = test_slice()
    slice_["apiVersion"] = "resource.k8s.io/v1beta1"
    slice_["spec"]["devices"] = [{"name": "a", "basic": 7}, 3]
    result = _review(slice_)
    assert not result["allowed"]
    assert result["status"]["code"] == 400


@pytest.mark.parametrize("old_spec", [
    None,
    {},
    {"devices": "x"},
    {"devices": [{"name": "a", "n": 1}, "junk", {"name": "b"}, {"name": "a", "n": 2}, {"name": 5}, {}, None]},
])
def test_the_old_device_index_answers_as_lookup_device(old_spec):
    from webhook.validation.resourceslice import _lookup_devices, lookup_device

    index = _lookup_devices(old_spec)
    for name in ("a", "b", "", "c", "5"):
        assert index.get(name) is lookup_device(old_spec, name)
