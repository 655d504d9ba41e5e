"""The TestSuite file format (`dra-webhook test`): models that reject unknown keys, and readable errors.

```yaml
apiVersion: dra-webhook/v1alpha1
kind: TestSuite
name: optional display name            # default: the file path
tests:
  - name: unique within the suite
    object: path/relative/to/suite.yaml  # or path#<document index>, or an inline object
    oldObject: ...                        # optional; makes it an UPDATE
    operation: UPDATE                     # optional: CREATE (default), UPDATE (default with oldObject), DELETE, CONNECT
    subResource: status                   # optional
    review: path/to/admissionreview.json  # instead of object/oldObject/operation/subResource
    expect:
      allowed: false                      # required
      causes: [{field: spec.devices, reason: FieldValueTooMany}]  # exact multiset
      messageContains: "..."
      warnings: []                        # exact list
      patched: {...}                      # subset of the object after defaulting
```

`patched` matches when every key it names is present with a matching value: mappings may hold more
keys, lists must have the same length and match item by item, other values must be equal. Every
model rejects keys it does not define, so a misspelt key is an error instead of a silent no-op.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

API_VERSION = "dra-webhook/v1alpha1"
KIND = "TestSuite"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


def _path_or_object(value: Any) -> Any:
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, dict):
        return value
    raise ValueError("must be a file path (relative to the suite) or an inline object (a mapping)")


# A file path ("dir/file.yaml", "file.yaml#1" for the document at index 1) or an inline mapping.
ObjectSource = Annotated[Any, AfterValidator(_path_or_object)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


class Cause(_Strict):
    field: str
    reason: str


class Expect(_Strict):
    allowed: bool
    causes: list[Cause] | None = None
    message_contains: str | None = Field(None, alias="messageContains")
    warnings: list[str] | None = None
    patched: dict[str, Any] | None = None


class TestCase(_Strict):
    name: str = Field(min_length=1)
    object: ObjectSource | None = None
    old_object: ObjectSource | None = Field(None, alias="oldObject")
    operation: Literal[OPERATIONS] | None = None  # type: ignore[valid-type]
    sub_resource: str | None = Field(None, alias="subResource", min_length=1)
    review: ObjectSource | None = None
    expect: Expect

    @model_validator(mode="after")
    def _consistent(self) -> "TestCase":
        if self.review is not None:
            given = [key for key, value in (("object", self.object), ("oldObject", self.old_object),
                                            ("operation", self.operation), ("subResource", self.sub_resource))
                     if value is not None]
            if given:
                raise ValueError(f"'review' holds the whole request: remove {', '.join(repr(k) for k in given)}")
            return self
        operation = self.effective_operation
        if operation == "DELETE":
            if self.old_object is None:
                raise ValueError("a DELETE needs 'oldObject' (the object being deleted)")
        elif self.object is None:
            raise ValueError("'object' (or 'review') is required")
        if operation == "UPDATE" and self.old_object is None:
            raise ValueError("an UPDATE needs 'oldObject'")
        if operation == "CREATE" and self.old_object is not None:
            raise ValueError("a CREATE has no 'oldObject'; drop it or set operation: UPDATE")
        return self

    @property
    def effective_operation(self) -> str:
        return self.operation or ("UPDATE" if self.old_object is not None else "CREATE")


class TestSuite(_Strict):
    api_version: Literal[API_VERSION] = Field(alias="apiVersion")  # type: ignore[valid-type]
    kind: Literal[KIND]  # type: ignore[valid-type]
    name: str | None = None
    # The cluster the verdicts are for, over the command line's --kubernetes-version/--feature-gates.
    kubernetes_version: str | None = Field(None, alias="kubernetesVersion", min_length=1)
    feature_gates: dict[str, bool] | None = Field(None, alias="featureGates")
    # kube-apiserver --runtime-config syntax, e.g. "resource.k8s.io/v1beta2=true"; over the command line's
    runtime_config: str | None = Field(None, alias="runtimeConfig")
    namespace: str | None = Field(None, min_length=1)
    tests: list[TestCase]


def describe(error: dict) -> tuple[tuple[str | int, ...], str]:
    """(location in the suite document, one-line message) of one pydantic error."""
    kind = error["type"]
    raw = error["loc"]
    if kind == "extra_forbidden":
        loc = _known_parts(raw[:-1]) + (raw[-1],)
    else:
        loc = _known_parts(raw)
    where = render_location(loc)
    if kind == "extra_forbidden":
        parent = render_location(loc[:-1])
        return loc, f"unknown key {loc[-1]!r}" + (f" in {parent}" if parent else "") + _known_keys(loc[:-1])
    if kind == "missing":
        return loc, f"{where} is required"
    message = error["msg"].removeprefix("Value error, ")
    if kind == "literal_error":
        message = f"must be {_expected(error)}, not {error['input']!r}"
    return loc, f"{where}: {message}" if where else message


def _known_parts(loc: tuple) -> tuple[str | int, ...]:
    """Drops pydantic's own entries (union member and validator names) from a location."""
    return tuple(part for part in loc if isinstance(part, int) or part in _KEYS)


def render_location(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _expected(error: dict) -> str:
    return (error.get("ctx") or {}).get("expected", "one of the allowed values")


_MODELS_BY_LOCATION: list[tuple[tuple[str, ...], type[BaseModel]]] = [
    (("tests", "expect", "causes"), Cause),
    (("tests", "expect"), Expect),
    (("tests",), TestCase),
    ((), TestSuite),
]


def _aliases(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


_KEYS = {key for _, model in _MODELS_BY_LOCATION for key in _aliases(model)}


def _known_keys(parent: tuple[str | int, ...]) -> str:
    names = tuple(part for part in parent if isinstance(part, str))
    for location, model in _MODELS_BY_LOCATION:
        if names == location:
            return f" (known keys: {', '.join(_aliases(model))})"
    return ""


def validate(data: Any) -> tuple[TestSuite | None, list[tuple[tuple[str | int, ...], str]]]:
    """The parsed suite, or None and the problems as (location, message)."""
    if not isinstance(data, dict):
        return None, [((), f"a test suite must be a mapping with apiVersion: {API_VERSION}, kind: {KIND} "
                           f"and tests, not {type(data).__name__}")]
    try:
        suite = TestSuite.model_validate(data)
    except ValidationError as exc:
        return None, [describe(error) for error in exc.errors(include_url=False)]
    duplicates = _duplicate_names(suite)
    return (None, duplicates) if duplicates else (suite, [])


def _duplicate_names(suite: TestSuite) -> list[tuple[tuple[str | int, ...], str]]:
    seen: set[str] = set()
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for index, test in enumerate(suite.tests):
        if test.name in seen:
            problems.append((("tests", index, "name"), f"tests[{index}].name: duplicate test name {test.name!r}"))
        seen.add(test.name)
    return problems


def json_schema() -> str:
    """The TestSuite JSON Schema (keys as written in suite files), for editors and `test --schema`."""
    import json

    schema = TestSuite.model_json_schema(by_alias=True)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "dra-webhook TestSuite", **schema}
    return json.dumps(schema, indent=2, sort_keys=True)
