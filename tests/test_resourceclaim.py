"""ResourceClaim create and update, ported from upstream's TestValidateClaim / TestValidateClaimUpdate."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.validation.options import Options
from webhook.validation.resourceclaim import (
    resource_claim_strategy_checks,
    validate_resource_claim,
    validate_resource_claim_update,
)

GOOD = "foo"
BAD = "!@#$%^"
BAD_REQUEST_FORMAT = "foo/foo/foo"
R0 = "spec.devices.requests[0]"
INV, REQ, DUP, MANY, LONG, NS, FORB = ("FieldValueInvalid", "FieldValueRequired", "FieldValueDuplicate",
                                       "FieldValueTooMany", "FieldValueTooLong", "FieldValueNotSupported",
                                       "FieldValueForbidden")
PARAMS = {"kind": "foo", "apiVersion": "dra.example.com/v1"}


def exact(**extra):
    body = {"deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1}
    body.update(extra)
    return body


def claim(*requests, constraints=None, config=None, name=GOOD, namespace="ns"):
    requests = requests or ({"name": GOOD, "exactly": exact()},)
    devices = {"requests": list(requests)}
    if constraints is not None:
        devices["constraints"] = constraints
    if config is not None:
        devices["config"] = config
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"devices": devices}}


def first_available(*subs, name=GOOD):
    return {"name": name, "firstAvailable": list(subs)}


def sub(name, **extra):
    body = {"name": name, **exact()}
    body.update(extra)
    return body


def opaque(driver="dra.example.com", parameters=PARAMS, requests=None):
    entry = {"opaque": {"driver": driver, "parameters": parameters}}
    if requests is not None:
        entry["requests"] = requests
    return entry


def many_requests(n):
    return [{"name": GOOD if i == 0 else f"{GOOD}{i}", "exactly": exact()} for i in range(n)]


def k(path, reason, n=1):
    return [(path, reason)] * n


def _invalid_request_claim():
    c = claim(*many_requests(33))
    c["spec"]["devices"]["constraints"] = (
        [{"requests": [GOOD, BAD], "matchAttribute": "missing-domain"}, {"matchAttribute": ""}, {}]
        + [{"matchAttribute": "foo/bar"}] * 30)
    c["spec"]["devices"]["config"] = [opaque(requests=[GOOD, BAD])] + [opaque()] * 32
    return c


def _with_meta(**meta):
    c = claim()
    c["metadata"].update(meta)
    return c


C = "spec.devices.constraints"
CREATE_CASES = {
    "good-claim": (claim(), []),
    "missing-name": (claim(name=""), k("metadata.name", REQ)),
    "bad-name": (claim(name=BAD), k("metadata.name", INV)),
    "missing-namespace": (claim(namespace=""), k("metadata.namespace", REQ)),
    "generate-name": (_with_meta(generateName="pvc-"), []),
    "uid": (_with_meta(uid="ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"), []),
    "resource-version": (_with_meta(resourceVersion="1"), []),
    "generation": (_with_meta(generation=100), []),
    "finalizers": (_with_meta(finalizers=["example.com/foo"]), []),
    "good-labels": (_with_meta(labels={"apps.kubernetes.io/name": "test"}), []),
    "bad-labels": (_with_meta(labels={"hello-world": "spaces not allowed"}), k("metadata.labels", INV)),
    "good-annotations": (_with_meta(annotations={"foo": "bar"}), []),
    "bad-annotations": (_with_meta(annotations={BAD: "hello world"}), k("metadata.annotations", INV)),
    "bad-classname": (claim({"name": GOOD, "exactly": exact(deviceClassName=BAD)}),
                      k(f"{R0}.exactly.deviceClassName", INV)),
    "missing-classname": (claim({"name": GOOD, "exactly": exact(deviceClassName="")}),
                          k(f"{R0}.exactly.deviceClassName", REQ)),
    "invalid-request": (_invalid_request_claim(), k("spec.devices.requests", MANY) + k(C, MANY)
                        + k("spec.devices.config", MANY)),
    "valid-request": (claim(*many_requests(32), constraints=[{"matchAttribute": "foo/bar"}] * 32,
                            config=[opaque()] * 32), []),
    "invalid-spec": (claim(constraints=[{"requests": [GOOD, BAD], "matchAttribute": "missing-domain"},
                                        {"matchAttribute": ""}, {}],
                           config=[opaque(requests=[GOOD, BAD])]),
                     k(f"{C}[0].requests[1]", INV, 2) + k(f"{C}[0].matchAttribute", INV, 2)
                     + k(f"{C}[1].matchAttribute", INV, 2) + k(f"{C}[2]", REQ)
                     + k("spec.devices.config[0].requests[1]", INV, 2)),
    "distinct-attribute": (claim(constraints=[{"distinctAttribute": "dra.example.com/model"}]), []),
    "distinct-attribute-invalid": (claim(constraints=[{"distinctAttribute": "no-domain"}]),
                                   k(f"{C}[0].distinctAttribute", INV, 2)),
    "match-and-distinct-attribute": (claim(constraints=[{"matchAttribute": "a/b", "distinctAttribute": "bad"}]), []),
    "invalid-constraint-requests": (claim(constraints=[{"requests": [BAD_REQUEST_FORMAT], "matchAttribute": "a/b"}]),
                                    k(f"{C}[0].requests[0]", INV)),
    "duplicate-constraint-requests": (claim(constraints=[{"requests": [GOOD, GOOD], "matchAttribute": "a/b"}]),
                                      k(f"{C}[0].requests[1]", DUP)),
    "too-many-constraint-requests": (claim(constraints=[{"requests": [GOOD] * 33, "matchAttribute": "a/b"}]),
                                     k(f"{C}[0].requests", MANY)),
    "empty-constraint-request": (claim(constraints=[{"requests": [""], "matchAttribute": "a/b"}]),
                                 k(f"{C}[0].requests[0]", INV, 2)),
    "long-attribute-name": (claim(constraints=[{"matchAttribute": "dra.example.com/" + "a" * 33}]),
                            k(f"{C}[0].matchAttribute", LONG)),
    "long-attribute-domain": (claim(constraints=[{"matchAttribute": "d" * 64 + "/name"}]),
                              k(f"{C}[0].matchAttribute", LONG)),
    "missing-attribute-domain": (claim(constraints=[{"matchAttribute": "/name"}]),
                                 k(f"{C}[0].matchAttribute", INV)),
    "missing-attribute-name": (claim(constraints=[{"matchAttribute": "dra.example.com/"}]),
                               k(f"{C}[0].matchAttribute", INV)),
    "three-part-attribute-accepted": (claim(constraints=[{"matchAttribute": "a/b/c"}]), []),
    "allocation-mode": (claim({"name": GOOD, "exactly": exact(allocationMode="All", count=5)},
                              {"name": "all", "exactly": exact(allocationMode="All", count=0)},
                              {"name": "zero", "exactly": exact(count=0)},
                              {"name": "neg", "exactly": exact(count=-1)},
                              {"name": "other", "exactly": exact(allocationMode="Other")},
                              {"name": "empty", "exactly": exact(allocationMode="")}),
                        k(f"{R0}.exactly.count", INV) + k("spec.devices.requests[2].exactly.count", INV)
                        + k("spec.devices.requests[3].exactly.count", INV)
                        + k("spec.devices.requests[4].exactly.allocationMode", NS)
                        + k("spec.devices.requests[5].exactly.allocationMode", NS)),
    "invalid-request-name": (claim({"name": BAD, "exactly": exact()}), k(f"{R0}.name", INV)),
    "request-name-with-dots": (claim({"name": "a.b", "exactly": exact()}), k(f"{R0}.name", INV)),
    "duplicate-request-name": (claim({"name": GOOD, "exactly": exact()}, {"name": GOOD, "exactly": exact()}),
                               k("spec.devices.requests[1]", DUP)),
    "neither-exactly-nor-first-available": (claim({"name": GOOD}), k(R0, REQ)),
    "empty-first-available-counts-as-absent": (claim({"name": GOOD, "firstAvailable": []}), k(R0, REQ)),
    "exactly-and-first-available": (claim({"name": GOOD, "exactly": exact(deviceClassName=BAD),
                                           "firstAvailable": [sub(BAD)]}), k(R0, INV)),
    "prioritized-list-valid": (claim(first_available(sub(GOOD), sub("bar"))), []),
    "prioritized-list-too-many": (claim(first_available(*[sub(f"s{i}") for i in range(9)])),
                                  k(f"{R0}.firstAvailable", MANY)),
    "prioritized-list-duplicate": (claim(first_available(sub(GOOD), sub(GOOD))),
                                   k(f"{R0}.firstAvailable[1]", DUP)),
    "prioritized-list-bad-subrequest": (claim(first_available(
        sub(BAD, deviceClassName="", allocationMode="All", count=2, selectors=[{}],
            tolerations=[{"operator": "Exists", "value": "x"}]))),
        k(f"{R0}.firstAvailable[0].name", INV) + k(f"{R0}.firstAvailable[0].deviceClassName", REQ)
        + k(f"{R0}.firstAvailable[0].selectors[0].cel", REQ) + k(f"{R0}.firstAvailable[0].count", INV)
        + k(f"{R0}.firstAvailable[0].tolerations[0].value", INV)),
    "prioritized-list-constraint-refs": (claim(first_available(sub(GOOD)), constraints=[
        {"requests": [GOOD, f"{GOOD}/{GOOD}", f"{GOOD}/bar", f"{BAD}/x"], "matchAttribute": "a/b"}]),
        k(f"{C}[0].requests[2]", INV) + k(f"{C}[0].requests[3]", INV, 2)),
    "subrequest-ref-to-plain-request": (claim(constraints=[{"requests": [f"{GOOD}/{GOOD}"], "matchAttribute": "a/b"}]),
                                        k(f"{C}[0].requests[0]", INV)),
    "selectors-too-many": (claim({"name": GOOD, "exactly": exact(selectors=[{"cel": {"expression": "true"}}] * 33)}),
                           k(f"{R0}.exactly.selectors", MANY)),
    "selector-missing-cel": (claim({"name": GOOD, "exactly": exact(selectors=[{}])}),
                             k(f"{R0}.exactly.selectors[0].cel", REQ)),
    "CEL-length": (claim({"name": GOOD, "exactly": exact(selectors=[{"cel": {"expression": "x" * 10241}}])}),
                   k(f"{R0}.exactly.selectors[0].cel.expression", LONG)),
    "CEL-length-ok": (claim({"name": GOOD, "exactly": exact(
        selectors=[{"cel": {"expression": "true" + " " * (10240 - 4)}}])}), []),
    "tolerations": (claim({"name": GOOD, "exactly": exact(tolerations=[
        {"key": "valid", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "example.com/k", "operator": "Equal", "value": "v", "effect": "None"},
        {"operator": "Exists"},
        {"key": BAD, "operator": "Equal", "value": BAD, "effect": "Bad"},
        {"operator": "Bad"},
        {"operator": ""},
        {"key": "", "operator": "Equal", "value": ""},
    ])}), k(f"{R0}.exactly.tolerations[3].key", INV) + k(f"{R0}.exactly.tolerations[3].value", INV)
        + k(f"{R0}.exactly.tolerations[3].effect", NS) + k(f"{R0}.exactly.tolerations[4].operator", NS)
        + k(f"{R0}.exactly.tolerations[5].operator", REQ)),
    "seventeen-tolerations-not-limited": (claim({"name": GOOD, "exactly": exact(
        tolerations=[{"operator": "Exists"}] * 17)}), []),
    "configuration": (claim(config=[
        {"requests": [GOOD], "opaque": {"driver": "dra.example.com", "parameters": PARAMS}},
        {"opaque": {"driver": "", "parameters": PARAMS}},
        {"opaque": {"driver": "Dra.Example.Com", "parameters": PARAMS}},
        {"opaque": {"driver": "d" * 64, "parameters": PARAMS}},
        {"opaque": {"driver": "dra.example.com"}},
        {"opaque": {"driver": "dra.example.com", "parameters": None}},
        {"opaque": {"driver": "dra.example.com", "parameters": [1]}},
        {"opaque": {"driver": "dra.example.com", "parameters": {"x": "y" * 10240}}},
        {},
    ]), k("spec.devices.config[1].opaque.driver", REQ) + k("spec.devices.config[3].opaque.driver", LONG)
        + k("spec.devices.config[4].opaque.parameters", REQ) + k("spec.devices.config[5].opaque.parameters", REQ)
        + k("spec.devices.config[6].opaque.parameters", INV) + k("spec.devices.config[7].opaque.parameters", LONG)
        + k("spec.devices.config[8].opaque", REQ)),
    "config-invalid-requests": (claim(config=[opaque(requests=[BAD_REQUEST_FORMAT, GOOD, GOOD])]),
                                k("spec.devices.config[0].requests[0]", INV) + k("spec.devices.config[0].requests[2]", DUP)),
    "odd-but-typed-input": ({"metadata": {"name": GOOD, "namespace": "ns"}, "spec": {"devices": {
        "requests": [{"name": GOOD, "exactly": {}}], "constraints": [{"requests": []}], "config": [{"opaque": {}}]}}},
        k(f"{R0}.exactly.deviceClassName", REQ) + k(f"{R0}.exactly.allocationMode", NS)
        + k(f"{C}[0]", REQ) + k("spec.devices.config[0].opaque.driver", REQ)
        + k("spec.devices.config[0].opaque.parameters", REQ)),
    "missing-spec": ({"metadata": {"name": GOOD, "namespace": "ns"}}, []),
}


@pytest.mark.parametrize("obj,want", list(CREATE_CASES.values()), ids=list(CREATE_CASES))
def test_validate_claim(obj, want):
    assert Counter(e.key for e in validate_resource_claim(obj)) == Counter(want)


def _updated(change):
    old = claim()
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    change(new)
    return new, old


UPDATE_CASES = {
    "valid-no-op-update": (_updated(lambda c: None), []),
    "invalid-update": (_updated(lambda c: c["spec"]["devices"]["requests"][0]["exactly"].update(deviceClassName="x")),
                       k("spec", INV)),
    "invalid-update-bad-spec-reported-once": (_updated(lambda c: c["spec"]["devices"]["requests"][0].update(name=BAD)),
                                              k("spec", INV)),
    "empty-lists-equal-absent": (_updated(lambda c: c["spec"]["devices"].update(constraints=[], config=None)), []),
    "status-ignored": (_updated(lambda c: c.update(status={"reservedFor": [{}]})), []),
    "missing-resource-version": (_updated(lambda c: c["metadata"].pop("resourceVersion")),
                                 k("metadata.resourceVersion", INV)),
    "name-change": (_updated(lambda c: c["metadata"].update(name="other")), k("metadata.name", INV)),
    "bad-labels": (_updated(lambda c: c["metadata"].update(labels={"a": BAD})), k("metadata.labels", INV, 2)),
}


@pytest.mark.parametrize("pair,want", list(UPDATE_CASES.values()), ids=list(UPDATE_CASES))
def test_validate_claim_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_update(new, old)) == Counter(want)


def test_admin_access_is_a_warning_where_namespaces_cannot_be_seen():
    c = claim({"name": GOOD, "exactly": exact()}, {"name": "admin", "exactly": exact(adminAccess=True)})
    assert validate_resource_claim(c) == []
    errors, warnings = resource_claim_strategy_checks(c, None, Options())
    assert errors == [] and len(warnings) == 1
    assert warnings[0].startswith("spec.devices.requests[1].adminAccess: ")
    assert resource_claim_strategy_checks(claim(), None, Options()) == ([], [])


def test_admin_access_is_decided_where_namespaces_are_known():
    c = claim({"name": GOOD, "exactly": exact()}, {"name": "admin", "exactly": exact(adminAccess=True)})
    namespace = c["metadata"]["namespace"]
    errors, warnings = resource_claim_strategy_checks(c, None, Options(namespaces={namespace: {}}))
    assert [str(e) for e in errors] == [
        "spec.devices.requests[1].adminAccess: Forbidden: admin access to devices requires the "
        "`resource.kubernetes.io/admin-access: true` label on the containing namespace"] and warnings == []
    labelled = {namespace: {"resource.kubernetes.io/admin-access": "true"}}
    assert resource_claim_strategy_checks(c, None, Options(namespaces=labelled)) == ([], [])


def test_message_format_of_request_reference():
    errs = validate_resource_claim(claim(constraints=[{"requests": [BAD_REQUEST_FORMAT], "matchAttribute": "a/b"}]))
    assert [str(e) for e in errs] == [
        'spec.devices.constraints[0].requests[0]: Invalid value: "foo/foo/foo": must be the name of a request in '
        "the claim or the name of a request and a subrequest separated by '/'"]
