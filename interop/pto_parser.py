"""Reading ``.pto`` text (seed 000 §8.1) into a syntax tree; ``parse`` builds the IR.

The grammar is seed 000 §8.1's with the extensions docs/interop.md lists (kernel
declarations, MLIR types for parameters, pipeline parameters, index arithmetic, view
slices, calls, events and the seed 004 directives). MLIR types and kernel declarations are
read by xDSL's own parser, started at the right place of the text, so they have exactly
the syntax of the IR.

Errors are ``PtoParseError``s: xDSL ``ParseError``s whose span points into the ``.pto``
text, with ``line``, ``column`` and ``message`` as seed 000 §9.2's ParseError has them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from pto_wsp.dialects.csp import SignalType
from pto_wsp.dialects.wsp import (
    DenseAxisType,
    DenseDynAxisType,
    KernelOp,
    RaggedAxisType,
    SparseAxisType,
    TaskType,
)

from . import pto_ast as ast

#: The targets a module header may name (seed 000 §7.3).
TARGETS = ("cpu_sim", "ascend_npu", "amd_aie")
DEFAULT_VERSION = "9.0"

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*)
  | (?P<value>%[A-Za-z0-9_$]+)
  | (?P<symbol>@[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<type>![A-Za-z_][A-Za-z0-9_$.]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<int>[0-9]+)
  | (?P<punct><=|>=|==|!=|:\+|[()\[\]{},:=|+\-*/<>])
    """,
    re.VERBOSE,
)

#: Binary operators by precedence level (loosest first).
_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_ADDITIVE = ("+", "-")
_MULTIPLICATIVE = ("*", "/", "mod")

_AXIS_KEYWORDS = ("Dense", "DenseDyn", "Ragged", "Sparse")
_PTO_TYPES = (*_AXIS_KEYWORDS, "Channel")

#: A count, size or grid axis is stored in a signed 64-bit integer; an expression's literal is
#: an ``index``, which holds -2^63 .. 2^64 - 1 (the latter a bit pattern), as MLIR reads it.
_INT64_END = 1 << 63
_INDEX_RANGE = (-(1 << 63), 1 << 64)


class PtoParseError(ParseError):
    """A syntax or meaning error in a ``.pto`` file, at a line and column (seed 000 §9.2)."""

    def __init__(self, span: Span, msg: str):
        super().__init__(span, msg)

    @property
    def line(self) -> int:
        return self.span.get_location().line

    @property
    def column(self) -> int:
        return self.span.get_location().col

    @property
    def message(self) -> str:
        return self.msg


@dataclass
class Token:
    kind: str  # value | symbol | type | ident | int | punct | eof
    text: str
    start: int
    end: int


class PtoParser:
    """A recursive-descent parser of one ``.pto`` text into a ``pto_ast.ModuleDef``."""

    def __init__(self, ctx: Context, text: str, name: str = "<pto>", line_offset: int = 0):
        self.ctx = ctx
        self.text = text
        self.input = Input(text, name)
        self.line_offset = line_offset
        self._pos = 0
        self._token: Token | None = None
        self.type_aliases: dict[str, ast.PtoType] = {}
        #: The name each value name is read as -> how it was first written (see ``name``).
        self._spellings: dict[str, str] = {}

    # ------------------------------------------------------------------ errors

    def span(self, start: int, end: int | None = None) -> Span:
        end = start + 1 if end is None else max(end, start)
        start = min(start, len(self.text))
        return Span(start, min(max(end, start), len(self.text)), self.input, self.line_offset)

    def error(self, message: str, start: int, end: int | None = None) -> PtoParseError:
        return PtoParseError(self.span(start, end), message)

    # ------------------------------------------------------------------ lexing

    def _lex(self, pos: int) -> Token:
        while True:
            if pos >= len(self.text):
                return Token("eof", "", len(self.text), len(self.text))
            match = _TOKEN.match(self.text, pos)
            if match is None:
                raise self.error(f"unexpected character '{self.text[pos]}'", pos)
            kind = match.lastgroup
            assert kind is not None
            if kind in ("space", "comment"):
                pos = match.end()
                continue
            return Token(kind, match.group(), match.start(), match.end())

    def peek(self) -> Token:
        if self._token is None:
            self._token = self._lex(self._pos)
        return self._token

    def next(self) -> Token:
        token = self.peek()
        self._pos = token.end
        self._token = None
        return token

    def seek(self, pos: int) -> None:
        self._pos = pos
        self._token = None

    def at(self, text: str) -> bool:
        token = self.peek()
        return token.kind in ("punct", "ident") and token.text == text

    def accept(self, text: str) -> Token | None:
        return self.next() if self.at(text) else None

    def expect(self, text: str, context: str = "") -> Token:
        if self.at(text):
            return self.next()
        raise self._unexpected(f"'{text}'", context)

    def _unexpected(self, what: str, context: str = "") -> PtoParseError:
        token = self.peek()
        got = "end of file" if token.kind == "eof" else f"'{token.text}'"
        return self.error(f"expected {what}{context}, got {got}", token.start, token.end)

    def expect_kind(self, kind: str, what: str, context: str = "") -> Token:
        if self.peek().kind == kind:
            return self.next()
        raise self._unexpected(what, context)

    def name(self, what: str = "a %name") -> ast.Name:
        """A ``%name``. A numbered one (``%0``, as MLIR writes them) is read as ``%v0``: the
        IR's names are identifiers, since schedules and bindings refer to them."""
        token = self.expect_kind("value", what)
        text = token.text[1:]
        if text[0].isdigit():
            text = "v" + text
        spelled = self._spellings.setdefault(text, token.text)
        if spelled != token.text:
            raise self.error(
                f"{token.text} and {spelled} are the same name here (a name starting with a "
                f"digit is read as %{text})",
                token.start,
                token.end,
            )
        return ast.Name(token.start, text)

    def integer(self, context: str = "") -> int:
        """A count or size: a non-negative literal that fits in a signed 64-bit integer."""
        token = self.expect_kind("int", "an integer", context)
        return self._int_value(token, None, (0, _INT64_END), "64 bits (signed)")

    def _int_value(
        self, token: Token, minus: Token | None, bounds: tuple[int, int], width: str
    ) -> int:
        """The value of an integer literal (after ``minus``, if any) within ``bounds``."""
        value = -int(token.text) if minus is not None else int(token.text)
        if not bounds[0] <= value < bounds[1]:
            start = minus.start if minus is not None else token.start
            raise self.error(
                f"integer constant out of range: {value} does not fit in {width}",
                start,
                token.end,
            )
        return value

    def ident(self, what: str, context: str = "") -> Token:
        return self.expect_kind("ident", what, context)

    # ------------------------------------------------------------------ xDSL fragments

    def _xdsl_parser(self, start: int, prefix: str = "") -> tuple[Parser, int]:
        """An xDSL parser of the text from ``start`` (after ``prefix``) and the offset to add
        to its positions to get ours."""
        return Parser(self.ctx, prefix + self.text[start:], self.input.name), start - len(prefix)

    def _reraise(self, error: ParseError, offset: int) -> PtoParseError:
        span = error.span
        return self.error(error.msg, span.start + offset, span.end + offset)

    def mlir_type(self) -> Attribute:
        """An MLIR type (``memref<?x64xf32>``, ``index``, ``!wsp.dense<8>``) at the current token."""
        start = self.peek().start
        parser, offset = self._xdsl_parser(start)
        try:
            result = parser.parse_type()
            end = parser.pos
        except ParseError as error:
            raise self._reraise(error, offset) from None
        self.seek(end + offset)
        return result

    # ------------------------------------------------------------------ module

    def parse_module(self) -> ast.ModuleDef:
        name, version, targets = self.header()
        definitions: list[ast.Definition] = []
        while True:
            token = self.peek()
            if token.kind == "eof":
                break
            if token.kind == "type":
                self.type_def()
            elif token.text == "@kernel":
                definitions.append(self.kernel_def())
            elif token.text == "@workload":
                definitions.append(self.workload_def())
            elif token.text == "@schedule":
                definitions.append(self.schedule_def())
            elif token.text == "@pipeline":
                definitions.append(self.pipeline_def())
            else:
                raise self._unexpected(
                    "a type definition (!name = ...), @kernel, @workload, @schedule or @pipeline"
                )
        return ast.ModuleDef(name, version, targets, definitions)

    def header(self) -> tuple[str, str, list[str]]:
        """``// PTO Module: NAME``, ``// Version: V``, ``// Target: a | b`` (the first lines)."""
        pos = 0
        fields: list[tuple[str, int]] = []
        for label in ("PTO Module", "Version", "Target"):
            while pos < len(self.text) and self.text[pos] in " \t\r\n":
                pos += 1
            end = self.text.find("\n", pos)
            end = len(self.text) if end < 0 else end
            line = self.text[pos:end].rstrip("\r")
            match = re.match(rf"//\s*{label}:\s*", line)
            if match is None:
                raise self.error(
                    f"expected the module header line '// {label}: ...' "
                    "(a .pto file starts with // PTO Module:, // Version:, // Target:)",
                    pos,
                    pos + max(1, len(line)),
                )
            fields.append((line[match.end() :].strip(), pos + match.end()))
            pos = end
        (name, name_pos), (version, version_pos), (targets_text, targets_pos) = fields
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise self.error(
                f"module name '{name}' is not an identifier", name_pos, name_pos + len(name)
            )
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", version):
            raise self.error(f"bad version '{version}'", version_pos, version_pos + len(version))
        targets: list[str] = []
        offset = targets_pos
        for part in targets_text.split("|"):
            target = part.strip()
            at = offset + (len(part) - len(part.lstrip()))
            if target not in TARGETS:
                raise self.error(
                    f"unknown target '{target}' (targets: {', '.join(TARGETS)})",
                    at,
                    at + max(1, len(target)),
                )
            targets.append(target)
            offset += len(part) + 1
        self.seek(pos)
        return name, version, targets

    def type_def(self) -> None:
        token = self.next()
        alias = token.text[1:]
        if alias in self.type_aliases:
            raise self.error(f"type !{alias} is defined twice", token.start, token.end)
        self.expect("=", " after the type name")
        self.type_aliases[alias] = self.type_expr()

    def type_expr(self) -> ast.PtoType:
        """``Dense[N]``, ``DenseDyn``, ``Ragged``, ``Sparse``, ``Channel[T, N]``, ``Task``,
        ``Signal``, ``!alias`` or an MLIR type."""
        token = self.peek()
        if token.kind == "type" and token.text[1:] in self.type_aliases:
            self.next()
            return self.type_aliases[token.text[1:]]
        if token.kind == "type" and "." not in token.text:
            raise self.error(f"unknown type {token.text}", token.start, token.end)
        if token.kind == "ident":
            simple = {
                "DenseDyn": DenseDynAxisType(),
                "Ragged": RaggedAxisType(),
                "Sparse": SparseAxisType(),
                "Task": TaskType(),
                "Signal": SignalType(),
            }
            if token.text in simple:
                self.next()
                return simple[token.text]
            if token.text == "Dense":
                self.next()
                self.expect("[", " after Dense")
                size = self.integer(" (the size of Dense[N])")
                self.expect("]")
                return DenseAxisType(size)
            if token.text == "Channel":
                self.next()
                self.expect("[", " after Channel")
                element = self.type_expr()
                if not isinstance(element, Attribute):
                    raise self.error("a channel carries Task or Signal", token.start)
                self.expect(",", " (Channel[element, capacity])")
                capacity = self.integer(" (the channel capacity)")
                self.expect("]")
                return ast.ChannelTy(element, capacity)
        if token.kind in ("ident", "type"):
            return self.mlir_type()
        raise self._unexpected("a type")

    # ------------------------------------------------------------------ definitions

    def kernel_def(self) -> ast.KernelDef:
        start = self.next().start
        token = self.ident("the kernel's name", " after @kernel")
        parser, offset = self._xdsl_parser(token.start, "@")
        try:
            op = KernelOp.parse(parser)
            end = parser.pos
        except ParseError as error:
            raise self._reraise(error, offset) from None
        self.seek(end + offset)
        return ast.KernelDef(start, op)

    def params(self) -> list[ast.Param]:
        self.expect("(")
        params: list[ast.Param] = []
        if self.accept(")"):
            return params
        while True:
            name = self.name("a parameter (%name: type)")
            self.expect(":", " after the parameter name")
            params.append(ast.Param(name.pos, name.name, self.type_expr()))
            if self.accept(")"):
                return params
            self.expect(",", " or ')' in the parameter list")

    def workload_def(self) -> ast.WorkloadDef:
        start = self.next().start
        level = "cpu"
        if self.accept("["):
            token = self.ident("a level (npu or cpu)")
            if token.text not in ("cpu", "npu"):
                raise self.error(f"unknown level '{token.text}' (cpu or npu)", token.start)
            level = token.text
            self.expect("]")
        name = self.ident("the workload's name", " after @workload")
        params = self.params()
        return ast.WorkloadDef(start, name.text, level, params, self.body())

    def schedule_def(self) -> ast.ScheduleDef:
        start = self.next().start
        name = self.ident("the schedule's name", " after @schedule")
        self.expect("for", " (@schedule name for @workload)")
        target = self.expect_kind("symbol", "@workload_name", " after 'for'")
        self.expect("{")
        directives: list[ast.Directive] = []
        while not self.accept("}"):
            directives.append(self.directive())
        return ast.ScheduleDef(start, name.text, target.text[1:], target.start, directives)

    def pipeline_def(self) -> ast.PipelineDef:
        start = self.next().start
        name = self.ident("the pipeline's name", " after @pipeline")
        params = self.params() if self.at("(") else None
        self.expect("{")
        channels: list[ast.ChannelDecl] = []
        processes: list[ast.ProcessDef] = []
        while not self.accept("}"):
            if self.at("channel"):
                channels.append(self.channel_decl())
            elif self.at("process"):
                processes.append(self.process_def())
            else:
                raise self._unexpected("'channel', 'process' or '}'", " in a pipeline")
        return ast.PipelineDef(start, name.text, params, channels, processes)

    def channel_decl(self) -> ast.ChannelDecl:
        start = self.next().start
        name = self.name("the channel's %name")
        self.expect(":", " after the channel name")
        type_pos = self.peek().start
        type_ = self.type_expr()
        if not isinstance(type_, ast.ChannelTy):
            raise self.error(f"a channel needs a Channel[T, N] type, got {type_}", type_pos)
        return ast.ChannelDecl(start, name.name, type_)

    def process_def(self) -> ast.ProcessDef:
        start = self.next().start
        name = self.expect_kind("symbol", "the process's @name")
        lists: dict[str, list[ast.Name]] = {"consumes": [], "produces": []}
        replicas = 1
        for clause in ("consumes", "produces", "replicas"):
            if not self.accept(clause):
                continue
            self.expect("(")
            if clause == "replicas":
                replicas = self.integer(" (the replica count)")
                self.expect(")")
                continue
            while True:
                lists[clause].append(self.name("a channel %name"))
                if self.accept(")"):
                    break
                self.expect(",", " or ')'")
        body = self.body()
        return ast.ProcessDef(
            start, name.text[1:], lists["consumes"], lists["produces"], replicas, body
        )

    # ------------------------------------------------------------------ schedules

    def directive(self) -> ast.Directive:
        token = self.ident("a schedule directive (dispatch, streams, stream_by, timing, ...)")
        name, pos = token.text, token.start
        if name == "layout":
            tensor = self.name("the tensor's %name")
            self.expect("=")
            self.expect("(")
            dims: list[int | None] = []
            while True:
                entry = self.ident("Shard(d) or Replicate")
                if entry.text == "Replicate":
                    dims.append(None)
                elif entry.text == "Shard":
                    self.expect("(")
                    dims.append(self.integer(" (the grid axis)"))
                    self.expect(")")
                else:
                    raise self.error(
                        f"expected Shard(d) or Replicate, got '{entry.text}'", entry.start
                    )
                if self.accept(")"):
                    break
                self.expect(",", " or ')'")
            return ast.Directive(pos, name, tensor=tensor, dims=dims)
        self.expect("=", f" after '{name}'")
        if name in ("streams", "batch_deps"):
            return ast.Directive(pos, name, count=self.integer())
        if name == "stream_by":
            return ast.Directive(pos, name, key=self.expr())
        if name == "spatial_map":
            self.expect("(")
            grid = [self.integer()]
            while self.accept(","):
                grid.append(self.integer())
            self.expect(")")
            return ast.Directive(pos, name, grid=grid)
        if name in ("dispatch", "timing", "issue"):
            policy = self.ident(f"a {name} policy")
            d = ast.Directive(pos, name, policy=policy.text)
            if policy.text in ("round_robin", "batched", "interleaved", "rate_limit"):
                self.expect("(")
                d.count = self.integer()
                self.expect(")")
            elif policy.text in ("affinity",):
                self.expect("(")
                d.axis = self.name("a task coordinate (%b)")
                self.expect(")")
            elif policy.text == "range":
                self.expect("(")
                d.axis = self.name("a task coordinate (%b)")
                self.expect(",")
                d.count = self.integer()
                self.expect(")")
            elif policy.text in ("hash", "dispatch_by", "priority"):
                self.expect("(")
                d.key = self.expr()
                self.expect(")")
            return d
        if name == "dispatch_threshold":
            d = ast.Directive(pos, name, count=self.integer(" (the threshold)"))
            for clause in ("below", "above"):
                self.expect(clause, " (dispatch_threshold = T below(pool) above(pool) by(key))")
                self.expect("(")
                setattr(d, clause, self.ident("a pool (vector or cube)").text)
                self.expect(")")
            self.expect("by")
            self.expect("(")
            d.key = self.expr()
            self.expect(")")
            return d
        if name in ("pipeline_depth", "task_window"):
            clause = "scope" if name == "pipeline_depth" else "overflow"
            d = ast.Directive(pos, name, count=self.integer())
            d.policy = "global" if name == "pipeline_depth" else "stall"
            if self.accept(clause):
                self.expect("(")
                d.policy = self.ident(f"a {clause}").text
                self.expect(")")
            return d
        raise self.error(f"unknown schedule directive '{name}'", pos, token.end)

    # ------------------------------------------------------------------ workload bodies

    def body(self) -> list[ast.Stmt]:
        self.expect("{")
        stmts: list[ast.Stmt] = []
        while not self.accept("}"):
            stmts.append(self.stmt())
        return stmts

    def stmt(self) -> ast.Stmt:
        token = self.peek()
        if token.kind == "value":
            result = self.name()
            self.expect("=", " (only a task can be named: %t = task ...)")
            if not self.at("task"):
                raise self._unexpected("'task'", f" after '%{result.name} ='")
            return self.task(result)
        if token.kind != "ident":
            raise self._unexpected("a workload statement")
        word = token.text
        if word in ("parallel_for", "for_each"):
            self.next()
            indices = [self.name("the loop index %name")]
            while self.accept(","):
                indices.append(self.name("a second loop index %name"))
            self.expect("in", " after the loop index")
            axis = self.axis_expr()
            return ast.Loop(token.start, word, indices, axis, self.body())
        if word == "select":
            self.next()
            index = self.name("the select index %name")
            self.expect("in")
            axis = self.axis_expr()
            if isinstance(axis, ast.Subscript) and not self.at("["):
                # ``%s[%row]`` of a Sparse argument was read as a subscript: its last entry
                # is the row.
                *entries, last = axis.entries
                if last.kind != "index":
                    raise self.error("the row of a select is one index: [%row]", last.pos)
                row = last.first
                axis = ast.Subscript(axis.pos, axis.base, entries) if entries else axis.base
            else:
                self.expect("[", " (select %e in sparse[%row])")
                row = self.expr()
                self.expect("]")
            return ast.Select(token.start, index, axis, row, self.body())
        if word == "cond":
            self.next()
            predicate = self.expr()
            then_body = self.body()
            else_body = self.body() if self.accept("else") else []
            return ast.Cond(token.start, predicate, then_body, else_body)
        if word in ("combine", "sequential"):
            self.next()
            return ast.Group(token.start, word, self.body())
        if word == "task":
            return self.task(None)
        if word == "yield":
            self.next()
            return ast.Yield(token.start, self.name("a task %name"))
        if word == "call":
            return self.call()
        if word == "send":
            self.next()
            channel = self.name("a channel %name")
            self.expect(",", " after the channel (send %ch, workload)")
            value: ast.Stmt | ast.Name
            value = self.name() if self.peek().kind == "value" else self.stmt()
            return ast.Send(token.start, channel, value)
        if word == "consume":
            self.next()
            channel = self.name("a channel %name")
            self.expect("as")
            var = self.name("the message %name")
            return ast.Consume(token.start, channel, var, self.body())
        if word in ("record", "synchronize"):
            self.next()
            return ast.Event(token.start, word, self.name("an event %name"))
        raise self.error(f"unknown workload statement '{word}'", token.start, token.end)

    def expr_list(self) -> list[ast.Expr]:
        self.expect("(")
        items: list[ast.Expr] = []
        if self.accept(")"):
            return items
        while True:
            items.append(self.expr())
            if self.accept(")"):
                return items
            self.expect(",", " or ')'")

    def task(self, result: ast.Name | None) -> ast.Task:
        start = self.next().start if result is None else result.pos
        if result is not None:
            self.next()
        kernel = self.expect_kind("symbol", "the kernel's @name", " after 'task'")
        params = self.expr_list()
        self.expect("resources", " after the task's parameters")
        resources = self.expr_list()
        return ast.Task(start, result, kernel.text[1:], kernel.start, params, resources)

    def call(self) -> ast.Call:
        start = self.next().start
        callee = self.expect_kind("symbol", "the callee's @name", " after 'call'")
        schedule = None
        if self.accept("with"):
            schedule = self.expect_kind("symbol", "a schedule's @name").text[1:]
        args = self.expr_list()
        resources = self.expr_list() if self.accept("resources") else []
        return ast.Call(start, callee.text[1:], callee.start, schedule, args, resources)

    # ------------------------------------------------------------------ expressions

    def axis_expr(self) -> ast.Expr:
        token = self.peek()
        if token.kind == "type" and token.text[1:] in self.type_aliases:
            self.next()
            alias = self.type_aliases[token.text[1:]]
            if isinstance(alias, DenseAxisType):
                return ast.AxisLit(token.start, "dense", size=alias.size.data)
            raise self.error(
                f"!{token.text[1:]} is not a static axis: only Dense[N] can stand for "
                "its own values (use DenseDyn(%n), a parameter or Ragged(...))",
                token.start,
                token.end,
            )
        return self.primary()

    def expr(self) -> ast.Expr:
        lhs = self._additive()
        token = self.peek()
        if token.kind == "punct" and token.text in _COMPARISONS:
            self.next()
            return ast.BinOp(token.start, token.text, lhs, self._additive())
        return lhs

    def _additive(self) -> ast.Expr:
        lhs = self._multiplicative()
        while self.peek().kind == "punct" and self.peek().text in _ADDITIVE:
            token = self.next()
            lhs = ast.BinOp(token.start, token.text, lhs, self._multiplicative())
        return lhs

    def _multiplicative(self) -> ast.Expr:
        lhs = self.primary()
        while self.peek().text in _MULTIPLICATIVE and self.peek().kind in ("punct", "ident"):
            token = self.next()
            lhs = ast.BinOp(token.start, token.text, lhs, self.primary())
        return lhs

    def primary(self) -> ast.Expr:
        minus = self.accept("-")  # a negative literal; the only unary operator
        token = self.peek()
        if minus is not None and token.kind != "int":
            raise self._unexpected("an integer after '-'")
        if token.kind == "int":
            self.next()
            value = self._int_value(token, minus, _INDEX_RANGE, "an index (64 bits)")
            return ast.Int(minus.start if minus is not None else token.start, value)
        if token.kind == "value":
            base = self.name()
            entries: list[ast.Entry] = []
            while self.at("["):
                entries.append(self.entry())
            return ast.Subscript(base.pos, base, entries) if entries else base
        if self.at("("):
            self.next()
            inner = self.expr()
            self.expect(")")
            if isinstance(inner, ast.Int):
                inner.paren = True
            return inner
        if token.kind == "ident" and token.text in ("true", "false"):
            self.next()
            return ast.Bool(token.start, token.text == "true")
        if token.kind == "ident" and token.text in _AXIS_KEYWORDS:
            self.next()
            if token.text == "Dense":
                self.expect("[")
                size = self.integer()
                self.expect("]")
                return ast.AxisLit(token.start, "dense", size=size)
            kind = {"DenseDyn": "dense_dyn", "Ragged": "ragged", "Sparse": "sparse"}[token.text]
            arity = {"dense_dyn": 1, "ragged": 2, "sparse": 3}[kind]
            args = self.expr_list()
            if len(args) != arity:
                raise self.error(
                    f"{token.text}(...) takes {arity} argument(s), got {len(args)}", token.start
                )
            return ast.AxisLit(token.start, kind, args=args)
        raise self._unexpected("an expression")

    def entry(self) -> ast.Entry:
        start = self.expect("[").start
        first = self.expr()
        if self.accept(":+"):
            entry = ast.Entry(start, "sized", first, self.expr())
        elif self.accept(":"):
            entry = ast.Entry(start, "slice", first, self.expr())
        else:
            entry = ast.Entry(start, "index", first)
        self.expect("]")
        return entry


def parse_ast(ctx: Context, text: str, name: str = "<pto>", line_offset: int = 0) -> ast.ModuleDef:
    """The syntax tree of a ``.pto`` text."""
    return PtoParser(ctx, text, name, line_offset).parse_module()


def default_context() -> Context:
    """A context with every dialect ``pto-opt`` knows."""
    from xdsl.universe import Universe

    ctx = Context()
    for dialect_name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(dialect_name, factory)
    return ctx


def parse(
    source: str,
    name: str = "<pto>",
    ctx: Context | None = None,
    line_offset: int = 0,
    verify: bool = True,
) -> ModuleOp:
    """Parse ``.pto`` text into a module of wsp/csp/sched ops (seed 000 §9.2 ``Parser::parse``).

    Raises ``PtoParseError`` (line, column, message) for bad text, and xDSL's
    ``VerifyException`` when ``verify`` and the built IR breaks a rule of the dialects.
    """
    from .pto_builder import build

    ctx = ctx or default_context()
    tree = parse_ast(ctx, source, name, line_offset)
    parser = PtoParser(ctx, source, name, line_offset)
    module = build(tree, parser)
    if verify:
        module.verify()
    return module


def from_file(path: str | Path, ctx: Context | None = None) -> ModuleOp:
    """Parse a ``.pto`` file (seed 000 §9.2 ``Parser::from_file``)."""
    return parse(Path(path).read_text(encoding="utf-8"), str(path), ctx)
