"""The allocation package's modules import one way (no circle, counting imports inside functions too)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "webhook" / "allocation"


def _imports(path: Path) -> set[str]:
    """The sibling modules a module imports, wherever in it the import stands."""
    return _imports_in(path.read_text(), {p.stem for p in PACKAGE.glob("*.py")}) - {path.stem}


def _imports_in(source: str, siblings: set[str]) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:  # from . import x, from .x import y
            out |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names if a.name in siblings}
        elif isinstance(node, ast.ImportFrom) and node.module == "webhook.allocation":
            out |= {a.name for a in node.names if a.name in siblings}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("webhook.allocation."):
            out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("webhook.allocation.")}
    return out


def _circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen
    return [(a, b) for a in sorted(graph) for b in sorted(graph[a]) if a < b or a not in graph.get(b, ())
            if a in reach(b)]


def test_the_import_reader_sees_every_form():
    source = ("from webhook.allocation import pods\nfrom webhook.allocation.footprint import x\n"
              "import webhook.allocation.render\nfrom . import inputs\nfrom .results import y\n"
              "def f():\n    from webhook.allocation import state\n")
    assert _imports_in(source, {"pods", "inputs", "state"}) == {"pods", "footprint", "render", "inputs", "results",
                                                                 "state"}


def test_the_graph_reader_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [("a", "b"), ("b", "c"), ("c", "a")]


def test_allocation_modules_import_one_way():
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    assert graph["nodeallocatable"] and graph["results"]  # the reader sees the imports
    assert _circles(graph) == []
