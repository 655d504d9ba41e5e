"""Syntax-only checks with the portable engine, and the lexical nesting depth cel-go limits.

Used when the faithful engine is missing, and for expressions nested deeper than the faithful
engine's parser allows (32) but within cel-go's limit (250).
"""

from __future__ import annotations

import threading

CEL_GO_MAX_RECURSION_DEPTH = 250

_lock = threading.Lock()
_environment = None


def available() -> bool:
    try:
        import celpy  # noqa: F401
    except ImportError:
        return False
    return True


def _env():
    global _environment
    if _environment is None:
        with _lock:
            if _environment is None:
                import celpy  # building the parser tables takes ~0.1 s, so once per process

                _environment = celpy.Environment()
    return _environment


def nesting(expression: str) -> tuple[int, int]:
    """(deepest bracket nesting, offset where it first reaches cel-go's limit or -1), strings skipped."""
    deepest = level = 0
    at_limit = -1
    i, n = 0, len(expression)
    while i < n:
        ch = expression[i]
        if ch in "\"'":
            i = _skip_string(expression, i)
            continue
        if ch in "([{":
            level += 1
            if level > deepest:
                deepest = level
                if level == CEL_GO_MAX_RECURSION_DEPTH and at_limit < 0:
                    at_limit = i
        elif ch in ")]}":
            level = max(level - 1, 0)
        i += 1
    return deepest, at_limit


def _skip_string(text: str, i: int) -> int:
    quote = text[i]
    triple = text.startswith(quote * 3, i)
    raw = i > 0 and text[i - 1] in "rR"
    end_token = quote * 3 if triple else quote
    j = i + len(end_token)
    n = len(text)
    while j < n:
        if not raw and text[j] == "\\":
            j += 2
            continue
        if text.startswith(end_token, j):
            return j + len(end_token)
        if not triple and text[j] == "\n":
            return j
        j += 1
    return n


def syntax_error(expression: str) -> str | None:
    """The portable parser's complaint about `expression`, or None when it parses."""
    import celpy

    try:
        _env().compile(expression)
    except celpy.CELParseError as error:
        return f"ERROR: <input>: Syntax error: {str(error).strip()}"
    except RecursionError:
        return "ERROR: <input>: expression recursion limit exceeded"
    return None
