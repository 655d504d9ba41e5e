"""The Dockerfile, tested without a container engine: its structure, and the commands its stages
run (wheel build, offline install, entry point) replayed in a temporary directory and a fresh venv."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import ssl
import subprocess
import sys
import time
import tomllib
import venv
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from support import free_port, in_ci
from webhook import __version__
from webhook.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
# Signs that pip could not reach the index at all. "No matching distribution" and "Could not find a version"
# are not among them: a pin in requirements.lock that does not exist prints those too, and is a failure.
OFFLINE_SIGNS = ("NewConnectionError", "Network is unreachable", "Temporary failure in name resolution")


@dataclass
class Stage:
    image: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]


def parse_dockerfile(text: str) -> list[Stage]:
    logical = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    stages: list[Stage] = []
    for line in logical.splitlines():
        if not line.strip():
            continue
        keyword, _, args = line.strip().partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            words = args.split()
            stages.append(Stage(words[0], words[2] if len(words) == 3 and words[1].upper() == "AS" else None))
        else:
            stages[-1].instructions.append((keyword, args))
    return stages


STAGES = parse_dockerfile((ROOT / "Dockerfile").read_text())
BUILD, RUNTIME = STAGES[0], STAGES[-1]


def run_commands(stage: Stage) -> list[list[str]]:
    """The stage's RUN commands as argv, BuildKit --mount options dropped."""
    commands = []
    for args in stage.all("RUN"):
        words = [w for w in shlex.split(args) if not w.startswith("--mount=")]
        commands.append(words)
    return commands


def test_two_stages_on_a_slim_python_base_pinned_by_digest():
    assert len(STAGES) == 2 and BUILD.name
    for stage in STAGES:
        # The tag is for readers; the digest is what is pulled, so a rebuild starts from the same bytes.
        assert re.fullmatch(r"python:\d+\.\d+-slim@sha256:[0-9a-f]{64}", stage.image), stage.image
    assert BUILD.image == RUNTIME.image
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    image_version = tuple(int(n) for n in RUNTIME.image.split(":")[1].split("-")[0].split("."))
    assert image_version >= tuple(int(n) for n in required.removeprefix(">=").split("."))
    assert any("pip wheel" in args for args in BUILD.all("RUN"))  # wheels are built in the first stage
    assert not RUNTIME.all("COPY"), "the runtime stage takes only the wheels (bind-mounted), no sources"


def labels(stage: Stage) -> dict[str, str]:
    """The stage's LABELs, with ${ARG}s replaced by the ARG defaults (as `docker build` without --build-arg)."""
    defaults = dict(arg.partition("=")[::2] for arg in stage.all("ARG"))
    found = {}
    for args in stage.all("LABEL"):
        for pair in shlex.split(args):
            key, _, value = pair.partition("=")
            found[key] = re.sub(r"\$\{(\w+)\}", lambda m: shlex.split(defaults[m[1]] or "''")[0], value)
    return found


def test_oci_labels_name_the_project_its_version_and_its_base():
    found = labels(RUNTIME)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert found["org.opencontainers.image.title"] == project["name"]
    assert found["org.opencontainers.image.description"] == project["description"]
    assert found["org.opencontainers.image.licenses"] == project["license"]
    assert found["org.opencontainers.image.version"] == __version__
    name, _, digest = RUNTIME.image.partition("@")
    assert found["org.opencontainers.image.base.digest"] == digest
    assert found["org.opencontainers.image.base.name"] == f"docker.io/library/{name}"
    for key in ("revision", "source"):  # set with --build-arg; present so tools find the key
        assert f"org.opencontainers.image.{key}" in found


def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """requirements.lock: normalized name -> (version, sha256 hashes)."""
    text = re.sub(r"\\\n", " ", (ROOT / "requirements.lock").read_text())
    entries = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            words = line.split()
            name, _, version = words[0].partition("==")
            hashes = [w.removeprefix("--hash=sha256:") for w in words[1:]]
            assert version and all(w.startswith("--hash=sha256:") for w in words[1:]), line
            assert hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), line
            entries[canonicalize_name(name)] = (version, hashes)
    return entries


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_lock_pins_every_runtime_dependency_of_the_image_with_hashes(machine):
    entries = lock_entries()
    environment = {**default_environment(), "platform_system": "Linux", "sys_platform": "linux",
                   "platform_machine": machine, "python_version": "3.11", "implementation_name": "cpython"}
    for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(line)
        if requirement.marker and not requirement.marker.evaluate(environment):
            continue
        name = canonicalize_name(requirement.name)
        assert name in entries, f"{name} is a dependency but not in requirements.lock"
        assert requirement.specifier.contains(entries[name][0], prereleases=True), (name, entries[name][0])
    assert canonicalize_name("dra-webhook") not in entries


def test_the_build_installs_only_what_the_lock_names():
    dependencies, project = run_commands(BUILD)
    assert dependencies[:2] == ["pip", "wheel"] and "--require-hashes" in dependencies
    assert dependencies[dependencies.index("-r") + 1] == "requirements.lock"
    assert "--only-binary=:all:" in dependencies  # nothing compiled from an sdist
    assert project[:2] == ["pip", "wheel"] and "--no-deps" in project and project[-1] == "."
    [install] = run_commands(RUNTIME)
    assert "--no-index" in install  # the runtime stage sees only the wheels built from the lock


def test_runs_as_a_numeric_non_root_user():
    [user] = RUNTIME.all("USER")
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) != 0, "a numeric UID lets the kubelet enforce runAsNonRoot"
    assert not gid or gid.isdigit()
    deployment = yaml.safe_load((ROOT / "deploy" / "base" / "deployment.yaml").read_text())
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(uid)


def test_entrypoint_and_default_command():
    [entrypoint], [cmd] = RUNTIME.all("ENTRYPOINT"), RUNTIME.all("CMD")
    assert json.loads(entrypoint) == ["dra-webhook"]  # exec form: SIGTERM reaches the server directly
    args = build_parser().parse_args(json.loads(cmd))
    assert args.command == "serve"
    assert (args.cert_file, args.key_file) == ("/certs/tls.crt", "/certs/tls.key")


def test_build_context_holds_what_the_build_copies():
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    ignore = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert ignore[0] == "*"  # deny by default: nothing reaches the build unless named
    for args in BUILD.all("COPY"):
        *sources, _ = args.split()
        for source in sources:
            assert (ROOT / source).exists(), source
            assert f"!{source}" in ignore or f"!{source}/" in ignore, f"{source} is excluded by .dockerignore"


def _run(argv: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    output = result.stdout + result.stderr
    if result.returncode != 0 and any(sign in output for sign in OFFLINE_SIGNS) and not in_ci():
        pytest.skip(f"package index unreachable, cannot build wheels: {output.strip().splitlines()[-1]}")
    assert result.returncode == 0, f"{' '.join(argv)}\n{output[-3000:]}"
    return result


def test_stage_commands_build_a_wheel_that_installs_and_serves_from_a_fresh_venv(tmp_path):
    # Build stage: the context the Dockerfile copies, then its pip commands with /wheels moved here.
    src, wheels = tmp_path / "src", tmp_path / "wheels"
    src.mkdir()
    for args in BUILD.all("COPY"):
        *sources, target = args.split()
        for source in sources:
            destination = src / (source if target.endswith("/") or target == "." else target.lstrip("./"))
            (shutil.copytree if (ROOT / source).is_dir() else shutil.copy)(ROOT / source, destination)
    for argv in run_commands(BUILD):
        assert argv[0] == "pip"
        _run([sys.executable, "-m", *[str(wheels) if a == "/wheels" else a for a in argv]], cwd=src)
    assert (wheels / f"dra_webhook-{__version__}-py3-none-any.whl").is_file()

    # Runtime stage: a fresh venv, the same install command, no index.
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    for argv in run_commands(RUNTIME):
        assert argv[0] == "pip"
        _run([str(env_dir / "bin" / "python"), "-m", *[str(wheels) if a == "/wheels" else a for a in argv]],
             cwd=tmp_path)
    entrypoint = str(env_dir / "bin" / json.loads(RUNTIME.all("ENTRYPOINT")[0])[0])
    version = _run([entrypoint, "--version"], cwd=tmp_path).stdout.splitlines()
    assert version[0] == f"dra-webhook {__version__}" and version[2].startswith("CEL engine: cel-")
    assert version[1] == "Kubernetes rules: 1.36 (default); --kubernetes-version 1.34, 1.35, 1.36, 1.37"
    assert "--cert-reload-interval" in _run([entrypoint, "serve", "--help"], cwd=tmp_path).stdout
    # the bundled driver profiles are package data of the wheel
    listed = _run([entrypoint, "profiles", "list"], cwd=tmp_path).stdout.splitlines()
    assert [line.split()[0] for line in listed] == ["compute-domain.nvidia.com", "dra.cpu", "dra.net",
                                                    "gpu.example.com", "gpu.nvidia.com"]

    # And it serves: every runtime dependency came along.
    port = free_port()
    process = subprocess.Popen([entrypoint, "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--cert-dir", str(tmp_path / "certs")], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Waits for an answer or for the process to end; the guard only stops a hang, it measures nothing.
        deadline, healthy = time.monotonic() + 300, False
        while time.monotonic() < deadline and not healthy and process.poll() is None:
            try:
                context = ssl.create_default_context(cafile=str(tmp_path / "certs" / "ca.crt"))
                healthy = httpx.get(f"https://127.0.0.1:{port}/healthz", verify=context).status_code == 200
            except (httpx.TransportError, FileNotFoundError, ssl.SSLError):
                time.sleep(0.1)
        assert healthy, process.stderr.read() if process.poll() is not None else "no /healthz answer"
    finally:
        process.terminate()
        process.wait(timeout=15)
