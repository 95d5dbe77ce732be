"""A Program's executes on the LLaMA layer, beside Dask threaded and a SimPy model.

    python3 bench/bench_program.py [--sizes 1k,13k,100k,200k] [--workers 4] [--repeat 3]
                                   [--compare 1k,13k] [--structure data|seq]

The LLaMA-7B layer of bench_graph_build.py (no-op kernels: the layer's kernels have no
bodies) compiled with ``compile(target="cpu_sim", mode=...)``, a new Program per mode and size
(after the first, its compiled program comes from the cache); per size, the Program's first
execute (binding done: graph build on the native core, virtual-time schedule,
and in functional mode the bodies in dispatch order) and the best of ``--repeat`` later
executes, as tasks per ms of wall time, with the build / schedule / bodies split of the last
run (``stats().phases_ms``). At the ``--compare`` sizes (Dask takes ~0.1-0.2 ms a task, so a
few seconds at 13k), the same graph (``Program.graph()``) is run by:

- Dask's threaded scheduler (``dask.threaded.get``), a no-op function per task, beside the
  functional figure;
- a SimPy model (a resource of ``--workers`` workers, a process per task waiting for its
  predecessors' events, the cycles run's costs), beside the cycles figure; the model's makespan
  is checked equal to the Program's.

Anchors of issue 22 printed beside: first execute >= 5,000 tasks/ms (cycles) and 2,000
(functional) from 13k, >= 1,000 at 1k; later executes 10,000 and 4,000; >= 500x Dask and
>= 300x SimPy. Needs ``pip install -e ".[bench]"`` for the comparisons. Figures to read.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_graph_build as bgb  # noqa: E402

SIZES = {"1k": (1, 20), "13k": (4, 70), "100k": (8, 270), "200k": (16, 270)}
#: mode -> (first execute from 13k, first at 1k, later executes, x the comparison)
ANCHORS = {"cycles": (5000, 1000, 10000, 300), "functional": (2000, 1000, 4000, 500)}


def _noop(*_args) -> None:
    return None


def tensors(B: int, nt: int) -> dict[str, np.ndarray]:
    """Every tensor as its extents (zero-stride arrays, no memory: the bodies are no-ops)."""
    zero = np.zeros((), np.float32)
    return {n: np.broadcast_to(zero, s) for n, s in bgb.layer_shapes(B, nt).items()}


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def dask_seconds(graph, workers: int) -> float | None:
    """Dask threaded running a no-op per node of ``graph``; None without dask."""
    try:
        import dask.threaded
    except ImportError:
        return None
    dsk = {f"n{i}": (_noop, *[f"n{p}" for p in graph.predecessors(i).tolist()])
           for i in range(graph.num_nodes)}  # fmt: skip
    sinks = [f"n{i}" for i in range(graph.num_nodes) if len(graph.successors(i)) == 0]
    return timed(lambda: dask.threaded.get(dsk, sinks, num_workers=workers))


def simpy_seconds(graph, costs, workers: int) -> tuple[float, float] | None:
    """A SimPy model of the schedule of ``graph``: (seconds, makespan); None without simpy."""
    try:
        import simpy
    except ImportError:
        return None
    preds = [graph.predecessors(i).tolist() for i in range(graph.num_nodes)]
    barrier, costs = (graph.kind == 1).tolist(), np.asarray(costs).tolist()
    out = {}

    def model() -> None:
        env = simpy.Environment()
        pool = simpy.Resource(env, capacity=workers)
        done = [env.event() for _ in preds]

        def node(i: int):
            if preds[i]:
                yield simpy.AllOf(env, [done[p] for p in preds[i]])
            if not barrier[i]:
                with pool.request() as request:
                    yield request
                    yield env.timeout(costs[i])
            done[i].succeed()

        for i in range(len(preds)):
            env.process(node(i))
        env.run()
        out["makespan"] = env.now

    return timed(model), out["makespan"]


_TOUCH = """
import time, numpy as np
for _ in range(2):
    t = time.perf_counter(); a = np.ones(100 << 17); print(time.perf_counter() - t); del a
"""


def host_speed_ms() -> float:
    """Milliseconds a fixed pure-Python loop takes (best of 3): this shared host runs, for
    seconds at a time, ~1.5x slower than its best, and every figure of the run with it."""

    def loop() -> float:
        start, total = time.perf_counter(), 0
        for i in range(200_000):
            total += i
        return time.perf_counter() - start

    return min(loop() for _ in range(3)) * 1e3


def first_touch_ms() -> tuple[float, float]:
    """Milliseconds a fresh process takes to fill 100 MB the first time, and again: how
    much of a first execute is the machine giving the process memory (an execute builds
    ~0.7 KB per task of graph, regions and TensorMap)."""
    out = subprocess.run([sys.executable, "-c", _TOUCH], capture_output=True, text=True)
    first, again = (float(x) * 1e3 for x in out.stdout.split())
    return first, again


def row(
    workload, mode: str, size: str, repeat: int, workers: int, compare: bool, after: bool = False
) -> str:
    B, nt = SIZES[size]
    prog = workload.compile(target="cpu_sim", mode=mode, workers=workers)
    prog.bind(B=B, NT=nt, **tensors(B, nt))
    if after:  # (every plan declined: what a busy second vCPU gives)
        prog._scheduler.plan = lambda *args, **kwargs: None
    first = timed(prog.execute)
    later = min(timed(prog.execute) for _ in range(repeat))
    stats = prog.stats()
    n = stats.num_tasks
    rate, again = n / (first * 1e3), n / (later * 1e3)
    want, small, want_again, times = ANCHORS[mode]
    want = small if n < 13000 else want
    phases = " ".join(f"{k} {v:.0f}" for k, v in stats.phases_ms.items())
    line = (f"{mode:>10} {size:>5} {n:>7} {first * 1e3:>8.1f} {rate:>7.0f}/{want:<5} "
            f"{later * 1e3:>8.1f} {again:>7.0f}/{want_again:<6} {phases:<28}")  # fmt: skip
    if compare:
        graph = prog.graph()
        if mode == "functional":
            seconds = dask_seconds(graph, workers)
            if seconds is not None:
                line += f" dask {n / (seconds * 1e3):6.1f}/ms = {seconds / later:5.0f}x/{times}"
        else:
            result = simpy_seconds(graph, prog._last().cost, workers)
            if result is not None:
                seconds, makespan = result
                same = "same" if makespan == stats.makespan_cycles else "DIFFERENT"
                line += (f" simpy {n / (seconds * 1e3):6.1f}/ms = {seconds / later:5.0f}x/"
                         f"{times}, makespan {same}")  # fmt: skip
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,13k,100k,200k")
    parser.add_argument("--compare", default="1k,13k")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--structure", default="data", choices=["data", "seq"])
    parser.add_argument(
        "--after-build",
        action="store_true",
        help="schedule every execute after its build, not beside it on the second vCPU",
    )
    args = parser.parse_args()
    unknown = [s for s in args.sizes.split(",") if s not in SIZES]
    if unknown:
        parser.error(f"--sizes: unknown size {unknown[0]!r} (sizes: {', '.join(SIZES)})")
    compare = set(args.compare.split(","))
    print(f"LLaMA-7B layer ({args.structure}), no-op kernels, {args.workers} workers; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}")  # fmt: skip
    print(f"{'mode':>10} {'size':>5} {'tasks':>7} {'first ms':>8} {'tasks/ms/anchor':>13} "
          f"{'later ms':>8} {'tasks/ms/anchor':>14} {'phases of the last (ms)':<28} beside")  # fmt: skip
    workload = bgb.llama_workload(args.structure)
    speed = [host_speed_ms()]
    for mode in ("cycles", "functional"):
        for size in args.sizes.split(","):
            line = row(
                workload, mode, size, args.repeat, args.workers, size in compare, args.after_build
            )
            print(line, flush=True)
    speed.append(host_speed_ms())
    first, again = first_touch_ms()
    print(f"this machine fills 100 MB of new memory in {first:.0f} ms the first time in a "
          f"process, {again:.0f} ms again (a first execute's graph is new memory)")  # fmt: skip
    print(f"host speed: a fixed Python loop took {speed[0]:.1f} ms before the rows, "
          f"{speed[1]:.1f} after (~6 at this host's best; ~9 in its slow periods)")
    print(f"load average {os.getloadavg()[0]:.1f}; x: a later execute's speed over the "
          "comparison's (the anchor after the slash)")


if __name__ == "__main__":
    main()
