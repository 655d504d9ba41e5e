"""ResourceClaim status updates, ported from upstream's TestValidateClaimStatusUpdate."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.validation.options import Options
from webhook.validation.resourceclaim import resource_claim_strategy_checks, validate_resource_claim_status_update

GOOD = "foo"
BAD = "!@#$%^"
SHARE = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"
INV, REQ, DUP, MANY, LONG, NS, FORB = ("FieldValueInvalid", "FieldValueRequired", "FieldValueDuplicate",
                                       "FieldValueTooMany", "FieldValueTooLong", "FieldValueNotSupported",
                                       "FieldValueForbidden")
RES = "status.allocation.devices.results"
DEV = "status.devices"
COND = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Ok"}


def base_claim():
    return {"metadata": {"name": GOOD, "namespace": "ns", "resourceVersion": "1"},
            "spec": {"devices": {"requests": [
                {"name": GOOD, "exactly": {"deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1}},
                {"name": "pl", "firstAvailable": [{"name": "sub", "deviceClassName": GOOD,
                                                    "allocationMode": "ExactCount", "count": 1}]}]}}}


def result(**extra):
    body = {"request": GOOD, "driver": GOOD, "pool": GOOD, "device": GOOD}
    body.update(extra)
    return body


def allocation(*results, **extra):
    body = {"devices": {"results": list(results or (result(),))}}
    body.update(extra)
    return body


def allocated_claim(**status):
    c = base_claim()
    c["status"] = {"allocation": allocation(), **status}
    return c


def refs(n, start=0):
    return [{"resource": "pods", "name": f"foo-{i}", "uid": str(i)} for i in range(start, start + n)]


def device_status(**extra):
    body = {"driver": GOOD, "pool": GOOD, "device": GOOD}
    body.update(extra)
    return body


def k(path, reason, n=1):
    return [(path, reason)] * n


def case(old, change):
    new = copy.deepcopy(old)
    change(new)
    return new, old


def set_status(**status):
    def change(c):
        c.setdefault("status", {}).update(status)
    return change


def deleted(c):
    c = copy.deepcopy(c)
    c["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return c


CASES = {
    "valid-no-op-update": (case(base_claim(), lambda c: None), []),
    "valid-add-allocation-empty": (case(base_claim(), set_status(allocation={})), []),
    "valid-add-allocation-non-empty": (case(base_claim(), set_status(allocation=allocation(result(adminAccess=False)))), []),
    "valid-add-allocation-subrequest": (case(base_claim(), set_status(allocation=allocation(result(request="pl/sub")))), []),
    "invalid-add-allocation-bad-request": (case(base_claim(), set_status(allocation=allocation(result(request=BAD)))),
                                           k(f"{RES}[0].request", INV, 2)),
    "invalid-add-allocation-unknown-subrequest": (case(base_claim(), set_status(
        allocation=allocation(result(request="pl/other"), result(request=f"{GOOD}/x"), result(request="a/b/c")))),
        k(f"{RES}[0].request", INV) + k(f"{RES}[1].request", INV) + k(f"{RES}[2].request", INV)),
    "invalid-add-allocation-bad-names": (case(base_claim(), set_status(allocation=allocation(
        result(driver="", pool="", device=""), result(driver="a" * 64, pool="a//b", device="a.b")))),
        k(f"{RES}[0].driver", REQ) + k(f"{RES}[0].pool", REQ) + k(f"{RES}[0].device", INV)
        + k(f"{RES}[1].driver", LONG) + k(f"{RES}[1].pool", INV) + k(f"{RES}[1].device", INV)),
    "okay-add-allocation-missing-admin-access": (case(base_claim(), set_status(allocation=allocation(result()))), []),
    "invalid-node-selector": (case(base_claim(), set_status(allocation={"nodeSelector": {}})),
                              k("status.allocation.nodeSelector.nodeSelectorTerms", REQ)),
    "invalid-update-invalid-label-value": (case(base_claim(), set_status(allocation=allocation(nodeSelector={
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["-1"]}]}]}))),
        k("status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]", INV)),
    "valid-update-with-invalid-label-value": (case(
        (lambda c: (c["status"]["allocation"].update(nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "foo", "operator": "In", "values": ["-1"]}]}]}), c)[1])(allocated_claim()),
        set_status(reservedFor=refs(256))), []),
    "invalid-allocation-too-many-results": (case(base_claim(), set_status(allocation=allocation(*[result()] * 33))),
                                            k(RES, MANY)),
    "add-reservation": (case(allocated_claim(), set_status(reservedFor=refs(256))), []),
    "add-reservation-and-allocation": (case(base_claim(), set_status(allocation=allocation(), reservedFor=refs(256))), []),
    "invalid-reserved-for-too-large": (case(allocated_claim(), set_status(reservedFor=refs(257))),
                                       k("status.reservedFor", MANY)),
    "invalid-reserved-for-duplicate": (case(allocated_claim(), set_status(
        reservedFor=[{"resource": "pods", "name": "foo", "uid": "1"}] * 2)), k("status.reservedFor[1]", DUP)),
    "invalid-reserved-for-no-allocation": (case(base_claim(), set_status(reservedFor=refs(1))),
                                           k("status.reservedFor", FORB)),
    "invalid-reserved-for-no-resource": (case(allocated_claim(), set_status(reservedFor=[{"name": "foo", "uid": "1"}])),
                                         k("status.reservedFor[0].resource", REQ)),
    "invalid-reserved-for-no-name": (case(allocated_claim(), set_status(reservedFor=[{"resource": "pods", "uid": "1"}])),
                                     k("status.reservedFor[0].name", REQ)),
    "invalid-reserved-for-no-uid": (case(allocated_claim(), set_status(reservedFor=[{"resource": "pods", "name": "foo"}])),
                                    k("status.reservedFor[0].uid", REQ)),
    "invalid-reserved-deleted": (case(deleted(allocated_claim()), set_status(reservedFor=refs(1))),
                                 k("status.reservedFor", FORB)),
    "valid-reserved-deleted-remove": (case(deleted(allocated_claim(reservedFor=refs(2))), set_status(reservedFor=refs(1))), []),
    "invalid-allocation-modification": (case(allocated_claim(), lambda c: c["status"]["allocation"]["devices"]["results"][0]
                                             .update(driver="foo-2")), k("status.allocation", INV)),
    "allocation-unchanged-not-revalidated": (case(
        (lambda c: (c["status"]["allocation"]["devices"]["results"][0].update(driver=BAD), c)[1])(allocated_claim()),
        lambda c: None), []),
    "invalid-request-name": (case(base_claim(), set_status(allocation=allocation(result(), config=None) | {
        "devices": {"results": [result()], "config": [{"source": "FromClaim", "requests": [GOOD, BAD],
                                                        "opaque": {"driver": "dra.example.com", "parameters": {}}}]}})),
        k("status.allocation.devices.config[0].requests[1]", INV, 2)),
    "invalid-config-source": (case(base_claim(), set_status(allocation={"devices": {"results": [result()], "config": [
        {"source": "", "opaque": {"driver": "d", "parameters": {}}},
        {"source": "Other", "opaque": {"driver": "d", "parameters": {}}},
        {"source": "FromClass"}]}})),
        k("status.allocation.devices.config[0].source", REQ) + k("status.allocation.devices.config[1].source", NS)
        + k("status.allocation.devices.config[2].opaque", REQ)),
    "invalid-config-too-many": (case(base_claim(), set_status(allocation={"devices": {"config": [
        {"source": "FromClass", "opaque": {"driver": "d", "parameters": {}}}] * 65}})),
        k("status.allocation.devices.config", MANY)),
    "binding-conditions": (case(base_claim(), set_status(allocation=allocation(
        result(bindingConditions=["a"], bindingFailureConditions=["b"]),
        result(bindingConditions=["a", "a"], bindingFailureConditions=["a"]),
        result(bindingFailureConditions=["b"])))),
        k(f"{RES}[1].bindingConditions[1]", DUP) + k(f"{RES}[1].bindingFailureConditions[0]", INV)
        + k(f"{RES}[2].bindingConditions", INV)),
    "share-id": (case(base_claim(), set_status(allocation=allocation(
        result(shareID=SHARE), result(shareID="not-a-uuid"), result(shareID=SHARE.upper()),
        result(shareID=SHARE.replace("-", ""))))),
        k(f"{RES}[1].shareID", INV) + k(f"{RES}[2].shareID", INV) + k(f"{RES}[3].shareID", INV)),
    "valid-device-status": (case(allocated_claim(), set_status(devices=[device_status(
        conditions=[COND], data={"a": 1},
        networkData={"interfaceName": "eth0", "ips": ["10.9.8.7/24", "2001:db8::1/64"], "hardwareAddress": "ea:9f"})])), []),
    "invalid-device-status-not-allocated": (case(allocated_claim(), set_status(devices=[device_status(device="bar")])),
                                            k(f"{DEV}[0]", INV)),
    "invalid-device-status-no-allocation": (case(base_claim(), set_status(devices=[device_status()])), k(f"{DEV}[0]", INV)),
    "invalid-device-status-share-id-mismatch": (case(allocated_claim(), set_status(devices=[device_status(shareID=SHARE)])),
                                                k(f"{DEV}[0]", INV)),
    "valid-device-status-shared": (case(base_claim(), set_status(allocation=allocation(result(shareID=SHARE)),
                                                                 devices=[device_status(shareID=SHARE)])), []),
    "invalid-device-status-duplicate": (case(allocated_claim(), set_status(devices=[device_status()] * 2)),
                                        k(f"{DEV}[1]", DUP)),
    "invalid-device-status-names": (case(allocated_claim(), set_status(devices=[device_status(driver="", pool="", device=BAD)])),
                                    k(f"{DEV}[0].driver", REQ) + k(f"{DEV}[0].pool", REQ) + k(f"{DEV}[0].device", INV)
                                    + k(f"{DEV}[0]", INV)),
    "invalid-device-status-conditions": (case(allocated_claim(), set_status(devices=[device_status(conditions=[
        dict(COND, type=f"t{i}") for i in range(9)] + [{"type": "t0", "status": "Maybe", "observedGeneration": -1,
                                                         "reason": "1bad", "message": "m" * 32769}])])),
        k(f"{DEV}[0].conditions", MANY) + k(f"{DEV}[0].conditions[9].type", DUP)
        + k(f"{DEV}[0].conditions[9].status", NS) + k(f"{DEV}[0].conditions[9].observedGeneration", INV)
        + k(f"{DEV}[0].conditions[9].lastTransitionTime", REQ) + k(f"{DEV}[0].conditions[9].reason", INV)
        + k(f"{DEV}[0].conditions[9].message", LONG)),
    "invalid-device-status-data": (case(allocated_claim(), set_status(devices=[
        device_status(data=[1]), device_status(device="d2", data={"x": "y" * 10240}), device_status(device="d3", data=None)])),
        k(f"{DEV}[0].data", INV) + k(f"{DEV}[1].data", LONG) + k(f"{DEV}[1]", INV) + k(f"{DEV}[2]", INV)),
    "invalid-network-data": (case(allocated_claim(), set_status(devices=[device_status(networkData={
        "interfaceName": "i" * 257, "hardwareAddress": "h" * 129,
        "ips": ["10.9.8.7/24", "10.9.8.7/24", "1.2.3.4", "2001:DB8::1/64", "::ffff:1.2.3.4/120", "010.1.1.1/8"]})])),
        k(f"{DEV}[0].networkData.interfaceName", LONG) + k(f"{DEV}[0].networkData.hardwareAddress", LONG)
        + k(f"{DEV}[0].networkData.ips[1]", DUP) + k(f"{DEV}[0].networkData.ips[2]", INV)
        + k(f"{DEV}[0].networkData.ips[3]", INV) + k(f"{DEV}[0].networkData.ips[4]", INV)
        + k(f"{DEV}[0].networkData.ips[5]", INV)),
    "invalid-network-data-too-many-ips": (case(allocated_claim(), set_status(devices=[device_status(networkData={
        "ips": [f"10.0.0.{i}/32" for i in range(17)]})])), k(f"{DEV}[0].networkData.ips", MANY)),
    "metadata-update-rules": (case(base_claim(), lambda c: c["metadata"].update(resourceVersion="", name="x")),
                              k("metadata.resourceVersion", INV) + k("metadata.name", INV)),
}


@pytest.mark.parametrize("pair,want", list(CASES.values()), ids=list(CASES))
def test_validate_claim_status_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_status_update(new, old)) == Counter(want)


def test_admin_access_in_new_allocation_is_a_warning():
    old = base_claim()
    new, _ = case(old, set_status(allocation=allocation(result(), result(adminAccess=True))))
    assert validate_resource_claim_status_update(new, old) == []
    errors, warnings = resource_claim_strategy_checks(new, old, Options())
    assert errors == [] and len(warnings) == 1
    assert warnings[0].startswith("status.allocation.devices.results[1].adminAccess: ")
    assert resource_claim_strategy_checks(new, new, Options()) == ([], [])
    known = {new["metadata"]["namespace"]: {}}  # known, and unlabelled
    errors, _ = resource_claim_strategy_checks(new, old, Options(namespaces=known))
    assert [e.field for e in errors] == ["status.allocation.devices.results[1].adminAccess"]
