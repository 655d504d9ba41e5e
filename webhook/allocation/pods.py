"""What is allocated together: the pending claims of one pod, as the scheduler allocates them.

The scheduler's DRA plugin works on one pod at a time: its `spec.resourceClaims` name a claim directly
(`resourceClaimName`) or through a template (`resourceClaimTemplateName`), whose generated claim's
name is in `status.resourceClaimStatuses` (an entry without a name: no claim is needed). A template
whose claim does not exist yet is allocated as the claim it will create. Claims already allocated are
in use (they reserve their devices for everyone) and their node selector must match the node; a pod
with `spec.nodeName` is checked on that node only.

A pod the scheduler tries on no node (scheduling gates, a claim missing, being deleted or generated for
another pod, a DeviceClass that does not exist: prefilter.py) carries that `problem` and is answered once;
a bound pod whose claims are all allocated and reserved for it is `settled`: nothing is pending for it.

Without any Pod in the inputs, the pending claims are allocated together, as one pod's (the upstream
allocator table relies on that); with Pods, every pending pod is answered on its own, and claims no
pod references each on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webhook.limits import RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE


@dataclass
class Unit:
    """Claims allocated together, and where."""

    pod: str | None  # "namespace/name"; None: claims that no pod in the inputs references
    claims: list = field(default_factory=list)  # [(v1 claim, source)] to allocate
    node: str = ""  # spec.nodeName: the only node
    allocated: list = field(default_factory=list)  # the pod's claims already allocated (v1)
    problem: str = ""  # why the scheduler tries this pod on no node (a claim is missing, a gate, ...)
    stage: str = ""  # where the scheduler refuses it: prefilter.PRE_ENQUEUE or PRE_FILTER
    problems: dict = field(default_factory=dict)  # stage -> its first problem
    settled: str = ""  # why nothing is pending for the pod (bound with its claims reserved, no claims)
    bind_problem: str = ""  # why PreBind fails on any node that fits (a claim cannot take one more consumer)
    pod_object: dict | None = field(default=None, repr=False, compare=False)  # the Pod itself


class FocusError(ValueError):
    """`--pod` or `--claim` names nothing allocate can answer for."""


class MalformedPod(ValueError):
    """A Pod of the inputs whose fields are not of their types (Pods are read as given, not validated)."""


def _malformed(pod: dict, source: str, error: Exception) -> MalformedPod:
    meta = _meta(pod)
    name = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
    return MalformedPod(f"malformed input: {source}: Pod {name}: {type(error).__name__}: {error}")


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def key_of(obj: dict) -> tuple:
    meta = _meta(obj)
    return (meta.get("namespace") or "default", meta.get("name") or "")


def parse_ref(text: str) -> tuple:
    """NS/NAME, or NAME in namespace default (as kubectl)."""
    namespace, _, name = text.rpartition("/")
    return (namespace or "default", name)


def _finished(pod: dict) -> bool:
    # The scheduler never places a pod that has finished.
    return ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")


def _refuse(unit: Unit, stage: str, text: str) -> None:
    """The first problem of a stage counts (upstream stops at the first); PreEnqueue's come before PreFilter's."""
    unit.problems.setdefault(stage, text)


def _reserved_for(claim: dict, cache: dict) -> tuple[int, frozenset]:
    """(how many entries a claim's status.reservedFor has, the uids in it), found once per claim: every pod
    sharing the claim asks, and scanning the list per pod was pods x entries."""
    found = cache.get(id(claim))
    if found is None:
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        reserved = reserved if isinstance(reserved, list) else []
        uids = frozenset(r.get("uid") for r in reserved if isinstance(r, dict) and isinstance(r.get("uid"), str))
        found = cache[id(claim)] = (len(reserved), uids)
    return found


def pod_unit(pod: dict, pending: dict, in_use: dict, templates: dict, inputs=None, profile=None,
             reservations: dict | None = None) -> Unit:
    """`inputs` and `profile` (the classes and gates PreFilter checks, and IsForPod's release) may be left
    out by callers that only want the claims; `reservations`: what `_reserved_for` found, kept across pods."""
    from webhook.allocation import prefilter
    from webhook.allocation.nodes import NodeSelectorError, selector_matches

    namespace, name = key_of(pod)
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    generated = {s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or []
                 if isinstance(s, dict)}
    unit = Unit(f"{namespace}/{name}", node=spec.get("nodeName") or "", pod_object=pod)
    gated = prefilter.scheduling_gates(pod)
    if gated:  # the SchedulingGates plugin: the pod is not even queued
        _refuse(unit, prefilter.PRE_ENQUEUE, gated)
    uid = _meta(pod).get("uid")
    reservations = {} if reservations is None else reservations
    reserved_all = True  # every claim of the pod is allocated and reserved for it
    for index, entry in enumerate(spec.get("resourceClaims") or []):
        entry = entry if isinstance(entry, dict) else {}
        at = f"spec.resourceClaims[{index}]"
        must_check_owner = False
        if entry.get("resourceClaimName"):
            claim_key = (namespace, entry["resourceClaimName"])
        elif entry.get("resourceClaimTemplateName"):
            if entry.get("name") in generated:
                if not generated[entry.get("name")]:
                    continue  # ResourceClaimStatus without a name: no claim needed
                claim_key = (namespace, generated[entry.get("name")])
                must_check_owner = True
            else:
                reserved_all = False
                template = templates.get((namespace, entry["resourceClaimTemplateName"]))
                if template is None:
                    _refuse(unit, prefilter.PRE_ENQUEUE, f"{at}: ResourceClaimTemplate {namespace}/"
                                                         f"{entry['resourceClaimTemplateName']} is not in the inputs")
                else:
                    unit.claims.append(template)
                continue
        else:  # resourceclaim.Name: ErrAPIUnsupported (the API server requires one of the two)
            _refuse(unit, prefilter.PRE_ENQUEUE, f'pod "{namespace}/{name}", spec.resourceClaim "{entry.get("name")}": '
                                                 "none of the supported fields are set")
            continue
        found = in_use.get(claim_key) or pending.get(claim_key)
        if found is None:
            reserved_all = False
            _refuse(unit, prefilter.PRE_ENQUEUE, f"{at}: ResourceClaim {claim_key[0]}/{claim_key[1]} is not in the "
                                                 "inputs")
            continue
        if _meta(found[0]).get("deletionTimestamp"):
            # foreachPodResourceClaim: "resourceclaim is being deleted".
            _refuse(unit, prefilter.PRE_ENQUEUE, f"{at}: ResourceClaim {claim_key[0]}/{claim_key[1]} is being deleted")
        elif must_check_owner and profile is not None:
            owner = prefilter.is_for_pod(pod, found[0], profile)
            if owner:
                _refuse(unit, prefilter.PRE_ENQUEUE, owner)
        if claim_key in in_use:
            claim = in_use[claim_key][0]
            entries, uids = _reserved_for(claim, reservations)
            mine = isinstance(uid, str) and uid in uids
            reserved_all = reserved_all and mine
            if entries >= RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE and not mine and not unit.bind_problem:
                # resourceclaim.CanBeReserved is always true: PreFilter lets the pod through, and on a node that
                # fits, PreBind's update of reservedFor fails validation (at most 256 entries).
                unit.bind_problem = (f"{at}: ResourceClaim {claim_key[0]}/{claim_key[1]} is in use: reserved for "
                                     f"{entries} consumers, the most it can be")
            selector = ((claim.get("status") or {}).get("allocation") or {}).get("nodeSelector")
            try:
                if selector is not None:
                    selector_matches(selector, None)  # nodeaffinity.NewNodeSelector parses every requirement
            except NodeSelectorError as error:  # PreFilter: an error, for every node
                _refuse(unit, prefilter.PRE_FILTER, f"claim {claim_key[0]}/{claim_key[1]}: allocation.nodeSelector: "
                                                    f"{error}")
            unit.allocated.append(claim)
        else:
            reserved_all = False
            unit.claims.append(pending[claim_key])
    if inputs is not None and profile is not None:
        for claim, _ in unit.claims:
            why = prefilter.request_problem(claim, inputs.classes, profile)
            if why:
                _refuse(unit, prefilter.PRE_FILTER, why)
                break
    for stage in (prefilter.PRE_ENQUEUE, prefilter.PRE_FILTER):
        if stage in unit.problems:
            unit.problem, unit.stage = unit.problems[stage], stage
            break
    if not unit.problem and not unit.claims and not unit.allocated and not spec.get("resourceClaims"):
        unit.settled = f"pod {unit.pod} has no resource claims (the scheduler's DRA plugin skips it)"
    elif unit.node and not unit.problem and not unit.claims and reserved_all:
        # Bound, every claim allocated and reserved for it: the scheduler is done with it.
        unit.settled = f"pod {unit.pod} is bound to node {unit.node}, its claims are allocated and reserved for it"
    return unit


def units(inputs, profile=None) -> list:
    """Every unit the inputs ask about, pods first, in input order."""
    if not inputs.pods:
        return [Unit(None, list(inputs.claims))]
    pending = {key_of(c): (c, s) for c, s in inputs.claims if not s.endswith("(template)")}
    in_use = {key_of(c): (c, s) for c, s in inputs.in_use}
    out, used, reservations = [], set(), {}
    for pod, source in inputs.pods:
        try:
            unit = _pod_unit_of(pod, pending, in_use, inputs, profile, reservations, used)
        except (TypeError, AttributeError, KeyError, ValueError) as error:
            raise _malformed(pod, source, error) from error
        if unit is not None:
            out.append(unit)
    out.extend(Unit(None, [(c, s)]) for c, s in inputs.claims if id(c) not in used)
    return out


def _pod_unit_of(pod: dict, pending: dict, in_use: dict, inputs, profile, reservations: dict, used: set):
    """The unit of a pod that waits for DRA, or None; the templates and claims it uses are added to `used`."""
    namespace = key_of(pod)[0]
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if isinstance(entry, dict) and entry.get("resourceClaimTemplateName"):
            used.add(id(inputs.templates.get((namespace, entry["resourceClaimTemplateName"]), (None,))[0]))
    if _finished(pod):
        return None
    unit = pod_unit(pod, pending, in_use, inputs.templates, inputs, profile, reservations)
    used.update(id(c) for c, _ in unit.claims)
    # A pod with nothing left to allocate is not waiting for DRA; a bound one whose claims are not in
    # the inputs is running somewhere (a partial dump), not pending; a pod without claims (gated or
    # not) is none of allocate's business.
    if unit.claims or (unit.problem and not unit.node and (pod.get("spec") or {}).get("resourceClaims")):
        return unit
    return None


def focus(inputs, pod: str | None, claim: str | None, profile=None) -> list:
    """The units `--pod` or `--claim` ask for (every unit without them); FocusError when nothing matches."""
    if claim:
        wanted = parse_ref(claim)
        for c, s in inputs.in_use:
            if key_of(c) == wanted:
                raise FocusError(f"--claim {claim}: ResourceClaim {'/'.join(wanted)} is already allocated")
        found = [(c, s) for c, s in inputs.claims if key_of(c) == wanted]
        if not found:
            raise FocusError(f"--claim {claim}: no pending ResourceClaim or ResourceClaimTemplate "
                             f"{'/'.join(wanted)} in the inputs")
        return [Unit(None, found[:1])]
    if pod:
        wanted = parse_ref(pod)
        for p, source in inputs.pods:
            if key_of(p) == wanted:
                pending = {key_of(c): (c, s) for c, s in inputs.claims if not s.endswith("(template)")}
                in_use = {key_of(c): (c, s) for c, s in inputs.in_use}
                try:
                    return [pod_unit(p, pending, in_use, inputs.templates, inputs, profile)]
                except (TypeError, AttributeError, KeyError, ValueError) as error:
                    raise _malformed(p, source, error) from error
        raise FocusError(f"--pod {pod}: no Pod {'/'.join(wanted)} in the inputs")
    return units(inputs, profile)


def nodes_of(unit: Unit, names: list, all_nodes: bool) -> list:
    """The nodes to answer on: a pod bound to a node is checked there only (on another node given with
    --node, the answer is that it is bound elsewhere)."""
    if unit.node and (all_nodes or unit.node in names):
        return [unit.node]
    return names


def answer(allocator, inputs, unit: Unit, name: str, deadline):
    """One pod on one node (outcome.NodeOutcome), refused before any search when the scheduler's filter
    would: the pod bound elsewhere, an allocated claim whose node selector does not match (a pod refused
    on every node, `unit.problem`, is answered once by the caller)."""
    from webhook.allocation import inputs as read_inputs
    from webhook.allocation import outcome
    from webhook.allocation.nodes import NodeSelectorError, selector_matches

    node = read_inputs.node_object(inputs, name)
    refused = unit.problem
    if not refused and unit.node and unit.node != name:
        refused = f"pod {unit.pod} is bound to node {unit.node}"
    for claim in unit.allocated if not refused else ():
        selector = ((claim.get("status") or {}).get("allocation") or {}).get("nodeSelector")
        try:
            if selector is not None and not selector_matches(selector, node):
                refused = f"claim {'/'.join(key_of(claim))} is allocated, and not available on this node"
        except NodeSelectorError as error:
            refused = f"claim {'/'.join(key_of(claim))}: allocation.nodeSelector: {error}"
        if refused:
            break
    if refused:
        done = outcome.NodeOutcome(name, False, refused, [])
    else:
        done = outcome.allocate_on(allocator, node, inputs, deadline=deadline, pending=unit.claims,
                                   pod=unit.pod_object)
        if done.allocated and unit.bind_problem:
            done = outcome.NodeOutcome(name, False, unit.bind_problem, done.claims)
    done.pod = unit.pod
    return done
