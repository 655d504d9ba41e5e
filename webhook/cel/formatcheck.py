"""cel-go's static check of `"...".format([...])` (ext/formatting.go, stringFormatValidator).

The strings extension adds it to Kubernetes' base environment from version 1 on (selectors use
version 2, the same check in cel-go 0.26 and 0.29). It applies to a call of `format` on a string
literal whose one argument is a list literal: each clause of the format string is parsed as cel-go
parses it and checked against the type of the list element it formats; unused elements are an error
too. Attribute values are `any` there unless list-type attributes are on (`any` fits no clause).
"""

from __future__ import annotations

from collections.abc import Callable

from webhook.cel.checked import CALL, LIST, LITERAL, MAP, CheckedAst, Expr

_MAX_INT = (1 << 63) - 1  # strconv.Atoi on a 64-bit platform
# Clause letter -> the kinds it formats and cel-go's complaint about anything else.
_CLAUSES: dict[str, tuple[frozenset[str], str]] = {
    "d": (frozenset({"int", "uint"}), "decimal clause can only be used on integers"),
    "f": (frozenset({"double", "string"}), "fixed-point clause can only be used on doubles"),
    "e": (frozenset({"double", "string"}), "scientific clause can only be used on doubles"),
    "b": (frozenset({"int", "uint", "bool"}), "only integers and bools can be formatted as binary"),
    "x": (frozenset({"int", "uint", "string", "bytes"}),
          "only integers, byte buffers, and strings can be formatted as hex"),
    "o": (frozenset({"int", "uint"}), "octal clause can only be used on integers"),
}
_CLAUSES["X"] = _CLAUSES["x"]
_STRING_KINDS = frozenset({"list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration",
                           "type", "null"})
_STRING_COMPLAINT = ("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                     "durations, and timestamps")
_GO_NAMES = {"timestamp": "google.protobuf.Timestamp", "duration": "google.protobuf.Duration",
             "any": "google.protobuf.Any", "null": "null_type"}


def _go_type_name(t: tuple) -> str:
    """cel-go's Type.TypeName(): list and map without parameters."""
    if t[0] in ("message", "abstract", "param"):
        return t[1]
    return _GO_NAMES.get(t[0], t[0])


def _is_format_call(ast: CheckedAst, e: Expr) -> bool:
    if e.kind != CALL or e.value != "format" or e.operand is None or len(e.args) != 1:
        return False
    overloads = ast.overloads(e.id)
    if overloads and "string_format" not in overloads:
        return False
    target = e.operand
    return target.kind == LITERAL and isinstance(target.value, str) and e.args[0].kind == LIST


def _string_problem(e: Expr, type_of: Callable[[Expr], tuple]) -> Expr | None:
    """verifyString: the node whose type a string clause cannot format, or None."""
    kind = type_of(e)[0]
    if kind != "dyn" and kind not in _STRING_KINDS:
        return e
    children: list = []
    if e.kind == LIST:
        children = list(e.args)
    elif e.kind == MAP:
        children = [part for entry in e.entries for part in entry]
    for child in children:
        bad = _string_problem(child, type_of)
        if bad is not None:
            return bad
    return None


def _clause_problem(letter: str, arg: Expr, type_of: Callable[[Expr], tuple]) -> tuple[Expr, str] | None:
    if letter == "s":
        bad = _string_problem(arg, type_of)
        return None if bad is None else (bad, _STRING_COMPLAINT)
    kinds, complaint = _CLAUSES[letter]
    kind = type_of(arg)[0]
    return None if kind == "dyn" or kind in kinds else (arg, complaint)


def check_format_call(call: Expr, type_of: Callable[[Expr], tuple]) -> tuple[int, str] | None:
    """(node id, message) of cel-go's first complaint about one matched `format` call, or None."""
    text = call.operand.value.encode("utf-8", "surrogatepass")  # cel-go walks the bytes
    args = call.args[0].args
    i = arg_index = requested = 0
    while i < len(text):
        if text[i] != 0x25:  # '%'
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == 0x25:
            i += 2
            continue
        requested += 1
        if i + 1 >= len(text):
            return call.id, "unexpected end of string"
        if arg_index >= len(args):
            return call.id, f"index {arg_index} out of range"
        j = i + 1
        if text[j] == 0x2E:  # '.': a precision
            j += 1
            start = j
            while True:
                if j >= len(text):
                    return call.id, ("could not parse formatting clause: error while parsing precision: "
                                     "could not find end of precision specifier")
                if not 0x30 <= text[j] <= 0x39:
                    break
                j += 1
            digits = text[start:j].decode("ascii")
            significant = digits.lstrip("0")
            if not digits or len(significant) > 19 or int(significant or "0") > _MAX_INT:  # no huge int()
                why = "invalid syntax" if not digits else "value out of range"
                return call.id, ("could not parse formatting clause: error while parsing precision: error while "
                                 f'converting precision to integer: strconv.Atoi: parsing "{digits}": {why}')
        letter = chr(text[j])
        if letter != "s" and letter not in _CLAUSES:
            return call.id, f'could not parse formatting clause: unrecognized formatting clause "{letter}"'
        problem = _clause_problem(letter, args[arg_index], type_of)
        if problem is not None:
            bad, complaint = problem
            return bad.id, f"error during formatting: {complaint}, was given {_go_type_name(type_of(bad))}"
        i = j + 1
        arg_index += 1
    if len(args) > requested:
        return call.id, f"too many arguments supplied to string.format (expected {requested}, got {len(args)})"
    return None


def format_call_issues(ast: CheckedAst, type_of: Callable[[Expr], tuple]) -> list[tuple[int, str]]:
    """One issue per matched `format` call with a problem, in the validator's (pre-)order."""
    issues = []
    for node in ast.notable:
        if _is_format_call(ast, node):
            issue = check_format_call(node, type_of)
            if issue is not None:
                issues.append(issue)
    return issues
