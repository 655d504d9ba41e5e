"""Kubernetes' field package in Python: paths, error types and their rendering.

Mirrors k8s.io/apimachinery/pkg/util/validation/field (v0.36): `Path.String()`,
`Error.ErrorBody()`, the error constructors and `ErrorList.ToAggregate()`.
"""

from __future__ import annotations

import json
import math
import re
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from dataclasses import dataclass, field as dataclass_field
from enum import Enum
from typing import Any, Iterable

from webhook.limits import RESOURCE_SLICE_MAX_DEVICES


class ErrorType(str, Enum):
    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TOO_FEW = "FieldValueTooFew"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"
    TOO_SHORT = "FieldValueTooShort"

    def __str__(self) -> str:  # Go's ErrorType.String()
        return _TYPE_TEXT[self]


_TYPE_TEXT = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TOO_FEW: "Too few",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
    ErrorType.TOO_SHORT: "Too short",
}

# Types whose body never shows the bad value.
_VALUE_HIDDEN = {
    ErrorType.REQUIRED,
    ErrorType.FORBIDDEN,
    ErrorType.TOO_LONG,
    ErrorType.TOO_SHORT,
    ErrorType.INTERNAL,
}


class _Omit:
    """Go's omitValue: the bad value is not shown at all."""

    def __repr__(self) -> str:
        return "<omit>"


OMIT = _Omit()


class Path:
    """A field path; renders exactly like Go's `field.Path.String()`.

    Build paths only with `Path(...)`, `.child()`, `.index()` and `.key()`. Validation builds a path for
    every field it visits and renders one only for an error, so building is kept to a minimum (one
    object, its slots set directly) and rendering is cached.
    """

    __slots__ = ("name", "subscript", "parent", "_text")

    def __init__(self, name: str, *more: str) -> None:
        self.name, self.subscript, self.parent, self._text = name, "", None, None
        for extra in more:  # NewPath("a", "b") is the path "a.b": re-parent ourselves
            self.parent, self.name = _node(self.name, "", self.parent), extra

    # One store per slot: a four-name tuple assignment builds and unpacks a tuple on every call.
    def child(self, name: str, *more: str) -> Path:
        path = _new(Path)
        path.name = name
        path.subscript = ""
        path.parent = self
        path._text = None
        if more:
            for extra in more:
                path = _node(extra, "", path)
        return path

    def key(self, k: str) -> Path:
        path = _new(Path)
        path.name = ""
        path.subscript = k
        path.parent = self
        path._text = None
        return path

    # Go's Index(i) and Key(k) both render as "[subscript]": an index is kept as the int itself.
    index = key

    def root(self) -> Path:
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def __str__(self) -> str:
        if self._text is None:
            prefix = "" if self.parent is None else str(self.parent)
            if self.name:
                self._text = f"{prefix}.{self.name}" if self.parent is not None else self.name
            else:
                self._text = f"{prefix}[{self.subscript}]"
        return self._text

    def __repr__(self) -> str:
        return f"Path({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


_new = object.__new__


def _node(name: str, subscript: str, parent: Path | None) -> Path:
    path = _new(Path)
    path.name = name
    path.subscript = subscript
    path.parent = parent
    path._text = None
    return path


_GO_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
               "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s: str) -> str:
    """Go's strconv.Quote (the %q verb) for a string."""
    out = ['"']
    for ch in s:
        esc = _GO_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch == " " or ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            if code < 0x80:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_GO_UNESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
                 '"': '"', "'": "'"}
_GO_ESCAPE = re.compile(r'\\(?:([abfnrtv\\"\'])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))')


def go_unquote(quoted: str) -> str | None:
    """The string `go_quote` wrote as `quoted` (the text between its quotes; Go's escapes undone, one pass, linear
    in the text); None when a backslash starts no escape Go writes."""
    def undo(match: re.Match) -> str:
        simple, byte, small, large = match.groups()
        if simple:
            return _GO_UNESCAPES[simple]
        code = int(byte or small or large, 16)
        return chr(code) if code <= 0x10FFFF else "\ufffd"

    text = _GO_ESCAPE.sub(undo, quoted)
    return None if "\\" in _GO_ESCAPE.sub("", quoted) else text


def _go_float(value: float) -> str:
    """Go's %v for float64 ('g' with the shortest representation)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        text = f"{mantissa}e{sign}{digits}"
    return text


def go_json_number(value: int | float) -> str:
    """A JSON number's text as Go's json.Marshal writes it ('f' form, or 'e' outside [1e-6, 1e21)).
    An integral float keeps its ".0": it stands for a JSON literal that is no integer."""
    if isinstance(value, int) or math.isnan(value) or math.isinf(value):
        return str(value)
    if value == int(value) and abs(value) < 1e21:
        return repr(value)
    if 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)), "f")
    mantissa, _, exp = repr(value).partition("e")
    return f"{mantissa}e{exp[0]}{exp[1:].lstrip('0') or '0'}" if exp else repr(value)


def go_json(value: Any) -> str:
    """Go's json.Marshal rendering (HTML characters escaped, as Go does)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str)
    return (
        text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )


def render_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    return go_json(value)


# What the server echoes of a request, bounded (`bounded_echo`); the offline commands show all, as
# upstream does (the API server's own 3 MiB request limit bounds it there). Unbounded, a 3 MB name
# came back in each cause, in the message and as details.name: 18 MB. The bounds are the API
# server's for the text it relays to a client: k8s.io/apiserver/pkg/endpoints/filters/warning.go
# cuts each warning to 256 runes (truncateItemRunes) once they pass 4 KiB in all.
ECHOED_VALUE_CHARS = 256
# Causes listed in a denial (and in its message): one for each device of the largest ResourceSlice
# (types.go ResourceSliceMaxDevices); past them the message says how many more.
ECHOED_CAUSES = RESOURCE_SLICE_MAX_DEVICES
# A cause's detail quotes the request too: a CEL compile error lists up to 100 errors, each with its
# source line (up to 10 KiB) and a caret line, about 1 MiB for one selector. Served, a detail is cut
# here: room for one error on the longest selector, 2 MiB for a class of 32 selectors. (In a cluster
# the API server's own validation refuses such an object before any validating webhook sees it.)
ECHOED_DETAIL_CHARS = 64 * 1024
TRUNCATED = "...(truncated)"
_BOUNDED: ContextVar[bool] = ContextVar("bounded_echo", default=False)


@contextmanager
def bounded_echo():
    """Error bodies, names and cause lists built inside are bounded as the server sends them."""
    token = _BOUNDED.set(True)
    try:
        yield
    finally:
        _BOUNDED.reset(token)


def echo_bounded() -> bool:
    return _BOUNDED.get()


def bounded_text(text: str, limit: int = ECHOED_VALUE_CHARS) -> str:
    """`text`, cut to `limit` characters and marked, when echoes are bounded."""
    if len(text) <= limit or not _BOUNDED.get():
        return text
    return text[:limit] + TRUNCATED


def _rendered_value(value: Any) -> str:
    if not _BOUNDED.get():
        return render_value(value)
    if isinstance(value, str):
        if len(value) <= ECHOED_VALUE_CHARS:
            return go_quote(value)
        return go_quote(value[:ECHOED_VALUE_CHARS])[:-1] + TRUNCATED  # quote left open: the value goes on
    return bounded_text(render_value(value))


@dataclass(frozen=True, slots=True)
class FieldError:
    type: ErrorType
    field: str
    bad_value: Any = ""
    detail: str = ""
    # Reported by declarative validation (enforced from Kubernetes 1.37): such errors carry the paths of
    # the request's API version, not of the internal (v1) shape.
    declarative: bool = dataclass_field(default=False, compare=False)

    def body(self) -> str:
        """Go's `Error.ErrorBody()`: the cause message."""
        if self.type in _VALUE_HIDDEN or self.bad_value is OMIT:
            text = str(self.type)
        else:
            text = f"{self.type}: {_rendered_value(self.bad_value)}"
        if self.detail:
            text += f": {bounded_text(self.detail, ECHOED_DETAIL_CHARS)}"
        return text

    def __str__(self) -> str:  # Go's `Error.Error()`
        return f"{self.field}: {self.body()}"

    @property
    def key(self) -> tuple[str, str]:
        """(field, reason): what tests and corpora compare."""
        return (self.field, self.type.value)


ErrorList = list[FieldError]


# Constructors, one per Go constructor. `path` may be a Path or an already rendered string.

def invalid(path: Path | str, value: Any, detail: str = "") -> FieldError:
    return FieldError(ErrorType.INVALID, str(path), value, detail)


def type_invalid(path: Path | str, value: Any, detail: str = "") -> FieldError:
    return FieldError(ErrorType.TYPE_INVALID, str(path), value, detail)


def required(path: Path | str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, str(path), "", detail)


def forbidden(path: Path | str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, str(path), "", detail)


def duplicate(path: Path | str, value: Any) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, str(path), value, "")


def not_found(path: Path | str, value: Any) -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, str(path), value, "")


def not_supported(path: Path | str, value: Any, valid_values: Iterable[str] = ()) -> FieldError:
    quoted = [go_quote(str(v)) for v in valid_values]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError(ErrorType.NOT_SUPPORTED, str(path), value, detail)


def too_long(path: Path | str, value: Any = None, max_length: int = -1) -> FieldError:
    if max_length >= 0:
        unit = "byte" if max_length == 1 else "bytes"
        detail = f"may not be more than {max_length} {unit}"
    else:
        detail = "value is too long"
    return FieldError(ErrorType.TOO_LONG, str(path), "<value omitted>", detail)


def too_many(path: Path | str, actual: int, maximum: int) -> FieldError:
    if maximum >= 0:
        unit = "item" if maximum == 1 else "items"
        detail = f"must have at most {maximum} {unit}"
    else:
        detail = "has too many items"
    return FieldError(ErrorType.TOO_MANY, str(path), actual if actual >= 0 else OMIT, detail)


def too_few(path: Path | str, actual: int, minimum: int) -> FieldError:
    if minimum >= 0:
        unit = "item" if minimum == 1 else "items"
        detail = f"must have at least {minimum} {unit}"
    else:
        detail = "has too few items"
    return FieldError(ErrorType.TOO_FEW, str(path), actual, detail)


def too_short(path: Path | str, value: Any, min_length: int) -> FieldError:
    if min_length >= 0:
        unit = "character" if min_length == 1 else "characters"
        detail = f"must be at least {min_length} {unit}"
    else:
        detail = "value is too short"
    return FieldError(ErrorType.TOO_SHORT, str(path), value, detail)


def internal_error(path: Path | str, error: BaseException | str) -> FieldError:
    return FieldError(ErrorType.INTERNAL, str(path), OMIT, str(error))


def aggregate_message(errors: Iterable[FieldError]) -> str:
    """`ErrorList.ToAggregate().Error()`: de-duplicated, `[a, b]` when more than one."""
    seen: dict[str, None] = {}
    for err in errors:
        seen.setdefault(str(err), None)
    messages = list(seen)
    if not messages:
        return ""
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"
