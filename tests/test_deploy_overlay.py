"""deploy/ seen from an operator's overlay: every reference follows the namespace, name prefix and
image the overlay sets; the webhooks spare their own namespace and kube-system; the install order in
deploy/README.md registers the webhooks only after the pods are ready; its commands work as printed."""

from __future__ import annotations

import base64
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from cryptography import x509

from support import cli
from test_deploy import (CLUSTER_SCOPED, DEPLOY, K8S_VERSIONS, KUBECTL, find, kubectl_kustomize, needs_kubectl,
                         validate_cert_manager)

pytestmark = needs_kubectl

ROOT = DEPLOY.parent
NAMESPACE = "gpu-system"
IMAGE = ("registry.example.com/platform/dra-webhook", "1.2.3")
REGISTRATION = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
PLACEHOLDER = "set-images-in-your-overlay"


def operator_overlay(root: Path, overlay: str, name_prefix: str | None = None) -> Path:
    """An operator's overlay in root/ops on top of root/deploy/overlays/<overlay>: namespace and image set."""
    directory = root / "ops"
    directory.mkdir()
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        # kustomize takes only relative paths to other kustomizations.
        "resources": [os.path.relpath(root / "deploy" / "overlays" / overlay, directory)],
        "namespace": NAMESPACE,
        "images": [{"name": "dra-webhook", "newName": IMAGE[0], "newTag": IMAGE[1]}],
    }
    if name_prefix:
        kustomization["namePrefix"] = name_prefix
    (directory / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    return directory


def render_operator_overlay(tmp_path: Path, overlay: str, name_prefix: str | None = None) -> list[dict]:
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    if overlay == "self-signed":
        # As deploy/README.md says: the certificate names the Service in the operator's namespace.
        service = f"{name_prefix or ''}dra-webhook"
        result = cli("certs", "--out", str(tmp_path / "certs"), "--namespace", NAMESPACE, "--service", service,
                     "--kustomize", str(tmp_path / "deploy" / "overlays" / "self-signed"))
        assert result.returncode == 0, result.stderr
    return kubectl_kustomize(operator_overlay(tmp_path, overlay, name_prefix))


def strings(node, path=""):
    """Every (path, string) in a document, keys excluded."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from strings(value, f"{path}[{index}]")
    elif isinstance(node, str):
        yield path, node


def namespaces(node, path=""):
    """Every (path, value) of a field named `namespace`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "namespace" and isinstance(value, str):
                yield f"{path}.{key}", value
            else:
                yield from namespaces(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from namespaces(value, f"{path}[{index}]")


def pod_template(docs) -> dict:
    return find(docs, "Deployment")["spec"]["template"]


@pytest.mark.parametrize("overlay", ["cert-manager", "self-signed"])
@pytest.mark.parametrize("name_prefix", [None, "acme-"])
def test_operator_overlay_moves_every_reference_to_its_namespace_and_image(tmp_path, overlay, name_prefix):
    docs = render_operator_overlay(tmp_path, overlay, name_prefix)
    [namespace] = [d for d in docs if d["kind"] == "Namespace"]
    assert namespace["metadata"]["name"] == NAMESPACE
    for doc in docs:
        where = f"{doc['kind']}/{doc['metadata']['name']}"
        assert ("namespace" in doc["metadata"]) == (doc["kind"] not in CLUSTER_SCOPED), where
        # metadata.namespace, clientConfig.service.namespace, and any other namespace field.
        assert {value for _, value in namespaces(doc)} <= {NAMESPACE}, where
        for path, value in strings(doc):
            assert "$(" not in value, f"{where}{path}: unresolved var {value!r}"
            assert PLACEHOLDER not in value, f"{where}{path}"

    service = find(docs, "Service")
    service_name = service["metadata"]["name"]
    assert service_name == f"{name_prefix or ''}dra-webhook"
    dns_names = {f"{service_name}.{NAMESPACE}.svc", f"{service_name}.{NAMESPACE}.svc.cluster.local"}
    template = pod_template(docs)
    assert service["spec"]["selector"].items() <= template["metadata"]["labels"].items()
    [container] = template["spec"]["containers"]
    assert container["image"] == f"{IMAGE[0]}:{IMAGE[1]}"
    assert template["spec"]["serviceAccountName"] == find(docs, "ServiceAccount")["metadata"]["name"]
    account = find(docs, "ServiceAccount")["metadata"]
    [subject] = find(docs, "ClusterRoleBinding")["subjects"]
    assert (subject["name"], subject["namespace"]) == (account["name"], account["namespace"])
    [volume] = template["spec"]["volumes"]
    serving_secret = volume["secret"]["secretName"]

    deployment = find(docs, "Deployment")["metadata"]["name"]
    hpa = find(docs, "HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]
    assert (hpa["kind"], hpa["name"]) == ("Deployment", deployment)
    assert find(docs, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"].items() <= \
        template["metadata"]["labels"].items()

    for kind in REGISTRATION:
        configuration = find(docs, kind)
        assert configuration["webhooks"]
        for webhook in configuration["webhooks"]:
            assert {k: webhook["clientConfig"]["service"][k] for k in ("name", "namespace")} == {
                "name": service_name, "namespace": NAMESPACE}
            assert webhook["namespaceSelector"] == {"matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": [NAMESPACE, "kube-system"]}]}
        if overlay == "cert-manager":
            certificate = configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"]
            cert_namespace, _, cert_name = certificate.partition("/")
            assert cert_namespace == NAMESPACE
            serving = find(docs, "Certificate", cert_name)
            assert serving["metadata"]["namespace"] == NAMESPACE
        else:
            secret = find(docs, "Secret", serving_secret)
            assert base64.b64decode(webhook["clientConfig"]["caBundle"]) == (tmp_path / "certs" / "ca.crt").read_bytes()

    if overlay == "cert-manager":
        assert set(serving["spec"]["dnsNames"]) == dns_names
        assert serving["spec"]["secretName"] == serving_secret
        issuers = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Issuer"}
        for cert in (d for d in docs if d["kind"] == "Certificate"):
            assert cert["spec"]["issuerRef"]["kind"] == "Issuer"
            assert cert["spec"]["issuerRef"]["name"] in issuers  # Issuers are namespaced: same namespace
    else:
        # The API server dials <service>.<namespace>.svc: the served certificate must name it.
        served = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["tls.crt"]))
        sans = set(served.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
            x509.DNSName))
        assert dns_names <= sans


def test_operator_overlay_matches_the_strict_schemas(tmp_path):
    for doc in render_operator_overlay(tmp_path, "cert-manager", "acme-"):
        if doc["apiVersion"].startswith("cert-manager.io/"):
            validate_cert_manager(doc)
            continue
        for version in K8S_VERSIONS:
            assert kubernetes_validate.validate(doc, version, strict=True) == version.rpartition(".")[0]


def test_without_an_image_in_the_overlay_the_pods_name_what_is_missing():
    # kustomize cannot refuse to render when `images:` is missing; the image then is one no registry
    # serves, whose tag says what to do, and the install order keeps the webhooks unregistered.
    for overlay in (DEPLOY / "base", DEPLOY / "overlays" / "cert-manager"):
        [container] = pod_template(kubectl_kustomize(overlay))["spec"]["containers"]
        assert container["image"] == f"dra-webhook:{PLACEHOLDER}"
    readme = (DEPLOY / "README.md").read_text()
    assert PLACEHOLDER in readme


def test_webhooks_are_bounded_and_their_pods_critical():
    docs = kubectl_kustomize(DEPLOY / "example")
    readme = (DEPLOY / "README.md").read_text()
    for kind in REGISTRATION:
        for webhook in find(docs, kind)["webhooks"]:
            assert 1 <= webhook["timeoutSeconds"] <= 30  # the API server's range
            assert f"timeoutSeconds: {webhook['timeoutSeconds']}" in readme and "1 to 30 seconds" in readme
    pod = pod_template(docs)["spec"]
    assert pod["priorityClassName"] == "system-cluster-critical"
    # Where quota admission limits that class, a quota scoped to it must admit every replica.
    quota = find(docs, "ResourceQuota")
    assert quota["metadata"]["namespace"] == find(docs, "Deployment")["metadata"]["namespace"]
    [scope] = quota["spec"]["scopeSelector"]["matchExpressions"]
    assert (scope["scopeName"], scope["operator"]) == ("PriorityClass", "In")
    assert pod["priorityClassName"] in scope["values"]
    hpa = find(docs, "HorizontalPodAutoscaler")["spec"]
    surge = find(docs, "Deployment")["spec"]["strategy"]["rollingUpdate"]["maxSurge"]
    assert int(quota["spec"]["hard"]["pods"]) >= hpa["maxReplicas"] + surge


# deploy/README.md as an operator follows it.

def readme_commands() -> list[str]:
    text = (DEPLOY / "README.md").read_text()
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def selected(doc: dict, selector: str) -> bool:
    """kubectl's `-l` for the equality forms the README uses (`k=v`, `k!=v`, comma = and)."""
    labels = doc["metadata"].get("labels", {})
    for requirement in selector.split(","):
        key, operator, value = re.fullmatch(r"([\w./-]+)\s*(!=|==|=)\s*([\w.-]*)", requirement.strip()).groups()
        if (labels.get(key) == value) != (operator != "!="):
            return False
    return True


def kubectl_argv(command: str) -> list[str]:
    argv = shlex.split(command)
    assert argv[0] == "kubectl"
    return argv


def option(argv: list[str], *names: str) -> str | None:
    for index, word in enumerate(argv):
        if word in names:
            return argv[index + 1]
    return None


def test_readme_render_commands_work_as_printed_from_the_repository_root(tmp_path):
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    ran = []
    for command in readme_commands():
        argv = shlex.split(command)
        if argv[:2] == ["kubectl", "kustomize"] or argv[:2] == ["dra-webhook", "certs"]:
            if argv[0] == "dra-webhook":
                result = cli(*argv[1:], cwd=str(tmp_path))
            else:
                result = subprocess.run([KUBECTL, *argv[1:]], cwd=tmp_path, capture_output=True, text=True,
                                        timeout=60)
            assert result.returncode == 0, f"{command}\n{result.stderr}"
            ran.append(argv[:2])
    assert ["kubectl", "kustomize"] in ran and ["dra-webhook", "certs"] in ran


def test_readme_installs_the_webhooks_only_after_the_pods_are_ready():
    commands = [kubectl_argv(c) for c in readme_commands() if c.startswith("kubectl ")]
    applies = [i for i, argv in enumerate(commands) if argv[1] == "apply"]
    first, second = applies[0], applies[1]
    target = option(commands[first], "-k")
    assert target and option(commands[second], "-k") == target
    docs = kubectl_kustomize(ROOT / target)
    step_one = [d for d in docs if selected(d, option(commands[first], "-l", "--selector"))]
    # Step 1: everything but the registrations; step 2 (no selector): the registrations too.
    assert {d["kind"] for d in docs} - {d["kind"] for d in step_one} == set(REGISTRATION)
    assert option(commands[second], "-l", "--selector") is None
    # Between them: wait for the Deployment of that render, in its namespace, with a bound.
    waits = [argv for argv in commands[first + 1:second] if "rollout" in argv and "status" in argv]
    deployment = find(docs, "Deployment")
    assert [(option(argv, "-n", "--namespace"), [w for w in argv if w.startswith("deployment/")],
             any(w.startswith("--timeout=") for w in argv)) for argv in waits] \
        == [(deployment["metadata"]["namespace"], [f"deployment/{deployment['metadata']['name']}"], True)]


def test_readme_uninstalls_the_registrations_first():
    commands = [kubectl_argv(c) for c in readme_commands() if c.startswith("kubectl delete")]
    assert len(commands) == 2
    first, last = commands
    docs = kubectl_kustomize(ROOT / option(first, "-k"))
    removed_first = {d["kind"] for d in docs if selected(d, option(first, "-l", "--selector"))}
    assert removed_first == set(REGISTRATION)
    assert option(last, "-k") == option(first, "-k") and option(last, "-l", "--selector") is None


def test_readme_preflight_checks_the_apis_the_overlays_need():
    commands = readme_commands()
    for group in ("resource.k8s.io", "cert-manager.io"):
        assert f"kubectl api-resources --api-group={group}" in commands
