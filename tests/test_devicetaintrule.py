"""DeviceTaintRule, ported from upstream's TestValidateDeviceTaintRule / Update / StatusUpdate."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.validation.devicetaintrule import (
    validate_device_taint_rule,
    validate_device_taint_rule_status_update,
    validate_device_taint_rule_update,
)

GOOD, BAD = "foo", "!@#$%^"
INV, REQ, FORB, MANY, LONG, NS, DUP = ("FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden",
                                       "FieldValueTooMany", "FieldValueTooLong", "FieldValueNotSupported",
                                       "FieldValueDuplicate")
COND = {"type": "EvictionInProgress", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Ok"}


def rule(name=GOOD, selector=None, **taint):
    t = {"key": "example.com/taint", "effect": "NoExecute"}
    t.update(taint)
    spec = {"taint": t}
    if selector is not None:
        spec["deviceSelector"] = selector
    return {"metadata": {"name": name}, "spec": spec}


def k(path, reason, n=1):
    return [(path, reason)] * n


CREATE = {
    "good": (rule(), []),
    "good-selector": (rule(selector={"driver": "dra.example.com", "pool": "a/b", "device": "dev-0"}), []),
    "missing-name": (rule(name=""), k("metadata.name", REQ)),
    "bad-name": (rule(name=BAD), k("metadata.name", INV)),
    "namespace-forbidden": ({**rule(), "metadata": {"name": GOOD, "namespace": "ns"}}, k("metadata.namespace", FORB)),
    "bad-selector": (rule(selector={"driver": "", "pool": "", "device": BAD}),
                     k("spec.deviceSelector.driver", REQ) + k("spec.deviceSelector.pool", REQ)
                     + k("spec.deviceSelector.device", INV)),
    "bad-selector-long": (rule(selector={"driver": "d" * 64, "pool": "p" * 254}),
                          k("spec.deviceSelector.driver", LONG) + k("spec.deviceSelector.pool", LONG, 1)
                          + k("spec.deviceSelector.pool", INV)),
    "missing-key": (rule(key=""), k("spec.taint.key", INV, 2)),
    "bad-value": (rule(value=BAD), k("spec.taint.value", INV)),
    "missing-effect": (rule(effect=""), k("spec.taint.effect", REQ)),
    "bad-effect": (rule(effect="Other"), k("spec.taint.effect", NS)),
    "missing-taint": ({"metadata": {"name": GOOD}, "spec": {}}, k("spec.taint.key", INV, 2) + k("spec.taint.effect", REQ)),
}


@pytest.mark.parametrize("obj,want", list(CREATE.values()), ids=list(CREATE))
def test_validate_device_taint_rule(obj, want):
    assert Counter(e.key for e in validate_device_taint_rule(obj)) == Counter(want)


def updated(change, old=None):
    old = old or rule()
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    change(new)
    return new, old


UPDATE = {
    "valid-no-op-update": (updated(lambda r: None), []),
    "valid-spec-change": (updated(lambda r: r["spec"]["taint"].update(effect="NoSchedule")), []),
    "invalid-effect-change": (updated(lambda r: r["spec"]["taint"].update(effect="Other")), k("spec.taint.effect", NS)),
    "stored-unknown-effect-tolerated": (updated(lambda r: r["spec"]["taint"].update(value="v"), old=rule(effect="Other")), []),
    "bad-selector": (updated(lambda r: r["spec"].update(deviceSelector={"device": BAD})),
                     k("spec.deviceSelector.device", INV)),
    "name-change": (updated(lambda r: r["metadata"].update(name="bar")), k("metadata.name", INV)),
}


@pytest.mark.parametrize("pair,want", list(UPDATE.values()), ids=list(UPDATE))
def test_validate_device_taint_rule_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_device_taint_rule_update(new, old)) == Counter(want)


STATUS = {
    "valid-no-op": (updated(lambda r: None), []),
    "valid-conditions": (updated(lambda r: r.update(status={"conditions": [COND]})), []),
    "too-many-conditions": (updated(lambda r: r.update(status={"conditions": [dict(COND, type=f"t{i}") for i in range(9)]})),
                            k("status.conditions", MANY)),
    "too-many-and-invalid": (updated(lambda r: r.update(status={"conditions": [dict(COND, type="t")] * 9})),
                             k("status.conditions", MANY) + [(f"status.conditions[{i}].type", DUP) for i in range(1, 9)]),
    "invalid-condition": (updated(lambda r: r.update(status={"conditions": [{"type": "", "status": ""}]})),
                          k("status.conditions[0].type", INV, 2) + k("status.conditions[0].status", NS)
                          + k("status.conditions[0].lastTransitionTime", REQ) + k("status.conditions[0].reason", REQ)),
}


@pytest.mark.parametrize("pair,want", list(STATUS.values()), ids=list(STATUS))
def test_validate_device_taint_rule_status_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_device_taint_rule_status_update(new, old)) == Counter(want)
