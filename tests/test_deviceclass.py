"""DeviceClass, ported from upstream's TestValidateClass / TestValidateClassUpdate."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from webhook.profile import make_profile
from webhook.validation.options import Options
from webhook.validation.deviceclass import validate_device_class, validate_device_class_update

GOOD, BAD = "foo", "!@#$%^"
INV, REQ, FORB, MANY, LONG = ("FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueTooMany",
                              "FieldValueTooLong")
SEL = {"cel": {"expression": 'device.driver == "dra.example.com"'}}
CFG = {"opaque": {"driver": "dra.example.com", "parameters": {"kind": "foo"}}}


def klass(name=GOOD, **spec):
    return {"metadata": {"name": name}, "spec": spec}


def k(path, reason, n=1):
    return [(path, reason)] * n


CREATE = {
    "good-class": (klass(selectors=[SEL], config=[CFG]), []),
    "missing-name": (klass(name=""), k("metadata.name", REQ)),
    "bad-name": (klass(name=BAD), k("metadata.name", INV)),
    "generate-name-not-checked": ({"metadata": {"name": GOOD, "generateName": BAD}, "spec": {}}, []),
    "namespace-forbidden": ({"metadata": {"name": GOOD, "namespace": "ns"}, "spec": {}}, k("metadata.namespace", FORB)),
    "bad-labels": ({"metadata": {"name": GOOD, "labels": {"a": "spaces not allowed"}}}, k("metadata.labels", INV)),
    "too-many-selectors": (klass(selectors=[SEL] * 33), k("spec.selectors", MANY)),
    "missing-cel": (klass(selectors=[{}]), k("spec.selectors[0].cel", REQ)),
    "CEL-length": (klass(selectors=[{"cel": {"expression": "x" * 10241}}]), k("spec.selectors[0].cel.expression", LONG)),
    "too-many-configs": (klass(config=[CFG] * 33), k("spec.config", MANY)),
    "invalid-config": (klass(config=[{}, {"opaque": {"driver": "", "parameters": None}},
                                     {"opaque": {"driver": "d", "parameters": "x"}}]),
                       k("spec.config[0].opaque", REQ) + k("spec.config[1].opaque.driver", REQ)
                       + k("spec.config[1].opaque.parameters", REQ) + k("spec.config[2].opaque.parameters", INV)),
    "config-too-large": (klass(config=[{"opaque": {"driver": "d", "parameters": {"x": "y" * 10240}}}]),
                         k("spec.config[0].opaque.parameters", LONG)),
    "valid-extended-resource-name": (klass(extendedResourceName="example.com/gpu"), []),
    "extended-resource-name-native": (klass(extendedResourceName="gpu"), k("spec.extendedResourceName", INV)),
    "extended-resource-name-kubernetes-io": (klass(extendedResourceName="kubernetes.io/gpu"),
                                             k("spec.extendedResourceName", INV)),
    "extended-resource-name-requests-prefix": (klass(extendedResourceName="requests.example.com/gpu"),
                                               k("spec.extendedResourceName", INV)),
    "extended-resource-name-bad-chars": (klass(extendedResourceName="example.com/g pu"),
                                         k("spec.extendedResourceName", INV)),
    "extended-resource-name-too-long": (klass(extendedResourceName="example.com/" + "a" * 64),
                                        k("spec.extendedResourceName", INV)),
}


@pytest.mark.parametrize("obj,want", list(CREATE.values()), ids=list(CREATE))
def test_validate_class(obj, want):
    assert Counter(e.key for e in validate_device_class(obj)) == Counter(want)


def updated(change, old=None):
    old = old or klass(selectors=[SEL], config=[CFG])
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    change(new)
    return new, old


UPDATE = {
    "valid-no-op-update": (updated(lambda c: None), []),
    "update-spec": (updated(lambda c: c["spec"].update(selectors=[SEL, SEL])), []),
    # Only ValidateDeviceClassUpdate runs: a spec error is reported once.
    "invalid-update-reported-once": (updated(lambda c: c["spec"].update(selectors=[{}])),
                                     k("spec.selectors[0].cel", REQ)),
    "bad-labels-reported-twice": (updated(lambda c: c["metadata"].update(labels={"a": BAD})),
                                  k("metadata.labels", INV, 2)),  # metadata-with-opts, metadata update
    "name-change": (updated(lambda c: c["metadata"].update(name="bar")), k("metadata.name", INV)),
    "missing-resource-version": (updated(lambda c: c["metadata"].pop("resourceVersion")),
                                 k("metadata.resourceVersion", INV)),
}


@pytest.mark.parametrize("pair,want", list(UPDATE.values()), ids=list(UPDATE))
def test_validate_class_update(pair, want):
    new, old = pair
    assert Counter(e.key for e in validate_device_class_update(new, old)) == Counter(want)


def test_unchanged_selectors_are_stored():
    # device.allowMultipleAllocations is only declared for new expressions when DRAConsumableCapacity is on;
    # the stored-expressions environment has it always. Unchanged selectors of an update are stored ones.
    opts = Options(make_profile(gates="DRAConsumableCapacity=false"))
    multi = {"cel": {"expression": "device.allowMultipleAllocations"}}
    old = klass(selectors=[multi])
    old["metadata"]["resourceVersion"] = "1"
    assert [e.key for e in validate_device_class(old, opts)] == [("spec.selectors[0].cel.expression", INV)]
    unchanged = copy.deepcopy(old)
    assert validate_device_class_update(unchanged, old, opts) == []  # update validation only, stored semantics
    added = copy.deepcopy(old)
    added["spec"]["selectors"].append(SEL)
    assert [e.key for e in validate_device_class_update(added, old, opts)] == [
        ("spec.selectors[0].cel.expression", INV)]
