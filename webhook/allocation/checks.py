"""The checks of one candidate device that do not change the search state (allocator_experimental.go):
selectors (isSelectable, selectorsMatch), consumable capacity (CmpRequestOverCapacity), devices in use."""

from __future__ import annotations

from webhook.allocation import capacity as cap
from webhook.allocation.errors import AllocationError, Candidate, claim_ref
from webhook.allocation.nodes import NodeSelectorError, node_matches
from webhook.allocation.requests import Request, RequestData
from webhook.allocation.selection import SelectorError

OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"  # draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate


class Checks:
    """Mixed into the search's run: needs `a`, `features`, `node`, `claims`, `matches`, `allocating`,
    `allocating_capacity`."""

    def is_selectable(self, key: tuple, data: RequestData, s, d_index: int) -> bool:
        device = s.devices[d_index]
        if not self.features.device_binding_and_status and device.get("bindingConditions"):
            return False
        match_key = (s.driver, s.pool, device.get("name"), key)
        known = self.matches.get(match_key)
        if known is not None:
            return known
        ok = self.selectors_match(key, device, s.driver, data.device_class, data.device_class.get("spec", {})
                                  .get("selectors") or []) \
            and self.selectors_match(key, device, s.driver, None, data.request.selectors)
        if ok and s.per_device:
            try:
                ok = node_matches(self.node, device.get("nodeName") or "", bool(device.get("allNodes")),
                                  device.get("nodeSelector"))
            except NodeSelectorError as error:
                raise AllocationError(f"failed to parse node selector: {error}") from None
        self.matches[match_key] = ok
        return ok

    def selectors_match(self, key: tuple, device: dict, driver: str, device_class, selectors: list) -> bool:
        for i, selector in enumerate(selectors):
            expression = ((selector or {}).get("cel") or {}).get("expression") or ""
            try:
                if not self.a.selection.matches(expression, driver, device):
                    return False
            except SelectorError as error:
                owner = f"class {(device_class.get('metadata') or {}).get('name')}" if device_class is not None \
                    else f"claim {claim_ref(self.claims[key[0]])}"
                raise AllocationError(f"{owner}: selector #{i}: {error.kind}: {error.detail}") from None
        return True

    def capacity_fits(self, request: Request, c: Candidate, static: bool = False, claim_i: int = 0,
                      doing: str = "checking") -> bool:
        """Whether the request fits what the device has left (`static`: what it has, nothing consumed).
        A request 1.37 cannot round is an error of the allocation (of claim `claim_i`)."""
        consumed = {} if static else self.a.state.capacity.get(c.id, {})
        try:
            return cap.cmp_request_over_capacity(consumed, request.capacity_requests, c.device.get("capacity") or {},
                                                 {} if static else self.allocating_capacity.get(c.id, {}),
                                                 self.features.fractional_capacity_range)
        except cap.CapacityError:
            return False
        except cap.CapacityArithmeticError as error:
            raise AllocationError(f"claim {claim_ref(self.claims[claim_i])}, request {request.name}: {doing} capacity "
                                  f"for device {'/'.join(c.id)}: {error}") from None

    def device_in_use(self, device_id: tuple) -> bool:
        return device_id in self.a.state.devices or bool(self.allocating.get(device_id))

    def capacity_in_use(self, device_id: tuple) -> bool:
        return device_id in self.a.state.capacity or device_id in self.allocating_capacity

    def node_skips_operations(self) -> bool:
        """Whether a device of a slice with `skipNodeOperations` may be allocated here (1.37): the gate is
        on and the Node declares the DRAOptionalNodeOperations feature (`status.declaredFeatures`)."""
        declared = ((self.node or {}).get("status") or {}).get("declaredFeatures") or []
        return self.features.optional_node_operations and OPTIONAL_NODE_OPERATIONS in declared
