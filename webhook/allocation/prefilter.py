"""Why the scheduler tries a pod on no node at all: its PreEnqueue and PreFilter checks, before any search.

kube-scheduler keeps a pod out of its queue while the SchedulingGates plugin's PreEnqueue says
"waiting for scheduling gates: [...]", and while the DynamicResources plugin's PreEnqueue
(`foreachPodResourceClaim`) finds a claim missing, being deleted, or generated for another pod
(`resourceclaim.IsForPod`). Its PreFilter then refuses a pod whose pending claims name a DeviceClass
that does not exist (`validateDeviceClass`), or have subrequests while DRAPrioritizedList is off. Each of
these is one answer for the pod, the same on every node: `allocate` says it once and searches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

PRE_ENQUEUE, PRE_FILTER = "PreEnqueue", "PreFilter"
SCHEDULING_GROUP = "scheduling.k8s.io/"  # the PodGroup's API group; its version may change


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _spec(obj: dict) -> dict:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _ref(obj: dict) -> str:
    """klog.KObj: namespace/name."""
    meta = _meta(obj)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def scheduling_gates(pod: dict) -> str:
    """The SchedulingGates plugin's PreEnqueue message ("" when the pod has no gate); Go prints the
    list of names as `[a b]`."""
    gates = [g.get("name") or "" for g in _spec(pod).get("schedulingGates") or [] if isinstance(g, dict)]
    return f"waiting for scheduling gates: [{' '.join(str(g) for g in gates)}]" if gates else ""


def controller_of(obj: dict) -> dict | None:
    """metav1.GetControllerOf: the first owner reference with `controller: true`."""
    for ref in _meta(obj).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _pod_group(pod: dict) -> str:
    group = _spec(pod).get("schedulingGroup")
    name = group.get("podGroupName") if isinstance(group, dict) else None
    return name if isinstance(name, str) and name else ""


def is_for_pod(pod: dict, claim: dict, profile) -> str:
    """resourceclaim.IsForPod for a claim generated from a template: "" when the pod controls it, else
    the upstream error. metav1.IsControlledBy compares UIDs; a pod written without its UID (not a dump:
    the API server always sets one) is matched by kind and name instead, and owns a claim without any
    controller, so that a hand-written input is not refused for what it leaves out."""
    controller = controller_of(claim)
    uid = _meta(pod).get("uid")
    if controller is None and not uid:
        return ""
    if controller is not None:
        if uid and controller.get("uid") == uid:
            return ""
        if not uid and controller.get("kind") == "Pod" and controller.get("name") == _meta(pod).get("name"):
            return ""
    claim_ref, pod_ref = _ref(claim), _ref(pod)
    if not profile.behaviours.claim_owner_pod_groups:
        return f"ResourceClaim {claim_ref} was not created for pod {pod_ref} (pod is not owner)"
    group = _pod_group(pod)
    if group and profile.gate("DRAWorkloadResourceClaims"):
        # isForPodGroupByPod: the pod's PodGroup generated the claim for all its pods.
        if (controller is not None and controller.get("kind") == "PodGroup" and controller.get("name") == group
                and str(controller.get("apiVersion") or "").startswith(SCHEDULING_GROUP)):
            return ""
        return f"ResourceClaim {claim_ref} was not created for Pod {pod_ref} (neither Pod nor PodGroup {group} " \
               "is the owner)"
    return f"ResourceClaim {claim_ref} was not created for Pod {pod_ref} (Pod is not owner)"


def request_problem(claim: dict, classes: dict, profile) -> str:
    """PreFilter's checks of a claim to allocate: each request's (and subrequest's) DeviceClass exists
    (validateDeviceClass), and subrequests only with DRAPrioritizedList."""
    requests = ((_spec(claim).get("devices") or {}).get("requests")) or []
    for request in requests:
        if not isinstance(request, dict):
            continue
        name = request.get("name") or ""
        if isinstance(request.get("exactly"), dict):
            why = _device_class(request["exactly"].get("deviceClassName"), name, classes)
        elif request.get("firstAvailable"):
            if not profile.enabled("DRAPrioritizedList"):
                return (f"resource claim {_ref(claim)}, request {name}: has subrequests, but the DRAPrioritizedList "
                        "feature is disabled")
            why = ""
            for sub in request["firstAvailable"]:
                sub = sub if isinstance(sub, dict) else {}
                why = _device_class(sub.get("deviceClassName"), f"{name}/{sub.get('name') or ''}", classes)
                if why:
                    break
        else:
            why = f"resource claim {_ref(claim)}, request {name}: unknown request type"
        if why:
            return why
    return ""


def _device_class(class_name, request_name: str, classes: dict) -> str:
    """validateDeviceClass."""
    if not class_name:
        return f"request {request_name}: unsupported request type"
    if class_name not in classes:
        return f"request {request_name}: device class {class_name} does not exist"
    return ""


@dataclass
class Refusal:
    """One pod's answer when the scheduler tries it on no node (a PreEnqueue or PreFilter failure): the
    same for every node, so it is given once, with no node."""

    pod: str
    stage: str  # PRE_ENQUEUE or PRE_FILTER: the scheduler's extension point that refuses
    error: str
    node: None = None
    allocated: bool = False
    fits: bool = False
    gave_up: bool = False

    def to_dict(self) -> dict:
        return {"node": None, "pod": self.pod, "allocated": False, "error": self.error, "claims": [],
                "refusedAt": self.stage}


DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix


def extended_resource_users(inputs) -> list:
    """[(pod, resource, class)] for pending pods that request an extended resource a DeviceClass provides
    (its `extendedResourceName`, or the implicit deviceclass.resource.kubernetes.io/<class>). With
    DRAExtendedResource the scheduler allocates those through a claim of its own per node, which
    `allocate` does not build: it says so rather than answer without them."""
    provided = {}
    for name, device_class in inputs.classes.items():
        provided[DEVICE_CLASS_PREFIX + name] = name
        explicit = _spec(device_class).get("extendedResourceName")
        if isinstance(explicit, str) and explicit:
            provided[explicit] = name
    out = []
    for pod, _ in inputs.pods:
        spec = _spec(pod)
        if spec.get("nodeName") or ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
            continue
        names = dict.fromkeys(
            resource for container in (spec.get("initContainers") or []) + (spec.get("containers") or [])
            if isinstance(container, dict)
            for part in ("requests", "limits")
            for resource in ((container.get("resources") or {}).get(part) or {}) if resource in provided)
        out.extend((_ref(pod), resource, provided[resource]) for resource in names)
    return out
