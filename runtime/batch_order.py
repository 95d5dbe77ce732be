"""Ordered chains as one batch: a ``for_each`` over t (inside parallel loops, or bare).

lowering/cpu/simgen.py emits a regular nest whose innermost part is

    tg.ordered { scf.for %t { <regular ops, ONE tg.task>; tg.order_point } }

as ``_chains(_b, count, length, scoped, groups)``: ``count`` chains of ``length`` tasks, in
creation order (chain c's task t is task ``c * length + t`` of the batch). ``length`` may
also be an array of ``count`` lengths, one per chain (a ``for_each`` whose trip count is
data: ``0 to lens[b]``, a ragged axis); chains of no task are dropped (task by task an
empty scope changes nothing), and equal lengths become one int. ``scoped``: each chain is
its own ordered scope (the ``tg.ordered`` is inside the batch's loops); else the single
chain's loops run in the builder's current scope (a bare ``for_each``).

The task-by-task equivalent, which ``per_task`` runs (builders without exact batches, a
bare chain whose scope already holds tasks):

    for c in range(count):
        enter_ordered()            # if scoped
        for t in range(length):
            add_task(...); order_point()
        exit_ordered()             # if scoped

Its structural edges, by the barrier rule (runtime/graph.py module doc), which
``GraphBuilder.add_tasks(..., chains=...)`` computes in arrays (``bulk_kernels.chain_edges``):
every chain's first task follows the current frontier (through the one barrier ``add_tasks``
makes first when the frontier has several nodes — the first task would have made it), each
later task follows the one before it (one task per iteration: no barrier inside, ids stay
contiguous), and the scope's group receives each chain's last task (scoped: on exit; bare:
the chain's last ordering point makes it the frontier). Data edges are the batch's own
(``add_tasks``), except for pairs already joined by a structural edge (the first reason
wins).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["add_chains", "per_task", "scope_after"]


def _lengths(count, length, scoped: bool) -> tuple[int, int | np.ndarray]:
    """(count, length) with the chains of no task dropped: ``length`` an int when every chain
    is as long (0 when none is left), else an int64 array of the lengths (each > 0)."""
    if length.__class__ is not np.ndarray:
        return int(count), int(length)
    lengths = np.asarray(length, np.int64).ravel()
    if not scoped:  # one chain
        return 1, int(lengths.sum())
    lengths = lengths[lengths > 0]
    if not len(lengths):
        return 0, 0
    if (lengths == lengths[0]).all():
        return len(lengths), int(lengths[0])
    return len(lengths), lengths


def per_task(
    b, count: int, length: int | np.ndarray, scoped: bool, groups: Sequence[Sequence]
) -> None:
    """The chains created task by task, with their ordering points (any builder)."""
    from pto_wsp.runtime.bulk import iter_batch

    count, length = _lengths(count, length, scoped)
    lengths = [length] * count if length.__class__ is int else length.tolist()
    rows = iter_batch(sum(lengths), groups)
    add, point = b.add_task, b.order_point
    for k in lengths:
        if scoped:
            b.enter_ordered()
        for _ in range(k):
            add(*next(rows))
            point()
        if scoped:
            b.exit_ordered()


def add_chains(
    b, count: int, length: int | np.ndarray, scoped: bool, groups: Sequence[Sequence]
) -> None:
    """Create ``count`` chains of ``length`` tasks (see the module doc) on builder ``b``."""
    count, length = _lengths(count, length, scoped)
    if count <= 0 or (length.__class__ is int and length <= 0):
        return  # an empty scope or loop: no node, no change of order
    n = count * length if length.__class__ is int else int(length.sum())
    from pto_wsp.runtime.graph import GraphBuilder

    if isinstance(b, GraphBuilder):
        scope = b._scopes[-1]
        if scoped or (scope is not b._root and not scope.group):
            b.add_tasks(n, groups, chains=(count, length, scoped))
            return
    per_task(b, count, length, scoped, groups)


def scope_after(b, scope, chains: tuple, tid0: int, n: int) -> None:
    """The scope's state after the chains (see the module doc)."""
    count, length, scoped = chains
    if scoped:
        if scope is not b._root:
            if length.__class__ is int:
                scope.group.extend(range(tid0 + length - 1, tid0 + n, length))
            else:
                scope.group.extend((tid0 - 1 + np.cumsum(length)).tolist())
    else:
        scope.frontier = [tid0 + n - 1]
        scope.group = []
        scope.own = True
