"""The parts of the allocator differential's scenarios (tests/allocator_scenarios.py) added after the
first ones, each drawn from a random stream of its own so that adding one leaves the rest of a seed's
scenario as it was: DeviceTaintRules, the 1.37 alpha allocator features (derived attributes here; the
device and slice fields in allocator_scenarios.py) and the node-allocatable footprint (device fields and
the pending Pod).
"""

from __future__ import annotations

import random
import uuid

DRIVERS = ("d1.example.com", "d2.example.com")

# The API version each release's scheduler reads DeviceTaintRules in, and the gate that turns them on.
TAINT_RULE_API = {"1.34": "v1alpha3", "1.35": "v1alpha3", "1.36": "v1beta2", "1.37": "v1"}
TAINT_RULE_GATE = {"1.34": "DRADeviceTaints"}  # later releases: DRADeviceTaintRules


class Streams:
    """The random streams of the later features."""

    def __init__(self, version: str, seed: int) -> None:
        self.lists = random.Random(f"{version}/{seed}/lists")
        self.rules = random.Random(f"{version}/{seed}/taint-rules")
        self.alpha = random.Random(f"{version}/{seed}/1.37-alpha")
        self.footprint = random.Random(f"{version}/{seed}/node-allocatable")
        self.fits = random.Random(f"{version}/{seed}/node-fit")  # more scenarios whose node fit is compared
        self.pod_level = random.Random(f"{version}/{seed}/pod-level")
        self.templates = random.Random(f"{version}/{seed}/claim-templates")


def node_allocatable(rng, device: dict, driver: str, version: str, fitting: bool = False) -> None:
    """What the device takes from its node per allocation: 1.36's mappings, 1.37's resources (a capacity
    key on a device that is not shared, or not consumed under that name, included unless `fitting`: then a
    capacity key only on a shared device, whose allocations consume capacity)."""
    key = rng.choice(("memory", "memory", f"{driver}/memory", "cores"))
    by_capacity = not fitting or device.get("allowMultipleAllocations")
    if version == "1.36":
        device["nodeAllocatableResourceMappings"] = rng.choice((
            {"cpu": {"allocationMultiplier": rng.choice(("1", "2", "500m"))}},
            *(({"memory": {"capacityKey": key}},
               {"memory": {"capacityKey": key, "allocationMultiplier": rng.choice(("2", "500m"))},
                "cpu": {"allocationMultiplier": "1"}}) if by_capacity else ())))
        return
    device["nodeAllocatableResources"] = rng.choice((
        {"cpu": {"mapping": {"deviceMultiplier": rng.choice(("1", "2", "500m"))}}},
        *(({"memory": {"mapping": {"capacityKey": key,
                                   **({"capacityMultiplier": "2"} if rng.random() < 0.5 else {})}}},) if by_capacity
          else ()),
        {"memory": {"overhead": {"perPod": "100Mi", "perContainer": "10Mi"}}},
        {"cpu": {"mapping": {"deviceMultiplier": "1"}, "overhead": {"perContainer": rng.choice(("100m", "1"))}},
         "memory": {"overhead": {"perPod": "1Gi"}}}))


def pod(rng, claims: list) -> dict:
    """The pending Pod of the claims: containers (init, sidecar, regular) referencing some of them."""
    names = [f"rc{i}" for i in range(len(claims))]
    containers = [{"name": f"c{i}", "image": "x", "resources": {"claims": [
        {"name": n} for n in names if rng.random() < 0.7]}} for i in range(rng.randint(1, 2))]
    for container in containers:
        if rng.random() < 0.4:  # requests of its own: they count in the node's fit, not in the footprint
            container["resources"]["requests"] = {"cpu": rng.choice(("500m", "2")), "memory": rng.choice(("512Mi", "4Gi"))}
    spec = {"resourceClaims": [{"name": n, "resourceClaimName": c["metadata"]["name"]} for n, c in zip(names, claims)],
            "containers": containers}
    if rng.random() < 0.3:
        init = {"name": "init", "image": "x", "resources": {"claims": [{"name": rng.choice(names)}]}}
        if rng.random() < 0.5:
            init["restartPolicy"] = "Always"  # a sidecar
        spec["initContainers"] = [init]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default",
                                                            "uid": str(uuid.UUID(int=rng.getrandbits(128)))},
            "spec": spec}


def derived_attributes(rng, requests: list, constraints: list, tags: set) -> None:
    """1.37 derivedAttributes: one virtual attribute on some requests (or subrequests), under a constraint;
    some expressions fail on the other driver's devices, some shadow the driver's own attribute."""
    name = rng.choice(("derived/numa", f"{DRIVERS[0]}/numa", "derived/kind"))
    expression = rng.choice((
        f'device.attributes["{DRIVERS[0]}"].numa',  # a runtime error on d2's devices
        f'device.attributes["{DRIVERS[0]}"].index % 2',
        f'device.driver == "{DRIVERS[1]}" ? 0 : device.attributes["{DRIVERS[0]}"].numa',
        'device.driver',
        f'device.attributes["{DRIVERS[0]}"].fast',
        f'device.attributes["{DRIVERS[0]}"].model == "a" ? "x" : "y"',
        f'[device.attributes["{DRIVERS[0]}"].numa, 7]',  # a list: shared elements match
        f'device.attributes["{DRIVERS[0]}"].numas'))  # a list attribute (when devices have one)
    holders = [r for r in requests if rng.random() < 0.7] or requests[:1]
    for request in holders:
        for target in ([request["exactly"]] if "exactly" in request else request["firstAvailable"]):
            target["derivedAttributes"] = [{"name": name, "expression": expression}]
    constraint = {rng.choice(("matchAttribute", "matchAttribute", "distinctAttribute")): name}
    if rng.random() < 0.3:
        constraint["requests"] = [r["name"] for r in holders]
    constraints.append(constraint)
    tags.add("derivedAttributes")


def taint_rules(rng, version: str, slices: list) -> list:
    """DeviceTaintRules as stored, in the API version the release's scheduler reads: selecting every
    device (an empty selector, or none at all), a driver, a pool or one device (1.34 also by class and CEL)."""
    devices = [(s["spec"]["driver"], s["spec"]["pool"]["name"], d["name"]) for s in slices
               for d in s["spec"].get("devices") or []]
    effects = ("NoSchedule", "NoExecute") + (("None",) if version >= "1.35" else ())
    rules = []
    for i in range(rng.randint(1, 3)):
        driver, pool, device = rng.choice(devices) if devices else (DRIVERS[0], "pool-0", "dev-0")
        fields = rng.choice(((), ("driver",), ("driver", "pool"), ("driver", "pool", "device"),
                             ("driver", "pool", "device"), ("device",), ("pool",), None))
        spec = {"taint": {"key": rng.choice(("broken", "maint")), "value": rng.choice(("yes", "no")),
                          "effect": rng.choice(effects)}}
        if fields is not None:
            chosen = {"driver": driver, "pool": pool, "device": device}
            selector = {f: chosen[f] for f in fields}
            if version == "1.34" and rng.random() < 0.3:
                selector["deviceClassName"] = rng.choice(("c1", "c2", "no-such-class"))
            if version == "1.34" and rng.random() < 0.3:
                selector["selectors"] = [{"cel": {"expression": rng.choice((
                    f'device.attributes["{DRIVERS[0]}"].numa == 0', 'device.driver == "d2.example.com"'))}}]
            spec["deviceSelector"] = selector
        rules.append({"apiVersion": f"resource.k8s.io/{TAINT_RULE_API[version]}", "kind": "DeviceTaintRule",
                      "metadata": {"name": f"rule-{i}"}, "spec": spec})
    return rules


def _milli(quantity: str) -> int:
    return int(quantity[:-1]) if quantity.endswith("m") else int(quantity) * 1000


def _mebi(quantity: str) -> int:
    return int(quantity[:-2]) * (1024 if quantity.endswith("Gi") else 1)


def pod_level(rng, pod: dict) -> None:
    """Pod-level resources (spec.resources) now and then, valid as the API server wants them (requests at
    least the containers' sum, container limits within the pod's): whether they also cover what the claims
    add is the scheduler's check (validatePodLevel...CoverDRA)."""
    if rng.random() >= 0.45:
        return
    containers = pod["spec"]["containers"]
    cpu = sum(_milli(c["resources"].get("requests", {}).get("cpu", "0")) for c in containers)
    memory = sum(_mebi(c["resources"].get("requests", {}).get("memory", "0Mi")) for c in containers)
    requests = {}
    if rng.random() < 0.8:
        requests["cpu"] = f"{max(cpu, 100) + rng.choice((0, 0, 500, 1000, 8000))}m"
    if rng.random() < 0.6:
        requests["memory"] = f"{max(memory, 256) + rng.choice((0, 512, 2048, 16384))}Mi"
    resources = {"requests": requests} if requests else {}
    if "cpu" in requests and rng.random() < 0.4:
        limit = _milli(requests["cpu"]) + rng.choice((0, 1000))
        resources["limits"] = {"cpu": f"{limit}m"}
        for container in containers:
            own = container["resources"].get("requests", {}).get("cpu")
            if own and rng.random() < 0.7:
                container["resources"]["limits"] = {"cpu": own}
    if resources:
        pod["spec"]["resources"] = resources


def claim_templates(rng, pod: dict, claims: list) -> None:
    """Now and then the Pod takes a claim through a ResourceClaimTemplate: the claim is the one generated for
    it (owned by the Pod, named in its status.resourceClaimStatuses)."""
    statuses = []
    for entry, claim in zip(pod["spec"]["resourceClaims"], claims):
        if rng.random() >= 0.4:
            continue
        entry.pop("resourceClaimName")
        entry["resourceClaimTemplateName"] = f"template-{claim['metadata']['name']}"
        claim["metadata"]["annotations"] = {"resource.kubernetes.io/pod-claim-name": entry["name"]}
        claim["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                                                 "uid": pod["metadata"]["uid"], "controller": True,
                                                 "blockOwnerDeletion": True}]
        statuses.append({"name": entry["name"], "resourceClaimName": claim["metadata"]["name"]})
    if statuses:
        pod["status"] = {"resourceClaimStatuses": statuses}


def fit_inputs(rng, pod: dict, node: dict) -> None:
    """More scenarios whose node fit is compared: a claim no container references (which the 1.36
    scheduler refuses before the fit) mostly gets a container, a node without allocatable mostly gets one."""
    containers = pod["spec"]["containers"]
    used = {c["name"] for container in containers for c in container["resources"]["claims"]}
    used |= {c["name"] for init in pod["spec"].get("initContainers", []) for c in init["resources"]["claims"]}
    for entry in pod["spec"]["resourceClaims"]:
        if entry["name"] not in used and rng.random() < 0.8:
            rng.choice(containers)["resources"]["claims"].append({"name": entry["name"]})
    if "allocatable" not in node.get("status", {}) and rng.random() < 0.7:
        node["status"] = {**node.get("status", {}), "allocatable": {
            "cpu": rng.choice(("4", "8", "16")), "memory": rng.choice(("8Gi", "32Gi")), "pods": "110"}}


def node_room(rng, version: str, node: dict) -> list:
    """The node's allocatable (now and then none) and the Pods bound to it, with requests and (now and
    then) their own claims' node-allocatable statuses in the release's shape: what the node has left."""
    if rng.random() < 0.2:
        return []
    node["status"] = {**node.get("status", {}), "allocatable": {
        "cpu": rng.choice(("2", "4", "8", "16")), "memory": rng.choice(("8Gi", "32Gi", "64Gi")), "pods": "110"}}
    bound = []
    for i in range(rng.randint(0, 2)):
        spec = {"nodeName": node["metadata"]["name"], "containers": [{"name": "app", "image": "x", "resources": {
            "requests": {"cpu": rng.choice(("1", "2500m")), "memory": rng.choice(("1Gi", "6Gi"))}}}]}
        if rng.random() < 0.3:
            spec["initContainers"] = [{"name": "sidecar", "image": "x", "restartPolicy": "Always",
                                       "resources": {"requests": {"cpu": "500m"}}}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"bound-{i}", "namespace": "default"},
               "spec": spec}
        if rng.random() < 0.4:
            status = {"resourceClaimName": f"bound-claim-{i}", "containers": ["app"]}
            if version == "1.36":
                status["resources"] = {"cpu": rng.choice(("1", "4")), "memory": "2Gi"}
            else:
                status["mapping"] = [{"name": "cpu", "quantity": rng.choice(("1", "4"))}]
                status["overhead"] = [{"name": "memory", "perPod": "1Gi", "perContainer": "256Mi"}]
            pod["status"] = {"nodeAllocatableResourceClaimStatuses": [status]}
        bound.append(pod)
    return bound
