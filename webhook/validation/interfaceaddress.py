"""apimachinery's IsValidInterfaceAddress: an IP address with prefix length, in canonical form."""

from __future__ import annotations

import ipaddress

from webhook.field import ErrorList, Path, invalid

_NOT_CIDR = "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"


def _parse_ipv4_sloppy(text: str) -> ipaddress.IPv4Address | None:
    # netutils' sloppy parser accepts leading zeros in IPv4 octets.
    parts = text.split(".")
    if len(parts) != 4 or not all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
        return None
    octets = [int(p) for p in parts]
    if any(o > 255 for o in octets):
        return None
    return ipaddress.IPv4Address(bytes(octets))


def _parse_cidr_sloppy(value: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int] | None:
    """(ip, prefix bits) as Go's ParseCIDR sees them, or None when it fails."""
    addr, sep, mask = value.partition("/")
    if not sep or not mask.isascii() or not mask.isdigit():
        return None
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    if ":" in addr:
        if "%" in addr:
            return None
        try:
            ip = ipaddress.IPv6Address(addr)
        except ValueError:
            return None
        bits = 128
    else:
        ip, bits = _parse_ipv4_sloppy(addr), 32
        if ip is None:
            return None
    prefix = int(mask)
    if prefix > bits:
        return None
    return ip, prefix


def validate_interface_address(value: str, path: Path) -> ErrorList:
    parsed = _parse_cidr_sloppy(value)
    if parsed is None:
        return [invalid(path, value, _NOT_CIDR)]
    ip, prefix = parsed
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        # Go prints a v4-mapped address as IPv4 and shortens the mask accordingly.
        ip = ip.ipv4_mapped
        if prefix > 32:
            prefix -= 96
    canonical = f"{ip.compressed}/{prefix}"
    if value != canonical:
        return [invalid(path, value, f'must be in canonical form ("{canonical}")')]
    return []
