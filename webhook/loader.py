"""Offline inputs: files, directories and stdin, as JSON or (multi-document) YAML.

Every document becomes one `Document`: an AdmissionReview used as is, or a bare object wrapped as
a CREATE review. `List` kinds are expanded item by item. A document that cannot be read or parsed
becomes a `Document` with an `error`, so the other documents are still reported.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import yaml

SUFFIXES = (".yaml", ".yml", ".json")


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML loading that keeps timestamps as strings, as Kubernetes' YAML-to-JSON step does."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

YamlLoader = _Loader  # for callers that compose documents themselves (to know line numbers)


@dataclass(frozen=True)
class Document:
    source: str
    review: dict | None = None
    error: str | None = None
    manifest: bool = False  # a bare object wrapped as a request, not a recorded AdmissionReview


class InputError(Exception):
    """A path given on the command line cannot be used at all."""


def expand_paths(paths: list[str]) -> list[str]:
    """Files as given; directories recursively, sorted, keeping *.yaml, *.yml and *.json.

    Inside a directory, hidden files and directories (a name starting with '.', such as a virtualenv
    or version-control metadata) are skipped; a hidden path named explicitly is used.
    """
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append("-")
            continue
        path = Path(raw)
        if path.is_dir():
            out.extend(str(p) for p in sorted(path.rglob("*"))
                       if p.is_file() and p.suffix.lower() in SUFFIXES and not _hidden(p.relative_to(path)))
        elif path.exists():
            out.append(raw)
        else:
            raise InputError(f"{raw}: no such file or directory")
    return out


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _parse(text: str, json_first: bool) -> Iterator[Any]:
    """The documents of one file, lazily: those before a YAML syntax error are still yielded."""
    if json_first:
        try:
            yield json.loads(text)
            return
        except ValueError:
            pass  # not JSON after all: YAML is a superset, let its parser explain the problem
    yield from yaml.load_all(text, Loader=_Loader)


def _problem(exc: BaseException) -> str:
    """One line describing why a file could not be read or parsed."""
    if isinstance(exc, yaml.YAMLError):
        return "cannot parse: " + " ".join(str(exc).split())
    if isinstance(exc, RecursionError):
        return "cannot parse: nested too deeply"
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot read: {exc.strerror}"
    return f"cannot read: {exc}"


READ_ERRORS = (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError)


def read_documents(path: str) -> list[Any]:
    """Every document of one file, numbered as in `load` (an empty YAML document is None);
    InputError if the file cannot be read or parsed."""
    try:
        return list(_parse(_read(path), json_first=path.lower().endswith(".json")))
    except READ_ERRORS as exc:
        raise InputError(f"{path}: {_problem(exc)}") from None


def _is_list(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") \
        and isinstance(doc.get("items"), list)


def as_review(doc: Any, *, operation: str = "CREATE", old: Any = None, sub_resource: str = "") -> dict:
    """An AdmissionReview as is; anything else wrapped as a request about that object (CREATE by default).

    `old` becomes request.oldObject. With `doc` None (a DELETE), kind and name come from `old`.
    """
    if isinstance(doc, dict) and doc.get("kind") == "AdmissionReview":
        return doc
    source = doc if doc is not None else old
    group = version = kind = ""
    if isinstance(source, dict):
        api_version = source.get("apiVersion") if isinstance(source.get("apiVersion"), str) else ""
        group, _, version = api_version.rpartition("/")
        kind = source.get("kind") if isinstance(source.get("kind"), str) else ""
    meta = source.get("metadata") if isinstance(source, dict) and isinstance(source.get("metadata"), dict) else {}
    request: dict[str, Any] = {
        "uid": str(uuid.uuid4()),
        "kind": {"group": group, "version": version, "kind": kind},
        "operation": operation,
    }
    if doc is not None:
        request["object"] = doc
    if old is not None:
        request["oldObject"] = old
    if sub_resource:
        request["subResource"] = sub_resource
    if isinstance(meta.get("name"), str):
        request["name"] = meta["name"]
    if isinstance(meta.get("namespace"), str):
        request["namespace"] = meta["namespace"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    return Path(path).read_text(encoding="utf-8")


def load(paths: list[str]) -> Iterator[Document]:
    for path in expand_paths(paths):
        yield from _load_file(path)


def _load_file(path: str) -> Iterator[Document]:
    label = "<stdin>" if path == "-" else path
    next_index = 0  # the index of the document being parsed: the one an error is reported for
    try:
        for index, doc in enumerate(_parse(_read(path), json_first=path.lower().endswith(".json"))):
            next_index = index + 1
            if doc is None:
                continue  # an empty YAML document, e.g. after a trailing '---'
            if _is_list(doc):
                for item_index, item in enumerate(doc["items"]):
                    yield _document(f"{label}#{index}.items[{item_index}]", item)
            else:
                yield _document(f"{label}#{index}", doc)
    except READ_ERRORS as exc:
        # The documents before a syntax error are still reported.
        yield Document(f"{label}#{next_index}", error=_problem(exc))


def _document(source: str, doc: Any) -> Document:
    if not isinstance(doc, dict):
        return Document(source, error=f"not an object: a document must be a mapping, not {type(doc).__name__}")
    return Document(source, review=as_review(doc), manifest=doc.get("kind") != "AdmissionReview")
