"""The real server over real TLS, spoken to as the API server does (CA-verified HTTPS)."""

import json
import ssl
import warnings

import httpx
import pytest

from support import causes, review_body, valid_slice


def test_valid_slice_is_allowed_and_uid_echoed(webhook_server):
    body = review_body(valid_slice(), uid="7c1f8b2e-allowed")
    response = webhook_server.review("/validate", body)
    assert response["allowed"] is True
    assert response["uid"] == "7c1f8b2e-allowed"
    assert "status" not in response


def test_129_devices_denied_with_exactly_one_cause(webhook_server):
    response = webhook_server.review("/validate", review_body(valid_slice(devices=129)))
    assert response["allowed"] is False
    status = response["status"]
    assert status["code"] == 422
    assert status["reason"] == "Invalid"
    assert status["status"] == "Failure"
    assert status["details"]["causes"] == [{
        "reason": "FieldValueTooMany",
        "message": "Too many: 129: must have at most 128 items",
        "field": "spec.devices",
    }]
    assert status["details"]["kind"] == "ResourceSlice"
    assert status["details"]["group"] == "resource.k8s.io"
    assert status["details"]["name"] == "node-1-gpu"
    assert status["message"] == ('ResourceSlice.resource.k8s.io "node-1-gpu" is invalid: '
                                 "spec.devices: Too many: 129: must have at most 128 items")


def test_bad_metadata_name(webhook_server):
    response = webhook_server.review("/validate", review_body(valid_slice(name="Not_A_Name")))
    assert response["allowed"] is False
    assert causes(response) == {("metadata.name", "FieldValueInvalid"): 1}
    assert response["status"]["details"]["causes"][0]["message"].startswith('Invalid value: "Not_A_Name": ')


def test_128_devices_allowed(webhook_server):
    assert webhook_server.review("/validate", review_body(valid_slice(devices=128)))["allowed"] is True


@pytest.mark.parametrize("content,expected_status,expected_text", [
    (b"this is not json", 400, "not valid JSON"),
    (b"{}", 400, "no request"),
    (b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}', 400, "uid"),
    (b'{"apiVersion": "admission.k8s.io/v2", "kind": "AdmissionReview", "request": {"uid": "x"}}', 400,
     "unsupported apiVersion"),
    (b'[1, 2]', 400, "JSON object"),
    (b"\xff\xfe\x00", 400, "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "nested too deeply"),
], ids=["not json", "empty object", "no uid", "unknown version", "array", "binary", "deep nesting"])
def test_malformed_bodies_get_400_and_server_keeps_serving(webhook_server, content, expected_status, expected_text):
    reply = webhook_server.client.post(webhook_server.url + "/validate", content=content,
                                       headers={"content-type": "application/json"})
    assert reply.status_code == expected_status
    assert expected_text in reply.text
    assert "Traceback" not in reply.text
    assert reply.text.count("\n") == 1  # one line
    assert webhook_server.client.get(webhook_server.url + "/healthz").status_code == 200


def test_oversize_body_gets_413(webhook_server):
    big = json.dumps(review_body(valid_slice())).encode() + b" " * (8 * 1024 * 1024)
    reply = webhook_server.client.post(webhook_server.url + "/validate", content=big,
                                       headers={"content-type": "application/json"})
    assert reply.status_code == 413
    assert webhook_server.client.get(webhook_server.url + "/healthz").status_code == 200


def test_wrong_content_type_gets_415(webhook_server):
    reply = webhook_server.client.post(webhook_server.url + "/validate", content=b"{}",
                                       headers={"content-type": "text/plain"})
    assert reply.status_code == 415


def test_health_and_readiness(webhook_server):
    assert webhook_server.client.get(webhook_server.url + "/healthz").text == "ok\n"
    assert webhook_server.client.get(webhook_server.url + "/readyz").status_code == 200
    assert webhook_server.client.get(webhook_server.url + "/validate").status_code == 405


def test_v1beta1_review_is_answered_in_v1beta1(webhook_server):
    body = review_body(valid_slice(devices=129), review_version="admission.k8s.io/v1beta1")
    response = webhook_server.review("/validate", body)  # checks the envelope's apiVersion
    assert causes(response) == {("spec.devices", "FieldValueTooMany"): 1}


def test_other_groups_are_allowed_with_a_warning(webhook_server):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}}
    response = webhook_server.review("/validate", review_body(pod))
    assert response["allowed"] is True
    assert response["warnings"] and "not handled" in response["warnings"][0]


def test_delete_is_allowed(webhook_server):
    body = review_body(None, operation="DELETE", old=valid_slice(devices=129))
    assert webhook_server.review("/validate", body)["allowed"] is True


def test_update_without_old_object_is_a_clear_denial(webhook_server):
    response = webhook_server.review("/validate", review_body(valid_slice(), operation="UPDATE"))
    assert response["allowed"] is False
    assert response["status"]["code"] == 400
    assert "oldObject" in response["status"]["message"]


def test_update_checks_metadata_rules(webhook_server):
    old = valid_slice()
    old["metadata"]["resourceVersion"] = "1"
    new = valid_slice()
    new["metadata"]["resourceVersion"] = "2"
    new["metadata"]["uid"] = "changed"
    response = webhook_server.review("/validate", review_body(new, operation="UPDATE", old=old))
    # Twice, as the API server says it: rest.BeforeUpdate's own metadata checks, then the strategy's.
    assert causes(response) == {("metadata.uid", "FieldValueInvalid"): 2}


def test_wrong_json_types_are_a_bad_request_not_a_crash(webhook_server):
    obj = valid_slice()
    obj["metadata"]["name"] = 42
    obj["metadata"]["labels"] = ["not", "a", "map"]
    response = webhook_server.review("/validate", review_body(obj))
    assert response["allowed"] is False
    assert response["status"]["code"] == 400
    assert causes(response) == {("metadata.name", "FieldValueTypeInvalid"): 1, ("metadata.labels", "FieldValueTypeInvalid"): 1}


def test_object_that_is_not_an_object(webhook_server):
    body = review_body(valid_slice())
    body["request"]["object"] = "a string"
    response = webhook_server.review("/validate", body)
    assert response["allowed"] is False and response["status"]["code"] == 400


def test_mutate_answers_an_admission_review(webhook_server):
    response = webhook_server.review("/mutate", review_body(valid_slice()))
    assert response["allowed"] is True


def test_tls_1_2_is_accepted(webhook_server):
    context = ssl.create_default_context(cafile=str(webhook_server.ca_file))
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    with httpx.Client(verify=context) as client:
        assert client.get(webhook_server.url + "/healthz").status_code == 200


def test_tls_1_1_is_refused(webhook_server):
    context = ssl.create_default_context(cafile=str(webhook_server.ca_file))
    context.set_ciphers("DEFAULT:@SECLEVEL=0")  # so that the refusal is the server's, not our client's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # old TLS versions are deprecated: that is the point
        context.minimum_version = ssl.TLSVersion.TLSv1
        context.maximum_version = ssl.TLSVersion.TLSv1_1
    with httpx.Client(verify=context) as client, pytest.raises(httpx.ConnectError):
        client.get(webhook_server.url + "/healthz")


def test_client_without_the_ca_cannot_connect(webhook_server):
    with httpx.Client() as client, pytest.raises(httpx.ConnectError):
        client.get(webhook_server.url + "/healthz")


def test_request_bodies_are_not_logged(webhook_server):
    marker = "secret-marker-3f9a"
    obj = valid_slice(name="Denied_Name")  # denials are logged at info (allowed reviews at debug)
    obj["metadata"]["annotations"] = {"example.com/note": marker}
    webhook_server.review("/validate", review_body(obj, uid="uid-log-check"))
    log_text = webhook_server.log_text()
    assert "uid-log-check" in log_text
    assert marker not in log_text
