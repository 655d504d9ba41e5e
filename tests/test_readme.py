"""The README's quick start, run as written: `make run`'s server with the curl calls, and the offline
commands in a fresh clone. Every other example of the README (and of docs/) is run, with its output and
stated exit code, by tests/test_docs.py."""

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

import docs_examples
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
    return command.replace("$(BIN)/", "").replace("$(PORT)", "8443")


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
    assert any(line.startswith("dra-webhook ") for line in lines)


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


def test_every_readme_command_states_its_exit_code():
    """Each `dra-webhook` example of the README says the exit code it must end with (`# exit N`), which
    tests/test_docs.py checks when it runs it, with its output: never "0 or 1, whichever"."""
    commands = [c for c in docs_examples.all_commands() if c.file == "README.md"]
    assert len(commands) >= 4
    assert all(c.exit is not None for c in commands), [c.command for c in commands if c.exit is None]
    assert {c.exit for c in commands} >= {0, 1}  # passing and failing examples both shown


def quick_start() -> list[str]:
    """The shell lines of the README's Quick start section, in order."""
    section = (ROOT / "README.md").read_text().split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    return shell_lines(section)


def fresh_clone(tmp_path: Path) -> Path:
    """The repository's tracked files, as a clone has them, with `make install` already done the way it
    would be done offline: a .venv whose python finds this clone's code and the installed dependencies
    (the test environment's), and its `dra-webhook` script. No package index is reached."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    venv = clone / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    site = next(venv.glob("lib/python*/site-packages"))
    dependencies = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (site / "clone.pth").write_text(f"{clone}\n{dependencies}\n")
    script = venv / "bin" / "dra-webhook"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom webhook.cli import entry\n"
                      "if __name__ == '__main__':\n    sys.exit(entry())\n")  # as pip writes console scripts
    script.chmod(0o755)
    earlier = time.time() - 60
    os.utime(clone / "pyproject.toml", (earlier, earlier))  # older than the script: make's install is done
    return clone


@pytest.mark.skipif(shutil.which("curl") is None or shutil.which("make") is None, reason="curl and make: .ci/run")
def test_quick_start_runs_as_printed_in_a_fresh_clone(tmp_path):
    """Every line of the quick start, in order, in one shell: `make run` (on a free port, stopped at the end),
    the curl calls against it, and then the offline commands as printed, with only the system's PATH (no
    `dra-webhook` on it but what the quick start puts there). `make test` is this suite itself: not run."""
    clone = fresh_clone(tmp_path)
    lines = quick_start()
    assert lines[0].startswith("make run") and any(line.startswith("dra-webhook ") for line in lines)
    port = free_port()
    system_path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                  if p and not (Path(p) / "dra-webhook").exists() and Path(p) != BIN)
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "VIRTUAL_ENV")}
    env.update(PATH=system_path, PYTHONUNBUFFERED="1")
    log = open(tmp_path / "make-run.log", "w")
    server = subprocess.Popen(["make", "run", f"PORT={port}"], cwd=clone, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        curls = [line.replace("8443", str(port)) for line in lines if line.startswith("curl ")]
        deadline = time.monotonic() + 60
        while subprocess.run(["bash", "-c", curls[0]], cwd=clone, env=env, capture_output=True).returncode != 0:
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "make-run.log").read_text()
            time.sleep(0.2)
        rest = [line.replace("8443", str(port)) + (" --fail --silent --show-error" if line.startswith("curl ") else "")
                for line in lines if not line.startswith(("make run", "make test"))]
        script = "set -e -o pipefail\n" + "\n".join(rest) + "\n"
        result = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=clone, env=env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"{script}\n{result.stdout}\n{result.stderr}"
        assert "exit 0: every object passed" in result.stdout
    finally:
        os.killpg(server.pid, 15)  # make and the server it started
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()
        log.close()


@pytest.mark.skipif(shutil.which("make") is None, reason="make: .ci/run")
def test_make_says_to_install_python3_venv_where_venv_fails(tmp_path):
    """A fresh Debian's python3 without python3-venv: `python3 -m venv` fails (ensurepip is missing), and
    make says what to install instead of leaving a half-made .venv behind."""
    shutil.copy2(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    python = tmp_path / "python3"
    # Debian's python3 without the venv module: the directory is made, then ensurepip is missing
    python.write_text('#!/bin/sh\nif [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; '
                      'echo "The virtual environment was not created successfully because ensurepip is not '
                      'available." >&2; exit 1; fi\nexec python3 "$@"\n')
    python.chmod(0o755)
    result = subprocess.run(["make", "install", f"PYTHON={python}"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0
    assert "sudo apt-get install python3-venv" in result.stderr and not (tmp_path / ".venv").exists()
