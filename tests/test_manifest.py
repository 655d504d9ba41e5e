"""Offline manifests meet the cluster first: served versions (kubectl's RESTMapper) and the namespace."""

import json

import pytest

from support import cli, review_body
from webhook import admit
from webhook.offline.loading import as_review
from webhook.profile import make_profile
from webhook.review import decode_review

CLAIM_SPEC = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}


def manifest(api_version, kind, name="x", **fields):
    obj = {"kind": kind, "metadata": {"name": name}, **fields}
    if api_version is not None:
        obj["apiVersion"] = api_version
    return obj


def review(obj, **kwargs):
    return admit.review_manifest(decode_review(as_review(obj, uid="test")), **kwargs)


SERVED_BY_1_36 = ("Kubernetes 1.36 serves DeviceClass as resource.k8s.io/v1, resource.k8s.io/v1beta2 (when enabled), "
                  "resource.k8s.io/v1beta1 (when enabled)")


@pytest.mark.parametrize("obj,message", [
    (manifest("resource.k8s.io/v1alpha3", "DeviceClass", spec={}),
     'no matches for kind "DeviceClass" in version "resource.k8s.io/v1alpha3"; ' + SERVED_BY_1_36
     + " (resource.k8s.io/v1alpha3 is no longer served since Kubernetes 1.34)"),
    (manifest("resource.k8s.io/v1alpha2", "ResourceClass", driverName="gpu.example.com"),
     'no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2"; Kubernetes 1.36 serves no kind '
     "'ResourceClass' in resource.k8s.io"),
    (manifest("resource.k8s.io/v1alpha2", "PodSchedulingContext", spec={}),
     'no matches for kind "PodSchedulingContext" in version "resource.k8s.io/v1alpha2"; Kubernetes 1.36 serves no '
     "kind 'PodSchedulingContext' in resource.k8s.io"),
    (manifest("resource.k8s.io/v1alpha2", "ResourceClaim", spec={}),
     'no matches for kind "ResourceClaim" in version "resource.k8s.io/v1alpha2"; Kubernetes 1.36 serves '
     "ResourceClaim as resource.k8s.io/v1, resource.k8s.io/v1beta2 (when enabled), resource.k8s.io/v1beta1 "
     "(when enabled)"),
    (manifest("resource.k8s.io/v1alpha1", "ResourceSlice", spec={}),
     'no matches for kind "ResourceSlice" in version "resource.k8s.io/v1alpha1"; Kubernetes 1.36 serves '
     "ResourceSlice as resource.k8s.io/v1, resource.k8s.io/v1beta2 (when enabled), resource.k8s.io/v1beta1 "
     "(when enabled)"),
    (manifest("resource.k8s.io/v1", "DeviceTaintRule", spec={}),
     'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1"; Kubernetes 1.36 serves DeviceTaintRule '
     "as resource.k8s.io/v1beta2 (when enabled), resource.k8s.io/v1alpha3 (when enabled)"),
    (manifest("resource.k8s.io/v9", "DeviceClass", spec={}),
     'no matches for kind "DeviceClass" in version "resource.k8s.io/v9"; ' + SERVED_BY_1_36),
    (manifest("resource.k8s.io/v1", "DeviceClas", spec={}),
     'no matches for kind "DeviceClas" in version "resource.k8s.io/v1"; Kubernetes 1.36 serves no kind '
     "'DeviceClas' in resource.k8s.io"),
    (manifest(None, "DeviceClass", spec={}), "apiVersion not set"),
    (manifest("resource.k8s.io/v1", "", spec={}), "kind not set"),
], ids=["v1alpha3 DeviceClass", "ResourceClass", "PodSchedulingContext", "v1alpha2 claim", "v1alpha1 slice",
        "v1 DeviceTaintRule", "v9", "misspelled kind", "no apiVersion", "no kind"])
def test_what_the_target_does_not_serve_is_refused_in_kubectls_words(obj, message):
    response = review(obj)
    assert response.allowed is False
    assert response.status["code"] == 404 and response.status["reason"] == "NotFound"
    assert response.status["message"] == message


def test_a_retired_claim_shape_gets_the_converted_verdict_as_a_hint():
    alpha = manifest("resource.k8s.io/v1alpha3", "ResourceClaim", spec={
        "devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}})
    response = review(alpha)
    assert response.allowed is False and response.status["reason"] == "NotFound"
    assert response.warnings[-1] == "dra-webhook: converted to resource.k8s.io/v1, this ResourceClaim would be allowed"
    alpha["spec"]["devices"]["requests"][0]["name"] = "Not_A_Label"
    response = review(alpha)
    assert response.warnings[-1].startswith("dra-webhook: converted to resource.k8s.io/v1, this ResourceClaim would "
                                            'be denied: ResourceClaim.resource.k8s.io "x" is invalid: '
                                            "spec.devices.requests[0].name: Invalid value")


@pytest.mark.parametrize("version, deprecated", [("v1beta1", "v1.35+, unavailable in v1.38+"),
                                                 ("v1beta2", "v1.36+, unavailable in v1.39+")])
def test_versions_served_when_enabled_pass_with_a_warning(version, deprecated):
    response = review(manifest(f"resource.k8s.io/{version}", "DeviceClass", spec={}))
    assert response.allowed is True
    # The API server's own deprecation warning (1.36 deprecates both), then ours.
    assert response.warnings == [f"resource.k8s.io/{version} DeviceClass is deprecated in {deprecated}",
                                 f"dra-webhook: resource.k8s.io/{version} DeviceClass is served only by clusters "
                                 f"with the API version enabled (kube-apiserver --runtime-config="
                                 f"resource.k8s.io/{version}=true)"]


def test_the_device_taint_rule_gate_is_named_until_it_is_on():
    rule = manifest("resource.k8s.io/v1alpha3", "DeviceTaintRule", spec={
        "taint": {"key": "example.com/maintenance", "effect": "NoExecute"}})
    deprecated = "resource.k8s.io/v1alpha3 DeviceTaintRule is deprecated in v1.36+, unavailable in v1.39+"
    off = review(rule).warnings
    assert off[0] == deprecated and "feature gate DRADeviceTaintRules enabled" in off[1]
    on = review(rule, profile=make_profile(gates="DRADeviceTaintRules=true"))
    assert on.allowed is True and on.warnings[0] == deprecated and "feature gate" not in on.warnings[1]


def test_v1_objects_get_no_served_warning():
    response = review(manifest("resource.k8s.io/v1", "DeviceClass", spec={}))
    assert response.allowed is True and response.warnings == []


def test_a_recorded_admission_review_keeps_what_the_cluster_sent():
    # The cluster sent it, so the cluster serves it: converted and validated, no refusal.
    obj = manifest("resource.k8s.io/v1alpha3", "DeviceClass", spec={})
    response = admit.review(decode_review(review_body(obj)))
    assert response.allowed is True
    assert response.warnings == ["resource.k8s.io/v1alpha3 DeviceClass is no longer served (since Kubernetes 1.34)"]


def test_namespaced_manifests_get_the_default_namespace():
    response = review(manifest("resource.k8s.io/v1", "ResourceClaim", spec=CLAIM_SPEC))
    assert response.allowed is True, response.status
    assert review(manifest("resource.k8s.io/v1", "ResourceClaim", spec=CLAIM_SPEC), namespace="gpu-jobs").allowed


def test_the_namespace_of_a_manifest_wins_and_is_validated():
    claim = manifest("resource.k8s.io/v1", "ResourceClaim", spec=CLAIM_SPEC)
    claim["metadata"]["namespace"] = "Not_A_Namespace"
    response = review(claim, namespace="default")
    assert response.allowed is False
    assert [c["field"] for c in response.status["details"]["causes"]] == ["metadata.namespace"]


def test_a_cluster_scoped_manifest_loses_its_namespace_as_the_api_server_clears_it():
    cls = manifest("resource.k8s.io/v1", "DeviceClass", spec={})
    cls["metadata"]["namespace"] = "default"
    assert review(cls).allowed is True
    # Served, the API server has already cleared it; a namespace arriving there is an error.
    served = admit.validate(decode_review(review_body(cls)))
    assert served.allowed is False


def test_the_namespace_flag_and_its_default(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(json.dumps(manifest("resource.k8s.io/v1", "ResourceClaim", spec=CLAIM_SPEC)))
    assert cli("review", str(path)).returncode == 0
    assert cli("review", "--namespace", "gpu-jobs", str(path)).returncode == 0
    bad = cli("review", "-n", "Bad_Namespace", "-o", "json", str(path))
    assert bad.returncode == 1
    [result] = json.loads(bad.stdout)["results"]
    assert result["response"]["status"]["details"]["causes"][0]["field"] == "metadata.namespace"


@pytest.mark.parametrize("command", ["review", "test", "serve"])
def test_an_unknown_gate_is_a_usage_error(command, tmp_path):
    args = [command, "--feature-gates", "DRANoSuchGate=true"] + ([] if command == "serve" else [str(tmp_path)])
    result = cli(*args)
    assert result.returncode == 2
    assert "unrecognized feature gate: DRANoSuchGate; known DRA gates of Kubernetes 1.36:" in result.stderr
    assert "DRAListTypeAttributes" in result.stderr


def test_an_unsupported_kubernetes_version_is_a_usage_error(tmp_path):
    result = cli("review", "--kubernetes-version", "1.20", str(tmp_path))
    assert result.returncode == 2 and "unsupported Kubernetes version '1.20'" in result.stderr


def claim_with_unknown_field():
    claim = manifest("resource.k8s.io/v1", "ResourceClaim", spec=json.loads(json.dumps(CLAIM_SPEC)))
    claim["spec"]["devices"]["requests"][0]["exactly"]["colour"] = "red"
    return claim


def test_unknown_fields_refuse_a_manifest_as_kubectls_strict_validation_does():
    response = review(claim_with_unknown_field())
    assert response.allowed is False and response.status["code"] == 400
    assert response.status["message"] == (
        'ResourceClaim in version "v1" cannot be handled as a ResourceClaim: strict decoding error: '
        'unknown field "spec.devices.requests[0].exactly.colour"')
    warned = review(claim_with_unknown_field(), field_validation="Warn")
    assert warned.allowed is True
    assert warned.warnings == ['unknown field "spec.devices.requests[0].exactly.colour"']
    assert review(claim_with_unknown_field(), field_validation="Ignore").warnings == []
    # What a cluster sent was decoded with the API server's own default: a warning.
    served = admit.validate(decode_review(review_body(claim_with_unknown_field())))
    assert served.warnings == warned.warnings


def test_the_validate_flag(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(json.dumps(claim_with_unknown_field()))
    assert cli("review", str(path)).returncode == 1
    assert cli("review", "--validate", "warn", str(path)).returncode == 0
    assert cli("review", "--validate", "warn", "--warnings-as-errors", str(path)).returncode == 1
    assert cli("review", "--validate", "ignore", "--warnings-as-errors", str(path)).returncode == 0


def test_a_create_with_only_generate_name_gets_a_name_first():
    claim = manifest("resource.k8s.io/v1", "ResourceClaim", spec=CLAIM_SPEC)
    claim["metadata"] = {"generateName": "gpu-claim-"}
    first, again = review(claim), review(claim)
    assert first.allowed is True, first.status
    assert first.to_dict() | {"uid": ""} == again.to_dict() | {"uid": ""}
    claim["metadata"] = {"generateName": "Bad_Prefix-"}
    denied = review(claim)
    assert denied.allowed is False
    assert {c["field"] for c in denied.status["details"]["causes"]} == {"metadata.generateName", "metadata.name"}


def test_a_manifest_without_metadata_still_gets_the_namespace():
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "spec": CLAIM_SPEC}
    response = review(claim)
    assert [c["field"] for c in response.status["details"]["causes"]] == ["metadata.name"]


ADMIN_CLAIM = manifest("resource.k8s.io/v1", "ResourceClaim", spec={"devices": {"requests": [
    {"name": "monitor", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All",
                                    "adminAccess": True}}]}})


def test_admin_access_offline_needs_a_labelled_namespace_among_the_inputs(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(json.dumps(ADMIN_CLAIM))
    denied = cli("review", "-o", "json", str(path))  # the default namespace of a new cluster: unlabelled
    assert denied.returncode == 1
    [result] = json.loads(denied.stdout)["results"]
    assert result["response"]["status"]["details"]["causes"] == [{
        "reason": "FieldValueForbidden", "field": "spec.devices.requests[0].adminAccess",
        "message": "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` "
                   "label on the containing namespace"}]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "gpu-monitoring", "labels": {"resource.kubernetes.io/admin-access": "true"}}}
    (tmp_path / "namespace.yaml").write_text(json.dumps(namespace))
    allowed = cli("review", "-n", "gpu-monitoring", str(tmp_path))
    assert allowed.returncode == 0, allowed.stdout
    # A namespace the inputs do not show may be labelled in the real cluster: only a warning.
    (tmp_path / "namespace.yaml").unlink()
    unknown = cli("review", "-o", "json", "-n", "gpu-monitoring", str(path))
    assert unknown.returncode == 0
    assert "dra-webhook cannot see namespace labels" in json.loads(unknown.stdout)["results"][0]["response"]["warnings"][0]


def test_admin_access_served_is_a_warning_because_namespaces_cannot_be_seen():
    claim = json.loads(json.dumps(ADMIN_CLAIM))
    claim["metadata"]["namespace"] = "default"
    response = admit.validate(decode_review(review_body(claim)))
    assert response.allowed is True
    assert response.warnings[0].startswith("spec.devices.requests[0].adminAccess: admin access to devices requires")


@pytest.mark.parametrize("version,refused", [("12345", True), ("0", False), ("abc", False), ("", False)])
def test_a_resource_version_on_create_is_refused_by_storage(version, refused):
    cls = manifest("resource.k8s.io/v1", "DeviceClass", spec={})
    cls["metadata"]["resourceVersion"] = version
    response = review(cls)
    assert response.allowed is (not refused)
    if refused:
        assert response.status["code"] == 500 and response.status["message"] == (
            "Internal error occurred: resourceVersion should not be set on objects to be created")
