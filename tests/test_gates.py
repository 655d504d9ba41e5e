"""Feature gates drive what the API server ties to them: here, the CEL environment of selectors."""

import json

import pytest

from support import causes, cli, review_body, start_server

PATH = "spec.devices.requests[0].exactly.selectors[0].cel.expression"
LIST_ATTRIBUTE = 'device.attributes["gpu.example.com"].partitions.exists(p, p == "1g")'
INCLUDES = 'device.attributes["gpu.example.com"].models.includes("a100")'
MULTI_ALLOCATION = "device.allowMultipleAllocations"


def claim(expression: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
                "selectors": [{"cel": {"expression": expression}}]}}]}}}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    default = start_server(tmp_path_factory.mktemp("default-gates"))
    gated = start_server(tmp_path_factory.mktemp("list-gates"), "--feature-gates",
                         "DRAListTypeAttributes=true,DRAConsumableCapacity=false")
    yield default, gated
    default.stop()
    gated.stop()


@pytest.mark.parametrize("expression,default_ok,gated_ok", [
    (LIST_ATTRIBUTE, False, True),
    (INCLUDES, False, True),
    (MULTI_ALLOCATION, True, False),
    ('device.driver == "gpu.example.com"', True, True),
], ids=["comprehension over an attribute", "includes()", "allowMultipleAllocations", "plain"])
def test_the_selector_environment_follows_the_gates_over_https(servers, expression, default_ok, gated_ok):
    default, gated = servers
    for server, ok in ((default, default_ok), (gated, gated_ok)):
        response = server.review("/validate", review_body(claim(expression)))
        assert response["allowed"] is ok, response
        if not ok:
            assert causes(response) == {(PATH, "FieldValueInvalid"): 1}


def test_a_suite_sets_its_own_gates(tmp_path):
    (tmp_path / "claim.yaml").write_text(json.dumps(claim(INCLUDES)))
    suite = {"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", "featureGates": {"DRAListTypeAttributes": True},
             "tests": [{"name": "includes() with list-type attributes", "object": "claim.yaml",
                        "expect": {"allowed": True}}]}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path / "suite.yaml")).returncode == 0
    # Without the suite's gate the command line's (default) gates apply and the selector is refused.
    suite.pop("featureGates")
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path / "suite.yaml")).returncode == 1
    assert cli("test", "--feature-gates", "DRAListTypeAttributes=true", str(tmp_path / "suite.yaml")).returncode == 0


def test_a_suite_with_an_unknown_gate_is_an_invalid_suite(tmp_path):
    suite = {"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", "featureGates": {"DRANoSuchGate": True},
             "tests": [{"name": "t", "object": {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                                "metadata": {"name": "d"}}, "expect": {"allowed": True}}]}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    result = cli("test", str(tmp_path / "suite.yaml"))
    assert result.returncode == 2
    assert "unrecognized feature gate: DRANoSuchGate" in result.stdout + result.stderr


def slice_with(**device_fields) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", **device_fields}]}}


LIST_SLICE = slice_with(attributes={"models": {"strings": ["a100", "h100"]}})
BINDING_SLICE = slice_with(bindsToNode=True, bindingConditions=["ready"], bindingFailureConditions=["failed"])


def test_offline_a_disabled_gate_drops_list_attributes_and_the_api_server_then_refuses(tmp_path):
    (tmp_path / "slice.yaml").write_text(json.dumps(LIST_SLICE))
    result = cli("review", "-o", "json", str(tmp_path / "slice.yaml"))
    assert result.returncode == 1
    [entry] = json.loads(result.stdout)["results"]
    response = entry["response"]
    assert causes(response) == {("spec.devices[0].attributes[models]", "FieldValueInvalid"): 1}
    assert "spec.devices[0].attributes[models].strings dropped: feature gate DRAListTypeAttributes is disabled" in \
        response["warnings"]
    enabled = cli("review", "-o", "json", "--feature-gates", "DRAListTypeAttributes=true", str(tmp_path / "slice.yaml"))
    assert enabled.returncode == 0, enabled.stdout
    assert not any("dropped" in w for w in json.loads(enabled.stdout)["results"][0]["response"].get("warnings", []))


def test_offline_dropped_fields_are_each_named_with_their_gate(tmp_path):
    (tmp_path / "slice.yaml").write_text(json.dumps(BINDING_SLICE))
    result = cli("review", "-o", "json", "--feature-gates", "DRADeviceBindingConditions=false",
                 str(tmp_path / "slice.yaml"))
    response = json.loads(result.stdout)["results"][0]["response"]
    dropped = [w for w in response["warnings"] if "dropped" in w]
    assert dropped == [f"spec.devices[0].{name} dropped: feature gate DRADeviceBindingConditions is disabled"
                       for name in ("bindingConditions", "bindingFailureConditions", "bindsToNode")]


def test_served_a_field_of_a_disabled_gate_says_the_gates_differ(servers):
    default, gated = servers
    # Default 1.36 gates: list-type attributes are off, so a cluster would never send them.
    response = default.review("/validate", review_body(LIST_SLICE))
    assert response["allowed"] is True
    assert response["warnings"] == [
        "dra-webhook: spec.devices[0].attributes[models].strings is set, but feature gate DRAListTypeAttributes is "
        "disabled in this webhook's --feature-gates; the cluster's gates differ (a cluster with it disabled drops "
        "the field)"]
    assert "warnings" not in gated.review("/validate", review_body(LIST_SLICE))
