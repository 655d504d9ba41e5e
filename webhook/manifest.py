"""What happens to a bare manifest before the API server's admission sees it, for offline reviews.

kubectl maps the manifest's apiVersion and kind to a served resource (its RESTMapper refuses what the
cluster does not serve: `no matches for kind "X" in version "G/V"`), and the request URL supplies the
namespace of a namespaced object that names none (`kubectl apply -n NS`, default `default`); for a
cluster-scoped kind the API server clears any namespace the manifest carries. A served request or a
replayed AdmissionReview has been through all of this already and never comes here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from webhook.kinds import GROUP, KINDS, UNCHECKED, ApiVersion, Retired
from webhook.served import OPT_IN
from webhook.profile import Profile

DEFAULT_NAMESPACE = "default"
# The namespaces every new cluster has, none of them labelled for DRA admin access.
BUILT_IN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
# apiserver's SimpleNameGenerator: the prefix cut to 58 characters plus 5 of utilrand's alphabet.
_MAX_GENERATED_NAME_PREFIX = 58
_RANDOM_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass(frozen=True)
class Mapping:
    """The outcome of mapping a manifest to a served resource."""

    refusal: str | None = None  # kubectl's error when the cluster does not serve it
    warnings: list[str] = field(default_factory=list)
    retired: bool = False  # a version still understood, so a converted verdict can be shown as a hint


def type_meta(obj: dict) -> tuple[str, str, str]:
    """(group, version, kind) of a manifest; empty strings for what is missing or not a string."""
    api_version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
    group, _, version = api_version.rpartition("/")
    return group, version, kind


def map_manifest(obj: dict, profile: Profile) -> Mapping:
    """Whether the target Kubernetes serves this manifest's group/version/kind, as kubectl would find out."""
    group, version, kind = type_meta(obj)
    if not version:
        return Mapping("apiVersion not set")
    if not kind:
        return Mapping("kind not set")
    if group != GROUP:
        return Mapping()
    api_version = f"{GROUP}/{version}"
    entry = KINDS.get(kind)
    served: dict[str, ApiVersion] = dict(entry.served.get(profile.version, {})) if entry else \
        dict(UNCHECKED.get(kind, {}).get(profile.version, {}))
    no_match = f'no matches for kind "{kind}" in version "{api_version}"'
    plural = entry.plural if entry else kind.lower() + "s"
    # Without a word from --runtime-config an opt-in version may or may not be served: checked, with a warning.
    said = profile.apis.says(version, plural)
    if version in served and said and not profile.serves(plural, version, served[version].availability != OPT_IN):
        return Mapping(f"{no_match}; the cluster's --runtime-config ({profile.apis.text}) turns it off")
    if version in served:
        return Mapping(warnings=_opt_in_warnings(kind, api_version, served[version], profile, said))
    if not served:
        return Mapping(f"{no_match}; Kubernetes {profile.version} serves no kind {kind!r} in {GROUP}")
    listing = ", ".join(f"{GROUP}/{v}" + (" (when enabled)" if spec.availability == OPT_IN else "")
                        for v, spec in served.items())
    refusal = f"{no_match}; Kubernetes {profile.version} serves {kind} as {listing}"
    retired = entry.retired.get(version) if entry else None
    if isinstance(retired, Retired):
        refusal += f" ({api_version} is no longer served since Kubernetes {retired.since})"
        return Mapping(refusal, retired=retired.converter is not None)
    return Mapping(refusal)


def _opt_in_warnings(kind: str, api_version: str, spec: ApiVersion, profile: Profile, enabled: bool) -> list[str]:
    needs = []
    if spec.availability == OPT_IN and not enabled:  # the user's --runtime-config answers it
        needs.append(f"the API version enabled (kube-apiserver --runtime-config={api_version}=true)")
    if spec.gate and not profile.enabled(spec.gate):
        needs.append(f"the feature gate {spec.gate} enabled (disabled by default in Kubernetes {profile.version})")
    if not needs:
        return []
    return [f"dra-webhook: {api_version} {kind} is served only by clusters with " + " and ".join(needs)]


def place_in_namespace(obj: dict, namespace: str) -> dict:
    """The manifest as the API server receives it from `kubectl apply -n NAMESPACE` (a copy if changed)."""
    entry = KINDS.get(type_meta(obj)[2])
    meta = obj.get("metadata", {})
    if meta is None:  # `metadata: null` decodes to an empty ObjectMeta, which the request's namespace fills
        meta = {}
    if entry is None or not isinstance(meta, dict):
        return obj
    current = meta.get("namespace")
    if entry.namespaced and not current:
        return {**obj, "metadata": {**meta, "namespace": namespace}}
    if not entry.namespaced and current is not None:
        return {**obj, "metadata": {k: v for k, v in meta.items() if k != "namespace"}}
    return obj


def generate_name(obj: dict) -> dict:
    """A create with `generateName` and no name gets its name before validation, as in the API server's
    BeforeCreate. The suffix is derived from the prefix (not random), so offline verdicts repeat."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or meta.get("name") or not isinstance(meta.get("generateName"), str):
        return obj
    prefix = meta["generateName"]
    if not prefix:
        return obj
    digest = hashlib.sha256(prefix.encode("utf-8", "surrogatepass")).digest()
    suffix = "".join(_RANDOM_ALPHABET[b % len(_RANDOM_ALPHABET)] for b in digest[:5])
    return {**obj, "metadata": {**meta, "name": prefix[:_MAX_GENERATED_NAME_PREFIX] + suffix}}


def namespace_of(obj: object) -> str | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    return namespace if isinstance(namespace, str) else None


def namespaces_in(objects) -> dict[str, dict[str, str]]:
    """The namespaces a review knows, as {name: labels}: a new cluster's, and the core/v1 Namespace
    objects among `objects` (which kubectl would create or update along with the rest)."""
    found: dict[str, dict[str, str]] = {name: {} for name in BUILT_IN_NAMESPACES}
    for obj in objects:
        if isinstance(obj, dict) and obj.get("apiVersion") == "v1" and obj.get("kind") == "Namespace":
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
            if isinstance(meta.get("name"), str):
                found[meta["name"]] = {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}
    return found


def resource_version_set(obj: dict) -> bool:
    """What etcd3 storage's Create refuses: a resourceVersion that parses as a non-zero number."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    version = meta.get("resourceVersion")
    from webhook.numbers import parse_uint64

    # storage's ParseResourceVersion: strconv.ParseUint(version, 10, 64); a text it refuses is not "set"
    return isinstance(version, str) and parse_uint64(version) not in (None, 0)
