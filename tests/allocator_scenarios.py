"""Generated allocation scenarios for the allocator differential (tests/allocator_differential.py).

`scenario(seed, version, gates_on)` builds, from one seed, a node, DeviceClasses, ResourceSlices, claims to
allocate and claims already allocated, drawing on what the structured allocator decides by: counters and
partitionable devices, consumable capacity, taints and tolerations, matchAttribute and distinctAttribute
constraints, firstAvailable subrequests, allocationMode All, admin access, binding conditions, node
selection of slices (nodeName, allNodes, nodeSelector, another node), incomplete and stale pools, CEL
selectors (a few of which fail at run time), and from 1.36 list-type attributes under both constraints.
Objects are resource.k8s.io/v1 as stored, small (a scenario has at most a few dozen devices), and valid for
the release, except that a field whose gate is off is sometimes kept: an object written while the gate was
on keeps it, and the allocator must cope.

Each scenario carries `tags`: the features it uses, for the counts per feature.
"""

from __future__ import annotations

import random
import uuid

DRIVERS = ("d1.example.com", "d2.example.com")
NODE = "n1"
GATED = {  # the gate a scenario feature's fields belong to
    "partitionable": "DRAPartitionableDevices", "counters": "DRAPartitionableDevices",
    "consumable": "DRAConsumableCapacity", "distinctAttribute": "DRAConsumableCapacity",
    "taints": "DRADeviceTaints", "adminAccess": "DRAAdminAccess", "firstAvailable": "DRAPrioritizedList",
    "bindingConditions": "DRADeviceBindingConditions", "listAttributes": "DRAListTypeAttributes",
}


def _has(enabled: dict, rng: random.Random, feature: str, p: float) -> bool:
    """Whether to use a feature: at rate p with its gate on, rarely (objects from before) with it off."""
    gate = GATED.get(feature)
    if gate is not None and not enabled.get(gate, False):
        p *= 0.25
    return rng.random() < p


def _device(rng, driver: str, index: int, feats: set, version: str, counter_sets: list, lists=None) -> dict:
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
    if "taints" in feats and rng.random() < 0.4:
        effects = ("NoSchedule", "NoExecute") + (("None",) if version >= "1.35" else ())
        device["taints"] = [{"key": rng.choice(("broken", "maint")), "value": rng.choice(("yes", "no")),
                             "effect": rng.choice(effects)}]
    if "bindingConditions" in feats and rng.random() < 0.4:
        device["bindingConditions"] = ["ready"]
        device["bindingFailureConditions"] = ["failed"]
        device["bindsToNode"] = rng.random() < 0.5
    if "listAttributes" in feats and lists.random() < 0.7:  # a list attribute (1.36+), drawn apart
        device["attributes"]["numas"] = {"ints": sorted(lists.sample(range(3), lists.randint(1, 2)))}
    return device


def _slices(rng, driver: str, pool: str, feats: set, version: str, tags: set, lists=None) -> list:
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
        devices = [_device(rng, driver, index + d, feats, version, counter_sets, lists)
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


def _exact(rng, name: str, feats: set, tags: set, classes: list) -> dict:
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
    if "consumable" in feats and rng.random() < 0.5:
        exact["capacity"] = {"requests": {"memory": rng.choice(("1Gi", "4Gi", "8Gi", "5Gi"))}}
    return exact


def _claim(rng, name: str, feats: set, tags: set, classes: list, enabled: dict, lists=None) -> dict:
    requests = []
    for r in range(rng.choice((1, 1, 2, 3))):
        if "firstAvailable" in feats and rng.random() < 0.4:
            tags.add("firstAvailable")
            subs = []
            for s in range(rng.randint(1, 3)):
                sub = _exact(rng, f"s{s}", feats, tags, classes)
                sub.pop("adminAccess", None)  # a subrequest has no adminAccess
                subs.append({"name": f"s{s}", **sub})
            requests.append({"name": f"r{r}", "firstAvailable": subs})
        else:
            requests.append({"name": f"r{r}", "exactly": _exact(rng, f"r{r}", feats, tags, classes)})
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
    # List attributes draw from a stream of their own, so the rest of a seed's scenario stays as it was.
    lists = random.Random(f"{version}/{seed}/lists")
    tags: set = set()
    feats = {f for f, p in (("counters", 0.3), ("consumable", 0.3), ("taints", 0.3), ("adminAccess", 0.15),
                            ("firstAvailable", 0.3), ("bindingConditions", 0.15)) if _has(enabled, rng, f, p)}
    if version >= "1.36" and _has(enabled, lists, "listAttributes", 0.4):
        feats.add("listAttributes")
    tags |= feats - {"firstAvailable"}
    if "counters" in feats:
        tags.add("partitionable")
    slices = []
    for driver in DRIVERS[: rng.choice((1, 1, 2))]:
        for p in range(rng.choice((1, 1, 2))):
            slices += _slices(rng, driver, f"pool-{p}", feats, version, tags, lists)
    classes = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c1"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVERS[0]}"'}}]}},
               {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c2"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVERS[1]}"'}}]}},
               {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c-any"},
                "spec": {}}]
    usable = ["c1", "c1", "c2", "c-any"]
    claims = [_claim(rng, f"claim-{i}", feats, tags, usable, enabled, lists)
              for i in range(rng.choice((1, 1, 1, 2)))]
    if len(claims) > 1:
        tags.add("multiClaim")
    if any(r.get("exactly", {}).get("adminAccess") for c in claims for r in c["spec"]["devices"]["requests"]):
        tags.add("adminAccess")
    else:
        tags.discard("adminAccess")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE, "labels": {"zone": "a"}}}
    return {"id": f"{version}/{seed}", "node": node, "classes": classes, "slices": slices, "claims": claims,
            "allocated": _in_use(rng, slices, feats, tags), "tags": sorted(tags)}
