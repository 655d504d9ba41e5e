"""cel-go's declarations of the functions the compiler's own extensions cannot carry faithfully.

Kubernetes' lists library (apiserver pkg/cel/library/lists.go, in every release's base environment)
has `<list(A)>.indexOf(A)` and `<list(A)>.lastIndexOf(A)`. The compiler's strings extension owns
those two names and refuses a second declaration of them, so the checking environments declare the
strings extension (version 2) themselves, from cel-go's declarations, with Kubernetes' list overloads
next to them.

The compiler's lists extension types `flatten()` as `list(dyn) -> list(dyn)`; cel-go declares
`list(list(T)) -> list(T)`, so upstream refuses `[[1]].flatten()[0] == "a"` and `[1].flatten()`.
`LISTS` holds cel-go's flatten declarations (`environment` uses them for expressions that call
`flatten`, under another name).

Written in the compiler's configuration language: only there does it honour type parameters
(declared from Python, a type parameter acts like dyn).
"""

from __future__ import annotations

# (function, overload id, member?, parameter types (the target first), result type)
Decl = tuple[str, str, bool, tuple[str, ...], str]

# cel-go ext/strings.go at version 2 (v0.26.0 and v0.29.2 declare the same).
STRINGS_V2: tuple[Decl, ...] = (
    ("charAt", "string_char_at_int", True, ("string", "int"), "string"),
    ("indexOf", "string_index_of_string", True, ("string", "string"), "int"),
    ("indexOf", "string_index_of_string_int", True, ("string", "string", "int"), "int"),
    ("lastIndexOf", "string_last_index_of_string", True, ("string", "string"), "int"),
    ("lastIndexOf", "string_last_index_of_string_int", True, ("string", "string", "int"), "int"),
    ("lowerAscii", "string_lower_ascii", True, ("string",), "string"),
    ("replace", "string_replace_string_string", True, ("string", "string", "string"), "string"),
    ("replace", "string_replace_string_string_int", True, ("string", "string", "string", "int"), "string"),
    ("split", "string_split_string", True, ("string", "string"), "list(string)"),
    ("split", "string_split_string_int", True, ("string", "string", "int"), "list(string)"),
    ("substring", "string_substring_int", True, ("string", "int"), "string"),
    ("substring", "string_substring_int_int", True, ("string", "int", "int"), "string"),
    ("trim", "string_trim", True, ("string",), "string"),
    ("upperAscii", "string_upper_ascii", True, ("string",), "string"),
    ("format", "string_format", True, ("string", "list(dyn)"), "string"),
    ("strings.quote", "strings_quote", False, ("string",), "string"),
    ("join", "list_join", True, ("list(string)",), "string"),
    ("join", "list_join_string", True, ("list(string)", "string"), "string"),
)

# apiserver pkg/cel/library/lists.go: the templated overloads (the others are per element type).
KUBERNETES_LIST_INDEX: tuple[Decl, ...] = (
    ("indexOf", "list_a_index_of_int", True, ("list(~A)", "~A"), "int"),
    ("lastIndexOf", "list_a_last_index_of_int", True, ("list(~A)", "~A"), "int"),
)

# cel-go ext/lists.go's flatten (version 3 of its lists extension): the rest of that extension types alike
# in the compiler's own.
LISTS: tuple[Decl, ...] = (
    ("flatten", "list_flatten", True, ("list(list(~T))",), "list(~T)"),
    ("flatten", "list_flatten_int", True, ("list(dyn)", "int"), "list(dyn)"),
)


# cel-go's ordering operators as Kubernetes' base environment declares them (cel.CrossTypeNumericComparisons:
# an int, uint and double compare with each other); the compiler's standard library has only same-type
# overloads, so its declarations are left out (`STDLIB_WITHOUT_ORDERING`) and these take their place.
_ORDERED_NUMBERS = (("int", "int64"), ("uint", "uint64"), ("double", "double"))
_ORDERED_OTHERS = (("bool", "bool"), ("string", "string"), ("bytes", "bytes"),
                   ("google.protobuf.Timestamp", "timestamp"), ("google.protobuf.Duration", "duration"))
ORDERING_OPERATORS = (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals"))
ORDERING: tuple[Decl, ...] = tuple(
    decl for op, prefix in ORDERING_OPERATORS for decl in (
        *((op, f"{prefix}_{a_id}" if a == b else f"{prefix}_{a_id}_{b_id}", False, (a, b), "bool")
          for a, a_id in _ORDERED_NUMBERS for b, b_id in _ORDERED_NUMBERS),
        *((op, f"{prefix}_{t_id}", False, (t, t), "bool") for t, t_id in _ORDERED_OTHERS)))
STDLIB_WITHOUT_ORDERING = "stdlib:\n  exclude_functions:\n" + "".join(
    f'  - name: "{op}"\n' for op, _ in ORDERING_OPERATORS)


def _type(spec: str) -> str:
    """A type as a flow mapping of the configuration language: `list(~A)` -> `{type_name: list, ...}`."""
    spec = spec.strip()
    if spec.startswith("~"):
        return f"{{type_name: {spec[1:]}, is_type_param: true}}"
    name, _, rest = spec.partition("(")
    if not rest:
        return f"{{type_name: {name}}}"
    params = _split(rest[:-1])
    return f"{{type_name: {name}, params: [{', '.join(_type(p) for p in params)}]}}"


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def functions_yaml(decls: tuple[Decl, ...]) -> str:
    """The `functions:` section declaring `decls`, grouped by function in first-seen order."""
    by_name: dict[str, list[Decl]] = {}
    for decl in decls:
        by_name.setdefault(decl[0], []).append(decl)
    lines = ["functions:"]
    for name, overloads in by_name.items():
        lines += [f"- name: {name}", "  overloads:"]
        for _, oid, member, params, result in overloads:
            lines.append(f"  - id: {oid}")
            args = params
            if member:
                lines.append(f"    target: {_type(params[0])}")
                args = params[1:]
            if args:
                lines.append(f"    args: [{', '.join(_type(a) for a in args)}]")
            lines.append(f"    return: {_type(result)}")
    return "\n".join(lines) + "\n"
