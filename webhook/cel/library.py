"""Declarations of the Kubernetes CEL libraries a DRA selector may call (apiserver pkg/cel/library, 1.36).

Overload ids follow cel-go where they are fixed upstream. The compiler cannot declare type
parameters, so templated overloads (`indexOf` on `list(A)`) become one overload per element type.
Only functions that are cheap to mirror exactly carry an implementation for offline evaluation.
"""

from __future__ import annotations

from functools import cache

from cel_expr_python import cel

T = cel.Type
QUANTITY = T.AbstractType("kubernetes.Quantity")
SEMVER = T.AbstractType("kubernetes.Semver")
URL = T.AbstractType("kubernetes.URL")
IP = T.AbstractType("net.IP")
CIDR = T.AbstractType("net.CIDR")
FORMAT = T.AbstractType("kubernetes.NamedFormat")

_COMPARABLE = {"int": T.INT, "uint": T.UINT, "double": T.DOUBLE, "bool": T.BOOL, "duration": T.DURATION,
               "timestamp": T.TIMESTAMP, "string": T.STRING, "bytes": T.BYTES}
_SUMMABLE = ("int", "uint", "double", "duration")
FORMAT_NAMES = ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                "datetime")


def _member(oid: str, ret, params, impl=None) -> cel.Overload:
    if impl is None:
        return cel.Overload(oid, ret, params, is_member=True)
    return cel.Overload(oid, ret, params, is_member=True, impl=impl)


def _global(oid: str, ret, params, impl=None) -> cel.Overload:
    if impl is None:
        return cel.Overload(oid, ret, params)
    return cel.Overload(oid, ret, params, impl=impl)


def _includes(target, arg) -> bool:
    """DRA's includes (1.36, dracel includesFunc): a list is searched in order, and reaching a 49th value
    is an error (a match among the first 48 is found first)."""
    if isinstance(target, list):
        for i, value in enumerate(target):
            if i >= 48:
                raise ValueError("'includes' function cannot be applied to lists longer than 48 values")
            if cel_equal(value, arg):
                return True
        return False
    return cel_equal(target, arg)


def includes_any_length(target, arg) -> bool:
    """The lists library's includes (1.37): an element of the list, or the value itself, by CEL equality."""
    if isinstance(target, list):
        return any(cel_equal(v, arg) for v in target)
    return cel_equal(target, arg)


def _re2():
    import re2  # google-re2: the regex dialect CEL specifies

    return re2


def _find(s: str, pattern: str) -> str:
    match = _re2().search(pattern, s)
    return match.group(0) if match else ""


def _find_all(s: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in _re2().finditer(pattern, s)]
    return found if limit < 0 else found[:limit]


def cel_equal(a, b) -> bool:
    """CEL's heterogeneous equality on plain values: numbers compare by value, bool is not a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (bytes, bytearray)) and isinstance(b, (bytes, bytearray)):
        return bytes(a) == bytes(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        # Keys are int, uint, bool or string: looked up, not scanned (linear in the map's size); a bool key is
        # never a number's.
        keyed = {_map_key(k): v for k, v in b.items()}
        return len(a) == len(b) and all(_map_key(k) in keyed and cel_equal(v, keyed[_map_key(k)])
                                        for k, v in a.items())
    return type(a) is type(b) and a == b


def _map_key(key) -> tuple:
    return isinstance(key, bool), key


def _index_of(values, x) -> int:
    return next((i for i, v in enumerate(values) if cel_equal(v, x)), -1)


def _last_index_of(values, x) -> int:
    return next((i for i in range(len(values) - 1, -1, -1) if cel_equal(values[i], x)), -1)


@cache
def list_index_extension() -> cel.CelExtension:
    """Kubernetes' `<list(A)>.indexOf(A)` / `lastIndexOf(A)` with implementations, for evaluation.

    The strings extension owns both names, so they join it as an extension (declared as functions,
    they could not). Declared over dyn, which the runtime matches with any kind here; checking uses
    cel-go's templated declaration (`signatures`)."""
    decls = [cel.FunctionDecl(name, [_member(f"list_dyn_{oid}_int", T.INT, [T.List(T.DYN), T.DYN], impl)])
             for name, oid, impl in (("indexOf", "index_of", _index_of),
                                     ("lastIndexOf", "last_index_of", _last_index_of))]
    return cel.CelExtension("kubernetes.lists", decls)


def _lists() -> list[cel.FunctionDecl]:
    # indexOf/lastIndexOf: `list_index_extension` (evaluation) and `signatures` (checking).
    decls: dict[str, list[cel.Overload]] = {"isSorted": [], "sum": [], "max": [], "min": []}
    for name, t in _COMPARABLE.items():
        lt = T.List(t)
        decls["isSorted"].append(_member(f"list_{name}_is_sorted_bool", T.BOOL, [lt]))
        decls["max"].append(_member(f"list_{name}_max_{name}", t, [lt]))
        decls["min"].append(_member(f"list_{name}_min_{name}", t, [lt]))
    for name in _SUMMABLE:
        t = _COMPARABLE[name]
        decls["sum"].append(_member(f"list_{name}_sum_{name}", t, [T.List(t)]))
    return [cel.FunctionDecl(name, overloads) for name, overloads in decls.items()]


@cache
def kubernetes_functions(with_includes: bool, includes_id: str = "dra_includes_dyn_dyn",
                         runtime: bool = False) -> tuple[cel.FunctionDecl, ...]:
    """The Kubernetes base libraries available to selectors, plus `includes` when enabled: DRA's own
    (`dra_includes_dyn_dyn`) or, from 1.37 on, the lists library's (`list_includes_dyn_dyn`).
    `runtime`: for evaluation, where `includes` takes `google.protobuf.Any` (the runtime matches that
    kind with every value, dyn with none); the descriptor pool must hold it."""
    S, B, I = T.STRING, T.BOOL, T.INT  # noqa: E741
    decls = [
        # quantity
        cel.FunctionDecl("quantity", [_global("string_to_quantity", QUANTITY, [S])]),
        cel.FunctionDecl("isQuantity", [_global("is_quantity_string", B, [S])]),
        cel.FunctionDecl("sign", [_global("quantity_sign", I, [QUANTITY])]),  # global upstream too
        cel.FunctionDecl("isGreaterThan", [_member("quantity_is_greater_than", B, [QUANTITY, QUANTITY]),
                                           _member("semver_is_greater_than", B, [SEMVER, SEMVER])]),
        cel.FunctionDecl("isLessThan", [_member("quantity_is_less_than", B, [QUANTITY, QUANTITY]),
                                        _member("semver_is_less_than", B, [SEMVER, SEMVER])]),
        cel.FunctionDecl("compareTo", [_member("quantity_compare_to", I, [QUANTITY, QUANTITY]),
                                       _member("semver_compare_to", I, [SEMVER, SEMVER])]),
        cel.FunctionDecl("asApproximateFloat", [_member("quantity_get_float", T.DOUBLE, [QUANTITY])]),
        cel.FunctionDecl("asInteger", [_member("quantity_get_int", I, [QUANTITY])]),
        cel.FunctionDecl("isInteger", [_member("quantity_is_integer", B, [QUANTITY])]),
        cel.FunctionDecl("add", [_member("quantity_add", QUANTITY, [QUANTITY, QUANTITY]),
                                 _member("quantity_add_int", QUANTITY, [QUANTITY, I])]),
        cel.FunctionDecl("sub", [_member("quantity_sub", QUANTITY, [QUANTITY, QUANTITY]),
                                 _member("quantity_sub_int", QUANTITY, [QUANTITY, I])]),
        # semver
        cel.FunctionDecl("semver", [_global("string_to_semver", SEMVER, [S]),
                                    _global("string_bool_to_semver", SEMVER, [S, B])]),
        cel.FunctionDecl("isSemver", [_global("is_semver_string", B, [S]),
                                      _global("is_semver_string_bool", B, [S, B])]),
        cel.FunctionDecl("major", [_member("semver_major", I, [SEMVER])]),
        cel.FunctionDecl("minor", [_member("semver_minor", I, [SEMVER])]),
        cel.FunctionDecl("patch", [_member("semver_patch", I, [SEMVER])]),
        # regex
        cel.FunctionDecl("find", [_member("string_find_string", S, [S, S], _find)]),
        cel.FunctionDecl("findAll", [_member("string_find_all_string", T.List(S), [S, S], _find_all),
                                     _member("string_find_all_string_int", T.List(S), [S, S, I], _find_all)]),
        # urls
        cel.FunctionDecl("url", [_global("string_to_url", URL, [S])]),
        cel.FunctionDecl("isURL", [_global("is_url_string", B, [S])]),
        *[cel.FunctionDecl(name, [_member(oid, S, [URL])]) for name, oid in (
            ("getScheme", "url_get_scheme"), ("getHost", "url_get_host"), ("getHostname", "url_get_hostname"),
            ("getPort", "url_get_port"), ("getEscapedPath", "url_get_escaped_path"))],
        cel.FunctionDecl("getQuery", [_member("url_get_query", T.Map(S, T.List(S)), [URL])]),
        # ip and cidr
        cel.FunctionDecl("ip", [_global("string_to_ip", IP, [S]), _member("cidr_ip", IP, [CIDR])]),
        cel.FunctionDecl("isIP", [_global("is_ip", B, [S])]),
        cel.FunctionDecl("ip.isCanonical", [_global("ip_is_canonical", B, [S])]),
        cel.FunctionDecl("family", [_member("ip_family", I, [IP])]),
        *[cel.FunctionDecl(name, [_member(oid, B, [IP])]) for name, oid in (
            ("isUnspecified", "ip_is_unspecified"), ("isLoopback", "ip_is_loopback"),
            ("isLinkLocalMulticast", "ip_is_link_local_multicast"),
            ("isLinkLocalUnicast", "ip_is_link_local_unicast"), ("isGlobalUnicast", "ip_is_global_unicast"))],
        cel.FunctionDecl("cidr", [_global("string_to_cidr", CIDR, [S])]),
        cel.FunctionDecl("isCIDR", [_global("is_cidr", B, [S])]),
        cel.FunctionDecl("containsIP", [_member("cidr_contains_ip_string", B, [CIDR, S]),
                                        _member("cidr_contains_ip_ip", B, [CIDR, IP])]),
        cel.FunctionDecl("containsCIDR", [_member("cidr_contains_cidr_string", B, [CIDR, S]),
                                          _member("cidr_contains_cidr", B, [CIDR, CIDR])]),
        cel.FunctionDecl("prefixLength", [_member("cidr_prefix_length", I, [CIDR])]),
        cel.FunctionDecl("masked", [_member("cidr_masked", CIDR, [CIDR])]),
        # named formats
        cel.FunctionDecl("validate", [_member("format-validate", T("optional_type(list(string))"), [FORMAT, S])]),
        cel.FunctionDecl("format.named", [_global("format-named", T("optional_type(kubernetes.NamedFormat)"), [S])]),
        *[cel.FunctionDecl(f"format.{name}", [_global(f"format.{name}", FORMAT, [])]) for name in FORMAT_NAMES],
        *_lists(),
    ]
    if with_includes:
        value = T("google.protobuf.Any") if runtime else T.DYN
        impl = includes_any_length if includes_id == "list_includes_dyn_dyn" else _includes
        decls.append(cel.FunctionDecl("includes", [_member(includes_id, B, [value, value], impl)]))
    return tuple(decls)
