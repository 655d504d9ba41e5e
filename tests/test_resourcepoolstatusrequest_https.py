"""ResourcePoolStatusRequest over verified TLS: `serve --kubernetes-version 1.36` and `1.37` with
DRAResourcePoolStatus on, and the default server (1.36, the gate off)."""

from __future__ import annotations

from collections import Counter

import pytest

from support import causes, decode_patch, review_body, start_server

GATE = "DRAResourcePoolStatus=true"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    started = {}
    try:
        for version in ("1.36", "1.37"):
            started[version] = start_server(tmp_path_factory.mktemp(f"rpsr-{version}"), "--kubernetes-version",
                                            version, "--feature-gates", GATE)
        yield started
    finally:
        for server in started.values():
            server.stop()


def rpsr(spec=None, status=None, name="gpu-pools", resource_version=None):
    obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusRequest", "metadata": {"name": name},
           "spec": spec if spec is not None else {"driver": "gpu.example.com", "limit": 100}}
    if resource_version:
        obj["metadata"]["resourceVersion"] = resource_version
    if status is not None:
        obj["status"] = status
    return obj


POOL = {"driver": "gpu.example.com", "poolName": "node-1", "generation": 1, "resourceSliceCount": 1,
        "totalDevices": 8, "allocatedDevices": 2, "availableDevices": 6, "unavailableDevices": 0}
COND = {"type": "Complete", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Done"}
BAD_CREATE = rpsr({"driver": "example.com/gpu", "poolName": "", "limit": 0}, name="pools-$(date +%s)")
CREATE_CAUSES = Counter([("metadata.name", "FieldValueInvalid"), ("spec.driver", "FieldValueInvalid"),
                         ("spec.poolName", "FieldValueInvalid"), ("spec.limit", "FieldValueInvalid")])


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_create_update_and_status(servers, version):
    server = servers[version]
    assert causes(server.review("/validate", review_body(BAD_CREATE))) == CREATE_CAUSES
    good = rpsr()
    assert server.review("/validate", review_body(good))["allowed"] is True

    old = rpsr(resource_version="7")
    changed = rpsr({"driver": "gpu.example.com", "limit": 5}, resource_version="7")
    response = server.review("/validate", review_body(changed, operation="UPDATE", old=old))
    assert causes(response) == Counter([("spec", "FieldValueInvalid")])
    assert response["status"]["details"]["causes"][0]["message"] == "Invalid value: null: field is immutable"

    status = {"poolCount": -1, "pools": [{**POOL, "driver": ""}, {**POOL, "generation": 0}],
              "conditions": [COND, COND]}
    response = server.review("/validate", review_body(rpsr(status=status, resource_version="7"), operation="UPDATE",
                                                      old=old, sub_resource="status"))
    expected = Counter([("status.poolCount", "FieldValueInvalid"), ("status.pools[0].driver", "FieldValueRequired"),
                        ("status.pools[1].generation", "FieldValueRequired"),
                        ("status.conditions[1]", "FieldValueDuplicate")])
    if version == "1.36":  # the enforced declarative listType=map at the item, beside ValidateConditions at `.type`
        expected[("status.conditions[1].type", "FieldValueDuplicate")] += 1
    # 1.37: apimachinery v0.37's ValidateConditions reports the repeated type at the item itself, once.
    assert causes(response) == expected

    done = rpsr(status={"poolCount": 1, "pools": [POOL], "conditions": [COND]}, resource_version="8")
    first = server.review("/validate", review_body(done, operation="UPDATE", old=old, sub_resource="status"))
    assert first["allowed"] is True
    again = rpsr(status={"poolCount": 2, "pools": [POOL], "conditions": [COND]}, resource_version="8")
    response = server.review("/validate", review_body(again, operation="UPDATE", old=done, sub_resource="status"))
    assert causes(response) == Counter([("status", "FieldValueInvalid")])


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_mutate_defaults_the_limit(servers, version):
    response = servers[version].review("/mutate", review_body(rpsr({"driver": "gpu.example.com"})))
    assert decode_patch(response) == [{"op": "add", "path": "/spec/limit", "value": 100}]


def test_1_37_fields_are_validated_by_1_37_and_unknown_to_1_36(servers):
    pool = {**POOL, "partitionSummary": [{"attribute": "gpu.example.com/profile", "type": "Half", "total": -1}]}
    body = review_body(rpsr(status={"poolCount": 1, "pools": [pool]}, resource_version="7"), operation="UPDATE",
                       old=rpsr(resource_version="7"), sub_resource="status")
    v136, v137 = servers["1.36"].review("/validate", body), servers["1.37"].review("/validate", body)
    assert v136["allowed"] is True
    assert v136["warnings"] == ['unknown field "status.pools[0].partitionSummary"']
    assert causes(v137) == Counter([("status.pools[0].partitionSummary[0].total", "FieldValueInvalid"),
                                    ("status.pools[0].partitionSummary[0].allocatable", "FieldValueRequired")])


def test_gate_off_the_cluster_that_sent_it_serves_it(webhook_server):
    """As for any opt-in version: a request the cluster sent is checked as it is, whatever our gates say.
    (Offline, a manifest of the kind is reviewed with a warning naming the gate: test_resourcepoolstatusrequest.)"""
    assert causes(webhook_server.review("/validate", review_body(BAD_CREATE))) == CREATE_CAUSES
    assert webhook_server.review("/validate", review_body(rpsr()))["allowed"] is True
