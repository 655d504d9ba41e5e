"""`kubectl get -o yaml` dumps: the faithful verdict, one line saying why, and --from-cluster to check their content."""

from __future__ import annotations

import json
from pathlib import Path

from support import cli

DUMP = str(Path(__file__).resolve().parent / "data" / "kubectl-get-deviceclasses.yaml")
REFUSED = "Internal error occurred: resourceVersion should not be set on objects to be created"


def test_a_dump_keeps_kubectls_verdict_and_says_why():
    result = cli("review", DUMP, "-o", "json")
    items = json.loads(result.stdout)["results"]
    assert result.returncode == 1 and [i["verdict"] for i in items] == ["denied", "denied"]
    assert items[0]["response"]["status"]["message"] == REFUSED
    assert items[0]["warnings"] == [
        "dra-webhook: this looks like an object read back from a cluster (metadata.resourceVersion, metadata.uid, "
        "metadata.creationTimestamp, metadata.managedFields set); kubectl refuses it as a new object. To check its "
        "content, review it with --from-cluster"]
    assert items[0]["warningCodes"] == ["read-back-object"]
    assert "warnings" not in items[0]["response"]  # the webhook's answer is unchanged: the hint is the report's
    assert items[1]["warnings"][0].startswith("dra-webhook: this looks like an object read back from a cluster "
                                              "(metadata.resourceVersion, metadata.uid set)")


def test_from_cluster_checks_the_content_as_a_create_of_the_cleaned_object():
    result = cli("review", DUMP, "--from-cluster", "-o", "json")
    items = json.loads(result.stdout)["results"]
    assert [i["verdict"] for i in items] == ["allowed", "denied"] and result.returncode == 1
    assert [m["field"] for m in items[1]["messages"]] == ["metadata.name"]
    assert items[0]["warnings"] == items[1]["warnings"] == []


def test_an_ordinary_manifest_gets_no_hint_and_the_same_verdict_either_way(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: Bad_Name\n")
    plain, cleaned = (json.loads(cli("review", str(path), "-o", "json", *flags).stdout)["results"][0]
                      for flags in ((), ("--from-cluster",)))
    assert plain == cleaned and plain["verdict"] == "denied" and plain["warnings"] == []
    # a uid alone is overwritten by the API server, never refused: allowed, so nothing to explain
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n  uid: x\n")
    [item] = json.loads(cli("review", str(path), "-o", "json").stdout)["results"]
    assert item["verdict"] == "allowed" and item["warnings"] == []
