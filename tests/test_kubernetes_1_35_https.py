"""The 1.35/1.36 side-by-side cases over verified TLS: `serve --kubernetes-version 1.35` with every 1.35 DRA gate on."""

from __future__ import annotations

from collections import Counter

import pytest

from cases_1_35 import ALL_GATES_1_35, Case, cases_by_id
from support import causes, review_body, start_server


@pytest.fixture(scope="module")
def server_1_35(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("webhook-1-35"), "--kubernetes-version", "1.35",
                          "--feature-gates", ALL_GATES_1_35)
    yield server
    server.stop()


@pytest.mark.parametrize("case", cases_by_id())
def test_server_1_35(case: Case, server_1_35):
    response = server_1_35.review("/validate", review_body(case.obj))
    assert causes(response) == Counter(case.v135)
    assert response["allowed"] is (not case.v135)
    for expected in case.warnings_135:  # unknown fields are warnings when served (the default field validation)
        assert any(expected in w for w in response.get("warnings") or []), response.get("warnings")


def test_server_1_35_mutates_without_an_allocation_multiplier_and_keeps_time_added(server_1_35):
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n",
                       "devices": [{"name": "d", "capacity": {"memory": {"value": "1Gi"}},
                                    "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "memory"}}}]}}
    assert "patch" not in server_1_35.review("/mutate", review_body(slice_))
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
            "metadata": {"name": "r", "resourceVersion": "1"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                     "taint": {"key": "example.com/k", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"}}}
    changed = {**rule, "spec": {**rule["spec"], "taint": {**rule["spec"]["taint"], "effect": "NoExecute"}}}
    assert "patch" not in server_1_35.review("/mutate", review_body(changed, operation="UPDATE", old=rule))
