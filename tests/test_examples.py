"""The examples are a test suite of their own: `dra-webhook test examples/` must pass."""

from __future__ import annotations

from pathlib import Path

from support import cli

ROOT = Path(__file__).resolve().parent.parent


def test_examples_suite_passes():
    result = cli("test", "examples/", cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].endswith(" 0 failed, 0 error(s)")
