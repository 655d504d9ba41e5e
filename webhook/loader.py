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


@dataclass(frozen=True)
class Document:
    source: str
    review: dict | None = None
    error: str | None = None


class InputError(Exception):
    """A path given on the command line cannot be used at all."""


def expand_paths(paths: list[str]) -> list[str]:
    """Files as given; directories recursively, sorted, keeping *.yaml, *.yml and *.json."""
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append("-")
            continue
        path = Path(raw)
        if path.is_dir():
            out.extend(str(p) for p in sorted(path.rglob("*")) if p.is_file() and p.suffix.lower() in SUFFIXES)
        elif path.exists():
            out.append(raw)
        else:
            raise InputError(f"{raw}: no such file or directory")
    return out


def _parse(text: str, json_first: bool) -> list[Any]:
    if json_first:
        try:
            return [json.loads(text)]
        except ValueError:
            pass  # not JSON after all: YAML is a superset, let its parser explain the problem
    return list(yaml.load_all(text, Loader=_Loader))


def _is_list(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") \
        and isinstance(doc.get("items"), list)


def as_review(doc: Any) -> dict:
    """An AdmissionReview as is; anything else wrapped as a CREATE of that object."""
    if isinstance(doc, dict) and doc.get("kind") == "AdmissionReview":
        return doc
    group = version = kind = ""
    if isinstance(doc, dict):
        api_version = doc.get("apiVersion") if isinstance(doc.get("apiVersion"), str) else ""
        group, _, version = api_version.rpartition("/")
        kind = doc.get("kind") if isinstance(doc.get("kind"), str) else ""
    meta = doc.get("metadata") if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) else {}
    request: dict[str, Any] = {
        "uid": str(uuid.uuid4()),
        "kind": {"group": group, "version": version, "kind": kind},
        "operation": "CREATE",
        "object": doc,
    }
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
        label = "<stdin>" if path == "-" else path
        try:
            docs = _parse(_read(path), json_first=path.lower().endswith(".json"))
        except (OSError, UnicodeDecodeError) as exc:
            yield Document(f"{label}#0", error=f"cannot read: {exc}")
            continue
        except yaml.YAMLError as exc:
            yield Document(f"{label}#0", error="cannot parse: " + " ".join(str(exc).split()))
            continue
        except RecursionError:
            yield Document(f"{label}#0", error="cannot parse: nested too deeply")
            continue
        for index, doc in enumerate(docs):
            if doc is None:
                continue  # an empty YAML document, e.g. after a trailing '---'
            if _is_list(doc):
                for item_index, item in enumerate(doc["items"]):
                    yield _document(f"{label}#{index}.items[{item_index}]", item)
            else:
                yield _document(f"{label}#{index}", doc)


def _document(source: str, doc: Any) -> Document:
    if not isinstance(doc, dict):
        return Document(source, error=f"not an object: a document must be a mapping, not {type(doc).__name__}")
    return Document(source, review=as_review(doc))
