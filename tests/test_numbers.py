"""Numeric text from users is bounded before it is converted (issue 37): one helper, used everywhere."""

from __future__ import annotations

import json

import pytest

from support import cli
from webhook import numbers
from webhook.allocation.nodes import selector_matches
from webhook.cel.evaluation import parse_semver
from webhook.manifest import resource_version_set
from webhook.quantity import QuantityError, parse_quantity

LONG = "9" * 5000  # past Python's 4,300-digit int() limit


@pytest.mark.parametrize("text,signed,expected", [
    ("0", False, 0), ("123", False, 123), ("+5", True, 5), ("-5", True, -5), ("+5", False, None),
    ("0" * 5000 + "42", False, 42),  # leading zeros do not count, as in strconv
    ("", False, None), ("-", True, None), (" 1", False, None), ("1_000", False, None), ("\u0661", False, None),
    ("\u00b2", False, None), (LONG, False, None), ("1" * 19, False, int("1" * 19)), ("1" * 20, False, None),
])
def test_parse_decimal(text, signed, expected):
    assert numbers.parse_decimal(text, signed=signed) == expected


def test_go_ranges():
    assert numbers.parse_int64("9223372036854775807") == 2**63 - 1
    assert numbers.parse_int64("9223372036854775808") is None
    assert numbers.parse_int64("-9223372036854775808") == -(2**63)
    assert numbers.parse_uint64("18446744073709551615") == 2**64 - 1
    assert numbers.parse_uint64("18446744073709551616") is None


@pytest.mark.parametrize("text", ["1e" + LONG, "1e-" + LONG, "1E+" + LONG])
def test_quantity_exponent_of_any_length_is_refused_like_go(text):
    with pytest.raises(QuantityError, match="unable to parse quantity's suffix"):
        parse_quantity(text)


def test_quantity_exponent_with_leading_zeros_parses_like_go():
    assert parse_quantity("1e" + "0" * 5000 + "3").value == 1000


@pytest.mark.parametrize("version,stored", [("1" * 5000, False), ("0" * 5000, False), ("0" * 5000 + "7", True),
                                            ("\u0661", False), ("18446744073709551616", False), ("5", True)])
def test_resource_version_set(version, stored):
    assert resource_version_set({"metadata": {"resourceVersion": version}}) is stored


@pytest.mark.parametrize("text", ["1.2." + LONG, LONG + ".0.0", "1.2.3-" + LONG, "1.2.18446744073709551616",
                                  "\u0661.2.3"])
def test_semver_number_out_of_range_is_not_semver(text):
    with pytest.raises(ValueError):
        parse_semver(text)


def test_node_selector_gt_of_any_length_is_a_mismatch():
    selector = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "n", "operator": "Gt", "values": ["1"]}]}]}
    assert not selector_matches(selector, {"metadata": {"name": "a", "labels": {"n": LONG}}})
    assert selector_matches(selector, {"metadata": {"name": "a", "labels": {"n": "2"}}})


def test_offline_review_of_long_numbers_has_no_traceback(tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default", "resourceVersion": "1" * 5000},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "x", "capacity": {"requests": {"memory": "1e" + LONG}}}}]}}}
    (tmp_path / "c.json").write_text(json.dumps(claim))
    run = cli("review", str(tmp_path / "c.json"))
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stdout + run.stderr
    assert "unable to parse quantity's suffix" in run.stdout


def test_suite_document_index_of_any_length(tmp_path):
    (tmp_path / "x.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tmp_path / "suite.yaml").write_text(
        "apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\ntests:\n- name: long index\n"
        "  object: x.yaml#" + "7" * 5000 + "\n"
        "  expect: {allowed: true}\n")
    run = cli("test", str(tmp_path / "suite.yaml"), "-o", "junit")
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 2, run.stdout + run.stderr  # an error in the suite, not a failed test
    assert "has no document at index 777777777777... (5,000 digits)" in run.stdout
    assert "<testsuites" in run.stdout
