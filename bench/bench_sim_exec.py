"""Simulator execution benchmarks (issue 5), each next to its anchor in the same run.

    python3 bench/bench_sim_exec.py [--sizes 1k,13k,51k] [--workers 4] [--repeat 3]
                                    [--min-time S] [--only functional,cycles,overhead]

The workload, built with the Python API and compiled with ``target="cpu_sim"``: B sequences of
T row tiles of 64x64 (float32), three stages per tile —

    proj   (b, t)  X[b, t], W1 -> H[b, t]          H = X @ W1
    mlp    (b, t)  H[b, t], W2 -> Y[b, t]          Y = H @ W2   (read-after-write on H)
    accum  (b, t)  Y[b, t]     -> A[b]  (inout)    a for_each over t: a chain per sequence

— so 3 B T tasks with 2 B T + B (T - 1) data edges. The functional and cycles figures are
given for both execution paths side by side: ``fast`` (the default: the graph is built, then
scheduled by the native core's scheduler, runtime/run.py) and ``general`` (``fast=False``:
runtime/engine.py's Simulator builds and schedules task by task); both give the same
schedule, so the cycles line checks that their makespans are equal. Figures:

- **functional, no-op kernels** (bodies that return at once): tasks per ms of wall time for
  the whole ``execute()`` (generation, dependency inference, scheduling, calling the bodies).
  Anchor: >= 2,000 tasks/ms. Side by side: Dask's threaded scheduler running no-op functions
  on the same graph (``dask.threaded.get``; Dask documents ~200 us of overhead per task),
  when dask is installed.
- **cycles mode**: tasks per ms of wall time for the whole ``execute()``, and for the
  simulation of the built graph alone (``stats().phases_ms["schedule"]``: the compiled
  scheduler over the graph, as the SimPy model is timed over a graph built beforehand).
  Anchor: >= 10,000 tasks/ms. Side by side: an equivalent SimPy model (a resource of W
  workers, one process per task waiting for its predecessors' events), when simpy is
  installed; both report the makespan they simulate.
- **build overhead with 64x64 matmul kernels**: functional mode with real numpy bodies.
  Seed 004 §2.7's figure: the graph build (task generation + dependency inference,
  ``stats().phases_ms["build"]``) as a share of the execution time; beside it, the stricter
  share of everything that is not a kernel body (build, scheduling, calling the bodies).
  Anchor: < 5%.

Every figure is the best of ``--repeat`` runs, and of as many more as fit in ``--min-time``
seconds of timed runs (at most ``MAX_RUNS``: a 1k run takes ~0.2 ms, and the best of a handful
is still the process warming up or a moment of the shared VM), of one Program (a Program keeps
its memory and its batch sites' results from run to run, and a run after the first replays the
build it recorded: docs/batchgen.md "Replaying a build"); "first run" is the first execute()
of a fresh Program in this process (its batches built one by one).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from pto_wsp import (
    DenseDyn,
    In,
    InOut,
    Out,
    Tensor,
    combine,
    f32,
    for_each,
    kernel,
    parallel_for,
    sym,
    task,
)

SIZES = {"1k": (4, 84), "13k": (16, 274), "51k": (32, 532), "200k": (64, 1042)}
FUNCTIONAL_ANCHOR = 2000.0
CYCLES_ANCHOR = 10000.0
OVERHEAD_ANCHOR = 0.05


@kernel(cost=4096, exec_unit="cube")
def proj(b, t, x: In[f32[64, 64]], w: In[f32[64, 64]], h: Out[f32[64, 64]]):
    np.matmul(x, w, out=h)


@kernel(cost=4096, exec_unit="cube")
def mlp(b, t, h: In[f32[64, 64]], w: In[f32[64, 64]], y: Out[f32[64, 64]]):
    np.matmul(h, w, out=y)


@kernel(cost=512)
def accum(b, t, y: In[f32[64, 64]], a: InOut[f32[64, 64]]):
    a += y


def _noop(*_args):
    return None


def workload():
    X = Tensor("X", [None, None, 64, 64], f32)
    H = Tensor("H", [None, None, 64, 64], f32)
    Y = Tensor("Y", [None, None, 64, 64], f32)
    A = Tensor("A", [None, 64, 64], f32)
    W1 = Tensor("W1", [64, 64], f32)
    W2 = Tensor("W2", [64, 64], f32)
    B, T = sym("B"), sym("T")
    return combine(
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(
                DenseDyn(T), lambda t: task(proj, [b, t], [X[b, t], W1, H[b, t]])
            ),
        ),
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(
                DenseDyn(T), lambda t: task(mlp, [b, t], [H[b, t], W2, Y[b, t]])
            ),
        ),
        parallel_for(
            DenseDyn(B),
            lambda b: for_each(DenseDyn(T), lambda t: task(accum, [b, t], [Y[b, t], A[b]])),
        ),
    ).named("tiles")


def arrays(B: int, T: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "X": rng.standard_normal((B, T, 64, 64)).astype(np.float32),
        "H": np.zeros((B, T, 64, 64), np.float32),
        "Y": np.zeros((B, T, 64, 64), np.float32),
        "A": np.zeros((B, 64, 64), np.float32),
        "W1": rng.standard_normal((64, 64)).astype(np.float32) / 8,
        "W2": rng.standard_normal((64, 64)).astype(np.float32) / 8,
    }


#: More runs than ``--repeat`` until this many seconds of timed runs (``--min-time``), at most
#: ``MAX_RUNS`` runs.
MIN_TIME = 0.0
MAX_RUNS = 2000


def runs_left(times: list, repeat: int) -> bool:
    """Whether a measurement needs another run (``MIN_TIME``)."""
    if len(times) < repeat:
        return True
    return len(times) < MAX_RUNS and sum(t[0] for t in times) < MIN_TIME


def best(fn, repeat: int, after=None) -> float:
    """The best wall time of ``repeat`` runs or more (``runs_left``); its CPU time is kept in
    ``CPU[0]``, the first run's wall time in ``FIRST[0]``. ``after()`` runs after each run,
    untimed."""
    times: list[tuple[float, float]] = []
    while runs_left(times, repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
        if after is not None:
            after()
    FIRST[0] = times[0][0]
    wall, CPU[0] = min(times)
    return wall


CPU = [0.0]
FIRST = [0.0]


def bench_functional(size: str, workers: int, repeat: int) -> None:
    B, T = SIZES[size]
    noop = {"proj": _noop, "mlp": _noop, "accum": _noop}
    parts = []
    for fast in (True, False):
        prog = workload().compile(target="cpu_sim", workers=workers, kernels=noop, fast=fast)
        prog.bind(B=B, T=T, **arrays(B, T))
        seconds = best(prog.execute, repeat)
        stats = prog.stats()
        rate = stats.num_tasks / (seconds * 1e3)
        parts.append(
            f"{'fast' if fast else 'general'} {seconds * 1e3:8.1f} ms = {rate:8,.1f} tasks/ms, "
            f"CPU {stats.num_tasks / (CPU[0] * 1e3):8,.1f} ({rate / FUNCTIONAL_ANCHOR:.1%} of "
            f"{FUNCTIONAL_ANCHOR:,.0f}; first run {stats.num_tasks / (FIRST[0] * 1e3):,.0f})"
        )
    line = (
        f"functional no-op  {size:>5}: {stats.num_tasks:>7,} tasks {stats.num_edges:>7,} edges | "
        + " | ".join(parts)
    )
    dask_rate = _dask(prog, workers, repeat) if stats.num_tasks <= 60000 else None
    if dask_rate is not None:
        line += f" | dask threaded {dask_rate[0]:8,.1f} tasks/ms, CPU {dask_rate[1]:8,.1f}"
    print(line, flush=True)


def _dask(prog, workers: int, repeat: int) -> tuple[float, float] | None:
    try:
        import dask
        import dask.threaded
    except ImportError:
        return None
    graph = prog.graph()
    dsk = {}
    for i in range(graph.num_nodes):
        preds = [f"n{p}" for p in graph.predecessors(i).tolist()]
        dsk[f"n{i}"] = (_noop, *preds)
    sinks = [f"n{i}" for i in range(graph.num_nodes) if len(graph.successors(i)) == 0]
    seconds = best(lambda: dask.threaded.get(dsk, sinks, num_workers=workers), repeat)
    return graph.num_tasks / (seconds * 1e3), graph.num_tasks / (CPU[0] * 1e3)


def bench_cycles(size: str, workers: int, repeat: int) -> None:
    B, T = SIZES[size]
    parts = []
    makespans = []
    for fast in (True, False):
        prog = workload().compile(target="cpu_sim", mode="cycles", workers=workers, fast=fast)
        prog.bind(B=B, T=T)
        schedule = []
        seconds = best(
            prog.execute, repeat, lambda p=prog, s=schedule: s.append(p.stats().phases_ms)
        )
        stats = prog.stats()
        rate = stats.num_tasks / (seconds * 1e3)
        makespans.append(stats.makespan_cycles)
        part = (
            f"{'fast' if fast else 'general'} {seconds * 1e3:8.1f} ms = {rate:8,.1f} tasks/ms, "
            f"CPU {stats.num_tasks / (CPU[0] * 1e3):8,.1f} ({rate / CYCLES_ANCHOR:.1%} of "
            f"{CYCLES_ANCHOR:,.0f}; first run {stats.num_tasks / (FIRST[0] * 1e3):,.0f})"
        )
        if fast:  # simulating the built graph, as the SimPy model is timed
            sim = min(p["schedule"] for p in schedule)
            part += (
                f", simulation of the built graph {stats.num_tasks / sim:8,.1f} tasks/ms "
                f"({stats.num_tasks / sim / CYCLES_ANCHOR:.1%})"
            )
        parts.append(part)
    same = "same" if makespans[0] == makespans[1] else f"DIFFERENT from {makespans[0]:,.0f}"
    line = (
        f"cycles            {size:>5}: {stats.num_tasks:>7,} tasks | "
        + " | ".join(parts)
        + f" | makespan {stats.makespan_cycles:,.0f} ({same})"
    )
    simpy = _simpy(prog, workers, repeat) if stats.num_tasks <= 60000 else None
    if simpy is not None:
        line += (
            f" | simpy {simpy[0]:8,.1f} tasks/ms, CPU {simpy[1]:8,.1f}, makespan {simpy[2]:,.0f}"
        )
    print(line, flush=True)


def first_call() -> None:
    """The first native run of a process: the native core built (once per machine) or loaded,
    and upstream MLIR's JIT of a small program."""
    from pto_wsp.runtime import precompile

    start = time.perf_counter()
    precompile()
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    prog = workload().compile(target="cpu_sim", mode="cycles", workers=2)
    compiled = time.perf_counter() - start
    prog.bind(B=1, T=2)
    start = time.perf_counter()
    prog.execute()
    first = time.perf_counter() - start
    start = time.perf_counter()
    prog.execute()
    again = time.perf_counter() - start
    assert prog.fast_declined is None, prog.fast_declined
    print(
        f"# native path: core ready in {loaded * 1e3:,.0f} ms, compile {compiled * 1e3:,.0f} ms, "
        f"first run {first * 1e3:,.1f} ms, next {again * 1e3:,.1f} ms",
        flush=True,
    )


def _simpy(prog, workers: int, repeat: int) -> tuple[float, float, float] | None:
    try:
        import simpy
    except ImportError:
        return None
    graph = prog.graph()
    sim = prog._last()
    costs = list(sim.cost)
    preds = [graph.predecessors(i).tolist() for i in range(graph.num_nodes)]
    barrier = (graph.kind == 1).tolist()
    result = {}

    def model() -> None:
        env = simpy.Environment()
        pool = simpy.Resource(env, capacity=workers)
        done = [env.event() for _ in range(graph.num_nodes)]

        def node(i: int):
            if preds[i]:
                yield simpy.AllOf(env, [done[p] for p in preds[i]])
            if not barrier[i]:
                with pool.request() as request:
                    yield request
                    yield env.timeout(costs[i])
            done[i].succeed()

        for i in range(graph.num_nodes):
            env.process(node(i))
        env.run()
        result["makespan"] = env.now

    seconds = best(model, repeat)
    return graph.num_tasks / (seconds * 1e3), graph.num_tasks / (CPU[0] * 1e3), result["makespan"]


def bench_overhead(size: str, workers: int, repeat: int) -> None:
    B, T = SIZES[size]
    spent = [0.0]

    def timed(fn):
        def body(*args):
            start = time.perf_counter()
            fn(*args)
            spent[0] += time.perf_counter() - start

        return body

    bodies = {k.name: timed(k.fn) for k in (proj, mlp, accum)}
    prog = workload().compile(target="cpu_sim", workers=workers, kernels=bodies)
    data = arrays(B, T)
    prog.bind(B=B, T=T, **data)
    times: list[tuple[float, float, float]] = []
    while runs_left(times, repeat):
        spent[0] = 0.0
        data["A"][...] = 0
        start = time.perf_counter()
        prog.execute()
        total = time.perf_counter() - start
        times.append((total, spent[0], prog.stats().phases_ms["build"] / 1e3))
    total, kernels, build = min(times)
    overhead = (total - kernels) / total
    ref = np.einsum("btij,jk,kl->bil", data["X"], data["W1"], data["W2"], optimize=True)
    error = float(np.abs(data["A"] - ref).max())
    print(
        f"overhead matmul   {size:>5}: {prog.stats().num_tasks:>7,} tasks {total * 1e3:9.1f} ms, "
        f"kernels {kernels * 1e3:9.1f} ms | graph build {build * 1e3:7.1f} ms = "
        f"{build / total:.1%} of execution (anchor < {OVERHEAD_ANCHOR:.0%}) | all but the "
        f"kernels {overhead:.1%} | max |A - numpy| {error:.2e}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1k,13k,51k")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--min-time",
        type=float,
        default=0.25,
        help=f"and more runs, until S seconds of timed runs per figure (at most {MAX_RUNS})",
    )
    parser.add_argument("--only", default="functional,cycles,overhead")
    args = parser.parse_args()
    if args.repeat < 1 or args.min_time < 0:
        parser.error("--repeat must be at least 1 and --min-time not negative")
    global MIN_TIME
    MIN_TIME = args.min_time
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}, numpy {np.__version__}; workers={args.workers}, "
        f"best of {args.repeat} runs and of as many more as fit in {MIN_TIME:g} s (at most "
        f"{MAX_RUNS})"
    )
    only = args.only.split(",")
    first_call()
    for size in args.sizes.split(","):
        if "functional" in only:
            bench_functional(size, args.workers, args.repeat)
        if "cycles" in only:
            bench_cycles(size, args.workers, args.repeat)
        if "overhead" in only:
            bench_overhead(size, args.workers, args.repeat)


if __name__ == "__main__":
    main()
