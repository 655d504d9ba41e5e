"""`dra-webhook test`: finds TestSuite files, runs every test through the offline reviewer, checks expectations.

A test passes when the webhook's response (defaults first, then validation, exactly as `review`)
matches its `expect` block. A suite that cannot be read or does not follow the schema is an error,
reported with the file and line; the other suites still run. Every test is one `Result`.
"""

from __future__ import annotations

import copy
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonpatch
import yaml

from webhook import admit
from webhook.manifest import DEFAULT_NAMESPACE
from webhook.numbers import parse_decimal
from webhook.offline import confined, loading, positions, sources, yamlload
from webhook.offline.expect import NOT_REFERENCED, check, heeded
from webhook.offline.results import ERROR, FAILED, PASSED, Message, Result
from webhook.offline.suite_schema import TestCase, TestSuite, validate
from webhook.drivers.registry import DriverSource
from webhook.profile import DEFAULT_VERSION, Profile, ProfileError, make_profile
from webhook.review import ReviewError, decode_review

VERDICTS = ("passed", "failed", "error", "invalid suite")
_UID_NAMESPACE = uuid.UUID("0b6c2f7e-3a0d-4e55-8f0e-7d9b1c2a4e60")

# How a suite file is recognised inside a directory (files named explicitly must be suites).
_SUITE_MARKER = re.compile(r"""["']?kind["']?\s*:\s*["']?TestSuite\b""")
# "file.yaml#2": the document at index 2 (the numbering `review` uses in its sources).
_DOCUMENT_INDEX = re.compile(r"^(?P<path>.+)#(?P<index>\d+)$")


class SuiteInputError(Exception):
    """A path given on the command line cannot be used at all."""


def find_suites(paths: list[str]) -> list[tuple[str, str | None]]:
    """(file, None) for each suite; in directories, the *.yaml/*.yml/*.json files that declare
    kind: TestSuite; (path, why) for a path that does not exist."""
    found: list[tuple[str, str | None]] = []
    for raw in paths:
        if raw == "-":
            raise SuiteInputError("-: test suites are read from files (their paths are relative to the file)")
        directory = Path(raw).is_dir()
        found.extend((path, problem) for path, problem in loading.expand_paths([raw])
                     if problem or not directory or _declares_suite(path))
    unique: dict[Path, tuple[str, str | None]] = {}
    for path, problem in found:
        unique.setdefault(Path(path).resolve(), (path, problem))
    return list(unique.values())


def _declares_suite(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            head = file.read(loading.max_input_bytes + 1)
    except OSError:
        return True  # unreadable: report it rather than skip it silently
    if len(head) > loading.max_input_bytes:
        return True  # too large to be read: report it rather than skip it silently
    return bool(_SUITE_MARKER.search(head.decode("utf-8", errors="replace")))


@dataclass(frozen=True)
class Cluster:
    """The command line's cluster: a suite's kubernetesVersion, featureGates and namespace go over it."""

    version: str = DEFAULT_VERSION
    gates: dict[str, bool] = field(default_factory=dict)
    namespace: str = DEFAULT_NAMESPACE
    field_validation: str = admit.STRICT
    runtime_config: str = ""  # kube-apiserver --runtime-config
    ignore_warnings: tuple[str, ...] = ()  # --ignore-warning codes
    drivers: DriverSource = DriverSource()  # --driver-profiles and the other driver profile flags
    suite_root: str | None = None  # --suite-root: what references may read (default: each suite's directory)

    def for_suite(self, suite: TestSuite) -> tuple[Profile, str]:
        gates = {**self.gates, **(suite.feature_gates or {})}
        apis = ",".join(part for part in (self.runtime_config, suite.runtime_config or "") if part)  # the suite's last
        return (make_profile(suite.kubernetes_version or self.version, gates, runtime_config=apis,
                             drivers=self.drivers),
                suite.namespace or self.namespace)


def run(paths: list[str], warnings_as_errors: bool = False, cluster: Cluster = Cluster(),
        now: datetime | None = None) -> list[Result]:
    """One Result per test (and per unusable suite). Raises SuiteInputError for stdin."""
    cache = FileCache()
    results: list[Result] = []
    for path, problem in find_suites(paths):
        if problem is not None:
            results.append(Result(path, "(load suite)", ERROR, "invalid suite", messages=[Message(problem)]))
            continue
        results.extend(run_suite(path, warnings_as_errors, cache, cluster, now))
    return results


def run_suite(path: str, warnings_as_errors: bool = False, cache: FileCache | None = None,
              cluster: Cluster = Cluster(), now: datetime | None = None) -> list[Result]:
    suite, node, errors = _load_suite(path)
    group = suite.name if suite and suite.name else path
    if suite is not None:
        try:
            profile, namespace = cluster.for_suite(suite)
        except ProfileError as exc:
            key = ("runtimeConfig" if "--runtime-config" in str(exc) and suite.runtime_config
                   else "featureGates" if suite.feature_gates else "kubernetesVersion")
            errors.append(Message(str(exc), line=line_of(node, (key,))))
            suite = None
    if suite is None:
        first = min((m.line for m in errors if m.line), default=None)
        return [Result(path, "(load suite)", ERROR, "invalid suite", line=first,
                       group=group, messages=errors)]
    root = Path(cluster.suite_root) if cluster.suite_root else None
    files = _Files(Path(path).parent, FileCache() if cache is None else cache, root)
    return [_run_test(test, path, group, line_of(node, ("tests", index)), files, warnings_as_errors, profile,
                      namespace, now, cluster.field_validation, _inline(node, index),
                      cluster.ignore_warnings)
            for index, test in enumerate(suite.tests)]


def _inline(node: yaml.Node | None, index: int) -> dict[str, yaml.Node]:
    """The composed `object` and `review` written in the suite for test `index` (positions of causes)."""
    found = {key: positions.node_at(node, ["tests", index, key]) for key in ("object", "review")}
    return {key: value for key, value in found.items() if isinstance(value, yaml.MappingNode)}


def _load_suite(path: str) -> tuple[TestSuite | None, yaml.Node | None, list[Message]]:
    try:
        text = loading.read_text(path)
    except loading.InputError as exc:
        return None, None, [Message(str(exc))]
    try:
        nodes = list(yamlload.compose_all(text))
        value = yamlload.build(nodes[0]) if len(nodes) == 1 else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        return None, None, [Message(f"cannot parse: {problem}" + (f" (line {line})" if line else ""), line=line)]
    except RecursionError:
        return None, None, [Message("cannot parse: nested too deeply")]
    if len(nodes) > 1:
        return None, None, [Message("cannot parse: a suite file holds one YAML document, found more",
                                    line=nodes[1].start_mark.line + 1)]
    node = nodes[0] if nodes else None
    suite, problems = validate(value)
    return suite, node, [Message(message, line=line_of(node, loc)) for loc, message in problems]


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


class FileCache:
    """What the suites of one run read, once per file: its documents, and where each is written."""

    def __init__(self) -> None:
        self.documents: dict[Path, list[Any]] = {}
        self.chunks: dict[Path, list[loading.Chunk] | None] = {}
        self.written: dict[tuple[Path, int], tuple[str, yaml.Node | None, int, int] | None] = {}


class _Files:
    """Resolves `object`, `oldObject` and `review` references relative to the suite, confined to `root`
    (confined.py); each file is read and parsed once per run, and composed once for positions."""

    def __init__(self, base: Path, cache: FileCache, root: Path | None = None):
        self.base, self.cache, self.root = base, cache, root if root is not None else base
        self.resolved: dict[str, tuple[Path, int]] = {}  # reference -> (real path, the document it resolved to)

    def written(self, source: Any) -> tuple[str, yaml.Node | None, int, int] | None:
        """Where a resolved reference's document is written: (file, composed root, first line, column)."""
        if not isinstance(source, str) or source not in self.resolved:
            return None
        key = self.resolved[source]
        if key not in self.cache.written:
            self.cache.written[key] = self._place(source, *key)
        return self.cache.written[key]

    def _place(self, source: str, path: Path, index: int) -> tuple[str, yaml.Node | None, int, int] | None:
        match = _DOCUMENT_INDEX.match(source)
        shown = str(self.base / (match["path"] if match else source))
        if path not in self.cache.chunks:
            try:
                self.cache.chunks[path] = list(sources.chunks(str(path), loading.read_text(str(path))))
            except loading.InputError:
                self.cache.chunks[path] = None
        chunks = self.cache.chunks[path]
        if chunks is None or index >= len(chunks):
            return None
        chunk = chunks[index]
        return shown, positions.root_node(chunk.text), chunk.line, chunk.column

    def resolve(self, source: Any, key: str) -> Any:
        if isinstance(source, dict):
            return copy.deepcopy(source)
        match = _DOCUMENT_INDEX.match(source)
        reference, index = (match["path"], parse_decimal(match["index"], max_digits=9)) if match else (source, None)
        shown = reference
        try:
            path = confined.resolve(self.root, self.base, reference)
        except confined.OutsideRoot as exc:
            raise loading.InputError(f"{key}: {shown}: refused: {exc}") from None
        except confined.Unreadable as exc:
            raise loading.InputError(f"{key}: {self.base / reference}: {exc}") from None
        if match and index is None:  # more documents than any file holds: never converted
            digits = match["index"]
            number = digits if len(digits) <= 20 else f"{digits[:12]}... ({len(digits):,} digits)"
            raise loading.InputError(f"{key}: {shown} has no document at index {number}")
        if path not in self.cache.documents:
            try:
                self.cache.documents[path] = sources.read_documents(str(path))
            except loading.InputError as exc:
                raise loading.InputError(f"{key}: {shown}: {exc}") from None
        documents = self.cache.documents[path]
        if index is None:
            present = [i for i, doc in enumerate(documents) if doc is not None]
            if len(present) != 1:
                raise loading.InputError(f"{key}: {shown} holds {len(present)} documents; "
                                        f"pick one with {shown}#<index>")
            index = present[0]
        elif index >= len(documents) or documents[index] is None:
            raise loading.InputError(f"{key}: {shown} has no document at index {index}")
        self.resolved[source] = (path, index)
        document = documents[index]
        if not isinstance(document, dict):
            raise loading.InputError(f"{key}: {source} is not an object (a mapping)")
        return copy.deepcopy(document)


def _run_test(test: TestCase, path: str, group: str, line: int | None, files: _Files, warnings_as_errors: bool,
              profile: Profile, namespace: str, now: datetime | None,
              field_validation: str = admit.STRICT, inline: dict[str, yaml.Node] | None = None,
              ignored: tuple[str, ...] = ()) -> Result:
    started = time.perf_counter()
    where = dict(line=line, group=group)
    try:
        body = _review_body(test, files, str(uuid.uuid5(_UID_NAMESPACE, f"{path}:{test.name}")))
        request = decode_review(body)
    except (loading.InputError, ReviewError) as exc:
        return Result(path, test.name, ERROR, "error", **where, messages=[Message(str(exc))],
                      seconds=time.perf_counter() - started)
    if test.review is not None:  # a recorded request: the cluster already placed and served it
        response = admit.review(request, profile=profile, now=now)
    else:
        response = admit.review_manifest(request, profile=profile, namespace=namespace, now=now,
                                         field_validation=field_validation)
    defaulted = request.object
    if response.patch and isinstance(request.object, dict):
        defaulted = jsonpatch.apply_patch(request.object, response.patch)
    wire = response.to_dict()
    wire.pop("patch", None)
    wire.pop("patchType", None)
    source = test.review if test.review is not None else test.object
    referenced = request.object if isinstance(source, str) else NOT_REFERENCED  # read from a file it names
    problems = check(test.expect, wire, defaulted, warnings_as_errors, ignored, referenced)
    return Result(path, test.name, FAILED if problems else PASSED, "failed" if problems else "passed", **where,
                  messages=_placed(problems, wire, test, files, inline or {}),
                  warnings=heeded(list(response.warnings), ignored),
                  response=wire,
                  patch=response.patch if response.allowed else None, seconds=time.perf_counter() - started)


def _placed(problems: list[str], wire: dict, test: TestCase, files: _Files,
            inline: dict[str, yaml.Node]) -> list[Message]:
    """The problems, and the causes of an unexpected denial, at their fields where the test's object is
    written (the suite itself, or the file it names)."""
    messages = [Message(p) for p in problems]
    if any(p.startswith("expected allowed, got denied") for p in problems):
        messages += positions.denial_causes(wire.get("status") or {})
    if not any(m.field or m.text.startswith(("missing cause ", "unexpected cause ")) for m in messages):
        return messages
    key = "review" if test.review is not None else "object"
    if key in inline:
        file, root, line, column = None, inline[key], 1, 0
    else:
        written = files.written(test.review if key == "review" else test.object)
        if written is None:
            return messages
        file, root, line, column = written
    root = positions.recorded_object(root) if key == "review" else root
    return positions.place_messages(messages, root, file, line, column)


def _review_body(test: TestCase, files: _Files, uid: str) -> dict:
    if test.review is not None:
        body = files.resolve(test.review, "review")
        if body.get("kind") != "AdmissionReview":
            raise loading.InputError("review: not an AdmissionReview (use 'object' for a bare object)")
        return body
    obj = files.resolve(test.object, "object") if test.object is not None else None
    old = files.resolve(test.old_object, "oldObject") if test.old_object is not None else None
    if obj is not None and obj.get("kind") == "AdmissionReview":
        raise loading.InputError("object: is an AdmissionReview; use 'review' for a whole request")
    return loading.as_review(obj, uid=uid, operation=test.effective_operation, old=old,
                             sub_resource=test.sub_resource or "")
