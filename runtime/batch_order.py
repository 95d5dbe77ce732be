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

__all__ = ["add_chains", "per_task", "scope_after"]


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
