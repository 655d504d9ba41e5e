"""Offline results to text or JSON, and the exit code they imply."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import TextIO

EXIT_OK, EXIT_DENIED, EXIT_INPUT = 0, 1, 2


@dataclass(frozen=True)
class Result:
    source: str
    response: dict | None = None  # the AdmissionReview response object
    error: str | None = None
    label: str = ""  # Kind/name (operation), for text output


def exit_code(results: list[Result], warnings_as_errors: bool = False) -> int:
    if any(r.error for r in results):
        return EXIT_INPUT
    for r in results:
        response = r.response or {}
        if not response.get("allowed", False):
            return EXIT_DENIED
        if warnings_as_errors and response.get("warnings"):
            return EXIT_DENIED
    return EXIT_OK


def write_json(results: list[Result], out: TextIO) -> None:
    items = []
    for r in results:
        item: dict = {"source": r.source}
        if r.error is not None:
            item["error"] = r.error
        else:
            item["response"] = r.response
            if r.response and r.response.get("patch"):
                item["patch"] = json.loads(base64.b64decode(r.response["patch"]))
        items.append(item)
    json.dump(items, out, indent=2)
    out.write("\n")


def write_text(results: list[Result], out: TextIO) -> None:
    for r in results:
        if r.error is not None:
            out.write(f"{r.source}: error: {r.error}\n")
            continue
        response = r.response or {}
        verdict = "allowed" if response.get("allowed") else "denied"
        out.write(f"{r.source}: {r.label}: {verdict}\n")
        status = response.get("status") or {}
        causes = (status.get("details") or {}).get("causes") or []
        for cause in causes:
            out.write(f"  {cause.get('field', '')}: {cause.get('message', '')}\n")
        if not response.get("allowed") and not causes and status.get("message"):
            out.write(f"  {status['message']}\n")
        for warning in response.get("warnings") or []:
            out.write(f"  warning: {warning}\n")
        if response.get("patch"):
            out.write("  defaults applied (see --output json for the patch)\n")
    denied = sum(1 for r in results if r.error is None and not (r.response or {}).get("allowed"))
    errors = sum(1 for r in results if r.error is not None)
    out.write(f"{len(results)} object(s): {len(results) - denied - errors} allowed, {denied} denied, "
              f"{errors} unreadable\n")


WRITERS = {"text": write_text, "json": write_json}
