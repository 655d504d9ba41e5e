"""The cluster-state warnings added to a /validate answer, in the server process (which holds the cache).

A worker (or the inline reviewer) has judged the object; for a ResourceClaim, ResourceClaimTemplate or
ResourceSlice that is created or updated, and only while the cache is synced, the checks run within
their budget and their warnings join the answer's. Nothing here can fail a request: an error is logged
and the answer goes out as the worker gave it. `--deny-unsatisfiable` turns an `[unsatisfiable]`
warning into a denial.
"""

from __future__ import annotations

import logging
import time

import orjson

from webhook import logs
from webhook.clusterstate import checks
from webhook.clusterstate.store import to_v1
from webhook.review import relayed_warnings

log = logging.getLogger("dra-webhook")

KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"})


def _denial(message: str) -> dict:
    return {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "message": message,
            "reason": "Forbidden", "code": 403}


def add_warnings(state, body: bytes, reply, metrics=None) -> None:
    """Adds the state warnings to `reply` (a worker.Reply with status 200) in place."""
    kind, operation = reply.metric[0], reply.metric[1]
    if kind not in KINDS or operation not in ("CREATE", "UPDATE"):
        return
    if not state.synced:
        metrics and metrics.cluster_state_checked("unsynced")
        return
    started = time.monotonic()
    try:
        request = orjson.loads(body)["request"]
    except (orjson.JSONDecodeError, RecursionError, KeyError, TypeError):  # the worker read it its own way
        metrics and metrics.cluster_state_checked("error")
        return
    try:
        obj = request.get("object")
        if request.get("subResource") or not isinstance(obj, dict):
            return
        v1 = to_v1(kind, obj, state.store.profile)
        if v1 is None:
            return
        findings = checks.check(kind, v1, state.store, state.matching, started + state.settings.budget_seconds)
    except Exception:  # noqa: BLE001 - a bug of ours must not touch the verdict
        log.exception("cluster state: the check failed; the answer goes out without it")
        metrics and metrics.cluster_state_checked("error")
        return
    if metrics:
        metrics.cluster_state_checked("warned" if findings.warnings else
                                      "clean" if findings.complete else "out_of_time")
    if not findings.warnings:
        return
    answer = orjson.loads(reply.body)
    response = answer["response"]
    response["warnings"] = relayed_warnings(list(response.get("warnings") or []) + findings.warnings)
    if state.settings.deny_unsatisfiable and findings.unsatisfiable and response.get("allowed"):
        response["allowed"] = False
        response["status"] = _denial("dra-webhook: denied by --deny-unsatisfiable: "
                                     + findings.unsatisfiable[0].removeprefix("[unsatisfiable] "))
        reply.metric = (reply.metric[0], reply.metric[1], False, reply.metric[3])
    reply.body = orjson.dumps(answer)
    reply.review["stateWarnings"] = len(findings.warnings)
    log.debug("cluster state warnings", extra=logs.fields(kind=kind, count=len(findings.warnings)))
