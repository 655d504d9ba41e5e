"""The examples are a test suite of their own: `dra-webhook test examples/` must pass."""

from __future__ import annotations

from pathlib import Path

from support import cli

ROOT = Path(__file__).resolve().parent.parent


def test_examples_suite_passes():
    result = cli("test", "examples/", cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed, 0 error, 0 invalid suite" in result.stdout.splitlines()[-2]
    assert result.stdout.splitlines()[-1] == "exit 0: every test passed"
