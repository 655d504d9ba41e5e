"""Reading `allocate` inputs: classes, slices, claims (in use or to allocate), templates, DeviceTaintRules,
Pods and Nodes.

Objects are defaulted as the API server would and converted to v1 first, so every version reads the
same. A template is allocated as the claim it creates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from webhook import kinds
from webhook.offline import sources
from webhook.profile import DEFAULT, Profile

GROUP = kinds.GROUP


@dataclass
class Inputs:
    classes: dict = field(default_factory=dict)  # name -> v1 DeviceClass
    slices: list = field(default_factory=list)  # [(v1 ResourceSlice, source)]
    claims: list = field(default_factory=list)  # [(v1 ResourceClaim, source)] to allocate
    in_use: list = field(default_factory=list)  # [(v1 ResourceClaim, source)] with status.allocation
    nodes: list = field(default_factory=list)  # [(Node, source)]
    pods: list = field(default_factory=list)  # [(Pod, source)]: what is allocated together; requests on nodes
    templates: dict = field(default_factory=dict)  # (namespace, name) -> (claim it creates, source)
    taint_rules: list = field(default_factory=list)  # [(DeviceTaintRule, source)], in input order
    problems: list = field(default_factory=list)  # [(source, message)] documents that cannot be used
    ignored: list = field(default_factory=list)  # [(source, kind)]


def object_of(review: dict) -> dict | None:
    request = review.get("request") if isinstance(review, dict) else None
    obj = request.get("object") if isinstance(request, dict) else None
    return obj if isinstance(obj, dict) else None


def read(paths: list, profile: Profile = DEFAULT) -> Inputs:
    """Every document of `paths`; what cannot be read or used is listed in `problems`."""
    out = Inputs()
    now = datetime.now(timezone.utc)
    for source, value, problem in sources.load(paths):
        if problem is not None:
            out.problems.append((source, problem))
            continue
        if not isinstance(value, dict):
            out.problems.append((source, "not an object: a document must be a mapping"))
            continue
        obj = object_of(value) if value.get("kind") == "AdmissionReview" else value
        if obj is None:  # an AdmissionReview without an object (a DELETE): nothing to allocate with
            out.ignored.append((source, "AdmissionReview"))
            continue
        add(out, obj, source, now, profile)
    return out


def add(out: Inputs, obj: dict, source: str, now: datetime, profile: Profile = DEFAULT) -> None:
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
    api_version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    group, _, version = api_version.rpartition("/")
    if kind in ("Node", "Pod") and api_version == "v1":
        (out.nodes if kind == "Node" else out.pods).append((obj, source))
        return
    if group == GROUP and kind == "DeviceTaintRule":
        _add_taint_rule(out, obj, version, source, now, profile)
        return
    if group != GROUP or kind not in ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"):
        out.ignored.append((source, kind or "object"))
        return
    try:
        defaulted = kinds.apply_defaults(kind, version, obj, None, "CREATE", now, profile)
        v1, _ = kinds.to_v1(kind, version, defaulted, profile)
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        out.problems.append((source, f"cannot read {kind}: {error}"))
        return
    meta = v1.get("metadata") if isinstance(v1.get("metadata"), dict) else {}
    if kind == "DeviceClass":
        out.classes.setdefault(meta.get("name") or "", v1)
    elif kind == "ResourceSlice":
        out.slices.append((v1, source))
    elif kind == "ResourceClaim":
        allocated = isinstance(v1.get("status"), dict) and v1["status"].get("allocation")
        (out.in_use if allocated else out.claims).append((v1, source))
    else:
        spec = (v1.get("spec") or {}).get("spec") if isinstance(v1.get("spec"), dict) else None
        claim = {"apiVersion": f"{GROUP}/v1", "kind": "ResourceClaim",
                 "metadata": {"name": meta.get("name") or meta.get("generateName") or "",
                              "namespace": meta.get("namespace") or "default"},
                 "spec": spec if isinstance(spec, dict) else {}}
        out.claims.append((claim, source + " (template)"))
        out.templates[(claim["metadata"]["namespace"], claim["metadata"]["name"])] = (claim, source + " (template)")


def _add_taint_rule(out: Inputs, obj: dict, version: str, source: str, now: datetime, profile: Profile) -> None:
    """A DeviceTaintRule the scheduler would see: its API version served and its gate on (else ignored,
    and said so). The scheduler's slice tracker reads rules only with that gate."""
    api = kinds.KINDS["DeviceTaintRule"].api_version(profile, version)
    if not isinstance(api, kinds.ApiVersion):
        out.ignored.append((source, f"DeviceTaintRule ({version or '?'} is not served by {profile.version})"))
        return
    if api.gate and not profile.gate(api.gate):
        out.ignored.append((source, f"DeviceTaintRule ({api.gate} is off)"))
        return
    try:
        defaulted = kinds.apply_defaults("DeviceTaintRule", version, obj, None, "CREATE", now, profile)
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        out.problems.append((source, f"cannot read DeviceTaintRule: {error}"))
        return
    out.taint_rules.append((defaulted, source))


def used(inputs: Inputs) -> int:
    """How many objects allocate reads (documents of other kinds are only listed as ignored)."""
    return (len(inputs.classes) + len(inputs.slices) + len(inputs.claims) + len(inputs.in_use) + len(inputs.nodes)
            + len(inputs.pods) + len(inputs.taint_rules))


def node_names(inputs: Inputs) -> list:
    """Every node the inputs name: Node objects first, then the slices' (and devices') nodeName."""
    names: list = []
    for node, _ in inputs.nodes:
        names.append(((node.get("metadata") or {}).get("name")) or "")
    for pod, _ in inputs.pods:
        spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
        names.append(spec.get("nodeName") or "")
    for s, _ in inputs.slices:
        spec = s.get("spec") if isinstance(s.get("spec"), dict) else {}
        names.append(spec.get("nodeName") or "")
        devices = spec.get("devices") if isinstance(spec.get("devices"), list) else []
        names.extend(device.get("nodeName") or "" for device in devices if isinstance(device, dict))
    # Names are only compared and printed: anything but a string is no node name (a malformed input).
    return list(dict.fromkeys(n for n in names if n and isinstance(n, str)))


def node_object(inputs: Inputs, name: str) -> dict:
    for node, _ in inputs.nodes:
        if ((node.get("metadata") or {}).get("name")) == name:
            return node
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
