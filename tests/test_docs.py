"""Docs are tests: every command shown in README.md and docs/ is run and its output and exit code compared,
and every fenced manifest is reviewed by the product's own Markdown reading with the verdict the page says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import docs_examples
from docs_examples import ROOT, Block, Command

BIN = Path(sys.executable).parent
NOW = "2026-01-01T00:00:00Z"
COMMANDS = docs_examples.all_commands()


def workdir(tmp_path: Path) -> Path:
    """What a reader has in a clone, copied, so that what a command writes stays out of the repository."""
    for name in ("examples", "deploy", "schemas", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("hooks"))
    shutil.copy2(ROOT / "README.md", tmp_path / "README.md")
    return tmp_path


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "COLUMNS")}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", SOURCE_DATE_EPOCH="1767225600")
    return subprocess.run(["bash", "--noprofile", "--norc", "-c", f"set -o pipefail\n{command}"], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                          env=env, timeout=300)


def test_the_docs_have_examples_and_each_states_its_exit_code():
    assert len([c for c in COMMANDS if c.output is not None]) >= 15, "console examples went missing"
    missing = [f"{c.file}:{c.line}: {c.command}" for c in COMMANDS if c.exit is None]
    assert not missing, "commands that do not state `# exit N`:\n" + "\n".join(missing)


@pytest.mark.parametrize("example", COMMANDS, ids=[f"{c.file}:{c.line}:{c.command[:60]}" for c in COMMANDS])
def test_example_runs_as_shown(example: Command, tmp_path):
    result = run(example.command, workdir(tmp_path))
    assert "Traceback" not in result.stdout, result.stdout
    assert result.returncode == example.exit, f"{example.command}\n{result.stdout}"
    if example.output is not None:
        shown = "\n".join(example.output)
        assert docs_examples.output_matches(example.output, result.stdout.splitlines()), (
            f"{example.file}:{example.line}: `{example.command}` printed something else than the page shows.\n"
            f"--- shown\n{shown}\n--- printed\n{result.stdout}")


def test_output_matching_is_strict_about_what_it_compares():
    assert docs_examples.output_matches(["a", "b"], ["a", "b"])
    assert not docs_examples.output_matches(["a", "b"], ["a", "c"])
    assert not docs_examples.output_matches(["a"], ["a", "b"])
    assert docs_examples.output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert not docs_examples.output_matches(["a", "...", "z"], ["a", "b", "c"])
    assert docs_examples.output_matches(["a", "...", "m", "...", "z"], ["a", "m", "z"])
    assert not docs_examples.output_matches(["a", "...", "q", "...", "z"], ["a", "m", "z"])


def _reviews(paths: list[str], cwd: Path) -> list[dict]:
    result = subprocess.run([str(BIN / "dra-webhook"), "review", "--markdown", "-o", "json", "-v", "--now", NOW,
                             *paths], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)["results"]


def _block_of(blocks: list[Block], line: int) -> Block | None:
    """The fenced block a result's line falls in."""
    for block in blocks:
        if block.line < line <= block.line + len(block.lines):
            return block
    return None


def _not_a_manifest(result: dict) -> bool:
    """A block of YAML that is no Kubernetes object at all (a CI workflow, a pre-commit config)."""
    return result["verdict"] == "fragment" and [m["message"] for m in result["messages"]] == [
        "fragment, not checked: no apiVersion and kind"]


def test_every_fenced_manifest_gets_the_verdict_its_page_says():
    paths = [str(p.relative_to(ROOT)) for p in docs_examples.documents()]
    results = _reviews(paths, ROOT)
    blocks = {p: docs_examples.blocks(ROOT / p) for p in paths}
    checked, wrong = 0, []
    marked_seen: set[tuple[str, int]] = set()
    for result in results:
        if result["verdict"] == "skipped" and not result.get("line"):
            continue  # a page without any manifest
        block = _block_of(blocks[result["file"]], result["line"])
        assert block is not None, f"{result['file']}:{result['line']}: a manifest outside any fenced block"
        if block.expect:
            marked_seen.add((block.file, block.line))
        if block.expect:
            expected = block.expect
        elif result["verdict"] == "skipped":
            expected = "skipped"  # outside resource.k8s.io, or no object at all
        elif _not_a_manifest(result):
            expected = "fragment"
        else:
            expected = "allowed"
        checked += expected in ("allowed", "denied")
        if result["verdict"] != expected or (expected == "allowed" and result["warnings"] and not block.expect):
            wrong.append(f"{result['file']}:{result['line']} {result['name']}: {result['verdict']}, expected "
                         f"{expected}: {result['messages']} {result['warnings']}")
    assert not wrong, "\n".join(wrong)
    marked = {(b.file, b.line) for bs in blocks.values() for b in bs if b.expect}
    assert marked == marked_seen, f"an expected verdict on a block the review does not read: {marked - marked_seen}"
    assert checked >= 8, f"only {checked} manifests were checked in the docs"


def test_a_wrong_manifest_in_a_page_would_fail(tmp_path):
    """The check above can fail: a page whose manifest the API server refuses, without saying so."""
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n```yaml\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
                    "  name: Not_A_Name\n```\n")
    (result,) = _reviews([str(page)], tmp_path)
    assert result["verdict"] == "denied"
    block = _block_of(docs_examples.blocks(page), result["line"])
    assert block is not None and block.expect is None
