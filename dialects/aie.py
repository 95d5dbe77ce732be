"""The ``aie`` dialect: mlir-aie's ``aie`` ops, in upstream's syntax (``aiex`` is dialects/aiex.py).

Upstream mlir-aie syntax as of August 2026 (../shared/reference/aie-syntax.md; the op
definitions are mlir-aie's ``AIEOps.td`` and ``AIETraceOps.td``). What the AIE lowering prints
is meant for ``aie-opt`` / ``aiecc``: a design is an ``aie.device`` holding tiles, objectfifos
(and their memtile links), cores whose bodies acquire and release objectfifo elements around
calls of external kernels (``func.func private @k(...) attributes {link_with = "k.o"}``), and
an ``aie.runtime_sequence`` that moves the host's buffers through the shim DMAs. The rest of
what mlir-aie's designs and tests write is here too (docs/targets/aie.md lists it): buffers,
locks, flows, DMA programs (``aie.mem`` and BD chains), switchboxes and packet routing,
cascades, trace units, logical tiles; ``tools/aie_coverage.py`` measures how much of
mlir-aie's test suite parses, verifies and prints back.

Representation choices:

- Inherent attributes are properties with upstream's names (``objFifo_name``, ``elemNumber``,
  ``fifoIns``, ``static_offsets`` ...), so the generic form reads like upstream's.
- Enums (device, objectfifo port, lock action, DMA direction, wire bundle, tile type, trace
  modes ...) are ``i32`` integers with upstream's current numbering, as upstream stores them
  (``I32EnumAttr``); the custom form prints their names (``custom<...>`` directives in the
  declarative formats). Upstream has renumbered them between releases (npu2 was 9,
  is 8), so the generic form is for our tests only; print the custom form for ``aie-opt``.
- ``aie.objectfifo.acquire`` returns ``!aie.objectfifosubview<T>`` read with
  ``aie.objectfifo.subview.access``. The upcoming upstream form, where acquire returns the
  memref ``T`` itself and subview.access is gone, is the same op with a memref result type:
  the parser and the verifiers accept both; which one a lowering emits is one switch
  (``AcquireForm`` / ``acquire_element``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, TypeVar

from xdsl.dialects.builtin import (
    I8,
    I32,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FlatSymbolRefAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnrankedMemRefType,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    OpaqueSyntaxAttribute,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrConstraint,
    AttrSizedOperandSegments,
    ConstraintContext,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_region_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region, parse_typed_argument

# --------------------------------------------------------------------------- devices


@dataclass(frozen=True)
class DeviceModel:
    """The geometry of an ``aie.device`` target (mlir-aie's ``AIETargetModel``).

    Row 0 is the shim row (DMA to DDR), the next ``memtile_rows`` rows are memtiles, the
    rest up to ``rows`` are compute cores. DMA channel counts are per tile and direction
    (MM2S: memory to stream, out of the tile; S2MM: stream to memory, into the tile).
    """

    name: str
    value: int
    columns: int
    rows: int
    memtile_rows: int
    aie2: bool = True

    @property
    def first_core_row(self) -> int:
        return 1 + self.memtile_rows

    @property
    def core_rows(self) -> int:
        return self.rows - self.first_core_row

    def kind(self, row: int) -> str:
        """``shim``, ``memtile`` or ``core``."""
        if row == 0:
            return "shim"
        return "memtile" if row < self.first_core_row else "core"

    def dma_channels(self, row: int) -> int:
        """DMA channels of a tile in each direction (AIE2: core 2, memtile 6, shim 2)."""
        return {"shim": 2, "memtile": 6, "core": 2}[self.kind(row)]

    def memory_bytes(self, row: int) -> int:
        """Data memory of a tile: 64 KiB per core, 512 KiB per memtile, none in the shim."""
        return {"shim": 0, "memtile": 512 * 1024, "core": 64 * 1024}[self.kind(row)]


def _npu(name: str, value: int, columns: int) -> DeviceModel:
    return DeviceModel(name, value, columns, rows=6, memtile_rows=1)


#: Devices by name, with upstream's ``AIEDevice`` enum values.
DEVICES: dict[str, DeviceModel] = {
    d.name: d
    for d in (
        DeviceModel("xcvc1902", 1, 50, 9, 0, aie2=False),
        DeviceModel("xcve2302", 2, 17, 4, 1),
        DeviceModel("xcve2802", 3, 38, 11, 2),
        _npu("npu1", 4, 4),
        _npu("npu1_1col", 5, 1),
        _npu("npu1_2col", 6, 2),
        _npu("npu1_3col", 7, 3),
        _npu("npu2", 8, 8),
        *(_npu(f"npu2_{n}col", 8 + n, n) for n in range(1, 8)),
    )
}
_DEVICE_BY_VALUE = {d.value: d for d in DEVICES.values()}

# --------------------------------------------------------------------------- enums

#: Upstream's I32EnumAttr cases (name -> value).
OBJECTFIFO_PORTS = {"Produce": 0, "Consume": 1}
LOCK_ACTIONS = {"Acquire": 0, "Release": 1, "AcquireGreaterEqual": 2}
LOCK_BLOCKING = {"NonBlocking": 0, "Blocking": 1}
DMA_CHANNEL_DIRS = {"S2MM": 0, "MM2S": 1}
WIRE_BUNDLES = {
    "Core": 0,
    "DMA": 1,
    "FIFO": 2,
    "South": 3,
    "West": 4,
    "North": 5,
    "East": 6,
    "PLIO": 7,
    "NOC": 8,
    "Trace": 9,
    "TileControl": 10,
}

#: ``ShapedType::kDynamic``: the marker of an SSA entry in static offsets/sizes/strides.
DYNAMIC = -(2**63)


def _enum_attr(cases: Mapping[str, int], name: str) -> IntegerAttr:
    return IntegerAttr(cases[name], i32)


def _enum_name(cases: Mapping[str, int], attr: IntegerAttr, what: str) -> str:
    for name, value in cases.items():
        if value == attr.value.data:
            return name
    raise VerifyException(f"{attr.value.data} is not a {what} (expected one of {_cases(cases)})")


def _cases(cases: Mapping[str, int]) -> str:
    return ", ".join(f"{n} = {v}" for n, v in cases.items())


def _parse_enum(parser: Parser, cases: Mapping[str, int], what: str) -> IntegerAttr:
    pos = parser.pos
    name = parser.parse_optional_identifier()
    if name is None:
        name = parser.parse_optional_str_literal()  # older files quote them: "DMA"
    if name not in cases:
        parser.raise_error(f"expected a {what} ({', '.join(cases)})", pos, parser.pos)
    return _enum_attr(cases, name)


def _i32(value: int) -> IntegerAttr:
    return IntegerAttr(value, i32)


def _int(attr: Attribute | None) -> int | None:
    return attr.value.data if isinstance(attr, IntegerAttr) else None


# --------------------------------------------------------------------------- types


@irdl_attr_definition
class ObjectFifoType(ParametrizedAttribute, TypeAttribute):
    """``!aie.objectfifo<memref<16xi32>>``: the type of an objectfifo's elements."""

    name = "aie.objectfifo"

    element_type: MemRefType

    def __init__(self, element_type: MemRefType):
        super().__init__(element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class ObjectFifoSubviewType(ParametrizedAttribute, TypeAttribute):
    """``!aie.objectfifosubview<memref<16xi32>>``: the elements one acquire obtained."""

    name = "aie.objectfifosubview"

    element_type: MemRefType

    def __init__(self, element_type: MemRefType):
        super().__init__(element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class BDDimLayoutAttr(ParametrizedAttribute):
    """``#aie.bd_dim_layout<size = 8, stride = 128>``: one dimension of a DMA access pattern
    (printed without the ``#aie.bd_dim_layout`` prefix inside ``dimensionsToStream [...]``)."""

    name = "aie.bd_dim_layout"

    size: IntAttr
    stride: IntAttr

    def __init__(self, size: int, stride: int):
        super().__init__(IntAttr(size), IntAttr(stride))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return _parse_dim_layout_body(parser)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<size = {self.size.data}, stride = {self.stride.data}>")

    def verify(self) -> None:
        if self.size.data < 1:
            raise VerifyException(f"a DMA dimension's size must be >= 1, got {self.size.data}")
        if self.stride.data < 0:
            raise VerifyException(f"a DMA dimension's stride must be >= 0, got {self.stride.data}")


def _parse_dim_layout_body(parser: AttrParser) -> tuple[IntAttr, IntAttr]:
    """``<size = 8, stride = 128>`` (struct syntax: either order; a bare ``<8, 128>`` too)."""
    values: dict[str, int] = {}
    with parser.in_angle_brackets():
        for position in ("size", "stride"):
            if position == "stride":
                parser.parse_punctuation(",")
            key = parser.parse_optional_keyword_in(("size", "stride"))
            if key is not None:
                parser.parse_punctuation("=")
            else:
                key = position
            if key in values:
                parser.raise_error(f"'{key}' given twice in a DMA dimension")
            values[key] = parse_int64(parser)
    return IntAttr(values["size"]), IntAttr(values["stride"])


def _parse_dims(parser: Parser) -> ArrayAttr[BDDimLayoutAttr]:
    """``[<size = 8, stride = 1>, ...]``."""
    return ArrayAttr(
        parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: BDDimLayoutAttr(*_dim_values(parser))
        )
    )


def _dim_values(parser: Parser) -> tuple[int, int]:
    size, stride = _parse_dim_layout_body(parser)
    return size.data, stride.data


def _print_dims(printer: Printer, dims: ArrayAttr[BDDimLayoutAttr]) -> None:
    printer.print_string("[")
    printer.print_list(dims.data, lambda d: d.print_parameters(printer))
    printer.print_string("]")


@irdl_attr_definition
class PacketInfoAttr(ParametrizedAttribute):
    """``#aie.packet_info<pkt_type = 0, pkt_id = 2>``: a packet's type and id (header)."""

    name = "aie.packet_info"

    pkt_type: IntAttr
    pkt_id: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            values = _struct(parser, ("pkt_type", "pkt_id"))
        return IntAttr(values[0]), IntAttr(values[1])

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<pkt_type = {self.pkt_type.data}, pkt_id = {self.pkt_id.data}>")

    def verify(self) -> None:
        for what, value in (("pkt_type", self.pkt_type.data), ("pkt_id", self.pkt_id.data)):
            if not 0 <= value < 2**16:
                raise VerifyException(f"packet_info {what} must fit in 16 bits, got {value}")


@irdl_attr_definition
class BDPadLayoutAttr(ParametrizedAttribute):
    """``<const_pad_before = 0, const_pad_after = 2>``: zeros around one dimension of a BD."""

    name = "aie.bd_pad_layout"

    const_pad_before: IntAttr
    const_pad_after: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            before, after = _struct(parser, ("const_pad_before", "const_pad_after"))
        return IntAttr(before), IntAttr(after)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<const_pad_before = {self.const_pad_before.data}, "
            f"const_pad_after = {self.const_pad_after.data}>"
        )


@irdl_attr_definition
class BDPadLayoutArrayAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#aie<bd_pad_layout_array[<const_pad_before = 2, const_pad_after = 1>, ...]>``: an
    objectfifo's ``padDimensions``, one per dimension of its ``dimensionsToStream``."""

    name = "aie.bd_pad_layout_array"

    pads: ArrayAttr[BDPadLayoutAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[BDPadLayoutAttr]]:
        pads = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: BDPadLayoutAttr(*BDPadLayoutAttr.parse_parameters(parser)),
        )
        return (ArrayAttr(pads),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[")
        printer.print_list(self.pads.data, lambda p: p.print_parameters(printer))
        printer.print_string("]")


@irdl_attr_definition
class BDIterationAttr(ParametrizedAttribute):
    """``#aie.bd_iteration<size = 4, stride = 16, current = 0>``: a BD's iteration state."""

    name = "aie.bd_iteration"

    size: IntAttr
    stride: IntAttr
    current: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            values = _struct(parser, ("size", "stride", "current"))
        return IntAttr(values[0]), IntAttr(values[1]), IntAttr(values[2])

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<size = {self.size.data}, stride = {self.stride.data}, current = {self.current.data}>"
        )


@irdl_attr_definition
class TraceEventAttr(ParametrizedAttribute):
    """``<"INSTR_EVENT_0">`` or ``<CoreEventAIE2::INSTR_EVENT_0>``: an event traced by name."""

    name = "aie.trace_event"

    value: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        with parser.in_angle_brackets():
            text = parser.parse_optional_str_literal()
            if text is None:
                text = parser.parse_identifier()
                while parser.parse_optional_punctuation(":") is not None:
                    parser.parse_punctuation(":")
                    text += "::" + parser.parse_identifier()
        return (StringAttr(text),)

    def print_parameters(self, printer: Printer) -> None:
        text = self.value.data
        printer.print_string(f"<{text}>" if "::" in text else f'<"{text}">')


def _struct(parser: AttrParser, names: Sequence[str]) -> list[int]:
    """``name = int, ...``, each name once, in any order (upstream's ``struct(params)``)."""
    values: dict[str, int] = {}

    def entry() -> None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in names or key in values:
            parser.raise_error(f"expected one of {', '.join(names)}, each once", pos, parser.pos)
        parser.parse_punctuation("=")
        values[key] = parse_int64(parser)

    parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
    missing = [n for n in names if n not in values]
    if missing:
        parser.raise_error(f"missing {', '.join(missing)}")
    return [values[n] for n in names]


# --------------------------------------------------------------------------- helpers

_OpT = TypeVar("_OpT", bound=Operation)


def enclosing(op: Operation, kind: type[_OpT]) -> _OpT | None:
    """The nearest ancestor of ``op`` of class ``kind``."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    return parent


def _device_of(op: Operation, what: str) -> DeviceOp:
    device = enclosing(op, DeviceOp)
    if device is None:
        raise VerifyException(f"{what} must be inside an aie.device")
    return device


def _tile_of(value: SSAValue, what: str) -> TileOp | None:
    """The aie.tile a tile operand names; None for an aie.logical_tile (placed later, so the
    checks that need coordinates wait for placement, as upstream's do)."""
    owner = value.owner
    if isinstance(owner, LogicalTileOp):
        return None
    if not isinstance(owner, TileOp):
        raise VerifyException(f"{what} must be an aie.tile or aie.logical_tile result")
    return owner


def _split_props(
    attrs: Mapping[str, Attribute], names: Sequence[str]
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Split a parsed ``{...}`` dictionary into the op's inherent attributes and the rest."""
    props = {k: v for k, v in attrs.items() if k in names}
    return props, {k: v for k, v in attrs.items() if k not in names}


def _print_attr_dict(
    printer: Printer, op: Operation, props: Sequence[str], elide: Mapping[str, Attribute] = {}
) -> None:
    """Print the given properties (unless equal to their default in ``elide``) and the
    op's other attributes as one ``{...}`` dictionary, sorted by name, as MLIR does."""
    merged: dict[str, Attribute] = {}
    for name in props:
        value = op.properties.get(name)
        if value is not None and elide.get(name) != value:
            merged[name] = value
    merged |= op.attributes
    printer.print_op_attributes(dict(sorted(merged.items())))


def _symbol(ref: SymbolRefAttr) -> str:
    return ref.root_reference.data


def _lookup(device: DeviceOp, name: str) -> Operation | None:
    for op in device.body.block.ops:
        sym = op.properties.get("sym_name")
        if isinstance(sym, StringAttr) and sym.data == name:
            return op
    return None


def _parse_int_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_int64(parser))


def _int_array(values: Sequence[int]) -> ArrayAttr[IntegerAttr]:
    return ArrayAttr([IntegerAttr(v, i64) for v in values])


def _ints(attr: ArrayAttr) -> list[int]:
    return [a.value.data for a in attr.data]  # pyright: ignore


def _ensure_end(region: Region) -> None:
    """Give a parsed single-block region its implicit ``aie.end``."""
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(EndOp())


# --------------------------------------------------------------------------- device


@irdl_op_definition
class EndOp(IRDLOperation):
    """``aie.end``: the terminator of device and core bodies."""

    name = "aie.end"

    traits = traits_def(IsTerminator())

    def __init__(self) -> None:
        super().__init__()

    @classmethod
    def parse(cls, parser: Parser) -> EndOp:
        op = cls()
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class DeviceOp(IRDLOperation):
    """``aie.device(npu1_1col) [@name] { ... }``: a design for one device.

    The body's terminator ``aie.end`` is implicit (omitted by the printer). Holds tiles,
    objectfifos and links, cores, kernel declarations and runtime sequences; a symbol
    table of its objectfifos and allocations. A compute tile hosts at most one core.
    """

    name = "aie.device"

    device = prop_def(IntegerAttr[IntegerType])
    sym_name = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolTable())

    def __init__(self, device: str, body: Region | None = None, sym_name: str | None = None):
        body = body or Region(Block())
        _ensure_end(body)
        props: dict[str, Attribute] = {"device": _i32(DEVICES[device].value)}
        if sym_name is not None:
            props["sym_name"] = StringAttr(sym_name)
        super().__init__(properties=props, regions=[body])

    @property
    def model(self) -> DeviceModel:
        model = _DEVICE_BY_VALUE.get(self.device.value.data)
        if model is None:
            raise VerifyException(
                f"unknown device {self.device.value.data} "
                f"(known: {', '.join(f'{d.name} = {d.value}' for d in DEVICES.values())})"
            )
        return model

    def lookup(self, name: str) -> Operation | None:
        """The op of this device whose symbol is ``name``."""
        return _lookup(self, name)

    def verify_(self) -> None:
        self.model  # noqa: B018 (a known device)
        cores: dict[tuple[int, int], CoreOp] = {}
        for op in self.body.block.ops:
            if isinstance(op, CoreOp) and isinstance(op.tile.owner, TileOp):
                where = op.tile.owner.coordinates
                if where in cores:
                    raise VerifyException(
                        f"tile {where} already has a core; each compute tile can host only one core"
                    )
                cores[where] = op

    @classmethod
    def parse(cls, parser: Parser) -> DeviceOp:
        with parser.in_parens():
            pos = parser.pos
            name = parser.parse_optional_identifier()
            if name not in DEVICES:
                parser.raise_error(f"expected a device ({', '.join(DEVICES)})", pos, parser.pos)
        sym = parser.parse_optional_symbol_name()
        body = parse_single_block_region(parser)
        op = cls(name, body, None if sym is None or sym.data == "main" else sym.data)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f"({self.model.name})")
        if self.sym_name is not None and self.sym_name.data != "main":
            printer.print_string(" ")
            printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class TileOp(IRDLOperation):
    """``%t = aie.tile(col, row)``: a tile of the device (row 0 shim, then memtiles, then
    compute cores); its coordinates lie inside the device."""

    name = "aie.tile"

    col = prop_def(IntegerAttr[IntegerType])
    row = prop_def(IntegerAttr[IntegerType])
    result = result_def(IndexType)

    def __init__(self, col: int, row: int):
        super().__init__(
            properties={"col": _i32(col), "row": _i32(row)}, result_types=[IndexType()]
        )

    @property
    def coordinates(self) -> tuple[int, int]:
        return self.col.value.data, self.row.value.data

    def kind(self) -> str:
        """``shim``, ``memtile`` or ``core`` in the enclosing device (``core`` outside one)."""
        device = enclosing(self, DeviceOp)
        return device.model.kind(self.row.value.data) if device is not None else "core"

    def verify_(self) -> None:
        col, row = self.coordinates
        if col < 0 or row < 0:
            raise VerifyException(f"tile ({col}, {row}): coordinates must be >= 0")
        device = enclosing(self, DeviceOp)
        if device is None:
            return  # upstream checks coordinates only against an enclosing device
        model = device.model
        if col >= model.columns:
            raise VerifyException(
                f"column index ({col}) must be less than the number of columns in the device "
                f"({model.columns}, {model.name})"
            )
        if row >= model.rows:
            raise VerifyException(
                f"row index ({row}) must be less than the number of rows in the device "
                f"({model.rows}, {model.name})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> TileOp:
        with parser.in_parens():
            col = parse_int64(parser)
            parser.parse_punctuation(",")
            row = parse_int64(parser)
        op = cls(col, row)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        col, row = self.coordinates
        printer.print_string(f"({col}, {row})")
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------- objectfifos


@irdl_op_definition
class ObjectFifoCreateOp(IRDLOperation):
    """``aie.objectfifo @of(%prod [dimensionsToStream [...]], {%c [dimensionsFromStream
    [...]], ...}, 2 : i32) : !aie.objectfifo<memref<16xi32>>``.

    A circular buffer of ``elemNumber`` elements (an ``i32``, or one depth per tile:
    producer first) from a producer tile to one or more consumer tiles (several consumers:
    broadcast). mlir-aie lowers it to buffers, locks and DMA flows.
    """

    name = "aie.objectfifo"

    sym_name = prop_def(StringAttr)
    producerTile = operand_def(IndexType)
    consumerTiles = var_operand_def(IndexType)
    elemNumber = prop_def(Attribute)
    elemType = prop_def(ObjectFifoType)
    dimensionsToStream = prop_def(ArrayAttr[BDDimLayoutAttr])
    dimensionsFromStreamPerConsumer = prop_def(ArrayAttr[ArrayAttr[BDDimLayoutAttr]])
    consumerElemType = opt_prop_def(ObjectFifoType)
    initValues = opt_prop_def(ArrayAttr[DenseIntOrFPElementsAttr])

    traits = traits_def(SymbolOpInterface())

    def __init__(
        self,
        name: str,
        producer: SSAValue | Operation,
        consumers: Sequence[SSAValue | Operation],
        depth: int | Sequence[int],
        element_type: MemRefType,
        to_stream: Sequence[tuple[int, int]] = (),
        from_stream: Sequence[Sequence[tuple[int, int]]] | None = None,
    ):
        depth_attr: Attribute = (
            _i32(depth) if isinstance(depth, int) else ArrayAttr([_i32(d) for d in depth])
        )
        if from_stream is None:
            from_stream = [()] * len(consumers)
        super().__init__(
            operands=[producer, consumers],
            properties={
                "sym_name": StringAttr(name),
                "elemNumber": depth_attr,
                "elemType": ObjectFifoType(element_type),
                "dimensionsToStream": ArrayAttr([BDDimLayoutAttr(*d) for d in to_stream]),
                "dimensionsFromStreamPerConsumer": ArrayAttr(
                    [ArrayAttr([BDDimLayoutAttr(*d) for d in dims]) for dims in from_stream]
                ),
            },
        )

    @property
    def element_type(self) -> MemRefType:
        return self.elemType.element_type

    @property
    def depths(self) -> list[int]:
        """The depth at the producer and at each consumer."""
        n = len(self.consumerTiles) + 1
        if isinstance(self.elemNumber, ArrayAttr):
            return _ints(self.elemNumber)
        return [_int(self.elemNumber) or 0] * n

    def verify_(self) -> None:
        name = self.sym_name.data
        _device_of(self, f"aie.objectfifo @{name}")
        depth = self.elemNumber
        if isinstance(depth, ArrayAttr):
            if not all(isinstance(d, IntegerAttr) for d in depth.data):
                raise VerifyException(f"objectfifo @{name}: depths must be integers")
            if len(depth.data) != len(self.consumerTiles) + 1:
                raise VerifyException(
                    f"objectfifo @{name} does not have enough depths specified for producer "
                    f"and for each consumer: {len(depth.data)} given, "
                    f"{len(self.consumerTiles) + 1} needed"
                )
        elif not isinstance(depth, IntegerAttr):
            raise VerifyException(
                f"objectfifo @{name}: depth must be an integer or an array of integers"
            )
        if any(d < 1 for d in self.depths):
            raise VerifyException(f"objectfifo @{name}: depth must be >= 1, got {self.depths}")
        if not self.consumerTiles:
            raise VerifyException(f"objectfifo @{name} needs at least one consumer tile")
        memref = self.element_type
        if any(d < 0 for d in memref.get_shape()):
            raise VerifyException(
                f"objectfifo @{name}: element type must be a static shaped memref, got {memref}"
            )
        # Upstream allows a fifo whose producer is also a consumer (a tile-local buffer ring).
        producer = _tile_of(self.producerTile, f"objectfifo @{name}: the producer")
        seen: set[tuple[int, int]] = set()
        for value in self.consumerTiles:
            consumer = _tile_of(value, f"objectfifo @{name}: a consumer")
            if consumer is None:
                continue
            where = consumer.coordinates
            if where in seen:
                raise VerifyException(f"objectfifo @{name}: consumer tile {where} listed twice")
            seen.add(where)
        if len(self.dimensionsFromStreamPerConsumer.data) != len(self.consumerTiles):
            raise VerifyException(
                f"objectfifo @{name}: one dimensionsFromStream entry per consumer needed"
            )
        if self.initValues is not None:
            # mlir-aie: ObjectFifoCreateOp::verify (AIEDialect.cpp)
            if producer is not None and producer.kind() == "shim":
                raise VerifyException(
                    f"objectfifo @{name}: `init_values` unavailable for shim tiles"
                )
            memref = self.element_type
            for value in self.initValues.data:
                if list(value.get_shape()) != list(memref.get_shape()) or (
                    value.get_element_type() != memref.element_type
                ):
                    raise VerifyException(
                        f"objectfifo @{name}: an initial value must have the element type "
                        f"{memref}, got {value.type}"
                    )
            if len(self.initValues.data) != self.depths[0]:
                raise VerifyException(
                    f"objectfifo @{name}: `init_values` does not initialize all objects "
                    f"({len(self.initValues.data)} values, depth {self.depths[0]})"
                )
        self._verify_elements(name, producer)
        if self.dimensionsToStream.data and producer is not None and producer.kind() == "shim":
            raise VerifyException(
                "`dimensionsToStream` data layout transformations are not supported on shim "
                "tile producers"
            )
        for value, dims in zip(self.consumerTiles, self.dimensionsFromStreamPerConsumer.data):
            consumer = _tile_of(value, "")
            if dims.data and consumer is not None and consumer.kind() == "shim":
                raise VerifyException(
                    "`dimensionsFromStreamPerConsumer` data layout transformations are not "
                    "supported on shim tile consumers"
                )

    def _verify_elements(self, name: str, producer: TileOp | None) -> None:
        """mlir-aie's ObjectFifoCreateOp::verify: element types of the two ends agree; no
        repeat_count on a shim producer."""
        repeat = self.attributes.get("repeat_count")
        if repeat is not None and producer is not None and producer.kind() == "shim":
            raise VerifyException(f"objectfifo @{name}: `repeat_count` unavailable for shim tiles")
        if self.consumerElemType is None:
            return
        produced, consumed = self.element_type, self.consumerElemType.element_type
        if produced.element_type != consumed.element_type:
            raise VerifyException(
                f"objectfifo @{name}: producer and consumer must have the same scalar element "
                f"type, but got {produced.element_type} vs {consumed.element_type}"
            )
        if _elements(produced) % max(_elements(consumed), 1) or not _elements(consumed):
            raise VerifyException(
                f"objectfifo @{name}: producer element size ({_elements(produced)}) must be an "
                f"integer multiple of consumer element size ({_elements(consumed)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ObjectFifoCreateOp:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation("(")
        producer = parser.parse_unresolved_operand()
        to_stream = ArrayAttr[BDDimLayoutAttr]([])
        if parser.parse_optional_keyword("dimensionsToStream"):
            to_stream = _parse_dims(parser)
        parser.parse_punctuation(",")
        consumers: list[UnresolvedOperand] = []
        from_stream: list[ArrayAttr[BDDimLayoutAttr]] = []

        def consumer() -> None:
            consumers.append(parser.parse_unresolved_operand())
            dims = ArrayAttr[BDDimLayoutAttr]([])
            if parser.parse_optional_keyword("dimensionsFromStream"):
                dims = _parse_dims(parser)
            from_stream.append(dims)

        parser.parse_comma_separated_list(parser.Delimiter.BRACES, consumer)
        parser.parse_punctuation(",")
        pos = parser.pos
        if parser.parse_optional_punctuation("[") is not None:
            depth: Attribute = ArrayAttr(
                parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _depth(parser))
            )
            parser.parse_punctuation("]")
        else:
            depth = parser.parse_attribute()
            if not isinstance(depth, IntegerAttr):
                parser.raise_error("expected a depth (2 : i32) or depths ([2, 2])", pos, parser.pos)
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        fifo_type = parser.parse_type()
        if not isinstance(fifo_type, ObjectFifoType):
            parser.raise_error("expected an !aie.objectfifo<memref<...>> type", pos, parser.pos)
        index = IndexType()
        op = cls.create(
            operands=[parser.resolve_operand(producer, index)]
            + [parser.resolve_operand(c, index) for c in consumers],
            properties={
                "sym_name": StringAttr(name),
                "elemNumber": depth,
                "elemType": fifo_type,
                "dimensionsToStream": to_stream,
                "dimensionsFromStreamPerConsumer": ArrayAttr(from_stream),
            },
            attributes=attrs,
        )
        if parser.parse_optional_punctuation("->") is not None:
            pos = parser.pos
            cons_type = parser.parse_type()
            if not isinstance(cons_type, ObjectFifoType):
                parser.raise_error("expected an !aie.objectfifo<memref<...>> type", pos, parser.pos)
            op.consumerElemType = cons_type
        if parser.parse_optional_punctuation("=") is not None:
            op.initValues = ArrayAttr(
                parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE,
                    lambda: _parse_init_value(parser, fifo_type.element_type),
                )
            )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_ssa_value(self.producerTile)
        if self.dimensionsToStream.data:
            printer.print_string(" dimensionsToStream ")
            _print_dims(printer, self.dimensionsToStream)
        printer.print_string(", {")

        def consumer(item: tuple[SSAValue, ArrayAttr[BDDimLayoutAttr]]) -> None:
            printer.print_ssa_value(item[0])
            if item[1].data:
                printer.print_string(" dimensionsFromStream ")
                _print_dims(printer, item[1])

        dims = list(self.dimensionsFromStreamPerConsumer.data)
        dims += [ArrayAttr([])] * (len(self.consumerTiles) - len(dims))
        printer.print_list(zip(self.consumerTiles, dims), consumer)
        printer.print_string("}, ")
        if isinstance(self.elemNumber, ArrayAttr):
            printer.print_string(f"[{', '.join(str(d) for d in _ints(self.elemNumber))}]")
        else:
            printer.print_attribute(self.elemNumber)
        printer.print_string(")")
        printer.print_op_attributes(dict(sorted(self.attributes.items())))
        printer.print_string(" : ")
        printer.print_attribute(self.elemType)
        if self.consumerElemType is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.consumerElemType)
        if self.initValues is not None:
            memref = self.element_type
            printer.print_string(" = [")
            printer.print_list(
                self.initValues.data, lambda v: printer.print_string(f"{_stripped(v)} : {memref}")
            )
            printer.print_string("]")


def _parse_init_value(parser: Parser, memref: MemRefType) -> DenseIntOrFPElementsAttr:
    """``dense<...> : memref<4xi32>``: one element's initial value (kept with a tensor type)."""
    parser.parse_keyword("dense")
    value = parser.parse_dense_int_or_fp_elements_attr(
        TensorType(memref.element_type, memref.get_shape())
    )
    parser.parse_punctuation(":")
    pos = parser.pos
    if parser.parse_type() != memref:
        parser.raise_error(
            f"an initial value must have the fifo's element type {memref}", pos, parser.pos
        )
    return value


def _depth(parser: Parser) -> IntegerAttr:
    """One entry of a depth array: ``2`` or ``2 : i32``."""
    value = parse_int64(parser)
    if parser.parse_optional_punctuation(":") is not None:
        parser.parse_type()
    return _i32(value)


def _fifo(op: Operation, ref: SymbolRefAttr) -> ObjectFifoCreateOp:
    device = _device_of(op, op.name)
    target = device.lookup(_symbol(ref))
    if not isinstance(target, ObjectFifoCreateOp):
        raise VerifyException(
            f"@{_symbol(ref)} is not an aie.objectfifo of the enclosing aie.device"
        )
    return target


def _parse_symbol_list(parser: Parser) -> ArrayAttr[FlatSymbolRefAttr]:
    return ArrayAttr(
        parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: SymbolRefAttr(parser.parse_symbol_name())
        )
    )


def _print_symbol_list(printer: Printer, refs: ArrayAttr) -> None:
    printer.print_string("[")
    printer.print_list(refs.data, lambda r: printer.print_symbol_name(_symbol(r)))
    printer.print_string("]")


@irdl_op_definition
class ObjectFifoLinkOp(IRDLOperation):
    """``aie.objectfifo.link [@in] -> [@a, @b]([] [0, 1024])``: fifos joined at a shared tile.

    One in, one out: a plain hop. One in, several outs: distribute (each out gets the part of
    the in element at its destination offset, in elements). Several ins, one out: join (each
    in fills the part of the out element at its source offset). Join and distribute need the
    link point to be a memtile.
    """

    name = "aie.objectfifo.link"

    fifoIns = prop_def(ArrayAttr[FlatSymbolRefAttr])
    fifoOuts = prop_def(ArrayAttr[FlatSymbolRefAttr])
    src_offsets = prop_def(ArrayAttr[IntegerAttr])
    dst_offsets = prop_def(ArrayAttr[IntegerAttr])

    def __init__(
        self,
        ins: Sequence[str],
        outs: Sequence[str],
        src_offsets: Sequence[int] = (),
        dst_offsets: Sequence[int] = (),
    ):
        super().__init__(
            properties={
                "fifoIns": ArrayAttr([SymbolRefAttr(n) for n in ins]),
                "fifoOuts": ArrayAttr([SymbolRefAttr(n) for n in outs]),
                "src_offsets": _int_array(src_offsets),
                "dst_offsets": _int_array(dst_offsets),
            }
        )

    def verify_(self) -> None:
        ins = [_fifo(self, r) for r in self.fifoIns.data]
        outs = [_fifo(self, r) for r in self.fifoOuts.data]
        if not ins or not outs:
            raise VerifyException("aie.objectfifo.link needs at least one input and one output")
        join, distribute = len(ins) > 1, len(outs) > 1
        if join and distribute:
            raise VerifyException(
                "aie.objectfifo.link does not support 'join' and 'distribute' at the same time"
            )
        tiles = [_tile_of(f.producerTile, "") for f in outs]
        tiles += [_tile_of(c, "") for f in ins for c in f.consumerTiles]
        if any(t is None for t in tiles):
            return  # logical tiles: the link point is checked once they are placed
        shared = tiles[0].coordinates
        for fifo in outs:
            if _tile_of(fifo.producerTile, "").coordinates != shared:
                raise VerifyException(
                    f"aie.objectfifo.link must have a link point: output @{fifo.sym_name.data} "
                    f"is not produced on tile {shared}"
                )
        for fifo in ins:
            if shared not in [_tile_of(c, "").coordinates for c in fifo.consumerTiles]:
                raise VerifyException(
                    f"aie.objectfifo.link must have a link point: input @{fifo.sym_name.data} "
                    f"is not consumed on tile {shared}"
                )
        device = _device_of(self, self.name)
        if (join or distribute) and device.model.kind(shared[1]) != "memtile":
            raise VerifyException(
                f"aie.objectfifo.link join and distribute are unavailable on compute or shim "
                f"tiles (link point {shared})"
            )
        src, dst = _ints(self.src_offsets), _ints(self.dst_offsets)
        if join:
            self._verify_parts("src", src, dst, "join", ins, outs[0])
        elif distribute:
            self._verify_parts("dst", dst, src, "distribute", outs, ins[0])
            # mlir-aie ObjectFifoLinkOp::verify: the outputs repeat alike.
            repeats = {_int(f.attributes.get("repeat_count", _i32(0))) for f in outs}
            if len(repeats) > 1:
                raise VerifyException("repeat counts of output object FIFOs must be equal")

    def _verify_parts(
        self,
        side: str,
        offsets: list[int],
        other: list[int],
        kind: str,
        parts: list[ObjectFifoCreateOp],
        whole: ObjectFifoCreateOp,
    ) -> None:
        if len(offsets) != len(parts):
            what = "input" if kind == "join" else "output"
            raise VerifyException(
                f"number of provided {side} offsets must be equal to the number of {what} "
                f"objectFifos ({len(offsets)} offsets, {len(parts)} objectFifos)"
            )
        if other:
            raise VerifyException(
                f"{'dst' if side == 'src' else 'src'} offsets should be empty for {kind}"
            )
        for offset, part in zip(offsets, parts):
            if offset < 0:
                raise VerifyException(
                    f"{kind}: the offset of @{part.sym_name.data} must be >= 0, got {offset}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ObjectFifoLinkOp:
        ins = _parse_symbol_list(parser)
        parser.parse_punctuation("->")
        outs = _parse_symbol_list(parser)
        with parser.in_parens():
            src = _parse_int_list(parser)
            dst = _parse_int_list(parser)
        op = cls([_symbol(r) for r in ins], [_symbol(r) for r in outs], src, dst)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_symbol_list(printer, self.fifoIns)
        printer.print_string(" -> ")
        _print_symbol_list(printer, self.fifoOuts)
        src, dst = _ints(self.src_offsets), _ints(self.dst_offsets)
        printer.print_string(f"([{', '.join(map(str, src))}] [{', '.join(map(str, dst))}])")
        printer.print_op_attributes(self.attributes)


def _elements(memref: MemRefType) -> int:
    n = 1
    for d in memref.get_shape():
        n *= d
    return n


class AcquireForm(Enum):
    """How ``aie.objectfifo.acquire`` gives access to its element: through a subview and
    ``aie.objectfifo.subview.access`` (upstream today), or as the memref itself (the
    refactor landing late 2026)."""

    SUBVIEW = "subview"
    MEMREF = "memref"


def _verify_port_tile(op: Operation, fifo: ObjectFifoCreateOp, port: str) -> None:
    core = enclosing(op, CoreOp)
    if core is None:
        raise VerifyException(f"{op.name} must be called from inside an aie.core")
    tile = core.tile
    name = fifo.sym_name.data
    if port == "Produce" and tile != fifo.producerTile:
        raise VerifyException(
            f"producer port of objectfifo @{name} accessed by a core running on a non-producer tile"
        )
    if port == "Consume" and tile not in fifo.consumerTiles:
        raise VerifyException(
            f"consumer port of objectfifo @{name} accessed by a core running on a non-consumer tile"
        )


def _parse_port_and_size(parser: Parser) -> tuple[SymbolRefAttr, IntegerAttr, int]:
    ref = SymbolRefAttr(parser.parse_symbol_name())
    with parser.in_parens():
        port = _parse_enum(parser, OBJECTFIFO_PORTS, "port (Produce or Consume)")
        parser.parse_punctuation(",")
        size = parse_int64(parser)
    return ref, port, size


@irdl_op_definition
class ObjectFifoAcquireOp(IRDLOperation):
    """``%s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<..>>``.

    Inside a core on the fifo's producer tile (``Produce``) or one of its consumer tiles
    (``Consume``); blocks until ``size`` elements are available. Upcoming upstream form:
    ``%e = aie.objectfifo.acquire @of(Consume, 1) : memref<..>``.
    """

    name = "aie.objectfifo.acquire"

    port = prop_def(IntegerAttr[IntegerType])
    objFifo_name = prop_def(FlatSymbolRefAttr)
    size = prop_def(IntegerAttr[IntegerType])
    subview = result_def(ObjectFifoSubviewType | MemRefType)

    def __init__(
        self,
        fifo: str,
        port: str,
        size: int,
        element_type: MemRefType,
        form: AcquireForm = AcquireForm.SUBVIEW,
    ):
        result = element_type if form is AcquireForm.MEMREF else ObjectFifoSubviewType(element_type)
        super().__init__(
            properties={
                "port": _enum_attr(OBJECTFIFO_PORTS, port),
                "objFifo_name": SymbolRefAttr(fifo),
                "size": _i32(size),
            },
            result_types=[result],
        )

    @property
    def port_name(self) -> str:
        return _enum_name(OBJECTFIFO_PORTS, self.port, "objectfifo port")

    def verify_(self) -> None:
        port = self.port_name
        if self.size.value.data < 1:
            raise VerifyException(f"acquire size must be >= 1, got {self.size.value.data}")
        fifo = _fifo(self, self.objFifo_name)
        _verify_port_tile(self, fifo, port)
        result = self.subview.type
        element = result.element_type if isinstance(result, ObjectFifoSubviewType) else result
        allowed = [fifo.element_type]
        if fifo.consumerElemType is not None:
            allowed.append(fifo.consumerElemType.element_type)
        if element not in allowed:
            raise VerifyException(
                f"objectfifo @{fifo.sym_name.data} has elements of type {fifo.element_type}, "
                f"but the acquire gives {element}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ObjectFifoAcquireOp:
        attrs = parser.parse_optional_attr_dict()
        ref, port, size = _parse_port_and_size(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        result = parser.parse_type()
        if not isinstance(result, ObjectFifoSubviewType | MemRefType):
            parser.raise_error(
                "expected !aie.objectfifosubview<memref<...>> or memref<...>", pos, parser.pos
            )
        op = cls.create(
            properties={"port": port, "objFifo_name": ref, "size": _i32(size)},
            result_types=[result],
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_symbol_name(_symbol(self.objFifo_name))
        printer.print_string(f"({self.port_name}, {self.size.value.data}) : ")
        printer.print_attribute(self.subview.type)


@irdl_op_definition
class ObjectFifoSubviewAccessOp(IRDLOperation):
    """``%e = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<T> -> T``: the
    index-th acquired element. The subview must be an acquire's result, directly."""

    name = "aie.objectfifo.subview.access"

    subview = operand_def(ObjectFifoSubviewType)
    index = prop_def(IntegerAttr[IntegerType])
    output = result_def(MemRefType)

    def __init__(self, subview: SSAValue | Operation, index: int = 0):
        value = SSAValue.get(subview)
        assert isinstance(value.type, ObjectFifoSubviewType)
        super().__init__(
            operands=[value],
            properties={"index": _i32(index)},
            result_types=[value.type.element_type],
        )

    def verify_(self) -> None:
        if enclosing(self, CoreOp) is None:
            raise VerifyException("aie.objectfifo.subview.access must be inside an aie.core")
        acquire = self.subview.owner
        if not isinstance(acquire, ObjectFifoAcquireOp):
            raise VerifyException(
                "subview operand must be the direct result of an aie.objectfifo.acquire; "
                "flowing the subview through block arguments or region results is not supported"
            )
        index = self.index.value.data
        if not 0 <= index < acquire.size.value.data:
            raise VerifyException(
                f"accessed element {index}, but the acquire obtained {acquire.size.value.data} "
                "(index out of bounds)"
            )
        assert isinstance(self.subview.type, ObjectFifoSubviewType)
        if self.output.type != self.subview.type.element_type:
            raise VerifyException(
                f"access result must be {self.subview.type.element_type}, got {self.output.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ObjectFifoSubviewAccessOp:
        operand = parser.parse_unresolved_operand()
        with parser.in_square_brackets():
            index = parse_int64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        subview_type = parser.parse_type()
        parser.parse_punctuation("->")
        output = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(operand, subview_type)],
            properties={"index": _i32(index)},
            result_types=[output],
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.subview)
        printer.print_string(f"[{self.index.value.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.subview.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.output.type)


@irdl_op_definition
class ObjectFifoReleaseOp(IRDLOperation):
    """``aie.objectfifo.release @of(Produce, 1)``: hand ``size`` elements on to the other side."""

    name = "aie.objectfifo.release"

    port = prop_def(IntegerAttr[IntegerType])
    objFifo_name = prop_def(FlatSymbolRefAttr)
    size = prop_def(IntegerAttr[IntegerType])

    def __init__(self, fifo: str, port: str, size: int = 1):
        super().__init__(
            properties={
                "port": _enum_attr(OBJECTFIFO_PORTS, port),
                "objFifo_name": SymbolRefAttr(fifo),
                "size": _i32(size),
            }
        )

    @property
    def port_name(self) -> str:
        return _enum_name(OBJECTFIFO_PORTS, self.port, "objectfifo port")

    def verify_(self) -> None:
        port = self.port_name
        if self.size.value.data < 1:
            raise VerifyException(f"release size must be >= 1, got {self.size.value.data}")
        _verify_port_tile(self, _fifo(self, self.objFifo_name), port)

    @classmethod
    def parse(cls, parser: Parser) -> ObjectFifoReleaseOp:
        attrs = parser.parse_optional_attr_dict()
        ref, port, size = _parse_port_and_size(parser)
        return cls.create(
            properties={"port": port, "objFifo_name": ref, "size": _i32(size)}, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_symbol_name(_symbol(self.objFifo_name))
        printer.print_string(f"({self.port_name}, {self.size.value.data})")


def acquire_element(
    fifo: str, port: str, element_type: MemRefType, form: AcquireForm = AcquireForm.SUBVIEW
) -> tuple[list[Operation], SSAValue]:
    """The ops that acquire one element of ``fifo`` and the memref value to use: the one
    place that decides between today's acquire + subview.access and the upcoming form."""
    acquire = ObjectFifoAcquireOp(fifo, port, 1, element_type, form)
    if form is AcquireForm.MEMREF:
        return [acquire], acquire.subview
    access = ObjectFifoSubviewAccessOp(acquire, 0)
    return [acquire, access], access.output


# --------------------------------------------------------------------------- compute


@irdl_op_definition
class CoreOp(IRDLOperation):
    """``%c = aie.core(%t) { ... aie.end }``: the program of a compute tile.

    The body ends with an explicit ``aie.end``; it is scf/arith/memref code calling external
    kernels with ``func.call``. Only on compute rows; at most one per tile.
    """

    name = "aie.core"

    tile = operand_def(IndexType)
    body = region_def()
    result = result_def(IndexType)

    def __init__(self, tile: SSAValue | Operation, body: Region | None = None):
        body = body or Region(Block([EndOp()]))
        super().__init__(operands=[tile], regions=[body], result_types=[IndexType()])

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException("aie.core should have a non-empty body")
        tile = _tile_of(self.tile, "aie.core's tile")
        device = enclosing(self, DeviceOp)
        if tile is None or device is None:
            return  # upstream checks placement only against an enclosing device
        col, row = tile.coordinates
        kind = device.model.kind(row)
        if kind != "core":
            raise VerifyException(
                f"aie.core on tile ({col}, {row}), a {kind} tile: cores stand on compute rows "
                f"{device.model.first_core_row}..{device.model.rows - 1} of {device.model.name}"
            )
        for block in self.body.blocks:
            last = block.last_op
            if last is None or not last.has_trait(IsTerminator):
                raise VerifyException("each block of an aie.core must end with a terminator")

    @classmethod
    def parse(cls, parser: Parser) -> CoreOp:
        with parser.in_parens():
            tile = parser.parse_operand(IndexType())
        body = parser.parse_region()
        op = cls(tile, body)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.tile)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class BufferOp(IRDLOperation):
    """``%b = aie.buffer(%t) {sym_name = "b"} : memref<8xi32> [= dense<...>]``: a buffer in a
    tile's memory (not in a shim tile, which has none)."""

    name = "aie.buffer"

    tile = operand_def(IndexType)
    initial_value = opt_prop_def(DenseIntOrFPElementsAttr)
    buffer = result_def(MemRefType)

    def __init__(self, tile: SSAValue | Operation, type_: MemRefType, sym_name: str | None = None):
        super().__init__(operands=[tile], result_types=[type_])
        if sym_name is not None:
            self.attributes["sym_name"] = StringAttr(sym_name)

    def verify_(self) -> None:
        tile = _tile_of(self.tile, "aie.buffer's tile")
        if tile is not None and tile.kind() == "shim":
            raise VerifyException(
                f"aie.buffer on shim tile {tile.coordinates}: shim tiles have no memory"
            )
        assert isinstance(self.buffer.type, MemRefType)
        if any(d < 0 for d in self.buffer.type.get_shape()):
            raise VerifyException(f"aie.buffer needs a static shape, got {self.buffer.type}")

    @classmethod
    def parse(cls, parser: Parser) -> BufferOp:
        with parser.in_parens():
            tile = parser.parse_operand(IndexType())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        type_ = parser.parse_type()
        if not isinstance(type_, MemRefType):
            parser.raise_error("expected a memref type", pos, parser.pos)
        op = cls(tile, type_)
        props, rest = _split_props(attrs, ("initial_value",))
        op.attributes |= rest
        if isinstance(props.get("initial_value"), DenseIntOrFPElementsAttr):
            op.initial_value = props["initial_value"]
        elif props:
            op.attributes |= props
        if parser.parse_optional_punctuation("=") is not None:
            parser.parse_keyword("dense")
            shape = list(type_.get_shape())
            op.initial_value = parser.parse_dense_int_or_fp_elements_attr(
                TensorType(type_.element_type, shape)
            )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.tile)
        printer.print_string(")")
        printer.print_op_attributes(dict(sorted(self.attributes.items())))
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        if self.initial_value is not None:
            printer.print_string(" = ")
            printer.print_string(_stripped(self.initial_value))


def _stripped(attr: DenseIntOrFPElementsAttr) -> str:
    """``dense<...>`` without its ``: tensor<...>`` type suffix."""
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    text = out.getvalue()
    return text[: text.rindex(" : ")]


@irdl_op_definition
class LockOp(IRDLOperation):
    """``%l = aie.lock(%t[, id]) {init = 1 : i32}``: a lock of a tile."""

    name = "aie.lock"

    tile = operand_def(IndexType)
    lockID = opt_prop_def(IntegerAttr[IntegerType])
    result = result_def(IndexType)

    def __init__(self, tile: SSAValue | Operation, lock_id: int | None = None):
        props = {} if lock_id is None else {"lockID": _i32(lock_id)}
        super().__init__(operands=[tile], properties=props, result_types=[IndexType()])

    def verify_(self) -> None:
        _tile_of(self.tile, "aie.lock's tile")
        if self.lockID is not None and self.lockID.value.data < 0:
            raise VerifyException(f"lock id must be >= 0, got {self.lockID.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> LockOp:
        with parser.in_parens():
            tile = parser.parse_operand(IndexType())
            lock_id = None
            if parser.parse_optional_punctuation(",") is not None:
                lock_id = parse_int64(parser)
        op = cls(tile, lock_id)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.tile)
        if self.lockID is not None:
            printer.print_string(f", {self.lockID.value.data}")
        printer.print_string(")")
        printer.print_op_attributes(dict(sorted(self.attributes.items())))


@irdl_op_definition
class UseLockOp(IRDLOperation):
    """``aie.use_lock(%l, AcquireGreaterEqual, %c1_i32[, Blocking])``: the value is an ``i32``
    SSA operand (upstream since July 2026)."""

    name = "aie.use_lock"

    lock = operand_def(IndexType)
    action = prop_def(IntegerAttr[IntegerType])
    value = operand_def(IntegerType)
    blocking = opt_prop_def(IntegerAttr[IntegerType])

    def __init__(
        self,
        lock: SSAValue | Operation,
        action: str,
        value: SSAValue | Operation,
        blocking: str | None = None,
    ):
        props = {"action": _enum_attr(LOCK_ACTIONS, action)}
        if blocking is not None:
            props["blocking"] = _enum_attr(LOCK_BLOCKING, blocking)
        super().__init__(operands=[lock, value], properties=props)

    def verify_(self) -> None:
        _enum_name(LOCK_ACTIONS, self.action, "lock action")
        if self.blocking is not None:
            _enum_name(LOCK_BLOCKING, self.blocking, "lock blocking mode")
        if self.value.type != i32:
            raise VerifyException(f"aie.use_lock's value must be an i32, got {self.value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> UseLockOp:
        with parser.in_parens():
            lock = parser.parse_operand(IndexType())
            parser.parse_punctuation(",")
            action = _parse_enum(parser, LOCK_ACTIONS, "lock action")
            parser.parse_punctuation(",")
            value = parser.parse_operand(i32)
            blocking = None
            if parser.parse_optional_punctuation(",") is not None:
                blocking = _parse_enum(parser, LOCK_BLOCKING, "lock blocking mode")
        props: dict[str, Attribute] = {"action": action}
        if blocking is not None:
            props["blocking"] = blocking
        return cls.create(
            operands=[lock, value], properties=props, attributes=parser.parse_optional_attr_dict()
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.lock)
        printer.print_string(f", {_enum_name(LOCK_ACTIONS, self.action, 'lock action')}, ")
        printer.print_ssa_value(self.value)
        if self.blocking is not None:
            printer.print_string(f", {_enum_name(LOCK_BLOCKING, self.blocking, 'blocking')}")
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class FlowOp(IRDLOperation):
    """``aie.flow(%t00, DMA : 0, %t02, DMA : 0)``: a circuit-switched stream connection."""

    name = "aie.flow"

    source = operand_def(IndexType)
    source_bundle = prop_def(IntegerAttr[IntegerType])
    source_channel = prop_def(IntegerAttr[IntegerType])
    dest = operand_def(IndexType)
    dest_bundle = prop_def(IntegerAttr[IntegerType])
    dest_channel = prop_def(IntegerAttr[IntegerType])

    def __init__(
        self,
        source: SSAValue | Operation,
        source_bundle: str,
        source_channel: int,
        dest: SSAValue | Operation,
        dest_bundle: str,
        dest_channel: int,
    ):
        super().__init__(
            operands=[source, dest],
            properties={
                "source_bundle": _enum_attr(WIRE_BUNDLES, source_bundle),
                "source_channel": _i32(source_channel),
                "dest_bundle": _enum_attr(WIRE_BUNDLES, dest_bundle),
                "dest_channel": _i32(dest_channel),
            },
        )

    def verify_(self) -> None:
        for side in ("source", "dest"):
            _tile_of(getattr(self, side), f"aie.flow's {side}")
            _enum_name(WIRE_BUNDLES, getattr(self, f"{side}_bundle"), "wire bundle")
            channel = getattr(self, f"{side}_channel").value.data
            if channel < 0:
                raise VerifyException(f"aie.flow {side} channel must be >= 0, got {channel}")

    @classmethod
    def parse(cls, parser: Parser) -> FlowOp:
        ends: list[tuple[SSAValue, IntegerAttr, int]] = []
        with parser.in_parens():
            for k in range(2):
                if k:
                    parser.parse_punctuation(",")
                tile = parser.parse_operand(IndexType())
                parser.parse_punctuation(",")
                bundle = _parse_enum(parser, WIRE_BUNDLES, "wire bundle")
                parser.parse_punctuation(":")
                ends.append((tile, bundle, parse_int64(parser)))
        (s, sb, sc), (d, db, dc) = ends
        return cls.create(
            operands=[s, d],
            properties={
                "source_bundle": sb,
                "source_channel": _i32(sc),
                "dest_bundle": db,
                "dest_channel": _i32(dc),
            },
            attributes=parser.parse_optional_attr_dict(),
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for k, side in enumerate(("source", "dest")):
            if k:
                printer.print_string(", ")
            printer.print_ssa_value(getattr(self, side))
            bundle = _enum_name(WIRE_BUNDLES, getattr(self, f"{side}_bundle"), "wire bundle")
            printer.print_string(f", {bundle} : {getattr(self, f'{side}_channel').value.data}")
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ShimDMAAllocationOp(IRDLOperation):
    """``aie.shim_dma_allocation @x(%shim, MM2S, 0)``: which shim DMA channel carries ``@x``."""

    name = "aie.shim_dma_allocation"

    sym_name = prop_def(StringAttr)
    tile = operand_def(IndexType)
    channel_dir = prop_def(IntegerAttr[IntegerType])
    channel_index = prop_def(IntegerAttr[IntegerType])
    packet = opt_prop_def(PacketInfoAttr)

    traits = traits_def(SymbolOpInterface())

    def __init__(self, name: str, tile: SSAValue | Operation, direction: str, channel: int):
        super().__init__(
            operands=[tile],
            properties={
                "sym_name": StringAttr(name),
                "channel_dir": _enum_attr(DMA_CHANNEL_DIRS, direction),
                "channel_index": IntegerAttr(channel, i64),
            },
        )

    def verify_(self) -> None:
        _device_of(self, "aie.shim_dma_allocation")
        _enum_name(DMA_CHANNEL_DIRS, self.channel_dir, "DMA channel direction")
        tile = _tile_of(self.tile, "aie.shim_dma_allocation's tile")
        if tile is not None and tile.kind() != "shim":
            col, row = tile.coordinates
            raise VerifyException(f"tile must be a shim tile, but got tile({col}, {row})")
        if self.channel_index.value.data < 0:
            raise VerifyException(
                f"channel index must be >= 0, got {self.channel_index.value.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ShimDMAAllocationOp:
        name = parser.parse_symbol_name()
        with parser.in_parens():
            tile = parser.parse_operand(IndexType())
            parser.parse_punctuation(",")
            direction = _parse_enum(parser, DMA_CHANNEL_DIRS, "DMA channel direction")
            parser.parse_punctuation(",")
            channel = parse_int64(parser)
            packet = {}
            if parser.parse_optional_punctuation(",") is not None:
                packet["packet"] = PacketInfoAttr(*PacketInfoAttr.parse_parameters(parser))
        return cls.create(
            operands=[tile],
            properties={
                "sym_name": name,
                "channel_dir": direction,
                "channel_index": IntegerAttr(channel, i64),
                **packet,
            },
            attributes=parser.parse_optional_attr_dict(),
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_ssa_value(self.tile)
        direction = _enum_name(DMA_CHANNEL_DIRS, self.channel_dir, "DMA channel direction")
        printer.print_string(f", {direction}, {self.channel_index.value.data}")
        if self.packet is not None:
            printer.print_string(", ")
            self.packet.print_parameters(printer)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------- host side


@irdl_op_definition
class RuntimeSequenceOp(IRDLOperation):
    """``aie.runtime_sequence [@name](%a: memref<64xi32>, ...) { ... }``: what the host's
    command processor runs per invocation (no terminator). Its arguments are the host
    buffers; its body programs shim DMAs (``aiex.npu.dma_memcpy_nd``) and waits on them."""

    name = "aie.runtime_sequence"

    sym_name = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(
        self,
        arg_types: Sequence[Attribute],
        body: Region | None = None,
        sym_name: str | None = None,
    ):
        body = body or Region(Block(arg_types=arg_types))
        props = {} if sym_name is None else {"sym_name": StringAttr(sym_name)}
        super().__init__(properties=props, regions=[body])

    def verify_(self) -> None:
        _device_of(self, "aie.runtime_sequence")

    @classmethod
    def parse(cls, parser: Parser) -> RuntimeSequenceOp:
        sym = parser.parse_optional_symbol_name()
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_typed_argument(parser)
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parse_single_block_region(parser, args)  # pyright: ignore[reportArgumentType]
        if not body.blocks:  # `{ }`: an empty block with the arguments
            block = Block(arg_types=[a.type for a in args])  # pyright: ignore
            for arg, parsed in zip(block.args, args):
                arg.name_hint = parsed.name.text[1:]  # pyright: ignore
            body.add_block(block)
        op = cls([], body, None if sym is None or sym.data == "sequence" else sym.data)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.sym_name is not None and self.sym_name.data != "sequence":
            printer.print_string(" ")
            printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.blocks[0].args, printer.print_block_argument)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _parse_index_list(parser: Parser) -> tuple[list[int], list[UnresolvedOperand]]:
    """``[0, %x, 4, 1]``: static entries and the SSA ones (marked DYNAMIC)."""
    static: list[int] = []
    dynamic: list[UnresolvedOperand] = []

    def entry() -> None:
        operand = parser.parse_optional_unresolved_operand()
        if operand is not None:
            static.append(DYNAMIC)
            dynamic.append(operand)
        else:
            static.append(parse_int64(parser))

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
    return static, dynamic


def _print_index_list(printer: Printer, static: Sequence[int], dynamic: Iterator[SSAValue]) -> None:
    printer.print_string("[")
    printer.print_list(
        static,
        lambda s: (
            printer.print_ssa_value(next(dynamic)) if s == DYNAMIC else printer.print_string(str(s))
        ),
    )
    printer.print_string("]")


# --------------------------------------------------------------------------- the rest of mlir-aie
# The ops below are written for mlir-aie's own designs and tests (its lower-level DMA programs,
# switchbox routing, packet flows, cascades and trace setup); the AIE lowering prints none of
# them. Enums are i32 values as everywhere in this dialect (custom<...> directives print their
# names). Their syntax is upstream's assemblyFormat, given here as xDSL declarative formats; an
# op's attributes outside its format stay in its attribute dictionary.


def _enum_directive(name: str, cases: Mapping[str, int], what: str) -> type[CustomDirective]:
    """``custom<name>($x)``: an upstream I32EnumAttr stored as its ``i32`` value, written as its
    case name (a quoted string where the name is not an identifier, as "Event-Time")."""

    def parse(self: Any, parser: Parser, state: ParsingState) -> None:
        self.value.set(state, _parse_enum(parser, cases, what))

    def print_(self: Any, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_identifier_or_string_literal(_enum_name(cases, self.value.get(op), what))

    body = {"__annotations__": {"value": AttributeVariable}, "parse": parse, "print": print_}
    directive = irdl_custom_directive(type(name, (CustomDirective,), body))
    directive.CASES = _EnumCases(cases, what)  # the property's constraint
    return directive


@dataclass(frozen=True)
class _EnumCases(AttrConstraint[IntegerAttr]):
    """An ``i32`` that is one of an upstream enum's case values."""

    cases: Mapping[str, int]
    what: str

    def __hash__(self) -> int:
        return hash(self.what)

    def verify(self, attr: Attribute, constraint_context: ConstraintContext) -> None:
        if not isinstance(attr, IntegerAttr) or attr.type != i32:
            raise VerifyException(f"a {self.what} must be an i32, got {attr}")
        _enum_name(self.cases, attr, self.what)

    def get_bases(self) -> set[type[Attribute]] | None:
        return {IntegerAttr}

    def mapping_type_vars(self, type_var_mapping: Mapping[Any, Any]) -> _EnumCases:
        return self


TILE_TYPES = {"CoreTile": 0, "MemTile": 1, "ShimNOCTile": 2, "ShimPLTile": 3}
CASCADE_DIRS = {"South": 3, "West": 4, "North": 5, "East": 6}
TRACE_MODES = {"Event-Time": 0, "Event-PC": 1, "Execution": 2}
TRACE_PACKET_TYPES = {"core": 0, "mem": 1, "shimtile": 2, "memtile": 3}
COMBO_LOGIC = {"AND": 0, "AND_NOT": 1, "OR": 2, "OR_NOT": 3}
EDGE_TRIGGERS = {"RISING": 1, "FALLING": 2, "BOTH": 3}

Bundle = _enum_directive("Bundle", WIRE_BUNDLES, "wire bundle")
ChannelDir = _enum_directive("ChannelDir", DMA_CHANNEL_DIRS, "DMA channel direction")
CascadeDir = _enum_directive("CascadeDir", CASCADE_DIRS, "cascade direction")
LockAction = _enum_directive("LockAction", LOCK_ACTIONS, "lock action")
TraceMode = _enum_directive("TraceMode", TRACE_MODES, "trace mode")
TracePacketType = _enum_directive("TracePacketType", TRACE_PACKET_TYPES, "trace packet type")
ComboLogic = _enum_directive("ComboLogic", COMBO_LOGIC, "combo logic")
EdgeTrigger = _enum_directive("EdgeTrigger", EDGE_TRIGGERS, "edge trigger")


@irdl_op_definition
class LogicalTileOp(IRDLOperation):
    """``%t = aie.logical_tile<CoreTile>(?, 2)``: a tile of a kind, its coordinates (``?``)
    left to placement."""

    name = "aie.logical_tile"

    tile_type = prop_def(_EnumCases(TILE_TYPES, "tile type"))
    col = opt_prop_def(IntegerAttr[IntegerType])
    row = opt_prop_def(IntegerAttr[IntegerType])
    result = result_def(IndexType)

    def verify_(self) -> None:
        for what, value in (("column", self.col), ("row", self.row)):
            if value is not None and value.value.data < 0:
                raise VerifyException(
                    f"aie.logical_tile {what} must be >= 0 or ?, got {value.value.data}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> LogicalTileOp:
        with parser.in_angle_brackets():
            kind = _parse_enum(parser, TILE_TYPES, "tile type")
        props: dict[str, Attribute] = {"tile_type": kind}
        with parser.in_parens():
            for i, key in enumerate(("col", "row")):
                if i:
                    parser.parse_punctuation(",")
                if parser.parse_optional_punctuation("?") is None:
                    props[key] = _i32(parse_int64(parser))
        props2, rest = _split_props(parser.parse_optional_attr_dict(), ("allocation_scheme",))
        return cls.create(properties=props, attributes=props2 | rest, result_types=[IndexType()])

    def print(self, printer: Printer) -> None:
        coords = [str(a.value.data) if a is not None else "?" for a in (self.col, self.row)]
        kind = _enum_name(TILE_TYPES, self.tile_type, "tile type")
        printer.print_string(f"<{kind}>({', '.join(coords)})")
        printer.print_op_attributes(self.attributes)


class _TileRegionOp(IRDLOperation):
    """An op of a tile holding a region: ``%r = aie.<op>(%tile) { ... }``."""

    tile = operand_def(IndexType)
    body = region_def()
    result = result_def(IndexType)

    assembly_format = "`(` $tile `)` $body attr-dict"

    def verify_(self) -> None:
        _tile_of(self.tile, f"{self.name}'s tile")


@irdl_op_definition
class SwitchboxOp(_TileRegionOp):
    """``aie.switchbox(%t) { aie.connect<South : 0, North : 0> ... }``: a tile's stream switch."""

    name = "aie.switchbox"
    traits = traits_def(NoTerminator())


@irdl_op_definition
class ShimMuxOp(_TileRegionOp):
    """``aie.shim_mux(%t) { aie.connect<DMA : 0, North : 3> }``: a shim tile's multiplexer."""

    name = "aie.shim_mux"
    traits = traits_def(NoTerminator())


class _DmaRegionOp(_TileRegionOp):
    """A DMA program: blocks of ``aie.dma_start`` / ``aie.dma_bd`` + ``aie.next_bd`` chains,
    ending in a block holding ``aie.end``."""

    def verify_(self) -> None:
        tile = _tile_of(self.tile, f"{self.name}'s tile")
        device = enclosing(self, DeviceOp)
        if tile is None or device is None or self.KIND is None:
            return
        kind = device.model.kind(tile.row.value.data)
        if kind != self.KIND:
            raise VerifyException(
                f"{self.name} on tile {tile.coordinates}, a {kind} tile; it belongs on a "
                f"{self.KIND} tile"
            )

    KIND: ClassVar[str | None] = None


@irdl_op_definition
class MemOp(_DmaRegionOp):
    """``%m = aie.mem(%t) { ... }``: the DMA program of a compute tile."""

    name = "aie.mem"
    KIND: ClassVar[str | None] = "core"  # a compute tile (DeviceModel.kind)


@irdl_op_definition
class MemTileDMAOp(_DmaRegionOp):
    """``%m = aie.memtile_dma(%t) { ... }``: the DMA program of a memtile."""

    name = "aie.memtile_dma"
    KIND: ClassVar[str | None] = "memtile"


@irdl_op_definition
class ShimDMAOp(_DmaRegionOp):
    """``%m = aie.shim_dma(%t) { ... }``: the DMA program of a shim tile."""

    name = "aie.shim_dma"
    KIND: ClassVar[str | None] = "shim"


@irdl_op_definition
class DMAStartOp(IRDLOperation):
    """``aie.dma_start(MM2S, 0, ^bd0, ^next)``: start a channel at a BD chain, go on at ``^next``."""

    name = "aie.dma_start"

    channel_dir = prop_def(ChannelDir.CASES)
    channel_index = prop_def(IntegerAttr[I32])
    repeat_count = opt_prop_def(IntegerAttr[I32])
    dest = successor_def()
    chain = successor_def()
    valid = result_def(IntegerType(1))
    traits = traits_def(IsTerminator())

    custom_directives = (ChannelDir,)
    assembly_format = (
        "`(` custom<ChannelDir>($channel_dir) `,` $channel_index `,` $dest `,` $chain "
        "(`,` `repeat_count` `=` $repeat_count^)? `)` attr-dict"
    )

    def verify_(self) -> None:
        if self.channel_index.value.data < 0:
            raise VerifyException(
                f"aie.dma_start channel must be >= 0, got {self.channel_index.value.data}"
            )


@irdl_op_definition
class NextBDOp(IRDLOperation):
    """``aie.next_bd ^bd1``: the BD of this block is followed by the one of ``^bd1``."""

    name = "aie.next_bd"

    dest = successor_def()
    traits = traits_def(IsTerminator())

    assembly_format = "$dest attr-dict"


_BD_PROPS = ("static_offset", "static_len", "static_sizes", "static_strides", "pad_dimensions")


@irdl_op_definition
class DMABDOp(IRDLOperation):
    """``aie.dma_bd(%buf : memref<256xi32> offset = 0 len = 256 sizes = [..] strides = [..]
    pad [<const_pad_before = 0, const_pad_after = 1>])``: one buffer descriptor.

    Offset and length count elements; sizes and strides (outermost first) may be SSA ``i64``
    values; each pad dimension pairs with a size.
    """

    name = "aie.dma_bd"

    buffer = operand_def(MemRefType | UnrankedMemRefType)
    offset = opt_operand_def(I32)
    len = opt_operand_def(I32)
    sizes = var_operand_def(IntegerType)
    strides = var_operand_def(IntegerType)
    static_offset = opt_prop_def(IntegerAttr[I32])
    static_len = opt_prop_def(IntegerAttr[I32])
    static_sizes = opt_prop_def(DenseArrayBase)
    static_strides = opt_prop_def(DenseArrayBase)
    pad_dimensions = opt_prop_def(ArrayAttr[BDPadLayoutAttr])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        sizes = list(self.static_sizes.get_values()) if self.static_sizes else []
        strides = list(self.static_strides.get_values()) if self.static_strides else []
        if len(sizes) != len(strides):
            raise VerifyException(
                f"aie.dma_bd has {len(sizes)} sizes but {len(strides)} strides; they pair up"
            )
        for what, static, dynamic in (
            ("sizes", sizes, self.sizes),
            ("strides", strides, self.strides),
        ):
            if sum(v == DYNAMIC for v in static) != len(dynamic):
                raise VerifyException(
                    f"aie.dma_bd {what} mark {sum(v == DYNAMIC for v in static)} SSA entries but "
                    f"{len(dynamic)} are given"
                )
        if self.pad_dimensions is not None and len(self.pad_dimensions.data) > max(len(sizes), 1):
            raise VerifyException(
                f"aie.dma_bd pads {len(self.pad_dimensions.data)} dimensions but has "
                f"{len(sizes)}: pad dimensions pair with sizes"
            )
        for what, value in (("offset", self.static_offset), ("len", self.static_len)):
            if value is not None and value.value.data < 0:
                raise VerifyException(f"aie.dma_bd {what} must be >= 0, got {value.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> DMABDOp:
        props: dict[str, Attribute] = {}
        scalars: dict[str, UnresolvedOperand] = {}
        lists: dict[str, list[UnresolvedOperand]] = {"sizes": [], "strides": []}
        with parser.in_parens():
            buffer = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            buffer_type = parser.parse_type()
            for key in ("offset", "len", "sizes", "strides"):
                if parser.parse_optional_keyword(key) is None:
                    continue
                parser.parse_punctuation("=")
                if key in ("offset", "len"):
                    operand = parser.parse_optional_unresolved_operand()
                    if operand is None:
                        props[f"static_{key}"] = _i32(parse_int64(parser))
                    else:
                        scalars[key] = operand
                else:
                    static, lists[key] = _parse_index_list(parser)
                    props[f"static_{key}"] = DenseArrayBase.from_list(i64, static)
            if parser.parse_optional_keyword("pad") is not None:
                props["pad_dimensions"] = ArrayAttr(
                    parser.parse_comma_separated_list(
                        parser.Delimiter.SQUARE,
                        lambda: BDPadLayoutAttr(*BDPadLayoutAttr.parse_parameters(parser)),
                    )
                )
        operands = [
            [parser.resolve_operand(buffer, buffer_type)],
            *(
                [parser.resolve_operand(scalars[k], i32)] if k in scalars else []
                for k in ("offset", "len")
            ),
            *([parser.resolve_operand(v, i64) for v in lists[k]] for k in ("sizes", "strides")),
        ]
        return cls.create(
            operands=[v for group in operands for v in group],
            properties=props
            | {"operandSegmentSizes": DenseArrayBase.from_list(i32, [len(g) for g in operands])},
            attributes=parser.parse_optional_attr_dict(),
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.buffer)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        for key, static, dynamic in (
            ("offset", self.static_offset, self.offset),
            ("len", self.static_len, self.len),
        ):
            if dynamic is not None:
                printer.print_string(f" {key} = ")
                printer.print_ssa_value(dynamic)
            elif static is not None:
                printer.print_string(f" {key} = {static.value.data}")
        for key, static, dynamic in (
            ("sizes", self.static_sizes, self.sizes),
            ("strides", self.static_strides, self.strides),
        ):
            if static is not None:
                printer.print_string(f" {key} = ")
                _print_index_list(printer, static.get_values(), iter(dynamic))
        if self.pad_dimensions is not None:
            printer.print_string(" pad [")
            printer.print_list(self.pad_dimensions.data, lambda p: p.print_parameters(printer))
            printer.print_string("]")
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class DMAOp(IRDLOperation):
    """``%0 = aie.dma(S2MM, 0) [{ aie.use_lock(...) aie.dma_bd(...) ... }, {...}]``: a channel
    looping over the BDs of its regions (one BD each)."""

    name = "aie.dma"

    channel_dir = prop_def(ChannelDir.CASES)
    channel_index = prop_def(IntegerAttr[I32])
    bds = var_region_def()
    valid = result_def(IntegerType(1))
    traits = traits_def(NoTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> DMAOp:
        with parser.in_parens():
            direction = _parse_enum(parser, DMA_CHANNEL_DIRS, "DMA channel direction")
            parser.parse_punctuation(",")
            index = _i32(parse_int64(parser))
        attrs = parser.parse_optional_attr_dict()
        regions = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_region)
        return cls.create(
            properties={"channel_dir": direction, "channel_index": index},
            attributes=attrs,
            regions=regions,
            result_types=[IntegerType(1)],
        )

    def print(self, printer: Printer) -> None:
        direction = _enum_name(DMA_CHANNEL_DIRS, self.channel_dir, "DMA channel direction")
        printer.print_string(f"({direction}, {self.channel_index.value.data})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" [")
        printer.print_list(self.bds, printer.print_region)
        printer.print_string("]")


@irdl_op_definition
class DMABDPacketOp(IRDLOperation):
    """``aie.dma_bd_packet(0, 2)``: the packet type and id the block's BD sends."""

    name = "aie.dma_bd_packet"

    packet_type = prop_def(IntegerAttr[I32])
    packet_id = prop_def(IntegerAttr[I32])

    assembly_format = "`(` $packet_type `,` $packet_id `)` attr-dict"


@irdl_op_definition
class ExternalBufferOp(IRDLOperation):
    """``%b = aie.external_buffer {sym_name = "in"} : memref<512xi32>``: a buffer in host memory."""

    name = "aie.external_buffer"

    buffer = result_def(MemRefType)

    assembly_format = "attr-dict `:` type($buffer)"


@irdl_op_definition
class ConnectOp(IRDLOperation):
    """``aie.connect<South : 0, North : 3>``: a stream switch connection."""

    name = "aie.connect"

    source_bundle = prop_def(Bundle.CASES)
    source_channel = prop_def(IntegerAttr[I32])
    dest_bundle = prop_def(Bundle.CASES)
    dest_channel = prop_def(IntegerAttr[I32])

    custom_directives = (Bundle,)
    assembly_format = "`<` custom<Bundle>($source_bundle) `:` $source_channel `,` custom<Bundle>($dest_bundle) `:` $dest_channel `>` attr-dict"

    def verify_(self) -> None:
        for what, value in (("source", self.source_channel), ("dest", self.dest_channel)):
            if value.value.data < 0:
                raise VerifyException(
                    f"aie.connect {what} channel must be >= 0, got {value.value.data}"
                )


@irdl_op_definition
class AMSelOp(IRDLOperation):
    """``%a = aie.amsel<0>(1)``: arbiter 0, master select 1 of a packet switch."""

    name = "aie.amsel"

    arbiterID = prop_def(IntegerAttr[I8])
    msel = prop_def(IntegerAttr[I8])
    result = result_def(IndexType)

    assembly_format = "`<` $arbiterID `>` `(` $msel `)` attr-dict"

    def verify_(self) -> None:
        if not 0 <= self.arbiterID.value.data <= 5 or not 0 <= self.msel.value.data <= 3:
            raise VerifyException(
                f"aie.amsel<{self.arbiterID.value.data}>({self.msel.value.data}): the arbiter is "
                "0..5 and the master select 0..3"
            )


@irdl_op_definition
class MasterSetOp(IRDLOperation):
    """``%m = aie.masterset(North : 0, %a0, ...)``: the arbiters feeding an output port."""

    name = "aie.masterset"

    dest_bundle = prop_def(Bundle.CASES)
    dest_channel = prop_def(IntegerAttr[I32])
    amsels = var_operand_def(IndexType)
    result = result_def(IndexType)

    custom_directives = (Bundle,)
    assembly_format = "`(` custom<Bundle>($dest_bundle) `:` $dest_channel `,` $amsels `)` attr-dict"


@irdl_op_definition
class PacketRulesOp(IRDLOperation):
    """``aie.packet_rules(West : 0) { aie.rule(0x1F, 0x1, %a) }``: packet routing of an input."""

    name = "aie.packet_rules"

    source_bundle = prop_def(Bundle.CASES)
    source_channel = prop_def(IntegerAttr[I32])
    rules = region_def()
    traits = traits_def(NoTerminator())

    custom_directives = (Bundle,)
    assembly_format = "`(` custom<Bundle>($source_bundle) `:` $source_channel `)` $rules attr-dict"


@irdl_op_definition
class PacketRuleOp(IRDLOperation):
    """``aie.rule(mask, value, %amsel)``: packets whose id & mask == value go to ``%amsel``."""

    name = "aie.rule"

    mask = prop_def(IntegerAttr[I8])
    value = prop_def(IntegerAttr[I8])
    amsel = operand_def(IndexType)

    assembly_format = "`(` $mask `,` $value `,` $amsel `)` attr-dict"


@irdl_op_definition
class WireOp(IRDLOperation):
    """``aie.wire(%s : South, %t : North)``: a physical connection between two ports."""

    name = "aie.wire"

    source = operand_def(IndexType)
    source_bundle = prop_def(Bundle.CASES)
    dest = operand_def(IndexType)
    dest_bundle = prop_def(Bundle.CASES)

    custom_directives = (Bundle,)
    assembly_format = "`(` $source `:` custom<Bundle>($source_bundle) `,` $dest `:` custom<Bundle>($dest_bundle) `)` attr-dict"


@irdl_op_definition
class PacketFlowOp(IRDLOperation):
    """``aie.packet_flow(0x1) { aie.packet_source<%t, DMA : 0> aie.packet_dest<...> }``: a
    packet-switched flow of packets with this id."""

    name = "aie.packet_flow"

    ID = prop_def(IntegerAttr[I8])
    ports = region_def()
    traits = traits_def(NoTerminator())

    assembly_format = "`(` $ID `)` $ports attr-dict"

    def verify_(self) -> None:
        ops = list(self.ports.walk())
        if not any(isinstance(o, PacketSourceOp) for o in ops):
            raise VerifyException(
                f"aie.packet_flow({self.ID.value.data}) needs an aie.packet_source"
            )
        if not any(isinstance(o, PacketDestOp) for o in ops):
            raise VerifyException(f"aie.packet_flow({self.ID.value.data}) needs an aie.packet_dest")


class _PacketEndOp(IRDLOperation):
    tile = operand_def(IndexType)
    bundle = prop_def(Bundle.CASES)
    channel = prop_def(IntegerAttr[I32])

    custom_directives = (Bundle,)
    assembly_format = "`<` $tile `,` custom<Bundle>($bundle) `:` $channel `>` attr-dict"

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), PacketFlowOp):
            raise VerifyException(f"{self.name} must be inside an aie.packet_flow")
        _tile_of(self.tile, f"{self.name}'s tile")


@irdl_op_definition
class PacketSourceOp(_PacketEndOp):
    """``aie.packet_source<%t, DMA : 0>``: where a packet flow enters the network."""

    name = "aie.packet_source"


@irdl_op_definition
class PacketDestOp(_PacketEndOp):
    """``aie.packet_dest<%t, Core : 0>``: where a packet flow leaves the network."""

    name = "aie.packet_dest"


@irdl_op_definition
class CascadeFlowOp(IRDLOperation):
    """``aie.cascade_flow(%a, %b)``: core ``%a``'s cascade output feeds its neighbour ``%b``."""

    name = "aie.cascade_flow"

    source_tile = operand_def(IndexType)
    dest_tile = operand_def(IndexType)

    assembly_format = "`(` $source_tile `,` $dest_tile `)` attr-dict"

    def verify_(self) -> None:
        # mlir-aie: CascadeFlowOp::verify (AIEDialect.cpp)
        src = _tile_of(self.source_tile, "aie.cascade_flow's source")
        dst = _tile_of(self.dest_tile, "aie.cascade_flow's dest")
        if src is None or dst is None:
            return
        for tile in (src, dst):
            if tile.kind() in ("shim", "memtile"):
                name = "shimTile" if tile.kind() == "shim" else "memTile"
                raise VerifyException(f"{name} row has no cascade stream interface")
        (c0, r0), (c1, r1) = src.coordinates, dst.coordinates
        if abs(c0 - c1) + abs(r0 - r1) != 1:
            raise VerifyException(
                f"tiles must be adjacent: {src.coordinates} and {dst.coordinates}"
            )


@irdl_op_definition
class ConfigureCascadeOp(IRDLOperation):
    """``aie.configure_cascade(%t, North, East)``: a core's cascade input and output sides."""

    name = "aie.configure_cascade"

    tile = operand_def(IndexType)
    inputDir = prop_def(CascadeDir.CASES)
    outputDir = prop_def(CascadeDir.CASES)

    custom_directives = (CascadeDir,)
    assembly_format = "`(` $tile `,` custom<CascadeDir>($inputDir) `,` custom<CascadeDir>($outputDir) `)` attr-dict"


@irdl_op_definition
class GetCascadeOp(IRDLOperation):
    """``%v = aie.get_cascade() : vector<16xi32>``: read the cascade input in a core."""

    name = "aie.get_cascade"

    cascade_value = result_def()

    assembly_format = "`(` `)` attr-dict `:` type($cascade_value)"


@irdl_op_definition
class PutCascadeOp(IRDLOperation):
    """``aie.put_cascade(%v : vector<16xi32>)``: write the cascade output in a core."""

    name = "aie.put_cascade"

    cascade_value = operand_def()

    assembly_format = "`(` $cascade_value `:` type($cascade_value) `)` attr-dict"


@irdl_op_definition
class GetStreamOp(IRDLOperation):
    """``%v = aie.get_stream(%c : i32) : i32``: read a core's stream input."""

    name = "aie.get_stream"

    channel = operand_def(IntegerType)
    stream_value = result_def()

    assembly_format = "`(` $channel `:` type($channel) `)` attr-dict `:` type($stream_value)"


@irdl_op_definition
class PutStreamOp(IRDLOperation):
    """``aie.put_stream(%c : i32, %v : i32)``: write a core's stream output."""

    name = "aie.put_stream"

    channel = operand_def(IntegerType)
    stream_value = operand_def()

    assembly_format = (
        "`(` $channel `:` type($channel) `,` $stream_value `:` type($stream_value) `)` attr-dict"
    )


@irdl_op_definition
class EventOp(IRDLOperation):
    """``aie.event(0)``: raise core event 0 or 1."""

    name = "aie.event"

    val = prop_def(IntegerAttr[I32])

    assembly_format = "`(` $val `)` attr-dict"

    def verify_(self) -> None:
        if self.val.value.data not in (0, 1):
            raise VerifyException(f"aie.event takes 0 or 1, got {self.val.value.data}")


@irdl_op_definition
class ObjectFifoRegisterExternalBuffersOp(IRDLOperation):
    """``aie.objectfifo.register_external_buffers @of (%shim, {%b0, %b1}) : (memref<..>, ..)``."""

    name = "aie.objectfifo.register_external_buffers"

    objFifo_name = prop_def(FlatSymbolRefAttr)
    tile = operand_def(IndexType)
    externalBuffers = var_operand_def(MemRefType)

    assembly_format = (
        "attr-dict $objFifo_name `(` $tile `,` `{` $externalBuffers `}` `)` "
        "`:` `(` type($externalBuffers) `)`"
    )


@irdl_op_definition
class ObjectFifoAllocateOp(IRDLOperation):
    """``aie.objectfifo.allocate @of(%t)``: place an objectfifo's buffers in tile ``%t``."""

    name = "aie.objectfifo.allocate"

    objFifo_name = prop_def(FlatSymbolRefAttr)
    delegateTile = operand_def(IndexType)

    assembly_format = "$objFifo_name `(` $delegateTile `)` attr-dict"


@irdl_op_definition
class ObjectFifoRearmBindingOp(IRDLOperation):
    """``aie.objectfifo_rearm_binding @of channels(%t : index) locks(%l : index) {...}``: the
    channels and locks a lowered objectfifo re-arms between runs."""

    name = "aie.objectfifo_rearm_binding"

    sym_name = prop_def(SymbolNameConstraint())
    channel_tiles = var_operand_def(IndexType)
    locks = var_operand_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$sym_name `channels` `(` ($channel_tiles^ `:` type($channel_tiles))? `)` "
        "`locks` `(` ($locks^ `:` type($locks))? `)` attr-dict"
    )


@irdl_op_definition
class BDChainOp(IRDLOperation):
    """``aie.bd_chain @c(%buf: memref<8xi16>) { ... }``: a reusable BD chain of a runtime
    sequence, started with ``aiex.dma_start_bd_chain``."""

    name = "aie.bd_chain"

    sym_name = prop_def(StringAttr)
    body = region_def()
    traits = traits_def(SymbolOpInterface())

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException(f"aie.bd_chain @{self.sym_name.data} needs a body")

    @classmethod
    def parse(cls, parser: Parser) -> BDChainOp:
        name = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_typed_argument(parser)
        )
        body = parser.parse_region(args)
        return cls.create(
            properties={"sym_name": name},
            regions=[body],
            attributes=parser.parse_optional_attr_dict(),
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" @{self.sym_name.data}(")
        printer.print_list(self.body.blocks[0].args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


# ----- trace


@irdl_op_definition
class TraceOp(IRDLOperation):
    """``aie.trace @t(%tile) { aie.trace.mode ... aie.trace.event<"..."> ... }``: a tile's
    trace unit setup."""

    name = "aie.trace"

    sym_name = prop_def(SymbolNameConstraint())
    tile = operand_def(IndexType)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), NoTerminator())

    assembly_format = "$sym_name `(` $tile `)` $body attr-dict"

    def verify_(self) -> None:
        _tile_of(self.tile, f"{self.name}'s tile")
        events = [o for o in self.body.block.ops if isinstance(o, TraceEventOp)]
        if len(events) > 8:
            raise VerifyException(f"trace unit supports maximum 8 events, got {len(events)}")


class _TraceChildOp(IRDLOperation):
    def verify_(self) -> None:
        if not isinstance(self.parent_op(), TraceOp):
            raise VerifyException(f"{self.name} must be nested in aie.trace")


@irdl_op_definition
class TraceModeOp(_TraceChildOp):
    """``aie.trace.mode "Event-Time"``."""

    name = "aie.trace.mode"

    mode = prop_def(TraceMode.CASES)

    custom_directives = (TraceMode,)
    assembly_format = "custom<TraceMode>($mode) attr-dict"


@irdl_op_definition
class TraceEventOp(_TraceChildOp):
    """``aie.trace.event<"INSTR_EVENT_0"> [label = "..."]``: one traced event."""

    name = "aie.trace.event"

    event = prop_def(TraceEventAttr)
    label = opt_prop_def(StringAttr)

    assembly_format = "$event (`label` `=` $label^)? attr-dict"


@irdl_op_definition
class TracePacketOp(_TraceChildOp):
    """``aie.trace.packet id=1 type=core``: the packet header of the trace stream."""

    name = "aie.trace.packet"

    id = opt_prop_def(IntegerAttr[I32])
    type = prop_def(TracePacketType.CASES)

    custom_directives = (TracePacketType,)
    assembly_format = "(`id` `=` $id^)? `type` `=` custom<TracePacketType>($type) attr-dict"

    def verify_(self) -> None:
        super().verify_()
        if self.id is not None and not 1 <= self.id.value.data <= 31:
            raise VerifyException(f"packet ID must be in range [1, 31], got {self.id.value.data}")


@irdl_op_definition
class TracePortOp(_TraceChildOp):
    """``aie.trace.port<0> port=North channel=1 direction=S2MM``: a stream port to watch."""

    name = "aie.trace.port"

    slot = prop_def(IntegerAttr[I32])
    port = prop_def(Bundle.CASES)
    channel = prop_def(IntegerAttr[I32])
    direction = prop_def(ChannelDir.CASES)

    custom_directives = (
        Bundle,
        ChannelDir,
    )
    assembly_format = "`<` $slot `>` `port` `=` custom<Bundle>($port) `channel` `=` $channel `direction` `=` custom<ChannelDir>($direction) attr-dict"


class _TraceTriggerOp(_TraceChildOp):
    """``broadcast=15`` or ``event=<"...">``: what starts or stops the trace."""

    broadcast = opt_prop_def(IntegerAttr[I32])
    event = opt_prop_def(TraceEventAttr)

    def verify_(self) -> None:
        super().verify_()
        if (self.broadcast is None) == (self.event is None):
            raise VerifyException(
                "must specify either broadcast or event"
                if self.broadcast is None
                else "cannot specify both broadcast and event"
            )

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        props: dict[str, Attribute] = {}
        while key := parser.parse_optional_keyword("broadcast") or parser.parse_optional_keyword(
            "event"
        ):
            parser.parse_punctuation("=")
            if key == "broadcast":
                props[key] = _i32(parse_int64(parser))
            else:
                props[key] = TraceEventAttr(*TraceEventAttr.parse_parameters(parser))
        return cls.create(properties=props, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        if self.broadcast is not None:
            printer.print_string(f" broadcast={self.broadcast.value.data}")
        if self.event is not None:
            printer.print_string(" event=")
            self.event.print_parameters(printer)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class TraceStartOp(_TraceTriggerOp):
    """``aie.trace.start broadcast=15``."""

    name = "aie.trace.start"


@irdl_op_definition
class TraceStopOp(_TraceTriggerOp):
    """``aie.trace.stop broadcast=14``."""

    name = "aie.trace.stop"


@irdl_op_definition
class TraceComboEventOp(_TraceChildOp):
    """``aie.trace.combo_event<0> "A" AND "B"``: a combination of two events."""

    name = "aie.trace.combo_event"

    slot = prop_def(IntegerAttr[I32])
    eventA = prop_def(TraceEventAttr)
    logic = prop_def(ComboLogic.CASES)
    eventB = prop_def(TraceEventAttr)

    custom_directives = (ComboLogic,)
    assembly_format = "`<` $slot `>` $eventA custom<ComboLogic>($logic) $eventB attr-dict"

    def verify_(self) -> None:
        super().verify_()
        if self.slot.value.data not in (0, 1, 2):
            raise VerifyException(
                f"combo event slot must be 0, 1, or 2, got {self.slot.value.data}"
            )


@irdl_op_definition
class TraceEdgeEventOp(_TraceChildOp):
    """``aie.trace.edge_event<0> event="A" trigger=RISING``: an event's edges."""

    name = "aie.trace.edge_event"

    slot = prop_def(IntegerAttr[I32])
    event = prop_def(TraceEventAttr)
    trigger = prop_def(EdgeTrigger.CASES)

    custom_directives = (EdgeTrigger,)
    assembly_format = (
        "`<` $slot `>` `event` `=` $event `trigger` `=` custom<EdgeTrigger>($trigger) attr-dict"
    )


@irdl_op_definition
class TraceStartConfigOp(IRDLOperation):
    """``aie.trace.start_config @t``: in a runtime sequence, switch trace ``@t`` on."""

    name = "aie.trace.start_config"

    trace_config = prop_def(FlatSymbolRefAttr)

    assembly_format = "$trace_config attr-dict"


@irdl_op_definition
class TraceHostConfigOp(IRDLOperation):
    """``aie.trace.host_config {buffer_size = 8192 : i32}``: where the host collects traces."""

    name = "aie.trace.host_config"

    assembly_format = "attr-dict"

    def verify_(self) -> None:
        size = self.attributes.get("buffer_size")
        if not isinstance(size, IntegerAttr) or size.value.data <= 0:
            raise VerifyException("aie.trace.host_config needs buffer_size, a positive i32")


AIE = Dialect(
    "aie",
    [
        DeviceOp,
        EndOp,
        TileOp,
        ObjectFifoCreateOp,
        ObjectFifoLinkOp,
        ObjectFifoAcquireOp,
        ObjectFifoSubviewAccessOp,
        ObjectFifoReleaseOp,
        CoreOp,
        BufferOp,
        LockOp,
        UseLockOp,
        FlowOp,
        ShimDMAAllocationOp,
        RuntimeSequenceOp,
        LogicalTileOp,
        SwitchboxOp,
        ShimMuxOp,
        MemOp,
        MemTileDMAOp,
        ShimDMAOp,
        DMAStartOp,
        NextBDOp,
        DMABDOp,
        DMAOp,
        DMABDPacketOp,
        ExternalBufferOp,
        ConnectOp,
        AMSelOp,
        MasterSetOp,
        PacketRulesOp,
        PacketRuleOp,
        WireOp,
        PacketFlowOp,
        PacketSourceOp,
        PacketDestOp,
        CascadeFlowOp,
        ConfigureCascadeOp,
        GetCascadeOp,
        PutCascadeOp,
        GetStreamOp,
        PutStreamOp,
        EventOp,
        ObjectFifoRegisterExternalBuffersOp,
        ObjectFifoAllocateOp,
        ObjectFifoRearmBindingOp,
        BDChainOp,
        TraceOp,
        TraceModeOp,
        TraceEventOp,
        TracePacketOp,
        TracePortOp,
        TraceStartOp,
        TraceStopOp,
        TraceComboEventOp,
        TraceEdgeEventOp,
        TraceStartConfigOp,
        TraceHostConfigOp,
    ],
    [
        ObjectFifoType,
        ObjectFifoSubviewType,
        BDDimLayoutAttr,
        PacketInfoAttr,
        BDPadLayoutAttr,
        BDPadLayoutArrayAttr,
        BDIterationAttr,
        TraceEventAttr,
    ],
)

__all__ = [
    "AIE",
    "DEVICES",
    "AcquireForm",
    "DeviceModel",
    "acquire_element",
]
