"""The static form of a task graph: every task and barrier node with flat fanout edges.

``TaskGraph`` is seed 004 §6.2's TaskGraphStorage as numpy arrays (docs/tg.md "Static form"):
what tg-materialize and the native core build, what the simulator schedules, what the Ascend
host runtime reports of a run and what the AIE target places. Shared data of every backend,
not any one's logic, so it lives below them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pto_wsp.lowering.regions import TensorRegion

__all__ = [
    "DOMAINS",
    "EDGE_KINDS",
    "EDGE_RAW",
    "EDGE_STRUCTURAL",
    "EDGE_WAR",
    "EDGE_WAW",
    "KIND_BARRIER",
    "KIND_TASK",
    "POOLS",
    "POOL_ANY",
    "POOL_CUBE",
    "POOL_VECTOR",
    "TaskGraph",
]

# Node kinds.
KIND_TASK = 0
KIND_BARRIER = 1

# Execution pools and domains, numbered as seed 004 §6.2.1's ExecPool and ExecDomain.
POOL_VECTOR = 0
POOL_CUBE = 1
POOL_ANY = 255
POOLS = {"vector": POOL_VECTOR, "cube": POOL_CUBE, "any": POOL_ANY}
DOMAINS = {"host_cpu": 0, "aicore": 1, "aie_tile": 2}

# Why an edge exists.
EDGE_STRUCTURAL = 0
EDGE_RAW = 1
EDGE_WAW = 2
EDGE_WAR = 3
EDGE_KINDS = ("structural", "raw", "waw", "war")

_POOL_NAMES = {v: k for k, v in POOLS.items()}
_DOMAIN_NAMES = {v: k for k, v in DOMAINS.items()}


@dataclass
class TaskGraph:
    """A materialized task graph (seed 004 TaskGraphStorage): per-node arrays, CSR fanout.

    Node ``i``'s successors are ``fanout_edges[fanout_begin[i]:fanout_begin[i + 1]]``
    (ascending) and ``edge_kind`` says why each edge exists (``EDGE_KINDS``); ``fanin[i]`` is
    its number of predecessors. ``kind`` is ``KIND_TASK`` or ``KIND_BARRIER``; ``kernel``
    indexes ``kernels`` (-1 for a barrier); ``target`` -1 means the runtime decides.
    ``args``, ``regions`` and ``coords`` are per-node tuples (empty for barriers).
    """

    kind: np.ndarray
    kernel: np.ndarray
    pool: np.ndarray
    domain: np.ndarray
    target: np.ndarray
    stream: np.ndarray
    priority: np.ndarray
    fanin: np.ndarray
    fanout_begin: np.ndarray
    fanout_edges: np.ndarray
    edge_kind: np.ndarray
    kernels: list[str]
    args: list[tuple]
    regions: list[tuple[TensorRegion, ...]]
    coords: list[tuple[tuple[str, int], ...]]
    _pred: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def num_nodes(self) -> int:
        """Tasks and barrier nodes."""
        return len(self.kind)

    @property
    def num_tasks(self) -> int:
        """Kernel tasks (barrier nodes excluded)."""
        return int(np.count_nonzero(self.kind == KIND_TASK))

    @property
    def num_barriers(self) -> int:
        """Barrier nodes."""
        return self.num_nodes - self.num_tasks

    @property
    def num_edges(self) -> int:
        """Edges of every kind."""
        return len(self.fanout_edges)

    def edge_counts(self) -> dict[str, int]:
        """How many edges of each kind (structural, raw, waw, war)."""
        counts = np.bincount(self.edge_kind, minlength=len(EDGE_KINDS))
        return {name: int(counts[i]) for i, name in enumerate(EDGE_KINDS)}

    def task_ids(self) -> np.ndarray:
        """The ids of the kernel tasks, ascending."""
        return np.flatnonzero(self.kind == KIND_TASK)

    def kernel_name(self, i: int) -> str | None:
        """The kernel of node ``i`` (None for a barrier)."""
        k = int(self.kernel[i])
        return self.kernels[k] if k >= 0 else None

    def successors(self, i: int) -> np.ndarray:
        """The nodes that wait for node ``i``, ascending."""
        return self.fanout_edges[self.fanout_begin[i] : self.fanout_begin[i + 1]]

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """All edges as (sources, destinations) arrays, sorted by source then destination."""
        src = np.repeat(np.arange(self.num_nodes), np.diff(self.fanout_begin))
        return src, self.fanout_edges

    def edge_set(self) -> set[tuple[int, int]]:
        """All edges as a set of (source, destination) pairs (for tests and small graphs)."""
        src, dst = self.edges()
        return set(zip(src.tolist(), dst.tolist()))

    def predecessors(self, i: int) -> np.ndarray:
        """The nodes node ``i`` waits for, ascending."""
        if self._pred is None:
            src, dst = self.edges()
            order = np.argsort(dst, kind="stable")
            begin = np.zeros(self.num_nodes + 1, dtype=np.int64)
            np.cumsum(np.bincount(dst, minlength=self.num_nodes), out=begin[1:])
            self._pred = (begin, src[order])
        begin, flat = self._pred
        return flat[begin[i] : begin[i + 1]]

    def reachable(self, a: int, b: int) -> bool:
        """Whether a path of edges leads from node ``a`` to node ``b`` (a node reaches itself)."""
        if a == b:
            return True
        if b < a:
            return False  # ids are a topological order
        seen = np.zeros(b + 1, dtype=bool)
        stack = [a]
        begin, edges = self.fanout_begin, self.fanout_edges
        while stack:
            n = stack.pop()
            for s in edges[begin[n] : begin[n + 1]].tolist():
                if s == b:
                    return True
                if s < b and not seen[s]:
                    seen[s] = True
                    stack.append(s)
        return False

    def _label(self, i: int) -> str:
        if self.kind[i] == KIND_BARRIER:
            return f"{i}: barrier"
        at = ", ".join(f"{k}={v}" for k, v in self.coords[i])
        return f"{i}: {self.kernel_name(i)}({at})"

    def to_dot(self, name: str = "tg") -> str:
        """The graph in Graphviz DOT: barriers as points, data edges solid and labelled by
        kind, structural edges dashed."""
        lines = [f'digraph "{name}" {{', "  node [shape=box, fontname=monospace];"]
        for i in range(self.num_nodes):
            if self.kind[i] == KIND_BARRIER:
                lines.append(f'  n{i} [shape=diamond, label="{i}"];')
            else:
                lines.append(f'  n{i} [label="{self._label(i)}"];')
        src, dst = self.edges()
        for s, d, k in zip(src.tolist(), dst.tolist(), self.edge_kind.tolist()):
            if k == EDGE_STRUCTURAL:
                lines.append(f"  n{s} -> n{d} [style=dashed];")
            else:
                lines.append(f'  n{s} -> n{d} [label="{EDGE_KINDS[k]}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def node_text(self, i: int) -> str:
        """Node ``i`` in the static form's ``tg.node`` syntax (docs/tg.md "Static form")."""
        fanout = ", ".join(str(s) for s in self.successors(i).tolist())
        if self.kind[i] == KIND_BARRIER:
            return f"tg.node {i} barrier fanin({int(self.fanin[i])}) fanout({fanout})"
        args = ", ".join(str(a) for a in self.args[i])
        regions = ", ".join(
            f"%{r.tensor}{list(r.offsets)}{list(r.sizes)}{list(r.strides)} {r.access}"
            for r in self.regions[i]
        )
        at = ", ".join(f"{k} = {v}" for k, v in self.coords[i])
        pool = _POOL_NAMES.get(int(self.pool[i]), str(int(self.pool[i])))
        parts = [
            f"tg.node {i} task @{self.kernel_name(i)} args({args}) regions({regions}) at({at})",
            f"domain({_DOMAIN_NAMES.get(int(self.domain[i]), int(self.domain[i]))})",
            f"pool({pool}) target({int(self.target[i])}) stream({int(self.stream[i])})",
            f"priority({int(self.priority[i])}) fanin({int(self.fanin[i])}) fanout({fanout})",
        ]
        return " ".join(parts)

    def to_text(self) -> str:
        """Every node in ``tg.node`` syntax, one per line."""
        return "".join(self.node_text(i) + "\n" for i in range(self.num_nodes))
