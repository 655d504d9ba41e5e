"""`dra-webhook test`: every key of the TestSuite format, discovery, unreadable input and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from support import deep, review_body, valid_slice
from webhook import cli

NAMESPACE = "ml-team"


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data)
    elif path.suffix == ".json":
        path.write_text(json.dumps(data))
    else:
        path.write_text(yaml.safe_dump_all(data if isinstance(data, list) else [data], sort_keys=False))
    return path


def suite(tests: list[dict], **top) -> dict:
    return {"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", **top, "tests": tests}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["test", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code, out, _ = run(capsys, *argv, "--output", "json")
    return code, json.loads(out)


def stored(obj: dict, **meta) -> dict:
    obj = deep(obj)
    obj["metadata"].update({"uid": "3f0c9b52-8e7a-4d21-9c6b-1a2e5f8d7c40", "resourceVersion": "7", **meta})
    return obj


def claim() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "gpu", "namespace": NAMESPACE},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    }


def allocated(claim_obj: dict) -> dict:
    obj = deep(claim_obj)
    obj["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]}}}
    return obj


def statuses(report: dict) -> dict[str, str]:
    return {t["name"]: t["verdict"] for t in report["results"] if t["name"] != "(load suite)"}


def problems(report: dict, name: str) -> list[str]:
    return next([m["message"] for m in t["messages"]] for t in report["results"] if t["name"] == name)


# --- object / oldObject / operation / subResource / review -----------------------------------------


def test_object_as_path_inline_and_document_index(tmp_path, capsys):
    bad = valid_slice(name="Bad_Name")
    write(tmp_path / "objects/slices.yaml", [valid_slice(), bad])
    write(tmp_path / "objects/one.json", valid_slice())
    write(tmp_path / "suite.yaml", suite([
        {"name": "path", "object": "objects/one.json", "expect": {"allowed": True}},
        {"name": "index 0", "object": "objects/slices.yaml#0", "expect": {"allowed": True}},
        {"name": "index 1", "object": "objects/slices.yaml#1",
         "expect": {"allowed": False, "causes": [{"field": "metadata.name", "reason": "FieldValueInvalid"}]}},
        {"name": "inline", "object": valid_slice(), "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert set(statuses(report).values()) == {"passed"}, report
    assert code == 0


@pytest.mark.parametrize("reference, message", [
    ("objects/slices.yaml", "holds 2 documents; pick one with objects/slices.yaml#<index>"),
    ("objects/slices.yaml#5", "has no document at index 5"),
    ("objects/scalar.yaml", "is not an object"),
    ("objects/missing.yaml", "cannot read"),
    ("objects/broken.yaml", "cannot parse"),
    ("objects/review.json", "is an AdmissionReview; use 'review'"),
])
def test_object_reference_that_cannot_be_used_is_an_error(tmp_path, capsys, reference, message):
    write(tmp_path / "objects/slices.yaml", [valid_slice(), valid_slice()])
    write(tmp_path / "objects/scalar.yaml", "just a string\n")
    write(tmp_path / "objects/broken.yaml", "a: [unclosed\n")
    write(tmp_path / "objects/review.json", review_body(valid_slice()))
    write(tmp_path / "suite.yaml", suite([{"name": "t", "object": reference, "expect": {"allowed": True}}]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"t": "error"}
    assert message in problems(report, "t")[0]
    assert problems(report, "t")[0].startswith("object: ")
    assert code == 2


# A changed uid is refused twice: by the API server's own metadata check of every update, then by the slice's.
def test_old_object_makes_an_update(tmp_path, capsys):
    old = stored(valid_slice())
    write(tmp_path / "suite.yaml", suite([
        {"name": "unchanged", "object": deep(old), "oldObject": old, "expect": {"allowed": True}},
        {"name": "uid changed", "object": stored(valid_slice(), uid="9d4e2a71-6b3c-4f58-8a0e-7c1b5d3f2e69"),
         "oldObject": old,
         "expect": {"allowed": False, "causes": [{"field": "metadata.uid", "reason": "FieldValueInvalid"}] * 2}},
        {"name": "explicit UPDATE", "operation": "UPDATE", "object": deep(old), "oldObject": old,
         "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert set(statuses(report).values()) == {"passed"}, report
    assert code == 0


def test_delete_and_connect_are_allowed(tmp_path, capsys):
    write(tmp_path / "suite.yaml", suite([
        {"name": "delete", "operation": "DELETE", "oldObject": valid_slice(), "expect": {"allowed": True}},
        {"name": "connect", "operation": "CONNECT", "object": valid_slice(), "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert set(statuses(report).values()) == {"passed"}, report
    assert code == 0


def test_status_subresource(tmp_path, capsys):
    old = stored(claim())
    reserved = deep(old)
    pod = {"resource": "pods", "name": "p", "uid": "5a8c2e17-9f4b-4d63-b1e0-7c3a9d5f8e24"}
    reserved["status"] = {"reservedFor": [pod]}
    write(tmp_path / "suite.yaml", suite([
        {"name": "allocation", "object": allocated(old), "oldObject": old, "subResource": "status",
         "expect": {"allowed": True, "warnings": []}},
        {"name": "reserved without allocation", "object": reserved, "oldObject": old, "subResource": "status",
         "expect": {"allowed": False, "causes": [{"field": "status.reservedFor", "reason": "FieldValueForbidden"}]}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert set(statuses(report).values()) == {"passed"}, report
    assert code == 0


def test_review_key_takes_a_whole_admission_review(tmp_path, capsys):
    old = stored(valid_slice())
    changed = stored(valid_slice(), uid="9d4e2a71-6b3c-4f58-8a0e-7c1b5d3f2e69")
    write(tmp_path / "reviews/update.json", review_body(changed, operation="UPDATE", old=old))
    write(tmp_path / "reviews/bare.yaml", valid_slice())
    write(tmp_path / "suite.yaml", suite([
        {"name": "file", "review": "reviews/update.json",
         "expect": {"allowed": False, "causes": [{"field": "metadata.uid", "reason": "FieldValueInvalid"}] * 2}},
        {"name": "inline", "review": review_body(valid_slice(), operation="DELETE"), "expect": {"allowed": True}},
        {"name": "not a review", "review": "reviews/bare.yaml", "expect": {"allowed": True}},
        {"name": "broken review", "review": {"kind": "AdmissionReview", "request": {}}, "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"file": "passed", "inline": "passed", "not a review": "error",
                                "broken review": "error"}
    assert "not an AdmissionReview" in problems(report, "not a review")[0]
    assert "request.uid" in problems(report, "broken review")[0]
    assert code == 2


# --- expect -----------------------------------------------------------------------------------------


def test_allowed_mismatch_fails_with_the_message(tmp_path, capsys):
    write(tmp_path / "suite.yaml", suite([
        {"name": "wrongly expects denial", "object": valid_slice(), "expect": {"allowed": False}},
        {"name": "wrongly expects allowance", "object": valid_slice(name="Bad_Name"), "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert set(statuses(report).values()) == {"failed"}
    assert problems(report, "wrongly expects denial") == ["expected denied, got allowed"]
    assert problems(report, "wrongly expects allowance")[0].startswith("expected allowed, got denied: ResourceSlice")
    assert code == 1


def test_causes_are_an_exact_multiset(tmp_path, capsys):
    bad = valid_slice()
    bad["spec"]["pool"].update({"resourceSliceCount": 0, "generation": -1})
    count = {"field": "spec.pool.resourceSliceCount", "reason": "FieldValueInvalid"}
    generation = {"field": "spec.pool.generation", "reason": "FieldValueInvalid"}
    write(tmp_path / "suite.yaml", suite([
        {"name": "exact", "object": bad, "expect": {"allowed": False, "causes": [generation, count]}},
        {"name": "one missing", "object": bad, "expect": {"allowed": False, "causes": [count]}},
        {"name": "one too many", "object": bad, "expect": {"allowed": False, "causes": [count, count, generation]}},
        {"name": "none expected", "object": bad, "expect": {"allowed": False, "causes": []}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"exact": "passed", "one missing": "failed", "one too many": "failed",
                                "none expected": "failed"}
    assert problems(report, "one missing") == ["unexpected cause spec.pool.generation FieldValueInvalid"]
    assert problems(report, "one too many") == ["missing cause spec.pool.resourceSliceCount FieldValueInvalid"]
    assert len(problems(report, "none expected")) == 2
    assert code == 1


def test_message_contains(tmp_path, capsys):
    big = valid_slice(devices=129)
    write(tmp_path / "suite.yaml", suite([
        {"name": "contained", "object": big, "expect": {"allowed": False, "messageContains": "must have at most 128"}},
        {"name": "not contained", "object": big, "expect": {"allowed": False, "messageContains": "at most 64"}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"contained": "passed", "not contained": "failed"}
    assert "does not contain 'at most 64'" in problems(report, "not contained")[0]
    assert code == 1


def test_warnings_are_an_exact_list(tmp_path, capsys):
    odd = valid_slice()
    odd["spec"]["driver"] = "GPU.example.com"
    write(tmp_path / "suite.yaml", suite([
        {"name": "exact", "object": odd,
         "expect": {"allowed": True, "warnings": [
             'spec.driver: driver names should be lowercase; "GPU.example.com" contains uppercase characters']}},
        {"name": "none expected", "object": odd, "expect": {"allowed": True, "warnings": []}},
        {"name": "none given", "object": valid_slice(), "expect": {"allowed": True, "warnings": ["something"]}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"exact": "passed", "none expected": "failed", "none given": "failed"}
    assert problems(report, "none given") == ["warnings differ: expected ['something'], got []"]
    assert code == 1


def test_warnings_as_errors_fails_tests_that_do_not_expect_the_warnings(tmp_path, capsys):
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    warning = "dra-webhook: ConfigMap of group '' is not handled; allowed without checks"
    path = write(tmp_path / "suite.yaml", suite([
        {"name": "silent about warnings", "object": config_map, "expect": {"allowed": True}},
        {"name": "expects them", "object": config_map, "expect": {"allowed": True, "warnings": [warning]}},
        {"name": "no warnings", "object": valid_slice(), "expect": {"allowed": True}},
    ]))
    code, report = run_json(capsys, str(path))
    assert set(statuses(report).values()) == {"passed"} and code == 0
    code, report = run_json(capsys, str(path), "--warnings-as-errors")
    assert statuses(report) == {"silent about warnings": "failed", "expects them": "passed", "no warnings": "passed"}
    assert problems(report, "silent about warnings")[0].startswith("unexpected warnings")
    assert code == 1


def test_patched_is_a_subset_of_the_defaulted_object(tmp_path, capsys):
    template = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": NAMESPACE},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
    }
    defaulted = {"spec": {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"allocationMode": "ExactCount", "count": 1}}]}}}}
    wrong = deep(defaulted)
    wrong["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    write(tmp_path / "suite.yaml", suite([
        {"name": "defaults", "object": template, "expect": {"allowed": True, "patched": defaulted}},
        {"name": "wrong count", "object": template, "expect": {"allowed": True, "patched": wrong}},
        {"name": "missing key", "object": template, "expect": {"allowed": True, "patched": {"status": {}}}},
        {"name": "no defaults", "object": valid_slice(), "expect": {"allowed": True,
                                                                    "patched": {"metadata": {"name": "node-1-gpu"}}}},
    ]))
    code, report = run_json(capsys, str(tmp_path / "suite.yaml"))
    assert statuses(report) == {"defaults": "passed", "wrong count": "failed", "missing key": "failed",
                                "no defaults": "passed"}
    assert problems(report, "wrong count") == [
        "patched: spec.spec.devices.requests[0].exactly.count: expected 2, got 1"]
    assert problems(report, "missing key") == ["patched: status: missing (expected {})"]
    assert code == 1


# --- the suite schema -------------------------------------------------------------------------------


SUITE_WITH_UNKNOWN_KEYS = """\
apiVersion: dra-webhook/v1alpha1
kind: TestSuite
description: not a key
tests:
  - name: first
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
    expected: {allowed: true}
    expect:
      allowed: true
      allow: true
      causes:
        - {field: spec, reason: FieldValueInvalid, message: nope}
"""


def test_unknown_keys_at_every_level_are_errors_with_file_and_line(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", SUITE_WITH_UNKNOWN_KEYS)
    code, out, _ = run(capsys, str(path))
    assert code == 2
    assert f"{path}:3: (load suite): invalid suite\n" in out
    assert ("  unknown key 'description' (known keys: apiVersion, kind, name, kubernetesVersion, featureGates, "
            "runtimeConfig, namespace, tests)") in out
    assert f"{path}:7: unknown key 'expected' in tests[0]" in out
    assert f"{path}:10: unknown key 'allow' in tests[0].expect" in out
    assert f"{path}:12: unknown key 'message' in tests[0].expect.causes[0]" in out
    assert "PASSED" not in out  # an invalid suite does not run at all


@pytest.mark.parametrize("change, message", [
    ({"apiVersion": "v1"}, "apiVersion: must be 'dra-webhook/v1alpha1', not 'v1'"),
    ({"kind": "Suite"}, "kind: must be 'TestSuite', not 'Suite'"),
    ({"tests": None}, "tests: Input should be a valid list"),
    ({"tests": [{"object": "x.yaml", "expect": {"allowed": True}}]}, "tests[0].name is required"),
    ({"tests": [{"name": "t", "object": "x.yaml"}]}, "tests[0].expect is required"),
    ({"tests": [{"name": "t", "object": "x.yaml", "expect": {}}]}, "tests[0].expect.allowed is required"),
    ({"tests": [{"name": "t", "object": "x.yaml", "expect": {"allowed": "yes"}}]},
     "tests[0].expect.allowed: Input should be a valid boolean"),
    ({"tests": [{"name": "t", "expect": {"allowed": True}}]}, "tests[0]: 'object' (or 'review') is required"),
    ({"tests": [{"name": "t", "object": 3, "expect": {"allowed": True}}]},
     "tests[0].object: must be a file path (relative to the suite) or an inline object"),
    ({"tests": [{"name": "t", "object": "x.yaml", "operation": "PATCH", "expect": {"allowed": True}}]},
     "tests[0].operation: must be 'CREATE', 'UPDATE', 'DELETE' or 'CONNECT', not 'PATCH'"),
    ({"tests": [{"name": "t", "object": "x.yaml", "operation": "UPDATE", "expect": {"allowed": True}}]},
     "an UPDATE needs 'oldObject'"),
    ({"tests": [{"name": "t", "object": "x.yaml", "oldObject": "x.yaml", "operation": "CREATE",
                 "expect": {"allowed": True}}]}, "a CREATE has no 'oldObject'"),
    ({"tests": [{"name": "t", "operation": "DELETE", "expect": {"allowed": True}}]}, "a DELETE needs 'oldObject'"),
    ({"tests": [{"name": "t", "review": "r.json", "object": "x.yaml", "subResource": "status",
                 "expect": {"allowed": True}}]}, "'review' holds the whole request: remove 'object', 'subResource'"),
    ({"tests": [{"name": "t", "object": "x.yaml", "expect": {"allowed": True}},
                {"name": "t", "object": "x.yaml", "expect": {"allowed": True}}]},
     "tests[1].name: duplicate test name 't'"),
    ({"tests": [{"name": "t", "object": "x.yaml", "expect": {"allowed": True, "causes": [{"field": "spec"}]}}]},
     "tests[0].expect.causes[0].reason is required"),
    ({"tests": [{"name": "t", "object": "x.yaml", "expect": {"allowed": True, "warnings": "none"}}]},
     "tests[0].expect.warnings: Input should be a valid list"),
])
def test_invalid_suite_is_exit_2_with_a_clear_message(tmp_path, capsys, change, message):
    data = suite([{"name": "ok", "object": "x.yaml", "expect": {"allowed": True}}])
    data.update(change)
    path = write(tmp_path / "suite.yaml", data)
    code, out, _ = run(capsys, str(path))
    assert code == 2
    assert message in out, out


def test_suite_name_is_reported(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([{"name": "t", "object": valid_slice(), "expect": {"allowed": True}}],
                                                name="GPU slices"))
    code, report = run_json(capsys, str(path))
    assert report["results"][0]["suite"] == "GPU slices" and report["results"][0]["file"] == str(path)
    assert code == 0


# --- unreadable input, discovery and exit codes -----------------------------------------------------


@pytest.mark.parametrize("content, message", [
    (b"apiVersion: [unclosed\n", "cannot parse"),
    (b"\xff\xfe not utf-8", "cannot read"),
    (b"---\na: 1\n---\nb: 2\n", "cannot parse"),
    (b"- a list\n", "a test suite must be a mapping"),
    (b"", "a test suite must be a mapping"),
])
def test_unreadable_suite_file_is_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "suite.yaml"
    path.write_bytes(content)
    code, out, _ = run(capsys, str(path))
    assert code == 2
    assert f"{path}" in out and message in out, out


def test_missing_path_is_a_result_and_stdin_a_usage_error(tmp_path, capsys):
    good = write(tmp_path / "suite.yaml", suite([{"name": "t", "object": valid_slice(), "expect": {"allowed": True}}]))
    code, out, err = run(capsys, str(tmp_path / "nothing.yaml"), str(good))
    assert code == 2 and f"{tmp_path / 'nothing.yaml'}: (load suite): invalid suite\n  no such file or directory" in out
    assert "1 passed" in out
    code, _, err = run(capsys, "-")
    assert code == 2 and "read from files" in err


def test_no_arguments_searches_the_current_directory(tmp_path, capsys, monkeypatch):
    write(tmp_path / "policy/suite.yaml", suite([{"name": "t", "object": valid_slice(), "expect": {"allowed": True}}]))
    monkeypatch.chdir(tmp_path)
    code, report = run_json(capsys)
    assert code == 0 and [r["file"] for r in report["results"]] == ["policy/suite.yaml"]


def test_empty_suite_is_exit_2_unless_allowed(tmp_path, capsys):
    path = write(tmp_path / "suite.yaml", suite([]))
    code, out, err = run(capsys, str(path))
    assert code == 2 and "no test found" in err and "0 test(s)" in out
    code, _, err = run(capsys, str(path), "--allow-empty")
    assert code == 0


def test_directory_without_suites_is_exit_2_unless_allowed(tmp_path, capsys):
    write(tmp_path / "manifests/slice.yaml", valid_slice())
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "no test found (use --allow-empty to accept)" in err
    code, _, _ = run(capsys, str(tmp_path), "--allow-empty")
    assert code == 0


def test_directories_are_searched_for_suites(tmp_path, capsys):
    write(tmp_path / "manifests/slice.yaml", valid_slice())  # not a suite: ignored
    write(tmp_path / "a/suite.yaml", suite([{"name": "a", "object": valid_slice(), "expect": {"allowed": True}}]))
    write(tmp_path / "b/c/more.json", suite([{"name": "c", "object": valid_slice(), "expect": {"allowed": True}}]))
    write(tmp_path / ".hidden/suite.yaml", suite([{"name": "h", "object": valid_slice(), "expect": {"allowed": True}}]))
    write(tmp_path / "broken/suite.yaml", "kind: TestSuite\ntests: [\n")  # a broken suite is reported, not skipped
    code, report = run_json(capsys, str(tmp_path), str(tmp_path / "a/suite.yaml"))  # the same suite twice: once
    assert [s["file"] for s in report["results"]] == [str(tmp_path / p) for p in ("a/suite.yaml", "b/c/more.json",
                                                                                  "broken/suite.yaml")]
    assert statuses(report) == {"a": "passed", "c": "passed"}
    assert "cannot parse" in report["results"][2]["messages"][0]["message"]
    assert code == 2


def test_exit_codes_0_1_2(tmp_path, capsys):
    def one(name: str, obj, allowed: bool) -> dict:
        return suite([{"name": name, "object": obj, "expect": {"allowed": allowed}}])

    passing = write(tmp_path / "pass.yaml", one("p", valid_slice(), True))
    failing = write(tmp_path / "fail.yaml", one("f", valid_slice(), False))
    erroring = write(tmp_path / "error.yaml", one("e", "gone.yaml", True))
    assert run(capsys, str(passing))[0] == 0
    assert run(capsys, str(passing), str(failing))[0] == 1
    assert run(capsys, str(passing), str(erroring))[0] == 2
    # precedence: a failure is not hidden by an input that could not be used
    code, out, _ = run(capsys, str(passing), str(failing), str(erroring))
    assert code == 1 and out.splitlines()[-1] == "exit 1: 1 failed; also 1 could not be used"
