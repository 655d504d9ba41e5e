"""GitHub Actions workflow commands: an ::error per failure, a ::warning per warning, on the file and line."""

from __future__ import annotations

from typing import TextIO

from webhook.offline.results import ERROR, FAILED, Result, Run
from webhook.offline.utf16 import Columns
from webhook.offline.visible import visible
from webhook.offline.warningcodes import code, unlabelled


def write(run: Run, out: TextIO) -> None:
    columns = Columns()  # `col` in UTF-16 code units, as GitHub counts a SARIF file's
    for result in run.results:
        if result.outcome in (FAILED, ERROR):
            title = f"{result.name}: {result.verdict}"
            placed = [m for m in result.messages if m.placed]  # each on its field's line
            rest = [m for m in result.messages if m not in placed]
            for m in placed:
                text = visible(m.with_field) + (f"\nhint: {visible(m.hint)}" if m.hint else "")
                column = columns.column(m.file or result.file, m.line, m.column)
                out.write(_command("error", title, text, result, m.line, column, m.file))
            if rest or not placed:
                text = "\n".join(visible(m.with_field) + (f"\nhint: {visible(m.hint)}" if m.hint else "")
                                 for m in rest)
                out.write(_command("error", title, text or result.verdict, result))
        for warning in result.warnings:
            out.write(_command("warning", f"{result.name}: warning [{code(warning)}]", visible(unlabelled(warning)), result))
    for note in run.notes:
        out.write(f"::notice title=dra-webhook review::{_escape_data(visible(note))}\n")
    out.write(visible(run.summary_line()) + "\n")
    out.write(visible(f"exit {run.exit.code}: {run.exit.reason}") + "\n")


def _command(level: str, title: str, message: str, result: Result, line: int | None = None,
             column: int | None = None, file: str | None = None) -> str:
    # Escaped twice: control characters made visible (a terminal reads the log too), then the workflow
    # command's own escapes; line breaks between messages are ours, sent as %0A.
    properties = f"file={_escape_property(visible(file or result.file))}"
    if line or result.line:
        properties += f",line={line or result.line}"
    if line and column:
        properties += f",col={column}"
    properties += f",title={_escape_property(visible(title))}"
    return f"::{level} {properties}::{_escape_data(message)}\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
