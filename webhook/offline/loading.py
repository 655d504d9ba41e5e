"""Offline inputs: files, directories and stdin, as JSON or multi-document YAML, streamed document by document.

A file is split into its documents at the `---` / `...` markers before anything is parsed, so one
document at a time is parsed (possibly in another process) and its line is known. `List` kinds are
expanded item by item. What cannot be read or parsed is reported as such, with the file and line:
an input larger than `max_input_bytes`, nesting too deep, a number too long, aliases expanding too far.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from itertools import chain
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

import yaml

from webhook.offline import yamlload
from webhook.offline.lines import LINE_BREAK, count_breaks, split_lines

SUFFIXES = (".yaml", ".yml", ".json")
MARKDOWN_SUFFIXES = (".md", ".markdown")  # read when named, or in directories with --markdown
STDIN = "<stdin>"
# An input larger than this is refused before it is parsed (--max-input-bytes): reading /dev/zero, or
# a generated file gone wrong, must end with an error for that input, not with the memory of the machine.
DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024
max_input_bytes = DEFAULT_MAX_INPUT_BYTES  # the command's setting; read in the process that reads the files
markdown_in_directories = False  # review --markdown: directories are searched for *.md, *.markdown too
excluded: tuple[str, ...] = ()  # review --exclude: globs of paths (or their directories) not read


class InputError(Exception):
    """A file cannot be read or parsed; the message names the file and says why."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Chunk:
    """The text of one document of a file, before parsing."""

    file: str  # as given ("<stdin>" for standard input)
    index: int  # which document of the file, counting empty ones, as `yaml.load_all` does
    line: int  # 1-based line of the chunk's first line
    text: str
    json: bool = False  # a .json file: try the (much faster) JSON parser first
    column: int = 0  # columns the text was shifted left by (a Markdown block's indentation, quote markers)
    fragment: str = ""  # a Markdown block that is a fragment, not a manifest: why (never parsed for a verdict)


@dataclass(frozen=True)
class Document:
    """One object found in a chunk: a document, or an item of a `List` document."""

    document: str  # "3" or "3.items[0]"
    line: int | None
    value: Any


def expand_paths(paths: list[str]) -> Iterator[tuple[str, str | None]]:
    """(path, None) for each file to read, (path, why) for a path that cannot be used.

    Files as given; directories recursively, sorted, keeping *.yaml, *.yml and *.json (and Markdown with
    `markdown_in_directories`) and skipping hidden files and directories (a name starting with '.'),
    unless named explicitly.
    """
    suffixes = SUFFIXES + (MARKDOWN_SUFFIXES if markdown_in_directories else ())
    for raw in paths:
        if raw == "-":
            yield "-", None
            continue
        path = Path(raw)
        if is_excluded(path):
            continue
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                if found.is_file() and found.suffix.lower() in suffixes and not _hidden(found.relative_to(path)) \
                        and not is_excluded(found):
                    yield str(found), None
        elif path.exists():
            yield raw, None
        else:
            yield raw, "no such file or directory"


def searched(paths: list[str]) -> str:
    """What a run that found nothing looked at, to say so: the paths, the suffixes and the hidden rule."""
    from webhook.offline.visible import visible

    files = sum(1 for _, problem in expand_paths(paths) if problem is None)
    return (f"searched {', '.join(visible(p) for p in paths)} for {', '.join('*' + s for s in SUFFIXES)} "
            f"(directories recursively, hidden files and directories skipped unless named): "
            + (f"{files} file(s) found, no document in them" if files else "no file found"))


def is_excluded(path: Path) -> bool:
    """Whether `review --exclude` leaves the path out: it, or a directory it lies in, matches a glob (fnmatch,
    case-sensitive; a leading `./` is ignored on both sides)."""
    if not excluded:
        return False
    from fnmatch import fnmatchcase

    text = path.as_posix().removeprefix("./")
    candidates = [text, *(p.as_posix() for p in PurePosixPath(text).parents if p.as_posix() != ".")]
    return any(fnmatchcase(c, g.removeprefix("./")) for g in excluded for c in candidates)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def label(path: str) -> str:
    return STDIN if path == "-" else path


def read_text(path: str) -> str:
    """The text of a file (or of stdin for '-'); InputError for unreadable or non-UTF-8 bytes, or for
    more than `max_input_bytes`."""
    limit = max_input_bytes
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
            size = len(data)
        else:
            with open(path, "rb") as file:
                size = os.fstat(file.fileno()).st_size  # 0 for a device or a pipe: read to learn
                data = b"" if size > limit else file.read(limit + 1)
                size = max(size, len(data))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    if size > limit:
        del data  # not kept alive by the traceback
        raise InputError(f"cannot read: larger than {_bytes(limit)} (--max-input-bytes); refused")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        # A NUL byte is what text of any encoding lacks; otherwise it is text in another encoding (Latin-1...).
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            why = "UTF-16 text (it starts with a byte order mark): save it as UTF-8"
        else:
            why = "a binary file?" if b"\x00" in data[:8192] else "save it as UTF-8"
        raise InputError(f"cannot read: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, "
                         f"line {line}); {why}", line) from None


def _bytes(count: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count:,} bytes"


# A marker at the start of a line: after a newline (a pattern that starts with one is searched for in C, ~5x
# faster than a MULTILINE "^" tried at every position), or at the start of the text.
_MARKER = re.compile(r"[\r\n](---|\.\.\.)(?=[ \t\r\n]|$)")  # at the start of a line (lines.py)
_FIRST_MARKER = re.compile(r"(---|\.\.\.)(?=[ \t\r\n]|$)")
_BLANK_LINE = re.compile(r"^[ \t]*(#.*|%.*)?$")


def split(file: str, text: str, *, json_file: bool = False) -> Iterator[Chunk]:
    """The chunks of one file, one per document. A '---' line starts a document and a '...' line ends
    one, at column 0 only (YAML allows neither inside a scalar there). Lines before the first
    document that hold only comments or directives belong to it."""
    if json_file:
        yield Chunk(file, 0, 1, text, json=True)
        return
    spans: list[tuple[int, int]] = []
    start = 0
    first = _FIRST_MARKER.match(text)
    for match in chain([first] if first else [], _MARKER.finditer(text)):
        if match.group(1) == "---":
            if match.start(1) > start:
                spans.append((start, match.start(1)))
            start = match.start(1)
        else:
            after = LINE_BREAK.search(text, match.end(1))
            end = len(text) if after is None else after.end()
            spans.append((start, end))
            start = end
    if start < len(text):
        spans.append((start, len(text)))
    index, line, position, pending = 0, 1, 0, None
    for begin, end in spans:
        line += count_breaks(text, position, begin)
        position = begin
        piece = text[begin:end]
        if not piece.startswith("---") and all(_BLANK_LINE.match(x) for x in split_lines(piece)):
            pending = pending if pending is not None else (begin, line)  # comments, directives: keep for next
            continue
        if pending is not None:
            begin, first_line = pending
            piece, pending = text[begin:end], None
        else:
            first_line = line
        yield Chunk(file, index, first_line, piece)
        index += 1


def parse(chunk: Chunk) -> list[Document]:
    """The objects of one chunk (nothing for an empty document); InputError if it cannot be parsed."""
    out: list[Document] = []
    for value, mark in chunk_values(chunk):
        if value is None:
            continue  # an empty document, e.g. after a trailing '---'
        line = mark.line + chunk.line if mark is not None else chunk.line
        out.extend(_documents(str(chunk.index), line, value, chunk))
    return out


def chunk_values(chunk: Chunk) -> list[tuple[Any, Any]]:
    """The parsed document(s) of a chunk with the start marks of their roots (None for JSON)."""
    stripped = chunk.text.lstrip()
    if chunk.json or stripped[:1] in ("{", "["):
        try:
            return [(_json(chunk.text), None)] if stripped else []
        except RecursionError:
            raise InputError("cannot parse: nested too deeply", chunk.line) from None
        except ValueError:
            pass  # not JSON after all: YAML is a superset, let its parser explain the problem
    try:
        return yamlload.load(chunk.text, _budget(chunk))
    except yaml.YAMLError as exc:
        raise InputError(*(_template_problem(chunk) or _yaml_problem(exc, chunk.line, chunk.column))) from None
    except RecursionError:
        raise InputError("cannot parse: nested too deeply", chunk.line) from None


_budgets: dict[str, yamlload.AliasBudget] = {}


def _budget(chunk: Chunk) -> yamlload.AliasBudget:
    """The alias budget of the chunk's file, in this process: a file's chunks are parsed in order, so its
    first chunk starts a new one (a process that gets a later part starts its own)."""
    if chunk.index == 0 or chunk.file not in _budgets:
        if len(_budgets) > 1000:
            _budgets.clear()
        _budgets[chunk.file] = yamlload.AliasBudget()
    return _budgets[chunk.file]


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _json(text: str) -> Any:
    value = json.loads(text)
    return _go_strings(value) if _SURROGATE_ESCAPE.search(text) else value  # walked only when one may be there


def _go_strings(value: Any) -> Any:
    """What Go's JSON decoder makes of the strings: a lone surrogate escape ("\\ud800", which Python keeps
    as it is and cannot print or encode) becomes U+FFFD, as kubectl would send it."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_go_strings(item) for item in value]
    if isinstance(value, dict):
        return {_go_strings(key): _go_strings(item) for key, item in value.items()}
    return value


TEMPLATE_ADVICE = ("it looks like a template ({{ ... }}), not a manifest: review what it renders to instead, e.g. "
                   "`helm template RELEASE CHART | dra-webhook review -` (and leave the templates out with "
                   "--exclude 'charts/*/templates')")


def _template_problem(chunk: Chunk) -> tuple[str, int] | None:
    """A chunk YAML cannot parse that holds `{{` outside a comment (a Helm or Go template): said so, at that line."""
    for number, text in enumerate(chunk.text.split("\n")):
        at = text.find("{{")
        if at >= 0 and not text[:at].lstrip().startswith("#"):
            line = chunk.line + number
            return f"cannot parse: {TEMPLATE_ADVICE} (line {line}, column {at + 1 + chunk.column})", line
    return None


def _yaml_problem(exc: yaml.YAMLError, first_line: int, shift: int = 0) -> tuple[str, int | None]:
    """The problem and its line in the file: `shift` columns were taken off each line (a Markdown block's
    indentation and block quote markers), so the column is the file's own."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else problem
    if mark is None:
        return f"cannot parse: {text}", first_line
    line = mark.line + first_line
    return f"cannot parse: {text} (line {line}, column {mark.column + 1 + shift})", line


def is_list(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("kind"), str) and value["kind"].endswith("List") \
        and isinstance(value.get("items"), list)


def _documents(document: str, line: int | None, value: Any, chunk: Chunk) -> list[Document]:
    if not is_list(value):
        return [Document(document, line, value)]
    item_nodes = _items_node(_root_node(chunk))  # a List's item lines: compose it again (rare; values cost less)
    out = []
    for i, item in enumerate(value["items"]):
        item_line = item_nodes[i].start_mark.line + chunk.line if item_nodes and i < len(item_nodes) else line
        out.append(Document(f"{document}.items[{i}]", item_line, item))
    return out


def _root_node(chunk: Chunk) -> yaml.Node | None:
    """The composed root of a YAML chunk's first document (None for JSON)."""
    if chunk.json or chunk.text.lstrip()[:1] in ("{", "["):
        try:
            json.loads(chunk.text)
            return None
        except ValueError:
            pass
    return next((node for node in yamlload.compose_all(chunk.text) if node is not None), None)


def _items_node(node: yaml.Node | None) -> list | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "items" and isinstance(value, yaml.SequenceNode):
                return value.value
    return None


def as_review(doc: Any, *, uid: str, operation: str = "CREATE", old: Any = None, sub_resource: str = "") -> dict:
    """An AdmissionReview about `doc` (CREATE by default); `old` becomes request.oldObject.

    With `doc` None (a DELETE), kind and name come from `old`.
    """
    source = doc if doc is not None else old
    group = version = kind = ""
    if isinstance(source, dict):
        api_version = source.get("apiVersion") if isinstance(source.get("apiVersion"), str) else ""
        group, _, version = api_version.rpartition("/")
        kind = source.get("kind") if isinstance(source.get("kind"), str) else ""
    meta = source.get("metadata") if isinstance(source, dict) and isinstance(source.get("metadata"), dict) else {}
    request: dict[str, Any] = {"uid": uid, "kind": {"group": group, "version": version, "kind": kind},
                               "operation": operation}
    if doc is not None:
        request["object"] = doc
    if old is not None:
        request["oldObject"] = old
    if sub_resource:
        request["subResource"] = sub_resource
    if isinstance(meta.get("name"), str):
        request["name"] = meta["name"]
    if isinstance(meta.get("namespace"), str):
        request["namespace"] = meta["namespace"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
