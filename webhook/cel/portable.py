"""The portable engine: length is checked by the caller; here only cel-go's syntax and limits.

Its verdicts always carry a warning, because type and cost checks are skipped.
"""

from __future__ import annotations

from functools import lru_cache

from webhook.cel import syntax

SKIPPED_WARNING = "type and cost checks of CEL selectors were skipped (portable CEL engine)"


@lru_cache(maxsize=4096)
def check(expression: str):
    from webhook.cel.verdict import INVALID, OK, Verdict

    error = syntax.syntax_error(expression)
    if error is not None:
        return Verdict(INVALID, "compilation failed: " + error)
    return Verdict(OK, warning=SKIPPED_WARNING)
