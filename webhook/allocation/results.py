"""The AllocationResult of each claim, as the scheduler writes it: results, config, nodeSelector."""

from __future__ import annotations

import uuid

from webhook.allocation.errors import AllocationError


def _device_result(run, claim: dict, item: dict) -> dict:
    c = item["candidate"]
    name = f"{item['parent']}/{item['request']}" if item["parent"] else item["request"]
    out = {"request": name, "driver": c.id[0], "pool": c.id[1], "device": c.id[2]}
    if item["admin"]:
        out["adminAccess"] = True
    tolerations = _lookup(claim, item).get("tolerations")
    if tolerations and run.features.writes_tolerations and not run.features.bare_stable:
        out["tolerations"] = tolerations
    if run.features.device_binding_and_status:
        for key in ("bindingConditions", "bindingFailureConditions"):
            if c.device.get(key):
                out[key] = list(c.device[key])
    if run.features.reads_node_operations and c.slice.skip_node_operations:
        out["skipNodeOperations"] = list(c.slice.skip_node_operations)
    if item["share"]:
        out["shareID"] = str(uuid.uuid4())
    if item["consumed"]:
        out["consumedCapacity"] = {k: str(v) for k, v in item["consumed"].items()}
    return out


def _lookup(claim: dict, item: dict) -> dict:
    wanted = item["parent"] or item["request"]
    for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        if request.get("name") != wanted:
            continue
        if not item["parent"]:
            return request.get("exactly") or {}
        for sub in request.get("firstAvailable") or []:
            if sub.get("name") == item["request"]:
                return sub
    return {}


def _configs(run, claim_i: int, claim: dict) -> list:
    out: list = []
    devices = (claim.get("spec") or {}).get("devices") or {}
    requests = devices.get("requests") or []
    class_ranges: dict[str, tuple[int, int]] = {}
    for r_index in range(len(requests)):
        data = run.request_data[(claim_i, r_index, 0)]
        if data.parent is not None:
            data = run.request_data[(claim_i, r_index, data.selected_sub_request)]
        device_class = data.device_class
        if device_class is None:
            continue
        class_name = (device_class.get("metadata") or {}).get("name") or ""
        if class_name in class_ranges:
            start, end = class_ranges[class_name]
            for i in range(start, end):
                out[i]["requests"].append(data.name)
            continue
        start = len(out)
        for config in (device_class.get("spec") or {}).get("config") or []:
            out.append({"source": "FromClass", "requests": [data.name], **_device_configuration(config)})
        class_ranges[class_name] = (start, len(out))
    for config in devices.get("config") or []:
        names = config.get("requests") or []
        if not names:
            out.append({"source": "FromClaim", **_device_configuration(config)})
            continue
        for r_index, request in enumerate(requests):
            if request.get("name") in names:
                out.append({"source": "FromClaim", "requests": list(names), **_device_configuration(config)})
                continue
            data = run.request_data[(claim_i, r_index, 0)]
            if data.parent is None:
                continue
            sub = (request.get("firstAvailable") or [])[data.selected_sub_request]
            if f"{request.get('name')}/{sub.get('name')}" in names:
                out.append({"source": "FromClaim", "requests": list(names), **_device_configuration(config)})
    return out


def _device_configuration(config: dict) -> dict:
    return {k: v for k, v in config.items() if k == "opaque"}


def _requirement_key(requirement: dict) -> tuple:
    return requirement.get("key"), requirement.get("operator"), frozenset(requirement.get("values") or [])


def node_selector(items: list, node_name: str) -> dict | None:
    """createNodeSelector: the node itself when a device is local or binds to it, else the slices' terms."""
    fields: list = []
    expressions: list = []
    for item in items:
        s, device = item["candidate"].slice, item["candidate"].device
        if s.per_device:
            name, selector = device.get("nodeName"), device.get("nodeSelector")
        else:
            name, selector = s.node_name or None, s.node_selector
        if name or device.get("bindsToNode"):
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
        if selector is not None:
            terms = selector.get("nodeSelectorTerms") or []
            if len(terms) > 1:
                raise ValueError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
            if terms:
                for source, into in ((terms[0].get("matchFields") or [], fields),
                                     (terms[0].get("matchExpressions") or [], expressions)):
                    for requirement in source:
                        if _requirement_key(requirement) not in {_requirement_key(r) for r in into}:
                            into.append(requirement)
    if not fields and not expressions:
        return None
    term: dict = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def build_results(run) -> list:
    node_name = ((run.node or {}).get("metadata") or {}).get("name") or ""
    out = []
    for claim_i, claim in enumerate(run.claims):
        items = run.results[claim_i]
        devices: dict = {"results": [_device_result(run, claim, item) for item in items]}
        configs = _configs(run, claim_i, claim)
        if configs:
            devices["config"] = configs
        result: dict = {"devices": devices}
        try:
            selector = node_selector(items, node_name)
        except ValueError as error:
            raise AllocationError(f"create NodeSelector for claim {(claim.get('metadata') or {}).get('name')}: "
                                  f"{error}") from None
        if selector is not None:
            result["nodeSelector"] = selector
        out.append(result)
    return out
