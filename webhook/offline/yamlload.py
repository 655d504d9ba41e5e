"""YAML read as kubectl reads it: sigs.k8s.io/yaml (its goyaml.v2 fork, YAML 1.1 scalars), then JSON.

libyaml composes the nodes (PyYAML's C parser, the fastest faithful option measured; see
benchmarks/offline.py); the scalars are resolved here with goyaml.v2's table (`resolve.go`), not
PyYAML's: `y`/`n` are booleans, `0755` is octal, `0o17`/`0b101` are numbers, base-60 `1:20` and
timestamps stay strings. As sigs.k8s.io/yaml's JSON conversion does, mapping keys become strings.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.nodes import ScalarNode, SequenceNode

_PLAIN = "!plain"  # our tag for an untagged plain scalar: the only kind goyaml.v2 resolves
_STR = "tag:yaml.org,2002:str"
_MERGE = "<<"

_WORDS: dict[str, Any] = {}
for _value, _words in ((True, "y Y yes Yes YES true True TRUE on On ON"),
                       (False, "n N no No NO false False FALSE off Off OFF"),
                       (None, "~ null Null NULL"), (math.nan, ".nan .NaN .NAN"),
                       (math.inf, ".inf .Inf .INF +.inf +.Inf +.INF"), (-math.inf, "-.inf -.Inf -.INF")):
    _WORDS.update(dict.fromkeys(_words.split(), _value))
_WORDS[""] = None
_HINTS = frozenset("+-0123456789yYnNtTfFoO~.")
_RESOLVED_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null"))
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_TIMESTAMP_START = re.compile(r"^[0-9]{4}-")
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def parse_go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, ...) without the range limit: sign, then 0x/0o/0b/0 prefixes."""
    body = text[1:] if text[:1] in "+-" else text
    base = 10
    if body[:2] in ("0x", "0X"):
        base, body = 16, body[2:]
    elif body[:2] in ("0o", "0O"):
        base, body = 8, body[2:]
    elif body[:2] in ("0b", "0B"):
        base, body = 2, body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, body = 8, body[1:]
    if not body or any(c not in _DIGITS[base] for c in body):
        return None
    value = int(body, base)
    return -value if text[0] == "-" else value


def resolve_plain(text: str) -> Any:
    """goyaml.v2's resolve() for an untagged plain scalar."""
    if text in _WORDS:
        return _WORDS[text]
    if text[0] not in _HINTS:
        return text
    first = text[0]
    if first == ".":
        try:
            return float(text)
        except ValueError:
            return text
    if first in "+-0123456789":
        if _TIMESTAMP_START.match(text):
            return text  # a timestamp (or not a number): kept as written, as for interface{} targets
        plain = text.replace("_", "")
        number = parse_go_int(plain)
        if number is not None:
            return number
        if _FLOAT.match(plain):
            return float(plain)
        if plain.startswith("-0b"):
            number = parse_go_int("-0b" + plain[3:])
            if number is not None:
                return number
    return text


class _Composer(getattr(yaml, "CBaseLoader", yaml.BaseLoader)):  # type: ignore[misc]
    """libyaml's parser and composer; tags plain scalars so that resolution happens here."""

    def resolve(self, kind, value, implicit):  # noqa: D102 - called by the composer per node
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return super().resolve(kind, value, implicit)


def _key(value: Any) -> Any:
    """A mapping key as sigs.k8s.io/yaml's JSON conversion writes it."""
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (dict, list)):
        raise yaml.constructor.ConstructorError(None, None, "a mapping key must be a scalar", None)
    return str(value)


class _Builder:
    """Nodes to Python values; a node met twice (an alias) is built once and shared."""

    def __init__(self) -> None:
        self.built: dict[int, Any] = {}
        self.plain: dict[str, Any] = {}  # plain scalars repeat (keys above all); their values are immutable

    def build(self, node: yaml.Node) -> Any:
        cls = type(node)
        if cls is ScalarNode:
            tag = node.tag
            if tag == _PLAIN:
                text = node.value
                try:
                    return self.plain[text]
                except KeyError:
                    value = self.plain[text] = resolve_plain(text)
                    return value
            if tag in (_STR, "!"):
                return node.value
            if tag in _RESOLVED_TAGS:
                return resolve_plain(node.value)
            return node.value  # other tags: goyaml.v2 keeps the text
        known = self.built.get(id(node))
        if known is not None:
            return known
        build = self.build
        if cls is SequenceNode:
            items: list = []
            self.built[id(node)] = items
            items.extend([build(child) for child in node.value])
            return items
        mapping: dict = {}
        self.built[id(node)] = mapping
        merged: dict | None = None
        for key_node, value_node in node.value:
            if key_node.tag == _PLAIN and type(key_node) is ScalarNode:
                key = build(key_node)
                if key == _MERGE and key_node.value == _MERGE:
                    merged = merged or {}
                    merged.update(self._merge(value_node))
                    continue
                if type(key) is not str:
                    key = _key(key)
            else:
                key = _key(build(key_node))
            mapping[key] = build(value_node)
        if merged:
            for key, value in merged.items():
                mapping.setdefault(key, value)
        return mapping

    def _merge(self, node: yaml.Node) -> dict:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        out: dict = {}
        for source in reversed(sources):  # earlier maps in a merge list win
            value = self.build(source)
            if not isinstance(value, dict):
                raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps "
                                                        "as the value", node.start_mark)
            out.update(value)
        return out


def compose_all(text: str):
    """The composed documents (nodes; None for an empty document), lazily."""
    composer = _Composer(text)
    try:
        while composer.check_node():
            yield composer.get_node()
    finally:
        composer.dispose()


def build(node: yaml.Node | None) -> Any:
    return None if node is None else _Builder().build(node)


def load_all(text: str) -> list[Any]:
    return [build(node) for node in compose_all(text)]
