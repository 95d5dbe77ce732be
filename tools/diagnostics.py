"""MLIR-style diagnostics for the command-line tools: ``file:line:col: error: message``.

xDSL's parser keeps a span on its ``ParseError``s, but it neither gives parsed ops a source
location (``op.location`` stays ``loc(unknown)`` unless the text spells out ``loc(...)``) nor
says which op a ``VerifyException`` is about. This module closes both gaps:

- ``LocatingParser`` stamps every parsed op with ``loc("file":line:col)`` of its name, as
  MLIR's parser does, so the location survives cloning and passes, and rejects an ``index``
  literal that does not fit in 64 bits, as MLIR's parser does (xDSL checks only integer types),
  and a ``dense<...>`` element its element type cannot hold (xDSL lets the packing's
  ``ValueError``, ``OverflowError`` or ``struct.error`` out);
- ``failing_op`` recovers the op a verifier error is about from the error's traceback;
- ``Report`` renders an error with the source line and a caret under the location;
- ``internal_error`` reports a bug (an unexpected exception) in one line, for both tools.
"""

from __future__ import annotations

import dataclasses
import os
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyDenseElement,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    RankedStructure,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import AttributeInvT
from xdsl.parser import Parser, Span, UnresolvedOperand
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, MultipleSpansParseError, ParseError
from xdsl.utils.lexer import Location
from xdsl.utils.mlir_lexer import MLIRTokenKind

import pto_wsp.dialects  # noqa: F401 - xDSL's lexer and printer fixed before any parse

#: Set this environment variable to see the Python traceback of an internal error.
TRACEBACK_ENV = "PTO_WSP_TRACEBACK"


def internal_error(tool: str, error: Exception, culprit: str = "pto-wsp") -> int:
    """Report ``error``, an unexpected exception (a bug in ``culprit``, not in the input), as
    ``tool: internal error: ...`` and a note; return the exit code, 2. Called from an
    ``except`` block: with ``TRACEBACK_ENV`` set it re-raises ``error`` instead."""
    if os.environ.get(TRACEBACK_ENV):
        raise error
    print(
        f"{tool}: internal error: {type(error).__name__}: {error}\n"
        f"{tool}: note: this is a bug in {culprit}; set {TRACEBACK_ENV}=1 to see the Python "
        "traceback",
        file=sys.stderr,
    )
    return 2


def universe_context() -> Context:
    """A context with every dialect of the xDSL universe registered (pto-wsp's and the
    upstream ones, loaded on first use), as the command-line tools parse with."""
    from xdsl.universe import Universe

    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def parse_located(text: str, name: str = "<text>") -> ModuleOp:
    """``text`` parsed in ``universe_context()``, every op located (``LocatingParser``)."""
    return LocatingParser(universe_context(), text, name).parse_module()


class LocatingParser(Parser):
    """A ``Parser`` that gives each parsed op the file location of its name, as MLIR does."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0) -> None:
        super().__init__(ctx, text, name)
        # The chunk's first line is line ``line_offset + 1`` of the file (--split-input-file).
        self._line_offset = line_offset
        # Spans of the names of the ops being parsed, innermost last (ops nest).
        self._name_spans: list[Span] = []
        # Ops are met in increasing position, so lines are counted from the previous op
        # rather than from the start of the input (which would be quadratic).
        self._counted_to = 0
        self._line = 1
        self._failed_op_location: Location | None = None
        # Where each value used before its definition was used (see _raise_undeclared).
        self._forward_uses: dict[SSAValue, Span] = {}
        # The token that followed the last loc(...) parsed: an op whose text ends at it
        # wrote its location, if only loc(unknown), which must stay unknown to read back.
        self._after_location: Span | None = None

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        # Nothing but blanks and comments is an empty module, as mlir-opt reads it (xDSL
        # says "Could not parse entire input!" at 1:1).
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            self._raise_undeclared()  # xDSL says "values used but not defined" at the end
            raise

    def _raise_undeclared(self) -> None:
        """At its first use, the first value used and never defined in its scope, if any."""
        pending = [v for refs in self.forward_ssa_references.values() for v in refs.values()]
        spans = [self._forward_uses[v] for v in pending if v in self._forward_uses]
        if spans:
            span = min(spans, key=lambda s: s.start)
            raise ParseError(
                dataclasses.replace(span, line_offset=self._line_offset),
                f"use of undeclared SSA value {span.text}",
            )

    def parse_optional_region(
        self, arguments: Iterable[Parser.Argument] | None = None
    ) -> Region | None:
        # xDSL scopes the names a region defines but not the forward references: a name used
        # before its definition outside the region was resolved by a definition inside it
        # (a function's value used at module level, a pass then met an op using a value of
        # another function). As in MLIR, a region's definitions resolve only the uses in
        # it; its uses of names still undefined may be defined later outside it.
        outer, self.forward_ssa_references = self.forward_ssa_references, {}
        try:
            return super().parse_optional_region(arguments)
        finally:
            inner, self.forward_ssa_references = self.forward_ssa_references, outer
            for name, refs in inner.items():
                pending = outer.setdefault(name, {})
                for index, value in refs.items():
                    if index in pending:  # used on both sides: one placeholder
                        value.replace_all_uses_with(pending[index])
                    else:
                        pending[index] = value

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        # parse_operation reads the results, then the name: this is the only point where
        # the name's token is current, and it is where MLIR anchors an op's location.
        results = super()._parse_op_result_list()
        self._name_spans.append(self._current_token.span)
        return results

    def _get_op_by_name(self, name: str) -> type[Operation]:
        # xDSL prints a generic op's name between quotes as it is: a name with a quote, a
        # backslash or a character that is not printable ("\n", written escaped) would be
        # printed as text that does not read back, so it is refused here.
        if not name.isprintable() or '"' in name or "\\" in name:
            raise ParseError(
                self._name_spans[-1],
                f"operation name {name!r} has a character pto-wsp cannot print back "
                "(a quote, a backslash or one that is not printable)",
            )
        # xDSL blames the token after the name, and says the same whether the op or its
        # whole dialect is unknown; point at the name and tell the two apart.
        try:
            return super()._get_op_by_name(name)
        except ParseError as error:
            dialect = name.partition(".")[0]
            message = error.msg
            if "." in name and dialect not in self.ctx.registered_dialect_names:
                message += f" (there is no dialect '{dialect}')"
            raise ParseError(self._name_spans[-1], message) from None

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        # An index is 64 bits wide (the runtime's int64 fields, MLIR's storage width): MLIR's
        # parser takes -2^63 .. 2^64 - 1 (the latter as a bit pattern) and says "integer
        # constant out of range for attribute" beyond; xDSL's IntegerAttr checks no index.
        start = self._current_token.span
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            # xDSL packs a float into its type's width and lets struct's OverflowError out
            # (1.0e9 : f16); MLIR refuses such a literal.
            span = dataclasses.replace(start, line_offset=self._line_offset)
            raise ParseError(span, "floating point value too large for attribute") from None
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
            value = attr.value.data
            if not -(1 << 63) <= value < 1 << 64:
                span = dataclasses.replace(start, line_offset=self._line_offset)
                raise ParseError(
                    span,
                    f"integer constant out of range for attribute: {value} does not fit in an "
                    "index (64 bits)",
                )
        return attr

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        start = self._current_token.span.start
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except ValueError as error:  # xDSL's own message names the value and the range
            message = str(error)
        except OverflowError:
            message = "floating point value too large for the dense literal's element type"
        except struct.error:  # an index: xDSL checks no range before packing it in 64 bits
            message = "integer constant out of range for the dense literal's element type"
        span = Span(start, self.pos, self.lexer.input, self._line_offset)
        raise ParseError(span, message)

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue:
        value = super().resolve_operand(operand, type)
        if isinstance(value, ForwardDeclaredValue):
            self._forward_uses.setdefault(value, operand.span)
        return value

    def parse_operation(self) -> Operation:
        depth = len(self._name_spans)
        try:
            op = super().parse_operation()
            name_span = self._name_spans[depth]
        except DiagnosticException:
            # Not a syntax error (ParseError is no DiagnosticException) but, say, an
            # attribute's verifier: it has no position, so blame the innermost op.
            if self._failed_op_location is None and depth < len(self._name_spans):
                self._failed_op_location = self._location(self._name_spans[depth].start)
            raise
        finally:
            del self._name_spans[depth:]
        explicit = self._after_location == self._current_token.span
        if isinstance(op.location, UnknownLoc) and not explicit:
            location = self._location(name_span.start)
            op.location = FileLineColLoc(
                StringAttr(location.file), IntAttr(location.line), IntAttr(location.col)
            )
        return op

    def parse_optional_location(self) -> LocationAttr | None:
        location = super().parse_optional_location()
        if location is not None:
            self._after_location = self._current_token.span
        return location

    def _location(self, position: int) -> Location:
        source = self.lexer.input
        if position < self._counted_to:  # backtracking moved us back: count afresh
            self._counted_to, self._line = 0, 1
        self._line += source.content.count("\n", self._counted_to, position)
        self._counted_to = position
        column = position - source.get_start_of_line(position) + 1
        return Location(source.name, self._line + self._line_offset, column)

    def failure_location(self) -> Location:
        """Where to report an error that escaped the parser without a position of its own:
        the op it was parsing, else the current token."""
        if self._failed_op_location is not None:
            return self._failed_op_location
        span = dataclasses.replace(self._current_token.span, line_offset=self._line_offset)
        return span.get_location()


def failing_op(error: BaseException) -> Operation | None:
    """The op that ``error`` is about: the innermost op whose verifier it went through.

    xDSL's ``VerifyException`` does not carry its op, but ``Operation.verify``, ``verify_``
    and ``emit_error`` are methods of that op, so their frames on the traceback hold it. An
    ``OpVerifyException`` (a verifier's finding about a nested op) names it.
    """
    named = getattr(error, "op", None)  # dialects.traits.OpVerifyException: a nested op
    if isinstance(named, Operation):
        return named
    found: Operation | None = None
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        if frame.f_code.co_name in ("verify", "verify_", "emit_error"):
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, Operation):
                found = candidate
        trace = trace.tb_next
    return found


def file_location(location: Attribute) -> Location | None:
    """The file:line:col a location attribute points at, if it points at one."""
    match location:
        case FileLineColLoc():
            return Location(location.filename.data, location.line.data, location.column.data)
        case NameLoc():
            return file_location(location.location)
        case CallSiteLoc():
            return file_location(location.callee)
        case FusedLoc():
            found = (file_location(loc) for loc in location.locations.data)
            return next((loc for loc in found if loc is not None), None)
        case _:
            return None


def op_location(op: Operation) -> Location | None:
    """The file location of ``op`` or, for an op a pass built without one, of its parent."""
    current: Operation | None = op
    while current is not None:
        if (location := file_location(current.location)) is not None:
            return location
        current = current.parent_op()
    return None


def generic_text(op: Operation) -> str:
    """``op`` printed in the generic format, as MLIR's "see current operation" note does."""
    text = StringIO()
    Printer(stream=text, print_generic_format=True).print_op(op)
    return text.getvalue()


@dataclass
class Report:
    """One error: where (if known), what, and notes that follow it."""

    location: Location | None
    message: str
    width: int = 1
    """How many characters to underline at the location."""
    notes: list[tuple[Location | None, str]] = field(default_factory=list)

    @staticmethod
    def from_parse_error(error: ParseError, line_offset: int = 0) -> Report:
        """The report of a parse error of a chunk starting after ``line_offset`` lines."""

        def located(span: Span) -> Location:
            return dataclasses.replace(span, line_offset=line_offset).get_location()

        report = Report(located(error.span), error.msg, max(error.span.len, 1))
        if isinstance(error, MultipleSpansParseError):
            for span, message in error.refs:
                # ref_text introduces a list ("originally declared here:"); a note is a line.
                note = message or (error.ref_text or "").rstrip(":")
                report.notes.append((located(span), note))
        return report

    def render(self, tool: str, source_name: str, source_lines: list[str]) -> str:
        """The report as text: the error line, the source line with carets, the notes.

        The source line is shown when the location is in ``source_name`` (an op may carry
        a ``loc(...)`` into another file, whose text we do not have).
        """
        out = [_headline(tool, self.location, "error", self.message)]
        if (
            self.location is not None
            and self.location.file == source_name
            and 1 <= self.location.line <= len(source_lines)
        ):
            line = source_lines[self.location.line - 1].rstrip("\r")
            # A span may run over several lines: underline it to the end of the first.
            width = max(1, min(self.width, len(line) - self.location.col + 1))
            out.extend([line, " " * (self.location.col - 1) + "^" * width])
        out.extend(_headline(tool, where, "note", text) for where, text in self.notes)
        return "\n".join(out) + "\n"


def _headline(tool: str, location: Location | None, severity: str, message: str) -> str:
    where = tool if location is None else str(location)
    return f"{where}: {severity}: {message}"
