"""`dra-webhook review` as a function: paths in, one `Result` per document out, in input order.

Documents are parsed and reviewed in batches, in worker processes with `jobs` > 1: inputs below
PARALLEL_BYTES are cut into `jobs` parts of about equal size, each forked once; larger inputs go to a
pool batch by batch, as they are read. Verdicts are reproducible: a request's uid is derived from the
document's source and the clock is `options.now`.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import chain
from typing import Any, Iterator

from webhook.offline import loading, parallel, positions, readback, sources
from webhook.offline.results import ERROR, FAILED, PASSED, SKIPPED, Message, Result
from webhook.profile import Profile

GROUP = "resource.k8s.io"
VERDICTS = ("allowed", "denied", "unreadable", "skipped")
_UID_NAMESPACE = uuid.UUID("6f1d3c1e-5b8e-4f4a-9a57-2a3d8e6c0b15")  # ours: uids are uuid5(source) under it
_BATCH_BYTES = 256 * 1024
# From this much input on, a pool of worker processes takes batches as they are read; below it the input is
# read whole and cut into parts, one forked process each, which costs less to start (benchmarks/offline.py).
PARALLEL_BYTES = 2 * 1024 * 1024
# Below this much input, forking costs more than the part it takes off this process (benchmarks/offline.py).
SPLIT_BYTES = 128 * 1024
# Reviewed before the parts are forked, to warm this process up for all of them.
WARM_BYTES = 16 * 1024


@dataclass(frozen=True)
class Options:
    profile: Profile
    now: datetime
    namespace: str = "default"
    apply_defaults: bool = True
    kinds: frozenset[str] | None = None  # only these kinds (None: all)
    skip_kinds: frozenset[str] = frozenset()
    cel_engine: str = "auto"
    field_validation: str = "Strict"  # kubectl's --validate, capitalised as the API server's fieldValidation
    namespaces: dict | None = None  # {name: labels} known to exist; None: find them in the inputs
    explain: bool = False  # note what each slice device takes from its node
    from_cluster: bool = False  # objects read back from a cluster: server-set metadata dropped (readback.py)
    # Pickled as it is for worker processes: a Profile pickles itself (Profile.__reduce__).


def default_jobs(paths: list[str]) -> int:
    """The CPUs available for inputs of SPLIT_BYTES and more (stdin counts as large), else 1."""
    total = 0
    for path, problem in loading.expand_paths(paths):
        if path == "-":
            return parallel.available_cpus()
        if problem is None:
            try:
                total += os.stat(path).st_size
            except OSError:
                pass
        if total >= SPLIT_BYTES:
            return parallel.available_cpus()
    return 1


def stable_uid(source: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, source))


def run(paths: list[str], options: Options, jobs: int = 1, progress: parallel.Progress | None = None
        ) -> Iterator[Result]:
    """Results in input order. Files are read one at a time and their documents reviewed in batches (by
    a pool with `jobs` > 1), except that an input below PARALLEL_BYTES is read whole and, from
    SPLIT_BYTES on with `jobs` > 1, cut into parts (`_in_parts`)."""
    texts = _Texts()
    if options.namespaces is None:
        options = replace(options, namespaces=known_namespaces(paths, texts))
    batches = _batches(paths, progress, texts)
    if jobs > 1:
        read, size = [], 0
        for batch in batches:
            read.append(batch)
            size += sum(_text_size(item) for item in batch)
            if size >= PARALLEL_BYTES:
                break
        if size < PARALLEL_BYTES:  # all of the input
            if size >= SPLIT_BYTES and parallel.can_fork():
                yield from _in_parts([item for batch in read for item in batch], options, jobs)
                return
            jobs = 1
        batches = chain(read, batches)
    yield from (result for batch in parallel.ordered(review_batch, batches, options, jobs=jobs,
                                                     initializer=_configure, initargs=(options.cel_engine,))
                for result in batch)


def _in_parts(items: list[loading.Chunk | Result], options: Options, jobs: int) -> Iterator[Result]:
    """The first documents reviewed here, before forking: what they load (modules, schemas, the CEL engine)
    is then loaded once, not once per process, which matters when no CPU is idle. The others in `jobs`
    parts, one process each."""
    _configure(options.cel_engine)
    first = _first(items, WARM_BYTES)
    yield from review_batch(items[:first], options)
    for part in parallel.in_parts(review_batch, _parts(items[first:], jobs), options):
        yield from part


def _text_size(item: loading.Chunk | Result) -> int:
    """The characters of text an item brings (a Result stands for a file that could not be read: none)."""
    return len(item.text) if isinstance(item, loading.Chunk) else 0


def _first(items: list[loading.Chunk | Result], size: int) -> int:
    """How many of `items` (one at least) it takes to reach `size` bytes of text."""
    total = 0
    for count, item in enumerate(items, 1):
        total += _text_size(item)
        if total >= size:
            return count
    return len(items)


def _parts(items: list[loading.Chunk | Result], count: int) -> list[list[loading.Chunk | Result]]:
    """`items` cut into at most `count` consecutive parts of about the same size of text."""
    sizes = [_text_size(item) for item in items]
    share = sum(sizes) / count
    parts: list[list[loading.Chunk | Result]] = [[]]
    done = 0
    for item, size in zip(items, sizes):
        if parts[-1] and done >= share * len(parts) and len(parts) < count:
            parts.append([])
        parts[-1].append(item)
        done += size
    return parts


def _configure(cel_engine: str) -> None:
    if cel_engine != "auto":  # "auto" is resolved on first use, as in the parent
        from webhook import cel

        cel.configure(cel_engine)


class _Texts:
    """Reads each input once more at most: stdin can only be read once, so its text is kept."""

    def __init__(self):
        self.stdin: str | None = None
        self.refused: dict[str, loading.InputError] = {}  # read once only: /dev/zero costs --max-input-bytes

    def read(self, path: str) -> str:
        if path in self.refused:
            raise self.refused[path]
        try:
            if path != "-":
                return loading.read_text(path)
            if self.stdin is None:
                self.stdin = loading.read_text(path)
            return self.stdin
        except loading.InputError as exc:
            self.refused[path] = loading.InputError(str(exc), exc.line)  # kept without its frames (and their data)
            raise


def known_namespaces(paths: list[str], texts: _Texts) -> dict:
    """The namespaces a review knows: a new cluster's, and the core/v1 Namespace objects of the inputs
    (kubectl would create them along with the rest). Only documents that mention Namespace are parsed."""
    from webhook import manifest

    found = []
    for path, problem in loading.expand_paths(paths):
        if problem is not None:
            continue
        try:
            text = texts.read(path)
        except loading.InputError:
            continue
        if "Namespace" not in text:
            continue
        for chunk in sources.chunks(path, text):
            if "Namespace" in chunk.text and not chunk.fragment:
                try:
                    found.extend(doc.value for doc in loading.parse(chunk))
                except loading.InputError:
                    pass
    return manifest.namespaces_in(found)


def _batches(paths: list[str], progress: parallel.Progress | None,
             texts: _Texts) -> Iterator[list[loading.Chunk | Result]]:
    batch: list[loading.Chunk | Result] = []
    size = 0
    for path, problem in loading.expand_paths(paths):
        name = loading.label(path)
        line = None
        if problem is None:
            try:
                text = texts.read(path)
            except loading.InputError as exc:
                problem, line = str(exc), exc.line  # the line of a byte that is not UTF-8
        if problem is not None:
            batch.append(Result(name, "file", ERROR, "unreadable", line=line, messages=[Message(problem)]))
            continue
        if progress is not None:
            progress.add(len(text))
        found = False
        for chunk in sources.chunks(path, text):
            found = True
            batch.append(chunk)
            size += len(chunk.text)
            if size >= _BATCH_BYTES:
                yield batch
                batch, size = [], 0
        if not found and path.lower().endswith(loading.MARKDOWN_SUFFIXES):  # most docs hold no manifest: fine
            batch.append(Result(name, "(Markdown)", SKIPPED, "skipped", messages=[Message("no manifest in it")]))
    if batch:
        yield batch


def review_batch(batch: list[loading.Chunk | Result], options: Options) -> list[Result]:
    out: list[Result] = []
    for item in batch:
        if isinstance(item, Result):
            out.append(item)
            continue
        if item.fragment:  # docs show parts of manifests: counted, never denied
            out.append(Result(item.file, "(fragment)", SKIPPED, "fragment", line=item.line, document=str(item.index),
                              messages=[Message(f"fragment, not checked: {item.fragment}")]))
            continue
        try:
            documents = loading.parse(item)
        except loading.InputError as exc:
            out.append(Result(item.file, "document", ERROR, "unreadable", line=exc.line, document=str(item.index),
                              messages=[Message(str(exc), line=exc.line)]))
            continue
        source = positions.Source(item.text, item.line, item.column)
        for doc in documents:
            try:
                result = review_document(item.file, doc.document, doc.line, doc.value, options)
                out.append(positions.place(result, source))
            except RecursionError:  # parsed, but too deep for what walks it (validation, sizing): that input only
                out.append(Result(item.file, "document", ERROR, "unreadable", line=doc.line, document=doc.document,
                                  messages=[Message("cannot review: nested too deeply", line=doc.line)]))
    return out


def review_document(file: str, document: str, line: int | None, value: Any, options: Options) -> Result:
    """The verdict on one document: an AdmissionReview as recorded, or a bare manifest as kubectl sends it."""
    from webhook import admit
    from webhook.review import ReviewError, decode_review

    started = time.perf_counter()
    where = dict(line=line, document=document)
    not_ours = not_kubernetes(value)
    if not_ours:
        return Result(file, "document", SKIPPED, "skipped", **where, messages=[Message(not_ours)])
    recorded = value.get("kind") == "AdmissionReview"
    source = f"{file}#{document}"
    dumped = [] if recorded else readback.read_back(value)
    if dumped and options.from_cluster:
        value = readback.strip(value)
    body = value if recorded else loading.as_review(value, uid=stable_uid(source))
    try:
        request = decode_review(body)
    except ReviewError as exc:
        return Result(file, "AdmissionReview", ERROR, "unreadable", **where,
                      messages=[Message(f"invalid AdmissionReview: {exc}")])
    name = _label(request)
    skipped = _skip_reason(request, value if not recorded else None, options)
    if skipped:
        return Result(file, name, SKIPPED, "skipped", **where, messages=[Message(skipped)])
    if recorded:
        response = admit.review(request, profile=options.profile, apply_defaults=options.apply_defaults,
                                now=options.now)
    else:
        response = admit.review_manifest(request, profile=options.profile, namespace=options.namespace,
                                         apply_defaults=options.apply_defaults, now=options.now,
                                         field_validation=options.field_validation, namespaces=options.namespaces)
    patch = response.patch if response.allowed else None  # a denied object is not stored: no defaults
    wire = response.to_dict(with_patch=False)  # the patch is reported decoded, not as base64
    notes, context = [], None
    if not recorded:
        from webhook.allocation import poolcheck, slicenotes

        notes = slicenotes.explain(value, options.profile) if options.explain else []
        context = poolcheck.essentials(value)
    warnings = list(response.warnings)
    if dumped and not options.from_cluster and not response.allowed:
        warnings.append(readback.hint(dumped))  # the verdict stays kubectl's; this says why
    return Result(file, name, PASSED if response.allowed else FAILED, "allowed" if response.allowed else "denied",
                  **where, messages=_messages(wire), warnings=warnings, response=wire,
                  patch=patch or None, seconds=time.perf_counter() - started, notes=notes, context=context)


NOT_KUBERNETES = "not a Kubernetes object (no apiVersion, no kind)"


def not_kubernetes(value: Any) -> str:
    """Why a document is none of kubectl's business, or "". A repository holds Helm values, CI workflows, a
    .pre-commit-config.yaml, lists and scalars next to its manifests: no apiVersion and no kind. A Helm
    Chart.yaml has an apiVersion of its own and no kind. Such documents are skipped, never denied; one that
    names resource.k8s.io or one of its kinds is checked, and refused in kubectl's words if it lacks the other."""
    if not isinstance(value, dict) or ("apiVersion" not in value and "kind" not in value):
        return NOT_KUBERNETES
    from webhook.kinds import KINDS

    api_version, kind = value.get("apiVersion"), value.get("kind")
    if "kind" not in value and not (isinstance(api_version, str) and api_version.startswith(GROUP + "/")):
        return f"not a {GROUP} object (apiVersion {api_version!r}, no kind)"
    if "apiVersion" not in value and kind not in KINDS and kind != "AdmissionReview":
        return f"not a {GROUP} object (kind {kind!r}, no apiVersion)"
    return ""


def _skip_reason(request, manifest: dict | None, options: Options) -> str:
    group, kind = request.kind.group, request.kind.kind
    if manifest is not None and (not isinstance(manifest.get("apiVersion"), str) or not manifest.get("kind")):
        return ""  # refused below in kubectl's words
    if group != GROUP:
        return f"not a {GROUP} object"
    if options.kinds is not None and kind not in options.kinds:
        return f"kind {kind} not selected by --kinds"
    if kind in options.skip_kinds:
        return f"kind {kind} skipped by --skip-kinds"
    return ""


def _messages(wire: dict) -> list[Message]:
    if wire.get("allowed"):
        return []
    status = wire.get("status") or {}
    return positions.denial_causes(status) or [Message(status.get("message") or "denied",
                                                       reason=status.get("reason", ""))]


def _label(request) -> str:
    obj = request.object if isinstance(request.object, dict) else (request.old_object or {})
    meta = obj.get("metadata") if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) else {}
    kind = request.kind.kind or "object"
    name = meta.get("name") or meta.get("generateName") or request.name or "<unnamed>"
    operation = request.operation + (f" {request.sub_resource}" if request.sub_resource else "")
    return f"{kind}/{name} ({operation})"
