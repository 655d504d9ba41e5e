"""End to end under the real kube-apiserver 1.36 (tests/realserver.py): `dra-webhook serve` registered by
deploy/base's configurations (clientConfig url + caBundle), everything through real API calls.

A webhook with the API server's own profile never denies what the API server's built-in validation accepts
(that is the product's promise; validating webhooks run only after built-in validation passed). So the
denial test runs a second webhook with a stricter profile, the rules of Kubernetes 1.34, as an operator
whose fleet still has 1.34 clusters would: 1.34 compiles new CEL selectors without cel-go's lists
extension, which 1.36 has, so a selector using `distinct()` passes the API server and is refused by us.

Likewise the API server defaults every object when it decodes it, before any mutating webhook, so our
defaults find nothing left to do, but one: a DeviceTaintRule update that changes the taint's effect
and keeps its timeAdded moves timeAdded to now (the registry strategy does it only after admission;
the webhook does it first, as the strategy would, and the strategy then keeps it). The audit log shows
the API server applying our patch.
"""

from __future__ import annotations

import copy
import os
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

import realserver
from realserver import GROUP, renamed, serve_registered, warnings
from support import cli, review_body, valid_slice, validation_causes
from webhook import admit
from webhook.profile import make_profile
from webhook.review import decode_review

pytestmark = pytest.mark.upstream

NAMESPACE = "e2e"
ADMIN_NAMESPACE = "e2e-admin"
RULES_LABEL = "e2e.dra-webhook.io/rules"
POLICY_LABEL = "e2e.dra-webhook.io/policy"
EQUIVALENT_LABEL = "e2e.dra-webhook.io/equivalent"


def device_class(name: str, expression: str = 'device.driver == "gpu.example.com"', labels: dict | None = None,
                 version: str = "v1") -> dict:
    return {"apiVersion": f"{GROUP}/{version}", "kind": "DeviceClass",
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def claim(name: str, namespace: str = NAMESPACE, admin: bool = False, version: str = "v1") -> dict:
    if version == "v1beta1":
        request = {"name": "gpu", "deviceClassName": "gpu.example.com"}
    else:
        request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
    if admin:
        request["exactly"]["adminAccess"] = True
    return {"apiVersion": f"{GROUP}/{version}", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"devices": {"requests": [request]}}}


def selected(configurations: list[dict], label: str, value: str, *, validating_only: bool = False) -> list[dict]:
    """Configurations that only see objects labelled `label: value`."""
    out = []
    for config in configurations:
        if validating_only and config["kind"] != "ValidatingWebhookConfiguration":
            continue
        for hook in config["webhooks"]:
            hook["objectSelector"] = {"matchLabels": {label: value}}
        out.append(config)
    return out


@pytest.fixture(scope="module")
def cluster(webhook_in_cluster):
    plane = webhook_in_cluster.plane
    plane.ensure_namespace(NAMESPACE)
    plane.ensure_namespace(ADMIN_NAMESPACE, {"resource.kubernetes.io/admin-access": "true"})
    return webhook_in_cluster


@pytest.fixture(scope="module")
def strict_webhook(cluster, tmp_path_factory):
    """A second webhook with Kubernetes 1.34's rules, seeing only objects labelled `rules: "1.34"`."""
    plane = cluster.plane
    hook = serve_registered(
        plane, tmp_path_factory.mktemp("strict"),
        profile_args=("--kubernetes-version=1.34", f"--runtime-config={plane.runtime_config}"),
        configure=lambda c: selected(renamed(c, "strict"), RULES_LABEL, "1.34", validating_only=True),
        canary_labels={RULES_LABEL: "1.34"})
    yield hook
    hook.stop()


# --- an object our checks deny is refused with our causes ------------------------------------------------

def test_denial_carries_our_causes(cluster, strict_webhook):
    plane = cluster.plane
    expression = 'device.driver == "gpu.example.com" && ["a", "b", "a"].distinct().size() == 2'
    accepted = plane.create(device_class("lists-accepted", expression), dry_run=True)
    assert accepted.status_code == 201, accepted.text  # the API server and the 1.36 webhook accept it

    obj = device_class("lists-denied", expression, labels={RULES_LABEL: "1.34"})
    reply = plane.create(obj, dry_run=True)
    assert reply.status_code == 422, reply.text
    status = reply.json()
    expected_causes, _ = validation_causes(review_body(obj), make_profile("1.34"))
    assert expected_causes == Counter({("spec.selectors[0].cel.expression", "FieldValueInvalid"): 1})
    assert status["reason"] == "Invalid"
    assert Counter((c["field"], c["reason"]) for c in status["details"]["causes"]) == expected_causes
    ours = admit.validate(decode_review(review_body(obj)), profile=make_profile("1.34")).status
    assert status["message"] == f'admission webhook "strict.parameters.validate.dra-webhook.io" denied the request: {ours["message"]}'
    assert "undeclared reference to 'distinct'" in status["message"]
    assert plane.get("DeviceClass", "lists-denied").status_code == 404


# --- our mutation, applied by the API server -------------------------------------------------------------

def test_mutation_applied_and_stored(cluster):
    plane = cluster.plane
    rule = {"apiVersion": f"{GROUP}/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "e2e-effect-moves"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                     "taint": {"key": "example.com/maintenance", "value": "planned", "effect": "NoSchedule",
                               "timeAdded": "2020-01-01T00:00:00Z"}}}
    created = plane.create(rule)
    assert created.status_code == 201, created.text
    try:
        stored = created.json()
        assert stored["spec"]["taint"]["timeAdded"] == "2020-01-01T00:00:00Z"
        stored["spec"]["taint"]["effect"] = "NoExecute"  # timeAdded kept as it was: it must move
        updated = plane.update(stored)
        assert updated.status_code == 200, updated.text
        moved = updated.json()["spec"]["taint"]["timeAdded"]
        assert moved != "2020-01-01T00:00:00Z"
        reread = plane.get("DeviceTaintRule", "e2e-effect-moves", version="v1beta2").json()
        assert reread["spec"]["taint"]["timeAdded"] == moved

        # The audit event of that update: our mutating webhook mutated it, with the patch that holds the stored time.
        def our_patch():
            for event in plane.audit_events():
                ref = event.get("objectRef") or {}
                if event.get("verb") == "update" and ref.get("name") == "e2e-effect-moves" \
                        and event.get("stage") == "ResponseComplete":
                    return event.get("annotations") or {}
            return None

        annotations = plane.wait_for(our_patch, "the update's audit event")
        mutations = {k: yaml.safe_load(v) for k, v in annotations.items()
                     if k.startswith("mutation.webhook.admission.k8s.io/")}
        ours = [k for k, v in mutations.items() if v.get("webhook") == "mutate.dra-webhook.io"]
        assert ours and all(mutations[k]["mutated"] for k in ours), annotations
        patch = yaml.safe_load(annotations["patch.webhook.admission.k8s.io/" + ours[0].split("/", 1)[1]])
        assert patch["webhook"] == "mutate.dra-webhook.io" and patch["patchType"] == "JSONPatch"
        assert patch["patch"] == [{"op": "replace", "path": "/spec/taint/timeAdded", "value": moved}]
    finally:
        plane.delete("DeviceTaintRule", "e2e-effect-moves")


# --- dry-run requests reach us with dryRun: true ---------------------------------------------------------

def test_dry_run_reaches_us_as_dry_run(cluster):
    plane = cluster.plane
    reply = plane.create(claim("e2e-dry-run"), dry_run=True)
    assert reply.status_code == 201, reply.text
    assert plane.get("ResourceClaim", "e2e-dry-run", namespace=NAMESPACE).status_code == 404  # nothing stored
    reviews = cluster.wait_for_reviews("e2e-dry-run", count=2)
    assert {(r["path"], r["dryRun"], r["operation"]) for r in reviews} == {
        ("/validate", True, "CREATE"), ("/mutate", True, "CREATE")}

    real = plane.create(claim("e2e-not-dry-run"))
    assert real.status_code == 201, real.text
    try:
        reviews = cluster.wait_for_reviews("e2e-not-dry-run", count=2)
        assert {(r["path"], r["dryRun"]) for r in reviews} == {("/validate", False), ("/mutate", False)}
    finally:
        plane.delete("ResourceClaim", "e2e-not-dry-run", namespace=NAMESPACE)
    # And the metrics count them apart.
    metrics = cluster.server.client.get(cluster.server.url + "/metrics").text
    assert 'dry_run="true"' in metrics and 'dry_run="false"' in metrics


# --- failurePolicy, with the webhook stopped and with it slower than timeoutSeconds ----------------------

@pytest.fixture
def policy_webhook(cluster, tmp_path_factory):
    """A webhook behind two validating configurations, timeoutSeconds 1: objects labelled `policy: Fail`
    go to one with failurePolicy Fail, `policy: Ignore` to one with Ignore."""
    def configure(configurations):
        out = []
        for policy in ("Fail", "Ignore"):
            [config] = selected(renamed(configurations, policy.lower()), POLICY_LABEL, policy, validating_only=True)
            for hook in config["webhooks"]:
                hook["failurePolicy"], hook["timeoutSeconds"] = policy, 1
            out.append(config)
        return out

    hook = serve_registered(cluster.plane, tmp_path_factory.mktemp("policy"), configure=configure, wait=False)
    for policy in ("Fail", "Ignore"):  # both configurations are live before the webhook goes away
        hook.wait_registered({POLICY_LABEL: policy}, paths={"/validate"})
    yield hook
    hook.server.process.send_signal(signal.SIGCONT)
    hook.stop()


def _policy_outcomes(plane, stem: str) -> dict:
    return {policy: plane.create(device_class(f"{stem}-{policy.lower()}", labels={POLICY_LABEL: policy}),
                                 dry_run=True) for policy in ("Fail", "Ignore")}


def test_failure_policy_with_the_webhook_stopped(cluster, policy_webhook):
    policy_webhook.server.stop()
    outcomes = _policy_outcomes(cluster.plane, "stopped")
    assert outcomes["Ignore"].status_code == 201, outcomes["Ignore"].text
    failed = outcomes["Fail"]
    assert failed.status_code == 500, failed.text
    message = failed.json()["message"]
    assert 'failed calling webhook "fail.parameters.validate.dra-webhook.io"' in message
    assert "connection refused" in message, message


def test_failure_policy_with_the_webhook_slower_than_its_timeout(cluster, policy_webhook):
    # Frozen (SIGSTOP): the kernel still accepts the connection, nothing ever answers, so every call takes
    # longer than any timeoutSeconds, whatever the machine's speed. Nothing a client sends can do this.
    policy_webhook.server.process.send_signal(signal.SIGSTOP)
    try:
        outcomes = _policy_outcomes(cluster.plane, "frozen")
    finally:
        policy_webhook.server.process.send_signal(signal.SIGCONT)
    assert outcomes["Ignore"].status_code == 201, outcomes["Ignore"].text
    failed = outcomes["Fail"]
    assert failed.status_code == 500, failed.text
    message = failed.json()["message"]
    assert 'failed calling webhook "fail.parameters.validate.dra-webhook.io"' in message
    assert "context deadline exceeded" in message or "Timeout" in message, message


# --- matchPolicy: Equivalent -----------------------------------------------------------------------------

def test_beta_versions_arrive_converted_under_match_policy_equivalent(cluster):
    """Configurations listing only v1 (deploy/base's, narrowed) still get v1beta1 and v1beta2 requests,
    converted to v1; deploy/base's own list v1beta1 and v1beta2, so they get those as sent."""
    plane = cluster.plane
    server = cluster.server

    def only_v1(configurations):
        configurations = selected(renamed(configurations, "v1only"), EQUIVALENT_LABEL, "yes")
        for config in configurations:
            for hook in config["webhooks"]:
                assert hook["matchPolicy"] == "Equivalent"
                hook["rules"] = [dict(rule, apiVersions=["v1"]) for rule in hook["rules"] if "v1" in rule["apiVersions"]]
        return configurations

    configurations = only_v1(realserver.webhook_configurations(server.url, server.ca_file.read_bytes()))
    plane.register(configurations)
    try:
        probe = realserver.InCluster(plane, server, configurations)
        probe.wait_registered({EQUIVALENT_LABEL: "yes"})  # a v1 canary through the v1-only configurations
        objects = {
            "v1beta1": device_class("e2e-from-v1beta1", labels={EQUIVALENT_LABEL: "yes"}, version="v1beta1"),
            "v1beta2": device_class("e2e-from-v1beta2", labels={EQUIVALENT_LABEL: "yes"}, version="v1beta2"),
        }
        for version, obj in objects.items():
            reply = plane.create(obj, dry_run=True)
            assert reply.status_code == 201, reply.text
            name = obj["metadata"]["name"]
            reviews = cluster.wait_for_reviews(name, count=4)
            assert {(r["path"], r["version"]) for r in reviews} == {
                ("/validate", version), ("/mutate", version),  # deploy/base's configurations: as sent
                ("/validate", "v1"), ("/mutate", "v1"),  # the v1-only ones: converted
            }, reviews
    finally:
        plane.unregister(configurations)


# --- each webhook warning reaches the client as a Warning header -----------------------------------------

def test_admin_access_warning_reaches_the_client(cluster):
    obj = claim("e2e-admin-claim", namespace=ADMIN_NAMESPACE, admin=True)
    reply = cluster.plane.create(obj, dry_run=True)
    assert reply.status_code == 201, reply.text
    sent = reply.json()  # the object as the API server defaulted it: what the webhook was sent
    _, ours = validation_causes(review_body(sent), make_profile("1.36", "DRADeviceTaintRules=true"))
    assert ours and any("dra-webhook cannot see namespace labels" in w for w in ours)
    assert set(ours) <= set(warnings(reply)), (ours, warnings(reply))


def test_gate_mismatch_warning_reaches_the_client(cluster, strict_webhook):
    """The 1.34 webhook's gates (DRAConsumableCapacity off) are not the cluster's: it says so, per field."""
    obj = valid_slice(name="e2e-consumable")
    obj["metadata"]["labels"] = {RULES_LABEL: "1.34"}
    obj["spec"]["devices"][0]["allowMultipleAllocations"] = True
    reply = cluster.plane.create(obj, dry_run=True)
    assert reply.status_code == 201, reply.text
    _, ours = validation_causes(review_body(reply.json()), make_profile("1.34"))
    assert any("feature gate DRAConsumableCapacity is disabled" in w for w in ours), ours
    assert set(ours) <= set(warnings(reply)), (ours, warnings(reply))


# --- the rendered deploy/ accepted by a server-side dry-run apply ----------------------------------------

CERT_MANAGER_KINDS = (("Certificate", "certificates"), ("Issuer", "issuers"))


def _cert_manager_crds(plane) -> None:
    """cert-manager's Certificate and Issuer (cert-manager.io/v1) with an open schema: the apply is about
    Kubernetes' own kinds; tests/test_deploy.py holds cert-manager's against its schema."""
    for kind, plural in CERT_MANAGER_KINDS:
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": f"{plural}.cert-manager.io"},
               "spec": {"group": "cert-manager.io", "scope": "Namespaced",
                        "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
                        "versions": [{"name": "v1", "served": True, "storage": True,
                                      "schema": {"openAPIV3Schema": {"type": "object",
                                                                     "x-kubernetes-preserve-unknown-fields": True}}}]}}
        reply = plane.client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
        assert reply.status_code in (201, 409), reply.text

    def established():
        for _, plural in CERT_MANAGER_KINDS:
            got = plane.client.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{plural}.cert-manager.io")
            status = got.json().get("status") or {}  # conditions are null until the controller has looked
            conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
            if conditions.get("Established") != "True":
                return False
        return plane.client.get("/apis/cert-manager.io/v1").status_code == 200

    plane.wait_for(established, "cert-manager CRDs established")


@pytest.fixture(scope="module")
def bare_apiserver(tmp_path_factory):
    """An API server of its own: the session's has configurations named like deploy/'s registered by url,
    and an apply would merge the Service reference into them (both url and service: refused)."""
    plane = realserver.ControlPlane.start(tmp_path_factory.mktemp("bare-apiserver"))
    yield plane
    plane.stop()


@pytest.mark.parametrize("overlay", ["self-signed", "cert-manager"])
def test_rendered_deploy_accepted_by_server_side_dry_run_apply(bare_apiserver, overlay, tmp_path):
    plane = bare_apiserver
    kubectl = plane.bins.kubectl
    if kubectl is None:
        realserver.skip_or_fail("kubectl (built with kube-apiserver by tests/upstream/build.sh) is not built")
    deploy = tmp_path / "deploy"
    import shutil
    shutil.copytree(realserver.DEPLOY, deploy)
    if overlay == "self-signed":
        made = cli("certs", "--out", str(tmp_path / "certs"), "--kustomize", str(deploy / "overlays" / overlay))
        assert made.returncode == 0, made.stderr
    else:
        _cert_manager_crds(plane)
    rendered = subprocess.run([str(kubectl), "kustomize", str(deploy / "overlays" / overlay)],
                              capture_output=True, text=True, timeout=120)
    assert rendered.returncode == 0, rendered.stderr
    documents = [d for d in yaml.safe_load_all(rendered.stdout) if d]
    [namespace] = [d["metadata"]["name"] for d in documents if d["kind"] == "Namespace"]
    plane.ensure_namespace(namespace)  # a dry run creates nothing: the namespaced objects need it to exist
    env = {**os.environ, "KUBECONFIG": str(plane.kubeconfig)}
    applied = subprocess.run([str(kubectl), "apply", "--server-side", "--dry-run=server", "--field-manager=e2e",
                              "-f", "-"], input=rendered.stdout, capture_output=True, text=True, timeout=120, env=env)
    assert applied.returncode == 0, applied.stderr + applied.stdout
    lines = [line for line in applied.stdout.splitlines() if line.strip()]
    assert len(lines) == len(documents), applied.stdout
    assert all(line.endswith("serverside-applied (server dry run)") for line in lines), applied.stdout
