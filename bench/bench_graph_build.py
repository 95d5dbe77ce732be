"""Graph build benchmark: task generation plus dependency inference on a LLaMA-7B-layer-shaped
workload, at about 1k, 13k, 51k and 200k tasks, next to the anchor of a C runtime of this design.

    python3 bench/bench_graph_build.py [--repeat N] [--min-time S] [--sizes 1k,13k,51k,200k]
                                       [--structure data,seq]
                                       [--gc paused,on]

One LLaMA-7B layer (hidden 4096, 32 heads of 128, FFN 11008) over B sequences of nt row tiles
of 64 tokens. Stages, each a parallel_for of tasks with its regions:

    rmsnorm1  (b, t)     X[b, tile, :]            -> Xn[b, tile, :]
    qkv       (b, h)     Xn[b, :, :], Wqkv[h]     -> Q[b, h], K[b, h], V[b, h]
    rope      (b, h)     Q[b, h], K[b, h]            (inout)
    attention (b, h, t)  Q[b, h, tile], K[b, h], V[b, h] -> O[b, tile, head h columns]
    o_proj    (b, t)     O[b, tile, :], Wo        -> Y[b, tile, :]
    residual1 (b, t)     X, Y tiles               -> X1[b, tile, :]
    rmsnorm2  (b, t)     X1 tile                  -> Xn2[b, tile, :]
    gate_up   (b, t, f)  Xn2 tile, Wgu[f]         -> G[b, tile, f-th 1376 columns]   (8 per tile)
    down      (b, t)     G[b, tile, :], Wd        -> Y2[b, tile, :]
    residual2 (b, t)     X1, Y2 tiles             -> X2[b, tile, :]

so read-after-write chains join the stages per tile, per (b, h) and across heads (o_proj waits
for 32 attention tasks, qkv for nt rmsnorm tasks). Tasks per sequence: nt * (6 + 32 + 8) + 64.
``--structure data`` creates the stages as a combine (order from data only); ``seq`` wraps them
in a sequential (an ordering point between stages: barriers plus the same data edges).

The Python reference path: the stages above written as Python loops calling
``GraphBuilder.add_task`` (the TensorMap per region). ``llama_workload`` is the same layer
written with the Python API (one parallel_for nest per stage, the same regions), which
bench_program.py and bench_fresh_process.py run on the native path.

The anchor: pto-isa-lh, a C runtime of this design, reports about 5,000 tasks/ms for building
this kind of graph (task generation with TensorMap dependency inference).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import platform
import sys
import time

from pto_wsp import (
    Dense,
    DenseDyn,
    In,
    InOut,
    Out,
    Tensor,
    combine,
    f32,
    kernel,
    parallel_for,
    sequential,
    sym,
    task,
)
from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.runtime.graph import GraphBuilder, gc_paused

ANCHOR_TASKS_PER_MS = 5000.0
ANCHOR = "5,000 tasks/ms (pto-isa-lh, a C runtime of this design)"

HIDDEN, HEADS, HEAD_DIM, FFN, TILE, FFN_TILES = 4096, 32, 128, 11008, 64, 8
FFN_COLS = FFN // FFN_TILES  # 1376

# name -> (sequences B, row tiles nt): tasks = B * (nt * 46 + 64)
SIZES = {"1k": (1, 20), "13k": (4, 70), "51k": (8, 137), "200k": (16, 270)}


# The layer's kernels for the Python API version (bodies never run: graph build only).
_ROW = f32[TILE, HIDDEN]
_DYN = f32[None, HEAD_DIM]


@kernel
def rmsnorm(b, t, x: In[_ROW], y: Out[_ROW]): ...


@kernel(exec_unit="cube")
def qkv(b, h, x: In[f32[None, HIDDEN]], w: In[f32[3 * HEAD_DIM, HIDDEN]],
        q: Out[_DYN], k: Out[_DYN], v: Out[_DYN]): ...  # fmt: skip


@kernel
def rope(b, h, q: InOut[_DYN], k: InOut[_DYN]): ...


@kernel(exec_unit="cube")
def attention(b, h, t, q: In[f32[TILE, HEAD_DIM]], k: In[_DYN], v: In[_DYN],
              o: Out[f32[TILE, HEAD_DIM]]): ...  # fmt: skip


@kernel(exec_unit="cube")
def o_proj(b, t, o: In[_ROW], w: In[f32[HIDDEN, HIDDEN]], y: Out[_ROW]): ...


@kernel
def residual(b, t, x: In[_ROW], y: In[_ROW], z: Out[_ROW]): ...


@kernel(exec_unit="cube")
def gate_up(b, t, f, x: In[_ROW], w: In[f32[2 * FFN_COLS, HIDDEN]],
            g: Out[f32[TILE, FFN_COLS]]): ...  # fmt: skip


@kernel(exec_unit="cube")
def down(b, t, g: In[f32[TILE, FFN]], w: In[f32[FFN, HIDDEN]], y: Out[_ROW]): ...


def layer_shapes(B: int, nt: int) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor of a layer of B sequences of nt row tiles."""
    S = nt * TILE
    return {
        "X": (B, S, HIDDEN),
        "Xn": (B, S, HIDDEN),
        "Q": (B, HEADS, S, HEAD_DIM),
        "K": (B, HEADS, S, HEAD_DIM),
        "V": (B, HEADS, S, HEAD_DIM),
        "O": (B, S, HIDDEN),
        "Y": (B, S, HIDDEN),
        "X1": (B, S, HIDDEN),
        "Xn2": (B, S, HIDDEN),
        "G": (B, S, FFN),
        "Y2": (B, S, HIDDEN),
        "X2": (B, S, HIDDEN),
        "Wqkv": (HEADS, 3 * HEAD_DIM, HIDDEN),
        "Wo": (HIDDEN, HIDDEN),
        "Wgu": (FFN_TILES, 2 * FFN_COLS, HIDDEN),
        "Wd": (FFN, HIDDEN),
    }


def llama_layer(B: int, nt: int, structure: str) -> GraphBuilder:
    """Generate one layer's tasks into a GraphBuilder (as a materializer would)."""
    S = nt * TILE
    g = GraphBuilder(layer_shapes(B, nt))
    add = g.add_task
    R = TensorRegion
    IN, OUT, INOUT = "in", "out", "inout"
    wo = R("Wo", (0, 0), (HIDDEN, HIDDEN), None, IN)
    wd = R("Wd", (0, 0), (FFN, HIDDEN), None, IN)

    def row(t, b, i, access, cols=HIDDEN, c0=0):
        return R(t, (b, i * TILE, c0), (1, TILE, cols), None, access)

    def per_tile(kernel, make):
        for b in range(B):
            for i in range(nt):
                add(kernel, (b, i), make(b, i), (("b", b), ("t", i)), "vector")

    stages = [
        lambda: per_tile("rmsnorm", lambda b, i: (row("X", b, i, IN), row("Xn", b, i, OUT))),
        lambda: [
            add(
                "qkv",
                (b, h),
                (
                    R("Xn", (b, 0, 0), (1, S, HIDDEN), None, IN),
                    R("Wqkv", (h, 0, 0), (1, 3 * HEAD_DIM, HIDDEN), None, IN),
                    R("Q", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, OUT),
                    R("K", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, OUT),
                    R("V", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, OUT),
                ),
                (("b", b), ("h", h)),
                "cube",
            )
            for b in range(B)
            for h in range(HEADS)
        ],
        lambda: [
            add(
                "rope",
                (b, h),
                (
                    R("Q", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, INOUT),
                    R("K", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, INOUT),
                ),
                (("b", b), ("h", h)),
                "vector",
            )
            for b in range(B)
            for h in range(HEADS)
        ],
        lambda: [
            add(
                "attention",
                (b, h, i),
                (
                    R("Q", (b, h, i * TILE, 0), (1, 1, TILE, HEAD_DIM), None, IN),
                    R("K", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, IN),
                    R("V", (b, h, 0, 0), (1, 1, S, HEAD_DIM), None, IN),
                    row("O", b, i, OUT, HEAD_DIM, h * HEAD_DIM),
                ),
                (("b", b), ("h", h), ("t", i)),
                "cube",
            )
            for b in range(B)
            for h in range(HEADS)
            for i in range(nt)
        ],
        lambda: per_tile("o_proj", lambda b, i: (row("O", b, i, IN), wo, row("Y", b, i, OUT))),
        lambda: per_tile(
            "residual", lambda b, i: (row("X", b, i, IN), row("Y", b, i, IN), row("X1", b, i, OUT))
        ),
        lambda: per_tile("rmsnorm", lambda b, i: (row("X1", b, i, IN), row("Xn2", b, i, OUT))),
        lambda: [
            add(
                "gate_up",
                (b, i, f),
                (
                    row("Xn2", b, i, IN),
                    R("Wgu", (f, 0, 0), (1, 2 * FFN_COLS, HIDDEN), None, IN),
                    row("G", b, i, OUT, FFN_COLS, f * FFN_COLS),
                ),
                (("b", b), ("t", i), ("f", f)),
                "cube",
            )
            for b in range(B)
            for i in range(nt)
            for f in range(FFN_TILES)
        ],
        lambda: per_tile("down", lambda b, i: (row("G", b, i, IN, FFN), wd, row("Y2", b, i, OUT))),
        lambda: per_tile(
            "residual",
            lambda b, i: (row("X1", b, i, IN), row("Y2", b, i, IN), row("X2", b, i, OUT)),
        ),
    ]
    if structure == "seq":
        g.enter_ordered()
        for k, stage in enumerate(stages):
            if k:
                g.order_point()
            stage()
        g.exit_ordered()
    else:
        for stage in stages:
            stage()
    return g


def llama_workload(structure: str):
    """The same layer as a workload of the Python API (one parallel_for nest per stage, the
    regions of ``llama_layer``), for a Program (the native path)."""
    B, NT = sym("B"), sym("NT")

    def T(name, *shape):
        return Tensor(name, list(shape), f32)

    X, Xn, O, Y, X1, Xn2, Y2, X2 = (  # noqa: E741
        T(n, None, None, HIDDEN) for n in ("X", "Xn", "O", "Y", "X1", "Xn2", "Y2", "X2")
    )
    Q, K, V = (T(n, None, HEADS, None, HEAD_DIM) for n in ("Q", "K", "V"))
    G = T("G", None, None, FFN)
    Wqkv = T("Wqkv", HEADS, 3 * HEAD_DIM, HIDDEN)
    Wo = T("Wo", HIDDEN, HIDDEN)
    Wgu = T("Wgu", FFN_TILES, 2 * FFN_COLS, HIDDEN)
    Wd = T("Wd", FFN, HIDDEN)

    def rows(t):
        return slice(t * TILE, t * TILE + TILE)

    def per_tile(body):
        return parallel_for(DenseDyn(B), lambda b: parallel_for(DenseDyn(NT), lambda t: body(b, t)))

    heads = Dense[HEADS]
    stages = [
        per_tile(lambda b, t: task(rmsnorm, [b, t], [X[b, rows(t)], Xn[b, rows(t)]])),
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(
                heads, lambda h: task(qkv, [b, h], [Xn[b], Wqkv[h], Q[b, h], K[b, h], V[b, h]])
            ),
        ),
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(heads, lambda h: task(rope, [b, h], [Q[b, h], K[b, h]])),
        ),
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(
                heads,
                lambda h: parallel_for(
                    DenseDyn(NT),
                    lambda t: task(
                        attention,
                        [b, h, t],
                        [
                            Q[b, h, rows(t)],
                            K[b, h],
                            V[b, h],
                            O[b, rows(t), h * HEAD_DIM : h * HEAD_DIM + HEAD_DIM],
                        ],
                    ),
                ),
            ),
        ),
        per_tile(lambda b, t: task(o_proj, [b, t], [O[b, rows(t)], Wo, Y[b, rows(t)]])),
        per_tile(
            lambda b, t: task(residual, [b, t], [X[b, rows(t)], Y[b, rows(t)], X1[b, rows(t)]])
        ),
        per_tile(lambda b, t: task(rmsnorm, [b, t], [X1[b, rows(t)], Xn2[b, rows(t)]])),
        parallel_for(
            DenseDyn(B),
            lambda b: parallel_for(
                DenseDyn(NT),
                lambda t: parallel_for(
                    Dense[FFN_TILES],
                    lambda f: task(
                        gate_up,
                        [b, t, f],
                        [
                            Xn2[b, rows(t)],
                            Wgu[f],
                            G[b, rows(t), f * FFN_COLS : f * FFN_COLS + FFN_COLS],
                        ],
                    ),
                ),
            ),
        ),
        per_tile(lambda b, t: task(down, [b, t], [G[b, rows(t)], Wd, Y2[b, rows(t)]])),
        per_tile(
            lambda b, t: task(residual, [b, t], [X1[b, rows(t)], Y2[b, rows(t)], X2[b, rows(t)]])
        ),
    ]
    body = sequential(*stages) if structure == "seq" else combine(*stages)
    return body.named("llama_layer")


#: Each figure is the best of at least ``--repeat`` builds and of as many more as fit in this many
#: seconds of timed builds (``--min-time``, at most ``MAX_RUNS``): a 1k build takes ~0.1-1 ms,
#: and the best of a handful of them is still the process warming up (caches, allocator, branch
#: predictors) or a moment of the shared VM, not the build's steady rate.
MIN_TIME = 0.0
MAX_RUNS = 2000


def enough(runs: int, spent: float, repeat: int) -> bool:
    """Whether a measurement has run long enough: ``repeat`` runs, then ``MIN_TIME``."""
    return runs >= repeat and (spent >= MIN_TIME or runs >= MAX_RUNS)


#: Before each timed build, a full collection (``--collect each``) or one before the first
#: (``once``). The collector walks every object of the process (~10^5 here: xDSL,
#: numpy), which evicts the CPU caches: the build after it runs cold (~0.4 ms more at 1k).
COLLECT_EACH = False


def measure(B: int, nt: int, structure: str, repeat: int, paused: bool):
    """The best wall and CPU time of ``repeat`` or more (``enough``) runs of generation +
    inference + build(), and the graph."""
    best_wall = best_cpu = float("inf")
    graph = None
    gc.collect()
    runs, spent = 0, 0.0
    while not enough(runs, spent, repeat):
        graph = None
        if COLLECT_EACH or not paused:
            gc.collect()  # (with the collector on: each build from the same generations)
        ctx = gc_paused() if paused else contextlib.nullcontext()
        w0, c0 = time.perf_counter(), time.process_time()
        with ctx:
            graph = llama_layer(B, nt, structure).build()
        w1, c1 = time.perf_counter(), time.process_time()
        best_wall = min(best_wall, w1 - w0)
        best_cpu = min(best_cpu, c1 - c0)
        runs, spent = runs + 1, spent + (w1 - w0)
    return best_wall, best_cpu, graph


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per size")
    ap.add_argument(
        "--min-time",
        type=float,
        default=0.25,
        help="and more runs, until S seconds of timed runs per figure (at most "
        f"{MAX_RUNS} runs; 0: exactly --repeat)",
    )
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma list of " + ",".join(SIZES))
    ap.add_argument("--structure", default="data,seq", help="comma list of data, seq")
    ap.add_argument(
        "--gc",
        default="paused,on",
        help="comma list: paused (gc_paused(), as materializers do), on (per-task path only)",
    )
    ap.add_argument(
        "--collect",
        default="once",
        choices=("once", "each"),
        help="a full garbage collection before the first timed build (once) or before each "
        "(each: every build then starts with cold CPU caches)",
    )
    args = ap.parse_args(argv)
    global COLLECT_EACH, MIN_TIME
    COLLECT_EACH = args.collect == "each"
    if args.repeat < 1 or args.min_time < 0:
        ap.error("--repeat must be at least 1 and --min-time not negative")
    MIN_TIME = args.min_time

    print(
        "# graph build (task generation + dependency inference + CSR), best of "
        f"{args.repeat} runs and of as many more as fit in {MIN_TIME:g} s (at most {MAX_RUNS}); "
        f"full collection {'before each build' if COLLECT_EACH else 'once, builds back to back'}"
    )
    print(
        f"# python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cpus, {platform.platform()}, load average "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    print(f"# anchor: {ANCHOR}")
    header = (
        f"{'path':8} {'structure':9} {'gc':7} {'size':>5} {'tasks':>7} {'nodes':>7} "
        f"{'edges':>8} {'wall ms':>9} {'tasks/ms':>9} {'cpu t/ms':>9} {'anchor':>8} "
        f"{'of anchor':>9}"
    )

    def row(path, structure, mode, name, g, wall, cpu, note=""):
        rate = g.num_tasks / (wall * 1e3)
        print(
            f"{path:8} {structure:9} {mode:7} {name:>5} {g.num_tasks:>7} {g.num_nodes:>7} "
            f"{g.num_edges:>8} {wall * 1e3:>9.1f} {rate:>9.1f} "
            f"{g.num_tasks / (cpu * 1e3):>9.1f} {ANCHOR_TASKS_PER_MS:>8.0f} "
            f"{rate / ANCHOR_TASKS_PER_MS:>9.2%}{note}"
        )
        sys.stdout.flush()

    print(header)
    print("-" * len(header))
    for mode in args.gc.split(","):
        for structure in args.structure.split(","):
            for name in args.sizes.split(","):
                B, nt = SIZES[name]
                wall, cpu, g = measure(B, nt, structure, args.repeat, mode == "paused")
                row("per-task", structure, mode, name, g, wall, cpu)


if __name__ == "__main__":
    main()
