"""A linear-time lexer of cel-go's token grammar (cel-go v0.26 `parser/gen/CEL.g4`, lexer rules).

Hand-written so that no backtracking regular expression ever sees tenant text: every character is
looked at a bounded number of times. The only `re` patterns used are single character-class runs.
Where ANTLR cannot lex, an ERROR token says so (cel-go: "token recognition error at: '...'", the text
up to and with the character it failed on); like ANTLR's lexer, lexing goes on after that character.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Token kinds besides the punctuation and keywords, which are their own text.
INT, UINT, FLOAT, STRING, BYTES = "NUM_INT", "NUM_UINT", "NUM_FLOAT", "STRING", "BYTES"
IDENT, ESC_IDENT, EOF, ERROR = "IDENTIFIER", "ESC_IDENTIFIER", "EOF", "ERROR"
# The parser stops at its 101st syntax error (lexer errors count), so lexing stops there too.
MAX_ERRORS = 101
KEYWORDS = {"true": "true", "false": "false", "null": "null", "in": "in"}

_TWO_CHAR = ("==", "!=", "<=", ">=", "&&", "||")
_ONE_CHAR = frozenset("<>[]{}().,-!?:+*/%")

# Single character-class runs: linear, nothing to backtrack into.
_IDENT_TAIL = re.compile(r"[A-Za-z0-9_]*")
_DIGITS = re.compile(r"[0-9]*")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]*")
_SPACE = re.compile(r"[\t \r\n\f]*")
_ESC_IDENT_BODY = re.compile(r"[A-Za-z0-9_./ -]*")

_SIMPLE_ESCAPES = frozenset("abfnrtv\"'\\?`")
_HEX = frozenset("0123456789abcdefABCDEF")


class Token(NamedTuple):
    kind: str
    start: int  # code point offsets into the expression
    end: int  # ERROR tokens: where lexing goes on
    message: str = ""  # ERROR tokens only


def tokens(text: str) -> list[Token]:
    """All tokens of `text` (whitespace and comments dropped), ERROR tokens among them, ending with EOF."""
    out: list[Token] = []
    i, n = 0, len(text)
    errors = 0
    while True:
        i = _SPACE.match(text, i).end()
        if text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if i >= n:
            out.append(Token(EOF, n, n))
            return out
        token = _one(text, i)
        out.append(token)
        if token.kind == ERROR:
            errors += 1
            if errors >= MAX_ERRORS:
                out.append(Token(EOF, n, n))
                return out
        i = token.end


def _error(text: str, start: int, end: int) -> Token:
    """ANTLR's lexer error: the text from `start` through the character it failed on (`end` is past it),
    and lexing goes on after that character (Lexer.Recover consumes it)."""
    end = min(max(end, start + 1), len(text))
    return Token(ERROR, start, end, f"token recognition error at: '{text[start:end]}'")


def _one(text: str, i: int) -> Token:
    c = text[i]
    two = text[i:i + 2]
    if two in _TWO_CHAR:
        return Token(two, i, i + 2)
    if c == "." and i + 1 < len(text) and text[i + 1].isascii() and text[i + 1].isdigit():
        return _number(text, i)
    if c in _ONE_CHAR:
        return Token(c, i, i + 1)
    if c.isascii() and c.isdigit():
        return _number(text, i)
    if c in "\"'":
        return _string(text, i, i, STRING)
    if c in "rR" and i + 1 < len(text) and text[i + 1] in "\"'":
        return _string(text, i, i + 1, STRING, raw=True)
    if c in "bB" and i + 1 < len(text):
        nxt = text[i + 1]
        if nxt in "\"'":
            return _string(text, i, i + 1, BYTES)
        if nxt in "rR" and i + 2 < len(text) and text[i + 2] in "\"'":
            return _string(text, i, i + 2, BYTES, raw=True)
    if c == "_" or (c.isascii() and c.isalpha()):
        end = _IDENT_TAIL.match(text, i + 1).end()
        word = text[i:end]
        return Token(KEYWORDS.get(word, IDENT), i, end)
    if c == "`":
        end = _ESC_IDENT_BODY.match(text, i + 1).end()
        if end > i + 1 and end < len(text) and text[end] == "`":
            return Token(ESC_IDENT, i, end + 1)
        return _error(text, i, end + 1)
    # `=`, `&` and `|` begin `==`, `&&` and `||`: ANTLR's lexer shows the character it failed on too
    return _error(text, i, i + 2 if c in "=&|" and i + 1 < len(text) else i + 1)


def _number(text: str, i: int) -> Token:
    """NUM_INT, NUM_UINT or NUM_FLOAT by ANTLR's longest match."""
    n = len(text)
    if text.startswith("0x", i):
        end = _HEX_DIGITS.match(text, i + 2).end()
        if end > i + 2:
            if end < n and text[end] in "uU":
                return Token(UINT, i, end + 1)
            return Token(INT, i, end)
        return Token(INT, i, i + 1)  # `0` then an identifier `x...`
    end = _DIGITS.match(text, i).end()
    is_float = False
    if end == i:  # '.' DIGIT+
        end = _DIGITS.match(text, i + 1).end()
        is_float = True
    elif end + 1 < n and text[end] == "." and text[end + 1].isascii() and text[end + 1].isdigit():
        end = _DIGITS.match(text, end + 1).end()
        is_float = True
    exponent = _exponent(text, end)
    if exponent > end:
        return Token(FLOAT, i, exponent)
    if is_float:
        return Token(FLOAT, i, end)
    if end < n and text[end] in "uU":
        return Token(UINT, i, end + 1)
    return Token(INT, i, end)


def _exponent(text: str, i: int) -> int:
    """End of an EXPONENT at `i`, or `i` when there is none."""
    if i >= len(text) or text[i] not in "eE":
        return i
    j = i + 1
    if j < len(text) and text[j] in "+-":
        j += 1
    end = _DIGITS.match(text, j).end()
    return end if end > j else i


def _string(text: str, start: int, quote_at: int, kind: str, raw: bool = False) -> Token:
    """A STRING or BYTES token; `quote_at` is the opening quote (after any prefix)."""
    n = len(text)
    quote = text[quote_at]
    if text.startswith(quote * 3, quote_at):
        end = _triple(text, quote_at + 3, quote * 3, raw)
        if end >= 0:
            return Token(kind, start, end)
        # ANTLR falls back to the longest token it had: the empty string `""`; the third quote
        # starts another string.
        return Token(kind, start, quote_at + 2)
    j = quote_at + 1
    while j < n:
        ch = text[j]
        if ch == quote:
            return Token(kind, start, j + 1)
        if ch in "\n\r":
            break
        if ch == "\\" and not raw:
            k = _escape(text, j)
            if k < 0:
                return _error(text, start, j + 2)
            j = k
            continue
        j += 1
    return _error(text, start, j + 1)  # through the line break it failed on (or to the end)


def _triple(text: str, j: int, closing: str, raw: bool) -> int:
    """End of a triple-quoted body starting at `j` (non-greedy), or -1."""
    n = len(text)
    while j < n:
        if text.startswith(closing, j):
            return j + 3
        if text[j] == "\\" and not raw:
            k = _escape(text, j)
            if k < 0:
                return -1
            j = k
            continue
        j += 1
    return -1


def _escape(text: str, j: int) -> int:
    """End of the ESC_SEQ at `j` (a backslash), or -1 when it is not one."""
    n = len(text)
    if j + 1 >= n:
        return -1
    c = text[j + 1]
    if c in _SIMPLE_ESCAPES:
        return j + 2
    if c in "xX":
        return j + 4 if _hex_run(text, j + 2, 2) else -1
    if c == "u":
        return j + 6 if _hex_run(text, j + 2, 4) else -1
    if c == "U":
        return j + 10 if _hex_run(text, j + 2, 8) else -1
    if c in "0123" and j + 3 < n and text[j + 2] in "01234567" and text[j + 3] in "01234567":
        return j + 4
    return -1


def _hex_run(text: str, j: int, count: int) -> bool:
    return j + count <= len(text) and all(ch in _HEX for ch in text[j:j + count])
