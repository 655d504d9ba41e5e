"""Compares one admission response with a test's `expect` block; returns what does not match."""

from __future__ import annotations

from collections import Counter
from typing import Any

from webhook.offline.suite_schema import Expect

NOT_REFERENCED = object()  # the object was written in the suite itself: every value may be shown
_ABSENT = object()


def check(expect: Expect, response: dict, defaulted: Any, warnings_as_errors: bool = False,
          ignored: tuple[str, ...] = (), referenced: Any = NOT_REFERENCED) -> list[str]:
    """Every mismatch between `response` (an AdmissionReview response object) and `expect`, one line each.

    `defaulted` is the object after the defaulting patch, for `expect.patched`; warnings whose code is
    `ignored` (--ignore-warning) are no errors with `warnings_as_errors`. An exact `expect.warnings` list
    still sees every warning: it says what the API server answers. `referenced` is the object as read from
    a file the suite names: a mismatch never prints a value of it that defaulting left as it was (the
    suite did not write it; only what the webhook added or changed is shown).
    """
    problems: list[str] = []
    allowed = bool(response.get("allowed"))
    status = response.get("status") or {}
    message = status.get("message") or ""
    if allowed != expect.allowed:
        got = "allowed" if allowed else "denied" + (f": {message}" if message else "")
        problems.append(f"expected {'allowed' if expect.allowed else 'denied'}, got {got}")
    if expect.causes is not None:
        problems.extend(_check_causes(expect, status))
    if expect.message_contains is not None and expect.message_contains not in message:
        problems.append(f"status message does not contain {expect.message_contains!r}; message: {message!r}")
    warnings = list(response.get("warnings") or [])
    if expect.warnings is not None and warnings != expect.warnings:
        problems.append(f"warnings differ: expected {expect.warnings!r}, got {warnings!r}")
    elif expect.warnings is None and warnings_as_errors and (unexpected := heeded(warnings, ignored)):
        problems.append(f"unexpected warnings (warnings are errors): {unexpected!r}")
    if expect.patched is not None:
        problems.extend(f"patched: {p}" for p in subset_mismatches(expect.patched, defaulted, "", referenced))
    return problems


def heeded(warnings: list[str], ignored: tuple[str, ...]) -> list[str]:
    from webhook.offline.warningcodes import code

    return [w for w in warnings if code(w) not in ignored] if ignored else warnings


def actual_causes(status: dict) -> Counter:
    causes = (status.get("details") or {}).get("causes") or []
    return Counter((c.get("field", ""), c.get("reason", "")) for c in causes)


def _check_causes(expect: Expect, status: dict) -> list[str]:
    want = Counter((c.field, c.reason) for c in expect.causes or [])
    got = actual_causes(status)
    if want == got:
        return []
    problems = [f"missing cause {field or '<no field>'} {reason}" + _times(n)
                for (field, reason), n in sorted((want - got).items())]
    problems += [f"unexpected cause {field or '<no field>'} {reason}" + _times(n)
                 for (field, reason), n in sorted((got - want).items())]
    return problems


def _times(n: int) -> str:
    return f" (x{n})" if n > 1 else ""


def subset_mismatches(want: Any, got: Any, where: str, referenced: Any = NOT_REFERENCED) -> list[str]:
    """Where `got` does not contain `want`: mappings by key (extra keys allowed), lists item by item
    with the same length, anything else by equality. A value of `got` equal to the `referenced` object's
    at the same place (read from a file, unchanged by defaulting) is described, not printed."""
    here = where or "<object>"

    def shown(value: Any) -> str:
        if referenced is not NOT_REFERENCED and referenced is not _ABSENT and value == referenced:
            return f"the value in the referenced file ({_kind(value)}, not shown)"
        return _short(value)

    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{here}: expected a mapping, got {shown(got)}"]
        out: list[str] = []
        for key, value in want.items():
            child = f"{where}.{key}" if where else str(key)
            if key not in got:
                out.append(f"{child}: missing (expected {_short(value)})")
            else:
                out.extend(subset_mismatches(value, got[key], child, _below(referenced, key)))
        return out
    if isinstance(want, list):
        if not isinstance(got, list):
            return [f"{here}: expected a list, got {shown(got)}"]
        if len(want) != len(got):
            return [f"{here}: expected {len(want)} item(s), got {len(got)}"]
        return [p for i, (w, g) in enumerate(zip(want, got))
                for p in subset_mismatches(w, g, f"{where}[{i}]", _below(referenced, i))]
    if want != got or type(want) is not type(got) and not _same_number(want, got):
        return [f"{here}: expected {_short(want)}, got {shown(got)}"]
    return []


def _below(referenced: Any, key: Any) -> Any:
    """The referenced object's value at `key` (_ABSENT where it has none: defaulting added it)."""
    if referenced is NOT_REFERENCED or referenced is _ABSENT:
        return referenced
    if isinstance(key, int):
        return referenced[key] if isinstance(referenced, list) and key < len(referenced) else _ABSENT
    return referenced.get(key, _ABSENT) if isinstance(referenced, dict) else _ABSENT


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if value is None:
        return "null"
    return "a boolean" if isinstance(value, bool) else "a number" if isinstance(value, (int, float)) else "a value"


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) \
        and not isinstance(b, bool) and a == b


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
