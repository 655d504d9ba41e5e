"""dynamic-resource-allocation v0.34.0 cel/compile_test.go (TestCEL) under the Kubernetes 1.34 profile.

v0.34.0's table is v0.35.0's (the same file), so the 1.35 port is replayed here with 1.34's features. What
differs is the environment of new expressions: a 1.34 server compiles them at compatibility version
1.33, before cel-go's lists extension (`sort`, `slice`, `flatten`, `distinct`, `reverse`, `lists.range`);
stored expressions keep every library.
"""

from __future__ import annotations

import pytest
from support import require_faithful_cel  # noqa: E402

require_faithful_cel()

from test_cel_upstream_1_35 import SELECTOR_EXPRESSION_MAX_COST, UPSTREAM_CASES_1_35  # noqa: E402

from webhook import cel  # noqa: E402
from webhook.cel.compiler import check  # noqa: E402
from webhook.cel.verdict import FORBIDDEN, INVALID, OK  # noqa: E402
from webhook.profile import make_profile  # noqa: E402


@pytest.mark.parametrize(("name", "expression", "new", "consumable", "error", "cost"), UPSTREAM_CASES_1_35,
                         ids=[case[0] for case in UPSTREAM_CASES_1_35])
def test_upstream_1_34_compile_verdict_and_cost(name, expression, new, consumable, error, cost):
    features = cel.features_for(make_profile("1.34", "DRAConsumableCapacity=" + str(consumable).lower()))
    verdict = check(expression, not new, features)
    if error:
        assert verdict.outcome == INVALID and error in verdict.detail, verdict
        return
    assert verdict.cost == cost
    assert verdict.outcome == (FORBIDDEN if cost > SELECTOR_EXPRESSION_MAX_COST else OK), verdict


@pytest.mark.parametrize("expression", [
    "[3, 1, 2].sort()[0] == 1",
    "[1, 2, 3].slice(0, 1).size() == 1",
    "[[1], [2]].flatten().size() == 2",
    "[1, 1].distinct().size() == 1",
    "[1, 2].reverse()[0] == 2",
    "lists.range(3).size() == 3",
])
def test_lists_extension_new_in_1_35_stored_in_both(expression):
    features_1_34 = cel.features_for(make_profile("1.34"))
    features_1_35 = cel.features_for(make_profile("1.35"))
    new_1_34 = check(expression, False, features_1_34)
    assert new_1_34.outcome == INVALID and "compilation failed" in new_1_34.detail, new_1_34
    assert check(expression, True, features_1_34).outcome == OK
    assert check(expression, False, features_1_35).outcome == OK
