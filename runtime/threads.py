"""Run the kernel bodies of a simulated program on real threads (seed 004 §2.4).

The functional mode normally calls each body when its task starts in virtual time, on the one
Python thread that runs the simulation: results are exact and the run is deterministic, but
bodies never overlap. numpy releases the GIL inside large operations (matmul, elementwise
kernels on big tiles), so with ``compile(..., threads=N)`` the simulator first runs the
program in virtual time without touching data (the statistics and trace are those of the
schedule), then executes the bodies on a pool of N threads in an order that respects every
edge of the task graph it built: a task is submitted when its last predecessor finished.

A failing body stops the submission of new tasks; the tasks already running finish, and the
``ExecutionError`` of the failing task with the smallest id among those that failed is raised.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import numpy as np

from pto_wsp.runtime.errors import ExecutionError
from pto_wsp.runtime.graph import KIND_BARRIER

__all__ = ["run_bodies_threaded"]


def run_bodies_threaded(sim, threads: int) -> None:
    """Execute every task body of the finished simulation ``sim`` on ``threads`` threads."""
    graph = getattr(sim, "task_graph", None) or sim.graph.build()  # the fast path's, or build
    begin, edges = graph.fanout_begin, graph.fanout_edges
    fanin = graph.fanin.astype(np.int64).tolist()
    kinds = graph.kind.tolist()
    # Start in the simulated order among the initially ready tasks (deterministic submission).
    ready = deque(
        sorted((i for i, f in enumerate(fanin) if f == 0), key=lambda i: (sim.start[i], i))
    )
    failures: list[ExecutionError] = []
    running: dict[Future, int] = {}

    def finish(node: int) -> None:
        for s in edges[begin[node] : begin[node + 1]].tolist():
            fanin[s] -= 1
            if fanin[s] == 0:
                ready.append(s)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="pto-wsp-kernel") as pool:
        while ready or running:
            while ready and not failures:
                node = ready.popleft()
                if kinds[node] == KIND_BARRIER:
                    finish(node)
                    continue
                running[pool.submit(sim._run_body, node)] = node
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                node = running.pop(future)
                error = future.exception()
                if error is None:
                    finish(node)
                elif isinstance(error, ExecutionError):
                    failures.append(error)
                else:  # not from a body: a bug of the executor itself
                    raise error
            if failures and not running:
                break
    if failures:
        raise min(failures, key=lambda e: e.task_id)
