"""Text for people: failures (and warnings) only unless verbose, then the summary and why the exit code.

Every write is one line; what it prints from the inputs is escaped (`webhook.offline.visible`)."""

from __future__ import annotations

from typing import TextIO

from webhook.offline.results import ERROR, FAILED, Result, Run
from webhook.offline.visible import Lines
from webhook.offline.warningcodes import code, unlabelled


def write(run: Run, out: TextIO) -> None:
    out = Lines(out)  # names, files and messages come from the inputs: one line each, escaped
    for result in run.results:
        if run.verbose or result.outcome in (FAILED, ERROR) or result.warnings:
            _result(result, out, run.verbose)
    for note in run.notes:
        out.write(f"note: {note}\n")
    if run.command == "review" and run.settings.get("kubernetesVersion"):
        out.write(rules_line(run.settings) + "\n")
    out.write(run.summary_line() + "\n")
    out.write(f"exit {run.exit.code}: {run.exit.reason}\n")


def rules_line(settings: dict) -> str:
    """The release and the gates the verdicts are for: `rules: Kubernetes 1.36, its default feature gates`."""
    from webhook.profile import changed_gates

    version = settings["kubernetesVersion"]
    changed = changed_gates(version, settings.get("featureGates") or {})
    gates = (f"feature gates {', '.join(changed)} (the others at {version}'s defaults)" if changed
             else "its default feature gates")
    config = f", --runtime-config {settings['runtimeConfig']}" if settings.get("runtimeConfig") else ""
    return f"rules: Kubernetes {version}, {gates}{config}"


def _result(result: Result, out: TextIO, verbose: bool) -> None:
    document = f" (document {result.document})" if result.document is not None else ""
    out.write(f"{result.where}{document}: {result.name}: {result.verdict}\n")
    for message in result.messages:
        if message.placed:  # where its field is written
            out.write(f"  {message.where(result.file)}{message.with_field}\n")
        elif message.line and message.line != result.line:
            out.write(f"  {result.file}:{message.line}: {message.text}\n")
        elif message.field:
            out.write(f"  {message.field}: {message.text}\n")
        else:
            out.write(f"  {message.text}\n")
        if message.hint:
            out.write(f"    hint: {message.hint}\n")
    for warning in result.warnings:
        out.write(f"  warning [{code(warning)}]: {unlabelled(warning)}\n")
    if verbose and result.patch:
        out.write(f"  defaults: {len(result.patch)} JSON Patch operation(s) (--output json shows them)\n")
