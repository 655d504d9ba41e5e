"""SARIF 2.1.0 (code scanning): one run, a rule per cause reason, a result per finding with its location
(columns in UTF-16 code units, the `columnKind` GitHub reads)."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import TextIO
from urllib.parse import quote

from webhook import __version__
from webhook.offline.loading import STDIN
from webhook.offline.results import ERROR, FAILED, Message, Result, Run
from webhook.offline.utf16 import Columns
from webhook.offline.visible import visible
from webhook.offline.warningcodes import CODES, code

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RULES = {
    "unreadable": "The input could not be read or parsed",
    "warning": "The API server would answer with a warning",
    "failed": "A policy test did not get the verdict it expects",
    "error": "A policy test could not run",
    "invalid suite": "A test suite file is not valid",
}


def write(run: Run, out: TextIO) -> None:
    results, rules = [], {}
    columns = Columns()
    for result in run.results:
        for rule, level, text, message in _findings(result):
            rule = visible(rule)
            rules.setdefault(rule, _describe(rule))
            entry = {"ruleId": rule, "level": level, "message": {"text": visible(text)}}
            if message is not None and message.hint:  # on a line of its own, and as a property for programs
                entry["message"]["text"] += f"\nhint: {visible(message.hint)}"
                entry["properties"] = {"hint": visible(message.hint)}
            location = _location(columns, result, message)
            if location:
                entry["locations"] = [location]
            results.append(entry)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "dra-webhook", "version": __version__,
                                "rules": [{"id": rule, "shortDescription": {"text": text}}
                                          for rule, text in sorted(rules.items())]}},
            "results": results,
            "columnKind": "utf16CodeUnits",  # SARIF's default, said: what GitHub code scanning counts
            **({"invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note", "message": {"text": visible(note)}} for note in run.notes]}]} if run.notes else {}),
        }],
    }
    json.dump(log, out, indent=2)
    out.write("\n")


def _describe(rule: str) -> str:
    if rule.startswith("warning/"):  # a warning's code (warningcodes.py)
        return f"{RULES['warning']}: {CODES.get(rule[8:], CODES['other'])[0]}"
    return RULES.get(rule, f"Denied by the API server's validation: {rule}")


def _findings(result: Result) -> list[tuple[str, str, str, Message | None]]:
    found: list[tuple[str, str, str, Message | None]] = []
    if result.verdict == "denied":  # one finding per cause, where its field is written
        for message in result.messages or []:
            text = f"{result.name}: {message.with_field}"
            found.append((message.reason or "denied", "error", text, message))
    elif result.outcome in (FAILED, ERROR):
        placed = [m for m in result.messages if m.placed]  # a failed test's causes, at their fields
        text = "; ".join(m.text for m in result.messages if m not in placed) or result.verdict
        found.append((result.verdict, "error", f"{result.name}: {text}", None))
        found.extend((result.verdict, "error", f"{result.name}: {m.with_field}", m)
                     for m in placed)
    found.extend((f"warning/{code(w)}", "warning", f"{result.name}: {w}", None) for w in result.warnings)
    return found


def _location(columns: Columns, result: Result, message: Message | None = None) -> dict | None:
    file = message.file if message is not None and message.file else result.file
    if file == STDIN:
        return None
    uri = quote(PurePath(file).as_posix(), errors="surrogateescape")  # a name not UTF-8: its own bytes
    location: dict = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
    if message is not None and message.line:
        region = {"startLine": message.line}
        if message.column:
            region["startColumn"] = columns.column(file, message.line, message.column)
        location["physicalLocation"]["region"] = region
    elif result.line:
        location["physicalLocation"]["region"] = {"startLine": result.line}
    return location
