"""cel-go's saturating uint64 size and cost arithmetic (checker/cost.go), on (min, max) tuples.

Go's float64 rounding is reproduced exactly: Python floats are IEEE doubles too.
"""

from __future__ import annotations

import math

MAX_UINT64 = (1 << 64) - 1
_FLOAT_MAX_UINT64 = float(MAX_UINT64)  # Go converts the constant to float64 the same way
_TWO_TO_64 = math.ldexp(1.0, 64)

Estimate = tuple[int, int]  # (min, max); used for both sizes and costs

UNKNOWN: Estimate = (0, MAX_UINT64)
ZERO: Estimate = (0, 0)
ONE: Estimate = (1, 1)

# common/cost.go
SELECT_AND_IDENT_COST = 1
CONST_COST = 0
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25


def fixed(n: int) -> Estimate:
    return (n, n)


def _add(x: int, y: int) -> int:
    s = x + y
    return MAX_UINT64 if s > MAX_UINT64 else s


def _mul(x: int, y: int) -> int:
    p = x * y
    return MAX_UINT64 if p > MAX_UINT64 else p


def _by_factor(x: int, factor: float) -> int:
    xf = float(x)
    if xf > 0 and factor > 0 and xf > _FLOAT_MAX_UINT64 / factor:
        return MAX_UINT64
    ceil = math.ceil(xf * factor)
    if ceil >= _TWO_TO_64:
        return MAX_UINT64
    return int(ceil)


def add(a: Estimate, b: Estimate) -> Estimate:
    return (_add(a[0], b[0]), _add(a[1], b[1]))


def multiply(a: Estimate, b: Estimate) -> Estimate:
    return (_mul(a[0], b[0]), _mul(a[1], b[1]))


def by_factor(a: Estimate, factor: float) -> Estimate:
    return (_by_factor(a[0], factor), _by_factor(a[1], factor))


def union(a: Estimate, b: Estimate) -> Estimate:
    return (min(a[0], b[0]), max(a[1], b[1]))


def total(costs) -> Estimate:
    result = ZERO
    for c in costs:
        result = add(result, c)
    return result
