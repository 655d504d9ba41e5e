"""Kubernetes' IP and CIDR CEL libraries (apiserver pkg/cel/library ip.go, cidr.go) with implementations, for
the rules that evaluate here (driver profiles). Addresses follow Go's netip: IPv4 in four decimal parts
without leading zeros, IPv6 without a zone; like Kubernetes, IPv4-mapped IPv6 addresses are refused.
The values are small messages (`kubernetes.IP`, `kubernetes.CIDR`) holding the canonical text.
"""

from __future__ import annotations

import ipaddress
import re
from functools import cache

from cel_expr_python import cel
from google.protobuf import message_factory

T = cel.Type
IP_TYPE, CIDR_TYPE = "kubernetes.IP", "kubernetes.CIDR"
MESSAGES = ("IP", "CIDR")
_BITS = re.compile(r"^(?:0|[1-9][0-9]{0,2})$")


def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """netip.ParseAddr plus Kubernetes' refusals; ValueError when not an address."""
    if "%" in text:
        raise ValueError(f"IP address with zone value is not allowed: {text!r}")
    address = ipaddress.ip_address(text)  # refuses IPv4 leading zeros, as Go does
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address is not allowed: {text!r}")
    return address


def parse_cidr(text: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """netip.ParsePrefix plus Kubernetes' refusals: (address, prefix length); ValueError when not a CIDR."""
    address_text, slash, bits = text.partition("/")
    if not slash or not _BITS.match(bits):
        raise ValueError(f"invalid CIDR {text!r}")
    address = parse_ip(address_text)
    length = int(bits)
    if length > address.max_prefixlen:
        raise ValueError(f"invalid CIDR {text!r}: prefix length out of range")
    return address, length


def _ok(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


@cache
def _classes(pool):
    return tuple(message_factory.GetMessageClass(pool.FindMessageTypeByName(n)) for n in (IP_TYPE, CIDR_TYPE))


def functions(pool) -> list:
    """The declarations with implementations; `pool` holds the `kubernetes.IP`/`kubernetes.CIDR` messages."""
    ip_class, cidr_class = _classes(pool)
    IP, CIDR = T(IP_TYPE), T(CIDR_TYPE)
    S, B, I = T.STRING, T.BOOL, T.INT  # noqa: E741

    def to_ip(text: str):
        return ip_class(v=str(parse_ip(text)))

    def to_cidr(text: str):
        address, length = parse_cidr(text)
        return cidr_class(v=f"{address}/{length}")

    def cidr_ip(value):
        return ip_class(v=value.v.partition("/")[0])

    def family(value) -> int:
        return ipaddress.ip_address(value.v).version

    def contains(value, other) -> bool:
        text = other if isinstance(other, str) else other.v
        network = ipaddress.ip_network(value.v, strict=False)
        return parse_ip(text) in network

    def overload(oid, ret, params, impl, member=False):
        return cel.Overload(oid, ret, params, is_member=member, impl=impl)

    return [
        cel.FunctionDecl("isIP", [overload("is_ip", B, [S], lambda s: _ok(parse_ip, s))]),
        cel.FunctionDecl("ip", [overload("string_to_ip", IP, [S], to_ip),
                                overload("cidr_ip", IP, [CIDR], cidr_ip, True)]),
        cel.FunctionDecl("family", [overload("ip_family", I, [IP], family, True)]),
        cel.FunctionDecl("isCIDR", [overload("is_cidr", B, [S], lambda s: _ok(parse_cidr, s))]),
        cel.FunctionDecl("cidr", [overload("string_to_cidr", CIDR, [S], to_cidr)]),
        cel.FunctionDecl("prefixLength", [overload("cidr_prefix_length", I, [CIDR],
                                                   lambda c: int(c.v.partition("/")[2]), True)]),
        cel.FunctionDecl("containsIP", [overload("cidr_contains_ip_string", B, [CIDR, S], contains, True),
                                        overload("cidr_contains_ip_ip", B, [CIDR, IP], contains, True)]),
    ]
