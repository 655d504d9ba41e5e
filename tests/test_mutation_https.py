"""The defaults end to end: AdmissionReviews POSTed to /mutate of a real server over verified TLS.

The server uses its own clock, so a defaulted `timeAdded` is checked to lie between the times taken
just before and just after the request (whole seconds, UTC).
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone

import jsonpatch
import pytest

from support import decode_patch, review_body
from test_mutation import CASE_IDS, CASES, EARLIER, NOW_MARK, TAINT, taint_rule, with_time


def mark_paths(expected, path=()):
    """The paths in `expected` that hold NOW_MARK."""
    if expected == NOW_MARK:
        yield path
    elif isinstance(expected, dict):
        for key, value in expected.items():
            yield from mark_paths(value, path + (key,))
    elif isinstance(expected, list):
        for index, value in enumerate(expected):
            yield from mark_paths(value, path + (index,))


def value_at(obj, path):
    for step in path:
        obj = obj[step]
    return obj


def assert_time_between(text: str, before: datetime, after: datetime) -> None:
    assert isinstance(text, str) and text.endswith("Z"), text
    stamp = datetime.fromisoformat(text)
    assert stamp.microsecond == 0
    assert before.replace(microsecond=0) <= stamp <= after, (before, text, after)


def mutated(server, obj: dict, **review_args) -> tuple[dict, dict, datetime, datetime]:
    """(patched object, response, time before, time after) for one POST to /mutate."""
    body = review_body(copy.deepcopy(obj), **review_args)
    before = datetime.now(timezone.utc)
    response = server.review("/mutate", body)
    after = datetime.now(timezone.utc)
    assert response["allowed"] is True, response
    if "patch" in response:
        assert response["patchType"] == "JSONPatch"
    return jsonpatch.apply_patch(obj, decode_patch(response)), response, before, after


def assert_defaulted(actual: dict, expected: dict, before: datetime, after: datetime) -> None:
    marks = list(mark_paths(expected))
    if not marks:
        assert actual == expected
        return
    stamp = value_at(actual, marks[0])
    assert_time_between(stamp, before, after)
    # One request, one clock reading: every defaulted time is the same.
    assert actual == with_time(expected, stamp)


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_mutate_over_https(webhook_server, case_id, kind, version, obj, expected):
    actual, response, before, after = mutated(webhook_server, obj, kind=kind, version=version)
    assert_defaulted(actual, expected, before, after)
    assert ("patch" in response) == (obj != expected)


@pytest.mark.parametrize("case_id, kind, version, obj, expected", CASES, ids=CASE_IDS)
def test_mutate_over_https_is_idempotent(webhook_server, case_id, kind, version, obj, expected):
    once, _, _, _ = mutated(webhook_server, obj, kind=kind, version=version)
    twice, response, _, _ = mutated(webhook_server, once, kind=kind, version=version)
    assert "patch" not in response and "patchType" not in response
    assert twice == once


@pytest.mark.parametrize("version", ["v1beta2", "v1alpha3"])
def test_device_taint_rule_effect_change_over_https(webhook_server, version):
    meta = {"resourceVersion": "7", "generation": 1}
    old = taint_rule(version, {**TAINT, "effect": "NoSchedule", "timeAdded": EARLIER})
    new = taint_rule(version, {**TAINT, "effect": "NoExecute", "timeAdded": EARLIER})
    old["metadata"].update(meta)
    new["metadata"].update(meta)
    actual, _, before, after = mutated(webhook_server, new, operation="UPDATE", old=old)
    assert_time_between(actual["spec"]["taint"]["timeAdded"], before, after)

    kept = taint_rule(version, {**TAINT, "key": "example.com/other", "effect": "NoSchedule", "timeAdded": EARLIER})
    kept["metadata"].update(meta)
    actual, response, _, _ = mutated(webhook_server, kept, operation="UPDATE", old=old)
    assert "patch" not in response and actual == kept
