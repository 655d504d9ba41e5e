"""Strings from the inputs made safe to print: one rule for every output format of the offline commands.

Names, file names, field paths, values and messages come from files a pull request may have written.
Printed raw, a line break forges a report line or a GitHub workflow command (`::add-mask::`), an escape
sequence drives the terminal, a bidirectional override reorders what a reader sees, and a control
character makes JUnit XML unreadable. `visible` writes each of them as an escape instead.
"""

from __future__ import annotations

import re

# What a reader cannot see or that changes what the rest looks like: C0 and C1 controls and DEL; every
# format character (Unicode category Cf: the soft hyphen, zero-width space and joiners, word joiner,
# invisible operators, the bidirectional marks, embeddings, overrides and isolates, U+180E, the BOM,
# interlinear annotation, tag characters); the line and paragraph separators; the rest of Unicode's
# Default_Ignorable_Code_Point (combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
# Mongolian and other variation selectors, the unassigned U+2065, U+FFF0-U+FFF8, U+E0000-U+E0FFF); and
# lone surrogates (a file name that is not UTF-8, a JSON "\ud800"). Category Cf is listed as Unicode 15
# has it, so a Python with an older Unicode database still escapes the newer ones.
_INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
_SHORT = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def visible(text: str) -> str:
    """`text` with every control, format, invisible and surrogate character written as an escape: `\\n`,
    `\\x1b`, `\\u202e`, `\\u200b`, `\\U000e0041`; the rest (any other Unicode) as it is."""
    return _INVISIBLE.sub(_escape, text)


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code in _SHORT:
        return _SHORT[code]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class Lines:
    """A text stream for reports written a line at a time: each write's text is made visible, its final
    line break kept (it is the report's own)."""

    def __init__(self, out) -> None:
        self.out = out

    def write(self, text: str) -> None:
        body = text.removesuffix("\n")
        self.out.write(visible(body) + text[len(body):])
