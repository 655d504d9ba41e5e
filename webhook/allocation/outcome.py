"""One node's answer: allocate the pending claims there, and explain what could not be allocated."""

from __future__ import annotations

from dataclasses import dataclass, field

from webhook.allocation import footprint, nodeallocatable, taintrules
from webhook.behaviours import RESOURCES
from webhook.allocation import state as allocated_state
from webhook.allocation.allocator import AllocationError, Allocator
from webhook.allocation.deadline import NO_DEADLINE, Deadline, GaveUp
from webhook.allocation.explain import explain_request
from webhook.allocation.features import Features
from webhook.allocation.pools import Slice
from webhook.allocation.selection import Selection


@dataclass
class ClaimOutcome:
    namespace: str
    name: str
    source: str
    allocation: dict | None = None
    explanation: list = field(default_factory=list)  # RequestExplanation
    footprint: object = None  # footprint.Footprint, with DRANodeAllocatableResources

    def to_dict(self) -> dict:
        out = {"namespace": self.namespace, "name": self.name, "allocation": self.allocation,
               "explanation": [e.to_dict() for e in self.explanation]}
        if self.footprint is not None:
            out["nodeAllocatable"] = self.footprint.to_dict()
            out.update(self.footprint.extra() if hasattr(self.footprint, "extra") else {})
            if self.footprint.problems:
                out["nodeAllocatableProblems"] = list(self.footprint.problems)
        return out


@dataclass
class NotTried:
    """The answers (a pod on a node) that --total-timeout left untried: one line for all of them, never
    one each (600 pods on 1,000 nodes would print 600,000)."""

    why: str = ""
    answers: int = 0
    pods: set = field(default_factory=set)
    nodes: set = field(default_factory=set)

    def add(self, pod: str | None, nodes: list) -> None:
        self.answers += len(nodes)
        self.pods.add(pod or "")
        self.nodes.update(nodes)

    def text(self) -> str:
        pods = f"{len(self.pods):,} pod{'s' if len(self.pods) != 1 else ''}"
        nodes = f"{len(self.nodes):,} node{'s' if len(self.nodes) != 1 else ''}"
        return f"not tried: {self.answers:,} answer{'s' if self.answers != 1 else ''} ({pods} on {nodes}): {self.why}"

    def to_dict(self) -> dict:
        return {"notTried": {"answers": self.answers, "pods": len(self.pods), "nodes": len(self.nodes)},
                "allocated": False, "gaveUp": True, "error": self.text()}


@dataclass
class NodeOutcome:
    node: str
    allocated: bool
    error: str | None
    claims: list
    footprint: object = None  # the node's sum over the claims
    fit: dict | None = None  # {"fits", "free", "short"} against status.allocatable
    notes: list = field(default_factory=list)
    gave_up: bool = False  # the time ran out: neither allocated nor known not to be allocatable
    pod: str | None = None  # "namespace/name" of the pod whose claims these are (None: no pod)
    refused: bool = False  # the plugin refuses the pending Pod for its claims' footprint (said in their problems)

    @property
    def fits(self) -> bool:
        """Allocated, and (with DRANodeAllocatableResources) the footprint fits what the node has left."""
        return self.allocated and not self.refused and (self.fit is None or self.fit["fits"])

    def to_dict(self) -> dict:
        out = {"node": self.node, "pod": self.pod, "allocated": self.allocated, "error": self.error,
               "claims": [c.to_dict() for c in self.claims]}
        if self.footprint is not None:
            out["nodeAllocatable"] = self.footprint.to_dict()
        if self.fit is not None:
            out["nodeAllocatableFit"] = self.fit
        if self.notes:
            out["notes"] = list(self.notes)
        if self.gave_up:
            out["gaveUp"] = True
        return out


def build_allocator(inputs, profile, deadline: Deadline = NO_DEADLINE) -> Allocator:
    """The allocator over the inputs' slices as the scheduler's tracker shows them. GaveUp when `deadline`
    passes first: 1.34's DeviceTaintRule CEL selectors are evaluated here, per rule and device."""
    features = Features.from_profile(profile)
    state = allocated_state.gather([c for c, _ in inputs.in_use], features.consumable_capacity)
    # The scheduler sees slices through its tracker, with DeviceTaintRules applied (inputs holds only the
    # rules its gate lets the scheduler read).
    rules = [r for r, _ in getattr(inputs, "taint_rules", [])]
    selection = Selection(features)
    selectors = taintrules.Selectors(inputs.classes, selection) if profile.behaviours.taint_rule_cel_selectors else None
    selection.deadline = deadline
    try:
        slices = []
        for s, source in inputs.slices:
            deadline.check()
            patched = taintrules.apply_patches(
                s, rules, selectors,
                no_selector_matches_all=profile.behaviours.taint_rule_no_selector_matches_all) if rules else s
            slices.append(Slice.from_object(patched, source))
    finally:
        selection.deadline = NO_DEADLINE
    return Allocator(features, state, inputs.classes, slices, selection)


def allocate_on(allocator: Allocator, node: dict, inputs, explain: bool = True,
                deadline: Deadline = NO_DEADLINE, pending: list | None = None, pod: dict | None = None) -> NodeOutcome:
    """`pending`: the [(claim, source)] allocated together (one pod's); all of the inputs' by default.
    `pod`: the Pod whose claims they are (its requests count in the node's fit)."""
    pending = inputs.claims if pending is None else pending
    claims = [c for c, _ in pending]
    outcomes = []
    for claim, source in pending:
        meta = claim.get("metadata") or {}
        outcomes.append(ClaimOutcome(meta.get("namespace") or "", meta.get("name") or "", source))
    name = (node.get("metadata") or {}).get("name") or ""
    run = allocator.start(node, claims, deadline)
    try:
        results = run.run()
    except GaveUp as error:
        names = ", ".join(f"{o.namespace}/{o.name}" if o.namespace else o.name for o in outcomes)
        what = f"claim{'s' if len(outcomes) != 1 else ''} {names}"
        if not run.steps:
            return NodeOutcome(name, False, f"gave up before searching devices for {what}: {error.why}", outcomes,
                               gave_up=True)
        return NodeOutcome(name, False, f"gave up after {error.elapsed:.1f}s searching devices for {what} "
                                        f"({run.steps:,} search steps): {error.why}", outcomes, gave_up=True)
    except AllocationError as error:
        return NodeOutcome(name, False, str(error), outcomes)
    except RecursionError:
        return NodeOutcome(name, False, "the search for devices went too deep", outcomes)
    if results is not None:
        for outcome, result in zip(outcomes, results):
            outcome.allocation = result
        done = NodeOutcome(name, True, None, outcomes)
        _add_footprint(allocator, node, inputs, done, pod)
        return done
    notes = []
    if explain:
        allocator.selection.deadline = deadline  # explaining evaluates selectors too: within the same time
        try:
            for key in sorted(run.request_data):
                data = run.request_data[key]
                try:
                    outcomes[key[0]].explanation.append(explain_request(run, key, data, False))
                except AllocationError:
                    continue
        except GaveUp as error:
            notes.append(f"the explanation is incomplete: {error}")
        finally:
            allocator.selection.deadline = NO_DEADLINE
    _blame(outcomes)
    return NodeOutcome(name, False, None, outcomes, notes=notes)


def _add_footprint(allocator: Allocator, node: dict, inputs, done: NodeOutcome, pending: dict | None = None) -> None:
    """The claims' footprint, and whether the node has room: for the pending Pod's requests with its claims'
    NodeAllocatableResourceClaimStatus as the plugin's nodeFitsResources checks them (when its claims have
    devices that take node resources; else, without a Pod, for the footprint alone)."""
    slices = allocator.slices_for(done.node)
    allocations = [c.allocation for c in done.claims]
    reshaped = allocator.features.node_allocatable_model == RESOURCES
    if allocator.features.node_allocatable_model is None:  # the release has no such field (1.35)
        return
    declares = nodeallocatable.has_resources(allocations, slices, node) if reshaped else \
        footprint.has_mappings(allocations, allocator.all_slices)
    if not allocator.features.node_allocatable_resources:
        if declares:
            what = "declare node-allocatable resources" if reshaped else "map node-allocatable resources"
            done.notes.append(f"devices {what}, but the footprint is not counted: "
                              f"{footprint.GATE} is off (enable it with --feature-gates {footprint.GATE}=true)")
        return
    pods = [p for p, _ in inputs.pods]
    total = footprint.Footprint()
    statuses = []  # the pending Pod's NodeAllocatableResourceClaimStatus, as the plugin builds them
    for claim in done.claims:
        template = claim.source.endswith("(template)")
        containers = nodeallocatable.containers_using(pending, claim.name, template) if pending else []
        if reshaped:
            using = nodeallocatable.users(pods, claim.namespace, claim.name, template)
            if template:  # each pod gets a claim of its own: count one of them
                using = using[:1]
            claim.footprint = nodeallocatable.claim_footprint(claim.allocation, slices, node,
                                                              sum(n for _, n in using), len(using))
            if claim.footprint.mapped and len(using) > 1:
                claim.footprint.problems.append(
                    f"the Pods {', '.join(p for p, _ in using)} use the claim, but a claim with mapped "
                    "node-allocatable resources cannot be shared across pods: the scheduler refuses all but the first")
            statuses.append(nodeallocatable.claim_status(claim.allocation, slices, node, claim.name, containers))
        else:
            claim.footprint = footprint.claim_footprint(claim.allocation, allocator.all_slices)
            statuses.append(footprint.claim_status(claim.footprint, claim.name, containers))
            unused = [p for p, containers in nodeallocatable.users(pods, claim.namespace, claim.name, False)
                      if not containers]
            if claim.footprint.amounts and unused:  # getPodNodeAllocatableResourceFootprint (1.36)
                claim.footprint.problems.append(
                    f"no container of Pod {unused[0]} references the claim, whose devices map node-allocatable "
                    "resources: the scheduler refuses the Pod (node-allocatable resource claim not referenced by "
                    "any container within the pod)")
        for name, amount in claim.footprint.amounts.items():
            total.add(name, amount)
    done.footprint = total
    requests = nodeallocatable.pod_requests if reshaped else footprint.pod_requests
    statuses = [status for status in statuses if status]
    # The plugin checks the Pod's fit once one of its claims has a device that declares node resources,
    # even if none of them applies to the allocation (calculateAndCheckNodeAllocatableResources).
    if pending is None or not declares:
        done.fit = footprint.fit(total, node, pods, requests)
    elif any(c.footprint.problems for c in done.claims):  # the plugin refuses the Pod before its fit
        done.refused = True
    else:
        with_claims = {**pending, "status": {**(pending.get("status") or {}),
                                             "nodeAllocatableResourceClaimStatuses": statuses}}
        refusal = (nodeallocatable if reshaped else footprint).pod_level_problem(with_claims)
        if refusal and done.claims:  # getPodNodeAllocatableResourceFootprint: before the node's fit
            done.refused = True
            meta = pending.get("metadata") or {}
            done.claims[0].footprint.problems.append(
                f"Pod {meta.get('namespace') or 'default'}/{meta.get('name') or ''}: {refusal}: the scheduler "
                "refuses the Pod")
        else:
            done.fit = footprint.node_fit(requests(with_claims), node, pods, requests)


def _claim_name(o: ClaimOutcome) -> str:
    return f"{o.namespace}/{o.name}" if o.namespace else o.name


def _blame(outcomes: list) -> None:
    """A request that could be served alone is not the problem: name the requests that cannot."""
    short = list(dict.fromkeys(f"claim {_claim_name(o)} request {e.request}" for o in outcomes for e in o.explanation
                               if e.wanted != "All" and e.usable < int(e.wanted) or e.wanted == "All" and not e.usable))
    if not short:
        return
    for o in outcomes:
        for e in o.explanation:
            if e.note.startswith("enough usable devices"):
                e.note = f"enough usable devices; allocation fails on {', '.join(short)}"
