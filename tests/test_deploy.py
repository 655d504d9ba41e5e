"""deploy/: the kustomize base and overlays render, match the strict schemas of every supported
Kubernetes version, and agree with the server (flags, paths, ports, Secret and webhook names)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import stat
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from support import cli, upstream_tool
from webhook import certs, kustomize
from webhook.cli import build_parser

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
KUBECTL = upstream_tool("kubectl")  # `make upstream` builds it (kustomize built in), else one on PATH
needs_kubectl = pytest.mark.needs_tool("kubectl")  # overlays are rendered only with `kubectl kustomize`
# Every Kubernetes version the rules support (webhook/behaviours.py), as kubernetes-validate names them.
K8S_VERSIONS = ("1.34.0", "1.35.0", "1.36.0", "1.37.0")
CLUSTER_SCOPED = {"Namespace", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ClusterRole",
                  "ClusterRoleBinding"}
# cert-manager's kinds are not among Kubernetes' schemas: a subset of its v1 API, closed to other fields.
CERT_MANAGER = json.loads((Path(__file__).resolve().parent / "schemas" / "cert-manager-v1-subset.json").read_text())
_scratch = tempfile.TemporaryDirectory(prefix="deploy-test-")  # removed when the test process ends


def kubectl_kustomize(directory: Path) -> list[dict]:
    result = subprocess.run([KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def base_by_hand() -> list[dict]:
    """The base rendered without kustomize: its resources, namespace and vars applied."""
    kustomization = yaml.safe_load((DEPLOY / "base" / "kustomization.yaml").read_text())
    docs = []
    for name in kustomization["resources"]:
        for doc in yaml.safe_load_all((DEPLOY / "base" / name).read_text()):
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = kustomization["namespace"]
            for subject in doc.get("subjects") or []:  # kustomize moves a ServiceAccount subject along
                if subject.get("kind") == "ServiceAccount":
                    subject["namespace"] = kustomization["namespace"]
            docs.append(doc)
    values = {}
    for var in kustomization["vars"]:
        objref = var["objref"]
        [source] = [d for d in docs if (d["kind"], d["metadata"]["name"]) == (objref["kind"], objref["name"])]
        section, field = var["fieldref"]["fieldpath"].split(".")
        values[var["name"]] = source[section][field]

    def resolve(node):
        if isinstance(node, dict):
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(value) for value in node]
        if isinstance(node, str):
            return re.sub(r"\$\((\w+)\)", lambda m: values.get(m[1], m[0]), node)
        return node

    return [resolve(doc) for doc in docs]


def self_signed_copy() -> Path:
    """A copy of deploy/ whose self-signed overlay has its generated files, as `certs --kustomize` writes them."""
    root = Path(_scratch.name) / "self-signed"
    if not root.exists():
        shutil.copytree(DEPLOY, root / "deploy")
        files = certs.generate(root / "certs")
        kustomize.write(root / "deploy" / "overlays" / "self-signed", files, certs.DEFAULT_NAMESPACE)
    return root


@cache
def rendered(overlay: str) -> tuple[dict, ...]:
    if overlay == "base":
        return tuple(kubectl_kustomize(DEPLOY / "base") if KUBECTL else base_by_hand())
    if overlay == "self-signed":
        return tuple(kubectl_kustomize(self_signed_copy() / "deploy" / "overlays" / "self-signed"))
    if overlay == "example":
        return tuple(kubectl_kustomize(DEPLOY / "example"))
    return tuple(kubectl_kustomize(DEPLOY / "overlays" / overlay))


def schema_cases():
    for overlay in ("base", "cert-manager", "self-signed", "example"):
        if overlay != "base" and not KUBECTL:
            yield pytest.param(overlay, None, id=f"{overlay}-not-rendered", marks=needs_kubectl)
            continue
        for doc in rendered(overlay):
            yield pytest.param(overlay, doc, id=f"{overlay}-{doc['kind']}-{doc['metadata']['name']}")


def go_duration_seconds(text: str) -> float:
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+)(ns|us|µs|ms|s|m|h)", text))


def validate_cert_manager(doc: dict) -> None:
    jsonschema.validate(doc, {**CERT_MANAGER, "$ref": f"#/definitions/{doc['kind']}"})
    spec = doc["spec"]
    if "duration" in spec:  # cert-manager's own checks: at least 1 h, renewal at least 5 min before the end
        assert go_duration_seconds(spec["duration"]) >= 3600
        assert 300 <= go_duration_seconds(spec.get("renewBefore", "5m")) < go_duration_seconds(spec["duration"])
    if spec.get("privateKey", {}).get("algorithm") == "ECDSA":
        assert spec["privateKey"].get("size", 256) in (256, 384, 521)


def find(docs, kind: str, name: str | None = None) -> dict:
    matches = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(matches) == 1, f"expected one {kind} {name or ''}, found {len(matches)}"
    return matches[0]


@pytest.mark.parametrize("overlay,doc", list(schema_cases()))
def test_manifest_matches_the_strict_schema_of_every_supported_kubernetes_version(overlay, doc):
    if doc["apiVersion"].startswith("cert-manager.io/"):
        validate_cert_manager(doc)
        return
    for version in K8S_VERSIONS:
        assert kubernetes_validate.validate(doc, version, strict=True) == version.rpartition(".")[0]


@needs_kubectl
def test_base_rendered_by_hand_equals_kustomize():
    # Keeps the fallback used on machines without kubectl honest.
    key = lambda d: (d["kind"], d["metadata"]["name"])  # noqa: E731
    assert sorted(base_by_hand(), key=key) == sorted(kubectl_kustomize(DEPLOY / "base"), key=key)


def test_deployment_is_hardened_and_highly_available():
    docs = rendered("base")
    deployment = find(docs, "Deployment", "dra-webhook")
    spec, pod = deployment["spec"], deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert "replicas" not in spec  # owned by the HorizontalPodAutoscaler
    hpa = find(docs, "HorizontalPodAutoscaler", "dra-webhook")["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "dra-webhook"}
    assert hpa["minReplicas"] >= 2 and hpa["maxReplicas"] > hpa["minReplicas"]
    [metric] = hpa["metrics"]
    assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    spread = {c["topologyKey"]: c for c in pod["topologySpreadConstraints"]}
    assert set(spread) == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}
    for constraint in spread.values():
        assert constraint["whenUnsatisfiable"] == "ScheduleAnyway"  # a one-node cluster still runs every replica
        assert constraint["labelSelector"]["matchLabels"].items() <= labels.items()
    pdb = find(docs, "PodDisruptionBudget", "dra-webhook")
    assert pdb["spec"]["minAvailable"] == 1 and pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    assert pod["automountServiceAccountToken"] is True  # it reads the cluster's profile (and state): rbac.yaml
    [container] = pod["containers"]
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"] and "add" not in security["capabilities"]
    assert security["seccompProfile"]["type"] == "RuntimeDefault"
    assert set(container["resources"]["requests"]) == {"cpu", "memory"}
    assert set(container["resources"]["limits"]) == {"cpu", "memory"}
    # No image anyone could serve: the operator's overlay sets it (deploy/README.md).
    assert container["image"] == "dra-webhook:set-images-in-your-overlay"
    args = build_parser().parse_args(container["args"])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["health"] == args.health_port  # probes reach the plain-HTTP health port
    for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        assert container[probe]["httpGet"] == {"path": path, "port": "health", "scheme": "HTTP"}


def test_container_args_are_serve_flags_pointing_at_the_mounted_secret():
    pod = find(rendered("base"), "Deployment")["spec"]["template"]["spec"]
    [container] = pod["containers"]
    args = build_parser().parse_args(container["args"])  # exits (fails the test) on an unknown flag
    assert args.command == "serve"
    [mount] = container["volumeMounts"]
    assert mount["readOnly"] is True
    assert Path(args.cert_file).parent == Path(args.key_file).parent == Path(mount["mountPath"])
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["secret"]["secretName"] == kustomize.SECRET_NAME
    assert [p["containerPort"] for p in container["ports"] if p["name"] == "https"] == [args.port]
    # SIGTERM comes after preStop; the pod is killed at terminationGracePeriodSeconds.
    stop_budget = container["lifecycle"]["preStop"]["sleep"]["seconds"] + args.shutdown_grace_seconds
    assert stop_budget < pod["terminationGracePeriodSeconds"]


def test_service_sends_443_to_the_container_port():
    docs = rendered("base")
    [port] = find(docs, "Service", "dra-webhook")["spec"]["ports"]
    [container] = find(docs, "Deployment")["spec"]["template"]["spec"]["containers"]
    target = {p["name"]: p["containerPort"] for p in container["ports"]}.get(port["targetPort"], port["targetPort"])
    assert (port["port"], target) == (443, 8443)


# What each webhook is sent and how it fails (deploy/README.md, failurePolicy): fail closed only where the
# webhook enforces what the API server does not check, the drivers' parameters of claims, claim templates and
# DeviceClasses; fail open where it only warns. No status subresource: the scheduler's and drivers' status
# writes are nothing for the webhook to judge.
V1 = ("v1", "v1beta2", "v1beta1")
WEBHOOKS = {
    "parameters.validate.dra-webhook.io": ("/validate", "Fail", {
        (v, r) for v in V1 for r in ("resourceclaims", "resourceclaimtemplates", "deviceclasses")}),
    "validate.dra-webhook.io": ("/validate", "Ignore", {(v, r) for v in V1 for r in ("resourceslices", "devicetaintrules")}
                                | {("v1alpha3", r) for r in ("devicetaintrules", "resourcepoolstatusrequests")}),
    "mutate.dra-webhook.io": ("/mutate", "Ignore", {
        (v, r) for v in V1 for r in ("resourceslices", "resourceclaims", "resourceclaimtemplates", "deviceclasses",
                                     "devicetaintrules")} | {("v1alpha3", r) for r in ("devicetaintrules",
                                                                                         "resourcepoolstatusrequests")}),
}


@pytest.mark.parametrize("kind", ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"])
def test_webhook_configuration(kind):
    docs = rendered("base")
    configuration = find(docs, kind, kustomize.CONFIGURATION_NAME)
    [(_, names)] = [(k, names) for k, names in kustomize.CA_BUNDLE_PATCHES.values() if k == kind]
    assert tuple(webhook["name"] for webhook in configuration["webhooks"]) == names
    service = find(docs, "Service")
    for webhook in configuration["webhooks"]:
        path, policy, resources = WEBHOOKS[webhook["name"]]
        assert webhook["clientConfig"]["service"] == {"name": service["metadata"]["name"],
                                                      "namespace": service["metadata"]["namespace"],
                                                      "path": path, "port": 443}
        assert (webhook["sideEffects"], webhook["matchPolicy"], webhook["timeoutSeconds"]) == ("None", "Equivalent", 5)
        assert webhook["admissionReviewVersions"] == ["v1"]
        covered = {(version, resource) for rule in webhook["rules"] for version in rule["apiVersions"]
                   for resource in rule["resources"]
                   if rule["apiGroups"] == ["resource.k8s.io"] and sorted(rule["operations"]) == ["CREATE", "UPDATE"]}
        assert covered == resources, webhook["name"]
        assert webhook["failurePolicy"] == policy, webhook["name"]


def test_rbac_reads_the_profile_and_watches_the_state_only():
    docs = rendered("base")
    role = find(docs, "ClusterRole", "dra-webhook")
    verbs = {verb for rule in role["rules"] for verb in rule["verbs"]}
    assert verbs == {"get", "list", "watch"}
    [urls] = [r for r in role["rules"] if "nonResourceURLs" in r]
    assert {"/version", "/metrics"} <= set(urls["nonResourceURLs"]) and urls["verbs"] == ["get"]
    [resources] = [r for r in role["rules"] if "resources" in r]
    assert resources["apiGroups"] == ["resource.k8s.io"]
    assert sorted(resources["resources"]) == ["deviceclasses", "devicetaintrules", "resourceslices"]
    binding = find(docs, "ClusterRoleBinding", "dra-webhook")
    account = find(docs, "ServiceAccount")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": account["metadata"]["name"],
                                    "namespace": account["metadata"]["namespace"]}]


def test_failure_policies_are_explained_in_the_readme():
    readme = (DEPLOY / "README.md").read_text()
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        for webhook in find(rendered("base"), kind)["webhooks"]:
            assert f"`{webhook['name']}`: `failurePolicy: {webhook['failurePolicy']}`" in readme


def test_certs_cli_writes_the_self_signed_overlay(tmp_path):
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    overlay = tmp_path / "deploy" / "overlays" / "self-signed"
    result = cli("certs", "--out", str(tmp_path / "certs"), "--kustomize", str(overlay))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((overlay / kustomize.SECRET_FILE).stat().st_mode) == 0o600
    ignored = set((DEPLOY / "overlays" / "self-signed" / ".gitignore").read_text().split())
    assert {kustomize.SECRET_FILE, *kustomize.CA_BUNDLE_PATCHES} <= ignored  # the key never lands in git


@needs_kubectl
def test_the_self_signed_overlay_written_by_certs_renders_with_the_ca_and_key(tmp_path):
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    overlay = tmp_path / "deploy" / "overlays" / "self-signed"
    assert cli("certs", "--out", str(tmp_path / "certs"), "--kustomize", str(overlay)).returncode == 0
    docs = kubectl_kustomize(overlay)
    ca_bundle = base64.b64encode((tmp_path / "certs" / "ca.crt").read_bytes()).decode()
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        base = find(rendered("base"), kind)["webhooks"]
        assert len(find(docs, kind)["webhooks"]) == len(base)
        for webhook, unpatched in zip(find(docs, kind)["webhooks"], base):
            assert webhook["clientConfig"]["caBundle"] == ca_bundle
            # The patch merged into each webhook; it did not replace it.
            assert webhook["rules"] == unpatched["rules"]
    secret = find(docs, "Secret", kustomize.SECRET_NAME)
    assert secret["metadata"]["namespace"] == find(docs, "Deployment")["metadata"]["namespace"]
    assert base64.b64decode(secret["data"]["tls.crt"]) == (tmp_path / "certs" / "tls.crt").read_bytes()
    assert base64.b64decode(secret["data"]["tls.key"]) == (tmp_path / "certs" / "tls.key").read_bytes()


@needs_kubectl
def test_cert_manager_overlay_wires_certificate_secret_and_ca_injection():
    docs = rendered("cert-manager")
    namespace = find(docs, "Deployment")["metadata"]["namespace"]
    serving = find(docs, "Certificate", "dra-webhook-serving")
    assert serving["spec"]["secretName"] == kustomize.SECRET_NAME
    service = find(docs, "Service")["metadata"]["name"]
    assert f"{service}.{namespace}.svc" in serving["spec"]["dnsNames"]
    issuers = {d["metadata"]["name"] for d in docs if d["kind"] == "Issuer"}
    assert {c["spec"]["issuerRef"]["name"] for c in docs if c["kind"] == "Certificate"} <= issuers
    ca = find(docs, "Certificate", "dra-webhook-ca")
    assert ca["spec"]["isCA"] is True and find(docs, "Issuer", serving["spec"]["issuerRef"]["name"])["spec"]["ca"] == {
        "secretName": ca["spec"]["secretName"]}
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        annotations = find(docs, kind)["metadata"]["annotations"]
        assert annotations["cert-manager.io/inject-ca-from"] == f"{namespace}/dra-webhook-serving"
