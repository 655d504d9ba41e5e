"""`dra-webhook review`: inputs (files, directories, stdin, multi-document YAML, Lists, AdmissionReviews),
the JSON report, and exit codes 0 / 1 / 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from support import cli as run_cli
from support import decode_patch, review_body, valid_slice
from test_suite import write
from webhook import cli

TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "single-gpu", "namespace": "ml-team"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
}
BAD_SLICE = valid_slice(name="Bad_Name")
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}


def review(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(["review", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def review_json(capsys, *argv: str, **kwargs) -> tuple[int, list]:
    code, out, _ = review(capsys, *argv, "--output", "json", **kwargs)
    return code, json.loads(out)


def test_json_is_one_array_with_one_element_per_document_in_input_order(tmp_path, capsys):
    multi = write(tmp_path / "multi.yaml", [valid_slice(name="a"), BAD_SLICE, valid_slice(name="c")])
    single = write(tmp_path / "single.json", valid_slice(name="d"))
    code, items = review_json(capsys, str(single), str(multi))
    assert [item["source"] for item in items] == [f"{single}#0", f"{multi}#0", f"{multi}#1", f"{multi}#2"]
    assert all(set(item) == {"source", "response"} for item in items)
    assert [item["response"]["allowed"] for item in items] == [True, True, False, True]
    denied = items[2]["response"]
    assert denied["status"]["code"] == 422
    assert denied["status"]["details"]["causes"][0]["field"] == "metadata.name"
    assert code == 1


def test_multi_document_yaml_skips_empty_documents_and_keeps_numbering(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", "---\n---\n" + json.dumps(valid_slice()) + "\n---\n")
    code, items = review_json(capsys, str(path))
    assert [item["source"] for item in items] == [f"{path}#1"]
    assert code == 0


def test_syntax_error_after_good_documents_reports_both(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", json.dumps(valid_slice()) + "\n---\nspec: [unclosed\n")
    code, items = review_json(capsys, str(path))
    assert items[0] == {"source": f"{path}#0", "response": items[0]["response"]}
    assert items[0]["response"]["allowed"] is True
    assert items[1]["source"] == f"{path}#1" and items[1]["error"].startswith("cannot parse")
    assert code == 2


def test_directories_recursively_sorted_hidden_skipped(tmp_path, capsys):
    write(tmp_path / "b/slice.yml", valid_slice(name="b"))
    write(tmp_path / "a/z/slice.json", valid_slice(name="a"))
    write(tmp_path / "a/notes.txt", "not a manifest")
    write(tmp_path / ".git/config.yaml", BAD_SLICE)
    write(tmp_path / "a/.cache/x.yaml", BAD_SLICE)
    code, items = review_json(capsys, str(tmp_path))
    assert [item["source"] for item in items] == [f"{tmp_path / 'a/z/slice.json'}#0", f"{tmp_path / 'b/slice.yml'}#0"]
    assert code == 0


def test_stdin(capsys, monkeypatch):
    code, out, _ = review(capsys, "-", stdin=json.dumps(BAD_SLICE), monkeypatch=monkeypatch)
    assert out.splitlines()[0] == "<stdin>#0: ResourceSlice/Bad_Name (CREATE): denied"
    assert out.splitlines()[-1] == "1 object(s): 0 allowed, 1 denied, 0 unreadable"
    assert code == 1


def test_list_kinds_are_expanded(tmp_path, capsys):
    path = write(tmp_path / "list.yaml", {"apiVersion": "v1", "kind": "List",
                                          "items": [valid_slice(name="a"), BAD_SLICE]})
    code, items = review_json(capsys, str(path))
    assert [item["source"] for item in items] == [f"{path}#0.items[0]", f"{path}#0.items[1]"]
    assert [item["response"]["allowed"] for item in items] == [True, False]
    assert code == 1


def test_admission_review_documents_are_used_as_they_are(tmp_path, capsys):
    old = valid_slice()
    old["metadata"].update({"uid": "3f0c9b52-8e7a-4d21-9c6b-1a2e5f8d7c40", "resourceVersion": "7"})
    new = json.loads(json.dumps(old))
    new["metadata"]["uid"] = "9d4e2a71-6b3c-4f58-8a0e-7c1b5d3f2e69"
    body = review_body(new, operation="UPDATE", old=old, uid="fixed-uid")
    path = write(tmp_path / "review.json", body)
    code, out, _ = review(capsys, str(path))
    assert out.splitlines()[0] == f"{path}#0: ResourceSlice/node-1-gpu (UPDATE): denied"
    assert out.splitlines()[1].startswith("  metadata.uid: Invalid value")
    code, items = review_json(capsys, str(path))
    assert items[0]["response"]["uid"] == "fixed-uid"
    assert code == 1


def test_broken_admission_review_is_exit_2(tmp_path, capsys):
    path = write(tmp_path / "review.json", {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                            "request": {"kind": {}}})
    code, items = review_json(capsys, str(path))
    assert items == [{"source": f"{path}#0", "error": "invalid AdmissionReview: request.uid is missing or empty"}]
    assert code == 2


def test_defaults_are_applied_unless_no_defaults(tmp_path, capsys):
    path = write(tmp_path / "template.yaml", TEMPLATE)
    code, items = review_json(capsys, str(path))
    assert items[0]["response"]["allowed"] is True and code == 0
    assert items[0]["patch"] == decode_patch(items[0]["response"])
    assert {"op": "add", "path": "/spec/spec/devices/requests/0/exactly/allocationMode",
            "value": "ExactCount"} in items[0]["patch"]
    code, items = review_json(capsys, str(path), "--no-defaults")
    assert set(items[0]) == {"source", "response"} and "patch" not in items[0]["response"]
    causes = items[0]["response"]["status"]["details"]["causes"]
    assert [(c["field"], c["reason"]) for c in causes] == [
        ("spec.spec.devices.requests[0].exactly.allocationMode", "FieldValueNotSupported")]
    assert code == 1


def test_text_reports_defaults_and_warnings(tmp_path, capsys):
    path = write(tmp_path / "both.yaml", [TEMPLATE, CONFIG_MAP])
    code, out, _ = review(capsys, str(path))
    assert out.splitlines() == [
        f"{path}#0: ResourceClaimTemplate/single-gpu (CREATE): allowed",
        "  defaults applied (see --output json for the patch)",
        f"{path}#1: ConfigMap/c (CREATE): allowed",
        "  warning: dra-webhook: ConfigMap of group '' is not handled; allowed without checks",
        "2 object(s): 2 allowed, 0 denied, 0 unreadable",
    ]
    assert code == 0


def test_warnings_as_errors(tmp_path, capsys):
    warned = write(tmp_path / "cm.yaml", CONFIG_MAP)
    clean = write(tmp_path / "slice.yaml", valid_slice())
    assert review(capsys, str(warned))[0] == 0
    assert review(capsys, str(warned), "--warnings-as-errors")[0] == 1
    assert review(capsys, str(clean), "--warnings-as-errors")[0] == 0


@pytest.mark.parametrize("setup, code, message", [
    (lambda d: str(d / "missing.yaml"), 2, "no such file or directory"),
    (lambda d: str(write(d / "empty.yaml", "")), 2, "no documents found"),
    (lambda d: str(write(d / "scalar.yaml", "42\n")), 2, ""),
    (lambda d: str(write(d / "bad.yaml", "a: [\n")), 2, ""),
])
def test_unusable_input_is_exit_2(tmp_path, capsys, setup, code, message):
    result_code, out, err = review(capsys, setup(tmp_path))
    assert result_code == code
    assert message in err


def test_unreadable_bytes_are_reported_per_file(tmp_path, capsys):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: \xe9t\xe9\n")
    good = write(tmp_path / "slice.yaml", valid_slice())
    code, items = review_json(capsys, str(path), str(good))
    assert items[0]["source"] == f"{path}#0" and items[0]["error"].startswith("cannot read")
    assert items[1]["response"]["allowed"] is True
    assert code == 2


# --- as a user runs it (fresh processes) ------------------------------------------------------------


def test_subprocess_exit_codes(tmp_path):
    good = write(tmp_path / "good.yaml", valid_slice())
    bad = write(tmp_path / "bad.yaml", BAD_SLICE)
    assert run_cli("review", str(good)).returncode == 0
    assert run_cli("review", str(good), str(bad)).returncode == 1
    result = run_cli("review", str(tmp_path / "missing.yaml"))
    assert result.returncode == 2 and "no such file or directory" in result.stderr
    assert run_cli("review").returncode == 2  # usage error from argparse


def test_subprocess_stdin_json(tmp_path):
    result = run_cli("review", "-o", "json", "-", input=json.dumps({"kind": "List", "apiVersion": "v1",
                                                                   "items": [valid_slice(), BAD_SLICE]}))
    items = json.loads(result.stdout)
    assert [(i["source"], i["response"]["allowed"]) for i in items] == [
        ("<stdin>#0.items[0]", True), ("<stdin>#0.items[1]", False)]
    assert result.returncode == 1


def test_examples_manifests_are_accepted(capsys):
    examples = Path(__file__).resolve().parent.parent / "examples" / "gpu-driver"
    v1_manifests = [str(p) for p in sorted(examples.glob("*.yaml")) if "devicetaintrule" not in p.name]
    assert cli.main(["review", "--warnings-as-errors", *v1_manifests]) == 0
    # A 1.36 cluster serves DeviceTaintRule only where it was turned on: allowed, with that said.
    capsys.readouterr()
    assert cli.main(["review", "-o", "json", str(examples / "devicetaintrule-maintenance.yaml")]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["response"]["allowed"] is True
    assert result["response"]["warnings"] == [
        "dra-webhook: resource.k8s.io/v1beta2 DeviceTaintRule is served only by clusters with the API version "
        "enabled (kube-apiserver --runtime-config=resource.k8s.io/v1beta2=true) and the feature gate "
        "DRADeviceTaintRules enabled (disabled by default in Kubernetes 1.36)"]
