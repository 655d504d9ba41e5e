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
