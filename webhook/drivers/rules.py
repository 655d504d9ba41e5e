"""`x-kubernetes-validations` rules of driver profiles: compiled and priced when a profile loads, run per config.

The environment is the CustomResourceDefinition one as far as a driver's configuration needs it:
`self` (the value at the schema node), `oldSelf` (declared; transition rules never run, since a
claim's configuration is only checked when it is created), `params` (`params.featureGates.<Name>`,
the driver's gates with their defaults and the operator's `--driver-feature-gates`), the Kubernetes
libraries of the project's CEL layer (quantity, semver, regex, lists, strings, sets) and cel-go's
`matches()`, which the engine runs with RE2: linear in the text.

Cost (apiextensions-apiserver, as for a CRD): each rule's estimated cost, cel-go's estimator over the
schema's bounds (`sizes.SchemaSizes`), times the number of times the rule can run (the bounds of
the lists and maps above it), must stay within 10,000,000, and all of a kind's rules within
100,000,000. An opaque configuration is at most 10 KiB, which bounds what the schema leaves open.
At runtime the API server stops an evaluation whose actual cost passes 1,000,000 (PerCallLimit); the
engine here counts no actual cost, so a rule estimated above that, for the value at hand, is not run
(`over_call_limit`): run, it could build strings of gigabytes (`'a…'.replace('a', 'a…')` five times over)
that the API server stops.
"""

from __future__ import annotations

import re

from webhook.drivers.schema import Rule, Schema

PER_RULE_COST_LIMIT = 10_000_000  # apiextensions StaticEstimatedCostLimit
PER_KIND_COST_LIMIT = 100_000_000  # apiextensions StaticEstimatedCRDCostLimit
PER_CALL_LIMIT = 1_000_000  # celconfig.PerCallLimit: the API server stops one evaluation past this actual cost
VARIABLES = ("self", "oldSelf", "params")
_OLD_SELF = re.compile(r"\boldSelf\b")
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")


class RulesUnavailable(Exception):
    """The faithful CEL engine (cel-expr-python) is not installed: rules cannot be compiled."""


def _environment():
    from webhook.cel import engines

    if engines.active_engine() != "cel-expr":  # the selectors' engine: rules need the faithful one
        raise RulesUnavailable("they need the cel-expr engine (cel-expr-python with protobuf), and the CEL engine "
                               f"in use is {engines.active_engine()}")
    from webhook.cel.evaluation import rule_environment

    return rule_environment(VARIABLES)


def _estimate(program, node: Schema, sizes=None) -> int:
    """cel-go's estimated maximum cost of one compiled rule at `node` (or for the value `sizes` describes)."""
    from webhook.cel.checked import build, parse
    from webhook.cel.cost import Coster
    from webhook.drivers.sizes import SchemaSizes

    serialized = program.serialize()
    ast = build(parse(serialized), serialized)
    return Coster(ast, sizes or SchemaSizes(node)).cost(ast.root)[1]


def compile_rules(root: Schema) -> list[tuple[tuple, str]]:
    """Compiles every rule under `root` in place; the problems (location, message) of those that fail,
    are not boolean, or cost too much. RulesUnavailable without the faithful engine."""
    env = _environment()
    problems: list[tuple[tuple, str]] = []
    total = 0
    for node, cardinality in _nodes_with_cardinality(root, 1):
        for rule in node.rules:
            try:
                program = env.compile(rule.rule)
            except RuntimeError as error:
                problems.append((rule.location + ("rule",), "compilation failed: " + _clean(str(error))))
                continue
            except TypeError as error:
                problems.append((rule.location + ("rule",), f"compilation failed: {error}"))
                continue
            result = str(program.return_type()).lower()
            if result not in ("bool", "dyn"):  # `self` is dyn, so most results are dyn until evaluated
                problems.append((rule.location + ("rule",), f"must evaluate to a bool, not {result}"))
                continue
            try:
                cost = _estimate(program, node)
            except Exception as error:  # noqa: BLE001 - an estimator gap is the profile's problem, at load
                problems.append((rule.location + ("rule",), f"cost estimation failed: {error}"))
                continue
            rule.cost = cost
            cost = min(cost * cardinality, (1 << 64) - 1)
            if cost > PER_RULE_COST_LIMIT:
                factor = cost / PER_RULE_COST_LIMIT
                problems.append((rule.location + ("rule",), f"estimated rule cost exceeds budget by factor of "
                                                            f"{factor:.3g}x (try simplifying the rule, or adding "
                                                            f"maxItems, maxProperties, and maxLength where arrays, "
                                                            f"maps, and strings are declared)"))
                continue
            total += cost
            rule.program = program
            rule.uses_old_self = bool(_OLD_SELF.search(rule.rule))
    if total > PER_KIND_COST_LIMIT:
        problems.append(((), f"x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema "
                             f"exceeds budget by factor of {total / PER_KIND_COST_LIMIT:.3g}x"))
    return problems


def _clean(text: str) -> str:
    """The engine's message without its status decoration (`INVALID_ARGUMENT: ... [INVALID_ARGUMENT]`)."""
    return _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", text.strip(), count=1))


def _nodes_with_cardinality(node: Schema, cardinality: int):
    """Each node and how many times its rules can run in one configuration (apiextensions' MaxCardinality)."""
    from webhook.drivers.sizes import max_elements

    yield node, cardinality
    for child in node.properties.values():
        yield from _nodes_with_cardinality(child, cardinality)
    for child in (node.items, node.additional):
        if child is not None:
            yield from _nodes_with_cardinality(child, cardinality * max_elements(node))


def over_call_limit(rule: Rule, value) -> str:
    """Why `rule` is not evaluated on `value` here, or "" (see the module's docstring). A rule estimated
    above the limit is estimated again with this value's own sizes, which bound its actual cost."""
    if rule.cost <= PER_CALL_LIMIT:
        return ""
    from webhook.drivers.sizes import ValueSizes

    try:
        cost = _estimate(rule.program, None, ValueSizes(value))
    except Exception:  # noqa: BLE001 - no estimate: not run
        cost = rule.cost
    if cost <= PER_CALL_LIMIT:
        return ""
    return (f"its estimated cost for this value, {cost:,}, is above the API server's runtime limit of "
            f"{PER_CALL_LIMIT:,} per evaluation, which stops it on its actual cost, which this engine does not count")


def default_message(rule: Rule) -> str:
    """ruleMessageOrDefault: the rule's message, else `failed rule: <rule>`."""
    return rule.message or "failed rule: " + " ".join(rule.rule.split())


ENGINE_LIMIT = "Iteration budget exceeded"  # cel-cpp's 10,000 comprehension iterations per evaluation


class EngineLimit(Exception):
    """The engine stopped a rule the API server would have run to the end (within its cost budget)."""


def evaluate(rule: Rule, value, params: dict) -> tuple[bool, str]:
    """(passed, error): `error` is the runtime error's text when the rule could not be evaluated.
    EngineLimit when the engine's own iteration limit stopped it: no verdict about the value."""
    try:
        result = rule.program.eval(data={"self": value, "params": params})
        outcome = result.value()
    except Exception as error:  # noqa: BLE001 - any failure of the engine is this rule's runtime error
        text = _clean(str(error))
        if ENGINE_LIMIT in text:
            raise EngineLimit(text) from None
        return False, text
    if isinstance(outcome, bool):
        return outcome, ""
    if "ERROR" in str(result.type()):
        text = _clean(str(outcome))
        if ENGINE_LIMIT in text:
            raise EngineLimit(text)
        return False, text
    return False, f"rule returned {result.type()}"
