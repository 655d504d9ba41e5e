"""v1beta1 / v1alpha3 claims and templates to the v1 shape, and their v1-shaped error paths."""

from __future__ import annotations

from collections import Counter

import pytest

from webhook.kinds import to_v1
from webhook.validation.resourceclaim import validate_resource_claim
from webhook.validation.resourceclaimtemplate import validate_resource_claim_template


def beta_claim(*requests):
    return {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": {"requests": list(requests)}}}


CONVERT = {
    "flat-fields-move-into-exactly": (
        {"name": "a", "deviceClassName": "c", "allocationMode": "ExactCount", "count": 2, "adminAccess": True,
         "tolerations": [{"operator": "Exists"}], "selectors": [], "capacity": {"requests": {"mem": "1Gi"}}},
        {"name": "a", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 2,
                                  "adminAccess": True, "tolerations": [{"operator": "Exists"}], "selectors": [],
                                  "capacity": {"requests": {"mem": "1Gi"}}}}),
    "first-available-untouched": ({"name": "a", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]},
                                  {"name": "a", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]}),
    "zero-values-do-not-create-exactly": ({"name": "a", "deviceClassName": "", "count": 0, "allocationMode": ""},
                                          {"name": "a"}),
    "both-kept-for-validation": ({"name": "a", "deviceClassName": "c", "firstAvailable": [{"name": "s"}]},
                                 {"name": "a", "exactly": {"deviceClassName": "c"}, "firstAvailable": [{"name": "s"}]}),
    "wrong-types-moved-as-is": ({"name": "a", "deviceClassName": 5}, {"name": "a", "exactly": {"deviceClassName": 5}}),
}


@pytest.mark.parametrize("request_in,request_out", list(CONVERT.values()), ids=list(CONVERT))
def test_v1beta1_request_conversion(request_in, request_out):
    obj = beta_claim(request_in)
    converted, warnings = to_v1("ResourceClaim", "v1beta1", obj)
    assert converted["spec"]["devices"]["requests"] == [request_out]
    assert warnings == []
    assert obj["spec"]["devices"]["requests"] == [request_in]  # the input is not mutated


def test_tolerates_odd_shapes():
    for odd in ({"spec": None}, {"spec": {"devices": []}}, {"spec": {"devices": {"requests": "x"}}},
                {"spec": {"devices": {"requests": [None, 3, "x"]}}}, {"spec": {"spec": 1}}, {}):
        for kind in ("ResourceClaim", "ResourceClaimTemplate"):
            for version in ("v1beta1", "v1alpha3"):
                to_v1(kind, version, odd)


ERRORS = {
    "v1beta1-bad-class-has-v1-path": (
        beta_claim({"name": "a", "deviceClassName": "!!", "allocationMode": "ExactCount", "count": 1}),
        [("spec.devices.requests[0].exactly.deviceClassName", "FieldValueInvalid")]),
    "v1beta1-flat-and-first-available": (
        beta_claim({"name": "a", "deviceClassName": "c", "firstAvailable": [
            {"name": "s", "deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}]}),
        [("spec.devices.requests[0]", "FieldValueInvalid")]),
    "v1beta1-no-class-no-first-available": (beta_claim({"name": "a"}), [("spec.devices.requests[0]", "FieldValueRequired")]),
}


@pytest.mark.parametrize("obj,want", list(ERRORS.values()), ids=list(ERRORS))
def test_v1beta1_errors_use_v1_paths(obj, want):
    converted, _ = to_v1("ResourceClaim", "v1beta1", obj)
    assert Counter(e.key for e in validate_resource_claim(converted)) == Counter(want)


def test_v1beta1_template():
    obj = {"metadata": {"name": "t", "namespace": "ns"},
           "spec": {"spec": {"devices": {"requests": [{"name": "a", "deviceClassName": "!!", "allocationMode": "All"}]}}}}
    converted, _ = to_v1("ResourceClaimTemplate", "v1beta1", obj)
    assert [e.key for e in validate_resource_claim_template(converted)] == [
        ("spec.spec.devices.requests[0].exactly.deviceClassName", "FieldValueInvalid")]


def test_v1alpha3_claim_of_kubernetes_1_31():
    obj = {"metadata": {"name": "c", "namespace": "ns"},
           "spec": {"devices": {"requests": [{"name": "a", "deviceClassName": "c", "allocationMode": "ExactCount",
                                              "count": 1, "adminAccess": False}]}},
           "status": {"deallocationRequested": False,
                      "allocation": {"controller": "ctrl", "devices": {"results": [
                          {"request": "a", "driver": "d", "pool": "p", "device": "x", "adminAccess": None}]}}}}
    converted, warnings = to_v1("ResourceClaim", "v1alpha3", obj)
    assert converted["spec"]["devices"]["requests"] == [
        {"name": "a", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}]
    assert "controller" not in converted["status"]["allocation"]
    assert "deallocationRequested" not in converted["status"]
    assert len(warnings) == 1 and "controller" in warnings[0]
    assert validate_resource_claim(converted) == []


def test_v1alpha3_template_and_device_class_passthrough():
    obj = {"spec": {"spec": {"devices": {"requests": [{"name": "a", "deviceClassName": "c", "adminAccess": True}]}}}}
    converted, _ = to_v1("ResourceClaimTemplate", "v1alpha3", obj)
    assert converted["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {"deviceClassName": "c", "adminAccess": True}
    dc = {"spec": {"selectors": []}}
    assert to_v1("DeviceClass", "v1beta1", dc)[0] == dc
    assert to_v1("ResourceClaim", "v1beta2", dc)[0] is dc
