"""The ``aiex`` dialect: mlir-aie's host-side and experimental ops (``AIEX.td``).

The runtime sequence's shim transfers (``aiex.npu.dma_memcpy_nd``, ``aiex.npu.dma_wait``)
that the AIE lowering prints, and the rest of what mlir-aie's designs and tests write: DMA
tasks (``aiex.dma_configure_task`` and friends), NPU instructions (register and BD writes,
syncs, address patches), reconfiguration (``aiex.configure`` / ``aiex.run``) and tokens.
The ops live in an ``aie.runtime_sequence`` or an ``aie.device`` of ``dialects/aie.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I8,
    I32,
    BoolAttr,
    DenseArrayBase,
    FlatSymbolRefAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnrankedMemRefType,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import aie_rules
from pto_wsp.dialects.aie import (
    DYNAMIC,
    Bundle,
    ChannelDir,
    DMABDOp,
    LockAction,
    ObjectFifoCreateOp,
    PacketInfoAttr,
    RuntimeSequenceOp,
    ShimDMAAllocationOp,
    _device_of,
    _parse_index_list,
    _print_attr_dict,
    _print_index_list,
    _split_props,
    _symbol,
    enclosing,
)


def _dma_target(op: Operation, ref: SymbolRefAttr, what: str) -> None:
    device = _device_of(op, op.name)
    target = device.lookup(_symbol(ref))
    if not isinstance(target, ObjectFifoCreateOp | ShimDMAAllocationOp):
        raise VerifyException(
            f"{what} @{_symbol(ref)} must name an aie.objectfifo or an aie.shim_dma_allocation "
            "of the enclosing aie.device"
        )


#: Inherent attributes of aiex.npu.dma_memcpy_nd written in its attribute dictionary.
_MEMCPY_PROPS = ("id", "metadata", "issue_token", "burst_length")


@irdl_op_definition
class NpuDmaMemcpyNdOp(IRDLOperation):
    """``aiex.npu.dma_memcpy_nd(%a[offsets][sizes][strides]) {id = 0 : i64, metadata = @in,
    issue_token = true} : memref<64xi32>``: program a shim DMA buffer descriptor.

    Four offsets, sizes and strides each, outermost first, in elements of the memref (SSA
    ``i64`` values allowed); ``metadata`` names the objectfifo (or shim DMA allocation) whose
    shim end moves the data; ``id`` is the buffer descriptor.
    """

    name = "aiex.npu.dma_memcpy_nd"

    memref = operand_def(MemRefType | UnrankedMemRefType)
    offsets = var_operand_def(IntegerType)
    sizes = var_operand_def(IntegerType)
    strides = var_operand_def(IntegerType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    metadata = prop_def(SymbolRefAttr)
    id = prop_def(IntegerAttr[IntegerType])
    issue_token = opt_prop_def(BoolAttr)
    burst_length = opt_prop_def(IntegerAttr[IntegerType])
    packet = opt_prop_def(PacketInfoAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        memref: SSAValue | Operation,
        offsets: Sequence[int],
        sizes: Sequence[int],
        strides: Sequence[int],
        metadata: str,
        id: int,
        issue_token: bool = False,
    ):
        props: dict[str, Attribute] = {
            "static_offsets": DenseArrayBase.from_list(i64, offsets),
            "static_sizes": DenseArrayBase.from_list(i64, sizes),
            "static_strides": DenseArrayBase.from_list(i64, strides),
            "metadata": SymbolRefAttr(metadata),
            "id": IntegerAttr(id, i64),
        }
        if issue_token:
            props["issue_token"] = BoolAttr(True, IntegerType(1))
        super().__init__(operands=[memref, [], [], []], properties=props)

    def verify_(self) -> None:
        if enclosing(self, RuntimeSequenceOp) is None:
            raise VerifyException("aiex.npu.dma_memcpy_nd must be inside an aie.runtime_sequence")
        for what, static, dynamic in (
            ("offsets", self.static_offsets, self.offsets),
            ("sizes", self.static_sizes, self.sizes),
            ("strides", self.static_strides, self.strides),
        ):
            values = list(static.get_values())
            if len(values) != 4:
                raise VerifyException(f"aiex.npu.dma_memcpy_nd needs 4 {what}, got {len(values)}")
            if sum(v == DYNAMIC for v in values) != len(dynamic):
                raise VerifyException(
                    f"aiex.npu.dma_memcpy_nd: {what} mark {sum(v == DYNAMIC for v in values)} "
                    f"SSA entries but {len(dynamic)} are given"
                )
            for v in dynamic:
                if v.type != i64:
                    raise VerifyException(
                        f"aiex.npu.dma_memcpy_nd {what} must be i64, got {v.type}"
                    )
            lowest = 1 if what == "sizes" else 0
            for v in values:
                if v != DYNAMIC and v < lowest:
                    raise VerifyException(
                        f"aiex.npu.dma_memcpy_nd {what} must be >= {lowest}, got {values}"
                    )
        if self.id.value.data < 0:
            raise VerifyException(f"buffer descriptor id must be >= 0, got {self.id.value.data}")
        _dma_target(self, self.metadata, "metadata")
        self._verify_transfer()

    def _verify_transfer(self) -> None:
        """mlir-aie's buffer-descriptor rules on a constant pattern (dialects/aie_rules.py)."""
        values = [
            list(a.get_values())
            for a in (self.static_offsets, self.static_sizes, self.static_strides)
        ]
        bits = getattr(self.memref.type.element_type, "bitwidth", None)
        if bits is None or any(v == DYNAMIC for vs in values for v in vs):
            return
        elements = None
        type_ = self.memref.type
        if isinstance(type_, MemRefType) and all(d >= 0 for d in type_.get_shape()):
            elements = type_.element_count()
        # As upstream, sizes, strides and ranges are checked once the shim tile is known.
        target = _device_of(self, self.name).lookup(_symbol(self.metadata))
        shim = isinstance(target, ShimDMAAllocationOp)
        error = aie_rules.dma_transfer_error(bits, elements, *values, shim=shim)
        if error:
            raise VerifyException(error)

    @classmethod
    def parse(cls, parser: Parser) -> NpuDmaMemcpyNdOp:
        with parser.in_parens():
            memref = parser.parse_unresolved_operand()
            offsets, dyn_offsets = _parse_index_list(parser)
            sizes, dyn_sizes = _parse_index_list(parser)
            strides, dyn_strides = _parse_index_list(parser)
            packet = None
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("packet")
                parser.parse_punctuation("=")
                packet = PacketInfoAttr(*PacketInfoAttr.parse_parameters(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        props, rest = _split_props(attrs, _MEMCPY_PROPS)
        for needed in ("id", "metadata"):
            if needed not in props:
                parser.raise_error(f"aiex.npu.dma_memcpy_nd needs '{needed}' in its attributes")

        def resolve(values: list[UnresolvedOperand]) -> list[SSAValue]:
            return [parser.resolve_operand(v, i64) for v in values]

        op = cls.create(
            operands=[
                parser.resolve_operand(memref, memref_type),
                *resolve(dyn_offsets),
                *resolve(dyn_sizes),
                *resolve(dyn_strides),
            ],
            properties={
                "static_offsets": DenseArrayBase.from_list(i64, offsets),
                "static_sizes": DenseArrayBase.from_list(i64, sizes),
                "static_strides": DenseArrayBase.from_list(i64, strides),
                "operandSegmentSizes": DenseArrayBase.from_list(
                    i32, [1, len(dyn_offsets), len(dyn_sizes), len(dyn_strides)]
                ),
                **props,
            },
            attributes=rest,
        )
        op.packet = packet
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.memref)
        _print_index_list(printer, self.static_offsets.get_values(), iter(self.offsets))
        _print_index_list(printer, self.static_sizes.get_values(), iter(self.sizes))
        _print_index_list(printer, self.static_strides.get_values(), iter(self.strides))
        if self.packet is not None:
            printer.print_string(", packet = ")
            self.packet.print_parameters(printer)
        printer.print_string(")")
        _print_attr_dict(printer, self, _MEMCPY_PROPS)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


@irdl_op_definition
class NpuDmaWaitOp(IRDLOperation):
    """``aiex.npu.dma_wait {symbol = @out}``: wait until the shim DMA of ``@out`` is done."""

    name = "aiex.npu.dma_wait"

    symbol = prop_def(FlatSymbolRefAttr)

    def __init__(self, symbol: str):
        super().__init__(properties={"symbol": SymbolRefAttr(symbol)})

    def verify_(self) -> None:
        if enclosing(self, RuntimeSequenceOp) is None:
            raise VerifyException("aiex.npu.dma_wait must be inside an aie.runtime_sequence")
        _dma_target(self, self.symbol, "symbol")

    @classmethod
    def parse(cls, parser: Parser) -> NpuDmaWaitOp:
        pos = parser.pos
        props, rest = _split_props(parser.parse_optional_attr_dict(), ("symbol",))
        if "symbol" not in props:
            parser.raise_error("aiex.npu.dma_wait needs {symbol = @fifo}", pos, parser.pos)
        return cls.create(properties=props, attributes=rest)

    def print(self, printer: Printer) -> None:
        _print_attr_dict(printer, self, ("symbol",))


# --------------------------------------------------------------------------- DMA tasks
# Upstream's assemblyFormat as xDSL declarative formats; attributes outside the format
# (issue_token, repeat_count, packet, ...) stay in the op's attribute dictionary.


def _in_sequence(op: Operation) -> None:
    if enclosing(op, RuntimeSequenceOp) is None:
        raise VerifyException(f"{op.name} must be inside an aie.runtime_sequence")


@irdl_op_definition
class DMAConfigureTaskOp(IRDLOperation):
    """``%t = aiex.dma_configure_task(%tile, MM2S, 0) { aie.dma_bd(...) aie.end }``: a DMA task
    (a BD chain) on a channel of a tile, started later with ``aiex.dma_start_task``."""

    name = "aiex.dma_configure_task"

    tile = operand_def(IndexType)
    direction = prop_def(ChannelDir.CASES)
    channel = prop_def(IntegerAttr[I32])
    packet = opt_prop_def(PacketInfoAttr)
    repeat_count_val = opt_operand_def(I32)
    bd_id_val = opt_operand_def(I32)
    body = region_def()
    result = result_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (ChannelDir,)
    assembly_format = (
        "`(` $tile `,` custom<ChannelDir>($direction) `,` $channel (`,` $packet^)? `)` "
        "(`repeat` $repeat_count_val^ `:` type($repeat_count_val))? "
        "(`bd_id` $bd_id_val^ `:` type($bd_id_val))? $body attr-dict"
    )

    def verify_(self) -> None:
        _in_sequence(self)
        if self.channel.value.data < 0:
            raise VerifyException(
                f"aiex.dma_configure_task channel must be >= 0, got {self.channel.value.data}"
            )
        if not any(isinstance(o, DMABDOp) for o in self.body.walk()):
            raise VerifyException("aiex.dma_configure_task needs at least one aie.dma_bd")


@irdl_op_definition
class DMAConfigureTaskForOp(IRDLOperation):
    """``%t = aiex.dma_configure_task_for @of { aie.dma_bd(...) aie.end }``: a DMA task on the
    channel of an objectfifo's (or shim DMA allocation's) shim end."""

    name = "aiex.dma_configure_task_for"

    alloc = prop_def(SymbolRefAttr)
    repeat_count_val = opt_operand_def(I32)
    body = region_def()
    result = result_def(IndexType)

    assembly_format = (
        "$alloc (`repeat` $repeat_count_val^ `:` type($repeat_count_val))? $body attr-dict"
    )

    def verify_(self) -> None:
        _in_sequence(self)


class _TaskOp(IRDLOperation):
    task = operand_def(IndexType)

    assembly_format = "`(` $task `)` attr-dict"

    def verify_(self) -> None:
        _in_sequence(self)


@irdl_op_definition
class DMAStartTaskOp(_TaskOp):
    """``aiex.dma_start_task(%t)``: push a configured task onto its channel's queue."""

    name = "aiex.dma_start_task"


@irdl_op_definition
class DMAAwaitTaskOp(_TaskOp):
    """``aiex.dma_await_task(%t)``: wait for a started task (configured with issue_token)."""

    name = "aiex.dma_await_task"


@irdl_op_definition
class DMAFreeTaskOp(_TaskOp):
    """``aiex.dma_free_task(%t)``: release a task's BDs without waiting."""

    name = "aiex.dma_free_task"


@irdl_op_definition
class DMAStartBdChainOp(IRDLOperation):
    """``%t = aiex.dma_start_bd_chain @c(%a) : (memref<8xi16>) on (%tile, MM2S, 0)``."""

    name = "aiex.dma_start_bd_chain"

    symbol = prop_def(FlatSymbolRefAttr)
    args = var_operand_def()
    tile = operand_def(IndexType)
    direction = prop_def(ChannelDir.CASES)
    channel = prop_def(IntegerAttr[I32])
    result = result_def(IndexType)

    custom_directives = (ChannelDir,)
    assembly_format = "$symbol `(` $args `)` `:` `(` type($args) `)` ` ` `on` ` ` `(` $tile `,` custom<ChannelDir>($direction) `,` $channel `)` attr-dict"


@irdl_op_definition
class DMAStartBdChainForOp(IRDLOperation):
    """``%t = aiex.dma_start_bd_chain_for @c(%a) : (memref<8xi16>) for @of``."""

    name = "aiex.dma_start_bd_chain_for"

    symbol = prop_def(FlatSymbolRefAttr)
    args = var_operand_def()
    alloc = prop_def(FlatSymbolRefAttr)
    result = result_def(IndexType)

    assembly_format = "$symbol `(` $args `)` `:` `(` type($args) `)` `for` $alloc attr-dict"


@irdl_op_definition
class DMAChannelResetOp(IRDLOperation):
    """``aiex.dma_channel_reset(%tile, S2MM, 0)``: reset a DMA channel from the host."""

    name = "aiex.dma_channel_reset"

    tile = operand_def(IndexType)
    direction = prop_def(ChannelDir.CASES)
    channel = prop_def(IntegerAttr[I32])

    custom_directives = (ChannelDir,)
    assembly_format = "`(` $tile `,` custom<ChannelDir>($direction) `,` $channel `)` attr-dict"


@irdl_op_definition
class DMAChannelResetForOp(IRDLOperation):
    """``aiex.dma_channel_reset_for(@of)``: reset the channels of an objectfifo."""

    name = "aiex.dma_channel_reset_for"

    objfifo = prop_def(FlatSymbolRefAttr)

    assembly_format = "`(` $objfifo `)` attr-dict"


@irdl_op_definition
class CoreResetOp(IRDLOperation):
    """``aiex.core_reset(%tile)``: reset a core from the host."""

    name = "aiex.core_reset"

    tile = operand_def(IndexType)

    assembly_format = "`(` $tile `)` attr-dict"


@irdl_op_definition
class DMABDPoolPopOp(IRDLOperation):
    """``%id = aiex.dma_bd_pool_pop(0, 0) : i32``: take a free BD id of a tile at run time."""

    name = "aiex.dma_bd_pool_pop"

    column = prop_def(IntegerAttr[I32])
    row = prop_def(IntegerAttr[I32])
    bd_id = result_def(I32)

    assembly_format = "`(` $column `,` $row `)` attr-dict `:` type($bd_id)"


@irdl_op_definition
class DMABDPoolPushOp(IRDLOperation):
    """``aiex.dma_bd_pool_push(0, 0) bd_id %id : i32``: give a BD id back."""

    name = "aiex.dma_bd_pool_push"

    column = prop_def(IntegerAttr[I32])
    row = prop_def(IntegerAttr[I32])
    bd_id = operand_def(I32)

    assembly_format = "`(` $column `,` $row `)` `bd_id` $bd_id attr-dict `:` type($bd_id)"


@irdl_op_definition
class SetLockOp(IRDLOperation):
    """``aiex.set_lock(%lock, 1)``: set a lock's value from the host."""

    name = "aiex.set_lock"

    lock = operand_def(IndexType)
    value = prop_def(IntegerAttr[I32])

    assembly_format = "`(` $lock `,` $value `)` attr-dict"


# --------------------------------------------------------------------------- NPU instructions


@irdl_op_definition
class NpuWrite32Op(IRDLOperation):
    """``aiex.npu.write32(%addr, %value) {column = 0 : i32, row = 2 : i32} : i32, i32``."""

    name = "aiex.npu.write32"

    address = operand_def(I32)
    value = operand_def(I32)

    assembly_format = "`(` $address `,` $value `)` attr-dict `:` type($address) `,` type($value)"


@irdl_op_definition
class NpuMaskWrite32Op(IRDLOperation):
    """``aiex.npu.maskwrite32(%addr, %value, %mask) : i32, i32, i32``."""

    name = "aiex.npu.maskwrite32"

    address = operand_def(I32)
    value = operand_def(I32)
    mask = operand_def(I32)

    assembly_format = "`(` $address `,` $value `,` $mask `)` attr-dict `:` type($address) `,` type($value) `,` type($mask)"


@irdl_op_definition
class NpuSyncOp(IRDLOperation):
    """``aiex.npu.sync(%col, %row, %dir, %chan, %ncols, %nrows) : i32, ...``: wait for DMA tasks."""

    name = "aiex.npu.sync"

    column = operand_def(I32)
    row = operand_def(I32)
    direction = operand_def(I32)
    channel = operand_def(I32)
    column_num = operand_def(I32)
    row_num = operand_def(I32)

    assembly_format = (
        "`(` $column `,` $row `,` $direction `,` $channel `,` $column_num `,` $row_num `)` attr-dict "
        "`:` type($column) `,` type($row) `,` type($direction) `,` type($channel) `,` "
        "type($column_num) `,` type($row_num)"
    )


@irdl_op_definition
class NpuBlockWriteOp(IRDLOperation):
    """``aiex.npu.blockwrite(%data) {address = 119300 : ui32} : memref<4xi32>``."""

    name = "aiex.npu.blockwrite"

    data = operand_def(MemRefType)

    assembly_format = "`(` $data `)` attr-dict `:` type($data)"


@irdl_op_definition
class NpuAddressPatchOp(IRDLOperation):
    """``aiex.npu.address_patch(%plus : i32) {addr = 118788 : ui32, arg_idx = 2 : i32}``."""

    name = "aiex.npu.address_patch"

    arg_plus = operand_def(I32)
    addr_val = opt_operand_def(I32)

    assembly_format = (
        "`(` $arg_plus `:` type($arg_plus) `)` (`addr` $addr_val^ `:` type($addr_val))? attr-dict"
    )


@irdl_op_definition
class NpuRtpWriteOp(IRDLOperation):
    """``aiex.npu.rtp_write(@rtp, 4, %v) : i32``: write a run-time parameter buffer."""

    name = "aiex.npu.rtp_write"

    buffer = prop_def(FlatSymbolRefAttr)
    index = prop_def(IntegerAttr[I32])
    value = operand_def(I32)

    assembly_format = "`(` $buffer `,` $index `,` $value `)` attr-dict `:` type($value)"


@irdl_op_definition
class NpuPushQueueOp(IRDLOperation):
    """``aiex.npu.push_queue(0, 0, MM2S : 0) bd_id %id repeat %r : i32, i32``."""

    name = "aiex.npu.push_queue"

    column = prop_def(IntegerAttr[I32])
    row = prop_def(IntegerAttr[I32])
    direction = prop_def(ChannelDir.CASES)
    channel = prop_def(IntegerAttr[I32])
    bd_id = operand_def(I32)
    repeat_count = operand_def(I32)

    custom_directives = (ChannelDir,)
    assembly_format = (
        "`(` $column `,` $row `,` custom<ChannelDir>($direction) `:` $channel `)` `bd_id` $bd_id `repeat` $repeat_count "
        "attr-dict `:` type($bd_id) `,` type($repeat_count)"
    )


class _AttrOnlyOp(IRDLOperation):
    assembly_format = "attr-dict"


@irdl_op_definition
class NpuWriteBdOp(_AttrOnlyOp):
    """``aiex.npu.writebd {bd_id = 1 : i32, buffer_length = ..., ...}``: write a BD's registers."""

    name = "aiex.npu.writebd"


@irdl_op_definition
class NpuLoadPdiOp(_AttrOnlyOp):
    """``aiex.npu.load_pdi {device_ref = @dev}``: load another device's configuration."""

    name = "aiex.npu.load_pdi"


@irdl_op_definition
class NpuPreemptOp(_AttrOnlyOp):
    """``aiex.npu.preempt {level = 1 : ui8}``: a preemption point."""

    name = "aiex.npu.preempt"


@irdl_op_definition
class ControlPacketOp(_AttrOnlyOp):
    """``aiex.control_packet {address = 8 : ui32, data = array<i32: 300>, opcode = 0 : i32, ...}``."""

    name = "aiex.control_packet"


# --------------------------------------------------------------------------- reconfiguration, tokens


@irdl_op_definition
class ConfigureOp(IRDLOperation):
    """``aiex.configure @dev { aiex.run @seq(%a) : (memref<..>) }``: in a runtime sequence,
    configure the array as device ``@dev`` and run its sequences."""

    name = "aiex.configure"

    symbol = prop_def(FlatSymbolRefAttr)
    body = region_def()
    traits = traits_def(NoTerminator())

    assembly_format = "$symbol $body attr-dict"


@irdl_op_definition
class RunOp(IRDLOperation):
    """``aiex.run @seq(%a) : (memref<64xi32>)``: run a runtime sequence of the configured device."""

    name = "aiex.run"

    runtime_sequence_symbol = prop_def(FlatSymbolRefAttr)
    args = var_operand_def()

    assembly_format = "$runtime_sequence_symbol `(` $args `)` `:` `(` type($args) `)` attr-dict"

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), ConfigureOp):
            raise VerifyException("aiex.run must be inside an aiex.configure")


@irdl_op_definition
class TokenOp(IRDLOperation):
    """``aiex.token(0) {sym_name = "t"}``: a token (a lock across tiles), initial value 0."""

    name = "aiex.token"

    value = prop_def(IntegerAttr[I32])

    assembly_format = "`(` $value `)` attr-dict"


@irdl_op_definition
class UseTokenOp(IRDLOperation):
    """``aiex.useToken @t(Acquire, 1)``."""

    name = "aiex.useToken"

    tokenName = prop_def(FlatSymbolRefAttr)
    action = prop_def(LockAction.CASES)
    value = prop_def(IntegerAttr[I32])

    custom_directives = (LockAction,)
    assembly_format = "$tokenName `(` custom<LockAction>($action) `,` $value `)` attr-dict"


@irdl_op_definition
class MemcpyOp(IRDLOperation):
    """``aiex.memcpy @t(0, 1) (%a : <%buf, 0, 256>, %b : <%buf2, 0, 256>) : (memref<..>, memref<..>)``."""

    name = "aiex.memcpy"

    tokenName = prop_def(FlatSymbolRefAttr)
    acqValue = prop_def(IntegerAttr[I32])
    relValue = prop_def(IntegerAttr[I32])
    srcTile = operand_def(IndexType)
    srcBuf = operand_def(MemRefType)
    srcOffset = prop_def(IntegerAttr[I32])
    srcLen = prop_def(IntegerAttr[I32])
    dstTile = operand_def(IndexType)
    dstBuf = operand_def(MemRefType)
    dstOffset = prop_def(IntegerAttr[I32])
    dstLen = prop_def(IntegerAttr[I32])

    assembly_format = (
        "$tokenName `(` $acqValue `,` $relValue `)` `(` $srcTile `:` `<` $srcBuf `,` $srcOffset `,` "
        "$srcLen `>` `,` $dstTile `:` `<` $dstBuf `,` $dstOffset `,` $dstLen `>` `)` attr-dict "
        "`:` `(` type($srcBuf) `,` type($dstBuf) `)`"
    )


# --------------------------------------------------------------------------- legacy routing, scratchpad


class _PortRegionOp(IRDLOperation):
    """``(%tile, DMA : 0) { ... }``: a source port and the destinations in the region."""

    tile = operand_def(IndexType)
    bundle = prop_def(Bundle.CASES)
    channel = prop_def(IntegerAttr[I32])
    ports = region_def()
    traits = traits_def(NoTerminator())

    custom_directives = (Bundle,)
    assembly_format = "`(` $tile `,` custom<Bundle>($bundle) `:` $channel `)` $ports attr-dict"


class _PortOp(IRDLOperation):
    """``<%tile, DMA : 0>``: one destination port."""

    tile = operand_def(IndexType)
    bundle = prop_def(Bundle.CASES)
    channel = prop_def(IntegerAttr[I32])

    custom_directives = (Bundle,)
    assembly_format = "`<` $tile `,` custom<Bundle>($bundle) `:` $channel `>` attr-dict"


@irdl_op_definition
class MulticastOp(_PortRegionOp):
    """``aiex.multicast(%t, DMA : 0) { aiex.multi_dest<%u, DMA : 1> ... }``: one stream to
    several ports."""

    name = "aiex.multicast"


@irdl_op_definition
class MultiDestOp(_PortOp):
    """``aiex.multi_dest<%u, DMA : 1>``: a destination of an aiex.multicast."""

    name = "aiex.multi_dest"


@irdl_op_definition
class BroadcastPacketOp(_PortRegionOp):
    """``aiex.broadcast_packet(%t, DMA : 0) { aiex.bp_id(0x1) { aiex.bp_dest<...> } }``: packets
    of a port broadcast by id."""

    name = "aiex.broadcast_packet"


@irdl_op_definition
class BPIDOp(IRDLOperation):
    """``aiex.bp_id(0x1) { aiex.bp_dest<%u, DMA : 0> ... }``: where packets of one id go."""

    name = "aiex.bp_id"

    ID = prop_def(IntegerAttr[I8])
    ports = region_def()
    traits = traits_def(NoTerminator())

    assembly_format = "`(` $ID `)` $ports attr-dict"


@irdl_op_definition
class BPDestOp(_PortOp):
    """``aiex.bp_dest<%u, DMA : 0>``: a destination of an aiex.bp_id."""

    name = "aiex.bp_dest"


@irdl_op_definition
class ScratchpadParameterOp(IRDLOperation):
    """``aiex.scratchpad_parameter @p : i32``: a run-time parameter the host writes."""

    name = "aiex.scratchpad_parameter"

    sym_name = prop_def(SymbolNameConstraint())
    type = prop_def(TypeAttribute)
    traits = traits_def(SymbolOpInterface())

    assembly_format = "$sym_name `:` $type attr-dict"


@irdl_op_definition
class ReadScratchpadParameterOp(IRDLOperation):
    """``%x = aiex.read_scratchpad_parameter @p : i32``: read a run-time parameter in a core."""

    name = "aiex.read_scratchpad_parameter"

    parameter = prop_def(FlatSymbolRefAttr)
    result = result_def()

    assembly_format = "$parameter `:` type($result) attr-dict"


@irdl_op_definition
class SyncScratchpadParametersFromHostOp(_AttrOnlyOp):
    """``aiex.sync_scratchpad_parameters_from_host``: pull the parameters' host values."""

    name = "aiex.sync_scratchpad_parameters_from_host"


@irdl_op_definition
class NpuCreateScratchpadOp(_AttrOnlyOp):
    """``aiex.npu.create_scratchpad {size = 64 : ui32}``: the firmware's parameter table."""

    name = "aiex.npu.create_scratchpad"


@irdl_op_definition
class NpuAssertBdFieldOp(IRDLOperation):
    """``aiex.npu.assert_bd_field(%v) {max = 1023 : i32} : i32``: a run-time BD field bound."""

    name = "aiex.npu.assert_bd_field"

    value = operand_def(I32)

    assembly_format = "`(` $value `)` attr-dict `:` type($value)"


@irdl_attr_definition
class BlockFloatType(ParametrizedAttribute, TypeAttribute):
    """``!aiex.bfp<"v8bfp16ebs8">``: a block of floats sharing one exponent, as a memref element."""

    name = "aiex.bfp"

    block_type: StringAttr

    #: The block formats upstream knows.
    FORMATS: ClassVar[tuple[str, ...]] = ("v8bfp16ebs8", "v16bfp16ebs16")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        with parser.in_angle_brackets():
            pos = parser.pos
            name = parser.parse_str_literal()
            if name not in cls.FORMATS:
                parser.raise_error(cls._unknown(name), pos, parser.pos)
        return (StringAttr(name),)

    @classmethod
    def _unknown(cls, name: str) -> str:
        return f"unknown block floating point format {name!r} (known: {', '.join(cls.FORMATS)})"

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.block_type.data}">')

    def verify(self) -> None:
        if self.block_type.data not in self.FORMATS:
            raise VerifyException(self._unknown(self.block_type.data))


AIEX = Dialect(
    "aiex",
    [
        NpuDmaMemcpyNdOp,
        NpuDmaWaitOp,
        DMAConfigureTaskOp,
        DMAConfigureTaskForOp,
        DMAStartTaskOp,
        DMAAwaitTaskOp,
        DMAFreeTaskOp,
        DMAStartBdChainOp,
        DMAStartBdChainForOp,
        DMAChannelResetOp,
        DMAChannelResetForOp,
        CoreResetOp,
        DMABDPoolPopOp,
        DMABDPoolPushOp,
        SetLockOp,
        NpuWrite32Op,
        NpuMaskWrite32Op,
        NpuSyncOp,
        NpuBlockWriteOp,
        NpuAddressPatchOp,
        NpuRtpWriteOp,
        NpuPushQueueOp,
        NpuWriteBdOp,
        NpuLoadPdiOp,
        NpuPreemptOp,
        ControlPacketOp,
        ConfigureOp,
        RunOp,
        TokenOp,
        UseTokenOp,
        MemcpyOp,
        MulticastOp,
        MultiDestOp,
        BroadcastPacketOp,
        BPIDOp,
        BPDestOp,
        ScratchpadParameterOp,
        ReadScratchpadParameterOp,
        SyncScratchpadParametersFromHostOp,
        NpuCreateScratchpadOp,
        NpuAssertBdFieldOp,
    ],
    [BlockFloatType],
)
