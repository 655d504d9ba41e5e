"""Selectors evaluate under the scheduler's limits, not the engine's.

The scheduler stops a selector only at its runtime cost limit (1,000,000); cel-expr-python's engine
stops every evaluation after 10,000 comprehension iterations and failed valid selectors with
"Iteration budget exceeded". Each selector below iterates more than that, has an estimated cost within
the scheduler's limit (so the scheduler evaluates it), and is checked against what it means.
"""

from __future__ import annotations

import pytest

from allocation_objects import claim, device_class, gpu, node, request, resource_slice
from test_allocate_cli import allocate_json
from webhook.cel import evaluation as ev
from webhook.cel import unrolled

D = 'device.attributes["gpu.example.com"]'
# 28 attributes: three nested comprehensions over them iterate up to 28**3 + 28**2 + 28 = 22,764 times
# (about half that when the innermost is an `exists` that stops at the k-th attribute).
WIDE = {"name": "gpu-0", "attributes": {f"a{i}": {"int": i} for i in range(28)}}


def numbers(n: int) -> str:
    return "[" + ",".join(str(i) for i in range(n)) + "]"


def matches(expression: str, device: dict = WIDE) -> bool:
    selector = ev.selector(expression)
    assert selector.cost <= ev.RUNTIME_COST_LIMIT  # the API server admits it, the scheduler evaluates it
    return selector.matches(ev.device_input("gpu.example.com", device))


def iterations_over_the_engines_limit(expression: str) -> None:
    """The engine alone stops it: the premise of the tests below."""
    program = ev.selector(expression)._program
    try:
        value = program.eval(data={"device": ev.device_input("gpu.example.com", WIDE)}).value()
    except Exception as error:  # noqa: BLE001 - the engine reports it either way
        value = error
    assert "Iteration budget exceeded" in str(value)


@pytest.mark.parametrize("expression, expected", [
    # Nested comprehensions over a list literal of 150 (each inner one stops at x: 11,325 iterations).
    (f"{numbers(150)}.all(x, {numbers(150)}.exists(y, y == x))", True),
    (f"{numbers(150)}.exists(x, {numbers(150)}.all(y, y < x))", False),
    # Three nested comprehensions over the attributes of one domain.
    (f"{D}.all(k, {D}.all(j, {D}.exists(i, {D}[i] == {D}[k])))", True),
    (f"{D}.exists(k, {D}.exists(j, {D}.exists(i, {D}[i] > 27)))", False),
    (f"{D}.filter(k, {D}.all(j, {D}.all(i, {D}[i] >= {D}[j] - 27))).size() == 28", True),
    (f"{D}.map(k, {D}.filter(j, {D}.all(i, {D}[i] <= {D}[j] + 27)).size()).all(n, n == 28)", True),
    # Two-variable comprehensions and cel.bind.
    (f"{D}.all(k, v, {D}.all(j, w, {D}.exists(i, u, u == v)))", True),
    (f"cel.bind(n, {D}.size(), {D}.all(k, {D}.all(j, {D}.all(i, {D}[i] < n))))", True),
])
def test_selectors_past_the_engines_iteration_limit_evaluate(expression, expected):
    iterations_over_the_engines_limit(expression)
    assert matches(expression) is expected


def test_errors_inside_comprehensions_behave_as_in_cel():
    # `exists` is true when one element is, whatever the others raise; false && error is false.
    assert matches(f'{D}.all(k, {D}.all(j, {D}.exists(i, i == "a27" || {D}["nope"] == 1)))') is True
    assert matches(f'{D}.all(k, {D}.all(j, {D}.exists(i, {D}["nope"] == 1 || i == "a0")))') is True
    # When nothing decides, the error is the one the engine reports for the same selector in small.
    with pytest.raises(ev.EvaluationError) as small:
        matches(f'{D}.exists(i, {D}["nope"] == 1)')
    with pytest.raises(ev.EvaluationError) as large:
        matches(f'{D}.all(k, {D}.all(j, {D}.exists(i, {D}["nope"] == 1)))')
    assert str(large.value) == str(small.value) and "nope" in str(small.value)


def test_a_selector_above_the_schedulers_cost_limit_says_why_it_is_not_evaluated():
    expression = f"{numbers(400)}.all(x, {numbers(400)}.exists(y, y == x))"
    assert ev.selector(expression).cost > ev.RUNTIME_COST_LIMIT
    with pytest.raises(ev.EvaluationError) as error:
        ev.selector(expression).matches(ev.device_input("gpu.example.com", WIDE))
    assert "runtime cost limit of 1,000,000" in str(error.value)
    assert "Iteration budget" not in str(error.value)


def test_a_long_evaluation_stops_at_the_deadline():
    from webhook.allocation.deadline import Deadline, GaveUp

    # A deadline already past: the first iteration of the unrolled evaluation stops it.
    with pytest.raises(GaveUp):
        ev.selector(f"{D}.all(k, {D}.all(j, {D}.all(i, {D}[i] >= 0)))").matches(
            ev.device_input("gpu.example.com", WIDE), Deadline(1e-9))


def _wide_gpus(count: int) -> list:
    devices = []
    for i in range(count):
        device = gpu(f"gpu-{i}")
        device["attributes"].update({f"a{j}": {"int": j} for j in range(26)})
        devices.append(device)
    return devices


def test_allocate_evaluates_such_a_selector(tmp_path, capsys):
    # 28 attributes per device (model, index and a0..a25): more than 11,000 iterations per device.
    selector = f"{D}.all(k, {D}.all(j, {D}.exists(i, {D}[i] == {D}[k])))"
    objects = [device_class("gpu.example.com", selector), resource_slice("gpus", _wide_gpus(2)), node("node-1"),
               claim("c", request("gpu"))]
    code, report, err = allocate_json(capsys, tmp_path, objects)
    assert code == 0, (report, err)
    assert report["claims"][0]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"


def test_allocate_gives_up_on_long_selectors_at_its_timeout(tmp_path, capsys):
    # 55**3 iterations (estimated cost 875,011), then false, for each of 512 devices: about 40 million
    # iterations in all, seconds on any machine, so a 0.2 s timeout always ends the search.
    selector = f"{numbers(55)}.all(x, {numbers(55)}.all(y, {numbers(55)}.all(z, z >= 0))) && {D}.model == \"h100\""
    assert ev.selector(selector).cost <= ev.RUNTIME_COST_LIMIT
    slices = [resource_slice(f"gpus-{s}", [gpu(f"gpu-{s * 128 + i}") for i in range(128)], pool="node-1", count=4)
              for s in range(4)]
    objects = [device_class("gpu.example.com", selector), *slices, node("node-1"), claim("c", request("gpu"))]
    code, report, err = allocate_json(capsys, tmp_path, objects, "--timeout", "0.2")
    assert code == 3 and report["gaveUp"] and "Traceback" not in err

SMALL = {"name": "gpu-0", "attributes": {"model": {"string": "a100"}, "index": {"int": 3}, "mig": {"bool": True},
                                         **{f"a{i}": {"int": i} for i in range(5)}},
         "capacity": {"memory": {"value": "40Gi"}}}


@pytest.mark.parametrize("expression", [
    f'{D}.exists_one(k, k == "model")',
    f'{D}.exists_one(k, k.startsWith("a"))',
    "[1,2,3].map(x, x > 1, x * 2) == [4, 6]",
    "[1,2,3].filter(x, x % 2 == 1).size() == 2",
    f"{D}.all(k, k in {D})",
    "[[1,2],[3]].map(l, l.map(x, x + 1)) == [[2,3],[4]]",
    "[1,2,3].transformList(i, v, v * i) == [0, 2, 6]",
    "[1,2,3].exists(i, v, i == 2 && v == 3)",
    '[quantity("1Gi"), quantity("2Gi")].all(q, q.isLessThan(device.capacity["gpu.example.com"].memory))',
    "cel.bind(xs, [1, 2, 3], xs.map(x, x * x).exists(y, y == 9))",
    f'[1, 2].all(x, {D}["missing"] == x)',
    f'[1, 2].exists(x, x == 2 || {D}["missing"] == x)',
    "[0, 1].exists(x, 1 / x == 1)",
    "[0, 1].all(x, 1 / x == 1)",
    f"{D}.map(k, {D}[k]).size() == 8",
    "[1u, 2u].all(x, x > 0u)",
    "[1, 2, 3].sortBy(x, -x) == [3, 2, 1]",
    '[b"a", b"b"].exists(x, x == b"b")',
    "[1.5, 2.5].all(x, x > 1.0)",
    '[duration("1s"), duration("3s")].map(d, d + duration("1s")).all(d, d > duration("1s"))',
    '[timestamp("2020-01-01T00:00:00Z")].all(t, t < timestamp("2021-01-01T00:00:00Z"))',
])
def test_the_unrolled_evaluation_answers_as_the_engine(expression):
    """Differential: where the engine can evaluate, the unrolled evaluation gives its answer or error."""
    selector = ev.selector(expression)
    device = ev.device_input("gpu.example.com", SMALL)
    try:
        expected = selector.matches(dict(device))
    except ev.EvaluationError as error:
        expected = str(error)
    value = unrolled.Unrolled(selector._program.serialize(), selector._env, ev._clean).evaluate(dict(device), None)
    assert (value.message if isinstance(value, unrolled.Error) else value) == expected
