"""One verdict against the other: allowed, the response code, the multiset of (field, cause type), warnings.

A disagreement is a list of facets, each one thing only one side says:
  ("verdict", upstream code, product code, upstream message, product message)
                                                allowed/denied or the kind of refusal differ
                                                or the words of a 400
  ("cause", side, field, reason)                a cause only `side` ("upstream" or "product") gives
  ("warning", side, text)                       a warning only `side` gives
  ("warning order", upstream list, product list) the strict decoder's warnings (unknown fields) in another order
The product's own advice (warnings that start "dra-webhook:") is not the API server's and is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

KNOWN = Path(__file__).resolve().parent / "known-differences.yaml"
OWN_WARNING = "dra-webhook:"


def _code(verdict: dict) -> int:
    return 0 if verdict.get("allowed") else int(verdict.get("code") or 0)


def facets(upstream: dict, product: dict) -> list[tuple]:
    """The disagreement of two verdicts; a decode error (400) worded otherwise is one too (the decoder's words
    are all a 400 says: the type error, or every unknown field in upstream's order and form)."""
    out: list[tuple] = []
    up_code, our_code = _code(upstream), _code(product)
    if up_code != our_code or (up_code == 400 and upstream.get("message") != product.get("message")):
        out.append(("verdict", up_code, our_code, str(upstream.get("message") or ""),
                    str(product.get("message") or "")))
    if up_code == our_code == 422:
        theirs = Counter((c["field"], c["reason"]) for c in upstream.get("causes") or [])
        ours = Counter((c["field"], c["reason"]) for c in product.get("causes") or [])
        for (path, reason), n in sorted((theirs - ours).items()):
            out.extend([("cause", "upstream", path, reason)] * n)
        for (path, reason), n in sorted((ours - theirs).items()):
            out.extend([("cause", "product", path, reason)] * n)
    theirs_w = set(upstream.get("warnings") or [])
    ours_w = {w for w in product.get("warnings") or [] if not w.startswith(OWN_WARNING)}
    out.extend(("warning", "upstream", w) for w in sorted(theirs_w - ours_w))
    out.extend(("warning", "product", w) for w in sorted(ours_w - theirs_w))
    theirs_strict, ours_strict = _strict(upstream), _strict(product)
    if theirs_strict != ours_strict and set(theirs_strict) == set(ours_strict):
        out.append(("warning order", tuple(theirs_strict), tuple(ours_strict)))
    return out


def _strict(verdict: dict) -> list[str]:
    """The warnings of fieldValidation=Warn: the strict decoder's errors, in its order."""
    return [w for w in verdict.get("warnings") or [] if w.startswith(('unknown field "', 'duplicate field "'))]


@dataclass
class Known:
    """One entry of known-differences.yaml: the facets it explains, where, and why."""

    id: str
    cause: str
    why: str
    patterns: list[dict]
    releases: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    gate_sets: tuple[str, ...] = ()
    seen: int = field(default=0, compare=False)

    def applies(self, release: str, kind: str, gate_set: str) -> bool:
        return ((not self.releases or release in self.releases) and (not self.kinds or kind in self.kinds)
                and (not self.gate_sets or gate_set in self.gate_sets))

    def explains(self, facet: tuple) -> bool:
        return any(_matches(pattern, facet) for pattern in self.patterns)


def _matches(pattern: dict, facet: tuple) -> bool:
    kind = facet[0]
    if pattern.get("facet", kind) != kind:
        return False
    if kind == "warning order":  # only an entry that names this facet explains it
        return pattern.get("facet") == kind
    if kind == "verdict":
        return (pattern.get("upstream", facet[1]) == facet[1] and pattern.get("product", facet[2]) == facet[2]
                and re.search(pattern.get("upstream_message", ""), facet[3]) is not None
                and re.search(pattern.get("product_message", ""), facet[4]) is not None)
    if pattern.get("side", facet[1]) != facet[1]:
        return False
    if kind == "cause":
        return (re.fullmatch(pattern.get("field", ".*"), facet[2]) is not None
                and pattern.get("reason", facet[3]) == facet[3])
    return re.search(pattern.get("text", ""), facet[2]) is not None


def load_known(path: Path = KNOWN) -> list[Known]:
    if not path.exists():
        return []
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return [Known(id=e["id"], cause=e["cause"], why=e["why"], patterns=e["facets"],
                  releases=tuple(str(r) for r in e.get("releases", ())), kinds=tuple(e.get("kinds", ())),
                  gate_sets=tuple(e.get("gates", ()))) for e in entries]


def explained(found: list[tuple], known: list[Known], release: str, kind: str, gate_set: str) -> list[Known] | None:
    """The entries that explain every facet of a disagreement together, or None if some facet is unexplained."""
    used: list[Known] = []
    applicable = [k for k in known if k.applies(release, kind, gate_set)]
    for facet in found:
        entry = next((k for k in applicable if k.explains(facet)), None)
        if entry is None:
            return None
        if entry not in used:
            used.append(entry)
    return used
