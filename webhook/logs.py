"""Structured logs: one JSON object per line on stderr, for cluster log pipelines.

Callers pass fields with `extra={"fields": {...}}`; the formatter merges them into the line.
The per-request line is built here from the decoded review's metadata only: request bodies
never reach a log.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

from webhook.review import AdmissionRequest, AdmissionResponse


class JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup(level: str = "info") -> None:
    """JSON lines on stderr for our logger and for uvicorn's (which propagate to the root logger)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper()))
    # The JSON line has no thread, process or source fields: do not look them up for every record
    # (the logging HOWTO's "Optimization" section).
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None


def fields(**values) -> dict:
    """`log.info("msg", extra=fields(a=1))` reads better than the nested dict it builds."""
    return {"fields": values}


# Longer than any valid name (253), short enough that a 5 MB name cannot become a 5 MB line.
MAX_LOGGED_CHARS = 256


def text(value: object) -> str:
    """A client-supplied value as it may appear in a log: a string, truncated; anything else is
    dropped (a `{"password": ...}` where a name belongs must not reach the log)."""
    if not isinstance(value, str):
        return ""
    if len(value) > MAX_LOGGED_CHARS:
        return value[:MAX_LOGGED_CHARS] + f"...({len(value)} chars)"
    return value


def review_fields(request: AdmissionRequest, response: AdmissionResponse) -> dict:
    """What a log line says about one review (strings and booleans only, bounded)."""
    obj = request.object if isinstance(request.object, dict) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    code = (response.status or {}).get("code", 200)
    return {
        "uid": text(request.uid),
        "kind": text(request.kind.kind or obj.get("kind")),
        # The version the API server sent the object in: under matchPolicy Equivalent, a request made in a
        # version the configuration does not list arrives converted to one it does.
        "version": text(request.kind.version),
        "name": text(meta.get("name") or request.name),
        "namespace": text(request.namespace or meta.get("namespace")),
        "operation": text(request.operation),
        "subResource": text(request.sub_resource),
        "dryRun": request.dry_run,
        "allowed": response.allowed,
        "code": code if isinstance(code, int) else 0,
    }


def request_fields(path: str, request: AdmissionRequest, response: AdmissionResponse, seconds: float) -> dict:
    return {"path": path, **review_fields(request, response), "durationMs": round(seconds * 1000, 3)}
