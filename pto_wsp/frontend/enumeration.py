"""``Workload.enumerate()`` and ``Workload.dependencies()`` (seed 001 §2.5): the tasks a
workload creates for given bindings, and the edges between them, by kind.

Both run the workload once on the CPU simulator in cycles mode (no kernel body runs, so
tensors need no binding; symbols, lengths and CSR arrays do) and read the task graph that run
built: the tasks in creation order, and the edges of the graph with its ordering barriers
folded away (a task after a barrier depends on every task before it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pto_wsp.lowering.taskgraph import TaskGraph


@dataclass(frozen=True)
class TaskInfo:
    """One task a workload creates: its id (creation order), kernel, coordinates, scalars."""

    id: int
    kernel: str
    coords: dict[str, int]
    params: tuple


def task_graph(w: Any, bindings: dict[str, Any], options: dict[str, Any]) -> TaskGraph:
    """The task graph ``w`` builds for ``bindings`` (a cycles-mode run on cpu_sim)."""
    from .program import compile

    program = compile(w, target="cpu_sim", **{"mode": "cycles", **options})
    return program.bind(**bindings).execute().graph()


def tasks_of(graph: TaskGraph) -> list[TaskInfo]:
    """The graph's tasks, in creation order."""
    from pto_wsp.lowering.taskgraph import KIND_BARRIER

    kinds = graph.kind.tolist()
    return [
        TaskInfo(i, graph.kernel_name(i), dict(graph.coords[i]), tuple(graph.args[i]))
        for i, kind in enumerate(kinds)
        if kind != KIND_BARRIER
    ]


def edges_by_kind(graph: TaskGraph) -> dict[str, list[tuple[int, int]]]:
    """The edges between tasks, per kind (structural, raw, waw, war), barriers folded."""
    from pto_wsp.lowering.taskgraph import EDGE_KINDS, KIND_BARRIER

    kinds = graph.kind.tolist()
    src, dst = graph.edges()
    preds: dict[int, list[tuple[int, int]]] = {}
    for s, d, k in zip(src.tolist(), dst.tolist(), graph.edge_kind.tolist()):
        preds.setdefault(d, []).append((s, k))
    # The tasks each barrier waits for; edges run from earlier nodes to later ones, so in
    # node order a barrier's predecessors are known before it.
    before: dict[int, set[int]] = {}
    out: dict[str, set[tuple[int, int]]] = {name: set() for name in EDGE_KINDS}
    for d in sorted(preds):
        sources = [
            (before.get(s, ()) if kinds[s] == KIND_BARRIER else (s,), k) for s, k in preds[d]
        ]
        if kinds[d] == KIND_BARRIER:
            before[d] = {t for tasks, _ in sources for t in tasks}
            continue
        for tasks, k in sources:
            out[EDGE_KINDS[k]].update((t, d) for t in tasks)
    return {name: sorted(pairs) for name, pairs in out.items()}
