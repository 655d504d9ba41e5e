"""Generated allocation scenarios for the allocator differential (tests/allocator_differential.py).

`scenario(seed, version, gates_on)` builds, from one seed, a node, DeviceClasses, ResourceSlices, claims to
allocate and claims already allocated, drawing on what the structured allocator decides by: counters and
partitionable devices, consumable capacity, taints and tolerations, matchAttribute and distinctAttribute
constraints, firstAvailable subrequests, allocationMode All, admin access, binding conditions, node
selection of slices (nodeName, allNodes, nodeSelector, another node), incomplete and stale pools, CEL
selectors (a few of which fail at run time), from 1.36 list-type attributes under both constraints,
DeviceTaintRules (applied by the scheduler's slice tracker; tolerated or not by the requests), and the
1.37 alpha features of the allocator: compatibility groups on counter consumption, derived attributes under
constraints, fractional capacity ranges and slices that skip node operations (with nodes that declare the
feature or not), and from 1.36 devices that take node resources, with the pending Pod of the claims
(tests/allocator_scenario_parts.py holds these later parts).
Objects are resource.k8s.io/v1 as stored, small (a scenario has at most a few dozen devices), and valid for
the release, except that a field whose gate is off is sometimes kept: an object written while the gate was
on keeps it, and the allocator must cope.

Each scenario carries `tags`: the features it uses, for the counts per feature.
"""

from __future__ import annotations

import random
import uuid

from allocator_scenario_parts import (DRIVERS, TAINT_RULE_GATE, Streams, derived_attributes, node_allocatable,
                                      node_room, taint_rules)
from allocator_scenario_parts import claim_templates, fit_inputs, pod_level
from allocator_scenario_parts import pod as pod_of

NODE = "n1"
GATED = {  # the gate a scenario feature's fields belong to
    "partitionable": "DRAPartitionableDevices", "counters": "DRAPartitionableDevices",
    "consumable": "DRAConsumableCapacity", "distinctAttribute": "DRAConsumableCapacity",
    "taints": "DRADeviceTaints", "adminAccess": "DRAAdminAccess", "firstAvailable": "DRAPrioritizedList",
    "bindingConditions": "DRADeviceBindingConditions", "listAttributes": "DRAListTypeAttributes",
    "compatibilityGroups": "DRADeviceCompatibilityGroups", "derivedAttributes": "DRADerivedAttributes",
    "fractionalCapacity": "DRAFractionalCapacityRange", "skipNodeOperations": "DRAOptionalNodeOperations",
    "nodeAllocatable": "DRANodeAllocatableResources",
}
def _has(enabled: dict, rng: random.Random, feature: str, p: float) -> bool:
    """Whether to use a feature: at rate p with its gate on, rarely (objects from before) with it off."""
    gate = GATED.get(feature)
    if gate is not None and not enabled.get(gate, False):
        p *= 0.25
    return rng.random() < p


def _device(rng, driver: str, index: int, feats: set, version: str, counter_sets: list, streams: Streams) -> dict:
    lists, alpha = streams.lists, streams.alpha
    device = {"name": f"dev-{index}",
              "attributes": {"model": {"string": rng.choice(("a", "b"))}, "numa": {"int": rng.randint(0, 1)},
                             "index": {"int": index}, "fast": {"bool": rng.random() < 0.5}},
              "capacity": {"memory": {"value": rng.choice(("8Gi", "16Gi", "32Gi"))}}}
    if "consumable" in feats and rng.random() < 0.6:
        device["allowMultipleAllocations"] = True
        policy = rng.choice((None, {"default": "4Gi", "validRange": {"min": "1Gi", "step": "1Gi"}},
                             {"default": "8Gi", "validValues": ["8Gi", "16Gi"]}))
        device["capacity"]["memory"] = {"value": rng.choice(("16Gi", "32Gi")), **({"requestPolicy": policy}
                                                                               if policy else {})}
    if counter_sets and rng.random() < 0.8:
        cs = rng.choice(counter_sets)
        device["consumesCounters"] = [{"counterSet": cs, "counters": {
            "mem": {"value": rng.choice(("4Gi", "8Gi", "16Gi"))}, **({"slots": {"value": "1"}} if rng.random() < 0.5
                                                                     else {})}}]
        if "compatibilityGroups" in feats and alpha.random() < 0.7:  # 1.37: co-allocation on the counter set
            device["consumesCounters"][0]["compatibilityGroups"] = alpha.sample(("g1", "g2", "g3"), alpha.randint(1, 2))
    if "taints" in feats and rng.random() < 0.4:
        effects = ("NoSchedule", "NoExecute") + (("None",) if version >= "1.35" else ())
        device["taints"] = [{"key": rng.choice(("broken", "maint")), "value": rng.choice(("yes", "no")),
                             "effect": rng.choice(effects)}]
    if "bindingConditions" in feats and rng.random() < 0.4:
        device["bindingConditions"] = ["ready"]
        device["bindingFailureConditions"] = ["failed"]
        device["bindsToNode"] = rng.random() < 0.5
    if "fractionalCapacity" in feats and device.get("allowMultipleAllocations") and alpha.random() < 0.7:
        # 1.37: a range in milli-units (DRAFractionalCapacityRange), requested by "cores" below
        device["capacity"]["cores"] = {"value": alpha.choice(("1", "2")), "requestPolicy": {
            "default": alpha.choice(("250m", "500m")),
            "validRange": {"min": alpha.choice(("100m", "250m")), "max": alpha.choice(("1", "1500m")),
                           **({"step": alpha.choice(("250m", "100m"))} if alpha.random() < 0.7 else {})}}}
    if "nodeAllocatable" in feats and "nodeFit" not in feats and streams.footprint.random() < 0.6:
        node_allocatable(streams.footprint, device, driver, version)
    elif "nodeAllocatable" in feats and streams.fits.random() < (0.8 if "nodeFit" in feats else 0.5):
        node_allocatable(streams.fits, device, driver, version, fitting=True)
    if "listAttributes" in feats and lists.random() < 0.7:  # a list attribute (1.36+), drawn apart
        device["attributes"]["numas"] = {"ints": sorted(lists.sample(range(3), lists.randint(1, 2)))}
    return device


def _slices(rng, driver: str, pool: str, feats: set, version: str, tags: set, streams: Streams) -> list:
    """One pool: its slices (with a stale or a missing slice now and then)."""
    counters_apart = version >= "1.35"  # 1.35 moved counter sets into slices of their own
    counter_sets = []
    if "counters" in feats:
        counter_sets = [f"cs-{i}" for i in range(rng.randint(1, 2))]
    where = rng.choices(("node", "all", "selector-match", "selector-miss", "other"), (10, 2, 2, 1, 1))[0]
    if where != "node":
        tags.add("nodeSelection")
    selection = {"node": {"nodeName": NODE}, "other": {"nodeName": "n2"}, "all": {"allNodes": True},
                 "selector-match": {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                 "selector-miss": {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "zone", "operator": "In", "values": ["b"]}]}]}}}[where]
    count = rng.randint(1, 3)
    generation = rng.randint(1, 3)
    shared = [{"name": cs, "counters": {"mem": {"value": rng.choice(("16Gi", "32Gi"))}, "slots": {"value": "2"}}}
              for cs in counter_sets]
    out, index = [], 0
    for i in range(count):
        devices = [_device(rng, driver, index + d, feats, version, counter_sets, streams)
                   for d in range(rng.randint(1, 4))]
        index += len(devices)
        spec = {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
                **selection, "devices": devices}
        if shared and not counters_apart:
            spec["sharedCounters"] = shared
        out.append(spec)
    if shared and counters_apart:
        for spec in out:
            spec["pool"]["resourceSliceCount"] += 1
        out.append({"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count + 1},
                    "sharedCounters": shared})
    if "skipNodeOperations" in feats and streams.alpha.random() < 0.5:  # 1.37: the pool's devices need no
        skip = streams.alpha.choice((["*"], ["NodeUnprepareResources"], ["NodePrepareResources", "NodeUnprepareResources"]))
        for spec in out:  # prepare/unprepare calls: a node must declare the feature
            if spec.get("devices"):
                spec["skipNodeOperations"] = skip
    if rng.random() < 0.05 and len(out) > 1:  # a slice of the pool not yet published: the pool is incomplete
        tags.add("incompletePool")
        out.pop(rng.randrange(len(out)))
    if rng.random() < 0.05:  # a stale slice of an older generation, which the allocator ignores
        tags.add("stalePool")
        old = {**out[0], "pool": {**out[0]["pool"], "generation": generation - 1}}
        out.append(old)
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
             "metadata": {"name": f"{pool}-{driver.split('.')[0]}-{i}"}, "spec": spec} for i, spec in enumerate(out)]


def _selector(rng, driver: str, tags: set) -> list:
    choice = rng.randrange(8)
    if choice == 0:
        tags.add("celError")  # no such key on the other driver's devices: an evaluation error
        return [{"cel": {"expression": f'device.attributes["{driver}"].numa == 0'}}]
    if choice == 1:
        return [{"cel": {"expression": f'device.driver == "{driver}" && device.attributes["{driver}"].numa == 0'}}]
    if choice == 2:
        return [{"cel": {"expression": f'device.capacity["{driver}"].memory.compareTo(quantity("16Gi")) >= 0'}}]
    if choice == 3:
        return [{"cel": {"expression": f'device.attributes["{driver}"].model == "a"'}}]
    if choice == 4:  # an int and a double compare (cross-type numeric comparisons)
        return [{"cel": {"expression": f'device.driver == "{driver}" && '
                                       f'device.capacity["{driver}"].memory.asApproximateFloat() > 17179869184'}}]
    if choice == 5 and "listAttributes" in tags:  # includes() of a double (a release with list attributes)
        tags.add("celIncludes")
        return [{"cel": {"expression": f'device.driver == "{driver}" && '
                                       f'device.attributes["{driver}"].numa.includes(0.0)'}}]
    return []


def _tolerations(rng) -> list:
    op = rng.choice(("Exists", "Equal"))
    toleration = {"key": rng.choice(("broken", "maint")), "operator": op}
    if op == "Equal":
        toleration["value"] = rng.choice(("yes", "no"))
    if rng.random() < 0.6:
        toleration["effect"] = rng.choice(("NoSchedule", "NoExecute"))
    return [toleration]


def _exact(rng, name: str, feats: set, tags: set, classes: list, streams: Streams) -> dict:
    cls = rng.choice(classes)
    exact = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": rng.choice((1, 1, 1, 2, 3))}
    if rng.random() < 0.1:
        exact = {"deviceClassName": cls, "allocationMode": "All"}
        tags.add("allMode")
    driver = DRIVERS[1] if cls == "c2" else DRIVERS[0]
    selectors = _selector(rng, driver, tags)
    if selectors:
        exact["selectors"] = selectors
    if "adminAccess" in feats and rng.random() < 0.3:
        exact["adminAccess"] = True
    if "taints" in feats and rng.random() < 0.5:
        exact["tolerations"] = _tolerations(rng)
    elif "taintRules" in feats and streams.rules.random() < 0.5:
        exact["tolerations"] = _tolerations(streams.rules)
    if "consumable" in feats and rng.random() < 0.5:
        exact["capacity"] = {"requests": {"memory": rng.choice(("1Gi", "4Gi", "8Gi", "5Gi"))}}
    if "fractionalCapacity" in feats and streams.alpha.random() < 0.5:
        exact.setdefault("capacity", {"requests": {}})["requests"]["cores"] = streams.alpha.choice(
            ("100m", "300m", "750m", "1", "1600m"))
    return exact


def _claim(rng, name: str, feats: set, tags: set, classes: list, enabled: dict, streams: Streams) -> dict:
    lists = streams.lists
    requests = []
    for r in range(rng.choice((1, 1, 2, 3))):
        if "firstAvailable" in feats and rng.random() < 0.4:
            tags.add("firstAvailable")
            subs = []
            for s in range(rng.randint(1, 3)):
                sub = _exact(rng, f"s{s}", feats, tags, classes, streams)
                sub.pop("adminAccess", None)  # a subrequest has no adminAccess
                subs.append({"name": f"s{s}", **sub})
            requests.append({"name": f"r{r}", "firstAvailable": subs})
        else:
            requests.append({"name": f"r{r}", "exactly": _exact(rng, f"r{r}", feats, tags, classes, streams)})
    devices = {"requests": requests}
    constraints = []
    if len(requests) > 1 or any(r.get("exactly", {}).get("count", 1) > 1 for r in requests):
        if rng.random() < 0.35:
            tags.add("matchAttribute")
            constraint = {"matchAttribute": rng.choice([f"{DRIVERS[0]}/numa", f"{DRIVERS[0]}/model",
                                                        f"{DRIVERS[1]}/numa"])}
            if rng.random() < 0.3:
                constraint["requests"] = [requests[0]["name"]]
            constraints.append(constraint)
        if _has(enabled, rng, "distinctAttribute", 0.3):
            tags.add("distinctAttribute")
            constraints.append({"distinctAttribute": rng.choice([f"{DRIVERS[0]}/numa", f"{DRIVERS[0]}/model",
                                                                  f"{DRIVERS[0]}/index"])})
    if "listAttributes" in feats and lists.random() < 0.5:
        kind = lists.choice(("matchAttribute", "distinctAttribute"))
        constraints.append({kind: f"{DRIVERS[0]}/numas"})
        tags.add(f"list{kind[0].upper()}{kind[1:]}")
    if "derivedAttributes" in feats and streams.alpha.random() < 0.6:
        derived_attributes(streams.alpha, requests, constraints, tags)
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", "uid": str(uuid.UUID(int=rng.getrandbits(128)))},
            "spec": {"devices": devices}}


def _in_use(rng, slices: list, feats: set, tags: set) -> list:
    """Claims already allocated, holding some of the devices (shares of consumable ones)."""
    devices = [(s["spec"]["driver"], s["spec"]["pool"]["name"], d) for s in slices
               for d in s["spec"].get("devices") or []]
    if not devices or rng.random() < 0.5:
        return []
    tags.add("allocatedState")
    results = []
    for driver, pool, device in rng.sample(devices, min(len(devices), rng.randint(1, 3))):
        result = {"request": "r0", "driver": driver, "pool": pool, "device": device["name"]}
        if device.get("allowMultipleAllocations"):
            result["shareID"] = str(uuid.UUID(int=rng.getrandbits(128)))
            result["consumedCapacity"] = {"memory": rng.choice(("4Gi", "8Gi"))}
        elif rng.random() < 0.1:
            result["adminAccess"] = True
        results.append(result)
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "in-use", "namespace": "default", "uid": str(uuid.UUID(int=rng.getrandbits(128)))},
             "spec": {"devices": {"requests": [{"name": "r0", "exactly": {"deviceClassName": "c1"}}]}},
             "status": {"allocation": {"devices": {"results": results}}}}]


def scenario(seed: int, version: str, enabled: dict) -> dict:
    """The objects of scenario `seed` for `version` with the gates `enabled` ({gate: bool})."""
    rng = random.Random(f"{version}/{seed}")
    streams = Streams(version, seed)
    tags: set = set()
    feats = {f for f, p in (("counters", 0.3), ("consumable", 0.3), ("taints", 0.3), ("adminAccess", 0.15),
                            ("firstAvailable", 0.3), ("bindingConditions", 0.15)) if _has(enabled, rng, f, p)}
    if version >= "1.36" and _has(enabled, streams.lists, "listAttributes", 0.4):
        feats.add("listAttributes")
    if version >= "1.36" and _has(enabled, streams.footprint, "nodeAllocatable", 0.3):
        feats.add("nodeAllocatable")
    elif version >= "1.36" and enabled.get(GATED["nodeAllocatable"]) and streams.fits.random() < 0.9:
        feats |= {"nodeAllocatable", "nodeFit"}  # drawn apart, so that the seeds' earlier scenarios stay
    rule_gate = TAINT_RULE_GATE.get(version, "DRADeviceTaintRules")
    if streams.rules.random() < (0.35 if enabled.get(rule_gate) else 0.1):
        feats.add("taintRules")
    if version >= "1.37":
        feats |= {f for f, p in (("compatibilityGroups", 0.3), ("derivedAttributes", 0.3),
                                 ("fractionalCapacity", 0.3), ("skipNodeOperations", 0.25))
                  if _has(enabled, streams.alpha, f, p)}
        if "compatibilityGroups" in feats:
            feats.add("counters")  # groups are on counter consumption
        if "fractionalCapacity" in feats:
            feats.add("consumable")  # ranges are on shared devices' capacity
    tags |= feats - {"firstAvailable", "derivedAttributes"}
    if "counters" in feats:
        tags.add("partitionable")
    slices = []
    for driver in DRIVERS[: rng.choice((1, 1, 2))]:
        for p in range(rng.choice((1, 1, 2))):
            slices += _slices(rng, driver, f"pool-{p}", feats, version, tags, streams)
    classes = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c1"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVERS[0]}"'}}]}},
               {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c2"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVERS[1]}"'}}]}},
               {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c-any"},
                "spec": {}}]
    usable = ["c1", "c1", "c2", "c-any"]
    claims = [_claim(rng, f"claim-{i}", feats, tags, usable, enabled, streams)
              for i in range(rng.choice((1, 1, 1, 2)))]
    if len(claims) > 1:
        tags.add("multiClaim")
    if any(r.get("exactly", {}).get("adminAccess") for c in claims for r in c["spec"]["devices"]["requests"]):
        tags.add("adminAccess")
    else:
        tags.discard("adminAccess")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE, "labels": {"zone": "a"}}}
    if "skipNodeOperations" in feats and streams.alpha.random() < 0.6:
        node["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
        tags.add("nodeDeclaresFeature")
    rules = taint_rules(streams.rules, version, slices) if "taintRules" in feats else []
    pod = pod_of(streams.footprint, claims) if "nodeAllocatable" in feats else None
    bound = node_room(streams.footprint, version, node) if pod else []
    if pod:
        fit_inputs(streams.fits, pod, node)
        pod_level(streams.pod_level, pod)
        claim_templates(streams.templates, pod, claims)
        if pod["spec"].get("resources"):
            tags.add("podLevelResources")
        if pod.get("status"):
            tags.add("claimTemplates")
    return {"id": f"{version}/{seed}", "node": node, "classes": classes, "slices": slices, "claims": claims,
            "allocated": _in_use(rng, slices, feats, tags), "taintRules": rules, "pod": pod, "boundPods": bound,
            "tags": sorted(tags)}
