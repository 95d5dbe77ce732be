"""``pto-plan-memory``: every tile placed at a byte offset of its memory space, buffers reused.

Each op making a tile gets ``pto.addr`` (its byte offset in the tile's space). A tile's
buffer is free after its last use (a use inside a loop, of a tile made before it, lasts to
the loop's end); a later tile may take it. A loop's initial value, its iteration argument,
the value it yields and its result are one buffer (the loop updates the tile in place), as
are an ``scf.if``'s yielded values and result, and a ``pto.matmul_acc``'s result and the
accumulator it reads when nothing else reads it; an op that cannot compute in place on such a
shared buffer (a transpose of a loop's tile), or a loop's next ``vec`` tile while the
current one is still read, writes a buffer of its own, copied into the shared one by an
inserted ``pto.move``. Offsets are aligned per space and the peak
per space is checked against the SoC's capacity (``SOCS``, sources in docs/kernels.md);
each function gets ``pto.memory``, its peak bytes per space.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import pto

from .diagnostics import fail
from .pto_cost import tile_bytes

ADDR_ATTR = "pto.addr"
MEMORY_ATTR = "pto.memory"

_KB = 1024
#: Bytes per memory space and SoC (docs/kernels.md "Memory planning" names the sources).
_910B = {
    "vec": 192 * _KB,
    "mat": 512 * _KB,
    "left": 64 * _KB,
    "right": 64 * _KB,
    "acc": 128 * _KB,
    "bias": 1 * _KB,
}
SOCS = {
    "910B": _910B,
    "910C": _910B,  # (no separate figures published: pto-isa's A2/A3 are one target)
    "950": {
        "vec": 248 * _KB,
        "mat": 512 * _KB,
        "left": 64 * _KB,
        "right": 64 * _KB,
        "acc": 256 * _KB,
        "bias": 4 * _KB,
    },
}
#: The Ascend names of the spaces, for messages.
BUFFER_NAMES = {
    "vec": "UB",
    "mat": "L1",
    "left": "L0A",
    "right": "L0B",
    "acc": "L0C",
    "bias": "bias table",
}
#: Byte alignment of a tile's offset: 32-byte blocks, 512-byte fractals in L0A/L0B/L0C.
ALIGNMENT = {"vec": 32, "mat": 32, "bias": 32, "left": 512, "right": 512, "acc": 512}


class _Numbering:
    """Program order: each op a position; a region op spans its ops' positions."""

    def __init__(self, block: Block):
        self.pos: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self._number(block)

    def _number(self, block: Block) -> None:
        for op in block.ops:
            self.pos[op] = len(self.pos)
            for region in op.regions:
                for inner in region.blocks:
                    self._number(inner)
            self.end[op] = len(self.pos) - 1

    def use_end(self, value: SSAValue, user: Operation) -> int:
        """Where ``value`` must still be alive for ``user``: at the user, or at the end of
        the outermost loop around the user that does not hold the value's definition."""
        where = self.pos[user]
        home = _defining_op(value)
        op = user.parent_op()
        while op is not None and op is not home and not (home and op.is_ancestor(home)):
            if isinstance(op, scf.ForOp | scf.WhileOp):
                where = max(where, self.end[op])
            op = op.parent_op()
        return where


def _is_tile_op(value: SSAValue) -> bool:
    """Made by a tile op (not by a loop, a branch, a call or an InCore scope)."""
    return isinstance(value, OpResult) and value.op.name.startswith("pto.") and not value.op.regions


def _defining_op(value: SSAValue) -> Operation | None:
    if isinstance(value, OpResult):
        return value.op
    assert isinstance(value, BlockArgument)
    return value.block.parent_op()


@dataclass
class _Buffer:
    """Tile values sharing one buffer: their live range and the op that names it."""

    values: list[SSAValue]
    start: int
    end: int
    owner: Operation | None = None
    addr: int = 0

    @property
    def type(self) -> pto.TileType:
        return pto.tile(self.values[0])


@dataclass
class _Groups:
    """Union-find of tile values that must share a buffer."""

    parent: dict[SSAValue, SSAValue] = field(default_factory=dict)

    def find(self, v: SSAValue) -> SSAValue:
        while self.parent.setdefault(v, v) is not v:
            v = self.parent[v]
        return v

    def union(self, a: SSAValue, b: SSAValue) -> None:
        self.parent[self.find(a)] = self.find(b)


def _tiles(values) -> list[SSAValue]:
    return [v for v in values if isinstance(v.type, pto.TileType)]


def _join_regions(func: FuncOp, groups: _Groups) -> None:
    """Loop-carried and branch-merged tiles share one buffer, and so does a matmul_acc's
    result with the accumulator it reads last (the cube accumulates in place)."""
    for op in func.walk():
        if isinstance(op, pto.MatmulAccOp) and op.acc.has_one_use():
            groups.union(op.acc, op.result)
        elif isinstance(op, scf.ForOp):
            args = op.body.block.args[1:]
            yielded = op.body.block.last_op.operands
            for init, arg, out, res in zip(op.iter_args, args, yielded, op.results):
                if isinstance(res.type, pto.TileType):
                    for v in (init, arg, out):
                        groups.union(v, res)
        elif isinstance(op, scf.IfOp):
            for region in op.regions:
                if region.blocks:
                    for out, res in zip(region.block.last_op.operands, op.results):
                        if isinstance(res.type, pto.TileType):
                            groups.union(out, res)


def _buffers(func: FuncOp) -> list[_Buffer]:
    groups = _Groups()
    _join_regions(func, groups)
    order = _Numbering(func.body.block)
    members: dict[SSAValue, list[SSAValue]] = {}
    for op in func.walk():
        for block in (b for r in op.regions for b in r.blocks):
            for arg in _tiles(block.args):
                members.setdefault(groups.find(arg), []).append(arg)
        if op is not func:
            for v in _tiles(op.results):
                members.setdefault(groups.find(v), []).append(v)
    buffers = []
    for values in members.values():
        starts, ends = [], []
        for v in values:
            home = _defining_op(v)
            starts.append(order.pos[home] if home in order.pos else 0)
            ends += [order.use_end(v, use.operation) for use in v.uses]
        makers = [v.op for v in values if _is_tile_op(v)]
        owner = min(makers, key=lambda o: order.pos[o]) if makers else None
        buffers.append(_Buffer(values, min(starts), max(ends + starts), owner))
    return sorted(buffers, key=lambda b: (b.start, order.pos.get(b.owner, 0)))


def _check_in_place(func: FuncOp) -> None:
    """A loop's tile is updated in place: its initial value is dead once the loop starts, its
    iteration argument once the value yielded for the next iteration is made. A ``vec`` tile
    read past that point is copied (a ``pto.move`` into the shared buffer: before the loop,
    or at the end of the body); any other is an error."""
    for loop in [op for op in func.walk() if isinstance(op, scf.ForOp)]:
        block = loop.body.block
        for k, (init, arg) in enumerate(zip(loop.iter_args, block.args[1:])):
            later = [
                u.operation
                for u in init.uses
                if u.operation is not loop and not _before(u.operation, loop)
            ]
            if not isinstance(arg.type, pto.TileType) or not later:
                continue
            if arg.type.space_name == "vec":
                move = pto.MoveOp(init, "vec")
                Rewriter.insert_op(move, InsertPoint.before(loop))
                loop.operands[3 + k] = move.result
                continue
            fail(
                later[0],
                f"pto-plan-memory: a loop updates {_name(init)} in place (its initial value), "
                f"but {_name(init)} is read after the loop starts, and a tile in "
                f"{arg.type.space_name} has no copy within its space",
            )
        end = block.last_op
        assert end is not None
        for k, (arg, out) in enumerate(zip(block.args[1:], end.operands)):
            if not isinstance(arg.type, pto.TileType) or out is arg:
                continue
            maker = out.owner if isinstance(out, OpResult) else None
            if maker is None or maker.parent_block() is not block:
                continue
            later = [u.operation for u in arg.uses if _after(u.operation, maker, block)]
            if not later:
                continue
            if arg.type.space_name == "vec":
                move = pto.MoveOp(out, "vec")
                Rewriter.insert_op(move, InsertPoint.before(end))
                end.operands[k] = move.result
                continue
            fail(
                later[0],
                f"pto-plan-memory: the loop updates its carried tile {_name(arg)} in place, but "
                f"{_name(arg)} is read after {_name(out)} replaces it, and a tile in "
                f"{arg.type.space_name} has no copy within its space",
            )


def _before(user: Operation, loop: Operation) -> bool:
    """``user`` runs before ``loop`` starts."""
    top = loop.parent_block().find_ancestor_op_in_block(user)
    return top is not None and top is not loop and top.is_before_in_block(loop)


def _after(user: Operation, maker: Operation, block: Block) -> bool:
    top = block.find_ancestor_op_in_block(user)
    return top is not None and top is not maker and maker.is_before_in_block(top)


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a tile"


def _copy_out_of_place(func: FuncOp) -> None:
    """An op whose result would share the buffer of a tile it reads, and cannot compute in
    place (a transpose of a loop's carried tile, say), gets a buffer of its own and a
    ``pto.move`` into the shared one."""
    groups = _Groups()
    _join_regions(func, groups)
    for op in list(func.walk()):
        if not op.name.startswith("pto.") or not _tiles(op.results):
            continue  # (loops and branches carry their buffer: they compute nothing)
        result = op.results[0]
        shared = [
            v
            for v in _tiles(op.operands)
            if groups.find(v) == groups.find(result) and not pto.computes_in_place(op, v)
        ]
        if shared and result.type.space_name == "vec":
            move = pto.MoveOp(result, "vec")
            Rewriter.insert_op(move, InsertPoint.after(op))
            result.replace_uses_with_if(move.result, lambda use, m=move: use.operation is not m)


def plan(func: FuncOp, capacity: dict[str, int], soc: str) -> dict[str, int]:
    """Place ``func``'s tiles; the peak bytes per space."""
    _check_in_place(func)
    _copy_out_of_place(func)
    live: dict[str, list[_Buffer]] = {}
    peak: dict[str, int] = {}
    for buf in _buffers(func):
        space = buf.type.space_name
        taken = [b for b in live.get(space, []) if b.end >= buf.start]
        live[space] = taken
        size = tile_bytes(buf.type)
        buf.addr = _first_fit(taken, size, ALIGNMENT[space])
        top = buf.addr + size
        if top > capacity[space]:
            where = buf.owner or _defining_op(buf.values[0]) or func
            held = sum(tile_bytes(b.type) for b in taken)
            value = buf.values[0]
            # A traced tile has no name: say which op makes it.
            what = _name(value) if value.name_hint else f"made by {where.name}"
            fail(
                where,
                f"pto-plan-memory: tile {what} ({buf.type}, {size} B) does "
                f"not fit in {space}: {held} B live + {size} B need {top} B at this point, the "
                f"{soc}'s {BUFFER_NAMES[space]} holds {capacity[space]} B",
            )
        taken.append(buf)
        peak[space] = max(peak.get(space, 0), top)
        for v in buf.values:
            if _is_tile_op(v):
                v.op.attributes[ADDR_ATTR] = IntegerAttr(buf.addr, i64)
    return peak


def _first_fit(taken: list[_Buffer], size: int, align: int) -> int:
    """The lowest aligned offset where ``size`` bytes overlap none of ``taken``."""
    offset = 0
    for b in sorted(taken, key=lambda b: b.addr):
        if offset + size <= b.addr:
            break
        offset = max(offset, -(-(b.addr + tile_bytes(b.type)) // align) * align)
    return offset


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Place every tile of every function in its space, reusing dead tiles' buffers."""

    name = "pto-plan-memory"

    soc: str | int = "910B"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        soc = str(self.soc)
        if soc not in SOCS:
            raise PassFailedException(
                f"pto-plan-memory: soc must be one of {', '.join(SOCS)}, got '{soc}'"
            )
        for func in op.walk():
            if isinstance(func, FuncOp) and func.body.blocks:
                plan_function(func, soc)


def plan_function(func: FuncOp, soc: str) -> None:
    """Plan ``func`` for ``soc`` (a key of SOCS) and write its peak bytes as ``pto.memory``."""
    peak = plan(func, SOCS[soc], soc)
    if peak:
        func.attributes[MEMORY_ATTR] = DictionaryAttr(
            {s: IntegerAttr(b, i64) for s, b in sorted(peak.items())}
        )
