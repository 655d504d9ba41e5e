"""Product fixes the upstream oracle's differential found (tests/upstream): each case failed before its fix."""

from __future__ import annotations

import copy

from webhook import admit
from webhook.offline import loading
from webhook.profile import make_profile
from webhook.review import decode_review

PROFILE = make_profile("1.36")


def _review(obj, old=None, sub_resource=""):
    body = loading.as_review(obj, uid="u", operation="UPDATE" if old is not None else "CREATE", old=old,
                             sub_resource=sub_resource)
    return admit.review_manifest(decode_review(body), profile=PROFILE)


def _claim():
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default", "resourceVersion": "1", "labels": {"app": "x"}},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}


def _allocated(claim):
    out = copy.deepcopy(claim)
    out["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "d"}]}}}
    return out


def test_a_status_update_is_validated_against_the_stored_spec():
    """The status strategy keeps the stored spec (PrepareForUpdate): a request renamed in the sent spec does not
    make the allocation's request unknown."""
    old = _claim()
    new = _allocated(old)
    new["spec"]["devices"]["requests"][0]["name"] = "renamed"
    response = _review(new, old, "status")
    assert response.allowed, response.status


def test_a_status_update_keeps_the_stored_labels():
    """metav1.ResetObjectMetaForStatus: labels sent with a status update are not the object's, nor validated."""
    old = _claim()
    new = _allocated(old)
    new["metadata"]["labels"] = {"/bad": "x"}
    assert _review(new, old, "status").allowed


def test_the_spec_is_still_validated_on_a_plain_update():
    old = _claim()
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"/bad": "x"}
    response = _review(new, old)
    assert not response.allowed
    assert {c["field"] for c in response.status["details"]["causes"]} >= {"metadata.labels"}


def test_a_type_error_refusal_carries_no_unknown_field_warnings():
    """The API server's decoder fails on the type error; strict-decoding warnings exist only for a decoded object."""
    claim = _claim()
    claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = "two"
    claim["spec"]["bogus"] = 1
    response = _review(claim)
    assert not response.allowed and response.status["code"] == 400
    assert not [w for w in response.warnings if "unknown field" in w]


def test_1_37_drops_the_default_partition_type_attribute_with_its_gate_off():
    """dropDisabledDRAPartitionableDevicesTypeFields (1.37 resourcepoolstatusrequest strategy): offline, the field is
    dropped before validation, not refused."""
    obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusRequest", "metadata": {"name": "r"},
           "spec": {"driver": "gpu.example.com", "limit": 10, "defaultPartitionTypeAttribute": "profile"}}
    body = loading.as_review(obj, uid="u")
    response = admit.review_manifest(decode_review(body), profile=make_profile(
        "1.37", runtime_config="resource.k8s.io/v1alpha3=true"))
    assert response.allowed, response.status
    assert any("defaultPartitionTypeAttribute dropped" in w for w in response.warnings)


def test_1_34_keeps_distinct_attribute_with_consumable_capacity_off():
    """1.34's drop step clears a copy of each constraint, so distinctAttribute stays and is validated; 1.35 drops
    it, and the constraint left empty needs matchAttribute."""
    claim = _claim()
    claim["metadata"].pop("resourceVersion")
    claim["spec"]["devices"]["constraints"] = [{"requests": ["gpu"], "distinctAttribute": "gpu.example.com/index"}]
    body = loading.as_review(claim, uid="u")
    response = admit.review_manifest(decode_review(body), profile=make_profile("1.34"))
    assert response.allowed, response.status
    assert not [w for w in response.warnings if "distinctAttribute dropped" in w]
    later = admit.review_manifest(decode_review(body), profile=make_profile("1.35"))
    assert not later.allowed
    assert [c["field"] for c in later.status["details"]["causes"]] == ["spec.devices.constraints[0].matchAttribute"]


def test_null_metadata_is_placed_in_the_namespace():
    """`metadata: null` is an empty ObjectMeta to the API server; the request's namespace fills it."""
    claim = _claim()
    claim["metadata"] = None
    response = _review(claim)
    fields = {c["field"] for c in response.status["details"]["causes"]}
    assert "metadata.namespace" not in fields and "metadata.name" in fields


def test_null_list_elements_and_map_values_are_zero_values():
    """Go's decoder makes a null list element an empty struct (then validated) and a null map value a zero
    value: a null counter is a counter of 0, accepted; a null device is a device with an empty name, Invalid (a DNS label)."""
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                       "sharedCounters": [{"name": "c", "counters": {"memory": None}}]}}
    assert _review(slice_).allowed
    slice_["spec"].pop("sharedCounters")
    slice_["spec"]["devices"] = [{"name": "d"}, None]
    response = _review(slice_)
    assert response.status["code"] == 422
    assert ("spec.devices[1].name", "FieldValueInvalid") in {(c["field"], c["reason"])
                                                              for c in response.status["details"]["causes"]}


def _causes(response) -> list[tuple[str, str]]:
    return sorted((c["field"], c["reason"]) for c in ((response.status or {}).get("details") or {}).get("causes", []))


def _review_in(version, obj, old=None, sub_resource="", gates=None):
    body = loading.as_review(obj, uid="u", operation="UPDATE" if old is not None else "CREATE", old=old,
                             sub_resource=sub_resource)
    return admit.review_manifest(decode_review(body), profile=make_profile(version, gates))


_READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Ready"}


def _with_device_status(claim, *conditions):
    out = copy.deepcopy(claim)
    out["status"]["devices"] = [{"driver": "gpu.example.com", "pool": "p", "device": "d",
                                 "conditions": [dict(c) for c in conditions]}]
    return out


def test_1_37_condition_checks_say_what_the_declarative_rules_say():
    """apimachinery v0.37's ValidateConditions: a repeated type at the item, an empty type or status Required;
    before, the Duplicate is at `.type`, an empty type Invalid (a qualified name) and an empty status NotSupported."""
    old = _allocated(_claim())
    new = _with_device_status(old, _READY, _READY, {**_READY, "type": "", "status": ""})
    at = "status.devices[0].conditions"
    assert _causes(_review_in("1.36", new, old, "status")) == sorted([
        (f"{at}[1].type", "FieldValueDuplicate"),
        (f"{at}[2].type", "FieldValueInvalid"), (f"{at}[2].type", "FieldValueInvalid"),  # name part: empty, regex
        (f"{at}[2].status", "FieldValueNotSupported")])
    assert _causes(_review_in("1.37", new, old, "status")) == sorted([
        (f"{at}[1]", "FieldValueDuplicate"), (f"{at}[2].type", "FieldValueRequired"),
        (f"{at}[2].status", "FieldValueRequired")])


def test_1_37_taint_rule_conditions_in_the_declarative_form():
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
            "metadata": {"name": "r", "resourceVersion": "1"},
            "spec": {"taint": {"key": "k", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"}}}
    new = copy.deepcopy(rule)
    new["status"] = {"conditions": [_READY, _READY]}
    body = loading.as_review(new, uid="u", operation="UPDATE", old=rule, sub_resource="status")
    profile = make_profile("1.37", runtime_config="resource.k8s.io/v1alpha3=true")
    response = admit.review_manifest(decode_review(body), profile=profile)
    assert _causes(response) == [("status.conditions[1]", "FieldValueDuplicate")]


def test_1_34_reports_a_repeated_status_key_at_its_key_field():
    """1.34's validateSet names the key field (`uid`, `deviceID`); 1.35 reports the item."""
    old = _allocated(_claim())
    new = _with_device_status(old)
    new["status"]["devices"].append(dict(new["status"]["devices"][0]))
    consumer = {"resource": "pods", "name": "p", "uid": "2d2a54b4-3f3c-4b41-8c2b-5cf1b2b0b0aa"}
    new["status"]["reservedFor"] = [consumer, {**consumer, "name": "q"}]
    assert _causes(_review_in("1.34", new, old, "status")) == sorted([
        ("status.devices[1].deviceID", "FieldValueDuplicate"), ("status.reservedFor[1].uid", "FieldValueDuplicate")])
    assert _causes(_review_in("1.35", new, old, "status")) == sorted([
        ("status.devices[1]", "FieldValueDuplicate"), ("status.reservedFor[1]", "FieldValueDuplicate")])


def test_an_empty_share_id_is_no_share_id():
    """structured.MakeSharedDeviceID keys an absent and an empty shareID alike: the device status of a result
    with shareID "" is allocated (the empty shareID itself is Invalid)."""
    old = _claim()
    new = _with_device_status(_allocated(old))
    new["status"]["allocation"]["devices"]["results"][0]["shareID"] = ""
    causes = _causes(_review_in("1.36", new, old, "status", {"DRAConsumableCapacity": True}))
    assert causes == [("status.allocation.devices.results[0].shareID", "FieldValueInvalid")]


def _template(memory):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "default", "resourceVersion": "1"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com", "capacity": {"requests": {"memory": memory}}}}]}}}}


def test_a_quantity_rewritten_in_another_form_leaves_the_spec_unchanged():
    """apiequality.Semantic compares quantities by value: "1Gi" as "1024Mi" (or 1073741824) is no change of an
    immutable spec; another value is."""
    gates = {"DRAConsumableCapacity": True}
    for same in ("1024Mi", 1073741824, " 1Gi"):
        response = _review_in("1.36", _template(same), _template("1Gi"), gates=gates)
        assert response.allowed, (same, response.status)
    changed = _review_in("1.36", _template("2Gi"), _template("1Gi"), gates=gates)
    assert _causes(changed) == [("spec", "FieldValueInvalid")]


def test_only_quantity_fields_compare_by_value():
    """A request name "1k" renamed "1000" is a change (a string, not a quantity), though both read as 1000."""
    old, new = _template("1Gi"), _template("1Gi")
    old["spec"]["spec"]["devices"]["requests"][0]["name"] = "1k"
    new["spec"]["spec"]["devices"]["requests"][0]["name"] = "1000"
    response = _review_in("1.36", new, old, gates={"DRAConsumableCapacity": True})
    assert _causes(response) == [("spec", "FieldValueInvalid")]


def test_an_allocation_rewritten_in_other_forms_is_unchanged():
    """The allocation is immutable for apiequality.Semantic: a consumed quantity with a space Go's parser trims,
    a timestamp at another offset for the same instant."""
    old = _allocated(_claim())
    old["status"]["allocation"]["allocationTimestamp"] = "2026-01-01T00:00:00Z"
    new = copy.deepcopy(old)
    new["status"]["allocation"]["allocationTimestamp"] = "2026-01-01T01:00:00+01:00"
    assert _review_in("1.36", new, old, "status").allowed
    new["status"]["allocation"]["allocationTimestamp"] = "2026-01-01T00:00:01Z"
    assert _causes(_review_in("1.36", new, old, "status")) == [("status.allocation", "FieldValueInvalid")]


def test_a_status_update_gets_the_status_defaults():
    """The API server defaults the whole body of a status update: a result toleration without operator (a null
    one is an empty struct) gets Equal before 1.37 validates result tolerations."""
    old = _claim()
    new = _allocated(old)
    new["status"]["allocation"]["devices"]["results"][0]["tolerations"] = [None, {"key": "k"}]
    response = _review_in("1.37", new, old, "status", {"DRADeviceTaints": True})
    assert response.allowed, response.status
    assert {(op["op"], op["path"]) for op in response.patch} == {
        ("add", "/status/allocation/devices/results/0/tolerations/0/operator"),
        ("add", "/status/allocation/devices/results/0/tolerations/1/operator")}


def test_the_stored_object_of_an_update_is_defaulted_too():
    """The old object comes from storage, defaulted when written and when read: an unchanged template that leaves
    allocationMode and count to their defaults is no change of its immutable spec (the oracle allows it)."""
    template = _template("1Gi")
    response = _review_in("1.36", copy.deepcopy(template), template, gates={"DRAConsumableCapacity": True})
    assert response.allowed, response.status


def test_a_stored_taint_was_added_before_the_update():
    """The stored object's clock defaults come from when it was written: a taint both objects leave without
    timeAdded differs (the stored one is older), so it is validated again, as in a cluster."""
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
              "metadata": {"name": "s", "resourceVersion": "1"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                       "devices": [{"name": "d", "taints": [{"key": "k", "effect": "Bogus"}]}]}}
    response = _review_in("1.36", copy.deepcopy(slice_), slice_, gates={"DRADeviceTaints": True})
    assert _causes(response) == [("spec.devices[0].taints[0].effect", "FieldValueNotSupported")]


def test_deallocating_a_claim_drops_its_device_statuses():
    """dropDeallocatedStatusDevices (the status strategy's last step): the status of a device the old allocation
    had and the new one has not is dropped, so deallocating a claim with device statuses is allowed; a status
    of a device never allocated is still refused."""
    old = _with_device_status(_allocated(_claim()), _READY)
    new = copy.deepcopy(old)
    new["status"].pop("allocation")
    for version in ("1.34", "1.36", "1.37"):
        response = _review_in(version, new, old, "status")
        assert response.allowed, (version, response.status)
    never = _with_device_status(_allocated(_claim()), _READY)
    never["status"]["devices"][0]["device"] = "other"
    response = _review_in("1.36", never, _allocated(_claim()), "status")
    assert _causes(response) == [("status.devices[0]", "FieldValueInvalid")]


def test_v1beta1_nulls_are_zero_values_of_v1beta1s_own_types():
    """The API server decodes v1beta1 into v1beta1's types (a request's exact fields flat beside its name, a slice
    device's fields under `basic`) before it defaults and converts: their nulls are zero values there too, not
    type errors (400)."""
    claim = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com",
                                                "selectors": [None], "tolerations": [None],
                                                "capacity": {"requests": {"memory": None}}}, None],
                                  "constraints": [{"requests": [None], "matchAttribute": "dra.example.com/numa"}]}}}
    response = _review(claim)
    assert response.status["code"] == 422, response.status
    assert {("spec.devices.requests[0].exactly.selectors[0].cel", "FieldValueRequired"),
            ("spec.devices.requests[1].name", "FieldValueInvalid"),
            ("spec.devices.constraints[0].requests[0]", "FieldValueInvalid")} <= set(_causes(response))
    template = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "t", "namespace": "default", "labels": {"app": None}},
                "spec": {"spec": {"devices": {"requests": [
                    {"name": "gpu", "deviceClassName": "gpu.example.com", "tolerations": [None]}]}}}}
    assert _review(template).allowed  # an empty label value and a toleration {operator: Equal} are valid
    slice_ = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                       "devices": [{"name": "d", "basic": {"attributes": {"model": None},
                                                           "capacity": {"memory": None}}}]}}
    response = _review(slice_)
    assert response.status["code"] == 422, response.status
    assert _causes(response) == [("spec.devices[0].attributes[model]", "FieldValueInvalid")]
