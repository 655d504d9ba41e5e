"""Name formats (B-01..B-10) and ObjectMeta rules (B-21..B-24), multisets of (field, reason)."""

from collections import Counter

import pytest

from support import error_keys
from webhook.field import Path
from webhook.validation import meta, names

INVALID, REQUIRED, FORBIDDEN, TOO_LONG = "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"


@pytest.mark.parametrize("value,count", [
    ("a", 0), ("my-name", 0), ("123-abc", 0), ("a" * 63, 0),
    ("", 1), ("A", 1), ("a.b", 1), ("-a", 1), ("a-", 1), ("a" * 64, 1), ("a." * 40 + "a", 2), ("a\n", 1),
], ids=lambda v: repr(v)[:20])
def test_dns_label(value, count):
    assert len(names.is_dns1123_label(value)) == count


def test_dns_label_with_dots_says_so():
    assert names.is_dns1123_label("a.b") == ("must not contain dots",)


@pytest.mark.parametrize("value,count", [
    ("example.com", 0), ("a", 0), ("a" * 253, 0), ("", 1), ("Example.com", 1), ("a" * 254, 1), ("a..b", 1),
], ids=lambda v: repr(v)[:20])
def test_dns_subdomain(value, count):
    assert len(names.is_dns1123_subdomain(value)) == count


@pytest.mark.parametrize("value,count", [
    ("MyName", 0), ("my.name", 0), ("example.com/MyName", 0), ("a" * 63, 0),
    ("", 2), ("/a", 1), ("a/", 2), ("a/b/c", 1), ("a" * 64, 1), ("-a", 1), ("Bad_/x", 1),
], ids=lambda v: repr(v)[:20])
def test_qualified_name(value, count):
    assert len(names.is_qualified_name(value)) == count


@pytest.mark.parametrize("value,count", [("", 0), ("v", 0), ("a" * 63, 0), ("a" * 64, 1), ("-a", 1), ("a b", 1)],
                         ids=lambda v: repr(v)[:20])
def test_label_value(value, count):
    assert len(names.is_label_value(value)) == count


@pytest.mark.parametrize("value,expected", [
    ("dra.example.com", []),
    ("DRA.Example.com", []),  # upper case only warns (B-03)
    ("", [("d", REQUIRED)]),
    ("a" * 64, [("d", TOO_LONG)]),
    ("a_b", [("d", INVALID)]),
], ids=["ok", "upper case", "empty", "too long", "underscore"])
def test_driver_name(value, expected):
    assert error_keys(names.validate_driver_name(value, Path("d"))) == Counter(expected)


def test_lengths_are_bytes():
    # 32 two-byte characters are 64 bytes: too long for a 63-byte label value.
    assert names.is_label_value("é" * 32)


@pytest.mark.parametrize("name,metadata,namespaced,expected", [
    ("valid", {"name": "s1"}, False, []),
    ("missing name", {}, False, [("metadata.name", REQUIRED)]),
    ("bad name", {"name": "Bad_Name"}, False, [("metadata.name", INVALID)]),
    ("generateName prefix ok", {"generateName": "slice-", "name": "slice-x1"}, False, []),
    ("bad generateName", {"generateName": "Bad-", "name": "x"}, False, [("metadata.generateName", INVALID)]),
    ("namespace on cluster-scoped", {"name": "a", "namespace": "ns"}, False, [("metadata.namespace", FORBIDDEN)]),
    ("namespace required", {"name": "a"}, True, [("metadata.namespace", REQUIRED)]),
    ("bad namespace", {"name": "a", "namespace": "a.b"}, True, [("metadata.namespace", INVALID)]),
    ("negative generation", {"name": "a", "generation": -1}, False, [("metadata.generation", INVALID)]),
    ("bad label key and value", {"name": "a", "labels": {"a/b/c": "-x"}}, False,
     [("metadata.labels", INVALID), ("metadata.labels", INVALID)]),
    ("empty label key", {"name": "a", "labels": {"": "x"}}, False,
     [("metadata.labels", INVALID), ("metadata.labels", INVALID)]),
    ("annotations upper case ok", {"name": "a", "annotations": {"Example.COM/Key": "v"}}, False, []),
    ("annotations too large", {"name": "a", "annotations": {"k": "x" * (256 * 1024)}}, False,
     [("metadata.annotations", TOO_LONG)]),
    ("owner reference fields", {"name": "a", "ownerReferences": [{}]}, False,
     [("metadata.ownerReferences.apiVersion", INVALID), ("metadata.ownerReferences.kind", INVALID),
      ("metadata.ownerReferences.name", INVALID), ("metadata.ownerReferences.uid", INVALID)]),
    ("event owner", {"name": "a", "ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]},
     False, [("metadata.ownerReferences", INVALID)]),
    ("two controllers", {"name": "a", "ownerReferences": [
        {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "1", "controller": True},
        {"apiVersion": "v1", "kind": "Pod", "name": "q", "uid": "2", "controller": True}]},
     False, [("metadata.ownerReferences", INVALID)]),
    ("finalizer not qualified", {"name": "a", "finalizers": ["foo"]}, False, [("metadata.finalizers[0]", INVALID)]),
    ("finalizer standard", {"name": "a", "finalizers": ["kubernetes", "example.com/x"]}, False, []),
    ("finalizers orphan and foreground", {"name": "a", "finalizers": ["orphan", "foregroundDeletion"]}, False,
     [("metadata.finalizers", INVALID)]),
    ("bad managed fields", {"name": "a", "managedFields": [{"operation": "X", "fieldsType": "Y"}]}, False,
     [("metadata.managedFields[0].operation", INVALID), ("metadata.managedFields[0].fieldsType", INVALID)]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_object_meta(name, metadata, namespaced, expected):
    assert error_keys(meta.validate_object_meta(metadata, namespaced)) == Counter(expected)


@pytest.mark.parametrize("name,new,old,expected", [
    ("unchanged", {"name": "a", "resourceVersion": "1"}, {"name": "a", "resourceVersion": "1"}, []),
    ("no resourceVersion", {"name": "a"}, {"name": "a"}, [("metadata.resourceVersion", INVALID)]),
    ("renamed", {"name": "b", "resourceVersion": "1"}, {"name": "a"}, [("metadata.name", INVALID)]),
    ("uid changed", {"name": "a", "uid": "2", "resourceVersion": "1"}, {"name": "a", "uid": "1"},
     [("metadata.uid", INVALID)]),
    ("generation decremented", {"name": "a", "generation": 1, "resourceVersion": "1"}, {"name": "a", "generation": 2},
     [("metadata.generation", INVALID)]),
    ("finalizer added while deleting", {"name": "a", "finalizers": ["example.com/x"], "resourceVersion": "1",
                                        "deletionTimestamp": "2026-01-01T00:00:00Z"},
     {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}, [("metadata.finalizers", FORBIDDEN)]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_object_meta_update(name, new, old, expected):
    assert error_keys(meta.validate_object_meta_update(new, old)) == Counter(expected)


def test_template_meta_allows_only_labels_and_annotations():
    errors = meta.validate_template_object_meta({"name": "x", "uid": "u", "labels": {"a": "b"}}, Path("spec", "metadata"))
    assert error_keys(errors) == Counter([("spec.metadata.name", FORBIDDEN), ("spec.metadata.uID", FORBIDDEN)])


@pytest.mark.parametrize("name,prefix,expected", [
    ("gpu.example.com", False, ()), (".", False, ("may not be '.'",)), ("..", False, ("may not be '..'",)),
    ("a/b%c", False, ("may not contain '/'", "may not contain '%'")), (".", True, ()), ("a%", True, ("may not contain '%'",)),
])
def test_path_segment_name(name, prefix, expected):
    """apimachinery's ValidatePathSegmentName, the registry's own name check of an update."""
    assert meta.name_is_path_segment(name, prefix) == expected


def test_common_fields_of_an_update_check_the_new_metadata_and_the_update_rules():
    """rest.BeforeUpdate's validateCommonFields: a bad label twice (create and update rules), a changed uid once,
    a name that is no URL path segment; no kube finalizer rule (core's, not apimachinery's)."""
    from webhook.validation.commonfields import validate_common_fields

    old = {"metadata": {"name": "a%b", "namespace": "default", "uid": "u1", "resourceVersion": "1"}}
    new = {"metadata": {**old["metadata"], "uid": "u2", "labels": {"app": "demo-"}, "finalizers": ["bad"]}}
    assert error_keys(validate_common_fields(new, old, namespaced=True)) == Counter({
        ("metadata.name", INVALID): 1, ("metadata.labels", INVALID): 2, ("metadata.uid", INVALID): 1})


def test_one_per_message_keeps_declarative_errors_and_distinct_messages():
    from webhook.field import invalid
    from webhook.validation.commonfields import one_per_message
    from webhook.validation.declarative import mark

    bad, other = invalid(Path("f"), "x", "bad"), invalid(Path("f"), "x", "other")
    declared = mark([invalid(Path("f"), "x", "bad")])
    assert one_per_message([bad, other, bad] + declared + declared) == [bad, other] + declared + declared
