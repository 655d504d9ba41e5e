"""JSON for programs: {"summary": {...}, "results": [...]}; byte-identical for identical inputs (no timings)."""

from __future__ import annotations

import json
from typing import TextIO

from webhook.offline.results import Result, Run
from webhook.offline.warningcodes import code


def item(result: Result) -> dict:
    out: dict = {"file": result.file, "line": result.line}
    if result.document is not None:
        out["document"] = result.document
    if result.group:
        out["suite"] = result.group
    out["name"] = result.name
    out["verdict"] = result.verdict
    out["messages"] = [{k: v for k, v in (("field", m.field), ("reason", m.reason), ("message", m.text),
                                           ("file", m.file), ("line", m.line), ("column", m.column),
                                           ("hint", m.hint)) if v}
                       for m in result.messages]
    out["warnings"] = result.warnings
    if result.warnings:
        out["warningCodes"] = [code(w) for w in result.warnings]  # one per warning, in the same order
    if result.response is not None:
        out["response"] = result.response
    if result.patch:
        out["patch"] = result.patch
    return out


def write(run: Run, out: TextIO) -> None:
    json.dump({"summary": run.summary(), "results": [item(r) for r in run.results]}, out, indent=2)
    out.write("\n")
