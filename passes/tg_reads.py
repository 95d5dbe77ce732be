"""Which reads of a tg program follow every write of their tensor: the runtimes' TensorMaps
need not record them as readers.

A task's read gives it a read-after-write edge to the tensor's last writers, and makes it a
reader a later write must wait for (write-after-read). When no task can write the tensor after
the read, the second part is never used. The shape of a program decides that before any task
exists: its top-level ops run once, in order, so every task of a site in one top-level op is
created after every task of the sites in earlier ones. A read is

- ``lookup`` when every task site writing its tensor lies in an earlier top-level op than the
  reading site: the runtime looks its writers up and records nothing;
- ``unwritten`` when no task site writes its tensor: there is nothing to look up.

Only for a program whose tasks are created in program order (no pipeline: processes
interleave) with every ``tg.call`` already inlined: a callee's tasks run where it is called.
Used by tg-to-runtime-calls (the native core's site table) and the Ascend orchestration (the
host runtime's builder); docs/native.md "Reads after the last write".
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from pto_wsp.dialects import tg

LOOKUP, UNWRITTEN = "lookup", "unwritten"


def view_root(value: SSAValue) -> SSAValue:
    """What a ``memref.subview`` chain views: a program argument, a global's data, ..."""
    while isinstance(value.owner, memref.SubviewOp):
        value = value.owner.source
    return value


def top_level(op: Operation, block: Block) -> Operation:
    """The op of ``block`` that holds ``op`` (``op`` itself when it is one)."""
    while op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _argument_of(body: Block, region: SSAValue) -> BlockArgument | None:
    """The argument of the program ``body`` a region views, if that is what it is."""
    root = view_root(region)
    return root if isinstance(root, BlockArgument) and root.block is body else None


def reads_after_writes(body: Block) -> dict[tg.TaskOp, list[str]]:
    """Per task op of ``body`` (a program's body: no pipeline, calls inlined) with a
    ``lookup`` or ``unwritten`` read, per region its mark ('' for every other access)."""
    tasks = [op for op in body.walk() if isinstance(op, tg.TaskOp)]
    order = {op: i for i, op in enumerate(body.ops)}
    top = {op: order[top_level(op, body)] for op in tasks}
    roots = {op: [_argument_of(body, r) for r in op.resources] for op in tasks}
    last_write: dict[BlockArgument, int] = {}
    for op in tasks:
        for root, access in zip(roots[op], op.access):
            if access.data == "in":
                continue
            if root is None:  # (a write of a view this cannot follow: it may be any tensor)
                return {}
            last_write[root] = max(last_write.get(root, -1), top[op])
    marks: dict[tg.TaskOp, list[str]] = {}
    for op in tasks:
        found = [""] * len(op.access)
        for i, (root, access) in enumerate(zip(roots[op], op.access)):
            if root is None or access.data != "in":
                continue
            written = last_write.get(root)
            if written is None:
                found[i] = UNWRITTEN
            elif written < top[op]:
                found[i] = LOOKUP
        if any(found):
            marks[op] = found
    return marks
