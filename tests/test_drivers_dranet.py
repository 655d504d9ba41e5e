"""dra.net: dranet's own unit tests, ported (kubernetes-sigs/dranet commit f258477cbea0551b7ad239e3873a997a7a3d116b).

Source: pkg/apis/validation_test.go (TestValidateConfig, TestIsValidLinuxInterfaceName,
TestValidateInterfaceConfig, TestValidateRoutes, TestValidateRules, TestValidateNeighborConfig). Each
Go struct is the JSON it marshals to (omitempty fields left out); `errCount` is compared with the number
of field errors, which sit at the sub-path the driver's own message names.
"""

from __future__ import annotations

import pytest

from drivercases import claim_with, fields

DRIVER = "dra.net"
P = "spec.devices.config[0].opaque.parameters"


def count(parameters: dict) -> int:
    return len(fields(claim_with(DRIVER, parameters)))


VALID_CONFIG = {"interface": {"name": "eth0", "addresses": ["192.168.1.1/24"], "mtu": 1500},
                "routes": [{"destination": "0.0.0.0/0", "gateway": "192.168.1.254"}],
                "rules": [{"source": "10.0.0.0/8", "table": 100}],
                "ethtool": {"features": {"tso": True}}}


@pytest.mark.parametrize("name, parameters, expected", [
    ("valid full config", VALID_CONFIG, []),
    ("unknown field (strict unmarshal error)", {"interface": {"name": "eth0", "unknownField": "test"}},
     [(f"{P}.interface.unknownField", "FieldValueForbidden")]),
    ("config with interface validation error", {"interface": {"name": "eth/0"}},
     [(f"{P}.interface.name", "FieldValueInvalid")]),
    ("config with route validation error", {"interface": {"name": "eth0"}, "routes": [{"destination": "invalid-cidr"}]},
     # Go: the CIDR error, and the missing gateway of a universe-scope route
     [(f"{P}.routes[0].destination", "FieldValueInvalid"), (f"{P}.routes[0].gateway", "FieldValueRequired")]),
    ("config with rule validation error", {"interface": {"name": "eth0"}, "rules": [{"source": "invalid-cidr"}]},
     [(f"{P}.rules[0].source", "FieldValueInvalid")]),
    ("config with VRF and empty name", {"interface": {"name": "eth0", "vrf": {}}},
     [(f"{P}.interface.vrf.name", "FieldValueRequired")]),
    ("config with VRF and rules validation error",
     {"interface": {"name": "eth0", "vrf": {"name": "my-vrf"}}, "rules": [{"table": 100}]},
     [(f"{P}.rules", "FieldValueForbidden")]),
    # sigs.k8s.io/json is case-sensitive and NetworkConfig has no TypeMeta
    ("case matters", {"Interface": {"name": "eth0"}}, [(f"{P}.Interface", "FieldValueForbidden")]),
    ("no apiVersion or kind", {"apiVersion": "v1", "interface": {}}, [(f"{P}.apiVersion", "FieldValueForbidden")]),
])
def test_validate_config(name, parameters, expected):
    assert fields(claim_with(DRIVER, parameters)) == sorted(expected)


@pytest.mark.parametrize("name, if_name, expect_err", [
    ("valid short", "eth0", False), ("valid with hyphen", "my-nic", False), ("valid with underscore", "my_nic", False),
    ("valid with period", "my.nic", False), ("valid max length", "a" * 15, False), ("empty name (allowed)", "", False),
    ("too long", "a" * 16, True), ("contains slash", "eth/0", True), ("contains space", "eth 0", True),
    ("is dot", ".", True), ("is dotdot", "..", True), ("contains invalid char", "eth!", True),
    # beyond the port: letters of any script count, and the limit is in bytes
    ("unicode letters", "réseau0", False), ("fifteen bytes, eight letters", "é" * 8, True),
])
def test_is_valid_linux_interface_name(name, if_name, expect_err):
    assert (count({"interface": {"name": if_name}}) > 0) is expect_err


@pytest.mark.parametrize("name, interface, err_count", [
    ("valid", {"name": "eth0", "addresses": ["10.0.0.1/24"], "mtu": 1500, "gsoMaxSize": 65536}, 0),
    ("invalid name", {"name": "eth/"}, 1),
    ("invalid address", {"name": "eth0", "addresses": ["10.0.0/24"]}, 1),
    ("invalid MTU (zero)", {"name": "eth0", "mtu": 0}, 1),
    ("invalid MTU (too small)", {"name": "eth0", "mtu": 67}, 1),
    ("valid MTU (minimum)", {"name": "eth0", "mtu": 68}, 0),
    ("invalid GSO MaxSize", {"name": "eth0", "gsoMaxSize": 0}, 1),
    ("invalid GRO MaxSize", {"name": "eth0", "groMaxSize": -1}, 1),
    ("invalid GSO V4 MaxSize", {"name": "eth0", "gsoIPv4MaxSize": 0}, 1),
    ("invalid GRO V4 MaxSize", {"name": "eth0", "groIPv4MaxSize": -1}, 1),
    ("valid hardware address", {"name": "eth0", "hardwareAddr": "00:1A:2B:3C:4D:5E"}, 0),
    ("invalid hardware address", {"name": "eth0", "hardwareAddr": "00-1A-2B-3C-4D-5E-XX"}, 1),
    ("valid with dhcp", {"name": "eth0", "dhcp": True}, 0),
    ("invalid with dhcp and addresses", {"name": "eth0", "dhcp": True, "addresses": ["10.0.0.1/24"]}, 1),
    ("valid with dhcp false and addresses", {"name": "eth0", "dhcp": False, "addresses": ["10.0.0.1/24"]}, 0),
    ("valid ARP settings", {"name": "eth0", "arpIgnore": 1, "arpAnnounce": 2}, 0),
    ("valid ARP settings at range bounds", {"name": "eth0", "arpIgnore": 8, "arpAnnounce": 0}, 0),
    ("invalid arpIgnore (too large)", {"name": "eth0", "arpIgnore": 9}, 1),
    ("invalid arpIgnore (negative)", {"name": "eth0", "arpIgnore": -1}, 1),
    ("invalid arpIgnore (reserved 4)", {"name": "eth0", "arpIgnore": 4}, 1),
    ("invalid arpIgnore (reserved 5)", {"name": "eth0", "arpIgnore": 5}, 1),
    ("invalid arpIgnore (reserved 6)", {"name": "eth0", "arpIgnore": 6}, 1),
    ("invalid arpIgnore (reserved 7)", {"name": "eth0", "arpIgnore": 7}, 1),
    ("invalid arpAnnounce (too large)", {"name": "eth0", "arpAnnounce": 3}, 1),
    ("invalid arpAnnounce (negative)", {"name": "eth0", "arpAnnounce": -1}, 1),
    ("multiple errors", {"name": "eth/0", "addresses": ["badip"], "mtu": 0}, 3),
    ("nil config", {}, 0),
    ("MAC address forms of net.ParseMAC", {"hardwareAddr": "0000.5e00.5301"}, 0),
    ("an int32 out of range", {"mtu": 1 << 31}, 1),
])
def test_validate_interface_config(name, interface, err_count):
    assert count({"interface": interface}) == err_count


@pytest.mark.parametrize("name, routes, err_count", [
    ("valid default route", [{"destination": "0.0.0.0/0", "gateway": "192.168.1.1"}], 0),
    ("valid link-local route", [{"destination": "169.254.0.0/16", "scope": 253}], 0),
    ("valid route with table", [{"destination": "10.10.10.0/24", "gateway": "192.168.1.1", "table": 100}], 0),
    ("invalid route with negative table", [{"destination": "10.10.10.0/24", "gateway": "192.168.1.1", "table": -1}], 1),
    ("empty destination", [{"gateway": "192.168.1.1"}], 1),
    ("invalid destination CIDR", [{"destination": "10.0.0/24", "gateway": "192.168.1.1"}], 1),
    ("valid host route as /32", [{"destination": "192.168.1.1/32", "gateway": "192.168.1.254"}], 0),
    ("bare IPv4 destination rejected", [{"destination": "192.168.1.1", "gateway": "192.168.1.254"}], 1),
    ("bare IPv6 destination rejected", [{"destination": "2001:db8::1", "scope": 253}], 1),
    ("universe scope no gateway", [{"destination": "10.0.0.0/8"}], 1),
    ("invalid gateway IP", [{"destination": "0.0.0.0/0", "gateway": "not-an-ip"}], 1),
    ("invalid scope value", [{"destination": "10.0.0.0/8", "scope": 100, "gateway": "192.168.1.1"}], 1),
    ("invalid source IP", [{"destination": "0.0.0.0/0", "gateway": "192.168.1.1", "source": "not-an-ip"}], 1),
    ("valid IPv6 route with gateway matching the destination IP family",
     [{"destination": "2001:db8:1::/64", "gateway": "2001:db8::1"}], 0),
    ("valid IPv4 route with gateway and source matching the destination IP family",
     [{"destination": "10.0.0.0/8", "gateway": "192.168.1.1", "source": "192.168.1.2"}], 0),
    ("gateway family mismatch (IPv4 destination, IPv6 gateway)",
     [{"destination": "10.0.0.0/8", "gateway": "2001:db8::1"}], 1),
    ("gateway family mismatch (IPv6 destination, IPv4 gateway)",
     [{"destination": "2001:db8::/64", "gateway": "192.168.1.1"}], 1),
    ("source family mismatch (IPv4 destination, IPv6 source)",
     [{"destination": "10.0.0.0/8", "gateway": "192.168.1.1", "source": "2001:db8::2"}], 1),
])
def test_validate_routes(name, routes, err_count):
    assert count({"routes": routes}) == err_count


@pytest.mark.parametrize("name, rules, err_count", [
    ("valid rule", [{"source": "10.0.0.0/8", "table": 100, "priority": 10}], 0),
    ("valid rule - priority at min", [{"priority": 0, "table": 100}], 0),
    ("valid rule - priority at max", [{"priority": 32767, "table": 100}], 0),
    ("invalid priority - too high", [{"priority": 32768}], 1),
    ("invalid priority - negative", [{"priority": -1}], 1),
    ("invalid table", [{"table": -1}], 1),
    ("invalid source CIDR", [{"source": "invalid-cidr"}], 1),
    ("invalid destination CIDR", [{"destination": "invalid-cidr"}], 1),
    ("valid IPv6 rule with matching source and destination IP family",
     [{"source": "2001:db8::/64", "destination": "2001:db8:1::/64", "table": 100}], 0),
    ("source and destination family mismatch", [{"source": "10.0.0.0/8", "destination": "2001:db8::/32", "table": 100}],
     1),
    ("multiple errors", [{"priority": -1, "table": -1, "source": "invalid", "destination": "invalid"}], 4),
])
def test_validate_rules(name, rules, err_count):
    assert count({"rules": rules}) == err_count


@pytest.mark.parametrize("name, neighbors, err_count", [
    ("valid neighbor", [{"destination": "192.168.1.1", "hardwareAddr": "00:1A:2B:3C:4D:5E"}], 0),
    ("empty destination", [{"hardwareAddr": "00:1A:2B:3C:4D:5E"}], 1),
    ("invalid destination IP", [{"destination": "invalid-ip", "hardwareAddr": "00:1A:2B:3C:4D:5E"}], 1),
    ("empty hardware address", [{"destination": "192.168.1.1"}], 1),
    ("invalid hardware address", [{"destination": "192.168.1.1", "hardwareAddr": "invalid-mac"}], 1),
    ("multiple errors", [{"destination": "bad-ip", "hardwareAddr": "bad-mac"}], 2),
])
def test_validate_neighbor_config(name, neighbors, err_count):
    assert count({"neighbors": neighbors}) == err_count


@pytest.mark.parametrize("table, ok", [(1, True), (0, False), (-1, False), (252, True), (253, False), (254, False),
                                       (255, False), (256, True)])
def test_vrf_table(table, ok):
    assert (count({"interface": {"vrf": {"name": "v", "table": table}}}) == 0) is ok
