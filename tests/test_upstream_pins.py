"""tests/upstream/kube-1.3X: each release's Go module builds upstream's code at upstream's own pins.

`go list -m all` of the module (what the build really selects) against the `go.mod` of k8s.io/kubernetes at the
release's tag (from the module cache, `go mod download -json`): every module upstream requires is selected at
upstream's version, each staging module (required at v0.0.0 upstream, replaced by ./staging) is replaced by
the staging repository at the matching v0.3X.Y, and nothing else is in the build. A module requiring anything
besides k8s.io/kubernetes would let MVS raise cel-go, grpc or etcd above upstream's pins.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import realserver

pytestmark = pytest.mark.upstream

UPSTREAM = Path(__file__).resolve().parent / "upstream"
GO = shutil.which("go")
# The packages tests/upstream/build.sh builds from these modules (and tools.go keeps in them).
BUILT = ("k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kubectl")


def _go(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=readonly"}
    result = subprocess.run([GO, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, f"go {' '.join(args)}: {result.stderr}"
    return result.stdout


def _requirements(go_mod: str, direct_only: bool = False) -> dict[str, str]:
    """The `require` lines of a go.mod: module -> version (only those not marked `// indirect`)."""
    out = {}
    in_block = False
    for line in go_mod.splitlines():
        if direct_only and "// indirect" in line:
            continue
        line = line.split("//")[0].strip()
        if line.startswith("require ("):
            in_block = True
            continue
        if in_block and line == ")":
            in_block = False
            continue
        match = re.fullmatch(r"(?:require\s+)?(\S+)\s+(v\S+)", line) if (in_block or line.startswith("require ")) else None
        if match:
            out[match[1]] = match[2]
    return out


def _selected(module_dir: Path) -> dict[str, tuple[str, str | None]]:
    """`go list -m all`: module -> (version, replacement version or None); the main module left out."""
    out = {}
    for line in _go("list", "-m", "all", cwd=module_dir).splitlines()[1:]:
        parts = line.split()
        if "=>" in parts:
            out[parts[0]] = (parts[1], parts[-1])
        else:
            out[parts[0]] = (parts[1], None)
    return out


@pytest.mark.parametrize("release", sorted(realserver.TAGS))
def test_kube_module_selects_upstream_pins(release):
    if GO is None:
        realserver.skip_or_fail("Go is not installed")
    tag = realserver.TAGS[release]
    staging_version = "v0." + tag[len("v1."):]
    module_dir = UPSTREAM / f"kube-{release}"
    info = json.loads(_go("mod", "download", "-json", f"k8s.io/kubernetes@{tag}", cwd=module_dir))
    upstream = _requirements(Path(info["GoMod"]).read_text())
    assert "k8s.io/api" in upstream and "github.com/google/cel-go" in upstream  # the go.mod parsed, not empty
    # Required directly: k8s.io/kubernetes, and staging modules as upstream requires them (v0.0.0, replaced).
    direct = _requirements((module_dir / "go.mod").read_text(), direct_only=True)
    assert direct.pop("k8s.io/kubernetes") == tag
    assert all(upstream.get(module) == version == "v0.0.0" for module, version in direct.items()), direct

    selected = _selected(module_dir)
    assert selected.pop("k8s.io/kubernetes") == (tag, None)
    wrong = {}
    for module, version in upstream.items():
        got = selected.get(module)
        if version == "v0.0.0":  # a staging module: replaced by the staging repository at the same release
            if got is None or got[1] != staging_version:
                wrong[module] = (f"=> {staging_version}", got)
        elif got is None or got[0] != version or got[1] not in (None, version):
            wrong[module] = (version, got)
    assert not wrong, f"{release}: modules away from k8s.io/kubernetes@{tag}'s go.mod: {wrong}"
    # Nothing built that upstream's go.mod does not list (`go list -m all` also names modules the graph only
    # mentions, so ask which modules the built packages come from).
    built = set(_go("list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", *BUILT, cwd=module_dir).split())
    built.discard(f"dra-webhook.test/upstream/kube{release}")
    assert len(built) > 50
    extra = sorted(built - set(upstream) - {"k8s.io/kubernetes"})
    assert not extra, f"{release}: built from modules upstream's go.mod does not require: {extra}"
