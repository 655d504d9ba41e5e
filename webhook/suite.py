"""`dra-webhook test`: finds TestSuite files, runs every test through the offline reviewer, checks expectations.

A test passes when the webhook's response (defaults first, then validation, exactly as `review`)
matches its `expect` block. A suite that cannot be read or does not follow the schema is an error,
reported with the file and line; the other suites still run.
"""

from __future__ import annotations

import copy
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonpatch
import yaml

from webhook import admit, loader
from webhook.manifest import DEFAULT_NAMESPACE
from webhook.profile import DEFAULT_VERSION, Profile, ProfileError, make_profile
from webhook.review import ReviewError, decode_review
from webhook.suite_expect import check
from webhook.suite_schema import TestCase, TestSuite, validate

PASSED, FAILED, ERROR = "passed", "failed", "error"

# How a suite file is recognised inside a directory (files named explicitly must be suites).
_SUITE_MARKER = re.compile(r"""["']?kind["']?\s*:\s*["']?TestSuite\b""")
# "file.yaml#2": the document at index 2 (the numbering `review` uses in its sources).
_DOCUMENT_INDEX = re.compile(r"^(?P<path>.+)#(?P<index>\d+)$")


@dataclass(frozen=True)
class Problem:
    message: str
    line: int | None = None


@dataclass
class TestResult:
    name: str
    line: int | None
    status: str  # PASSED, FAILED or ERROR
    problems: list[str] = field(default_factory=list)
    response: dict | None = None
    seconds: float = 0.0


@dataclass
class SuiteResult:
    path: str
    name: str
    tests: list[TestResult] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)  # the suite itself is unusable
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for t in self.tests if t.status == status)


@dataclass
class RunResult:
    suites: list[SuiteResult]

    @property
    def tests(self) -> list[TestResult]:
        return [t for s in self.suites for t in s.tests]

    def count(self, status: str) -> int:
        return sum(s.count(status) for s in self.suites)

    @property
    def suite_errors(self) -> int:
        return sum(1 for s in self.suites if s.errors)


EXIT_OK, EXIT_FAILED, EXIT_INPUT = 0, 1, 2


def exit_code(result: RunResult, allow_empty: bool = False) -> int:
    """2 for an unusable suite, a test that could not run, or no test at all; 1 for a failed test."""
    if result.suite_errors or result.count(ERROR):
        return EXIT_INPUT
    if not result.tests and not allow_empty:
        return EXIT_INPUT
    return EXIT_FAILED if result.count(FAILED) else EXIT_OK


class SuiteInputError(Exception):
    """A path given on the command line cannot be used at all."""


def find_suites(paths: list[str]) -> list[str]:
    """Files as given; in directories, the *.yaml/*.yml/*.json files that declare kind: TestSuite."""
    found: list[str] = []
    for raw in paths:
        if raw == "-":
            raise SuiteInputError("-: test suites are read from files (their paths are relative to the file)")
        try:
            if Path(raw).is_dir():
                found.extend(p for p in loader.expand_paths([raw]) if _declares_suite(p))
            else:
                found.extend(loader.expand_paths([raw]))
        except loader.InputError as exc:
            raise SuiteInputError(str(exc)) from None
    unique: dict[Path, str] = {}
    for path in found:
        unique.setdefault(Path(path).resolve(), path)
    return list(unique.values())


def _declares_suite(path: str) -> bool:
    try:
        return bool(_SUITE_MARKER.search(Path(path).read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return True  # unreadable: report it rather than skip it silently


@dataclass(frozen=True)
class Cluster:
    """The command line's cluster: a suite's kubernetesVersion, featureGates and namespace go over it."""

    version: str = DEFAULT_VERSION
    gates: dict[str, bool] = field(default_factory=dict)
    namespace: str = DEFAULT_NAMESPACE
    field_validation: str = admit.STRICT

    def for_suite(self, suite: TestSuite) -> tuple[Profile, str]:
        gates = {**self.gates, **(suite.feature_gates or {})}
        return make_profile(suite.kubernetes_version or self.version, gates), suite.namespace or self.namespace


def run(paths: list[str], warnings_as_errors: bool = False, cluster: Cluster = Cluster()) -> RunResult:
    """Runs every suite found under `paths`. Raises SuiteInputError for a path that does not exist."""
    cache: dict[Path, list[Any]] = {}
    return RunResult([run_suite(path, warnings_as_errors, cache, cluster) for path in find_suites(paths)])


def run_suite(path: str, warnings_as_errors: bool = False, cache: dict[Path, list[Any]] | None = None,
              cluster: Cluster = Cluster()) -> SuiteResult:
    started = time.perf_counter()
    suite, node, errors = _load_suite(path)
    result = SuiteResult(path, (suite.name if suite and suite.name else path), errors=errors)
    if suite is not None:
        try:
            profile, namespace = cluster.for_suite(suite)
        except ProfileError as exc:
            key = "featureGates" if suite.feature_gates else "kubernetesVersion"
            result.errors.append(Problem(str(exc), line_of(node, (key,))))
            suite = None
    if suite is not None:
        files = _Files(Path(path).parent, {} if cache is None else cache)
        for index, test in enumerate(suite.tests):
            line = line_of(node, ("tests", index))
            result.tests.append(_run_test(test, line, files, warnings_as_errors, profile, namespace,
                                          cluster.field_validation))
    result.seconds = time.perf_counter() - started
    return result


def _load_suite(path: str) -> tuple[TestSuite | None, yaml.Node | None, list[Problem]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, None, [Problem(f"cannot read: {exc}")]
    try:
        parser = loader.YamlLoader(text)
        try:
            node = parser.get_single_node()
            data = parser.construct_document(node) if node is not None else None
        finally:
            parser.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, None, [Problem("cannot parse: " + " ".join(str(exc).split()),
                                    mark.line + 1 if mark is not None else None)]
    except RecursionError:
        return None, None, [Problem("cannot parse: nested too deeply")]
    suite, problems = validate(data)
    return suite, node, [Problem(message, line_of(node, loc)) for loc, message in problems]


def line_of(node: yaml.Node | None, loc: tuple[str | int, ...]) -> int | None:
    """1-based line of the entry at `loc` in a composed YAML document (the nearest existing ancestor)."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == part:
                    line, child = key.start_mark.line + 1, value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


class _Files:
    """Resolves `object`, `oldObject` and `review` references relative to the suite; caches parsed files."""

    def __init__(self, base: Path, cache: dict[Path, list[Any]]):
        self.base, self.cache = base, cache

    def resolve(self, source: Any, key: str) -> Any:
        if isinstance(source, dict):
            return copy.deepcopy(source)
        match = _DOCUMENT_INDEX.match(source)
        reference, index = (match["path"], int(match["index"])) if match else (source, None)
        path = self.base / reference
        key_path = path.resolve()
        if key_path not in self.cache:
            try:
                self.cache[key_path] = loader.read_documents(str(path))
            except loader.InputError as exc:
                raise loader.InputError(f"{key}: {exc}") from None
        documents = self.cache[key_path]
        present = [i for i, doc in enumerate(documents) if doc is not None]
        if index is None:
            if len(present) != 1:
                raise loader.InputError(f"{key}: {reference} holds {len(present)} documents; "
                                        f"pick one with {reference}#<index>")
            index = present[0]
        elif index not in present:
            raise loader.InputError(f"{key}: {reference} has no document at index {index}")
        document = documents[index]
        if not isinstance(document, dict):
            raise loader.InputError(f"{key}: {source} is not an object (a mapping)")
        return copy.deepcopy(document)


def _run_test(test: TestCase, line: int | None, files: _Files, warnings_as_errors: bool, profile: Profile,
              namespace: str, field_validation: str) -> TestResult:
    started = time.perf_counter()
    try:
        body = _review_body(test, files)
        request = decode_review(body)
    except (loader.InputError, ReviewError) as exc:
        return TestResult(test.name, line, ERROR, [str(exc)], seconds=time.perf_counter() - started)
    if test.review is not None:  # a recorded request: the cluster already placed and served it
        response = admit.review(request, profile=profile)
    else:
        response = admit.review_manifest(request, profile=profile, namespace=namespace,
                                         field_validation=field_validation)
    defaulted = request.object
    if response.patch and isinstance(request.object, dict):
        defaulted = jsonpatch.apply_patch(request.object, response.patch)
    wire = response.to_dict()
    problems = check(test.expect, wire, defaulted, warnings_as_errors)
    return TestResult(test.name, line, FAILED if problems else PASSED, problems, wire,
                      time.perf_counter() - started)


def _review_body(test: TestCase, files: _Files) -> dict:
    if test.review is not None:
        body = files.resolve(test.review, "review")
        if body.get("kind") != "AdmissionReview":
            raise loader.InputError("review: not an AdmissionReview (use 'object' for a bare object)")
        return body
    obj = files.resolve(test.object, "object") if test.object is not None else None
    old = files.resolve(test.old_object, "oldObject") if test.old_object is not None else None
    if obj is not None and obj.get("kind") == "AdmissionReview":
        raise loader.InputError("object: is an AdmissionReview; use 'review' for a whole request")
    return loader.as_review(obj, operation=test.effective_operation, old=old, sub_resource=test.sub_resource or "")
