"""The product's verdict on one oracle request: `dra-webhook review`'s offline path for a manifest
(webhook.admit.review_manifest: defaults, then validation, in the API server's order), in process."""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from webhook import admit
from webhook.offline import loading
from webhook.drivers.registry import DriverSource
from webhook.profile import GATES, Profile, make_profile
from webhook.review import decode_review

from .oracle import NAMESPACES

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
# Every version of resource.k8s.io the releases register, as the oracle serves them ("--runtime-config all").
_RUNTIME_CONFIG = "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true,resource.k8s.io/v1alpha3=true"


@lru_cache(maxsize=None)
def profile(release: str, gate_set: str) -> Profile:
    gates = {}
    if gate_set == "all":
        gates = {name: True for name, spec in GATES[release].items() if not spec.locked or spec.default}
    # No driver profiles: the drivers' parameters are the webhook's own check, which upstream never makes.
    return make_profile(release, gates, runtime_config=_RUNTIME_CONFIG, drivers=DriverSource(bundled=False))


def verdict(request: dict, release: str, gate_set: str, namespaces: dict | None = None,
            field_validation: str = "Strict") -> dict:
    """The product's answer in the oracle's shape: allowed, code, causes [{field, reason, message}], warnings;
    `field_validation` as the request's fieldValidation (`review --validate`)."""
    operation = request["operation"].upper()
    old = request.get("oldObject") if operation == "UPDATE" else None
    body = loading.as_review(request["object"], uid="differential", operation=operation, old=old,
                             sub_resource=request.get("subresource", ""))
    response = admit.review_manifest(decode_review(body), profile=profile(release, gate_set),
                                     namespace="default", now=NOW, field_validation=field_validation,
                                     namespaces=NAMESPACES if namespaces is None else namespaces)
    status = response.status or {}
    causes = [{"field": c.get("field", ""), "reason": c.get("reason", ""), "message": c.get("message", "")}
              for c in (status.get("details") or {}).get("causes") or []]
    return {"allowed": response.allowed, "code": 0 if response.allowed else status.get("code", 0),
            "reason": status.get("reason", ""), "message": status.get("message", ""), "causes": causes,
            "warnings": list(response.warnings), "patch": response.patch}
