"""Small reviews answered in the server process itself (webhook/serving/inline.py), over HTTPS: the same
bytes as a worker's answer; a selector nobody compiled yet goes to a worker, which hands its verdict
back so that the next request with it stays in the server; large or deeply nested bodies always go to
a worker; `--inline-max-body-bytes 0` turns it off. The counter `dra_webhook_inline_reviews_total`
tells where a review ran."""

from __future__ import annotations

import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from support import causes, decode_patch, review_body, start_server

SELECTOR = "spec.devices.requests[0].exactly.selectors[{}].cel.expression"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own, so that its counter counts only the requests sent here."""
    running = start_server(tmp_path_factory.mktemp("inline"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def workers_only(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("workers-only"), "--inline-max-body-bytes", "0")
    yield running
    running.stop()


def inline_reviews(server) -> float:
    text = server.client.get(server.url + "/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "dra_webhook_inline_reviews_total":
                return sample.value
    raise AssertionError("no dra_webhook_inline_reviews_total in /metrics")


def claim(*expressions: str, parameters: object = None) -> dict:
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "inline-check", "namespace": "default"},
           "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
               "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
               "selectors": [{"cel": {"expression": e}} for e in expressions]}}]}}}
    if parameters is not None:
        obj["spec"]["devices"]["config"] = [{"requests": ["gpu"], "opaque": {
            "driver": "unprofiled.example.com", "parameters": parameters}}]
    return obj


def fresh_expressions() -> tuple[str, str]:
    """A valid and an invalid selector no server has seen (a new model name each time)."""
    model = uuid.uuid4().hex
    return (f'device.attributes["gpu.example.com"].model == "{model}"',
            f'device.attributes["gpu.example.com"].model == {len(model)} + "{model}"')


def test_a_worker_compiles_new_selectors_then_the_server_answers_alone_with_the_same_bytes(server, workers_only):
    body = review_body(claim(*fresh_expressions()), uid="uid-inline-validate")
    before = inline_reviews(server)
    first = server.post("/validate", body)
    assert inline_reviews(server) == before  # new selectors: a worker reviewed it
    second = server.post("/validate", body)
    assert inline_reviews(server) == before + 1  # their verdicts came back with the worker's answer
    reference = workers_only.post("/validate", body)
    assert first.status_code == second.status_code == reference.status_code == 200
    assert first.content == second.content == reference.content
    response = second.json()["response"]
    assert response["allowed"] is False
    assert causes(response) == {(SELECTOR.format(1), "FieldValueInvalid"): 1}


def test_mutate_compiles_nothing_so_a_small_claim_is_defaulted_inline_with_the_same_patch(server, workers_only):
    obj = claim(*fresh_expressions())
    del obj["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"]
    body = review_body(obj, uid="uid-inline-mutate")
    before = inline_reviews(server)
    ours = server.post("/mutate", body)
    assert inline_reviews(server) == before + 1
    reference = workers_only.post("/mutate", body)
    assert ours.status_code == reference.status_code == 200 and ours.content == reference.content
    assert {"op": "add", "path": "/spec/devices/requests/0/exactly/allocationMode",
            "value": "ExactCount"} in decode_patch(ours.json()["response"])


def test_a_device_class_selector_learned_from_a_worker_is_answered_inline(server):
    model = uuid.uuid4().hex
    device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpus"},
                    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{model}"'}}]}}
    body = review_body(device_class)
    before = inline_reviews(server)
    assert server.review("/validate", body)["allowed"] is True
    assert server.review("/validate", body)["allowed"] is True
    assert inline_reviews(server) == before + 1


def test_large_bodies_are_left_to_workers(server):
    expressions = fresh_expressions()
    server.post("/validate", review_body(claim(*expressions)))  # the selectors are known now
    big = review_body(claim(*expressions, parameters={"blob": "x" * (20 * 1024)}))  # above the 16 KiB default
    before = inline_reviews(server)
    for _ in range(2):
        assert server.review("/validate", big)["allowed"] is False
    assert inline_reviews(server) == before


def test_deeply_nested_bodies_are_left_to_workers(server):
    expressions = fresh_expressions()[:1]
    server.post("/validate", review_body(claim(*expressions)))
    nested: object = "leaf"
    for _ in range(300):  # a small body, but deeper than the server process reviews itself
        nested = {"n": nested}
    body = review_body(claim(*expressions, parameters=nested))
    before = inline_reviews(server)
    response = server.review("/validate", body)
    assert response["allowed"] is True
    assert inline_reviews(server) == before


def test_with_inline_reviews_off_every_review_goes_to_a_worker(workers_only):
    body = review_body(claim(*fresh_expressions()))
    for _ in range(3):
        workers_only.post("/validate", body)
    assert inline_reviews(workers_only) == 0
