"""Strings from the inputs made safe to print: one rule for every output format of the offline commands.

Names, file names, field paths, values and messages come from files a pull request may have written.
Printed raw, a line break forges a report line or a GitHub workflow command (`::add-mask::`), an escape
sequence drives the terminal, a bidirectional override reorders what a reader sees, and a control
character makes JUnit XML unreadable. `visible` writes each of them as an escape instead.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional marks, embeddings,
# overrides and isolates, and lone surrogates (a file name that is not UTF-8, a JSON "\ud800").
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
_SHORT = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def visible(text: str) -> str:
    """`text` with every control, bidirectional and surrogate character written as an escape: `\\n`,
    `\\x1b`, `\\u202e`; the rest (any other Unicode) as it is."""
    return _INVISIBLE.sub(_escape, text)


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return _SHORT.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


class Lines:
    """A text stream for reports written a line at a time: each write's text is made visible, its final
    line break kept (it is the report's own)."""

    def __init__(self, out) -> None:
        self.out = out

    def write(self, text: str) -> None:
        body = text.removesuffix("\n")
        self.out.write(visible(body) + text[len(body):])
