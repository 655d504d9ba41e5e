"""Where a cause's field was written: its line and column in the source of the document.

A cause names its field as Go's field.Path renders it (`spec.devices.requests[0].exactly.count`, a map key
in brackets: `attributes[dra.example.com/model]`). It is looked up in the document composed again (YAML
nodes carry their start marks; JSON composes as YAML flow, and what libyaml refuses of JSON gets no
position), only for a result that has causes, so an allowed document costs nothing. Composing is linear
in the text (aliases are shared nodes, never expanded), a mapping's keys are indexed once, and a lookup
walks one node per path element, so a document costs what its text does however many causes it has. A field that is not there points at its nearest existing parent; a
mapping entry at its key (an unknown field's key itself). The paths of the v1 object that older versions
are converted to are found where the user wrote them: a v1beta1 request's fields flat beside its name (no
`exactly`), a v1beta1 slice device's under `basic`.
"""

from __future__ import annotations

import re
from dataclasses import replace

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from webhook.field import go_unquote
from webhook.numbers import parse_decimal
from webhook.offline import yamlload
from webhook.offline.hints import hint
from webhook.offline.results import Message, Result

# Paths longer than this are not looked up (a path names a field of a decoded object: never this long).
MAX_PATH_CHARS = 4096
# How many mappings `<<` merge keys may bring into a lookup of a field not written in the mapping itself.
MAX_MERGED = 1000

# The items of a strict decoding error: `unknown field "spec.x", duplicate field "spec.y"`, each name as
# the decoder wrote it (Go-quoted; items are cut where the next one starts: at `", ` before
# `unknown field "` or `duplicate field "`). Cut first, then each item matched whole: a
# search for an item that can end at any later quote went over the rest of the text from every start.
_STRICT_NEXT = re.compile(r'", (?=(?:unknown|duplicate) field ")')
_STRICT_ITEM = re.compile(r'(unknown|duplicate) field "(.*)"', re.DOTALL)


def strict_causes(text: str, reason: str) -> list[Message] | None:
    """The fields a strict decoding error names, one message each (the API server sends them as one
    message, no causes); None when `text` is not one."""
    _, found, tail = text.partition("strict decoding error: ")
    if not found:
        return None
    pieces = _STRICT_NEXT.split(tail)
    out = []
    for index, piece in enumerate(pieces):
        item = piece if index == len(pieces) - 1 else piece + '"'  # the split took its closing quote
        if not item.endswith('"'):
            continue
        match = _STRICT_ITEM.search(item) if index == 0 else _STRICT_ITEM.match(item)
        name = go_unquote(match.group(2)) if match and match.end() == len(item) else None
        if name is not None:  # the decoder Go-quotes the path (strconv.Quote)
            out.append(Message(f'strict decoding error: {match.group(1)} field "{match.group(2)}"', name, reason))
    return out or None


def denial_causes(status: dict) -> list[Message]:
    """A denial's causes, one message each: its details' causes, else the fields a strict decoding error
    names ([]: none)."""
    causes = (status.get("details") or {}).get("causes") or []
    if causes:
        return [Message(c.get("message", ""), c.get("field", ""), c.get("reason", ""),
                        hint=hint(c.get("field", ""), c.get("reason", ""), c.get("message", ""))) for c in causes]
    return strict_causes(status.get("message") or "", status.get("reason", "")) or []


def parse_path(path: str) -> list[str | int] | None:
    """A rendered field.Path as its elements: names and keys as strings, indexes as ints; None if it is
    not one."""
    if not path or len(path) > MAX_PATH_CHARS:
        return None
    out: list[str | int] = []
    i, n = 0, len(path)
    while i < n:
        if path[i] == "[":
            # A key may hold ']' or '.': it ends at the ']' followed by the end, '.' or '['.
            end = i + 1
            while True:
                end = path.find("]", end)
                if end < 0:
                    return None
                if end + 1 == n or path[end + 1] in ".[":
                    break
                end += 1
            inside = path[i + 1:end]
            index = parse_decimal(inside, max_digits=18)  # [3] an index; [10000...] with 5,000 digits a key
            out.append(inside if index is None else index)
            i = end + 1
        else:
            if path[i] == "." and out:
                i += 1
            end = i
            while end < n and path[end] not in ".[":
                end += 1
            if end == i:
                return None
            out.append(path[i:end])
            i = end
    return out


def _key_text(node: yaml.Node) -> str | None:
    """A key as sigs.k8s.io/yaml turns it into a JSON name (None for a key that is not a scalar)."""
    if type(node) is not ScalarNode:
        return None
    if node.tag == yamlload._PLAIN:
        return str(yamlload._key(yamlload.resolve_plain(node.value)))
    return node.value


def _keys(node: MappingNode) -> tuple[dict[str, tuple[yaml.Node, yaml.Node]], list[yaml.Node]]:
    """A mapping node's entries by name (the last one written winning, as when the value is built) and
    its `<<` merge values; indexed once per node and kept on it, so a lookup costs the same however many
    keys the mapping has and however many causes are looked up in it."""
    index = node.__dict__.get("_names")
    if index is None:
        entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        merges = []
        for key, value in node.value:
            text = _key_text(key)
            if text == "<<" and key.tag == yamlload._PLAIN:
                merges.append(value)
            elif text is not None:
                entries[text] = (key, value)
        index = node._names = (entries, merges)
    return index


def _entry(node: MappingNode, name: str) -> tuple[yaml.Node, yaml.Node] | None:
    """The (key, value) nodes of `name` in a mapping node, else in what its merge keys bring (earlier maps
    first, as they win; MAX_MERGED mappings visited at most)."""
    pending, seen = [node], set()
    while pending and len(seen) < MAX_MERGED:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        entries, merges = _keys(current)
        if name in entries:
            return entries[name]
        for value in reversed(merges):
            sources = value.value if type(value) is SequenceNode else [value]
            pending.extend(source for source in reversed(sources) if type(source) is MappingNode)
    return None


def locate(root: yaml.Node, path: list[str | int]) -> tuple[yaml.Mark, bool]:
    """The start mark of where `path` is written below `root` (a mapping entry: its key), and whether it
    is there; if it is not, the mark of its nearest existing parent."""
    node, mark = root, root.start_mark
    at = 0
    while at < len(path):
        element = path[at]
        at += 1
        if type(node) is SequenceNode and isinstance(element, int):
            if element >= len(node.value):
                return mark, False
            node = node.value[element]
            mark = node.start_mark
            continue
        if type(node) is not MappingNode:
            return mark, False
        name = str(element)
        found = _entry(node, name)
        if found is None and name == "exactly":
            continue  # a v1beta1 request: its fields are flat, beside its name
        if found is None:
            basic = _entry(node, "basic")  # a v1beta1 slice device: its fields are under `basic`
            if basic is not None and type(basic[1]) is MappingNode:
                found = _entry(basic[1], name)
        if found is None:  # a strict decoding error joins a map key to its path with dots: `attributes.a.b/c`
            found, at = _dotted_key(node, name, path, at)
        if found is None:
            return mark, False
        key, node = found
        mark = key.start_mark
    return mark, True


# How many of a path's names a key with dots in it may span (`dra.example.com/model`: three).
MAX_KEY_DOTS = 16


def _dotted_key(node: MappingNode, name: str, path: list[str | int], at: int) -> tuple:
    """(the entry of a key with dots in it that the path splits into names from `name` on, the index of the
    element after it), else (None, at)."""
    joined = name
    for end in range(at, min(len(path), at + MAX_KEY_DOTS)):
        if not isinstance(path[end], str):
            break
        joined = f"{joined}.{path[end]}"
        found = _entry(node, joined)
        if found is not None:
            return found, end + 1
    return None, at


def root_node(text: str) -> yaml.Node | None:
    """The composed first document of a chunk's text; None when it cannot be composed."""
    try:
        return next((node for node in yamlload.compose_all(text) if node is not None), None)
    except (yaml.YAMLError, RecursionError):
        return None


_ITEM = re.compile(r"\.items\[(\d+)\]$")


class Source:
    """A chunk's text, composed once when a first result of it needs positions (a `List` of many denied
    items is composed once, not once per item)."""

    def __init__(self, text: str, line: int, column: int = 0):
        self.text, self.line, self.column = text, line, column
        self._root: yaml.Node | None = None
        self._composed = False

    def root(self) -> yaml.Node | None:
        if not self._composed:
            self._root, self._composed = root_node(self.text), True
        return self._root


def place(result: Result, source: Source) -> Result:
    """`result` with the line and column of each of its messages' fields, in a document read from `source`
    (a chunk) whose first line is `source.line` of the file, shifted right by `source.column` (a Markdown
    block's indentation and block quote markers)."""
    if not any(m.field for m in result.messages):
        return result
    root = source.root()
    match = _ITEM.search(result.document or "")
    if match:
        index = parse_decimal(match.group(1), max_digits=18)
        root = node_at(root, ["items", index]) if index is not None else None
    if root is None:
        return result
    kind = _entry(root, "kind") if type(root) is MappingNode else None
    if kind is not None and type(kind[1]) is ScalarNode and kind[1].value == "AdmissionReview":
        root = recorded_object(root)  # a recorded request: its causes are the object's
        if root is None:
            return result
    result.messages = [_at(m, m.field, root, source.line, source.column) for m in result.messages]
    return result


def _at(message: Message, field: str, root: yaml.Node | None, line: int, column: int, **changes) -> Message:
    """`message` at `field` as written below `root` (a text whose first line is `line`, shifted right by
    `column`), with `changes`; as it is when the field cannot be looked up."""
    path = parse_path(field) if field and root is not None else None
    if path is None:
        return message
    mark, _ = locate(root, path)
    return replace(message, line=mark.line + line, column=mark.column + 1 + column, **changes)


_CAUSE_PROBLEM = re.compile(r"^(?:missing|unexpected) cause (\S+) ")


def place_messages(messages: list[Message], root: yaml.Node | None, file: str | None, line: int = 1,
                   column: int = 0) -> list[Message]:
    """A test's messages, each about a field (a cause, or a problem such as `unexpected cause spec.x
    FieldValueInvalid`) at that field where the object is written: `root` composed from a text whose first
    line is `line` of `file` (None: the suite's own file)."""
    out = []
    for message in messages:
        match = _CAUSE_PROBLEM.match(message.text)
        field = message.field or (match.group(1) if match else "")
        out.append(_at(message, field, root, line, column, file=file))
    return out


def node_at(root: yaml.Node | None, path: list[str | int]) -> yaml.Node | None:
    """The node written at `path` below `root` (as written: no older versions' places), or None."""
    node = root
    for element in path:
        if type(node) is SequenceNode and isinstance(element, int) and element < len(node.value):
            node = node.value[element]
        elif type(node) is MappingNode and (found := _entry(node, str(element))) is not None:
            node = found[1]
        else:
            return None
    return node


def recorded_object(root: yaml.Node | None) -> yaml.Node | None:
    """The `request.object` of a composed AdmissionReview."""
    return node_at(root, ["request", "object"])
