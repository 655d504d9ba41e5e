"""Request names of a claim and references to them (gatherRequestNames, validateRequestNameRef).

`gather_request_names` mirrors upstream's gatherRequestNames: a request without `firstAvailable`
maps to None, one with `firstAvailable` to the set of its subrequest names.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid
from webhook.validation._helpers import as_list, as_str
from webhook.validation.names import is_dns1123_label

RequestNames = dict[str, "frozenset[str] | None"]

REQUEST_REF_DETAIL = ("must be the name of a request in the claim or the name of a request and a subrequest "
                      "separated by '/'")


def gather_request_names(device_claim: Any) -> RequestNames:
    names: RequestNames = {}
    requests = device_claim.get("requests") if isinstance(device_claim, dict) else None
    for request in as_list(requests):
        if not isinstance(request, dict):
            continue
        first_available = request.get("firstAvailable")
        if not isinstance(first_available, list) or not first_available:
            names[as_str(request.get("name"))] = None
            continue
        names[as_str(request.get("name"))] = frozenset(
            as_str(sub.get("name")) for sub in first_available if isinstance(sub, dict))
    return names


def has_request(names: RequestNames, ref: str) -> bool:
    segments = ref.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    if len(segments) == 1:
        return True
    subs = names[segments[0]]
    return subs is not None and segments[1] in subs


def validate_request_name_ref(ref: Any, path: Path, names: RequestNames) -> ErrorList:
    """validateRequestNameRef: each segment a DNS label, then the reference must resolve."""
    ref = as_str(ref)
    segments = ref.split("/")
    if len(segments) > 2:
        return [invalid(path, ref, REQUEST_REF_DETAIL)]
    errs: ErrorList = []
    for segment in segments:
        if messages := is_dns1123_label(segment):  # segments mostly pass: then no generator is built
            errs.extend(invalid(path, segment, m) for m in messages)
    if not has_request(names, ref):
        errs.append(invalid(path, ref, REQUEST_REF_DETAIL))
    return errs
