"""Vectorised dependency inference (runtime/bulk.py) on the graph-build benchmark's workload.

    python3 bench/bench_sim_bulk.py [--sizes 1k,13k,51k,200k] [--repeat 3] [--check 1k]

The LLaMA-7B-layer workload of ``bench_graph_build.py`` (``data`` structure: order from data
only), described as ten *stages* of tasks over fine tile grids — row tiles (b, t) of the
activations, (b, h, t) of Q, (b, h) of K and V, (b, t, head) of O, (b, t, ffn tile) of G — and
built with ``TileGraphBuilder``: every stage's edges are a few numpy gathers instead of one
TensorMap access per task and region. ``--check`` sizes also build the same workload with the
per-task ``GraphBuilder`` and assert that both give exactly the same edges (with their kinds).
Anchor: 5,000 tasks/ms (pto-isa-lh graph build), next to the per-task path's rate in the same
run. What is timed: the stages' tile arrays and the inference; not yet connected to the code
generator (docs/PERFORMANCE.md says what is missing).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_graph_build import FFN_TILES, HEADS, SIZES, llama_layer  # noqa: E402

from pto_wsp.runtime.bulk import TileGraphBuilder  # noqa: E402
from pto_wsp.runtime.graph import gc_paused  # noqa: E402

ANCHOR = 5000.0


def llama_stages(B: int, nt: int) -> TileGraphBuilder:
    """The benchmark's layer as ten stages over tile grids, in GraphBuilder's creation order."""
    H, F = HEADS, FFN_TILES
    rows = B * nt
    g = TileGraphBuilder(
        {
            **dict.fromkeys(("X", "Xn", "Y", "X1", "Xn2", "Y2", "X2"), rows),
            "Q": B * H * nt,
            "K": B * H,
            "V": B * H,
            "O": rows * H,
            "G": rows * F,
            "Wqkv": H,
            "Wo": 1,
            "Wgu": F,
            "Wd": 1,
        }
    )
    row = np.arange(rows)[:, None]  # task (b, t) -> row tile b * nt + t
    bh = np.arange(B * H)  # task (b, h)
    b_of_bh = bh // H
    t_all = np.arange(nt)
    g.add_stage(rows, [("X", "in", row), ("Xn", "out", row)])
    xn_rows = b_of_bh[:, None] * nt + t_all  # Xn[b, :, :] = all row tiles of b
    q_rows = bh[:, None] * nt + t_all  # Q[b, h] = all its row tiles
    g.add_stage(
        B * H,
        [
            ("Xn", "in", xn_rows),
            ("Wqkv", "in", (bh % H)[:, None]),
            ("Q", "out", q_rows),
            ("K", "out", bh[:, None]),
            ("V", "out", bh[:, None]),
        ],
    )
    g.add_stage(B * H, [("Q", "inout", q_rows), ("K", "inout", bh[:, None])])
    bht = np.arange(B * H * nt)  # task (b, h, t)
    b, h, t = bht // (H * nt), bht // nt % H, bht % nt
    g.add_stage(
        B * H * nt,
        [
            ("Q", "in", bht[:, None]),
            ("K", "in", (b * H + h)[:, None]),
            ("V", "in", (b * H + h)[:, None]),
            ("O", "out", ((b * nt + t) * H + h)[:, None]),
        ],
    )
    o_heads = row * H + np.arange(H)  # O[b, t, :] = the tile's H head blocks
    g.add_stage(rows, [("O", "in", o_heads), ("Wo", "in", np.zeros((rows, 1))), ("Y", "out", row)])
    g.add_stage(rows, [("X", "in", row), ("Y", "in", row), ("X1", "out", row)])
    g.add_stage(rows, [("X1", "in", row), ("Xn2", "out", row)])
    btf = np.arange(rows * F)  # task (b, t, f)
    g.add_stage(
        rows * F,
        [
            ("Xn2", "in", (btf // F)[:, None]),
            ("Wgu", "in", (btf % F)[:, None]),
            ("G", "out", btf[:, None]),
        ],
    )
    g_tiles = row * F + np.arange(F)
    g.add_stage(rows, [("G", "in", g_tiles), ("Wd", "in", np.zeros((rows, 1))), ("Y2", "out", row)])
    g.add_stage(rows, [("X1", "in", row), ("Y2", "in", row), ("X2", "out", row)])
    return g


def check(B: int, nt: int) -> int:
    """Assert the bulk edges equal GraphBuilder's; return the number of edges."""
    reference = llama_layer(B, nt, "data").build()
    src, dst = reference.edges()
    ref = set(zip(src.tolist(), dst.tolist(), reference.edge_kind.tolist()))
    s, d, k = llama_stages(B, nt).edges()
    bulk = set(zip(s.tolist(), d.tolist(), k.tolist()))
    assert len(bulk) == len(s), "duplicate edges"
    assert bulk == ref, f"{len(bulk ^ ref)} edges differ"
    return len(ref)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", default="1k", help="sizes to compare with GraphBuilder")
    args = parser.parse_args()
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
        f"numpy {np.__version__}; best of {args.repeat}; anchor {ANCHOR:,.0f} tasks/ms"
    )
    for size in [s for s in args.check.split(",") if s]:
        edges = check(*SIZES[size])
        print(f"check {size:>5}: bulk edges == GraphBuilder edges ({edges:,} edges, with kinds)")
    for size in args.sizes.split(","):
        B, nt = SIZES[size]
        best_bulk = best_task = float("inf")
        for _ in range(args.repeat):
            with gc_paused():
                start = time.perf_counter()
                g = llama_stages(B, nt)
                g.edges()
                best_bulk = min(best_bulk, time.perf_counter() - start)
        tasks = g.num_tasks
        line = (
            f"{size:>5}: {tasks:>7,} tasks, bulk {best_bulk * 1e3:8.1f} ms = "
            f"{tasks / (best_bulk * 1e3):9,.0f} tasks/ms ({tasks / (best_bulk * 1e3) / ANCHOR:.0%} "
            "of anchor)"
        )
        if tasks <= 60000:
            with gc_paused():
                start = time.perf_counter()
                llama_layer(B, nt, "data").build()
                best_task = time.perf_counter() - start
            line += f" | per-task GraphBuilder {tasks / (best_task * 1e3):6,.1f} tasks/ms"
        print(line, flush=True)


if __name__ == "__main__":
    main()
