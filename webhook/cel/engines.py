"""Which CEL engine answers: the faithful one (cel-expr) or the portable syntax-only one (cel-python)."""

from __future__ import annotations

import threading

ENGINES = ("auto", "cel-expr", "cel-python")
_lock = threading.Lock()
_active: str | None = None


def cel_expr_available() -> bool:
    """The faithful engine needs its own wheel and protobuf; without protobuf it aborts the process."""
    try:
        import google.protobuf.message_factory  # noqa: F401
        from cel_expr_python import cel  # noqa: F401
    except ImportError:
        return False
    return True


def cel_python_available() -> bool:
    from webhook.cel import syntax

    return syntax.available()


def configure(engine: str = "auto") -> str:
    """Selects the engine for this process and returns its name."""
    global _active
    if engine not in ENGINES:
        raise ValueError(f"unknown CEL engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if engine == "auto":
        if cel_expr_available():
            chosen = "cel-expr"
        elif cel_python_available():
            chosen = "cel-python"
        else:
            raise ValueError("no CEL engine available: install cel-expr-python (with protobuf) or cel-python")
    elif engine == "cel-expr" and not cel_expr_available():
        raise ValueError("CEL engine 'cel-expr' is not available on this platform: cel-expr-python and protobuf "
                         "must both be installed; use --cel-engine cel-python or auto")
    elif engine == "cel-python" and not cel_python_available():
        raise ValueError("CEL engine 'cel-python' is not available: install cel-python")
    else:
        chosen = engine
    with _lock:
        _active = chosen
    return chosen


def active_engine() -> str:
    """The engine in use; picked automatically on first use."""
    if _active is None:
        return configure("auto")
    return _active
