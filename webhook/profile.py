"""The cluster a verdict is for: a Kubernetes version and its feature gates.

A `Profile` is passed down to conversion, defaulting, validation, CEL and allocation, never read
from a global. Gate data follows kube-apiserver's versioned feature specs (`pkg/features/
kube_features.go`): each supported version is the previous one plus a delta, so that the next
Kubernetes version is data, not edits.

`--feature-gates` takes kube-apiserver's syntax: `DRAListTypeAttributes=true,DRAAdminAccess=false`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from webhook.behaviours import BEHAVIOURS, Behaviours
from webhook.runtimeconfig import RuntimeConfig
from webhook.served import registered_versions
from webhook.drivers.registry import DriverSource

ALPHA, BETA, GA = "Alpha", "Beta", "GA"


@dataclass(frozen=True)
class GateSpec:
    """One gate at one Kubernetes version: its stage, default, and whether it is locked to the default."""

    stage: str
    default: bool
    locked: bool = False


# The DRA gates of Kubernetes 1.34 (the VersionedSpecs rows for 1.34), the first table. DynamicResourceAllocation
# went GA in 1.34 without being locked; DeviceTaintRule is governed by DRADeviceTaints (no DRADeviceTaintRules yet).
_GATES_1_34: dict[str, GateSpec] = {
    "DynamicResourceAllocation": GateSpec(GA, True),
    "DRAAdminAccess": GateSpec(BETA, True),
    "DRAPrioritizedList": GateSpec(BETA, True),
    "DRADeviceTaints": GateSpec(ALPHA, False),
    "DRAPartitionableDevices": GateSpec(ALPHA, False),
    "DRAConsumableCapacity": GateSpec(ALPHA, False),
    "DRADeviceBindingConditions": GateSpec(ALPHA, False),
    "DRAResourceClaimDeviceStatus": GateSpec(BETA, True),
    "DRAExtendedResource": GateSpec(ALPHA, False),
    "DRASchedulerFilterTimeout": GateSpec(BETA, True),
}

# 1.35: what changed against 1.34 (DynamicResourceAllocation locked, DeviceTaintRule's own gate).
_DELTA_1_35: dict[str, GateSpec] = {
    "DynamicResourceAllocation": GateSpec(GA, True, locked=True),
    "DRADeviceTaintRules": GateSpec(ALPHA, False),
}
_GATES_1_35 = {**_GATES_1_34, **_DELTA_1_35}

# 1.36: what changed against 1.35 (stage moves and the new DRA gates).
_DELTA_1_36: dict[str, GateSpec] = {
    "DRAAdminAccess": GateSpec(GA, True, locked=True),
    "DRAPrioritizedList": GateSpec(GA, True),
    "DRADeviceTaints": GateSpec(BETA, True),
    "DRADeviceTaintRules": GateSpec(BETA, False),
    "DRAPartitionableDevices": GateSpec(BETA, True),
    "DRAConsumableCapacity": GateSpec(BETA, True),
    "DRADeviceBindingConditions": GateSpec(BETA, True),
    "DRAExtendedResource": GateSpec(BETA, True),
    "DRAListTypeAttributes": GateSpec(ALPHA, False),
    "DRANodeAllocatableResources": GateSpec(ALPHA, False),
    "DRAResourcePoolStatus": GateSpec(ALPHA, False),
    "DRAResourceClaimGranularStatusAuthorization": GateSpec(BETA, True),
    "DRAWorkloadResourceClaims": GateSpec(ALPHA, False),
}
_GATES_1_36 = {**_GATES_1_35, **_DELTA_1_36}

# 1.37: what changed against 1.36 (stage moves and the new DRA gates). DRAFractionalCapacityRange is
# Beta but off unless --min-compatibility-version>=1.37, which a plain 1.37 server does not set.
_DELTA_1_37: dict[str, GateSpec] = {
    "DRAPrioritizedList": GateSpec(GA, True, locked=True),
    "DRADeviceTaints": GateSpec(GA, True),
    "DRADeviceTaintRules": GateSpec(GA, True),
    "DRAResourceClaimDeviceStatus": GateSpec(GA, True, locked=True),
    "DRAExtendedResource": GateSpec(GA, True, locked=True),
    "DRAPartitionableDevicesType": GateSpec(ALPHA, False),
    "DRAOptionalNodeOperations": GateSpec(ALPHA, False),
    "DRAFractionalCapacityRange": GateSpec(BETA, False),
    "DRADerivedAttributes": GateSpec(ALPHA, False),
    "DRADeviceCompatibilityGroups": GateSpec(ALPHA, False),
}

# Gate tables per supported Kubernetes version; a later version is the earlier table plus a delta.
GATES: dict[str, Mapping[str, GateSpec]] = {
    "1.34": MappingProxyType(_GATES_1_34),
    "1.35": MappingProxyType(_GATES_1_35),
    "1.36": MappingProxyType(_GATES_1_36),
    "1.37": MappingProxyType({**_GATES_1_36, **_DELTA_1_37}),
}

DEFAULT_VERSION = "1.36"
SUPPORTED_VERSIONS: tuple[str, ...] = tuple(GATES)
if set(BEHAVIOURS) != set(GATES):
    raise AssertionError("every supported version needs its behaviours (behaviours.py) and its gates")


class ProfileError(ValueError):
    """A version or --feature-gates value the target Kubernetes does not accept (a usage error)."""


@dataclass(frozen=True)
class Profile:
    """Kubernetes version + the value of every known gate. Hashable, so it can key caches."""

    version: str = DEFAULT_VERSION
    gates: Mapping[str, bool] = field(default_factory=lambda: _defaults(DEFAULT_VERSION))
    # Gates set away from a locked default (only where the caller allowed it, e.g. the allocator).
    warnings: tuple[str, ...] = ()
    # kube-apiserver --runtime-config: the API versions served over the release's defaults (runtimeconfig.py)
    apis: RuntimeConfig = RuntimeConfig()
    # The drivers' profiles for their opaque parameters (webhook.drivers): bundled, plus the operator's.
    drivers: DriverSource = DriverSource()

    def serves(self, plural: str, version: str, default: bool) -> bool:
        """Whether the cluster serves resource.k8s.io/`version` `plural`; `default`: without --runtime-config."""
        return self.apis.served(version, plural, default)

    def enabled(self, gate: str) -> bool:
        """Whether `gate` is on; an unknown name is a bug of ours, so it raises KeyError."""
        return self.gates[gate]

    def gate(self, name: str) -> bool:
        """Like `enabled`, but a gate this version does not know yet is off (1.37 gates under 1.36)."""
        return self.gates.get(name, False)

    @property
    def behaviours(self) -> Behaviours:
        """What this release does differently from the others, by name (behaviours.py)."""
        return self._behaviours

    def __post_init__(self) -> None:
        # Profiles key caches that are consulted on every request: hash once.
        object.__setattr__(self, "_hash", hash((self.version, tuple(sorted(self.gates.items())), self.apis,
                                                      self.drivers)))
        object.__setattr__(self, "_behaviours", BEHAVIOURS[self.version])

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Profile) and self.version == other.version
                                 and dict(self.gates) == dict(other.gates) and self.apis == other.apis
                                                 and self.drivers == other.drivers)

    def __reduce__(self):  # worker processes get profiles too; a read-only mapping does not pickle
        return _rebuild, (self.version, dict(self.gates), self.warnings, self.apis, self.drivers)

    def describe(self) -> str:
        """`1.36 (DRAListTypeAttributes=true, ...)`: the version and the gates set away from its defaults."""
        changed = changed_gates(self.version, self.gates)
        return self.version + (f" ({', '.join(changed)})" if changed else "")


def changed_gates(version: str, gates: Mapping[str, bool]) -> list[str]:
    """`Name=true` for each gate set away from the version's default, by name."""
    defaults = _defaults(version)
    return [f"{name}={str(value).lower()}" for name, value in sorted(gates.items()) if defaults.get(name) != value]


def _rebuild(version: str, gates: dict[str, bool], warnings: tuple[str, ...],
             apis: RuntimeConfig = RuntimeConfig(), drivers: DriverSource = DriverSource()) -> Profile:
    return Profile(version, MappingProxyType(gates), warnings, apis, drivers)


def _defaults(version: str) -> Mapping[str, bool]:
    return MappingProxyType({name: spec.default for name, spec in GATES[version].items()})


def check_version(version: str) -> str:
    """`1.36`, `v1.36` or `1.36.2` → `1.36`; anything unsupported is a ProfileError."""
    text = version.strip().removeprefix("v")
    minor = ".".join(text.split(".")[:2])
    if minor not in GATES:
        raise ProfileError(f"unsupported Kubernetes version {version!r}; supported: {', '.join(SUPPORTED_VERSIONS)}")
    return minor


def parse_feature_gates(text: str) -> dict[str, bool]:
    """kube-apiserver's `--feature-gates` syntax: comma-separated `Name=true|false` pairs."""
    gates: dict[str, bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep or not name:
            raise ProfileError(f"invalid feature gate {item!r}: want Name=true or Name=false")
        if value not in ("true", "false"):
            raise ProfileError(f"invalid value of feature gate {name}: {value!r} (want true or false)")
        gates[name] = value == "true"
    return gates


def make_profile(version: str = DEFAULT_VERSION, gates: Mapping[str, bool] | str | None = None, *,
                 allow_locked: bool = False, runtime_config: str = "",
                 drivers: DriverSource | None = None) -> Profile:
    """The profile for `version` with `gates` over its defaults.

    Unknown gate names are errors that list the known ones. Setting a locked gate away from its
    default is an error, as in kube-apiserver, unless `allow_locked` (then it is a warning: the
    allocator may ask what a differently configured scheduler would do).
    """
    version = check_version(version)
    specs = GATES[version]
    requested = parse_feature_gates(gates) if isinstance(gates, str) else dict(gates or {})
    unknown = sorted(name for name in requested if name not in specs)
    if unknown:
        raise ProfileError(f"unrecognized feature gate{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}; "
                           f"known DRA gates of Kubernetes {version}: {', '.join(sorted(specs))}")
    values = dict(_defaults(version))
    warnings: list[str] = []
    for name, value in requested.items():
        spec = specs[name]
        if spec.locked and value != spec.default:
            message = (f"cannot set feature gate {name} to {str(value).lower()}, feature is locked to "
                       f"{str(spec.default).lower()} in Kubernetes {version}")
            if not allow_locked:
                raise ProfileError(message)
            warnings.append(message)
        values[name] = value
    return Profile(version, MappingProxyType(values), tuple(warnings), _runtime_config(version, runtime_config),
                   drivers if drivers is not None else DriverSource())


def _runtime_config(version: str, text: str) -> RuntimeConfig:
    if not text.strip():
        return RuntimeConfig()
    from webhook.runtimeconfig import RuntimeConfigError, parse

    try:
        return parse(text, registered_versions(version))
    except RuntimeConfigError as error:
        raise ProfileError(f"invalid --runtime-config: {error}") from None


DEFAULT = make_profile()
