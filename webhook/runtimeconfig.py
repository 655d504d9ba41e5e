"""kube-apiserver's `--runtime-config`: which API versions (and resources) the cluster serves, over the defaults.

The syntax and the order of precedence are upstream's (apiserver `resourceconfig.MergeAPIResourceConfigs`):
`api/all`, `api/ga`, `api/beta`, `api/alpha` first, in that order (true or false, nothing else), then
`group/version` keys, then `group/version/resource` keys; a key without a value means true. Keys of
other groups are ignored (their APIs are not ours to check); a version of resource.k8s.io that the
Kubernetes version does not have is an error, as the API server refuses to start with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GROUP = "resource.k8s.io"
MATCHERS = ("api/all", "api/ga", "api/beta", "api/alpha")  # groupVersionMatchersOrder
# groupVersionMatchers' patterns (resourceconfig/helpers.go)
_GA, _BETA, _ALPHA = re.compile(r"v\d+"), re.compile(r"v\d+beta\d+"), re.compile(r"v\d+alpha\d+")


class RuntimeConfigError(ValueError):
    """A --runtime-config value the API server would refuse (a usage error)."""


@dataclass(frozen=True)
class RuntimeConfig:
    """The parsed flag: each part as (key, enabled), in the order of precedence they are applied."""

    matchers: tuple[tuple[str, bool], ...] = ()
    versions: tuple[tuple[str, bool], ...] = ()  # (version of resource.k8s.io, enabled)
    resources: tuple[tuple[str, str, bool], ...] = ()  # (version, plural, enabled)
    text: str = ""  # as given, for reports

    def served(self, version: str, plural: str, default: bool) -> bool:
        """Whether resource.k8s.io/`version` `plural` is served, `default` being the release's default."""
        enabled = default
        stage = _stage(version)
        for matcher, value in self.matchers:
            if matcher == "api/all" or matcher == f"api/{stage}":
                enabled = value
        for key, value in self.versions:
            if key == version:
                enabled = value
        for key, resource, value in self.resources:
            if key == version and resource == plural:
                enabled = value
        return enabled

    def says(self, version: str, plural: str) -> bool:
        """Whether the flag says anything about this version or resource (else the release's default holds)."""
        stage = _stage(version)
        return (any(m in ("api/all", f"api/{stage}") for m, _ in self.matchers)
                or any(v == version for v, _ in self.versions)
                or any(v == version and r == plural for v, r, _ in self.resources))


def _stage(version: str) -> str:
    for stage, pattern in (("ga", _GA), ("beta", _BETA), ("alpha", _ALPHA)):
        if pattern.fullmatch(version):
            return stage
    return ""


def parse(text: str, registered: set[str]) -> RuntimeConfig:
    """`--runtime-config` as kube-apiserver reads it; `registered`: the versions of resource.k8s.io the
    Kubernetes version has."""
    matchers: dict[str, bool] = {}
    versions: dict[str, bool] = {}
    resources: dict[tuple[str, str], bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key in MATCHERS:
            if value not in ("true", "false"):  # upstream takes only these two for the api/ keys
                raise RuntimeConfigError(f"invalid value {key}={value}")
            matchers[key] = value == "true"
            continue
        tokens = key.split("/")
        if len(tokens) < 2 or len(tokens) > 3:
            continue  # upstream skips such keys (the legacy "api/v1" is "v1" of the core group)
        group, version = tokens[0], tokens[1]
        if group != GROUP:
            continue  # not ours: the API server checks them, we have nothing to say about them
        if version not in registered:
            raise RuntimeConfigError(f"group version {GROUP}/{version} that has not been registered "
                                     f"(Kubernetes serves {', '.join(f'{GROUP}/{v}' for v in sorted(registered))})")
        # Read only now, as upstream does: another group's value is not ours to refuse.
        enabled = _bool(key, value) if sep and value else True
        if len(tokens) == 3:
            if tokens[2].lower() != tokens[2]:
                raise RuntimeConfigError(f"invalid key {key}: group/version/resource and resource is always "
                                         f"lowercase plural, not {tokens[2]!r}")
            resources[(version, tokens[2])] = enabled
        else:
            versions[version] = enabled
    ordered = tuple((m, matchers[m]) for m in MATCHERS if m in matchers)
    return RuntimeConfig(ordered, tuple(versions.items()), tuple((v, r, e) for (v, r), e in resources.items()),
                         text.strip())


def _bool(key: str, value: str) -> bool:
    # Go's strconv.ParseBool
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise RuntimeConfigError(f'invalid value of {key}: {value}, err: strconv.ParseBool: parsing "{value}": '
                             f"invalid syntax")
