"""One line break for every position (issue 37): "\\r\\n", "\\r" or "\\n", as YAML 1.2, CommonMark and GitHub
count lines; libyaml's NEL, U+2028 and U+2029 breaks are not lines of the file."""

from __future__ import annotations

import json

import pytest

from webhook.offline import lines

SEPARATORS = {"NEL": "\x85", "LS": "\u2028", "PS": "\u2029"}

CLAIM = ('apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: default\n'
         '  annotations:\n    note: "one{sep}two{sep}three"\n    other: "é{sep}"\nspec:\n  devices:\n'
         '    requests:\n    - name: Bad_Name\n      exactly:\n        deviceClassName: gpu\n')
BAD_LINE = 12  # "    - name: Bad_Name", counted as every editor and GitHub count it


def test_the_definition():
    assert lines.split_lines("a\r\nb\rc\nd\u2028e\x85f") == ["a", "b", "c", "d\u2028e\x85f"]
    assert lines.count_breaks("a\r\nb\rc\nd\u2028e\x85f\u2029") == 3


@pytest.mark.parametrize("name", SEPARATORS)
def test_review_reports_the_file_line(tmp_path, capsys, name):
    from webhook import cli

    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(sep=SEPARATORS[name]), encoding="utf-8")
    for output in ("text", "json", "sarif", "github"):
        assert cli.main(["review", "-o", output, str(path)]) == 1
        out = capsys.readouterr().out
        if output == "text":
            assert f"claim.yaml:{BAD_LINE}:7: spec.devices.requests[0].name" in out, out
        elif output == "json":
            found = [m for r in json.loads(out)["results"] for m in r["messages"] if m.get("field")]
            assert [(m["line"], m["column"]) for m in found] == [(BAD_LINE, 7)], found
        elif output == "sarif":
            region = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
            assert (region["startLine"], region["startColumn"]) == (BAD_LINE, 7), region
        else:
            assert f"line={BAD_LINE},col=7" in out, out


def test_markdown_block_after_a_separator_keeps_its_lines(tmp_path, capsys):
    from webhook import cli

    body = CLAIM.format(sep="\u2028")
    path = tmp_path / "doc.md"
    path.write_text(f"# Title\u2028with a separator\n\n```yaml\n{body}```\n", encoding="utf-8")
    assert cli.main(["review", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"doc.md:{BAD_LINE + 3}:7: spec.devices.requests[0].name" in out, out


def test_documents_after_a_separator_start_on_their_lines(tmp_path, capsys):
    from webhook import cli

    path = tmp_path / "two.yaml"
    first = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "a\u2028b\u2028c"}\n'
    path.write_text(first + "---\n" + CLAIM.format(sep=""), encoding="utf-8")
    cli.main(["review", str(path)])
    out = capsys.readouterr().out
    assert f"two.yaml:{BAD_LINE + 4}:7: spec.devices.requests[0].name" in out, out


def test_a_parse_error_is_reported_on_the_file_line(tmp_path, capsys):
    from webhook import cli

    path = tmp_path / "broken.yaml"
    path.write_text('a: "x\u2028y\u2028z"\nb: [\n', encoding="utf-8")
    cli.main(["review", "-o", "json", str(path)])
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["verdict"] == "unreadable"
    assert result["line"] == 3 or any(m.get("line") == 3 for m in result["messages"]), result


def test_a_suite_is_placed_on_its_own_lines(tmp_path):
    from webhook.offline import suites

    path = tmp_path / "suite.yaml"
    path.write_text('apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\nname: "a\u2028b\x85c"\ntests:\n'
                    '- name: t\n  object: {kind: ConfigMap, apiVersion: v1, metadata: {name: a}}\n'
                    '  expect: {allowed: false}\n', encoding="utf-8")
    [result] = suites.run([str(path)])
    assert result.line == 5, result
