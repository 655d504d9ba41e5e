"""YAML read as kubectl reads it: sigs.k8s.io/yaml (its goyaml.v2 fork, YAML 1.1 scalars), then JSON.

libyaml parses (PyYAML's C parser, the fastest faithful option measured; see benchmarks/offline.py)
and values are built straight from its events (`load`), which costs half of composing nodes first;
nodes are composed only where their marks are needed (`compose_all`, `build`). The scalars are
resolved here with goyaml.v2's table (`resolve.go`), not PyYAML's: `y`/`n` are booleans, `0755` is
octal, `0o17`/`0b101` are numbers, base-60 `1:20` and timestamps stay strings. As sigs.k8s.io/yaml's
JSON conversion does, mapping keys become strings. Aliases are charged by what they expand to, and a
document or an input whose aliases expand beyond the budget is refused (`AliasBudget`).
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, DocumentEndEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent, StreamEndEvent
from yaml.nodes import ScalarNode, SequenceNode

from webhook.offline.lines import MarkFixer

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
    try:
        value = int(body, base)
    except ValueError:  # beyond sys.get_int_max_str_digits(): converting it costs quadratic time
        raise yaml.constructor.ConstructorError(None, None, f"a number of {len(body):,} digits is too long to "
                                                f"read (at most {sys.get_int_max_str_digits():,})", None) from None
    return -value if text[0] == "-" else value


def _as_sent(value: float) -> int | float:
    """A YAML float as it reaches the API server: kubectl's YAML-to-JSON conversion writes it with Go's
    json.Marshal, which prints an integral float below 1e21 without a fraction ("2.0" and "1e3" arrive
    as the JSON integers 2 and 1000, which an int64 field accepts)."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def resolve_plain(text: str) -> Any:
    """goyaml.v2's resolve() for an untagged plain scalar, floats as kubectl sends them (_as_sent)."""
    if text in _WORDS:
        return _WORDS[text]
    if text[0] not in _HINTS:
        return text
    first = text[0]
    if first == ".":
        try:
            return _as_sent(float(text))
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
            return _as_sent(float(plain))
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
        return _merged(self.build(node), node.start_mark)


def _merged(value: Any, mark: Any) -> dict:
    """The mapping a merge key's value (a map, or a sequence of maps) contributes."""
    out: dict = {}
    for source in reversed(value if isinstance(value, list) else [value]):  # earlier maps in a list win
        if not isinstance(source, dict):
            raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps "
                                                    "as the value", mark)
        out.update(source)
    return out


# What aliases may add, counted as what they expand to (nodes, and characters of scalars): an anchored
# value is built once and shared, but whatever walks the tree later (validation, sizing, output) walks
# every copy, so 8 levels of 10-way aliases (800 bytes) would be 10^9 nodes. Per document, and per input
# (the documents of one file read by one process). Nodes written out in the text are never charged:
# the input's size bounds those (--max-input-bytes).
ALIAS_NODES_PER_DOCUMENT = 250_000
ALIAS_BYTES_PER_DOCUMENT = 4 * 1024 * 1024
ALIAS_NODES_PER_INPUT = 1_000_000
ALIAS_BYTES_PER_INPUT = 16 * 1024 * 1024


class AliasBudgetError(yaml.YAMLError):
    """Aliases expand beyond the budget: refused, as a parse error of the input."""

    def __init__(self, limit: str, mark: Any = None):
        super().__init__(f"YAML aliases expand beyond {limit}; refused")
        self.problem, self.problem_mark = str(self), mark


class AliasBudget:
    """What aliases have added so far in one input; `load` charges it and refuses past the limits."""

    def __init__(self) -> None:
        self.nodes = self.bytes = 0

    def charge(self, document_nodes: int, document_bytes: int, nodes: int, size: int, mark: Any) -> None:
        if document_nodes > ALIAS_NODES_PER_DOCUMENT:
            raise AliasBudgetError(f"{ALIAS_NODES_PER_DOCUMENT:,} nodes in a document", mark)
        if document_bytes > ALIAS_BYTES_PER_DOCUMENT:
            raise AliasBudgetError(f"{ALIAS_BYTES_PER_DOCUMENT // 2**20} MiB of scalars in a document", mark)
        self.nodes += nodes
        self.bytes += size
        if self.nodes > ALIAS_NODES_PER_INPUT:
            raise AliasBudgetError(f"{ALIAS_NODES_PER_INPUT:,} nodes in an input", mark)
        if self.bytes > ALIAS_BYTES_PER_INPUT:
            raise AliasBudgetError(f"{ALIAS_BYTES_PER_INPUT // 2**20} MiB of scalars in an input", mark)


def compose_all(text: str):
    """The composed documents (nodes; None for an empty document), lazily."""
    composer = _Composer(text)
    fixer = MarkFixer(text)  # libyaml's lines are YAML 1.1's: counted again as the file's lines
    try:
        while True:
            try:
                if not composer.check_node():
                    break
                node = composer.get_node()
            except yaml.YAMLError as exc:
                fixer.error(exc)
                raise
            fixer.node(node)
            yield node
    finally:
        composer.dispose()


def build(node: yaml.Node | None, budget: AliasBudget | None = None) -> Any:
    """The value of a composed document; AliasBudgetError if its aliases expand beyond the budget."""
    if node is None:
        return None
    _charge_aliases(node, budget if budget is not None else AliasBudget())
    return _Builder().build(node)


def _charge_aliases(root: yaml.Node, budget: AliasBudget) -> None:
    """Charges what the aliases of a composed document add: its expanded size less its own nodes. A node
    met again is an alias (the composer shares it); its expanded size is computed once, so this walk
    costs the nodes written, not the nodes expanded."""
    expanded: dict[int, tuple[int, int]] = {}
    written = [0, 0]

    def walk(node: yaml.Node) -> tuple[int, int]:
        known = expanded.get(id(node))
        if known is not None:
            return known
        if type(node) is ScalarNode:
            written[0] += 1
            written[1] += len(node.value)
            expanded[id(node)] = found = (1, len(node.value))
            return found
        written[0] += 1
        expanded[id(node)] = (1, 0)  # an alias inside itself counts once, as `load` does
        nodes = 1
        size = 0
        for child in (node.value if type(node) is SequenceNode else (x for pair in node.value for x in pair)):
            child_nodes, child_size = walk(child)
            nodes += child_nodes
            size += child_size
        expanded[id(node)] = (nodes, size)
        return nodes, size

    nodes, size = walk(root)
    extra_nodes, extra_size = nodes - written[0], size - written[1]
    budget.charge(extra_nodes, extra_size, extra_nodes, extra_size, root.start_mark)


def load_all(text: str) -> list[Any]:
    return [value for value, _ in load(text)]


# Deeper than this is refused (RecursionError) about where the recursive node builder reached the
# interpreter's recursion limit; libyaml refuses more than 1000 levels itself, as a syntax error.
MAX_DEPTH = 950


# Plain scalars repeat across documents (keys above all); their values are immutable, so they are shared.
_PLAIN_VALUES: dict[str, Any] = {}


def load(text: str, budget: AliasBudget | None = None) -> list[tuple[Any, Any]]:
    """Each document's value with the start mark of its root, built from libyaml's events: the same
    values as `build(node)` of every composed node, and the same errors. Aliases are charged to
    `budget` (a new one: this text is the whole input); AliasBudgetError past it."""
    budget = budget if budget is not None else AliasBudget()
    parser = _Composer(text)
    get = parser.get_event
    plain = _PLAIN_VALUES
    if len(plain) > 100_000:
        plain.clear()
    documents: list[tuple[Any, Any]] = []
    fixer = MarkFixer(text)  # libyaml's lines are YAML 1.1's: counted again as the file's lines
    try:
        get()  # stream start
        while type(get()) is not StreamEndEvent:  # a document start
            try:
                documents.append(_document(get, plain, budget))
            except (yaml.constructor.ConstructorError, RecursionError):
                while type(get()) is not DocumentEndEvent:
                    pass  # a syntax error later in the document is reported first, as when composing
                raise
    except yaml.YAMLError as exc:
        fixer.error(exc)
        raise
    finally:
        parser.dispose()
    return [(value, fixer.mark(mark)) for value, mark in documents] if fixer.active else documents


def _document(get, plain: dict[str, Any], budget: AliasBudget) -> tuple[Any, Any]:
    # The innermost open mapping or sequence lives in locals (its value, start mark, and for a mapping
    # the pending key, whether it is a merge key, what merge keys bring); the enclosing ones wait on
    # `stack` as tuples. Locals, not an object per container: this loop runs once per event.
    # `nodes` and `size` count the document as expanded (an alias counts what its anchor holds); an
    # anchored container's expanded size is the difference between its end and its start.
    anchors: dict[str, tuple[Any, Any]] = {}  # name -> (value, mark), per document as the composer has them
    sizes: dict[str, tuple[int, int]] = {}  # anchor -> expanded (nodes, size); (1, 0) while still open
    nodes = size = alias_nodes = alias_size = 0
    opened_anchor: str | None = None
    opened_at = (0, 0)
    stack: list[tuple] = []
    container: Any = None  # None: nothing open, the next value is the root
    is_list = has_key = merge = False
    key: Any = None
    merged: dict | None = None
    opened_mark = root = root_mark = None
    while True:
        event = get()
        cls = type(event)
        key_is_plain = False
        if cls is ScalarEvent:
            tag, text = event.tag, event.value
            if tag is None or tag == "!":
                if event.implicit[0]:
                    key_is_plain = True
                    try:
                        value = plain[text]
                    except KeyError:
                        value = plain[text] = resolve_plain(text)
                else:
                    value = text
            elif tag in _RESOLVED_TAGS:
                value = resolve_plain(text)
            else:
                value = text  # !!str, and other tags: goyaml.v2 keeps the text
            mark = event  # its start_mark, read only where needed (a merge error, the root's line)
            nodes += 1
            size += len(text)
            if event.anchor is not None:
                _anchor(anchors, event, value)
                sizes[event.anchor] = (1, len(text))
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise RecursionError("nested too deeply")
            stack.append((container, is_list, key, has_key, merge, merged, opened_mark, opened_anchor, opened_at))
            is_list = cls is SequenceStartEvent
            container = [] if is_list else {}
            opened_mark = event.start_mark
            key, has_key, merge, merged = None, False, False, None
            nodes += 1
            opened_anchor = event.anchor
            if opened_anchor is not None:
                _anchor(anchors, event, container)
                sizes[opened_anchor] = (1, 0)  # an alias inside itself: goyaml.v2 refuses it, we share it
                opened_at = (nodes, size)
            continue
        elif cls is AliasEvent:
            if event.anchor not in anchors:
                raise ComposerError(None, None, "found undefined alias", event.start_mark)
            value, mark = anchors[event.anchor]
            more_nodes, more_size = sizes[event.anchor]
            nodes += more_nodes
            size += more_size
            alias_nodes += more_nodes
            alias_size += more_size
            budget.charge(alias_nodes, alias_size, more_nodes, more_size, event.start_mark)
        elif cls is DocumentEndEvent:
            return root, root_mark
        else:  # the end of the innermost mapping or sequence
            if merged:
                for merged_key, merged_value in merged.items():
                    container.setdefault(merged_key, merged_value)
            value, mark = container, opened_mark
            if opened_anchor is not None:
                sizes[opened_anchor] = (nodes - opened_at[0] + 1, size - opened_at[1])
            container, is_list, key, has_key, merge, merged, opened_mark, opened_anchor, opened_at = stack.pop()
        if container is None:
            root, root_mark = value, _start(mark)
        elif is_list:
            container.append(value)
        elif not has_key:
            has_key = True
            merge = key_is_plain and value == _MERGE
            key = value if type(value) is str else _key(value)
        else:
            has_key = False
            if merge:
                merged = merged or {}
                merged.update(_merged(value, _start(mark)))
            else:
                container[key] = value


def _start(mark: Any) -> Any:
    return mark.start_mark if type(mark) is ScalarEvent else mark


def _anchor(anchors: dict, event: Any, value: Any) -> None:
    name = event.anchor
    if name in anchors:
        raise ComposerError("found duplicate anchor; first occurrence", anchors[name][1], "second occurrence",
                            event.start_mark)
    anchors[name] = (value, event.start_mark)
