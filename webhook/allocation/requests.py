"""Requests and subrequests behind one accessor (requestAccessor), and taint toleration."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Request:
    """An exact request (`exactly`) or one `firstAvailable` subrequest, read the same way."""

    name: str
    spec: dict  # the ExactDeviceRequest or the DeviceSubRequest
    sub: bool = False

    @classmethod
    def exact(cls, request: dict) -> "Request":
        return cls(request.get("name") or "", request.get("exactly") or {})

    @classmethod
    def subrequest(cls, sub: dict) -> "Request":
        return cls(sub.get("name") or "", sub, sub=True)

    @property
    def class_name(self) -> str:
        return self.spec.get("deviceClassName") or ""

    @property
    def mode(self) -> str:
        return self.spec.get("allocationMode") or "ExactCount"

    @property
    def count(self) -> int:
        return int(self.spec.get("count") or 0)

    @property
    def admin_access(self) -> bool:
        return not self.sub and bool(self.spec.get("adminAccess"))

    @property
    def has_admin_access(self) -> bool:
        return not self.sub and self.spec.get("adminAccess") is not None

    @property
    def selectors(self) -> list:
        return list(self.spec.get("selectors") or [])

    @property
    def tolerations(self) -> list:
        return list(self.spec.get("tolerations") or [])

    @property
    def capacity_requests(self) -> dict | None:
        capacity = self.spec.get("capacity")
        return None if capacity is None else (capacity.get("requests") or {})

    @property
    def derived_attributes(self) -> list:
        """Kubernetes 1.37 `derivedAttributes`: [{name, expression}]."""
        return [d for d in self.spec.get("derivedAttributes") or [] if isinstance(d, dict)]

    @property
    def has_capacity(self) -> bool:
        return self.spec.get("capacity") is not None


@dataclass
class RequestData:
    request: Request
    parent: Request | None = None
    device_class: dict | None = None
    num_devices: int = 0
    selected_sub_request: int = 0
    all_devices: list = field(default_factory=list)
    derived: dict = field(default_factory=dict)  # derived attribute name -> CEL expression (1.37)

    @property
    def name(self) -> str:
        return f"{self.parent.name}/{self.request.name}" if self.parent else self.request.name


def tolerates(toleration: dict, taint: dict) -> bool:
    """resourceclaim.ToleratesTaint."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def blocking_taint(device: dict, request: Request, by_effect: bool = True) -> dict | None:
    """The first NoSchedule/NoExecute taint no toleration of the request tolerates (taintPreventsAllocation);
    not `by_effect` (1.34 allTaintsTolerated): the first taint of any effect not tolerated."""
    for taint in device.get("taints") or []:
        if not by_effect or taint.get("effect") in ("NoSchedule", "NoExecute"):
            if not any(tolerates(t, taint) for t in request.tolerations):
                return taint
    return None
