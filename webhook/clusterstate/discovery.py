"""What the cluster is: its release (/version), the resource.k8s.io versions and resources it serves
(discovery), and kube-apiserver's feature gates (its `kubernetes_feature_enabled` metric on /metrics).

`profile_from(facts, flags)` turns them into the webhook's Profile; a flag the operator gave wins, and
every flag that says otherwise than the cluster is a disagreement, reported at start and as a metric.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from webhook.profile import GATES, Profile, ProfileError, check_version, make_profile
from webhook.runtimeconfig import GROUP

# Each answer is read up to this size: /metrics of a large API server is a few MiB.
MAX_METRICS_BYTES = 32 * 1024 * 1024
MAX_JSON_BYTES = 4 * 1024 * 1024
# `kubernetes_feature_enabled{name="DRAPartitionableDevices",stage="ALPHA"} 1`: one line, labels in any order.
_FEATURE = re.compile(r'^kubernetes_feature_enabled\{([^}]{0,512})\}\s+([0-9.eE+-]{1,32})')
_NAME = re.compile(r'(?:^|,)\s*name="([A-Za-z0-9]{1,128})"')
PLURALS = ("deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates", "devicetaintrules",
           "resourcepoolstatusrequests")


@dataclass
class ClusterFacts:
    git_version: str = ""
    release: str = ""  # major.minor, as the profiles name releases
    served: dict = field(default_factory=dict)  # version of resource.k8s.io -> [plural]
    gates: dict = field(default_factory=dict)  # every gate the metric lists -> enabled
    problems: list = field(default_factory=list)  # what could not be read (the rest still counts)

    def to_dict(self) -> dict:
        return {"gitVersion": self.git_version, "kubernetesVersion": self.release,
                "served": {v: sorted(p) for v, p in self.served.items()},
                "featureGates": dict(sorted(self.gates.items())), "problems": list(self.problems)}


def parse_feature_metric(text: str) -> dict[str, bool]:
    gates: dict[str, bool] = {}
    for line in text.splitlines():
        if not line.startswith("kubernetes_feature_enabled{"):
            continue
        match = _FEATURE.match(line)
        name = match and _NAME.search(match.group(1))
        if name:
            try:
                gates[name.group(1)] = float(match.group(2)) > 0
            except ValueError:
                continue
    return gates


def release_of(version: dict) -> str:
    """`1.34` from /version's major and minor (`34+` on some distributions), else its gitVersion."""
    major = str(version.get("major") or "").rstrip("+")
    minor = str(version.get("minor") or "").rstrip("+")
    if major.isdigit() and minor.isdigit():
        return f"{major}.{minor}"
    match = re.match(r"v?(\d{1,4})\.(\d{1,4})", str(version.get("gitVersion") or ""))
    return f"{match.group(1)}.{match.group(2)}" if match else ""


async def discover(api, timeout: float = 10.0) -> ClusterFacts:
    """Reads the facts; raises only when the API server cannot be reached at all (/version fails)."""
    from webhook.clusterstate.connect import get_raw

    facts = ClusterFacts()
    version = json.loads(await get_raw(api, "/version", timeout, MAX_JSON_BYTES))
    facts.git_version = str(version.get("gitVersion") or "") if isinstance(version, dict) else ""
    facts.release = release_of(version if isinstance(version, dict) else {})
    try:
        group = json.loads(await get_raw(api, f"/apis/{GROUP}", timeout, MAX_JSON_BYTES))
        for entry in group.get("versions") or []:
            name = entry.get("version") if isinstance(entry, dict) else None
            if not isinstance(name, str):
                continue
            resources = json.loads(await get_raw(api, f"/apis/{GROUP}/{name}", timeout, MAX_JSON_BYTES))
            facts.served[name] = sorted({r.get("name") for r in resources.get("resources") or []
                                         if isinstance(r, dict) and r.get("name") in PLURALS})
    except Exception as error:  # noqa: BLE001 - any failure here leaves the release's defaults
        facts.problems.append(f"discovery of {GROUP}: {_short(error)}")
    try:
        facts.gates = parse_feature_metric((await get_raw(api, "/metrics", timeout, MAX_METRICS_BYTES))
                                           .decode("utf-8", "replace"))
        if not facts.gates:
            facts.problems.append("/metrics has no kubernetes_feature_enabled series")
    except Exception as error:  # noqa: BLE001
        facts.problems.append(f"/metrics: {_short(error)} (RBAC: get on the non-resource URL /metrics)")
    return facts


def _short(error: Exception) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:300]


@dataclass(frozen=True)
class Flags:
    """What the operator said: None / "" for what was not given."""

    kubernetes_version: str | None = None
    feature_gates: str = ""
    runtime_config: str = ""


def _runtime_config(release: str, served: dict) -> str:
    """The served versions as kube-apiserver's --runtime-config (each version of the release, on or off)."""
    from webhook.kinds import KINDS

    registered = sorted({v for kind in KINDS.values() for v in kind.served.get(release, {})})
    parts = []
    for version in registered:
        plurals = served.get(version)
        if plurals is None:
            parts.append(f"{GROUP}/{version}=false")
            continue
        parts.append(f"{GROUP}/{version}=true")
        parts.extend(f"{GROUP}/{version}/{kind.plural}=false" for kind in KINDS.values()
                     if version in kind.served.get(release, {}) and kind.plural not in plurals)
    return ",".join(parts)


def profile_from(facts: ClusterFacts, flags: Flags) -> tuple[Profile, list[str]]:
    """(the profile, the disagreements between flags and cluster). ProfileError for a release we have no
    rules for when no flag names one."""
    from webhook.profile import parse_feature_gates

    disagreements: list[str] = []
    release = facts.release
    try:
        cluster_release = check_version(release) if release else ""
    except ProfileError:
        cluster_release = ""
    version = flags.kubernetes_version or cluster_release
    if not version:
        raise ProfileError(f"the cluster runs Kubernetes {release or 'of an unknown version'} "
                           f"({facts.git_version or 'no gitVersion'}); dra-webhook has rules for "
                           f"{', '.join(GATES)}: name one with --kubernetes-version")
    version = check_version(version)
    if flags.kubernetes_version and cluster_release and version != cluster_release:
        disagreements.append(f"--kubernetes-version {version}, the cluster runs {facts.git_version or release}")
    known = GATES[version]
    cluster_gates = {name: value for name, value in facts.gates.items() if name in known}
    given = parse_feature_gates(flags.feature_gates)
    for name, value in sorted(given.items()):
        if name in cluster_gates and cluster_gates[name] != value:
            disagreements.append(f"--feature-gates {name}={str(value).lower()}, the cluster has "
                                 f"{name}={str(cluster_gates[name]).lower()}")
    gates = {**{n: v for n, v in cluster_gates.items() if not known[n].locked or v == known[n].default}, **given}
    runtime = flags.runtime_config
    if not runtime and facts.served and version == cluster_release:
        runtime = _runtime_config(version, facts.served)
    return make_profile(version, gates, runtime_config=runtime), disagreements


def flags_text(profile: Profile) -> str:
    """The command-line flags that give this profile offline."""
    parts = [f"--kubernetes-version {profile.version}"]
    defaults = {name: spec.default for name, spec in GATES[profile.version].items()}
    changed = [f"{n}={str(v).lower()}" for n, v in sorted(profile.gates.items()) if defaults[n] != v]
    if changed:
        parts.append(f"--feature-gates {','.join(changed)}")
    if profile.apis.text:
        parts.append(f"--runtime-config {profile.apis.text}")
    return " ".join(parts)
