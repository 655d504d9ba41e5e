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


def _causes(response):
    return {(c["field"], c["reason"]) for c in (response.status or {}).get("details", {}).get("causes") or []}


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
            ("spec.devices.constraints[0].requests[0]", "FieldValueInvalid")} <= _causes(response)
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
    assert _causes(response) == {("spec.devices[0].attributes[model]", "FieldValueInvalid")}
