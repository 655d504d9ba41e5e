"""YAML scalars read as kubectl reads them (sigs.k8s.io/yaml on its goyaml.v2 fork, YAML 1.1 scalars).

Pinned before the parser was switched: unquoted yes/on/y are booleans, 0755 is octal, timestamps stay
the strings they were written as, quoted scalars are never resolved.
"""

from __future__ import annotations

import pytest

from webhook.offline.yamlload import load_all

CASES = [
    ("yes", True), ("Yes", True), ("YES", True), ("on", True), ("ON", True), ("true", True), ("y", True),
    ("Y", True), ("no", False), ("off", False), ("n", False), ("N", False), ("False", False),
    ("~", None), ("null", None), ("Null", None), ("", None),
    ("0755", 0o755), ("0x1F", 31), ("0o17", 15), ("0b101", 5), ("-0b101", -5), ("1_000", 1000), ("+12", 12),
    ("-7", -7), ("9223372036854775808", 9223372036854775808),
    ("1.5", 1.5), (".5", 0.5), ("1e3", 1000.0), ("08", 8.0), (".inf", float("inf")), ("-.Inf", float("-inf")),
    # strings: timestamps as written, base-60 numbers (dropped by goyaml.v2), words that look special
    ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"), ("2024-01-02", "2024-01-02"), ("1:20", "1:20"),
    ("80Gi", "80Gi"), ("1.2.3", "1.2.3"), ("yess", "yess"), ("0xZZ", "0xZZ"), ("+Inf", "+Inf"), ("nan", "nan"),
]


@pytest.mark.parametrize("text, expected", CASES, ids=[repr(c[0]) for c in CASES])
def test_plain_scalar_resolves_like_kubectl(text, expected):
    assert load_all(f"value: {text}\n") == [{"value": expected}]
    assert type(load_all(f"value: {text}\n")[0]["value"]) is type(expected)


@pytest.mark.parametrize("text", ["'yes'", '"0755"', "'2024-01-02'", "!!str 12", "|\n  on"])
def test_quoted_block_and_str_tagged_scalars_stay_strings(text):
    value = load_all(f"value: {text}\n")[0]["value"]
    assert isinstance(value, str)


def test_merge_keys_and_anchors():
    text = "base: &b {a: 1, b: 2}\nitem:\n  <<: *b\n  b: 3\nlist: [*b, *b]\n"
    doc = load_all(text)[0]
    assert doc["item"] == {"a": 1, "b": 3}
    assert doc["list"] == [{"a": 1, "b": 2}, {"a": 1, "b": 2}]


def test_non_string_keys_become_strings_as_in_json():
    assert load_all("1: a\ntrue: b\nyes: c\n~: d\n") == [{"1": "a", "true": "c", "null": "d"}]


def test_documents_and_empty_documents():
    assert load_all("---\n---\na: 1\n---\n") == [None, {"a": 1}, None]


def test_alias_expansion_is_bounded():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8))
    docs = load_all(bomb)  # shared, not copied: neither time nor memory explodes
    assert docs[0]["i"][0] is docs[0]["i"][1]
