"""`dra-webhook test --output text|json|junit|github`: what CI systems and people read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from support import cli as run_cli
from support import valid_slice
from test_suite import run, suite, write

SUITE = """\
apiVersion: dra-webhook/v1alpha1
kind: TestSuite
name: mixed results
tests:
  - name: passes
    object: slice.yaml
    expect: {allowed: true}

  - name: fails, twice
    object: slice.yaml
    expect:
      allowed: false
      messageContains: "100%"
  - name: cannot run
    object: gone.yaml
    expect: {allowed: true}
"""


@pytest.fixture
def mixed(tmp_path) -> Path:
    write(tmp_path / "slice.yaml", valid_slice())
    return write(tmp_path / "suite.yaml", SUITE)


@pytest.fixture
def invalid(tmp_path) -> Path:
    return write(tmp_path / "invalid.yaml", "apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\ntests: []\nextra: 1\n")


def test_text(mixed, capsys):
    code, out, _ = run(capsys, str(mixed))
    assert out.splitlines() == [
        f"PASSED {mixed}:5: passes",
        f"FAILED {mixed}:9: fails, twice",
        "       expected denied, got allowed",
        "       status message does not contain '100%'; message: ''",
        f"ERROR  {mixed}:14: cannot run",
        f"       object: {mixed.parent / 'gone.yaml'}: cannot read: No such file or directory",
        "3 test(s): 1 passed, 1 failed, 1 error(s)",
    ]
    assert code == 2


def test_text_invalid_suite(invalid, capsys):
    code, out, _ = run(capsys, str(invalid))
    assert out.splitlines() == [
        f"{invalid}:4: invalid suite: unknown key 'extra' (known keys: apiVersion, kind, name, kubernetesVersion, featureGates, namespace, tests)",
        "0 test(s): 0 passed, 0 failed, 0 error(s); 1 invalid suite(s)",
    ]
    assert code == 2


def test_json(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "--output", "json")
    report = json.loads(out)
    assert report["summary"] == {"tests": 3, "passed": 1, "failed": 1, "errors": 1, "invalidSuites": 1}
    first, second = report["suites"]
    assert (first["file"], first["name"], first["errors"]) == (str(mixed), "mixed results", [])
    assert [(t["name"], t["line"], t["status"]) for t in first["tests"]] == [
        ("passes", 5, "passed"), ("fails, twice", 9, "failed"), ("cannot run", 14, "error")]
    assert first["tests"][0]["response"]["allowed"] is True and first["tests"][2]["response"] is None
    assert second["errors"] == [{"message": "unknown key 'extra' (known keys: apiVersion, kind, name, kubernetesVersion, featureGates, namespace, tests)",
                                 "line": 4}]
    assert code == 2


def test_junit_is_xml_ci_systems_parse(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "--output", "junit")
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "2")
    mixed_suite, invalid_suite = root.findall("testsuite")
    assert (mixed_suite.get("name"), mixed_suite.get("file"), mixed_suite.get("tests"),
            mixed_suite.get("failures"), mixed_suite.get("errors"), mixed_suite.get("skipped")) == \
        ("mixed results", str(mixed), "3", "1", "1", "0")
    cases = mixed_suite.findall("testcase")
    assert [(c.get("name"), c.get("classname"), c.get("line")) for c in cases] == [
        ("passes", str(mixed), "5"), ("fails, twice", str(mixed), "9"), ("cannot run", str(mixed), "14")]
    assert all(float(c.get("time")) >= 0 for c in cases)
    assert list(cases[0]) == []
    failure = cases[1].find("failure")
    assert failure.get("message") == "expected denied, got allowed"
    assert failure.text.splitlines()[1].startswith("status message does not contain")
    assert cases[2].find("error").get("type") == "TestError"
    (load_case,) = invalid_suite.findall("testcase")
    assert invalid_suite.get("errors") == "1" and load_case.get("line") == "4"
    assert "unknown key 'extra'" in load_case.find("error").get("message")
    assert code == 2


def test_junit_with_no_tests(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([]))
    code, out, _ = run(capsys, str(path), "--output", "junit", "--allow-empty")
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.get("tests") == "0" and root.find("testsuite").findall("testcase") == []
    assert code == 0


def test_github_annotations_point_at_the_suite_line(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "--output", "github")
    lines = out.splitlines()
    assert lines[0] == (f"::error file={mixed},line=9,title=failed%3A fails%2C twice::expected denied, got allowed"
                        f"%0Astatus message does not contain '100%25'; message: ''")
    assert re.fullmatch(rf"::error file={re.escape(str(mixed))},line=14,title=could not run%3A cannot run::"
                        r"object: .*gone\.yaml: cannot read: No such file or directory", lines[1])
    assert lines[2] == (f"::error file={invalid},line=4,title=invalid test suite::unknown key 'extra' "
                        f"(known keys: apiVersion, kind, name, kubernetesVersion, featureGates, namespace, tests)")
    assert lines[3] == "3 test(s): 1 passed, 1 failed, 1 error(s); 1 invalid suite(s)"
    assert code == 2


def test_github_passing_run_has_no_annotations(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([{"name": "p", "object": valid_slice(), "expect": {"allowed": True}}]))
    code, out, _ = run(capsys, str(path), "--output", "github")
    assert out == "1 test(s): 1 passed, 0 failed, 0 error(s)\n" and code == 0


# --- the same, as a user runs it (fresh processes) --------------------------------------------------


def test_subprocess_exit_codes_and_junit(mixed, tmp_path):
    passing = write(tmp_path / "ok/suite.yaml",
                    suite([{"name": "p", "object": valid_slice(), "expect": {"allowed": True}}]))
    result = run_cli("test", str(passing))
    assert (result.returncode, result.stdout.splitlines()[-1]) == (0, "1 test(s): 1 passed, 0 failed, 0 error(s)")
    failing = write(tmp_path / "ko/suite.yaml",
                    suite([{"name": "f", "object": valid_slice(), "expect": {"allowed": False}}]))
    result = run_cli("test", "-o", "junit", str(failing))
    assert result.returncode == 1
    assert ET.fromstring(result.stdout.split("\n", 1)[1]).get("failures") == "1"
    result = run_cli("test", str(tmp_path / "ok"), "--output", "yaml")
    assert result.returncode == 2 and "invalid choice" in result.stderr
    result = run_cli("test", str(tmp_path / "empty"))
    assert result.returncode == 2 and "no such file or directory" in result.stderr
