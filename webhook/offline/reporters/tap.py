"""TAP version 13: a test point per result, YAML diagnostics for failures (each cause at its file:line:column,
the first one's also as `at`), the exit reason as a comment."""

from __future__ import annotations

import json
from typing import TextIO

from webhook.offline.results import ERROR, FAILED, SKIPPED, Run
from webhook.offline.visible import Lines
from webhook.offline.warningcodes import labelled


def write(run: Run, out: TextIO) -> None:
    out = Lines(out)  # one line per write; a name with a line break would forge a test point
    out.write("TAP version 13\n")
    out.write(f"1..{len(run.results)}\n")
    for number, result in enumerate(run.results, 1):
        description = f"{result.where} {result.name}".replace("#", "\\#")
        if result.outcome == SKIPPED:
            reason = result.messages[0].text if result.messages else "skipped"
            out.write(f"ok {number} - {description} # SKIP {reason}\n")
            continue
        ok = result.outcome not in (FAILED, ERROR)
        out.write(f"{'ok' if ok else 'not ok'} {number} - {description}\n")
        if not ok or result.warnings:
            out.write("  ---\n")
            out.write(f"  verdict: {result.verdict}\n")
            if result.messages:
                out.write("  messages:\n")
                for m in result.messages:  # each at its field's file:line:column, as text writes it
                    out.write(f"    - {json.dumps(m.where(result.file) + m.with_field)}\n")
                hints = [m.hint for m in result.messages if m.hint]
                if hints:  # how to fix the common mistakes among them
                    out.write("  hints:\n")
                    for text in hints:
                        out.write(f"    - {json.dumps(text)}\n")
                first = next((m for m in result.messages if m.placed), None)
                if first is not None:  # where the first cause is, as other TAP producers' `at`
                    out.write("  at:\n")
                    out.write(f"    file: {json.dumps(first.file or result.file)}\n")
                    out.write(f"    line: {first.line}\n")
                    out.write(f"    column: {first.column}\n")
            if result.warnings:
                out.write("  warnings:\n")
                for w in result.warnings:
                    out.write(f"    - {json.dumps(labelled(w))}\n")
            out.write("  ...\n")
    for note in run.notes:
        out.write(f"# note: {note}\n")
    out.write(f"# {run.summary_line()}\n")
    out.write(f"# exit {run.exit.code}: {run.exit.reason}\n")
