"""Expressions nested deeper than the faithful engine's parser limit (32) but maybe within cel-go's (250).

Kubernetes accepts such expressions, so rejecting them for depth would be wrong. They get cel-go's
grammar and limits (`grammar`); then, as far as the faithful engine can follow:
- nested only through grouping parentheses: the same tree without them (`unparse`) gets every check;
- still too deep: a lower bound of cel-go's cost (`deepcost`: ranges sized by cel-go's own
  estimate, parts that compile alone costed by the engine) refuses what cel-go would refuse;
- then parts that type-check alone, of scalar types and costed once, are written as literals of
  their types (`deepcost.skeleton`), round after round, until the engine can check the rest: its
  verdict, with the rest's cost plus the parts', is the whole's;
- when that cannot be done (a deep part in a ternary's branch or a loop, or one that uses a loop
  variable), type and cost checks are skipped, and the verdict says so.
"""

from __future__ import annotations

from webhook.cel import deepcost, grammar, unparse
from webhook.limits import CEL_SELECTOR_EXPRESSION_MAX_COST as SELECTOR_EXPRESSION_MAX_COST

# Texts of the compiler's nesting errors, e.g. "Exceeded max recursion depth of 32 when parsing" for
# long left-associative chains (`1 + 1 + ... + 1`), which cel-go parses up to depth 250.
_NESTING_ERRORS = ("recursion limit exceeded", "max recursion depth exceeded", "exceeded max recursion depth")
SKIPPED_WARNING = ("CEL selector nests deeper than the faithful engine allows (32 levels): type and cost checks "
                   "were skipped")
MAX_SKELETON_ROUNDS = 10  # cel-go's 250 levels over the engine's 32
_RENDERED_NOTE = " (positions count in the expression without redundant parentheses)"
_SKELETON_NOTE = (" (positions count in the expression with its parts that type-check alone written as literals "
                  "of their types)")


def is_nesting_error(message: str) -> bool:
    lowered = message.lower()
    return any(text in lowered for text in _NESTING_ERRORS)


def check_deep_expression(expression: str, faithful=None, rerender: bool = True, part_cost=None,
                          range_size=None, shallow=None):
    """The verdict for `expression`, which the faithful engine found too deep.

    `faithful(text)` is the faithful engine's verdict for another text (None: syntax only);
    `rerender` is False when `expression` is a rendering already, so this never goes round twice;
    `part_cost(text)` is the faithful engine's cost of a closed part, or None; `range_size(text)` its
    size estimate of a range (`deepcost.lower_bound`); `shallow(text)` the faithful engine's verdict,
    None when `text` is too deep for it as well.
    """
    from webhook.cel.verdict import FORBIDDEN, INVALID, OK, Verdict

    try:
        tree = grammar.parse(expression)
    except grammar.CelSyntaxError as error:
        return Verdict(INVALID, f"compilation failed: {error}")
    if faithful is None:
        return Verdict(OK, warning=SKIPPED_WARNING)
    rendered = unparse.render(tree) if rerender else expression
    if rendered != expression:  # the same tree; if it is still too deep, this runs once more on it
        return _with_note(faithful(rendered), _RENDERED_NOTE)
    others = None
    if part_cost is not None:  # budgets shared by every round; parts beside the highest path in the first only
        part_cost, others = deepcost.PartCosts(part_cost), deepcost.PartCosts(part_cost)
    if range_size is not None:  # shared by every round as well
        range_size = deepcost.PartCosts(range_size, deepcost.MAX_RANGE_COMPILES)
    bound, exact, sizes = deepcost.analyse(tree, part_cost, range_size, others)
    if bound > SELECTOR_EXPRESSION_MAX_COST:
        return Verdict(FORBIDDEN, "too complex, exceeds cost limit", bound)
    verdict, parts_cost = _skeleton_verdict(tree, exact, sizes, part_cost, range_size, shallow)
    if verdict is None:  # the type check could not be done
        return Verdict(OK, warning=SKIPPED_WARNING)
    verdict = _with_note(verdict, _SKELETON_NOTE)
    if verdict.outcome != OK or verdict.cost is None:
        return verdict
    cost = min(verdict.cost + parts_cost, deepcost.MAX_UINT64)  # every part's estimate, and the rest's
    if cost > SELECTOR_EXPRESSION_MAX_COST:
        return Verdict(FORBIDDEN, "too complex, exceeds cost limit", cost)
    return Verdict(OK, "", cost, verdict.warning)


def _with_note(verdict, note: str):
    """A compile error's verdict with `note` after its first line (which text its positions count in)."""
    from webhook.cel.verdict import INVALID, Verdict

    if verdict.outcome == INVALID and verdict.detail.startswith("compilation failed: ERROR: <input>:"):
        first, newline, rest = verdict.detail.partition("\n")
        return Verdict(INVALID, first + note + newline + rest, verdict.cost, verdict.warning)
    return verdict


def _skeleton_verdict(tree, exact, sizes, part_cost, range_size, shallow):
    """(the faithful engine's verdict on the expression with its parts that type-check alone written
    as literals, the parts' total cost), or (None, 0) when it stays too deep. A skeleton still too
    deep is reduced the same way again."""
    total = 0
    for _ in range(MAX_SKELETON_ROUNDS if shallow is not None else 0):
        found = deepcost.skeleton(tree, exact, sizes)
        if found is None:
            break
        text, cost = found
        total = min(total + cost, deepcost.MAX_UINT64)
        tree = grammar.parse(text)
        free, height = deepcost.free_names(tree)
        if height[id(tree)] <= 2 * deepcost.ENGINE_DEPTH:  # else surely too deep: not compiled
            verdict = shallow(text)
            if verdict is not None:
                return verdict, total
        exact = deepcost.exact_parts(tree, part_cost, None, free, height)
        sizes = deepcost.engine_range_sizes(tree, range_size, free) if range_size is not None else {}
    return None, 0
