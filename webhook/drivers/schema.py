"""A CRD-style structural `openAPIV3Schema`, read once when a profile loads (`compile_schema`).

The keywords are those a CustomResourceDefinition's structural schema accepts (apiextensions v1
JSONSchemaProps) that mean something for a driver's configuration; anything else is a problem of the
profile, reported at its place, never a surprise at request time. `pattern` is compiled with RE2, the
regex dialect Go's `regexp` (and so the API server) implements: linear in the text, whatever the pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TYPES = ("object", "array", "string", "integer", "number", "boolean")
FORMATS = ("int32", "int64", "float", "double", "byte", "date-time", "ipv4", "ipv6", "cidr", "mac", "uuid")
_KEYS = frozenset({
    "type", "description", "properties", "additionalProperties", "items", "required", "enum", "default",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
    "minProperties", "maxProperties", "pattern", "format", "nullable", "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations", "title", "example",
})
_RULE_KEYS = frozenset({"rule", "message", "fieldPath", "reason", "optionalOldSelf"})
REASONS = {"FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"}

Problems = list  # [(location: tuple[str | int, ...], message: str)], location relative to the profile document


@dataclass
class Rule:
    """One `x-kubernetes-validations` entry; `program` is set by `webhook.drivers.rules.compile_rules`."""

    rule: str
    message: str
    field_path: tuple[tuple[str, str], ...]  # (("child", "sharing"), ("key", "x")) from `fieldPath`
    reason: str
    location: tuple
    program: Any = None
    uses_old_self: bool = False
    cost: int = 0  # cel-go's estimated cost of one evaluation (at load)


@dataclass
class Schema:
    type: str | None = None
    properties: dict[str, Schema] = field(default_factory=dict)
    additional: Schema | None = None
    items: Schema | None = None
    required: tuple[str, ...] = ()
    enum: tuple | None = None
    default: Any = None
    has_default: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    min_properties: int | None = None
    max_properties: int | None = None
    pattern: Any = None  # a compiled RE2 pattern
    pattern_text: str = ""
    format: str | None = None
    nullable: bool = False
    int_or_string: bool = False
    preserve_unknown: bool = False
    rules: list[Rule] = field(default_factory=list)

    def walk(self):
        """Every schema node, this one first."""
        yield self
        for child in (*self.properties.values(), self.additional, self.items):
            if child is not None:
                yield from child.walk()


def compile_pattern(text: str):
    """The RE2 program of a pattern (unanchored, like Go's regexp.MatchString); ValueError when RE2 refuses it."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = 8 << 20  # RE2's own default; bounds the DFA a tenant string can make it build
    try:
        return re2.compile(text, options)
    except re2.error as error:
        raise ValueError(f"invalid pattern {text!r}: {error}") from None


def parse_field_path(text: str) -> tuple[tuple[str, str], ...]:
    """A rule's `fieldPath` (`.a.b['c-d']`, as Kubernetes accepts it) as path steps; ValueError when not."""
    steps: list[tuple[str, str]] = []
    i, n = 0, len(text)
    if not text.startswith(".") and not text.startswith("["):
        raise ValueError("must start with '.' or '['")
    while i < n:
        if text[i] == ".":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_-"):
                j += 1
            if j == i + 1:
                raise ValueError(f"empty field name at offset {i}")
            steps.append(("child", text[i + 1:j]))
            i = j
        elif text.startswith("['", i):
            end = text.find("']", i + 2)
            if end < 0:
                raise ValueError(f"unclosed [' at offset {i}")
            steps.append(("key", text[i + 2:end]))
            i = end + 2
        else:
            raise ValueError(f"unexpected {text[i]!r} at offset {i}")
    return tuple(steps)


class _Reader:
    def __init__(self) -> None:
        self.problems: Problems = []

    def problem(self, location: tuple, message: str) -> None:
        self.problems.append((location, message))

    def _int(self, raw: dict, key: str, loc: tuple) -> int | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            self.problem(loc + (key,), f"{key} must be a non-negative integer")
            return None
        return value

    def _number(self, raw: dict, key: str, loc: tuple) -> float | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.problem(loc + (key,), f"{key} must be a number")
            return None
        return value

    def read(self, raw: Any, loc: tuple) -> Schema:
        node = Schema()
        if not isinstance(raw, dict):
            self.problem(loc, "a schema must be a mapping")
            return node
        for key in raw:
            if key not in _KEYS:
                self.problem(loc + (key,), f"unknown schema keyword {key!r} (a CRD structural schema has: "
                                           f"{', '.join(sorted(_KEYS))})")
        node.int_or_string = raw.get("x-kubernetes-int-or-string") is True
        node.preserve_unknown = raw.get("x-kubernetes-preserve-unknown-fields") is True
        node.nullable = raw.get("nullable") is True
        t = raw.get("type")
        if t is None:
            if not node.int_or_string and not node.preserve_unknown:
                self.problem(loc, "type is required (structural schema), unless x-kubernetes-int-or-string or "
                                  "x-kubernetes-preserve-unknown-fields is true")
        elif t not in TYPES:
            self.problem(loc + ("type",), f"unknown type {t!r}; one of: {', '.join(TYPES)}")
        else:
            node.type = t
        self._read_object(node, raw, loc)
        if "items" in raw:
            if node.type != "array":
                self.problem(loc + ("items",), "items needs type: array")
            node.items = self.read(raw["items"], loc + ("items",))
        elif node.type == "array":
            self.problem(loc, "type: array needs items (structural schema)")
        self._read_bounds(node, raw, loc)
        self._read_rules(node, raw, loc)
        return node

    def _read_object(self, node: Schema, raw: dict, loc: tuple) -> None:
        props = raw.get("properties")
        if props is not None:
            if not isinstance(props, dict):
                self.problem(loc + ("properties",), "properties must be a mapping")
            else:
                node.properties = {str(k): self.read(v, loc + ("properties", k)) for k, v in props.items()}
        additional = raw.get("additionalProperties")
        if additional is not None and additional is not False:
            if props:
                self.problem(loc + ("additionalProperties",), "properties and additionalProperties are mutually "
                                                              "exclusive (structural schema)")
            node.additional = self.read(additional, loc + ("additionalProperties",))
        if (props is not None or node.additional is not None) and node.type != "object":
            self.problem(loc, "properties and additionalProperties need type: object")
        required = raw.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self.problem(loc + ("required",), "required must be a list of field names")
        else:
            node.required = tuple(required)
            for name in required:
                if node.properties and name not in node.properties:
                    self.problem(loc + ("required",), f"required field {name!r} is not among the properties")

    def _read_bounds(self, node: Schema, raw: dict, loc: tuple) -> None:
        if "enum" in raw:
            if not isinstance(raw["enum"], list) or not raw["enum"]:
                self.problem(loc + ("enum",), "enum must be a non-empty list")
            else:
                node.enum = tuple(raw["enum"])
        if "default" in raw:
            node.default, node.has_default = raw["default"], True
        node.minimum, node.maximum = self._number(raw, "minimum", loc), self._number(raw, "maximum", loc)
        node.exclusive_minimum = raw.get("exclusiveMinimum") is True
        node.exclusive_maximum = raw.get("exclusiveMaximum") is True
        for key, attr in (("minLength", "min_length"), ("maxLength", "max_length"), ("minItems", "min_items"),
                          ("maxItems", "max_items"), ("minProperties", "min_properties"),
                          ("maxProperties", "max_properties")):
            setattr(node, attr, self._int(raw, key, loc))
        if "pattern" in raw:
            if not isinstance(raw["pattern"], str):
                self.problem(loc + ("pattern",), "pattern must be a string")
            else:
                try:
                    node.pattern, node.pattern_text = compile_pattern(raw["pattern"]), raw["pattern"]
                except ValueError as error:
                    self.problem(loc + ("pattern",), str(error))
        if "format" in raw:
            if raw["format"] not in FORMATS:
                self.problem(loc + ("format",), f"unsupported format {raw['format']!r}; supported: "
                                                f"{', '.join(FORMATS)}")
            else:
                node.format = raw["format"]

    def _read_rules(self, node: Schema, raw: dict, loc: tuple) -> None:
        rules = raw.get("x-kubernetes-validations")
        if rules is None:
            return
        if not isinstance(rules, list):
            self.problem(loc + ("x-kubernetes-validations",), "x-kubernetes-validations must be a list")
            return
        for i, entry in enumerate(rules):
            rloc = loc + ("x-kubernetes-validations", i)
            if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or not entry["rule"].strip():
                self.problem(rloc, "a validation needs a non-empty rule (a CEL expression)")
                continue
            for key in entry:
                if key not in _RULE_KEYS:
                    self.problem(rloc + (key,), f"unknown validation keyword {key!r} (supported: "
                                                f"{', '.join(sorted(_RULE_KEYS))})")
            message = entry.get("message", "")
            if not isinstance(message, str) or "\n" in message:
                self.problem(rloc + ("message",), "message must be a single-line string")
                message = ""
            reason = entry.get("reason", "FieldValueInvalid")
            if reason not in REASONS:
                self.problem(rloc + ("reason",), f"reason must be one of {', '.join(sorted(REASONS))}")
                reason = "FieldValueInvalid"
            steps: tuple = ()
            if entry.get("fieldPath"):
                try:
                    steps = parse_field_path(str(entry["fieldPath"]))
                except ValueError as error:
                    self.problem(rloc + ("fieldPath",), f"invalid fieldPath: {error}")
            node.rules.append(Rule(entry["rule"], message, steps, reason, rloc))


def compile_schema(raw: Any, location: tuple = ()) -> tuple[Schema, Problems]:
    """The schema and the problems found in it, each at its location under `location`."""
    reader = _Reader()
    schema = reader.read(raw, location)
    return schema, reader.problems
