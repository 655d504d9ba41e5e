"""In a cluster, a built-in rule's failure is a signal, not a verdict.

The API server defaults and validates an object before it calls validating webhooks, so an object that
reaches /validate has passed every built-in rule of the cluster. When ours refuse it, either this
webhook's profile (Kubernetes version, feature gates) is not the cluster's, or our port of the rule is
wrong: refusing would only block a write the cluster accepts (with `failurePolicy: Fail`, cluster-wide).
So `serve` answers it allowed, with a `[profile-mismatch]` warning per failed rule (the rule, the field,
what it means), and the server counts it by kind and rule and logs one line.

The drivers' checks of their own parameters (webhook.drivers) are no built-in rule: the API server cannot
make them, so what they refuse stays a denial (with only their causes); the built-in causes beside them
become the warnings.

`serve --enforce-builtin-rules --kubernetes-version V` keeps the denials, for fleets that want every
object valid on release V too. Offline `review` and `test` never pass through here: they stay strict.
"""

from __future__ import annotations

from webhook.profile import Profile
from webhook.review import AdmissionResponse

CODE = "profile-mismatch"
PREFIX = f"[{CODE}] "
# What a denial built from built-in rules looks like: NewInvalid (422), or a decoding error (400) that
# carries the fields (the API server decoded the object already, so it cannot fail there either).
_BUILTIN = {(422, "Invalid"), (400, "BadRequest")}
MEANING = ("the API server accepted this object, so it disagrees with dra-webhook's rules for Kubernetes "
           "{profile}: the webhook's profile is not the cluster's, or dra-webhook's port of the rule is wrong; "
           "allowed")


def relax(response: AdmissionResponse, kind: str, profile: Profile) -> tuple[AdmissionResponse, tuple[str, ...]]:
    """(the response to send, the rules that failed): a built-in-rule denial becomes allowed with warnings."""
    status = response.status or {}
    if response.allowed or (status.get("code"), status.get("reason")) not in _BUILTIN:
        return response, ()
    details = status.get("details") if isinstance(status.get("details"), dict) else {}
    causes = [c for c in details.get("causes") or [] if isinstance(c, dict)]
    if not causes and status.get("code") == 400 and "cannot be handled as" not in str(status.get("message")):
        return response, ()  # a broken request (no object), which no API server sends: still a refusal
    # The drivers' own checks are no built-in rule: what they refuse stays refused (alone).
    drivers_status = response.drivers_status
    drivers_causes = ((drivers_status.get("details") or {}).get("causes") or []) if drivers_status else []
    causes = [c for c in causes if c not in drivers_causes]
    if drivers_status is not None and not causes:
        return response, ()
    meaning = MEANING.format(profile=profile.describe())
    warnings = list(response.warnings)
    rules = []
    for cause in causes or [{"reason": status.get("reason"), "field": "", "message": status.get("message")}]:
        rule = str(cause.get("reason") or "Invalid")
        rules.append(rule)
        where = f"{cause['field']}: " if cause.get("field") else ""
        warnings.append(f"{PREFIX}{kind} {rule} at {where}{cause.get('message') or ''} ({meaning})")
    if drivers_status is not None:
        return AdmissionResponse(uid=response.uid, allowed=False, status=drivers_status, warnings=warnings), \
            tuple(rules)
    return AdmissionResponse(uid=response.uid, allowed=True, warnings=warnings, patch=response.patch), tuple(rules)
