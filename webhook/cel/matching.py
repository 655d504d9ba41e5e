"""Offline matching: evaluates a selector against one device with the faithful engine.

`device` is {"driver": str, "allowMultipleAllocations": bool, "attributes": {domain: {id: value}},
"capacity": {domain: {id: value}}} with JSON values. Known gaps against the scheduler: values are
plain JSON (no semver or quantity objects), numbers become doubles, and an unknown domain is a
"no such key" error instead of an empty map.
"""

from __future__ import annotations

from functools import cache

from webhook.cel import compiler, engines
from webhook.cel.environment import DEVICE_TYPE, Features, _pool


@cache
def _compiled(expression: str, features: Features):
    return compiler.compile_expression(expression, True, features)


@cache
def _device_class():
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(_pool(True).FindMessageTypeByName(DEVICE_TYPE))


def _device_message(device: dict):
    message = _device_class()(driver=device.get("driver", ""),
                              allowMultipleAllocations=bool(device.get("allowMultipleAllocations", False)))
    for name in ("attributes", "capacity"):
        for domain, values in (device.get(name) or {}).items():
            getattr(message, name)[domain].update(values)
    return message


def evaluate(expression: str, device: dict, features: Features = Features()) -> bool:
    if not engines.cel_expr_available():
        raise ValueError("evaluating CEL selectors needs the cel-expr engine")
    verdict = compiler.check(expression, True, features)
    if verdict.outcome != "ok":
        raise ValueError(f"selector does not compile: {verdict.detail}")
    try:
        result = _compiled(expression, features).eval(data={"device": _device_message(device)})
        value = result.value()
    except Exception as error:  # noqa: BLE001 - runtime errors of the expression
        raise ValueError(f"CEL evaluation failed: {error}") from error
    if not isinstance(value, bool):
        raise ValueError(f"CEL result of type {result.type()} could not be converted to bool: {value!r}")
    return value
