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
    ("1.5", 1.5), (".5", 0.5), (".inf", float("inf")), ("-.Inf", float("-inf")), ("1e21", 1e21),
    # integral floats reach the API server as JSON integers (kubectl converts with Go's json.Marshal)
    ("1e3", 1000), ("08", 8), ("2.0", 2), ("-0.0", 0), ("1e20", 10**20),
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


def _alias_bomb(levels: int) -> str:
    return "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(levels))


def test_alias_expansion_is_bounded():
    """Aliases are charged by what they expand to: 10^9 nodes in a few hundred bytes are refused, both
    when values are built from events and when they are built from composed nodes (suites)."""
    from webhook.offline.yamlload import AliasBudgetError, build, compose_all

    with pytest.raises(AliasBudgetError, match="YAML aliases expand beyond 250,000 nodes in a document; refused"):
        load_all(_alias_bomb(8))
    with pytest.raises(AliasBudgetError, match="250,000 nodes in a document"):
        build(next(compose_all(_alias_bomb(8))))
    big = "a: &a " + "x" * 100_000 + "\nb: [" + ", ".join(["*a"] * 50) + "]\n"  # 5 MB of scalars from 100 KB
    with pytest.raises(AliasBudgetError, match="4 MiB of scalars in a document"):
        load_all(big)


def test_the_input_budget_counts_every_document():
    from webhook.offline.yamlload import AliasBudgetError

    each = _alias_bomb(4)  # 111,110 nodes from aliases: under the document's budget
    value = load_all(each)[0]
    assert value["e"][0] is value["e"][1]
    with pytest.raises(AliasBudgetError, match="1,000,000 nodes in an input"):
        load_all("---\n".join([each] * 10))


def test_ordinary_anchors_and_merges_still_load():
    text = ("defaults: &d {driver: gpu.example.com, parameters: &p {mode: shared, limits: [1, 2, 3]}}\n"
            "configs: [*d, *d, {<<: *d, extra: *p}]\n")
    value = load_all(text)[0]
    assert value["configs"][0] is value["defaults"] and value["configs"][2]["extra"]["limits"] == [1, 2, 3]


# Values are built from libyaml's events for speed; nodes are still composed where marks are needed
# (suites, List item lines). Both ways give the same values and the same errors.
SAME_EITHER_WAY = [
    "a: &x {b: [1, yes, '0755', !!int '12', !!str 12, !foo 7, ! on]}\nc: *x\nd: [*x, *x]\n",
    "base: &b {a: 1, b: 2}\nmore: &m {c: 3}\nitem:\n  <<: [*b, *m]\n  b: 9\n  <<: {d: 4}\n'<<': quoted\n",
    "--- !tagged\n? !!int '7'\n: x\n1.5: y\nnull: z\n---\n...\n",
    "list: &l [a, b]\nnested: {x: [*l, {y: *l}]}\n",
    "self: &s [1, *s]\n",
]


@pytest.mark.parametrize("text", SAME_EITHER_WAY)
def test_events_and_nodes_build_the_same_values(text):
    from webhook.offline.yamlload import build, compose_all

    by_events, by_nodes = load_all(text), [build(node) for node in compose_all(text)]
    assert repr(by_events) == repr(by_nodes)


@pytest.mark.parametrize("text, problem, line", [
    ("a: &x 1\nb: &x 2\n", "found duplicate anchor; first occurrence", 1),
    ("a: *nowhere\n", "found undefined alias", 0),
    ("x: &s 1\n<<: *s\n", "map merge requires map or sequence of maps as the value", 0),
    ("? [a]\n: 1\n", "a mapping key must be a scalar", None),
    ("? [a]\n: 1\nb: [\n", "did not find expected node content", 3),  # the syntax error comes first
])
def test_events_and_nodes_fail_the_same_way(text, problem, line):
    import yaml

    from webhook.offline.yamlload import build, compose_all

    failures = []
    for way in (lambda: load_all(text), lambda: [build(node) for node in compose_all(text)]):
        with pytest.raises(yaml.YAMLError) as caught:
            way()
        error = caught.value
        mark = getattr(error, "problem_mark", None)
        failures.append((error.problem, error.context, mark.line if mark is not None else None))
    assert failures[0] == failures[1]
    assert problem in failures[0][:2] and failures[0][2] == line


def test_nesting_depth_limit_and_merges_inside_nested_mappings():
    from webhook.offline.yamlload import MAX_DEPTH

    assert load_all("[" * MAX_DEPTH + "]" * MAX_DEPTH)[0] is not None
    with pytest.raises(RecursionError):
        load_all("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    text = "b: &b {p: 1, q: 2}\nm:\n  o:\n    <<: [*b, {p: 3, r: 4}]\n    q: 5\n  k: [1, {<<: *b}]\nafter: 6\n"
    assert load_all(text) == [{"b": {"p": 1, "q": 2}, "m": {"o": {"q": 5, "p": 1, "r": 4}, "k": [1, {"p": 1, "q": 2}]},
                               "after": 6}]
