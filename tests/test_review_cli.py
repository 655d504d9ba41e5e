"""`dra-webhook review`: inputs (files, directories, stdin, multi-document YAML, Lists, AdmissionReviews),
the JSON report, determinism, parallel runs, and exit codes 0 / 1 / 2 with their precedence."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from support import cli as run_cli
from support import review_body, valid_slice
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
    return code, json.loads(out)["results"]


def source(item: dict) -> str:
    return f"{item['file']}#{item['document']}" if "document" in item else item["file"]


def test_json_has_a_summary_and_one_result_per_document_in_input_order(tmp_path, capsys):
    multi = write(tmp_path / "multi.yaml", [valid_slice(name="a"), BAD_SLICE, valid_slice(name="c")])
    single = write(tmp_path / "single.json", valid_slice(name="d"))
    code, out, _ = review(capsys, str(single), str(multi), "-o", "json", "--now", "2026-01-02T03:04:05Z")
    report = json.loads(out)
    items = report["results"]
    assert [source(item) for item in items] == [f"{single}#0", f"{multi}#0", f"{multi}#1", f"{multi}#2"]
    assert [item["verdict"] for item in items] == ["allowed", "allowed", "denied", "allowed"]
    assert [item["line"] for item in items] == [1, 1, 23, 45]  # where each document starts
    denied = items[2]
    assert denied["response"]["status"]["code"] == 422 and "patch" not in denied
    assert denied["messages"][0]["field"] == "metadata.name"
    assert report["summary"] == {
        "command": "review", "kubernetesVersion": "1.36", "featureGates": report["summary"]["featureGates"],
        "now": "2026-01-02T03:04:05Z", "celEngine": "cel-expr", "total": 4, "allowed": 3, "denied": 1,
        "unreadable": 0, "skipped": 0, "exitCode": 1, "reason": "1 denied"}
    assert code == 1


def test_multi_document_yaml_skips_empty_documents_and_keeps_numbering(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", "---\n---\n" + json.dumps(valid_slice()) + "\n---\n")
    code, items = review_json(capsys, str(path))
    assert [(source(item), item["line"]) for item in items] == [(f"{path}#1", 3)]
    assert code == 0


def test_syntax_error_after_good_documents_reports_both_with_the_file_and_line(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", json.dumps(valid_slice()) + "\n---\nspec: [unclosed\n")
    code, items = review_json(capsys, str(path))
    assert items[0]["verdict"] == "allowed"
    assert source(items[1]) == f"{path}#1" and items[1]["verdict"] == "unreadable"
    message = items[1]["messages"][0]["message"]
    assert message.startswith("cannot parse: ") and "(line 4, column 1)" in message
    assert "<unicode string>" not in message and items[1]["line"] == 4
    assert code == 2


def test_directories_recursively_sorted_hidden_skipped(tmp_path, capsys):
    write(tmp_path / "b/slice.yml", valid_slice(name="b"))
    write(tmp_path / "a/z/slice.json", valid_slice(name="a"))
    write(tmp_path / "a/notes.txt", "not a manifest")
    write(tmp_path / ".git/config.yaml", BAD_SLICE)
    write(tmp_path / "a/.cache/x.yaml", BAD_SLICE)
    code, items = review_json(capsys, str(tmp_path))
    assert [source(item) for item in items] == [f"{tmp_path / 'a/z/slice.json'}#0", f"{tmp_path / 'b/slice.yml'}#0"]
    assert code == 0


def test_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(BAD_SLICE).encode())))
    code = cli.main(["review", "-"])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "<stdin>:1 (document 0): ResourceSlice/Bad_Name (CREATE): denied"
    assert out.splitlines()[-2:] == ["1 object(s): 0 allowed, 1 denied, 0 unreadable, 0 skipped", "exit 1: 1 denied"]
    assert code == 1


def test_list_kinds_are_expanded_with_item_lines(tmp_path, capsys):
    path = write(tmp_path / "list.yaml", {"apiVersion": "v1", "kind": "List",
                                          "items": [valid_slice(name="a"), BAD_SLICE]})
    code, items = review_json(capsys, str(path))
    assert [source(item) for item in items] == [f"{path}#0.items[0]", f"{path}#0.items[1]"]
    assert [item["verdict"] for item in items] == ["allowed", "denied"]
    assert items[0]["line"] < items[1]["line"]
    assert code == 1


def test_admission_review_documents_are_used_as_they_are(tmp_path, capsys):
    old = valid_slice()
    old["metadata"].update({"uid": "3f0c9b52-8e7a-4d21-9c6b-1a2e5f8d7c40", "resourceVersion": "7"})
    new = json.loads(json.dumps(old))
    new["metadata"]["uid"] = "9d4e2a71-6b3c-4f58-8a0e-7c1b5d3f2e69"
    body = review_body(new, operation="UPDATE", old=old, uid="fixed-uid")
    path = write(tmp_path / "review.json", body)
    code, out, _ = review(capsys, str(path))
    assert out.splitlines()[0] == f"{path}:1 (document 0): ResourceSlice/node-1-gpu (UPDATE): denied"
    column = path.read_text().index('"uid": "9d4e2a71') + 1  # the object's uid, not the request's
    assert out.splitlines()[1].startswith(f"  {path}:1:{column}: metadata.uid: Invalid value")
    code, items = review_json(capsys, str(path))
    assert items[0]["response"]["uid"] == "fixed-uid"
    assert code == 1


def test_broken_admission_review_is_an_unreadable_result(tmp_path, capsys):
    path = write(tmp_path / "review.json", {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                            "request": {"kind": {}}})
    code, items = review_json(capsys, str(path))
    assert [(i["verdict"], i["messages"]) for i in items] == [
        ("unreadable", [{"message": "invalid AdmissionReview: request.uid is missing or empty"}])]
    assert code == 2


def test_defaults_are_applied_unless_no_defaults(tmp_path, capsys):
    path = write(tmp_path / "template.yaml", TEMPLATE)
    code, items = review_json(capsys, str(path))
    assert items[0]["verdict"] == "allowed" and code == 0
    assert "patch" not in items[0]["response"]  # the patch is reported once, decoded, next to the response
    assert {"op": "add", "path": "/spec/spec/devices/requests/0/exactly/allocationMode",
            "value": "ExactCount"} in items[0]["patch"]
    code, items = review_json(capsys, str(path), "--no-defaults")
    assert "patch" not in items[0]
    assert [(m["field"], m["reason"]) for m in items[0]["messages"]] == [
        ("spec.spec.devices.requests[0].exactly.allocationMode", "FieldValueNotSupported")]
    assert code == 1


def test_text_lists_failures_only_unless_verbose_and_skips_other_groups(tmp_path, capsys):
    path = write(tmp_path / "both.yaml", [TEMPLATE, CONFIG_MAP, BAD_SLICE])
    code, out, _ = review(capsys, str(path))
    assert out.splitlines() == [
        f"{path}:19 (document 2): ResourceSlice/Bad_Name (CREATE): denied",
        f"  {path}:22:3: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "rules: Kubernetes 1.36, its default feature gates",
        "3 object(s): 1 allowed, 1 denied, 0 unreadable, 1 skipped",
        "exit 1: 1 denied",
    ]
    code, out, _ = review(capsys, str(path), "-v")
    assert f"{path}:1 (document 0): ResourceClaimTemplate/single-gpu (CREATE): allowed" in out
    assert "  defaults: 2 JSON Patch operation(s) (--output json shows them)" in out
    assert f"{path}:14 (document 1): ConfigMap/c (CREATE): skipped\n  not a resource.k8s.io object" in out
    assert "defaults" not in out.split("ResourceSlice/Bad_Name")[1]  # a denied object gets no defaults


def test_warnings_as_errors_ignores_skipped_objects_and_says_why(tmp_path, capsys):
    skipped = write(tmp_path / "cm.yaml", CONFIG_MAP)
    uppercase = valid_slice()
    uppercase["spec"]["driver"] = "Gpu.example.com"  # allowed, with the API server's lowercase warning
    warned = write(tmp_path / "slice.yaml", uppercase)
    assert review(capsys, str(skipped), "--warnings-as-errors")[0] == 0
    assert review(capsys, str(warned))[0] == 0
    code, out, _ = review(capsys, str(warned), str(skipped), "--warnings-as-errors")
    assert code == 1 and out.splitlines()[-1] == "exit 1: 1 object(s) with warnings (--warnings-as-errors)"


def test_kinds_and_skip_kinds(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", [BAD_SLICE, TEMPLATE])
    code, items = review_json(capsys, str(path), "--kinds", "ResourceClaimTemplate")
    assert [i["verdict"] for i in items] == ["skipped", "allowed"] and code == 0
    assert items[0]["messages"] == [{"message": "kind ResourceSlice not selected by --kinds"}]
    code, items = review_json(capsys, str(path), "--skip-kinds", "ResourceSlice,DeviceClass")
    assert [i["verdict"] for i in items] == ["skipped", "allowed"] and code == 0


def test_object_without_api_version_or_kind_is_refused_as_kubectl_does(tmp_path, capsys):
    path = write(tmp_path / "m.yaml", [{"kind": "DeviceClass", "metadata": {"name": "x"}},
                                       {"apiVersion": "resource.k8s.io/v1"}])
    code, items = review_json(capsys, str(path))
    assert [i["verdict"] for i in items] == ["denied", "denied"]
    assert [i["response"]["status"]["message"] for i in items] == ["apiVersion not set", "kind not set"]
    assert code == 1


@pytest.mark.parametrize("setup, code, message", [
    (lambda d: str(d / "missing.yaml"), 2, "no such file or directory"),
    (lambda d: str(write(d / "bad.yaml", "a: [\n")), 2, "cannot parse: "),
])
def test_unusable_input_is_a_result_with_a_reason(tmp_path, capsys, setup, code, message):
    result_code, items = review_json(capsys, setup(tmp_path))
    assert result_code == code
    assert [i["verdict"] for i in items] == ["unreadable"] and message in items[0]["messages"][0]["message"]


def test_no_document_is_exit_2(tmp_path, capsys):
    code, out, _ = review(capsys, str(write(tmp_path / "empty.yaml", "")))
    assert code == 2 and out.splitlines()[-1] == "exit 2: no object found"


def test_binary_file_is_said_to_be_binary(tmp_path, capsys):
    path = tmp_path / "logo.yaml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    code, items = review_json(capsys, str(path))
    assert items[0]["messages"][0]["message"] == ("cannot read: not UTF-8 text (byte 0x89 at offset 0, line 1); "
                                                  "a binary file?")
    assert code == 2


def test_missing_file_does_not_hide_the_other_results_and_a_denial_wins(tmp_path, capsys):
    good = write(tmp_path / "good.yaml", valid_slice())
    bad = write(tmp_path / "bad.yaml", BAD_SLICE)
    missing = str(tmp_path / "missing.yaml")
    code, out, _ = review(capsys, str(good), missing, "-o", "json")
    report = json.loads(out)
    assert [i["verdict"] for i in report["results"]] == ["allowed", "unreadable"] and code == 2
    assert report["results"][1] == {"file": missing, "line": None, "name": "file", "verdict": "unreadable",
                                    "messages": [{"message": "no such file or directory"}], "warnings": []}
    code, out, _ = review(capsys, str(good), missing, str(bad))
    assert code == 1 and out.splitlines()[-1] == "exit 1: 1 denied; also 1 could not be used"


def test_the_command_exits_early_with_all_of_its_output(capsys):
    """`dra-webhook review` ends without tearing the interpreter down: what it wrote is flushed first,
    and its exit code is main()'s."""
    examples = str(Path(__file__).resolve().parent.parent / "examples")
    argv = ("-o", "json", "-v", "--now", "2026-03-04T05:06:07Z", examples)
    code, out, _ = review(capsys, *argv)
    command = run_cli("review", *argv)
    assert command.stdout == out and command.returncode == code == 1 and len(out) > 65536  # beyond a pipe's buffer
    assert command.stderr == ""


def test_two_runs_are_byte_identical_and_uids_are_stable(tmp_path):
    examples = str(Path(__file__).resolve().parent.parent / "examples")
    first = run_cli("review", "-o", "json", "--now", "2026-03-04T05:06:07Z", examples)
    second = run_cli("review", "-o", "json", "--now", "2026-03-04T05:06:07Z", "-j", "1", examples)
    assert first.stdout == second.stdout and first.returncode == second.returncode == 1
    report = json.loads(first.stdout)
    taint_rule = next(i for i in report["results"] if i["name"].startswith("DeviceTaintRule/node-1"))
    assert {"op": "add", "path": "/spec/taint/timeAdded", "value": "2026-03-04T05:06:07Z"} in taint_rule["patch"]
    uids = [i["response"]["uid"] for i in report["results"] if "response" in i]
    assert len(set(uids)) == len(uids)
    epoch = run_cli("review", "-o", "json", examples, env={"SOURCE_DATE_EPOCH": "1772600767"})
    assert epoch.stdout == first.stdout  # the reproducible-builds clock, when set


def test_parallel_results_are_in_input_order_and_identical(tmp_path):
    for i in range(12):  # enough bytes for several batches
        write(tmp_path / f"{i:02}.yaml", [valid_slice(devices=100, name=f"s{i}-{j}") for j in range(3)]
              + [valid_slice(name=f"Bad_{i}")])
    one = run_cli("review", "-o", "json", "--now", "2026-01-01T00:00:00Z", "-j", "1", str(tmp_path))
    two = run_cli("review", "-o", "json", "--now", "2026-01-01T00:00:00Z", "-j", "2", str(tmp_path))
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and len(json.loads(two.stdout)["results"]) == 48


# --- as a user runs it (fresh processes) ------------------------------------------------------------


def test_subprocess_exit_codes(tmp_path):
    good = write(tmp_path / "good.yaml", valid_slice())
    bad = write(tmp_path / "bad.yaml", BAD_SLICE)
    assert run_cli("review", str(good)).returncode == 0
    assert run_cli("review", str(good), str(bad)).returncode == 1
    result = run_cli("review", str(tmp_path / "missing.yaml"))
    assert result.returncode == 2 and "no such file or directory" in result.stdout
    assert run_cli("review").returncode == 2  # usage error from argparse


def test_subprocess_stdin_json(tmp_path):
    result = run_cli("review", "-o", "json", "-", input=json.dumps({"kind": "List", "apiVersion": "v1",
                                                                   "items": [valid_slice(), BAD_SLICE]}))
    items = json.loads(result.stdout)["results"]
    assert [(source(i), i["verdict"]) for i in items] == [
        ("<stdin>#0.items[0]", "allowed"), ("<stdin>#0.items[1]", "denied")]
    assert result.returncode == 1


def test_examples_manifests_are_accepted(capsys):
    examples = Path(__file__).resolve().parent.parent / "examples" / "gpu-driver"
    opt_in = ("devicetaintrule", "resourcepoolstatusrequest")  # API versions a 1.36 cluster serves when enabled
    v1_manifests = [str(p) for p in sorted(examples.glob("*.yaml")) if not p.name.startswith(opt_in)]
    assert cli.main(["review", "--warnings-as-errors", *v1_manifests]) == 0
    # A 1.36 cluster serves DeviceTaintRule only where it was turned on: allowed, with that said.
    capsys.readouterr()
    assert cli.main(["review", "-o", "json", str(examples / "devicetaintrule-maintenance.yaml")]) == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "allowed"
    assert result["warnings"] == [
        "dra-webhook: resource.k8s.io/v1beta2 DeviceTaintRule is served only by clusters with the API version "
        "enabled (kube-apiserver --runtime-config=resource.k8s.io/v1beta2=true) and the feature gate "
        "DRADeviceTaintRules enabled (disabled by default in Kubernetes 1.36)"]
    assert cli.main(["review", "-o", "json", str(examples / "resourcepoolstatusrequest.yaml")]) == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "allowed"
    assert result["warnings"] == [
        "dra-webhook: resource.k8s.io/v1alpha3 ResourcePoolStatusRequest is served only by clusters with the API "
        "version enabled (kube-apiserver --runtime-config=resource.k8s.io/v1alpha3=true) and the feature gate "
        "DRAResourcePoolStatus enabled (disabled by default in Kubernetes 1.36)"]


def test_output_does_not_depend_on_the_hash_seed(tmp_path):
    # several defaults added to one mapping: the patch lists them in the defaulted object's key order
    path = write(tmp_path / "t.yaml", TEMPLATE)
    runs = [run_cli("review", "-o", "json", "--now", "2026-01-01T00:00:00Z", str(path),
                    env={"PYTHONHASHSEED": seed}) for seed in ("1", "2", "3")]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    patch = json.loads(runs[0].stdout)["results"][0]["patch"]
    assert [op["path"].rsplit("/", 1)[1] for op in patch] == ["allocationMode", "count"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_only_when_long():
    from webhook.offline.parallel import Progress

    assert Progress.for_terminal(io.StringIO()) is None
    quick = Progress.for_terminal(_Terminal())
    quick.add(1000)
    quick.result()
    quick.done()
    assert quick.out.getvalue() == ""  # a short run shows nothing
    slow = Progress(_Terminal(), delay=0.0)
    slow.add(2_500_000)
    slow.result()
    slow.done()
    assert slow.out.getvalue() == "\r1 document(s) checked, 1 file(s), 2.5 MB read \r\033[K"


def test_default_jobs_start_processes_only_for_large_inputs(tmp_path):
    from webhook.offline import parallel, reviewing

    small = write(tmp_path / "small.yaml", valid_slice())
    assert reviewing.default_jobs([str(small)]) == 1
    large = tmp_path / "large.yaml"
    large.write_text("# padding\n" * (reviewing.PARALLEL_BYTES // 10 + 1))
    assert reviewing.default_jobs([str(small), str(large)]) == parallel.available_cpus()
    assert reviewing.default_jobs(["-"]) == parallel.available_cpus()
    assert reviewing.default_jobs([str(tmp_path / "missing.yaml")]) == 1


def test_text_output_names_the_release_and_the_gates_it_applied(tmp_path, capsys):
    path = write(tmp_path / "slice.yaml", [BAD_SLICE])
    assert review(capsys, str(path))[1].splitlines()[-3] == "rules: Kubernetes 1.36, its default feature gates"
    out = review(capsys, str(path), "--kubernetes-version", "1.35", "--feature-gates",
                 "DRAAdminAccess=false,DRADeviceTaints=true")[1]
    assert out.splitlines()[-3] == ("rules: Kubernetes 1.35, feature gates DRAAdminAccess=false, DRADeviceTaints=true "
                                    "(the others at 1.35's defaults)")
