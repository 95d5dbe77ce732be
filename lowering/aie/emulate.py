"""Run an AIE design's data movement and kernels on the CPU, to check it against numpy.

There is no NPU (and no mlir-aie toolchain) to run a design on, so ``emulate`` follows what
the design says: the runtime sequence's shim transfers stream the host arrays through their
access patterns into objectfifos, memtile links distribute and join elements at their
offsets, each core's body runs (objectfifo acquires and releases, views, its kernel calls),
and the output transfers scatter the joined elements back into the host arrays. Kernels with
bodies (tile kernels) are compiled by upstream MLIR (the ``mlir`` Python bindings) and run
natively; a kernel that only links an object file cannot run here.

It runs designs whose cores take their inputs from memtiles and the shim (spatially mapped
programs): the links are served before and after the cores, each core runs once per
invocation of the runtime sequence. A core waiting on an element no one has produced yet (a
pipeline between cores) is refused.
"""

from __future__ import annotations

import ctypes
from collections import deque
from collections.abc import Mapping

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from pto_wsp.dialects import aie, aiex

from .analysis import MappingError
from .design import FOREVER

#: Upstream MLIR's lowering of a kernel function (memref/scf/arith/math/vector) to LLVM.
PIPELINE = (
    "builtin.module(convert-vector-to-scf,convert-scf-to-cf,convert-math-to-llvm,"
    "convert-vector-to-llvm,expand-strided-metadata,"
    "finalize-memref-to-llvm,convert-func-to-llvm,convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)"
)

_DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16}
_DTYPES |= {"i32": np.int32, "i64": np.int64, "i1": np.bool_}
_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32}
_CTYPES |= {"i64": ctypes.c_int64, "i1": ctypes.c_bool}


def dtype(t: Attribute) -> type:
    """The numpy type of an MLIR element type."""
    try:
        return _DTYPES[str(t)]
    except KeyError:
        raise MappingError(f"emulate: no numpy type for {t}") from None


class Kernel:
    """A kernel function with a body, compiled by upstream MLIR and callable on numpy data."""

    def __init__(self, fn: func.FuncOp):
        from mlir import ir
        from mlir.execution_engine import ExecutionEngine
        from mlir.passmanager import PassManager

        fn = fn.clone()
        fn.attributes["llvm.emit_c_interface"] = UnitAttr()
        self.name = fn.sym_name.data
        self.context = ir.Context()
        with self.context:
            module = ir.Module.parse(str(ModuleOp([fn])))
            PassManager.parse(PIPELINE).run(module.operation)
            self.engine = ExecutionEngine(module, opt_level=2)

    def __call__(self, args: list) -> None:
        """Run in place on ``args``: numpy arrays (views allowed) and numpy scalars."""
        from mlir.runtime import get_ranked_memref_descriptor

        packed = []
        for a in args:
            if isinstance(a, np.ndarray):
                packed.append(ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))))
            else:
                packed.append(ctypes.pointer(_CTYPES[_mlir_name(a)](a)))
        self.engine.invoke(self.name, *packed)


def _mlir_name(value: np.generic) -> str:
    return {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}.get(
        type(value), "i1"
    )


def emulate(design: ModuleOp, arrays: Mapping[str, np.ndarray], runs: int = 1) -> None:
    """Run ``design`` ``runs`` times on ``arrays`` (the runtime sequence's tensors by name),
    writing its outputs into them."""
    Emulator(design).run(arrays, runs)


class Emulator:
    """One design's fifos, links, cores and compiled kernels."""

    def __init__(self, design: ModuleOp):
        device = next(op for op in design.walk() if isinstance(op, aie.DeviceOp))
        self.tiles: dict[SSAValue, tuple[int, int]] = {}
        self.fifos: dict[str, aie.ObjectFifoCreateOp] = {}
        self.links: list[aie.ObjectFifoLinkOp] = []
        self.cores: list[aie.CoreOp] = []
        self.kernels: dict[str, Kernel] = {}
        self.sequence: aie.RuntimeSequenceOp | None = None
        #: Buffers in tiles' memory (runtime parameters), by value and by name.
        self.buffers: dict[SSAValue, np.ndarray] = {}
        self.named: dict[str, np.ndarray] = {}
        for op in device.body.block.ops:
            if isinstance(op, aie.TileOp):
                self.tiles[op.result] = (op.col.value.data, op.row.value.data)
            elif isinstance(op, aie.ObjectFifoCreateOp):
                self.fifos[op.sym_name.data] = op
            elif isinstance(op, aie.ObjectFifoLinkOp):
                self.links.append(op)
            elif isinstance(op, aie.CoreOp):
                self.cores.append(op)
            elif isinstance(op, func.FuncOp) and op.body.blocks:
                self.kernels[op.sym_name.data] = Kernel(op)
            elif isinstance(op, aie.RuntimeSequenceOp):
                self.sequence = op
            elif isinstance(op, aie.BufferOp):
                t = op.buffer.type
                self.buffers[op.buffer] = np.zeros(t.get_shape(), dtype(t.element_type))
                name = op.attributes.get("sym_name")
                if isinstance(name, StringAttr):
                    self.named[name.data] = self.buffers[op.buffer]
        #: Elements waiting at each consumer of each fifo.
        self.queues: dict[tuple[str, tuple[int, int]], deque] = {}

    def element(self, fifo: str) -> MemRefType:
        t = self.fifos[fifo].elemType.element_type
        assert isinstance(t, MemRefType)
        return t

    def consumers(self, fifo: str) -> list[tuple[int, int]]:
        return [self.tiles[t] for t in self.fifos[fifo].consumerTiles]

    def push(self, fifo: str, value: np.ndarray) -> None:
        for tile in self.consumers(fifo):
            self.queues.setdefault((fifo, tile), deque()).append(value.copy())

    def pop(self, fifo: str, tile: tuple[int, int], op: Operation | None = None) -> np.ndarray:
        queue = self.queues.get((fifo, tile))
        if not queue:
            raise MappingError(
                f"emulate: tile {tile} waits on @{fifo}, which holds no element (a core fed by "
                "another core is not emulated)",
                op,
            )
        return queue.popleft()

    # --- a run ------------------------------------------------------------------------------

    def run(self, arrays: Mapping[str, np.ndarray], runs: int) -> None:
        if self.sequence is None:
            raise MappingError("emulate: the design has no runtime sequence")
        for _ in range(runs):
            outputs = self._inputs(arrays)
            self._serve_links()
            for core in self.cores:
                Core(self, self.tiles[core.tile]).run(core)
            self._serve_links()
            self._outputs(outputs)

    def _inputs(self, arrays: Mapping[str, np.ndarray]) -> dict[str, list]:
        """Stream each input transfer into its fifo; return the output transfers per fifo."""
        assert self.sequence is not None
        block = self.sequence.body.block
        names = {arg: arg.name_hint for arg in block.args}
        streams: dict[str, list[np.ndarray]] = {}
        outputs: dict[str, list] = {}
        constants: dict[SSAValue, object] = {}
        for op in block.ops:
            if isinstance(op, arith.ConstantOp):
                constants[op.result] = _constant(op.value)
            if isinstance(op, aiex.NpuRtpWriteOp):
                self.named[op.buffer.root_reference.data][op.index.value.data] = constants[op.value]
            if not isinstance(op, aiex.NpuDmaMemcpyNdOp):
                continue
            host = op.memref.type
            assert isinstance(host, MemRefType)
            flat = np.asarray(arrays[names[op.memref]]).reshape(-1).view(dtype(host.element_type))
            index = _pattern(op)
            fifo = op.metadata.root_reference.data
            if op.issue_token is not None and op.issue_token.value.data:
                outputs.setdefault(fifo, []).append((flat, index))
            else:
                streams.setdefault(fifo, []).append(flat[index])
        for fifo, parts in streams.items():
            words = np.concatenate(parts)
            t = self.element(fifo)
            size = _count(t)
            for k in range(0, len(words), size):
                self.push(fifo, words[k : k + size].view(dtype(t.element_type)))
        return outputs

    def _serve_links(self) -> None:
        """Hand on every element the memtiles hold, distributing or joining at offsets."""
        moved = True
        while moved:
            moved = False
            for link in self.links:
                ins = [r.root_reference.data for r in link.fifoIns.data]
                outs = [r.root_reference.data for r in link.fifoOuts.data]
                memtile = self.consumers(ins[0])[0]
                if not all(self.queues.get((f, memtile)) for f in ins):
                    continue
                elements = [self.pop(f, memtile).reshape(-1) for f in ins]
                if len(ins) > 1:
                    whole = np.zeros(_count(self.element(outs[0])), elements[0].dtype)
                    offsets = [o.value.data for o in link.src_offsets.data]
                    for off, e in zip(offsets, elements):
                        whole[off : off + e.size] = e
                    self.push(outs[0], whole)
                else:
                    offsets = [o.value.data for o in link.dst_offsets.data] or [0]
                    for off, fifo in zip(offsets, outs):
                        self.push(fifo, elements[0][off : off + _count(self.element(fifo))])
                moved = True

    def _outputs(self, outputs: dict[str, list]) -> None:
        for fifo, transfers in outputs.items():
            shim = self.consumers(fifo)[0]
            queue = self.queues.get((fifo, shim), deque())
            words = np.concatenate([e.reshape(-1) for e in queue]) if queue else np.zeros(0)
            queue.clear()
            start = 0
            for flat, index in transfers:
                n = index.size
                if words.size < start + n:
                    raise MappingError(f"emulate: @{fifo} brings fewer elements than drained")
                flat[index] = words[start : start + n].view(flat.dtype)
                start += n


class Core:
    """One core's body run once (the body of its loop over the runs)."""

    def __init__(self, emulator: Emulator, tile: tuple[int, int]):
        self.em = emulator
        self.tile = tile
        self.values: dict[SSAValue, object] = dict(emulator.buffers)
        self.held: dict[str, list[np.ndarray]] = {}

    def run(self, core: aie.CoreOp) -> None:
        block = core.body.block
        loop = next((op for op in block.ops if isinstance(op, scf.ForOp)), None)
        for op in block.ops:
            if op is loop and self._forever(op):
                self._block(op.body.block)
                return
            self._op(op)

    def _forever(self, loop: scf.ForOp) -> bool:
        bound = loop.ub.owner
        return isinstance(bound, arith.ConstantOp) and bound.value.value.data == FOREVER  # type: ignore[union-attr]

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _op(self, op: Operation) -> None:  # noqa: C901 - one case per op kind
        v = self.values
        if isinstance(op, arith.ConstantOp):
            v[op.result] = _constant(op.value)
        elif isinstance(op, arith.IndexCastOp):
            v[op.result] = int(v[op.input])  # type: ignore[call-overload]
        elif isinstance(op, arith.AddiOp | arith.MuliOp):
            a, b = int(v[op.lhs]), int(v[op.rhs])  # type: ignore[call-overload]
            v[op.result] = a + b if isinstance(op, arith.AddiOp) else a * b
        elif isinstance(op, scf.ForOp):
            lb, ub, step = (int(v[x]) for x in (op.lb, op.ub, op.step))  # type: ignore[call-overload]
            for i in range(lb, ub, step):
                v[op.body.block.args[0]] = i
                self._block(op.body.block)
        elif isinstance(op, aie.ObjectFifoAcquireOp):
            self._acquire(op)
        elif isinstance(op, aie.ObjectFifoSubviewAccessOp):
            v[op.output] = v[op.subview]
        elif isinstance(op, aie.ObjectFifoReleaseOp):
            self._release(op)
        elif isinstance(op, memref.ReinterpretCastOp):
            self._view(op)
        elif isinstance(op, memref.CastOp):
            v[op.dest] = v[op.source]
        elif isinstance(op, memref.LoadOp):
            v[op.res] = v[op.memref][tuple(int(v[i]) for i in op.indices)]  # type: ignore[index,call-overload]
        elif isinstance(op, memref.CopyOp):
            v[op.destination][...] = v[op.source]  # type: ignore[index]
        elif isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            if name not in self.em.kernels:
                raise MappingError(f"emulate: @{name} links an object file; it cannot run here", op)
            self.em.kernels[name]([v[a] for a in op.arguments])
        elif not isinstance(op, scf.YieldOp | aie.EndOp):
            raise MappingError(f"emulate: {op.name} in a core is not emulated", op)

    def _acquire(self, op: aie.ObjectFifoAcquireOp) -> None:
        fifo = op.objFifo_name.root_reference.data
        t = self.em.element(fifo)
        if op.port.value.data == aie.OBJECTFIFO_PORTS["Produce"]:
            value = np.zeros(t.get_shape(), dtype(t.element_type))
        else:
            value = self.em.pop(fifo, self.tile, op).reshape(t.get_shape())
        self.held.setdefault(fifo, []).append(value)
        self.values[op.subview] = value

    def _release(self, op: aie.ObjectFifoReleaseOp) -> None:
        fifo = op.objFifo_name.root_reference.data
        value = self.held[fifo].pop(0)
        if op.port.value.data == aie.OBJECTFIFO_PORTS["Produce"]:
            self.em.push(fifo, value)

    def _view(self, op: memref.ReinterpretCastOp) -> None:
        source = self.values[op.source]
        assert isinstance(source, np.ndarray)
        statics = op.static_offsets.get_values()
        dynamic = iter(op.offsets)
        offset = sum(
            int(self.values[next(dynamic)]) if s == memref.DYNAMIC_INDEX else s  # type: ignore[call-overload]
            for s in statics
        )
        shape = list(op.static_sizes.get_values())
        n = int(np.prod(shape))
        self.values[op.result] = source.reshape(-1)[offset : offset + n].reshape(shape)


def _constant(attr: Attribute) -> object:
    if isinstance(attr, FloatAttr):
        return dtype(attr.type)(attr.value.data)
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return dtype(attr.type)(value) if str(attr.type) != "index" else value
    raise MappingError(f"emulate: constant {attr} is not a scalar")


def _pattern(op: aiex.NpuDmaMemcpyNdOp) -> np.ndarray:
    """The element indices a transfer visits, in order (offsets, sizes, strides outermost
    first; the innermost stride is 1)."""
    offsets = list(op.static_offsets.get_values())
    sizes = list(op.static_sizes.get_values())
    strides = list(op.static_strides.get_values())
    strides[-1] = strides[-1] or 1
    base = sum(o * s for o, s in zip(offsets, strides))
    index = np.array([base])
    for size, stride in zip(sizes, strides):
        index = (index[:, None] + np.arange(size) * stride).reshape(-1)
    return index


def _count(t: MemRefType) -> int:
    return int(np.prod(t.get_shape()))


__all__ = ["Emulator", "Kernel", "PIPELINE", "emulate"]
