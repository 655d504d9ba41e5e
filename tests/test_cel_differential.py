"""The one-pass estimator against the general one: the same verdict, detail and cost for every expression.

Thousands of generated selectors over `device` (tests/cel_corpus.py) are checked both ways in several
environment flavours. The general way is the estimator the upstream golden tests pin
(test_cel_upstream.py); `benchmarks/cel_differential.py` compares with an older revision as well.
"""

from __future__ import annotations

import pytest
from support import require_faithful_cel  # noqa: E402

require_faithful_cel()

from cel_corpus import expressions  # noqa: E402

from webhook.cel import onepass  # noqa: E402
from webhook.cel.checked import NOTABLE_CALLS, parse  # noqa: E402
from webhook.cel.compiler import _verdict  # noqa: E402
from webhook.cel.environment import Features, get_environment  # noqa: E402
from webhook.cel.verdict import FORBIDDEN, OK  # noqa: E402

CORPUS = expressions(2500)
FLAVOURS = {
    "new": (False, Features()),
    "new-list-type-attributes": (False, Features(list_type_attributes=True)),
    "new-no-consumable-capacity": (False, Features(consumable_capacity=False)),
    "stored": (True, Features()),
}


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_one_pass_gives_the_general_verdicts(flavour):
    env = get_environment(*FLAVOURS[flavour])
    one_pass = 0
    outcomes: dict[str, int] = {}
    for expression in CORPUS:
        for derived in (False, True):
            general = _verdict(expression, env, derived, one_pass=False)
            fast = _verdict(expression, env, derived)
            assert fast == general, (expression, derived)
            outcomes[fast.outcome] = outcomes.get(fast.outcome, 0) + 1
        try:
            onepass.estimate(parse(env.compile(expression).serialize()), env.sizes)
            one_pass += 1
        except (onepass.Unsupported, RuntimeError):  # RuntimeError: does not compile
            pass
    # Not vacuous: a good share takes the one pass, and verdicts of every kind were compared.
    assert one_pass > len(CORPUS) // 4, one_pass
    assert outcomes.get(OK, 0) > 1000 and outcomes.get(FORBIDDEN, 0) > 10 and outcomes.get("invalid", 0) > 500, outcomes


def test_one_pass_declines_what_it_does_not_price():
    env = get_environment(False)
    for expression in ('device.driver.startsWith("a")', "[1, 2].size() > 1", "device.attributes.all(d, true)",
                       'device.driver.matches("a+")', 'quantity("1") == quantity("2")', "dyn(1) == 1",
                       'device.capacity["a"].b == device.capacity["a"].c', "true ? true : false"):
        checked = parse(env.compile(expression).serialize())
        with pytest.raises(onepass.Unsupported):
            onepass.estimate(checked, env.sizes)


def test_calls_the_validators_check_are_named_like_identifiers():
    # onepass declines every identifier-named call, which keeps the literal validators' calls out of it.
    assert all(name.isidentifier() for name in NOTABLE_CALLS)


def test_literals_of_every_kind_are_sized_alike():
    env = get_environment(False)
    for literal in ('"é€"', '"' + "x" * 200 + '"', 'b"\\xff\\x00"', "1u", "-1", "2.5", "null", "true", '""'):
        expression = f'device.attributes["d"].a == {literal}'
        assert _verdict(expression, env) == _verdict(expression, env, one_pass=False), literal


EDGE_CASES = [
    'device.attributes["d"].a[0] == 1',  # index of a dyn value: several overloads, the path changes between them
    'device.attributes["d"].a["k"] == "v"',
    'device.attributes["d"].a[0][1] > 2',
    '-device.attributes["d"].a < 3',
    '!device.attributes["d"].a',
    "has(device.capacity) && has(device.attributes.x)",
    'has(device.capacity["d"].m)',
    '"x" in device.attributes["d"]',
    'device.attributes["d"].a == device.capacity["d"].m',
    'device.attributes["d"].a / 2.0 > 1.0',
    " && ".join(f'device.attributes["d"].a{i} == "{"x" * i}"' for i in range(120)),
    "(" * 30 + "true" + ")" * 30,
    'device.attributes["d"]["' + "é" * 200 + '"] == "' + "x" * 300 + '"',
    "device.attributes[device.driver][device.driver] == device.driver",
]


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_edge_cases_take_the_one_pass_and_agree(flavour):
    env = get_environment(*FLAVOURS[flavour])
    for expression in EDGE_CASES:
        onepass.estimate(parse(env.compile(expression).serialize()), env.sizes)
        for derived in (False, True):
            assert _verdict(expression, env, derived) == _verdict(expression, env, derived, one_pass=False), expression
