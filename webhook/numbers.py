"""Whole numbers written as text by a user, read within bounds: the one place where user digits become an int.

Python's `int()` refuses text of more than 4,300 digits with a ValueError (and costs quadratic time below
that); `str.isdigit()` says yes to '²' and '٣', which `int()` then reads or refuses. Go's strconv, whose
answers we reproduce, reads ASCII digits only and stops at the type's range. Every numeric text from an
input (a quantity's exponent, a document index `x.yaml#3`, a resourceVersion, a selector's Gt value, a
semver part, a header) goes through `parse_decimal` first, which looks at each character once and never
converts more than `max_digits` significant digits.
"""

from __future__ import annotations

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
_ASCII_DIGITS = frozenset("0123456789")


def parse_decimal(text: str, *, signed: bool = False, max_digits: int = 19) -> int | None:
    """The integer `text` spells in ASCII decimal digits (after a '+' or '-' with `signed`), or None: not
    such a text, or more than `max_digits` significant digits (leading zeros do not count, as strconv's
    ParseInt does not count them). Linear in the length of `text`."""
    if not isinstance(text, str):
        return None
    body = text[1:] if signed and text[:1] in "+-" else text
    if not body or not _ASCII_DIGITS.issuperset(body):
        return None
    significant = body.lstrip("0") or "0"
    if len(significant) > max_digits:
        return None
    value = int(significant)
    return -value if text[:1] == "-" and signed else value


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): None for anything it refuses (syntax or range)."""
    value = parse_decimal(text, signed=True, max_digits=19)
    return value if value is not None and INT64_MIN <= value <= INT64_MAX else None


def parse_uint64(text: str) -> int | None:
    """strconv.ParseUint(text, 10, 64): None for anything it refuses (syntax or range)."""
    value = parse_decimal(text, max_digits=20)
    return value if value is not None and value <= UINT64_MAX else None
