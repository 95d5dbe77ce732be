"""AIE kernel functions with bodies, built from a tile kernel's ``pto`` IR.

A kernel with a tile function (``wsp.kernel @k ... {tile = @f}``) becomes ``func.func @k``
with a body in the ``aie.device``, in upstream dialects only (memref, scf, arith, math,
vector), which mlir-aie compiles for the core like any core code: no ``link_with``, no object
file.

Tiles are values; the body computes each element where it is needed. A store is a loop nest
over the stored tile's valid shape that evaluates the element expression of the stored tile:
elementwise ops, broadcasts, transposes and moves fold into that expression (a move between
Ascend's buffers is nothing on an AIE core, which has one data memory). Reductions, matmuls
and allocated tiles are materialized, each once, where the tile IR computes them: into the
output parameter when the tile's only use is storing it whole there, else into a
``memref.alloca`` scratch buffer on the core's stack (``Body.scratch`` bytes; the design grows
the stack of the cores calling the kernel). A tile carried by an ``scf.for`` or made by an
``scf.if`` is a scratch buffer, written before the loop and at the end of each iteration (or
in each branch). A store whose rows fit AIE-ML's 512-bit vectors computes them by vectors.
``f16`` arithmetic is done in f32, each result rounded to f16; integer division is total (0
for a zero divisor). Pipe synchronization is dropped: an AIE core runs its body in program
order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func, math, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pto_wsp.dialects import pto, wsp

from .analysis import MappingError

Index = tuple[SSAValue, ...]

#: AIE-ML computes bf16, not f16: f16 arithmetic is done in f32, each result rounded to f16
#: (as mlir-aie's kernels compute bf16 through f32 accumulators, and as the CPU numerics do).
_WIDE = Float32Type()

_PREDICATES_F = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_PREDICATES_I = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}

#: ``pto`` op name suffix -> (float op, integer op) building ``a op b``.
_ARITH: dict[str, tuple[type, type]] = {
    "add": (arith.AddfOp, arith.AddiOp),
    "sub": (arith.SubfOp, arith.SubiOp),
    "mul": (arith.MulfOp, arith.MuliOp),
    "div": (arith.DivfOp, arith.DivSIOp),
    "max": (arith.MaximumfOp, arith.MaxSIOp),
    "min": (arith.MinimumfOp, arith.MinSIOp),
}
_FLOAT_MATH = {"exp": math.ExpOp, "log": math.LogOp, "sqrt": math.SqrtOp, "rsqrt": math.RsqrtOp}
#: Reductions: the pto name's suffix -> the binary op combining two values.
_REDUCE = {"sum": "add", "max": "max", "min": "min"}


def _scalar(t: Attribute) -> Attribute:
    """The element type of a vector, else the type."""
    return t.element_type if isinstance(t, VectorType) else t


def _is_float(t: Attribute) -> bool:
    return pto.is_float(_scalar(t))


def _is_half(t: Attribute) -> bool:
    return isinstance(_scalar(t), Float16Type)


def _like(t: Attribute, element: Attribute) -> Attribute:
    """``element``, or a vector of it with the lanes of ``t``."""
    return VectorType(element, t.get_shape()) if isinstance(t, VectorType) else element


def _op_name(op: Operation) -> str:
    return op.name.removeprefix("pto.")


class Body:
    """The body of one kernel function: a builder at an insertion block, the values of the
    tile function mapped to the new function's, and the tiles made so far."""

    def __init__(self, tile_fn: func.FuncOp, kernel: wsp.KernelOp, inputs: Sequence[Attribute]):
        self.fn = tile_fn
        self.kernel = kernel
        self.entry = Block(arg_types=list(inputs))
        self.block = self.entry
        self.values: dict[SSAValue, SSAValue] = {}
        self.buffers: dict[SSAValue, SSAValue] = {}
        self.caches: list[dict[tuple[SSAValue, Index, int], SSAValue]] = [{}]
        self.constants: dict[tuple[int | float, Attribute], SSAValue] = {}
        self.skipped: set[Operation] = set()
        self.scratch = 0
        #: Lanes of the element expressions being built: 0 scalars, else vectors of that many.
        self.lanes = 0

    # --- building ---------------------------------------------------------------------------

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int | float, type_: Attribute) -> SSAValue:
        """A constant (a splat for a vector type), once per value and type."""
        key = (value, type_)
        if key not in self.constants:
            if isinstance(type_, VectorType):
                splat = float(value) if _is_float(type_) else int(value)
                op = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [splat]))
            elif _is_float(type_):
                op = arith.ConstantOp(FloatAttr(float(value), type_))  # type: ignore[arg-type]
            else:
                op = arith.ConstantOp(IntegerAttr(int(value), type_))  # type: ignore[arg-type]
            self.constants[key] = self.hoist(op)
        return self.constants[key]

    def index(self, value: int) -> SSAValue:
        return self.const(value, IndexType())

    def loop(
        self,
        upper: int | SSAValue,
        body: Callable[[SSAValue, Sequence[SSAValue]], Sequence[SSAValue]],
        inits: Sequence[SSAValue] = (),
        lower: int = 0,
        step: int = 1,
    ) -> Sequence[SSAValue]:
        """``scf.for`` from ``lower`` to ``upper`` by ``step``; ``body(iv, iter_args)``
        builds its body (element values cached there stay there) and returns what it
        yields."""
        block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        outer = self.block
        self.block = block
        self.caches.append({})
        yielded = body(block.args[0], block.args[1:])
        self.add(scf.YieldOp(*yielded))
        self.caches.pop()
        self.block = outer
        top = upper if isinstance(upper, SSAValue) else self.index(upper)
        loop = scf.ForOp(self.index(lower), top, self.index(step), inits, block)
        self.block.add_op(loop)
        return loop.results

    def nest(
        self, dims: Sequence[int | SSAValue], body: Callable[[Index], None], step: int = 1
    ) -> None:
        """A loop nest over ``dims`` (outermost first, the innermost by ``step``) calling
        ``body`` with the indices."""

        def level(k: int, outer: Index) -> None:
            if k == len(dims):
                body(outer)
                return

            def inner(iv: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                level(k + 1, (*outer, iv))
                return ()

            self.loop(dims[k], inner, step=step if k == len(dims) - 1 else 1)

        level(0, ())

    def alloca(self, t: pto.TileType) -> SSAValue:
        """A scratch buffer for a tile, on the core's stack."""
        shape = list(t.dims)
        self.scratch += _bytes(t.element_type) * _count(shape)
        return self.hoist(memref.AllocaOp.get(t.element_type, shape=shape))

    def hoist(self, op: Operation) -> SSAValue:
        """Put ``op`` (without operands) at the top of the function, where every block
        sees it."""
        first = self.entry.first_op
        if first is None:
            self.entry.add_op(op)
        else:
            self.entry.insert_op_before(op, first)
        return op.results[0]

    # --- element expressions ----------------------------------------------------------------

    def element(self, value: SSAValue, idx: Index) -> SSAValue:
        """The element of tile ``value`` at ``idx`` (with ``lanes``: the vector of that many
        from there along the row), computed in the current block, once per block and
        index."""
        key = (value, idx, self.lanes)
        for cache in reversed(self.caches):
            if key in cache:
                return cache[key]
        result = self._element(value, idx)
        self.caches[-1][key] = result
        return result

    def _element(self, value: SSAValue, idx: Index) -> SSAValue:
        if value in self.buffers:
            return self.read(self.buffers[value], idx)
        op = value.owner
        if not isinstance(op, Operation):
            parent = op.parent_op() if op is not None else None
            raise MappingError(
                f"{self.where()}: a tile argument of {parent.name if parent else 'a block'} "
                "does not map to an AIE kernel (tiles are carried by scf.for and scf.if only)",
                parent or self.fn,
            )
        t = pto.tile(value)
        if isinstance(op, pto.LoadOp):
            src = self.mapped(op.source)
            return self.read(src, self.at(src, op.offsets, idx))
        if isinstance(op, pto.MoveOp):
            return self.element(op.input, idx)
        if isinstance(op, pto.BinaryOp):
            return self.binary(_op_name(op), self.element(op.lhs, idx), self.element(op.rhs, idx))
        if isinstance(op, pto.ScalarBinaryOp):
            name = _op_name(op)[:-1]
            return self.binary(name, self.element(op.input, idx), self.splat(op.scalar))
        if isinstance(op, pto.UnaryOp):
            return self.unary(_op_name(op), self.element(op.input, idx), op)
        if isinstance(op, pto.CastOp):
            return self.cast(self.element(op.input, idx), t.element_type)
        if isinstance(op, pto.CmpOp | pto.CmpsOp):
            rhs = self.element(op.rhs, idx) if isinstance(op, pto.CmpOp) else self.mapped(op.scalar)
            return self.compare(op.predicate.data, self.element(op.operands[0], idx), rhs)
        if isinstance(op, pto.SelOp):
            m, a, b = (self.element(v, idx) for v in (op.mask, op.lhs, op.rhs))
            return self.add(arith.SelectOp(m, a, b))
        if isinstance(op, pto.ExpandOp):
            return self.along(op.input, op.AXIS, idx)
        if isinstance(op, pto.ExpandBinaryOp):
            a = self.element(op.input, idx)
            b = self.along(op.vector, op.AXIS, idx)
            name = _op_name(op).split("expand_", 1)[1]
            if name == "exp_sub":
                return self.unary("exp", self.binary("sub", a, b), op)
            return self.binary(name, a, b)
        if isinstance(op, pto.TransposeOp):
            return self.element(op.input, idx[::-1])
        if isinstance(op, pto.FullOp):
            return self.splat(op.value)
        if isinstance(op, pto.FillPadOp):
            return self.fillpad(op, idx)
        raise MappingError(f"{self.where()}: {op.name} does not map to an AIE kernel", op)

    def read(self, view: SSAValue, idx: Index) -> SSAValue:
        """``view[idx]``, or the vector of ``lanes`` elements from there along the rows."""
        if self.lanes:
            element = view.type.element_type  # type: ignore[attr-defined]
            return self.add(vector.LoadOp(view, idx, VectorType(element, [self.lanes])))
        return self.add(memref.LoadOp.get(view, idx))

    def splat(self, scalar: SSAValue) -> SSAValue:
        """A scalar of the tile function, broadcast to the lanes (if any)."""
        return self.broadcast(self.mapped(scalar))

    def broadcast(self, x: SSAValue) -> SSAValue:
        if not self.lanes:
            return x
        return self.add(vector.BroadcastOp(x, VectorType(x.type, [self.lanes])))

    def along(self, vector_tile: SSAValue, axis: int, idx: Index) -> SSAValue:
        """The element of a row (axis 1: R x 1) or column (axis 0: 1 x C) vector that
        broadcasts to ``idx``: one scalar per row, broadcast to the lanes, or a vector of
        the column's elements."""
        at = _broadcast(idx, axis, self.index(0))
        if axis == 1 and self.lanes:
            lanes, self.lanes = self.lanes, 0
            x = self.element(vector_tile, at)
            self.lanes = lanes
            return self.broadcast(x)
        return self.element(vector_tile, at)

    def at(self, view: SSAValue, offsets: Sequence[SSAValue], idx: Index) -> Index:
        """The indices into ``view`` of a tile element: the tile's indices address the
        view's trailing dimensions, shifted by the offsets (none: the view's origin)."""
        assert isinstance(view.type, MemRefType)
        if not offsets:
            return (*[self.index(0)] * (view.type.get_num_dims() - len(idx)), *idx)
        base = [self.mapped(o) for o in offsets]
        lead = base[: len(base) - len(idx)]
        tail = base[len(base) - len(idx) :]
        return (*lead, *(self.add(arith.AddiOp(o, i)) for o, i in zip(tail, idx)))

    def mapped(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def binary(self, name: str, a: SSAValue, b: SSAValue) -> SSAValue:
        if _is_half(a.type):
            return self.narrow(self.binary(name, self.widen(a), self.widen(b)))
        if name == "div" and not _is_float(a.type):
            return self.int_div(a, b)
        kinds = _ARITH[name]
        return self.add(kinds[0 if _is_float(a.type) else 1](a, b))

    def int_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """``a / b`` truncating, total as numpy's (and the CPU's and Ascend host's) integer
        division: ``x / 0`` is 0 and ``MIN / -1`` wraps to MIN, where ``divsi`` traps."""
        t = a.type
        least = -(2 ** (_scalar(t).width.data - 1))  # type: ignore[attr-defined]
        zero, one = self.const(0, t), self.const(1, t)
        by_zero = self.add(arith.CmpiOp(b, zero, "eq"))
        overflow = self.add(
            arith.AndIOp(
                self.add(arith.CmpiOp(a, self.const(least, t), "eq")),
                self.add(arith.CmpiOp(b, self.const(-1, t), "eq")),
            )
        )
        divisor = self.add(arith.SelectOp(self.add(arith.OrIOp(by_zero, overflow)), one, b))
        return self.add(arith.SelectOp(by_zero, zero, self.add(arith.DivSIOp(a, divisor))))

    def widen(self, x: SSAValue) -> SSAValue:
        return self.add(arith.ExtFOp(x, _like(x.type, _WIDE)))

    def narrow(self, x: SSAValue) -> SSAValue:
        return self.add(arith.TruncFOp(x, _like(x.type, Float16Type())))

    def unary(self, name: str, x: SSAValue, op: Operation) -> SSAValue:
        t = x.type
        if _is_half(t):
            return self.narrow(self.unary(name, self.widen(x), op))
        if name in _FLOAT_MATH:
            return self.add(_FLOAT_MATH[name](x))
        if name == "recip":
            return self.add(arith.DivfOp(self.const(1.0, t), x))
        if name == "abs":
            return self.add(math.AbsFOp(x) if _is_float(t) else math.AbsIOp(x))
        if name == "neg":
            if _is_float(t):
                return self.add(arith.NegfOp(x))
            return self.add(arith.SubiOp(self.const(0, t), x))
        if name == "relu":
            return self.binary("max", x, self.const(0, t))
        raise MappingError(f"{self.where()}: {op.name} does not map to an AIE kernel", op)

    def cast(self, x: SSAValue, to: Attribute) -> SSAValue:
        src = _scalar(x.type)
        if src == to:
            return x
        if self.lanes:
            to = VectorType(to, [self.lanes])
        if _is_float(src) and _is_float(to):
            wider = _bytes(to) > _bytes(src)
            return self.add(arith.ExtFOp(x, to) if wider else arith.TruncFOp(x, to))
        if _is_half(src):  # rounded in f32: no f16 arithmetic on the core
            x, src = self.widen(x), _WIDE
        if _is_float(src):  # pto.cast rounds to nearest even
            return self.add(arith.FPToSIOp(self.add(math.RoundEvenOp(x)), to))
        if _is_float(to):
            return self.add(arith.SIToFPOp(x, to))
        wider = _bytes(to) > _bytes(src)
        return self.add(arith.ExtSIOp(x, to) if wider else arith.TruncIOp(x, to))

    def compare(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        if _is_half(a.type):
            a, b = self.widen(a), self.widen(b)
        if _is_float(a.type):
            return self.add(arith.CmpfOp(a, b, _PREDICATES_F[predicate]))
        return self.add(arith.CmpiOp(a, b, _PREDICATES_I[predicate]))

    def fillpad(self, op: pto.FillPadOp, idx: Index) -> SSAValue:
        src = pto.tile(op.input)
        inside = None
        for i, v, d in zip(idx, src.valid_dims, src.dims):
            if v == d:
                continue
            test = self.add(arith.CmpiOp(i, self.index(v), "ult"))
            inside = test if inside is None else self.add(arith.AndIOp(inside, test))
        if inside is None:
            return self.element(op.input, idx)
        # The padded elements are never read: only the valid part of the source is defined.
        return self.add(arith.SelectOp(inside, self.element(op.input, idx), self.mapped(op.value)))

    def where(self) -> str:
        return f"kernel @{self.kernel.sym_name.data} (tile function @{self.fn.sym_name.data})"


def _broadcast(idx: Index, axis: int, zero: SSAValue) -> Index:
    out = list(idx)
    out[axis] = zero
    return tuple(out)


def _count(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _bytes(t: Attribute) -> int:
    return max(1, getattr(_scalar(t), "bitwidth", 32) // 8)


# --------------------------------------------------------------------------- the function


def kernel_function(
    kernel: wsp.KernelOp, tile_fn: func.FuncOp, inputs: Sequence[Attribute]
) -> tuple[func.FuncOp, int]:
    """``func.func @k`` (public, as mlir-aie's kernels with bodies) with the body of
    ``tile_fn`` in upstream dialects, taking ``inputs`` (the kernel's AIE parameter types:
    index as i32), and the bytes of scratch buffers it keeps on the stack."""
    body = Body(tile_fn, kernel, inputs)
    for old, new in zip(tile_fn.body.block.args, body.entry.args):
        new.name_hint = old.name_hint
        if isinstance(old.type, IndexType) and new.type != old.type:
            new = body.add(arith.IndexCastOp(new, IndexType()))
        body.values[old] = new
    _Lowering(body).block(tile_fn.body.block)
    body.add(func.ReturnOp())
    fn = func.FuncOp(kernel.sym_name.data, (list(inputs), []), Region(body.entry))
    return fn, body.scratch


class _Lowering:
    """Walks the tile function's ops in order, materializing and storing tiles."""

    def __init__(self, body: Body):
        self.b = body
        stores = [op for op in body.fn.walk() if isinstance(op, pto.StoreOp)]
        loads = [op for op in body.fn.walk() if isinstance(op, pto.LoadOp)]
        self.written = {op.dest for op in stores}
        self.store_count = {d: sum(1 for s in stores if s.dest == d) for d in self.written}
        self.read = {op.source for op in loads}

    def block(self, block: Block) -> None:
        """Lower the ops of ``block`` but its terminator (the caller's)."""
        for op in block.ops:
            if not isinstance(op, scf.YieldOp | func.ReturnOp):
                self.op(op)

    def op(self, op: Operation) -> None:
        b = self.b
        for r in op.results:
            if isinstance(r.type, pto.TileType):
                self.valid(r)
        if isinstance(op, pto.StoreOp):
            if op not in b.skipped:
                self.store(op)
        elif isinstance(op, pto.ReduceOp):
            self.reduce(op)
        elif isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
            self.matmul(op)
        elif isinstance(op, pto.AllocOp):
            b.buffers[op.result] = b.alloca(pto.tile(op.result))
        elif isinstance(op, pto.LoadOp) and op.source in self.written:
            self.copy_in(op)
        elif isinstance(op, pto.SetFlagOp | pto.WaitFlagOp | pto.BarrierOp):
            pass  # an AIE core runs its body in program order: nothing to wait for
        elif op.name.startswith("pto."):
            pass  # an element expression: computed where a store or a reduction reads it
        elif isinstance(op, scf.ForOp):
            self.for_(op)
        elif isinstance(op, scf.IfOp):
            self.if_(op)
        elif op.regions or any(
            isinstance(v.type, pto.TileType) for v in (*op.operands, *op.results)
        ):
            raise MappingError(f"{b.where()}: {op.name} does not map to an AIE kernel", op)
        else:
            b.add(op.clone(value_mapper=b.values))

    def valid(self, value: SSAValue) -> tuple[int | SSAValue, ...]:
        """The valid shape of a tile: static extents, and for each ``?`` the runtime size
        that the op making it (or the tile it derives from) was given, mapped into the
        kernel function. Loops over it run to that size; the rest of the tile is padding,
        never read nor stored."""
        t = pto.tile(value)
        if not t.dynamic_valid_count:
            return t.valid_dims
        op = value.owner
        if getattr(op, "valid_sizes", None):
            sizes = iter(self.b.mapped(v) for v in op.valid_sizes)  # type: ignore[union-attr]
            return tuple(next(sizes) if d == DYNAMIC_INDEX else d for d in t.valid_dims)
        if isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
            lhs, rhs = op.operands[-2:] if not isinstance(op, pto.MatmulBiasOp) else op.operands[:2]
            return (self.valid(lhs)[0], self.valid(rhs)[1])
        if isinstance(op, pto.BinaryOp | pto.ExpandBinaryOp | pto.MoveOp | pto.UnaryOp) or (
            isinstance(op, pto.CastOp | pto.ScalarBinaryOp)
        ):
            source = self.valid(op.operands[0])
            return tuple(s if d == DYNAMIC_INDEX else d for s, d in zip(source, t.valid_dims))
        _check_tile(self.b, t, op)  # type: ignore[arg-type]
        return t.valid_dims

    @staticmethod
    def lanes_for(t: pto.TileType, dims: Sequence[int | SSAValue]) -> int:
        """Vector lanes along a static valid row that is a whole number of vectors."""
        lanes = _lanes(t.element_type)
        return lanes if lanes and isinstance(dims[-1], int) and dims[-1] % lanes == 0 else 0

    # --- control flow -----------------------------------------------------------------------


    def for_(self, op: scf.ForOp) -> None:
        """An ``scf.for``; a carried tile is a buffer the loop updates: the initial value is
        written to it before the loop and each yielded value at the end of an iteration."""
        b = self.b
        body = op.body.block
        carried = [k for k, v in enumerate(op.iter_args) if isinstance(v.type, pto.TileType)]
        kept = [k for k in range(len(op.iter_args)) if k not in carried]
        buffers = [b.alloca(pto.tile(op.iter_args[k])) for k in carried]
        self.write_all([op.iter_args[k] for k in carried], buffers)
        for k, buffer in zip(carried, buffers):
            b.buffers[body.args[k + 1]] = b.buffers[op.res[k]] = buffer
        bounds = [b.mapped(v) for v in (op.lb, op.ub, op.step)]
        inits = [b.mapped(op.iter_args[k]) for k in kept]
        block = Block(arg_types=[body.args[0].type, *(body.args[k + 1].type for k in kept)])
        for old, new in zip([body.args[0], *(body.args[k + 1] for k in kept)], block.args):
            b.values[old] = new
        yielded = self.region(body, block, buffers, carried)
        loop = scf.ForOp(*bounds, inits, block)
        block.add_op(scf.YieldOp(*(yielded[k] for k in kept)))
        b.block.add_op(loop)
        for k, new in zip(kept, loop.results):
            b.values[op.res[k]] = new

    def if_(self, op: scf.IfOp) -> None:
        """An ``scf.if``; a tile result is a buffer each branch writes its yielded value to."""
        b = self.b
        carried = [k for k, r in enumerate(op.results) if isinstance(r.type, pto.TileType)]
        kept = [k for k in range(len(op.results)) if k not in carried]
        buffers = [b.alloca(pto.tile(op.results[k])) for k in carried]
        regions = []
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                regions.append(Region())
                continue
            block = Block()
            yielded = self.region(region.block, block, buffers, carried)
            block.add_op(scf.YieldOp(*(yielded[k] for k in kept)))
            regions.append(Region(block))
        new = scf.IfOp(b.mapped(op.cond), [op.results[k].type for k in kept], *regions)
        b.block.add_op(new)
        for k, buffer in zip(carried, buffers):
            b.buffers[op.results[k]] = buffer
        for k, res in zip(kept, new.results):
            b.values[op.results[k]] = res

    def region(
        self, old: Block, new: Block, buffers: Sequence[SSAValue], carried: Sequence[int]
    ) -> list[SSAValue]:
        """Lower ``old`` into ``new``; its yielded tiles (positions ``carried``) written to
        ``buffers``; the yielded values (mapped; tiles as they were)."""
        b = self.b
        outer, b.block = b.block, new
        b.caches.append({})
        end = old.last_op
        self.block(old)
        yielded = list(end.operands) if isinstance(end, scf.YieldOp) else []
        self.write_all([yielded[k] for k in carried], buffers)
        b.caches.pop()
        b.block = outer
        return [v if isinstance(v.type, pto.TileType) else b.mapped(v) for v in yielded]

    def write_all(self, values: Sequence[SSAValue], buffers: Sequence[SSAValue]) -> None:
        """Write each tile of ``values`` to its buffer (of its shape) unless it is there
        already; a tile whose elements read the buffers being written (another one, or its
        own at another index) is copied to scratch first, as all take their new values at
        once."""
        b = self.b
        for k, value in enumerate(values):
            others = [x for j, x in enumerate(buffers) if j != k]
            held = b.buffers.get(value)
            if held is not None:
                clash = held in others
            else:
                clash = any(self.reads(value, o)[0] for o in others)
                clash = clash or self.reads(value, buffers[k])[1]
            if clash:
                scratch = b.alloca(pto.tile(value))
                self.write(value, scratch, ())
                b.buffers[value] = scratch
        for value, buffer in zip(values, buffers):
            if b.buffers.get(value) is not buffer:
                self.write(value, buffer, ())

    def reads(self, value: SSAValue, buffer: SSAValue) -> tuple[bool, bool]:
        """Whether an element of ``value`` reads ``buffer``, and whether at another index
        (a transpose or a broadcast on the way)."""
        todo, seen, found, shifted = [(value, False)], set(), False, False
        while todo:
            v, moved = todo.pop()
            if self.b.buffers.get(v) is buffer:
                found, shifted = True, shifted or moved
                continue
            op = v.owner
            if v in self.b.buffers or not isinstance(op, Operation) or (v, moved) in seen:
                continue
            seen.add((v, moved))
            for k, operand in enumerate(op.operands):
                if isinstance(operand.type, pto.TileType):
                    broadcast = isinstance(op, pto.ExpandBinaryOp) and k == 1
                    again = isinstance(op, pto.TransposeOp | pto.ExpandOp) or broadcast
                    todo.append((operand, moved or again))
        return found, shifted

    # --- tiles ------------------------------------------------------------------------------

    def store(self, op: pto.StoreOp) -> None:
        self.write(op.value, self.b.mapped(op.dest), op.offsets)

    def write(self, tile: SSAValue, dest: SSAValue, offsets: Sequence[SSAValue]) -> None:
        """A loop nest storing the tile's elements to ``dest`` (at ``offsets``); by vectors
        along its rows when they fit AIE's vector width."""
        b = self.b
        t = pto.tile(tile)
        dims = self.valid(tile)
        lanes = self.lanes_for(t, dims) if self.vectorizable(tile) else 0

        def body(idx: Index) -> None:
            b.lanes = lanes
            value = b.element(tile, idx)
            b.lanes = 0
            at = b.at(dest, offsets, idx)
            store = (
                vector.StoreOp(value, dest, at) if lanes else memref.StoreOp.get(value, dest, at)
            )
            b.add(store)

        b.nest(dims, body, step=lanes or 1)

    def vectorizable(self, value: SSAValue) -> bool:
        """Whether the element expression of ``value`` computes a row's lanes at once: loads
        and computed tiles along rows, elementwise ops, casts and broadcasts (compares,
        selects, integer division, transposes and padding stay scalar)."""
        if value in self.b.buffers:
            return True
        op = value.owner
        if isinstance(op, pto.LoadOp | pto.FullOp):
            return True
        if isinstance(op, pto.ExpandOp):
            return op.AXIS == 1 or self.vectorizable(op.input)
        if isinstance(op, pto.ExpandBinaryOp):
            return self.vectorizable(op.input) and (op.AXIS == 1 or self.vectorizable(op.vector))
        if not isinstance(op, Operation):
            return False
        if _op_name(op) in ("div", "divs") and not _is_float(pto.tile(value).element_type):
            return False  # guarded against zero element by element (``int_div``)
        if isinstance(op, pto.MoveOp | pto.UnaryOp | pto.CastOp | pto.ScalarBinaryOp):
            return self.vectorizable(op.operands[0])
        if isinstance(op, pto.BinaryOp):
            return self.vectorizable(op.lhs) and self.vectorizable(op.rhs)
        return False

    def target(self, value: SSAValue) -> SSAValue:
        """Where to materialize ``value``: the output parameter when one store writes it whole
        there (the only store there, in the same block, of a parameter the kernel never
        loads: its other users read it back from there); else a scratch buffer."""
        b, op = self.b, value.owner
        t = pto.tile(value)
        stores, todo = [], [value]
        while todo:
            for use in todo.pop().uses:
                if isinstance(use.operation, pto.MoveOp):
                    todo.append(use.operation.result)
                elif isinstance(use.operation, pto.StoreOp):
                    stores.append(use.operation)
        for store in stores:
            dest = store.dest
            if (
                store.parent_block() is op.parent_block()
                and not store.offsets
                and dest in b.values
                and dest not in self.read
                and self.store_count[dest] == 1
                and isinstance(dest.type, MemRefType)
                and tuple(dest.type.get_shape()) == t.dims
            ):
                b.skipped.add(store)
                return b.mapped(dest)
        return b.alloca(t)

    def copy_in(self, op: pto.LoadOp) -> None:
        """A load of a parameter the kernel also writes, read before the writes."""
        b = self.b
        t = pto.tile(op.result)
        buffer = b.alloca(t)
        src = b.mapped(op.source)

        def body(idx: Index) -> None:
            value = b.add(memref.LoadOp.get(src, b.at(src, op.offsets, idx)))
            b.add(memref.StoreOp.get(value, buffer, idx))

        b.nest(self.valid(op.result), body)
        b.buffers[op.result] = buffer

    def reduce(self, op: pto.ReduceOp) -> None:
        b = self.b
        out = self.target(op.result)
        kind = _REDUCE[_op_name(op).split("_", 1)[1]]
        axis = op.AXIS
        keep = self.valid(op.input)[1 - axis]
        length = self.valid(op.input)[axis]

        def outer(i: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            def at(k: SSAValue) -> Index:
                return (i, k) if axis == 1 else (k, i)

            first = b.element(op.input, at(b.index(0)))

            def step(k: SSAValue, acc: Sequence[SSAValue]) -> Sequence[SSAValue]:
                return [b.binary(kind, acc[0], b.element(op.input, at(k)))]

            (total,) = b.loop(length, step, [first], lower=1)
            b.add(memref.StoreOp.get(total, out, at(b.index(0))))
            return ()

        b.loop(keep, outer)
        b.buffers[op.result] = out

    def matmul(self, op: Operation) -> None:
        b = self.b
        c = pto.tile(op.results[0])
        lhs, rhs = op.operands[-2:] if not isinstance(op, pto.MatmulBiasOp) else op.operands[:2]
        k_len = self.valid(lhs)[1]
        rows, cols = self.valid(op.results[0])
        out = self.target(op.results[0])
        acc_type = c.element_type

        def row(i: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            def col(j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                if isinstance(op, pto.MatmulAccOp):
                    init = b.element(op.acc, (i, j))
                elif isinstance(op, pto.MatmulBiasOp):
                    init = b.element(op.bias, (b.index(0), j))
                else:
                    init = b.const(0, acc_type)

                def step(k: SSAValue, acc: Sequence[SSAValue]) -> Sequence[SSAValue]:
                    x = b.cast(b.element(lhs, (i, k)), acc_type)
                    y = b.cast(b.element(rhs, (k, j)), acc_type)
                    return [b.binary("add", acc[0], b.binary("mul", x, y))]

                (total,) = b.loop(k_len, step, [init])
                b.add(memref.StoreOp.get(total, out, (i, j)))
                return ()

            b.loop(cols, col)
            return ()

        b.loop(rows, row)
        b.buffers[op.results[0]] = out


#: AIE-ML's vector registers are 512 bits: lanes per element type (others stay scalar).
_VECTOR_BITS = 512
_VECTOR_ELEMENTS = ("f32", "i32", "bf16", "i16", "i8")


def _lanes(element: Attribute) -> int:
    if pto.type_name(element) not in _VECTOR_ELEMENTS:
        return 0
    return _VECTOR_BITS // element.bitwidth  # type: ignore[attr-defined]


def _check_tile(b: Body, t: pto.TileType, op: Operation) -> None:
    raise MappingError(
        f"{b.where()}: {op.name} makes a tile with a dynamic valid shape "
        f"({pto.TileType._dims_text(t.valid_dims)}) whose sizes the AIE kernel cannot trace "
        "to the load or matmul that gives them",
        op,
    )

