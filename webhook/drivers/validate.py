"""A value checked against a compiled structural schema, as the API server checks a custom resource.

`validate_value(schema, value, path, params)` returns field errors at the real sub-paths: first what
the OpenAPI schema says (kube-openapi's checks, converted to field errors the way apiextensions-apiserver
converts them), then the `x-kubernetes-validations` rules, parent before children. A rule runs only
on a value whose own subtree passed the schema (it could not be evaluated on a value of the wrong
type). Unknown fields are refused, as the drivers' strict decoders refuse them. Defaults (`default`)
are seen by the rules and never written back: the parameters are not mutated.

Every check is bounded: a pattern is an RE2 program (linear), lengths are counted once, and the walk
is as deep as the schema (a value deeper than its schema stops at the schema's leaf).
"""

from __future__ import annotations

import base64
import ipaddress
import re
from datetime import datetime
from typing import Any

from webhook.drivers import rules as cel_rules
from webhook.drivers.schema import Schema
from webhook.field import (
    ErrorList,
    FieldError,
    ErrorType,
    Path,
    duplicate,
    forbidden,
    internal_error,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_MAC = re.compile(r"^(?:[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){2})$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_DEFERRED = object()


def json_type(value: Any) -> str:
    """The JSON type name kube-openapi reports for a value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _type_ok(node: Schema, value: Any) -> bool:
    if node.int_or_string and (isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))):
        return True
    t = node.type
    if t is None:
        return node.preserve_unknown
    if t == "integer":  # Go decodes 1.0 into an int field as an error: the drivers' decoders do
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return json_type(value) == t


class _Walk:
    def __init__(self, params: dict, fold_case: bool = False) -> None:
        self.params = params
        self.fold_case = fold_case
        self.errors: ErrorList = []
        self.pending: list = []  # (node, value, path) whose rules run after the schema pass, in order

    # --- the schema pass: (whether the subtree at `path` is clean, the value as the rules see it)

    def value(self, node: Schema, value: Any, path: Path) -> tuple[bool, Any]:
        before = len(self.errors)
        slot = len(self.pending)
        if node.rules:
            self.pending.append(_DEFERRED)
        view = value
        if value is None:
            if not node.nullable:
                self.errors.append(type_invalid(path, "null", f"must be of type {node.type or 'string'}"))
        elif not _type_ok(node, value):
            expected = "integer or string" if node.int_or_string else node.type
            self.errors.append(type_invalid(path, value, f"must be of type {expected}"))
        elif isinstance(value, dict):
            view = self._object(node, value, path)
        elif isinstance(value, list):
            view = self._array(node, value, path)
        elif isinstance(value, str):
            self._string(node, value, path)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self._number(node, value, path)
        if node.enum is not None and value is not None and not any(_same(value, e) for e in node.enum):
            self.errors.append(not_supported(path, value, [str(e) for e in node.enum]))
        clean = len(self.errors) == before
        if node.rules:
            self.pending[slot] = (node, view, path) if clean and value is not None else None
        return clean, view

    def _object(self, node: Schema, value: dict, path: Path) -> dict:
        """Checks an object; returns it as the rules see it: the fields' own names, defaults filled in."""
        if node.max_properties is not None and len(value) > node.max_properties:
            self.errors.append(too_many(path, len(value), node.max_properties))
        if node.min_properties is not None and len(value) < node.min_properties:
            self.errors.append(invalid(path, len(value), f"should have at least {node.min_properties} properties"))
        folded = {name.lower(): name for name in node.properties} if self.fold_case else {}
        present = {folded.get(key.lower(), key) for key in value} if folded else value
        for name in node.required:
            if name not in present:
                self.errors.append(required(path.child(name), ""))
        view: dict = {}
        for key, item in value.items():
            name = key if key in node.properties or not folded else folded.get(key.lower(), key)
            child = node.properties.get(name)
            if child is None and node.additional is not None:
                view[key] = self.value(node.additional, item, path.key(key))[1]
            elif child is not None:
                view[name] = self.value(child, item, path.child(key))[1]
            elif not node.preserve_unknown:
                self.errors.append(forbidden(path.child(key), "unknown field (the driver's strict decoder refuses "
                                                             "fields its configuration does not have)"))
            else:
                view[key] = item
        for name, child in node.properties.items():
            if child.has_default and name not in view:
                view[name] = self.value(child, child.default, path.child(name))[1]
        return view

    def _array(self, node: Schema, value: list, path: Path) -> list:
        if node.max_items is not None and len(value) > node.max_items:
            self.errors.append(too_many(path, len(value), node.max_items))
            return value  # the items of an over-long list are not looked at (each one costs)
        if node.min_items is not None and len(value) < node.min_items:
            self.errors.append(invalid(path, len(value), f"should have at least {node.min_items} items"))
        if node.items is None:
            return value
        return [self.value(node.items, item, path.index(i))[1] for i, item in enumerate(value)]

    def _string(self, node: Schema, value: str, path: Path) -> None:
        if node.max_length is not None and len(value) > node.max_length:
            self.errors.append(too_long(path, "", node.max_length))
        if node.min_length is not None and len(value) < node.min_length:
            self.errors.append(invalid(path, value, f"should be at least {node.min_length} chars long"))
        if node.pattern is not None and node.pattern.search(value) is None:
            self.errors.append(invalid(path, value, f"should match '{node.pattern_text}'"))
        if node.format and not _format_ok(node.format, value):
            self.errors.append(invalid(path, value, f"must be of format {node.format}"))

    def _number(self, node: Schema, value: int | float, path: Path) -> None:
        if node.format in ("int32", "int64"):
            low, high = _INT32 if node.format == "int32" else _INT64
            if not low <= value <= high:
                self.errors.append(invalid(path, value, f"must be of format {node.format}"))
                return
        if node.minimum is not None:
            if node.exclusive_minimum and value <= node.minimum:
                self.errors.append(invalid(path, value, f"should be greater than {_num(node.minimum)}"))
            elif value < node.minimum:
                self.errors.append(invalid(path, value, f"should be greater than or equal to {_num(node.minimum)}"))
        if node.maximum is not None:
            if node.exclusive_maximum and value >= node.maximum:
                self.errors.append(invalid(path, value, f"should be less than {_num(node.maximum)}"))
            elif value > node.maximum:
                self.errors.append(invalid(path, value, f"should be less than or equal to {_num(node.maximum)}"))

    # --- the rules pass

    def run_rules(self) -> None:
        from webhook.cel.budget import check_deadline

        for entry in self.pending:
            if entry is None or entry is _DEFERRED:
                continue
            node, value, path = entry
            for rule in node.rules:
                if rule.program is None or rule.uses_old_self:
                    continue  # transition rules never run on a create; a rule not compiled was a load error
                check_deadline()  # a served request's deadline (DeadlineExceeded: a failed call, not a verdict)
                at = _rule_path(path, rule.field_path)
                too_costly = cel_rules.over_call_limit(rule, value)
                if too_costly:
                    self.errors.append(internal_error(at, f"{cel_rules.default_message(rule)}: not evaluated: "
                                                          f"{too_costly}"))
                    continue
                try:
                    passed, error = cel_rules.evaluate(rule, value, self.params)
                except cel_rules.EngineLimit as limit:
                    self.errors.append(internal_error(at, f"{cel_rules.default_message(rule)}: not evaluated: {limit}"
                                                          f" (the engine's limit of 10,000 comprehension iterations)"))
                    continue
                if passed:
                    continue
                bad = node.type or json_type(value)
                if error:
                    self.errors.append(invalid(at, bad, f"{cel_rules.default_message(rule)}: {error}"))
                else:
                    self.errors.append(_for_reason(rule.reason, at, bad, cel_rules.default_message(rule)))


def _rule_path(path: Path, steps: tuple) -> Path:
    for kind, name in steps:
        path = path.child(name) if kind == "child" else path.key(name)
    return path


def _for_reason(reason: str, path: Path, bad: str, message: str) -> FieldError:
    """fieldErrorForReason: the rule's `reason` picks the error type."""
    if reason == ErrorType.FORBIDDEN.value:
        return forbidden(path, message)
    if reason == ErrorType.REQUIRED.value:
        return required(path, message)
    if reason == ErrorType.DUPLICATE.value:
        error = duplicate(path, bad)
        error.detail = message
        return error
    return invalid(path, bad, message)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (json_type(a) == json_type(b) == "integer" and a == b)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _format_ok(name: str, value: str) -> bool:
    if "%" in value and name in ("ipv4", "ipv6", "cidr"):
        return False  # Go's parsers take no zone
    try:
        if name == "ipv4":
            return isinstance(ipaddress.ip_address(value), ipaddress.IPv4Address)
        if name == "ipv6":
            return isinstance(ipaddress.ip_address(value), ipaddress.IPv6Address)
        if name == "cidr":
            ipaddress.ip_network(value, strict=False)
            return "/" in value
        if name == "mac":
            return bool(_MAC.match(value))
        if name == "uuid":
            return bool(_UUID.match(value))
        if name == "byte":
            base64.b64decode(value, validate=True)
            return True
        if name == "date-time":
            datetime.fromisoformat(value.replace("Z", "+00:00"))
            return True
    except ValueError:
        return False
    return True


def validate_value(schema: Schema, value: Any, path: Path, params: dict, fold_case: bool = False) -> ErrorList:
    """`fold_case`: keys match fields case-insensitively, as Go's encoding/json decodes them."""
    walk = _Walk(params, fold_case)
    walk.value(schema, value, path)
    walk.run_rules()
    return walk.errors
