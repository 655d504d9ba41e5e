"""What a line break is, once, for every line and column the offline commands report.

A line ends at "\\r\\n", "\\r" or "\\n": YAML 1.2's line breaks, CommonMark's line endings (a Markdown
file as GitHub renders it), and what libyaml counts too. libyaml (YAML 1.1) also ends a line at NEL
(U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029); YAML 1.2, GitHub, editors and
the Markdown splitter do not, so a position read from libyaml's marks in a text holding one of them is
counted again here from the mark's character index (`fix_mark`): the file's lines, not libyaml's.
"""

from __future__ import annotations

import bisect
import re

from yaml.error import Mark

LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Line breaks for libyaml only (YAML 1.1): where its marks' lines and columns must be counted again.
YAML_1_1_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, without their line breaks (a last empty line when it ends with one)."""
    return LINE_BREAK.split(text)


def count_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """How many line breaks `text[start:end]` holds ("\\r\\n" is one)."""
    piece = text[start:end]
    return piece.count("\n") + piece.count("\r") - piece.count("\r\n")


class MarkFixer:
    """Puts the line and column of libyaml's marks for one text right (0-based, like the marks): a no-op
    for a text without NEL, U+2028 or U+2029, which is nearly every text."""

    def __init__(self, text: str) -> None:
        self.active = any(c in text for c in YAML_1_1_ONLY_BREAKS)
        self._starts: list[int] = []
        if self.active:
            self._starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]

    def mark(self, mark):
        """`mark` with its line and column counted from its index (a new mark: libyaml's are read-only)."""
        if not self.active or mark is None or getattr(mark, "index", None) is None:
            return mark
        line = bisect.bisect_right(self._starts, mark.index) - 1
        return Mark(mark.name, mark.index, line, mark.index - self._starts[line], None, None)

    def node(self, root) -> None:
        """Every mark of a composed document (each node once, aliases included)."""
        if not self.active or root is None:
            return
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            node.start_mark, node.end_mark = self.mark(node.start_mark), self.mark(node.end_mark)
            if isinstance(node.value, list):
                for child in node.value:
                    stack.extend(child if isinstance(child, tuple) else (child,))

    def error(self, exc: BaseException) -> None:
        """The marks a YAMLError carries."""
        for name in ("problem_mark", "context_mark"):
            if getattr(exc, name, None) is not None:
                setattr(exc, name, self.mark(getattr(exc, name)))
