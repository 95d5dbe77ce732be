"""A build recorded, to be replayed in one compiled call when a program runs again.

A ``GraphBuilder`` whose every task comes from batches handed over again by the batch sites
of the generated code (``bulk.Groups``, docs/batchgen.md "Batch sites") records its build: the
calls it received (``events``: batches by their Groups object, ordered scopes, ordering
points, read-only declarations, kernel ids asked for) and, in order, every operation its
dependency inference and structural order performed (``ops``: runtime/bulk.py's passes with
their input arrays, the tilings' boxes, each batch's edge merge, chains and structural edges,
the barriers). ``build()`` keeps that as a ``Tape`` in the first batch's ``Groups.memo``.

The next builder handed the same first Groups (a fresh builder, the same prefix of calls)
replays it: while each call is the tape's next one (the same Groups object, task count and
chains; the same scope calls) it only counts nodes and returns the same ids; ``build()`` then
runs every recorded operation on fresh state in one compiled call
(``bulk_kernels._replay_nb``: the same kernels as the per-batch path, in the same order, on
the same inputs, so the same edges) and the CSR, instead of ~10 Python-level steps and
compiled calls per batch. The node fields, the per-task fields and the kernel table come
from the tape (functions of the same batches). A call that differs — another Groups object
(a site's key changed), a task created alone, a pipeline's context, anything else the tape
does not have — makes the builder catch up: it applies the calls so far for real, in order,
and goes on as a builder that never replayed (recording a new tape). So a replayed build is
the same graph as the recorded one, and a build that is not the recorded one is built as it
would be without tapes. Only with the compiled kernels (``bulk_kernels.load()``): the numpy
twins are per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pto_wsp.runtime import bulk_kernels
from pto_wsp.runtime.bulk_kernels import (
    OP_COARSER,
    OP_END,
    OP_FINER,
    OP_NEW,
    OP_OWN,
    OP_REFIT,
    OP_SINGLE,
)

__all__ = ["Tape", "same_chains", "usable"]

# Events (``GraphBuilder._events``): batches as ("b", groups, n, chains, tid0, end); the rest
# as these tuples (compared by value).
ENTER = ("enter",)
POINT = ("point",)
EXIT = ("exit",)


#: Record and replay builds (benchmarks switch it off to time the per-batch path).
REPLAY = True


def usable() -> bool:
    """Whether builds are recorded and replayed: only with the compiled kernels loaded."""
    return REPLAY and bool(bulk_kernels._loaded) and bulk_kernels.COMPILED


@dataclass
class Tape:
    """One recorded build (the module doc); ``ops`` None once packed. ``fields``: the node
    fields as built (kind, kernel, pool, domain, target, stream, priority); ``segs``: the
    segments for the lazy per-task fields (their edges dropped); ``kernels``: the kernel table
    at the end, and at the first batch (``kernels0``)."""

    cls: type
    events: list
    ops: list | None
    boxes: list
    nslots: int
    n_nodes: int
    n_edges: int
    kernels0: tuple
    kernels: tuple
    fields: tuple
    segs: list
    packed: tuple | None = field(default=None, repr=False)

    def pack(self) -> tuple:
        """The arguments of ``_replay_nb``: the operations as rows, their arrays in two flat
        buffers, the boxes (made once, on the first replay; ``ops`` is dropped after, so a
        thread that finds it gone finds ``packed`` set)."""
        ops = self.ops
        if ops is None:
            return self.packed
        rows = np.full((len(ops), 10), -1, dtype=np.int64)
        ints: list[np.ndarray] = []
        bools: list[np.ndarray] = []
        at = [0, 0]

        def span(a: np.ndarray, where: list, k: int) -> int:
            off = at[k]
            where.append(a)
            at[k] += len(a)
            return off

        for i, op in enumerate(ops):
            code = op[0]
            row = rows[i]
            row[0] = code
            if code == OP_NEW:
                row[1:3] = op[1:3]
            elif code == OP_REFIT or code == OP_FINER or code == OP_COARSER:
                row[1 : len(op)] = op[1:]
            elif code == OP_SINGLE:
                _c, slot, g, t, reads, writes = op
                row[1:7] = (slot, span(g, ints, 0), len(g), span(t, ints, 0), reads, writes)
            elif code == OP_OWN:
                _c, slot, g, p, R, W, ri, n, tid0 = op
                m = len(g)
                row[1:9] = (
                    slot,
                    span(g, ints, 0),
                    m,
                    span(p, ints, 0),
                    span(np.concatenate([R, W]).astype(np.bool_), bools, 1),
                    span(ri, ints, 0),
                    n,
                    tid0,
                )
            elif code == OP_END:
                _c, tid0, n, skip, s0, head = op
                row[1:6] = (tid0, n, skip, -1 if s0 is None else span(s0, ints, 0), head)
            else:  # OP_BARRIER
                _c, node, preds, kind = op
                row[1:5] = (node, span(preds, ints, 0), len(preds), kind)
        ibuf = np.concatenate(ints).astype(np.int64) if ints else np.zeros(1, np.int64)
        bbuf = np.concatenate(bools).astype(np.bool_) if bools else np.zeros(1, np.bool_)
        flat, box_at = [], [0]
        for lo, shape, widths, residues in self.boxes:
            flat.extend((lo, shape, widths, residues))
            box_at.append(box_at[-1] + 4 * len(lo))
        boxes = np.concatenate(flat).astype(np.int64) if flat else np.zeros(1, np.int64)
        self.packed = (
            rows,
            np.ascontiguousarray(ibuf),
            np.ascontiguousarray(bbuf),
            boxes,
            np.array(box_at, dtype=np.int64),
            self.nslots,
            self.n_nodes,
        )
        self.ops = None  # the buffers hold them: their arrays are freed
        return self.packed

    def run(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every operation again on fresh state: the CSR (fanout_begin, fanout_edges,
        edge_kind, fanin) of the recorded build's edges."""
        packed = self.packed or self.pack()
        ok, begin, edges, kinds, fanin = bulk_kernels._replay_nb(*packed)
        if not ok or len(edges) != self.n_edges:
            raise RuntimeError(
                "internal: a replayed build differs from its recording "
                f"({len(edges)} edges against {self.n_edges}): a kept batch's arrays changed"
            )
        return begin, edges, kinds, fanin


def same_prefix(events: list, tape_events: list) -> bool:
    """Whether the calls a builder received before its first batch are the tape's first."""
    k = len(events)
    return k < len(tape_events) and tape_events[:k] == events and tape_events[k][0] == "b"


def same_chains(a: Any, b: Any) -> bool:
    """Whether two ``chains`` arguments of add_tasks are equal: None, or (count, length,
    scoped) with ``length`` an int or an int64 array of the chains' lengths (compared by
    value: batch_order makes it anew on every call)."""
    if a is b:
        return True
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.__class__ is np.ndarray or y.__class__ is np.ndarray:
            if not (
                x.__class__ is np.ndarray and y.__class__ is np.ndarray and np.array_equal(x, y)
            ):
                return False
        elif x != y:
            return False
    return True
