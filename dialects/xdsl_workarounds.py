"""Workarounds of xDSL 0.74 bugs that break the promise of the tools: bad input never
hangs nor crashes, and what ``pto-opt`` prints it reads back. Imported with
``pto_wsp.dialects`` (so by pto-opt, pto-run and the ``.pto`` reader before they parse
anything); each patch is the smallest change that fixes its bug, to be dropped when xDSL
fixes it.

- The lexer's string-literal pattern, ``"(?:[^"...]+|escape)*"``, nests a ``+`` in a ``*``:
  on an unclosed ``"`` it backtracks through every way of splitting the rest of the line,
  2^n steps (a minute at 30 characters; ``memref<"?x32768x64xf32>`` is enough). The
  same pattern with possessive quantifiers matches exactly the same strings (its two
  alternatives never start with the same character) in linear time, so an unclosed
  string is at once the lexer's own located error.
- ``scf.execute_region`` without results prints its region without block terminators,
  which its parser does not put back (``scf.execute_region { scf.yield }`` prints as an
  empty region, which does not verify; a multi-block region loses its branches). It
  prints them here, as MLIR does; the parser reads that form. Its constructor also drops
  the attribute dictionary the parser hands it; it keeps it here.
- A string literal with escapes is lexed as bytes, not a string, unless its bytes are
  ASCII (its own docstring says: unless they decode as UTF-8). The printer escapes every
  non-ASCII byte, so a string holding "é" printed as ``"\\C3\\A9"`` read back as bytes: a
  ``BytesAttr`` where a ``StringAttr`` was, or "string literal expected" in custom
  syntax. Such a literal is a string here, as MLIR reads it (a ``BytesAttr`` of UTF-8
  bytes reads back as that string: MLIR has no bytes attribute).
- The verifiers of ``memref.load``/``memref.store`` raise a bare ``Exception`` when the
  index count is not the memref's rank, and ``scf.while``'s a bare ``Exception`` (or an
  ``IndexError``) when its regions' arguments do not match its operands or results: the
  tools reported those as internal errors. They raise ``VerifyException`` here, which the
  tools locate at the op.
- Index lists of xDSL's ops (``memref.subview %m[%o, 4] [...]``, ``tensor.extract_slice``...)
  are stored as ``i64`` arrays, whose constructor raises a ``ValueError`` on a literal
  beyond 64 bits; here such a literal is a ``ParseError`` at it.
- A block label used before its definition (``cf.br ^bb1`` above ``^bb1:``) is not
  recorded as defined when its definition comes, so a second ``^bb1:`` raised a
  ``KeyError`` instead of "re-declaration of block". It is recorded here. And where a
  label is expected but something else stands (a stray ``)`` after an op), the error
  says what was expected (xDSL's message was " in block definition").
- A block label that cannot be a block's name (``^64``, valid MLIR) made the parser raise
  a ``ValueError`` naming the block, except in one of its three places; it leaves such a
  block unnamed (printed ``^bbN``, as ``^bb64`` is) everywhere here.
- ``memref.global`` does not check its initial value against its type, nor
  ``memref.get_global`` its type against the global's: a 3-element ``dense<>`` for a
  ``memref<2147483647xindex>`` reached the passes, which failed reshaping it. Both are
  verifier errors here, as in MLIR.
- ``scf.while``'s printer writes its type with ``print_operation_type``, which with debug
  info (``--print-debuginfo``) appends the op's location there, before the regions, where
  no parser reads it: the op's location is printed after the whole op here, as MLIR does.
- The parser takes some tokens with an ``assert`` of their kind, trusting a look-ahead
  that does not always hold (``dense<(1, 1e-400)> : tensor<2xcomplex<i8>>``): an
  ``AssertionError`` reached the tools as an internal error. A token of another kind is a
  ``ParseError`` at it here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, TensorType
from xdsl.dialects.scf import ExecuteRegionOp, WhileOp
from xdsl.dialects.utils import dynamic_index_list
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.generic_parser import GenericParser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Position, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

from pto_wsp.dialects.parsing import parse_int64

MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
)

_lex_string_literal = MLIRLexer._lex_string_literal  # pyright: ignore[reportPrivateUsage]


def _lex_utf8_string_literal(self: MLIRLexer, start_pos: Position) -> MLIRToken:
    token = _lex_string_literal(self, start_pos)
    if token.kind == MLIRTokenKind.BYTES_LIT:
        try:
            StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
        except UnicodeDecodeError:
            return token
        return Token(MLIRTokenKind.STRING_LIT, token.span)
    return token


MLIRLexer._lex_string_literal = _lex_utf8_string_literal  # pyright: ignore[reportPrivateUsage]


def _print_execute_region(self: ExecuteRegionOp, printer: Printer) -> None:
    if self.outs:
        printer.print_string(" -> (")
        printer.print_list(self.outs.types, printer.print_attribute)
        printer.print_string(")")
    printer.print_string(" ")
    printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=True)
    if self.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(self.attributes)


def _init_execute_region(
    self: ExecuteRegionOp,
    result_types: Sequence[Attribute],
    region: Region,
    attr_dict: dict[str, Attribute] | None = None,
) -> None:
    IRDLOperation.__init__(
        self, result_types=(result_types,), regions=(region,), attributes=attr_dict
    )


ExecuteRegionOp.print = _print_execute_region
ExecuteRegionOp.__init__ = _init_execute_region


def _verify_indices(self: memref.LoadOp | memref.StoreOp) -> None:
    # xDSL's verify_ checks the op's definition (operand types...) before its own check.
    self.get_irdl_definition().verify(self)
    rank = self.memref.type.get_num_dims()
    if len(self.indices) != rank:
        action = "load" if isinstance(self, memref.LoadOp) else "store"
        raise VerifyException(
            f"incorrect number of indices for {action}, expected {rank} but got {len(self.indices)}"
        )


def _verify_while(self: WhileOp) -> None:
    self.get_irdl_definition().verify(self)  # among others, a single block in each region
    for name, region, values, what in (
        ("before", self.before_region, self.arguments, "operands"),
        ("after", self.after_region, self.res, "results"),
    ):
        expected = [value.type for value in values]
        got = [argument.type for argument in region.block.args]
        if got != expected:
            raise VerifyException(
                f"the '{name}' region's argument types ({_types(got)}) "
                f"do not match the op's {what} ({_types(expected)})"
            )


_verify_global = memref.GlobalOp.verify_


def _verify_global_value(self: memref.GlobalOp) -> None:
    _verify_global(self)
    value = self.initial_value
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(self.type, MemRefType):
        expected = TensorType(self.type.element_type, self.type.get_shape())
        if value.type != expected:
            raise VerifyException(
                f"initial value expected to be of type {expected}, but was of type {value.type}"
            )


def _verify_get_global(self: memref.GetGlobalOp) -> None:
    self.get_irdl_definition().verify(self)
    anchor = self.parent_op()
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    found = SymbolTable.lookup_symbol(anchor, self.name_) if anchor is not None else None
    if isinstance(found, memref.GlobalOp) and found.type != self.memref.type:
        raise VerifyException(
            f"result type {self.memref.type} does not match type {found.type} of the global "
            f"memref @{self.name_.string_value()}"
        )


def _types(types: list[Attribute]) -> str:
    return ", ".join(str(t) for t in types) or "none"


_parse_block = Parser._parse_block  # pyright: ignore[reportPrivateUsage]


def _parse_block_recording_its_label(self: Parser) -> Block:
    token = self._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind != MLIRTokenKind.CARET_IDENT:
        raise ParseError(
            token.span, "expected an operation, a block label (^bb1:) or '}' closing the region"
        )
    label = token.span
    block = _parse_block(self)
    name = label.text[1:]
    if self.blocks.get(name, (None, None))[0] is block:
        self.blocks[name] = (block, label)
    return block


_is_default_block_name = Block.is_default_block_name


def _is_unnamed_block_label(name: str) -> bool:
    return _is_default_block_name(name) or not Block.is_valid_name(name)


def _parse_dynamic_index(parser: Parser) -> int | UnresolvedOperand:
    value = parser.parse_optional_unresolved_operand()
    return parse_int64(parser) if value is None else value


def _print_while(self: WhileOp, printer: Printer) -> None:
    # xDSL's, with the type printed without the location (the printer adds it at the end).
    printer.print_string(" (")
    pairs = zip(self.before_region.block.args, self.arguments, strict=True)
    printer.print_list(pairs, lambda pair: self._print_pair(printer, pair))  # pyright: ignore
    printer.print_string(") : ")
    printer.print_function_type(self.operand_types, self.result_types)
    printer.print_string(" ")
    printer.print_region(self.before_region, print_entry_block_args=False)
    printer.print_string(" do ")
    printer.print_region(self.after_region)
    if self.attributes:
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _consume_token(self: GenericParser, expected_kind=None) -> Token:
    # The same as xDSL's, but for the error: it runs for every token, so no wrapper.
    consumed_token = self._current_token  # pyright: ignore[reportPrivateUsage]
    if expected_kind is not None and consumed_token.kind != expected_kind:
        raise ParseError(consumed_token.span, f"unexpected '{consumed_token.text}'")
    self._parser_state.current_token = self.lexer.lex()  # pyright: ignore[reportPrivateUsage]
    return consumed_token


memref.LoadOp.verify_ = _verify_indices
memref.GlobalOp.verify_ = _verify_global_value
memref.GetGlobalOp.verify_ = _verify_get_global
memref.StoreOp.verify_ = _verify_indices
WhileOp.verify_ = _verify_while
WhileOp.print = _print_while
dynamic_index_list.parse_dynamic_index_without_type = _parse_dynamic_index
Parser._parse_block = _parse_block_recording_its_label  # pyright: ignore[reportPrivateUsage]
Block.is_default_block_name = staticmethod(_is_unnamed_block_label)
GenericParser._consume_token = _consume_token  # pyright: ignore[reportPrivateUsage]
