"""The API server's deprecation warning for a request in a deprecated API version, per release.

kube-apiserver's endpoint installer (k8s.io/apiserver pkg/endpoints/installer.go) wraps every route of a kind
whose version is deprecated in the serving release (deprecation.IsDeprecated: the release is at or past the
APILifecycleDeprecated of k8s.io/api's zz_generated.prerelease-lifecycle.go) in a handler that adds
deprecation.WarningMessage to the response: every request to it gets the warning, created, refused or not,
before decoding, so it is the first warning. A version the release does not serve (404) gets none.

The table holds, per release, the (version, kind) pairs the release warns about with the releases its
k8s.io/api names (deprecated, unavailable); a release whose deprecations have not come yet warns about
nothing. tests/test_deprecation.py holds it against each release's k8s.io/api sources.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

GROUP = "resource.k8s.io"
_BETA_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass")

# (version, kind) -> (deprecated in, unavailable in), as k8s.io/api resource/<version> says (the same in 1.34-1.37).
_V1BETA1 = {("v1beta1", kind): ("1.35", "1.38") for kind in _BETA_KINDS}
_V1BETA2 = {("v1beta2", kind): ("1.36", "1.39") for kind in _BETA_KINDS}
_V1ALPHA3 = {("v1alpha3", "DeviceTaintRule"): ("1.36", "1.39")}

# What each release warns about: the deprecations it has reached. (Later ones, not reached by any supported
# release: v1beta2 DeviceTaintRule and v1alpha3 ResourcePoolStatusRequest, deprecated in 1.39.)
DEPRECATED: Mapping[str, Mapping[tuple[str, str], tuple[str, str]]] = MappingProxyType({
    "1.34": MappingProxyType({}),
    "1.35": MappingProxyType(_V1BETA1),
    "1.36": MappingProxyType({**_V1BETA1, **_V1BETA2, **_V1ALPHA3}),
    "1.37": MappingProxyType({**_V1BETA1, **_V1BETA2, **_V1ALPHA3}),
})


def warning(release: str, version: str, kind: str) -> str | None:
    """deprecation.WarningMessage for a request to resource.k8s.io/`version` `kind` served by `release`, or None
    when the release does not deprecate it."""
    lifecycle = DEPRECATED.get(release, {}).get((version, kind))
    if lifecycle is None:
        return None
    deprecated, removed = lifecycle
    return f"{GROUP}/{version} {kind} is deprecated in v{deprecated}+, unavailable in v{removed}+"
