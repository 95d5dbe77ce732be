"""Tile kernels' CPU numerics, the text: a ``pto`` tile function in upstream MLIR dialects.

``upstream_text(f)`` writes an InCore tile function in upstream dialects only — one
``memref.alloc`` per tile (at the top: a tile made in a loop reuses its buffer),
``memref.subview`` + ``linalg.copy`` for loads and stores, ``scf.for`` / ``scf.if`` kept
(a carried tile is one buffer, given each yielded value by a copy),
``linalg.generic`` (arith, math bodies) for elementwise ops, reductions and broadcasts,
``linalg.transpose``, a matmul as a ``linalg.generic`` over (i, k, j) so the inner loop runs
along contiguous rows. Every op computes on its operands' valid parts (a subview when the
valid shape is not the whole tile). The text is written here rather than built as xDSL ops
and printed: a tile kernel compiles in tens of milliseconds, and building then printing the
same IR with xDSL costs more than the upstream compilation itself. tile.py compiles it.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from pto_wsp.dialects import pto
from pto_wsp.errors import CompileError, SourceLoc
from pto_wsp.lowering.cpu import tile_scalars as sc
from pto_wsp.passes.diagnostics import source_of
from pto_wsp.passes.pto_cost import ELEMENT_BYTES

#: LLVM's opt level 2 spends most of a compile vectorizing, interleaving and unrolling every
#: loop (with runtime alias and stride checks where sizes are dynamic): a kernel is compiled
#: for size, which keeps it to cheap vectorization, and a static matmul, whose speed is
#: vectorized inner loops, is a function of its own compiled at full speed (``noinline``:
#: inlined, it would be compiled for size again).
_KERNEL = 'attributes {passthrough = ["optsize"]}'
#: A kernel's tiles live on the stack (``memref.alloca``: no allocator call per task) up to
#: this many bytes in all, the rest on the heap. The budget is far below a thread's stack
#: (8 MiB here, 256 KiB under musl): tiles sized for an AICore's buffers (UB 192-256 KiB) fit.
_STACK_BYTES = 128 * 1024
_OUTLINED = 'attributes {passthrough = ["noinline"]}'
#: numpy dtype of each element type a kernel's tensors may hold.
DTYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}
#: The ctypes type a scalar parameter is passed as (f16 goes as f32, truncated inside).
_CTYPES = {
    "index": ctypes.c_int64,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "i16": ctypes.c_int16,
    "i8": ctypes.c_int8,
    "f64": ctypes.c_double,
    "f32": ctypes.c_float,
    "f16": ctypes.c_float,
}


class TileLoweringError(CompileError):
    """A tile function the CPU numerics cannot compile: names the function and the op;
    ``source`` is the kernel body's line that wrote the op (a traced tile op), if known."""

    source: SourceLoc | None = None


def _name(t: Attribute) -> str:
    return "index" if isinstance(t, IndexType) else pto.type_name(t) or str(t)


def _const(value: Attribute, type_: str) -> str:
    """An ``arith.constant`` literal MLIR reads exactly (floats as their bit pattern)."""
    if isinstance(value, FloatAttr):
        return sc.float_literal(value.value.data, type_)
    assert isinstance(value, IntegerAttr)
    return str(value.value.data)


# --------------------------------------------------------------------------- tiles


@dataclass
class _Tile:
    """A tile value: its buffer (a dense memref) and its valid sizes (ints or SSA names)."""

    buffer: str
    shape: tuple[int, ...]
    element: str
    valid: list[int | str]

    @property
    def type(self) -> str:
        return f"memref<{'x'.join(map(str, self.shape))}x{self.element}>"


def _strides(shape: Sequence[int]) -> list[int]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return out[::-1]


@dataclass
class _Emitter:
    """Writes one tile function's upstream form, op by op."""

    function: func.FuncOp
    lines: list[str] = field(default_factory=list)
    #: The tiles' buffers, allocated once at the top: a tile made in a loop body reuses its
    #: buffer at each iteration (its value dies there, or is copied out at the yield).
    allocs: list[str] = field(default_factory=list)
    names: dict[SSAValue, str] = field(default_factory=dict)
    tiles: dict[SSAValue, _Tile] = field(default_factory=dict)
    buffers: list[str] = field(default_factory=list)
    #: The memref type text of each tensor parameter (any strides: views of bound tensors).
    arg_types: dict[SSAValue, str] = field(default_factory=dict)
    #: Functions the kernel calls (its static matmuls), as text.
    outlined: list[str] = field(default_factory=list)
    counter: int = 0
    #: Bytes of tiles placed on the stack so far (``_STACK_BYTES`` at most).
    stacked: int = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def error(self, op: Operation, why: str) -> TileLoweringError:
        error = TileLoweringError(
            f"tile function @{self.function.sym_name.data}", f"{op.name}: {why}"
        )
        error.source = source_of(op)
        return error

    # ------------------------------------------------------------------ values and views

    def index(self, value: int | str) -> str:
        if isinstance(value, str):
            return value
        name = self.fresh()
        self.emit(f"{name} = arith.constant {value} : index")
        return name

    def new_tile(self, t: pto.TileType, valid: list[int | str], alloc: bool = True) -> _Tile:
        """A tile freed at the end; allocated here unless ``alloc`` is False (a callee
        allocates it)."""
        # Masks live in bytes: upstream MLIR stores no i1 memref elements.
        element = _name(t.element_type).replace("i1", "i8")
        tile = _Tile(self.fresh(), t.dims, element, valid)
        if alloc:
            self.allocate(tile)
        else:
            self.buffers.append(f"memref.dealloc {tile.buffer} : {tile.type}")
        return tile

    def new_tile_like(self, tile: _Tile) -> _Tile:
        """A buffer of ``tile``'s shape and element type (its valid sizes)."""
        copy = _Tile(self.fresh(), tile.shape, tile.element, list(tile.valid))
        self.allocate(copy)
        return copy

    def allocate(self, tile: _Tile) -> None:
        """``tile``'s buffer at the top: on the stack while the budget lasts, else on the heap
        (freed at the end)."""
        size = int(np.prod(tile.shape)) * ELEMENT_BYTES.get(tile.element, 8)
        if self.stacked + size <= _STACK_BYTES:
            self.stacked += size
            self.allocs.append(f"  {tile.buffer} = memref.alloca() : {tile.type}")
            return
        self.allocs.append(f"  {tile.buffer} = memref.alloc() : {tile.type}")
        self.buffers.append(f"memref.dealloc {tile.buffer} : {tile.type}")

    def result_tile(self, value: SSAValue, valid: list[int | str]) -> _Tile:
        tile = self.new_tile(pto.tile(value), valid)
        self.tiles[value] = tile
        return tile

    def view(self, tile: _Tile, valid: Sequence[int | str] | None = None) -> tuple[str, str]:
        """The valid part of ``tile`` (or ``valid`` of it) as a value and its memref type."""
        valid = list(tile.valid if valid is None else valid)
        if all(v == n for v, n in zip(valid, tile.shape)):
            return tile.buffer, tile.type
        dims = "x".join("?" if isinstance(v, str) else str(v) for v in valid)
        layout = f"strided<[{', '.join(map(str, _strides(tile.shape)))}]>"
        type_ = f"memref<{dims}x{tile.element}, {layout}>"
        name = self.fresh()
        sizes = ", ".join(str(v) for v in valid)
        zeros = ", ".join("0" for _ in valid)
        ones = ", ".join("1" for _ in valid)
        self.emit(
            f"{name} = memref.subview {tile.buffer}[{zeros}] [{sizes}] [{ones}] "
            f": {tile.type} to {type_}"
        )
        return name, type_

    def valid_of(self, t: pto.TileType, operands: Sequence[SSAValue]) -> list[int | str]:
        """The valid sizes of a tile of type ``t`` made with ``operands`` for its ``?``."""
        given = iter(self.names[v] for v in operands)
        return [next(given) if d == pto.DYNAMIC_INDEX else d for d in t.valid_dims]

    # ------------------------------------------------------------------ linalg

    def generic(
        self,
        ins: Sequence[tuple[str, str, str]],
        out: tuple[str, str, str],
        dims: int,
        iterators: Sequence[str],
        body: Callable[[list[str]], tuple[list[str], str]],
        element: str,
    ) -> None:
        """A ``linalg.generic``: ``ins``/``out`` are (value, type, affine map results)."""
        flat = self.flatten([*ins, out], dims, iterators)
        if flat is not None:
            *ins, out = flat
            dims, iterators = 1, ["parallel"]
        d = ", ".join(f"d{i}" for i in range(dims))
        maps = ", ".join(f"affine_map<({d}) -> ({m})>" for _, _, m in [*ins, out])
        its = ", ".join(f'"{i}"' for i in iterators)
        args = [f"%in{i}" for i in range(len(ins))]
        head = f"linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}"
        ins_text = ", ".join(v for v, _, _ in ins)
        ins_types = ", ".join(t for _, t, _ in ins)
        self.emit(f"{head} ins({ins_text} : {ins_types}) outs({out[0]} : {out[1]}) {{")
        types = [_element_of(t) for _, t, _ in ins]
        block_args = ", ".join(f"{a}: {t}" for a, t in zip([*args, "%out"], [*types, element]))
        self.emit(f"^bb0({block_args}):")
        lines, value = body([*args, "%out"])
        for line in lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {value} : {element}")
        self.emit("}")

    def flatten(
        self, operands: list[tuple[str, str, str]], dims: int, iterators: Sequence[str]
    ) -> list[tuple[str, str, str]] | None:
        """Whole dense tiles of one shape, elementwise: the same operands as 1-d memrefs
        (``memref.collapse_shape``), or None. LLVM unrolls a short inner loop before it
        vectorizes, then vectorizes the outer one with gathers: one loop runs ~7x faster."""
        identity = _map(dims)
        if dims < 2 or any(i != "parallel" for i in iterators):
            return None
        if any(m != identity for _, _, m in operands):
            return None
        types = {t for _, t, _ in operands}
        if len(types) != 1:
            return None
        (type_,) = types
        inner = type_.removeprefix("memref<").removesuffix(">")
        *sizes, element = inner.split("x")
        if "," in inner or not all(n.isdigit() for n in sizes):
            return None  # not a dense static tile: a view with a layout, or dynamic sizes
        count = 1
        for n in sizes:
            count *= int(n)
        flat_type = f"memref<{count}x{element}>"
        group = ", ".join(str(i) for i in range(dims))
        out = []
        for value, _, _ in operands:
            name = self.fresh()
            self.emit(
                f"{name} = memref.collapse_shape {value} [[{group}]] : {type_} into {flat_type}"
            )
            out.append((name, flat_type, "d0"))
        return out

    def fill(self, value: str, view: tuple[str, str], element: str) -> None:
        self.emit(f"linalg.fill ins({value} : {element}) outs({view[0]} : {view[1]})")

    def scalar(self, literal: str, element: str) -> str:
        name = self.fresh()
        self.emit(f"{name} = arith.constant {literal} : {element}")
        return name


def _dynamic_layout(rank: int) -> str:
    return f"strided<[{', '.join(['?'] * rank)}], offset: ?>"


def _element_of(memref_type: str) -> str:
    inner = memref_type.removeprefix("memref<").split(",")[0].rstrip(">")
    return inner.split("x")[-1]


def _map(rank: int, dims: Sequence[str] | None = None) -> str:
    return ", ".join(dims if dims is not None else [f"d{i}" for i in range(rank)])


# --------------------------------------------------------------------------- ops


def _lower_op(e: _Emitter, op: Operation) -> None:
    """Write the upstream form of one op of the tile function."""
    if isinstance(op, arith.ConstantOp):
        name = e.fresh()
        type_ = _name(op.result.type)
        e.emit(f"{name} = arith.constant {_const(op.value, type_)} : {type_}")
        e.names[op.result] = name
    elif isinstance(op, pto.LoadOp | pto.StoreOp):
        _transfer(e, op)
    elif isinstance(op, pto.MoveOp):
        # Tiles are values, never written after they are made: a move shares the buffer.
        e.tiles[op.result] = e.tiles[op.input]
    elif isinstance(op, pto.AllocOp):
        e.result_tile(op.result, e.valid_of(pto.tile(op.result), op.valid_sizes))
    elif isinstance(op, pto.FullOp):
        t = e.result_tile(op.result, e.valid_of(pto.tile(op.result), op.valid_sizes))
        e.fill(e.names[op.value], (t.buffer, t.type), t.element)
    elif isinstance(op, pto.FillPadOp):
        src = e.tiles[op.input]
        t = e.result_tile(op.result, list(src.shape))
        e.fill(e.names[op.value], (t.buffer, t.type), t.element)
        _copy(e, e.view(src), e.view(t, src.valid))
    elif isinstance(op, pto.BinaryOp | pto.ScalarBinaryOp | pto.UnaryOp | pto.CastOp):
        _elementwise(e, op)
    elif isinstance(op, pto.CmpOp | pto.CmpsOp | pto.SelOp):
        _compare(e, op)
    elif isinstance(op, pto.ReduceOp):
        _reduce(e, op)
    elif isinstance(op, pto.ExpandOp | pto.ExpandBinaryOp):
        _expand(e, op)
    elif isinstance(op, pto.TransposeOp):
        src = e.tiles[op.input]
        t = e.result_tile(op.result, src.valid[::-1])
        a, b = e.view(src), e.view(t)
        e.emit(f"linalg.transpose ins({a[0]} : {a[1]}) outs({b[0]} : {b[1]}) permutation = [1, 0]")
    elif isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
        _matmul(e, op)
    elif isinstance(op, pto.SetFlagOp | pto.WaitFlagOp | pto.BarrierOp):
        pass  # pipes are the device's: on the CPU every op has finished when the next starts
    elif isinstance(op, func.ReturnOp):
        pass
    elif isinstance(op, scf.ForOp):
        _loop(e, op)
    elif isinstance(op, scf.IfOp):
        _branch(e, op)
    elif isinstance(op, arith.CmpiOp | arith.CmpfOp):
        name = e.fresh()
        names = (
            arith.CMPI_COMPARISON_OPERATIONS
            if isinstance(op, arith.CmpiOp)
            else (arith.CMPF_COMPARISON_OPERATIONS)
        )
        predicate = names[op.predicate.value.data]
        a, b = (e.names[v] for v in op.operands)
        e.emit(f"{name} = {op.name} {predicate}, {a}, {b} : {_name(op.lhs.type)}")
        e.names[op.result] = name
    elif _is_scalar_binary(op):
        name = e.fresh()
        a, b = (e.names[v] for v in op.operands)
        e.emit(f"{name} = {op.name} {a}, {b} : {_name(op.results[0].type)}")
        e.names[op.results[0]] = name
    else:
        raise e.error(
            op, "not supported by the CPU numerics (tile functions are straight-line code, "
            "scf.for and scf.if)",
        )  # fmt: skip


def _is_scalar_binary(op: Operation) -> bool:
    """An ``arith`` op ``c = op a, b`` on one scalar type (index arithmetic of offsets)."""
    values = [*op.operands, *op.results]
    return (
        op.name.startswith("arith.")
        and len(op.operands) == 2
        and len(op.results) == 1
        and len({v.type for v in values}) == 1
        and not isinstance(values[0].type, pto.TileType)
    )


def _loop(e: _Emitter, op: scf.ForOp) -> None:
    """An ``scf.for``: a carried tile is one buffer the loop updates, holding the initial
    value before it and the yielded value after each iteration; scalars are iter_args."""
    body = op.body.block
    scalars = []
    for init, arg, result in zip(op.iter_args, body.args[1:], op.res):
        if isinstance(init.type, pto.TileType):
            src = e.tiles[init]
            carry = e.new_tile(pto.tile(init), list(src.valid))
            _copy(e, e.view(src), e.view(carry))
            e.tiles[arg] = e.tiles[result] = carry
        else:
            scalars.append((init, arg, result))
    iv = e.fresh()
    e.names[body.args[0]] = iv
    head = f"scf.for {iv} = {e.names[op.lb]} to {e.names[op.ub]} step {e.names[op.step]}"
    if scalars:
        names = [e.fresh() for _ in scalars]
        inits = ", ".join(f"{n} = {e.names[i]}" for n, (i, _, _) in zip(names, scalars))
        types = ", ".join(_name(i.type) for i, _, _ in scalars)
        head += f" iter_args({inits}) -> ({types})"
        for n, (_, arg, _) in zip(names, scalars):
            e.names[arg] = n
    results = e.fresh() if scalars else ""
    e.emit(f"{results + ':' + str(len(scalars)) + ' = ' if scalars else ''}{head} {{")
    for inner in body.ops:
        if isinstance(inner, scf.YieldOp):
            _carry(e, op, inner, scalars)
        else:
            _lower_op(e, inner)
    e.emit("}")
    for k, (_, _, result) in enumerate(scalars):
        e.names[result] = f"{results}#{k}"


def _branch(e: _Emitter, op: scf.IfOp) -> None:
    """An ``scf.if``: a tile result is a buffer each branch copies its yielded tile to."""
    tiles = [r for r in op.results if isinstance(r.type, pto.TileType)]
    scalars = [r for r in op.results if not isinstance(r.type, pto.TileType)]
    for r in tiles:
        e.tiles[r] = e.new_tile(pto.tile(r), list(pto.tile(r).valid_dims))
    results = e.fresh()
    types = ", ".join(_name(r.type) for r in scalars)
    head = f"{results}:{len(scalars)} = " if scalars else ""
    e.emit(f"{head}scf.if {e.names[op.cond]}{f' -> ({types})' if scalars else ''} {{")
    for k, region in enumerate((op.true_region, op.false_region)):
        if k:
            e.emit("} else {")
        for inner in region.block.ops if region.blocks else ():
            if not isinstance(inner, scf.YieldOp):
                _lower_op(e, inner)
                continue
            for value, r in zip(inner.arguments, op.results):
                if r in e.tiles:
                    _copy(e, e.view(e.tiles[value]), e.view(e.tiles[r]))
            kept = [e.names[v] for v in inner.arguments if not isinstance(v.type, pto.TileType)]
            e.emit(f"  scf.yield {', '.join(kept)}{' : ' + types if kept else ''}")
        if not region.blocks:
            e.emit("  scf.yield")
    e.emit("}")
    for k, r in enumerate(scalars):
        e.names[r] = f"{results}#{k}"


def _carry(e: _Emitter, loop: scf.ForOp, end: scf.YieldOp, scalars: list) -> None:
    """The end of a loop body: yielded tiles copied into the loop's buffers (all at once: a
    tile in another carried tile's buffer is copied aside first), scalars yielded."""
    pairs = [
        (e.tiles[value], e.tiles[arg])
        for value, arg in zip(end.arguments, loop.body.block.args[1:])
        if isinstance(value.type, pto.TileType)
    ]
    carries = {carry.buffer for _, carry in pairs}
    staged = []
    for src, carry in pairs:
        if src.buffer != carry.buffer and src.buffer in carries:
            aside = e.new_tile_like(src)
            _copy(e, e.view(src), e.view(aside))
            src = aside
        staged.append((src, carry))
    for src, carry in staged:
        if src.buffer != carry.buffer:
            _copy(e, e.view(src), e.view(carry))
    if scalars:
        kept = [e.names[v] for v in end.arguments if not isinstance(v.type, pto.TileType)]
        types = ", ".join(_name(i.type) for i, _, _ in scalars)
        e.emit(f"  scf.yield {', '.join(kept)} : {types}")
    else:
        e.emit("  scf.yield")


def _copy(e: _Emitter, src: tuple[str, str], dst: tuple[str, str]) -> None:
    e.emit(f"linalg.copy ins({src[0]} : {src[1]}) outs({dst[0]} : {dst[1]})")


def _transfer(e: _Emitter, op: pto.LoadOp | pto.StoreOp) -> None:
    """A load or store: the tile's valid part and the view's matching window, copied."""
    if isinstance(op, pto.LoadOp):
        t = pto.tile(op.result)
        tile = e.result_tile(op.result, e.valid_of(t, op.valid_sizes))
        memref_value = op.source
    else:
        tile = e.tiles[op.value]
        memref_value = op.dest
    source = e.names[memref_value]
    view_type = memref_value.type
    assert isinstance(view_type, MemRefType)
    rank = len(view_type.get_shape())
    offsets = [e.names[o] for o in op.offsets] or ["0"] * rank
    lead = rank - len(tile.shape)
    sizes = ["1"] * lead + [str(v) for v in tile.valid]
    dims = "x".join("?" if isinstance(v, str) else str(v) for v in tile.valid)
    window_type = f"memref<{dims}x{tile.element}, {_dynamic_layout(len(tile.shape))}>"
    window = e.fresh()
    e.emit(
        f"{window} = memref.subview {source}[{', '.join(offsets)}] [{', '.join(sizes)}] "
        f"[{', '.join('1' * rank)}] : {e.arg_types[memref_value]} to {window_type}"
    )
    _window_copy(e, window, len(tile.shape), tile, isinstance(op, pto.LoadOp))


def _window_copy(e: _Emitter, window: str, rank: int, tile: _Tile, load: bool) -> None:
    """Copy between a window of a parameter (any strides) and ``tile``, with a branch for
    the usual unit stride of the innermost dimension, which LLVM then vectorizes (~2x)."""
    dims = "x".join("?" if isinstance(v, str) else str(v) for v in tile.valid)
    general = f"memref<{dims}x{tile.element}, {_dynamic_layout(rank)}>"
    strides = ", ".join(["?"] * (rank - 1) + ["1"])
    unit = f"memref<{dims}x{tile.element}, strided<[{strides}], offset: ?>>"
    one, meta, inner, cast = e.fresh(), e.fresh(), e.fresh(), e.fresh()
    e.emit(f"{one} = arith.constant 1 : index")
    results = ", ".join(["index"] * (1 + 2 * rank))
    e.emit(
        f"{meta}:{2 + 2 * rank} = memref.extract_strided_metadata {window} : {general} "
        f"-> memref<{tile.element}>, {results}"
    )
    e.emit(f"{inner} = arith.cmpi eq, {meta}#{1 + 2 * rank}, {one} : index")
    e.emit(f"scf.if {inner} {{")
    e.emit(f"  {cast} = memref.cast {window} : {general} to {unit}")
    ends = [(cast, unit), e.view(tile)]
    _copy(e, *(ends if load else ends[::-1]))
    e.emit("} else {")
    ends = [(window, general), e.view(tile)]
    _copy(e, *(ends if load else ends[::-1]))
    e.emit("}")


def _elementwise(e: _Emitter, op: Operation) -> None:
    src = e.tiles[op.operands[0]]
    t = e.result_tile(op.results[0], src.valid)
    ins = [(*e.view(e.tiles[v]), _map(len(src.shape))) for v in op.operands if v in e.tiles]
    out = (*e.view(t), _map(len(src.shape)))
    kind = op.name.removeprefix("pto.")
    element = src.element
    if isinstance(op, pto.BinaryOp):
        body = lambda args: sc.binary(kind, args[0], args[1], element)  # noqa: E731
    elif isinstance(op, pto.ScalarBinaryOp):
        s = e.names[op.scalar]
        body = lambda args: sc.binary(kind[:-1], args[0], s, element)  # noqa: E731
    elif isinstance(op, pto.UnaryOp):
        body = lambda args: sc.unary(kind, args[0], element)  # noqa: E731
    else:
        body = lambda args: sc.cast(args[0], src.element, t.element)  # noqa: E731
    e.generic(ins, out, len(src.shape), ["parallel"] * len(src.shape), body, t.element)


def _compare(e: _Emitter, op: Operation) -> None:
    rank = len(pto.tile(op.results[0]).dims)
    if isinstance(op, pto.SelOp):
        src = e.tiles[op.lhs]
        t = e.result_tile(op.result, src.valid)
        ins = [(*e.view(e.tiles[v]), _map(rank)) for v in (op.mask, op.lhs, op.rhs)]

        def body(args: list[str]) -> tuple[list[str], str]:
            return [
                f"%m = arith.trunci {args[0]} : i8 to i1",
                f"%r = arith.select %m, {args[1]}, {args[2]} : {t.element}",
            ], "%r"
    else:
        src = e.tiles[op.operands[0]]
        t = e.result_tile(op.results[0], src.valid)
        ins = [(*e.view(e.tiles[v]), _map(rank)) for v in op.operands if v in e.tiles]
        rhs = "%in1" if isinstance(op, pto.CmpOp) else e.names[op.operands[1]]
        pred = op.predicate.data
        float_ = sc.is_float(src.element)
        cmp = (
            f"arith.cmpf {sc.PREDICATES_F[pred]}"
            if float_
            else f"arith.cmpi {sc.PREDICATES_I[pred]}"
        )

        def body(args: list[str]) -> tuple[list[str], str]:
            return [
                f"%c = {cmp}, {args[0]}, {rhs} : {src.element}",
                "%r = arith.extui %c : i1 to i8",
            ], "%r"

    e.generic(ins, (*e.view(t), _map(rank)), rank, ["parallel"] * rank, body, t.element)


def _reduce(e: _Emitter, op: pto.ReduceOp) -> None:
    src = e.tiles[op.input]
    axis = op.AXIS
    valid = list(src.valid)
    valid[axis] = 1
    t = e.result_tile(op.result, valid)
    kind = op.name.split("_")[-1]
    out = e.view(t)
    e.fill(e.scalar(sc.identity(kind, t.element), t.element), out, t.element)
    reduced = ["d0", "0"] if axis == 1 else ["0", "d1"]
    iterators = ["parallel", "reduction"] if axis == 1 else ["reduction", "parallel"]
    op_kind = "add" if kind == "sum" else kind

    def body(args: list[str]) -> tuple[list[str], str]:
        return sc.binary(op_kind, args[1], args[0], t.element)

    e.generic([(*e.view(src), _map(2))], (*out, _map(2, reduced)), 2, iterators, body, t.element)


def _expand(e: _Emitter, op: Operation) -> None:
    axis = op.AXIS
    reduced = _map(2, ["d0", "0"] if axis == 1 else ["0", "d1"])
    if isinstance(op, pto.ExpandOp):
        vector = e.tiles[op.input]
        shape = pto.tile(op.result).dims
        valid = list(vector.valid)
        valid[axis] = shape[axis]
        t = e.result_tile(op.result, valid)
        ins = [(*e.view(vector), reduced)]

        def body(args: list[str]) -> tuple[list[str], str]:
            return [], args[0]
    else:
        src = e.tiles[op.input]
        t = e.result_tile(op.result, src.valid)
        ins = [(*e.view(src), _map(2)), (*e.view(e.tiles[op.vector]), reduced)]
        kind = op.name.split("expand_")[-1]

        def body(args: list[str]) -> tuple[list[str], str]:
            if kind == "exp_sub":
                lines, value = sc.binary("sub", args[0], args[1], t.element)
                lines = [line.replace("%r", "%d") for line in lines]
                return [*lines, f"%r = math.exp %d : {t.element}"], "%r"
            return sc.binary(kind, args[0], args[1], t.element)

    e.generic(ins, (*e.view(t), _map(2)), 2, ["parallel"] * 2, body, t.element)


def _matmul(e: _Emitter, op: Operation) -> None:
    """``c (+)= a x b``; a static one is a function of its own (see ``_OUTLINED``) returning
    a new buffer: its result aliases no operand, so its rows stay in registers."""
    a, b = e.tiles[op.lhs], e.tiles[op.rhs]
    init = None
    if isinstance(op, pto.MatmulAccOp):
        init = e.tiles[op.acc]
    elif isinstance(op, pto.MatmulBiasOp):
        init = e.tiles[op.bias]
    valid = [a.valid[0], b.valid[1]]
    # In a loop or a branch the result takes its buffer allocated at the top (it is written
    # at each iteration), not a callee's new one.
    nested = op.parent_op() is not e.function
    if nested or not all(isinstance(v, int) for v in [*a.valid, *b.valid]):
        _product(e, op, a, b, init, e.result_tile(op.result, valid))
        return
    inputs = [a, b] if init is None else [a, b, init]
    params = [_Tile(f"%m{i}", x.shape, x.element, x.valid) for i, x in enumerate(inputs)]
    result = e.new_tile(pto.tile(op.result), valid, alloc=False)
    caller, e.lines = e.lines, []
    local = _Tile("%mr", result.shape, result.element, valid)
    e.emit(f"%mr = memref.alloc() : {local.type}")
    _product(e, op, params[0], params[1], params[2] if init else None, local)
    callee = f"@{e.function.sym_name.data}__matmul{len(e.outlined)}"
    args = ", ".join(f"{x.buffer}: {x.type}" for x in params)
    head = f"func.func private {callee}({args}) -> {local.type} {_OUTLINED} {{"
    e.outlined.append("\n".join([head, *e.lines, f"  return %mr : {local.type}", "}"]))
    e.lines = caller
    types = ", ".join(x.type for x in inputs)
    names = ", ".join(x.buffer for x in inputs)
    e.emit(f"{result.buffer} = func.call {callee}({names}) : ({types}) -> {result.type}")
    e.tiles[op.result] = result


def _product(e: _Emitter, op: Operation, a: _Tile, b: _Tile, init: _Tile | None, t: _Tile) -> None:
    """``t = a x b (+ init)`` as a generic over (i, k, j): the innermost loop walks rows of b
    and t."""
    whole = (t.buffer, t.type)
    if isinstance(op, pto.MatmulAccOp):
        _copy(e, (init.buffer, init.type), whole)
    elif isinstance(op, pto.MatmulBiasOp):
        e.generic(
            [(*e.view(init, [1, t.shape[1]]), "0, d1")], (*whole, _map(2)), 2,
            ["parallel"] * 2, lambda args: ([], args[0]), t.element,
        )  # fmt: skip
    else:
        e.fill(e.scalar(sc.identity("sum", t.element), t.element), whole, t.element)
    k = a.valid[1]
    lhs = e.view(a, [a.valid[0], k])
    rhs = e.view(b, [k, b.valid[1]])
    out = e.view(t)

    def body(args: list[str]) -> tuple[list[str], str]:
        lines, x = sc.cast(args[0], a.element, t.element)
        lines = [line.replace("%r", "%x").replace("%n", "%xn") for line in lines]
        x = x.replace("%r", "%x")
        more, y = sc.cast(args[1], b.element, t.element)
        more = [line.replace("%r", "%y").replace("%n", "%yn") for line in more]
        y = y.replace("%r", "%y")
        product, p = sc.binary("mul", x, y, t.element)
        product = [line.replace("%r", "%p") for line in product]
        total, value = sc.binary("add", args[2], "%p", t.element)
        return [*lines, *more, *product, *total], value

    e.generic(
        [(*lhs, "d0, d1"), (*rhs, "d1, d2")], (*out, "d0, d2"), 3,
        ["parallel", "reduction", "parallel"], body, t.element,
    )  # fmt: skip


# --------------------------------------------------------------------------- functions


@dataclass(frozen=True)
class _Param:
    """How one parameter is passed: a tensor (rank, numpy dtype) or a scalar (C type)."""

    name: str
    rank: int = -1
    dtype: Any = None
    ctype: Any = None
    shape: tuple[int, ...] = ()


def upstream_text(function: func.FuncOp) -> tuple[str, list[_Param]]:
    """The tile function in upstream dialects, and how its parameters are passed."""
    e = _Emitter(function)
    name = function.sym_name.data
    header, params, prologue = [], [], []
    for i, arg in enumerate(function.body.block.args):
        pname = arg.name_hint or f"a{i}"
        value = f"%p{i}"
        if isinstance(arg.type, MemRefType):
            element = _name(arg.type.element_type)
            if element not in DTYPES:
                raise TileLoweringError(
                    f"tile function @{name}", f"parameter {pname!r}: tensors of {element} are "
                    f"not supported by the CPU numerics (supported: {', '.join(DTYPES)})",
                )  # fmt: skip
            shape = tuple(arg.type.get_shape())
            dims = "x".join("?" if d < 0 else str(d) for d in shape)
            type_ = f"memref<{dims}x{element}, {_dynamic_layout(len(shape))}>"
            e.arg_types[arg] = type_
            header.append(f"{value}: {type_}")
            params.append(_Param(pname, len(shape), np.dtype(DTYPES[element]), shape=shape))
        else:
            type_ = _name(arg.type)
            if type_ not in _CTYPES:
                raise TileLoweringError(
                    f"tile function @{name}", f"parameter {pname!r} of type {arg.type} is not "
                    f"supported by the CPU numerics (scalars: {', '.join(_CTYPES)})",
                )  # fmt: skip
            if type_ == "f16":  # passed as f32: C has no half-precision argument
                header.append(f"{value}_f32: f32")
                prologue.append(f"  {value} = arith.truncf {value}_f32 : f32 to f16")
            else:
                header.append(f"{value}: {type_}")
            params.append(_Param(pname, ctype=_CTYPES[type_]))
        e.names[arg] = value
    for op in function.body.block.ops:
        _lower_op(e, op)
    body = [*prologue, *e.allocs, *e.lines, *("  " + line for line in e.buffers), "  return"]
    head = f"func.func @{name}({', '.join(header)}) {_KERNEL} {{"
    return "\n".join([head, *body, "}", *e.outlined]), params
