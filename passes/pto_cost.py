"""The cycle cost of tile code, and ``pto-cost``, which writes it on each op and function.

The model has pto-isa's shape (its A2/A3 formula cost model): a vector op costs a slope per
element plus a constant per op and element type, a matmul a few cycles per 16 x 16 x K0
fractal, a transfer its bytes over the bandwidth of the pipe it uses. The numbers and their
sources are the table in docs/kernels.md ("Cost model"). Pipes are summed, not overlapped:
see ``function_cycles``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from pto_wsp.dialects import pto

#: The attribute ``pto-cost`` writes: cycles of one execution of an op, or of a function.
CYCLES_ATTR = "pto.cycles"
#: The function attribute ``pto-cost`` writes: cycles per pipe.
PIPE_CYCLES_ATTR = "pto.pipe_cycles"

#: Bytes per element; an i1 mask takes a byte.
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}

#: Vector ops: (slope in cycles per element, constant in cycles), for 4-byte and 2-byte (or
#: 1-byte) elements. Sources: docs/kernels.md "Cost model".
VECTOR = {
    "binary": ((0.0313, 26), (0.0156, 26)),
    "scalar": ((0.0156, 25), (0.0078, 25)),
    "div": ((0.0781, 45), (0.0703, 45)),
    "math": ((0.0314, 31), (0.0314, 31)),
    "row_sum": ((0.1094, 44), (0.1094, 57)),
    "row_max": ((0.1094, 32), (0.1094, 43)),
    "col_sum": ((0.3047, 15), (0.3008, 15)),
    "col_max": ((0.2734, 17), (0.2695, 16)),
    "expand": ((0.2187, 37), (0.2187, 37)),
}
_KIND = {
    **{n: "binary" for n in ("add", "sub", "mul", "max", "min", "cmp", "sel", "transpose")},
    **{n: "scalar" for n in ("adds", "subs", "muls", "maxs", "mins", "cmps", "abs", "neg")},
    **{n: "scalar" for n in ("relu", "cast", "full", "fillpad")},
    **{n: "div" for n in ("div", "divs")},
    **{n: "math" for n in ("exp", "log", "sqrt", "rsqrt", "recip")},
    **{
        f"{a}_{r}": f"{a}_{'sum' if r == 'sum' else 'max'}"
        for a in ("row", "col")
        for r in ("sum", "max", "min")
    },
    "row_expand": "expand",
    "col_expand": "expand",
}

#: Bytes per cycle of each transfer path: pto-isa's A2/A3 bandwidths (GB/s) at 1.85 GHz.
FREQUENCY_GHZ = 1.85
BANDWIDTH_GBPS = {
    ("gm", "vec"): 100.9,
    ("gm", "mat"): 135.0,
    ("vec", "gm"): 188.46,
    ("mat", "gm"): 32.0,
    ("acc", "gm"): 70.0,
    ("vec", "vec"): 1024.0,
    ("acc", "mat"): 128.0,
    ("acc", "vec"): 128.0,
    ("mat", "left"): 441.0,
    ("mat", "right"): 220.5,
    ("mat", "bias"): 32.0,
}
#: Matmul: fixed cycles per op, fractal sides M0 = N0 = 16, K0 = 32 bytes of the left type,
#: cycles per fractal (2 for f32, 1 otherwise).
MATMUL_HEAD, FRACTAL, K_FRACTAL_BYTES = 6, 16, 32


#: What an ``*_expand_<f>`` op does after its broadcast, by the end of its name.
_EXPAND_TAIL = {"exp_sub": ("binary", "math"), "_div": ("div",)}


def pipe_of(op: Operation) -> str | None:
    """The pipe an op runs on (None for ops that run on none: sync ops, ``pto.alloc``, and
    ops outside the dialect, which run on the scalar unit)."""
    if isinstance(op, pto.LoadOp):
        return "MTE2"
    if isinstance(op, pto.StoreOp):
        return "FIX" if pto.tile(op.value).space_name == "acc" else "MTE3"
    if isinstance(op, pto.MoveOp):
        return {"mat": "MTE1", "acc": "FIX"}.get(pto.tile(op.input).space_name, "V")
    if isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
        return "M"
    if isinstance(op, pto.AllocOp | pto.SetFlagOp | pto.WaitFlagOp | pto.BarrierOp):
        return None
    if op.name.startswith("pto.") and any(isinstance(r.type, pto.TileType) for r in op.results):
        return "V"
    return None


def tile_bytes(t: pto.TileType) -> int:
    """The bytes of a whole tile of type ``t``."""
    return math.prod(t.dims) * ELEMENT_BYTES[pto.type_name(t.element_type)]


def _transfer(src: str, dst: str, t: pto.TileType) -> int:
    per_cycle = BANDWIDTH_GBPS[(src, dst)] / FREQUENCY_GHZ
    return math.ceil(tile_bytes(t) / per_cycle)


def _vector(kind: str, t: pto.TileType) -> int:
    wide = ELEMENT_BYTES[pto.type_name(t.element_type)] >= 4
    slope, constant = VECTOR[kind][0 if wide else 1]
    return round(slope * math.prod(t.dims) + constant)


def matmul_cycles(lhs: pto.TileType, rhs: pto.TileType) -> int:
    """``6 + c * ceil(M/16) * ceil(K/K0) * ceil(N/16)``, K0 = 32 bytes of the left type."""
    (m, k), n = lhs.dims, rhs.dims[1]
    size = ELEMENT_BYTES[pto.type_name(lhs.element_type)]
    per_fractal = 2 if size == 4 else 1
    fractals = (
        math.ceil(m / FRACTAL) * math.ceil(k / (K_FRACTAL_BYTES // size)) * math.ceil(n / FRACTAL)
    )
    return MATMUL_HEAD + per_fractal * fractals


def op_cycles(op: Operation) -> int:
    """Cycles of one execution of a tile op (0 for ops the model does not charge)."""
    if isinstance(op, pto.LoadOp):
        t = pto.tile(op.result)
        return _transfer("gm", t.space_name, t)
    if isinstance(op, pto.StoreOp):
        t = pto.tile(op.value)
        return _transfer(t.space_name, "gm", t)
    if isinstance(op, pto.MoveOp):
        t = pto.tile(op.result)
        return _transfer(pto.tile(op.input).space_name, t.space_name, t)
    if isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
        return matmul_cycles(pto.tile(op.lhs), pto.tile(op.rhs))
    short = op.name.removeprefix("pto.")
    if isinstance(op, pto.ExpandBinaryOp):
        # tile op broadcast(vector): the broadcast, then the binary op (exp_sub: also exp).
        t = pto.tile(op.result)
        tail = next((v for k, v in _EXPAND_TAIL.items() if short.endswith(k)), ("binary",))
        return _vector("expand", t) + sum(_vector(k, t) for k in tail)
    if short in _KIND:
        # The tile the op reads sets the work (a reduction's input, a compare's operands).
        tiles = [v for v in op.operands if isinstance(v.type, pto.TileType)] or op.results
        return _vector(_KIND[short], pto.tile(tiles[0]))
    return 0


def trip_count(loop: scf.ForOp) -> int | None:
    """The static trip count of an ``scf.for``, None when a bound or the step is dynamic."""
    values = []
    for v in (loop.lb, loop.ub, loop.step):
        if not isinstance(v.owner, ConstantOp):
            return None
        values.append(v.owner.value.value.data)
    lb, ub, step = values
    return max(0, -(-(ub - lb) // step)) if step > 0 else None


@dataclass
class Cost:
    """Cycles per pipe of a piece of code."""

    pipes: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.pipes.values())

    def add(self, other: Cost, times: int = 1) -> None:
        for pipe, cycles in other.pipes.items():
            self.pipes[pipe] = self.pipes.get(pipe, 0) + times * cycles


def block_cost(block: Block, each: dict[Operation, int] | None = None) -> Cost:
    """The cycles of running ``block`` once: its ops' cycles, loops times their static trip
    count (a dynamic one counts once), the costlier branch of an ``scf.if``, a called
    function's cycles. ``each`` receives every tile op's own cycles."""
    cost = Cost({})
    for op in block.ops:
        if isinstance(op, scf.ForOp):
            trips = trip_count(op)
            cost.add(block_cost(op.body.block, each), 1 if trips is None else trips)
        elif isinstance(op, scf.IfOp):
            branches = [block_cost(r.block, each) for r in op.regions if r.blocks]
            cost.add(max(branches, key=lambda c: c.total))
        elif isinstance(op, CallOp):
            callee = _callee(op)
            if callee is not None:
                cost.add(function_cost(callee))
        elif op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    cost.add(block_cost(inner, each))
        elif (pipe := pipe_of(op)) is not None:
            cycles = op_cycles(op)
            if each is not None:
                each[op] = cycles
            cost.add(Cost({pipe: cycles}))
    return cost


def _callee(call: CallOp) -> FuncOp | None:
    module = call.get_toplevel_object()
    if not isinstance(module, ModuleOp):
        return None
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == call.callee.string_value():
            return op if op.body.blocks else None
    return None


def function_cost(func: FuncOp, each: dict[Operation, int] | None = None) -> Cost:
    """Cycles per pipe of one call of ``func``.

    Pipes are summed (``Cost.total``): a tile kernel is mostly one chain of ops, each using
    its predecessor's tile, and overlap across loop iterations needs double buffering that
    memory planning does not do; the sum is exact for a chain and an upper bound otherwise.
    """
    return block_cost(func.body.block, each)


def function_cycles(func: FuncOp) -> int:
    """The cycles one call of ``func`` takes (the simulator's cost of a tile kernel's task)."""
    return function_cost(func).total


def uses_tiles(func: FuncOp) -> bool:
    return any(pipe_of(op) is not None for op in func.walk())


@dataclass(frozen=True)
class PtoCostPass(ModulePass):
    """Write each tile op's cycles and each tile function's total and per-pipe cycles."""

    name = "pto-cost"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if not isinstance(func, FuncOp) or not func.body.blocks or not uses_tiles(func):
                continue
            each: dict[Operation, int] = {}
            cost = function_cost(func, each)
            for tile_op, cycles in each.items():
                tile_op.attributes[CYCLES_ATTR] = IntegerAttr(cycles, i64)
            func.attributes[CYCLES_ATTR] = IntegerAttr(cost.total, i64)
            func.attributes[PIPE_CYCLES_ATTR] = DictionaryAttr(
                {p: IntegerAttr(c, i64) for p, c in sorted(cost.pipes.items())}
            )


__all__ = [
    "Cost",
    "PtoCostPass",
    "function_cost",
    "function_cycles",
    "matmul_cycles",
    "op_cycles",
    "pipe_of",
    "trip_count",
]
