"""Ordered chains as one batch: a ``for_each`` over t (inside parallel loops, or bare).

lowering/cpu/simgen.py emits a regular nest whose innermost part is

    tg.ordered { scf.for %t { <regular ops, ONE tg.task>; tg.order_point } }

as ``_chains(_b, count, length, scoped, groups)``: ``count`` chains of ``length`` tasks, in
creation order (chain c's task t is task ``c * length + t`` of the batch). ``scoped``: each
chain is its own ordered scope (the ``tg.ordered`` is inside the batch's loops); else the
single chain's loop runs in the builder's current scope (a bare ``for_each``).

The task-by-task equivalent, which ``per_task`` runs (builders without exact batches, a
bare chain whose scope already holds tasks):

    for c in range(count):
        enter_ordered()            # if scoped
        for t in range(length):
            add_task(...); order_point()
        exit_ordered()             # if scoped

Its structural edges, by the barrier rule (runtime/graph.py module doc), which
``GraphBuilder.add_tasks(..., chains=...)`` computes in arrays (``structure``): every chain's
first task follows the current frontier (through the one barrier ``add_tasks`` makes first
when the frontier has several nodes — the first task would have made it), each later task
follows the one before it (one task per iteration: no barrier inside, ids stay contiguous),
and the scope's group receives each chain's last task (scoped: on exit; bare: the chain's
last ordering point makes it the frontier). Data edges are the batch's own (``add_tasks``),
except for pairs already joined by a structural edge (the first reason wins).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["add_chains", "per_task", "structure"]


def per_task(b, count: int, length: int, scoped: bool, groups: Sequence[Sequence]) -> None:
    """The chains created task by task, with their ordering points (any builder)."""
    from pto_wsp.runtime.bulk import iter_batch

    rows = iter_batch(count * length, groups)
    add, point = b.add_task, b.order_point
    for _ in range(count):
        if scoped:
            b.enter_ordered()
        for _ in range(length):
            add(*next(rows))
            point()
        if scoped:
            b.exit_ordered()


def add_chains(b, count: int, length: int, scoped: bool, groups: Sequence[Sequence]) -> None:
    """Create ``count`` chains of ``length`` tasks (see the module doc) on builder ``b``."""
    count, length = int(count), int(length)
    if count <= 0 or length <= 0:
        return  # an empty scope or loop: no node, no change of order
    from pto_wsp.runtime.graph import GraphBuilder

    if isinstance(b, GraphBuilder):
        scope = b._scopes[-1]
        if scoped or (scope is not b._root and not scope.group):
            b.add_tasks(count * length, groups, chains=(count, length, scoped))
            return
    per_task(b, count, length, scoped, groups)


def structure(
    chains: tuple[int, int, bool], tid0: int, n: int, head: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The structural edges (src, dst, kind 0) into the batch's tasks tid0..tid0+n-1:
    ``head`` (the frontier's node, -1 if none) -> each chain's first task, and each task ->
    the next of its chain. Ordered by destination."""
    _, length, _ = chains
    dst = np.arange(tid0, tid0 + n, dtype=np.int64)
    src = dst - 1
    first = (dst - tid0) % length == 0
    if head >= 0:
        src[first] = head
    else:
        keep = ~first
        src, dst = src[keep], dst[keep]
    return src, dst, np.zeros(len(dst), dtype=np.uint8)


def merge(
    structural: tuple[np.ndarray, np.ndarray, np.ndarray],
    data: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    chains: tuple[int, int, bool],
    tid0: int,
    head: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Structural edges plus the data edges (one per pair, by destination then source, from
    ``merge_edges`` with no source skipped) not joining a structurally joined pair; by
    destination then source (each source's destinations increase)."""
    if data is None or not len(data[0]):
        return structural
    _, length, _ = chains
    s, d, k = data
    first = (d - tid0) % length == 0
    dup = np.where(first, s == head, s == d - 1)
    if dup.any():
        keep = ~dup
        s, d, k = s[keep], d[keep], k[keep]
    src = np.concatenate([structural[0], s])
    dst = np.concatenate([structural[1], d])
    kind = np.concatenate([structural[2], k])
    order = np.lexsort((src, dst))
    return src[order], dst[order], kind[order]


def scope_after(b, scope, chains: tuple[int, int, bool], tid0: int, n: int) -> None:
    """The scope's state after the chains (see the module doc)."""
    count, length, scoped = chains
    lasts = range(tid0 + length - 1, tid0 + n, length)
    if scoped:
        if scope is not b._root:
            scope.group.extend(lasts)
    else:
        scope.frontier = [tid0 + n - 1]
        scope.group = []
        scope.own = True
