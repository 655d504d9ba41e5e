"""webhook.limits pins the values of k8s.io/api resource/v1 types.go at v0.36.0 (Kubernetes 1.36)."""

from __future__ import annotations

import ast
import pathlib

import webhook.limits as limits

# Our own copy of the 1.36 values (resource/v1 types.go; DeviceTaintRuleStatusMaxConditions from
# resource/v1beta2; CapacityRequestPolicyDiscreteMaxOptions from the internal types; the key length
# from validation.go). A change of a limit must show up here as a deliberate edit.
PINNED = {
    "DRIVER_NAME_MAX_LENGTH": 63,
    "RESOURCE_SLICE_MAX_SHARED_CAPACITY": 128,
    "RESOURCE_SLICE_MAX_DEVICES": 128,
    "RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES": 64,
    "POOL_NAME_MAX_LENGTH": 253,
    "BINDING_CONDITIONS_MAX_SIZE": 4,
    "BINDING_FAILURE_CONDITIONS_MAX_SIZE": 4,
    "RESOURCE_SLICE_MAX_COUNTER_SETS": 8,
    "RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET": 32,
    "RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE": 2,
    "RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION": 32,
    "RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE": 32,
    "RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE": 48,
    "DEVICE_MAX_DOMAIN_LENGTH": 63,
    "DEVICE_MAX_ID_LENGTH": 32,
    "DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH": 64,
    "DEVICE_TAINTS_MAX_LENGTH": 16,
    "ALLOCATION_RESULTS_MAX_SIZE": 32,
    "DEVICE_REQUESTS_MAX_SIZE": 32,
    "DEVICE_CONSTRAINTS_MAX_SIZE": 32,
    "DEVICE_CONFIG_MAX_SIZE": 32,
    "DEVICE_SELECTORS_MAX_SIZE": 32,
    "FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE": 8,
    "DEVICE_TOLERATIONS_MAX_LENGTH": 16,
    "CEL_SELECTOR_EXPRESSION_MAX_COST": 1000000,
    "CEL_SELECTOR_EXPRESSION_MAX_LENGTH": 10240,
    "OPAQUE_PARAMETERS_MAX_LENGTH": 10240,
    "RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE": 256,
    "ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS": 8,
    "ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH": 10240,
    "NETWORK_DEVICE_DATA_MAX_IPS": 16,
    "NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH": 256,
    "NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH": 128,
    "DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS": 8,
    "RESOURCE_POOL_STATUS_REQUEST_LIMIT_DEFAULT": 100,
    "RESOURCE_POOL_STATUS_REQUEST_LIMIT_MAX": 1000,
    "CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS": 10,
    "ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH": 96,
    "COUNTER_MAX_KEY_LENGTH": 63,  # validation.DNS1123LabelMaxLength, validateMap's shortening of counter names
    # Kubernetes 1.34 (k8s.io/api v0.34.0 resource/v1 types.go).
    "DEVICE_TAINTS_MAX_LENGTH_1_34": 4,
    "RESOURCE_SLICE_MAX_SHARED_COUNTERS": 32,
    "RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE": 32,
    "RESOURCE_SLICE_MAX_DEVICE_COUNTERS_PER_SLICE": 1024,
    # Added by Kubernetes 1.37 (types.go of the release's resource/v1).
    "DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE": 2,
    "DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE": 32,
    "DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST": 1000000,
}


def _defined() -> dict[str, int]:
    return {name: value for name, value in vars(limits).items() if name.isupper()}


def test_every_limit_is_pinned_with_its_1_36_value():
    assert _defined() == PINNED


def test_no_other_module_defines_its_own_copy():
    # One fact in one place: modules import these names from webhook.limits, never assign them.
    root = pathlib.Path(limits.__file__).parent
    copies = []
    for source in sorted(root.rglob("*.py")):
        if source.name == "limits.py" and source.parent == root:
            continue
        for node in ast.parse(source.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            copies.extend(f"{source.relative_to(root)}: {t.id}" for t in targets
                          if isinstance(t, ast.Name) and t.id in PINNED)
    assert copies == []
