"""Before the search (Allocate's first loop): each request's class and device count, the claim limits,
and the constraint objects; feature gates that forbid a request are errors here, as upstream."""

from __future__ import annotations

from webhook.allocation import constraints as cons
from webhook.allocation.errors import ALLOCATION_RESULTS_MAX_SIZE, AllocationError, Candidate, claim_ref
from webhook.allocation.requests import Request, RequestData


def prepare_claim(run, index: int, claim: dict) -> None:
    """The per-claim part of Allocate before the search: request data, device limits, constraints."""
    devices = (claim.get("spec") or {}).get("devices") or {}
    ref = claim_ref(claim)
    min_devices = 0
    for r_index, request in enumerate(devices.get("requests") or []):
        subs = request.get("firstAvailable") or []
        if subs and not run.features.prioritized_list:
            raise AllocationError(f"claim {ref}, request {request.get('name')}: has subrequests, but the "
                                  "DRAPrioritizedList feature is disabled")
        # Only the implementations past `stable` refuse capacity requests with the gate off; `stable`
        # (every release) ignores them, as it ignores consumable capacity altogether.
        if not run.features.consumable_capacity and run.features.experimental:
            if (request.get("exactly") or {}).get("capacity") is not None:
                raise AllocationError(f"claim {ref}, request {request.get('name')}: has capacity requests, but "
                                      "the DRAConsumableCapacity feature is disabled")
            for sub in subs:
                if sub.get("capacity") is not None:
                    named = f"request {request.get('name')}" if run.features.capacity_error_names_request \
                        else f"subrequest {sub.get('name')}"
                    raise AllocationError(f"claim {ref}, {named}: has capacity requests, "
                                          "but the DRAConsumableCapacity feature is disabled")
        if subs:
            parent = Request.exact(request)
            least = None
            for s_index, sub in enumerate(subs):
                # all_subrequest_index_skew: upstream set the key's subrequest index after this call.
                checked_as = max(s_index - 1, 0) if run.features.all_subrequest_index_skew else s_index
                data = validate_device_request(run, Request.subrequest(sub), parent, (index, r_index, checked_as))
                run.request_data[(index, r_index, s_index)] = data
                least = data.num_devices if least is None else min(least, data.num_devices)
            min_devices += least or 0
        else:
            data = validate_device_request(run, Request.exact(request), None, (index, r_index, 0))
            run.request_data[(index, r_index, 0)] = data
            min_devices += data.num_devices
    if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
        raise AllocationError(f"claim {ref}: number of requested devices {min_devices} exceeds the claim limit "
                              f"of {ALLOCATION_RESULTS_MAX_SIZE}")
    for c_index, constraint in enumerate(devices.get("constraints") or []):
        built = cons.build(constraint, run.features.list_type_attributes, run.features.distinct_by_address,
                           run.features.distinct_every_device)
        # Only the implementations with consumable capacity know distinctAttribute; the one a scheduler
        # with just the four older features picks (incubating, from 1.36 stable) sees an empty constraint.
        if isinstance(built, cons.DistinctAttribute) and not run.features.experimental:
            built = None
        if built is None:
            raise AllocationError(f"claim {ref}, constraint #{c_index}: empty constraint (unsupported "
                                  "constraint type?)")
        run.constraints[index].append(built)

def validate_device_request(run, request: Request, parent: Request | None, key: tuple) -> RequestData:
    """validateDeviceRequest: checks one request or subrequest; for "All", collects its devices now."""
    ref = claim_ref(run.claims[key[0]])
    data = RequestData(request, parent)
    derived = request.derived_attributes if run.features.derived_attributes_field else []
    if derived:
        # A scheduler without the gate refuses rather than ignore constraints it cannot evaluate.
        if not run.features.derived_attributes:
            raise AllocationError(f"claim {ref}, request {request.name}: cannot handle request with derived "
                                  "attributes, the feature is disabled")
        data.derived = {d.get("name") or "": d.get("expression") or "" for d in derived}
    for i, selector in enumerate(request.selectors):
        if not (selector or {}).get("cel"):
            raise AllocationError(f"claim {ref}, request {request.name}, selector #{i}: CEL expression empty "
                                  "(unsupported selector type?)")
    if not run.features.admin_access and request.has_admin_access:
        raise AllocationError(f"claim {ref}, request {request.name}: admin access is requested, but the "
                              "feature is disabled")
    if not request.class_name:
        raise AllocationError(f"claim {ref}, request {request.name}: missing device class name (unsupported "
                              "request type?)")
    data.device_class = run.a.classes.get(request.class_name)
    if data.device_class is None:
        raise AllocationError(f"claim {ref}, request {request.name}: could not retrieve device class "
                              f"{request.class_name}: not found")
    if request.mode == "ExactCount":
        data.num_devices = request.count
    elif request.mode == "All":
        for pool in run.pools:
            if pool.incomplete:
                raise AllocationError(f"claim {ref}, request {request.name}: asks for all devices, but resource "
                                      f"pool {pool.id} is currently being updated")
            if pool.invalid:
                raise AllocationError(f"claim {ref}, request {request.name}: asks for all devices, but resource "
                                      f"pool {pool.id} is currently invalid")
            for s in pool.slices:
                for d_index, device in enumerate(s.devices):
                    if not run.is_selectable(key, data, s, d_index):
                        continue
                    candidate = Candidate((s.driver, s.pool, device.get("name")), device, s, pool)
                    if run.features.consumable_capacity and not run.capacity_fits(
                            request, candidate, static=run.features.all_mode_static_capacity, claim_i=key[0]):
                        continue
                    data.all_devices.append(candidate)
        data.num_devices = len(data.all_devices)
    else:
        raise AllocationError(f"claim {ref}, request {request.name}: unsupported count mode {request.mode}")
    return data

