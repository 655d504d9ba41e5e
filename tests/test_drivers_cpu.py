"""dra.cpu: dra-driver-cpu's own unit tests, ported (kubernetes-sigs/dra-driver-cpu commit
de98098690f25e59d781c1659b5c3e0b0a210c2a).

Sources: api/opaque_config_test.go (TestParseOpaqueConfig) and pkg/driver/dra_hooks_test.go
(TestOpaqueConfigAllocation: the cases decided by the configuration alone; the others need the node's CPUs
or other claims). The driver decodes with Go's encoding/json: unknown fields are ignored and keys match in
any case.
"""

from __future__ import annotations

import pytest

from drivercases import class_with, claim_with, fields, messages

DRIVER = "dra.cpu"
P = "spec.devices.config[0].opaque.parameters"


@pytest.mark.parametrize("name, parameters, expected", [
    ("valid config", {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": "2-5"}}, []),
    ("invalid - empty cpuset", {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": ""}},
     [(f"{P}.cpuConfig", "FieldValueRequired")]),
    ("invalid - invalid cpuset format", {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": "abc"}},
     [(f"{P}.cpuConfig.cpuset", "FieldValueInvalid")]),
    ("invalid - unsupported version", {"apiVersion": "v1beta1", "cpuConfig": {"cpuset": "0-3"}},
     [(f"{P}.apiVersion", "FieldValueNotSupported")]),
    ("invalid - missing version", {"cpuConfig": {"cpuset": "0-3"}}, [(f"{P}.apiVersion", "FieldValueRequired")]),
    # "invalid - malformed json": the API server refuses a body that is not JSON before any webhook sees it.
    # TestOpaqueConfigAllocation
    ("CPU allocation with other device claim configurations inside the same slice",
     {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": "2,6"}}, []),
    ("CPU allocation with incorrect fields in raw data", {"apiVersion": "v1beta1", "cpuConfig": {"cpuset": "0,4"}},
     [(f"{P}.apiVersion", "FieldValueNotSupported")]),
    # encoding/json: unknown fields are ignored, keys match in any case, null is the zero value
    ("unknown fields are ignored", {"apiVersion": "v1alpha1", "kind": "X", "cpuConfig": {"cpuset": "1", "x": 1}}, []),
    ("keys in any case", {"APIVersion": "v1alpha1", "CpuConfig": {"CPUSet": "0-1"}}, []),
    ("keys in any case, still checked", {"APIVERSION": "v1alpha1", "cpuconfig": {"CPUSET": "x"}},
     [(f"{P}.cpuconfig.CPUSET", "FieldValueInvalid")]),
    ("a number is not a string", {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": 3}},
     [(f"{P}.cpuConfig.cpuset", "FieldValueTypeInvalid")]),
    ("no cpuConfig", {"apiVersion": "v1alpha1"}, [(f"{P}.cpuConfig", "FieldValueRequired")]),
    ("null cpuConfig", {"apiVersion": "v1alpha1", "cpuConfig": None}, [(f"{P}.cpuConfig", "FieldValueRequired")]),
])
def test_parse_opaque_config(name, parameters, expected):
    assert fields(claim_with(DRIVER, parameters)) == sorted(expected)


@pytest.mark.parametrize("cpuset, ok", [
    ("0", True), ("0-3", True), ("0-3,8,10-11", True), ("+1", True), ("007", True), ("3-3", True),
    ("", False), ("-1", False), ("1,,2", False), ("1-", False), ("0-3,", False), (" 1", False), ("1-2-3", False),
    ("a-b", False),
])
def test_cpuset_syntax(cpuset, ok):
    parameters = {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": cpuset}}
    assert (fields(claim_with(DRIVER, parameters)) == []) is ok


def test_configuration_from_a_device_class_is_refused():
    """TestOpaqueConfigAllocation "Incorrect source": "opaque config: configuration from DeviceClass is not
    supported by this driver, custom cpusets must be defined per ResourceClaim request"."""
    parameters = {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": "2,6"}}
    assert messages(class_with(DRIVER, parameters)) == [
        "spec.config[0].opaque: Forbidden: driver dra.cpu does not accept configuration from a DeviceClass"]


# k8s.io/utils/cpuset Parse's other rules (v0.0.0-20260626114624-be93311217bd, the version the driver's go.mod
# pins): "invalid range %q (%d > %d)" when a range starts after its end, and strconv.Atoi's "value out of range"
# for an id past int64. Each verdict below is the driver's own api.ParseOpaqueConfig at commit de980986 on that
# cpuset (run once with Go; its output in the comments): both sides of every boundary.
@pytest.mark.parametrize("cpuset, ok", [
    ("1-1", True), ("2-1", False),  # invalid range "2-1" (2 > 1)
    ("3-1", False),  # invalid range "3-1" (3 > 1)
    ("9-10", True), ("10-9", False),  # by value, not as text
    ("9-0010", True), ("0010-9", False),  # leading zeros read by Atoi
    ("1-+3", True), ("2-+1", False), ("+3-1", False),  # signs read by Atoi
    ("0-3,5-5", True), ("0-3,5-4", False), ("5,4-3", False), ("4-5,3", True),  # any range, not only the first
    ("9223372036854775807", True), ("9223372036854775808", False),  # strconv.Atoi: value out of range
    ("0-9223372036854775807", True), ("0-99999999999999999999", False),
])
def test_cpuset_range_order_and_id_range(cpuset, ok):
    parameters = {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": cpuset}}
    found = messages(claim_with(DRIVER, parameters))
    assert (found == []) is ok, found
    if not ok:
        [message] = found
        assert message.startswith(f"{P}.cpuConfig.cpuset: Invalid value: \"string\": failed to parse cpuset: a "
                                  "range starts after its end (e.g. 3-1), or a CPU id is past 9223372036854775807")


@pytest.mark.parametrize("last, ok", [("4094-4095", True), ("4095-4094", False)])
def test_cpuset_of_the_longest_length_is_judged_in_full(last, ok):
    """At maxLength (4096 characters, about 520 ranges: the comprehension runs once per id, far below cel-cpp's
    10,000 iterations), the order of the last range still decides; the rule is within the per-call limit, so it
    is never left unevaluated."""
    cpuset = ",".join(f"{i}-{i + 1}" for i in range(0, 1200, 2))
    cpuset = (cpuset[:4096 - len(last) - 1].rsplit(",", 1)[0] + "," + last)
    assert 4080 <= len(cpuset) <= 4096
    parameters = {"apiVersion": "v1alpha1", "cpuConfig": {"cpuset": cpuset}}
    assert (fields(claim_with(DRIVER, parameters)) == []) is ok


def test_the_range_order_rule_is_within_the_budgets():
    from pathlib import Path

    from webhook.drivers.profiles import read_profile
    from webhook.drivers.rules import PER_CALL_LIMIT

    path = Path(__file__).parent.parent / "webhook" / "drivers" / "bundled" / "dra.cpu.yaml"
    [kind] = read_profile(path.read_text(), str(path)).kinds
    rules = kind.schema.properties["cpuConfig"].properties["cpuset"].rules
    assert [r.cost for r in rules] == [5332, 93423]  # cel-go's estimator, as apiextensions prices CRD rules
    assert max(r.cost for r in rules) <= PER_CALL_LIMIT
