"""The reporters `review` and `test` share: text, json, junit, github, sarif, tap, each checked against what
its readers expect (JUnit against an XSD, SARIF against a schema written from the 2.1.0 specification)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import xmlschema
import yaml

from support import cli as run_cli
from support import valid_slice
from test_suite import run, suite, write
from webhook import cli

SCHEMAS = Path(__file__).resolve().parent / "schemas"
JUNIT = xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd"))
SARIF = json.loads((SCHEMAS / "sarif-2.1.0-subset.json").read_text())
FORMATS = ("text", "json", "junit", "github", "sarif", "tap")

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


@pytest.fixture
def manifests(tmp_path) -> Path:
    """One of each review verdict: allowed, allowed with a warning, denied, skipped, unreadable."""
    fine, warned, bad = (valid_slice(name=name) for name in ("fine", "warned", "Bad_Name"))
    for one_pool_each in (fine, warned, bad):  # no pool-level warnings between them
        one_pool_each["spec"]["pool"]["name"] = one_pool_each["metadata"]["name"].lower().replace("_", "-")
    warned["spec"]["driver"] = "Gpu.example.com"  # allowed, with the API server's lowercase warning
    write(tmp_path / "m/a.yaml", [fine, warned, bad,
                                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}])
    write(tmp_path / "m/b.yaml", "spec: [unclosed\n")
    return tmp_path / "m"


def review(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["review", *argv])
    return code, capsys.readouterr().out


# --- text and json ----------------------------------------------------------------------------------


def test_test_text(mixed, capsys):
    code, out, _ = run(capsys, str(mixed))
    assert out.splitlines() == [
        f"{mixed}:9: fails, twice: failed",
        "  expected denied, got allowed",
        "  status message does not contain '100%'; message: ''",
        f"{mixed}:14: cannot run: error",
        f"  object: {mixed.parent / 'gone.yaml'}: cannot read: No such file or directory",
        "3 test(s): 1 passed, 1 failed, 1 error, 0 invalid suite",
        "exit 1: 1 failed; also 1 could not be used",
    ]
    assert code == 1


def test_review_json_summary_counts_every_verdict(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "json")
    report = json.loads(out)
    assert [r["verdict"] for r in report["results"]] == ["allowed", "allowed", "denied", "skipped", "unreadable"]
    summary = report["summary"]
    assert (summary["total"], summary["allowed"], summary["denied"], summary["skipped"], summary["unreadable"],
            summary["exitCode"]) == (5, 2, 1, 1, 1, 1)
    assert report["results"][1]["warnings"] == [
        'spec.driver: driver names should be lowercase; "Gpu.example.com" contains uppercase characters']
    assert code == 1


# --- junit ------------------------------------------------------------------------------------------


def test_junit_for_test_validates_and_points_at_lines(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "--output", "junit")
    JUNIT.validate(out)
    root = ET.fromstring(out.split("\n", 1)[1])
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "2")
    mixed_suite, invalid_suite = root.findall("testsuite")
    assert (mixed_suite.get("name"), mixed_suite.get("file"), mixed_suite.get("tests")) == \
        ("mixed results", str(mixed), "3")
    cases = mixed_suite.findall("testcase")
    assert [(c.get("name"), c.get("classname"), c.get("line")) for c in cases] == [
        ("passes", "mixed results", "5"), ("fails, twice", "mixed results", "9"), ("cannot run", "mixed results", "14")]
    failure = cases[1].find("failure")
    assert failure.get("message") == "expected denied, got allowed"
    assert failure.text.splitlines()[1].startswith("status message does not contain")
    assert cases[2].find("error") is not None
    (load_case,) = invalid_suite.findall("testcase")
    assert load_case.get("line") == "4" and "unknown key 'extra'" in load_case.find("error").get("message")
    assert code == 1


def test_junit_for_review_validates(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "junit")
    JUNIT.validate(out)
    root = ET.fromstring(out.split("\n", 1)[1])
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("5", "1", "1", "1")
    a, b = root.findall("testsuite")
    assert [c.get("name") for c in a.findall("testcase")] == [
        "ResourceSlice/fine (CREATE) #0", "ResourceSlice/warned (CREATE) #1", "ResourceSlice/Bad_Name (CREATE) #2",
        "ConfigMap/c (CREATE) #3"]
    system_out = a.findall("testcase")[1].find("system-out").text
    assert system_out.startswith("warning [uppercase-driver]: spec.driver: driver names")
    assert b.find("testcase").find("error").get("message").startswith("cannot parse: ")


def test_junit_rejects_what_its_readers_reject():
    # the schema is not a formality: a case without a name, or a negative count, does not validate
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        JUNIT.validate('<testsuites tests="-1" failures="0" errors="0"/>')
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        JUNIT.validate('<testsuites tests="1" failures="0" errors="0"><testsuite name="s" tests="1" failures="0" '
                       'errors="0" skipped="0" time="0"><testcase classname="c" time="0"/></testsuite></testsuites>')


def test_junit_with_no_tests(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([]))
    code, out, _ = run(capsys, str(path), "--output", "junit", "--allow-empty")
    JUNIT.validate(out)
    assert ET.fromstring(out.split("\n", 1)[1]).get("tests") == "0" and code == 0


# --- sarif ------------------------------------------------------------------------------------------


def test_sarif_for_review_validates_with_a_result_per_cause_and_warning(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, SARIF, format_checker=jsonschema.FormatChecker())
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("warning/uppercase-driver", "warning"), ("FieldValueInvalid", "error"), ("unreadable", "error")]
    denied = results[1]
    assert denied["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": str(manifests / "a.yaml")}, "region": {"startLine": 48, "startColumn": 3}}
    lines = (manifests / "a.yaml").read_text().splitlines()
    assert lines[47] == "  name: Bad_Name"
    assert denied["message"]["text"].startswith("ResourceSlice/Bad_Name (CREATE): metadata.name: Invalid value")
    rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {"warning/uppercase-driver", "FieldValueInvalid", "unreadable"}
    assert code == 1


def test_sarif_for_test_validates(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "-o", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, SARIF, format_checker=jsonschema.FormatChecker())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["failed", "error", "invalid suite"]


def test_sarif_schema_rejects_what_the_specification_rejects():
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "level": "error",
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.yaml"}, "region": {"startLine": 1}}}]}]}]}
    jsonschema.validate(good, SARIF)
    for path, value in ((("level",), "fatal"), (("locations", 0, "physicalLocation", "region", "startLine"), 0),
                        (("message",), {}), (("rule",), "x")):
        bad = json.loads(json.dumps(good))
        target = bad["runs"][0]["results"][0]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SARIF)


# --- github and tap ---------------------------------------------------------------------------------


def test_github_annotations_point_at_the_line(mixed, invalid, capsys):
    code, out, _ = run(capsys, str(mixed), str(invalid), "--output", "github")
    lines = out.splitlines()
    assert lines[0] == (f"::error file={mixed},line=9,title=fails%2C twice%3A failed::expected denied, got allowed"
                        f"%0Astatus message does not contain '100%25'; message: ''")
    assert re.fullmatch(rf"::error file={re.escape(str(mixed))},line=14,title=cannot run%3A error::"
                        r"object: .*gone\.yaml: cannot read: No such file or directory", lines[1])
    assert lines[2].startswith(f"::error file={invalid},line=4,title=(load suite)%3A invalid suite::"
                               f"unknown key 'extra'")
    assert lines[3:] == ["4 test(s): 1 passed, 1 failed, 1 error, 1 invalid suite",
                         "exit 1: 1 failed; also 2 could not be used"]


def test_github_for_review_has_errors_and_warnings(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "github")
    levels = [line.split(" ", 1)[0] for line in out.splitlines() if line.startswith("::")]
    assert levels == ["::warning", "::error", "::error"]
    assert f"::error file={manifests / 'a.yaml'},line=48,col=3,title=ResourceSlice/Bad_Name (CREATE)%3A denied::" in out


def test_github_passing_run_has_no_annotations(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([{"name": "p", "object": valid_slice(), "expect": {"allowed": True}}]))
    code, out, _ = run(capsys, str(path), "--output", "github")
    assert not any(line.startswith("::") for line in out.splitlines()) and code == 0


TAP_LINE = re.compile(r"^(ok|not ok) (\d+) - (.*?)( # SKIP .*)?$")


def test_tap_for_review_is_tap_13(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "tap")
    lines = out.splitlines()
    assert lines[:2] == ["TAP version 13", "1..5"]
    points = [TAP_LINE.match(line) for line in lines if TAP_LINE.match(line)]
    assert [(p[1], int(p[2]), bool(p[4])) for p in points] == [
        ("ok", 1, False), ("ok", 2, False), ("not ok", 3, False), ("ok", 4, True), ("not ok", 5, False)]
    # every YAML diagnostic block is indented, opened with --- and closed with ...
    blocks = re.findall(r"^  ---\n(.*?)^  \.\.\.$", out, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 3 and all(all(line.startswith("  ") for line in b.splitlines()) for b in blocks)
    assert lines[-1] == "# exit 1: 1 denied; also 1 could not be used"


def test_tap_for_test(mixed, capsys):
    code, out, _ = run(capsys, str(mixed), "-o", "tap")
    assert [line.split(" - ")[0] for line in out.splitlines() if TAP_LINE.match(line)] == ["ok 1", "not ok 2",
                                                                                          "not ok 3"]


# --- every format, both commands, fresh processes ----------------------------------------------------


@pytest.mark.parametrize("output", FORMATS)
def test_every_format_for_both_commands_keeps_the_exit_code(output, mixed, manifests):
    assert run_cli("test", str(mixed), "-o", output).returncode == 1
    assert run_cli("review", str(manifests), "-o", output).returncode == 1


def test_subprocess_exit_codes_and_usage(mixed, tmp_path):
    passing = write(tmp_path / "ok/suite.yaml",
                    suite([{"name": "p", "object": valid_slice(), "expect": {"allowed": True}}]))
    result = run_cli("test", str(passing))
    assert (result.returncode, result.stdout.splitlines()[-1]) == (0, "exit 0: every test passed")
    result = run_cli("test", str(tmp_path / "ok"), "--output", "yaml")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_columns_past_an_emoji_count_code_points_in_text_and_json_utf16_units_for_github(tmp_path, capsys):
    # Two characters past the BMP before the field on its line: a code point each, two UTF-16 units each.
    text = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
            'metadata: {annotations: {note: "\U0001F680\U0001F680 fast"}, name: Bad_Name}\n')
    path = write(tmp_path / "emoji.yaml", text)
    line = text.splitlines()[2]
    points = line.index("name: Bad_Name") + 1
    units = len(line[:points - 1].encode("utf-16-le")) // 2 + 1
    assert units == points + 2
    code, out = review(capsys, str(path), "-o", "json")
    [message] = json.loads(out)["results"][0]["messages"]
    assert (message["line"], message["column"]) == (3, points)
    code, out = review(capsys, str(path))
    assert f"  {path}:3:{points}: metadata.name: Invalid value" in out
    code, out = review(capsys, str(path), "-o", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, SARIF, format_checker=jsonschema.FormatChecker())
    assert log["runs"][0]["columnKind"] == "utf16CodeUnits"
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": units}
    assert line.encode("utf-16-le")[2 * (units - 1):].decode("utf-16-le").startswith("name: Bad_Name")
    code, out = review(capsys, str(path), "-o", "github")
    assert f"::error file={path},line=3,col={units},title=" in out
    assert code == 1


def test_tap_diagnostics_put_each_cause_at_its_line_and_column(manifests, capsys):
    code, out = review(capsys, str(manifests), "-o", "tap")
    blocks = re.findall(r"^  ---\n(.*?)^  \.\.\.$", out, re.MULTILINE | re.DOTALL)
    denied = yaml.safe_load(blocks[1])  # the YAML block is YAML: what TAP 13 readers parse
    file = str(manifests / "a.yaml")
    assert denied["verdict"] == "denied"
    assert denied["messages"][0].startswith(f"{file}:48:3: metadata.name: Invalid value")
    assert denied["at"] == {"file": file, "line": 48, "column": 3}
    assert (manifests / "a.yaml").read_text().splitlines()[47][2:].startswith("name: Bad_Name")
    assert "at" not in yaml.safe_load(blocks[2])  # unreadable: a line, no field to point at
    assert code == 1
