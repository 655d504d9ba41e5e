"""The profile read from the cluster: `profile --from-cluster`, `review --profile-from-cluster` and `serve`,
against the project's HTTPS test double of kube-apiserver (tests/apiserver_double.py: real TLS, bearer
token, /version, discovery, /metrics), through the real client library."""

from __future__ import annotations

import json

import pytest

from apiserver_double import ApiServerDouble
from support import cli, review_body, start_server, wait_for
from test_profile_mismatch import counters_beside_devices

GATES_1_34 = {"DRAPartitionableDevices": True, "DRAAdminAccess": True, "DRAPrioritizedList": True,
              "DynamicResourceAllocation": True, "APIResponseCompression": True}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    out = tmp_path_factory.mktemp("double-certs")
    result = cli("certs", "--out", str(out), "--hosts", "127.0.0.1")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture()
def double(certs, tmp_path):
    server = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34)).start()
    server.kubeconfig_file = server.kubeconfig(tmp_path / "kubeconfig")
    yield server
    server.stop()


def test_profile_from_cluster_is_the_clusters(double):
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file))
    assert result.returncode == 0, result.stderr
    assert "cluster: v1.34.3" in result.stdout
    assert "profile: 1.34 (DRAPartitionableDevices=true)" in result.stdout
    assert "--kubernetes-version 1.34 --feature-gates DRAPartitionableDevices=true" in result.stdout
    assert "disagreement" not in result.stdout
    assert double.count("GET /version") == 1 and double.count("GET /metrics") == 1
    assert double.count("GET /apis/resource.k8s.io") >= 1


def test_feature_gates_read_past_a_mib_of_other_series(double):
    """kube-apiserver 1.34's /metrics is 1.5 MiB, its gates after 1.4 MiB of other series: the whole answer is
    read, not the first chunks the connection delivers (found against the real kube-apiserver)."""
    double.metrics_series_before = 30_000
    out = json.loads(cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file), "-o",
                         "json").stdout)
    assert out["cluster"]["problems"] == []
    assert out["featureGates"]["DRAPartitionableDevices"] is True


def test_profile_json_and_disagreement(double):
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file), "-o", "json",
                 "--kubernetes-version", "1.36", "--feature-gates", "DRAPartitionableDevices=false")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["kubernetesVersion"] == "1.36" and out["featureGates"]["DRAPartitionableDevices"] is False
    assert out["cluster"]["kubernetesVersion"] == "1.34"
    assert out["cluster"]["served"]["v1alpha3"] == ["devicetaintrules"]
    assert any(d.startswith("--kubernetes-version 1.36, the cluster runs v1.34.3") for d in out["disagreements"])
    assert any("DRAPartitionableDevices=false, the cluster has DRAPartitionableDevices=true" in d
               for d in out["disagreements"])


def test_served_versions_become_the_runtime_config(double):
    double.served = {"v1": ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"]}
    out = json.loads(cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file), "-o",
                         "json").stdout)
    assert "resource.k8s.io/v1beta2=false" in out["runtimeConfig"]
    assert "resource.k8s.io/v1alpha3=false" in out["runtimeConfig"]


def test_metrics_forbidden_keeps_the_release_defaults_and_says_so(double):
    double.metrics_allowed = False
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file))
    assert result.returncode == 0, result.stderr
    assert "profile: 1.34\n" in result.stdout
    assert "not read: /metrics:" in result.stdout and "RBAC" in result.stdout


def test_wrong_credentials_fail_clearly(double, tmp_path):
    double.token = "another"
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file))
    assert result.returncode == 2
    assert "cannot read the profile from the cluster" in result.stderr and "Traceback" not in result.stderr


def test_review_with_the_clusters_profile(double, tmp_path):
    manifest = tmp_path / "slice.json"
    manifest.write_text(json.dumps(counters_beside_devices()))
    assert cli("review", str(manifest)).returncode == 1  # the 1.36 default refuses it
    result = cli("review", "--profile-from-cluster", "--kubeconfig", str(double.kubeconfig_file), str(manifest))
    assert result.returncode == 0, result.stdout + result.stderr


def _metric(server, name: str) -> str:
    return "\n".join(line for line in server.client.get(server.url + "/metrics").text.splitlines()
                     if line.startswith(name))


def test_serve_without_version_flags_takes_the_clusters_profile(double, tmp_path):
    server = start_server(tmp_path, "--kubeconfig", str(double.kubeconfig_file), enforce=False)
    try:
        response = server.review("/validate", review_body(counters_beside_devices()))
        assert response["allowed"] is True
        assert not any("profile-mismatch" in w for w in response.get("warnings", []))
        assert 'dra_webhook_cluster_profile_reads_total{result="success"}' in _metric(server, "dra_webhook_cluster")
        assert "dra_webhook_cluster_profile_disagreements 0.0" in _metric(server, "dra_webhook_cluster")
    finally:
        server.stop()


def test_serve_with_a_wrong_version_warns_and_counts(double, tmp_path):
    server = start_server(tmp_path, "--kubeconfig", str(double.kubeconfig_file), "--kubernetes-version", "1.36",
                          enforce=False)
    try:
        response = server.review("/validate", review_body(counters_beside_devices()))
        assert response["allowed"] is True
        assert any(w.startswith("[profile-mismatch] ResourceSlice FieldValueInvalid at spec: ")
                   for w in response["warnings"])
        assert ('dra_webhook_profile_mismatches_total{kind="ResourceSlice",rule="FieldValueInvalid"} 1.0'
                in _metric(server, "dra_webhook_profile_mismatches"))
        assert "dra_webhook_cluster_profile_disagreements 1.0" in _metric(server, "dra_webhook_cluster")
        assert "a flag disagrees with the cluster" in server.log_text()
    finally:
        server.stop()


def test_serve_started_before_the_api_server_follows_it_once_reachable(certs, tmp_path):
    double = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34))
    kubeconfig = double.kubeconfig(tmp_path / "kubeconfig")
    server = start_server(tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-profile-interval", "0.5",
                          enforce=False)
    try:
        response = server.review("/validate", review_body(counters_beside_devices()))
        assert response["allowed"] is True  # the 1.36 fallback refuses it: allowed with a warning
        assert any("profile-mismatch" in w for w in response["warnings"])
        assert "cannot read the profile from the cluster yet" in server.log_text()
        double.start()
        wait_for(lambda: not any("profile-mismatch" in w for w in server.review(
            "/validate", review_body(counters_beside_devices())).get("warnings", [])),
            "the profile followed the cluster once it was reachable", poll=0.2)
        assert "the cluster's profile changed" in server.log_text()
    finally:
        server.stop()
        double.stop()


def test_a_release_without_rules_needs_a_version_flag(double):
    double.git_version = "v1.33.5"
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file))
    assert result.returncode == 2
    assert "the cluster runs Kubernetes 1.33" in result.stderr and "--kubernetes-version" in result.stderr
    result = cli("profile", "--from-cluster", "--kubeconfig", str(double.kubeconfig_file), "--kubernetes-version",
                 "1.34")
    assert result.returncode == 0 and "profile: 1.34" in result.stdout


def test_test_suites_with_the_clusters_profile(double, tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(json.dumps({"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite", "name": "s", "tests": [
        {"name": "counters beside devices", "object": counters_beside_devices(), "expect": {"allowed": True}}]}))
    assert cli("test", str(suite)).returncode == 1  # the 1.36 default refuses it
    result = cli("test", "--profile-from-cluster", "--kubeconfig", str(double.kubeconfig_file), str(suite))
    assert result.returncode == 0, result.stdout + result.stderr
