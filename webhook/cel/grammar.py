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

Errors are a list, as cel-go's (`common.Errors`): ANTLR's syntax errors while parsing, then the
visitor's (reserved identifiers, literals, macro arguments) in its visiting order, stopped by its
depth limit; shown sorted by location (errors without one first), each with its source line. ANTLR's
recovery is followed where it drops one unexpected token before an operand ("extraneous input");
any other syntax error ends the parse there (`errors.py` renders the list).
"""

from __future__ import annotations

import math

from webhook.cel import lexer
from webhook.cel.errors import ErrorList, display, expecting
from webhook.cel.lexer import Token
from webhook.numbers import parse_decimal

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
    """cel-go's error list for an expression; `offset` is the first reported error's (None: no location)."""

    def __init__(self, message: str, offset: int | None, errors: tuple = ()) -> None:
        super().__init__(message)
        self.offset = offset
        self.errors = errors or ((offset, message),)


class Node:
    """One parse-tree node. `kind` names a cel-go parse context; `depth` is the visitor's count."""

    __slots__ = ("kind", "start", "text", "children", "optional", "depth", "issue")

    def __init__(self, kind: str, start: int, text: str = "", children: tuple = (), optional=False,
                 depth: int = 0) -> None:
        # the visitor's complaint about this node: (offset, message, when), `when` is PRE (before its
        # children; SKIP: they are not visited) or POST (macro expansion, after them)
        self.issue: tuple | None = None
        self.kind = kind  # literal ident select call index list map message unary binary cond paren
        self.start = start
        self.text = text  # operator, identifier, field name or literal text
        self.children = children
        self.optional = optional  # `.?`, `[?`, or per-entry flags (a tuple) for list/map/message
        self.depth = depth


PRE, SKIP, POST = "pre", "skip", "post"

# What ANTLR expects where an operand may start (the kinds, and its "expecting {...}" text).
_OPERAND = expecting()
_FIRST_ARGUMENT = expecting(")")
_FIRST_ELEMENT = expecting("]", ",", "?")
_FIRST_KEY = expecting("}", ",", "?")
_INDEX = expecting("?")

# ANTLR's recovery from an operand it cannot start: it skips to a token that may follow one of the rules
# under way (DefaultErrorStrategy.getErrorRecoverySet). Every `expr` adds its operators, and `?` (or `:`
# in a then-branch); each construct holding one its own tokens, and `.` `[` of the member it is part of.
_OPERATORS = frozenset(("*", "/", "%", "+", "-", "<", "<=", ">=", ">", "==", "!=", "in", "&&", "||"))
_MEMBER = frozenset((".", "["))
_IN_PAREN = frozenset((")",)) | _MEMBER
_IN_ARGUMENTS = frozenset((",", ")")) | _MEMBER
_IN_LIST = frozenset((",", "]")) | _MEMBER
_IN_KEY = frozenset((":", ",", "}")) | _MEMBER
_IN_VALUE = frozenset((",", "}")) | _MEMBER
_IN_INDEX = frozenset(("]",)) | _MEMBER


class _Stop(Exception):
    """The parse ends here (a syntax error not recovered, a limit): the errors so far are the answer."""


def _error(text: str, offset: int | None, message: str) -> CelSyntaxError:
    return _raise_list(text, [(offset, message)])


def _raise_list(text: str, errors, count: int | None = None) -> CelSyntaxError:
    errors = tuple(errors)
    return CelSyntaxError(display(text, errors, count), errors[0][0] if errors else None, errors)


def parse(text: str) -> Node:
    """The parse tree of `text`, or CelSyntaxError with the errors cel-go's parser reports."""
    if len(text) > EXPRESSION_SIZE_CODE_POINT_LIMIT:
        raise _error(text, None, f"expression code point size exceeds limit: size: {len(text)}, "
                                 f"limit {EXPRESSION_SIZE_CODE_POINT_LIMIT}")
    parser = _Parser(text)
    errors = parser.errors
    try:
        node = parser.start()
    except _Stop:
        raise _raise_list(text, errors.kept, errors.count) from None
    _visit(node, errors)  # cel-go visits the tree whatever ANTLR reported
    if errors.count:
        raise _raise_list(text, errors.kept, errors.count)
    return node


def _visit(root: Node, errors: ErrorList) -> None:
    """parser.go Visit: the visitor's errors in its order, until its depth passes the limit
    (checkAndIncrementRecursionDepth panics: "max recursion depth exceeded", without a location)."""
    stack = [(root, 0, False)]
    while stack:
        node, above, after = stack.pop()
        if after:
            errors.report(node.issue[0], node.issue[1])
            continue
        children = [c for c in node.children if c is not None]
        depth = above + node.depth - _deepest(children)  # this node's own step (0 or 1)
        if depth > MAX_RECURSION_DEPTH:
            errors.report(None, "max recursion depth exceeded")
            return
        issue = node.issue
        if issue is not None and issue[2] != POST:
            errors.report(issue[0], issue[1])
            if issue[2] == SKIP:
                continue
        if issue is not None and issue[2] == POST:
            stack.append((node, 0, True))
        stack.extend((child, depth, False) for child in reversed(children))


def syntax_error(text: str) -> str | None:
    """cel-go's parser errors for `text` as Kubernetes shows them, or None when it parses."""
    try:
        parse(text)
    except CelSyntaxError as error:
        return str(error)
    return None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        # The parser sees the tokens; the lexer's errors are reported when the parser reads past them
        # (ANTLR's token stream lexes on demand): (index of the next token, offset, message).
        self.toks: list[Token] = []
        self.lexer_errors: list[tuple[int, int, str]] = []
        for token in lexer.tokens(text):
            if token.kind == lexer.ERROR:
                self.lexer_errors.append((len(self.toks), token.start, "Syntax error: " + token.message))
            else:
                self.toks.append(token)
        self.lexed = 0  # lexer errors reported so far
        self.frames: list[list] = []  # per `expr` under way: [tokens its construct adds, in a then-branch]
        self.i = 0
        self.errors = ErrorList()
        # An operand was missing at the end: ANTLR stays in error recovery (it reports nothing more until
        # it matches a token, and none is left), closes every open construct, and its tree is visited.
        self.ended = False

    # --- tokens

    @property
    def tok(self) -> Token:
        self.read(self.i)
        return self.toks[self.i]

    def kind(self, ahead: int = 0) -> str:
        j = min(self.i + ahead, len(self.toks) - 1)
        self.read(j)
        return self.toks[j].kind

    def advance(self) -> Token:
        self.read(self.i)
        token = self.toks[self.i]
        self.i += 1
        return token

    def read(self, j: int) -> None:
        """Token `j` is read: the lexer's errors before it are reported now."""
        while self.lexed < len(self.lexer_errors) and self.lexer_errors[self.lexed][0] <= j:
            _, offset, message = self.lexer_errors[self.lexed]
            self.lexed += 1
            self.syntax(offset, message)

    def fail(self, token: Token | None = None, message: str = "") -> _Stop:
        """A syntax error this parser does not recover from: reported, and the parse ends (ANTLR would
        recover and read on: the lexer's errors in the rest are reported)."""
        token = token or self.tok
        if not message:
            message = f"Syntax error: mismatched input '{self.shown(token)}'"
        self.syntax(token.start, message)
        self.read(len(self.toks) - 1)
        return _Stop()

    def shown(self, token: Token) -> str:
        """ANTLR's getTokenErrorDisplay: the token's text with line breaks and tabs escaped."""
        if token.kind == lexer.EOF:
            return "<EOF>"
        text = self.text[token.start:token.end]
        return text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")

    def syntax(self, offset: int, message: str) -> None:
        """parser.go SyntaxError: at most 100 syntax errors; the 101st says so and ends the parse."""
        if not self.errors.syntax_report():
            self.errors.report(offset, f"Syntax error: More than {self.errors.reporting_limit} syntax errors")
            raise _Stop()
        self.errors.report(offset, message)

    def drop_extraneous(self, expected: frozenset, text: str) -> None:
        """ANTLR's single-token deletion (DefaultErrorStrategy.sync): before an operand, a token that
        cannot start one while the next can is reported ("extraneous input") and skipped."""
        if self.kind() in expected or self.kind() == lexer.EOF or self.kind(1) not in expected:
            return
        token = self.advance()
        self.syntax(token.start, f"Syntax error: extraneous input '{self.shown(token)}' expecting {text}")

    def expect(self, kind: str, expected: str = "", missing: bool = True) -> Token:
        """Match `kind`; at the end, ANTLR conjures a missing `)` or `]` ("missing ')' at '<EOF>'") or says
        what it expected (`expected`, else the kind), and its recovery closes the rest silently."""
        if self.kind() != kind:
            if self.kind() == lexer.EOF and (kind in (")", "]", ":") or expected):
                if not self.ended:
                    self.ended = True
                    conjured = missing and kind in (")", "]")
                    self.syntax(self.tok.start, f"Syntax error: missing '{kind}' at '<EOF>'" if conjured
                                else f"Syntax error: mismatched input '<EOF>' expecting {expected or repr(kind)}")
                return self.tok  # EOF, not consumed
            raise self.fail()
        return self.advance()

    def end_here(self, *messages: str) -> Node:
        """An operand missing at the end: ANTLR's errors here, then its recovery closes the rest silently;
        the operand is VisitUnary's "<<error>>" literal (visited, no depth of its own)."""
        if not self.ended:
            self.ended = True
            for message in messages:
                self.syntax(self.tok.start, "Syntax error: " + message)
        return Node("error", self.tok.start)

    # --- rules

    def start(self) -> Node:
        """start: expr EOF. A token left over is dropped when the end follows it ("extraneous input"),
        else reported ("mismatched input"), and ANTLR's recovery skips the rest; the tree is visited."""
        node = self.run(self.expr(1, 0, 0))
        token = self.tok
        if token.kind == lexer.EOF:
            return node
        word = "extraneous" if self.kind(1) == lexer.EOF else "mismatched"
        self.syntax(token.start, f"Syntax error: {word} input '{self.shown(token)}' expecting <EOF>")
        self.read(len(self.toks) - 1)  # the recovery reads to the end
        return node

    def run(self, top) -> Node:
        """Drives the rule generators with an explicit stack: a rule yields (e, r, c) where it
        needs a nested `expr` and is sent the parsed node, so nesting never recurses in Python."""
        stack, value = [top], None
        self.frames.append([frozenset(), False])
        while stack:
            try:
                request = stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                self.frames.pop()
                value = done.value
                continue
            e, r, c, expected, follow = (request + (_OPERAND, frozenset()))[:5] if len(request) < 5 else request
            self.frames.append([follow, False])  # the tokens this construct adds; whether in a then-branch
            stack.append(self.expr(e, r, c, expected))
            value = None
        return value

    def after_operand(self) -> set:
        """What may follow an operand of the expression under way: a selection or index, an operator,
        `?` (in a then-branch `:`), what its construct takes next."""
        follow, then = self.frames[-1]
        takes = {":"} if then else ({":"} if follow is _IN_KEY else follow - _MEMBER) | {"?"}
        return takes | _MEMBER | _OPERATORS | ({lexer.EOF} if len(self.frames) == 1 else set())

    def resync(self, token: Token) -> Node:
        """After "mismatched input" where an operand should start: ANTLR skips to a token of its recovery
        set and the operand is its "<<error>>". Followed when the skip ends on a token this construct or
        its expression takes; on another construct's, the parse ends here."""
        follow, then = self.frames[-1]
        # what this expression takes next: an operator, `?` (or in a then-branch only `:`), or what its
        # construct takes right after it (a map key: only `:`)
        takes = {":"} if then else ({":"} if follow is _IN_KEY else follow - _MEMBER) | {"?"}
        stop = takes | _OPERATORS | {lexer.EOF}
        every = set(stop)
        for follow, then in self.frames:
            every |= follow | {":" if then else "?"}
        j = self.i
        while self.toks[j].kind not in every:
            j += 1
        self.read(j)
        self.i = j
        if self.kind() not in stop:
            self.read(len(self.toks) - 1)
            raise _Stop()
        if self.kind() == lexer.EOF:
            self.ended = True  # still recovering: nothing more is reported
        return Node("error", token.start)

    def limit(self, count: int) -> None:
        """The parse listener's check: a rule entered more than 250 times at once. Its panic is reported
        without a location (parser.go parse: p.errors.internalError), like the visitor's."""
        if count > MAX_RECURSION_DEPTH:
            self.errors.report(None, f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}")
            raise _Stop()

    def expr(self, e: int, r: int, c: int, expected: tuple | None = _OPERAND) -> Node:
        """expr: conditionalOr ('?' conditionalOr ':' expr)?, the else-chain as a loop.

        `e`, `r`, `c`: `expr`, `relation` and `calc` rule invocations active, this one included in `e`.
        `expected`: what ANTLR expects before this expression's first operand (kinds, text), where it
        drops an extraneous token or names them in its error; None after a list's or map's comma,
        where it reports a missing `]` or `}` instead (not recovered here).
        """
        self.limit(e)
        parts = []
        frame = self.frames[-1]
        while True:
            frame[1] = len(parts) % 2 == 1  # a then-branch: `:` follows it (for recovery)
            parts.append((yield from self.binary(e, r, c, expected)))
            frame[1] = False
            expected = _OPERAND
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

    def binary(self, e: int, r: int, c: int, expected: tuple | None = _OPERAND) -> Node:
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
            operands.append((yield from self.unary(e, r + len(relations), c + len(calcs), expected)))
            expected = _OPERAND
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

    def unary(self, e: int, r: int, c: int, expected: tuple | None = _OPERAND) -> Node:
        """unary: ('!'+ | '-'+)? member, member: primary followed by selections, calls and indexes."""
        if expected:
            self.drop_extraneous(*expected)
        start = self.tok.start
        ops = ""
        if self.kind() in ("!", "-"):
            first = self.kind()
            while self.kind() == first:
                self.advance()
                ops += first
            expected = None  # after a run of `-`, ANTLR reports "no viable alternative" (not here)
            if first == "!":
                expected = _OPERAND
                self.drop_extraneous(*expected)
            if self.kind() == lexer.EOF:
                if first == "!":
                    return self.end_here(f"extraneous input '<EOF>' expecting {_OPERAND[1]}")
                return self.end_here("no viable alternative at input '-'",
                                     f"mismatched input '<EOF>' expecting {_OPERAND[1]}")
            if ops == "-" and self.kind() in (lexer.INT, lexer.FLOAT):
                # literal: MINUS? NUM_INT. One minus: ANTLR prefers the literal alternative; more:
                # its `'-'+` loop takes them all, so `--9223372036854775808` is out of range.
                ops = ""
                self.i -= 1
        node = yield from self.primary(e, r, c, expected, not ops)
        while True:
            k = self.kind()
            if k == "." and self.kind(1) == lexer.EOF:
                self.advance()
                self.end_here("no viable alternative at input '.'")
                break
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
                self.drop_extraneous(*_INDEX)
                optional = self.kind() == "?"
                if optional:
                    self.advance()
                index = (yield (e + 1, r, c, _OPERAND if optional else _INDEX, _IN_INDEX))
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
        depth = 1 + max([target.depth] + [a.depth for a in args])
        node = Node("call", name.start, text, (target, *args), depth=depth)
        node.issue = _macro_issue(text, [unwrap(a) for a in args], names)
        return node

    def arguments(self, e: int, r: int, c: int, close: str) -> list[Node]:
        """exprList? then `close`: no trailing comma."""
        self.expect("(")
        self.drop_extraneous(*_FIRST_ARGUMENT)
        args = []
        if self.kind() != close:
            while True:
                args.append((yield (e + 1, r, c, _OPERAND if args else _FIRST_ARGUMENT, _IN_ARGUMENTS)))
                if self.kind() != ",":
                    break
                self.advance()
        self.expect(close)
        return args

    def primary(self, e: int, r: int, c: int, expected: tuple | None = None, recover: bool = False) -> Node:
        """`recover`: an operand of its own (no `!` or `-` before it), where ANTLR's recovery is followed."""
        token = self.tok
        k = token.kind
        if k == "." or k == lexer.IDENT:
            return (yield from self.identifier(e, r, c))
        if k == "(":
            self.advance()
            inner = (yield (e + 1, r, c, _OPERAND, _IN_PAREN))
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
        if expected:
            message = f"mismatched input '{self.shown(token)}' expecting {expected[1]}"
            if token.kind != lexer.EOF:
                if expected is not _OPERAND or not recover:
                    raise self.fail(message="Syntax error: " + message)
                self.syntax(token.start, "Syntax error: " + message)
                return self.resync(token)
            return self.end_here(message)
        if self.ended:
            return self.end_here()
        raise self.fail()

    def identifier(self, e: int, r: int, c: int) -> Node:
        """Ident, GlobalCall or CreateMessage (`.`? IDENT ('.' IDENT)* '{')."""
        start = self.tok.start
        lead = ""
        if self.kind() == ".":
            self.advance()
            lead = "."
            if self.kind() == lexer.EOF:
                return self.end_here("no viable alternative at input '.'")
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
        # VisitIdent / VisitGlobalCall: a reserved name is reported, and a call's arguments not visited
        reserved = (start, f"reserved identifier: {ident}", PRE) if ident in RESERVED_IDS else None
        if self.kind() == "(":
            args = yield from self.arguments(e, r, c, ")")
            node = Node("call", start, lead + ident, (None, *args), depth=_deepest(args))
            if reserved is not None:
                node.issue = reserved[:2] + (SKIP,)
            elif lead + ident == "has" and len(args) == 1:
                arg = unwrap(args[0])
                if arg.kind != "select" or arg.optional:
                    node.issue = (arg.start, "invalid argument to has() macro", POST)
            return node
        node = Node("ident", start, lead + ident)
        node.issue = reserved
        return node

    def entries(self, e: int, r: int, c: int, close: str, keyed: bool, fields: bool = False):
        """listInit / mapInitializerList / fieldInitializerList, each with an optional trailing comma.

        Returns per-entry optional flags and the children (key, value pairs flattened when keyed).
        """
        flags, children = [], []
        if not fields:
            self.drop_extraneous(*(_FIRST_KEY if keyed else _FIRST_ELEMENT))
        first = True
        if self.kind() == "," and (not fields or self.kind(1) == close):  # `[,]`: the trailing comma alone
            self.advance()
            if self.kind() == lexer.EOF:
                self.end_here(f"missing '{close}' at '<EOF>'")
                return flags, children
            if self.kind() != close:  # ANTLR drops one token before the closing one, else stops here
                token = self.tok
                if self.kind(1) != close:
                    raise self.fail(message=f"Syntax error: mismatched input '{self.shown(token)}' expecting "
                                            f"'{close}'")
                self.advance()
                self.syntax(token.start, f"Syntax error: extraneous input '{self.shown(token)}' expecting '{close}'")
        while self.kind() != close:
            if not first and self.kind() == lexer.EOF:  # after a comma: ANTLR conjures the closing token
                self.end_here(f"missing '{close}' at '<EOF>'")
                break
            if not first and not fields and self.kind() not in _OPERAND[0] | {"?"}:
                # the comma was the trailing one: ANTLR conjures the closing token if what comes may
                # follow it, else it reports what it expected (and its recovery is not followed here)
                token = self.tok
                if token.kind not in self.after_operand():
                    raise self.fail(message=f"Syntax error: mismatched input '{self.shown(token)}' expecting "
                                            f"'{close}'")
                self.syntax(token.start, f"Syntax error: missing '{close}' at '{self.shown(token)}'")
                return flags, children
            optional = self.kind() == "?"
            if optional:
                self.advance()
            if fields:
                name = self.tok
                if first and not optional and name.kind == lexer.EOF:
                    self.end_here("mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}")
                    break
                if name.kind not in (lexer.IDENT, lexer.ESC_IDENT):
                    raise self.fail()
                self.advance()
                children.append(Node("field", name.start, self.text[name.start:name.end]))
            else:
                at_first = (_FIRST_KEY if keyed else _FIRST_ELEMENT) if first else None
                children.append((yield (e + 1, r, c, _OPERAND if optional else at_first,
                                         _IN_KEY if keyed else _IN_LIST)))
            if keyed:
                self.expect(":", "':'")
                children.append((yield (e + 1, r, c, _OPERAND, _IN_VALUE)))
            flags.append(optional)
            first = False
            if self.kind() != "," or self.ended:
                break
            self.advance()
        self.expect(close, f"{{'{close}', ','}}", missing=False)
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
        problem = ""
        if sign and k not in (lexer.INT, lexer.FLOAT):  # `!-"a"`: only numbers take a sign
            raise self.fail(token)
        if k == lexer.INT:
            value = _literal_value(sign, body)
            if value is None or not -(1 << 63) <= value < (1 << 63):
                problem = "invalid int literal"
        elif k == lexer.UINT:
            value = _literal_value("", body[:-1])
            if value is None or not 0 <= value < (1 << 64):
                problem = "invalid uint literal"
        elif k == lexer.FLOAT:
            if math.isinf(float(body)):  # Go's ParseFloat reports a range error
                problem = "invalid double literal"
        elif k in (lexer.STRING, lexer.BYTES):
            problem = _unescape_problem(body[1:] if k == lexer.BYTES else body, k == lexer.BYTES)
        elif k not in ("true", "false", "null"):
            raise self.fail(token)
        node = Node("literal", start, sign + body)
        if problem:  # the visitor's literal checks (VisitInt, VisitString, ...)
            node.issue = (start, problem, PRE)
        return node


# What each macro says of a variable argument that is not a simple identifier (cel-go v0.26 parser/macro.go
# MakeMap, MakeFilter, makeQuantifier; ext/comprehensions.go extractIterVar; ext/bindings.go; cel/library.go).
_NOT_A_NAME = {"map": "argument is not an identifier", "filter": "argument is not an identifier",
               "bind": "cel.bind() variable names must be simple identifiers",
               "optMap": "optMap() variable name must be a simple identifier",
               "optFlatMap": "optFlatMap() variable name must be a simple identifier"}
_OVERWRITES = "iteration variable overwrites accumulator variable"


def _macro_issue(text: str, args: list, names: int) -> tuple | None:
    """The macro expander's complaint about its variable arguments (after the visitor visited them):
    `names` leading arguments are variables (two: ext/comprehensions.go extractIterVars)."""
    if not names:
        return None
    for arg in args[:names]:
        if arg.kind != "ident":
            return (arg.start, _NOT_A_NAME.get(text, "argument must be a simple name"), POST)
    if names == 2 and args[0].text == args[1].text:
        return (args[1].start, f"duplicate variable name: {args[0].text}", POST)
    if text not in ("bind", "optMap", "optFlatMap"):
        for arg in args[:names]:
            if arg.text == "__result__":  # parser.AccumulatorName (the hidden one, @result, is no identifier)
                return (arg.start, _OVERWRITES, POST)
    return None


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


def _literal_value(sign: str, body: str) -> int | None:
    """An integer literal's value (0x hex or decimal digits); None past 20 significant digits."""
    if body.startswith("0x"):
        digits = body[2:].lstrip("0") or "0"
        return int(sign + digits, 16) if len(digits) <= 17 else None
    return parse_decimal(sign + body, signed=True, max_digits=20)
