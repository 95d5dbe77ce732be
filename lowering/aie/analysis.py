"""Static facts the AIE mapping needs from a ``tg.program``: values, loops and regions.

An AIE design is static: cores run fixed loop counts and the shim DMAs walk fixed access
patterns. This module evaluates the index arithmetic of a task-generation program with the
program's scalar arguments bound (``bind="n=4"``), enumerates loop iterations, and computes
the region of the root tensor each task resource addresses (the ``memref.subview`` chains
``wsp-to-tg`` emits). Whatever is not static is a ``MappingError`` naming the op.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from pto_wsp.dialects import tg
from pto_wsp.passes.globals import constant_array


class MappingError(Exception):
    """A program the AIE target cannot map; ``op`` is the construct to blame (if any)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


#: Values known at compile time: SSA value -> int.
Env = Mapping[SSAValue, int]


def _floordiv(a: int, b: int) -> int:
    return a // b


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _truncrem(a: int, b: int) -> int:
    return a - b * _truncdiv(a, b)


_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: _floordiv,
    arith.DivSIOp: _truncdiv,
    arith.FloorDivSIOp: _floordiv,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.CeilDivUIOp: lambda a, b: -((-a) // b),
    arith.RemUIOp: lambda a, b: a % b,
    arith.RemSIOp: _truncrem,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
}

_DIVISIONS = (
    arith.DivUIOp,
    arith.DivSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.RemUIOp,
    arith.RemSIOp,
)

_COMPARE = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: a < b,
    3: lambda a, b: a <= b,
    4: lambda a, b: a > b,
    5: lambda a, b: a >= b,
    6: lambda a, b: a < b,
    7: lambda a, b: a <= b,
    8: lambda a, b: a > b,
    9: lambda a, b: a >= b,
}


def evaluate(value: SSAValue, env: Env) -> int:
    """The integer ``value`` has, given ``env`` (bound arguments, loop indices, coordinates).

    Raises MappingError naming the op when it is not a compile-time function of ``env``:
    a load from memory (data-dependent), ``tg.seq``, or an op this evaluator does not know.
    """
    if value in env:
        return env[value]
    owner = value.owner
    if isinstance(owner, Block):
        raise MappingError(_unbound(value), _block_owner(value))
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
        raise MappingError(f"constant {attr} is not an integer", owner)
    kind = type(owner)
    if kind in _BINARY:
        a, b = (evaluate(v, env) for v in owner.operands)
        if b == 0 and kind in _DIVISIONS:
            raise MappingError("division by zero in index arithmetic", owner)
        return _BINARY[kind](a, b)
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        return evaluate(owner.operands[0], env)
    if isinstance(owner, arith.CmpiOp):
        a, b = (evaluate(v, env) for v in owner.operands)
        return int(_COMPARE[owner.predicate.value.data](a, b))
    if isinstance(owner, arith.SelectOp):
        cond = evaluate(owner.operands[0], env)
        return evaluate(owner.operands[1] if cond else owner.operands[2], env)
    if isinstance(owner, memref.LoadOp) and isinstance(owner.memref.owner, memref.GetGlobalOp):
        return _constant_element(owner, owner.memref.owner, env)
    if isinstance(owner, memref.LoadOp):
        raise MappingError(
            "a value loaded from memory (data-dependent: sparse or ragged routing, runtime "
            "lengths) cannot steer an AIE design, whose loops and transfers are static",
            owner,
        )
    if isinstance(owner, tg.SeqOp):
        raise MappingError(
            "tg.seq (the number of tasks created so far) has no static value on AIE", owner
        )
    raise MappingError(
        f"{owner.name} is not static index arithmetic the AIE target can evaluate", owner
    )


def _constant_element(load: memref.LoadOp, source: memref.GetGlobalOp, env: Env) -> int:
    """An element of an array bound when the IR was built (a constant ``memref.global``):
    a compile-time value, so data-dependent routing over it is static."""
    data = constant_array(source)
    if data is None:
        raise MappingError(
            f"memref.get_global @{source.name_.root_reference.data} is not a constant integer "
            "array, so what is loaded from it is not static",
            load,
        )
    index = tuple(evaluate(i, env) for i in load.indices)
    if any(not 0 <= i < n for i, n in zip(index, data.shape)):
        raise MappingError(f"memref.load at {list(index)} is outside {source.memref.type}", load)
    return int(data[index])


def _block_owner(value: BlockArgument) -> Operation | None:
    block = value.block
    return block.parent_op() if block is not None else None


def _unbound(value: BlockArgument) -> str:
    parent = _block_owner(value)
    if isinstance(parent, tg.ProgramOp):
        name = parent.arg_names.data[value.index].data
        return (
            f"program argument {name} is a runtime value; an AIE design is static: "
            f'bind it (bind="{name}=...")'
        )
    if isinstance(parent, scf.ForOp):
        return "a loop index is used where a compile-time value is needed"
    return f"a block argument of {parent.name if parent else 'a block'} has no static value"


def _blame(error: MappingError, op: Operation) -> Operation:
    """The op an error points at: the one that failed, unless that is the whole program."""
    if error.op is None or isinstance(error.op, tg.ProgramOp):
        return op
    return error.op


@dataclass(frozen=True)
class Loop:
    """A static ``scf.for``: its index values are ``lower + step * k`` for k < ``trips``."""

    op: scf.ForOp
    lower: int
    step: int
    trips: int

    def values(self) -> range:
        return range(self.lower, self.lower + self.step * self.trips, self.step)


def static_loop(op: scf.ForOp, env: Env) -> Loop:
    """The bounds of ``op``, which must not depend on enclosing loops or on memory."""
    try:
        lower, upper, step = (evaluate(v, env) for v in (op.lb, op.ub, op.step))
    except MappingError as error:
        raise MappingError(f"loop bound: {error}", _blame(error, op)) from None
    if step <= 0:
        raise MappingError(f"loop step must be positive, got {step}", op)
    return Loop(op, lower, step, max(0, -((lower - upper) // step)))


@dataclass(frozen=True)
class Region:
    """A box of a program tensor: per root dimension offset and size (unit strides)."""

    tensor: str
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]

    @property
    def elements(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n


def root_tensor(value: SSAValue) -> tuple[tg.ProgramOp, int] | None:
    """The program argument a view chain starts from (program, argument index)."""
    while isinstance(value.owner, memref.SubviewOp):
        value = value.owner.source
    if isinstance(value, BlockArgument):
        parent = _block_owner(value)
        if isinstance(parent, tg.ProgramOp):
            return parent, value.index
    return None


def tensor_name(value: SSAValue) -> str | None:
    """The name of the program tensor ``value`` views, if it is one."""
    root = root_tensor(value)
    if root is None:
        return None
    program, index = root
    return program.arg_names.data[index].data


def region_of(value: SSAValue, env: Env, use: Operation) -> Region:
    """The region of a program tensor ``value`` addresses (a view chain of subviews)."""
    if isinstance(value, BlockArgument):
        name = tensor_name(value)
        if name is None:
            raise MappingError("a task resource must be a program tensor or a view of one", use)
        assert isinstance(value.type, MemRefType)
        shape = tuple(value.type.get_shape())
        if any(d < 0 for d in shape):
            raise MappingError(
                f"task resource {name} is a whole tensor of dynamic shape {value.type}", use
            )
        return Region(name, (0,) * len(shape), shape)
    view = value.owner
    if not isinstance(view, memref.SubviewOp):
        raise MappingError(
            f"a task resource must be a view (memref.subview) of a program tensor, got {view.name}",
            use,
        )
    # The chain from the root, outermost view first.
    chain: list[memref.SubviewOp] = []
    current: SSAValue = value
    while isinstance(current.owner, memref.SubviewOp):
        chain.append(current.owner)
        current = current.owner.source
    name = tensor_name(value)
    if name is None:
        raise MappingError("a task resource must be a view of a program tensor", use)
    root_type = current.type
    assert isinstance(root_type, MemRefType)
    rank = len(root_type.get_shape())
    offsets, sizes, kept = [0] * rank, list(root_type.get_shape()), list(range(rank))
    for sub in reversed(chain):
        offs = _mixed(sub.static_offsets.get_values(), sub.offsets, env, sub)
        szs = _mixed(sub.static_sizes.get_values(), sub.sizes, env, sub)
        strides = _mixed(sub.static_strides.get_values(), sub.strides, env, sub)
        if any(s != 1 for s in strides):
            raise MappingError(
                f"view of {name} with strides {strides}: the AIE target maps unit-stride views",
                sub,
            )
        result = sub.result.type
        assert isinstance(result, MemRefType)
        keep = _keep_mask(szs, list(result.get_shape()))
        new_kept = []
        for i, dim in enumerate(kept):
            offsets[dim] += offs[i]
            sizes[dim] = szs[i]
            if keep[i]:
                new_kept.append(dim)
        kept = new_kept
    return Region(name, tuple(offsets), tuple(sizes))


def _mixed(static, dynamic, env: Env, op: Operation) -> list[int]:
    values, dyn = [], iter(dynamic)
    for s in static:
        if s == DYNAMIC_INDEX:
            try:
                values.append(evaluate(next(dyn), env))
            except MappingError as error:
                raise MappingError(f"view offset: {error}", _blame(error, op)) from None
        else:
            values.append(s)
    return values


def _keep_mask(sizes: list[int], result_shape: list[int]) -> list[bool]:
    """Which subview dimensions the (rank-reducing) result keeps: leading unit dims drop."""
    keep, j, n, r = [], 0, len(sizes), len(result_shape)
    for i, size in enumerate(sizes):
        droppable = size == 1 and (n - i - 1) >= (r - j)
        if j < r and not droppable:
            keep.append(True)
            j += 1
        else:
            keep.append(False)
    return keep
