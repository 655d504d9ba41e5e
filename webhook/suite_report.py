"""Test-suite results as text, JSON, JUnit XML or GitHub Actions workflow commands."""

from __future__ import annotations

import json
from typing import Callable, TextIO
from xml.etree import ElementTree as ET

from webhook.suite import ERROR, FAILED, PASSED, RunResult, SuiteResult, TestResult


def _where(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line else path


def _summary(result: RunResult) -> str:
    text = (f"{len(result.tests)} test(s): {result.count(PASSED)} passed, {result.count(FAILED)} failed, "
            f"{result.count(ERROR)} error(s)")
    if result.suite_errors:
        text += f"; {result.suite_errors} invalid suite(s)"
    return text


def write_text(result: RunResult, out: TextIO) -> None:
    for suite in result.suites:
        for problem in suite.errors:
            out.write(f"{_where(suite.path, problem.line)}: invalid suite: {problem.message}\n")
        for test in suite.tests:
            out.write(f"{test.status.upper():6} {_where(suite.path, test.line)}: {test.name}\n")
            for problem in test.problems:
                out.write(f"       {problem}\n")
    out.write(_summary(result) + "\n")


def write_json(result: RunResult, out: TextIO) -> None:
    document = {
        "summary": {"tests": len(result.tests), "passed": result.count(PASSED), "failed": result.count(FAILED),
                    "errors": result.count(ERROR), "invalidSuites": result.suite_errors},
        "suites": [_suite_json(suite) for suite in result.suites],
    }
    json.dump(document, out, indent=2)
    out.write("\n")


def _suite_json(suite: SuiteResult) -> dict:
    return {
        "file": suite.path,
        "name": suite.name,
        "errors": [{"message": p.message, "line": p.line} for p in suite.errors],
        "tests": [{"name": t.name, "line": t.line, "status": t.status, "problems": t.problems,
                   "response": t.response} for t in suite.tests],
    }


def write_junit(result: RunResult, out: TextIO) -> None:
    """JUnit XML as CI systems read it: one <testsuite> per suite file, one <testcase> per test."""
    root = ET.Element("testsuites", name="dra-webhook test", tests=str(len(result.tests) + result.suite_errors),
                      failures=str(result.count(FAILED)), errors=str(result.count(ERROR) + result.suite_errors),
                      time=_seconds(sum(s.seconds for s in result.suites)))
    for suite in result.suites:
        element = ET.SubElement(root, "testsuite", name=suite.name, file=suite.path,
                                tests=str(len(suite.tests) + (1 if suite.errors else 0)),
                                failures=str(suite.count(FAILED)),
                                errors=str(suite.count(ERROR) + (1 if suite.errors else 0)),
                                skipped="0", time=_seconds(suite.seconds))
        if suite.errors:
            case = ET.SubElement(element, "testcase", name="(load suite)", classname=suite.path, file=suite.path,
                                 time="0.000")
            if suite.errors[0].line:
                case.set("line", str(suite.errors[0].line))
            error = ET.SubElement(case, "error", message=suite.errors[0].message, type="InvalidSuite")
            error.text = "\n".join(_where(suite.path, p.line) + ": " + p.message for p in suite.errors)
        for test in suite.tests:
            _junit_case(element, suite, test)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def _junit_case(parent: ET.Element, suite: SuiteResult, test: TestResult) -> None:
    case = ET.SubElement(parent, "testcase", name=test.name, classname=suite.path, file=suite.path,
                         time=_seconds(test.seconds))
    if test.line:
        case.set("line", str(test.line))
    if test.status == PASSED:
        return
    tag, kind = ("failure", "ExpectationMismatch") if test.status == FAILED else ("error", "TestError")
    child = ET.SubElement(case, tag, message=test.problems[0] if test.problems else test.status, type=kind)
    child.text = "\n".join(test.problems)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def write_github(result: RunResult, out: TextIO) -> None:
    """GitHub Actions workflow commands: an ::error annotation per failure, on the suite file and line."""
    for suite in result.suites:
        for problem in suite.errors:
            out.write(_command("error", "invalid test suite", problem.message, suite.path, problem.line))
        for test in suite.tests:
            if test.status != PASSED:
                title = f"{'failed' if test.status == FAILED else 'could not run'}: {test.name}"
                out.write(_command("error", title, "\n".join(test.problems), suite.path, test.line))
    out.write(_summary(result) + "\n")


def _command(level: str, title: str, message: str, path: str, line: int | None) -> str:
    properties = f"file={_escape_property(path)}"
    if line:
        properties += f",line={line}"
    properties += f",title={_escape_property(title)}"
    return f"::{level} {properties}::{_escape_data(message)}\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


WRITERS: dict[str, Callable[[RunResult, TextIO], None]] = {
    "text": write_text,
    "json": write_json,
    "junit": write_junit,
    "github": write_github,
}
