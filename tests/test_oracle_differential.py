"""The product's verdicts against upstream's own registry code (tests/upstream/oracle), per release: the project's
tables, the field corpus, the examples, a sample of the decoding corpus and a fixed-seed sample of the generated
corpus, with the release's default gates and with every DRA gate on. Every disagreement must be listed in
tests/upstream/known-differences.yaml with its upstream cause; the full corpora run with
`python -m tests.upstream.differential` (docs/upstream-differential.md).

Without the oracles (no Go here) the module skips with one line saying how to get them; under CI=true it fails.
"""

from __future__ import annotations


import pytest

from upstream import compare, corpus, differential, oracle
from support import in_ci, need_oracle
from webhook.profile import GATES

# The generated sample per release and gate set in `make test`; the documented command runs 20,000.
SAMPLE = 300
SEED = 1
# Every n-th request of the decoding corpus (nulls, timestamps, tolerations in each version); the command runs all.
DECODING_EVERY = 10


_MISSING = [oracle.missing(release) for release in oracle.RELEASES]
if all(_MISSING):  # no oracle at all: one line, not one per test
    if in_ci():
        pytest.fail(f"CI never skips the upstream differential: {oracle.HOW_TO_GET}", pytrace=False)
    pytest.skip(f"upstream oracles not built: {oracle.HOW_TO_GET}", allow_module_level=True)


@pytest.mark.parametrize("release", oracle.RELEASES)
def test_gates_are_upstreams(release):
    """The profile's DRA gate table is the release's own: names, defaults, locks."""
    need_oracle(release)
    upstream = {g["name"]: (g["default"], g["locked"]) for g in oracle.gates(release)}
    ours = {name: (spec.default, spec.locked) for name, spec in GATES[release].items()}
    assert ours == upstream


@pytest.mark.parametrize("release", oracle.RELEASES)
def test_verdicts_agree_with_upstream(release):
    need_oracle(release)
    report = differential.run((release,), count=SAMPLE, seed=SEED, decoding_every=DECODING_EVERY)
    # Every input set was read and compared (a loader that failed would shrink the corpus without a word).
    assert {key[2] for key in report.counts} == set(differential.SOURCES)
    shown = "\n".join(differential.describe(o) for o in report.unexplained[:20])
    assert not report.unexplained, f"{len(report.unexplained)} verdicts differ from upstream's:\n{shown}"


def test_a_disagreement_is_seen():
    """The comparison can fail: a missing cause, another cause type, a verdict and a warning are each a facet."""
    upstream = {"allowed": False, "code": 422, "causes": [{"field": "spec.a", "reason": "FieldValueInvalid"}],
                "warnings": ["w"]}
    assert compare.facets(upstream, upstream) == []
    ours = {"allowed": False, "code": 422, "causes": [{"field": "spec.a", "reason": "FieldValueRequired"}],
            "warnings": ["dra-webhook: advice"]}
    assert compare.facets(upstream, ours) == [("cause", "upstream", "spec.a", "FieldValueInvalid"),
                                              ("cause", "product", "spec.a", "FieldValueRequired"),
                                              ("warning", "upstream", "w")]
    assert compare.facets(upstream, {"allowed": True}) == [("verdict", 422, 0, "", ""), ("warning", "upstream", "w")]
    decode = {"allowed": False, "code": 400, "message": 'parsing time "x" as "2006-01-02T15:04:05Z07:00"'}
    worded = {"allowed": False, "code": 400, "message": "invalid time"}
    assert compare.facets(decode, worded) == [("verdict", 400, 400, decode["message"], "invalid time")]
    warned = {"allowed": True, "warnings": ['unknown field "spec.b"', "w", 'unknown field "spec.a"']}
    swapped = {"allowed": True, "warnings": ['unknown field "spec.a"', 'unknown field "spec.b"', "w"]}
    assert compare.facets(warned, swapped) == [("warning order", ('unknown field "spec.b"', 'unknown field "spec.a"'),
                                                ('unknown field "spec.a"', 'unknown field "spec.b"'))]


def test_warn_mode_verdicts_agree_with_upstream():
    """fieldValidation=Warn (the API server's default): unknown fields are warnings in the strict decoder's order and
    the object is validated without them; a sample of 1.36 (the command: --field-validation Warn)."""
    need_oracle("1.36")
    report = differential.run(("1.36",), sources=("examples", "generated"), count=SAMPLE, seed=SEED,
                              field_validation="Warn")
    warned = sum(n for key, n in report.counts.items() if key[-1] != "disagree")
    assert warned > SAMPLE
    shown = "\n".join(differential.describe(o) for o in report.unexplained[:20])
    assert not report.unexplained, f"{len(report.unexplained)} verdicts differ from upstream's:\n{shown}"


def test_every_listed_difference_is_explained():
    for entry in compare.load_known():
        assert entry.cause.strip() and entry.why.strip() and entry.patterns, entry.id


@pytest.mark.parametrize("release", oracle.RELEASES)
def test_the_decoding_corpus_rewrites_seeds_faithfully(release):
    """Each seed rewritten into v1beta2 and v1beta1 (tests/upstream/decoding.py) gets from upstream the verdict and
    causes of the v1 seed it came from (with every DRA gate on), and every seed is accepted: what a variant's null or
    timestamp breaks (and what a generated mutation breaks) is the variant's doing, in every version."""
    need_oracle(release)
    from upstream import decoding, seeds

    requests, seed_of = [], []
    for n, (kind, operation, subresource, obj, old) in enumerate(seeds.seeds(release)):
        for version in ("v1", "v1beta2", "v1beta1") if kind in decoding.VERSIONED_KINDS else ():
            new = decoding.in_version(obj, version)
            if operation == "update":
                new["metadata"].setdefault("resourceVersion", "1")
            requests.append(corpus.request(f"{kind}:{operation}/{subresource}", new,
                                           decoding.in_version(old, version) if old else None, subresource))
            seed_of.append(f"{n}:{kind}:{operation}/{subresource}")
    answers = oracle.ask(release, requests, gate_set="all")
    verdicts: dict[str, dict[str, tuple]] = {}
    for seed, request, answer in zip(seed_of, requests, answers):
        causes = tuple(sorted((c["field"], c["reason"]) for c in answer.get("causes") or []))
        verdicts.setdefault(seed, {})[request["apiVersion"].rsplit("/", 1)[1]] = (answer["allowed"], causes)
    assert sum(len(v) == 3 for v in verdicts.values()) >= 10
    for seed, by_version in verdicts.items():
        assert len(set(by_version.values())) == 1, (seed, by_version)
    refused = {seed: by_version for seed, by_version in verdicts.items() if not by_version.popitem()[1][0]}
    assert not refused, refused
