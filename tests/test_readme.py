"""The README's shell examples, run as written: `make run`'s server with the curl calls, and every
`dra-webhook` command line (in a copy of the repository's examples, so nothing is written into it)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def shell_lines(markdown: str) -> list[str]:
    """The command lines of the ```sh blocks, continuation lines joined, comments kept."""
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", markdown, re.MULTILINE | re.DOTALL):
        pending = ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            lines.append(pending + line)
            pending = ""
    return [line for line in lines if line.strip()]


def make_target(name: str) -> str:
    """The command of a one-line Makefile target, with $(BIN)/ dropped (the test's PATH has it)."""
    makefile = (ROOT / "Makefile").read_text()
    command = re.search(rf"^{name}:.*\n\t(.+)$", makefile, re.MULTILINE)[1]
    return command.replace("$(BIN)/", "")


@pytest.fixture
def workdir(tmp_path) -> Path:
    for name in ("examples", "deploy"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def run(line: str, cwd: Path, port: int | None = None) -> subprocess.CompletedProcess:
    if port is not None:
        line = line.replace("8443", str(port))
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["bash", "-c", f"set -o pipefail; {line}"], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


def test_the_readme_has_the_examples_this_test_runs():
    lines = shell_lines((ROOT / "README.md").read_text())
    assert sum(line.startswith("curl ") for line in lines) == 2
    assert sum("dra-webhook " in line for line in lines) >= 8


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is installed by .ci/run")
def test_quick_start_server_and_curl(workdir):
    """`make run`'s command, then the README's curl calls against it over TLS with the generated CA."""
    port = free_port()
    serve = make_target("run").replace("8443", str(port))
    assert serve.startswith("dra-webhook serve ") and "--cert-dir certs" in serve
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONUNBUFFERED": "1"}
    log = open(workdir / "serve.log", "w")
    process = subprocess.Popen(shlex.split(serve), cwd=workdir, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        curls = [line for line in shell_lines((ROOT / "README.md").read_text()) if line.startswith("curl ")]
        deadline = time.monotonic() + 30
        while run(curls[0], workdir, port).returncode != 0:
            assert process.poll() is None and time.monotonic() < deadline, (workdir / "serve.log").read_text()
            time.sleep(0.2)
        for line in curls:
            result = run(line + " --fail --silent --show-error", workdir, port)
            assert result.returncode == 0, result.stderr
        assert '"allowed":true' in result.stdout.replace(" ", "")
    finally:
        stop_process(process)
        log.close()


def test_every_dra_webhook_command_line_runs(workdir):
    lines = [line for line in shell_lines((ROOT / "README.md").read_text())
             if "dra-webhook " in line and not line.startswith(("curl ", "kubectl ")) and "[" not in line]
    assert lines
    for line in lines:
        result = run(line, workdir)
        # 0 or 1 (a verdict): never a usage error (2) or a crash
        assert result.returncode in (0, 1), f"{line}\n{result.stdout}\n{result.stderr}"
        assert "Traceback" not in result.stderr, line
