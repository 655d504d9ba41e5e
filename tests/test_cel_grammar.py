"""cel-go's grammar and limits (webhook/cel/lexer.py, grammar.py): corpora, a differential fuzz against
the faithful engine's parser, the recursion limits and hostile inputs that once took hours."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from cel_corpus import expressions
from support import require_faithful_cel
from webhook.cel import engines, grammar, lexer

HAS_CEL_EXPR = engines.cel_expr_available()
needs_cel_expr = pytest.mark.usefixtures("faithful_cel")  # a skip only where pyproject.toml does not require it
ROOT = Path(__file__).resolve().parent.parent
CORPUS = expressions(1500)

# The faithful engine's parser-stage complaints (cel-cpp parses and expands macros before checking).
_PARSE_ERRORS = ("Syntax error", "reserved identifier", "simple identifier", "field selection",
                 "invalid int literal", "invalid uint literal", "invalid hex int literal", "Invalid string literal",
                 "Invalid bytes literal", "invalid double literal", "invalid constant literal", "has() macro")


def faithful_parse_error(expression: str) -> str | None | bool:
    """The faithful engine's parse error, None when it parses, False when it cannot say (nesting > 32)."""
    from webhook.cel import depth
    from webhook.cel.environment import Features, get_environment

    env = get_environment(False, Features())
    try:
        env.compile(expression)
    except RuntimeError as error:
        message = str(error)
        if depth.is_nesting_error(message):
            return False
        return message if any(text in message for text in _PARSE_ERRORS) else None
    return None


def _example_selectors() -> list[str]:
    """Every `expression:` in the examples and the string literals of selectors in the CEL tests."""
    import yaml

    found = []
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            stack = [document]
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    for key, value in item.items():
                        if key == "expression" and isinstance(value, str):
                            found.append(value)
                        else:
                            stack.append(value)
                elif isinstance(item, list):
                    stack.extend(item)
    return found


# --- acceptance

def test_every_corpus_expression_that_the_faithful_engine_parses_is_accepted():
    rejected = [e for e in CORPUS if grammar.syntax_error(e) is not None]
    if HAS_CEL_EXPR:  # the corpus holds ill-typed forms, not syntax errors
        rejected = [e for e in rejected if faithful_parse_error(e) is None]
    assert rejected == []


def test_example_selectors_get_the_faithful_parsers_verdict():
    selectors = _example_selectors()
    assert len(selectors) >= 10
    rejected = [s for s in selectors if grammar.syntax_error(s)]
    assert rejected == ["device.driver =="]  # the one deliberately broken example
    if HAS_CEL_EXPR:
        assert [s for s in selectors if faithful_parse_error(s)] == rejected


@pytest.mark.parametrize("expression", [
    'device.attributes["d"].?x.orValue(false)',
    "device.attributes[\"d\"].`my-attr` && device.attributes[\"d\"].`a.b/c d`",
    "device.attributes[?\"d\"].hasValue() && [?optional.none(), 1].size() == 1",
    '{?"k": optional.of(1), "j": 2,}.size() > 0 && [1, 2,].size() == 2',
    "cel.bind(x, 1, x > 0) && [1].all(k, v, k >= 0) && [1].transformList(i, v, v).size() == 1",
    "google.protobuf.Duration{seconds: 1} != .google.protobuf.Duration{?nanos: optional.none(),}",
    'r"\\d" != R\'\\w\' && b"\\xff\\377" != br"x" && """a\n"b""" != \'\'\'c\'\'\'',
    '"\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\"\\\'\\`\\x41\\u00e9\\U0001F600\\101" != ""',
    "0x7fffffffffffffff > -0x8000000000000000 && 18446744073709551615u > 0xffu && .5 < 1e3 && 2.5e-3 > -1.0",
    "!!true && - -1 == 1 && --1 == 1 && !-1.0 == false  // a comment\n && 1 in [1]",
    "a ? b : c ? d : e",
    "cel.bind(!!x, 1, x) && has(--a.b)",  # an even run of `!` or `-` leaves its operand alone
])
def test_cel_go_syntax_is_accepted(expression):
    assert grammar.syntax_error(expression) is None


@pytest.mark.parametrize(("expression", "location", "text"), [
    ("", "1:1", "Syntax error: mismatched input '<EOF>'"),
    ("?!", "1:1", "Syntax error"),
    ("1 +", "1:4", "Syntax error"),
    ("a.\n  b +", "2:6", "Syntax error"),
    ('"abc', "1:1", "token recognition error"),
    ('"\\q"', "1:1", "token recognition error"),
    ('"\\400"', "1:1", "token recognition error"),
    ("`a`", "1:1", "Syntax error"),
    ("a.`b`(1)", "1:6", "Syntax error"),
    ("a.b(c).d{}", "1:9", "Syntax error"),
    ("f(a,)", "1:5", "Syntax error"),
    ("a = b", "1:3", "token recognition error at: '= '"),  # ANTLR shows the character it failed on
    ("if", "1:1", "reserved identifier: if"),
    ("9223372036854775808", "1:1", "invalid int literal"),
    ("--9223372036854775808", "1:3", "invalid int literal"),  # `-9223372036854775808` is valid
    ("!-'a'", "1:3", "Syntax error"),  # only numbers take a sign
    ("18446744073709551616u", "1:1", "invalid uint literal"),
    ('"\\ud800"', "1:1", "invalid unicode code point"),
    ('b"\\u0041"', "1:1", "unable to unescape string"),
    ("x.all(1, true)", "1:7", "argument must be a simple name"),  # cel-go v0.26 parser/macro.go makeQuantifier
    ("has(a)", "1:5", "invalid argument to has() macro"),
])
def test_errors_name_cel_go_locations(expression, location, text):
    error = grammar.syntax_error(expression)
    assert error is not None and error.startswith(f"ERROR: <input>:{location}: ")
    assert text in error


# --- limits (parser.go maxRecursionDepth 250, counted two ways)

@pytest.mark.parametrize(("build", "ok", "over"), [
    (lambda n: "(" * n + "true" + ")" * n, 249, 250),  # the parse listener: `expr` entered n + 1 times
    (lambda n: "[" * n + "]" * n, 250, 251),  # the innermost list holds no `expr`
    (lambda n: "f(" * n + ")" * n, 250, 251),
    (lambda n: "a ? b : " * n + "c", 249, 250),
    (lambda n: "1" + " + 1" * n, 250, 251),  # the visitor: one per operator of a left-deep chain
    (lambda n: "a" + ".b" * n, 250, 251),
    (lambda n: "a" + "[0]" * n, 250, 251),
    (lambda n: "a + b * (" * n + "c" + ")" * n, 83, 84),  # `calc` entered 3 times per level
])
def test_recursion_depth_boundary(build, ok, over):
    assert grammar.syntax_error(build(ok)) is None
    error = grammar.syntax_error(build(over))
    assert error is not None and "recursion" in error


# Every chain kind at its boundary, as cel-go v0.26 (Kubernetes 1.34 to 1.37: parser.go and the generated
# parser are the same in every cel-go these pin; ANTLR Go runtime v4.13.0/v4.13.1 alike) counts it:
# - parser.go parser.Visit increments its depth for the contexts `unnest` returns: a relation or calc with
#   an operator, a ternary, a select, a member call and an index. `unnest` skips parentheses and operator-
#   less rules; VisitConditionalOr/And visit their terms side by side, and ! / - runs are one context.
#   So a left-deep chain of n operators costs n, plus one per enclosing counted context (`> 0`: one more).
# - parser.go recursionListener.EnterEveryRule counts, per rule, the invocations active at once. antlr
#   parser.go EnterRecursionRule and PushNewRecursionContext each fire an enter event, but the generated
#   loop (cel_parser.go calc/relation) fires TriggerExitRuleEvent just before PushNewRecursionContext, so
#   a left-deep chain stays at one `calc`; a right operand (`calc(2)`, `relation(2)`) enters once more.
#   Nesting through `(`, `[`, `{`, arguments and else-branches enters `expr` once per level.
CHAIN_BOUNDARIES = {  # name: (build, last accepted, message of the first refused)
    "+ then a relation": (lambda n: "1" + " + 1" * n + " > 0", 249, "max recursion depth exceeded"),
    "* chain": (lambda n: "1" + " * 1" * n, 250, "max recursion depth exceeded"),
    "* then a relation": (lambda n: "1" + " * 1" * n + " == 1", 249, "max recursion depth exceeded"),
    "* then +": (lambda n: "1" + " * 1" * n + " + 1", 249, "max recursion depth exceeded"),
    "relation chain": (lambda n: "a" + " < 1" * n, 250, "max recursion depth exceeded"),
    "in chain": (lambda n: "a" + " in b" * n, 250, "max recursion depth exceeded"),
    "select then a relation": (lambda n: "a" + ".b" * n + " == 1", 249, "max recursion depth exceeded"),
    "index then a relation": (lambda n: "a" + "[0]" * n + " == 1", 249, "max recursion depth exceeded"),
    "member calls": (lambda n: "a" + ".f()" * n, 250, "max recursion depth exceeded"),
    "member calls then a relation": (lambda n: "a" + ".f(1)" * n + " == 1", 249, "max recursion depth exceeded"),
    "selects and indexes": (lambda n: "a" + "".join(".b" if i % 2 else "[0]" for i in range(n)), 250,
                            "max recursion depth exceeded"),
    "+ of selects": (lambda n: "a.b" + " + a.b" * n + " > 0", 248, "max recursion depth exceeded"),
    "+ chain in a ternary": (lambda n: "a ? b : 1" + " + 1" * n, 249, "max recursion depth exceeded"),
    "+ chain in a call": (lambda n: "f(1" + " + 1" * n + ")", 250, "max recursion depth exceeded"),
    "ternary conditions": (lambda n: "a" + " ? b : c" * n, 249, "expression recursion limit exceeded: 250"),
    "parenthesised + chain": (lambda n: "(" * n + "1" + " + 1)" * n, 248, "expression recursion limit exceeded: 250"),
    "+ of parenthesised right operands": (lambda n: "1 + (" * n + "1" + ")" * n, 124,
                                          "expression recursion limit exceeded: 250"),
    "parenthesised ternaries": (lambda n: "(a ? " * n + "b" + " : c)" * n, 248,
                                "expression recursion limit exceeded: 250"),
    "nested lists": (lambda n: "[" * n + "1" + "]" * n, 249, "expression recursion limit exceeded: 250"),
    "nested maps": (lambda n: "{1: " * n + "1" + "}" * n, 249, "expression recursion limit exceeded: 250"),
    "nested messages": (lambda n: "A{f: " * n + "1" + "}" * n, 249, "expression recursion limit exceeded: 250"),
    "nested indexes": (lambda n: "a[" * n + "0" + "]" * n, 249, "expression recursion limit exceeded: 250"),
    "negated parentheses": (lambda n: "-(" * n + "1" + ")" * n, 249, "expression recursion limit exceeded: 250"),
}


@pytest.mark.parametrize("name", sorted(CHAIN_BOUNDARIES))
def test_chain_boundary(name):
    build, ok, message = CHAIN_BOUNDARIES[name]
    assert grammar.syntax_error(build(ok)) is None
    assert grammar.syntax_error(build(ok + 1)) == f"ERROR: <input>:-1:0: {message}"


@pytest.mark.parametrize("build", [
    lambda n: "true" + " && true" * n, lambda n: "true" + " || true" * n, lambda n: "1 < 2" + " && 1 < 2" * n,
    lambda n: "!" * n + "true", lambda n: "-" * n + "x", lambda n: "!" * n + "a.b.c",
], ids=["&&", "||", "&& of relations", "!", "-", "! of a select"])
def test_chains_without_a_limit(build):
    """&& and || terms are visited side by side, a run of ! or - is one context: no depth grows."""
    assert grammar.syntax_error(build(1000)) is None


def test_no_input_reaches_the_interpreter_recursion_limit():
    import sys

    limit = sys.getrecursionlimit()
    for text in ("(" * 10240, "[" * 10240, "{" * 10240, "a." * 5120, "-" * 10240, "!" * 10240, "f(" * 5120,
                 "a ? b : " * 1280, "1" + "+1" * 5119, "a" + ".b" * 5119):
        grammar.syntax_error(text)  # no RecursionError
    assert sys.getrecursionlimit() == limit


# --- hostile inputs: linear time

HOSTILE = {
    "backslash run after deep nesting": lambda n: "(" * 40 + 'device.driver == "' + "\\\\" * n,
    "backslash run, unterminated": lambda n: '"' + "\\" * (2 * n),
    "triple-quoted, unterminated": lambda n: '"""' + "\\\\" * n + '""',
    "raw, unterminated": lambda n: 'r"' + "\\" * (2 * n),
    "nested parentheses": lambda n: "(" * (2 * n),
    "select chain": lambda n: "a" + ".b" * n,
    "plus chain": lambda n: "1" + "+1" * n,
    "message name chain": lambda n: "a" + ".b" * n + "(",
    "escaped identifiers": lambda n: "a" + ".`b-c`" * (n // 3),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_inputs_are_answered_in_one_linear_pass(name):
    build = HOSTILE[name]
    started = time.perf_counter()
    for n in (24, 100, 1000, 5000):
        text = build(n)[:10240]
        lexer.tokens(text)  # every character looked at a bounded number of times
        error = grammar.syntax_error(text)
        assert error is None or error.startswith("ERROR: <input>:")
    assert time.perf_counter() - started < 5  # cel-python's lexer took hours on the first, at n = 24


def test_the_redos_selector_is_a_syntax_error_at_the_string():
    text = "(" * 40 + 'device.driver == "' + "\\\\" * 24
    assert len(text.encode()) == 106
    error = grammar.syntax_error(text)
    assert error.startswith("ERROR: <input>:1:58: Syntax error: token recognition error at: '\"")


# --- differential fuzz against the faithful engine's parser (cel-cpp shares cel-go's grammar)

# Known, deliberate differences: cel-cpp rejects a raw string ending in a backslash and accepts
# doubles out of range and a two-variable comprehension with one name twice; cel-go does the opposite.
_DIVERGENT = re.compile(r"""[rR]("|')[^"'\n]*\\\1|[0-9][eE]\+?[0-9]{3}|\.(all|exists|existsOne|transform\w+)\(""")

_ALPHABET = list("()[]{}.,?:!-+*/%<>=&|\"'`\\ \nabrxuU019_") + ["&&", "||", "==", ".?", "[?", "in ", '"""', "r'"]


def _mutants(rng: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        text = rng.choice(CORPUS)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(text) + 1)
            action = rng.random()
            if action < 0.4:
                text = text[:at] + rng.choice(_ALPHABET) + text[at:]
            elif action < 0.8:
                text = text[:at] + text[at + rng.randrange(1, 4):]
            else:
                end = min(len(text), at + rng.randrange(1, 12))
                text = text[:at] + text[at:end] * 2 + text[end:]
        out.append(text)
    return out


@needs_cel_expr
def test_differential_fuzz_agrees_with_the_faithful_parser():
    rng = random.Random(21)
    cases = CORPUS[:500] + _mutants(rng, 2500)
    disagreements, compared, rejected = [], 0, 0
    for text in cases:
        if _DIVERGENT.search(text):
            continue
        theirs = faithful_parse_error(text)
        if theirs is False:
            continue
        ours = grammar.syntax_error(text)
        compared += 1
        rejected += theirs is not None
        if (ours is None) != (theirs is None):
            disagreements.append((text, ours, theirs))
    assert compared > 2500 and rejected > 500  # both sides of the boundary are exercised
    assert disagreements == []


# --- the tree renders back to the same expression (what the faithful engine is given when only
# parentheses made an expression too deep for it)

@needs_cel_expr
def test_rendering_without_parentheses_keeps_every_verdict_and_cost():
    from webhook.cel import unparse
    from webhook.cel.compiler import _uncached
    from webhook.cel.environment import Features

    checked = 0
    for text in CORPUS[:400]:
        try:
            tree = grammar.parse("((" + text + "))")
        except grammar.CelSyntaxError:
            continue
        rendered = unparse.render(tree)
        assert unparse.render(grammar.parse(rendered)) == rendered
        original, again = _uncached(text, False, Features()), _uncached(rendered, False, Features())
        assert (again.outcome, again.cost) == (original.outcome, original.cost), (text, rendered)
        checked += 1
    assert checked > 350


@pytest.mark.parametrize(("text", "rendered"), [
    ("((a + b) * c)", "(a + b) * c"),
    ("((a - b) - c)", "a - b - c"),
    ("(a - (b - c))", "a - (b - c)"),
    ("-(1) + -(-1) + !(!a) + (1).x", "-(1) + -(-1) + !(!a) + (1).x"),  # other trees without parentheses
    ("(a ? b : c) ? (d ? e : f) : (g ? h : i)", "(a ? b : c) ? (d ? e : f) : g ? h : i"),
    ("[?(a), (b)].all((x), ((x) && y)) // c", "[?a, b].all(x, x && y)"),
    ("(a).?b[?(c)] == .m.N{?f: (1), `g-h`: {(1): 2}}", "a.?b[?c] == .m.N{?f: 1, `g-h`: {1: 2}}"),
    ("!!(a || b) && --c && !!!d", "(a || b) && c && !!!d"),  # cel-go drops an even run of `!` or `-`
])
def test_rendering_drops_only_redundant_parentheses(text, rendered):
    from webhook.cel import unparse

    assert unparse.render(grammar.parse(text)) == rendered


_LITERALS = ["1", "-1", "0x1F", "-0x8000000000000000", "9223372036854775808", "1u", "18446744073709551616u", "1.5",
             ".5", "1e5", "'a'", '"""c"""', 'r"\\d"', 'b"\\xff"', 'b"\\u0041"', '"\\ud800"', '"\\377"', "true", "null",
             "012"]
_NAMES = ["a", "x", "device", "cel", "has", "if", "in", "optional"]
_OPERATORS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", "in", "&&", "||"]
_METHODS = ["all", "exists", "exists_one", "map", "filter", "optMap", "transformList", "size", "existsOne"]


def _generated(rng: random.Random, depth: int) -> str:
    """A random expression over cel-go's grammar: every rule, odd literals, macros with odd arguments."""
    def some(k: int) -> str:
        return ", ".join(_generated(rng, depth - 1) for _ in range(k))

    def opt() -> str:
        return rng.choice(["?", ""])

    if depth <= 0 or rng.random() < 0.25:
        return rng.choice(_LITERALS + _NAMES + ["." + rng.choice(_NAMES)])
    pick = rng.randrange(13)
    if pick == 0:
        return f"{some(1)} {rng.choice(_OPERATORS)} {some(1)}"
    if pick == 1:
        return f"{some(1)} ? {some(1)} : {some(1)}"
    if pick == 2:
        return rng.choice(["!", "-", "--", "!!", "- "]) + some(1)
    if pick == 3:
        return f"({some(1)})"
    if pick == 4:
        return f"{some(1)}.{opt()}{rng.choice(_NAMES + ['`a-b`', 'true'])}"
    if pick == 5:
        return f"{some(1)}[{opt()}{some(1)}]"
    if pick == 6:
        return f"{some(1)}.{rng.choice(_METHODS)}({some(rng.randrange(0, 5))})"
    if pick == 7:
        return f"{rng.choice(_NAMES)}({some(rng.randrange(0, 3))})"
    if pick == 8:
        return "[" + ", ".join(opt() + some(1) for _ in range(rng.randrange(0, 4))) + rng.choice([",", ""]) + "]"
    if pick == 9:
        entries = ", ".join(f"{opt()}{some(1)}: {some(1)}" for _ in range(rng.randrange(0, 3)))
        return "{" + entries + rng.choice([",", ""]) + "}"
    if pick == 10:
        fields = ", ".join(f"{opt()}{rng.choice(_NAMES + ['`f-g`'])}: {some(1)}" for _ in range(rng.randrange(0, 3)))
        return rng.choice(["A", ".A", "a.B"]) + "{" + fields + rng.choice([",", ""]) + "}"
    if pick == 11:
        return f"has({some(1)})"
    return f"cel.bind({some(3)})"


# cel-go takes a leading-dot identifier as a macro variable at parse time (it is an identifier); cel-cpp does not.
_LEADING_DOT_VARIABLE = re.compile(r"\.(all|exists|exists_one|map|filter|optMap|transformList|existsOne|bind)\(\.")


@needs_cel_expr
def test_differential_fuzz_of_generated_expressions():
    rng = random.Random(2121)
    disagreements, compared = [], 0
    for _ in range(2000):
        text = _generated(rng, rng.randrange(1, 5))
        if _DIVERGENT.search(text) or _LEADING_DOT_VARIABLE.search(text):
            continue
        theirs = faithful_parse_error(text)
        if theirs is False:
            continue
        compared += 1
        ours = grammar.syntax_error(text)
        if (ours is None) != (theirs is None):
            disagreements.append((text, ours, theirs))
    assert compared > 1500
    assert disagreements == []


# --- error lists, as cel-go v0.26 (Kubernetes 1.34 to 1.37) reports them: ANTLR's syntax errors, then the
# visitor's in its order until its depth limit; shown sorted by location (no location first), each with
# its line and a caret (common/errors.go ToDisplayString, common/error.go). Expected texts are cel-go's.

_OPERAND_SET = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
                "BYTES, IDENTIFIER}")


def _headlines(error: str) -> list[str]:
    return [line for line in error.split("\n") if not line.startswith(" | ")]


@pytest.mark.parametrize("chain", [249, 250])
def test_syntax_error_before_the_depth_limit_reports_both(chain):
    """ANTLR drops the extraneous `*` and parses on; the visitor then counts the whole chain: one operator
    more than 250 adds "max recursion depth exceeded", listed first (it has no location)."""
    error = grammar.syntax_error("a +* b" + " + 1" * chain)
    extraneous = f"ERROR: <input>:1:4: Syntax error: extraneous input '*' expecting {_OPERAND_SET}"
    expected = [extraneous] if chain == 249 else ["ERROR: <input>:-1:0: max recursion depth exceeded", extraneous]
    assert _headlines(error) == expected
    assert error.endswith(" | ...^")


@pytest.mark.parametrize(("chain", "deep"), [(249, False), (250, True)])
def test_operand_missing_at_the_end_of_a_deep_chain(chain, deep):
    """At the end ANTLR reports the missing operand and closes the rest; its tree is still visited."""
    text = "1" + " + 1" * chain + " +"
    missing = f"ERROR: <input>:1:{len(text) + 1}: Syntax error: mismatched input '<EOF>' expecting {_OPERAND_SET}"
    assert _headlines(grammar.syntax_error(text)) == (["ERROR: <input>:-1:0: max recursion depth exceeded"]
                                                       if deep else []) + [missing]


@pytest.mark.parametrize(("text", "headlines"), [
    ("if + else", ["ERROR: <input>:1:1: reserved identifier: if", "ERROR: <input>:1:6: reserved identifier: else"]),
    ("if" + " + 1" * 250, ["ERROR: <input>:1:1: reserved identifier: if"]),
    # the visitor passes its limit on the way down, before it reaches `if` at the bottom of the chain
    ("if" + " + 1" * 251, ["ERROR: <input>:-1:0: max recursion depth exceeded"]),
    ("x.all(1, true)" + " + 1" * 249, ["ERROR: <input>:1:7: argument must be a simple name"]),
    # the macro is expanded after its arguments are visited: the call's own step passes the limit first
    ("x.all(1, true)" + " + 1" * 250, ["ERROR: <input>:-1:0: max recursion depth exceeded"]),
    # a reserved global call is reported and its arguments are not visited
    ("if(else, 1 +* 2)", ["ERROR: <input>:1:1: reserved identifier: if",
                          f"ERROR: <input>:1:13: Syntax error: extraneous input '*' expecting {_OPERAND_SET}"]),
    ("[1, 2,", ["ERROR: <input>:1:7: Syntax error: missing ']' at '<EOF>'"]),
    ("[1, 2", ["ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}"]),
    ("f(1", ["ERROR: <input>:1:4: Syntax error: missing ')' at '<EOF>'"]),
    ("a ? b", ["ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'"]),
    ("-", ["ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'",
           f"ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {_OPERAND_SET}"]),
    ("f(*)", ["ERROR: <input>:1:3: Syntax error: extraneous input '*' expecting {'[', '{', '(', ')', '.', '-', '!', "
              "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"]),
    ("x.map(1, 2)", ["ERROR: <input>:1:7: argument is not an identifier"]),
    # the lexer reads on after a character it cannot lex, and the parser after the token left over
    ('device.driver = "x"', ["ERROR: <input>:1:15: Syntax error: token recognition error at: '= '",
                             "ERROR: <input>:1:17: Syntax error: extraneous input '\"x\"' expecting <EOF>"]),
    ('"\\q" + 1', ["ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\q'",
                    "ERROR: <input>:1:4: Syntax error: token recognition error at: '\" + 1'",
                    f"ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {_OPERAND_SET}"]),
    ("a b c", ["ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>"]),
    # ANTLR skips to a token it can go on from: the `+`, so the chain is still counted
    ("1 + )" + " + 1" * 249, [f"ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting {_OPERAND_SET}"]),
    ("1 + )" + " + 1" * 250, ["ERROR: <input>:-1:0: max recursion depth exceeded",
                              f"ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting {_OPERAND_SET}"]),
    # after a list's comma: the comma was the trailing one, `]` is conjured before `*`
    ("[1, *2]", ["ERROR: <input>:1:5: Syntax error: missing ']' at '*'",
                 "ERROR: <input>:1:7: Syntax error: extraneous input ']' expecting <EOF>"]),
    ("[, 1]", ["ERROR: <input>:1:4: Syntax error: extraneous input '1' expecting ']'"]),
])
def test_error_lists(text, headlines):
    assert _headlines(grammar.syntax_error(text)) == headlines


def test_each_error_shows_its_line_with_a_caret():
    """A tab shows as a space; a code point of more than one UTF-8 byte as a wide dot (error.go)."""
    assert grammar.syntax_error('\t"é" +* 1') == (
        f"ERROR: <input>:1:7: Syntax error: extraneous input '*' expecting {_OPERAND_SET}\n"
        ' |  "é" +* 1\n'
        " | ..\uff0e...^")
    assert grammar.syntax_error("a &&\n  b +* c") == (
        f"ERROR: <input>:2:6: Syntax error: extraneous input '*' expecting {_OPERAND_SET}\n"
        " |   b +* c\n"
        " | .....^")


@pytest.mark.parametrize("operators", [100, 101])
def test_at_most_100_errors(operators):
    """parser.go SyntaxError reports 100 syntax errors, the 101st says "More than 100 syntax errors" and ends
    the parse; Errors keeps 100 and counts the rest ("1 more errors were truncated")."""
    error = grammar.syntax_error(" +* ".join(["x"] * (operators + 1)))
    headlines = _headlines(error)
    assert len(headlines) == (100 if operators == 100 else 101)
    assert all("extraneous input '*'" in line for line in headlines[:100])
    assert (headlines[-1] == "1 more errors were truncated") is (operators == 101)


@pytest.mark.parametrize("engine", ["cel-expr", "cel-python"])
def test_review_reports_both_errors_of_a_deep_selector(engine, tmp_path, capsys):
    """Through `review`, with either engine: the selector's Invalid cause holds cel-go's whole list."""
    import json

    from webhook import cli
    from webhook.cel import syntax

    if engine == "cel-expr":
        require_faithful_cel()
    elif not syntax.available():
        pytest.fail("cel-python, a dependency on every platform, does not import")
    expression = "a +* b" + " + 1" * 250
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "d"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "gpu", "selectors": [{"cel": {"expression": expression}}]}}]}}}
    path = tmp_path / "claim.json"
    path.write_text(json.dumps(claim))
    previous = engines.active_engine()  # --cel-engine picks the process's engine: give it back after
    try:
        assert cli.main(["review", "--cel-engine", engine, "-o", "json", str(path)]) == 1
    finally:
        engines.configure(previous)
    cause = json.loads(capsys.readouterr().out)["results"][0]["response"]["status"]["details"]["causes"][0]
    assert cause["field"] == "spec.devices.requests[0].exactly.selectors[0].cel.expression"
    listed = cause["message"].split("compilation failed: ", 1)[1]
    assert _headlines(listed) == ["ERROR: <input>:-1:0: max recursion depth exceeded",
                                  f"ERROR: <input>:1:4: Syntax error: extraneous input '*' expecting {_OPERAND_SET}"]
