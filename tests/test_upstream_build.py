"""tests/upstream/build.sh's own inputs, with a stand-in `go` (no real build): a cache path with spaces and
quotes, Go sources with spaces in their names, and a binary swapped under a stamp that still matches."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE_GO = """#!/bin/sh
# go version | go build ... -o OUT PKG: writes a stand-in binary and logs what it built
if [ "$1" = version ]; then echo "go version go1.26.8 fake"; exit 0; fi
while [ $# -gt 1 ]; do [ "$1" = -o ] && out="$2"; shift; done
printf 'binary %s\\n' "$1" > "$out" && chmod +x "$out" && echo "$1" >> "$FAKE_GO_LOG"
"""


def _tree(tmp_path: Path) -> Path:
    here = tmp_path / "upstream"
    for module in ("kube-1.34", "kube-1.36"):
        (here / module / "cmd" / "oracle").mkdir(parents=True)
        (here / module / "go.mod").write_text("module example.com/x\n")
        (here / module / "cmd" / "oracle" / "main.go").write_text("package main\n")
    shutil.rmtree(here / "kube-1.36" / "cmd")
    shutil.copy(ROOT / "tests" / "upstream" / "build.sh", here / "build.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text(FAKE_GO)
    (bin_dir / "go").chmod(0o755)
    return here


def _run(here: Path, cache: Path | str, log: Path, cwd: Path | None = None) -> list[str]:
    log.write_text("")
    env = {**os.environ, "PATH": f"{here.parent / 'bin'}:{os.environ['PATH']}", "FAKE_GO_LOG": str(log),
           "DRA_WEBHOOK_UPSTREAM_CACHE": str(cache), "UPSTREAM_RELEASES": "1.34",
           "UPSTREAM_SERVER_RELEASES": "1.36"}  # the two modules _tree makes
    result = subprocess.run(["bash", str(here / "build.sh")], capture_output=True, text=True, timeout=120, env=env,
                            cwd=cwd)
    assert result.returncode == 0, result.stderr
    return log.read_text().split()


def test_build_rebuilds_what_changed_and_what_was_swapped(tmp_path):
    here = _tree(tmp_path)
    cache = tmp_path / "a cache $(touch pwned) 'q'"
    log = tmp_path / "built.log"
    assert sorted(_run(here, cache, log)) == ["./cmd/oracle", "k8s.io/kubernetes/cmd/kube-apiserver",
                                              "k8s.io/kubernetes/cmd/kubectl"]
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    assert _run(here, cache, log) == []  # up to date
    # A binary replaced under a stamp that still matches its inputs (stale, or another build's): rebuilt.
    apiserver = next(cache.glob("*/kube-apiserver"))
    apiserver.write_text("#!/bin/sh\necho not the binary that was built\n")
    assert _run(here, cache, log) == ["k8s.io/kubernetes/cmd/kube-apiserver"]
    # A Go source whose name has a space is part of the inputs (it was split into two names, and the run failed).
    (here / "kube-1.34" / "cmd" / "oracle" / "a b.go").write_text("package main\n")
    assert _run(here, cache, log) == ["./cmd/oracle"]
    assert not list(cache.rglob("*.tmp*"))


def test_a_relative_cache_directory_is_the_callers(tmp_path):
    # `go build -o` runs in the module's directory: a relative cache put the binary there, and the run failed.
    here = _tree(tmp_path)
    log = tmp_path / "built.log"
    assert len(_run(here, "rel cache", log, cwd=tmp_path)) == 3
    assert (tmp_path / "rel cache").is_dir() and not (here / "kube-1.34" / "rel cache").exists()
    assert _run(here, "rel cache", log, cwd=tmp_path) == []
