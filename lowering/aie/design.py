"""The AIE design being built: tiles, objectfifos, links, kernels, cores, runtime sequence.

``Design`` keeps the resource books of the chosen device while the mapping adds to it —
DMA channels per tile and direction, data memory per tile, buffer descriptors per shim
tile — and reports a ``MappingError`` naming the limit the moment one is exceeded. The
accounting is conservative: every objectfifo end is charged a DMA channel, even between
neighbouring tiles that mlir-aie may connect through shared memory instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pto_wsp.dialects import aie, aie_rules, aiex, wsp

from .analysis import MappingError
from .kernels import kernel_function
from .patterns import Pattern

#: Shim buffer descriptors per shim tile (per column).
SHIM_BDS = 16
#: Bytes a core keeps for its stack (mlir-aie's default stack_size).
CORE_STACK = 1024
#: A core's runtime-parameter buffer: 16 i32 slots, as mlir-aie's designs declare theirs.
RTP_SLOTS = 16

Tile = tuple[int, int]


class OutOfResources(MappingError):
    """A limit of the device (DMA channels, data memory, buffer descriptors) is exceeded:
    another placement of the same design may still fit."""


@dataclass
class Usage:
    """What a tile has given out: DMA channels (MM2S out, S2MM in) and data memory."""

    mm2s: list[str] = field(default_factory=list)
    s2mm: list[str] = field(default_factory=list)
    bytes: int = 0
    buffers: list[str] = field(default_factory=list)


@dataclass
class Fifo:
    name: str
    producer: Tile
    consumers: list[Tile]
    depth: int
    type: MemRefType


def _strided(t: MemRefType) -> MemRefType:
    """``t`` (row-major) as a view at any offset: ``strided<[..., 1], offset: ?>``."""
    shape = list(t.get_shape())
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return MemRefType(t.element_type, shape, StridedLayoutAttr(strides, None))


def _bytes(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    width = t.element_type.bitwidth if hasattr(t.element_type, "bitwidth") else 32
    return n * max(1, width // 8)


class Design:
    """An ``aie.device`` under construction for one device model."""

    def __init__(self, device: str, form: aie.AcquireForm = aie.AcquireForm.SUBVIEW):
        if device not in aie.DEVICES:
            raise MappingError(f"unknown device '{device}' (devices: {', '.join(aie.DEVICES)})")
        self.model = aie.DEVICES[device]
        if not self.model.aie2 or self.model.memtile_rows != 1:
            raise MappingError(
                f"device {device}: the AIE target maps to NPU devices (npu1*, npu2*) with one "
                "memtile row"
            )
        self.form = form
        self.usage: dict[Tile, Usage] = {}
        self.fifos: dict[str, Fifo] = {}
        self.links: list[aie.ObjectFifoLinkOp] = []
        self.order: list[str] = []  # fifo and link creation order, for printing
        self.kernels: dict[str, func.FuncOp] = {}
        # kernel -> bytes of scratch on its callers' stack, and the kernel
        self.scratch: dict[str, tuple[int, wsp.KernelOp]] = {}
        self.cores: dict[Tile, Block] = {}
        self.core_owner: dict[Tile, str] = {}
        self.symbols: set[str] = set()
        self.transfers: list[tuple[str, str, Pattern, bool]] = []  # tensor, fifo, pattern, out
        self.bds: dict[int, int] = {}
        #: kernel -> positions of the parameters given views into joined elements (strided).
        self.offset_params: dict[str, set[int]] = {}
        #: Per core: its runtime-parameter buffer, the keys of its slots and their values.
        self.rtps: dict[Tile, tuple[aie.BufferOp, list[object], list[int]]] = {}

    # --- tiles ------------------------------------------------------------------------------

    def compute_tiles(self) -> list[Tile]:
        """Every compute tile, column by column, bottom row first."""
        m = self.model
        return [(c, r) for c in range(m.columns) for r in range(m.first_core_row, m.rows)]

    def describe(self) -> str:
        m = self.model
        return (
            f"{m.name} has {m.columns * m.core_rows} compute tiles "
            f"({m.columns} column{'s' * (m.columns != 1)} x {m.core_rows} rows)"
        )

    def _use(self, tile: Tile) -> Usage:
        return self.usage.setdefault(tile, Usage())

    def _kind(self, tile: Tile) -> str:
        return {"shim": "shim tile", "memtile": "memtile", "core": "compute tile"}[
            self.model.kind(tile[1])
        ]

    def charge_channel(self, tile: Tile, direction: str, fifo: str) -> None:
        use = self._use(tile)
        books = use.mm2s if direction == "MM2S" else use.s2mm
        limit = self.model.dma_channels(tile[1])
        if len(books) >= limit:
            verb = "sends" if direction == "MM2S" else "receives"
            raise OutOfResources(
                f"{self._kind(tile)} {tile} {verb} {len(books) + 1} objectfifos "
                f"({', '.join('@' + f for f in [*books, fifo])}), but a {self._kind(tile)} "
                f"has {limit} {direction} DMA channels"
            )
        books.append(fifo)

    def charge_memory(self, tile: Tile, nbytes: int, what: str) -> None:
        use = self._use(tile)
        limit = self.model.memory_bytes(tile[1])
        if self.model.kind(tile[1]) == "core":
            limit -= CORE_STACK
        if use.bytes + nbytes > limit:
            raise OutOfResources(
                f"{self._kind(tile)} {tile} needs {use.bytes + nbytes} bytes of buffers "
                f"({', '.join([*use.buffers, what])}), but it has {limit} "
                f"({self.model.memory_bytes(tile[1]) // 1024} KiB"
                f"{' less the stack' if self.model.kind(tile[1]) == 'core' else ''})"
            )
        use.bytes += nbytes
        use.buffers.append(what)

    def channels_free(self, tile: Tile, direction: str) -> int:
        use = self._use(tile)
        books = use.mm2s if direction == "MM2S" else use.s2mm
        return self.model.dma_channels(tile[1]) - len(books)

    def pick_column(self, needs: dict[int, tuple[int, int]], preferred: int) -> int | None:
        """A column whose tiles have the channels ``needs`` asks for (row -> (mm2s, s2mm)),
        the preferred column first, then the nearest ones."""
        columns = sorted(range(self.model.columns), key=lambda c: (abs(c - preferred), c))
        for c in columns:
            if all(
                self.channels_free((c, row), "MM2S") >= mm2s
                and self.channels_free((c, row), "S2MM") >= s2mm
                for row, (mm2s, s2mm) in needs.items()
            ):
                return c
        return None

    def snapshot(self) -> tuple:
        """The books and data movement so far, for ``restore`` (to try another staging)."""
        usage = {
            t: replace(u, mm2s=list(u.mm2s), s2mm=list(u.s2mm), buffers=list(u.buffers))
            for t, u in self.usage.items()
        }
        books = (dict(self.fifos), list(self.links), list(self.order), set(self.symbols))
        return usage, books, list(self.transfers), dict(self.bds)

    def restore(self, saved: tuple) -> None:
        usage, (fifos, links, order, symbols), transfers, bds = saved
        self.usage, self.fifos, self.links, self.order = usage, fifos, links, order
        self.symbols, self.transfers, self.bds = symbols, transfers, bds

    # --- symbols, fifos, links --------------------------------------------------------------

    def unique(self, base: str) -> str:
        name, k = base, 1
        while name in self.symbols:
            name = f"{base}_{k}"
            k += 1
        self.symbols.add(name)
        return name

    def fifo(
        self,
        base: str,
        producer: Tile,
        consumers: list[Tile],
        depth: int,
        type_: MemRefType,
        op: Operation | None = None,
    ) -> str:
        """Add an objectfifo (charging its DMA channels and buffers); return its name.
        ``op`` locates an element no buffer descriptor can move."""
        name = self.unique(base)
        for tile in (producer, *consumers):
            # Conservative as the channel books: every end is charged a buffer descriptor.
            error = aie_rules.bd_length_error(_bytes(type_), self.model.kind(tile[1]))
            if error:
                raise MappingError(f"objectfifo @{name} of {type_}: {error}", op)
        self.charge_channel(producer, "MM2S", name)
        for tile in consumers:
            self.charge_channel(tile, "S2MM", name)
        size = depth * _bytes(type_)
        what = f"@{name}: {depth} x {_bytes(type_)} B"
        if self.model.kind(producer[1]) == "core":
            self.charge_memory(producer, size, what)
        for tile in consumers:
            if self.model.kind(tile[1]) != "shim":
                self.charge_memory(tile, size, what)
        self.fifos[name] = Fifo(name, producer, list(consumers), depth, type_)
        self.order.append(name)
        return name

    def charge_link_buffer(self, memtile: Tile, fifo: str) -> None:
        """A memtile link stores the whole (joined or to be distributed) element."""
        f = self.fifos[fifo]
        self.charge_memory(
            memtile, f.depth * _bytes(f.type), f"@{fifo}: {f.depth} x {_bytes(f.type)} B"
        )

    def link(self, ins: list[str], outs: list[str], src: list[int], dst: list[int]) -> None:
        self.links.append(aie.ObjectFifoLinkOp(ins, outs, src, dst))
        self.order.append(f"link:{len(self.links) - 1}")

    # --- kernels and cores ------------------------------------------------------------------

    def kernel(self, kernel: wsp.KernelOp, use: Operation) -> func.FuncOp:
        """``func.func private @k(...) attributes {link_with = "k.o"}`` (once per kernel),
        linking the kernel's ``impls = {aie = ...}`` when given; else a kernel with a tile
        function gets that body in upstream dialects (``kernels.py``)."""
        name = kernel.sym_name.data
        if name in self.kernels:
            return self.kernels[name]
        inputs: list[Attribute] = []
        for k, (arg, type_) in enumerate(
            zip(kernel.arg_names.data, kernel.function_type.inputs.data)
        ):
            inputs.append(kernel_arg_type(name, arg.data, type_, use))
            if k in self.offset_params.get(name, ()):
                inputs[-1] = _strided(inputs[-1])
        where = kernel.impls.data.get("aie") if kernel.impls is not None else None
        tile_fn = kernel.tile_function()
        if tile_fn is not None and not isinstance(where, StringAttr):
            decl, scratch = kernel_function(kernel, tile_fn, inputs)
            self.scratch[name] = (scratch, kernel)
        else:
            decl = func.FuncOp.external(name, inputs, [])
            decl.attributes["link_with"] = (
                where if isinstance(where, StringAttr) else StringAttr(f"{name}.o")
            )
        self.kernels[name] = decl
        return decl

    def core(self, tile: Tile, owner: str) -> Block:
        """The body block of the core on ``tile`` (created empty, without aie.end)."""
        if tile in self.cores:
            raise MappingError(f"compute tile {tile} already runs {self.core_owner[tile]}")
        self.cores[tile] = Block()
        self.core_owner[tile] = owner
        return self.cores[tile]

    def rtp(
        self, tile: Tile, key: object, value: int, op: Operation | None = None
    ) -> tuple[SSAValue, int]:
        """The runtime-parameter buffer of the core on ``tile`` (``aie.buffer`` named
        ``rtp_c<col>r<row>``, ``memref<16xi32>``) and the slot of ``key`` in it, which the
        runtime sequence sets to ``value``."""
        if tile not in self.rtps:
            buffer = aie.BufferOp(
                aie.TileOp(*tile), MemRefType(i32, [RTP_SLOTS]), f"rtp_c{tile[0]}r{tile[1]}"
            )
            buffer.buffer.name_hint = f"rtp_c{tile[0]}r{tile[1]}"
            self.charge_memory(tile, 4 * RTP_SLOTS, f"@rtp_c{tile[0]}r{tile[1]}: 64 B")
            self.rtps[tile] = (buffer, [], [])
        buffer, keys, values = self.rtps[tile]
        if key not in keys:
            if len(keys) == RTP_SLOTS:
                raise MappingError(
                    f"compute tile {tile} reads more than {RTP_SLOTS} runtime parameters", op
                )
            keys.append(key)
            values.append(value)
        return buffer.buffer, keys.index(key)

    def transfer(self, tensor: str, fifo: str, pattern: Pattern, output: bool) -> None:
        """A host transfer of ``tensor`` through the shim end of ``fifo``."""
        f = self.fifos[fifo]
        shim = f.consumers[0] if output else f.producer
        used = self.bds.get(shim[0], 0)
        if used >= SHIM_BDS:
            raise OutOfResources(
                f"shim tile {shim} needs more than {SHIM_BDS} buffer descriptors for the "
                "runtime sequence's transfers"
            )
        self.bds[shim[0]] = used + 1
        self.transfers.append((tensor, fifo, pattern, output))

    # --- the module -------------------------------------------------------------------------

    def build(self, tensors: list[tuple[str, MemRefType]]) -> ModuleOp:
        """The module: one ``aie.device`` with tiles (by column, then row), objectfifos and
        links, kernel declarations, cores, and the runtime sequence over ``tensors``."""
        device = aie.DeviceOp(self.model.name)
        ops: list[Operation] = []
        tiles: dict[Tile, aie.TileOp] = {}
        used = set(self.usage) | set(self.cores)
        for f in self.fifos.values():
            used |= {f.producer, *f.consumers}
        for c, r in sorted(used):
            t = aie.TileOp(c, r)
            kind = self.model.kind(r)
            # xDSL drops a trailing _<digits> from names: tile_c0r2, not upstream's tile_0_2.
            prefix = {"shim": "shim", "memtile": "mem", "core": "tile"}[kind]
            t.result.name_hint = f"{prefix}_c{c}r{r}"
            tiles[(c, r)] = t
            ops.append(t)
        for entry in self.order:
            if entry.startswith("link:"):
                ops.append(self.links[int(entry[5:])])
                continue
            f = self.fifos[entry]
            ops.append(
                aie.ObjectFifoCreateOp(
                    f.name, tiles[f.producer], [tiles[t] for t in f.consumers], f.depth, f.type
                )
            )
        for tile, (buffer, _, _) in sorted(self.rtps.items()):
            buffer.operands = [tiles[tile].result]
            ops.append(buffer)
        ops.extend(self.kernels.values())
        for tile, block in sorted(self.cores.items()):
            core = aie.CoreOp(tiles[tile], Region(forever(block)))
            self._grow_stack(tile, core)
            core.result.name_hint = f"core_c{tile[0]}r{tile[1]}"
            ops.append(core)
        if self.transfers:
            ops.append(self._sequence(tensors))
        for op in ops:
            device.body.block.insert_op_before(op, device.body.block.last_op)  # type: ignore
        return ModuleOp([device])

    def _grow_stack(self, tile: Tile, core: aie.CoreOp) -> None:
        """A core calling kernels with scratch buffers gets a stack that holds the largest
        (an overflow is located at that kernel)."""
        calls = [op.callee.root_reference.data for op in core.walk() if isinstance(op, func.CallOp)]
        extra, kernel = max(
            ((self.scratch.get(k, (0, None))[0], k) for k in calls), default=(0, "")
        )
        if extra:
            try:
                self.charge_memory(tile, extra, f"stack of @{kernel}: {extra} B of scratch")
            except MappingError as error:
                raise MappingError(str(error), self.scratch[kernel][1]) from None
            core.attributes["stack_size"] = IntegerAttr(CORE_STACK + extra, i32)

    def _sequence(self, tensors: list[tuple[str, MemRefType]]) -> aie.RuntimeSequenceOp:
        seq = aie.RuntimeSequenceOp([t for _, t in tensors])
        args = dict(zip([n for n, _ in tensors], seq.body.block.args))
        for (name, _), arg in zip(tensors, seq.body.block.args):
            arg.name_hint = name
        for buffer, _, values in (self.rtps[t] for t in sorted(self.rtps)):
            name = buffer.attributes["sym_name"].data  # type: ignore[attr-defined]
            for slot, value in enumerate(values):
                v = arith.ConstantOp(IntegerAttr(value, i32))
                seq.body.block.add_op(v)
                seq.body.block.add_op(aiex.NpuRtpWriteOp.build(
                    properties={"buffer": SymbolRefAttr(name), "index": IntegerAttr(slot, i32)},
                    operands=[v.result],
                ))
        ids: dict[int, int] = {}
        ordered = [t for t in self.transfers if t[3]] + [t for t in self.transfers if not t[3]]
        for tensor, fifo, pattern, output in ordered:
            f = self.fifos[fifo]
            col = (f.consumers[0] if output else f.producer)[0]
            bd = ids.get(col, 0)
            ids[col] = bd + 1
            seq.body.block.add_op(
                aiex.NpuDmaMemcpyNdOp(
                    args[tensor],
                    pattern.offsets,
                    pattern.sizes,
                    pattern.strides,
                    fifo,
                    bd,
                    issue_token=output,
                )
            )
        for _, fifo, _, output in ordered:
            if output:
                seq.body.block.add_op(aiex.NpuDmaWaitOp(fifo))
        return seq


#: The trip count of a core's outer loop: IRON's Workers (``while_true``) loop to sys.maxsize.
FOREVER = (1 << 63) - 1


def forever(body: Block) -> Block:
    """A core's block: ``body`` in a loop over the whole run, then ``aie.end``. As IRON's
    Workers, a core serves every invocation of the runtime sequence, not only the first."""
    loop = Block(arg_types=[IndexType()])
    loop.args[0].name_hint = "run"
    for op in list(body.ops):
        op.detach()
        loop.add_op(op)
    loop.add_op(scf.YieldOp())
    bounds = [arith.ConstantOp.from_int_and_width(v, IndexType()) for v in (0, FOREVER, 1)]
    for c, hint in zip(bounds, ("c0", "cmax", "c1")):
        c.result.name_hint = hint
    return Block([*bounds, scf.ForOp(*bounds, [], Region(loop)), aie.EndOp()])


#: The scalar types an AIE core call passes as they are (index becomes i32).
AIE_SCALARS = (IntegerType(1), i32, IntegerType(64), Float32Type())


def kernel_arg_type(kernel: str, arg: str, type_: Attribute, use: Operation) -> Attribute:
    """The type a kernel parameter has in its AIE declaration: index -> i32; i1, i32, i64
    and f32 scalars as declared; memrefs as declared, which must be static (a tile of data:
    a generic kernel's instance for a dynamic view cannot be specialized)."""
    if isinstance(type_, IndexType):
        return i32
    if isinstance(type_, MemRefType):
        if any(d < 0 for d in type_.get_shape()):
            raise MappingError(
                f"kernel @{kernel} parameter {arg} has dynamic shape {type_}; an AIE kernel "
                "works on static tiles",
                use,
            )
        return MemRefType(type_.element_type, type_.get_shape())
    if type_ not in AIE_SCALARS:
        raise MappingError(
            f"kernel @{kernel} parameter {arg} is {type_}; an AIE core passes index (as i32), "
            "i1, i32, i64 and f32 scalars",
            use,
        )
    return type_
