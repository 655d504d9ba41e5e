"""`review --cluster-state FILE`: the warnings `serve --cluster-state` gives at admission, offline, from a
`kubectl get deviceclasses,resourceslices,devicetaintrules -o yaml` dump, in every output format; and the
checks themselves on a store (the same code the server runs)."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from support import cli, valid_slice
from test_cluster_state_https import gpu_claim, gpu_class
from webhook.clusterstate import checks
from webhook.clusterstate.matching import Matching
from webhook.clusterstate.store import Store
from webhook.offline.warningcodes import code, labelled


@pytest.fixture()
def dump(tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [gpu_class(), valid_slice(2)]}))
    return path


@pytest.mark.parametrize("output", ["text", "json", "junit", "sarif", "github", "tap"])
def test_same_warnings_in_every_format(tmp_path, dump, output):
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump_all([gpu_claim("gpu", count=3, name="three"), gpu_claim("nope", name="lost")]))
    result = cli("review", "--cluster-state", str(dump), "-o", output, str(claims))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "count-above-devices" in result.stdout and "missing-device-class" in result.stdout
    assert "ResourceClaim request gpus (DeviceClass gpu): asks for 3 devices, 2 in the whole cluster match" \
        in result.stdout
    assert "ResourceClaim request gpus: DeviceClass nope does not exist" in result.stdout
    # The code once: a reporter that prints it beside the warning takes it off the warning's start.
    for doubled in ("[count-above-devices] [count-above-devices]", "[count-above-devices]: [count-above-devices]"):
        assert doubled not in result.stdout
    if output == "json":
        json.loads(result.stdout)


def test_without_the_dump_no_state_warning(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump(gpu_claim("gpu", count=3)))
    result = cli("review", str(claims))
    assert result.returncode == 0 and "count-above-devices" not in result.stdout


def test_warnings_as_errors_and_ignore(tmp_path, dump):
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump(gpu_claim("gpu", count=3)))
    assert cli("review", "--cluster-state", str(dump), "--warnings-as-errors", str(claims)).returncode == 1
    assert cli("review", "--cluster-state", str(dump), "--warnings-as-errors", "--ignore-warning",
               "count-above-devices", str(claims)).returncode == 0


def test_an_unreadable_dump_is_exit_2(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump(gpu_claim("gpu")))
    result = cli("review", "--cluster-state", str(tmp_path / "missing.yaml"), str(claims))
    assert result.returncode == 2 and "--cluster-state" in result.stderr and "Traceback" not in result.stderr


def test_codes_are_stable_and_labelled_once():
    for name in ("profile-mismatch", "missing-device-class", "unsatisfiable", "unknown-attribute",
                 "count-above-devices", "pool"):
        warning = f"[{name}] pool x" if name == "pool" else f"[{name}] something"
        assert code(warning) == name
        assert labelled(warning) == warning


def _store(*objects) -> tuple[Store, Matching]:
    store = Store()
    for obj in objects:
        store.put(obj["kind"], obj)
    return store, Matching(store)


def _warnings(store, matching, claim) -> list:
    return checks.check("ResourceClaim", claim, store, matching, time.monotonic() + 10).warnings


def test_template_and_first_available():
    store, matching = _store(gpu_class(), valid_slice(2))
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "t"},
                "spec": {"spec": gpu_claim("nope")["spec"]}}
    [warning] = checks.check("ResourceClaimTemplate", template, store, matching, time.monotonic() + 10).warnings
    assert warning.startswith("[missing-device-class] ResourceClaimTemplate request gpus:")
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "r", "firstAvailable": [
                 {"name": "big", "deviceClassName": "gpu", "selectors": [
                     {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]},
                 {"name": "any", "deviceClassName": "gpu"}]}]}}}
    assert _warnings(store, matching, claim) == []  # one alternative can be satisfied
    claim["spec"]["devices"]["requests"][0]["firstAvailable"].pop()
    [warning] = _warnings(store, matching, claim)
    assert warning.startswith("[unsatisfiable] ResourceClaim request r: no device in the cluster can ever satisfy "
                              "it: r/big (DeviceClass gpu): needs 1, 0 usable of 2 devices: request selector false: 2")


def test_presence_tests_name_absent_attributes_without_a_warning():
    store, matching = _store(gpu_class(), valid_slice(2))
    claim = gpu_claim("gpu", selector='!has(device.attributes["gpu.example.com"].nvlink) || '
                                      '!("x" in device.attributes["gpu.example.com"])')
    assert _warnings(store, matching, claim) == []


def test_budget_spent_means_no_warning_and_the_work_is_kept():
    store, matching = _store(gpu_class(), *[valid_slice(2, name=f"s{i}") for i in range(20)])
    findings = checks.check("ResourceClaim", gpu_claim("gpu", count=100), store, matching, time.monotonic())
    assert findings.warnings == [] and not findings.complete
    findings = checks.check("ResourceClaim", gpu_claim("gpu", count=100), store, matching, time.monotonic() + 10)
    assert findings.complete and findings.warnings[0].startswith("[count-above-devices]")
    evaluated = matching.evaluated_slices
    store.put("ResourceSlice", valid_slice(3, name="s0"))  # one slice changed: only it is evaluated again
    findings = checks.check("ResourceClaim", gpu_claim("gpu", count=100), store, matching, time.monotonic() + 10)
    assert matching.evaluated_slices == evaluated + 1
    assert "41 in the whole cluster match" in findings.warnings[0]


def test_a_tenants_selector_is_escaped_and_bounded_in_the_warning():
    store, matching = _store(gpu_class(), valid_slice(2))
    expression = 'device.attributes["gpu.example.com"].model == "\x1b[31m\nforged' + "x" * 5000 + '"'
    [warning] = _warnings(store, matching, gpu_claim("gpu", selector=expression))
    assert warning.startswith("[unsatisfiable] ")
    assert "\x1b" not in warning and "\n" not in warning and "\\x1b[31m\\n" in warning
    assert len(warning) <= checks.MAX_WARNING_CHARS + len("...(truncated)") and warning.endswith("...(truncated)")


def _nested(depth: int):
    value: object = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("kind", ["DeviceClass", "DeviceTaintRule"])
def test_a_dump_nested_past_the_copy_is_left_out_not_a_traceback(tmp_path, kind):
    """A dump of untrusted objects nested as deep as the loader allows: each such object is unusable (as one
    that does not convert), the others are used, and the run answers with no traceback."""
    deep = gpu_class("deep") if kind == "DeviceClass" else {
        "apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "deep"},
        "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}}
    (deep["spec"]["selectors"][0] if kind == "DeviceClass" else deep["spec"])["x"] = _nested(600)
    path = tmp_path / "cluster.json"  # JSON: its loader has no anchors, so the depth is really there
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [deep, gpu_class(), valid_slice(2)]}))
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump(gpu_claim("gpu", count=3, name="three")))
    result = cli("review", "--cluster-state", str(path), str(claims))
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "asks for 3 devices, 2 in the whole cluster match" in result.stdout
