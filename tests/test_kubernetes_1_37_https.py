"""The 1.36/1.37 side-by-side cases over verified TLS: the default server and `serve --kubernetes-version 1.37`."""

from __future__ import annotations

from collections import Counter

import pytest

from cases_1_37 import ALL_GATES_1_37, Case, cases_by_id
from support import causes, review_body, start_server


@pytest.fixture(scope="module")
def server_1_37(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("webhook-1-37"), "--kubernetes-version", "1.37",
                          "--feature-gates", ALL_GATES_1_37)
    yield server
    server.stop()


@pytest.mark.parametrize("case", cases_by_id())
def test_same_request_two_servers(case: Case, webhook_server, server_1_37):
    body = review_body(case.obj, operation=case.operation, old=case.old, sub_resource=case.sub_resource)
    v136 = webhook_server.review("/validate", body)
    v137 = server_1_37.review("/validate", body)
    assert (causes(v136), causes(v137)) == (Counter(case.v136), Counter(case.v137))
    assert v137["allowed"] is (not case.v137)
    for expected in case.warnings_136:
        assert any(expected in w for w in v136.get("warnings") or []), v136.get("warnings")


def test_server_1_37_mutates_without_an_allocation_multiplier(server_1_37, webhook_server):
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n",
                       "devices": [{"name": "d", "capacity": {"memory": {"value": "1Gi"}},
                                    "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "memory"}}}]}}
    assert "patch" in webhook_server.review("/mutate", review_body(slice_))
    assert "patch" not in server_1_37.review("/mutate", review_body(slice_))
