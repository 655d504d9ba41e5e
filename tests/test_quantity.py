"""resource.Quantity parsing, ported from apimachinery's TestQuantityParse and friends."""

from __future__ import annotations

from decimal import Decimal

import pytest

from webhook.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, QuantityError, parse_json_quantity, parse_quantity

MAX_ALLOWED = Decimal(2**63 - 1)


def dec(i, exponent) -> Decimal:
    return Decimal(i).scaleb(exponent)


PARSE = [
    ("0", dec(0, 0), DECIMAL_SI), ("0n", dec(0, 0), DECIMAL_SI), ("0u", dec(0, 0), DECIMAL_SI),
    ("0m", dec(0, 0), DECIMAL_SI), ("0Ki", dec(0, 0), BINARY_SI), ("0k", dec(0, 0), DECIMAL_SI),
    ("0Mi", dec(0, 0), BINARY_SI), ("0M", dec(0, 0), DECIMAL_SI), ("0Gi", dec(0, 0), BINARY_SI),
    ("0G", dec(0, 0), DECIMAL_SI), ("0Ti", dec(0, 0), BINARY_SI), ("0T", dec(0, 0), DECIMAL_SI),
    ("1", dec(1, 0), DECIMAL_SI),
    ("1Ki", dec(1024, 0), BINARY_SI), ("8Ki", dec(8 * 1024, 0), BINARY_SI), ("7Mi", dec(7 * 1024**2, 0), BINARY_SI),
    ("6Gi", dec(6 * 1024**3, 0), BINARY_SI), ("5Ti", dec(5 * 1024**4, 0), BINARY_SI),
    ("4Pi", dec(4 * 1024**5, 0), BINARY_SI), ("3Ei", dec(3 * 1024**6, 0), BINARY_SI),
    ("10Ti", dec(10 * 1024**4, 0), BINARY_SI), ("100Ti", dec(100 * 1024**4, 0), BINARY_SI),
    ("5n", dec(5, -9), DECIMAL_SI), ("4u", dec(4, -6), DECIMAL_SI), ("3m", dec(3, -3), DECIMAL_SI),
    ("9", dec(9, 0), DECIMAL_SI), ("8k", dec(8, 3), DECIMAL_SI), ("50k", dec(5, 4), DECIMAL_SI),
    ("7M", dec(7, 6), DECIMAL_SI), ("6G", dec(6, 9), DECIMAL_SI), ("5T", dec(5, 12), DECIMAL_SI),
    ("40T", dec(4, 13), DECIMAL_SI), ("300T", dec(3, 14), DECIMAL_SI), ("2P", dec(2, 15), DECIMAL_SI),
    ("1E", dec(1, 18), DECIMAL_SI),
    ("1E-3", dec(1, -3), DECIMAL_EXPONENT), ("1e3", dec(1, 3), DECIMAL_EXPONENT), ("1E6", dec(1, 6), DECIMAL_EXPONENT),
    ("1e9", dec(1, 9), DECIMAL_EXPONENT), ("1E12", dec(1, 12), DECIMAL_EXPONENT), ("1e15", dec(1, 15), DECIMAL_EXPONENT),
    ("1E18", dec(1, 18), DECIMAL_EXPONENT),
    ("1e14", dec(1, 14), DECIMAL_EXPONENT), ("1e13", dec(1, 13), DECIMAL_EXPONENT),
    ("100.035k", dec(100035, 0), DECIMAL_SI),
    ("0.001", dec(1, -3), DECIMAL_SI), ("0.0005k", dec(5, -1), DECIMAL_SI), ("0.005", dec(5, -3), DECIMAL_SI),
    ("0.05", dec(5, -2), DECIMAL_SI), ("0.5", dec(5, -1), DECIMAL_SI), ("0.00050k", dec(5, -1), DECIMAL_SI),
    ("0.00500", dec(5, -3), DECIMAL_SI), ("0.05000", dec(5, -2), DECIMAL_SI), ("0.50000", dec(5, -1), DECIMAL_SI),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT), ("0.5e-1", dec(5, -2), DECIMAL_EXPONENT),
    ("0.5e-2", dec(5, -3), DECIMAL_EXPONENT), ("10.035M", dec(10035, 3), DECIMAL_SI),
    ("1.2e3", dec(12, 2), DECIMAL_EXPONENT), ("1.3E+6", dec(13, 5), DECIMAL_EXPONENT),
    ("1.40e9", dec(14, 8), DECIMAL_EXPONENT), ("1.53E12", dec(153, 10), DECIMAL_EXPONENT),
    ("1.6e15", dec(16, 14), DECIMAL_EXPONENT), ("1.7E18", dec(17, 17), DECIMAL_EXPONENT),
    ("9.01", dec(901, -2), DECIMAL_SI), ("8.1k", dec(81, 2), DECIMAL_SI), ("7.123456M", dec(7123456, 0), DECIMAL_SI),
    ("6.987654321G", dec(6987654321, 0), DECIMAL_SI), ("5.444T", dec(5444, 9), DECIMAL_SI),
    ("40.1T", dec(401, 11), DECIMAL_SI), ("300.2T", dec(3002, 11), DECIMAL_SI), ("2.5P", dec(25, 14), DECIMAL_SI),
    ("1.01E", dec(101, 16), DECIMAL_SI),
    ("3.001n", dec(4, -9), DECIMAL_SI), ("1.1E-9", dec(2, -9), DECIMAL_EXPONENT),
    ("0.0000000001", dec(1, -9), DECIMAL_SI), ("0.0000000005", dec(1, -9), DECIMAL_SI),
    ("0.00000000050", dec(1, -9), DECIMAL_SI), ("0.5e-9", dec(1, -9), DECIMAL_EXPONENT),
    ("0.9n", dec(1, -9), DECIMAL_SI), ("0.00000012345", dec(124, -9), DECIMAL_SI),
    ("0.00000012354", dec(124, -9), DECIMAL_SI),
    ("9Ei", MAX_ALLOWED, BINARY_SI), ("9223372036854775807Ki", MAX_ALLOWED, BINARY_SI),
    ("12E", dec(12, 18), DECIMAL_SI),
    ("100.035Ki", dec(10243584, -2), BINARY_SI), ("0.5Mi", dec(int(0.5 * 1024 * 1024), 0), BINARY_SI),
    ("0.05Gi", dec(536870912, -1), BINARY_SI), ("0.025Ti", dec(274877906944, -1), BINARY_SI),
    ("0.000000000001Ki", dec(2, -9), DECIMAL_SI), (".001", dec(1, -3), DECIMAL_SI),
    (".0001k", dec(100, -3), DECIMAL_SI), ("1.", dec(1, 0), DECIMAL_SI), ("1.G", dec(1, 9), DECIMAL_SI),
]


@pytest.mark.parametrize("text, value, fmt", PARSE, ids=[p[0] for p in PARSE])
def test_parse(text, value, fmt):
    for prefix, sign in (("", 1), ("+", 1), ("-", -1)):
        q = parse_quantity(prefix + text)
        assert q.value == sign * value
        assert q.format == fmt


INVALID = ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "]


@pytest.mark.parametrize("text", INVALID, ids=[repr(t) for t in INVALID])
def test_parse_invalid(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize("x, y, expect", [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1),
                                          ("10000T", "100Gi", 1), ("1Ki", "1024", 0)])
def test_cmp(x, y, expect):
    assert parse_quantity(x).cmp(parse_quantity(y)) == expect


@pytest.mark.parametrize("text, canonical", [
    ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1000M", "1G"), ("0.5Mi", "512Ki"), ("100m", "100m"), ("0.1", "100m"),
    ("1.5", "1500m"), ("1e3", "1e3"), ("1000e-12", "1e-9"), ("1.5Gi", "1536Mi"), ("1024", "1024"), ("0.0", "0"),
    ("5000m", "5"), ("10.035M", "10.035M"), ("10.0350M", "10035k"), ("-1", "-1"),
])
def test_canonical_string(text, canonical):
    assert str(parse_quantity(text)) == canonical


@pytest.mark.parametrize("text, value", [("1", 1), ("1.5", 2), ("0.1", 1), ("1Ki", 1024), ("-1.5", -2),
                                         ("1.5Ki", 1536), ("-0.00000000000001", 1), ("0", 0)])
def test_value_rounds_up(text, value):
    assert parse_quantity(text).value_int() == value


def test_json_forms():
    assert parse_json_quantity(" 1Gi ").value == 1024**3
    assert parse_json_quantity(1.5).value == Decimal("1.5")
    assert parse_json_quantity(10).value == 10
    assert parse_json_quantity(None).value == 0
    assert parse_json_quantity("bogus") is None
    assert parse_json_quantity(True) is None


def test_add_keeps_format():
    assert str(parse_quantity("1Gi").add(parse_quantity("10Gi"))) == "11Gi"
    assert str(parse_quantity("0").add(parse_quantity("1Ki"))) == "1Ki"


def test_quirky_inputs_parse_as_go_does():
    assert parse_quantity(".").value == 0
    assert parse_quantity("-").value == 0
    assert str(parse_quantity("1.G")) == "1.G"
