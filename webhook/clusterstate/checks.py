"""Admission warnings from the cluster's state, each with a stable code at its start:

- `[missing-device-class]` a request names a DeviceClass the cluster does not have;
- `[unsatisfiable]` no published device can ever satisfy a request (the class's and the request's selectors
  over every device, current allocations aside), with the allocator's one-line reason; or every device that
  matches is tainted (NoSchedule/NoExecute, as the allocator judges it) without a toleration of the request,
  the taint named: it cannot be allocated while the taints stay (never denied by --deny-unsatisfiable);
- `[unknown-attribute]` a request's selector reads an attribute or capacity that no device of the class
  publishes (the nearest published names suggested);
- `[count-above-devices]` a request asks for more devices than match it in the whole cluster (and are not
  tainted against it);
- `[pool]` a ResourceSlice disagrees with the live slices of its pool (webhook.allocation.poolcheck).

Each check runs within a budget (monotonic deadline); what it could not finish says nothing.
"""

from __future__ import annotations

import difflib
import re
import time
from dataclasses import dataclass, field

from webhook.allocation import poolcheck
from webhook.allocation.explain import TAINTED
from webhook.field import TRUNCATED
from webhook.offline.visible import visible
from webhook.clusterstate.matching import Matching
from webhook.clusterstate.store import SLICE, Store, slice_record

# `device.attributes["domain"].name` or `device.capacity["domain"]["name"]`: a read, not a presence test
# (`has(...)`, `"name" in ...`), which may name what is absent on purpose. Linear: no nested repetition.
_READ = re.compile(r'(has\(\s*)?device\.(attributes|capacity)\[\s*"([A-Za-z0-9.\-]{1,253})"\s*\]\s*'
                   r'(?:\.\s*([A-Za-z_][A-Za-z0-9_]{0,63})|\[\s*"([A-Za-z0-9_.\-]{1,63})"\s*\])')
MAX_NAMED = 32  # names read per selector that are checked
MAX_SUGGESTED_FROM = 200  # published names of the same domain compared for a suggestion
MAX_UNKNOWN_WARNINGS = 8  # per request
MAX_WARNING_CHARS = 1024


def _d(value) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value) -> list:
    return value if isinstance(value, list) else []


@dataclass
class Findings:
    warnings: list = field(default_factory=list)
    unsatisfiable: list = field(default_factory=list)  # the [unsatisfiable] warnings (--deny-unsatisfiable)
    complete: bool = True  # False: the budget ran out before every check was done


def _expressions(selectors) -> tuple:
    return tuple(str(_d(_d(s).get("cel")).get("expression") or "") for s in _l(selectors))


def _requests(spec: dict) -> list:
    """[(label, class, selectors, mode, count, alternatives)] of a claim spec; alternatives: the subrequests."""
    out = []
    for request in _l(_d(_d(spec).get("devices")).get("requests")):
        request = _d(request)
        name = str(request.get("name") or "")
        exactly = _d(request.get("exactly"))
        if exactly:
            out.append((name, exactly, None))
        subs = [_d(s) for s in _l(request.get("firstAvailable"))]
        if subs:
            out.append((name, None, subs))
    return out


def named_reads(expression: str) -> list:
    """[(what, qualified name)] an expression reads, `what` being "attribute" or "capacity"."""
    out = []
    for match in _READ.finditer(expression[:64 * 1024]):
        if match.group(1):
            continue
        out.append(("attribute" if match.group(2) == "attributes" else "capacity",
                    f"{match.group(3)}/{match.group(4) or match.group(5)}"))
        if len(out) >= MAX_NAMED:
            break
    return out


def _nearest(name: str, published: set) -> str:
    domain = name.rpartition("/")[0]
    candidates = sorted(n for n in published if n.rpartition("/")[0] == domain)[:MAX_SUGGESTED_FROM] or \
        sorted(published)[:MAX_SUGGESTED_FROM]
    close = difflib.get_close_matches(name, candidates, n=2, cutoff=0.6)
    return f" (nearest published: {', '.join(close)})" if close else ""


def _wanted(request: dict) -> tuple[str, int]:
    if request.get("allocationMode") == "All":
        return "All", 1
    count = request.get("count")
    count = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
    return str(count), count


def check_claim_spec(spec: dict, kind: str, store: Store, matching: Matching, deadline: float) -> Findings:
    out = Findings()
    features = matching.features()
    for name, exactly, subs in _requests(spec):
        alternatives = [(name, exactly)] if exactly is not None else \
            [(f"{name}/{_d(s).get('name') or ''}", s) for s in subs]
        reasons, tainted = [], False
        for label, request in alternatives:
            class_name = request.get("deviceClassName")
            if not isinstance(class_name, str) or not class_name:
                continue
            if class_name not in store.classes:
                out.warnings.append(f"[missing-device-class] {kind} request {label}: DeviceClass {class_name} does "
                                    f"not exist in the cluster; the claim cannot be allocated until it does")
                reasons.append(f"{label}: DeviceClass {class_name} does not exist")
                continue
            if time.monotonic() >= deadline:
                out.complete = False
                return out
            selectors = _expressions(request.get("selectors"))
            wanted_text, wanted = _wanted(request)
            whole = matching.result(class_name, selectors, deadline)
            if not whole.complete:
                out.complete = False
                return out
            # The devices a taint keeps from this request (its own tolerations); None: too many taint sets to say.
            tolerations = [t for t in _l(request.get("tolerations")) if isinstance(t, dict)]
            blocked = whole.blocked(tolerations, features) if whole.matching else None
            usable = whole.matching - (blocked.count if blocked else 0)
            if whole.matching == 0:
                explanation = whole.explanation(label, wanted_text).one_line()
                reasons.append(f"{label} (DeviceClass {class_name}): {explanation}")
            elif usable == 0:
                tainted = True
                explanation = whole.explanation(label, wanted_text, blocked).one_line(TAINTED)
                reasons.append(f"{label} (DeviceClass {class_name}): every device that matches is tainted "
                               f"({blocked.taints()}): {explanation}")
            elif exactly is not None and wanted_text != "All" and usable < wanted:
                some = f", {blocked.count} of them tainted ({blocked.taints()})" if blocked and blocked.count else ""
                explanation = whole.explanation(label, wanted_text, blocked).one_line(TAINTED)
                out.warnings.append(f"[count-above-devices] {kind} request {label} (DeviceClass {class_name}): "
                                    f"asks for {wanted} devices, {whole.matching} in the whole cluster match{some}: "
                                    f"{explanation}")
            if selectors:
                of_class = matching.result(class_name, (), deadline)
                if not of_class.complete:
                    out.complete = False
                    return out
                if of_class.matching:
                    _unknown_names(out, kind, label, class_name, selectors, of_class, deadline)
        if reasons and len(reasons) == len(alternatives) and any("does not exist" not in r for r in reasons):
            ever = "satisfy it while the taints stay" if tainted else "ever satisfy it"
            warning = f"[unsatisfiable] {kind} request {name}: no device in the cluster can {ever}: " + "; ".join(reasons)
            out.warnings.append(warning)
            if not tainted:  # a taint may be lifted: never a denial
                out.unsatisfiable.append(warning)
    return out


def _unknown_names(out: Findings, kind: str, label: str, class_name: str, selectors: tuple, of_class,
                   deadline: float) -> None:
    published = {"attribute": None, "capacity": None}
    warned = 0
    for index, expression in enumerate(selectors):
        for what, name in named_reads(expression):
            if published[what] is None:
                published[what] = of_class.attribute_names() if what == "attribute" else of_class.capacity_names()
            if name in published[what]:
                continue
            if warned >= MAX_UNKNOWN_WARNINGS or time.monotonic() >= deadline:
                out.complete = warned < MAX_UNKNOWN_WARNINGS and out.complete
                return
            warned += 1
            out.warnings.append(f"[unknown-attribute] {kind} request {label}: selectors[{index}] reads {what} "
                                f"{name}, which no device of DeviceClass {class_name} publishes"
                                f"{_nearest(name, published[what])}")


def check_slice(v1: dict, store: Store) -> list:
    """The pool checks of a new or changed slice against the live slices of its pool's generation: `[pool] ...`
    warnings. Only what is wrong at any moment: slices of one generation that disagree on resourceSliceCount,
    or name a device twice. A pool whose slices are still being written (incomplete, an older generation
    being replaced, counter sets published after the devices) is a driver at work, not a mistake."""
    record = slice_record(v1)
    members = [(f"live:{n}", store.slices[n].essentials()) for n in sorted(store.pools.get((record.driver,
                                                                                           record.pool), ()))
               if n != record.name and n in store.slices and store.slices[n].generation == record.generation]
    if not members:
        return []
    found = poolcheck.check([("this", record.essentials())] + members)
    return [f"[pool] {message.replace(' (this)', ' (this object)').replace(' (live:', ' (in the cluster: ')}"
            for sources, message in found
            if "this" in sources and (" disagree on resourceSliceCount " in message or " appears in " in message)]


def _shown(warning: str) -> str:
    """A warning as it goes out: controls escaped (it quotes selectors and names a tenant wrote), and at most
    MAX_WARNING_CHARS (a selector may be 10 KiB; the API server cuts long warnings anyway)."""
    warning = visible(warning)
    return warning if len(warning) <= MAX_WARNING_CHARS else warning[:MAX_WARNING_CHARS] + TRUNCATED


def check(kind: str, v1: dict, store: Store, matching: Matching, deadline: float) -> Findings:
    if kind == "ResourceClaim":
        found = check_claim_spec(_d(v1.get("spec")), kind, store, matching, deadline)
    elif kind == "ResourceClaimTemplate":
        found = check_claim_spec(_d(_d(v1.get("spec")).get("spec")), kind, store, matching, deadline)
    elif kind == SLICE:
        found = Findings(check_slice(v1, store))
    else:
        found = Findings()
    found.warnings = [_shown(w) for w in found.warnings]
    found.unsatisfiable = [_shown(w) for w in found.unsatisfiable]
    return found
