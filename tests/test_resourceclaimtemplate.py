"""ResourceClaimTemplate, ported from upstream's TestValidateClaimTemplate / TestValidateClaimTemplateUpdate."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.validation.options import Options
from webhook.validation.resourceclaimtemplate import (
    resource_claim_template_strategy_checks,
    validate_resource_claim_template,
    validate_resource_claim_template_update,
)

GOOD, BAD = "foo", "!@#$%^"
INV, REQ, FORB, LONG = "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"
R0 = "spec.spec.devices.requests[0]"


def template(name=GOOD, namespace="ns", meta=None, request=None):
    request = request or {"name": GOOD, "exactly": {"deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1}}
    spec = {"spec": {"devices": {"requests": [request]}}}
    if meta is not None:
        spec["metadata"] = meta
    return {"metadata": {"name": name, "namespace": namespace}, "spec": spec}


def k(path, reason, n=1):
    return [(path, reason)] * n


CREATE = {
    "good-claim": (template(), []),
    "missing-name": (template(name=""), k("metadata.name", REQ)),
    "bad-name": (template(name=BAD), k("metadata.name", INV)),
    "missing-namespace": (template(namespace=""), k("metadata.namespace", REQ)),
    "good-labels-in-template": (template(meta={"labels": {"a": "b"}, "annotations": {"x": "y"}}), []),
    "bad-labels-in-template": (template(meta={"labels": {"a": "spaces not allowed"}}), k("spec.metadata.labels", INV)),
    "bad-annotations-in-template": (template(meta={"annotations": {BAD: "x"}}), k("spec.metadata.annotations", INV)),
    "annotations-too-long-in-template": (template(meta={"annotations": {"a": "x" * 262144}}),
                                         k("spec.metadata.annotations", LONG)),
    "forbidden-template-meta": (template(meta={"name": "x", "namespace": "y", "uid": "z", "generation": 1,
                                               "finalizers": ["a/b"]}),
                                k("spec.metadata.name", FORB) + k("spec.metadata.namespace", FORB)
                                + k("spec.metadata.uID", FORB) + k("spec.metadata.generation", FORB)
                                + k("spec.metadata.finalizers", FORB)),
    "bad-classname": (template(request={"name": GOOD, "exactly": {"deviceClassName": BAD, "allocationMode": "All"}}),
                      k(f"{R0}.exactly.deviceClassName", INV)),
    "missing-classname": (template(request={"name": GOOD, "exactly": {"allocationMode": "ExactCount", "count": 1}}),
                          k(f"{R0}.exactly.deviceClassName", REQ)),
    "neither-exactly-nor-first-available": (template(request={"name": GOOD}), k(R0, REQ)),
}


@pytest.mark.parametrize("obj,want", list(CREATE.values()), ids=list(CREATE))
def test_validate_claim_template(obj, want):
    assert Counter(e.key for e in validate_resource_claim_template(obj)) == Counter(want)


def updated(change, old=None):
    old = old or template()
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    change(new)
    return new, old


UPDATE = {
    "valid-no-op-update": (updated(lambda t: None), []),
    "invalid-update-class": (updated(lambda t: t["spec"]["spec"]["devices"]["requests"][0]["exactly"]
                                     .update(deviceClassName="x")), k("spec", INV)),
    # The strategy also runs the create validation, so a bad new spec is reported in full.
    "invalid-update-bad-class": (updated(lambda t: t["spec"]["spec"]["devices"]["requests"][0]["exactly"]
                                         .update(deviceClassName=BAD)),
                                 k("spec", INV) + k(f"{R0}.exactly.deviceClassName", INV)),
    "bad-labels-reported-by-both": (updated(lambda t: t["metadata"].update(labels={"a": "spaces not allowed"})),
                                    k("metadata.labels", INV, 2)),
    "missing-resource-version": (updated(lambda t: t["metadata"].pop("resourceVersion")),
                                 k("metadata.resourceVersion", INV)),
}


@pytest.mark.parametrize("pair,want", list(UPDATE.values()), ids=list(UPDATE))
def test_validate_claim_template_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_resource_claim_template_update(new, old)) == Counter(want)


def test_admin_access_warning_uses_upstream_path():
    t = template(request={"name": GOOD, "exactly": {"deviceClassName": GOOD, "allocationMode": "All",
                                                   "adminAccess": True}})
    assert validate_resource_claim_template(t) == []
    assert resource_claim_template_strategy_checks(t, None, Options())[1][0].startswith(
        "spec.devices.requests[0].adminAccess: ")
