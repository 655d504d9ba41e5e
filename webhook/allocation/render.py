"""Text and JSON reports of `allocate`.

Names, selectors and messages in the text report come from the inputs: control characters in them
(a terminal escape sequence, a line break that would forge a report line, bidirectional overrides)
are written as escapes (`\x1b`, `\n`, `\u202e`) by `webhook.offline.visible`; JSON escapes them itself.
"""

from __future__ import annotations

import json
from itertools import chain

from webhook.allocation.explain import REASONS
from webhook.offline.visible import Lines


DEFAULT_MAX_REPORT_BYTES = 960 << 10  # --max-report-bytes: with its last answer and tail, under 1 MB


class Report:
    """Where a report of several answers goes: it counts what is written, and past `budget` characters
    (0: no limit) the answers left are not shown but counted, in one line at the end, with the one line
    for the answers --total-timeout left untried (`skipped`, outcome.NotTried)."""

    def __init__(self, out, budget: int = DEFAULT_MAX_REPORT_BYTES, skipped=None) -> None:
        self.out, self.budget, self.skipped = out, budget, skipped
        self.written = self.hidden = self.hidden_fit = 0

    def write(self, text: str) -> None:
        self.written += len(text)
        self.out.write(text)

    def shown(self, outcomes: list):
        """The outcomes to write, while the report is under its budget; the rest are counted."""
        for index, outcome in enumerate(outcomes):
            if self.budget and self.written >= self.budget:
                rest = outcomes[index:]
                self.hidden += len(rest)
                self.hidden_fit += sum(1 for o in rest if getattr(o, "fits", False))
                return
            yield outcome

    def tail(self) -> list[str]:
        """The closing lines: answers not shown, answers not tried."""
        lines = []
        if self.hidden:
            lines.append(f"not shown: {self.hidden:,} more answer{'s' if self.hidden != 1 else ''} "
                         f"({self.hidden_fit:,} of them fit): the report reached --max-report-bytes {self.budget:,}")
        if self.skipped is not None and self.skipped.answers:
            lines.append(self.skipped.text())
        return lines

    def tail_json(self) -> list[dict]:
        entries = []
        if self.hidden:
            entries.append({"notShown": {"answers": self.hidden, "fit": self.hidden_fit,
                                         "maxReportBytes": self.budget}})
        if self.skipped is not None and self.skipped.answers:
            entries.append(self.skipped.to_dict())
        return entries


def _json_lines(out, entries) -> None:
    """A JSON list, one entry per line: readable, and the C encoder keeps a thousand nodes fast."""
    out.write("[")
    first = True
    for entry in entries:
        out.write(("\n" if first else ",\n") + json.dumps(entry))
        first = False
    out.write("\n]\n" if not first else "]\n")


def write_json(outcomes: list, all_nodes: bool, out) -> None:
    if not all_nodes:
        json.dump(outcomes[0].to_dict(), out, indent=2)
        out.write("\n")
        return
    report = out if isinstance(out, Report) else Report(out, 0)
    _json_lines(report, chain((o.to_dict() for o in report.shown(outcomes)), _Later(report.tail_json)))


def _selector_text(selector: dict) -> str:
    parts = []
    for term in selector.get("nodeSelectorTerms") or []:
        reqs = [f"{r.get('key')} {r.get('operator')} [{', '.join(r.get('values') or [])}]"
                for r in (term.get("matchFields") or []) + (term.get("matchExpressions") or [])]
        parts.append(" and ".join(reqs))
    return " or ".join(parts)


def _claim_name(claim) -> str:
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


def write_text(outcomes: list, all_nodes: bool, out) -> None:
    report = out if isinstance(out, Report) else Report(out, 0)
    out = Lines(report)
    if all_nodes:
        fits = [o.node for o in outcomes if o.fits]
        out.write(f"{len(fits)} of {len(outcomes)} nodes fit" + (f": {', '.join(fits)}" if fits else "") + "\n")
        out.write("\n")
    for index, outcome in enumerate(report.shown(outcomes)):
        if index:
            out.write("\n")
        _node(outcome, out)
    _tail(report, out)


def _tail(report: Report, out) -> None:
    for line in report.tail():
        if report.written:
            out.write("\n")
        out.write(line + "\n")


class _Later:
    """An iterable that asks for its items only when iterated: the tail of a report is known at its end."""

    def __init__(self, make) -> None:
        self.make = make

    def __iter__(self):
        return iter(self.make())


def _node(outcome, out) -> None:
    if outcome.error:
        out.write(f"node {outcome.node}: cannot allocate: {outcome.error}\n")
        return
    verdict = "all claims allocated" if outcome.allocated else "the claims cannot all be allocated on this node"
    out.write(f"node {outcome.node}: {verdict}\n")
    for claim in outcome.claims:
        if claim.allocation is not None:
            out.write(f"  claim {_claim_name(claim)}: allocated\n")
            for result in claim.allocation["devices"]["results"]:
                extra = " (admin access)" if result.get("adminAccess") else ""
                if result.get("consumedCapacity"):
                    extra += " consuming " + ", ".join(f"{k} {v}" for k, v in result["consumedCapacity"].items())
                out.write(f"    {result['request']}: {result['driver']}/{result['pool']}/{result['device']}{extra}\n")
            if claim.allocation.get("nodeSelector"):
                out.write(f"    node selector: {_selector_text(claim.allocation['nodeSelector'])}\n")
            if claim.footprint is not None:
                out.write(f"    takes from {outcome.node}: {_amounts(claim.footprint.to_dict())}"
                          f"{_per_container(claim.footprint)}\n")
                for problem in claim.footprint.problems:
                    out.write(f"    warning: {problem}\n")
            continue
        out.write(f"  claim {_claim_name(claim)}: not allocated\n")
        for explanation in claim.explanation:
            _request(explanation, out)
    _footprint(outcome, out)


def _amounts(amounts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in amounts.items()) or "nothing"


def _per_container(footprint) -> str:
    """1.37 perContainer overhead: what each container using the claim adds (counted in the inputs' Pods)."""
    each = getattr(footprint, "per_container", None)
    if each is None or not each.amounts:
        return ""
    count = footprint.containers
    counted = f"{count} container{'s' if count != 1 else ''} counted" if count else "no Pod in the inputs uses it"
    return f" (with {_amounts(each.to_dict())} per container using the claim; {counted})"


def _footprint(outcome, out) -> None:
    if outcome.footprint is not None:
        out.write(f"  the claims take from node {outcome.node}: {_amounts(outcome.footprint.to_dict())}\n")
    if outcome.fit is not None:
        if outcome.fit["fits"]:
            out.write(f"  fits in what node {outcome.node} has left: {_amounts(outcome.fit['free'])}\n")
        else:
            out.write(f"  does not fit on node {outcome.node}: short by {_amounts(outcome.fit['short'])} "
                      f"(left: {_amounts(outcome.fit['free'])})\n")
    for note in outcome.notes:
        out.write(f"  note: {note}\n")


def _request(e, out) -> None:
    wanted = "all matching devices" if e.wanted == "All" else f"{e.wanted} device{'s' if e.wanted != '1' else ''}"
    out.write(f"    request {e.request} (class {e.device_class}, wants {wanted}): {e.considered} device"
              f"{'s' if e.considered != 1 else ''} considered, {e.usable} usable\n")
    for reason in REASONS:
        if reason not in e.removed:
            continue
        count, examples = e.removed[reason]
        out.write(f"      {count} {reason}\n")
        for device, why in examples:
            out.write(f"        {device}: {why}\n")
        if count > len(examples):
            out.write(f"        ... and {count - len(examples)} more\n")
    if e.note:
        out.write(f"      {e.note}\n")


def _unit_name(unit) -> str:
    if unit.pod is not None:
        return f"pod {unit.pod}"
    return "claim " + ", ".join(_claim_name(_Named(c)) for c, _ in unit.claims) if unit.claims else "no claim"


class _Named:
    def __init__(self, claim: dict) -> None:
        meta = claim.get("metadata") or {}
        self.namespace, self.name = meta.get("namespace") or "", meta.get("name") or ""


def write_units_json(answers: list, all_nodes: bool, out) -> None:
    """Several pods (or claims of no pod): one entry per pod and node, each with its `pod`; then an entry
    for the answers not shown and one for those not tried, if any."""
    report = out if isinstance(out, Report) else Report(out, 0)
    outcomes = [o for _, outcomes in answers for o in outcomes]
    _json_lines(report, chain((o.to_dict() for o in report.shown(outcomes)), _Later(report.tail_json)))


def write_units_text(answers: list, all_nodes: bool, out) -> None:
    """Grouped by pod: a header per pod (with --all-nodes, the nodes that fit it), then its nodes."""
    report = out if isinstance(out, Report) else Report(out, 0)
    lines = Lines(report)
    for index, (unit, outcomes) in enumerate(answers):
        shown = report.shown(outcomes)  # checked against the budget as each is written
        first = next(shown, None)
        if first is None:
            continue  # counted as not shown
        if index:
            lines.write("\n")
        header = _unit_name(unit)
        if unit.problem:  # refused before any node is tried: one line, whatever the nodes
            lines.write(f"{header}: not scheduled, no node tried ({unit.stage}): {unit.problem}\n")
            continue
        if all_nodes:
            fits = [o.node for o in outcomes if o.fits]
            header += f": {len(fits)} of {len(outcomes)} nodes fit" + (f": {', '.join(fits)}" if fits else "")
        lines.write(header + "\n")
        for outcome in chain([first], shown):
            _node(outcome, lines)
    _tail(report, lines)
