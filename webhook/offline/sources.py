"""Inputs by name: the reader each file gets (Markdown by its blocks, JSON whole, YAML by document), and
the documents of whole inputs for the commands that need every object at once."""

from __future__ import annotations

from typing import Any, Iterator

from webhook.offline import markdown
from webhook.offline.loading import (
    MARKDOWN_SUFFIXES, Chunk, InputError, chunk_values, expand_paths, label, parse, read_text, split,
)


def chunks(path: str, text: str) -> Iterator[Chunk]:
    """The chunks of one input by its name: a Markdown file's blocks, a JSON file whole, YAML by document."""
    if path.lower().endswith(MARKDOWN_SUFFIXES):
        return markdown.chunks(label(path), text)
    return split(label(path), text, json_file=path.lower().endswith(".json"))


def load(paths: list[str]) -> Iterator[tuple[str, Any, str | None]]:
    """Every document of the inputs in order, as (source "file#doc", value, None), or (source, None,
    problem) for what cannot be read or parsed; a whole run reads this way when it needs all objects
    at once (allocate), where review streams chunks instead."""
    for path, problem in expand_paths(paths):
        name = label(path)
        if problem is None:
            try:
                text = read_text(path)
            except InputError as exc:
                problem = str(exc)
        if problem is not None:
            yield name, None, problem
            continue
        for chunk in chunks(path, text):
            if chunk.fragment:
                continue
            try:
                found = parse(chunk)
            except InputError as exc:
                yield f"{name}#{chunk.index}", None, str(exc)
                continue
            for doc in found:
                yield f"{name}#{doc.document}", doc.value, None


def read_documents(path: str) -> list[Any]:
    """Every document of one file by index (an empty document is None), for suites' references;
    InputError if the file cannot be read or parsed."""
    documents: list[Any] = []
    for chunk in chunks(path, read_text(path)):
        values = chunk_values(chunk) if not chunk.fragment else []
        documents.append(values[0][0] if values else None)
    return documents
