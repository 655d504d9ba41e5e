"""Capacity requestPolicy of a multi-allocatable device (upstream validateRequestPolicy).

Quantities compare exactly; `validValues` duplicates and step multiples use `Value()` (rounded up).
The 1.36 quirks are kept: `default < min` is reported at `validRange.min` and `default > max` at
`validRange.max`.
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, duplicate, forbidden, internal_error, invalid, required, too_many
from webhook.limits import CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS
from webhook.validation._helpers import as_dict, as_list
from webhook.quantity import Quantity, parse_json_quantity


def _q(raw: object) -> Quantity | None:
    """A quantity field that is present; None when absent or (outside admission) unparseable."""
    if raw is None:
        return None
    return parse_json_quantity(raw)


def validate_request_policy(max_capacity: Quantity | None, policy: dict, path: Path) -> ErrorList:
    valid_values = policy.get("validValues")
    valid_values = as_list(valid_values)
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        return [forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and '
                                '"validRange" at the same time')]
    return validate_valid_request_values(max_capacity, policy, valid_values, valid_range, path)


def validate_valid_request_values(max_capacity: Quantity | None, policy: dict, valid_values: list,
                                  valid_range: object, path: Path) -> ErrorList:
    default = policy.get("default")
    if valid_values:
        if default is None:
            return [required(path.child("default"), "required when validValues is defined")]
        return validate_request_policy_valid_values(_q(default), max_capacity, valid_values,
                                                    path.child("validValues"))
    if valid_range is not None:
        if default is None:
            return [required(path.child("default"), "required when validRange is defined")]
        return validate_request_policy_range(_q(default), max_capacity,
                                             as_dict(valid_range),
                                             path.child("validRange"))
    return []


def validate_request_policy_valid_values(default: Quantity | None, max_capacity: Quantity | None,
                                         raw_values: list, path: Path) -> ErrorList:
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
            key = str(option.value_int())
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
