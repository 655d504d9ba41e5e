"""The chart against the real kube-apiserver 1.36 (tests/realserver.py) and the real helm: every render of the
values matrix accepted by a server-side dry-run apply, and install -> webhook answers -> upgrade -> uninstall
with a writer looping on DRA writes the whole time, none refused by a webhook that is not there.

There is no kubelet nor controller manager: the webhook "pod" is `dra-webhook serve` on loopback (the chart
registers it by `admission.url`), and a stand-in writes the Deployment's status once that server answers,
as the deployment controller would once the pod is ready; when helm deletes the Deployment, the stand-in
stops the server, as the kubelet would stop the pod."""

from __future__ import annotations

import base64
import itertools
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
import yaml

import realserver
import support
from test_helm import CHART, IMAGE, MATRIX, helm

pytestmark = [pytest.mark.upstream, pytest.mark.needs_tool("helm"), pytest.mark.needs_tool("kubectl")]

CERT_MANAGER_GROUP = "cert-manager.io/"
RENAMED = {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ClusterRole", "ClusterRoleBinding"}  # no cert-manager CRDs in the test cluster: its objects are schema-checked


def kubectl(plane, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    bins = realserver.binaries()
    assert bins.kubectl is not None, "kubectl is built with kube-apiserver by `make upstream`"
    return subprocess.run([str(bins.kubectl), "--kubeconfig", str(plane.kubeconfig), *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", params=["1.34", "1.35", "1.37"])
def other_release(request, tmp_path_factory):
    """The kube-apiserver of each other release `make upstream` builds (1.36 is the session's)."""
    if realserver.binaries(request.param) is None:
        realserver.skip_or_fail(f"kube-apiserver {request.param} is not built")
    plane = realserver.ControlPlane.start(tmp_path_factory.mktemp(f"apiserver-{request.param}"), request.param)
    yield plane
    plane.stop()


def dry_run_the_matrix(plane) -> tuple[int, int]:
    """Every render of the values matrix, server-side dry-run applied; (renders, objects)."""
    renders = objects = 0
    for cert, (release, namespace), optional in itertools.product(*MATRIX.values()):
        values = IMAGE + cert + optional
        out = helm("template", release, str(CHART), "--namespace", namespace, *values).stdout
        docs = [doc for doc in yaml.safe_load_all(out) if doc and not doc["apiVersion"].startswith(CERT_MANAGER_GROUP)]
        for doc in docs:  # cluster-wide names get a suffix: other tests' webhook configurations share the cluster
            if doc["kind"] in RENAMED:
                doc["metadata"]["name"] += f"-matrix-{renders}"
                if "roleRef" in doc:
                    doc["roleRef"]["name"] += f"-matrix-{renders}"
        plane.ensure_namespace(namespace)  # a dry-run Namespace is not stored: its objects need it to exist
        result = kubectl(plane, "apply", "--server-side", "--dry-run=server", "--field-manager=helm-test",
                         "--force-conflicts", "-f", "-", stdin=yaml.safe_dump_all(docs))
        assert result.returncode == 0, f"{plane.release} {values}: {result.stderr}"
        assert result.stdout.count("(server dry run)") == len(docs), result.stdout
        renders, objects = renders + 1, objects + len(docs)
    return renders, objects


def test_every_render_of_the_values_matrix_is_accepted_by_a_server_side_dry_run(kube_apiserver):
    renders, objects = dry_run_the_matrix(kube_apiserver)
    assert renders == 18 and objects > 18 * 8


def test_the_values_matrix_is_accepted_by_the_other_releases_api_servers(other_release):
    renders, objects = dry_run_the_matrix(other_release)
    assert renders == 18 and objects > 18 * 8


class Writer(threading.Thread):
    """Creates a DeviceClass (dry run) every 50 ms until stopped; keeps every refusal by a failed webhook call."""

    def __init__(self, plane) -> None:
        super().__init__(daemon=True)
        self.plane, self.stopped, self.writes, self.locked = plane, threading.Event(), 0, []

    def run(self) -> None:
        while not self.stopped.is_set():
            name = f"writer-{uuid.uuid4().hex[:10]}"
            reply = self.plane.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                       "metadata": {"name": name}, "spec": {}}, dry_run=True)
            self.writes += 1
            if reply.status_code != 201:
                self.locked.append((time.monotonic(), reply.status_code, reply.text[:300]))
            self.stopped.wait(0.05)


class StandIn(threading.Thread):
    """The deployment controller and kubelet of a cluster without nodes: marks the Deployment available once
    the webhook server answers, and stops the server once helm has deleted the Deployment."""

    def __init__(self, plane, namespace: str, name: str, server: support.RunningServer) -> None:
        super().__init__(daemon=True)
        self.plane, self.namespace, self.name, self.server = plane, namespace, name, server
        self.stopped = threading.Event()
        self.events: list[tuple[float, str]] = []
        self.error: BaseException | None = None
        self.registered_when_deleted: bool | None = None

    def note(self, what: str) -> None:
        self.events.append((time.monotonic(), what))

    def registered(self) -> bool:
        client = self.plane.client
        return all(client.get(f"/apis/admissionregistration.k8s.io/v1/{kind}/{self.name}").status_code == 200
                   for kind in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations"))

    def run(self) -> None:
        try:
            self._run()
        except BaseException as error:  # the test reports it: a stand-in that died proves nothing
            self.error = error
            raise

    def _run(self) -> None:
        client = self.plane.client
        path = f"/apis/apps/v1/namespaces/{self.namespace}/deployments/{self.name}"
        seen_deployment = was_registered = False
        ready_generation = 0
        while not self.stopped.is_set():
            registered = self.registered()
            if registered != was_registered:
                self.note("registered" if registered else "unregistered")
                was_registered = registered
            reply = client.get(path)
            if reply.status_code == 200:
                deployment = reply.json()
                if not seen_deployment:
                    seen_deployment = True
                    self.note("deployment created")
                generation = deployment["metadata"]["generation"]
                if generation != ready_generation and self.server.client.get(self.server.url + "/healthz").status_code == 200:
                    status = {"observedGeneration": generation, "replicas": 1, "updatedReplicas": 1,
                              "readyReplicas": 1, "availableReplicas": 1, "conditions": [
                                  {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                                  {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}
                    patched = client.patch(path + "/status", json={"status": status},
                                           headers={"Content-Type": "application/merge-patch+json"})
                    assert patched.status_code == 200, patched.text
                    ready_generation = generation
                    self.note(f"deployment ready (generation {generation})")
            elif reply.status_code == 404 and seen_deployment:
                self.note("deployment deleted")
                # What the pods' going away would meet: the configurations must be gone already.
                self.registered_when_deleted = self.registered()
                self.server.stop()  # the kubelet stops the pod
                self.note("webhook stopped")
                return
            self.stopped.wait(0.05)

    def first(self, what: str, after: float = 0.0) -> float:
        seen = [t for t, event in self.events if event.startswith(what) and t >= after]
        assert seen, f"{what!r} never seen: {self.events}"
        return seen[0]


def test_install_upgrade_uninstall_never_leave_dra_writes_to_a_missing_webhook(kube_apiserver, tmp_path):
    plane = kube_apiserver
    release, namespace = "chart-e2e", "chart-e2e"
    name = f"{release}-dra-webhook"
    cert_dir = tmp_path / "certs"
    assert support.cli("certs", "--out", str(cert_dir), "--hosts", "127.0.0.1").returncode == 0
    server = support.start_server(tmp_path, "--log-level", "debug", f"--kubernetes-version={plane.release}",
                                  f"--feature-gates={plane.feature_gates}", f"--runtime-config={plane.runtime_config}",
                                  cert_dir=cert_dir)
    values = [*IMAGE, "--set", f"admission.url={server.url}", "--set", "certificates.mode=secret",
              "--set", "certificates.secret.caBundle=" + base64.b64encode((cert_dir / "ca.crt").read_bytes()).decode(),
              "--set", "autoscaling.enabled=false", "--set", "replicas=1", "--set", "podDisruptionBudget.enabled=false"]
    common = ["--namespace", namespace, "--kubeconfig", str(plane.kubeconfig), "--wait", "--timeout", "180s"]
    writer, stand_in = Writer(plane), StandIn(plane, namespace, name, server)
    writer.start()
    stand_in.start()
    try:
        installed = helm("install", release, str(CHART), "--create-namespace", *values, *common)
        assert "STATUS: deployed" in installed.stdout, installed.stdout
        assert stand_in.error is None, stand_in.error
        assert stand_in.registered(), stand_in.events
        plane.wait_for(lambda: any(event == "registered" for _, event in stand_in.events),
                       "the stand-in seeing the configurations registered")  # it polls; helm has returned
        # Registered by the post-install hook only after helm saw the Deployment ready.
        assert stand_in.first("deployment ready") < stand_in.first("registered")

        # The webhook answers through the chart's registration.
        probe = f"probe-{uuid.uuid4().hex[:8]}"
        reply = plane.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                              "metadata": {"name": probe}, "spec": {}}, dry_run=True)
        assert reply.status_code == 201, reply.text
        in_cluster = realserver.InCluster(plane, server, [])
        assert {line["path"] for line in in_cluster.wait_for_reviews(probe, 2)} == {"/validate", "/mutate"}

        before_upgrade = time.monotonic()
        upgraded = helm("upgrade", release, str(CHART), *values, "--set", "podAnnotations.rolled=yes", *common)
        assert "STATUS: deployed" in upgraded.stdout, upgraded.stdout
        plane.wait_for(lambda: any(event == "registered" and t >= before_upgrade for t, event in stand_in.events),
                       "the stand-in seeing the configurations registered again")  # it polls; helm has returned
        assert stand_in.first("deployment ready", before_upgrade) < stand_in.first("registered", before_upgrade)

        before_uninstall = time.monotonic()
        helm("uninstall", release, *common)
        stand_in.join(timeout=60)
        # Both configurations were gone before the Deployment (and with it the webhook) was.
        assert stand_in.first("unregistered", before_uninstall) < stand_in.first("deployment deleted", before_uninstall)
        assert stand_in.registered_when_deleted is False
        assert not stand_in.registered()
        time.sleep(1)  # writes after the webhook stopped: still nothing refused
    finally:
        writer.stopped.set()
        stand_in.stopped.set()
        writer.join(timeout=10)
        server.stop()
    assert writer.writes > 20
    assert writer.locked == [], writer.locked[:3]

    # The writer does see a webhook that is registered and gone: the same configuration, left behind.
    leftover = realserver.webhook_configurations(server.url, (cert_dir / "ca.crt").read_bytes())
    leftover = realserver.renamed(leftover, "leftover")
    plane.register(leftover)
    try:
        refused = plane.wait_for(lambda: (lambda r: r if r.status_code != 201 else None)(plane.create(
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": f"after-{uuid.uuid4().hex[:8]}"}, "spec": {}}, dry_run=True)),
            "a refusal by the left-behind registration")
        assert "failed calling webhook" in refused.text
    finally:
        plane.unregister(leftover)
