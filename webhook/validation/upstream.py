"""Where each function of upstream's `pkg/apis/resource/validation/validation.go` (1.36) lives here.

Keys are the Go names (the five function-valued `var`s and the `requestNames.Has` method included).
A value is either the dotted path of the Python counterpart, or, where there is deliberately none,
the reason (a sentence). `tests/test_upstream_map.py` keeps the key set equal to the upstream file's
functions and imports every dotted path.
"""

from __future__ import annotations

_V = "webhook.validation."

UPSTREAM: dict[str, str] = {
    # Function-valued vars: aliases of core validation.
    "validateDriverName": _V + "names.validate_driver_name",
    "validateDeviceName": _V + "names.validate_dns_label",
    "validateDeviceClassName": _V + "names.validate_dns_subdomain",
    "validateRequestName": _V + "names.validate_dns_label",
    "validateCounterName": _V + "names.validate_dns_label",
    # Shared formats.
    "validatePoolName": _V + "poolname.validate_pool_name",
    "validateUID": _V + "uid.validate_uid",
    "validateNodeName": _V + "names.validate_node_name",
    "validateLabelValue": _V + "names.validate_label_value",
    "validateQualifiedName": _V + "qualifiedname.validate_qualified_name",
    "validateFullyQualifiedName": _V + "qualifiedname.validate_fully_qualified_name",
    "validateCIdentifier": _V + "qualifiedname.c_identifier_problems",
    "validateRawExtension": _V + "rawjson.validate_raw_extension",
    # ResourceClaim.
    "ValidateResourceClaim": _V + "resourceclaim.validate_resource_claim",
    "ValidateResourceClaimUpdate": _V + "resourceclaim.validate_resource_claim_update",
    "ValidateResourceClaimStatusUpdate": _V + "resourceclaim.validate_resource_claim_status_update",
    "validateResourceClaimSpec": _V + "resourceclaim.validate_resource_claim_spec",
    "validateDeviceClaim": _V + "deviceclaim.validate_device_claim",
    "requestNames.Has": _V + "requestref.has_request",
    "gatherRequestNames": _V + "requestref.gather_request_names",
    "validateDeviceRequest": _V + "deviceclaim.validate_device_request",
    "validateDeviceSubRequest": _V + "deviceclaim.validate_device_sub_request",
    "validateExactDeviceRequest": _V + "deviceclaim.validate_exact_device_request",
    "validateDeviceAllocationMode": _V + "deviceclaim.validate_device_allocation_mode",
    # Named _ref because ValidateDeviceClass (the DeviceClass object) has the same snake_case name.
    "validateDeviceClass": _V + "deviceclaim.validate_device_class_ref",
    "validateSelectorSlice": _V + "selectors.validate_selector_slice",
    "validateSelector": _V + "selectors.validate_selector",
    "validateCELSelector": "webhook.cel.validate_cel_selector",
    "convertCELErrorToValidationError": "folded into webhook.cel.validate_cel_selector, which turns the compiler's "
                                        "verdict into Invalid, Forbidden or InternalError",
    "validateDeviceConstraint": _V + "deviceclaim.validate_device_constraint",
    "validateDeviceClaimConfiguration": _V + "deviceclaim.validate_device_claim_configuration",
    "validateRequestNameRef": _V + "requestref.validate_request_name_ref",
    "validateDeviceConfiguration": _V + "deviceconfig.validate_device_configuration",
    "validateOpaqueConfiguration": _V + "deviceconfig.validate_opaque_configuration",
    # ResourceClaim status. Underscored because ValidateResourceClaimStatusUpdate has the same snake_case name.
    "validateResourceClaimStatusUpdate": _V + "claimstatus._validate_resource_claim_status_update",
    "gatherAllocatedDevices": _V + "claimstatus.gather_allocated_devices",
    "validateResourceClaimUserReference": _V + "claimstatus.validate_resource_claim_user_reference",
    "validateAllocationResult": _V + "claimstatus.validate_allocation_result",
    "validateDeviceAllocationResult": _V + "claimstatus.validate_device_allocation_result",
    "validateDeviceRequestAllocationResult": _V + "claimstatus.validate_device_request_allocation_result",
    "validateDeviceAllocationConfiguration": _V + "claimstatus.validate_device_allocation_configuration",
    "validateAllocationConfigSource": _V + "claimstatus.validate_allocation_config_source",
    "validateDeviceStatus": _V + "claimstatus.validate_device_status",
    "validateNetworkDeviceData": _V + "claimstatus.validate_network_device_data",
    # DeviceClass.
    "ValidateDeviceClass": _V + "deviceclass.validate_device_class",
    "ValidateDeviceClassUpdate": _V + "deviceclass.validate_device_class_update",
    "validateDeviceClassSpec": _V + "deviceclass.validate_device_class_spec",
    "validateDeviceClassConfiguration": _V + "deviceconfig.validate_device_configuration",
    # ResourceClaimTemplate. validate_resource_claim_template_update is the registry's composition
    # (create rules of the new object, then ValidateResourceClaimTemplateUpdate).
    "ValidateResourceClaimTemplate": _V + "resourceclaimtemplate.validate_resource_claim_template",
    "validateResourceClaimTemplateSpec": _V + "resourceclaimtemplate.validate_resource_claim_template_spec",
    "ValidateResourceClaimTemplateUpdate": _V + "resourceclaimtemplate.validate_resource_claim_template_update_only",
    # ResourceSlice.
    "ValidateResourceSlice": _V + "resourceslice.validate_resource_slice",
    "ValidateResourceSliceUpdate": _V + "resourceslice.validate_resource_slice_update",
    "validateResourceSliceSpec": _V + "resourceslice.validate_resource_slice_spec",
    "haveListAttributes": _V + "device.has_list_attribute",
    "haveDeviceTaints": "folded into webhook.validation.resourceslice._have_advanced_features",
    "haveConsumesCounters": "folded into webhook.validation.resourceslice._have_advanced_features",
    "lookupDevice": _V + "resourceslice.lookup_device",
    "validateCounterSet": _V + "device.validate_counter_set",
    "validateResourcePool": _V + "resourceslice.validate_resource_pool",
    "validateDevice": _V + "device.validate_device",
    "validateNodeAllocatableResourceMappings": _V + "device.validate_node_allocatable_resource_mappings",
    "numEntriesDeviceAttribute": _V + "device.num_entries_device_attribute",
    "validateDeviceCounterConsumption": _V + "device.validate_device_counter_consumption",
    "validateDeviceAttribute": _V + "device.validate_device_attribute",
    "validateDeviceAttributeStringValue": _V + "device.validate_device_attribute_string_value",
    "validateDeviceAttributeVersionValue": _V + "device.validate_device_attribute_version_value",
    "validateMultiAllocatableDeviceCapacity": "folded into webhook.validation.device._validate_capacity "
                                              "(allowMultipleAllocations: the requestPolicy is validated)",
    "validateSingleAllocatableDeviceCapacity": "folded into webhook.validation.device._validate_capacity "
                                               "(otherwise a requestPolicy is Forbidden)",
    "validateRequestPolicy": _V + "requestpolicy.validate_request_policy",
    "validateValidRequestValues": _V + "requestpolicy.validate_valid_request_values",
    "validateRequestPolicyValidValues": _V + "requestpolicy.validate_request_policy_valid_values",
    "validateRequestPolicyRange": _V + "requestpolicy.validate_request_policy_range",
    "validateRequestPolicyRangeStep": _V + "requestpolicy.validate_request_policy_range_step",
    "validateDeviceCounter": "none needed: any parsed quantity is a valid counter (the JSON decoder rejects the rest)",
    "validateDeviceBindingParameters": _V + "bindingconditions.validate_device_binding_parameters",
    # DeviceTaintRule, taints, tolerations.
    "ValidateDeviceTaintRule": _V + "devicetaintrule.validate_device_taint_rule",
    "ValidateDeviceTaintRuleUpdate": _V + "devicetaintrule.validate_device_taint_rule_update",
    "ValidateDeviceTaintRuleStatusUpdate": _V + "devicetaintrule.validate_device_taint_rule_status_update",
    "validateDeviceTaintRuleSpec": _V + "devicetaintrule.validate_device_taint_rule_spec",
    "validateDeviceTaintSelector": _V + "devicetaintrule.validate_device_taint_selector",
    "validateDeviceTaint": _V + "taints.validate_device_taint",
    "validateDeviceToleration": _V + "tolerations.validate_device_toleration",
    # Generic list and map helpers.
    "validateItems": "folded into webhook.validation._helpers.validate_slice (the per-item loop)",
    "validateSlice": _V + "_helpers.validate_slice",
    "validateSet": _V + "_helpers.validate_set",
    "validateMap": "inlined where a map is validated: webhook.validation.device._validate_attributes, "
                   "device._validate_capacity and device.validate_counter_map (names are cached per key)",
    "stringKey": "not needed: validate_set takes the key function, and as_str serves for string lists",
    "quantityKey": "folded into webhook.validation.requestpolicy.validate_request_policy_valid_values "
                   "(duplicates compare Value(), rounded up)",
    "truncateIfTooLong": _V + "_helpers.truncate_if_too_long",
}

# Kubernetes 1.37: functions that validation.go added (or replaced) against 1.36, and where they live.
UPSTREAM_1_37: dict[str, str] = {
    "validateNodeAllocatableResources": _V + "nodeallocatable.validate_node_allocatable_resources",
    "validateNodeAllocatableMapping": _V + "nodeallocatable.validate_node_allocatable_mapping",
    "validateNodeAllocatableOverheadMapping": _V + "nodeallocatable.validate_node_allocatable_overhead_mapping",
    "validatePartitionTypeAttribute": _V + "resourceslice.validate_partition_type_attribute",
    "lookupQualifiedAttribute": _V + "resourceslice.lookup_qualified_attribute",
    "validateSkipNodeOperations": _V + "skipnodeoperations.validate_skip_node_operations",
    "gatherConstraintAttributes": _V + "derivedattributes.gather_constraint_attributes",
    "isAttributeUsedByConstraint": _V + "derivedattributes.is_attribute_used_by_constraint",
    "validateDeviceDerivedAttributes": _V + "derivedattributes.validate_device_derived_attributes",
    "validateDeviceDerivedAttribute": _V + "derivedattributes.validate_device_derived_attribute",
    "validateCELExpression": "split by what it checks: webhook.cel.validate_cel_selector for selectors, "
                             "webhook.cel.validate_derived_attribute for derived attributes",
    "validateRequestPolicyRange": _V + "requestpolicy.validate_request_policy_range_1_37",
    "validateRequestPolicyRangeStep": _V + "requestpolicy.validate_request_policy_range_step_1_37",
    "validateInt64Range": _V + "requestpolicy.validate_int64_range",
    "rangeHasFractional": "folded into webhook.validation.requestpolicy.validate_request_policy_range_1_37",
    "isFractionalQuantity": _V + "requestpolicy.is_fractional_quantity",
    "quantityKeyAsDec": "folded into webhook.validation.requestpolicy.validate_request_policy_valid_values "
                        "(with DRAFractionalCapacityRange duplicates are equal decimals with their scale)",
    "quantityKeyInt": "folded into webhook.validation.requestpolicy.validate_request_policy_valid_values",
}
