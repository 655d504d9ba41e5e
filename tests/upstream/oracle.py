"""The registry oracle of one release as a subprocess: JSON lines in, JSON lines out (cmd/oracle/oracle.go).

Binaries come from tests/upstream/build.sh (`make upstream`), cached outside the repository by tag.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Iterator

TAGS = {"1.34": "v1.34.4", "1.35": "v1.35.4", "1.36": "v1.36.3", "1.37": "v1.37.2"}
RELEASES = tuple(TAGS)
HERE = Path(__file__).resolve().parent
# The namespaces both sides know, for the admin-access check: one labelled for admin access, one not.
NAMESPACES = {"default": {}, "dra-admin": {"resource.kubernetes.io/admin-access": "true"}}
HOW_TO_GET = "run `make upstream` (needs Go >= 1.26 and the Go module proxy) to build the upstream oracles"


# Where build.sh puts the binaries, read once at import: the test session later points XDG_CACHE_HOME elsewhere.
_CACHE = Path(os.environ.get("DRA_WEBHOOK_UPSTREAM_CACHE")
              or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dra-webhook-upstream")


def cache_dir() -> Path:
    return _CACHE


def binary(release: str) -> Path:
    return cache_dir() / TAGS[release] / "oracle"


def missing(release: str) -> str:
    """Why the oracle of `release` cannot run here, or ""."""
    if not binary(release).is_file():
        return f"no upstream oracle for Kubernetes {release} at {binary(release)}: {HOW_TO_GET}"
    return ""


def build(releases: Iterable[str]) -> None:
    """Builds (or finds up to date) the oracles of `releases` with build.sh; raises if Go is missing."""
    if shutil.which("go") is None:
        raise RuntimeError(f"Go is not installed: {HOW_TO_GET}")
    env = dict(os.environ, UPSTREAM_RELEASES=" ".join(releases), UPSTREAM_PROGRAMS="oracle")
    subprocess.run(["bash", str(HERE / "build.sh")], check=True, env=env)


def gates(release: str) -> list[dict]:
    """The release's DRA feature gates as upstream declares them: name, default, locked, stage."""
    out = subprocess.run([str(binary(release)), "--list-gates"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def ask(release: str, requests: list[dict], *, gate_set: str = "default",
        namespaces: dict | None = None) -> list[dict]:
    """Every request's response, in order. `gate_set` is "default" (the release's defaults) or "all" (every DRA
    gate on); every version the release registers is served."""
    args = [str(binary(release)), "--runtime-config", "all", "--namespaces",
            json.dumps(NAMESPACES if namespaces is None else namespaces)]
    if gate_set == "all":
        args += ["--feature-gates", "dra-all"]
    # The oracle logs (klog: gate warnings, declarative-validation mismatches) to stderr, a file here: a pipe
    # nobody reads before the end would fill up and stop it.
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                            text=True, encoding="utf-8")

    def feed() -> None:
        try:
            for request in requests:
                proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    responses = [json.loads(line) for line in _lines(proc.stdout)]
    writer.join()
    proc.wait()
    log.seek(0)
    stderr = log.read()
    log.close()
    if proc.returncode != 0 or len(responses) != len(requests):
        raise RuntimeError(f"oracle {release} failed (exit {proc.returncode}, {len(responses)} of {len(requests)} "
                           f"answers): {stderr.strip()[-2000:]}")
    return responses


def _lines(stream) -> Iterator[str]:
    for line in stream:
        if line.strip():
            yield line
