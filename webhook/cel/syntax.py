"""Syntax checks by cel-go's own grammar and limits (`grammar`), linear in the expression's length.

Used by the portable engine for every expression, and by the faithful engine for expressions nested
deeper than its parser allows (32) but maybe within cel-go's limit (250). cel-python's parser is not
used for syntax: its string-literal lexer backtracks exponentially on runs of backslashes.
"""

from __future__ import annotations

from webhook.cel import grammar


def available() -> bool:
    """Whether the portable engine's package is installed (the engine is named after it)."""
    try:
        import celpy  # noqa: F401
    except ImportError:
        return False
    return True


def syntax_error(expression: str) -> str | None:
    """cel-go's parser errors about `expression` (its displayed list), or None when it parses."""
    return grammar.syntax_error(expression)
