"""The differential's inputs as oracle requests: the project's own tables (tests/cases_*.py), the field corpus
(tests/data/field), the examples (examples/), and the generated corpus (generate.py).

A request: {"id", "source", "kind", "apiVersion", "operation" (create|update), "subresource", "object",
"oldObject"}; the same dict goes to the oracle and to the product.
"""

from __future__ import annotations

import copy
import importlib
import sys
from pathlib import Path
from typing import Iterator

GROUP = "resource.k8s.io"
KINDS = ("ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass", "DeviceTaintRule",
         "ResourcePoolStatusRequest")
TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
TABLES = ("cases_1_34", "cases_1_35", "cases_1_37")


STORED_TIME = "2025-01-01T00:00:00Z"


def stored(old: dict) -> dict:
    """`old` as the API server keeps it: with a resourceVersion, and every device taint with the timeAdded that
    defaulting gave it on create.
    (An update compares old and new taints; an old object without it cannot exist in a cluster, and the clock
    would decide.)"""
    old = copy.deepcopy(old)

    def fill(taint: object) -> None:
        if isinstance(taint, dict) and "timeAdded" not in taint:
            taint["timeAdded"] = STORED_TIME

    if isinstance(old.get("metadata"), dict):
        old["metadata"].setdefault("resourceVersion", "1")
    spec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
    if old.get("kind") == "DeviceTaintRule":
        fill(spec.get("taint"))
    for device in spec.get("devices") or [] if isinstance(spec.get("devices"), list) else []:
        if isinstance(device, dict) and isinstance(device.get("taints"), list):
            for taint in device["taints"]:
                fill(taint)
    return old


def request(source: str, obj: dict, old: dict | None = None, subresource: str = "") -> dict | None:
    """The oracle request for a manifest (None when it is not one of the six kinds of resource.k8s.io)."""
    if not isinstance(obj, dict) or obj.get("kind") not in KINDS:
        return None
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str) or not api_version.startswith(GROUP + "/"):
        return None
    out = {"id": source, "source": source.split(":", 1)[0], "kind": obj["kind"], "apiVersion": api_version,
           "operation": "update" if old is not None else "create", "object": obj}
    if old is not None:
        out["oldObject"] = stored(old) if isinstance(old, dict) else old
    if subresource:
        out["subresource"] = subresource
    return out


def tables() -> Iterator[dict]:
    """Every case of the project's version tables: the object, its old object and subresource when an update."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    for module_name in TABLES:
        module = importlib.import_module(module_name)
        for case in module.CASES:
            req = request(f"tables:{module_name}:{case.name}", copy.deepcopy(case.obj),
                          copy.deepcopy(getattr(case, "old", None)), getattr(case, "sub_resource", ""))
            if req is not None:
                yield req


def _documents(root: Path, pattern: str, source: str) -> Iterator[dict]:
    from webhook.offline import loading, sources

    for path in sorted(root.rglob(pattern)):
        try:
            text = loading.read_text(str(path))
        except loading.InputError:
            continue
        for chunk in sources.chunks(str(path), text):
            if chunk.fragment:
                continue
            try:
                documents = loading.parse(chunk)
            except loading.InputError:
                continue
            for doc in documents:
                rel = path.relative_to(ROOT)
                value = doc.value
                if isinstance(value, dict) and value.get("kind") == "AdmissionReview":  # a recorded request
                    req = _recorded(f"{source}:{rel}#{chunk.index}.{doc.document}", value.get("request"))
                else:
                    req = request(f"{source}:{rel}#{chunk.index}.{doc.document}", value)
                if req is not None:
                    yield req


def _recorded(source: str, review: object) -> dict | None:
    if not isinstance(review, dict) or review.get("operation") not in ("CREATE", "UPDATE"):
        return None
    old = review.get("oldObject") if review.get("operation") == "UPDATE" else None
    return request(source, review.get("object"), old, review.get("subResource") or "")


def namespaces() -> dict[str, dict[str, str]]:
    """The Namespace objects of the field corpus and the examples, {name: labels}: created along with the rest."""
    from webhook import manifest
    from webhook.offline import loading, sources

    found = []
    for root in (TESTS / "data" / "field", ROOT / "examples"):
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".md", ".json") or not path.is_file():
                continue
            try:
                text = loading.read_text(str(path))
            except loading.InputError:
                continue
            if "Namespace" not in text:
                continue
            for chunk in sources.chunks(str(path), text):
                try:
                    found.extend(doc.value for doc in loading.parse(chunk) if not chunk.fragment)
                except loading.InputError:
                    pass
    return {name: dict(labels) for name, labels in manifest.namespaces_in(found).items()}


def field() -> Iterator[dict]:
    yield from _documents(TESTS / "data" / "field", "*.yaml", "field")
    yield from _documents(TESTS / "data" / "field", "*.md", "field")


def examples() -> Iterator[dict]:
    for pattern in ("*.yaml", "*.yml", "*.json", "*.md"):
        yield from _documents(ROOT / "examples", pattern, "examples")
