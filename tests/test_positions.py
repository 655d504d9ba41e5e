"""Each cause points at where its field is written: line and column, in every output format."""

from __future__ import annotations

import json
from pathlib import Path

from support import cli as run_cli
from webhook import cli
from webhook.offline.positions import parse_path

# An unknown field on line 11 and an invalid count on line 25, in one file.
TWO_MISTAKES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: typo
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        allocatonMode: All
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: negative
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors:
        - cel: {expression: "true"}
        count: -2
"""

# v1beta1: a flat request (its cause is on the v1 path, `exactly.count`) and a slice device's `basic`.
OLD_VERSIONS = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: flat
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu
      allocationMode: Sometimes
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: dra.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: d
    basic:
      attributes:
        dra.example.com/model: {string: "x", int: 3}
"""

LIST = """\
kind: List
apiVersion: v1
items:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: fine}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata:
    name: Bad_Name
"""

JSON = """\
{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceClaim",
  "metadata": {"name": "j"},
  "spec": {"devices": {"requests": [
    {"name": "gpu", "exactly": {"allocationMode": "All"}}
  ]}}
}
"""


def review(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["review", *argv])
    return code, capsys.readouterr().out


def causes(capsys, *argv: str) -> list[tuple[str, int, int]]:
    _, out = review(capsys, *argv, "-o", "json")
    return [(m.get("field"), m.get("line"), m.get("column")) for r in json.loads(out)["results"]
            for m in r["messages"]]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_github_and_sarif_point_at_the_unknown_field_and_the_count(tmp_path, capsys):
    path = write(tmp_path / "claims.yaml", TWO_MISTAKES)
    code, out = review(capsys, str(path), "-o", "github")
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert [e.split("title=")[0] for e in errors] == [
        f"::error file={path},line=11,col=9,", f"::error file={path},line=25,col=9,"]
    assert errors[0].endswith('::spec.devices.requests[0].exactly.allocatonMode: strict decoding error: '
                              'unknown field "spec.devices.requests[0].exactly.allocatonMode"')
    assert code == 1
    code, out = review(capsys, str(path), "-o", "sarif")
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in json.loads(out)["runs"][0]["results"]]
    assert regions == [{"startLine": 11, "startColumn": 9}, {"startLine": 25, "startColumn": 9}]
    lines = TWO_MISTAKES.splitlines()
    assert lines[10][8:].startswith("allocatonMode:") and lines[24][8:].startswith("count: -2")


def test_json_junit_and_text_carry_the_position_and_the_unknown_field(tmp_path, capsys):
    path = write(tmp_path / "claims.yaml", TWO_MISTAKES)
    assert causes(capsys, str(path)) == [("spec.devices.requests[0].exactly.allocatonMode", 11, 9),
                                         ("spec.devices.requests[0].exactly.count", 25, 9)]
    _, out = review(capsys, str(path), "-o", "junit")
    assert [line.split('line="')[1].split('"')[0] for line in out.splitlines() if "<testcase" in line] == ["11", "25"]
    assert f"{path}:25:9: spec.devices.requests[0].exactly.count: Invalid value: -2" in out
    _, out = review(capsys, str(path))
    assert f"  {path}:11:9: spec.devices.requests[0].exactly.allocatonMode: strict decoding error" in out


def test_each_unknown_field_of_a_strict_error_is_a_cause_of_its_own(tmp_path, capsys):
    text = TWO_MISTAKES.split("---")[0].replace("        allocatonMode: All\n",
                                                "        allocatonMode: All\n        selectors:\n        - cel:\n"
                                                "          expression: 'true'\n")
    path = write(tmp_path / "claim.yaml", text)
    assert sorted(causes(capsys, str(path))) == [("spec.devices.requests[0].exactly.allocatonMode", 11, 9),
                                                 ("spec.devices.requests[0].exactly.selectors[0].expression", 14, 11)]


def test_older_versions_point_where_the_user_wrote_the_field(tmp_path, capsys):
    path = write(tmp_path / "old.yaml", OLD_VERSIONS)
    assert causes(capsys, str(path)) == [("spec.devices.requests[0].exactly.allocationMode", 10, 7),
                                         ("spec.devices[0].attributes[dra.example.com/model]", 24, 9)]


def test_list_items_json_and_stdin(tmp_path, capsys):
    path = write(tmp_path / "list.yaml", LIST)
    assert causes(capsys, str(path)) == [("metadata.name", 10, 5)]
    path = write(tmp_path / "claim.json", JSON)
    # a missing field points at its nearest existing parent: the request's `exactly`
    assert causes(capsys, str(path)) == [("spec.devices.requests[0].exactly.deviceClassName", 6, 21)]
    done = run_cli("review", "-", "-o", "github", input="# first\n" + TWO_MISTAKES)
    assert [line.split(",title")[0] for line in done.stdout.splitlines() if line.startswith("::error")] == [
        "::error file=<stdin>,line=12,col=9", "::error file=<stdin>,line=26,col=9"]


def test_paths_render_as_go_field_path():
    assert parse_path("spec.devices.requests[0].exactly.count") == [
        "spec", "devices", "requests", 0, "exactly", "count"]
    assert parse_path("spec.devices[1].attributes[dra.example.com/model].string") == [
        "spec", "devices", 1, "attributes", "dra.example.com/model", "string"]
    assert parse_path("metadata.labels[a]b]") == ["metadata", "labels", "a]b"]
    assert parse_path("") is None and parse_path("a[0") is None and parse_path("x" * 5000) is None


def test_a_suite_points_at_unexpected_causes_in_the_file_it_names(tmp_path, capsys):
    write(tmp_path / "claims.yaml", TWO_MISTAKES)
    suite = write(tmp_path / "suite.yaml", """\
apiVersion: dra-webhook/v1alpha1
kind: TestSuite
tests:
  - name: negative count
    object: claims.yaml#1
    expect:
      allowed: false
      causes:
        - field: spec.devices.requests[0].exactly.selectors
          reason: FieldValueInvalid
""")
    code = cli.main(["test", str(suite), "-o", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert [(m["message"], m.get("file"), m.get("line"), m.get("column")) for m in result["messages"]] == [
        ("missing cause spec.devices.requests[0].exactly.selectors FieldValueInvalid", str(tmp_path / "claims.yaml"),
         23, 9),
        ("unexpected cause spec.devices.requests[0].exactly.count FieldValueInvalid", str(tmp_path / "claims.yaml"),
         25, 9)]
    assert code == 1


def test_unknown_keys_with_quotes_commas_and_control_characters_keep_their_field(tmp_path, capsys):
    path = write(tmp_path / "class.yaml", 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n'
                 '  name: x\nspec:\n  \'we"ird, key\': 1\n  "bell\\x07": 2\n')
    assert causes(capsys, str(path)) == [('spec.we"ird, key', 6, 3), ("spec.bell\x07", 7, 3)]
    _, out = review(capsys, str(path), "-o", "github")
    assert "spec.bell\\x07: strict decoding error" in out and "\x07" not in out  # escaped, as every output


def test_an_unknown_field_under_a_map_key_with_dots_points_where_it_is_written(tmp_path, capsys):
    """The strict decoder joins map keys with dots (`attributes.dra.example.com/model.extra`): the key is found
    whole."""
    path = write(tmp_path / "slice.yaml", "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
                 "  name: x\nspec:\n  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                 "  nodeName: node-1\n  devices:\n  - name: d\n    attributes:\n      dra.example.com/model:\n"
                 "        string: a\n        extra: 1\n")
    assert causes(capsys, str(path)) == [("spec.devices[0].attributes.dra.example.com/model.extra", 14, 9)]


def test_a_field_brought_by_a_merge_key_points_where_it_is_written(tmp_path, capsys):
    path = write(tmp_path / "merged.yaml", """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: merged
spec:
  devices:
    requests:
    - &base
      name: a
      exactly:
        deviceClassName: gpu
        count: -1
    - <<: *base
      name: b
""")
    assert causes(capsys, str(path)) == [("spec.devices.requests[0].exactly.count", 12, 9),
                                         ("spec.devices.requests[1].exactly.count", 12, 9)]


def test_strict_causes_of_a_hostile_message_are_cut_in_linear_time():
    """An item could end at any later quote: a message of 20,000 items that never close (or a last one
    that does not) was searched from every start to the end, 28 s; cut first, it takes milliseconds."""
    import time

    from webhook.offline.positions import strict_causes

    started = time.process_time()
    assert strict_causes('strict decoding error: ' + 'unknown field "x' * 20_000, "BadRequest") is None
    closed = strict_causes('strict decoding error: ' + ', '.join(['unknown field "x"'] * 20_000) + "y", "BadRequest")
    assert len(closed) == 19_999 and closed[0].field == "x"  # the last one does not close
    assert time.process_time() - started < 5  # measured: under 0.01 s (before: 28 s)
    split = strict_causes('X: strict decoding error: unknown field "spec.a, b", duplicate field "spec.c"', "")
    assert [m.field for m in split] == ["spec.a, b", "spec.c"]
