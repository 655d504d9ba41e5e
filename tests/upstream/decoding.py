"""The decoding corpus: what Go's JSON decoder decides before any validation, in every API version a release serves.

The generated corpus mutates v1 objects; the API server decodes each version into its own Go types first, then
converts. So the valid seeds (seeds.py) are rewritten into v1beta1 and v1beta2 (claims' flat request fields, slices'
`basic` device) and varied where decoding decides:
  - a JSON null as each list element and map value in turn (Go's encoding/json leaves the zero value there),
  - a metav1.Time that is not RFC 3339 (time.Parse: a 400 decode error), or not a string, and some that are,
    at every timestamp,
  - request tolerations, valid and not, on claims and templates (1.34 keeps them with DRADeviceTaints off).
Deterministic, and every variant is made: no sampling.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

from . import corpus as inputs
from . import seeds

G = seeds.G
# The kinds that v1beta1 and v1beta2 serve in every supported release, besides v1.
VERSIONED_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass")
# Every metav1.Time of the six kinds (managedFields' too are metav1.Time; the seeds have none).
TIME_KEYS = ("lastTransitionTime", "timeAdded", "allocationTimestamp", "creationTimestamp")
BAD_TIMES = ("2026-01-01", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-01-01t00:00:00z", "yesterday", "",
             "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+25:00",
             "2026-01-01T00:00:00Zjunk", "1.2.3", "2026-1-1T0:0:0Z", "20260101T000000Z", "ü")
GOOD_TIMES = ("2026-01-01T00:00:00.123456789+05:30", "2024-02-29T23:59:59-08:00", "0001-01-01T00:00:00Z",
              "2026-01-01T00:00:00,5Z")
NOT_TIMES = (20260101, 1.5, True, {"seconds": 1}, ["2026-01-01T00:00:00Z"], None)  # not a string (null: zero time)
TOLERATIONS = (
    [{"operator": "Exists"}],
    [{"key": "example.com/unhealthy", "operator": "Equal", "value": "yes", "effect": "NoExecute",
      "tolerationSeconds": 60}],
    [{"key": "a b", "operator": "Exists"}],
    [{"key": "k", "operator": "Bogus"}],
    [{"key": "k", "operator": "Exists", "value": "v"}],
    [{"key": "k", "operator": "Equal", "value": "v", "effect": "Bogus"}],
    [{"operator": "Equal", "value": "v"}],
    [{"key": "k", "effect": "None"}],
    [{"key": "k", "tolerationSeconds": -1}],
)


def in_version(obj: dict, version: str) -> dict:
    """A copy of the v1 object `obj` as `version` spells it (v1beta2 has the v1 shape; v1beta1 does not)."""
    out = copy.deepcopy(obj)
    out["apiVersion"] = f"{G}/{version}"
    if version != "v1beta1":
        return out
    spec = out.get("spec")
    if out["kind"] == "ResourceClaimTemplate":
        spec = spec.get("spec")
    if out["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
        requests = spec.get("devices", {}).get("requests", [])
        for i, request in enumerate(requests):
            exactly = request.pop("exactly", None)
            if exactly is not None:
                requests[i] = {"name": request.pop("name"), **exactly, **request}
    if out["kind"] == "ResourceSlice":
        for i, device in enumerate(spec.get("devices", [])):
            basic = {k: v for k, v in device.items() if k != "name"}
            spec["devices"][i] = {"name": device["name"], "basic": basic} if basic else {"name": device["name"]}
    return out


def _seeds(release: str) -> Iterator[tuple[str, str, str, dict, dict | None]]:
    """The seeds in every version of resource.k8s.io that `release` serves for them."""
    for kind, operation, subresource, obj, old in seeds.seeds(release):
        for version in ("v1", "v1beta2", "v1beta1") if kind in VERSIONED_KINDS else (None,):
            if version is None:
                yield kind, operation, subresource, obj, old
            else:
                yield kind, operation, subresource, in_version(obj, version), (
                    in_version(old, version) if old is not None else None)


def _positions(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """The path of every list element and map value under `value` (not the top-level fields)."""
    if isinstance(value, dict):
        for key, child in value.items():
            if path or key not in ("apiVersion", "kind", "metadata"):
                yield path + (key,)
            yield from _positions(child, path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield path + (i,)
            yield from _positions(child, path + (i,))


def _set(obj: dict, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(obj)
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return out


def _request(source: str, kind: str, operation: str, subresource: str, obj: dict, old: dict | None) -> dict | None:
    if operation == "update" and isinstance(obj.get("metadata"), dict):
        obj["metadata"].setdefault("resourceVersion", "1")
    return inputs.request(f"decoding:{source}:{kind}:{obj['apiVersion'].rsplit('/', 1)[1]}:{operation}"
                          f"{'/' + subresource if subresource else ''}", obj, old, subresource)


def _label(path: tuple) -> str:
    return "/".join(str(p) for p in path)


def nulls(release: str) -> Iterator[dict]:
    """Each seed with one list element or map value (of a struct field too) replaced by a JSON null."""
    for kind, operation, subresource, obj, old in _seeds(release):
        for path in _positions(obj):
            if path[0] == "metadata" and path[1:2] not in (("labels",), ("annotations",)):
                continue  # the name and namespace are the URL's
            req = _request(f"null {_label(path)}", kind, operation, subresource, _set(obj, path, None), old)
            if req is not None:
                yield req


def _time_positions(value: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for key, child in value.items():
            if key in TIME_KEYS:
                yield path + (key,)
            yield from _time_positions(child, path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _time_positions(child, path + (i,))


def _with_times(obj: dict) -> dict:
    """`obj` with a creationTimestamp and every device taint with its timeAdded: every timestamp it can hold."""
    out = copy.deepcopy(obj)
    out.setdefault("metadata", {})["creationTimestamp"] = inputs.STORED_TIME
    spec = out.get("spec") or {}
    if out["kind"] == "DeviceTaintRule":
        spec["taint"]["timeAdded"] = inputs.STORED_TIME
    for device in spec.get("devices") or [] if out["kind"] == "ResourceSlice" else []:
        for taint in (device.get("basic") or device).get("taints") or []:
            taint["timeAdded"] = inputs.STORED_TIME
    return out


def times(release: str) -> Iterator[dict]:
    """Each seed with each of its timestamps set to text that is not RFC 3339 (and to some that is)."""
    for kind, operation, subresource, obj, old in _seeds(release):
        timed = _with_times(obj)
        if old is not None:  # a stored object always has its creationTimestamp (an update keeps it)
            old = copy.deepcopy(old)
            old.setdefault("metadata", {})["creationTimestamp"] = inputs.STORED_TIME
        for path in _time_positions(timed):
            if operation == "update" and path == ("metadata", "creationTimestamp"):
                continue  # an update keeps the stored one
            for text in BAD_TIMES + GOOD_TIMES + NOT_TIMES:
                req = _request(f"time {_label(path)}={text!r}", kind, operation, subresource,
                               _set(timed, path, text), old)
                if req is not None:
                    yield req


def tolerations(release: str) -> Iterator[dict]:
    """Claims and templates whose requests carry each of TOLERATIONS, created and updated, in each version."""
    for kind, operation, subresource, obj, old in _seeds(release):
        if kind not in ("ResourceClaim", "ResourceClaimTemplate") or subresource:
            continue
        spec = obj["spec"]["spec"] if kind == "ResourceClaimTemplate" else obj["spec"]
        for i in range(len(spec["devices"]["requests"])):
            for n, toleration in enumerate(TOLERATIONS):
                changed = copy.deepcopy(obj)
                target = changed["spec"]["spec"] if kind == "ResourceClaimTemplate" else changed["spec"]
                target = target["devices"]["requests"][i]
                if "firstAvailable" in target:
                    target = target["firstAvailable"][-1]
                elif "exactly" in target:
                    target = target["exactly"]
                target["tolerations"] = copy.deepcopy(toleration)
                req = _request(f"tolerations {i} #{n}", kind, operation, subresource, changed, old)
                if req is not None:
                    yield req


def corpus(release: str) -> list[dict]:
    return [*nulls(release), *times(release), *tolerations(release)]
