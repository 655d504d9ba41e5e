"""Suite references stay inside the suite's directory (or --suite-root), and what they read is not echoed
(issue 37); each referenced file is read, parsed and composed once per run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support import cli as run_cli
from webhook import cli
from webhook.offline import loading

SECRET = "hunter2-do-not-print"
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}


def _suite(directory: Path, reference: str, expect: dict | None = None) -> Path:
    path = directory / "suite.yaml"
    path.write_text(json.dumps({"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", "tests": [
        {"name": "t", "object": reference, "expect": expect or {"allowed": True}}]}))
    return path


def _run(capsys, *argv: str) -> tuple[int, dict]:
    code = cli.main(["test", "-o", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def _messages(report: dict) -> list[str]:
    return [m["message"] for r in report["results"] for m in r["messages"]]


@pytest.fixture
def layout(tmp_path):
    """suites/ holds the suite; outside.json (a "secret") lies next to it, not inside."""
    (tmp_path / "outside.json").write_text(json.dumps({**CLASS, "metadata": {"name": SECRET}}))
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "inside.json").write_text(json.dumps(CLASS))
    return tmp_path


@pytest.mark.parametrize("reference,why", [
    ("../outside.json", "leads outside"),
    ("sub/../../outside.json", "leads outside"),
    ("{root}/outside.json", "an absolute path"),
    ("/proc/self/environ", "an absolute path"),
    ("/etc/hostname", "an absolute path"),
])
def test_references_out_of_the_suite_directory_are_refused(layout, capsys, reference, why):
    suite = _suite(layout / "suites", reference.format(root=layout))
    code, report = _run(capsys, str(suite))
    assert code == 2
    [result] = report["results"]
    assert result["verdict"] == "error"
    [message] = _messages(report)
    assert "refused" in message and why in message, message
    assert SECRET not in json.dumps(report)


def test_a_symbolic_link_out_of_the_directory_is_refused(layout, capsys):
    os.symlink(layout / "outside.json", layout / "suites" / "link.json")
    os.symlink("/proc/self/environ", layout / "suites" / "environ.json")
    for name in ("link.json", "environ.json"):
        code, report = _run(capsys, str(_suite(layout / "suites", name)))
        assert code == 2 and "leads outside" in _messages(report)[0], report
        assert SECRET not in json.dumps(report)


def test_a_symbolic_link_inside_the_directory_is_followed(layout, capsys):
    os.symlink("inside.json", layout / "suites" / "alias.json")
    code, report = _run(capsys, str(_suite(layout / "suites", "alias.json")))
    assert code == 0, report


def test_special_files_are_refused_without_blocking(layout):
    os.mkfifo(layout / "suites" / "pipe.yaml")
    (layout / "suites" / "dir.yaml").mkdir()
    for name, kind in (("pipe.yaml", "a FIFO"), ("dir.yaml", "a directory")):
        run = run_cli("test", "-o", "json", str(_suite(layout / "suites", name)), timeout=60)
        assert run.returncode == 2, run.stderr
        assert f"{kind}, not a regular file" in run.stdout


def test_suite_root_widens_what_may_be_read(layout, capsys):
    suite = _suite(layout / "suites", "../outside.json")
    code, report = _run(capsys, str(suite), "--suite-root", str(layout))
    assert code == 0, report
    code, report = _run(capsys, str(_suite(layout / "suites", "../../etc/hostname")), "--suite-root", str(layout))
    assert code == 2 and "leads outside" in _messages(report)[0]


def test_a_patched_mismatch_does_not_print_what_the_file_holds(layout, capsys):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "t", "namespace": "default", "labels": {"token": SECRET}},
             "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}
    (layout / "suites" / "claim.json").write_text(json.dumps(claim))
    expect = {"allowed": True, "patched": {
        "metadata": {"labels": {"token": "a guess"}, "namespace": ["x"]},
        "spec": {"spec": {"devices": {"requests": [{"exactly": {"count": 2}}]}}}}}
    code, report = _run(capsys, str(_suite(layout / "suites", "claim.json", expect)))
    assert code == 1
    messages = _messages(report)
    assert SECRET not in json.dumps(report)
    assert "patched: metadata.labels.token: expected 'a guess', got the value in the referenced file " \
           "(a string of 20 characters, not shown)" in messages, messages
    assert any("metadata.namespace: expected a list, got the value in the referenced file" in m for m in messages)
    # what defaulting added is the webhook's, not the file's: shown
    assert "patched: spec.spec.devices.requests[0].exactly.count: expected 2, got 1" in messages


def test_each_referenced_file_is_read_once_per_run(tmp_path, capsys, monkeypatch):
    """800 failing tests on one file read it once and place each document once (it was read and
    parsed again for every failing test)."""
    documents = [{**CLASS, "metadata": {"name": f"Bad_{i}"}} for i in range(40)]
    (tmp_path / "many.yaml").write_text("\n---\n".join(json.dumps(d) for d in documents))
    tests = [{"name": f"t{i}", "object": f"many.yaml#{i % 40}", "expect": {"allowed": True}} for i in range(800)]
    (tmp_path / "suite.yaml").write_text(json.dumps({"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite",
                                                     "tests": tests}))
    reads: list[str] = []
    real = loading.read_text
    monkeypatch.setattr(loading, "read_text", lambda path: reads.append(Path(path).name) or real(path))
    code, report = _run(capsys, str(tmp_path / "suite.yaml"))
    assert code == 1 and report["summary"]["failed"] == 800, report["summary"]
    assert all(m["line"] for r in report["results"] for m in r["messages"] if m.get("field"))
    assert reads.count("many.yaml") <= 2, reads.count("many.yaml")  # once to parse, once to place
