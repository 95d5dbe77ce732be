"""``pto-insert-sync``: set/wait flags wherever a tile crosses from one pipe of a core to another.

The pipes of an AICore run their instruction streams independently; an op that reads a tile
another pipe makes must wait for it (read after write), and an op that overwrites a buffer
another pipe reads must wait for that read (write after read: the same tile made again in the
next iteration of a loop, or, after ``pto-plan-memory``, another tile placed in an
overlapping buffer). Each such pair gets ``pto.set_flag P -> Q, e`` after the producer and
``pto.wait_flag P -> Q, e`` before the consumer (hoisted out of loops the producer is not
in). A hazard from one iteration of a loop to the next is the ping-pong pattern: a set
before the loop, a wait and a set in the body, a wait after the loop, so each iteration
waits once and signals once. Event ids (0..7) are given per pipe pair, reused once waited.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pto_wsp.dialects import pto

from .diagnostics import fail
from .pto_cost import pipe_of
from .pto_plan_memory import ADDR_ATTR, tile_bytes


@dataclass(frozen=True)
class _Flag:
    """``src`` signals after ``set_after``, ``dst`` waits before ``wait_before``; with
    ``loop``, across iterations of that loop (set before it, waited after it too)."""

    src: str
    dst: str
    set_after: Operation
    wait_before: Operation
    loop: scf.ForOp | None = None


def _sources(value: SSAValue) -> list[tuple[str, Operation, scf.ForOp | None]]:
    """(pipe, op after which the value is ready, loop it crosses an iteration of)."""
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, scf.ForOp | scf.IfOp):
            found = []
            for region in op.regions:
                if region.blocks:
                    yielded = region.block.last_op.operands[value.index]
                    found += [(p, op, None) for p, _, _ in _sources(yielded)]
            return found
        pipe = pipe_of(op)
        return [(pipe, op, None)] if pipe else []
    assert isinstance(value, BlockArgument)
    loop = value.block.parent_op()
    if not isinstance(loop, scf.ForOp) or value.index == 0:
        return []
    body = loop.body.block
    yielded = body.last_op.operands[value.index - 1]
    carried = [] if yielded is value else _sources(yielded)
    found = _sources(loop.iter_args[value.index - 1])
    for pipe, ready, _ in carried:
        inside = body.find_ancestor_op_in_block(ready)
        # A value yielded from outside the loop is ready before it, as the initial value is.
        found.append((pipe, inside, loop) if inside is not None else (pipe, ready, None))
    return found


def _read_after_write(func: FuncOp) -> list[_Flag]:
    flags = []
    for op in func.walk():
        dst = pipe_of(op)
        if dst is None:
            continue
        for value in op.operands:
            if not isinstance(value.type, pto.TileType):
                continue
            for src, ready, loop in _sources(value):
                if src == dst:
                    continue
                if loop is not None:
                    wait = loop.body.block.find_ancestor_op_in_block(op)
                    if wait is not ready and ready.is_before_in_block(wait):
                        loop = None  # read later in the same iteration: an ordinary pair
                if loop is not None:
                    flags.append(_Flag(src, dst, ready, wait, loop))
                else:
                    wait = ready.parent_block().find_ancestor_op_in_block(op)
                    flags.append(_Flag(src, dst, ready, wait))
    return flags


def _buffer(value: SSAValue) -> tuple[str, int, int] | None:
    """(space, first byte, end byte) of a planned tile's buffer, None when not planned."""
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        if isinstance(loop, scf.ForOp) and value.index > 0:
            return _buffer(loop.iter_args[value.index - 1])
        return None
    op = value.op
    if isinstance(op, scf.ForOp | scf.IfOp):
        return _buffer(op.regions[0].block.last_op.operands[value.index])
    addr = op.attributes.get(ADDR_ATTR)
    if addr is None:
        return None
    t = pto.tile(value)
    return t.space_name, addr.value.data, addr.value.data + tile_bytes(t)


def _shares_buffer(a: SSAValue, b: SSAValue) -> bool:
    if a is b:
        return True
    x, y = _buffer(a), _buffer(b)
    return x is not None and y is not None and x[0] == y[0] and x[1] < y[2] and y[1] < x[2]


def _write_after_read(func: FuncOp) -> list[_Flag]:
    """A tile op overwriting a buffer after (or, in a loop, before) another pipe reads it."""
    tiles = [
        v
        for op in func.walk()
        for v in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        if isinstance(v.type, pto.TileType)
    ]
    flags = []
    for writer in func.walk():
        dst = pipe_of(writer)
        if (
            dst is None
            or not writer.results
            or not isinstance(writer.results[0].type, pto.TileType)
        ):
            continue
        made = writer.results[0]
        for value in (v for v in tiles if _shares_buffer(v, made)):
            for use in value.uses:
                src = pipe_of(use.operation)
                if src is None or src == dst:
                    continue
                flag = _war_flag(src, dst, use.operation, writer)
                if flag is not None:
                    flags.append(flag)
    return flags


def _war_flag(src: str, dst: str, reader: Operation, writer: Operation) -> _Flag | None:
    block = _common_block(reader, writer)
    if block is None:
        return None
    read, write = block.find_ancestor_op_in_block(reader), block.find_ancestor_op_in_block(writer)
    if read is not write and read.is_before_in_block(write):
        return _Flag(src, dst, read, write)
    loop = block.parent_op()
    return _Flag(src, dst, read, write, loop) if isinstance(loop, scf.ForOp) else None


def _common_block(a: Operation, b: Operation) -> Block | None:
    block = a.parent_block()
    while block is not None:
        if block.find_ancestor_op_in_block(b) is not None:
            return block
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return None


def _unique(flags: list[_Flag], order: dict[Operation, int]) -> list[_Flag]:
    """One flag per pipe pair, signal point and loop: the earliest wait serves all."""
    best: dict[tuple, _Flag] = {}
    for f in flags:
        key = (f.src, f.dst, f.set_after, f.loop)
        if key not in best or order[f.wait_before] < order[best[key].wait_before]:
            best[key] = f
    return list(best.values())


def _numbering(func: FuncOp) -> tuple[dict[Operation, int], dict[Operation, int]]:
    pos: dict[Operation, int] = {}
    end: dict[Operation, int] = {}

    def number(op: Operation) -> None:
        pos[op] = len(pos)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    number(inner)
        end[op] = len(pos) - 1

    number(func)
    return pos, end


def _event_ids(flags: list[_Flag], func: FuncOp) -> list[int]:
    """Per pipe pair, the lowest event id free over each flag's span (a loop's whole span for
    a flag across its iterations)."""
    pos, end = _numbering(func)
    spans = [
        (pos[f.loop], end[f.loop]) if f.loop else (pos[f.set_after], pos[f.wait_before])
        for f in flags
    ]
    ids = [0] * len(flags)
    busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for i in sorted(range(len(flags)), key=lambda i: spans[i]):
        f, (start, stop) = flags[i], spans[i]
        held = [(e, s) for e, s in busy.get((f.src, f.dst), []) if s >= start]
        free = sorted(set(range(pto.EVENT_IDS)) - {e for e, _ in held})
        if not free:
            message = (
                f"pto-insert-sync: more than {pto.EVENT_IDS} {f.src} -> {f.dst} events "
                "pending at once here"
            )
            fail(f.wait_before, message)
        ids[i] = free[0]
        busy[(f.src, f.dst)] = [*held, (free[0], stop)]
    return ids


def insert_sync(func: FuncOp) -> None:
    """Insert the flags ``func``'s tile ops need."""
    order, _ = _numbering(func)
    flags = _unique(_read_after_write(func) + _write_after_read(func), order)
    flags.sort(key=lambda f: (order[f.set_after], order[f.wait_before]))
    for f, event in zip(flags, _event_ids(flags, func)):
        if f.loop is not None:
            Rewriter.insert_op(pto.SetFlagOp(f.src, f.dst, event), InsertPoint.before(f.loop))
            Rewriter.insert_op(pto.WaitFlagOp(f.src, f.dst, event), InsertPoint.after(f.loop))
        Rewriter.insert_op(pto.WaitFlagOp(f.src, f.dst, event), InsertPoint.before(f.wait_before))
        Rewriter.insert_op(pto.SetFlagOp(f.src, f.dst, event), InsertPoint.after(f.set_after))


@dataclass(frozen=True)
class InsertSyncPass(ModulePass):
    """Synchronize the pipes of every tile function (functions with flags are left alone)."""

    name = "pto-insert-sync"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if not isinstance(func, FuncOp) or not func.body.blocks:
                continue
            if any(isinstance(o, pto.SetFlagOp | pto.WaitFlagOp) for o in func.walk()):
                continue
            insert_sync(func)
