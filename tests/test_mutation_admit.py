"""The defaults through the admission entry points: `admit.mutate` (the webhook) and `admit.review` (offline).

Includes the DeviceTaintRule update strategy: a changed effect moves `timeAdded` to now unless the
client changed the time itself. The clock is passed in, so every timestamp is exact.
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone

import jsonpatch
import pytest

from support import decode_patch, review_body
from test_mutation import EARLIER, NOW, NOW_TEXT, TAINT, claim, slice_, taint_rule
from webhook.admit import mutate, review
from webhook.review import decode_review

LATER = "2025-06-07T08:09:10Z"
SAME_INSTANT_AS_EARLIER = "2025-01-02T05:04:05+02:00"


def mutate_response(obj: dict, *, operation: str = "CREATE", old: dict | None = None,
                    sub_resource: str = "") -> dict:
    body = review_body(obj, operation=operation, old=old, sub_resource=sub_resource)
    return mutate(decode_review(body), now=NOW).to_dict()


def patched(obj: dict, response: dict) -> dict:
    assert response["allowed"] is True
    if "patch" in response:
        assert response["patchType"] == "JSONPatch"
    return jsonpatch.apply_patch(obj, decode_patch(response))


# ---- DeviceTaintRule UPDATE -------------------------------------------------------------------

def taint(effect: str, time_added: str | None = None, **changes) -> dict:
    out = {**TAINT, **changes, "effect": effect}
    if time_added is not None:
        out["timeAdded"] = time_added
    return out


def with_meta_for_update(obj: dict) -> dict:
    obj = copy.deepcopy(obj)
    obj["metadata"].update(resourceVersion="7", uid="3c1b0a0e-5f0e-4c4e-9f6e-0d5c1d2a7b11", generation=1)
    return obj


UPDATE_CASES = [
    # (id, old taint, new taint, expected timeAdded)
    ("effect-changed-time-unchanged-becomes-now",
     taint("NoSchedule", EARLIER), taint("NoExecute", EARLIER), NOW_TEXT),
    ("effect-changed-time-both-absent-becomes-now",
     taint("NoSchedule"), taint("NoExecute"), NOW_TEXT),
    ("effect-changed-same-instant-other-offset-becomes-now",
     taint("NoSchedule", EARLIER), taint("NoExecute", SAME_INSTANT_AS_EARLIER), NOW_TEXT),
    ("effect-changed-client-set-new-time-kept",
     taint("NoSchedule", EARLIER), taint("NoExecute", LATER), LATER),
    ("effect-changed-time-dropped-is-defaulted-to-now",
     taint("NoSchedule", EARLIER), taint("NoExecute"), NOW_TEXT),
    ("key-and-value-changed-time-kept",
     taint("NoSchedule", EARLIER), taint("NoSchedule", EARLIER, key="example.com/other", value="x"), EARLIER),
    ("nothing-changed-time-kept",
     taint("NoExecute", EARLIER), taint("NoExecute", EARLIER), EARLIER),
    ("effect-unchanged-time-absent-is-defaulted-to-now",
     taint("NoExecute", EARLIER), taint("NoExecute"), NOW_TEXT),
]


@pytest.mark.parametrize("version", ["v1beta2", "v1alpha3"])
@pytest.mark.parametrize("case_id, old_taint, new_taint, expected_time", UPDATE_CASES,
                         ids=[case[0] for case in UPDATE_CASES])
def test_device_taint_rule_update_time_added(version, case_id, old_taint, new_taint, expected_time):
    old = with_meta_for_update(taint_rule(version, old_taint))
    new = with_meta_for_update(taint_rule(version, new_taint))
    response = mutate_response(new, operation="UPDATE", old=old)
    result = patched(new, response)
    assert result["spec"]["taint"] == {**new_taint, "timeAdded": expected_time}
    assert ("patch" in response) == (new_taint.get("timeAdded") != expected_time)


def test_device_taint_rule_create_time_added_from_the_given_clock():
    obj = taint_rule("v1beta2", TAINT)
    response = mutate_response(obj)
    assert decode_patch(response) == [{"op": "add", "path": "/spec/taint/timeAdded", "value": NOW_TEXT}]


def test_device_taint_rule_status_update_is_not_mutated():
    old = with_meta_for_update(taint_rule("v1beta2", taint("NoSchedule", EARLIER)))
    new = with_meta_for_update(taint_rule("v1beta2", taint("NoExecute", EARLIER)))
    response = mutate_response(new, operation="UPDATE", old=old, sub_resource="status")
    assert response["allowed"] is True and "patch" not in response


# ---- the webhook answer ----------------------------------------------------------------------

def test_mutate_answers_with_a_json_patch():
    obj = claim("v1", [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}])
    response = mutate_response(obj)
    assert response["patchType"] == "JSONPatch"
    assert patched(obj, response)["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}


def test_mutate_sends_no_patch_for_a_defaulted_object():
    obj = claim("v1", [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com",
                                                   "allocationMode": "ExactCount", "count": 1}}])
    response = mutate_response(obj)
    assert response["allowed"] is True
    assert "patch" not in response and "patchType" not in response


def test_mutate_output_is_a_fixed_point():
    obj = slice_("v1beta1", [{"name": "gpu-0", "basic": {"taints": [TAINT],
                                                         "nodeAllocatableResourceMappings": {"cpu": {}}}}])
    once = patched(obj, mutate_response(obj))
    assert "patch" not in mutate_response(once)


@pytest.mark.parametrize("obj", [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"count": "0"}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "Unknown", "metadata": {"name": "u"}},
], ids=["other-group", "unknown-kind"])
def test_mutate_allows_unknown_objects_unchanged(obj):
    response = mutate_response(obj)
    assert response["allowed"] is True and "patch" not in response


def test_mutate_uses_the_current_time_when_no_clock_is_given():
    before = datetime.now(timezone.utc).replace(microsecond=0)
    response = mutate(decode_review(review_body(taint_rule("v1beta2", TAINT)))).to_dict()
    after = datetime.now(timezone.utc)
    stamp = datetime.fromisoformat(patched(taint_rule("v1beta2", TAINT), response)["spec"]["taint"]["timeAdded"])
    assert before <= stamp <= after


# ---- offline review: defaults, then validation of the defaulted object -------------------------

def test_review_defaults_then_allows_and_carries_the_patch():
    obj = slice_("v1", [{"name": "gpu-0", "taints": [TAINT]}])
    response = review(decode_review(review_body(obj)), now=NOW)
    assert response.allowed is True, response.status
    assert response.patch == [{"op": "add", "path": "/spec/devices/0/taints/0/timeAdded", "value": NOW_TEXT}]


def test_review_of_claim_without_count_carries_the_patch():
    obj = claim("v1", [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}])
    response = review(decode_review(review_body(obj)), now=NOW)
    assert response.allowed is True, response.status
    assert jsonpatch.apply_patch(obj, response.patch)["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}
    encoded = response.to_dict()
    assert encoded["patchType"] == "JSONPatch" and decode_patch(encoded) == response.patch


def test_review_without_defaults_has_no_patch():
    obj = claim("v1", [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}])
    response = review(decode_review(review_body(obj)), apply_defaults=False, now=NOW)
    assert not response.patch
