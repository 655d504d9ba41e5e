"""ResourcePoolStatusRequest (resource.k8s.io/v1alpha3), under Kubernetes 1.36 and 1.37 with its gate on.

The CREATE, UPDATE and STATUS tables are ported from upstream's
pkg/registry/resource/resourcepoolstatusrequest/declarative_validation_test.go (TestDeclarativeValidate,
TestDeclarativeValidateUpdate, TestDeclarativeValidateStatusUpdate; kubernetes commit 008b3652, the 1.36
file), whose expectations hold in both versions; CREATE_1_37 and STATUS_1_37 are the cases the 1.37 file
adds (the partition and shareable views, `defaultPartitionTypeAttribute`, nil pointers, generation 0). Each goes through the admission path (decoding, defaults where the
API server applies them, validation) as a served request would. The rest are the differences between
the two versions, side by side, and what the registry strategy does to each kind of request.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from support import review_body
from webhook import admit
from webhook.offline.loading import as_review
from webhook.profile import make_profile
from webhook.review import decode_review

GATE = "DRAResourcePoolStatus=true"
PROFILES = {version: make_profile(version, GATE) for version in ("1.36", "1.37")}
VERSIONS = tuple(PROFILES)
INV, REQ, FORB, MANY, LONG, DUP = ("FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden",
                                   "FieldValueTooMany", "FieldValueTooLong", "FieldValueDuplicate")
TYPE = "FieldValueTypeInvalid"


def rpsr(spec_changes=None, status=None, *, resource_version=None, **meta):
    """upstream mkValidRPSR (mkValidRPSRForUpdate with a resourceVersion)."""
    spec = {"driver": "test.example.com", "poolName": "pool-1", "limit": 100}
    spec.update(spec_changes or {})
    obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusRequest",
           "metadata": {"name": "valid-rpsr", **meta}, "spec": {k: v for k, v in spec.items() if v is not _DROP}}
    if resource_version:
        obj["metadata"]["resourceVersion"] = resource_version
    if status is not None:
        obj["status"] = status
    return obj


_DROP = object()


def pool(**changes):
    """upstream mkValidPoolStatus."""
    entry = {"driver": "test.example.com", "poolName": "pool-1", "totalDevices": 4, "allocatedDevices": 2,
             "availableDevices": 2, "unavailableDevices": 0, "resourceSliceCount": 1, "generation": 1}
    entry.update(changes)
    return {k: v for k, v in entry.items() if v is not _DROP}


def status(pools=None, pool_count=0, **more):
    """upstream mkBaseStatus (poolCount 0) with the pools and fields of a case."""
    out = {"poolCount": pool_count, **more}
    if pools is not None:
        out["pools"] = pools
    return out


def condition(kind, **more):
    return {"type": kind, "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Reason", **more}


def causes_of(response) -> Counter:
    details = (response.status or {}).get("details") or {}
    return Counter((c.get("field", ""), c.get("reason", "")) for c in details.get("causes") or [])


def validate(version, obj, *, operation="CREATE", old=None, sub_resource=""):
    body = review_body(obj, operation=operation, old=old, sub_resource=sub_resource)
    return admit.validate(decode_review(body), profile=PROFILES[version])


def k(path, reason, n=1):
    return [(path, reason)] * n


# TestDeclarativeValidate
CREATE = {
    "valid": (rpsr(), []),
    "empty driver": (rpsr({"driver": ""}), k("spec.driver", REQ)),
    "invalid driver format": (rpsr({"driver": "invalid driver!"}), k("spec.driver", INV)),
    "empty pool name": (rpsr({"poolName": ""}), k("spec.poolName", INV)),
    "invalid pool name format": (rpsr({"poolName": "invalid pool!"}), k("spec.poolName", INV)),
    "limit zero": (rpsr({"limit": 0}), k("spec.limit", INV)),
    "limit negative": (rpsr({"limit": -1}), k("spec.limit", INV)),
    "limit too high": (rpsr({"limit": 1001}), k("spec.limit", INV)),
    "pool name nil": (rpsr({"poolName": _DROP}), []),
}

# TestDeclarativeValidateUpdate
UPDATE = {
    "valid no-change": (rpsr(resource_version="1"), rpsr(resource_version="1"), []),
    "spec changed": (rpsr(resource_version="1"), rpsr({"driver": "other.example.com"}, resource_version="1"),
                     k("spec", INV)),
}

# TestDeclarativeValidateStatusUpdate (old: a request without status)
STATUS = {
    "valid status": (status([pool()], pool_count=1), []),
    "pool empty driver": (status([pool(driver="")]), k("status.pools[0].driver", REQ)),
    "pool invalid driver": (status([pool(driver="invalid driver!")]), k("status.pools[0].driver", INV)),
    "pool empty poolName": (status([pool(poolName="")]), k("status.pools[0].poolName", REQ)),
    "pool invalid poolName": (status([pool(poolName="invalid pool!")]), k("status.pools[0].poolName", INV)),
    "pool nil optional fields valid": (status([{"driver": "test.example.com", "poolName": "pool-1",
                                                "resourceSliceCount": 1, "generation": 1}]), []),
    "pool negative values": (status([pool(totalDevices=-1)]), k("status.pools[0].totalDevices", INV)),
    "pool zero resourceSliceCount": (status([pool(resourceSliceCount=0)]),
                                     k("status.pools[0].resourceSliceCount", INV)),
    "negative poolCount": (status(pool_count=-1), k("status.poolCount", INV)),
    "pool validationError too long": (status([pool(validationError="x" * 257)]),
                                      k("status.pools[0].validationError", LONG)),
    "poolCount zero": (status(pool_count=0), []),
    "pools maxItems exceeded": (status([pool()] * 1001, pool_count=1001), k("status.pools", MANY)),
    "conditions maxItems exceeded": (status(conditions=[condition("Type" + "x" * i) for i in range(11)]),
                                     k("status.conditions", MANY)),
    "pool negative allocatedDevices": (status([pool(allocatedDevices=-1)]), k("status.pools[0].allocatedDevices", INV)),
    "pool negative availableDevices": (status([pool(availableDevices=-1)]), k("status.pools[0].availableDevices", INV)),
    "pool negative unavailableDevices": (status([pool(unavailableDevices=-1)]),
                                         k("status.pools[0].unavailableDevices", INV)),
    "pool invalid nodeName": (status([pool(nodeName="invalid node!")]), k("status.pools[0].nodeName", INV)),
    "pool negative generation": (status([pool(generation=-1)]), k("status.pools[0].generation", INV)),
}


# The 1.37 file's additions to TestDeclarativeValidate: (object, DRAPartitionableDevicesType on, causes).
def _attribute(value):
    return rpsr({"defaultPartitionTypeAttribute": value})


CREATE_1_37 = {
    "valid partitionTypeAttribute": (_attribute("gpu.example.com/profile"), True, []),
    # Upstream's ErrorMatcher lets one expected error stand for every error of the same type, field and
    # origin: validate.ResourceFullyQualifiedName gives two here (C identifier, no domain).
    "invalid partitionTypeAttribute format": (_attribute("invalid attr!"), True,
                                              k("spec.defaultPartitionTypeAttribute", INV, 2)),
    "partitionTypeAttribute without domain": (_attribute("profile"), True, k("spec.defaultPartitionTypeAttribute", INV)),
    "partitionTypeAttribute with feature disabled": (_attribute("gpu.example.com/profile"), False,
                                                     k("spec.defaultPartitionTypeAttribute", FORB)),
    "limit nil": (rpsr({"limit": _DROP}), False, k("spec.limit", REQ)),
}


def _capacity(name="mem", **changes):
    """upstream validShareableCapacity."""
    entry = {"name": name, "total": "1", "consumed": "0", "available": "1", **changes}
    return {key: value for key, value in entry.items() if value is not _DROP}


def _partition(**changes):
    entry = {"attribute": "gpu.example.com/profile", "type": "Full", "total": 0, "allocatable": 0, **changes}
    return {key: value for key, value in entry.items() if value is not _DROP}


def _shareable(capacity=None, **changes):
    entry = {"fullyAvailableDevices": 0, "partiallyAvailableDevices": 0, **changes}
    if capacity is not None:
        entry["capacity"] = capacity
    return {key: value for key, value in entry.items() if value is not _DROP}


_AT = "status.pools[0]."
# The 1.37 file's additions to TestDeclarativeValidateStatusUpdate.
STATUS_1_37 = {
    "poolCount nil": ({"pools": []}, k("status.poolCount", REQ)),
    "pool zero generation": (status([pool(generation=0)]), k(_AT + "generation", REQ)),
    "partitionSummary maxItems exceeded": (status([pool(partitionSummary=[_partition(type="Full" + "x" * i)
                                                                           for i in range(33)])]),
                                           k(_AT + "partitionSummary", MANY)),
    "partitionSummary empty type": (status([pool(partitionSummary=[_partition(type="")])]),
                                    k(_AT + "partitionSummary[0].type", REQ)),
    "partitionSummary negative total": (status([pool(partitionSummary=[_partition(total=-1)])]),
                                        k(_AT + "partitionSummary[0].total", INV)),
    "partitionSummary negative allocatable": (status([pool(partitionSummary=[_partition(allocatable=-1)])]),
                                              k(_AT + "partitionSummary[0].allocatable", INV)),
    "partitionSummary total required": (status([pool(partitionSummary=[_partition(total=_DROP)])]),
                                        k(_AT + "partitionSummary[0].total", REQ)),
    "partitionSummary allocatable required": (status([pool(partitionSummary=[_partition(allocatable=_DROP)])]),
                                              k(_AT + "partitionSummary[0].allocatable", REQ)),
    "partitionSummary empty attribute": (status([pool(partitionSummary=[_partition(attribute=_DROP)])]),
                                         k(_AT + "partitionSummary[0].attribute", REQ)),
    "partitionSummary duplicate attribute and type": (status([pool(partitionSummary=[_partition(), _partition()])]),
                                                      k(_AT + "partitionSummary[1]", DUP)),
    "shareableSummary capacity maxItems exceeded": (status([pool(shareableSummary=_shareable([_capacity()] * 33))]),
                                                    k(_AT + "shareableSummary.capacity", MANY)),
    "shareableSummary capacity empty name": (status([pool(shareableSummary=_shareable([_capacity("")]))]),
                                             k(_AT + "shareableSummary.capacity[0].name", REQ)),
    "shareableSummary capacity total required": (
        status([pool(shareableSummary=_shareable([_capacity(total=_DROP)]))]),
        k(_AT + "shareableSummary.capacity[0].total", REQ)),
    "shareableSummary capacity consumed required": (
        status([pool(shareableSummary=_shareable([_capacity(consumed=_DROP)]))]),
        k(_AT + "shareableSummary.capacity[0].consumed", REQ)),
    "shareableSummary capacity available required": (
        status([pool(shareableSummary=_shareable([_capacity(available=_DROP)]))]),
        k(_AT + "shareableSummary.capacity[0].available", REQ)),
    "shareableSummary negative fullyAvailableDevices": (
        status([pool(shareableSummary=_shareable(fullyAvailableDevices=-1))]),
        k(_AT + "shareableSummary.fullyAvailableDevices", INV)),
    "shareableSummary negative partiallyAvailableDevices": (
        status([pool(shareableSummary=_shareable(partiallyAvailableDevices=-1))]),
        k(_AT + "shareableSummary.partiallyAvailableDevices", INV)),
    "shareableSummary fullyAvailableDevices required": (
        status([pool(shareableSummary=_shareable(fullyAvailableDevices=_DROP))]),
        k(_AT + "shareableSummary.fullyAvailableDevices", REQ)),
    "shareableSummary partiallyAvailableDevices required": (
        status([pool(shareableSummary=_shareable(partiallyAvailableDevices=_DROP))]),
        k(_AT + "shareableSummary.partiallyAvailableDevices", REQ)),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", CREATE)
def test_create(version, name):
    obj, expected = CREATE[name]
    response = validate(version, obj)
    assert causes_of(response) == Counter(expected)
    assert response.allowed is (not expected)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", UPDATE)
def test_update(version, name):
    old, new, expected = UPDATE[name]
    assert causes_of(validate(version, new, operation="UPDATE", old=old)) == Counter(expected)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", STATUS)
def test_status_update(version, name):
    new_status, expected = STATUS[name]
    old = rpsr(resource_version="1")
    new = rpsr(status=new_status, resource_version="1")
    assert causes_of(validate(version, new, operation="UPDATE", old=old, sub_resource="status")) == Counter(expected)


@pytest.mark.parametrize("name", CREATE_1_37)
def test_create_1_37(name):
    obj, partition_types, expected = CREATE_1_37[name]
    gates = GATE + (",DRAPartitionableDevicesType=true" if partition_types else "")
    response = admit.validate(decode_review(review_body(obj)), profile=make_profile("1.37", gates))
    assert causes_of(response) == Counter(expected)


@pytest.mark.parametrize("name", STATUS_1_37)
def test_status_update_1_37(name):
    new_status, expected = STATUS_1_37[name]
    old = rpsr(resource_version="1")
    new = rpsr(status=new_status, resource_version="1")
    response = validate("1.37", new, operation="UPDATE", old=old, sub_resource="status")
    assert causes_of(response) == Counter(expected)
    # 1.36 has no such fields (unknown: dropped by the decoder) but the same rules for the others.
    v136 = validate("1.36", new, operation="UPDATE", old=old, sub_resource="status")
    assert causes_of(v136) == Counter(e for e in expected if "Summary" not in e[0])


def _messages(response) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in response.status["details"]["causes"]]


def test_error_wording_is_declarative_validations():
    """validate.LongNameCaseless, ResourcePoolName, Maximum, Immutable and MaxBytes, worded as apimachinery's
    pkg/api/validate words them (v0.36.0)."""
    response = validate("1.36", rpsr({"driver": "gpu/example.com", "poolName": "a//B", "limit": 1001}))
    regex = "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"
    assert _messages(response) == [
        'spec.driver: Invalid value: "gpu/example.com": an RFC 1123 subdomain must consist of alphanumeric '
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'Example.com', "
        f"regex used for validation is {regex})",
        'spec.poolName: Invalid value: "a//B": segment 1: must not be empty',
        'spec.poolName: Invalid value: "B": segment 2: a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        f"(e.g. 'example.com', regex used for validation is {regex})",
        "spec.limit: Invalid value: 1001: must be less than or equal to 1000",
    ]
    old = rpsr(resource_version="1")
    changed = validate("1.37", rpsr({"limit": 5}, resource_version="1"), operation="UPDATE", old=old)
    assert _messages(changed) == ["spec: Invalid value: null: field is immutable"]
    too_long = validate("1.37", rpsr(status=status([pool(validationError="é" * 129)]), resource_version="1"),
                        operation="UPDATE", old=old, sub_resource="status")
    assert _messages(too_long) == ["status.pools[0].validationError: Too long: may not be more than 256 bytes"]


@pytest.mark.parametrize("version", VERSIONS)
def test_what_public_manifests_got_wrong(version):
    """A shell substitution left in a name, a driver with a '/': both refused, both cluster-scoped."""
    obj = rpsr({"driver": "example.com/gpu"}, **{"name": "pool-status-$(date +%s)"})
    assert causes_of(validate(version, obj)) == Counter([("metadata.name", INV), ("spec.driver", INV)])
    namespaced = rpsr(namespace="default")
    assert causes_of(validate(version, namespaced)) == Counter([("metadata.namespace", FORB)])


@pytest.mark.parametrize("version", VERSIONS)
def test_upper_case_drivers_pass_as_upstream_lets_them(version):
    assert validate(version, rpsr({"driver": "GPU.Example.com"})).allowed is True
    upper = rpsr(status=status([pool(driver="GPU.Example.com", nodeName="Node-1")]), resource_version="1")
    response = validate(version, upper, operation="UPDATE", old=rpsr(resource_version="1"), sub_resource="status")
    assert causes_of(response) == Counter(k("status.pools[0].nodeName", INV))  # nodeName is not caseless


@pytest.mark.parametrize("version", VERSIONS)
def test_generation_zero_is_missing(version):
    """`generation` is a required int64 value: +k8s:required counts its zero value as unset."""
    new = rpsr(status=status([pool(generation=0), pool(generation=_DROP)]), resource_version="1")
    response = validate(version, new, operation="UPDATE", old=rpsr(resource_version="1"), sub_resource="status")
    assert causes_of(response) == Counter([("status.pools[0].generation", REQ), ("status.pools[1].generation", REQ)])


@pytest.mark.parametrize("version", VERSIONS)
def test_a_create_ignores_the_status_and_an_update_the_status_it_sends(version):
    """PrepareForCreate drops the status; the main resource's PrepareForUpdate puts the old one back."""
    bad_status = status([pool(driver="")], pool_count=-1)
    assert validate(version, rpsr(status=bad_status)).allowed is True
    old = rpsr(resource_version="1")
    assert validate(version, rpsr(status=bad_status, resource_version="1"), operation="UPDATE", old=old).allowed


@pytest.mark.parametrize("version", VERSIONS)
def test_a_status_once_set_never_changes(version):
    old = rpsr(status=status([pool()], pool_count=1), resource_version="1")
    same = validate(version, copy.deepcopy(old), operation="UPDATE", old=old, sub_resource="status")
    assert same.allowed is True
    new = rpsr(status=status([pool()], pool_count=2), resource_version="1")
    response = validate(version, new, operation="UPDATE", old=old, sub_resource="status")
    assert causes_of(response) == Counter([("status", INV)])


@pytest.mark.parametrize("version", VERSIONS)
def test_unchanged_status_fields_are_not_checked_again(version):
    """Declarative ratcheting: a stored negative poolCount is not reported when another field changes."""
    old = rpsr(status=status(pool_count=-1), resource_version="1")
    new = rpsr(status=status(pool_count=-1, pools=[pool(driver="")]), resource_version="1")
    response = validate(version, new, operation="UPDATE", old=old, sub_resource="status")
    assert causes_of(response) == Counter([("status", INV), ("status.pools[0].driver", REQ)])


def test_condition_types_side_by_side():
    """1.36 enforces `+k8s:listType=map` on status.conditions (Duplicate at the item); 1.37 made it alpha.
    The hand-written ValidateConditions reports the repeated type in both: at `.type` in 1.36, at the item in
    1.37 (apimachinery v0.37 reports it as the declarative rule does; found by the upstream differential)."""
    new = rpsr(status=status(conditions=[condition("Complete"), condition("Complete")]), resource_version="1")
    old = rpsr(resource_version="1")
    found = {v: causes_of(validate(v, new, operation="UPDATE", old=old, sub_resource="status")) for v in VERSIONS}
    assert found == {"1.36": Counter([("status.conditions[1].type", DUP), ("status.conditions[1]", DUP)]),
                     "1.37": Counter([("status.conditions[1]", DUP)])}


def test_partition_and_shareable_views_side_by_side():
    """1.37's pool status views: unknown fields for 1.36 (a warning served), validated by 1.37."""
    views = pool(partitionSummary=[{"attribute": "gpu.example.com/profile", "type": "Half", "total": 2,
                                    "allocatable": -1},
                                   {"attribute": "gpu.example.com/profile", "type": "Half", "total": 2,
                                    "allocatable": 1}, {}],
                 shareableSummary={"fullyAvailableDevices": -1,
                                   "capacity": [{"name": "memory", "total": "8Gi", "consumed": "1Gi"}]})
    new = rpsr(status=status([views], pool_count=1), resource_version="1")
    old = rpsr(resource_version="1")
    v136 = validate("1.36", new, operation="UPDATE", old=old, sub_resource="status")
    assert v136.allowed is True
    assert set(v136.warnings) == {'unknown field "status.pools[0].partitionSummary"',
                                  'unknown field "status.pools[0].shareableSummary"'}
    v137 = validate("1.37", new, operation="UPDATE", old=old, sub_resource="status")
    at = "status.pools[0]."
    assert causes_of(v137) == Counter([
        (at + "partitionSummary[0].allocatable", INV), (at + "partitionSummary[1]", DUP),
        (at + "partitionSummary[2].attribute", REQ), (at + "partitionSummary[2].type", REQ),
        (at + "partitionSummary[2].total", REQ), (at + "partitionSummary[2].allocatable", REQ),
        (at + "shareableSummary.fullyAvailableDevices", INV), (at + "shareableSummary.partiallyAvailableDevices", REQ),
        (at + "shareableSummary.capacity[0].available", REQ)])
    too_many = rpsr(status=status([pool(partitionSummary=[{}] * 33)]), resource_version="1")
    response = validate("1.37", too_many, operation="UPDATE", old=old, sub_resource="status")
    assert causes_of(response) == Counter([(at + "partitionSummary", MANY)])  # short-circuits the items


def test_default_partition_type_attribute_side_by_side():
    """1.37: forbidden unless DRAPartitionableDevicesType is on, then a fully qualified name."""
    obj = rpsr({"defaultPartitionTypeAttribute": "profile"})
    v136 = validate("1.36", obj)
    assert v136.allowed is True and v136.warnings == ['unknown field "spec.defaultPartitionTypeAttribute"']
    assert causes_of(validate("1.37", obj)) == Counter([("spec.defaultPartitionTypeAttribute", FORB)])
    on = make_profile("1.37", GATE + ",DRAPartitionableDevicesType=true")
    found = admit.validate(decode_review(review_body(obj)), profile=on)
    assert causes_of(found) == Counter([("spec.defaultPartitionTypeAttribute", INV)])
    good = rpsr({"defaultPartitionTypeAttribute": "gpu.example.com/profile"})
    assert admit.validate(decode_review(review_body(good)), profile=on).allowed is True


def _manifest_review(obj, version, **kwargs):
    return admit.review_manifest(decode_review(as_review(obj, uid="test")), profile=PROFILES[version], **kwargs)


def test_offline_strict_decoding_knows_each_versions_fields():
    obj = rpsr(status=status([pool(partitionSummary=[])]))
    v136 = _manifest_review(obj, "1.36")
    assert v136.allowed is False and v136.status["code"] == 400
    assert v136.status["message"] == ('ResourcePoolStatusRequest in version "v1alpha3" cannot be handled as a '
                                      'ResourcePoolStatusRequest: strict decoding error: unknown field '
                                      '"status.pools[0].partitionSummary"')
    assert _manifest_review(obj, "1.37").allowed is True


@pytest.mark.parametrize("version", VERSIONS)
def test_int32_fields_refuse_what_int32_cannot_hold(version):
    response = validate(version, rpsr({"limit": 2**31}))
    assert response.status["code"] == 400
    assert response.status["details"]["causes"][0] == {
        "reason": TYPE, "field": "spec.limit",
        "message": "Invalid value: 2147483648: json: cannot unmarshal number 2147483648 into Go struct field "
                   "ResourcePoolStatusRequestSpec.spec.limit of type int32"}


@pytest.mark.parametrize("version", VERSIONS)
def test_limit_defaults_to_100_before_validation(version):
    obj = rpsr({"limit": _DROP})
    mutated = admit.mutate(decode_review(review_body(obj)), profile=PROFILES[version])
    assert mutated.patch == [{"op": "add", "path": "/spec/limit", "value": 100}]
    reviewed = admit.review(decode_review(review_body(obj)), profile=PROFILES[version])
    assert reviewed.allowed is True and reviewed.patch == mutated.patch
    # Served, the API server has defaulted it already; without the default the limit is a required pointer.
    assert causes_of(validate(version, obj)) == Counter([("spec.limit", REQ)])
    # An update that leaves the limit out keeps the default: the spec is unchanged.
    old = rpsr(resource_version="1")
    updated = admit.review(decode_review(review_body(rpsr({"limit": _DROP}, resource_version="1"),
                                                     operation="UPDATE", old=old)), profile=PROFILES[version])
    assert updated.allowed is True


def test_offline_manifest_names_the_gate_until_it_is_on():
    obj = rpsr()
    off = admit.review_manifest(decode_review(as_review(obj, uid="t")), profile=make_profile("1.36"))
    assert off.allowed is True
    assert any("feature gate DRAResourcePoolStatus enabled" in w for w in off.warnings)
    on = _manifest_review(obj, "1.36")
    assert on.allowed is True and not any("feature gate" in w for w in on.warnings)
    v1 = _manifest_review({**obj, "apiVersion": "resource.k8s.io/v1"}, "1.37")
    assert v1.allowed is False and "serves ResourcePoolStatusRequest as resource.k8s.io/v1alpha3" in \
        v1.status["message"]
