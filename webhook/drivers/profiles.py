"""A driver profile file read into a `DriverProfile`: every problem reported at its file and line.

The format (documented in docs/drivers.md, JSON Schema in schemas/driverprofile.schema.json):

    apiVersion: dra-webhook/v1alpha1
    kind: DriverProfile
    drivers: [gpu.example.com]                      # the `opaque.driver` names it covers
    source: {repository: ..., path: ..., commit: ...}   # where the rules were read
    decoding: typed                                 # typed: apiVersion + kind pick a kind; untyped: one kind
    caseInsensitiveKeys: false                      # true: keys match fields in any case (Go encoding/json)
    deviceClassConfigs: ignore                      # validate | ignore | forbid
    featureGates: {TimeSlicingSettings: false}      # the driver's own gates and their defaults
    kinds:
    - apiVersion: gpu.resource.example.com/v1alpha1
      kind: GpuConfig
      openAPIV3Schema: {...}                        # CRD structural schema + x-kubernetes-validations
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webhook.drivers.schema import Schema, compile_schema

API_VERSION = "dra-webhook/v1alpha1"
KIND = "DriverProfile"
DECODINGS = ("typed", "untyped")
CLASS_CONFIGS = ("validate", "ignore", "forbid")
_TOP_KEYS = frozenset({"apiVersion", "kind", "drivers", "source", "description", "decoding", "deviceClassConfigs",
                       "featureGates", "kinds", "notes", "caseInsensitiveKeys"})
_KIND_KEYS = frozenset({"apiVersion", "kind", "openAPIV3Schema", "description"})
MAX_PROFILE_BYTES = 1024 * 1024


class ProfileFileError(ValueError):
    """A profile file that cannot be used; `problems` are `file:line: message` strings."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class ConfigKind:
    api_version: str  # "" for an untyped profile
    kind: str
    schema: Schema


@dataclass
class DriverProfile:
    file: str
    drivers: tuple[str, ...]
    source: dict
    description: str
    decoding: str
    device_class_configs: str
    feature_gates: dict[str, bool]
    kinds: list[ConfigKind] = field(default_factory=list)
    case_insensitive_keys: bool = False  # Go's encoding/json (not the apimachinery decoders) folds case
    compiled: bool = False  # whether the CEL rules are compiled (bundled profiles: on first use)
    rules_skipped: str = ""  # why the CEL rules are not checked (no faithful engine), or ""

    def compile(self) -> None:
        """Compiles the rules of a profile read with `compile_rules=False`; ProfileFileError if one fails."""
        if not self.compiled:
            problems = _compile_rules(self)
            if problems:
                raise ProfileFileError([f"{self.file}: {'.'.join(map(str, loc))}: {m}" for loc, m in problems])
            self.compiled = True

    def kind_for(self, api_version: str, kind: str) -> ConfigKind | None:
        for k in self.kinds:
            if k.api_version == api_version and k.kind == kind:
                return k
        return None


def _typed_schema(raw: Any) -> Any:
    """A typed kind's schema with `apiVersion` and `kind` declared: they select the kind, they are no unknown fields."""
    if isinstance(raw, dict) and isinstance(raw.get("properties"), dict):
        props = dict(raw["properties"])
        for name in ("apiVersion", "kind"):
            props.setdefault(name, {"type": "string"})
        return {**raw, "properties": props}
    return raw


def read_profile(text: str, file: str, compile_rules: bool = True) -> DriverProfile:
    """The profile in `text`; ProfileFileError listing every problem, each at `file:line`. Without
    `compile_rules` the CEL rules are compiled on first use (`DriverProfile.compile`)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_PROFILE_BYTES:
        raise ProfileFileError([f"{file}: larger than {MAX_PROFILE_BYTES} bytes"])
    import yaml  # here: a run that meets no driver configuration never reads a profile

    from webhook.offline import positions, yamlload

    try:
        nodes = [n for n in yamlload.compose_all(text) if n is not None]
        if len(nodes) != 1:
            raise ProfileFileError([f"{file}: want exactly one YAML document, found {len(nodes)}"])
        _refuse_cycles(nodes[0], file)
        raw = yamlload.build(nodes[0])  # AliasBudgetError (a YAMLError) when its aliases expand too far
    except (yaml.YAMLError, RecursionError) as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ProfileFileError([f"{file}{line}: not YAML: {getattr(error, 'problem', None) or error}"]) from None
    problems: list[tuple[tuple, str]] = []
    profile = _read(raw, file, problems)
    if not problems and profile is not None and compile_rules:
        problems.extend(_compile_rules(profile))
        profile.compiled = not problems
    if problems:
        rendered = []
        for location, message in problems:
            mark, _ = positions.locate(nodes[0], list(location))
            where = ".".join(str(p) for p in location)
            rendered.append(f"{file}:{mark.line + 1}: {where + ': ' if where else ''}{message}")
        raise ProfileFileError(rendered)
    return profile


def _refuse_cycles(root, file: str) -> None:
    """ProfileFileError when an alias refers to a node it is inside (`&a {x: *a}`): a schema that contains
    itself has no end (goyaml refuses it too). Iterative, each node visited once."""
    from yaml.nodes import MappingNode, SequenceNode

    def children(node):
        if isinstance(node, SequenceNode):
            return iter(node.value)
        if isinstance(node, MappingNode):
            return (x for pair in node.value for x in pair)
        return iter(())

    done: set[int] = set()
    open_nodes = {id(root)}
    stack = [(root, children(root))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            open_nodes.discard(id(node))
            done.add(id(node))
        elif id(child) in open_nodes:
            raise ProfileFileError([f"{file}:{child.start_mark.line + 1}: not YAML: an alias refers to a node it is "
                                    f"inside (a schema that contains itself)"])
        elif id(child) not in done:
            open_nodes.add(id(child))
            stack.append((child, children(child)))


def _compile_rules(profile: DriverProfile) -> list[tuple[tuple, str]]:
    from webhook.drivers.rules import RulesUnavailable, compile_rules

    problems = []
    for kind in profile.kinds:
        if not any(node.rules for node in kind.schema.walk()):
            continue
        try:
            problems.extend(compile_rules(kind.schema))
        except RulesUnavailable as error:  # the schema still applies; each check says the rules were skipped
            profile.rules_skipped = str(error)
            break
    return problems


def _read(raw: Any, file: str, problems: list) -> DriverProfile | None:
    def problem(location: tuple, message: str) -> None:
        problems.append((location, message))

    if not isinstance(raw, dict):
        problem((), "a profile must be a mapping")
        return None
    for key in raw:
        if key not in _TOP_KEYS:
            problem((key,), f"unknown field {key!r} (known: {', '.join(sorted(_TOP_KEYS))})")
    if raw.get("apiVersion") != API_VERSION:
        problem(("apiVersion",), f"apiVersion must be {API_VERSION}")
    if raw.get("kind") != KIND:
        problem(("kind",), f"kind must be {KIND}")
    drivers = raw.get("drivers")
    if not isinstance(drivers, list) or not drivers or not all(isinstance(d, str) and d for d in drivers):
        problem(("drivers",), "drivers must be a non-empty list of driver names")
        drivers = []
    source = raw.get("source") or {}
    if not isinstance(source, dict) or not all(isinstance(v, str) for v in source.values()):
        problem(("source",), "source must map repository, path and commit to strings")
        source = {}
    decoding = raw.get("decoding", "typed")
    if decoding not in DECODINGS:
        problem(("decoding",), f"decoding must be one of: {', '.join(DECODINGS)}")
    class_configs = raw.get("deviceClassConfigs", "ignore")
    if class_configs not in CLASS_CONFIGS:
        problem(("deviceClassConfigs",), f"deviceClassConfigs must be one of: {', '.join(CLASS_CONFIGS)}")
    gates = raw.get("featureGates") or {}
    if not isinstance(gates, dict) or not all(isinstance(v, bool) for v in gates.values()):
        problem(("featureGates",), "featureGates must map gate names to their default (true or false)")
        gates = {}
    kinds = _read_kinds(raw.get("kinds"), decoding, problem)
    fold = raw.get("caseInsensitiveKeys", False)
    if not isinstance(fold, bool):
        problem(("caseInsensitiveKeys",), "caseInsensitiveKeys must be true or false")
    return DriverProfile(file, tuple(drivers), dict(source), str(raw.get("description", "")), decoding,
                         class_configs, {str(k): v for k, v in gates.items()}, kinds, fold is True)


def _read_kinds(raw_kinds: Any, decoding: str, problem) -> list[ConfigKind]:
    if not isinstance(raw_kinds, list) or not raw_kinds:
        problem(("kinds",), "kinds must be a non-empty list")
        return []
    if decoding == "untyped" and len(raw_kinds) != 1:
        problem(("kinds",), "an untyped profile has exactly one kind (the parameters carry no apiVersion or kind)")
    kinds: list[ConfigKind] = []
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(raw_kinds):
        loc = ("kinds", i)
        if not isinstance(entry, dict):
            problem(loc, "a kind must be a mapping")
            continue
        for key in entry:
            if key not in _KIND_KEYS:
                problem(loc + (key,), f"unknown field {key!r} (known: {', '.join(sorted(_KIND_KEYS))})")
        api_version, kind = entry.get("apiVersion", ""), entry.get("kind", "")
        if decoding == "typed" and (not isinstance(api_version, str) or not api_version
                                    or not isinstance(kind, str) or not kind):
            problem(loc, "a typed profile's kind needs apiVersion and kind")
            continue
        if decoding == "untyped" and (api_version or kind):
            problem(loc, "an untyped profile's kind has no apiVersion or kind")
            continue
        if (api_version, kind) in seen:
            problem(loc, f"{api_version} {kind} is declared twice")
        seen.add((api_version, kind))
        if "openAPIV3Schema" not in entry:
            problem(loc, "openAPIV3Schema is required")
            continue
        raw_schema = entry["openAPIV3Schema"]
        if decoding == "typed":
            raw_schema = _typed_schema(raw_schema)
        schema, schema_problems = compile_schema(raw_schema, loc + ("openAPIV3Schema",))
        for location, message in schema_problems:
            problem(location, message)
        if schema.type not in ("object", None):
            problem(loc + ("openAPIV3Schema", "type"), "the parameters are a JSON object: type must be object")
        kinds.append(ConfigKind(api_version, kind, schema))
    return kinds
