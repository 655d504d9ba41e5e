"""Capacity requestPolicy of a multi-allocatable device (upstream validateRequestPolicy).

Quantities compare exactly; `validValues` duplicates and step multiples use `Value()` (rounded up).
The 1.36 quirks are kept under 1.36: `default < min` is reported at `validRange.min` and `default >
max` at `validRange.max`. Kubernetes 1.37 reports both at `validRange.default`, rejects a step that is
not positive, bounds the integer arithmetic to [0, MaxInt64], and with DRAFractionalCapacityRange
computes in milli-units and finds `validValues` duplicates by the decimal as parsed (AsDec: `5` and
`5.0` differ, as kube-apiserver 1.37 answers).
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, duplicate, forbidden, internal_error, invalid, required, too_many
from webhook.limits import CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS
from webhook.validation._helpers import as_dict, as_list
from webhook.profile import DEFAULT, Profile
from webhook.quantity import Quantity, parse_json_quantity

INT64_MAX = 2**63 - 1
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"  # apimachineryvalidation.IsNegativeErrorMsg
BOUND_OVER_INT64_MESSAGE = f"must not be larger than {INT64_MAX}"


def _q(raw: object) -> Quantity | None:
    """A quantity field that is present; None when absent or (outside admission) unparseable."""
    if raw is None:
        return None
    return parse_json_quantity(raw)


def validate_request_policy(max_capacity: Quantity | None, policy: dict, path: Path,
                            profile: Profile = DEFAULT) -> ErrorList:
    valid_values = policy.get("validValues")
    valid_values = as_list(valid_values)
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        return [forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and '
                                '"validRange" at the same time')]
    return validate_valid_request_values(max_capacity, policy, valid_values, valid_range, path, profile)


def validate_valid_request_values(max_capacity: Quantity | None, policy: dict, valid_values: list,
                                  valid_range: object, path: Path, profile: Profile = DEFAULT) -> ErrorList:
    default = policy.get("default")
    if valid_values:
        if default is None:
            return [required(path.child("default"), "required when validValues is defined")]
        return validate_request_policy_valid_values(_q(default), max_capacity, valid_values,
                                                    path.child("validValues"), profile)
    if valid_range is not None:
        if default is None:
            return [required(path.child("default"), "required when validRange is defined")]
        if profile.behaviours.valid_range_bounds:
            return validate_request_policy_range_1_37(_q(default), max_capacity, as_dict(valid_range),
                                                      path.child("validRange"), profile)
        return validate_request_policy_range(_q(default), max_capacity,
                                             as_dict(valid_range),
                                             path.child("validRange"))
    return []


def validate_request_policy_valid_values(default: Quantity | None, max_capacity: Quantity | None,
                                         raw_values: list, path: Path, profile: Profile = DEFAULT) -> ErrorList:
    # With DRAFractionalCapacityRange (1.37) duplicates are equal decimals as parsed (5 and 5.0 are not:
    # AsDec keeps the scale of the text), else equal Value()s.
    exact = profile.gate("DRAFractionalCapacityRange")
    errs: ErrorList = []
    values = [_q(v) for v in raw_values]
    for i in range(len(values) - 1):
        a, b = values[i], values[i + 1]
        if a is not None and b is not None and a > b:
            errs.append(invalid(path.index(i + 1), str(b), "values must be sorted in ascending order"))

    found_default = False
    if len(values) > CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS:
        errs.append(too_many(path, len(values), CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS))
    else:
        for k, option in enumerate(values):
            if option is None:
                continue
            if max_capacity is not None and option > max_capacity:
                errs.append(invalid(path.index(k), str(option),
                                    f"option is larger than capacity value: {max_capacity}"))
            if default is not None and option == default:
                found_default = True
        seen: set[str] = set()
        for k, option in enumerate(values):
            if option is None:
                continue
            # quantityKeyAsDec is AsDec().String(): the parsed decimal with its own scale, so 5 and 5.0 differ
            key = format(option.value, "f") if exact else str(option.value_int())
            if key in seen:
                errs.append(duplicate(path.index(k), key))
            else:
                seen.add(key)
    if not found_default and default is not None:
        errs.append(invalid(path, str(default), "default value is not valid according to the requestPolicy"))
    return errs


def validate_request_policy_range(default: Quantity | None, max_capacity: Quantity | None,
                                  value_range: dict, path: Path) -> ErrorList:
    errs: ErrorList = []
    minimum = _q(value_range.get("min"))
    if value_range.get("min") is None:
        return [required(path.child("min"), "required when validRange is defined")]
    if minimum is None or default is None or max_capacity is None:
        return errs
    min_path = path.child("min")
    if minimum > max_capacity:
        errs.append(invalid(min_path, str(minimum), f"min is larger than capacity value: {max_capacity}"))
    if default < minimum:
        errs.append(invalid(min_path, str(default), f"default is less than min: {minimum}"))
    maximum = _q(value_range.get("max"))
    if maximum is not None:
        max_path = path.child("max")
        if minimum > maximum:
            errs.append(invalid(max_path, str(minimum), f"min is larger than max: {maximum}"))
        if maximum > max_capacity:
            errs.append(invalid(max_path, str(maximum), f"max is larger than capacity value: {max_capacity}"))
        if default > maximum:
            errs.append(invalid(max_path, str(default), f"default is more than max: {maximum}"))
    step = _q(value_range.get("step"))
    if step is not None:
        step_path = path.child("step")
        added = minimum.add(step)
        if added > max_capacity:
            errs.append(invalid(step_path, str(step),
                                f"one step {added} is larger than capacity value: {max_capacity}"))
        errs.extend(validate_request_policy_range_step(default, minimum, step, step_path))
        if maximum is not None:
            errs.extend(validate_request_policy_range_step(maximum, minimum, step, step_path))
    return errs


def validate_request_policy_range_step(value: Quantity, minimum: Quantity, step: Quantity,
                                       path: Path) -> ErrorList:
    step_val = step.value_int()
    if step_val == 0:
        # Upstream divides by zero here (a server-side panic, so the request fails). Reject it too.
        return [internal_error(path, f"step {step} rounds to zero; the API server cannot evaluate this policy")]
    if (value.value_int() - minimum.value_int()) % step_val != 0:
        return [invalid(path, str(value), f"value is not a multiple of a given step ({step}) from ({minimum})")]
    return []


# Kubernetes 1.37 ---------------------------------------------------------------------------------

def milli_value(q: Quantity) -> int | None:
    """The exact value in milli-units; None when it has no exact int64 milli representation."""
    milli = q.value * 1000
    if milli != milli.to_integral_value() or not -INT64_MAX - 1 <= milli <= INT64_MAX:
        return None
    return int(milli)


def is_fractional_quantity(q: Quantity) -> bool:
    return q.value != q.value.to_integral_value(rounding="ROUND_DOWN")


def validate_int64_range(q: Quantity, path: Path) -> ErrorList:
    """validateInt64Range: where Quantity.Value() can be reasoned about."""
    if q.sign() < 0:
        return [invalid(path, str(q), IS_NEGATIVE_ERROR_MSG)]
    if q.value > INT64_MAX:
        return [invalid(path, str(q), BOUND_OVER_INT64_MESSAGE)]
    return []


def validate_request_policy_range_1_37(default: Quantity | None, max_capacity: Quantity | None,
                                       value_range: dict, path: Path, profile: Profile) -> ErrorList:
    if value_range.get("min") is None:
        return [required(path.child("min"), "required when validRange is defined")]
    minimum = _q(value_range.get("min"))
    if minimum is None or default is None or max_capacity is None:
        return []
    errs: ErrorList = []
    if minimum > max_capacity:
        errs.append(invalid(path.child("min"), str(minimum), f"min is larger than capacity value: {max_capacity}"))
    if default < minimum:
        errs.append(invalid(path.child("default"), str(default), f"default is less than min: {minimum}"))
    maximum = _q(value_range.get("max"))
    if maximum is not None:
        if minimum > maximum:
            errs.append(invalid(path.child("max"), str(minimum), f"min is larger than max: {maximum}"))
        if maximum > max_capacity:
            errs.append(invalid(path.child("max"), str(maximum), f"max is larger than capacity value: {max_capacity}"))
        if default > maximum:
            errs.append(invalid(path.child("default"), str(default), f"default is more than max: {maximum}"))
    step = _q(value_range.get("step"))
    named = [("default", default), ("min", minimum), ("max", maximum), ("step", step)]
    use_milli = False
    if profile.gate("DRAFractionalCapacityRange"):
        # The default is not part of the range, but a fractional default needs milli arithmetic too.
        use_milli = any(q is not None and is_fractional_quantity(q) for _, q in named)
        if use_milli:
            unsafe = [invalid(path.child(name), str(q), "value cannot be represented as a milli value")
                      for name, q in named if q is not None and milli_value(q) is None]
            if unsafe:
                return errs + unsafe
    if step is None:
        return errs
    step_path = path.child("step")
    if step.sign() <= 0:
        errs.append(invalid(step_path, str(step), "must be greater than zero"))
        return errs
    added = minimum.add(step)
    if added > max_capacity:
        errs.append(invalid(step_path, str(step), f"one step {added} is larger than capacity value: {max_capacity}"))
    if not use_milli:
        bounds = [e for name, q in named if q is not None for e in validate_int64_range(q, path.child(name))]
        if bounds:
            return errs + bounds
    errs.extend(validate_request_policy_range_step_1_37(default, minimum, step, use_milli, step_path))
    if maximum is not None:
        errs.extend(validate_request_policy_range_step_1_37(maximum, minimum, step, use_milli, step_path))
    return errs


def validate_request_policy_range_step_1_37(value: Quantity, minimum: Quantity, step: Quantity, use_milli: bool,
                                            path: Path) -> ErrorList:
    if use_milli:
        step_val, min_val, val = milli_value(step), milli_value(minimum), milli_value(value)
    else:
        step_val, min_val, val = step.value_int(), minimum.value_int(), value.value_int()
    # Go's % truncates towards zero; only "is it zero" matters, which Python's % agrees on.
    if (val - min_val) % step_val != 0:
        return [invalid(path, str(value), f"value is not a multiple of a given step ({step}) from ({minimum})")]
    return []
