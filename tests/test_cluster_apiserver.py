"""Issue 33's must-show items end to end against the real kube-apiserver (tests/realserver.py): `dra-webhook serve`
registered by url + caBundle, reading the cluster as deployed: a ServiceAccount's token bound to deploy/base's
ClusterRole (rbac.yaml, nothing more), in a kubeconfig. Every object is sent through real API calls and every
warning read from the API server's Warning headers.

- a 1.34 API server with DRAPartitionableDevices=true (one per module) and a webhook without version flags: the
  profile found is the cluster's, and a slice with counters beside its devices is created with no warning of ours;
- the same server and a wrong --kubernetes-version 1.36: created, with a [profile-mismatch] warning, counted;
- `serve --cluster-state` on the 1.36 server: a claim for a missing DeviceClass warns until the class is created,
  again once it is deleted (the watch, no restart); a claim for 3 devices where 2 are published warns why;
- a webhook that cannot reach the API server yet (a connection refused at its kubeconfig's address until a TCP
  relay to the real server opens there) answers every call of the API server with no state warning, then warns
  once its cache has synced.
Every wait polls for a state (the harness's wait_for), bounded only against hanging; no assertion on time."""

from __future__ import annotations

import json
import re
import uuid

import pytest
import yaml

import realserver
from realserver import DEPLOY, ControlPlane, renamed, serve_registered, warnings
from support import cli
from tcprelay import Relay
from test_profile_mismatch import counters_beside_devices

pytestmark = pytest.mark.upstream

STATE_CODES = ("[missing-device-class]", "[unsatisfiable]", "[unknown-attribute]", "[count-above-devices]", "[pool]")
DRIVER = "state-e2e.example.com"  # a driver of this module only: other tests' slices never match its class


@pytest.fixture(scope="module")
def plane_1_34(tmp_path_factory):
    if realserver.binaries("1.34") is None:
        realserver.skip_or_fail("kube-apiserver 1.34 is not built")
    plane = ControlPlane.start(tmp_path_factory.mktemp("apiserver-1.34"), "1.34",
                               feature_gates="DRAPartitionableDevices=true")
    yield plane
    plane.stop()


def reader_kubeconfig(plane: ControlPlane, workdir) -> str:
    """A kubeconfig with the token of a ServiceAccount bound to deploy/base's ClusterRole (its rules as shipped,
    under a name of this module's own), from the TokenRequest API."""
    namespace, account, name = "dra-webhook-reader", "dra-webhook", "dra-webhook-reader-e2e"
    plane.ensure_namespace(namespace)
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": account}}
    reply = plane.client.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", json=body)
    assert reply.status_code in (201, 409), reply.text
    text = re.sub(r"\$\((\w+)\)", lambda m: {"DRA_WEBHOOK_SERVICE_ACCOUNT_NAME": account,
                                            "DRA_WEBHOOK_SERVICE_NAMESPACE": namespace}[m[1]],
                  (DEPLOY / "base" / "rbac.yaml").read_text())
    role, binding = yaml.safe_load_all(text)
    role["metadata"]["name"] = binding["metadata"]["name"] = binding["roleRef"]["name"] = name
    for obj, plural in ((role, "clusterroles"), (binding, "clusterrolebindings")):
        reply = plane.client.post(f"/apis/rbac.authorization.k8s.io/v1/{plural}", json=obj)
        assert reply.status_code in (201, 409), reply.text
    reply = plane.client.post(f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token", json={
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 7200}})
    assert reply.status_code == 201, reply.text
    config = yaml.safe_load(plane.kubeconfig.read_text())
    config["users"][0]["user"] = {"token": reply.json()["status"]["token"]}
    path = workdir / "reader-kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return str(path)


@pytest.fixture(scope="module")
def reader_1_34(plane_1_34, tmp_path_factory):
    return reader_kubeconfig(plane_1_34, tmp_path_factory.mktemp("reader-1.34"))


@pytest.fixture(scope="module")
def reader_1_36(kube_apiserver, tmp_path_factory):
    return reader_kubeconfig(kube_apiserver, tmp_path_factory.mktemp("reader-1.36"))


def metrics_of(in_cluster) -> str:
    server = in_cluster.server
    return server.client.get(server.url + "/metrics").text


def metric(in_cluster, sample: str) -> float:
    """The value of one sample (name with its labels, as exposed), 0 when absent."""
    for line in metrics_of(in_cluster).splitlines():
        if line.rsplit(" ", 1)[0] == sample:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def readyz(in_cluster) -> str:
    server = in_cluster.server
    return server.client.get(server.url + "/readyz").text


def partitioned_slice() -> dict:
    obj = counters_beside_devices()
    obj["metadata"]["name"] = f"partitioned-{uuid.uuid4().hex[:8]}"
    return obj


# --- the profile comes from the cluster (1.34) -------------------------------------------------------------

def test_profile_from_a_1_34_cluster_is_1_34_with_its_gates(reader_1_34):
    result = cli("profile", "--from-cluster", "--kubeconfig", reader_1_34, "-o", "json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["kubernetesVersion"] == "1.34"
    assert found["cluster"]["kubernetesVersion"] == "1.34"
    assert found["featureGates"]["DRAPartitionableDevices"] is True
    assert found["disagreements"] == [] and found["cluster"]["problems"] == []
    text = cli("profile", "--from-cluster", "--kubeconfig", reader_1_34).stdout
    assert f"cluster: {realserver.TAGS['1.34']}" in text
    assert "--kubernetes-version 1.34 --feature-gates DRAPartitionableDevices=true" in text


def test_serve_without_version_flags_creates_counters_beside_devices_on_1_34(plane_1_34, reader_1_34, tmp_path):
    in_cluster = serve_registered(plane_1_34, tmp_path, profile_args=("--kubeconfig", reader_1_34),
                                  enforce=False)
    try:
        [read] = [line for line in in_cluster.log_lines() if line.get("gitVersion")]
        assert read["gitVersion"] == realserver.TAGS["1.34"], read
        assert read["flags"].startswith("--kubernetes-version 1.34 --feature-gates DRAPartitionableDevices=true"), read
        assert metric(in_cluster, 'dra_webhook_cluster_profile_reads_total{result="success"}') >= 1.0
        assert metric(in_cluster, "dra_webhook_cluster_profile_disagreements") == 0.0
        obj = partitioned_slice()
        reply = plane_1_34.create(obj)
        assert reply.status_code == 201, reply.text
        [review] = in_cluster.wait_for_reviews(obj["metadata"]["name"], path="/validate")
        assert review["allowed"] is True
        assert warnings(reply) == []
        assert metric(in_cluster, 'dra_webhook_profile_mismatches_total{kind="ResourceSlice",rule="FieldValueInvalid"}'
                      ) == 0.0
    finally:
        in_cluster.stop()


def test_a_wrong_version_flag_warns_profile_mismatch_and_counts(plane_1_34, reader_1_34, tmp_path):
    in_cluster = serve_registered(plane_1_34, tmp_path, enforce=False, profile_args=(
        "--kubeconfig", reader_1_34, "--kubernetes-version", "1.36"))
    try:
        assert metric(in_cluster, "dra_webhook_cluster_profile_disagreements") >= 1.0
        assert "a flag disagrees with the cluster" in in_cluster.server.log_text()
        obj = partitioned_slice()
        reply = plane_1_34.create(obj)
        assert reply.status_code == 201, reply.text
        mismatches = [w for w in warnings(reply) if w.startswith("[profile-mismatch] ")]
        assert len(mismatches) == 1, warnings(reply)
        assert mismatches[0].startswith("[profile-mismatch] ResourceSlice FieldValueInvalid at spec: ")
        assert "Kubernetes 1.36" in mismatches[0]
        assert metric(in_cluster, 'dra_webhook_profile_mismatches_total{kind="ResourceSlice",rule="FieldValueInvalid"}'
                      ) == 1.0
    finally:
        in_cluster.stop()


# --- cluster state (1.36) ----------------------------------------------------------------------------------

def published_slice(devices: int) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "state-e2e-node"},
            "spec": {"driver": DRIVER, "nodeName": "state-e2e-node",
                     "pool": {"name": "state-e2e-node", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}", "attributes": {"model": {"string": "a100"}}}
                                 for i in range(devices)]}}


def device_class(name: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}


def claim(class_name: str, count: int = 1) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"train-{uuid.uuid4().hex[:8]}", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                "deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}}]}}}


def apply_claim(plane: ControlPlane, obj: dict) -> list[str]:
    """A dry-run create of the claim through the API server (what a `kubectl apply` of a new claim sends):
    the state warnings it comes back with."""
    reply = plane.create(obj, dry_run=True)
    assert reply.status_code == 201, reply.text
    return [w for w in warnings(reply) if w.startswith(STATE_CODES)]


@pytest.fixture(scope="module")
def published(kube_apiserver):
    """Two devices of DRIVER published on the 1.36 server."""
    reply = kube_apiserver.create(published_slice(2))
    assert reply.status_code in (201, 409), reply.text
    yield
    kube_apiserver.delete("ResourceSlice", "state-e2e-node")


def test_state_warnings_follow_the_watch_without_a_restart(kube_apiserver, reader_1_36, published, tmp_path):
    plane, class_name = kube_apiserver, f"state-e2e-{uuid.uuid4().hex[:6]}"
    in_cluster = serve_registered(plane, tmp_path, "--kubeconfig", reader_1_36, "--cluster-state",
                                  configure=lambda c: renamed(c, "state"), enforce=False)
    try:
        plane.wait_for(lambda: "cluster state: synced" in readyz(in_cluster), "the cache synced")
        process = in_cluster.server.process
        [warning] = apply_claim(plane, claim(class_name))
        assert warning.startswith(f"[missing-device-class] ResourceClaim request gpus: DeviceClass {class_name} "
                                  "does not exist"), warning
        assert plane.create(device_class(class_name)).status_code == 201
        plane.wait_for(lambda: not apply_claim(plane, claim(class_name)), "the created class seen")
        assert plane.delete("DeviceClass", class_name).status_code == 200
        [again] = plane.wait_for(lambda: apply_claim(plane, claim(class_name)), "the deleted class missed")
        assert again.startswith("[missing-device-class] "), again
        assert plane.create(device_class(class_name)).status_code == 201
        plane.wait_for(lambda: not apply_claim(plane, claim(class_name)), "the class seen again")
        [too_many] = apply_claim(plane, claim(class_name, count=3))
        assert too_many.startswith(f"[count-above-devices] ResourceClaim request gpus (DeviceClass {class_name}): "
                                   "asks for 3 devices, 2 in the whole cluster match: needs 3, 2 usable of 2 "
                                   "devices"), too_many
        assert apply_claim(plane, claim(class_name, count=2)) == []
        assert in_cluster.server.process is process and process.poll() is None  # one process throughout
        assert metric(in_cluster, 'dra_webhook_cluster_state_events_total{event="deleted",kind="DeviceClass"}') >= 1
    finally:
        in_cluster.stop()
        plane.delete("DeviceClass", class_name)


def test_started_before_the_api_server_is_reachable_answers_then_warns(kube_apiserver, reader_1_36, published,
                                                                       tmp_path):
    plane = kube_apiserver
    relay = Relay(int(plane.url.rsplit(":", 1)[1]))
    config = yaml.safe_load(open(reader_1_36).read())
    config["clusters"][0]["cluster"]["server"] = f"https://127.0.0.1:{relay.port}"
    kubeconfig = tmp_path / "kubeconfig-later"
    kubeconfig.write_text(yaml.safe_dump(config))
    in_cluster = serve_registered(plane, tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state",
                                  configure=lambda c: renamed(c, "early"), enforce=False)
    try:
        # Registered and called by the API server (the canary DeviceClass answered) while it cannot read the
        # cluster: every claim is answered (a late answer is a 500 under failurePolicy Fail), with no state warning.
        missing = f"state-e2e-missing-{uuid.uuid4().hex[:6]}"
        for _ in range(5):
            assert apply_claim(plane, claim(missing)) == []
        assert "cluster state: not synced" in readyz(in_cluster)
        assert metric(in_cluster, "dra_webhook_cluster_state_synced") == 0.0
        relay.open()
        plane.wait_for(lambda: "cluster state: synced" in readyz(in_cluster), "the cache synced", limit=120)
        [warning] = apply_claim(plane, claim(missing))
        assert warning.startswith(f"[missing-device-class] ResourceClaim request gpus: DeviceClass {missing} "
                                  "does not exist"), warning
    finally:
        in_cluster.stop()
        relay.close()


def test_a_silent_connection_to_the_api_server_is_dropped_and_listed_again(kube_apiserver, reader_1_36, published,
                                                                           tmp_path):
    """The real kube-apiserver ends each watch at the timeoutSeconds the webhook asks (2 s here): the watch is
    resumed, not listed again. A relay between them that goes silent (tests/tcprelay.py: connections kept open,
    no byte more) is noticed after the read timeout (7 s): /readyz says so, no state warnings meanwhile; once
    it talks again a list brings what changed in the silence."""
    plane = kube_apiserver
    relay = Relay(int(plane.url.rsplit(":", 1)[1])).open()
    config = yaml.safe_load(open(reader_1_36).read())
    config["clusters"][0]["cluster"]["server"] = f"https://127.0.0.1:{relay.port}"
    kubeconfig = tmp_path / "kubeconfig-relayed"
    kubeconfig.write_text(yaml.safe_dump(config))
    class_name = f"state-e2e-silent-{uuid.uuid4().hex[:6]}"
    in_cluster = serve_registered(plane, tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state",
                                  "--cluster-state-watch-timeout", "2", configure=lambda c: renamed(c, "silent"),
                                  enforce=False)
    resumed = 'dra_webhook_cluster_state_events_total{event="resumed",kind="DeviceClass"}'
    try:
        plane.wait_for(lambda: "cluster state: synced" in readyz(in_cluster), "the cache synced")
        plane.wait_for(lambda: metric(in_cluster, resumed) >= 2, "two watches ended by the server and resumed")
        assert metric(in_cluster, "dra_webhook_cluster_state_relists") == 0.0
        assert "cluster state: synced" in readyz(in_cluster)

        relay.freeze()
        assert plane.create(device_class(class_name)).status_code == 201  # unheard while the relay is silent
        text = plane.wait_for(lambda: (lambda t: t if "not synced" in t else None)(readyz(in_cluster)),
                              "the silence noticed")
        assert "the watch was silent: nothing from the API server" in text and "for 7 s; listing again" in text, text
        assert apply_claim(plane, claim("state-e2e-missing")) == []  # unsynced: answered, no state warnings

        relay.thaw()
        plane.wait_for(lambda: "cluster state: synced" in readyz(in_cluster), "synced again")
        assert apply_claim(plane, claim(class_name)) == []  # the class created in the silence is known
    finally:
        in_cluster.stop()
        relay.close()
        plane.delete("DeviceClass", class_name)
