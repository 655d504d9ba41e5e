"""Wrongly typed JSON is refused in the API server's words.

Every expected string follows the upstream sources: Go's JSON decoder as the API server uses it
(sigs.k8s.io/json, internal/golang/encoding/json/decode.go: `UnmarshalTypeError.Error`, `addErrorContext`,
`object`, `array`, `literalStore` — the JSON kind, "number <text>" for an integer that does not parse,
the struct holding the last field entered, the JSON field names from the root, the pointee's
`reflect.Type.String()`; a float's text as kubectl's YAML-to-JSON writes it, encode.go `floatEncoder`),
the types of k8s.io/api resource/v1, v1beta1 and v1beta2 (struct and named
type names), resource.Quantity's UnmarshalJSON (ParseQuantity's error, returned at once),
metav1.Time's UnmarshalJSON (decodes a string with encoding/json; its error gets the outer decoder's context:
"into Go struct field DeviceTaint.spec.devices.taints.timeAdded of type string"), and
the apiserver's transformDecodeError (endpoints/handlers/rest.go: 400 BadRequest,
`%s in version %q cannot be handled as a %s: %v`).
"""

from __future__ import annotations

import copy
import json

import pytest

from support import cli, review_body, valid_slice
from webhook.admit import validate
from webhook.review import decode_review, encode_review

SLICE = valid_slice()
CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ns"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]}}}
TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ns"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.example.com", "allocationMode": "All"}]}]}}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": "true"}}]}}
RULE = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "NoSchedule"}}}
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _device(obj):
    return obj["spec"]["devices"][0]


def _exactly(obj):
    return obj["spec"]["devices"]["requests"][0]["exactly"]


def _v1beta1_slice():
    obj = copy.deepcopy(SLICE)
    obj["apiVersion"] = "resource.k8s.io/v1beta1"
    device = obj["spec"]["devices"][0]
    obj["spec"]["devices"][0] = {"name": device.pop("name"), "basic": device}
    return obj


# (id, object, change, cause field, Go's error)
CASES = [
    ("old capacity shape", SLICE, lambda o: _device(o).update(capacity={"memory": "80Gi"}),
     "spec.devices[0].capacity[memory]",
     "json: cannot unmarshal string into Go struct field Device.spec.devices.capacity of type v1.DeviceCapacity"),
    ("old attribute shape", SLICE, lambda o: _device(o).update(attributes={"model": "a100"}),
     "spec.devices[0].attributes[model]",
     "json: cannot unmarshal string into Go struct field Device.spec.devices.attributes of type v1.DeviceAttribute"),
    ("string for an object", SLICE, lambda o: o["spec"].update(pool="p"), "spec.pool",
     "json: cannot unmarshal string into Go struct field ResourceSliceSpec.spec.pool of type v1.ResourcePool"),
    ("object for a list", SLICE, lambda o: o["spec"].update(devices={"d0": {}}), "spec.devices",
     "json: cannot unmarshal object into Go struct field ResourceSliceSpec.spec.devices of type []v1.Device"),
    ("array for a map", SLICE, lambda o: _device(o).update(attributes=[{"model": {"string": "a100"}}]),
     "spec.devices[0].attributes",
     "json: cannot unmarshal array into Go struct field Device.spec.devices.attributes of type "
     "map[v1.QualifiedName]v1.DeviceAttribute"),
    ("bool for an int64", SLICE, lambda o: _device(o).update(attributes={"cores": {"int": True}}),
     "spec.devices[0].attributes[cores].int",
     "json: cannot unmarshal bool into Go struct field DeviceAttribute.spec.devices.attributes.int of type int64"),
    # A YAML 1e100 reaches the API server as kubectl's json.Marshal writes the float: 1e+100.
    ("huge number for an int64", SLICE, lambda o: o["spec"]["pool"].update(generation=1e100), "spec.pool.generation",
     "json: cannot unmarshal number 1e+100 into Go struct field ResourcePool.spec.pool.generation of type int64"),
    ("int64 overflow", SLICE, lambda o: o["spec"]["pool"].update(generation=2**63), "spec.pool.generation",
     "json: cannot unmarshal number 9223372036854775808 into Go struct field ResourcePool.spec.pool.generation "
     "of type int64"),
    ("fraction for an int64", SLICE, lambda o: o["spec"]["pool"].update(resourceSliceCount=1.5),
     "spec.pool.resourceSliceCount",
     "json: cannot unmarshal number 1.5 into Go struct field ResourcePool.spec.pool.resourceSliceCount of type int64"),
    ("number for a named string", SLICE, lambda o: _device(o).update(taints=[{"key": "k", "effect": 3}]),
     "spec.devices[0].taints[0].effect",
     "json: cannot unmarshal number into Go struct field DeviceTaint.spec.devices.taints.effect of type "
     "v1.DeviceTaintEffect"),
    ("number for a time", SLICE, lambda o: _device(o).update(taints=[{"key": "k", "effect": "NoSchedule",
                                                                       "timeAdded": 5}]),
     "spec.devices[0].taints[0].timeAdded",
     "json: cannot unmarshal number into Go struct field DeviceTaint.spec.devices.taints.timeAdded of type string"),
    ("unparsable quantity", SLICE, lambda o: _device(o).update(capacity={"memory": {"value": "80 Gi"}}),
     "spec.devices[0].capacity[memory].value", QUANTITY_FORMAT),
    ("object for a quantity", SLICE, lambda o: _device(o).update(capacity={"memory": {"value": {"amount": 1}}}),
     "spec.devices[0].capacity[memory].value", QUANTITY_FORMAT),
    ("bad quantity suffix", CLAIM, lambda o: _exactly(o).update(capacity={"requests": {"memory": "1ki"}}),
     "spec.devices.requests[0].exactly.capacity.requests[memory]", "unable to parse quantity's suffix"),
    ("string for an int64 in a request", CLAIM, lambda o: _exactly(o).update(count="1"),
     "spec.devices.requests[0].exactly.count",
     "json: cannot unmarshal string into Go struct field ExactDeviceRequest.spec.devices.requests.exactly.count "
     "of type int64"),
    ("number for a string in a selector", CLAIM, lambda o: _exactly(o).update(selectors=[{"cel": {"expression": 7}}]),
     "spec.devices.requests[0].exactly.selectors[0].cel.expression",
     "json: cannot unmarshal number into Go struct field CELDeviceSelector.spec.devices.requests.exactly.selectors.cel"
     ".expression of type string"),
    ("fraction in a toleration", CLAIM,
     lambda o: _exactly(o).update(tolerations=[{"key": "k", "operator": "Exists", "tolerationSeconds": 0.5}]),
     "spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds",
     "json: cannot unmarshal number 0.5 into Go struct field DeviceToleration.spec.devices.requests.exactly.tolerations"
     ".tolerationSeconds of type int64"),
    ("tiny fraction in a toleration", CLAIM,
     lambda o: _exactly(o).update(tolerations=[{"key": "k", "operator": "Exists", "tolerationSeconds": 1.5e-5}]),
     "spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds",
     "json: cannot unmarshal number 0.000015 into Go struct field DeviceToleration.spec.devices.requests.exactly"
     ".tolerations.tolerationSeconds of type int64"),
    ("bool in a config", CLAIM,
     lambda o: o["spec"]["devices"].update(config=[{"opaque": {"driver": True, "parameters": {}}}]),
     "spec.devices.config[0].opaque.driver",
     # the embedded DeviceConfiguration is in Go's field stack (as the oracle says)
     "json: cannot unmarshal bool into Go struct field OpaqueDeviceConfiguration.spec.devices.config."
     "DeviceConfiguration.opaque.driver of type string"),
    ("string in a subrequest", TEMPLATE,
     lambda o: o["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][0].update(count="2"),
     "spec.spec.devices.requests[0].firstAvailable[0].count",
     "json: cannot unmarshal string into Go struct field DeviceSubRequest.spec.spec.devices.requests.firstAvailable"
     ".count of type int64"),
    ("string for a list of selectors", CLASS, lambda o: o["spec"].update(selectors="device.driver == 'x'"),
     "spec.selectors",
     "json: cannot unmarshal string into Go struct field DeviceClassSpec.spec.selectors of type []v1.DeviceSelector"),
    ("array for labels", CLASS, lambda o: o["metadata"].update(labels=["a"]), "metadata.labels",
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ("number in a taint rule", RULE, lambda o: o["spec"]["taint"].update(effect=3), "spec.taint.effect",
     "json: cannot unmarshal number into Go struct field DeviceTaint.spec.taint.effect of type "
     "v1beta2.DeviceTaintEffect"),
    ("v1beta1 basic device", _v1beta1_slice(), lambda o: _device(o)["basic"].update(capacity={"memory": "80Gi"}),
     "spec.devices[0].basic.capacity[memory]",
     "json: cannot unmarshal string into Go struct field BasicDevice.spec.devices.basic.capacity of type "
     "v1beta1.DeviceCapacity"),
    ("v1beta1 basic of the wrong type", _v1beta1_slice(), lambda o: _device(o).update(basic=7),
     "spec.devices[0].basic",
     "json: cannot unmarshal number into Go struct field Device.spec.devices.basic of type v1beta1.BasicDevice"),
    ("v1beta1 flat request", {**CLAIM, "apiVersion": "resource.k8s.io/v1beta1",
                              "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu",
                                                                 "allocationMode": "All"}]}}},
     lambda o: o["spec"]["devices"]["requests"][0].update(count="1"), "spec.devices.requests[0].count",
     "json: cannot unmarshal string into Go struct field DeviceRequest.spec.devices.requests.count of type int64"),
]


def _run(obj: dict) -> dict:
    return encode_review(validate(decode_review(review_body(obj))))["response"]


@pytest.mark.parametrize("base, change, field, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_wrong_type_is_refused_with_gos_error(base, change, field, message):
    obj = copy.deepcopy(base)
    assert _run(obj)["allowed"] is True, "the unchanged object must be valid"
    change(obj)
    status = _run(obj)["status"]
    kind, version = obj["kind"], obj["apiVersion"].rpartition("/")[2]
    assert (status["code"], status["reason"]) == (400, "BadRequest")
    assert status["message"] == f'{kind} in version "{version}" cannot be handled as a {kind}: {message}'
    [cause] = status["details"]["causes"]
    assert (cause["field"], cause["reason"]) == (field, "FieldValueTypeInvalid")
    assert cause["message"].startswith("Invalid value: ") and cause["message"].endswith(": " + message)


def test_the_first_type_error_in_document_order_is_reported():
    obj = copy.deepcopy(SLICE)
    obj["spec"] = {"nodeName": 7, **obj["spec"]}  # before the pool in the document
    obj["spec"]["nodeName"] = 7
    obj["spec"]["pool"]["generation"] = "1"
    status = _run(obj)["status"]
    assert status["message"].endswith("json: cannot unmarshal number into Go struct field "
                                      "ResourceSliceSpec.spec.nodeName of type string")
    assert [c["field"] for c in status["details"]["causes"]] == ["spec.nodeName", "spec.pool.generation"]
    obj["spec"] = {"pool": obj["spec"].pop("pool"), **obj["spec"]}  # now the pool comes first
    status = _run(obj)["status"]
    assert status["message"].endswith("json: cannot unmarshal string into Go struct field "
                                      "ResourcePool.spec.pool.generation of type int64")


def test_a_quantity_error_stops_the_decoder_before_an_earlier_type_error():
    obj = copy.deepcopy(SLICE)
    obj["spec"]["pool"]["generation"] = "1"  # the pool comes before the devices
    _device(obj)["capacity"] = {"memory": {"value": "lots"}}
    status = _run(obj)["status"]
    assert status["message"] == f'ResourceSlice in version "v1" cannot be handled as a ResourceSlice: {QUANTITY_FORMAT}'
    assert [c["field"] for c in status["details"]["causes"]] == ["spec.devices[0].capacity[memory].value",
                                                                  "spec.pool.generation"]


def test_unknown_fields_of_a_v1beta1_basic_device_are_named_where_they_are():
    obj = _v1beta1_slice()
    _device(obj)["basic"]["atributes"] = {}
    response = _run(obj)
    assert response["allowed"] is True
    assert response["warnings"] == ['unknown field "spec.devices[0].basic.atributes"']


def _strict(obj: dict, field_validation: str = "Strict", old: dict | None = None):
    from webhook.admit import review_manifest

    body = review_body(obj, operation="UPDATE" if old else "CREATE", old=old)
    return review_manifest(decode_review(body), namespace="ns", field_validation=field_validation)


def test_unknown_fields_are_named_as_the_strict_decoder_names_them():
    """sigs.k8s.io/json (kubernetes_patch.go): in the order they are written, a map key after a dot like a field
    name, the path Go-quoted (strconv.Quote), at most 100; the same texts are the warnings of fieldValidation=Warn."""
    obj = copy.deepcopy(SLICE)
    spec = obj["spec"]
    obj["spec"] = {"zeta": 1, **spec, "alpha": {"nested": "not reported"}}
    device = _device(obj)
    device.pop("capacity", None)
    device.pop("attributes", None)
    device["capacity"] = {"cores": {"value": "8", "bogus": 1}}
    device["attributes"] = {"dra.example.com/model": {"string": "a100", 'we"ird,\x07': True}}
    names = ['unknown field "spec.zeta"', 'unknown field "spec.devices[0].capacity.cores.bogus"',
             'unknown field "spec.devices[0].attributes.dra.example.com/model.we\\"ird,\\a"',
             'unknown field "spec.alpha"']
    refused = _strict(obj)
    assert refused.status["code"] == 400
    assert refused.status["message"] == ('ResourceSlice in version "v1" cannot be handled as a ResourceSlice: '
                                         "strict decoding error: " + ", ".join(names))
    warned = _strict(obj, "Warn")
    assert warned.allowed and [w for w in warned.warnings if "unknown field" in w] == names

    many = copy.deepcopy(CLASS)
    many["spec"].update({f"k{n}": n for n in range(130)})
    message = _strict(many).status["message"]
    assert message.count("unknown field") == 100 and message.endswith('unknown field "spec.k99"')


@pytest.mark.parametrize("release,stack", [("1.34", "config.opaque"), ("1.35", "config.DeviceConfiguration.opaque")])
def test_the_embedded_device_configuration_is_named_from_1_35_on(release, stack):
    """1.35's decoder (sigs.k8s.io/json of 2025) names the embedded struct `opaque` is promoted from; 1.34's does not
    (behaviours `decoder_names_embedded_structs`)."""
    from webhook.admit import review_manifest
    from webhook.profile import make_profile

    obj = copy.deepcopy(CLASS)
    obj["spec"]["config"] = [{"opaque": {"driver": 1, "parameters": {}}}]
    response = review_manifest(decode_review(review_body(obj)), profile=make_profile(release))
    assert response.status["message"] == (
        'DeviceClass in version "v1" cannot be handled as a DeviceClass: json: cannot unmarshal number into Go '
        f"struct field OpaqueDeviceConfiguration.spec.{stack}.driver of type string")


def test_an_update_with_an_unknown_field_is_validated_without_it():
    """fieldValidation=Warn: Go's decoder drops the field, so the spec the strategy compares is the stored one."""
    old = copy.deepcopy(CLAIM)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["devices"]["requests"][0]["exactly"]["bogus"] = 1
    response = _strict(new, "Warn", old=old)
    assert response.allowed, response.status
    assert 'unknown field "spec.devices.requests[0].exactly.bogus"' in response.warnings


def test_a_type_error_over_https_reads_like_the_api_server(webhook_server):
    obj = copy.deepcopy(SLICE)
    _device(obj)["capacity"] = {"memory": "80Gi"}
    response = webhook_server.review("/validate", review_body(obj))
    go = "json: cannot unmarshal string into Go struct field Device.spec.devices.capacity of type v1.DeviceCapacity"
    assert response["allowed"] is False
    assert response["status"]["code"] == 400 and response["status"]["reason"] == "BadRequest"
    assert response["status"]["message"] == f'ResourceSlice in version "v1" cannot be handled as a ResourceSlice: {go}'
    assert response["status"]["details"]["causes"] == [
        {"reason": "FieldValueTypeInvalid", "message": f'Invalid value: "80Gi": {go}',
         "field": "spec.devices[0].capacity[memory]"}]
    assert webhook_server.review("/validate", review_body(SLICE))["allowed"] is True  # still serving


OLD_SHAPE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  nodeName: n1
  devices:
  - name: d0
    capacity: {memory: 80Gi}
"""


def test_review_says_it_in_gos_words(tmp_path):
    path = tmp_path / "slice.yaml"
    path.write_text(OLD_SHAPE)
    go = "json: cannot unmarshal string into Go struct field Device.spec.devices.capacity of type v1.DeviceCapacity"
    text = cli("review", str(path))
    assert text.returncode == 1, text.stderr
    # at the key of the field written in the old shape: line 10, column 16
    assert f'  {path}:10:16: spec.devices[0].capacity[memory]: Invalid value: "80Gi": {go}\n' in text.stdout
    report = cli("review", "-o", "json", str(path))
    assert report.returncode == 1, report.stderr
    [result] = json.loads(report.stdout)["results"]
    assert result["messages"] == [{"field": "spec.devices[0].capacity[memory]", "reason": "FieldValueTypeInvalid",
                                   "message": f'Invalid value: "80Gi": {go}', "line": 10, "column": 16,
                                   # the old shape's fix, beside the API server's words (webhook/offline/hints.py)
                                   "hint": "capacity takes an object since resource.k8s.io/v1beta1: write "
                                           "`memory: {value: 80Gi}`, not `memory: 80Gi` (the v1alpha3 shape)"}]
    assert result["response"]["status"]["message"] == \
        f'ResourceSlice in version "v1" cannot be handled as a ResourceSlice: {go}'


@pytest.mark.parametrize("count, allowed", [("2.0", True), ("1e1", True), ("2.5", False)])
def test_a_yaml_float_reaches_an_int64_field_as_kubectl_sends_it(tmp_path, count, allowed):
    # kubectl converts YAML to JSON with Go's json.Marshal: 2.0 and 1e1 are sent as 2 and 10.
    path = tmp_path / "claim.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n"
                    "  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.example.com, "
                    f"allocationMode: ExactCount, count: {count}}}\n")
    result = cli("review", str(path))
    assert result.returncode == (0 if allowed else 1), result.stdout
    if not allowed:
        assert (f"json: cannot unmarshal number {count} into Go struct field ExactDeviceRequest"
                ".spec.devices.requests.exactly.count of type int64") in result.stdout
