"""The real kube-apiserver (and its etcd) for end-to-end tests: upstream's own binaries, built from the pinned
Go modules under tests/upstream/ by `make upstream` (tests/upstream/build.sh), started on loopback.

API (reused by other tests; the fixtures live in tests/conftest.py):

- `binaries(release) -> Binaries | None`: the cached kube-apiserver, etcd and kubectl of a release ("1.36"), or
  None when they are not built. `skip_or_fail(reason)`: skips the test with one line saying how to get the
  binaries, or fails when CI=true (CI never skips the upstream tests).
- `ControlPlane.start(workdir, release, feature_gates="", runtime_config=BETA_APIS) -> ControlPlane`: etcd +
  kube-apiserver on free loopback ports, a temporary data dir (`--unsafe-no-fsync`), certificates made here,
  an admin client certificate (O=system:masters), service-account keys; returns once /readyz answers.
  `.client` is an httpx.Client with base_url, the CA and the admin certificate; `.stop()` ends both processes.
  `.kubeconfig` is a kubeconfig file for kubectl. `.startup_seconds` is what start-up took.
- `ControlPlane` requests: `.path(kind, name="", namespace="", version="v1")` (the REST path of a DRA kind);
  `.create(obj, dry_run=False, namespace=...)`, `.update(obj, ...)`, `.get(kind, name, ...)`,
  `.delete(kind, name, ...)` return the httpx.Response; `.ensure_namespace(name, labels)`.
- `webhook_configurations(webhook_url, ca_pem, namespace="dra-webhook")`: the Validating- and
  MutatingWebhookConfiguration of deploy/base with clientConfig rewritten to `url` + `caBundle` (what
  envtest does) and the base's vars resolved; `.register(configurations)` creates or replaces them and
  `.wait_for(condition, what)` polls until a condition (e.g. "the webhook logged my canary") holds:
  configurations reach the API server's admission through informers, not at once.
- `.audit_events()`: the API server's audit log (resource.k8s.io at level Request), where admission
  webhooks' mutations are annotated with their patch.
- `warnings(response)`: the texts of a response's `Warning: 299 - "..."` headers.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from support import UPSTREAM_CACHE, free_port, in_ci

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
# The tags tests/upstream/build.sh builds (TAG there).
TAGS = {"1.34": "v1.34.4", "1.35": "v1.35.4", "1.36": "v1.36.3", "1.37": "v1.37.2"}


def _etcd_dir() -> str:
    """etcd's cache directory, as build.sh names it: the version tests/upstream/etcd-3.6/go.mod requires."""
    text = (ROOT / "tests" / "upstream" / "etcd-3.6" / "go.mod").read_text()
    match = re.search(r"go\.etcd\.io/etcd/server/v3 (v\S+)", text)
    return f"etcd-{match[1]}" if match else "etcd-unknown"


ETCD = _etcd_dir()
DEFAULT_RELEASE = "1.36"
GROUP = "resource.k8s.io"
# DRA's beta versions are not served by default (KEP-3136); the tests want them, as many clusters do.
BETA_APIS = "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"
AUDIT_POLICY = {"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": ["RequestReceived"],
                "rules": [{"level": "Request", "resources": [{"group": GROUP}]}, {"level": "None"}]}
HOW_TO_GET = ("they need Go >= 1.26 and upstream's binaries: install Go, then `make upstream` (tests/upstream/build.sh; "
              "UPSTREAM_SERVER_RELEASES=\"1.34 1.35 1.37\" for those releases' kube-apiserver)")
# kind -> (resource, namespaced)
RESOURCES = {
    "ResourceSlice": ("resourceslices", False),
    "ResourceClaim": ("resourceclaims", True),
    "ResourceClaimTemplate": ("resourceclaimtemplates", True),
    "DeviceClass": ("deviceclasses", False),
    "DeviceTaintRule": ("devicetaintrules", False),
    "ResourcePoolStatusRequest": ("resourcepoolstatusrequests", False),
}


@dataclass(frozen=True)
class Binaries:
    kube_apiserver: Path
    etcd: Path
    kubectl: Path | None


def binaries(release: str = DEFAULT_RELEASE) -> Binaries | None:
    # support.UPSTREAM_CACHE: read at import, before the suite points XDG_CACHE_HOME elsewhere (conftest.py).
    cache = UPSTREAM_CACHE
    apiserver, etcd = cache / TAGS[release] / "kube-apiserver", cache / ETCD / "etcd"
    kubectl = cache / TAGS[DEFAULT_RELEASE] / "kubectl"
    if not (os.access(apiserver, os.X_OK) and os.access(etcd, os.X_OK)):
        return None
    return Binaries(apiserver, etcd, kubectl if os.access(kubectl, os.X_OK) else None)



def upstream_missing() -> str:
    """Why the upstream tests cannot run here ("" when they can): no Go, or kube-apiserver 1.36/etcd not built."""
    if shutil.which("go") is None:
        return "Go not found"
    if binaries(DEFAULT_RELEASE) is None:
        return f"kube-apiserver {DEFAULT_RELEASE} and etcd not built"
    return ""


def skip_or_fail(reason: str) -> None:
    """A failure in CI, which never skips the upstream tests; elsewhere a skip whose text is the same for every
    upstream test (pytest -ra then shows them as one line: how to get them), the `reason` aside."""
    if in_ci():
        pytest.fail(f"CI=true and {reason}: {HOW_TO_GET}", pytrace=False)
    pytest.skip(f"upstream tests skipped: {HOW_TO_GET}")


# --- certificates (cryptography) ---------------------------------------------------------------------------

def _name(common: str, org: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common)]
    if org:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(parts)


def _pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def _issue(ca_cert, ca_key, subject: x509.Name, *, server: bool) -> tuple[bytes, bytes]:
    now = datetime.now(timezone.utc)
    key = ec.generate_private_key(ec.SECP256R1())
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=2))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
    if server:
        import ipaddress
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        usage = ExtendedKeyUsageOID.SERVER_AUTH
    else:
        usage = ExtendedKeyUsageOID.CLIENT_AUTH
    cert = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False).sign(ca_key, hashes.SHA256())
    return cert.public_bytes(serialization.Encoding.PEM), _pem(key)


@dataclass(frozen=True)
class PlaneCerts:
    ca: Path
    serving: tuple[Path, Path]
    admin: tuple[Path, Path]
    service_account_key: Path


def make_certs(out: Path) -> PlaneCerts:
    """A CA, the API server's serving pair (127.0.0.1), an admin client pair (O=system:masters) and an RSA
    service-account signing key."""
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.now(timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (x509.CertificateBuilder().subject_name(_name("e2e-ca")).issuer_name(_name("e2e-ca"))
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=2))
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, encipher_only=False,
                                            decipher_only=False), critical=True)
               .sign(ca_key, hashes.SHA256()))
    ca = _write(out / "ca.crt", ca_cert.public_bytes(serialization.Encoding.PEM))
    serving = _issue(ca_cert, ca_key, _name("kube-apiserver"), server=True)
    admin = _issue(ca_cert, ca_key, _name("e2e-admin", "system:masters"), server=False)
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return PlaneCerts(
        ca=ca,
        serving=(_write(out / "apiserver.crt", serving[0]), _write(out / "apiserver.key", serving[1])),
        admin=(_write(out / "admin.crt", admin[0]), _write(out / "admin.key", admin[1])),
        service_account_key=_write(out / "sa.key", _pem(sa_key)),
    )


# --- processes -------------------------------------------------------------------------------------------

def _wait(what: str, process: subprocess.Popen, log: Path, ready, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            if ready():
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} not ready after {limit:.0f} s:\n{log.read_text(errors='replace')[-4000:]}")


def _stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGCONT)  # a test may have frozen it
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class ControlPlane:
    """etcd + kube-apiserver of one release on loopback, and an admin client."""

    def __init__(self, workdir: Path, release: str, bins: Binaries) -> None:
        self.workdir, self.release, self.bins = workdir, release, bins
        self.etcd: subprocess.Popen | None = None
        self.apiserver: subprocess.Popen | None = None
        self.client: httpx.Client | None = None
        self.url = ""
        self.certs: PlaneCerts | None = None
        self.kubeconfig: Path | None = None
        self.startup_seconds = 0.0
        self.feature_gates = self.runtime_config = ""

    @classmethod
    def start(cls, workdir: Path, release: str = DEFAULT_RELEASE, *, feature_gates: str = "",
              runtime_config: str = BETA_APIS, ready_limit: float = 180) -> "ControlPlane":
        bins = binaries(release)
        if bins is None:
            raise RuntimeError(f"kube-apiserver {release} is not built: {HOW_TO_GET}")
        plane = cls(workdir, release, bins)
        plane.feature_gates, plane.runtime_config = feature_gates, runtime_config
        try:
            plane._start(feature_gates, runtime_config, ready_limit)
        except BaseException:
            plane.stop()
            raise
        return plane

    def _start(self, feature_gates: str, runtime_config: str, ready_limit: float) -> None:
        began = time.monotonic()
        self.certs = certs = make_certs(self.workdir / "pki")
        client_port, peer_port, secure_port = free_port(), free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        etcd_log = self.workdir / "etcd.log"
        with open(etcd_log, "w") as log:
            self.etcd = subprocess.Popen(
                [str(self.bins.etcd), "--data-dir", str(self.workdir / "etcd-data"), "--name", "e2e",
                 "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
                 "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                 "--initial-cluster", f"e2e=http://127.0.0.1:{peer_port}",
                 "--unsafe-no-fsync", "--log-level", "warn"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        _wait("etcd", self.etcd, etcd_log,
              lambda: httpx.get(etcd_url + "/health", timeout=2).status_code == 200, 60)
        self.url = f"https://127.0.0.1:{secure_port}"
        args = [
            str(self.bins.kube_apiserver), f"--etcd-servers={etcd_url}", f"--cert-dir={self.workdir / 'pki'}",
            f"--secure-port={secure_port}", "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
            "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true",
            # No `kubernetes` Service endpoints: they may not be a loopback address (1.37 refuses to start).
            "--endpoint-reconciler-type=none",
            "--disable-admission-plugins=ServiceAccount", "--authorization-mode=RBAC",
            f"--service-account-issuer={self.url}/", f"--service-account-key-file={certs.service_account_key}",
            f"--service-account-signing-key-file={certs.service_account_key}", f"--client-ca-file={certs.ca}",
            f"--tls-cert-file={certs.serving[0]}", f"--tls-private-key-file={certs.serving[1]}",
        ]
        if runtime_config:
            args.append(f"--runtime-config={runtime_config}")
        if feature_gates:
            args.append(f"--feature-gates={feature_gates}")
        # Audit events of resource.k8s.io at level Request: they carry the admission webhooks' annotations
        # (mutation.webhook.admission.k8s.io/…: which webhook mutated, patch.webhook.admission.k8s.io/…: its patch).
        policy = self.workdir / "audit-policy.yaml"
        policy.write_text(yaml.safe_dump(AUDIT_POLICY))
        args += [f"--audit-policy-file={policy}", f"--audit-log-path={self.audit_log}"]
        api_log = self.workdir / "kube-apiserver.log"
        with open(api_log, "w") as log:
            self.apiserver = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        context = ssl.create_default_context(cafile=str(certs.ca))
        context.load_cert_chain(*map(str, certs.admin))
        self.client = httpx.Client(base_url=self.url, verify=context, timeout=60)
        _wait("kube-apiserver", self.apiserver, api_log,
              lambda: self.client.get("/readyz", timeout=5).status_code == 200, ready_limit)
        self.startup_seconds = time.monotonic() - began
        self.kubeconfig = self._write_kubeconfig()

    def _write_kubeconfig(self) -> Path:
        certs = self.certs
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": "e2e",
            "clusters": [{"name": "e2e", "cluster": {"server": self.url, "certificate-authority": str(certs.ca)}}],
            "users": [{"name": "admin", "user": {"client-certificate": str(certs.admin[0]),
                                                 "client-key": str(certs.admin[1])}}],
            "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "admin"}}],
        }
        path = self.workdir / "kubeconfig"
        _write(path, yaml.safe_dump(config).encode())
        return path

    @property
    def audit_log(self) -> Path:
        return self.workdir / "audit.log"

    def audit_events(self) -> list[dict]:
        """The audit log's events (JSON lines), oldest first."""
        if not self.audit_log.exists():
            return []
        return [json.loads(line) for line in self.audit_log.read_text().splitlines() if line.strip()]

    def log_text(self) -> str:
        return (self.workdir / "kube-apiserver.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        _stop(self.apiserver)
        _stop(self.etcd)
        shutil.rmtree(self.workdir / "etcd-data", ignore_errors=True)

    # --- requests ---

    def path(self, kind: str, name: str = "", namespace: str = "", version: str = "v1") -> str:
        resource, namespaced = RESOURCES[kind]
        prefix = f"/apis/{GROUP}/{version}"
        if namespaced:
            prefix += f"/namespaces/{namespace or 'default'}"
        return f"{prefix}/{resource}" + (f"/{name}" if name else "")

    @staticmethod
    def _params(dry_run: bool, field_validation: str) -> dict:
        params = {"fieldValidation": field_validation}
        if dry_run:
            params["dryRun"] = "All"
        return params

    def _locate(self, obj: dict, namespace: str) -> tuple[str, str]:
        api_version = obj.get("apiVersion", f"{GROUP}/v1")
        version = api_version.rpartition("/")[2]
        meta = obj.get("metadata") or {}
        return version, namespace or meta.get("namespace") or "default"

    def create(self, obj: dict, *, dry_run: bool = False, namespace: str = "",
               field_validation: str = "Strict") -> httpx.Response:
        version, ns = self._locate(obj, namespace)
        return self.client.post(self.path(obj["kind"], namespace=ns, version=version), json=obj,
                                params=self._params(dry_run, field_validation))

    def update(self, obj: dict, *, dry_run: bool = False, namespace: str = "", subresource: str = "",
               field_validation: str = "Strict") -> httpx.Response:
        version, ns = self._locate(obj, namespace)
        path = self.path(obj["kind"], obj["metadata"]["name"], ns, version) + (f"/{subresource}" if subresource else "")
        return self.client.put(path, json=obj, params=self._params(dry_run, field_validation))

    def get(self, kind: str, name: str, *, namespace: str = "", version: str = "v1") -> httpx.Response:
        return self.client.get(self.path(kind, name, namespace, version))

    def delete(self, kind: str, name: str, *, namespace: str = "") -> httpx.Response:
        return self.client.delete(self.path(kind, name, namespace))

    def ensure_namespace(self, name: str, labels: dict | None = None) -> None:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}
        reply = self.client.post("/api/v1/namespaces", json=body)
        assert reply.status_code in (201, 409), reply.text

    # --- webhook registration ---

    def register(self, configurations: list[dict]) -> None:
        """Creates each webhook configuration, replacing one of the same name."""
        for config in configurations:
            plural = config["kind"].lower() + "s"
            base = f"/apis/admissionregistration.k8s.io/v1/{plural}"
            name = config["metadata"]["name"]
            self.client.delete(f"{base}/{name}")
            reply = self.client.post(base, json=config)
            assert reply.status_code == 201, reply.text

    def unregister(self, configurations: list[dict]) -> None:
        for config in configurations:
            plural = config["kind"].lower() + "s"
            self.client.delete(f"/apis/admissionregistration.k8s.io/v1/{plural}/{config['metadata']['name']}")

    @staticmethod
    def wait_for(condition, what: str, limit: float = 60):
        """Calls condition() until it returns something true (configurations reach admission through
        informers, not at once); that value, or AssertionError after `limit` seconds."""
        deadline = time.monotonic() + limit
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not seen after {limit:.0f} s")
            time.sleep(0.2)


def webhook_configurations(webhook_url: str, ca_pem: bytes, *, namespace: str = "dra-webhook",
                           service: str = "dra-webhook") -> list[dict]:
    """deploy/base's webhook configurations, as registered for a webhook served at `webhook_url`:
    clientConfig.service becomes url + caBundle (envtest's rewrite), the base's $(VARS) are resolved."""
    kustomization = yaml.safe_load((DEPLOY / "base" / "kustomization.yaml").read_text())
    values = {"DRA_WEBHOOK_SERVICE_NAME": service, "DRA_WEBHOOK_SERVICE_NAMESPACE": namespace}
    assert set(values) <= {v["name"] for v in kustomization["vars"]}, kustomization["vars"]
    configurations = []
    for file in ("validatingwebhookconfiguration.yaml", "mutatingwebhookconfiguration.yaml"):
        assert file in kustomization["resources"]
        text = re.sub(r"\$\((\w+)\)", lambda m: values[m[1]], (DEPLOY / "base" / file).read_text())
        config = yaml.safe_load(text)
        for hook in config["webhooks"]:
            path = hook["clientConfig"]["service"].get("path", "")
            hook["clientConfig"] = {"url": webhook_url.rstrip("/") + path,
                                    "caBundle": base64.b64encode(ca_pem).decode()}
        configurations.append(config)
    return configurations


def renamed(configurations: list[dict], suffix: str) -> list[dict]:
    """Copies with their own object and webhook names (several configurations side by side)."""
    out = copy.deepcopy(configurations)
    for config in out:
        config["metadata"]["name"] += f"-{suffix}"
        for hook in config["webhooks"]:
            hook["name"] = f"{suffix}.{hook['name']}"
    return out


_WARNING = re.compile(r'^\d{3} \S+ "(.*)"(?: ".*")?$')


def warnings(response: httpx.Response) -> list[str]:
    """The texts of a response's Warning headers (RFC 7234 form `299 - "text"`), unescaped."""
    texts = []
    for value in response.headers.get_list("warning"):
        match = _WARNING.match(value)
        text = match[1] if match else value
        texts.append(text.replace('\\"', '"').replace("\\\\", "\\"))
    return texts


# --- the webhook registered with the API server ----------------------------------------------------------

@dataclass
class InCluster:
    """`dra-webhook serve` (a real subprocess, fresh certificates) registered with a ControlPlane."""

    plane: ControlPlane
    server: "support.RunningServer"
    configurations: list[dict]

    def log_lines(self) -> list[dict]:
        lines = []
        for line in self.server.log_text().splitlines():
            try:
                lines.append(json.loads(line))
            except ValueError:
                continue
        return lines

    def reviews_of(self, name: str, path: str | None = None) -> list[dict]:
        """The webhook's log lines of the reviews of objects named `name` (served with --log-level debug,
        every review has one)."""
        return [line for line in self.log_lines()
                if line.get("name") == name and "allowed" in line and (path is None or line.get("path") == path)]

    def wait_for_reviews(self, name: str, count: int = 1, path: str | None = None, limit: float = 60) -> list[dict]:
        return self.plane.wait_for(lambda: (lambda seen: seen if len(seen) >= count else None)(
            self.reviews_of(name, path)), f"{count} review(s) of {name!r} in the webhook's log", limit)

    def wait_registered(self, labels: dict | None = None, paths: set[str] | None = None, limit: float = 90) -> None:
        """Dry-run creates of a canary DeviceClass (with `labels`) until the webhook has reviewed one at each
        of `paths` (default: every path its configurations call)."""
        from urllib.parse import urlsplit

        if paths is None:
            paths = {urlsplit(hook["clientConfig"]["url"]).path
                     for config in self.configurations for hook in config["webhooks"]}
        name = f"canary-{uuid.uuid4().hex[:10]}"
        canary = {"apiVersion": f"{GROUP}/v1", "kind": "DeviceClass",
                  "metadata": {"name": name, "labels": labels or {}}, "spec": {}}

        def seen():
            reply = self.plane.create(canary, dry_run=True)
            assert reply.status_code in (201, 500), reply.text  # 500: a webhook not reachable yet
            return paths <= {line.get("path") for line in self.reviews_of(name)}

        self.plane.wait_for(seen, f"the canary's reviews at {sorted(paths)}", limit)

    def stop(self, unregister: bool = True) -> None:
        if unregister:
            self.plane.unregister(self.configurations)
        self.server.stop()


def serve_registered(plane: ControlPlane, workdir: Path, *serve_args: str, configure=None,
                     canary_labels: dict | None = None, profile_args: tuple[str, ...] | None = None,
                     wait: bool = True, enforce: bool = True) -> InCluster:
    """Starts `dra-webhook serve` with fresh certificates (IP SAN 127.0.0.1) and the plane's gates and
    served versions (or `profile_args`), registers deploy/base's configurations for it (passed through
    `configure(configurations) -> configurations` first, e.g. `renamed`), and waits until the API server
    calls it. `enforce=False`: no --enforce-builtin-rules, as deployed (built-in failures are warnings)."""
    import support

    cert_dir = workdir / "certs"
    result = support.cli("certs", "--out", str(cert_dir), "--hosts", "127.0.0.1")
    assert result.returncode == 0, result.stderr
    if profile_args is None:
        profile_args = (f"--kubernetes-version={plane.release}", f"--feature-gates={plane.feature_gates}",
                        f"--runtime-config={plane.runtime_config}")
    server = support.start_server(workdir, "--log-level", "debug", *profile_args, *serve_args, cert_dir=cert_dir,
                                  enforce=enforce)
    configurations = webhook_configurations(server.url, (cert_dir / "ca.crt").read_bytes())
    if configure is not None:
        configurations = configure(configurations)
    in_cluster = InCluster(plane, server, configurations)
    try:
        plane.register(configurations)
        if wait:
            in_cluster.wait_registered(canary_labels)
    except BaseException:
        in_cluster.stop()
        raise
    return in_cluster
