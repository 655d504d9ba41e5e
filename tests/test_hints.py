"""Hint lines for the two common mistakes, in every output format, beside causes that stay the API server's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from webhook import cli
from webhook.offline.hints import hint

SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
"""
OLD_CAPACITY = SLICE + """  devices:
    - name: gpu-0
      capacity:
        memory: 24Gi
"""
COUNTERS_BESIDE_DEVICES = SLICE + """  sharedCounters:
    - name: set-a
      counters:
        mem: {value: 80Gi}
  devices:
    - name: gpu-0
      consumesCounters:
        - counterSet: set-a
          counters:
            mem: {value: 40Gi}
"""
MISTAKES = {
    "old-capacity": (OLD_CAPACITY, "spec.devices[0].capacity[memory]", "FieldValueTypeInvalid",
                     "write `memory: {value: 24Gi}`, not `memory: 24Gi`"),
    "counters-beside-devices": (COUNTERS_BESIDE_DEVICES, "spec", "FieldValueInvalid",
                                "move sharedCounters to a ResourceSlice of its own in the same pool"),
}


def review(tmp_path, capsys, text: str, output: str, *flags: str) -> str:
    path = tmp_path / "slice.yaml"
    path.write_text(text)
    assert cli.main(["review", "--output", output, *flags, str(path)]) == 1
    return capsys.readouterr().out


@pytest.mark.parametrize("mistake", MISTAKES)
def test_the_hint_comes_beside_the_unchanged_cause_in_json(mistake, tmp_path, capsys):
    text, field, reason, fix = MISTAKES[mistake]
    [message] = json.loads(review(tmp_path, capsys, text, "json"))["results"][0]["messages"]
    assert (message["field"], message["reason"]) == (field, reason)
    assert fix in message["hint"] and "hint" not in message["message"]
    # The AdmissionReview response itself carries the API server's causes only.
    [cause] = json.loads(review(tmp_path, capsys, text, "json"))["results"][0]["response"]["status"]["details"][
        "causes"]
    assert set(cause) == {"field", "reason", "message"} and cause["message"] == message["message"]


@pytest.mark.parametrize("output", ["text", "junit", "github", "sarif", "tap"])
@pytest.mark.parametrize("mistake", MISTAKES)
def test_every_format_prints_the_hint(mistake, output, tmp_path, capsys):
    text, field, _, fix = MISTAKES[mistake]
    out = review(tmp_path, capsys, text, output)
    if output == "text":
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if f" {field}: " in line)
        assert lines[at + 1].startswith("    hint: ") and fix in lines[at + 1]
    elif output == "junit":
        failure = ET.fromstring(out).find(".//failure")
        assert f"{field}: " in failure.text and "\n  hint: " in failure.text and fix in failure.text
    elif output == "github":
        [error] = [line for line in out.splitlines() if line.startswith("::error ")]
        assert f"{field}: " in error and "%0Ahint: " in error and fix in error
    elif output == "sarif":
        [result] = json.loads(out)["runs"][0]["results"]
        assert fix in result["properties"]["hint"] and "\nhint: " in result["message"]["text"]
    else:
        assert "  hints:\n    - " in out and fix in out.split("  hints:\n", 1)[1]


def test_no_hint_where_the_fix_is_not_mechanical():
    assert hint("spec.devices[0].name", "FieldValueInvalid", 'Invalid value: "Bad": a lowercase RFC 1123 label') == ""
    assert hint("spec.devices[0].capacity[memory]", "FieldValueInvalid", "Invalid value: 0: must be positive") == ""
    assert hint("spec.devices", "FieldValueInvalid", "only one of `sharedCounters` or `devices` is allowed") == ""


def test_before_1_35_counters_beside_devices_are_allowed_and_get_no_hint(tmp_path, capsys):
    path = tmp_path / "slice.yaml"
    path.write_text(COUNTERS_BESIDE_DEVICES)
    code = cli.main(["review", "--output", "json", "--kubernetes-version", "1.34", str(path)])
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert not any(m.get("hint") for m in result["messages"]), (code, result["messages"])
