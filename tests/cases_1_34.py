"""Objects whose verdict differs between Kubernetes 1.34 and 1.35: the same request, both verdicts.

Ported from upstream's 1.34-era tables: `validation_resourceslice_test.go` (kubernetes@b94367ca:
`bad-attribute`, `bad-attribute-empty-domain-and-c-identifier`, `taints`, `too-many-taints`,
`bad-name-shared-counters`, `too-large`) and `validation_devicetaintrule_test.go` (kubernetes@0b1dcaba:
`bad-class`, `CEL-compile-errors`, `CEL-length`), plus cases derived from the 1.34 sources (the
partitionable-devices counter model and its limits, the 64-device rule that 1.34 lacks, taint effect
`None`, list limits without short-circuit, cel-go's lists extension for new expressions). Each version
runs with every one of its DRA gates on. Causes are {(field, reason): count}; {} means allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cases_1_35 import BAD, _device
from cases_1_37 import DUPLICATE, FORBIDDEN, INVALID, NOT_SUPPORTED, REQUIRED, TOO_LONG, TOO_MANY, claim, exact, slice_
from webhook.profile import GATES

ALL_GATES_1_34 = ",".join(f"{name}=true" for name in sorted(GATES["1.34"]))
ALL_GATES_1_35 = ",".join(f"{name}=true" for name in sorted(GATES["1.35"]))

_D = "spec.devices"
_S = "spec.sharedCounters"
_ONLY_ONE = ("spec", INVALID)  # 1.35: "only one of `sharedCounters` or `devices` is allowed"


@dataclass
class Case:
    name: str
    obj: dict
    v134: dict
    v135: dict
    warnings_134: list[str] = field(default_factory=list)
    warnings_135: list[str] = field(default_factory=list)
    old: dict | None = None  # an update of this stored object


def _counters(n: int, prefix: str = "c") -> dict:
    return {f"{prefix}{i}": {"value": "1"} for i in range(n)}


def _consumer(name: str, *consumptions: tuple[str, dict]) -> dict:
    return {"name": name, "consumesCounters": [{"counterSet": s, "counters": c} for s, c in consumptions]}


def _with_counters(*devices: dict, sets: list) -> dict:
    return slice_(*devices, sharedCounters=sets)


def _taint(effect: str = "NoExecute", key: str = "example.com/taint") -> dict:
    return {"key": key, "effect": effect}


def _taint_rule(**selector) -> dict:
    return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "foo"},
            "spec": {"deviceSelector": {"driver": "test.example.com", "pool": "foo", "device": "foo", **selector},
                     "taint": {"key": "example.com/taint", "value": "tainted", "effect": "NoSchedule"}}}


_MEMORY = {"memory": {"value": "1Gi"}}  # testCounters()


def _shared(n: int) -> list:
    return [{"name": f"counterset-{i}", "counters": _MEMORY} for i in range(n)]


def _consumes(n: int) -> list:
    return [{"counterSet": f"counterset-{i}", "counters": _MEMORY} for i in range(n)]


def _sub(name: str, device_class: str = "gpu.example.com") -> dict:
    return {"name": name, "deviceClassName": device_class, "allocationMode": "ExactCount", "count": 1}


_SELECTORS = "spec.deviceSelector.selectors"
_TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
_EXPENSIVE = (f"{_TEN}.all(x, {_TEN}.all(y, {_TEN}.all(z, {_TEN}.all(z2, {_TEN}.all(z3, {_TEN}.all(z4, "
              f"{_TEN}.all(z5, int('1'.find('[0-9]*')) < 100)))))))")
_LONG_CEL = 'device.driver == "' + "x" * (10 * 1024 - len('device.driver == ""') + 1) + '"'
_SET = {"name": "gpu-set", "counters": {"memory": {"value": "8Gi"}, "cores": {"value": "8"}}}
_EXPR = "spec.devices.requests[0].exactly.selectors[0].cel.expression"

def _labelled(obj: dict, **labels: str) -> dict:
    return {**obj, "metadata": {**obj["metadata"], "labels": labels}}


def _class(**spec) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com", "resourceVersion": "1"}, "spec": spec}


def _template(claim_obj: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "template", "namespace": "default", "resourceVersion": "1"},
            "spec": {"spec": claim_obj["spec"]}}


_CLAIM = claim(exact())
_UNKNOWN_REF = claim(exact(), constraints=[{"requests": ["missing"], "matchAttribute": "example.com/model"}])
_REF = "spec.devices.constraints[0].requests[0]"

CASES = [
    # validation_resourceslice_test.go "bad-attribute": Required (not Invalid) for an attribute with no value.
    Case("bad-attribute",
         slice_(_device(0), _device(1, attributes={BAD: {}}),
                _device(2, attributes={"foo": {"string": "x", "version": "1.2.3"}})),
         {(f"{_D}[1].attributes[{BAD}]", INVALID): 1, (f"{_D}[1].attributes[{BAD}]", REQUIRED): 1,
          (f"{_D}[2].attributes[foo]", INVALID): 1},
         {(f"{_D}[1].attributes[{BAD}]", INVALID): 2, (f"{_D}[2].attributes[foo]", INVALID): 1}),
    Case("bad-attribute-empty-domain-and-c-identifier",
         slice_(_device(0), _device(1, attributes={"/": {"string": "z"}})),
         {(f"{_D}[1].attributes[/]", REQUIRED): 2}, {(f"{_D}[1].attributes[/]", INVALID): 2}),
    Case("empty-capacity-name-part",
         slice_(_device(0, capacity={"gpu.example.com/": {"value": "1"}})),
         {(f"{_D}[0].capacity[gpu.example.com/]", REQUIRED): 1}, {(f"{_D}[0].capacity[gpu.example.com/]", INVALID): 1}),
    Case("empty-match-attribute-domain",
         claim(exact(), constraints=[{"requests": ["gpu"], "matchAttribute": "/model"}]),
         {("spec.devices.constraints[0].matchAttribute", REQUIRED): 1},
         {("spec.devices.constraints[0].matchAttribute", INVALID): 1}),
    Case("empty-attribute-name",
         slice_(_device(0, attributes={"": {"string": "z"}})),
         {(f"{_D}[0].attributes[]", REQUIRED): 1}, {(f"{_D}[0].attributes[]", INVALID): 1}),
    Case("empty-match-attribute",
         claim(exact(), constraints=[{"requests": ["gpu"], "matchAttribute": ""}]),
         {("spec.devices.constraints[0].matchAttribute", REQUIRED): 1},
         {("spec.devices.constraints[0].matchAttribute", INVALID): 2}),
    # "taints": effects NoSchedule and NoExecute only; `None` is NotSupported in 1.34.
    Case("taints",
         slice_(_device(0, taints=[_taint(), {"key": "taint", "value": "tainted", "effect": "NoSchedule"}, {},
                                   {"key": BAD, "value": BAD, "effect": "some-other-op"}])),
         {(f"{_D}[0].taints[2].key", INVALID): 2, (f"{_D}[0].taints[2].effect", REQUIRED): 1,
          (f"{_D}[0].taints[3].key", INVALID): 1, (f"{_D}[0].taints[3].value", INVALID): 1,
          (f"{_D}[0].taints[3].effect", NOT_SUPPORTED): 1},
         {(f"{_D}[0].taints[2].key", INVALID): 2, (f"{_D}[0].taints[2].effect", REQUIRED): 1,
          (f"{_D}[0].taints[3].key", INVALID): 1, (f"{_D}[0].taints[3].value", INVALID): 1,
          (f"{_D}[0].taints[3].effect", NOT_SUPPORTED): 1}),
    Case("taint-effect-none",
         slice_(_device(0, taints=[_taint("None")])),
         {(f"{_D}[0].taints[0].effect", NOT_SUPPORTED): 1}, {}),
    Case("toleration-effect-none",
         claim(exact(tolerations=[{"key": "example.com/taint", "operator": "Exists", "effect": "None"}])),
         {("spec.devices.requests[0].exactly.tolerations[0].effect", NOT_SUPPORTED): 1}, {}),
    # "too-many-taints": DeviceTaintsMaxLength is 4 in 1.34 (16 in 1.35).
    Case("too-many-taints",
         slice_(_device(0, taints=[_taint()] * 5)),
         {(f"{_D}[0].taints", TOO_MANY): 1}, {}),
    # No short-circuit in 1.34: the items of a list over its limit are validated too.
    Case("too-many-taints-each-validated",
         slice_(_device(0, taints=[{"key": "example.com/taint"}] * 5)),
         {(f"{_D}[0].taints", TOO_MANY): 1, **{(f"{_D}[0].taints[{i}].effect", REQUIRED): 1 for i in range(5)}},
         {(f"{_D}[0].taints[{i}].effect", REQUIRED): 1 for i in range(5)}),
    Case("too-many-requests-each-validated",
         claim(*[exact(name=f"r{i}") for i in range(32)], exact(name=BAD)),
         {("spec.devices.requests", TOO_MANY): 1, ("spec.devices.requests[32].name", INVALID): 1},
         {("spec.devices.requests", TOO_MANY): 1}),
    Case("too-many-devices-each-validated",
         slice_(*[_device(i) for i in range(128)], _device(128, name=BAD)),
         {(_D, TOO_MANY): 1, (f"{_D}[128].name", INVALID): 1}, {(_D, TOO_MANY): 1}),
    # RS-14: no 64-device limit for taints or counter consumption in 1.34.
    Case("too-large-taints",
         slice_(*[_device(i, taints=[_taint()]) for i in range(65)]),
         {}, {(_D, TOO_MANY): 1}),
    # Duplicates are reported at the key field in 1.34.
    Case("duplicate-device-name",
         slice_(_device(0), _device(0)),
         {(f"{_D}[1].name", DUPLICATE): 1}, {(f"{_D}[1]", DUPLICATE): 1}),
    # The partitionable-devices model of 1.34: counter sets beside the devices that consume them.
    Case("counters-beside-devices",
         _with_counters(_consumer("gpu-0", ("gpu-set", {"memory": {"value": "4Gi"}})),
                        _consumer("gpu-1", ("gpu-set", {"memory": {"value": "4Gi"}, "cores": {"value": "4"}})),
                        sets=[_SET]),
         {}, {_ONLY_ONE: 1}),
    # "bad-name-shared-counters": valid in 1.34 but for the set itself.
    Case("bad-name-shared-counters",
         _with_counters(_device(0), sets=[{"name": BAD}]),
         {(f"{_S}[0].name", INVALID): 1, (f"{_S}[0].counters", REQUIRED): 1},
         {_ONLY_ONE: 1, (f"{_S}[0].name", INVALID): 1, (f"{_S}[0].counters", REQUIRED): 1}),
    Case("unknown-counter-set",
         _with_counters(_consumer("gpu-0", ("other-set", {"memory": {"value": "1"}})), sets=[_SET]),
         {(f"{_D}[0].consumesCounters[0].counterSet", INVALID): 1}, {_ONLY_ONE: 1}),
    Case("unknown-counter",
         _with_counters(_consumer("gpu-0", ("gpu-set", {"bandwidth": {"value": "1"}})), sets=[_SET]),
         {(f"{_D}[0].consumesCounters[0].counters", INVALID): 1}, {_ONLY_ONE: 1}),
    Case("consumption-without-counter-sets",
         slice_(_consumer("gpu-0", ("gpu-set", {"memory": {"value": "1"}}))),
         {(f"{_D}[0].consumesCounters[0].counterSet", INVALID): 1}, {}),
    Case("duplicate-counter-set-consumption",
         _with_counters(_consumer("gpu-0", ("gpu-set", {"memory": {"value": "1"}}),
                                  ("gpu-set", {"cores": {"value": "1"}})), sets=[_SET]),
         {(f"{_D}[0].consumesCounters[1].counterSet", DUPLICATE): 1},
         {_ONLY_ONE: 1, (f"{_D}[0].consumesCounters[1]", DUPLICATE): 1}),
    # Totals: 32 counters over all sets (1.35: 32 per set, 8 sets).
    Case("shared-counters-total",
         _with_counters(_device(0), sets=[{"name": "a", "counters": _counters(20)},
                                          {"name": "b", "counters": _counters(13)}]),
         {(_S, INVALID): 1}, {_ONLY_ONE: 1}),
    Case("many-counter-sets",
         slice_(devices=None, sharedCounters=[{"name": f"s{i}", "counters": _counters(1)} for i in range(9)]),
         {}, {(_S, TOO_MANY): 1}),
    # 32 counters per device over all its consumptions (1.35: 2 consumptions of 32 counters each).
    Case("counters-per-device",  # 33 consumed, one of them not in its set (32 shared counters at most)
         _with_counters(_consumer("gpu-0", ("a", _counters(20)), ("b", _counters(13))),
                        sets=[{"name": "a", "counters": _counters(20)}, {"name": "b", "counters": _counters(12)}]),
         {(f"{_D}[0]", INVALID): 1, (f"{_D}[0].consumesCounters[1].counters", INVALID): 1}, {_ONLY_ONE: 1}),
    Case("three-consumptions",
         _with_counters(_consumer("gpu-0", ("a", _counters(1)), ("b", _counters(1)), ("c", _counters(1))),
                        sets=[{"name": n, "counters": _counters(1)} for n in "abc"]),
         {}, {_ONLY_ONE: 1, (f"{_D}[0].consumesCounters", TOO_MANY): 1}),
    # 1024 consumed counters per slice.
    Case("counters-per-slice",
         _with_counters(*[_consumer(f"gpu-{i}", ("a", _counters(32))) for i in range(33)],
                        sets=[{"name": "a", "counters": _counters(32)}]),
         {(_D, INVALID): 1}, {_ONLY_ONE: 1}),
    # validation_resourceslice_test.go's counter cases (createSharedCounters / createConsumesCounters).
    Case("duplicate-shared-counters",
         _with_counters(_device(0), sets=[{"name": "foo", "counters": _MEMORY}] * 2),
         {(f"{_S}[1].name", DUPLICATE): 1}, {_ONLY_ONE: 1, (f"{_S}[1]", DUPLICATE): 1}),
    Case("too-large-shared-counters",
         _with_counters(_device(0), sets=_shared(33)),
         {(_S, INVALID): 1}, {_ONLY_ONE: 1, (_S, TOO_MANY): 1}),
    Case("missing-counterset-consumes-counter",
         _with_counters(_device(0, consumesCounters=[{"counters": _MEMORY}]), sets=_shared(1)),
         {(f"{_D}[0].consumesCounters[0].counterSet", REQUIRED): 1,
          (f"{_D}[0].consumesCounters[0].counterSet", INVALID): 1},
         {_ONLY_ONE: 1, (f"{_D}[0].consumesCounters[0].counterSet", REQUIRED): 1}),
    Case("missing-counter-consumes-counter",
         _with_counters(_device(0, consumesCounters=[{"counterSet": "counterset-0"}]), sets=_shared(1)),
         {(f"{_D}[0].consumesCounters[0].counters", REQUIRED): 1},
         {_ONLY_ONE: 1, (f"{_D}[0].consumesCounters[0].counters", REQUIRED): 1}),
    Case("wrong-counterref-consumes-counter",
         _with_counters(_device(0, consumesCounters=[{"counterSet": "counterset-0",
                                                      "counters": {"fake": {"value": "1Gi"}}}]), sets=_shared(1)),
         {(f"{_D}[0].consumesCounters[0].counters", INVALID): 1}, {_ONLY_ONE: 1}),
    Case("wrong-sharedcounterref-consumes-counter",
         _with_counters(_device(0, consumesCounters=[{"counterSet": "fake", "counters": _MEMORY}]), sets=_shared(1)),
         {(f"{_D}[0].consumesCounters[0].counterSet", INVALID): 1}, {_ONLY_ONE: 1}),
    Case("too-large-consumes-counter",
         _with_counters({"name": "device-0", "consumesCounters": _consumes(33)}, sets=_shared(33)),
         {(f"{_D}[0]", INVALID): 1, (_S, INVALID): 1},
         {_ONLY_ONE: 1, (_S, TOO_MANY): 1, (f"{_D}[0].consumesCounters", TOO_MANY): 1}),
    Case("too-many-device-counters-in-slice",
         _with_counters(*[_device(i, consumesCounters=_consumes(16)) for i in range(64)],
                        _device(64, consumesCounters=_consumes(1)), sets=_shared(16)),
         {(_D, INVALID): 1}, {_ONLY_ONE: 1, (_D, TOO_MANY): 1, (_S, TOO_MANY): 1}),
    # DeviceTaintRule v1alpha3 of 1.34: deviceClassName and CEL selectors ("bad-class", "CEL-*").
    Case("taint-rule-good",
         _taint_rule(deviceClassName="foo", selectors=[{"cel": {"expression": 'device.driver == "dra.example.com"'}}]),
         {}, {},
         warnings_135=['unknown field "spec.deviceSelector.deviceClassName"']),
    Case("taint-rule-bad-class",
         _taint_rule(deviceClassName=BAD),
         {("spec.deviceSelector.deviceClassName", INVALID): 1}, {},
         warnings_135=['unknown field "spec.deviceSelector.deviceClassName"']),
    Case("taint-rule-CEL-compile-errors",
         _taint_rule(selectors=[{"cel": {"expression": 'device.driver == "dra.example.com"'}},
                                {"cel": {"expression": "device.attributes[true].someBoolean"}}]),
         {(f"{_SELECTORS}[1].cel.expression", INVALID): 1}, {},
         warnings_135=['unknown field "spec.deviceSelector.selectors"']),
    Case("taint-rule-CEL-length",
         _taint_rule(selectors=[{"cel": {"expression": _LONG_CEL}}]),
         {(f"{_SELECTORS}[0].cel.expression", TOO_LONG): 1}, {},
         warnings_135=['unknown field "spec.deviceSelector.selectors"']),
    Case("taint-rule-CEL-cost",
         _taint_rule(selectors=[{"cel": {"expression": _EXPENSIVE}}]),
         {(f"{_SELECTORS}[0].cel.expression", FORBIDDEN): 1}, {},
         warnings_135=['unknown field "spec.deviceSelector.selectors"']),
    Case("taint-rule-effect-none",
         {**_taint_rule(), "spec": {**_taint_rule()["spec"], "taint": {"key": "k", "effect": "None"}}},
         {("spec.taint.effect", NOT_SUPPORTED): 1}, {}),
    Case("taint-rule-status-is-unknown",
         {**_taint_rule(), "status": {"conditions": []}},
         {}, {}, warnings_134=['unknown field "status"']),
    # CEL: new expressions compile at compatibility version 1.33, without cel-go's lists extension.
    Case("cel-lists-extension",
         claim(exact(selectors=[{"cel": {"expression": "[3, 1, 2].sort()[0] == 1"}}])),
         {(_EXPR, INVALID): 1}, {}),
    Case("cel-without-lists-extension",
         claim(exact(selectors=[{"cel": {"expression": '[1, 2].exists(x, x > 1) && device.driver == "x"'}}])),
         {}, {}),
    # Updates. Every one: rest.BeforeUpdate's own metadata checks (new object, then update rules) before the
    # strategy's. 1.34's claim and class strategies validate the new object in full first (ValidateX(new)), and
    # its Validate*Update begin with ValidateObjectMetaUpdate (1.35: ValidateObjectMeta, then the update rules).
    Case("update-bad-label-claim", _labelled(_CLAIM, app="demo-"),
         {("metadata.labels", INVALID): 4}, {("metadata.labels", INVALID): 4}, old=_CLAIM),
    Case("update-bad-label-class", _labelled(_class(), app="demo-"),
         {("metadata.labels", INVALID): 4}, {("metadata.labels", INVALID): 4}, old=_class()),
    Case("update-bad-label-template", _labelled(_template(_CLAIM), app="demo-"),
         {("metadata.labels", INVALID): 4}, {("metadata.labels", INVALID): 4}, old=_template(_CLAIM)),
    # 1.34's ValidateResourceClaim[Template]Update validate the immutable spec again, as stored: each spec cause
    # comes twice beside "field is immutable"; 1.35 checks immutability alone (the template strategy still
    # validates the new template first).
    Case("update-claim-spec-revalidated", _UNKNOWN_REF,
         {(_REF, INVALID): 2, ("spec", INVALID): 1}, {("spec", INVALID): 1}, old=_CLAIM),
    Case("update-template-spec-revalidated", _template(_UNKNOWN_REF),
         {("spec.spec." + _REF[5:], INVALID): 2, ("spec", INVALID): 1},
         {("spec.spec." + _REF[5:], INVALID): 1, ("spec", INVALID): 1}, old=_template(_CLAIM)),
    Case("update-class-spec-validated-twice", _class(extendedResourceName="foo"),
         {("spec.extendedResourceName", INVALID): 2}, {("spec.extendedResourceName", INVALID): 1}, old=_class()),
    # 1.34's ValidateDeviceClass checks generateName (ValidateObjectMeta); 1.35's ValidateObjectMetaWithOpts not.
    Case("class-generate-name-checked",
         {**_class(), "metadata": {"name": "gpu.example.com", "generateName": "Bad_"}},
         {("metadata.generateName", INVALID): 1}, {}),
    # validateDeviceRequest of 1.34 validates both members of a request that sets both, then the union.
    Case("exactly-and-first-available-both-validated",
         claim({"name": "gpu", "exactly": {"deviceClassName": "", "allocationMode": "Some"},
                "firstAvailable": [_sub("a"), _sub("a", BAD)] + [_sub(f"s{i}") for i in range(7)]}),
         {("spec.devices.requests[0]", INVALID): 1, ("spec.devices.requests[0].exactly.deviceClassName", REQUIRED): 1,
          ("spec.devices.requests[0].exactly.allocationMode", NOT_SUPPORTED): 1,
          ("spec.devices.requests[0].firstAvailable", TOO_MANY): 1,
          ("spec.devices.requests[0].firstAvailable[1].name", DUPLICATE): 1,
          ("spec.devices.requests[0].firstAvailable[1].deviceClassName", INVALID): 1},
         {("spec.devices.requests[0]", INVALID): 1}),
    # validateSlice of 1.34 validates every binding condition of a list over its limit.
    Case("binding-conditions-past-the-limit",
         slice_(_device(0, bindsToNode=True, bindingConditions=["a", "b", "c", "d", BAD],
                        bindingFailureConditions=["f", "g", "h", "i", BAD + "2"])),
         {(f"{_D}[0].bindingConditions", TOO_MANY): 1, (f"{_D}[0].bindingConditions[4]", INVALID): 1,
          (f"{_D}[0].bindingFailureConditions", TOO_MANY): 1, (f"{_D}[0].bindingFailureConditions[4]", INVALID): 1},
         {(f"{_D}[0].bindingConditions", TOO_MANY): 1, (f"{_D}[0].bindingFailureConditions", TOO_MANY): 1}),
]


def cases_by_id() -> list:
    import pytest

    return [pytest.param(case, id=case.name) for case in CASES]
