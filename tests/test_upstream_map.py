"""Every function of upstream's resource validation.go has an entry in webhook.validation.upstream."""

from __future__ import annotations

import importlib
import re

import pytest

from webhook.validation.upstream import UPSTREAM, UPSTREAM_1_37

# The functions of kubernetes/kubernetes pkg/apis/resource/validation/validation.go at commit
# 7fb3ca259d5bac187f7d325f9663e2b07fc447f5 (master, 27 Apr 2026, the 1.36 code line five days after
# v1.36.0), in file order: every `func` (generic helpers included), the `requestNames.Has` method and
# the five function-valued vars (validateDriverName ... validateCounterName).
UPSTREAM_1_36 = [
    "validateDriverName", "validateDeviceName", "validateDeviceClassName", "validateRequestName",
    "validateCounterName",
    "validatePoolName", "validateUID", "ValidateResourceClaim", "ValidateResourceClaimUpdate",
    "ValidateResourceClaimStatusUpdate", "validateResourceClaimSpec", "validateDeviceClaim", "requestNames.Has",
    "gatherRequestNames", "gatherAllocatedDevices", "validateDeviceRequest", "validateDeviceSubRequest",
    "validateExactDeviceRequest", "validateDeviceAllocationMode", "validateDeviceClass", "validateSelectorSlice",
    "validateSelector", "validateCELSelector", "convertCELErrorToValidationError", "validateDeviceConstraint",
    "validateDeviceClaimConfiguration", "validateRequestNameRef", "validateDeviceConfiguration",
    "validateOpaqueConfiguration", "validateResourceClaimStatusUpdate", "validateResourceClaimUserReference",
    "validateAllocationResult", "validateDeviceAllocationResult", "validateDeviceRequestAllocationResult",
    "validateDeviceAllocationConfiguration", "validateAllocationConfigSource", "ValidateDeviceClass",
    "ValidateDeviceClassUpdate", "validateDeviceClassSpec", "validateDeviceClassConfiguration",
    "ValidateResourceClaimTemplate", "validateResourceClaimTemplateSpec", "ValidateResourceClaimTemplateUpdate",
    "validateNodeName", "ValidateResourceSlice", "ValidateResourceSliceUpdate", "validateResourceSliceSpec",
    "haveListAttributes", "haveDeviceTaints", "haveConsumesCounters", "lookupDevice", "validateCounterSet",
    "validateResourcePool", "validateDevice", "validateNodeAllocatableResourceMappings",
    "numEntriesDeviceAttribute", "validateDeviceCounterConsumption", "validateDeviceAttribute",
    "validateDeviceAttributeStringValue", "validateDeviceAttributeVersionValue",
    "validateMultiAllocatableDeviceCapacity", "validateSingleAllocatableDeviceCapacity", "validateRequestPolicy",
    "validateValidRequestValues", "validateRequestPolicyValidValues", "validateRequestPolicyRange",
    "validateRequestPolicyRangeStep", "validateDeviceCounter", "validateQualifiedName",
    "validateFullyQualifiedName", "validateCIdentifier", "validateItems", "validateSlice", "validateSet",
    "stringKey", "quantityKey", "validateMap", "truncateIfTooLong", "validateDeviceStatus", "validateRawExtension",
    "validateNetworkDeviceData", "ValidateDeviceTaintRule", "ValidateDeviceTaintRuleUpdate",
    "validateDeviceTaintRuleSpec", "validateDeviceTaintSelector", "validateDeviceTaint", "validateDeviceToleration",
    "validateLabelValue", "validateDeviceBindingParameters", "ValidateDeviceTaintRuleStatusUpdate",
]

DOTTED = re.compile(r"webhook(\.\w+)+")
# Names of this package mentioned in a reason, e.g. "webhook.validation.device._validate_capacity".
MENTIONED = re.compile(r"\bwebhook(?:\.\w+)+")


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_keys_are_the_upstream_functions():
    assert len(UPSTREAM_1_36) == len(set(UPSTREAM_1_36))
    assert set(UPSTREAM) - set(UPSTREAM_1_36) == set()
    assert set(UPSTREAM_1_36) - set(UPSTREAM) == set()


def _assert_counterpart(go_name: str, target: str) -> None:
    if DOTTED.fullmatch(target):
        assert callable(_resolve(target)), target
        return
    # A reason: a sentence, and every function of ours it names exists.
    assert " " in target, f"{go_name}: neither a dotted path nor a reason: {target!r}"
    for dotted in MENTIONED.findall(target):
        assert callable(_resolve(dotted)), dotted


@pytest.mark.parametrize("go_name", UPSTREAM_1_36)
def test_counterpart_imports_and_is_callable(go_name):
    _assert_counterpart(go_name, UPSTREAM[go_name])


@pytest.mark.parametrize("go_name", sorted(UPSTREAM_1_37))
def test_1_37_counterpart_imports_and_is_callable(go_name):
    _assert_counterpart(go_name, UPSTREAM_1_37[go_name])
