"""Dispatch decisions of webhook.admit that the HTTPS tests do not reach."""

import logging
from dataclasses import replace

from support import review_body, valid_slice
from webhook import admit, kinds
from webhook.review import decode_review


def test_a_bug_in_a_rule_is_a_denial_with_code_500_and_a_log_line(monkeypatch, caplog):
    def broken_rule(obj, opts):
        raise KeyError("a bug")

    monkeypatch.setitem(kinds.KINDS, "ResourceSlice", replace(kinds.KINDS["ResourceSlice"], create=broken_rule))
    with caplog.at_level(logging.ERROR, logger="dra-webhook"):
        response = admit.validate(decode_review(review_body(valid_slice(), uid="uid-bug")))
    assert response.allowed is False
    assert response.status["code"] == 500
    assert response.status["reason"] == "InternalError"
    assert "uid-bug" in response.status["message"]
    assert any("uid-bug" in record.getMessage() for record in caplog.records)


def test_connect_is_allowed():
    response = admit.validate(decode_review(review_body(valid_slice(devices=200), operation="CONNECT")))
    assert response.allowed is True


def test_unknown_operation_is_a_bad_request():
    response = admit.validate(decode_review(review_body(valid_slice(), operation="PATCH")))
    assert response.allowed is False and response.status["code"] == 400


def test_unknown_kind_of_the_group_is_allowed_with_a_warning():
    obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusSnapshot", "metadata": {"name": "x"}}
    response = admit.validate(decode_review(review_body(obj)))
    assert response.allowed is True
    assert "not handled" in response.warnings[0]


def test_status_of_a_kind_without_status_is_allowed_with_a_warning():
    old = valid_slice()
    response = admit.validate(decode_review(review_body(valid_slice(), operation="UPDATE", old=old,
                                                        sub_resource="status")))
    assert response.allowed is True
    assert "no status subresource" in response.warnings[0]


def test_offline_review_defaults_before_validating():
    slice_ = valid_slice()
    slice_["spec"]["devices"][0]["taints"] = [{"key": "example.com/broken", "effect": "NoSchedule"}]
    response = admit.review(decode_review(review_body(slice_)))
    assert response.allowed is True
    assert any(op["path"].endswith("/timeAdded") for op in response.patch)
    without = admit.review(decode_review(review_body(slice_)), apply_defaults=False)
    assert without.allowed is True and not without.patch
