"""Golden cases ported from dynamic-resource-allocation v0.35.0 cel/compile_test.go (TestCEL): Kubernetes 1.35.

1.35 has no DRAListTypeAttributes: attribute values are `any`, and no `includes()` exists even for stored
expressions (upstream's default environment type here). Expected compile errors are substrings,
expected costs exact. The same table, run under the 1.36 environment with the gate off, must agree:
that is what `--kubernetes-version 1.35` reuses.
"""

from __future__ import annotations

import pytest
from support import require_faithful_cel  # noqa: E402

require_faithful_cel()

from webhook import cel  # noqa: E402
from webhook.cel.compiler import check  # noqa: E402
from webhook.cel.verdict import FORBIDDEN, INVALID, OK  # noqa: E402
from webhook.profile import make_profile  # noqa: E402

SELECTOR_EXPRESSION_MAX_COST = 1_000_000

# (name, expression, new expressions?, DRAConsumableCapacity, compile error, cost)
UPSTREAM_CASES_1_35 = [
    ('true', 'true', False, False, None, 0),
    ('false', 'false', False, False, None, 0),
    ('syntax-error', '?!', False, False, 'Syntax error', 0),
    ('type-error', '1', False, False, 'must evaluate to bool or the unknown type, not int', 0),
    ('runtime-error-lookup-identifier', 'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', False, False, None, 6),
    ('runtime-error-lookup-map', 'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', False, False, None, 6),
    ('domain-check-negative', '"no-such-domain" in device.attributes', False, False, None, 3),
    ('domain-check-positive', '"dra.example.com" in device.attributes', False, False, None, 3),
    ('empty-driver-name', 'device.driver == ""', False, False, None, 2),
    ('real-driver-name', 'device.driver == "dra.example.com"', False, False, None, 4),
    ('driver-name-qualifier', 'device.attributes["dra.example.com"].name', False, False, None, 4),
    ('driver-name-qualifier-map-lookup', 'device.attributes["dra.example.com"]["name"]', False, False, None, 4),
    ('bind', 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', False, False, None, 15),
    ('qualified-attribute-name', 'device.attributes["other.example.com"].name', False, False, None, 4),
    ('bool', 'device.attributes["dra.example.com"].name', False, False, None, 4),
    ('int', 'device.attributes["dra.example.com"].name > 0', False, False, None, 5),
    ('string', 'device.attributes["dra.example.com"].name == "fish"', False, False, None, 5),
    ('version', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', False, False, None, 6),
    ('version_v', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', False, False, None, 7),
    ('quantity', 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, None, 6),
    ('check-positive', '"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, None, 10),
    ('check-negative', '!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, None, 11),
    ('all', '\ndevice.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"].bool &&\ndevice.attributes["dra.example.com"].int > 0 &&\ndevice.attributes["dra.example.com"].string == "fish" &&\ndevice.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&\ndevice.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"]["bool"] &&\ndevice.attributes["dra.example.com"]["int"] > 0 &&\ndevice.attributes["dra.example.com"]["string"] == "fish" &&\ndevice.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))\n', False, False, None, 52),
    ('many', 'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c', False, False, None, 12),
    ('check_attribute_domains', 'device.attributes.exists_one(x, x == "dra.example.com")', False, False, None, 164),
    ('check_attribute_ids', 'device.attributes["dra.example.com"].exists_one(x, x == "services")', False, False, None, 133),
    ('split_attribute', 'device.attributes["dra.example.com"].services.split("example").size() >= 2', False, False, None, 19),
    ('regexp_attribute', 'device.attributes["dra.example.com"].services.matches("[^a]?sym")', False, False, None, 18),
    ('check_capacity_domains', 'device.capacity.exists_one(x, x == "dra.example.com")', False, False, None, 164),
    ('check_capacity_ids', 'device.capacity["dra.example.com"].exists_one(x, x == "memory")', False, False, None, 133),
    ('expensive', "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))", False, False, None, 85555551),
    ('allow_multiple_allocations', 'device.allowMultipleAllocations == true', False, True, None, 3),
    ('allow_multiple_allocations_default', 'device.allowMultipleAllocations == false', False, True, None, 3),
    ('allow_multiple_allocations_false', 'device.allowMultipleAllocations == false', False, True, None, 3),
    ('allow_multiple_allocations_new', 'device.allowMultipleAllocations == false', True, True, None, 3),
    ('allow_multiple_allocations_enabled', 'device.allowMultipleAllocations == false', True, True, None, 3),
    ('allow_multiple_allocations_disabled', 'device.allowMultipleAllocations == false', True, False, "undefined field 'allowMultipleAllocations'", 0),
]


@pytest.mark.parametrize(("name", "expression", "new", "consumable", "error", "cost"), UPSTREAM_CASES_1_35,
                         ids=[case[0] for case in UPSTREAM_CASES_1_35])
def test_upstream_1_35_compile_verdict_and_cost(name, expression, new, consumable, error, cost):
    gates = "DRAConsumableCapacity=" + str(consumable).lower()
    features = cel.features_for(make_profile("1.35", gates))
    verdict = check(expression, not new, features)
    if error:
        assert verdict.outcome == INVALID
        assert error in verdict.detail
        return
    assert verdict.cost == cost
    assert verdict.outcome == (FORBIDDEN if cost > SELECTOR_EXPRESSION_MAX_COST else OK), verdict


@pytest.mark.parametrize("expression, message", [
    ('device.attributes["dra.example.com"].name.includes("fish")', "undeclared reference to 'includes'"),
    ('device.attributes["dra.example.com"].names.exists(x, x > 0)', "cannot be the range of a comprehension"),
    ('device.attributes["dra.example.com"].names.all(x, x != "")', "cannot be the range of a comprehension"),
])
@pytest.mark.parametrize("stored", [False, True], ids=["new", "stored"])
def test_1_35_list_attribute_functions_do_not_compile(expression, message, stored):
    """The v0.36 table's list-attribute cases, which 1.35's compiler (values typed `any`) refuses."""
    verdict = check(expression, stored, cel.features_for(make_profile("1.35")))
    assert verdict.outcome == INVALID and message in verdict.detail, verdict
