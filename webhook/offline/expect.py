"""Compares one admission response with a test's `expect` block; returns what does not match."""

from __future__ import annotations

from collections import Counter
from typing import Any

from webhook.offline.suite_schema import Expect


def check(expect: Expect, response: dict, defaulted: Any, warnings_as_errors: bool = False,
          ignored: tuple[str, ...] = ()) -> list[str]:
    """Every mismatch between `response` (an AdmissionReview response object) and `expect`, one line each.

    `defaulted` is the object after the defaulting patch, for `expect.patched`; warnings whose code is
    `ignored` (--ignore-warning) are no errors with `warnings_as_errors`. An exact `expect.warnings` list
    still sees every warning: it says what the API server answers.
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
        problems.extend(f"patched: {p}" for p in subset_mismatches(expect.patched, defaulted, ""))
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


def subset_mismatches(want: Any, got: Any, where: str) -> list[str]:
    """Where `got` does not contain `want`: mappings by key (extra keys allowed), lists item by item
    with the same length, anything else by equality."""
    here = where or "<object>"
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{here}: expected a mapping, got {_short(got)}"]
        out: list[str] = []
        for key, value in want.items():
            child = f"{where}.{key}" if where else str(key)
            if key not in got:
                out.append(f"{child}: missing (expected {_short(value)})")
            else:
                out.extend(subset_mismatches(value, got[key], child))
        return out
    if isinstance(want, list):
        if not isinstance(got, list):
            return [f"{here}: expected a list, got {_short(got)}"]
        if len(want) != len(got):
            return [f"{here}: expected {len(want)} item(s), got {len(got)}"]
        return [p for i, (w, g) in enumerate(zip(want, got)) for p in subset_mismatches(w, g, f"{where}[{i}]")]
    if want != got or type(want) is not type(got) and not _same_number(want, got):
        return [f"{here}: expected {_short(want)}, got {_short(got)}"]
    return []


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) \
        and not isinstance(b, bool) and a == b


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
