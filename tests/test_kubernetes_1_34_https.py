"""The 1.34/1.35 side-by-side cases over verified TLS: `serve --kubernetes-version 1.34` with every 1.34 DRA gate on."""

from __future__ import annotations

from collections import Counter

import pytest

from cases_1_34 import ALL_GATES_1_34, Case, cases_by_id
from support import causes, review_body, start_server


@pytest.fixture(scope="module")
def server_1_34(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("webhook-1-34"), "--kubernetes-version", "1.34",
                          "--feature-gates", ALL_GATES_1_34)
    yield server
    server.stop()


@pytest.mark.parametrize("case", cases_by_id())
def test_server_1_34(case: Case, server_1_34):
    response = server_1_34.review("/validate", review_body(case.obj, operation="UPDATE" if case.old else "CREATE",
                                                          old=case.old))
    assert causes(response) == Counter(case.v134)
    assert response["allowed"] is (not case.v134)
    for expected in case.warnings_134:  # unknown fields are warnings when served (the default field validation)
        assert any(expected in w for w in response.get("warnings") or []), response.get("warnings")


def test_server_1_34_keeps_time_added_on_an_effect_change(server_1_34):
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
            "metadata": {"name": "r", "resourceVersion": "1"},
            "spec": {"deviceSelector": {"deviceClassName": "gpu.example.com"},
                     "taint": {"key": "example.com/k", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"}}}
    changed = {**rule, "spec": {**rule["spec"], "taint": {**rule["spec"]["taint"], "effect": "NoExecute"}}}
    assert "patch" not in server_1_34.review("/mutate", review_body(changed, operation="UPDATE", old=rule))
