"""`review --cluster-state FILE`: the admission warnings of `serve --cluster-state`, from a dump of the
cluster (`kubectl get deviceclasses,resourceslices,devicetaintrules -o yaml`), in every output format.

The same store and the same checks as in a cluster; offline there is no request deadline, so each object
gets OFFLINE_BUDGET_SECONDS (the same warnings, unless a dump is so large that it does not fit).
"""

from __future__ import annotations

import time

from webhook.clusterstate import checks
from webhook.clusterstate.matching import Matching
from webhook.clusterstate.store import Store, to_v1

OFFLINE_BUDGET_SECONDS = 30.0


def load(paths: list, profile) -> tuple[Store, str]:
    """(the store, "" or what made a file unusable)."""
    from webhook.offline import sources

    store = Store(profile)
    documents = []
    for source, value, problem in sources.load(paths):
        if problem is not None:
            return store, f"{source}: {problem}"
        documents.append(value)
    store.load(documents)
    return store, ""


def add_warnings(results: list, paths: list, profile) -> str:
    """Adds the warnings to each allowed result that is a claim, template or slice; returns a problem or ""."""
    from webhook.offline.results import PASSED

    store, problem = load(paths, profile)
    if problem:
        return problem
    matching = Matching(store)
    for result in results:
        obj = result.context
        if result.outcome != PASSED or not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        if kind not in ("ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"):
            continue
        v1 = to_v1(kind, obj, profile)
        if v1 is None:
            continue
        findings = checks.check(kind, v1, store, matching, time.monotonic() + OFFLINE_BUDGET_SECONDS)
        result.warnings.extend(findings.warnings)
        if result.response is not None and findings.warnings:
            result.response.setdefault("warnings", []).extend(findings.warnings)
    return ""
