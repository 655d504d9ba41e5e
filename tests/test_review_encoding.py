"""The response body: the bytes json.dumps(ensure_ascii=False, compact) gives, whatever the text holds."""

from __future__ import annotations

import json

import pytest

from webhook.field import Path, invalid, required
from webhook.review import allow, deny, encode_review_bytes, status_bad_request, status_invalid

# Every control character, quotes and backslashes, non-ASCII up to the astral planes, U+2028/U+2029.
TEXT = "".join(chr(c) for c in range(0x20)) + '"\\/\x7f\u00e9\u2028\u2029\ufeff\U0001f600 end'


def _reference(response, api_version: str) -> bytes:
    document = {"apiVersion": api_version, "kind": "AdmissionReview", "response": response.to_dict()}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


RESPONSES = [
    allow("uid-1"),
    allow("uid-" + TEXT, warnings=[TEXT, "plain"], patch=[{"op": "add", "path": "/spec/x", "value": TEXT}]),
    deny("uid-2", status_invalid("resource.k8s.io", "ResourceClaim", TEXT,
                                 [invalid(Path("spec").child("x"), TEXT, TEXT), required(Path("metadata"), "")]),
         warnings=[TEXT]),
    deny("uid-3", status_bad_request("resource.k8s.io", "ResourceSlice", "s", TEXT)),
]


@pytest.mark.parametrize("api_version", ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"])
@pytest.mark.parametrize("response", RESPONSES)
def test_the_body_is_the_compact_json_encoding(response, api_version):
    body = encode_review_bytes(response, api_version)
    assert body == _reference(response, api_version)
    assert json.loads(body)["response"]["uid"] == response.uid


def test_a_lone_surrogate_is_written_as_an_escape():
    body = encode_review_bytes(deny("uid-\ud800", status_bad_request("", "X", "n", "bad \udfff")))
    assert body.isascii()
    assert b'"uid":"uid-\\ud800"' in body and b"bad \\udfff" in body
    assert json.loads(body)["response"]["uid"] == "uid-\ud800"
