"""The API server's deprecation warning for a request in a deprecated API version.

kube-apiserver's endpoint installer (k8s.io/apiserver pkg/endpoints/installer.go) wraps every route of a kind
whose version is deprecated in the serving release (deprecation.IsDeprecated: the release is at or past the
APILifecycleDeprecated of k8s.io/api's zz_generated.prerelease-lifecycle.go) in a handler that adds
deprecation.WarningMessage to the response: every request to it gets the warning, created, refused or not,
before decoding, so it is the first warning. A version the release does not serve (404) gets none. Which
versions each release deprecates is the profile's behaviour `deprecated_apis` (webhook/behaviours.py);
tests/test_deprecation.py holds it against each release's k8s.io/api sources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webhook.kinds import GROUP
from webhook.manifest import type_meta

if TYPE_CHECKING:
    from webhook.profile import Profile


def warning(profile: Profile, version: str, kind: str) -> str | None:
    """deprecation.WarningMessage for a request to resource.k8s.io/`version` `kind` served by `profile`'s release,
    or None when the release does not deprecate it."""
    lifecycle = profile.behaviours.deprecated_apis.get((version, kind))
    if lifecycle is None:
        return None
    deprecated, removed = lifecycle
    return f"{GROUP}/{version} {kind} is deprecated in v{deprecated}+, unavailable in v{removed}+"


def manifest_warnings(manifest: dict, profile: Profile) -> list[str]:
    """The warning for a manifest the release serves, as a list to put first. Only offline: in a cluster the API
    server has added it to the client's response before admission (its warning recorder drops a webhook's copy of
    the same text, and a webhook sees the version it registered for, which matchPolicy Equivalent may have converted
    the client's to); a recorded AdmissionReview is what a webhook saw after that."""
    group, version, kind = type_meta(manifest)
    text = warning(profile, version, kind) if group == GROUP else None
    return [text] if text else []
