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


def fields(**values) -> dict:
    """`log.info("msg", extra=fields(a=1))` reads better than the nested dict it builds."""
    return {"fields": values}


def request_fields(path: str, request: AdmissionRequest, response: AdmissionResponse, seconds: float) -> dict:
    obj = request.object if isinstance(request.object, dict) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {
        "path": path,
        "uid": request.uid,
        "kind": request.kind.kind or obj.get("kind"),
        "name": meta.get("name") or request.name,
        "namespace": request.namespace or meta.get("namespace") or "",
        "operation": request.operation,
        "subResource": request.sub_resource,
        "dryRun": request.dry_run,
        "allowed": response.allowed,
        "code": (response.status or {}).get("code", 200),
        "durationMs": round(seconds * 1000, 3),
    }
