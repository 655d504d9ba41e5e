"""Consumable capacity (consumable_capacity.go): request policies, rounding, what a share consumes.

Quantities are `webhook.quantity.Quantity` (exact). A device's `capacity` is the v1 map
{name: {value, requestPolicy}}; a request's capacity is `capacity.requests` {name: quantity}.

`fractional` is 1.37's DRAFractionalCapacityRange (FractionalCapacityRange of the allocator): a validRange
whose min, max and step are whole milli-units (and step at least 1m) is then rounded and checked in
milli-units (useMilli), not in whole units rounded up; a request that is no whole number of milli-units
cannot be rounded there, which 1.37's allocator reports as an error (CapacityArithmeticError).
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from webhook.quantity import BINARY_SI, DECIMAL_SI, Quantity, parse_quantity
from webhook.validation.requestpolicy import milli_value  # safeMilliValue: whole milli-units within int64


@lru_cache(maxsize=65536)
def qty(text) -> Quantity:
    """A parsed quantity (cached); the wire form may be a string or a number."""
    return parse_quantity(str(text))


def _opt(value) -> Quantity | None:
    return None if value is None else qty(value)


def text(value: Decimal) -> str:
    """An amount as a Quantity string, binary when it is a whole number of Ki (8Gi, not 8589934592)."""
    binary = value == value.to_integral_value() and value % 1024 == 0 and value != 0
    return str(Quantity(value, BINARY_SI if binary else DECIMAL_SI))


class CapacityError(ValueError):
    """The device cannot take this request (the allocator skips it)."""


class CapacityArithmeticError(Exception):
    """errCapacityRequestNotRepresentable: an error of the allocation as a whole (1.37)."""


def cmp_request_over_capacity(consumed: dict, requests: dict | None, capacity: dict, allocating: dict,
                              fractional: bool = False) -> bool:
    """CmpRequestOverCapacity: whether one more share fits, within the request policies.

    `consumed` and `allocating` map capacity names to Decimal amounts already taken.
    Raises CapacityError when a requested capacity is not defined by the device, CapacityArithmeticError
    when a request cannot be rounded (1.37, every capacity's consumption is computed before any is checked).
    """
    requests = requests or {}
    for name in requests:
        if name not in capacity:
            raise CapacityError("some requested capacity has not been defined")
    uses = {name: calculate_consumed_capacity(_opt(requests.get(name)), cap, fractional, name)
            for name, cap in capacity.items()}
    for name, cap in capacity.items():
        use = uses[name]
        if violates_policy(use, cap.get("requestPolicy"), fractional):
            return False
        total = consumed.get(name, Decimal(0)) + use.value + allocating.get(name, Decimal(0))
        if total > qty(cap.get("value", "0")).value:
            return False
    return True


def calculate_consumed_capacity(requested: Quantity | None, cap: dict, fractional: bool = False,
                                name: str = "") -> Quantity:
    policy = cap.get("requestPolicy")
    if requested is None:
        if policy and policy.get("default") is not None:
            return qty(policy["default"])
        return qty(cap.get("value", "0"))
    if not policy:
        return requested
    valid_range = policy.get("validRange")
    if valid_range and valid_range.get("min") is not None:
        return round_up_range(requested, valid_range, fractional, name)
    if policy.get("validValues") is not None:
        for value in policy["validValues"]:
            if requested.value <= qty(value).value:
                return qty(value)
    return requested


def round_up_range(requested: Quantity, valid_range: dict, fractional: bool = False, name: str = "") -> Quantity:
    low = qty(valid_range["min"])
    if requested.value < low.value:
        return low
    if valid_range.get("step") is None:
        return requested
    step_q = qty(valid_range["step"])
    if use_milli(valid_range, fractional):
        wanted = milli_value(requested)
        if wanted is None:
            raise CapacityArithmeticError(
                f'capacity "{name}": capacity request cannot be represented in the device\'s range arithmetic: '
                f"request {requested} is not a representable milli value")
        step, minimum = milli(step_q), milli(low)
        added = wanted - minimum
        n = _go_div(added, step) + (1 if _go_mod(added, step) else 0)
        return Quantity(Decimal(minimum + step * n) / 1000, step_q.format)
    step, minimum = step_q.value_int(), low.value_int()
    added = requested.value_int() - minimum
    n = _go_div(added, step) + (1 if _go_mod(added, step) else 0)
    return Quantity(Decimal(minimum + step * n), BINARY_SI)


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _go_mod(a: int, b: int) -> int:
    return a - b * _go_div(a, b)


def milli(q: Quantity) -> int:
    """MilliValue: the value in milli-units, rounded up."""
    return Quantity(q.value * 1000).value_int()


def use_milli(valid_range: dict, fractional: bool) -> bool:
    """useMilli: with the feature, a range whose bounds and step are whole milli-units (step >= 1m)."""
    if not fractional:
        return False
    for key in ("min", "max", "step"):
        if valid_range.get(key) is not None and milli_value(qty(valid_range[key])) is None:
            return False
    return valid_range.get("step") is None or milli_value(qty(valid_range["step"])) >= 1


def violates_policy(requested: Quantity, policy: dict | None, fractional: bool = False) -> bool:
    if not policy:
        return False
    if policy.get("default") is not None and _same(requested, qty(policy["default"])):
        return False
    valid_range = policy.get("validRange")
    if valid_range is not None:
        if valid_range.get("max") is not None and requested.value > qty(valid_range["max"]).value:
            return True
        if valid_range.get("step") is not None:
            if use_milli(valid_range, fractional):
                wanted = milli_value(requested)
                if wanted is None:
                    return True
                step = milli(qty(valid_range["step"]))
                low = milli(qty(valid_range["min"])) if valid_range.get("min") is not None else 0
                return _go_mod(wanted - low, step) != 0
            step = qty(valid_range["step"]).value_int()
            low = qty(valid_range["min"]).value_int() if valid_range.get("min") is not None else 0
            return _go_mod(requested.value_int() - low, step) != 0
        return False
    values = policy.get("validValues") or []
    if values:
        return not any(requested.value == qty(v).value for v in values)
    return False


def _same(a: Quantity, b: Quantity) -> bool:
    # Go compares the Quantity structs with ==; equal values parsed alike compare equal.
    return a.value == b.value and a.format == b.format


def consumed_from_request(requests: dict | None, capacity: dict, fractional: bool = False) -> dict:
    """GetConsumedCapacityFromRequest: {name: Quantity} for every capacity of the device."""
    requests = requests or {}
    return {name: calculate_consumed_capacity(_opt(requests.get(name)), cap, fractional, name)
            for name, cap in capacity.items()}
