"""--runtime-config (kube-apiserver's syntax) says which API versions the cluster serves; every warning has a
stable code in every output, and --ignore-warning silences one, so --warnings-as-errors can pass."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from support import cli
from webhook.offline.warningcodes import CODES, code
from webhook.profile import ProfileError, make_profile

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "gpu-driver"
V1BETA2_CLASS = "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
V1_CLASS = V1BETA2_CLASS.replace("v1beta2", "v1")
NO_MATCH = 'no matches for kind "DeviceClass" in version "resource.k8s.io/v1beta2"'


@pytest.fixture
def classes(tmp_path):
    beta, ga = tmp_path / "beta.yaml", tmp_path / "ga.yaml"
    beta.write_text(V1BETA2_CLASS)
    ga.write_text(V1_CLASS)
    return str(beta), str(ga)


def test_a_version_the_cluster_serves_passes_with_warnings_as_errors(classes):
    beta, ga = classes
    without = cli("review", beta, ga, "--warnings-as-errors")
    assert without.returncode == 1 and "[opt-in-api]" in without.stdout
    # A cluster that serves it still warns that 1.36 deprecates it: the API server's own warning, its own code.
    served = cli("review", beta, ga, "--runtime-config", "resource.k8s.io/v1beta2=true", "--warnings-as-errors")
    assert served.returncode == 1 and "[opt-in-api]" not in served.stdout
    assert "warning [deprecated-api]: resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in " \
           "v1.39+" in served.stdout
    result = cli("review", beta, ga, "--runtime-config", "resource.k8s.io/v1beta2=true", "--warnings-as-errors",
                 "--ignore-warning", "deprecated-api")
    assert (result.returncode, result.stdout.splitlines()) == (0, [
        "rules: Kubernetes 1.36, its default feature gates, --runtime-config resource.k8s.io/v1beta2=true",
        "2 object(s): 2 allowed, 0 denied, 0 unreadable, 0 skipped", "exit 0: every object passed"])
    summary = json.loads(cli("review", beta, "--runtime-config", "resource.k8s.io/v1beta2=true", "-o", "json").stdout)
    assert summary["summary"]["runtimeConfig"] == "resource.k8s.io/v1beta2=true"
    for flag in ("api/all=true", "api/beta=true", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta2/deviceclasses=1"):
        assert cli("review", beta, "--runtime-config", flag, "--warnings-as-errors",
                   "--ignore-warning", "deprecated-api").returncode == 0, flag


@pytest.mark.parametrize("flag", ["resource.k8s.io/v1beta2=false", "api/beta=false", "api/all=false",
                                  "api/all=true,resource.k8s.io/v1beta2/deviceclasses=false"])
def test_a_version_turned_off_is_no_match_for_kind(classes, flag):
    beta, ga = classes
    result = cli("review", beta, ga, "--runtime-config", flag, "-o", "json")
    items = json.loads(result.stdout)["results"]
    assert [i["verdict"] for i in items] == ["denied", "allowed" if flag != "api/all=false" else "denied"]
    assert items[0]["response"]["status"]["message"].startswith(NO_MATCH + "; the cluster's --runtime-config")
    assert result.returncode == 1


def test_specific_versions_win_over_api_all_and_other_groups_are_ignored(classes):
    beta, ga = classes
    result = cli("review", beta, ga, "--warnings-as-errors", "--ignore-warning", "deprecated-api", "--runtime-config",
                 "api/all=false,resource.k8s.io/v1=true,resource.k8s.io/v1beta2=true,batch/v1=false")
    assert result.returncode == 0, result.stdout


def test_another_groups_value_is_not_read():
    """kube-apiserver skips a group it has not registered (a CRD's group) before reading the value: such a
    flag starts it, so it is no usage error here either."""
    profile = make_profile("1.36", runtime_config="example.com/v1=maybe,example.com/v1/widgets=later")
    assert profile is not None


@pytest.mark.parametrize("flag, message", [
    ("resource.k8s.io/v9=true", "group version resource.k8s.io/v9 that has not been registered"),
    ("api/all=yes", "invalid value api/all=yes"),
    ("resource.k8s.io/v1beta2=maybe", "invalid value of resource.k8s.io/v1beta2: maybe"),
    ("resource.k8s.io/v1beta2/DeviceClasses=true", "resource is always lowercase plural, not 'DeviceClasses'"),
    ("resource.k8s.io/=true", "group version resource.k8s.io/ that has not been registered"),
    # upstream checks the version before it reads the value
    ("resource.k8s.io/v9=maybe", "group version resource.k8s.io/v9 that has not been registered"),
])
def test_what_kube_apiserver_refuses_is_a_usage_error(classes, flag, message):
    for command in (["review", classes[0]], ["test", classes[0]], ["serve", "--port", "1"]):
        result = cli(*command, "--runtime-config", flag)
        assert result.returncode == 2 and message in result.stderr, command
    with pytest.raises(ProfileError, match="invalid --runtime-config"):
        make_profile("1.36", runtime_config=flag)


def test_the_registered_versions_are_the_releases(tmp_path):
    with pytest.raises(ProfileError, match="resource.k8s.io/v1beta3 that has not been registered"):
        make_profile("1.35", runtime_config="resource.k8s.io/v1beta3=true")
    assert make_profile("1.36", runtime_config="resource.k8s.io/v1alpha3=true") != make_profile("1.36")
    # 1.35 serves DeviceTaintRule as v1alpha3 only: turning v1beta2 on serves v1beta2 DeviceClasses, not it
    rule = tmp_path / "rule.yaml"
    rule.write_text((EXAMPLES / "devicetaintrule-maintenance.yaml").read_text())
    assert "apiVersion: resource.k8s.io/v1beta2" in rule.read_text()
    result = cli("review", str(rule), "--kubernetes-version", "1.35", "--runtime-config", "api/all=true", "-o", "json")
    [item] = json.loads(result.stdout)["results"]
    assert item["response"]["status"]["message"].startswith(
        'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta2"; Kubernetes 1.35 serves '
        "DeviceTaintRule as resource.k8s.io/v1alpha3")


def test_a_suite_states_its_cluster_apis(tmp_path):
    (tmp_path / "class.yaml").write_text(V1BETA2_CLASS)
    suite = {"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", "runtimeConfig": "resource.k8s.io/v1beta2=true",
             "tests": [{"name": "served", "object": "class.yaml", "expect": {"allowed": True, "warnings": [
                 "resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in v1.39+"]}}]}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path), "--warnings-as-errors").returncode == 0
    off = cli("test", str(tmp_path), "--runtime-config", "resource.k8s.io/v1beta2=false")
    assert off.returncode == 0  # the suite's own word is the last
    del suite["runtimeConfig"]
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path)).returncode == 1  # the opt-in warning is not expected
    assert cli("test", str(tmp_path), "--runtime-config", "resource.k8s.io/v1beta2=true").returncode == 0
    suite["runtimeConfig"] = "resource.k8s.io/v7=true"
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    bad = cli("test", str(tmp_path))
    assert bad.returncode == 2 and "suite.yaml:1: (load suite): invalid suite" in bad.stdout


def _warned(tmp_path) -> str:
    path = tmp_path / "slice.yaml"
    text = (EXAMPLES / "resourceslice-node-1-counters.yaml").read_text()
    path.write_text(text.replace("driver: gpu.example.com", "driver: Gpu.example.com", 1))
    return str(path)


def test_every_output_shows_the_warning_code(tmp_path, classes):
    path = _warned(tmp_path)
    out = {fmt: cli("review", path, classes[0], "-o", fmt).stdout for fmt in
           ("text", "tap", "github", "junit", "sarif", "json")}
    assert "  warning [uppercase-driver]: spec.driver: driver names should be lowercase" in out["text"]
    assert "  warning [opt-in-api]: dra-webhook: resource.k8s.io/v1beta2 DeviceClass is served only" in out["text"]
    assert "  warning [deprecated-api]: resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+" in out["text"]
    assert '    - "[uppercase-driver] spec.driver: driver names' in out["tap"]
    title = "title=ResourceSlice/node-1-gpu.example.com-counters (CREATE)%3A warning [uppercase-driver]::"
    assert title in out["github"]
    junit = ET.fromstring(out["junit"].split("\n", 1)[1])
    assert [e.text.split("]")[0] for e in junit.iter("system-out")] == ["warning [uppercase-driver",
                                                                         "warning [deprecated-api"]
    sarif = json.loads(out["sarif"])["runs"][0]
    assert [r["ruleId"] for r in sarif["results"]] == ["warning/uppercase-driver", "warning/deprecated-api",
                                                       "warning/opt-in-api"]
    assert {r["id"] for r in sarif["tool"]["driver"]["rules"]} == {"warning/uppercase-driver", "warning/deprecated-api",
                                                                   "warning/opt-in-api"}
    items = json.loads(out["json"])["results"]
    assert [i["warningCodes"] for i in items] == [["uppercase-driver"], ["deprecated-api", "opt-in-api"]]


def test_ignore_warning_silences_one_code(tmp_path, classes):
    path = _warned(tmp_path)
    both = cli("review", path, classes[0], "--warnings-as-errors", "--ignore-warning", "uppercase-driver")
    assert both.returncode == 1 and "uppercase-driver" not in both.stdout and "[opt-in-api]" in both.stdout
    result = cli("review", path, classes[0], "--warnings-as-errors", "--ignore-warning", "uppercase-driver",
                 "--ignore-warning", "opt-in-api", "--ignore-warning", "deprecated-api")
    assert result.returncode == 0 and "warning [" not in result.stdout
    unknown = cli("review", path, "--ignore-warning", "uppercase")
    assert unknown.returncode == 2 and "unknown warning code uppercase; the codes: opt-in-api," in unknown.stderr


def test_codes_are_found_from_the_texts():
    assert code('unknown field "spec.x"') == "unknown-field"
    assert code("spec.devices[0].bindingConditions dropped: feature gate DRADeviceBindingConditions is disabled") \
        == "dropped-field"
    assert code("dra-webhook: spec.selectors[0].cel.expression: type and cost checks of CEL selectors were skipped "
                "(portable CEL engine)") == "cel-unchecked"
    assert code("something new") == "other" and list(CODES)[-1] == "other"


def test_ignore_warning_in_suites(tmp_path):
    (tmp_path / "class.yaml").write_text(V1BETA2_CLASS)
    suite = {"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite",
             "tests": [{"name": "warned", "object": "class.yaml", "expect": {"allowed": True}}]}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path), "--warnings-as-errors").returncode == 1
    result = cli("test", str(tmp_path), "--warnings-as-errors", "--ignore-warning", "opt-in-api",
                 "--ignore-warning", "deprecated-api")
    assert result.returncode == 0 and "opt-in-api" not in result.stdout
    # an exact list of warnings still sees every warning the API server answers with
    suite["tests"][0]["expect"]["warnings"] = []
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    assert cli("test", str(tmp_path), "--ignore-warning", "opt-in-api").returncode == 1


def test_serve_takes_the_runtime_config_to_its_workers(tmp_path):
    """The profile, runtime config included, reaches the worker processes (it is pickled for them)."""
    import yaml

    from support import review_body, start_server

    server = start_server(tmp_path, "--runtime-config", "api/all=true,resource.k8s.io/v1beta1=false", "--workers", "1",
                          "--inline-max-body-bytes", "0")
    try:
        response = server.review("/validate", review_body(yaml.safe_load(V1BETA2_CLASS)))
        assert response["allowed"] is True
    finally:
        server.stop()
    profile = make_profile("1.36", runtime_config="api/all=true,resource.k8s.io/v1beta1=false")
    import pickle

    assert pickle.loads(pickle.dumps(profile)) == profile and pickle.loads(pickle.dumps(profile)).apis == profile.apis
