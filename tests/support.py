"""Helpers shared by the tests: AdmissionReview builders, a real server process, cause comparison."""

from __future__ import annotations

import base64
import copy
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

GROUP = "resource.k8s.io"
ROOT = Path(__file__).resolve().parent.parent
# Where tests/upstream/build.sh (`make upstream`) puts upstream's binaries; read before conftest points
# XDG_CACHE_HOME at a temporary directory for the processes the suite starts.
UPSTREAM_CACHE = Path(os.environ.get("DRA_WEBHOOK_UPSTREAM_CACHE")
                      or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dra-webhook-upstream"
                      ).absolute()  # a relative one is the caller's, as build.sh reads it, whatever a test's cwd
KUBERNETES_TAG = "v1.36.3"  # the default release's tag in tests/upstream/build.sh
# Tools built from a module of their own sit in a directory named for that module's version (build.sh).
TOOL_DIRS = {"helm": "helm-v4.3.2"}  # tests/upstream/helm-4/go.mod
GET_TOOLS = "run `make upstream` (needs Go >= 1.26; builds them into {cache}) or put them on PATH".format(
    cache="$DRA_WEBHOOK_UPSTREAM_CACHE or ~/.cache/dra-webhook-upstream")


def in_ci() -> bool:
    """CI sets CI=true: there every tool a test needs is installed by .ci/run, so a missing one is a failure."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


HANG_GUARD = 300  # seconds: how long wait_for waits before calling it a hang; no assertion is about speed


def wait_for(condition, what: str, poll: float = 0.02) -> None:
    """Waits for an event (a log line, a counter, a state) however slow the machine is; only a hang fails."""
    end = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < end, f"never happened: {what}"
        time.sleep(poll)


def upstream_tool(name: str) -> str | None:
    """An upstream binary: the one `make upstream` built for the default release, else one on PATH."""
    built = UPSTREAM_CACHE / TOOL_DIRS.get(name, KUBERNETES_TAG) / name
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    import shutil

    return shutil.which(name)


def faithful_cel_required() -> bool:
    """Whether pyproject.toml requires cel-expr-python on this platform (its environment marker)."""
    import tomllib

    from packaging.requirements import Requirement

    for text in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(text)
        if requirement.name == "cel-expr-python":
            return requirement.marker is None or requirement.marker.evaluate()
    return False


def require_faithful_cel() -> None:
    """The faithful CEL engine's tests: they run where it imports; where pyproject.toml requires it and it
    (or protobuf) does not import, that is a failure; elsewhere they are skipped."""
    from webhook.cel import engines

    if engines.cel_expr_available():
        return
    if faithful_cel_required():
        pytest.fail("cel-expr-python (with protobuf) is required on this platform by pyproject.toml but does not "
                    "import: reinstall with `make install`", pytrace=False)
    pytest.skip("cel-expr-python is not available on this platform (pyproject.toml does not require it)",
                allow_module_level=True)


def review_body(obj: dict | None, *, operation: str = "CREATE", old: dict | None = None, sub_resource: str = "",
                uid: str | None = None, kind: str | None = None, version: str | None = None,
                review_version: str = "admission.k8s.io/v1", dry_run: bool = False) -> dict:
    """An AdmissionReview request as the API server sends it."""
    source = obj if isinstance(obj, dict) else (old or {})
    api_version = source.get("apiVersion", f"{GROUP}/v1")
    group, _, ver = api_version.rpartition("/")
    request = {
        "uid": uid or str(uuid.uuid4()),
        "kind": {"group": group, "version": version or ver, "kind": kind or source.get("kind", "")},
        "resource": {"group": group, "version": version or ver, "resource": (kind or source.get("kind", "")).lower() + "s"},
        "operation": operation,
        "userInfo": {"username": "system:admin"},
        "dryRun": dry_run,
    }
    if sub_resource:
        request["subResource"] = sub_resource
    meta = source.get("metadata") or {}
    if isinstance(meta.get("name"), str):
        request["name"] = meta["name"]
    if isinstance(meta.get("namespace"), str):
        request["namespace"] = meta["namespace"]
    if obj is not None:
        request["object"] = obj
    if old is not None:
        request["oldObject"] = old
    return {"apiVersion": review_version, "kind": "AdmissionReview", "request": request}


def causes(response: dict) -> Counter:
    """The multiset of (field, reason) of an AdmissionReview response."""
    details = (response.get("status") or {}).get("details") or {}
    return Counter((c.get("field", ""), c.get("reason", "")) for c in details.get("causes") or [])


def error_keys(errors) -> Counter:
    return Counter(e.key for e in errors)


def decode_patch(response: dict) -> list:
    if not response.get("patch"):
        return []
    return json.loads(base64.b64decode(response["patch"]))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cli(*args: str, input: str | None = None, cwd: str | None = None, timeout: float = 60,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Runs `dra-webhook ARGS` as a user would (the installed module, a fresh process)."""
    environment = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    return subprocess.run([sys.executable, "-m", "webhook", *args], input=input, capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env={**environment, "PYTHONUNBUFFERED": "1", **(env or {})})


@dataclass
class RunningServer:
    process: subprocess.Popen
    url: str
    ca_file: Path
    cert_dir: Path
    log_file: Path
    client: httpx.Client

    def post(self, path: str, body: dict, **kwargs) -> httpx.Response:
        return self.client.post(self.url + path, json=body, **kwargs)

    def review(self, path: str, body: dict) -> dict:
        """POSTs an AdmissionReview and returns its response object, checking the envelope."""
        reply = self.post(path, body)
        assert reply.status_code == 200, reply.text
        payload = reply.json()
        assert payload["apiVersion"] == body["apiVersion"]
        assert payload["kind"] == "AdmissionReview"
        assert payload["response"]["uid"] == body["request"]["uid"]
        return payload["response"]

    def log_text(self) -> str:
        return self.log_file.read_text(errors="replace")

    def stop(self) -> None:
        self.client.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(workdir: Path, *extra_args: str, cert_dir: Path | None = None, wait: float = 30,
                 env: dict[str, str] | None = None, enforce: bool = True) -> RunningServer:
    """Generates certs with `dra-webhook certs`, starts `dra-webhook serve`, waits for /healthz over TLS.

    `enforce`: the server denies on built-in rules (--enforce-builtin-rules, with --kubernetes-version 1.36
    unless the arguments name one), which the tests of the rules over HTTPS need; False: as in a cluster."""
    if cert_dir is None:
        cert_dir = workdir / "certs"
        result = cli("certs", "--out", str(cert_dir))
        assert result.returncode == 0, result.stderr
    return launch_server(workdir, *extra_args, cert_dir=cert_dir,
                         verify=ssl.create_default_context(cafile=str(cert_dir / "ca.crt")), wait=wait, env=env,
                         enforce=enforce)


def stop_process(process: subprocess.Popen, grace: float = 20) -> None:
    """SIGTERM, as a kubelet stops a pod; a process still running after `grace` seconds is killed."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def deep(obj):
    return copy.deepcopy(obj)


def valid_slice(devices: int = 1, name: str = "node-1-gpu") -> dict:
    """A ResourceSlice the API server accepts."""
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [
                {"name": f"gpu-{i}", "attributes": {"model": {"string": "a100"}, "gpu.example.com/index": {"int": i}},
                 "capacity": {"memory": {"value": "40Gi"}}}
                for i in range(devices)
            ],
        },
    }


def launch_server(workdir: Path, *extra_args: str, cert_dir: Path, verify: ssl.SSLContext | bool,
                  cert: tuple[str, str] | None = None, wait: float = 30,
                  env: dict[str, str] | None = None, enforce: bool = True) -> RunningServer:
    """Like start_server, for servers a CA-verifying client without a certificate cannot reach:
    the client (used for the start-up /healthz wait too) gets `verify` and an optional client `cert`."""
    if enforce and "--enforce-builtin-rules" not in extra_args:
        named = any(a == "--kubernetes-version" or a.startswith("--kubernetes-version=") for a in extra_args)
        extra_args = ("--enforce-builtin-rules", "--profile-from-cluster", "never",
                      *(() if named else ("--kubernetes-version", "1.36")), *extra_args)
    port = free_port()
    log_file = workdir / f"server-{port}.log"
    with open(log_file, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--cert-file", str(cert_dir / "tls.crt"), "--key-file", str(cert_dir / "tls.key"), *extra_args],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
    url = f"https://127.0.0.1:{port}"
    if isinstance(verify, ssl.SSLContext) and cert:
        verify.load_cert_chain(*cert)
    client = httpx.Client(verify=verify, timeout=30)
    server = RunningServer(process, url, cert_dir / "ca.crt", cert_dir, log_file, client)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{server.log_text()}")
        try:
            if client.get(url + "/healthz").status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"server did not become healthy:\n{server.log_text()}")


def validation_causes(body: dict, profile) -> tuple[Counter, list[str]]:
    """(Counter of (field, reason) causes, warnings) of `/validate` on an AdmissionReview body, in process."""
    from webhook import admit
    from webhook.review import decode_review

    response = admit.validate(decode_review(body), profile=profile)
    causes = Counter((c["field"], c["reason"]) for c in (response.status or {}).get("details", {}).get("causes", []))
    assert response.allowed is (not causes), response.status
    return causes, response.warnings


def same_request_verdicts(obj: dict, *versions: tuple, old: dict | None = None) -> list[list[str]]:
    """The same object (an update of `old` if given) under each (profile, expected causes, expected warnings): the
    causes are exactly those expected, each expected warning is among the warnings; returns each version's warnings."""
    body = review_body(obj, operation="UPDATE" if old is not None else "CREATE", old=old)
    verdicts = [validation_causes(body, profile) for profile, _, _ in versions]
    assert tuple(c for c, _ in verdicts) == tuple(Counter(causes) for _, causes, _ in versions)
    for (_, warnings), (_, _, wanted) in zip(verdicts, versions):
        for expected in wanted:
            assert any(expected in w for w in warnings), warnings
    return [warnings for _, warnings in verdicts]


def need_oracle(release: str) -> None:
    """Skip without the release's registry oracle (one line saying how to get it); under CI=true fail instead."""
    from upstream import oracle

    problem = oracle.missing(release)
    if problem:
        if in_ci():
            pytest.fail(f"CI never skips the upstream differential: {problem}")
        pytest.skip(problem)
