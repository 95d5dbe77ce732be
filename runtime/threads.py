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

import threading
from collections import deque

import numpy as np

from pto_wsp.errors import ExecutionError
from pto_wsp.lowering.taskgraph import KIND_BARRIER

__all__ = ["run_bodies_threaded"]


def run_bodies_threaded(sim, threads: int) -> None:
    """Execute every task body of the finished simulation ``sim`` on ``threads`` threads.

    The threads share one queue of ready tasks (in the simulated start order among the tasks
    ready at the start, then in the order they became ready) under one lock: each takes a
    task, runs its body, then — under the lock — counts down its successors' predecessors
    and queues those that became ready (a barrier is passed through at once). No future or
    executor per task: a small body costs about what it costs inline."""
    graph = getattr(sim, "task_graph", None) or sim.graph.build()  # a Run's, or the engine's
    begin = graph.fanout_begin.tolist()
    edges = graph.fanout_edges.tolist()
    fanin = graph.fanin.astype(np.int64).tolist()
    kinds = graph.kind.tolist()
    ready: deque[int] = deque()
    left = [len(kinds)]  # nodes not finished yet
    failures: list[ExecutionError] = []
    bugs: list[BaseException] = []
    cond = threading.Condition()

    def finish(node: int) -> None:
        # (under the lock) the node is done: count down its successors; pass barriers on.
        stack = [node]
        while stack:
            n = stack.pop()
            left[0] -= 1
            for s in edges[begin[n] : begin[n + 1]]:
                fanin[s] -= 1
                if fanin[s] == 0:
                    if kinds[s] == KIND_BARRIER:
                        stack.append(s)
                    else:
                        ready.append(s)

    initial = sorted((i for i, f in enumerate(fanin) if f == 0), key=lambda i: (sim.start[i], i))
    with cond:
        for node in initial:
            if kinds[node] == KIND_BARRIER:
                finish(node)
            else:
                ready.append(node)

    run_body = sim._run_body

    def work() -> None:
        while True:
            with cond:
                while not ready and left[0] and not failures and not bugs:
                    cond.wait()
                if not ready or failures or bugs:
                    cond.notify_all()  # the others see the end too
                    return
                node = ready.popleft()
            try:
                run_body(node)
            except ExecutionError as error:
                with cond:
                    failures.append(error)  # no task starts after this; running ones finish
                    cond.notify_all()
                return
            except BaseException as error:  # not from a body: a bug of the executor itself
                with cond:
                    bugs.append(error)
                    cond.notify_all()
                return
            with cond:
                before = len(ready)
                finish(node)
                woken = len(ready) - before
                if not left[0]:
                    cond.notify_all()
                elif woken > 1:
                    cond.notify(woken - 1)  # this thread takes one itself

    pool = [
        threading.Thread(target=work, name=f"pto-wsp-kernel-{i}", daemon=True)
        for i in range(max(threads, 1))
    ]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if bugs:
        raise bugs[0]
    if failures:
        raise min(failures, key=lambda e: e.task_id)
