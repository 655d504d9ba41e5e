"""Pool-level checks for `review`: what no per-object check sees and the allocator trips over.

`check(objects)` takes the loaded objects with their source labels, [(source, object)], and returns
warnings as [(sources, message)], each naming every document involved: device names repeated across
the slices of one pool, slices of one pool that disagree on generation or resourceSliceCount, pools
with another number of slices than resourceSliceCount (the scheduler ignores them: `pools.complete`, the
rule `allocate` follows), counter sets consumed but
defined in no slice of the pool, and claims or templates that name a DeviceClass absent from the
inputs (only when the inputs hold any DeviceClass). `unchecked` notes a slice given without the rest of
its pool, whose checks across slices were not possible. Pure: no I/O.
"""

from __future__ import annotations

from webhook import kinds
from webhook.allocation.pools import complete, incomplete_text

GROUP = "resource.k8s.io"


def _v1(obj: dict, kind: str) -> dict:
    version = str(obj.get("apiVersion") or "").rpartition("/")[2]
    try:
        converted, _ = kinds.to_v1(kind, version, obj)
    except (TypeError, ValueError, AttributeError, KeyError):
        return {}
    return converted if isinstance(converted, dict) else {}


def _d(value) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value) -> list:
    return value if isinstance(value, list) else []


def _kind(obj) -> str:
    if not isinstance(obj, dict) or not str(obj.get("apiVersion") or "").startswith(GROUP + "/"):
        return ""
    return obj.get("kind") if isinstance(obj.get("kind"), str) else ""


def _label(kind: str, obj: dict, source: str) -> str:
    return f"{kind} {_d(obj.get('metadata')).get('name') or '<unnamed>'} ({source})"


def _list(labels: list) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def check(objects: list) -> list:
    """[(sources, message)] for the inputs of one run, in a stable order."""
    pools: dict[tuple, list] = {}
    classes: set = set()
    claims: list = []
    for source, obj in objects:
        kind = _kind(obj)
        if kind == "ResourceSlice":
            spec = _d(_v1(obj, kind).get("spec"))
            pool = _d(spec.get("pool"))
            pools.setdefault((spec.get("driver"), pool.get("name")), []).append((source, obj, spec, pool))
        elif kind == "DeviceClass":
            classes.add(_d(obj.get("metadata")).get("name"))
        elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
            claims.append((source, obj, kind))
    out: list = []
    for (driver, name), members in pools.items():
        if len(members) > 1:
            out.extend(_pool_problems(f"{driver}/{name}", members))
    if classes:
        out.extend(_unknown_classes(claims, classes))
    return out


def unchecked(objects: list) -> list:
    """Notes, not warnings (nothing is wrong with the slice): each pool of which the inputs hold a single
    slice although its resourceSliceCount is higher, so that the checks across its slices were not possible."""
    pools: dict[tuple, list] = {}
    for source, obj in objects:
        if _kind(obj) == "ResourceSlice":
            spec = _d(_v1(obj, "ResourceSlice").get("spec"))
            pools.setdefault((spec.get("driver"), _d(spec.get("pool")).get("name")), []).append((source, obj, spec))
    out = []
    for (driver, name), members in pools.items():
        count = _d(members[0][2].get("pool")).get("resourceSliceCount")
        if len(members) == 1 and isinstance(count, int) and count > 1:
            source, obj, _ = members[0]
            out.append(f"pool {driver}/{name}: checks across its slices were not possible: "
                       f"{_label('ResourceSlice', obj, source)} is the only one of its {count} slices among the "
                       "inputs; review every slice of the pool together (device names, counter sets and the slice "
                       "count are checked across them)")
    return out


def _pool_problems(pool_id: str, members: list) -> list:
    out = []
    everyone = [s for s, _, _, _ in members]
    labels = {s: _label("ResourceSlice", obj, s) for s, obj, _, _ in members}
    for field in ("generation", "resourceSliceCount"):
        values = {}
        for source, _, _, pool in members:
            values.setdefault(pool.get(field), []).append(labels[source])
        if len(values) > 1:
            detail = "; ".join(f"{value} in {_list(names)}" for value, names in values.items())
            out.append((everyone, f"pool {pool_id}: its slices disagree on {field} ({detail})"))
    newest = max((p.get("generation") or 0 for _, _, _, p in members if isinstance(p.get("generation") or 0, int)),
                 default=0)
    current = [m for m in members if (m[3].get("generation") or 0) == newest]
    count = current[0][3].get("resourceSliceCount")
    if isinstance(count, int) and not complete(len(current), count):
        out.append(([s for s, _, _, _ in current],
                    f"{incomplete_text(pool_id, len(current), count, newest)} are given "
                    f"({_list([labels[s] for s, _, _, _ in current])}); the scheduler ignores incomplete pools"))
    seen: dict = {}
    for source, _, spec, _ in current:
        for device in _l(spec.get("devices")):
            seen.setdefault(_d(device).get("name"), []).append(source)
    for device, sources in seen.items():
        if len(set(sources)) > 1:
            names = _list([labels[s] for s in dict.fromkeys(sources)])
            out.append((list(dict.fromkeys(sources)),
                        f"pool {pool_id}: device name {device} appears in {names}; the scheduler treats the pool as "
                        "invalid"))
    defined = {_d(cs).get("name") for _, _, spec, _ in current for cs in _l(spec.get("sharedCounters"))}
    missing: dict = {}
    for source, _, spec, _ in current:
        for device in _l(spec.get("devices")):
            for consumption in _l(_d(device).get("consumesCounters")):
                name = _d(consumption).get("counterSet")
                if name not in defined:
                    missing.setdefault(name, []).append(source)
    for name, sources in missing.items():
        sources = list(dict.fromkeys(sources))
        out.append((sources, f"pool {pool_id}: counter set {name} is consumed by devices of "
                             f"{_list([labels[s] for s in sources])} but defined in no slice of the pool"))
    return out


def _class_names(spec: dict) -> list:
    names = []
    for request in _l(_d(_d(spec).get("devices")).get("requests")):
        request = _d(request)
        names.append((request.get("name"), _d(request.get("exactly")).get("deviceClassName")))
        for sub in _l(request.get("firstAvailable")):
            names.append((f"{request.get('name')}/{_d(sub).get('name')}", _d(sub).get("deviceClassName")))
    return [(r, c) for r, c in names if c]


def _unknown_classes(claims: list, classes: set) -> list:
    out = []
    for source, obj, kind in claims:
        v1 = _v1(obj, kind)
        spec = _d(v1.get("spec"))
        if kind == "ResourceClaimTemplate":
            spec = _d(spec.get("spec"))
        for request, class_name in _class_names(spec):
            if class_name not in classes:
                out.append(([source], f"{_label(kind, obj, source)}: request {request} names DeviceClass "
                                      f"{class_name}, which is not among the DeviceClasses given "
                                      f"({', '.join(sorted(c for c in classes if c))})"))
    return out


def essentials(obj: dict) -> dict | None:
    """What `check` reads of one object, and nothing more: a slice of 128 devices shrinks to its pool,
    device names and counter sets, so that a review of thousands of slices keeps little in memory."""
    kind = _kind(obj)
    if kind == "ResourceSlice":
        spec = _d(_v1(obj, kind).get("spec"))
        devices = []
        for device in _l(spec.get("devices")):  # up to 128 a slice: a loop without calls where it can
            device = device if isinstance(device, dict) else {}
            counters = device.get("consumesCounters")
            devices.append({"name": device.get("name"),
                            "consumesCounters": [{"counterSet": _d(c).get("counterSet")} for c in counters]
                            if isinstance(counters, list) else []})
        return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": _d(obj.get("metadata")).get("name")},
                "spec": {"driver": spec.get("driver"), "pool": spec.get("pool"), "devices": devices,
                         "sharedCounters": [{"name": _d(cs).get("name")} for cs in _l(spec.get("sharedCounters"))]}}
    if kind == "DeviceClass":
        return {"apiVersion": obj.get("apiVersion"), "kind": kind, "metadata": {"name": _d(obj.get("metadata")).get("name")}}
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        return obj
    return None


def add_warnings(results: list) -> list:
    """Appends each pool warning to every offline `Result` it names (their `context` holds `essentials`);
    returns the run's notes (`unchecked`)."""
    by_source = {r.source: r for r in results if getattr(r, "context", None) is not None}
    for sources, message in check([(source, r.context) for source, r in by_source.items()]):
        for source in sources:
            result = by_source.get(source)
            if result is not None:
                result.warnings.append(message)
                if result.response is not None:
                    result.response.setdefault("warnings", []).append(message)
    return unchecked([(source, r.context) for source, r in by_source.items()])
