"""ResourceSlice validation end to end: AdmissionReviews POSTed to /validate over verified TLS."""

from __future__ import annotations

from collections import Counter

from support import causes, review_body
from test_resourceslice import test_slice


def test_valid_slice_is_allowed(webhook_server):
    response = webhook_server.review("/validate", review_body(test_slice(devices=4), kind="ResourceSlice"))
    assert response["allowed"] is True


def test_invalid_v1beta1_slice_reports_v1_paths(webhook_server):
    slice_ = test_slice()
    slice_["apiVersion"] = "resource.k8s.io/v1beta1"
    device = slice_["spec"]["devices"][0]
    device["basic"] = {"attributes": {"/": {"string": "x"}}, "capacity": device.pop("capacity")}
    device.pop("attributes")
    slice_["spec"]["driver"] = "Upper.example.com"
    response = webhook_server.review("/validate", review_body(slice_, kind="ResourceSlice"))
    assert response["allowed"] is False
    assert response["status"]["code"] == 422
    assert causes(response) == Counter({("spec.devices[0].attributes", "FieldValueInvalid"): 2})
    # No strategy warning on an object refused: rest.BeforeCreate returns the errors first, as the real
    # kube-apiserver does (tests/apiserver_sample.py, warnings-on-invalid).
    assert not any("uppercase" in w for w in response.get("warnings") or [])
