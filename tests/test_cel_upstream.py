"""Golden cases ported from dynamic-resource-allocation v0.36.0 cel/compile_test.go (TestCEL).

Each upstream case runs once per DRAListTypeAttributes setting unless it pins one, as upstream does;
the ids are upstream's subtest names. Expected compile errors are substrings, expected costs exact.
"""

from __future__ import annotations

import pytest
from support import require_faithful_cel  # noqa: E402

require_faithful_cel()

from webhook.cel.compiler import check  # noqa: E402
from webhook.cel.environment import Features  # noqa: E402
from webhook.cel.verdict import FORBIDDEN, INVALID, OK  # noqa: E402

SELECTOR_EXPRESSION_MAX_COST = 1_000_000

# (name, expression, new expressions?, DRAConsumableCapacity, DRAListTypeAttributes, compile error, cost)
UPSTREAM_CASES = [
    ('true-list-type-attributes-false', 'true', False, False, False, None, 0),
    ('true-list-type-attributes-true', 'true', False, False, True, None, 0),
    ('false-list-type-attributes-false', 'false', False, False, False, None, 0),
    ('false-list-type-attributes-true', 'false', False, False, True, None, 0),
    ('syntax-error-list-type-attributes-false', '?!', False, False, False, 'Syntax error', 0),
    ('syntax-error-list-type-attributes-true', '?!', False, False, True, 'Syntax error', 0),
    ('type-error-list-type-attributes-false', '1', False, False, False, 'must evaluate to bool or the unknown type, not int', 0),
    ('type-error-list-type-attributes-true', '1', False, False, True, 'must evaluate to bool or the unknown type, not int', 0),
    ('runtime-error-lookup-identifier-list-type-attributes-false', 'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', False, False, False, None, 6),
    ('runtime-error-lookup-identifier-list-type-attributes-true', 'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', False, False, True, None, 6),
    ('runtime-error-lookup-map-list-type-attributes-false', 'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', False, False, False, None, 6),
    ('runtime-error-lookup-map-list-type-attributes-true', 'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', False, False, True, None, 6),
    ('domain-check-negative-list-type-attributes-false', '"no-such-domain" in device.attributes', False, False, False, None, 3),
    ('domain-check-negative-list-type-attributes-true', '"no-such-domain" in device.attributes', False, False, True, None, 3),
    ('domain-check-positive-list-type-attributes-false', '"dra.example.com" in device.attributes', False, False, False, None, 3),
    ('domain-check-positive-list-type-attributes-true', '"dra.example.com" in device.attributes', False, False, True, None, 3),
    ('empty-driver-name-list-type-attributes-false', 'device.driver == ""', False, False, False, None, 2),
    ('empty-driver-name-list-type-attributes-true', 'device.driver == ""', False, False, True, None, 2),
    ('real-driver-name-list-type-attributes-false', 'device.driver == "dra.example.com"', False, False, False, None, 4),
    ('real-driver-name-list-type-attributes-true', 'device.driver == "dra.example.com"', False, False, True, None, 4),
    ('driver-name-qualifier-list-type-attributes-false', 'device.attributes["dra.example.com"].name', False, False, False, None, 4),
    ('driver-name-qualifier-list-type-attributes-true', 'device.attributes["dra.example.com"].name', False, False, True, None, 4),
    ('driver-name-qualifier-map-lookup-list-type-attributes-false', 'device.attributes["dra.example.com"]["name"]', False, False, False, None, 4),
    ('driver-name-qualifier-map-lookup-list-type-attributes-true', 'device.attributes["dra.example.com"]["name"]', False, False, True, None, 4),
    ('bind-list-type-attributes-false', 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', False, False, False, None, 15),
    ('bind-list-type-attributes-true', 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', False, False, True, None, 15),
    ('qualified-attribute-name-list-type-attributes-false', 'device.attributes["other.example.com"].name', False, False, False, None, 4),
    ('qualified-attribute-name-list-type-attributes-true', 'device.attributes["other.example.com"].name', False, False, True, None, 4),
    ('bool-list-type-attributes-false', 'device.attributes["dra.example.com"].name', False, False, False, None, 4),
    ('bool-list-type-attributes-true', 'device.attributes["dra.example.com"].name', False, False, True, None, 4),
    ('int-list-type-attributes-false', 'device.attributes["dra.example.com"].name > 0', False, False, False, None, 5),
    ('int-list-type-attributes-true', 'device.attributes["dra.example.com"].name > 0', False, False, True, None, 5),
    ('string-list-type-attributes-false', 'device.attributes["dra.example.com"].name == "fish"', False, False, False, None, 5),
    ('string-list-type-attributes-true', 'device.attributes["dra.example.com"].name == "fish"', False, False, True, None, 5),
    ('macro-exists-on-int-list-type-attributes-true', 'device.attributes["dra.example.com"].name.exists(x, x > 0)', True, False, True, None, 389),
    ('macro-exists-on-bool-list-type-attributes-true', 'device.attributes["dra.example.com"].name.exists(x, x == true)', True, False, True, None, 389),
    ('macro-exists-on-string-list-type-attributes-true', 'device.attributes["dra.example.com"].name.exists(x, x == "fish")', True, False, True, None, 389),
    ('attribute-access-causes-match-error-list-type-attributes-false', 'device.attributes["dra.example.com"].names', False, False, False, None, 4),
    ('list-of-bool-list-type-attributes-true', 'device.attributes["dra.example.com"].names.size() == 2', True, False, True, None, 6),
    ('list-of-int-list-type-attributes-true', 'device.attributes["dra.example.com"].names.size() == 2', True, False, True, None, 6),
    ('list-of-string-list-type-attributes-true', 'device.attributes["dra.example.com"].names.size() == 2', True, False, True, None, 6),
    ('list-of-semver-list-type-attributes-true', 'device.attributes["dra.example.com"].names.size() == 2', True, False, True, None, 6),
    ('macro-on-list-of-int-list-type-attributes-true', 'device.attributes["dra.example.com"].names.exists(x, x > 0)', True, False, True, None, 389),
    ('macro-on-list-of-string-list-type-attributes-true', 'device.attributes["dra.example.com"].names.all(x, x != "")', True, False, True, None, 261),
    ('macro-on-list-of-semver-list-type-attributes-true', 'device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))', True, False, True, None, 389),
    ('includes-function-undeclared-error-list-type-attributes-false', 'device.attributes["dra.example.com"].name.includes("fish")', True, False, False, "undeclared reference to 'includes'", 0),
    ('includes-function-on-bool-scalar-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(true)', True, False, True, None, 52),
    ('includes-function-on-bool-scalar-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(true)', True, False, True, None, 52),
    ('includes-function-on-bool-list-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(true)', True, False, True, None, 52),
    ('includes-function-on-bool-list-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(false)', True, False, True, None, 52),
    ('includes-function-on-int-scalar-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(1)', True, False, True, None, 52),
    ('includes-function-on-int-scalar-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(1)', True, False, True, None, 52),
    ('includes-function-on-int-list-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(1)', True, False, True, None, 52),
    ('includes-function-on-int-list-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(3)', True, False, True, None, 52),
    ('includes-function-on-string-scalar-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("fish")', True, False, True, None, 52),
    ('includes-function-on-string-scalar-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("bird")', True, False, True, None, 52),
    ('includes-function-on-string-list-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("fish")', True, False, True, None, 52),
    ('includes-function-on-string-list-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("cat")', True, False, True, None, 52),
    ('includes-function-on-semver-scalar-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(semver("1.0.0"))', True, False, True, None, 53),
    ('includes-function-on-semver-scalar-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(semver("2.0.0"))', True, False, True, None, 53),
    ('includes-function-on-semver-list-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(semver("1.0.0"))', True, False, True, None, 53),
    ('includes-function-on-semver-list-negative-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes(semver("3.0.0"))', True, False, True, None, 53),
    ('includes-function-on-very-long-list-positive-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("value-48")', True, False, True, None, 52),
    ('includes-function-on-very-long-list-runtime-error-list-type-attributes-true', 'device.attributes["dra.example.com"].name.includes("value-49")', True, False, True, None, 52),
    ('in-operator-on-list-list-type-attributes-true', '1 in device.attributes["dra.example.com"].names', True, False, True, None, 68),
    ('version-list-type-attributes-false', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', False, False, False, None, 6),
    ('version-list-type-attributes-true', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', False, False, True, None, 6),
    ('version_v-list-type-attributes-false', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', False, False, False, None, 7),
    ('version_v-list-type-attributes-true', 'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', False, False, True, None, 7),
    ('macro-exists-on-version-list-type-attributes-true', 'device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))', True, False, True, None, 453),
    ('quantity-list-type-attributes-false', 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, False, None, 6),
    ('quantity-list-type-attributes-true', 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, True, None, 6),
    ('check-positive-list-type-attributes-false', '"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, False, None, 10),
    ('check-positive-list-type-attributes-true', '"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, True, None, 10),
    ('check-negative-list-type-attributes-false', '!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, False, None, 11),
    ('check-negative-list-type-attributes-true', '!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', False, False, True, None, 11),
    ('all-list-type-attributes-false', '\ndevice.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"].bool &&\ndevice.attributes["dra.example.com"].int > 0 &&\ndevice.attributes["dra.example.com"].string == "fish" &&\ndevice.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&\ndevice.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"]["bool"] &&\ndevice.attributes["dra.example.com"]["int"] > 0 &&\ndevice.attributes["dra.example.com"]["string"] == "fish" &&\ndevice.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))\n', False, False, False, None, 52),
    ('all-list-type-attributes-true', '\ndevice.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"].bool &&\ndevice.attributes["dra.example.com"].int > 0 &&\ndevice.attributes["dra.example.com"].string == "fish" &&\ndevice.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&\ndevice.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"]["bool"] &&\ndevice.attributes["dra.example.com"]["int"] > 0 &&\ndevice.attributes["dra.example.com"]["string"] == "fish" &&\ndevice.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))\n', False, False, True, None, 52),
    ('many-list-type-attributes-false', 'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c', False, False, False, None, 12),
    ('many-list-type-attributes-true', 'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c', False, False, True, None, 12),
    ('check_attribute_domains-list-type-attributes-false', 'device.attributes.exists_one(x, x == "dra.example.com")', False, False, False, None, 164),
    ('check_attribute_domains-list-type-attributes-true', 'device.attributes.exists_one(x, x == "dra.example.com")', False, False, True, None, 164),
    ('check_attribute_ids-list-type-attributes-false', 'device.attributes["dra.example.com"].exists_one(x, x == "services")', False, False, False, None, 133),
    ('check_attribute_ids-list-type-attributes-true', 'device.attributes["dra.example.com"].exists_one(x, x == "services")', False, False, True, None, 133),
    ('split_attribute-list-type-attributes-false', 'device.attributes["dra.example.com"].services.split("example").size() >= 2', False, False, False, None, 19),
    ('split_attribute-list-type-attributes-true', 'device.attributes["dra.example.com"].services.split("example").size() >= 2', False, False, True, None, 19),
    ('regexp_attribute-list-type-attributes-false', 'device.attributes["dra.example.com"].services.matches("[^a]?sym")', False, False, False, None, 18),
    ('regexp_attribute-list-type-attributes-true', 'device.attributes["dra.example.com"].services.matches("[^a]?sym")', False, False, True, None, 18),
    ('check_capacity_domains-list-type-attributes-false', 'device.capacity.exists_one(x, x == "dra.example.com")', False, False, False, None, 164),
    ('check_capacity_domains-list-type-attributes-true', 'device.capacity.exists_one(x, x == "dra.example.com")', False, False, True, None, 164),
    ('check_capacity_ids-list-type-attributes-false', 'device.capacity["dra.example.com"].exists_one(x, x == "memory")', False, False, False, None, 133),
    ('check_capacity_ids-list-type-attributes-true', 'device.capacity["dra.example.com"].exists_one(x, x == "memory")', False, False, True, None, 133),
    ('expensive-list-type-attributes-false', "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))", False, False, False, None, 85555551),
    ('expensive-list-type-attributes-true', "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))", False, False, True, None, 85555551),
    ('allow_multiple_allocations-list-type-attributes-false', 'device.allowMultipleAllocations == true', False, True, False, None, 3),
    ('allow_multiple_allocations-list-type-attributes-true', 'device.allowMultipleAllocations == true', False, True, True, None, 3),
    ('allow_multiple_allocations_default-list-type-attributes-false', 'device.allowMultipleAllocations == false', False, True, False, None, 3),
    ('allow_multiple_allocations_default-list-type-attributes-true', 'device.allowMultipleAllocations == false', False, True, True, None, 3),
    ('allow_multiple_allocations_false-list-type-attributes-false', 'device.allowMultipleAllocations == false', False, True, False, None, 3),
    ('allow_multiple_allocations_false-list-type-attributes-true', 'device.allowMultipleAllocations == false', False, True, True, None, 3),
    ('allow_multiple_allocations_new-list-type-attributes-false', 'device.allowMultipleAllocations == false', True, True, False, None, 3),
    ('allow_multiple_allocations_new-list-type-attributes-true', 'device.allowMultipleAllocations == false', True, True, True, None, 3),
    ('allow_multiple_allocations_enabled-list-type-attributes-false', 'device.allowMultipleAllocations == false', True, True, False, None, 3),
    ('allow_multiple_allocations_enabled-list-type-attributes-true', 'device.allowMultipleAllocations == false', True, True, True, None, 3),
    ('allow_multiple_allocations_disabled-list-type-attributes-false', 'device.allowMultipleAllocations == false', True, False, False, "undefined field 'allowMultipleAllocations'", 0),
    ('allow_multiple_allocations_disabled-list-type-attributes-true', 'device.allowMultipleAllocations == false', True, False, True, "undefined field 'allowMultipleAllocations'", 0),
]


@pytest.mark.parametrize(("name", "expression", "new", "consumable", "list_types", "error", "cost"), UPSTREAM_CASES,
                         ids=[case[0] for case in UPSTREAM_CASES])
def test_upstream_compile_verdict_and_cost(name, expression, new, consumable, list_types, error, cost):
    verdict = check(expression, not new, Features(consumable, list_types))
    if error:
        assert verdict.outcome == INVALID
        assert error in verdict.detail
        return
    assert verdict.cost == cost
    assert verdict.outcome == (FORBIDDEN if cost > SELECTOR_EXPRESSION_MAX_COST else OK), verdict


def test_all_upstream_cases_are_ported():
    assert len(UPSTREAM_CASES) == 106
