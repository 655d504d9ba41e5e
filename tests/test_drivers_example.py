"""gpu.example.com: dra-example-driver's own unit tests, ported (commit 31914ceacda29bbc55208ef75e68c0991e1c9568).

Sources: api/example.com/resource/gpu/v1alpha1/validate_test.go (TestGpuConfigValidate), api_test.go
(TestGpuConfigNormalize) and cmd/dra-example-webhook/main_test.go (TestResourceClaimValidatingWebhook).
The profile follows what the kubelet plugin does (Normalize, Validate, Get*Config); where the driver's
webhook (Validate only) says otherwise, the case says so and expects the plugin's verdict.
"""

from __future__ import annotations

import json

import pytest

from drivercases import class_with, claim_with, fields, messages, template_with
from webhook.profile import make_profile

DRIVER = "gpu.example.com"
GV = {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig"}
P0 = "spec.devices.config[0].opaque.parameters"
INVALID, NOT_SUPPORTED, REQUIRED, FORBIDDEN = ("FieldValueInvalid", "FieldValueNotSupported", "FieldValueRequired",
                                               "FieldValueForbidden")


def gpu(**fields_) -> dict:
    return {**GV, **fields_}


# TestGpuConfigValidate: name -> (config, expected causes, note)
VALIDATE_CASES = {
    # Validate: "no sharing strategy set". Normalize (plugin) fills in TimeSlicing/Default first: accepted.
    "empty GpuConfig": (gpu(), []),
    "empty GpuConfig.Sharing": (gpu(sharing={}), [(f"{P0}.sharing.strategy", REQUIRED)]),
    "unknown GPU sharing strategy": (gpu(sharing={"strategy": "unknown"}),
                                     [(f"{P0}.sharing.strategy", NOT_SUPPORTED)]),
    "empty GpuConfig.Sharing.TimeSlicingConfig": (
        gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {}}),
        [(f"{P0}.sharing.timeSlicingConfig.interval", REQUIRED)]),
    "valid GpuConfig with TimeSlicing": (gpu(sharing={"strategy": "TimeSlicing",
                                                      "timeSlicingConfig": {"interval": "Medium"}}), []),
    "negative GpuConfig.Sharing.SpacePartitioningConfig.PartitionCount": (
        gpu(sharing={"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": -1}}),
        [(f"{P0}.sharing.spacePartitioningConfig.partitionCount", INVALID)]),
    "valid GpuConfig with SpacePartitioning": (
        gpu(sharing={"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 1000}}), []),
    "default GpuConfig": (gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Default"}}),
                          []),
    # Validate ignores the other strategy's sub-config; GetSpacePartitioningConfig refuses it at Prepare.
    "invalid TimeSlicingConfig ignored with strategy is SpacePartitioning": (
        gpu(sharing={"strategy": "SpacePartitioning", "timeSlicingConfig": {"interval": "Short"},
                     "spacePartitioningConfig": {"partitionCount": 1}}),
        [(f"{P0}.sharing.timeSlicingConfig", FORBIDDEN)]),
    # The same at Prepare (GetTimeSlicingConfig): refused, where Validate alone accepts it.
    "invalid SpacePartitioningConfig ignored with strategy is TimeSlicing": (
        gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Medium"},
                     "spacePartitioningConfig": {"partitionCount": 1}}),
        [(f"{P0}.sharing.spacePartitioningConfig", FORBIDDEN)]),
}


@pytest.mark.parametrize("name", list(VALIDATE_CASES))
def test_gpu_config_validate(name):
    config, expected = VALIDATE_CASES[name]
    assert fields(claim_with(DRIVER, config)) == sorted(expected)


# TestGpuConfigNormalize: every normalized config is valid, and so is every input Normalize accepts.
NORMALIZE_CASES = {
    "empty GpuConfig": gpu(),
    "empty GpuConfig with SpacePartitioning": gpu(sharing={"strategy": "SpacePartitioning"}),
    "normalized empty GpuConfig": gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Default"}}),
    "normalized SpacePartitioning": gpu(sharing={"strategy": "SpacePartitioning",
                                                 "spacePartitioningConfig": {"partitionCount": 1}}),
    "default GpuConfig is already normalized": gpu(sharing={"strategy": "TimeSlicing",
                                                            "timeSlicingConfig": {"interval": "Default"}}),
}


@pytest.mark.parametrize("name", list(NORMALIZE_CASES))
def test_gpu_config_normalize(name):
    assert fields(claim_with(DRIVER, NORMALIZE_CASES[name])) == []


def test_full_gpu_config_of_normalize_is_refused_at_prepare():
    """TestGpuConfigNormalize "full GpuConfig" keeps both sub-configs; GetSpacePartitioningConfig then refuses it."""
    config = gpu(sharing={"strategy": "SpacePartitioning", "timeSlicingConfig": {"interval": "Short"},
                          "spacePartitioningConfig": {"partitionCount": 5}})
    assert fields(claim_with(DRIVER, config)) == [(f"{P0}.sharing.timeSlicingConfig", FORBIDDEN)]


INVALID_INTERVAL = gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "InvalidInterval"}})
INVALID_COUNT = gpu(sharing={"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": -1}})
VALID_CONFIGS = (gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Default"}}),
                 gpu(sharing={"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 10}}))


@pytest.mark.parametrize("build, prefix", [(claim_with, "spec"), (template_with, "spec.spec")])
def test_resource_claim_validating_webhook(build, prefix):
    """TestResourceClaimValidatingWebhook: two valid configs pass; two invalid ones fail, each at its own path
    ("2 configs failed to validate: object at spec.devices.config[0].opaque.parameters is invalid: unknown
    time-slice interval: InvalidInterval; object at ...config[1]... invalid partition count: -1")."""
    assert fields(build(DRIVER, *VALID_CONFIGS)) == []
    obj = build(DRIVER, INVALID_INTERVAL, INVALID_COUNT)
    assert messages(obj) == [
        f'{prefix}.devices.config[0].opaque.parameters.sharing.timeSlicingConfig.interval: Unsupported value: '
        f'"InvalidInterval": supported values: "Default", "Short", "Medium", "Long"',
        f"{prefix}.devices.config[1].opaque.parameters.sharing.spacePartitioningConfig.partitionCount: "
        f"Invalid value: -1: should be greater than or equal to 0"]


def test_other_drivers_configs_pass_and_strict_decoding_refuses_unknown_fields():
    assert fields(claim_with("other.example.com", {"anything": [1, 2]})) == []
    assert fields(claim_with(DRIVER, gpu(sharing={"strategy": "TimeSlicing", "timeSlicingConfig": {
        "interval": "Long"}, "foo": 1}))) == [(f"{P0}.sharing.foo", FORBIDDEN)]
    assert fields(claim_with(DRIVER, {"kind": "GpuConfig"})) == [(f"{P0}.apiVersion", REQUIRED)]
    assert fields(claim_with(DRIVER, {**GV, "kind": "NetConfig"})) == [(f"{P0}.kind", NOT_SUPPORTED)]


def test_device_class_configs_are_checked_as_the_plugin_applies_them():
    assert fields(class_with(DRIVER, INVALID_COUNT)) == [
        ("spec.config[0].opaque.parameters.sharing.spacePartitioningConfig.partitionCount", INVALID)]
    assert fields(class_with(DRIVER, *VALID_CONFIGS)) == []


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36", "1.37"])
def test_every_release_profile(version):
    profile = make_profile(version)
    assert fields(claim_with(DRIVER, INVALID_COUNT), profile) == [
        (f"{P0}.sharing.spacePartitioningConfig.partitionCount", INVALID)]
    assert fields(claim_with(DRIVER, *VALID_CONFIGS), profile) == []


def test_old_api_versions_report_at_the_same_paths():
    obj = claim_with(DRIVER, INVALID_COUNT)
    obj["apiVersion"] = "resource.k8s.io/v1beta1"
    request = obj["spec"]["devices"]["requests"][0]
    request.update(request.pop("exactly"))
    assert fields(obj) == [(f"{P0}.sharing.spacePartitioningConfig.partitionCount", INVALID)]


def test_updates_of_a_stored_claim_are_not_rechecked():
    """A claim's spec is immutable: its configurations were checked when it was created."""
    from drivercases import review_body, validation_causes
    from webhook.profile import DEFAULT

    obj = claim_with(DRIVER, INVALID_COUNT)
    obj["metadata"]["resourceVersion"] = "7"
    causes, _ = validation_causes(review_body(obj, operation="UPDATE", old=obj), DEFAULT)
    assert not causes


def test_device_class_updates_are_checked_only_when_the_configurations_change():
    from drivercases import review_body, validation_causes
    from webhook.profile import DEFAULT

    stored = class_with(DRIVER, INVALID_COUNT)  # stored before the profile existed
    stored["metadata"]["resourceVersion"] = "3"
    relabelled = json.loads(json.dumps(stored))
    relabelled["metadata"]["labels"] = {"team": "ml"}
    causes, _ = validation_causes(review_body(relabelled, operation="UPDATE", old=stored), DEFAULT)
    assert not causes
    changed = json.loads(json.dumps(stored))
    changed["spec"]["config"].append({"opaque": {"driver": DRIVER, "parameters": VALID_CONFIGS[0]}})
    causes, _ = validation_causes(review_body(changed, operation="UPDATE", old=stored), DEFAULT)
    assert sorted(causes) == [("spec.config[0].opaque.parameters.sharing.spacePartitioningConfig.partitionCount",
                               INVALID)]
