"""cel-go's error list (`common/errors.go`, `common/error.go`) and the token sets its parser names.

Errors are kept in the order reported, at most 100 (`maxErrorsToReport`; later ones are only
counted); shown sorted by line and column (stable; an error without a location, line -1, first),
each with its source line and a caret under its column, then "N more errors were truncated".
Kubernetes sets none of the parser's limits, so cel-go's defaults apply: 100 errors shown, 100
syntax errors reported (`ErrorReportingLimit`; the 101st says "More than 100 syntax errors" and
ends the parse).
"""

from __future__ import annotations

MAX_ERRORS_TO_REPORT = 100  # common.NewErrors maxErrorsToReport
ERROR_REPORTING_LIMIT = 100  # parser.NewParser errorReportingLimit default
MAX_SNIPPET_LENGTH = 16384  # error.go maxSnippetLength, in bytes

# ANTLR's names of the tokens an operand position may expect, in its token-type order (CEL.g4), keyed by
# this lexer's token kinds.
_NAMES = {"[": "'['", "]": "']'", "{": "'{'", "}": "'}'", "(": "'('", ")": "')'", ".": "'.'", ",": "','",
          "-": "'-'", "!": "'!'", "?": "'?'", "true": "'true'", "false": "'false'", "null": "'null'",
          "NUM_FLOAT": "NUM_FLOAT", "NUM_INT": "NUM_INT", "NUM_UINT": "NUM_UINT", "STRING": "STRING",
          "BYTES": "BYTES", "IDENTIFIER": "IDENTIFIER"}
# What can start an operand.
OPERAND = frozenset(("[", "{", "(", ".", "-", "!", "true", "false", "null", "NUM_FLOAT", "NUM_INT", "NUM_UINT",
                     "STRING", "BYTES", "IDENTIFIER"))


def expecting(*extra: str) -> tuple[frozenset, str]:
    """The token kinds an operand position accepts, with `extra` (say `)` before a call's first
    argument), and ANTLR's "{...}" text for them."""
    kinds = OPERAND | frozenset(extra)
    return kinds, "{" + ", ".join(name for kind, name in _NAMES.items() if kind in kinds) + "}"


class ErrorList:
    """common.Errors: every report counted, the first 100 kept; and the parser's syntax-error count."""

    reporting_limit = ERROR_REPORTING_LIMIT

    def __init__(self) -> None:
        self.kept: list[tuple[int | None, str]] = []
        self.count = 0
        self.syntax_reports = 0

    def report(self, offset: int | None, message: str) -> None:
        self.count += 1
        if self.count <= MAX_ERRORS_TO_REPORT:
            self.kept.append((offset, message))

    def syntax_report(self) -> bool:
        """Whether one more syntax error may be reported (parser.go SyntaxError's errorReports)."""
        if self.syntax_reports >= self.reporting_limit:
            return False
        self.syntax_reports += 1
        return True


def location(text: str, offset: int) -> tuple[int, int]:
    """cel-go's 1-based line and code point column of `offset`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def display(text: str, errors, count: int | None = None) -> str:
    """Errors.ToDisplayString: `errors` ((offset or None, message), in report order) sorted by location,
    each as Error.ToDisplayString shows it; `count` errors were reported in all."""
    count = len(errors) if count is None else count
    placed = []
    for offset, message in errors[:MAX_ERRORS_TO_REPORT]:
        line, column = location(text, offset) if offset is not None else (-1, 0)
        placed.append((line, column, offset, message))
    placed.sort(key=lambda e: (e[0], e[1]))  # sort.SliceStable; NoLocation is line -1
    lines = [_one(text, line, column, offset, message) for line, column, offset, message in placed]
    if count > MAX_ERRORS_TO_REPORT:
        lines.append(f"{count - MAX_ERRORS_TO_REPORT} more errors were truncated")
    return "\n".join(lines)


def _one(text: str, line: int, column: int, offset: int | None, message: str) -> str:
    shown = f"ERROR: <input>:{line}:{column}: {message}"
    if offset is None:
        return shown
    begin = text.rfind("\n", 0, offset) + 1  # source.Snippet(line): the line holding the error
    end = text.find("\n", offset)
    snippet = text[begin:end if end >= 0 else len(text)]
    if len(snippet.encode("utf-8", "surrogatepass")) > MAX_SNIPPET_LENGTH:
        return shown
    snippet = snippet.replace("\t", " ")
    marks = "".join("\uff0e" if len(ch.encode("utf-8", "surrogatepass")) > 1 else "." for ch in snippet[:column - 1])
    here = snippet[column - 1:column]
    marks += "\uff3e" if here and len(here.encode("utf-8", "surrogatepass")) > 1 else "^"
    return f"{shown}\n | {snippet}\n | {marks}"
