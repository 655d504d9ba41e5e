"""Claims, templates, classes and taint rules through `admit.validate` and over HTTPS."""

from __future__ import annotations

import copy
from collections import Counter

from support import causes, review_body

from webhook.admit import validate
from webhook.review import decode_review, encode_review

CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "c", "namespace": "ns", "resourceVersion": "1"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]}}}


def run(body: dict) -> dict:
    return encode_review(validate(decode_review(body)))["response"]


def test_create_valid_and_invalid():
    assert run(review_body(CLAIM))["allowed"] is True
    bad = copy.deepcopy(CLAIM)
    bad["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "Not Valid"
    response = run(review_body(bad))
    assert response["allowed"] is False and response["status"]["code"] == 422
    assert causes(response) == Counter({("spec.devices.requests[0].exactly.deviceClassName", "FieldValueInvalid"): 1})


def test_update_spec_is_immutable():
    new = copy.deepcopy(CLAIM)
    new["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    response = run(review_body(new, operation="UPDATE", old=CLAIM))
    assert causes(response) == Counter({("spec", "FieldValueInvalid"): 1})


def test_status_update():
    new = copy.deepcopy(CLAIM)
    new["status"] = {"reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]}
    response = run(review_body(new, operation="UPDATE", old=CLAIM, sub_resource="status"))
    assert causes(response) == Counter({("status.reservedFor", "FieldValueForbidden"): 1})
    new["status"]["allocation"] = {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]}}
    assert run(review_body(new, operation="UPDATE", old=CLAIM, sub_resource="status"))["allowed"] is True


def test_v1beta1_claim_reports_v1_paths():
    beta = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "", "allocationMode": "All",
                                               "count": 3}]}}}
    response = run(review_body(beta))
    assert causes(response) == Counter({("spec.devices.requests[0].exactly.count", "FieldValueInvalid"): 1,
                                        ("spec.devices.requests[0].exactly.deviceClassName", "FieldValueRequired"): 1})


def test_wrong_json_type_is_a_type_error():
    bad = copy.deepcopy(CLAIM)
    bad["spec"]["devices"]["requests"][0]["exactly"]["count"] = "1"
    response = run(review_body(bad))
    assert response["allowed"] is False and response["status"]["code"] == 400
    assert causes(response) == Counter({("spec.devices.requests[0].exactly.count", "FieldValueTypeInvalid"): 1})


def test_device_taint_rule_v1alpha3_and_status():
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"taint": {"key": "k", "effect": "Bad"}}}
    assert causes(run(review_body(rule))) == Counter({("spec.taint.effect", "FieldValueNotSupported"): 1})
    good = {**rule, "apiVersion": "resource.k8s.io/v1beta2", "metadata": {"name": "r", "resourceVersion": "1"},
            "spec": {"taint": {"key": "k", "effect": "NoExecute"}}}
    new = {**good, "status": {"conditions": [{"type": "x", "status": "True"}]}}
    response = run(review_body(new, operation="UPDATE", old=good, sub_resource="status"))
    assert causes(response) == Counter({("status.conditions[0].lastTransitionTime", "FieldValueRequired"): 1,
                                        ("status.conditions[0].reason", "FieldValueRequired"): 1})


def test_over_https(webhook_server):
    bad = copy.deepcopy(CLAIM)
    bad["spec"]["devices"]["requests"].append(copy.deepcopy(bad["spec"]["devices"]["requests"][0]))
    response = webhook_server.review("/validate", review_body(bad))
    assert response["allowed"] is False
    assert causes(response) == Counter({("spec.devices.requests[1]", "FieldValueDuplicate"): 1})
    klass = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"selectors": [{}], "extendedResourceName": "gpu"}}
    response = webhook_server.review("/validate", review_body(klass))
    assert causes(response) == Counter({("spec.selectors[0].cel", "FieldValueRequired"): 1,
                                        ("spec.extendedResourceName", "FieldValueInvalid"): 1})
