"""deploy/helm/dra-webhook, rendered by the real `helm` (built from helm.sh/helm/v4 by tests/upstream/build.sh):
lint clean, values refused by type, a render without an image refused with a message, a matrix of values
valid under the strict schemas of 1.34-1.37, the same objects as the kustomize overlays, and the webhook
configurations registered after the pods and removed before them."""

from __future__ import annotations

import base64
import itertools
import os
import subprocess
import tempfile
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from cryptography import x509
from cryptography.x509.oid import ExtensionOID

import webhook
from test_deploy import K8S_VERSIONS, KUBECTL, validate_cert_manager
from test_deploy_overlay import render_operator_overlay
from support import upstream_tool
from webhook.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "deploy" / "helm" / "dra-webhook"
HELM = upstream_tool("helm") or "helm"  # built by `make upstream` from tests/upstream/helm-4
IMAGE = ["--set", "image.repository=registry.example.com/dra-webhook", "--set", "image.tag=1.2.3"]
# The labels and annotations Helm adds that the kustomize install has no counterpart for.
HELM_LABELS = {"app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by",
               "helm.sh/chart"}
HOOK_ANNOTATIONS = {"helm.sh/hook", "helm.sh/hook-weight", "helm.sh/hook-delete-policy"}

pytestmark = pytest.mark.needs_tool("helm")  # not run without it locally; a failure in CI


_HELM_HOME = tempfile.TemporaryDirectory(prefix="helm-home-")  # removed when the test process ends


def helm(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    # helm's own directories in a scratch place, and no cluster unless a test names one (--kubeconfig).
    env = {"PATH": os.environ.get("PATH", ""), "HOME": _HELM_HOME.name, "HELM_CACHE_HOME": f"{_HELM_HOME.name}/cache",
           "HELM_CONFIG_HOME": f"{_HELM_HOME.name}/config", "HELM_DATA_HOME": f"{_HELM_HOME.name}/data",
           "KUBECONFIG": f"{_HELM_HOME.name}/no-kubeconfig"}
    result = subprocess.run([str(HELM), *args], capture_output=True, text=True, timeout=120, env=env)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def template(*values: str, release: str = "dra-webhook", namespace: str = "dra-webhook") -> list[dict]:
    """`helm template` with the hooks (the webhook configurations) included, as `helm install` would create them."""
    out = helm("template", release, str(CHART), "--namespace", namespace, *values).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def hook(doc: dict) -> str:
    return doc["metadata"].get("annotations", {}).get("helm.sh/hook", "")


def installed(docs: list[dict]) -> list[dict]:
    """What is in the cluster once an install has finished: pre-delete hooks are not created until uninstall."""
    return [doc for doc in docs if "pre-delete" not in hook(doc)]


def find(docs: list[dict], kind: str, name: str | None = None) -> dict:
    [doc] = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return doc


def test_chart_version_is_the_project_version():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["version"] == chart["appVersion"] == webhook.__version__


def test_lint_strict_is_clean():
    result = helm("lint", "--strict", str(CHART), *IMAGE)
    assert "0 chart(s) failed" in result.stdout, result.stdout
    assert "[WARNING]" not in result.stdout and "[ERROR]" not in result.stdout, result.stdout


@pytest.mark.parametrize("values, message", [
    ([], "image.repository is required"),
    (["--set", "image.repository=registry.example.com/dra-webhook"], "image.tag (or image.digest) is required"),
    (IMAGE + ["--set", "certificates.mode=secret"], "certificates.secret.caBundle is required"),
], ids=["no-image", "no-tag", "secret-without-ca"])
def test_a_render_missing_a_required_value_is_refused_with_the_message(values, message):
    result = helm("template", "dra-webhook", str(CHART), *values, check=False)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize("value, where", [
    ("replicas=two", "replicas"),
    ("admission.validating.timeoutSeconds=31", "timeoutSeconds"),
    ("admission.validating.failurePolicy=Sometimes", "failurePolicy"),
    ("certificates.mode=vault", "mode"),
    ("imagee.tag=1", "imagee"),
    ("webhook.kubernetesVersion=1.33", "kubernetesVersion"),
    ("admission.url=http://127.0.0.1:8443", "url"),
], ids=["type", "range", "enum", "mode", "unknown-key", "version", "plain-http-url"])
def test_values_schema_refuses_a_wrong_value(value, where):
    result = helm("template", "dra-webhook", str(CHART), *IMAGE, "--set", value, check=False)
    assert result.returncode != 0
    assert "values don't meet the specifications of the schema" in result.stderr, result.stderr
    assert where in result.stderr


INJECTIONS = {  # each smuggled a flag or a field into the rendered objects before the schema and quoting
    "webhook.featureGates": "A=true\n            - --kubeconfig=/etc/evil",
    "webhook.runtimeConfig": "x\n            - --kubeconfig=/etc/evil",
    "podDisruptionBudget.minAvailable": "1\n  maxUnavailable: 3",
    "priorityClassName": "a\n      hostNetwork: true",
    "certificates.secret.name": "a\n            readOnly: false",
    "driverProfiles.\\.hidden\\.yaml": "x",  # a hidden key the webhook's directory listing skips
}


@pytest.mark.parametrize("key", sorted(INJECTIONS))
def test_values_that_would_inject_yaml_or_flags_are_refused_by_the_schema(key):
    extra = ["--set", "certificates.mode=secret", "--set", "certificates.secret.caBundle=QUJD"]
    result = helm("template", "dra-webhook", str(CHART), *IMAGE, *extra, "--set-string", f"{key}={INJECTIONS[key]}",
                  check=False)
    assert result.returncode != 0, result.stdout
    assert "values don't meet the specifications of the schema" in result.stderr, result.stderr


def test_a_release_name_that_makes_no_service_name_is_refused_at_render():
    # Helm takes "a.b"; the Service "a.b-dra-webhook" was refused by the API server at install, after the hooks.
    result = helm("template", "a.b", str(CHART), *IMAGE, check=False)
    assert result.returncode != 0
    assert 'the release name "a.b" makes the Service name "a.b-dra-webhook", which is not a DNS label' in result.stderr


def test_flag_values_are_quoted_whole_into_the_arguments():
    docs = template(*IMAGE, "--set-string", "webhook.featureGates=DRADeviceTaints=true\\,DRAPartitionableDevices=false",
                    "--set-string", "webhook.runtimeConfig=resource.k8s.io/v1beta2=true",
                    "--set-string", "podDisruptionBudget.minAvailable=50%")
    args = find(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--feature-gates=DRADeviceTaints=true,DRAPartitionableDevices=false" in args
    assert "--runtime-config=resource.k8s.io/v1beta2=true" in args
    assert find(docs, "PodDisruptionBudget")["spec"]["minAvailable"] == "50%"


def test_a_digest_is_preferred_over_the_tag():
    digest = "sha256:" + "ab" * 32
    docs = template(*IMAGE, "--set", f"image.digest={digest}")
    [container] = find(docs, "Deployment")["spec"]["template"]["spec"]["containers"]
    assert container["image"] == f"registry.example.com/dra-webhook@{digest}"


# The values matrix: each optional part on and off, each certificate source, another namespace and a
# release name that becomes a name prefix.
MATRIX = {
    "certificates": [["--set", "certificates.mode=cert-manager"], ["--set", "certificates.mode=helm"],
                     ["--set", "certificates.mode=secret", "--set", "certificates.secret.name=my-tls",
                      "--set", "certificates.secret.caBundle=" + base64.b64encode(b"-----BEGIN CERTIFICATE-----").decode()]],
    "where": [("dra-webhook", "dra-webhook"), ("acme", "gpu-system")],
    "optional": [[], ["--set", "autoscaling.enabled=false", "--set", "podDisruptionBudget.enabled=false",
                      "--set", "resourceQuota.enabled=false", "--set", "topologySpread.enabled=false",
                      "--set", "admission.mutating.enabled=false"],
                 ["--set", "clusterState.enabled=true", "--set", "createNamespace=true",
                  "--set-string", "driverProfiles.example\\.yaml=driver: gpu.example.com",
                  "--set", "webhook.kubernetesVersion=1.34", "--set", "webhook.featureGates=DRAPartitionableDevices=true",
                  "--set", "webhook.runtimeConfig=resource.k8s.io/v1beta2=true"]],
}


def matrix():
    for cert, (release, namespace), optional in itertools.product(*MATRIX.values()):
        yield pytest.param(release, namespace, IMAGE + cert + optional,
                           id=f"{cert[1].split('=')[1]}-{release}-{namespace}-{MATRIX['optional'].index(optional)}")


def validate_strict(doc: dict) -> None:
    if doc["apiVersion"].startswith("cert-manager.io/"):
        validate_cert_manager(doc)
        return
    for version in K8S_VERSIONS:
        assert kubernetes_validate.validate(doc, version, strict=True) == version.rpartition(".")[0]


@pytest.mark.parametrize("release, namespace, values", list(matrix()))
def test_matrix_renders_valid_objects_for_every_release(release, namespace, values):
    docs = template(*values, release=release, namespace=namespace)
    for doc in docs:
        validate_strict(doc)
        if doc["kind"] not in ("Namespace", "ClusterRole", "ClusterRoleBinding",
                               "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            assert doc["metadata"]["namespace"] == namespace
    fullname = release if "dra-webhook" in release else f"{release}-dra-webhook"
    deployment = find(docs, "Deployment", fullname)
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    args = build_parser().parse_args(container["args"])  # an unknown flag exits: the chart only passes real flags
    assert args.command == "serve"
    for configuration in [d for d in installed(docs) if d["kind"].endswith("WebhookConfiguration")]:
        assert configuration["webhooks"]
        for registered in configuration["webhooks"]:
            assert registered["clientConfig"]["service"] == {
                "name": fullname, "namespace": namespace, "port": 443,
                "path": registered["clientConfig"]["service"]["path"]}
            [selector] = registered["namespaceSelector"]["matchExpressions"]
            assert selector["operator"] == "NotIn" and {namespace, "kube-system"} <= set(selector["values"])
            assert registered["sideEffects"] == "None" and registered["matchPolicy"] == "Equivalent"
            assert 1 <= registered["timeoutSeconds"] <= 30


def test_optional_parts_follow_their_values():
    plain = template(*IMAGE)
    assert {d["kind"] for d in plain} >= {"HorizontalPodAutoscaler", "PodDisruptionBudget", "ResourceQuota"}
    assert not [d for d in plain if d["kind"] in ("ConfigMap", "Namespace")]
    # The profile from the cluster is always read: /version, /metrics and discovery, nothing to list or watch.
    [rule] = find(plain, "ClusterRole")["rules"]
    assert rule["verbs"] == ["get"] and "/metrics" in rule["nonResourceURLs"]
    deployment = find(plain, "Deployment")
    assert deployment["spec"]["template"]["spec"]["automountServiceAccountToken"] is True
    assert "replicas" not in deployment["spec"]
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert "--cluster-state" not in container["args"]

    full = template(*IMAGE, "--set", "clusterState.enabled=true", "--set", "autoscaling.enabled=false",
                    "--set-string", "driverProfiles.mine\\.yaml=driver: gpu.example.com")
    role = find(full, "ClusterRole")
    assert [tuple(r["verbs"]) for r in role["rules"]] == [("get",), ("list", "watch")]
    assert sorted(role["rules"][1]["resources"]) == ["deviceclasses", "devicetaintrules", "resourceslices"]
    binding = find(full, "ClusterRoleBinding")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "dra-webhook", "namespace": "dra-webhook"}]
    deployment = find(full, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["spec"]["replicas"] == 2
    [container] = pod["containers"]
    assert "--cluster-state" in container["args"]
    assert "--driver-profiles=/etc/dra-webhook/driver-profiles" in container["args"]
    assert find(full, "ConfigMap")["data"] == {"mine.yaml": "driver: gpu.example.com"}
    [mount] = [m for m in container["volumeMounts"] if m["name"] == "driver-profiles"]
    assert mount["mountPath"] == "/etc/dra-webhook/driver-profiles"


def test_failure_policies_follow_what_each_webhook_can_deny():
    docs = installed(template(*IMAGE))
    policies = {hook["name"]: hook["failurePolicy"] for doc in docs if doc["kind"].endswith("WebhookConfiguration")
                for hook in doc["webhooks"]}
    assert policies == {"parameters.validate.dra-webhook.io": "Fail", "validate.dra-webhook.io": "Ignore",
                        "mutate.dra-webhook.io": "Ignore"}
    docs = installed(template(*IMAGE, "--set", "admission.validating.driverParametersFailurePolicy=Ignore"))
    assert {hook["failurePolicy"] for doc in docs if doc["kind"].endswith("WebhookConfiguration")
            for hook in doc["webhooks"]} == {"Ignore"}


def test_webhooks_are_registered_after_install_and_removed_before_anything_on_uninstall():
    docs = template(*IMAGE)
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        configurations = [d for d in docs if d["kind"] == kind]
        [registered] = [d for d in configurations if hook(d) == "post-install,post-upgrade"]
        [twin] = [d for d in configurations if hook(d) == "pre-delete"]
        assert registered["metadata"]["name"] == twin["metadata"]["name"]
        assert registered["metadata"]["annotations"]["helm.sh/hook-delete-policy"] == "before-hook-creation"
        assert twin["metadata"]["annotations"]["helm.sh/hook-delete-policy"] == "before-hook-creation,hook-succeeded"
        assert twin["webhooks"] == []
    # Nothing else is a hook: the rest is the release's own manifest, deleted after the pre-delete hooks.
    assert {d["kind"] for d in docs if hook(d)} == {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}


def test_helm_made_certificate_names_the_service_and_is_the_ca_bundle():
    docs = template(*IMAGE, "--set", "certificates.mode=helm", release="acme", namespace="gpu-system")
    secret = find(docs, "Secret", "acme-dra-webhook-tls")
    assert secret["type"] == "kubernetes.io/tls"
    ca = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["ca.crt"]))
    cert = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["tls.crt"]))
    names = cert.extensions.get_extension_for_oid(ExtensionOID.SUBJECT_ALTERNATIVE_NAME).value
    assert set(names.get_values_for_type(x509.DNSName)) == {
        "acme-dra-webhook.gpu-system.svc", "acme-dra-webhook.gpu-system.svc.cluster.local"}
    cert.verify_directly_issued_by(ca)
    for configuration in installed(docs):
        if configuration["kind"].endswith("WebhookConfiguration"):
            for registered in configuration["webhooks"]:
                assert registered["clientConfig"]["caBundle"] == secret["data"]["ca.crt"]


def test_url_registration_for_a_webhook_outside_the_cluster():
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----").decode()
    docs = template(*IMAGE, "--set", "admission.url=https://127.0.0.1:8443", "--set", "certificates.mode=secret",
                    "--set", f"certificates.secret.caBundle={ca}")
    for configuration in installed(docs):
        if configuration["kind"].endswith("WebhookConfiguration"):
            path = "/validate" if configuration["kind"].startswith("Validating") else "/mutate"
            for registered in configuration["webhooks"]:
                assert registered["clientConfig"] == {"url": f"https://127.0.0.1:8443{path}", "caBundle": ca}
            assert "cert-manager.io/inject-ca-from" not in configuration["metadata"].get("annotations", {})


def comparable(doc: dict) -> dict:
    """An object with what Helm adds taken away: its labels, its hook annotations."""
    def strip(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key in ("labels", "matchLabels", "selector") and isinstance(value, dict) and all(
                        isinstance(v, str) for v in value.values()):  # a Service's selector is a plain map
                    value = {k: v for k, v in value.items() if k not in HELM_LABELS}
                elif key == "annotations" and isinstance(value, dict):
                    value = {k: v for k, v in value.items() if k not in HOOK_ANNOTATIONS}
                    if not value:
                        continue
                out[key] = strip(value)
            return out
        if isinstance(node, list):
            return [strip(item) for item in node]
        return node
    return strip(doc)


@pytest.mark.skipif(not KUBECTL, reason="kubectl not found: the overlays are rendered with `kubectl kustomize`")
def test_chart_and_kustomize_overlay_render_the_same_objects(tmp_path):
    rendered = render_operator_overlay(tmp_path, "cert-manager")  # namespace gpu-system, an image of its own
    [container] = find(rendered, "Deployment")["spec"]["template"]["spec"]["containers"]
    repository, _, tag = container["image"].rpartition(":")
    # The kustomize base grants the cluster-state reads whether or not --cluster-state is passed (an overlay
    # adds the flag); the chart grants them with clusterState.enabled, which also passes the flag.
    chart = installed(template("--set", f"image.repository={repository}", "--set", f"image.tag={tag}",
                               "--set", "createNamespace=true", "--set", "certificates.mode=cert-manager",
                               "--set", "clusterState.enabled=true", namespace="gpu-system"))
    [container] = find(chart, "Deployment")["spec"]["template"]["spec"]["containers"]
    container["args"].remove("--cluster-state")
    key = lambda doc: (doc["kind"], doc["metadata"]["name"])  # noqa: E731
    kustomize_objects = {key(doc): comparable(doc) for doc in rendered}
    chart_objects = {key(doc): comparable(doc) for doc in chart}
    assert sorted(chart_objects) == sorted(kustomize_objects)
    for name, doc in kustomize_objects.items():
        assert chart_objects[name] == doc, name
