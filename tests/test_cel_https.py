"""CEL selector verdicts over HTTPS, with both engines, as the API server would ask for them."""

import pytest

from support import causes, review_body, start_server

EXPENSIVE = ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))")
PATH = "spec.selectors[0].cel.expression"


def device_class(*expressions: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpus"},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


def claim(*expressions: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpus", "allocationMode": "ExactCount", "count": 1,
                "selectors": [{"cel": {"expression": e}} for e in expressions]}}]}}}


def cause_messages(response: dict) -> list[str]:
    return [c["message"] for c in response["status"]["details"]["causes"]]


@pytest.mark.parametrize("expression,expected,message", [
    ('device.driver == "gpu.example.com"', {}, None),
    ('device.attributes["gpu.example.com"].model == "a100"', {}, None),
    ("device.drive == 1", {(PATH, "FieldValueInvalid"): 1}, "compilation failed: "),
    ("", {(PATH, "FieldValueInvalid"): 1}, "compilation failed: "),
    ('device.driver', {(PATH, "FieldValueInvalid"): 1}, "must evaluate to bool"),
    (EXPENSIVE, {(PATH, "FieldValueForbidden"): 1}, "too complex, exceeds cost limit"),
    ("true || " * 1279 + "true ", {}, None),  # 10,240 bytes exactly
    ("true || " * 1280 + "true", {(PATH, "FieldValueTooLong"): 1}, "may not be more than 10240 bytes"),
    # cel-go's two depth limits (tests/test_cel_grammar.py derives them); both errors carry no location.
    ("1" + " + 1" * 249 + " > 0", {}, None),
    ("1" + " + 1" * 250 + " > 0", {(PATH, "FieldValueInvalid"): 1},
     "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded"),
    ("(" * 249 + "1" + " + 1)" * 249 + " > 0", {(PATH, "FieldValueInvalid"): 1},
     "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250"),
], ids=["valid driver", "valid attribute", "unknown field", "empty", "string result", "too expensive",
        "exactly 10 Ki", "over 10 Ki", "249 + chain", "250 + chain", "249 parenthesised + chain"])
def test_device_class_selectors(webhook_server, expression, expected, message):
    response = webhook_server.review("/validate", review_body(device_class(expression)))
    assert causes(response) == expected
    assert response["allowed"] is (not expected)
    if message:
        assert any(message in m for m in cause_messages(response))


def test_claim_selector_path(webhook_server):
    response = webhook_server.review("/validate", review_body(claim("device.nope")))
    assert causes(response) == {("spec.devices.requests[0].exactly.selectors[0].cel.expression",
                                 "FieldValueInvalid"): 1}


def test_one_mebibyte_expression_is_rejected_by_length(webhook_server):
    response = webhook_server.review("/validate", review_body(claim("x" * (1 << 20))))
    assert causes(response) == {("spec.devices.requests[0].exactly.selectors[0].cel.expression",
                                 "FieldValueTooLong"): 1}
    assert webhook_server.client.get(webhook_server.url + "/healthz").status_code == 200


def test_deep_nesting_gets_a_clean_verdict(webhook_server):
    expression = "(" * 5000 + "true" + ")" * 5000
    response = webhook_server.review("/validate", review_body(device_class(expression)))
    assert response["allowed"] is False
    assert causes(response) == {(PATH, "FieldValueInvalid"): 1}


def test_device_class_update_keeps_unchanged_selectors_stored(webhook_server):
    old = device_class('device.driver == "a"')
    old["metadata"]["resourceVersion"] = "1"
    new = device_class('device.driver == "a"')
    new["metadata"]["resourceVersion"] = "2"
    response = webhook_server.review("/validate", review_body(new, operation="UPDATE", old=old))
    assert response["allowed"] is True, response


@pytest.fixture(scope="module")
def portable_server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("portable"), "--cel-engine", "cel-python")
    yield server
    server.stop()


def test_portable_engine_checks_syntax_and_warns(portable_server):
    ok = portable_server.review("/validate", review_body(device_class('device.driver == "gpu.example.com"')))
    assert ok["allowed"] is True
    assert any("cel-python" in w or "skipped" in w for w in ok.get("warnings", [])), ok
    bad = portable_server.review("/validate", review_body(device_class("device.driver ==")))
    assert causes(bad) == {(PATH, "FieldValueInvalid"): 1}
    assert any("compilation failed: " in m for m in cause_messages(bad))


def test_unknown_engine_is_a_usage_error(tmp_path):
    from support import cli

    result = cli("review", "--cel-engine", "nope", str(tmp_path))
    assert result.returncode == 2


# --- hostile selectors (issue 21): cel-python's lexer took hours on this 106-byte selector

REDOS = "(" * 40 + 'device.driver == "' + "\\\\" * 24


def _hostile_and_ordinary(server) -> None:
    """Two ReDoS selectors and, meanwhile, an ordinary claim with a selector never seen before: all answered."""
    from concurrent.futures import ThreadPoolExecutor

    hostile = [review_body(device_class(REDOS)), review_body(claim(REDOS + " "))]
    ordinary = review_body(claim('device.driver == "fresh.example.com" && device.attributes["x"].n == 1'))
    with ThreadPoolExecutor(3) as pool:
        slow = [pool.submit(server.review, "/validate", body) for body in hostile]
        fine = pool.submit(server.review, "/validate", ordinary).result(timeout=30)
        answers = [future.result(timeout=30) for future in slow]
    assert fine["allowed"] is True, fine
    for answer in answers:
        assert answer["allowed"] is False
        [message] = cause_messages(answer)
        assert "Syntax error: token recognition error" in message, message


def test_redos_selectors_are_answered_with_the_faithful_engine(webhook_server):
    _hostile_and_ordinary(webhook_server)


def test_redos_selectors_are_answered_with_the_portable_engine(portable_server):
    _hostile_and_ordinary(portable_server)


def test_cel_go_syntax_the_old_portable_parser_rejected_is_accepted(portable_server):
    expression = 'device.attributes["gpu.example.com"].?model.orValue("") == "a" || device.attributes["d"].`a-b`'
    response = portable_server.review("/validate", review_body(device_class(expression)))
    assert response["allowed"] is True, response
