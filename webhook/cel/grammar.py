"""A linear parser of cel-go's grammar (v0.26 `parser/gen/CEL.g4`) with cel-go's limits.

`parse()` returns a small tree or raises `CelSyntaxError` with a cel-go style message
("ERROR: <input>:L:C: Syntax error: ..."). Besides the grammar it checks what cel-go's parser
checks after parsing: literal ranges and escapes, reserved identifiers, macro arguments, and the
two recursion limits of `parser/parser.go` (both `maxRecursionDepth`, 250):

- the parse-tree listener counts, per grammar rule, the invocations active at once: every nested
  `(`, `[`, `{` or call argument enters `expr` again, and right operands of `+`/`*` and relations
  enter `calc`/`relation` again (ANTLR's precedence climbing), so `a + b * (...)` costs 3 `calc`s;
- the visitor counts nested relation/arithmetic operators, ternaries, selections, member calls
  and indexes: `a.b.c...` and `1 + 1 + ...` chains (left-deep trees) count one per link.

Nesting never recurses in Python: rules are generators driven from an explicit stack (`run`), so
the interpreter's recursion limit is never approached, whatever the input.
"""

from __future__ import annotations

import math

from webhook.cel import lexer
from webhook.cel.lexer import Token

MAX_RECURSION_DEPTH = 250  # parser.go maxRecursionDepth default
EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000  # parser.go expressionSizeCodePointLimit default

# parser.go reservedIds: valid as field names, not as identifiers or global function names.
RESERVED_IDS = frozenset({
    "as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in", "let",
    "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"})

# Binary operators by precedence, loosest first; all are left-associative.
_OR, _AND, _REL, _ADD, _MUL = 1, 2, 3, 4, 5
BINARY = {"||": _OR, "&&": _AND}
BINARY.update(dict.fromkeys(("<", "<=", ">=", ">", "==", "!=", "in"), _REL))
BINARY.update(dict.fromkeys(("+", "-"), _ADD))
BINARY.update(dict.fromkeys(("*", "/", "%"), _MUL))

# Receiver-style macros whose leading arguments must be simple identifiers: {name: {argc: count}}.
# Standard macros, two-variable comprehensions, optionals, cel.bind (cel-go parser/macro.go, ext/).
VAR_MACROS = {
    "all": {2: 1, 3: 2}, "exists": {2: 1, 3: 2}, "exists_one": {2: 1}, "existsOne": {3: 2},
    "map": {2: 1, 3: 1}, "filter": {2: 1}, "optMap": {2: 1}, "optFlatMap": {2: 1},
    "transformList": {3: 2, 4: 2}, "transformMap": {3: 2, 4: 2}, "transformMapEntry": {3: 2, 4: 2},
}


class CelSyntaxError(ValueError):
    def __init__(self, message: str, offset: int | None) -> None:
        super().__init__(message)
        self.offset = offset


class Node:
    """One parse-tree node. `kind` names a cel-go parse context; `depth` is the visitor's count."""

    __slots__ = ("kind", "start", "text", "children", "optional", "depth")

    def __init__(self, kind: str, start: int, text: str = "", children: tuple = (), optional=False,
                 depth: int = 0) -> None:
        self.kind = kind  # literal ident select call index list map message unary binary cond paren
        self.start = start
        self.text = text  # operator, identifier, field name or literal text
        self.children = children
        self.optional = optional  # `.?`, `[?`, or per-entry flags (a tuple) for list/map/message
        self.depth = depth


def location(text: str, offset: int) -> tuple[int, int]:
    """cel-go's 1-based line and code point column of `offset`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _error(text: str, offset: int | None, message: str) -> CelSyntaxError:
    if offset is None:
        return CelSyntaxError(f"ERROR: <input>:-1:0: {message}", None)
    line, column = location(text, offset)
    return CelSyntaxError(f"ERROR: <input>:{line}:{column}: {message}", offset)


def parse(text: str) -> Node:
    """The parse tree of `text`, or CelSyntaxError for the first problem cel-go's parser reports."""
    if len(text) > EXPRESSION_SIZE_CODE_POINT_LIMIT:
        raise _error(text, None, f"expression code point size exceeds limit: size: {len(text)}, "
                                 f"limit {EXPRESSION_SIZE_CODE_POINT_LIMIT}")
    return _Parser(text).start()


def syntax_error(text: str) -> str | None:
    """cel-go's first parser error for `text` (one line), or None when it parses."""
    try:
        parse(text)
    except CelSyntaxError as error:
        return str(error)
    return None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = lexer.tokens(text)
        self.i = 0

    # --- tokens

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def kind(self, ahead: int = 0) -> str:
        j = self.i + ahead
        return self.toks[j].kind if j < len(self.toks) else lexer.EOF

    def advance(self) -> Token:
        token = self.toks[self.i]
        self.i += 1
        return token

    def fail(self, token: Token | None = None, message: str = "") -> CelSyntaxError:
        token = token or self.tok
        if token.kind == lexer.ERROR:
            return _error(self.text, token.start, "Syntax error: " + token.message)
        if not message:
            shown = "<EOF>" if token.kind == lexer.EOF else self.text[token.start:token.end]
            if len(shown) > 40:
                shown = shown[:40] + "..."
            message = f"Syntax error: mismatched input '{shown}'"
        return _error(self.text, token.start, message)

    def expect(self, kind: str) -> Token:
        if self.kind() != kind:
            raise self.fail()
        return self.advance()

    # --- rules

    def start(self) -> Node:
        node = self.run(self.expr(1, 0, 0))
        if self.kind() != lexer.EOF:
            raise self.fail()
        if node.depth > MAX_RECURSION_DEPTH:
            raise _error(self.text, None, "max recursion depth exceeded")
        return node

    def run(self, top) -> Node:
        """Drives the rule generators with an explicit stack: a rule yields (e, r, c) where it
        needs a nested `expr` and is sent the parsed node, so nesting never recurses in Python."""
        stack, value = [top], None
        while stack:
            try:
                request = stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                value = done.value
                continue
            stack.append(self.expr(*request))
            value = None
        return value

    def limit(self, count: int) -> None:
        """The parse listener's check: a rule entered more than 250 times at once. Its panic is reported
        without a location (parser.go parse: p.errors.internalError), like the visitor's."""
        if count > MAX_RECURSION_DEPTH:
            raise _error(self.text, None, f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}")

    def expr(self, e: int, r: int, c: int) -> Node:
        """expr: conditionalOr ('?' conditionalOr ':' expr)?, the else-chain as a loop.

        `e`, `r`, `c`: `expr`, `relation` and `calc` rule invocations active, this one included in `e`.
        """
        self.limit(e)
        parts = []
        while True:
            parts.append((yield from self.binary(e, r, c)))
            if len(parts) % 2:  # a condition or the last else-branch
                if self.kind() != "?":
                    break
                self.advance()
            else:  # a then-branch
                self.expect(":")
                e += 1  # the else-branch is an `expr` of its own
                self.limit(e)
        node = parts[-1]
        for k in range(len(parts) - 3, -1, -2):
            cond, then = parts[k], parts[k + 1]
            node = Node("cond", cond.start, "?", (cond, then, node),
                        depth=1 + max(cond.depth, then.depth, node.depth))
        return node

    def binary(self, e: int, r: int, c: int) -> Node:
        """conditionalOr down to calc by operator precedence, all left-associative.

        Tracks how ANTLR's precedence climbing nests `relation` and `calc` invocations: each
        relation operand starts `calc` afresh; a right operand enters the rule again at one
        precedence above its operator, and returns on an operator below that.
        """
        operands: list[Node] = []
        operators: list[tuple[int, Token]] = []
        relations = [0]  # precedence thresholds of active `relation` invocations
        calcs = [0]
        while True:
            self.limit(r + len(relations))
            self.limit(c + len(calcs))
            operands.append((yield from self.unary(e, r + len(relations), c + len(calcs))))
            op = self.kind()
            level = BINARY.get(op)
            if level is None:
                break
            while operators and operators[-1][0] >= level:
                _reduce(operands, operators)
            operators.append((level, self.advance()))
            if level in (_OR, _AND):
                relations, calcs = [0], [0]
            elif level == _REL:
                while 1 < relations[-1]:
                    relations.pop()
                relations.append(2)
                calcs = [0]
            else:
                q = 2 if level == _MUL else 1
                while q < calcs[-1]:
                    calcs.pop()
                calcs.append(q + 1)
        while operators:
            _reduce(operands, operators)
        return operands[0]

    def unary(self, e: int, r: int, c: int) -> Node:
        """unary: ('!'+ | '-'+)? member, member: primary followed by selections, calls and indexes."""
        start = self.tok.start
        ops = ""
        if self.kind() in ("!", "-"):
            first = self.kind()
            while self.kind() == first:
                self.advance()
                ops += first
            if ops == "-" and self.kind() in (lexer.INT, lexer.FLOAT):
                # literal: MINUS? NUM_INT. One minus: ANTLR prefers the literal alternative; more:
                # its `'-'+` loop takes them all, so `--9223372036854775808` is out of range.
                ops = ""
                self.i -= 1
        node = yield from self.primary(e, r, c)
        while True:
            k = self.kind()
            if k == ".":
                dot = self.advance()
                optional = self.kind() == "?"
                if optional:
                    self.advance()
                name = self.tok
                if name.kind == lexer.IDENT and not optional and self.kind(1) == "(":
                    self.advance()
                    args = yield from self.arguments(e, r, c, ")")
                    node = self.member_call(node, name, args)
                    continue
                if name.kind not in (lexer.IDENT, lexer.ESC_IDENT):
                    raise self.fail()
                self.advance()
                node = Node("select", dot.start, self.text[name.start:name.end], (node,), optional, node.depth + 1)
            elif k == "[":
                bracket = self.advance()
                optional = self.kind() == "?"
                if optional:
                    self.advance()
                index = (yield (e + 1, r, c))
                self.expect("]")
                node = Node("index", bracket.start, "", (node, index), optional, 1 + max(node.depth, index.depth))
            else:
                break
        if ops:
            node = Node("unary", start, ops, (node,), depth=node.depth)
        return node

    def member_call(self, target: Node, name: Token, args: list[Node]) -> Node:
        text = self.text[name.start:name.end]
        counts = VAR_MACROS.get(text)
        if text == "bind" and target.kind == "ident" and target.text == "cel":
            counts = {3: 1}
        names = counts.get(len(args), 0) if counts else 0
        args = [unwrap(a) for a in args]
        for arg in args[:names]:
            if arg.kind != "ident":
                raise _error(self.text, arg.start, f"{'cel.bind' if text == 'bind' else text}() variable name "
                                                   "must be a simple identifier")
        if text not in ("bind", "optMap", "optFlatMap"):
            for arg in args[:names]:
                if arg.text == "__result__":  # parser.AccumulatorName
                    raise _error(self.text, arg.start, "iteration variable overwrites accumulator variable")
        if names == 2 and args[0].text == args[1].text:
            raise _error(self.text, args[0].start, f"duplicate variable name: {args[0].text}")
        depth = 1 + max([target.depth] + [a.depth for a in args])
        return Node("call", name.start, text, (target, *args), depth=depth)

    def arguments(self, e: int, r: int, c: int, close: str) -> list[Node]:
        """exprList? then `close`: no trailing comma."""
        self.expect("(")
        args = []
        if self.kind() != close:
            while True:
                args.append((yield (e + 1, r, c)))
                if self.kind() != ",":
                    break
                self.advance()
        self.expect(close)
        return args

    def primary(self, e: int, r: int, c: int) -> Node:
        token = self.tok
        k = token.kind
        if k == "." or k == lexer.IDENT:
            return (yield from self.identifier(e, r, c))
        if k == "(":
            self.advance()
            inner = (yield (e + 1, r, c))
            self.expect(")")
            return Node("paren", token.start, "", (inner,), depth=inner.depth)
        if k == "[":
            self.advance()
            flags, elems = yield from self.entries(e, r, c, "]", keyed=False)
            return Node("list", token.start, "", tuple(elems), tuple(flags), _deepest(elems))
        if k == "{":
            self.advance()
            flags, elems = yield from self.entries(e, r, c, "}", keyed=True)
            return Node("map", token.start, "", tuple(elems), tuple(flags), _deepest(elems))
        if k in (lexer.INT, lexer.UINT, lexer.FLOAT, lexer.STRING, lexer.BYTES, "true", "false", "null", "-"):
            return self.literal()
        raise self.fail()

    def identifier(self, e: int, r: int, c: int) -> Node:
        """Ident, GlobalCall or CreateMessage (`.`? IDENT ('.' IDENT)* '{')."""
        start = self.tok.start
        lead = ""
        if self.kind() == ".":
            self.advance()
            lead = "."
        name = self.expect(lexer.IDENT)
        ident = self.text[name.start:name.end]
        # A dotted name followed by `{` is a message; look ahead over the chain (linear: the
        # chain's tokens are read again only once, by the member loop, when it is not).
        j = self.i
        while self.kind(j - self.i) == "." and self.kind(j - self.i + 1) == lexer.IDENT:
            j += 2
        if self.kind(j - self.i) == "{":
            names = [ident]
            while self.i < j:
                self.advance()
                names.append(self.text[self.tok.start:self.tok.end])
                self.advance()
            self.advance()
            flags, fields = yield from self.entries(e, r, c, "}", keyed=True, fields=True)
            return Node("message", start, lead + ".".join(names), tuple(fields), tuple(flags), _deepest(fields))
        if ident in RESERVED_IDS:
            raise _error(self.text, start, f"reserved identifier: {ident}")
        if self.kind() == "(":
            args = yield from self.arguments(e, r, c, ")")
            if lead + ident == "has" and len(args) == 1:
                arg = unwrap(args[0])
                if arg.kind != "select" or arg.optional:
                    raise _error(self.text, arg.start, "invalid argument to has() macro")
            return Node("call", start, lead + ident, (None, *args), depth=_deepest(args))
        return Node("ident", start, lead + ident)

    def entries(self, e: int, r: int, c: int, close: str, keyed: bool, fields: bool = False):
        """listInit / mapInitializerList / fieldInitializerList, each with an optional trailing comma.

        Returns per-entry optional flags and the children (key, value pairs flattened when keyed).
        """
        flags, children = [], []
        if self.kind() == "," and self.kind(1) == close:  # `[,]`: no entries, the trailing comma alone
            self.advance()
        while self.kind() != close:
            optional = self.kind() == "?"
            if optional:
                self.advance()
            if fields:
                name = self.tok
                if name.kind not in (lexer.IDENT, lexer.ESC_IDENT):
                    raise self.fail()
                self.advance()
                children.append(Node("field", name.start, self.text[name.start:name.end]))
            else:
                children.append((yield (e + 1, r, c)))
            if keyed:
                self.expect(":")
                children.append((yield (e + 1, r, c)))
            flags.append(optional)
            if self.kind() != ",":
                break
            self.advance()
        self.expect(close)
        return flags, children

    def literal(self) -> Node:
        start = self.tok.start
        sign = ""
        if self.kind() == "-":
            self.advance()
            sign = "-"
        token = self.advance()
        k = token.kind
        body = self.text[token.start:token.end]
        if sign and k not in (lexer.INT, lexer.FLOAT):  # `!-"a"`: only numbers take a sign
            raise self.fail(token)
        if k == lexer.INT:
            base, digits = (16, body[2:]) if body.startswith("0x") else (10, body)
            if not -(1 << 63) <= int(sign + digits, base) < (1 << 63):
                raise _error(self.text, start, "invalid int literal")
        elif k == lexer.UINT:
            base, digits = (16, body[2:-1]) if body.startswith("0x") else (10, body[:-1])
            if int(digits, base) >= 1 << 64:
                raise _error(self.text, start, "invalid uint literal")
        elif k == lexer.FLOAT:
            if math.isinf(float(body)):  # Go's ParseFloat reports a range error
                raise _error(self.text, start, "invalid double literal")
        elif k in (lexer.STRING, lexer.BYTES):
            problem = _unescape_problem(body[1:] if k == lexer.BYTES else body, k == lexer.BYTES)
            if problem:
                raise _error(self.text, start, problem)
        elif k not in ("true", "false", "null"):
            raise self.fail(token)
        return Node("literal", start, sign + body)


def unwrap(node: Node) -> Node:
    """The node cel-go's tree holds here: no grouping parentheses, and an even run of `!` or `-`
    leaves its operand alone (parser.go VisitLogicalNot, VisitNegate)."""
    while node.kind == "paren" or (node.kind == "unary" and len(node.text) % 2 == 0):
        node = node.children[0]
    return node


def _deepest(nodes) -> int:
    return max((n.depth for n in nodes), default=0)


def _reduce(operands: list[Node], operators: list) -> None:
    level, op = operators.pop()
    right = operands.pop()
    left = operands.pop()
    counted = level not in (_OR, _AND)  # VisitConditionalOr/And visit their terms side by side
    depth = max(left.depth, right.depth) + (1 if counted else 0)
    operands.append(Node("binary", left.start, op.kind, (left, right), depth=depth))


def _unescape_problem(literal: str, is_bytes: bool) -> str:
    """cel-go parser/unescape.go's complaint about a lexed string literal, or ""."""
    if literal[0] in "rR":
        return ""
    quote_len = 3 if literal[:3] in ('"""', "'''") and len(literal) >= 6 else 1
    body = literal[quote_len:len(literal) - quote_len]
    j = body.find("\\")
    while j >= 0:
        c = body[j + 1]
        if c in "uU":
            if is_bytes:
                return "unable to unescape string"
            value = int(body[j + 2:j + (6 if c == "u" else 10)], 16)
            if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                return "invalid unicode code point"
        j = body.find("\\", j + 2)  # the lexer checked each escape's shape: two characters are safe
    return ""
