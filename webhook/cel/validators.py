"""Compile-time checks cel-go runs that the faithful engine's compiler does not.

Kubernetes' base environment adds cel-go AST validators (duration, timestamp and regex literals,
homogeneous aggregate literals, and the strings extension's check of `format` calls: `formatcheck`).
With list-type attributes off, attribute values are `any`, which cel-go refuses as a comprehension
range. Each issue is rendered like a cel-go issue.
"""

from __future__ import annotations

import re
from datetime import datetime

from webhook.cel.checked import CALL, COMPREHENSION, LIST, LITERAL, MAP, CheckedAst, Expr, children, type_name
from webhook.cel.formatcheck import format_call_issues
from webhook.cel.gotyping import ANY, go_types
from webhook.cel.sizes import DeviceSizes

_EXEMPT_FROM_HOMOGENEITY = ("format",)  # cel-go exempts string.format() arguments
_DURATION = re.compile(r"[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+|[-+]?0")
_MAX_DURATION_SECONDS = 315576000000  # CEL's +/- 10000 years




def _exempt_ids(ast: CheckedAst) -> set[int]:
    """Ids of the nodes below a `format` call (rare: walked only when there is one)."""
    ids: set[int] = set()
    stack = [c for n in ast.notable if n.kind == CALL and n.value in _EXEMPT_FROM_HOMOGENEITY for c in children(n)]
    while stack:
        node = stack.pop()
        if node.id not in ids:
            ids.add(node.id)
            stack.extend(children(node))
    return ids


def _regex_ok(pattern: str) -> bool:
    try:
        import re2  # the RE2 dialect Go's regexp implements
    except ImportError:  # pragma: no cover - re2 ships with the fallback engine's dependencies
        try:
            re.compile(pattern)
        except re.error:
            return False
        return True
    options = re2.Options()
    options.log_errors = False  # a bad pattern is the user's error, not a log line
    try:
        re2.compile(pattern, options)
    except Exception:
        return False
    return True


def _duration_ok(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DURATION.fullmatch(value):
        return False
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    terms = re.findall(r"((\d+(\.\d*)?|\.\d+))(ns|us|µs|μs|ms|s|m|h)", value)
    seconds = sum(float(n) * units[u] for n, _, _, u in terms)
    return seconds <= _MAX_DURATION_SECONDS


def _timestamp_ok(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})", value):
        return False
    try:
        datetime.fromisoformat(re.sub(r"\.\d+", "", value).replace("z", "Z").replace("t", "T").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _equivalent(a: tuple, b: tuple) -> bool:
    return a == b


def find_issues(ast: CheckedAst, sizes: DeviceSizes, attribute_values_are_any: bool,
                attribute_paths: dict[int, list[str]]) -> list[tuple[int, str]]:
    """Returns (node id, message) for each cel-go issue, in cel-go's order of validators."""
    issues: list[tuple[int, str]] = []
    notable = ast.notable  # pre-order, as cel-go's validators visit
    if not notable:
        return issues
    calls = [n for n in notable if n.kind == CALL]
    for name, check in (("duration", _duration_ok), ("timestamp", _timestamp_ok)):
        for call in calls:
            if call.value == name and call.args and call.args[0].kind == LITERAL and not check(call.args[0].value):
                issues.append((call.args[0].id, f"invalid {name} argument"))
    for call in calls:
        if call.value == "matches" and call.args and call.args[0].kind == LITERAL \
                and isinstance(call.args[0].value, str) and not _regex_ok(call.args[0].value):
            issues.append((call.args[0].id, "invalid matches argument"))
    exempt = _exempt_ids(ast) if calls else ()

    def is_attribute_value(e: Expr) -> bool:
        return sizes.resolve(attribute_paths.get(e.id)) is sizes.attribute

    joined: dict | None = None  # cel-go's types where an attribute value (`any`) reaches (gotyping)

    def type_of(e: Expr) -> tuple:
        nonlocal joined
        if not attribute_values_are_any or e.kind == LITERAL:  # (a literal is typed alike in both)
            return ast.type_of(e)
        if is_attribute_value(e):
            return ANY
        if joined is None:
            joined = go_types(ast, is_attribute_value)
        return joined.get(e.id) or ast.type_of(e)

    for node in notable:
        if node.kind != LIST or len(node.args) < 2 or node.id in exempt:
            continue
        first = type_of(node.args[0])
        for elem in node.args[1:]:
            t = type_of(elem)
            if not _equivalent(first, t):
                issues.append((elem.id, f"expected type '{_render(first)}' but found '{_render(t)}'"))
                break
    for node in notable:
        if node.kind != MAP or len(node.entries) < 2 or node.id in exempt:
            continue
        (key, value), *rest = node.entries
        key_type, val_type = type_of(key), type_of(value)
        for key, value in rest:
            kt, vt = type_of(key), type_of(value)
            if not _equivalent(key_type, kt):
                issues.append((key.id, f"expected type '{_render(key_type)}' but found '{_render(kt)}'"))
            if not _equivalent(val_type, vt):
                issues.append((value.id, f"expected type '{_render(val_type)}' but found '{_render(vt)}'"))
    if any(n.kind == CALL and n.value == "format" for n in calls):
        issues += format_call_issues(ast, type_of)
    if attribute_values_are_any:
        for node in notable:
            if node.kind == COMPREHENSION and is_attribute_value(node.iter_range):
                issues.append((node.iter_range.id, "expression of type 'any' cannot be the range of a "
                               "comprehension (must be list, map, or dynamic)"))
    return issues


def _render(t: tuple) -> str:
    return type_name(t)


def format_issues(expression: str, ast: CheckedAst, issues: list[tuple[int, str]]) -> str:
    """cel-go's Issues.String(): `ERROR: <input>:line:col: message` plus the source snippet."""
    lines = expression.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    rendered = []
    for node_id, message in issues:
        offset = ast.positions.get(node_id, 0)
        line_no = max(i for i, s in enumerate(starts) if s <= offset) if starts else 0
        column = offset - starts[line_no]
        line = lines[line_no].replace("\t", " ")
        # cel-go marks a character of more than one UTF-8 byte with a wide dot or caret.
        dots = "".join("\uff0e" if ch > "\x7f" else "." for ch in line[:column])
        caret = "\uff3e" if column < len(line) and line[column] > "\x7f" else "^"
        rendered.append(f"ERROR: <input>:{line_no + 1}:{column + 1}: {message}\n | {line}\n | {dots}{caret}")
    return "\n".join(rendered)
