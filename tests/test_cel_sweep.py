"""The CEL sweep in `make test`: selector expressions as DeviceClass selectors (new and stored), product against each
release's registry oracle, with the default gates and with every DRA gate on (tests/upstream/celsweep.py).

The inputs: tests/data/cel_sweep_expressions.txt (the typing cases: results that are `any` or `dyn`, capacity next
to has(), flatten next to sortBy, cross-type comparisons, literals with attribute values, includes) and the first
expressions of the corpus (tests/cel_corpus.py; `python -m tests.upstream.celsweep` runs all 2,500). A refusal
upstream does not give fails; so does any other disagreement not listed in ACCEPTED_OVER_UPSTREAM.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cel_corpus import expressions
from support import need_oracle, require_faithful_cel

from upstream import celsweep, oracle

require_faithful_cel()

CASES = Path(__file__).resolve().parent / "data" / "cel_sweep_expressions.txt"
CORPUS_SAMPLE = 300
# Accepted here, refused upstream (never the other way): a result whose type joins an attribute value's `any`
# with `dyn` inside another type, which the product does not trust the compiler to join as cel-go does.
ACCEPTED_OVER_UPSTREAM = {'(true ? [device.attributes["d"].a] : [dyn(1)])[0]'}


def _cases() -> list[str]:
    return [line for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("release", oracle.RELEASES)
def test_cel_verdicts_agree_with_upstream(release):
    need_oracle(release)
    found = celsweep.sweep((release,), _cases() + expressions(CORPUS_SAMPLE))
    refused_more = [d for d in found if celsweep.false_positive(d)]
    assert not refused_more, "refused where upstream accepts:\n" + "\n".join(
        f"{d['gates']} {d['id']} {d['expression']!r}: {d['product']['message'][:300]}" for d in refused_more)
    other = [d for d in found if d["expression"] not in ACCEPTED_OVER_UPSTREAM]
    assert not other, "\n".join(f"{d['gates']} {d['id']} {d['expression']!r}: {d['facets']}" for d in other)


def test_the_accepted_differences_are_still_seen():
    """Not vacuous: the listed difference is one (so the list shrinks when the product learns it)."""
    need_oracle("1.36")
    found = celsweep.sweep(("1.36",), sorted(ACCEPTED_OVER_UPSTREAM), gate_sets=("default",))
    assert {d["expression"] for d in found} == ACCEPTED_OVER_UPSTREAM
    assert not any(celsweep.false_positive(d) for d in found)
