"""Columns in UTF-16 code units, as GitHub counts them (SARIF 2.1.0's default `columnKind`, and the
runner's and web pages' strings); every other output counts Unicode code points (characters).

A column is counted again from the line as the file holds it, read once per file and only for a file that
is not all ASCII (where both counts agree); a file that cannot be read again (standard input, gone) keeps
its code point columns.
"""

from __future__ import annotations

import bisect

from webhook.offline import loading
from webhook.offline.lines import split_lines


class Columns:
    """The UTF-16 column of a (file, line, code point column), each file read at most once and each line
    scanned at most once (many causes on one long line cost a search each, not the line each)."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}
        self._astral: dict[tuple[str, int], list[int]] = {}

    def column(self, file: str, line: int, column: int) -> int:
        if file not in self._lines:
            self._lines[file] = _lines(file)
        lines = self._lines[file]
        if lines is None or not 0 < line <= len(lines):
            return column
        astral = self._astral.get((file, line))
        if astral is None:  # where the characters past the BMP are, each two code units
            astral = self._astral[(file, line)] = [i for i, c in enumerate(lines[line - 1]) if c > "\uffff"]
        return column + bisect.bisect_left(astral, column - 1)


def _lines(file: str) -> list[str] | None:
    if file == loading.STDIN:
        return None
    try:
        text = loading.read_text(file)
    except loading.InputError:
        return None
    return None if text.isascii() else split_lines(text)
