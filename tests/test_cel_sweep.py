"""The CEL sweep in `make test`: selector expressions as DeviceClass selectors (new and stored), product against each
release's registry oracle, with the default gates and with every DRA gate on (tests/upstream/celsweep.py).

The inputs: tests/data/cel_sweep_expressions.txt (the typing cases: results that are `any` or `dyn`, capacity next
to has(), flatten next to sortBy, cross-type comparisons, literals with attribute values, includes, type joins) and
the first expressions of the corpus and of its type joins (tests/cel_corpus.py; `python -m tests.upstream.celsweep`
runs 2,500 and 1,500). Any disagreement fails, a refusal upstream does not give first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cel_corpus import expressions, joins
from support import need_oracle, require_faithful_cel

from upstream import celsweep, oracle

require_faithful_cel()

CASES = Path(__file__).resolve().parent / "data" / "cel_sweep_expressions.txt"
CORPUS_SAMPLE = 300
JOINS_SAMPLE = 150


def _cases() -> list[str]:
    return [line for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("release", oracle.RELEASES)
def test_cel_verdicts_agree_with_upstream(release):
    need_oracle(release)
    found = celsweep.sweep((release,), _cases() + expressions(CORPUS_SAMPLE) + joins(JOINS_SAMPLE))
    refused_more = [d for d in found if celsweep.false_positive(d)]
    assert not refused_more, "refused where upstream accepts:\n" + "\n".join(
        f"{d['gates']} {d['id']} {d['expression']!r}: {d['product']['message'][:300]}" for d in refused_more)
    assert not found, "\n".join(f"{d['gates']} {d['id']} {d['expression']!r}: {d['facets']}" for d in found)
