"""Cases ported from upstream's own test tables for ResourceClaim, ResourceClaimTemplate,
DeviceClass and DeviceTaintRule (`pkg/apis/resource/validation/validation_*_test.go`).

Sources (see the report that accompanied this file for the exact revisions):
* claims: the DRAConsumableCapacity-era table (ExactDeviceRequest, firstAvailable, distinctAttribute,
  binding conditions, shareID). It predates two 1.36 behaviour changes of the hand-written validation,
  and the expectations below follow the 1.36 code where they differ (marked "1.36:" next to the case):
  - list size limits short-circuit: a TooMany replaces all per-item errors of that list;
  - an empty fully-qualified attribute name yields two Invalid errors instead of one Required.
* DeviceClass: a 1.36-era table (extendedResourceName, short-circuiting size limits).
* DeviceTaintRule: the 1.35-era table with the `None` effect; cases for `deviceSelector.deviceClassName`
  and `deviceSelector.selectors` are left out because those fields no longer exist in 1.36.
* ResourceClaimTemplate: the prioritized-list-era table.

Go helper constructors are translated into JSON-shaped builders (v1 shape). Raw bytes that are not
JSON at all (`{`, `xxx`, `foo`) cannot occur in an admission request and are left out. Opaque
parameters are sized on their compact encoding, so "exactly at the limit" / "too large by one" use
`{"str":"x…"}` with 10230 / 10231 characters. Cases that run with a DRA feature gate switched off
(`…-disabled-feature-gate`, `add-allocation-old-claim-with-prioritized-list`) are not ported:
every DRA gate is on here.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.validation.deviceclass import validate_device_class, validate_device_class_update
from webhook.validation.devicetaintrule import validate_device_taint_rule, validate_device_taint_rule_update
from webhook.validation.resourceclaim import (
    validate_resource_claim,
    validate_resource_claim_status_update,
    validate_resource_claim_update,
)
from webhook.validation.resourceclaimtemplate import (
    validate_resource_claim_template,
    validate_resource_claim_template_update,
)

INV, REQ, DUP, MANY, LONG, NS, FORB = ("FieldValueInvalid", "FieldValueRequired", "FieldValueDuplicate",
                                       "FieldValueTooMany", "FieldValueTooLong", "FieldValueNotSupported",
                                       "FieldValueForbidden")

GOOD_NAME = "foo"
GOOD_NAME2 = "bar"
BAD_NAME = "!@#$%^"
GOOD_NS = "ns"
BAD_SUBREQUEST_NAME = "&^%$"
BAD_REQUEST_FORMAT = f"{GOOD_NAME}/{GOOD_NAME}/{GOOD_NAME}"
BAD_FULL_SUBREQUEST_NAME = f"{BAD_NAME}/{BAD_SUBREQUEST_NAME}"
BAD_VALUE = "spaces not allowed"
UID = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"
NOW = "2026-01-01T00:00:00Z"
PARAMS = {"kind": "foo", "apiVersion": "dra.example.com/v1"}
OPAQUE_MAX = 10240
DATA_MAX = 10240
MAX_REQUESTS = 32
MAX_CONSTRAINTS = 32
MAX_CONFIG = 32
MAX_SELECTORS = 32
MAX_RESERVED_FOR = 256
CEL_MAX_LEN = 10240
COST_EXPR = ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
             "10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, "
             "6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))")


def k(path, reason, n=1):
    return [(path, reason)] * n


def sized_params(length):
    """A JSON object whose compact encoding is exactly `length` bytes."""
    return {"str": "x" * (length - len('{"str":""}'))}


# ---------------------------------------------------------------------------------------------
# Builders mirroring the Go test helpers
# ---------------------------------------------------------------------------------------------

def valid_claim_spec():
    return {"devices": {"requests": [{"name": GOOD_NAME, "exactly": {
        "deviceClassName": GOOD_NAME, "allocationMode": "ExactCount", "count": 1}}]}}


def valid_claim_spec_with_first_available():
    return {"devices": {"requests": [{"name": GOOD_NAME, "firstAvailable": [
        {"name": GOOD_NAME, "deviceClassName": GOOD_NAME, "allocationMode": "ExactCount", "count": 1},
        {"name": GOOD_NAME2, "deviceClassName": GOOD_NAME, "allocationMode": "ExactCount", "count": 1},
    ]}]}}


VALID_SELECTOR = [{"cel": {"expression": 'device.driver == "dra.example.com"'}}]


def test_claim(name, namespace, spec):
    return {"metadata": {"name": name, "namespace": namespace}, "spec": copy.deepcopy(spec)}


test_claim.__test__ = False  # a builder, not a test


def claim_with(mutate, spec=None):
    claim = test_claim(GOOD_NAME, GOOD_NS, spec or valid_claim_spec())
    mutate(claim)
    return claim


def opaque_config(requests=None, parameters=PARAMS, driver="dra.example.com"):
    entry = {"opaque": {"driver": driver, "parameters": copy.deepcopy(parameters)}}
    if requests is not None:
        entry["requests"] = list(requests)
    return entry


def devices(claim):
    return claim["spec"]["devices"]


def requests(claim):
    return claim["spec"]["devices"]["requests"]


def _meta(**fields):
    return lambda c: c["metadata"].update(fields)


OWNER_REFS = [{"apiVersion": "v1", "kind": "pod", "name": "foo", "uid": UID}]
MANAGED_FIELDS = [{"fieldsType": "FieldsV1", "operation": "Apply", "apiVersion": "apps/v1", "manager": "foo"}]

# Metadata scenarios shared by every kind's create table: (name, mutation of metadata, expected field).
META_SCENARIOS = [
    ("generate-name", {"generateName": "pvc-"}, None),
    ("uid", {"uid": UID}, None),
    ("resource-version", {"resourceVersion": "1"}, None),
    ("generation", {"generation": 100}, None),
    ("creation-timestamp", {"creationTimestamp": NOW}, None),
    ("deletion-grace-period-seconds", {"deletionGracePeriodSeconds": 10}, None),
    ("owner-references", {"ownerReferences": OWNER_REFS}, None),
    ("finalizers", {"finalizers": ["example.com/foo"]}, None),
    ("managed-fields", {"managedFields": MANAGED_FIELDS}, None),
    ("good-labels", {"labels": {"apps.kubernetes.io/name": "test"}}, None),
    ("bad-labels", {"labels": {"hello-world": BAD_VALUE}}, "metadata.labels"),
    ("good-annotations", {"annotations": {"foo": "bar"}}, None),
    ("bad-annotations", {"annotations": {BAD_NAME: "hello world"}}, "metadata.annotations"),
]


def meta_cases(build):
    cases = {}
    for name, fields, bad in META_SCENARIOS:
        obj = build()
        obj["metadata"].update(copy.deepcopy(fields))
        cases[name] = (obj, k(bad, INV) if bad else [])
    return cases


# ---------------------------------------------------------------------------------------------
# TestValidateClaim
# ---------------------------------------------------------------------------------------------

def _invalid_request(c):
    d = devices(c)
    d["constraints"] = [{"requests": [GOOD_NAME, BAD_NAME], "matchAttribute": "missing-domain"},
                        {"matchAttribute": ""}, {}]
    d["constraints"] += [{"matchAttribute": "foo/bar"}] * (MAX_CONSTRAINTS + 1 - 3)
    d["config"] = [opaque_config(requests=[GOOD_NAME, BAD_NAME])]
    d["config"] += [opaque_config()] * MAX_CONFIG
    for i in range(1, MAX_REQUESTS + 1):
        req = copy.deepcopy(d["requests"][0])
        req["name"] += str(i)
        d["requests"].append(req)


def _valid_request(c):
    d = devices(c)
    d["constraints"] = [{"matchAttribute": "foo/bar"}] * MAX_CONSTRAINTS
    d["config"] = [opaque_config()] * MAX_CONFIG
    for i in range(1, MAX_REQUESTS):
        req = copy.deepcopy(d["requests"][0])
        req["name"] += str(i)
        d["requests"].append(req)


def _invalid_spec(c):
    d = devices(c)
    d["constraints"] = [{"requests": [GOOD_NAME, BAD_NAME], "matchAttribute": "missing-domain"},
                        {"matchAttribute": ""}, {}]
    d["config"] = [opaque_config(requests=[GOOD_NAME, BAD_NAME])]


def _invalid_distinct(c):
    devices(c)["constraints"] = [{"requests": [GOOD_NAME], "distinctAttribute": "missing-domain"},
                                 {"distinctAttribute": ""}, {}]


def _allocation_mode(c):
    good = requests(c)[0]
    for suffix, mode, count in (("2", "All", 0), ("3", "ExactCount", -1), ("4", "other", 1), ("5", "All", 2)):
        req = copy.deepcopy(good)
        req["name"] += suffix
        req["exactly"].update(allocationMode=mode, count=count)
        requests(c).append(req)
    requests(c).append(copy.deepcopy(good))  # same name -> duplicate


def _configuration(c):
    devices(c)["config"] = [
        {"opaque": {"driver": "dra.example.com"}},                                    # empty raw
        opaque_config(parameters="hello-world"),                                       # not an object
        opaque_config(parameters=None),                                                # null
        opaque_config(parameters=sized_params(OPAQUE_MAX)),                            # at the limit
        opaque_config(parameters=sized_params(OPAQUE_MAX + 1)),                        # too large by one
    ]


def _second_request_with_selectors(selectors):
    def mutate(c):
        req = copy.deepcopy(requests(c)[0])
        req["name"] += "-2"
        req["exactly"]["selectors"] = selectors
        requests(c).append(req)
    return mutate


def _cel_length_selectors():
    expression = 'device.driver == ""'
    ok = expression.replace('""', '"' + "x" * (CEL_MAX_LEN - len(expression)) + '"')
    too_long = expression.replace('""', '"' + "x" * (CEL_MAX_LEN - len(expression) + 1) + '"')
    return [{"cel": {"expression": ok}}, {"cel": {"expression": too_long}}]


def _both_set(c):
    requests(c)[0]["exactly"] = {"deviceClassName": GOOD_NAME, "selectors": copy.deepcopy(VALID_SELECTOR),
                                 "allocationMode": "ExactCount", "count": 2, "adminAccess": True}


def _too_many_subrequests(c):
    req = requests(c)[0]
    del req["exactly"]
    req["firstAvailable"] = [{"name": f"subreq-{i}", "deviceClassName": GOOD_NAME, "allocationMode": "ExactCount",
                              "count": 1} for i in range(9)]


def _config_refs(*names):
    return lambda c: devices(c).update(config=[opaque_config(requests=names)])


def _constraint_refs(*names):
    return lambda c: devices(c).update(constraints=[{"requests": list(names),
                                                     "matchAttribute": "dra.example.com/driverVersion"}])


def _tolerations(c):
    requests(c)[0]["firstAvailable"][0]["tolerations"] = [{"operator": ""}]
    other = copy.deepcopy(valid_claim_spec()["devices"]["requests"][0])
    other["name"] += "-other"
    other["exactly"]["tolerations"] = [
        {"operator": "Exists"},
        {"key": "example.com/taint", "operator": "Exists", "effect": "NoExecute"},
        {"key": "example.com/taint", "operator": "Equal", "value": "tainted", "effect": "NoSchedule"},
        {"operator": ""},
        {"key": GOOD_NAME, "operator": "some-other-op"},
        {"key": BAD_NAME, "operator": "Equal", "value": BAD_NAME, "effect": "some-other-effect"},
    ]
    requests(c).append(other)


R = "spec.devices.requests"
C = "spec.devices.constraints"
CFG = "spec.devices.config"
FA = valid_claim_spec_with_first_available()
TOL0 = f"{R}[0].firstAvailable[0].tolerations"
TOL1 = f"{R}[1].exactly.tolerations"

CLAIM_CREATE = {
    "good-claim": (test_claim(GOOD_NAME, GOOD_NS, valid_claim_spec()), []),
    "missing-name": (test_claim("", GOOD_NS, valid_claim_spec()), k("metadata.name", REQ)),
    "bad-name": (test_claim(BAD_NAME, GOOD_NS, valid_claim_spec()), k("metadata.name", INV)),
    "missing-namespace": (test_claim(GOOD_NAME, "", valid_claim_spec()), k("metadata.namespace", REQ)),
    **meta_cases(lambda: test_claim(GOOD_NAME, GOOD_NS, valid_claim_spec())),
    "bad-classname": (claim_with(lambda c: requests(c)[0]["exactly"].update(deviceClassName=BAD_NAME)),
                      k(f"{R}[0].exactly.deviceClassName", INV)),
    "missing-classname": (claim_with(lambda c: requests(c)[0]["exactly"].update(deviceClassName="")),
                          k(f"{R}[0].exactly.deviceClassName", REQ)),
    # 1.36: all three lists are over their limit, so only the three TooMany errors remain.
    "invalid-request": (claim_with(_invalid_request), k(R, MANY) + k(C, MANY) + k(CFG, MANY)),
    # 1.36: an empty distinctAttribute is two Invalid errors.
    "invalid-distinct-constraint": (claim_with(_invalid_distinct),
                                    k(f"{C}[0].distinctAttribute", INV, 2) + k(f"{C}[1].distinctAttribute", INV, 2)
                                    + k(f"{C}[2]", REQ)),
    "valid-request": (claim_with(_valid_request), []),
    # 1.36: an empty matchAttribute is two Invalid errors; with DRAConsumableCapacity on, a constraint
    # without any attribute is Required at the constraint itself.
    "invalid-spec": (claim_with(_invalid_spec),
                     k(f"{C}[0].requests[1]", INV, 2) + k(f"{C}[0].matchAttribute", INV, 2)
                     + k(f"{C}[1].matchAttribute", INV, 2) + k(f"{C}[2]", REQ)
                     + k(f"{CFG}[0].requests[1]", INV, 2)),
    "allocation-mode": (claim_with(_allocation_mode),
                        k(f"{R}[2].exactly.count", INV) + k(f"{R}[3].exactly.allocationMode", NS)
                        + k(f"{R}[4].exactly.count", INV) + k(f"{R}[5]", DUP)),
    "configuration": (claim_with(_configuration),
                      k(f"{CFG}[0].opaque.parameters", REQ) + k(f"{CFG}[1].opaque.parameters", INV)
                      + k(f"{CFG}[2].opaque.parameters", REQ) + k(f"{CFG}[4].opaque.parameters", LONG)),
    "CEL-compile-errors": (claim_with(_second_request_with_selectors([
        {"cel": {"expression": 'device.driver == "dra.example.com"'}},
        {"cel": {"expression": "device.attributes[true].someBoolean"}}])),
        k(f"{R}[1].exactly.selectors[1].cel.expression", INV)),
    "CEL-length": (claim_with(_second_request_with_selectors(_cel_length_selectors())),
                   k(f"{R}[1].exactly.selectors[1].cel.expression", LONG)),
    "CEL-cost": (claim_with(lambda c: requests(c)[0]["exactly"].update(selectors=[{"cel": {"expression": COST_EXPR}}])),
                 k(f"{R}[0].exactly.selectors[0].cel.expression", FORB)),
    "prioritized-list-valid": (test_claim(GOOD_NAME, GOOD_NS, FA), []),
    "prioritized-list-both-first-available-and-exactly-set": (claim_with(_both_set, FA), k(f"{R}[0]", INV)),
    "first-available-with-zero-exactly-fails-old-validation": (
        claim_with(lambda c: requests(c)[0].update(exactly={}), FA), k(f"{R}[0]", INV)),
    "prioritized-list-invalid-nested-request": (
        claim_with(lambda c: requests(c)[0]["firstAvailable"].__setitem__(0, {"name": BAD_NAME}), FA),
        k(f"{R}[0].firstAvailable[0].name", INV) + k(f"{R}[0].firstAvailable[0].deviceClassName", REQ)
        + k(f"{R}[0].firstAvailable[0].allocationMode", NS)),
    "prioritized-list-nested-requests-same-name": (
        claim_with(lambda c: requests(c)[0]["firstAvailable"][1].update(name=GOOD_NAME), FA),
        k(f"{R}[0].firstAvailable[1]", DUP)),
    "prioritized-list-too-many-subrequests": (claim_with(_too_many_subrequests), k(f"{R}[0].firstAvailable", MANY)),
    "prioritized-list-config-requests-with-subrequest-reference": (claim_with(_config_refs("foo/bar"), FA), []),
    "prioritized-list-config-requests-with-parent-request-reference": (claim_with(_config_refs("foo"), FA), []),
    "prioritized-list-config-requests-with-invalid-subrequest-reference": (
        claim_with(_config_refs("foo/baz"), FA), k(f"{CFG}[0].requests[0]", INV)),
    "prioritized-list-constraints-requests-with-subrequest-reference": (
        claim_with(_constraint_refs("foo/bar"), FA), []),
    "prioritized-list-constraints-requests-with-parent-request-reference": (
        claim_with(_constraint_refs("foo"), FA), []),
    "prioritized-list-constraints-requests-with-invalid-subrequest-reference": (
        claim_with(_constraint_refs("foo/baz"), FA), k(f"{C}[0].requests[0]", INV)),
    "tolerations": (claim_with(_tolerations, FA),
                    k(f"{TOL0}[0].operator", REQ) + k(f"{TOL1}[3].operator", REQ) + k(f"{TOL1}[4].operator", NS)
                    + k(f"{TOL1}[5].key", INV) + k(f"{TOL1}[5].value", INV) + k(f"{TOL1}[5].effect", NS)),
}


@pytest.mark.parametrize("obj,want", list(CLAIM_CREATE.values()), ids=list(CLAIM_CREATE))
def test_upstream_validate_claim(obj, want):
    assert Counter(e.key for e in validate_resource_claim(obj)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# TestValidateClaimUpdate
# ---------------------------------------------------------------------------------------------

def valid_claim():
    return test_claim(GOOD_NAME, GOOD_NS, valid_claim_spec())


def update_pair(old, update):
    old = copy.deepcopy(old)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    result = update(new)
    return (result if result is not None else new), old


def _too_large_config_claim():
    c = valid_claim()
    devices(c)["config"] = [opaque_config(driver=GOOD_NAME, parameters=sized_params(OPAQUE_MAX + 1))]
    return c


CLAIM_UPDATE = {
    "valid-no-op-update": (update_pair(valid_claim(), lambda c: None), []),
    "invalid-update": (update_pair(valid_claim(), lambda c: requests(c)[0]["exactly"].update(
        deviceClassName=GOOD_NAME + "2")), k("spec", INV)),
    "too-large-config-valid-if-stored": (update_pair(_too_large_config_claim(), lambda c: None), []),
}


@pytest.mark.parametrize("pair,want", list(CLAIM_UPDATE.values()), ids=list(CLAIM_UPDATE))
def test_upstream_validate_claim_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_update(new, old)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# TestValidateClaimStatusUpdate
# ---------------------------------------------------------------------------------------------

GOOD_SHARE_ID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
GOOD_SHARE_ID2 = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
BAD_LENGTH_SHARE_ID = "a"
BAD_FORMAT_SHARE_ID = "Aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


def result(request=GOOD_NAME, **extra):
    body = {"request": request, "driver": GOOD_NAME, "pool": GOOD_NAME, "device": GOOD_NAME, "adminAccess": False}
    body.update(extra)
    return body


def allocation(*results, **extra):
    body = {"devices": {"results": list(results)}}
    body.update(extra)
    return body


def valid_allocated_claim():
    c = valid_claim()
    c["status"] = {"allocation": allocation(result())}
    return c


def valid_allocated_claim_old():
    c = valid_allocated_claim()
    del c["status"]["allocation"]["devices"]["results"][0]["adminAccess"]
    return c


def device_status(**extra):
    body = {"driver": GOOD_NAME, "pool": GOOD_NAME, "device": GOOD_NAME}
    body.update(extra)
    return body


def conditions(n):
    return [{"type": f"test-{i}", "status": "True", "reason": "test_reason", "lastTransitionTime": NOW,
             "observedGeneration": 0} for i in range(n)]


def consumers(n, same=False):
    if same:
        return [{"resource": "pods", "name": "foo", "uid": "1"} for _ in range(n)]
    return [{"resource": "pods", "name": f"foo-{i}", "uid": str(i)} for i in range(n)]


def set_status(**fields):
    def change(c):
        c.setdefault("status", {}).update(copy.deepcopy(fields))
    return change


def add_reserved(n):
    def change(c):
        c.setdefault("status", {}).setdefault("reservedFor", []).extend(consumers(n))
    return change


def _with_deletion(c):
    c = copy.deepcopy(c)
    c["metadata"]["deletionTimestamp"] = NOW
    return c


def _with_share_id(c, share_id=GOOD_SHARE_ID):
    c = copy.deepcopy(c)
    c["status"]["allocation"]["devices"]["results"][0]["shareID"] = share_id
    return c


def _count2_claim():
    c = valid_claim()
    requests(c)[0]["exactly"]["count"] = 2
    return c


def _alloc_config(*configs):
    alloc = allocation(result())
    alloc["devices"]["config"] = list(configs)
    return set_status(allocation=alloc)


def _src(source, **config):
    body = {"source": source} if source is not None else {}
    body.update(config)
    return body


def _node_selector_invalid_label():
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["-1"]}]}]}


def both(*changes):
    def change(c):
        for each in changes:
            each(c)
    return change


def changed(obj, change):
    change(obj)
    return obj


def _binding(conds, failure):
    extra = {}
    if conds is not None:
        extra["bindingConditions"] = conds
    if failure is not None:
        extra["bindingFailureConditions"] = failure
    return set_status(allocation=allocation(result(**extra)))


NET_OK = {"interfaceName": "x" * 256, "hardwareAddress": "x" * 128, "ips": [
    "10.9.8.0/24", "2001:db8::/64", "10.9.8.1/24", "2001:db8::1/64",
    "10.9.8.2/24", "10.9.8.3/24", "10.9.8.4/24", "10.9.8.5/24", "10.9.8.6/24", "10.9.8.7/24",
    "10.9.8.8/24", "10.9.8.9/24", "10.9.8.10/24", "10.9.8.11/24", "10.9.8.12/24", "10.9.8.13/24"]}
SEVENTEEN_IPS = [f"10.9.8.{i}/24" for i in range(17)]
RES = "status.allocation.devices.results"
ACFG = "status.allocation.devices.config"
DEV = "status.devices"
FA_CLAIM = test_claim(GOOD_NAME, GOOD_NS, FA)
TWO_SHARED = allocation(result(shareID=GOOD_SHARE_ID), result(shareID=GOOD_SHARE_ID2))

STATUS_UPDATE = {
    "valid-no-op-update": (update_pair(valid_claim(), lambda c: None), []),
    "valid-add-allocation-empty": (update_pair(valid_claim(), set_status(allocation={})), []),
    "valid-add-allocation-non-empty": (update_pair(valid_claim(), set_status(allocation=allocation(result()))), []),
    "invalid-add-allocation-bad-request": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(request=BAD_NAME)))), k(f"{RES}[0].request", INV, 2)),
    "okay-add-allocation-missing-admin-access": (update_pair(valid_claim(), set_status(
        allocation=allocation({k_: v for k_, v in result().items() if k_ != "adminAccess"}))), []),
    "invalid-node-selector": (update_pair(valid_claim(), set_status(allocation={"nodeSelector": {}})),
                              k("status.allocation.nodeSelector.nodeSelectorTerms", REQ)),
    "add-reservation": (update_pair(valid_allocated_claim(), add_reserved(MAX_RESERVED_FOR)), []),
    "add-reservation-old-claim": (update_pair(valid_allocated_claim_old(), add_reserved(MAX_RESERVED_FOR)), []),
    "add-reservation-and-allocation": (update_pair(valid_claim(), both(
        set_status(allocation=allocation(result())), add_reserved(MAX_RESERVED_FOR))), []),
    "invalid-reserved-for-too-large": (update_pair(valid_allocated_claim(), add_reserved(MAX_RESERVED_FOR + 1)),
                                       k("status.reservedFor", MANY)),
    "invalid-reserved-for-duplicate": (update_pair(valid_allocated_claim(), set_status(
        reservedFor=consumers(2, same=True))), k("status.reservedFor[1]", DUP)),
    "invalid-reserved-for-no-allocation": (update_pair(valid_claim(), set_status(reservedFor=consumers(1, same=True))),
                                           k("status.reservedFor", FORB)),
    "invalid-reserved-for-no-resource": (update_pair(valid_allocated_claim(), set_status(
        reservedFor=[{"name": "foo", "uid": "1"}])), k("status.reservedFor[0].resource", REQ)),
    "invalid-reserved-for-no-name": (update_pair(valid_allocated_claim(), set_status(
        reservedFor=[{"resource": "pods", "uid": "1"}])), k("status.reservedFor[0].name", REQ)),
    "invalid-reserved-for-no-uid": (update_pair(valid_allocated_claim(), set_status(
        reservedFor=[{"resource": "pods", "name": "foo"}])), k("status.reservedFor[0].uid", REQ)),
    "invalid-reserved-deleted": (update_pair(_with_deletion(valid_allocated_claim()), set_status(
        reservedFor=consumers(1, same=True))), k("status.reservedFor", FORB)),
    "invalid-allocation-modification": (update_pair(valid_allocated_claim(), lambda c: c["status"]["allocation"][
        "devices"]["results"][0].update(driver=GOOD_NAME + "-2")), k("status.allocation", INV)),
    "invalid-request-name": (update_pair(valid_claim(), _alloc_config(
        _src("FromClaim", **opaque_config(requests=[GOOD_NAME, BAD_NAME])))), k(f"{ACFG}[0].requests[1]", INV, 2)),
    "configuration": (update_pair(valid_claim(), _alloc_config(
        _src("FromClaim", **opaque_config()),
        _src("", **opaque_config()),
        _src("no-such-source", **opaque_config()),
        _src("FromClaim"),
        _src("FromClaim", opaque={}),
        _src("FromClaim", **opaque_config(driver=GOOD_NAME, parameters=sized_params(OPAQUE_MAX))),
        _src("FromClaim", **opaque_config(driver=GOOD_NAME, parameters=sized_params(OPAQUE_MAX + 1))))),
        k(f"{ACFG}[1].source", REQ) + k(f"{ACFG}[2].source", NS) + k(f"{ACFG}[3].opaque", REQ)
        + k(f"{ACFG}[4].opaque.driver", REQ) + k(f"{ACFG}[4].opaque.parameters", REQ)
        + k(f"{ACFG}[6].opaque.parameters", LONG)),
    "valid-configuration-update": (update_pair(changed(valid_claim(), _alloc_config(_src("FromClaim", **opaque_config(
        driver=GOOD_NAME, parameters=sized_params(OPAQUE_MAX + 1))))), lambda c: None), []),
    "valid-network-device-status": (update_pair(valid_allocated_claim(), set_status(devices=[device_status(
        conditions=conditions(8), data=PARAMS, networkData=NET_OK)])), []),
    "invalid-device-status-duplicate": (update_pair(valid_allocated_claim(), set_status(devices=[
        device_status(networkData={"ips": ["2001:db8::1/64", "2001:db8::1/64"]}), device_status()])),
        k(f"{DEV}[0].networkData.ips[1]", DUP) + k(f"{DEV}[1]", DUP)),
    "invalid-device-status-duplicate-with-share-id": (update_pair(_with_share_id(valid_allocated_claim()), set_status(
        devices=[device_status(shareID=GOOD_SHARE_ID), device_status(shareID=GOOD_SHARE_ID)])), k(f"{DEV}[1]", DUP)),
    "invalid-network-device-status": (update_pair(valid_allocated_claim(), set_status(devices=[device_status(
        networkData={"interfaceName": "x" * 257, "hardwareAddress": "x" * 129,
                     "ips": ["300.9.8.0/24", "010.009.008.000/24", "2001:0db8::1/64"]})])),
        k(f"{DEV}[0].networkData.interfaceName", LONG) + k(f"{DEV}[0].networkData.hardwareAddress", LONG)
        + k(f"{DEV}[0].networkData.ips[0]", INV) + k(f"{DEV}[0].networkData.ips[1]", INV)
        + k(f"{DEV}[0].networkData.ips[2]", INV)),
    "invalid-data-device-status-limits": (update_pair(valid_allocated_claim(), set_status(devices=[device_status(
        data=sized_params(DATA_MAX + 1), conditions=conditions(9), networkData={"ips": SEVENTEEN_IPS})])),
        k(f"{DEV}[0].conditions", MANY) + k(f"{DEV}[0].data", LONG) + k(f"{DEV}[0].networkData.ips", MANY)),
    "invalid-device-status-no-device": (update_pair(valid_allocated_claim(), set_status(devices=[
        {"driver": "b", "pool": "a", "device": "r"}])), k(f"{DEV}[0]", INV)),
    "invalid-update-invalid-label-value": (update_pair(valid_claim(), set_status(allocation=allocation(
        result(), nodeSelector=_node_selector_invalid_label()))),
        k("status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]", INV)),
    "valid-update-with-invalid-label-value": (update_pair(changed(valid_allocated_claim(), lambda c: c["status"][
        "allocation"].update(nodeSelector=_node_selector_invalid_label())), add_reserved(MAX_RESERVED_FOR)), []),
    "valid-add-allocation-with-sub-requests": (update_pair(FA_CLAIM, set_status(
        allocation=allocation(result(request=f"{GOOD_NAME}/{GOOD_NAME}")))), []),
    "invalid-add-allocation-with-sub-requests-invalid-format": (update_pair(FA_CLAIM, set_status(
        allocation=allocation(result(request=BAD_REQUEST_FORMAT)))), k(f"{RES}[0].request", INV)),
    "invalid-add-allocation-with-sub-requests-no-corresponding-sub-request": (update_pair(FA_CLAIM, set_status(
        allocation=allocation(result(request="foo/baz")))), k(f"{RES}[0].request", INV)),
    "invalid-add-allocation-with-sub-requests-invalid-request-names": (update_pair(FA_CLAIM, set_status(
        allocation=allocation(result(request=BAD_FULL_SUBREQUEST_NAME)))), k(f"{RES}[0].request", INV, 3)),
    "good-binding-conditions": (update_pair(valid_claim(), _binding(
        ["example.com/condition1", "condition2", "condition3", "condition4"],
        ["example.com/condition5", "condition6", "condition7", "condition8"])), []),
    "too-many-binding-conditions": (update_pair(valid_claim(), _binding(
        ["condition1", "condition2", "condition3", "condition4", "condition5"], ["condition6", "condition7"])),
        k(f"{RES}[0].bindingConditions", MANY)),
    "too-many-binding-failure-conditions": (update_pair(valid_claim(), _binding(
        ["condition1", "condition2"], ["condition3", "condition4", "condition5", "condition6", "condition7"])),
        k(f"{RES}[0].bindingFailureConditions", MANY)),
    "invalid-binding-conditions": (update_pair(valid_claim(), _binding(
        ["condition1", "condition2!"], ["condition3", "condition4"])), k(f"{RES}[0].bindingConditions[1]", INV)),
    "invalid-binding-failure-conditions": (update_pair(valid_claim(), _binding(
        ["condition1", "condition2"], ["condition3", "condition4!"])),
        k(f"{RES}[0].bindingFailureConditions[1]", INV)),
    "lacking-binding-conditions-claim-has-binding-failure-conditions": (update_pair(valid_claim(), _binding(
        None, ["condition3", "condition4"])), k(f"{RES}[0].bindingConditions", INV)),
    "lacking-binding-failure-conditions-claim-has-binding-conditions": (update_pair(valid_claim(), _binding(
        ["condition1", "condition2"], None)), k(f"{RES}[0].bindingFailureConditions", INV)),
    "valid-add-allocation-with-consumable-capacity-feature-on": (update_pair(valid_claim(), set_status(
        allocation=allocation(result()))), []),
    "valid-add-multi-alloc-devices": (update_pair(_count2_claim(), set_status(allocation=TWO_SHARED)), []),
    "valid-add-multi-alloc-devices-with-device-status": (update_pair(_count2_claim(), set_status(
        allocation=TWO_SHARED, devices=[device_status(shareID=GOOD_SHARE_ID), device_status(shareID=GOOD_SHARE_ID2)])),
        []),
    "valid-add-multi-alloc-devices-with-consumed-capacity": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(shareID=GOOD_SHARE_ID, consumedCapacity={GOOD_NAME: "1"})))), []),
    "valid-add-enable-both-device-status-and-consumable-capacity-features": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(shareID=GOOD_SHARE_ID)), devices=[device_status(shareID=GOOD_SHARE_ID)])), []),
    "invalid-add-allocated-status-no-share-id": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(shareID=GOOD_SHARE_ID)), devices=[device_status()])), k(f"{DEV}[0]", INV)),
    "invalid-add-allocated-status-mismatch-share-id": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(shareID=GOOD_SHARE_ID)), devices=[device_status(shareID=GOOD_SHARE_ID2)])),
        k(f"{DEV}[0]", INV)),
    "invalid-add-allocated-status-invalid-share-id": (update_pair(valid_claim(), set_status(
        allocation=allocation(result(shareID=BAD_LENGTH_SHARE_ID), result(shareID=BAD_FORMAT_SHARE_ID)),
        devices=[device_status(shareID=BAD_LENGTH_SHARE_ID), device_status(shareID=BAD_FORMAT_SHARE_ID)])),
        k(f"{DEV}[0].shareID", INV) + k(f"{DEV}[1].shareID", INV) + k(f"{RES}[0].shareID", INV)
        + k(f"{RES}[1].shareID", INV)),
}


@pytest.mark.parametrize("pair,want", list(STATUS_UPDATE.values()), ids=list(STATUS_UPDATE))
def test_upstream_validate_claim_status_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_status_update(new, old)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# TestValidateClaimTemplate / TestValidateClaimTemplateUpdate
# ---------------------------------------------------------------------------------------------

def test_claim_template(name, namespace, spec):
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"spec": copy.deepcopy(spec)}}


test_claim_template.__test__ = False  # a builder, not a test


def template_with(mutate, spec=None):
    t = test_claim_template(GOOD_NAME, GOOD_NS, spec or valid_claim_spec())
    mutate(t)
    return t


TR = "spec.spec.devices.requests"

TEMPLATE_CREATE = {
    "good-claim": (test_claim_template(GOOD_NAME, GOOD_NS, valid_claim_spec()), []),
    "missing-name": (test_claim_template("", GOOD_NS, valid_claim_spec()), k("metadata.name", REQ)),
    "bad-name": (test_claim_template(BAD_NAME, GOOD_NS, valid_claim_spec()), k("metadata.name", INV)),
    "missing-namespace": (test_claim_template(GOOD_NAME, "", valid_claim_spec()), k("metadata.namespace", REQ)),
    **meta_cases(lambda: test_claim_template(GOOD_NAME, GOOD_NS, valid_claim_spec())),
    "bad-classname": (template_with(lambda t: t["spec"]["spec"]["devices"]["requests"][0]["exactly"].update(
        deviceClassName=BAD_NAME)), k(f"{TR}[0].exactly.deviceClassName", INV)),
    "prioritized-list": (test_claim_template(GOOD_NAME, GOOD_NS, FA), []),
    "prioritized-list-both-first-available-and-exactly-set": (template_with(
        lambda t: t["spec"]["spec"]["devices"]["requests"][0].update(
            exactly={"deviceClassName": GOOD_NAME, "allocationMode": "All"}), FA), k(f"{TR}[0]", INV)),
    "prioritized-list-bad-class-name-on-subrequest": (template_with(
        lambda t: t["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][0].update(deviceClassName=BAD_NAME),
        FA), k(f"{TR}[0].firstAvailable[0].deviceClassName", INV)),
}


@pytest.mark.parametrize("obj,want", list(TEMPLATE_CREATE.values()), ids=list(TEMPLATE_CREATE))
def test_upstream_validate_claim_template(obj, want):
    assert Counter(e.key for e in validate_resource_claim_template(obj)) == Counter(want)


TEMPLATE_UPDATE = {
    "valid-no-op-update": (update_pair(test_claim_template(GOOD_NAME, GOOD_NS, valid_claim_spec()), lambda t: None),
                           []),
    "invalid-update-class": (update_pair(test_claim_template(GOOD_NAME, GOOD_NS, valid_claim_spec()),
                                         lambda t: t["spec"]["spec"]["devices"]["requests"][0]["exactly"].update(
                                             deviceClassName=GOOD_NAME + "2")), k("spec", INV)),
    "prioritized-listinvalid-update-class": (update_pair(test_claim_template(GOOD_NAME, GOOD_NS, FA),
                                                         lambda t: t["spec"]["spec"]["devices"]["requests"][0][
                                                             "firstAvailable"][0].update(
                                                             deviceClassName=GOOD_NAME + "2")), k("spec", INV)),
}


@pytest.mark.parametrize("pair,want", list(TEMPLATE_UPDATE.values()), ids=list(TEMPLATE_UPDATE))
def test_upstream_validate_claim_template_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_template_update(new, old)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# TestValidateClass / TestValidateClassUpdate (1.36-era table)
# ---------------------------------------------------------------------------------------------

def test_class(name):
    return {"metadata": {"name": name}, "spec": {}}


test_class.__test__ = False  # a builder, not a test


def class_with(mutate):
    c = test_class(GOOD_NAME)
    mutate(c)
    return c


CLASS_SELECTOR = {"cel": {"expression": "true"}}
CLASS_CONFIG = {"opaque": {"driver": GOOD_NAME, "parameters": {"foo": 42}}}


def _class_selectors(c):
    sels = [CLASS_SELECTOR, {}, {"cel": {"expression": "noSuchVar"}}]
    sels += [CLASS_SELECTOR] * (MAX_SELECTORS - len(sels))
    c["spec"]["selectors"] = copy.deepcopy(sels)


def _class_configuration(c):
    cfgs = [
        CLASS_CONFIG,
        {"opaque": {}},                                                      # both fields required
        {"opaque": {"driver": GOOD_NAME, "parameters": "hello-world"}},      # not an object
        {"opaque": {"driver": GOOD_NAME, "parameters": None}},               # null
        {},                                                                  # empty
        {"opaque": {"driver": GOOD_NAME, "parameters": sized_params(OPAQUE_MAX)}},
        {"opaque": {"driver": GOOD_NAME, "parameters": sized_params(OPAQUE_MAX + 1)}},
    ]
    cfgs += [CLASS_CONFIG] * (MAX_CONFIG - len(cfgs))
    c["spec"]["config"] = copy.deepcopy(cfgs)


CLASS_CREATE = {
    "good-class": (test_class(GOOD_NAME), []),
    "missing-name": (test_class(""), k("metadata.name", REQ)),
    "bad-name": (test_class(BAD_NAME), k("metadata.name", INV)),
    **meta_cases(lambda: test_class(GOOD_NAME)),
    "good-extended-resource-name": (class_with(lambda c: c["spec"].update(extendedResourceName="example.com/gpu")), []),
    "bad-extended-resource-name": (class_with(lambda c: c["spec"].update(extendedResourceName="example.com")),
                                   k("spec.extendedResourceName", INV)),
    "selectors": (class_with(_class_selectors),
                  k("spec.selectors[1].cel", REQ) + k("spec.selectors[2].cel.expression", INV)),
    "too-many-selectors": (class_with(lambda c: c["spec"].update(selectors=[CLASS_SELECTOR] * (MAX_SELECTORS + 1))),
                           k("spec.selectors", MANY)),
    "configuration": (class_with(_class_configuration),
                      k("spec.config[1].opaque.driver", REQ) + k("spec.config[1].opaque.parameters", REQ)
                      + k("spec.config[2].opaque.parameters", INV) + k("spec.config[3].opaque.parameters", REQ)
                      + k("spec.config[4].opaque", REQ) + k("spec.config[6].opaque.parameters", LONG)),
    "too-many-configs": (class_with(lambda c: c["spec"].update(config=[CLASS_CONFIG] * (MAX_CONFIG + 1))),
                         k("spec.config", MANY)),
}


@pytest.mark.parametrize("obj,want", list(CLASS_CREATE.values()), ids=list(CLASS_CREATE))
def test_upstream_validate_class(obj, want):
    assert Counter(e.key for e in validate_device_class(obj)) == Counter(want)


def _set_class_config(length):
    return lambda c: c["spec"].update(config=[{"opaque": {"driver": GOOD_NAME, "parameters": sized_params(length)}}])


CLASS_UPDATE = {
    "valid-no-op-update": (update_pair(test_class(GOOD_NAME), lambda c: None), []),
    "valid-config-large": (update_pair(test_class(GOOD_NAME), _set_class_config(OPAQUE_MAX)), []),
    "invalid-config-too-large": (update_pair(test_class(GOOD_NAME), _set_class_config(OPAQUE_MAX + 1)),
                                 k("spec.config[0].opaque.parameters", LONG)),
    "too-large-config-valid-if-stored": (update_pair(class_with(_set_class_config(OPAQUE_MAX + 1)), lambda c: None),
                                         []),
}


@pytest.mark.parametrize("pair,want", list(CLASS_UPDATE.values()), ids=list(CLASS_UPDATE))
def test_upstream_validate_class_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_device_class_update(new, old)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# TestValidateDeviceTaint / TestValidateDeviceTaintUpdate
# ---------------------------------------------------------------------------------------------

def valid_taint_rule_spec():
    return {"deviceSelector": {"driver": "test.example.com", "pool": GOOD_NAME, "device": GOOD_NAME},
            "taint": {"key": "example.com/taint", "value": "tainted", "effect": "NoSchedule"}}


def test_device_taint_rule(name, spec):
    return {"metadata": {"name": name}, "spec": copy.deepcopy(spec)}


test_device_taint_rule.__test__ = False  # a builder, not a test


def rule_with(mutate, name=GOOD_NAME):
    r = test_device_taint_rule(name, valid_taint_rule_spec())
    mutate(r)
    return r


RULE_CREATE = {
    "good": (test_device_taint_rule(GOOD_NAME, valid_taint_rule_spec()), []),
    "missing-name": (test_device_taint_rule("", valid_taint_rule_spec()), k("metadata.name", REQ)),
    "bad-name": (test_device_taint_rule(BAD_NAME, valid_taint_rule_spec()), k("metadata.name", INV)),
    **meta_cases(lambda: test_device_taint_rule(GOOD_NAME, valid_taint_rule_spec())),
    "bad-driver": (rule_with(lambda r: r["spec"]["deviceSelector"].update(driver=BAD_NAME)),
                   k("spec.deviceSelector.driver", INV)),
    "bad-pool": (rule_with(lambda r: r["spec"]["deviceSelector"].update(pool=BAD_NAME)),
                 k("spec.deviceSelector.pool", INV)),
    "bad-device": (rule_with(lambda r: r["spec"]["deviceSelector"].update(device=BAD_NAME)),
                   k("spec.deviceSelector.device", INV)),
    "valid-taint": (rule_with(lambda r: r["spec"].update(taint={"key": GOOD_NAME, "value": GOOD_NAME,
                                                                "effect": "NoExecute"})), []),
    "required-taint": (rule_with(lambda r: r["spec"].update(taint={"key": GOOD_NAME, "value": GOOD_NAME})),
                       k("spec.taint.effect", REQ)),
    "invalid-taint": (rule_with(lambda r: r["spec"].update(taint={"key": GOOD_NAME, "value": GOOD_NAME,
                                                                  "effect": "some-other-effect"})),
                      k("spec.taint.effect", NS)),
}


@pytest.mark.parametrize("obj,want", list(RULE_CREATE.values()), ids=list(RULE_CREATE))
def test_upstream_validate_device_taint_rule(obj, want):
    assert Counter(e.key for e in validate_device_taint_rule(obj)) == Counter(want)


def _unknown_effect_rule():
    r = test_device_taint_rule("valid", valid_taint_rule_spec())
    r["spec"]["taint"]["effect"] = "some-other-effect"
    return r


RULE_UPDATE = {
    "valid-no-op-update": (update_pair(test_device_taint_rule("valid", valid_taint_rule_spec()), lambda r: None), []),
    "invalid-name-update": (update_pair(test_device_taint_rule("valid", valid_taint_rule_spec()),
                                        lambda r: r["metadata"].update(name="valid-update")), k("metadata.name", INV)),
    "valid-existing-unknown-effect": (update_pair(_unknown_effect_rule(),
                                                  lambda r: r["metadata"].update(labels={"a": "b"})), []),
    "invalid-new-unknown-effect": (update_pair(test_device_taint_rule("valid", valid_taint_rule_spec()),
                                               lambda r: r["spec"]["taint"].update(effect="some-other-effect")),
                                   k("spec.taint.effect", NS)),
}


@pytest.mark.parametrize("pair,want", list(RULE_UPDATE.values()), ids=list(RULE_UPDATE))
def test_upstream_validate_device_taint_rule_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_device_taint_rule_update(new, old)) == Counter(want)


# ---------------------------------------------------------------------------------------------
# Strategy-level tables of the ResourceClaim registry (declarative-validation equivalence tests).
# Their matcher does not count repeated (field, type, origin) errors, so multiplicities below follow
# the hand-written validation (e.g. an attribute name without domain that is also not a C
# identifier is two Invalid errors).
# ---------------------------------------------------------------------------------------------

def mk_device_request(name):
    return {"name": name, "exactly": {"deviceClassName": "class", "allocationMode": "ExactCount", "count": 1}}


def mk_valid_resource_claim(*tweaks):
    rc = {"metadata": {"name": "valid-claim", "namespace": "default"},
          "spec": {"devices": {"requests": [mk_device_request("req-0")]}}}
    for tweak in tweaks:
        tweak(rc)
    return rc


def mk_device_claim_configuration():
    return {"requests": ["req-0"], "opaque": {"driver": "dra.example.com", "parameters": copy.deepcopy(PARAMS)}}


def mk_device_constraint():
    return {"requests": ["req-0"], "matchAttribute": "foo/bar"}


def tweak_devices_configs(n):
    return lambda rc: devices(rc).setdefault("config", []).extend(mk_device_claim_configuration() for _ in range(n))


def tweak_devices_constraints(n):
    return lambda rc: devices(rc).setdefault("constraints", []).extend(mk_device_constraint() for _ in range(n))


def tweak_devices_requests(n):
    return lambda rc: requests(rc).extend(mk_device_request(f"req-{i}") for i in range(1, n))


def tweak_add_device_request(req):
    return lambda rc: requests(rc).append(copy.deepcopy(req))


def _sub(name, **extra):
    body = {"name": name, "deviceClassName": "class", "allocationMode": "All"}
    body.update(extra)
    return body


def tweak_first_available(n):
    def tweak(rc):
        req = requests(rc)[0]
        req.pop("exactly", None)
        req.setdefault("firstAvailable", []).extend(_sub(f"sub-{i}") for i in range(n))
    return tweak


def tweak_first_available_only(**extra):
    def tweak(rc):
        req = requests(rc)[0]
        req.pop("exactly", None)
        req["firstAvailable"] = [_sub("sub-0", **extra)]
    return tweak


def tweak_duplicate_first_available_name(name):
    def tweak(rc):
        req = requests(rc)[0]
        req.pop("exactly", None)
        req["firstAvailable"] = [_sub(name), _sub(name)]
    return tweak


def _selectors(n):
    return [{"cel": {"expression": f'device.driver == "test.driver.io{i}"'}} for i in range(n)]


def tweak_exactly_selectors(n):
    return lambda rc: requests(rc)[0]["exactly"].setdefault("selectors", []).extend(_selectors(n))


def tweak_sub_request_selectors(n):
    return tweak_first_available_only(selectors=_selectors(n))


def tweak_constraint_requests(n):
    def tweak(rc):
        tweak_devices_requests(n)(rc)
        cons = devices(rc).setdefault("constraints", [])
        if not cons:
            cons.append(mk_device_constraint())
        cons[0]["requests"] = [f"req-{i}" for i in range(n)]
    return tweak


def tweak_config_requests(n):
    def tweak(rc):
        tweak_devices_requests(n)(rc)
        cfg = devices(rc).setdefault("config", [])
        if not cfg:
            cfg.append(mk_device_claim_configuration())
        cfg[0]["requests"] = [f"req-{i}" for i in range(n)]
    return tweak


def tweak_duplicate_constraint_request(name):
    def tweak(rc):
        cons = devices(rc).setdefault("constraints", [])
        if not cons:
            cons.append(mk_device_constraint())
        cons[0]["requests"].append(name)
    return tweak


def tweak_duplicate_config_request(name):
    def tweak(rc):
        cfg = devices(rc).setdefault("config", [])
        if not cfg:
            cfg.append(mk_device_claim_configuration())
        cfg[0]["requests"].append(name)
    return tweak


def tweak_config_driver(driver):
    return lambda rc: devices(rc).update(config=[{"requests": ["req-0"], "opaque": {
        "driver": driver, "parameters": {"key": "value"}}}])


def tweak_exactly_tolerations(*tolerations):
    def tweak(rc):
        for req in requests(rc):
            req["exactly"]["tolerations"] = copy.deepcopy(list(tolerations))
    return tweak


def tweak_first_available_tolerations(*tolerations):
    def tweak(rc):
        for req in requests(rc):
            for sub in req.get("firstAvailable", []):
                sub["tolerations"] = copy.deepcopy(list(tolerations))
    return tweak


def tweak_exactly_allocation_mode(mode, count):
    return lambda rc: requests(rc)[0]["exactly"].update(allocationMode=mode, count=count)


def tweak_match_attribute(value):
    return lambda rc: devices(rc).update(constraints=[{"matchAttribute": value}])


def _tol(key="key", operator="Equal", value="value", effect="NoSchedule"):
    body = {"key": key, "operator": operator, "effect": effect}
    if value is not None:
        body["value"] = value
    return body


R0 = f"{R}[0]"
OPAQUE_DRIVER = f"{CFG}[0].opaque.driver"
MATCH = f"{C}[0].matchAttribute"

STRATEGY_CREATE = {
    "valid": (mk_valid_resource_claim(), []),
    "valid requests, max allowed": (mk_valid_resource_claim(tweak_devices_configs(32)), []),
    "valid constraints, max allowed": (mk_valid_resource_claim(tweak_devices_constraints(32)), []),
    "valid config, max allowed": (mk_valid_resource_claim(tweak_devices_configs(32)), []),
    "invalid requests, too many": (mk_valid_resource_claim(tweak_devices_requests(33)), k(R, MANY)),
    "invalid requests, duplicate name": (mk_valid_resource_claim(tweak_add_device_request(mk_device_request("req-0"))),
                                         k(f"{R}[1]", DUP)),
    "invalid requests, too many AND duplicate name (short-circuit check)": (mk_valid_resource_claim(
        tweak_devices_requests(33), tweak_add_device_request(mk_device_request("req-0"))), k(R, MANY)),
    "invalid constraints, too many": (mk_valid_resource_claim(tweak_devices_constraints(33)), k(C, MANY)),
    "invalid config, too many": (mk_valid_resource_claim(tweak_devices_configs(33)), k(CFG, MANY)),
    "invalid firstAvailable, too many": (mk_valid_resource_claim(tweak_first_available(9)),
                                         k(f"{R0}.firstAvailable", MANY)),
    "invalid firstAvailable, duplicate name": (mk_valid_resource_claim(tweak_duplicate_first_available_name("sub-0")),
                                               k(f"{R0}.firstAvailable[1]", DUP)),
    "invalid selectors, too many": (mk_valid_resource_claim(tweak_exactly_selectors(33)),
                                    k(f"{R0}.exactly.selectors", MANY)),
    "invalid subrequest selectors, too many": (mk_valid_resource_claim(tweak_sub_request_selectors(33)),
                                               k(f"{R0}.firstAvailable[0].selectors", MANY)),
    "invalid constraint requests, too many": (mk_valid_resource_claim(tweak_constraint_requests(33)),
                                              k(R, MANY) + k(f"{C}[0].requests", MANY)),
    "invalid config requests, too many": (mk_valid_resource_claim(tweak_config_requests(33)),
                                          k(R, MANY) + k(f"{CFG}[0].requests", MANY)),
    "invalid constraint requests, duplicate name": (mk_valid_resource_claim(
        tweak_duplicate_constraint_request("req-0")), k(f"{C}[0].requests[1]", DUP)),
    "invalid config requests, duplicate name": (mk_valid_resource_claim(tweak_duplicate_config_request("req-0")),
                                                k(f"{CFG}[0].requests[1]", DUP)),
    "valid firstAvailable, max allowed": (mk_valid_resource_claim(tweak_first_available(8)), []),
    "valid selectors, max allowed": (mk_valid_resource_claim(tweak_exactly_selectors(32)), []),
    "valid subrequest selectors, max allowed": (mk_valid_resource_claim(tweak_sub_request_selectors(32)), []),
    "valid constraint requests, max allowed": (mk_valid_resource_claim(tweak_constraint_requests(32)), []),
    "valid config requests, max allowed": (mk_valid_resource_claim(tweak_config_requests(32)), []),
    "valid opaque driver, lowercase": (mk_valid_resource_claim(tweak_config_driver("dra.example.com")), []),
    "valid opaque driver, mixed case": (mk_valid_resource_claim(tweak_config_driver("DRA.Example.COM")), []),
    "valid opaque driver, max length": (mk_valid_resource_claim(tweak_config_driver("a" * 63)), []),
    "invalid opaque driver, empty": (mk_valid_resource_claim(tweak_config_driver("")), k(OPAQUE_DRIVER, REQ)),
    "invalid opaque driver, too long - 64 characters": (mk_valid_resource_claim(tweak_config_driver("a" * 64)),
                                                        k(OPAQUE_DRIVER, LONG)),
    "invalid opaque driver, too long - 255 characters": (mk_valid_resource_claim(tweak_config_driver("a" * 255)),
                                                         k(OPAQUE_DRIVER, LONG) + k(OPAQUE_DRIVER, INV)),
    "invalid opaque driver, invalid character": (mk_valid_resource_claim(tweak_config_driver("dra_example.com")),
                                                 k(OPAQUE_DRIVER, INV)),
    "invalid opaque driver, invalid DNS name (leading dot)": (mk_valid_resource_claim(
        tweak_config_driver(".example.com")), k(OPAQUE_DRIVER, INV)),
    "valid Exactly.Tolerations.Key": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol("valid-key", "Exists", None))), []),
    "valid Exactly.Tolerations.Key empty": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol("", "Exists", None))), []),
    "invalid Exactly.Tolerations.Key": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol("invalid_key!", "Exists", None))), k(f"{R0}.exactly.tolerations[0].key", INV)),
    "invalid  Exactly.Tolerations.Key - multiple slashes": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol("a/b/c", "Exists", None))), k(f"{R0}.exactly.tolerations[0].key", INV)),
    "valid FirstAvailable.Tolerations.Key": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol("valid-key", "Exists", None))), []),
    "valid FirstAvailable.Tolerations.Key empty": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol("", "Exists", None))), []),
    "invalid FirstAvailable.Tolerations.Key": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol("invalid_key!", "Exists", None))),
        k(f"{R0}.firstAvailable[0].tolerations[0].key", INV)),
    "invalid FirstAvailable.Tolerations.Key - multiple slashes": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol("a/b/c", "Exists", None))),
        k(f"{R0}.firstAvailable[0].tolerations[0].key", INV)),
    "valid DeviceAllocationMode - All": (mk_valid_resource_claim(tweak_exactly_allocation_mode("All", 0)), []),
    "invalid DeviceAllocationMode - Exactly": (mk_valid_resource_claim(tweak_exactly_allocation_mode("InvalidMode", 1)),
                                               k(f"{R0}.exactly.allocationMode", NS)),
    "valid DeviceAllocationMode - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available_only(allocationMode="All", count=0)), []),
    "invalid DeviceAllocationMode - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available_only(allocationMode="InvalidMode", count=1)),
        k(f"{R0}.firstAvailable[0].allocationMode", NS)),
    "valid firstAvailable class name": (mk_valid_resource_claim(tweak_first_available_only(deviceClassName="class")),
                                        []),
    "invalid firstAvailable class name - invalid characters": (mk_valid_resource_claim(
        tweak_first_available_only(deviceClassName="Class&")), k(f"{R0}.firstAvailable[0].deviceClassName", INV)),
    "invalid firstAvailable class name - long name": (mk_valid_resource_claim(
        tweak_first_available_only(deviceClassName="a" * 254)), k(f"{R0}.firstAvailable[0].deviceClassName", INV)),
    "invalid firstAvailable class name - empty": (mk_valid_resource_claim(
        tweak_first_available_only(deviceClassName="")), k(f"{R0}.firstAvailable[0].deviceClassName", REQ)),
    "valid DeviceTolerationOperator/Effect - Exactly": (mk_valid_resource_claim(tweak_exactly_tolerations(_tol())),
                                                        []),
    "invalid DeviceTolerationOperator - Exactly": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol(operator="InvalidOp"))), k(f"{R0}.exactly.tolerations[0].operator", NS)),
    "invalid DeviceTaintEffect - Exactly": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol(effect="InvalidEffect"))), k(f"{R0}.exactly.tolerations[0].effect", NS)),
    "valid DeviceTolerationOperator/Effect - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol())), []),
    "invalid DeviceTolerationOperator - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol(operator="InvalidOp"))),
        k(f"{R0}.firstAvailable[0].tolerations[0].operator", NS)),
    "invalid DeviceTaintEffect - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol(effect="InvalidEffect"))),
        k(f"{R0}.firstAvailable[0].tolerations[0].effect", NS)),
    "invalid match attribute": (mk_valid_resource_claim(tweak_match_attribute("invalid!")), k(MATCH, INV, 2)),
    "match attribute without domain": (mk_valid_resource_claim(tweak_match_attribute("nodomain")), k(MATCH, INV)),
    "match attribute empty": (mk_valid_resource_claim(tweak_match_attribute("")), k(MATCH, INV, 2)),
    "match attribute with empty domain": (mk_valid_resource_claim(tweak_match_attribute("/foo")), k(MATCH, INV)),
    "match attribute with empty name": (mk_valid_resource_claim(tweak_match_attribute("foo/")), k(MATCH, INV)),
    "match attribute with invalid domain": (mk_valid_resource_claim(tweak_match_attribute("invalid_domain/foo")),
                                            k(MATCH, INV)),
    "match attribute with invalid name": (mk_valid_resource_claim(tweak_match_attribute("domain/invalid-name")),
                                          k(MATCH, INV)),
    "match attribute with long name": (mk_valid_resource_claim(tweak_match_attribute("domain/" + "a" * 65)),
                                       k(MATCH, LONG)),
    "match attribute with long domain": (mk_valid_resource_claim(tweak_match_attribute("a" * 254 + "/name")),
                                         k(MATCH, LONG) + k(MATCH, INV)),
}


@pytest.mark.parametrize("obj,want", list(STRATEGY_CREATE.values()), ids=list(STRATEGY_CREATE))
def test_upstream_strategy_validate_claim(obj, want):
    assert Counter(e.key for e in validate_resource_claim(obj)) == Counter(want)


STRATEGY_UPDATE = {
    "valid": (update_pair(mk_valid_resource_claim(), lambda c: None), []),
    "spec immutable: modify request class name": (update_pair(mk_valid_resource_claim(), lambda c: requests(c)[0][
        "exactly"].update(deviceClassName="another-class")), k("spec", INV)),
    "spec immutable: add request": (update_pair(mk_valid_resource_claim(), tweak_add_device_request(
        mk_device_request("req-1"))), k("spec", INV)),
    "spec immutable: remove request": (update_pair(mk_valid_resource_claim(), lambda c: requests(c).pop(0) and None),
                                       k("spec", INV)),
    "spec immutable: add constraint": (update_pair(mk_valid_resource_claim(), tweak_devices_constraints(1)),
                                       k("spec", INV)),
    "spec immutable: short-circuits other errors (e.g. TooMany)": (update_pair(
        mk_valid_resource_claim(), tweak_devices_requests(33)), k("spec", INV)),
    "spec immutable: add Exactly.Tolerations": (update_pair(mk_valid_resource_claim(), tweak_exactly_tolerations(
        _tol("valid-key", "Exists", None))), k("spec", INV)),
    "spec immutable: short-circuits deviceClassName error": (update_pair(
        mk_valid_resource_claim(), tweak_first_available_only(deviceClassName="Class")), k("spec", INV)),
}


@pytest.mark.parametrize("pair,want", list(STRATEGY_UPDATE.values()), ids=list(STRATEGY_UPDATE))
def test_upstream_strategy_validate_claim_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_update(new, old)) == Counter(want)


def mk_resource_claim_with_status(*tweaks):
    rc = mk_valid_resource_claim()
    rc["status"] = {"allocation": {"devices": {"results": [
        {"request": "req-0", "driver": "dra.example.com", "pool": "pool-0", "device": "device-0"}]}}}
    for tweak in tweaks:
        tweak(rc)
    return rc


def _results(rc):
    return rc["status"]["allocation"]["devices"]["results"]


def tweak_result(**fields):
    return lambda rc: [r.update(fields) for r in _results(rc)] and None


def tweak_status_devices(*entries):
    return lambda rc: rc["status"].update(devices=copy.deepcopy(list(entries)))


def tweak_status_device_share_id(share_id):
    return lambda rc: [d.update(shareID=share_id) for d in rc["status"]["devices"]] and None


def tweak_status_allocation(*results):
    return lambda rc: rc["status"]["allocation"]["devices"].update(results=copy.deepcopy(list(results)))


def tweak_reserved_for(*uids):
    return lambda rc: rc["status"].update(reservedFor=[{"uid": u, "resource": "Pod", "name": "pod-name"} for u in uids])


def tweak_results_count(n):
    return lambda rc: rc["status"]["allocation"]["devices"].update(results=[
        {"request": "req-0", "driver": "dra.example.com", "pool": f"pool-{i}", "device": f"device-{i}"}
        for i in range(n)])


def _status_config(requests_=("req-0",), source="FromClaim", params=None):
    return {"source": source, "requests": list(requests_),
            "opaque": {"driver": "dra.example.com", "parameters": params or copy.deepcopy(PARAMS)}}


def tweak_status_config_count(n):
    return lambda rc: rc["status"]["allocation"]["devices"].update(
        config=[_status_config(params={"item": i}) for i in range(n)])


def tweak_status_config_source(source):
    return lambda rc: rc["status"]["allocation"]["devices"].update(config=[_status_config(source=source)])


def tweak_status_config_requests(*names):
    return lambda rc: rc["status"]["allocation"]["devices"].update(config=[_status_config(requests_=names)])


def tweak_binding(conds, failures):
    return tweak_result(bindingConditions=[f"condition-{j}" for j in range(conds)],
                        bindingFailureConditions=[f"failure-condition-{j}" for j in range(failures)])


def _std_device(**extra):
    body = {"driver": "dra.example.com", "pool": "pool-0", "device": "device-0"}
    body.update(extra)
    return body


def status_pair(old, new):
    old = copy.deepcopy(old)
    new = copy.deepcopy(new)
    old["metadata"]["resourceVersion"] = "1"
    new["metadata"]["resourceVersion"] = "1"
    return new, old


VALID_UUID = "550e8400-e29b-41d4-a716-446655440000"
VALID_UUID1 = "550e8400-e29b-41d4-a716-446655440001"
OTHER_UUIDS = ["8a8f0e8e-0f3c-4c54-9b1e-3c4f1e2a7d01", "8a8f0e8e-0f3c-4c54-9b1e-3c4f1e2a7d02"]
POOL = f"{RES}[0].pool"
DRIVER = f"{RES}[0].driver"
VC = mk_valid_resource_claim()
WS = mk_resource_claim_with_status

STRATEGY_STATUS = {
    "valid driver name, lowercase": (status_pair(VC, WS(tweak_result(driver="dra.example.com"))), []),
    "valid driver name, mixed case": (status_pair(VC, WS(tweak_result(driver="DRA.Example.COM"))), []),
    "valid driver name, max length": (status_pair(VC, WS(tweak_result(driver="a" * 63))), []),
    "invalid driver name, empty": (status_pair(VC, WS(tweak_result(driver=""))), k(DRIVER, REQ)),
    "invalid driver name, too long - 64 characters": (status_pair(VC, WS(tweak_result(driver="a" * 64))),
                                                      k(DRIVER, LONG)),
    "invalid driver name, too long - 255 characters": (status_pair(VC, WS(tweak_result(driver="a" * 255))),
                                                       k(DRIVER, LONG) + k(DRIVER, INV)),
    "invalid driver name, invalid character": (status_pair(VC, WS(tweak_result(driver="dra_example.com"))),
                                               k(DRIVER, INV)),
    "invalid driver name, invalid DNS name (leading dot)": (status_pair(VC, WS(tweak_result(driver=".example.com"))),
                                                            k(DRIVER, INV)),
    "valid pool name": (status_pair(VC, WS(tweak_result(pool="dra.example.com/pool-a"))), []),
    "valid pool name, max length": (status_pair(VC, WS(tweak_result(
        pool="a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 55))), []),
    "invalid pool name, required": (status_pair(VC, WS(tweak_result(pool=""))), k(POOL, REQ)),
    "invalid pool name, too long": (status_pair(VC, WS(tweak_result(pool="a" * 253 + "/" + "a" * 253))),
                                    k(POOL, LONG)),
    "invalid pool name, format": (status_pair(VC, WS(tweak_result(pool="a/Not_Valid"))), k(POOL, INV)),
    "invalid pool name, leading slash": (status_pair(VC, WS(tweak_result(pool="/a"))), k(POOL, INV)),
    "invalid pool name, trailing slash": (status_pair(VC, WS(tweak_result(pool="a/"))), k(POOL, INV)),
    "invalid pool name, double slash": (status_pair(VC, WS(tweak_result(pool="a//b"))), k(POOL, INV)),
    "valid status.Allocation.Devices.Results[].ShareID": (status_pair(VC, WS(tweak_result(shareID=VALID_UUID))), []),
    "invalid status.Allocation.Devices.Results[].ShareID": (status_pair(VC, WS(tweak_result(shareID="invalid-uid"))),
                                                            k(f"{RES}[0].shareID", INV)),
    "invalid uppercase status.Allocation.Devices.Results[].ShareID ": (status_pair(VC, WS(tweak_result(
        shareID="123e4567-E89b-12d3-A456-426614174000"))), k(f"{RES}[0].shareID", INV)),
    "valid status.Devices[].ShareID": (status_pair(VC, WS(tweak_status_devices(_std_device()),
                                                          tweak_result(shareID=VALID_UUID),
                                                          tweak_status_device_share_id(VALID_UUID))), []),
    "invalid status.Devices[].ShareID": (status_pair(VC, WS(tweak_status_devices(_std_device()),
                                                            tweak_result(shareID="invalid-uid"),
                                                            tweak_status_device_share_id("invalid-uid"))),
                                         k(f"{RES}[0].shareID", INV) + k(f"{DEV}[0].shareID", INV)),
    "invalid upper case status.Devices[].ShareID": (status_pair(VC, WS(
        tweak_status_devices(_std_device()), tweak_result(shareID="123e4567-E89b-12d3-A456-426614174000"),
        tweak_status_device_share_id("123e4567-E89b-12d3-A456-426614174000"))),
        k(f"{RES}[0].shareID", INV) + k(f"{DEV}[0].shareID", INV)),
    "duplicate uid in status.ReservedFor": (status_pair(VC, WS(tweak_reserved_for(
        VALID_UUID, OTHER_UUIDS[0], VALID_UUID))), k("status.reservedFor[2]", DUP)),
    "multiple- duplicate uid in status.ReservedFor": (status_pair(VC, WS(tweak_reserved_for(
        VALID_UUID, OTHER_UUIDS[0], VALID_UUID, VALID_UUID1, VALID_UUID1, OTHER_UUIDS[1]))),
        k("status.reservedFor[2]", DUP) + k("status.reservedFor[4]", DUP)),
    "invalid status.ReservedFor, too many": (status_pair(VC, WS(lambda rc: rc["status"].update(
        reservedFor=consumers(257)))), k("status.reservedFor", MANY)),
    "valid status.ReservedFor, max items": (status_pair(VC, WS(lambda rc: rc["status"].update(
        reservedFor=consumers(256)))), []),
    "valid status.allocation.devices.results, max items": (status_pair(VC, WS(tweak_results_count(32))), []),
    "valid status.allocation unchanged": (status_pair(WS(), WS()), []),
    "valid status.allocation set from nil": (status_pair(VC, WS()), []),
    "valid status.allocation cleared (Unset is allowed)": (status_pair(WS(), VC), []),
    "invalid status.allocation changed device (NoModify)": (status_pair(WS(), WS(tweak_result(
        device="device-different"))), k("status.allocation", INV)),
    "invalid status.allocation changed driver (NoModify)": (status_pair(WS(), WS(tweak_result(
        driver="different.example.com"))), k("status.allocation", INV)),
    "invalid status.allocation changed pool (NoModify)": (status_pair(WS(), WS(tweak_result(
        pool="different-pool"))), k("status.allocation", INV)),
    "invalid status.allocation added result (NoModify)": (status_pair(WS(), WS(lambda rc: _results(rc).append(
        {"request": "req-0", "driver": "another.example.com", "pool": "pool-1", "device": "device-1"}))),
        k("status.allocation", INV)),
    "invalid status.allocation.devices.results, too many": (status_pair(VC, WS(tweak_results_count(33))),
                                                            k(RES, MANY)),
    "valid status.allocation.devices.config, max items": (status_pair(VC, WS(tweak_status_config_count(64))), []),
    "invalid status.allocation.devices.config, too many": (status_pair(VC, WS(tweak_status_config_count(65))),
                                                           k(ACFG, MANY)),
    "invalid status.allocation.devices.config requests, duplicate": (status_pair(VC, WS(
        tweak_status_config_requests("req-0", "req-0"))), k(f"{ACFG}[0].requests[1]", DUP)),
    "valid status.allocation.devices.config source FromClass": (status_pair(VC, WS(
        tweak_status_config_source("FromClass"))), []),
    "valid status.allocation.devices.config source FromClaim": (status_pair(VC, WS(
        tweak_status_config_source("FromClaim"))), []),
    "invalid status.allocation.devices.config source empty": (status_pair(VC, WS(tweak_status_config_source(""))),
                                                              k(f"{ACFG}[0].source", REQ)),
    "invalid status.allocation.devices.config source invalid": (status_pair(VC, WS(
        tweak_status_config_source("invalid"))), k(f"{ACFG}[0].source", NS)),
    "valid devices: without share Id": (status_pair(VC, WS(
        tweak_status_allocation({"request": "req-0", "driver": "driver1", "pool": "pool1", "device": "device1"},
                                {"request": "req-0", "driver": "driver2", "pool": "pool1", "device": "device1"}),
        tweak_status_devices({"driver": "driver1", "pool": "pool1", "device": "device1"},
                             {"driver": "driver2", "pool": "pool1", "device": "device1"}))), []),
    "valid devices: with share Id": (status_pair(VC, WS(
        tweak_status_allocation({"request": "req-0", "driver": "driver1", "pool": "pool1", "device": "device1",
                                 "shareID": VALID_UUID},
                                {"request": "req-0", "driver": "driver2", "pool": "pool1", "device": "device1",
                                 "shareID": VALID_UUID1}),
        tweak_status_devices({"driver": "driver1", "pool": "pool1", "device": "device1", "shareID": VALID_UUID},
                             {"driver": "driver2", "pool": "pool1", "device": "device1", "shareID": VALID_UUID1}))),
        []),
    "invalid devices, duplicate": (status_pair(VC, WS(
        tweak_status_allocation({"request": "req-0", "driver": "driver1", "pool": "pool1", "device": "device1"}),
        tweak_status_devices({"driver": "driver1", "pool": "pool1", "device": "device1"},
                             {"driver": "driver1", "pool": "pool1", "device": "device1"}))), k(f"{DEV}[1]", DUP)),
    "invalid devices, duplicate with share ID": (status_pair(VC, WS(
        tweak_status_allocation({"request": "req-0", "driver": "driver1", "pool": "pool1", "device": "device1",
                                 "shareID": VALID_UUID1}),
        tweak_status_devices({"driver": "driver1", "pool": "pool1", "device": "device1", "shareID": VALID_UUID1},
                             {"driver": "driver1", "pool": "pool1", "device": "device1", "shareID": VALID_UUID1}))),
        k(f"{DEV}[1]", DUP)),
    "valid binding conditions, max items": (status_pair(VC, WS(tweak_binding(4, 1))), []),
    "invalid binding conditions, too many": (status_pair(VC, WS(tweak_binding(5, 1))),
                                             k(f"{RES}[0].bindingConditions", MANY)),
    "valid binding failure conditions, max items": (status_pair(VC, WS(tweak_binding(1, 4))), []),
    "invalid binding failure conditions, too many": (status_pair(VC, WS(tweak_binding(1, 5))),
                                                     k(f"{RES}[0].bindingFailureConditions", MANY)),
    "valid networkdevicedata interfacename": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"interfaceName": "a" * 256})))), []),
    "invalid networkdevicedata interfacename too long": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"interfaceName": "a" * 257})))), k(f"{DEV}[0].networkData.interfaceName", LONG)),
    "valid status.devices.networkData.hardwareAddress": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"hardwareAddress": "a" * 128})))), []),
    "invalid status.devices.networkData.hardwareAddress too long": (status_pair(VC, WS(tweak_status_devices(
        _std_device(networkData={"hardwareAddress": "a" * 129})))), k(f"{DEV}[0].networkData.hardwareAddress", LONG)),
    "invalid status.devices.networkData.ips duplicate": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"ips": ["1.2.3.4/32", "1.2.3.4/32"]})))), k(f"{DEV}[0].networkData.ips[1]", DUP)),
    "invalid status.allocation.devices.config.requests too many": (status_pair(
        mk_valid_resource_claim(tweak_devices_requests(33)),
        WS(tweak_devices_requests(33), tweak_status_config_requests(*[f"req-{i}" for i in range(33)]))),
        k(f"{ACFG}[0].requests", MANY)),
    "valid status.allocation.devices.config.requests, max allowed": (status_pair(
        mk_valid_resource_claim(tweak_devices_requests(32)),
        WS(tweak_devices_requests(32), tweak_status_config_requests(*[f"req-{i}" for i in range(32)]))), []),
    "invalid status.devices.networkData.ips, too many items": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"ips": [f"1.2.3.{i}/32" for i in range(17)]})))), k(f"{DEV}[0].networkData.ips", MANY)),
    "invalid status.devices.networkData.ips, max allowed": (status_pair(VC, WS(tweak_status_devices(_std_device(
        networkData={"ips": [f"1.2.3.{i}/32" for i in range(16)]})))), []),
}


@pytest.mark.parametrize("pair,want", list(STRATEGY_STATUS.values()), ids=list(STRATEGY_STATUS))
def test_upstream_strategy_validate_claim_status_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_status_update(new, old)) == Counter(want)


_TEST_ALLOCATION = {"devices": {"results": [{"driver": "test", "pool": "test", "device": "test"}]}}


def _conditions_claim(conds):
    rc = mk_resource_claim_with_status(tweak_status_devices({"driver": "test", "pool": "test", "device": "test",
                                                             "conditions": conds}))
    rc["status"]["allocation"] = copy.deepcopy(_TEST_ALLOCATION)
    return rc


def _conditions_old():
    rc = mk_valid_resource_claim()
    rc["status"] = {"allocation": copy.deepcopy(_TEST_ALLOCATION)}
    return rc


def _cond(i, type_=None, status="True"):
    return {"type": type_ or f"Condition{i}", "status": status, "reason": "Reason", "message": "Message",
            "lastTransitionTime": NOW}


STRATEGY_STATUS_CONDITIONS = {
    "invalid: too many conditions": (status_pair(_conditions_old(), _conditions_claim([_cond(i) for i in range(9)])),
                                     k(f"{DEV}[0].conditions", MANY)),
    "valid: at limit conditions": (status_pair(_conditions_old(), _conditions_claim([_cond(i) for i in range(8)])),
                                   []),
    "invalid: duplicate condition type": (status_pair(_conditions_old(), _conditions_claim(
        [_cond(0, "Ready"), _cond(1, "Ready", "False")])), k(f"{DEV}[0].conditions[1].type", DUP)),
}


@pytest.mark.parametrize("pair,want", list(STRATEGY_STATUS_CONDITIONS.values()), ids=list(STRATEGY_STATUS_CONDITIONS))
def test_upstream_strategy_validate_claim_status_conditions(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_status_update(new, old)) == Counter(want)


# The ResourceClaimTemplate registry table (1.36-era) repeats the claim table above on
# `spec.spec.devices`; every case is replayed on a template, with the paths moved accordingly.

def _as_template(claim):
    return {"metadata": {"name": "valid-claim-template", "namespace": "default"}, "spec": {"spec": claim["spec"]}}


TEMPLATE_ONLY = {
    "invalid DeviceTolerationOperator empty - Exactly": (mk_valid_resource_claim(tweak_exactly_tolerations(
        _tol(operator=""))), k(f"{R0}.exactly.tolerations[0].operator", REQ)),
    "invalid DeviceTolerationOperator empty - FirstAvailable": (mk_valid_resource_claim(
        tweak_first_available(1), tweak_first_available_tolerations(_tol(operator=""))),
        k(f"{R0}.firstAvailable[0].tolerations[0].operator", REQ)),
}
STRATEGY_TEMPLATE_CREATE = {
    name: (_as_template(claim), [("spec." + path, reason) for path, reason in want])
    for name, (claim, want) in {**STRATEGY_CREATE, **TEMPLATE_ONLY}.items()
}


@pytest.mark.parametrize("obj,want", list(STRATEGY_TEMPLATE_CREATE.values()), ids=list(STRATEGY_TEMPLATE_CREATE))
def test_upstream_strategy_validate_claim_template(obj, want):
    assert Counter(e.key for e in validate_resource_claim_template(obj)) == Counter(want)


def test_upstream_strategy_validate_claim_template_update_no_spec_change():
    old = _as_template(mk_valid_resource_claim())
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["metadata"]["resourceVersion"] = "2"
    assert validate_resource_claim_template_update(new, old) == []
