"""The real kube-apiserver (1.36, built from tests/upstream/ by `make upstream`) calls `dra-webhook serve` as a
ValidatingWebhookConfiguration over TLS: a claim whose gpu.example.com parameters break the driver's rules
is refused by the API server with our causes; a valid one is stored. Skipped when the binaries are not built."""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import time

import httpx
import pytest

from drivercases import claim_with
from support import UPSTREAM_CACHE, cli, free_port, start_server, stop_process

CACHE = UPSTREAM_CACHE  # as tests/upstream/build.sh finds it (support.py reads it before conftest moves XDG_CACHE_HOME)
APISERVER = CACHE / "v1.36.3" / "kube-apiserver"
ETCD = CACHE / "etcd-v3.6.8" / "etcd"
TOKEN = "dra-webhook-e2e-token"

pytestmark = pytest.mark.skipif(not (APISERVER.is_file() and ETCD.is_file()),
                                reason="kube-apiserver/etcd not built (make upstream)")

BAD = {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig",
       "sharing": {"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": -1}}}
GOOD = {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig",
        "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}}


def _wait(check, what: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds  # bounds a broken start; nothing asserted depends on it
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("apiserver")
    certs_dir = workdir / "certs"
    assert cli("certs", "--out", str(certs_dir), "--hosts", "127.0.0.1").returncode == 0
    (workdir / "tokens.csv").write_text(f"{TOKEN},admin,admin,system:masters\n")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # service account tokens' signing key
    (workdir / "sa.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                       serialization.PrivateFormat.TraditionalOpenSSL,
                                                       serialization.NoEncryption()))
    (workdir / "sa.pub").write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                   serialization.PublicFormat.SubjectPublicKeyInfo))
    etcd_client, etcd_peer, api_port = free_port(), free_port(), free_port()
    log = open(workdir / "cluster.log", "w")
    etcd = subprocess.Popen([str(ETCD), "--data-dir", str(workdir / "etcd"),
                             "--listen-client-urls", f"http://127.0.0.1:{etcd_client}",
                             "--advertise-client-urls", f"http://127.0.0.1:{etcd_client}",
                             "--listen-peer-urls", f"http://127.0.0.1:{etcd_peer}"], stdout=log, stderr=log)
    apiserver = subprocess.Popen([
        str(APISERVER), "--etcd-servers", f"http://127.0.0.1:{etcd_client}", "--bind-address", "127.0.0.1",
        "--secure-port", str(api_port), "--tls-cert-file", str(certs_dir / "tls.crt"),
        "--tls-private-key-file", str(certs_dir / "tls.key"), "--token-auth-file", str(workdir / "tokens.csv"),
        "--authorization-mode", "AlwaysAllow", "--service-account-issuer", "https://kubernetes.default.svc",
        "--service-account-key-file", str(workdir / "sa.pub"),
        "--service-account-signing-key-file", str(workdir / "sa.key"), "--cert-dir", str(workdir / "apiserver")],
        stdout=log, stderr=log)
    client = httpx.Client(base_url=f"https://127.0.0.1:{api_port}", verify=ssl.create_default_context(cafile=str(certs_dir / "ca.crt")),
                          headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)

    def ready() -> bool:
        if apiserver.poll() is not None:
            raise AssertionError("kube-apiserver exited: " + (workdir / "cluster.log").read_text()[-2000:])
        try:
            return client.get("/readyz").status_code == 200
        except httpx.TransportError:
            return False

    webhook = None
    try:
        _wait(ready, "kube-apiserver ready")
        webhook = start_server(workdir, cert_dir=certs_dir)
        configuration = {
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "dra-webhook"},
            "webhooks": [{"name": "validate.dra-webhook.io", "admissionReviewVersions": ["v1"],
                          "sideEffects": "None", "failurePolicy": "Fail", "timeoutSeconds": 10,
                          "clientConfig": {"url": webhook.url + "/validate",
                                           "caBundle": base64.b64encode((certs_dir / "ca.crt").read_bytes()).decode()},
                          "rules": [{"apiGroups": ["resource.k8s.io"], "apiVersions": ["*"],
                                     "operations": ["CREATE", "UPDATE"],
                                     "resources": ["resourceclaims", "resourceclaimtemplates", "deviceclasses"]}]}]}
        created = client.post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                              json=configuration)
        assert created.status_code == 201, created.text
        client.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                "metadata": {"name": "ns"}})
        yield client
    finally:
        client.close()
        if webhook is not None:
            webhook.stop()
        stop_process(apiserver)
        stop_process(etcd)
        log.close()


def _create(client: httpx.Client, obj: dict, name: str) -> httpx.Response:
    obj = json.loads(json.dumps(obj))
    obj["metadata"]["name"] = name
    return client.post("/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims", json=obj)


def test_the_api_server_refuses_what_the_driver_would_refuse(cluster):
    probe = iter(range(1000))
    # The configuration reaches the API server's webhook client shortly after it is created.
    _wait(lambda: _create(cluster, claim_with("gpu.example.com", BAD), f"probe-{next(probe)}").status_code == 422,
          "the webhook being called")
    refused = _create(cluster, claim_with("gpu.example.com", GOOD, BAD), "bad")
    # Our denial is the API server's own Invalid (422, with causes), which it relays; the drivers' webhooks
    # send no code, so theirs become 400.
    assert refused.status_code == 422, refused.text
    status = refused.json()
    assert status["reason"] == "Invalid"
    assert [(c["field"], c["reason"]) for c in status["details"]["causes"]] == [
        ("spec.devices.config[1].opaque.parameters.sharing.spacePartitioningConfig.partitionCount",
         "FieldValueInvalid")]
    assert status["message"].startswith('admission webhook "validate.dra-webhook.io" denied the request: '
                                        'ResourceClaim.resource.k8s.io "bad" is invalid: ')
    assert "spec.devices.config[1].opaque.parameters.sharing.spacePartitioningConfig.partitionCount: " \
           "Invalid value: -1: should be greater than or equal to 0" in status["message"]
    stored = _create(cluster, claim_with("gpu.example.com", GOOD), "good")
    assert stored.status_code == 201, stored.text
    # a driver without a profile: its parameters are the driver's business
    assert _create(cluster, claim_with("other.example.com", {"anything": 1}), "other").status_code == 201
