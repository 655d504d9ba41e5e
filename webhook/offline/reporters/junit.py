"""JUnit XML as CI systems read it: a <testsuite> per file (per suite for `test`), a <testcase> per result."""

from __future__ import annotations

from typing import TextIO
from xml.etree import ElementTree as ET

from webhook.offline.results import ERROR, FAILED, SKIPPED, Result, Run
from webhook.offline.visible import visible
from webhook.offline.warningcodes import code, unlabelled

# Every string from the inputs goes through `visible`: XML 1.0 cannot hold most control characters at
# all (not even as references), and a reader's terminal should not get the others.


def write(run: Run, out: TextIO) -> None:
    groups: dict[str, list[Result]] = {}
    for result in run.results:
        groups.setdefault(visible(result.group or result.file), []).append(result)
    root = ET.Element("testsuites", name=f"dra-webhook {run.command}", tests=str(len(run.results)),
                      failures=str(_count(run.results, FAILED)), errors=str(_count(run.results, ERROR)),
                      skipped=str(_count(run.results, SKIPPED)), time=_seconds(run.results))
    for name, results in groups.items():
        suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(results)),
                              failures=str(_count(results, FAILED)), errors=str(_count(results, ERROR)),
                              skipped=str(_count(results, SKIPPED)), time=_seconds(results),
                              file=visible(results[0].file))
        for result in results:
            _case(suite, name, result)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def _case(parent: ET.Element, classname: str, result: Result) -> None:
    name = result.name if result.document is None else f"{result.name} #{result.document}"
    case = ET.SubElement(parent, "testcase", name=visible(name), classname=classname, file=visible(result.file),
                         time=f"{result.seconds:.3f}")
    line = next((m.line for m in result.messages if m.column and not m.file), result.line)  # the first cause's field
    if line:
        case.set("line", str(line))
    text = "\n".join(visible(m.where(result.file) + m.with_field) + (f"\n  hint: {visible(m.hint)}" if m.hint else "")
                     for m in result.messages)
    first = visible(result.messages[0].text) if result.messages else result.verdict
    if result.outcome == FAILED:
        ET.SubElement(case, "failure", message=first, type=result.verdict).text = text
    elif result.outcome == ERROR:
        ET.SubElement(case, "error", message=first, type=result.verdict).text = text
    elif result.outcome == SKIPPED:
        ET.SubElement(case, "skipped", message=first)
    if result.warnings:
        ET.SubElement(case, "system-out").text = "\n".join(f"warning [{code(w)}]: {visible(unlabelled(w))}"
                                                           for w in result.warnings)


def _count(results: list[Result], outcome: str) -> int:
    return sum(1 for r in results if r.outcome == outcome)


def _seconds(results: list[Result]) -> str:
    return f"{sum(r.seconds for r in results):.3f}"
