"""Kubernetes resource.Quantity: parsing, exact comparison and arithmetic, canonical form.

Mirrors apimachinery's pkg/api/resource (v0.36): `ParseQuantity` with all its quirks (leading
zeros stripped, "1." and "." accepted, values rounded away from zero to 1n, binary values capped
at 2^63-1), `Cmp`, `Add`, `Sign`, `Value()` (rounded up) and `String()` (the canonical form, or the
input itself when the input already was canonical).

Values are held as exact `Decimal`s. Go keeps two representations (an int64 with a decimal scale,
or an arbitrary-precision decimal); only `Value()` of negative fractions and `String()` can tell
them apart, so the representation chosen by the parser is remembered in `is_int64`.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from functools import lru_cache
from typing import Any

from webhook.numbers import INT64_MAX, INT64_MIN, parse_int64

DECIMAL_EXPONENT = "DecimalExponent"
BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"

MAX_INT64_FACTORS = 18
NANO_SCALE = -9

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_FOR = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_FOR = {e: s for s, e in _BINARY_SUFFIXES.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_GO_SPACE = " \t\n\v\f\r\x85\xa0"

# Exact arithmetic: a precision far beyond anything a request body can carry.
_CTX = decimal.Context(prec=100_000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                       traps=[decimal.InvalidOperation, decimal.DivisionByZero])
_NANO = Decimal("1e-9")
_ZERO = Decimal(0)


# Go's ErrFormatWrong.
_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class QuantityError(ValueError):
    """The string is not a quantity (Go's ErrFormatWrong / ErrSuffix / ErrNumeric)."""


class Quantity:
    """An immutable parsed quantity."""

    __slots__ = ("value", "format", "is_int64", "_s")

    def __init__(self, value: Decimal, fmt: str = DECIMAL_SI, is_int64: bool = True, s: str = "") -> None:
        self.value = value
        self.format = fmt
        self.is_int64 = is_int64
        self._s = s

    # Comparison and arithmetic -------------------------------------------------------------

    def cmp(self, other: Quantity) -> int:
        a, b = self.value, other.value
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __gt__(self, other: Quantity) -> bool:
        return self.value > other.value

    def __ge__(self, other: Quantity) -> bool:
        return self.value >= other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def is_zero(self) -> bool:
        return self.value == 0

    def add(self, other: Quantity) -> Quantity:
        """Go's Add: the result keeps this quantity's format (the other's when this one is zero)."""
        fmt = other.format if self.is_zero() else self.format
        return Quantity(_CTX.add(self.value, other.value), fmt, self.is_int64 and other.is_int64)

    def value_int(self) -> int:
        """Go's Value(): the integer value, rounded up.

        Positive fractions round up. Negative fractions round away from zero for int64-backed
        quantities and towards zero plus one for decimal-backed ones, as the Go code does.
        """
        v = self.value
        if v == v.to_integral_value(rounding=decimal.ROUND_DOWN):
            return _int_of(v)
        truncated = _int_of(v.to_integral_value(rounding=decimal.ROUND_DOWN))
        if v > 0 or not self.is_int64:
            return truncated + 1
        return truncated - 1

    # Rendering -------------------------------------------------------------------------------

    def __str__(self) -> str:
        if not self._s:
            self._s = _canonical(self)
        return self._s

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _int_of(v: Decimal) -> int:
    # Values beyond int64 overflow in Go; saturate instead of building enormous integers.
    if v.adjusted() > 30:
        return INT64_MAX if v > 0 else INT64_MIN
    return int(v)


def _parse_quantity_string(s: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: (positive, value, num, denom, suffix); raises on a bad exponent."""
    positive = True
    pos, end = 0, len(s)
    if s[0] == "-":
        positive = False
        pos = 1
    elif s[0] == "+":
        pos = 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos]
    if pos >= end:
        return positive, s, num, "", ""
    if not num:
        num = "0"
    denom = ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos >= end:
            return positive, s, num, denom, ""
    value = s[:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    if s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    raise QuantityError(_FORMAT_WRONG)


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix; raises for unknown suffixes."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = parse_int64(suffix[1:])  # strconv.ParseInt(suffix[1:], 10, 64), digits bounded
        if parsed is not None:
            wrapped = (parsed + 2**31) % 2**32 - 2**31  # Go's int32(parsed)
            return 10, wrapped, DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


@lru_cache(maxsize=8192)
def parse_quantity(s: str) -> Quantity:
    """Go's ParseQuantity (no whitespace allowed). Raises QuantityError."""
    if not s:
        raise QuantityError(_FORMAT_WRONG)
    if s == "0":
        return Quantity(_ZERO, DECIMAL_SI, True, "0")
    positive, value, num, denom, suf = _parse_quantity_string(s)
    base, exponent, fmt = _interpret(suf)

    precision, scale, mantissa = 0, 0, 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        scale = exponent
        precision = MAX_INT64_FACTORS - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1

    if precision >= 0:
        scale -= len(denom)
        if scale >= NANO_SCALE:
            shifted = num + denom
            result = int(shifted) * mantissa
            if result <= INT64_MAX:
                if not positive:
                    result = -result
                keep = ""
                if fmt == BINARY_SI:
                    if exponent % 10 == 0 and int(shifted) & 0x07 != 0:
                        keep = s
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    keep = s
                return Quantity(Decimal(result).scaleb(scale, _CTX), fmt, True, keep)

    try:
        amount = Decimal(value)
    except decimal.InvalidOperation:
        raise QuantityError("unable to parse quantity's numeric part") from None
    if not amount.is_finite():
        raise QuantityError("unable to parse quantity's numeric part")
    if base == 10:
        amount = amount.scaleb(exponent, _CTX)
    else:
        amount = _CTX.multiply(amount, Decimal(1 << exponent))
    negative = amount < 0
    amount = amount.copy_abs()  # exact: abs() would round in the default context and overflow
    if amount != 0 and amount.as_tuple().exponent < NANO_SCALE:  # type: ignore[operator]
        amount = amount.quantize(_NANO, rounding=decimal.ROUND_UP, context=_CTX)
    if fmt == BINARY_SI and amount > INT64_MAX:
        amount = Decimal(INT64_MAX)
    if fmt == BINARY_SI and 0 < amount < 1:
        fmt = DECIMAL_SI
    if negative:
        amount = amount.copy_negate()
    return Quantity(amount, fmt, False, "")


def check_json_quantity(raw: Any) -> Any:
    """The wire models' quantity check (kept here, free of pydantic, so that cached validators can refer
    to it without importing the models)."""
    error = json_quantity_error(raw)
    if error is not None:
        raise ValueError(error)
    return raw


def json_quantity_error(raw: Any) -> str | None:
    """What Go's Quantity.UnmarshalJSON returns for a JSON value: ParseQuantity's error for its text
    (an object, array or bool is text that never parses); None when it parses."""
    if parse_json_quantity(raw) is not None:
        return None
    if isinstance(raw, str):
        try:
            parse_quantity(raw.strip(_GO_SPACE))
        except QuantityError as exc:
            return str(exc)
    return _FORMAT_WRONG


def parse_json_quantity(raw: Any) -> Quantity | None:
    """A quantity as it arrives in JSON (string or number; surrounding space trimmed, as Go's
    UnmarshalJSON does). None when it does not parse; JSON null is the zero quantity."""
    if raw is None:
        return Quantity(_ZERO)
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        text = str(raw)
    elif isinstance(raw, float):
        text = repr(raw)
        if text in ("inf", "-inf", "nan"):
            return None
    elif isinstance(raw, str):
        text = raw.strip(_GO_SPACE)
    else:
        return None
    try:
        return parse_quantity(text)
    except QuantityError:
        return None


def _canonical(q: Quantity) -> str:
    """CanonicalizeBytes: mantissa plus suffix."""
    if q.value == 0:
        return "0"
    fmt = q.format
    if fmt == BINARY_SI:
        if -1024 < q.value < 1024 or q.value != q.value.to_integral_value():
            fmt = DECIMAL_SI
        else:
            amount, exp = int(q.value), 0
            while amount % 1024 == 0:
                amount //= 1024
                exp += 1
            return str(amount) + _BINARY_SUFFIX_FOR.get(exp * 10, "")
    sign, digits, exponent = q.value.as_tuple()
    coefficient = int("".join(map(str, digits)))
    exp = int(exponent)
    while coefficient % 10 == 0:
        coefficient //= 10
        exp += 1
    shift = exp % 3
    coefficient *= 10**shift
    exp -= shift
    number = ("-" if sign else "") + str(coefficient)
    if fmt == DECIMAL_EXPONENT:
        return number + (f"e{exp}" if exp else "")
    return number + _DECIMAL_SUFFIX_FOR.get(exp, "")
