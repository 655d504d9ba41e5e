"""gpu.nvidia.com and compute-domain.nvidia.com: NVIDIA's own unit tests, ported
(kubernetes-sigs/dra-driver-nvidia-gpu, formerly NVIDIA/k8s-dra-driver-gpu, commit
95932046683719c43b6a0dd9613c2e5aad5d6703; the tests below are the same at NVIDIA's 22407113).

Sources: cmd/webhook/main_test.go (TestResourceClaimValidatingWebhook: the feature-gate matrix and the
driver's messages), api/nvidia.com/resource/v1beta1/sharing_test.go (TestMpsPerDevicePinnedMemoryLimitNormalize:
the cases that need no allocated device), validate.go, computedomainconfig.go, iommu.go.
"""

from __future__ import annotations

import pytest

from drivercases import claim_with, fields, messages, profile_with_gates, template_with

GPU, CD = "gpu.nvidia.com", "compute-domain.nvidia.com"
GV = "resource.nvidia.com/v1beta1"
P0 = "spec.devices.config[0].opaque.parameters"
T0 = "spec.spec.devices.config[0].opaque.parameters"
INVALID, NOT_SUPPORTED, REQUIRED, FORBIDDEN = ("FieldValueInvalid", "FieldValueNotSupported", "FieldValueRequired",
                                               "FieldValueForbidden")
BOTH = profile_with_gates("gpu.nvidia.com:TimeSlicingSettings=true,gpu.nvidia.com:MPSSupport=true")
TS_ONLY = profile_with_gates("gpu.nvidia.com:TimeSlicingSettings=true")
MPS_ONLY = profile_with_gates("gpu.nvidia.com:MPSSupport=true")


def gpu_config(**sharing) -> dict:
    return {"apiVersion": GV, "kind": "GpuConfig", **({"sharing": sharing} if sharing else {})}


TS_DEFAULT = gpu_config(strategy="TimeSlicing", timeSlicingConfig={"interval": "Default"})
TS_INVALID = gpu_config(strategy="TimeSlicing", timeSlicingConfig={"interval": "Invalid Interval"})
MPS_NEGATIVE = gpu_config(strategy="MPS", mpsConfig={"defaultActiveThreadPercentage": -1})
MPS_50 = gpu_config(strategy="MPS", mpsConfig={"defaultActiveThreadPercentage": 50})


@pytest.mark.parametrize("build, prefix", [(claim_with, "spec"), (template_with, "spec.spec")])
def test_valid_gpu_config(build, prefix):
    """"valid GpuConfig in ResourceClaim" / "... ResourceClaimTemplate" (gates on)."""
    assert fields(build(GPU, TS_DEFAULT), BOTH) == []


@pytest.mark.parametrize("build, prefix", [(claim_with, "spec"), (template_with, "spec.spec")])
def test_invalid_gpu_configs(build, prefix):
    """"invalid GpuConfigs in ResourceClaim" / "... ResourceClaimTemplate": "2 configs failed to validate: ...
    unknown time-slice interval: Invalid Interval, ...; ... active thread percentage must not be negative"."""
    assert messages(build(GPU, TS_INVALID, MPS_NEGATIVE), BOTH) == [
        f'{prefix}.devices.config[0].opaque.parameters.sharing.timeSlicingConfig.interval: Unsupported value: '
        f'"Invalid Interval": supported values: "Default", "Short", "Medium", "Long"',
        f"{prefix}.devices.config[1].opaque.parameters.sharing.mpsConfig.defaultActiveThreadPercentage: "
        f"Invalid value: -1: should be greater than or equal to 0"]


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2", "v1"])
def test_conversion_cases(version):
    """"invalid GpuConfig in ResourceClaim v1beta2 (tests conversion)" and the like: every served version."""
    obj = claim_with(GPU, MPS_NEGATIVE)
    obj["apiVersion"] = f"resource.k8s.io/{version}"
    if version == "v1beta1":
        request = obj["spec"]["devices"]["requests"][0]
        request.update(request.pop("exactly"))
    assert fields(obj, BOTH) == [(f"{P0}.sharing.mpsConfig.defaultActiveThreadPercentage", INVALID)]


@pytest.mark.parametrize("build, path", [(claim_with, P0), (template_with, T0)])
def test_feature_gate_matrix(build, path):
    """"TimeSlicingStrategy rejected when TimeSlicingSettings feature gate is disabled", "MpsStrategy rejected
    when MPSSupport feature gate is disabled", in claims and templates, with the driver's own message."""
    ts_message = ('"TimeSlicing" is selected as the GPU sharing strategy, but the "TimeSlicingSettings" feature '
                  'gate is not enabled')
    mps_message = '"MPS" is selected as the GPU sharing strategy, but the "MPSSupport" feature gate is not enabled'
    assert messages(build(GPU, TS_DEFAULT), MPS_ONLY) == [f"{path}.sharing.strategy: Forbidden: {ts_message}"]
    assert messages(build(GPU, MPS_50), TS_ONLY) == [f"{path}.sharing.strategy: Forbidden: {mps_message}"]
    assert fields(build(GPU, TS_DEFAULT), TS_ONLY) == []
    assert fields(build(GPU, MPS_50), MPS_ONLY) == []
    # The driver's defaults: both gates off.
    assert fields(build(GPU, TS_DEFAULT)) == [(f"{path}.sharing.strategy", FORBIDDEN)]


@pytest.mark.parametrize("percentage, ok", [(-1, False), (0, True), (100, True), (101, False)])
def test_active_thread_percentage_bounds(percentage, ok):
    config = gpu_config(strategy="MPS", mpsConfig={"defaultActiveThreadPercentage": percentage})
    expected = [] if ok else [(f"{P0}.sharing.mpsConfig.defaultActiveThreadPercentage", INVALID)]
    assert fields(claim_with(GPU, config), BOTH) == expected


@pytest.mark.parametrize("description, default, per_device, bad", [
    # TestMpsPerDevicePinnedMemoryLimitNormalize (cases that need no allocated device)
    ("uuids, default is set", "2Gi", None, None),
    ("uuids, default is too low", "1M", None, "defaultPinnedDeviceMemoryLimit"),
    ("uuids, override is too low", None, {"UUID0": "1M"}, "defaultPerDevicePinnedMemoryLimit[UUID0]"),
    ("unit conversion Mi to M", "10Mi", None, None),
    ("unit conversion Gi to M", "1Gi", None, None),
    ("unit conversion M to M", "10M", None, None),
    ("unit conversion G to M", "1G", None, None),
    ("exactly one MiB", "1Mi", None, None),
    ("one byte under a MiB", "1048575", None, "defaultPinnedDeviceMemoryLimit"),
    ("not a quantity", "lots", None, "defaultPinnedDeviceMemoryLimit"),
])
def test_pinned_memory_limits(description, default, per_device, bad):
    mps = {}
    if default is not None:
        mps["defaultPinnedDeviceMemoryLimit"] = default
    if per_device is not None:
        mps["defaultPerDevicePinnedMemoryLimit"] = per_device
    expected = [] if bad is None else [(f"{P0}.sharing.mpsConfig.{bad}", INVALID)]
    assert fields(claim_with(GPU, gpu_config(strategy="MPS", mpsConfig=mps)), BOTH) == expected


def test_normalize_and_prepare_rules():
    # No sharing: Normalize leaves it (gates off) or makes it time-slicing (gate on); valid either way.
    assert fields(claim_with(GPU, gpu_config())) == []
    assert fields(claim_with(GPU, gpu_config()), BOTH) == []
    # Time-slicing without a sub-config: Normalize gives it the default interval.
    assert fields(claim_with(GPU, gpu_config(strategy="TimeSlicing")), BOTH) == []
    # An interval-less timeSlicingConfig panics the driver (nil *TimeSliceInterval).
    assert fields(claim_with(GPU, gpu_config(strategy="TimeSlicing", timeSlicingConfig={})), BOTH) == [
        (f"{P0}.sharing.timeSlicingConfig.interval", REQUIRED)]
    # GetTimeSlicingConfig / GetMpsConfig refuse the other strategy's sub-config at Prepare.
    assert fields(claim_with(GPU, gpu_config(strategy="TimeSlicing", timeSlicingConfig={"interval": "Long"},
                                             mpsConfig={})), BOTH) == [(f"{P0}.sharing.mpsConfig", FORBIDDEN)]
    assert fields(claim_with(GPU, gpu_config(strategy="MPS", timeSlicingConfig={"interval": "Long"})), BOTH) == [
        (f"{P0}.sharing.timeSlicingConfig", FORBIDDEN)]
    assert fields(claim_with(GPU, gpu_config(strategy="Exclusive")), BOTH) == [
        (f"{P0}.sharing.strategy", NOT_SUPPORTED)]
    # multiUser (since 2026-05-20) is a boolean; strict decoding refuses fields the release does not have.
    assert fields(claim_with(GPU, gpu_config(strategy="MPS", mpsConfig={"multiUser": True})), BOTH) == []
    assert fields(claim_with(GPU, gpu_config(strategy="MPS", mpsConfig={"multiUser": "yes"})), BOTH) == [
        (f"{P0}.sharing.mpsConfig.multiUser", "FieldValueTypeInvalid")]
    assert fields(claim_with(GPU, gpu_config(strategy="MPS", mpsConfig={"multiuser": True})), BOTH) == [
        (f"{P0}.sharing.mpsConfig.multiuser", FORBIDDEN)]


def test_mig_device_config():
    mig = {"apiVersion": GV, "kind": "MigDeviceConfig"}
    assert fields(claim_with(GPU, {**mig, "sharing": {"strategy": "TimeSlicing"}}), BOTH) == []
    assert fields(claim_with(GPU, {**mig, "sharing": {"strategy": "MPS", "mpsConfig": {
        "defaultActiveThreadPercentage": 101}}}), BOTH) == [
        (f"{P0}.sharing.mpsConfig.defaultActiveThreadPercentage", INVALID)]
    # MigDeviceSharing has no timeSlicingConfig: the strict decoder refuses it.
    assert fields(claim_with(GPU, {**mig, "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {}}}),
                  BOTH) == [(f"{P0}.sharing.timeSlicingConfig", FORBIDDEN)]


def test_vfio_device_config_follows_the_plugin():
    vfio = {"apiVersion": GV, "kind": "VfioDeviceConfig", "iommu": {"backendPolicy": "PreferIommuFD"}}
    passthrough = profile_with_gates("gpu.nvidia.com:PassthroughSupport=true")
    assert fields(claim_with(GPU, vfio), passthrough) == []
    assert fields(claim_with(GPU, vfio)) == [(P0, FORBIDDEN)]
    bad = {**vfio, "iommu": {"backendPolicy": "IommuFDOnly"}}
    assert fields(claim_with(GPU, bad), passthrough) == [(f"{P0}.iommu.backendPolicy", NOT_SUPPORTED)]


def test_compute_domain_kinds_belong_to_their_own_driver():
    channel = {"apiVersion": GV, "kind": "ComputeDomainChannelConfig", "domainID": "a3f1c2"}
    daemon = {"apiVersion": GV, "kind": "ComputeDomainDaemonConfig", "domainID": "a3f1c2"}
    assert fields(claim_with(CD, channel, daemon)) == []
    assert fields(claim_with(CD, {**channel, "allocationMode": "All"})) == []
    # computedomainconfig.go: "domainID cannot be empty"
    assert fields(claim_with(CD, {**channel, "domainID": ""})) == [(f"{P0}.domainID", INVALID)]
    assert fields(claim_with(CD, {"apiVersion": GV, "kind": "ComputeDomainDaemonConfig"})) == [
        (f"{P0}.domainID", REQUIRED)]
    # The GPU plugin does not apply them (its webhook lets them through).
    assert fields(claim_with(GPU, channel)) == [(f"{P0}.kind", NOT_SUPPORTED)]
    assert fields(claim_with(CD, TS_DEFAULT)) == [(f"{P0}.kind", NOT_SUPPORTED)]
