"""Parsing helpers shared by the custom syntax of pto-wsp's dialects.

Each turns input that xDSL would accept only to fail later with a Python exception (a
``ValueError`` from a constructor, a property read on a malformed region) into a
``ParseError`` at the offending text, as every other syntax error is reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from xdsl.ir import Region
from xdsl.parser import Parser
from xdsl.parser.base_parser import BaseParser

#: The values of a signed 64-bit integer: every integer field of our ops is an i64 (or fits
#: in one: counts, sizes, offsets, grid axes), as is the runtime's storage of them.
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def parse_int64(parser: BaseParser, context_msg: str = "") -> int:
    """An integer literal that fits in a signed 64-bit integer, else a located ``ParseError``.

    xDSL's ``parse_integer`` returns any Python int; storing a wider one in an ``i64``
    property raises a bare ``ValueError`` (or, from 2^63 on, silently wraps it to a
    negative value, which some fields read as a marker)."""
    start = parser.pos
    value = parser.parse_integer(allow_boolean=False, context_msg=context_msg)
    if not INT64_MIN <= value <= INT64_MAX:
        parser.raise_error(
            f"integer constant out of range: {value} does not fit in 64 bits (signed)",
            start,
            parser.pos,
        )
    return value


def parse_typed_argument(parser: Parser) -> Parser.Argument:
    """A block argument ``%name: type``, with the ``loc(...)`` that follows it when printed
    with debug info (pto-opt's ``--print-debuginfo``), as ``func.func``'s arguments take."""
    arg = parser.parse_argument(expect_type=True)
    location = parser.parse_optional_location()
    return arg if location is None else dataclasses.replace(arg, location=location)


def parse_single_block_region(parser: Parser, arguments: Iterable | None = None) -> Region:
    """A region of at most one block, as every region of our custom syntax is.

    A second block (``^bb1:``) is a ``ParseError`` here: the ops' constructors and printers
    read ``region.block``, which xDSL refuses on a multi-block region."""
    start = parser.pos
    region = parser.parse_region(arguments)
    if len(region.blocks) > 1:
        parser.raise_error(
            f"this region takes a single block, got {len(region.blocks)} (no ^bb labels)",
            start,
            start + 1,
        )
    return region
