"""CEL selector checks. The only package that may import a CEL library.

`validate_selector(expression, path, stored=...)` returns the field errors Kubernetes reports at
`path` (`...selectors[j].cel.expression`). Foundation scope: the byte-length limit only.
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, too_long

SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024


def validate_selector(expression: str, path: Path, *, stored: bool = False) -> ErrorList:
    if len(expression.encode("utf-8", "surrogatepass")) > SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, "", SELECTOR_EXPRESSION_MAX_LENGTH)]
    return []
