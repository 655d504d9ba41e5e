"""A stable code for every warning an offline run reports, so that a CI can silence one (--ignore-warning).

The warnings themselves stay the words the API server (or the webhook) answers with: the code is found
from the text, first match wins, and a warning none of the patterns knows is `other`. A code, once
published, keeps its meaning; a new kind of warning gets a new code. A warning may quote what a user
wrote, at any length: each pattern is searched in time linear in the text (literals, and a run of non-spaces only
between literals; no `.*` between two of them, which rescans the rest of the text from every place
the first one occurs).
"""

from __future__ import annotations

import re

# code -> (what it means, the pattern of its text)
CODES: dict[str, tuple[str, re.Pattern]] = {
    "opt-in-api": ("the API version or kind is served only by clusters that enable it (--runtime-config, "
                   "--feature-gates)", re.compile(r"^dra-webhook: \S+ \S+ is served only by clusters with ")),
    "deprecated-api": ("an API version the release deprecates: the API server's own warning on every request to it",
                       re.compile(r"^resource\.k8s\.io/\S+ \S+ is deprecated in v\d+\.\d+\+")),
    "unknown-field": ("a field the API does not have (kubectl --validate=warn, the API server's default)",
                      re.compile(r'^unknown field "')),
    "dropped-field": ("a field the API server drops because its feature gate is disabled",
                      re.compile(r" dropped: feature gate \S+ is disabled$|^dra-webhook: \S+ is set, but feature "
                                 r"gate ")),
    "retired-version": ("an API version no longer served", re.compile(r" is no longer served \(since Kubernetes ")),
    "unknown-version": ("an API version dra-webhook does not know; validated as v1",
                        re.compile(r" is not a version dra-webhook knows")),
    "converted-verdict": ("the verdict the object would get converted to resource.k8s.io/v1",
                          re.compile(r"^dra-webhook: converted to \S+, this ")),
    "conversion-loss": ("a field that the conversion to resource.k8s.io/v1 drops",
                        re.compile(r" no longer exists in resource\.k8s\.io/v1; ignored$")),
    "cel-unchecked": ("CEL type and cost checks skipped (portable engine, or too deep)",
                      re.compile(r"CEL selectors? (were|was) skipped|CEL rules of driver profile \S+ were skipped"
                                 r"|type and cost checks (?:of CEL selectors )?were skipped")),
    "uppercase-driver": ("a driver name with uppercase characters", re.compile(r"driver names should be lowercase")),
    "no-checks": ("a subresource the webhook does not check", re.compile(r"; allowed without checks$")),
    "pool": ("slices of one pool that disagree, or are incomplete (checks across documents)",
             re.compile(r"^(?:\[pool\] )?pool ")),
    "unknown-device-class": ("a request names a DeviceClass that is not among the inputs",
                             re.compile(r"names DeviceClass \S+, which is not among the DeviceClasses given")),
    "read-back-object": ("an object read back from a cluster, refused as a new one (review --from-cluster)",
                         re.compile(r"^dra-webhook: this looks like an object read back from a cluster ")),
    "driver-profile-missing": ("an opaque configuration for a driver without a driver profile, not checked "
                               "(--warn-unprofiled-drivers)", re.compile(r"^dra-webhook: no driver profile for ")),
    # Warnings that carry their code at their start (the webhook in a cluster, and the cluster-state checks).
    "profile-mismatch": ("in a cluster: a built-in rule failed on an object the API server accepted (the webhook's "
                         "profile is not the cluster's, or its port of the rule is wrong)",
                         re.compile(r"^\[profile-mismatch\] ")),
    "missing-device-class": ("cluster state: a request names a DeviceClass the cluster does not have",
                             re.compile(r"^\[missing-device-class\] ")),
    "unsatisfiable": ("cluster state: no published device can ever satisfy a request (or every one that could is "
                      "tainted against it)",
                      re.compile(r"^\[unsatisfiable\] ")),
    "unknown-attribute": ("cluster state: a selector reads an attribute or capacity no device of the class publishes",
                          re.compile(r"^\[unknown-attribute\] ")),
    "count-above-devices": ("cluster state: a request asks for more devices than match it in the cluster",
                            re.compile(r"^\[count-above-devices\] ")),
    "other": ("any other warning", re.compile(r"")),
}


def code(warning: str) -> str:
    for name, (_, pattern) in CODES.items():
        if pattern.search(warning):
            return name
    return "other"


def unlabelled(warning: str) -> str:
    """The warning without the `[code] ` it may carry at its start (a cluster's warnings do, for kubectl): the
    reporters that print the code beside it print it once."""
    prefix = f"[{code(warning)}] "
    return warning[len(prefix):] if warning.startswith(prefix) else warning


def labelled(warning: str) -> str:
    """`[code] warning`: how the reporters show a warning (once: a warning may carry its code already)."""
    name = code(warning)
    return warning if warning.startswith(f"[{name}] ") else f"[{name}] {warning}"


def check(names: list[str]) -> list[str]:
    """The codes of --ignore-warning; ValueError naming the known ones for one that is not a code."""
    unknown = [n for n in names if n not in CODES]
    if unknown:
        raise ValueError(f"unknown warning code{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                         f"the codes: {', '.join(CODES)}")
    return names


def ignore(results: list, codes: list[str]) -> None:
    """Drops the warnings with these codes from the results (not from the recorded responses, which stay
    what the API server would answer)."""
    if codes:
        for result in results:
            result.warnings = [w for w in result.warnings if code(w) not in codes]
