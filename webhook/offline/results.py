"""The one result type of the offline commands (`review`, `test`, `allocate`) and the one exit code.

Every checked thing -- a document of a manifest file, a test of a suite, an unreadable file -- is one
`Result`. Its `outcome` is what the exit code and the reporters look at; its `verdict` is the word
the command uses for it (allowed/denied for review, passed/failed for test).

Exit codes, in this order of precedence (the first that applies wins):

    1  something failed: an object denied (or, with --warnings-as-errors, warned), a test failed
    2  nothing failed, but an input could not be used: a missing or unreadable file, a document that
       is not an object, an invalid suite, a test that could not run, or no input found at all;
       also every usage error (bad flags), detected before anything runs
    0  everything passed

A denial is never hidden by an unreadable neighbour: every readable document is still checked and
reported, and the unreadable ones are listed as results of their own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

EXIT_OK, EXIT_FAILED, EXIT_INPUT = 0, 1, 2

PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"  # outcomes


@dataclass(frozen=True)
class Message:
    """One finding of a result: a denial cause (field, reason), a test's mismatch, a parse error."""

    text: str
    field: str = ""
    reason: str = ""
    line: int | None = None
    column: int | None = None  # 1-based, with `line`: where the cause's field is written
    file: str | None = None  # that field's file, when not the result's (a suite's test of an object in a file)
    hint: str = ""  # how to fix a common mistake (webhook/offline/hints.py); never part of the cause

    @property
    def placed(self) -> bool:
        """Whether it is placed where its field is written (a line and a column)."""
        return bool(self.line and self.column)

    @property
    def with_field(self) -> str:
        """`field: text`, or the text alone for a message without a field."""
        return f"{self.field}: {self.text}" if self.field else self.text

    def where(self, file: str) -> str:
        """`file:line:column: ` where its field is written (its own file, else `file`), or "" unplaced."""
        return f"{self.file or file}:{self.line}:{self.column}: " if self.placed else ""


@dataclass
class Result:
    file: str  # as given on the command line; "<stdin>" for standard input
    name: str  # what was checked: "ResourceSlice/node-1 (CREATE)", a test's name
    outcome: str  # PASSED, FAILED, ERROR or SKIPPED
    verdict: str  # the command's word: allowed, denied, unreadable, skipped; passed, failed, error
    line: int | None = None  # 1-based line in `file`
    document: str | None = None  # "3" or "3.items[0]": which document of the file (review)
    group: str = ""  # a test's suite name (JUnit testsuite); empty: the file
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    response: dict | None = None  # the AdmissionReview response, without the patch
    patch: list | None = None  # the defaults the API server would add, as JSON Patch (allowed objects)
    seconds: float = 0.0  # for JUnit only: never in JSON output, which must be reproducible
    notes: list[str] = field(default_factory=list)  # review --explain: what a slice's devices take from a node
    context: dict | None = None  # what checks across documents need (pool checks); never reported

    @property
    def source(self) -> str:
        return f"{self.file}#{self.document}" if self.document is not None else self.file

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class Exit:
    code: int
    reason: str


def counts(results: Iterable[Result], verdicts: tuple[str, ...]) -> dict[str, int]:
    """How many results have each verdict, every verdict of the command listed (zeros included)."""
    found = Counter(r.verdict for r in results)
    return {verdict: found.get(verdict, 0) for verdict in verdicts} | dict(found)


def decide(results: list[Result], *, noun: str, warnings_as_errors: bool = False,
           allow_empty: bool = False) -> Exit:
    """The exit code of a run and why, in words (see the module docstring for the precedence)."""
    failed = [r for r in results if r.outcome == FAILED]
    warned = [r for r in results if r.outcome == PASSED and r.warnings] if warnings_as_errors else []
    errors = [r for r in results if r.outcome == ERROR]
    checked = [r for r in results if r.outcome != SKIPPED]
    if failed or warned:
        parts = []
        if failed:
            parts.append(f"{len(failed)} {failed[0].verdict}")
        if warned:
            parts.append(f"{len(warned)} {noun}(s) with warnings (--warnings-as-errors)")
        if errors:
            parts.append(f"also {len(errors)} could not be used")
        return Exit(EXIT_FAILED, "; ".join(parts))
    if errors:
        return Exit(EXIT_INPUT, f"{len(errors)} input(s) could not be used")
    if not results and not allow_empty:
        return Exit(EXIT_INPUT, f"no {noun} found")
    if not checked:
        return Exit(EXIT_OK, f"no {noun} to check" + (f" ({len(results)} skipped)" if results else ""))
    return Exit(EXIT_OK, f"every {noun} passed")


@dataclass
class Run:
    """A finished run of one command: what the reporters print."""

    command: str  # review, test, allocate
    noun: str  # what a result is about: "object", "test"
    verdicts: tuple[str, ...]  # the command's verdict words, in summary order
    results: list[Result]
    exit: Exit
    settings: dict = field(default_factory=dict)  # kubernetesVersion, featureGates, now, ...
    verbose: bool = False
    notes: list[str] = field(default_factory=list)  # what the run could not check (never a failure or warning)

    def counts(self) -> dict[str, int]:
        return counts(self.results, self.verdicts)

    def summary(self) -> dict:
        counts = {verdict.replace(" ", "_"): n for verdict, n in self.counts().items()}  # keys are identifiers
        notes = {"notes": self.notes} if self.notes else {}  # only when there are: summaries stay as they were
        return {"command": self.command, **self.settings, "total": len(self.results), **counts,
                "exitCode": self.exit.code, "reason": self.exit.reason, **notes}

    def summary_line(self) -> str:
        parts = ", ".join(f"{n} {verdict}" for verdict, n in self.counts().items())
        return f"{len(self.results)} {self.noun}(s): {parts}"
