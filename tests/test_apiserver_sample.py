"""A fixed-seed sample through the real kube-apiserver 1.36 (tests/apiserver_sample.py): every object's verdict
(dry-run creates and updates, no webhook registered) against our offline verdict for the same profile. Each disagreement
must be one listed in tests/data/apiserver_differences.yaml; the full sample, every release:

    .venv/bin/python tests/apiserver_sample.py --generated 1000
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

import apiserver_sample
import realserver
from upstream import corpus, oracle  # at import: the session moves XDG_CACHE_HOME, where the binaries are found

pytestmark = pytest.mark.upstream

# Small enough for every `make test` (about 10 s warm), large enough to cover each kind: the project's
# tables, the field corpus, the examples and this many generated objects.
GENERATED = 150
SEED = 31


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if realserver.binaries("1.36") is None:
        realserver.skip_or_fail("kube-apiserver 1.36 and etcd are not built")
    return apiserver_sample.run("1.36", GENERATED, SEED, workdir=tmp_path_factory.mktemp("sample"))


def test_sample_is_large_and_covers_every_kind(results):
    assert len(results) >= 200
    updates = [r for r in results if r.source.startswith("update ")]
    assert len(updates) >= 15 and {r.server.allowed for r in updates} == {True, False}
    kinds = Counter(r.kind for r in results)
    assert set(kinds) == set(realserver.RESOURCES), kinds
    # Both verdicts occur for the kinds served by default.
    for kind in ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass"):
        assert {r.server.allowed for r in results if r.kind == kind} == {True, False}, kind


def test_every_disagreement_is_listed_with_its_cause(results):
    print(apiserver_sample.summary("1.36", results))
    unexplained = [apiserver_sample.describe(r) for r in results if not r.agree and apiserver_sample.explain(r) is None]
    assert not unexplained, "\n".join(unexplained)
    used = {tag for r in results if not r.agree for tag in apiserver_sample.explain(r)}
    assert used <= set(apiserver_sample.DIFFERENCES)
    for tag, entry in apiserver_sample.DIFFERENCES.items():
        assert {"what", "upstream", "product"} <= set(entry), tag
    assert sum(r.agree for r in results) >= 0.8 * len(results)


def test_the_oracle_gives_the_real_servers_verdict(results):
    """Oracle drift: upstream's registry code run in process (tests/upstream's oracle, the volume behind the verdict
    differential) against the real kube-apiserver of the same release, on every create of the sample it answered."""
    if oracle.missing("1.36"):
        realserver.skip_or_fail("the 1.36 oracle is not built")
    creates = [r for r in results if not r.source.startswith("update ") and r.server.code not in (0, 404)]
    requests = [corpus.request(r.source, copy.deepcopy(r.obj)) for r in creates]
    assert all(requests) and len(creates) >= 200
    answers = oracle.ask("1.36", requests, namespaces=apiserver_sample.NAMESPACES)
    drift = []
    for r, answer in zip(creates, answers):
        causes = Counter((c.get("field", ""), c.get("reason", "")) for c in answer.get("causes") or [])
        if answer["allowed"] != r.server.allowed or (not answer["allowed"] and causes != r.server.causes):
            drift.append(f"{r.source}: server {r.server.allowed} {dict(r.server.causes)}, "
                         f"oracle {answer['allowed']} {dict(causes)}")
    assert not drift, "\n".join(drift)
