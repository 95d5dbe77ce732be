"""Ascend host benchmark: graph build + execution of the *emitted* program with no-op kernels,
on the LLaMA-7B-layer-shaped workload of bench/bench_graph_build.py, next to the 5,000
tasks/ms anchor and to the CPU simulator running the same module in the same run.

    python3 bench/bench_ascend_host.py [--repeat N] [--sizes 1k,13k,51k,200k] [--workers 1,2]
                                       [--sim-sizes 1k,13k] [--cpus 0]

The workload is written as a wsp workload (the ten stages of one layer, each a parallel_for of
tasks with the same regions as bench_graph_build.py: row tiles, per-(b, h) slices, head
columns of O, FFN column blocks of G; ``combine`` order, i.e. order from data only), lowered
with wsp-to-tg, emitted by lowering/ascend with stub (empty) kernels, built with g++ and run
by runtime/ascend_host: the emitted orchestration creates every task through the builder API
(TensorMap dependency inference, fanin/fanout), and worker threads run the no-op kernels as
their dependencies complete — build and execution overlap, as on the AICPU. The rate is
tasks / (orchestration start to the last task's completion), measured inside the runtime,
best of ``--repeat``. Beside it: the tasks per ms of the orchestrating thread's CPU time (the
build alone) and of all threads' CPU time (idle workers poll before they sleep, so theirs
includes waiting), and the machine's load average before and after (the machine may be
shared: the CPU figures are the steadier ones). Tensors are bound as ``Unbacked`` shapes (no
memory: the kernels are empty).

``--cpus`` runs the whole benchmark on the given CPUs (like ``taskset``; Linux): with one CPU
the orchestrator and its worker share it (the worker runs while the orchestrator waits or
is preempted), so the wall time is their CPU times added up.

The simulator column: the same module compiled with ``target="cpu_sim"`` (functional mode,
no-op Python kernels, ``np.empty`` arrays never touched), best of ``--repeat`` after a warm-up
run, at ``--sim-sizes``; the benchmark prints whether it found the same edges.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from bench_graph_build import layer_shapes  # the same tensors (run from bench/ or its parent)
from xdsl.context import Context

from pto_wsp.lowering.ascend import Unbacked, compile_module
from pto_wsp.tools.diagnostics import LocatingParser

ANCHOR_TASKS_PER_MS = 5000.0
ANCHOR = "5,000 tasks/ms (pto-isa-lh, a C runtime of this design: graph build on the host)"

HIDDEN, HEADS, HEAD_DIM, FFN, TILE, FFN_TILES = 4096, 32, 128, 11008, 64, 8
FFN_COLS = FFN // FFN_TILES  # 1376
# name -> (sequences B, row tiles nt): tasks = B * (nt * 46 + 64), as bench_graph_build.py
SIZES = {"1k": (1, 20), "13k": (4, 70), "51k": (8, 137), "200k": (16, 270)}

T = "memref<64x4096xf32>"  # a row tile
ROWS = "memref<?x4096xf32>"

WORKLOAD = f"""
wsp.kernel @rmsnorm(b: index, t: index, x: in {T}, y: out {T}) unit(vector)
wsp.kernel @qkv(b: index, h: index, x: in {ROWS}, w: in memref<384x4096xf32>, q: out memref<?x128xf32>, k: out memref<?x128xf32>, v: out memref<?x128xf32>) unit(cube)
wsp.kernel @rope(b: index, h: index, q: inout memref<?x128xf32>, k: inout memref<?x128xf32>) unit(vector)
wsp.kernel @attention(b: index, h: index, t: index, q: in memref<64x128xf32>, k: in memref<?x128xf32>, v: in memref<?x128xf32>, o: out memref<64x128xf32>) unit(cube)
wsp.kernel @o_proj(b: index, t: index, o: in {T}, w: in memref<4096x4096xf32>, y: out {T}) unit(cube)
wsp.kernel @residual(b: index, t: index, x: in {T}, y: in {T}, z: out {T}) unit(vector)
wsp.kernel @gate_up(b: index, t: index, f: index, x: in {T}, w: in memref<2752x4096xf32>, g: out memref<64x{FFN_COLS}xf32>) unit(cube)
wsp.kernel @down(b: index, t: index, g: in memref<64x{FFN}xf32>, w: in memref<{FFN}x4096xf32>, y: out {T}) unit(cube)

wsp.workload @llama_layer(%X: memref<?x?x4096xf32>, %Xn: memref<?x?x4096xf32>, %Q: memref<?x32x?x128xf32>, %K: memref<?x32x?x128xf32>, %V: memref<?x32x?x128xf32>, %O: memref<?x?x4096xf32>, %Y: memref<?x?x4096xf32>, %X1: memref<?x?x4096xf32>, %Xn2: memref<?x?x4096xf32>, %G: memref<?x?x{FFN}xf32>, %Y2: memref<?x?x4096xf32>, %X2: memref<?x?x4096xf32>, %Wqkv: memref<32x384x4096xf32>, %Wo: memref<4096x4096xf32>, %Wgu: memref<8x2752x4096xf32>, %Wd: memref<{FFN}x4096xf32>, %nb: index, %nt: index) {{
  %bs = wsp.dense_dyn %nb
  %ts = wsp.dense_dyn %nt
  %hs = wsp.dense 32
  %fs = wsp.dense 8
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1376 = arith.constant 1376 : index
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %x = wsp.view %X[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %y = wsp.view %Xn[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @rmsnorm(%b, %t : index, index) resources(%x, %y : {T}, {T})
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %h in %hs named("h") : !wsp.dense<32> {{
      %x = wsp.view %Xn[%b] : memref<?x?x4096xf32> -> {ROWS}
      %w = wsp.view %Wqkv[%h] : memref<32x384x4096xf32> -> memref<384x4096xf32>
      %q = wsp.view %Q[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
      %k = wsp.view %K[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
      %v = wsp.view %V[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
      wsp.task @qkv(%b, %h : index, index) resources(%x, %w, %q, %k, %v : {ROWS}, memref<384x4096xf32>, memref<?x128xf32>, memref<?x128xf32>, memref<?x128xf32>)
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %h in %hs named("h") : !wsp.dense<32> {{
      %q = wsp.view %Q[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
      %k = wsp.view %K[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
      wsp.task @rope(%b, %h : index, index) resources(%q, %k : memref<?x128xf32>, memref<?x128xf32>)
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %h in %hs named("h") : !wsp.dense<32> {{
      wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
        %r = arith.muli %t, %c64 : index
        %c = arith.muli %h, %c128 : index
        %q = wsp.view %Q[%b, %h, %r:+64] : memref<?x32x?x128xf32> -> memref<64x128xf32>
        %k = wsp.view %K[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
        %v = wsp.view %V[%b, %h] : memref<?x32x?x128xf32> -> memref<?x128xf32>
        %o = wsp.view %O[%b, %r:+64, %c:+128] : memref<?x?x4096xf32> -> memref<64x128xf32>
        wsp.task @attention(%b, %h, %t : index, index, index) resources(%q, %k, %v, %o : memref<64x128xf32>, memref<?x128xf32>, memref<?x128xf32>, memref<64x128xf32>)
      }}
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %o = wsp.view %O[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %y = wsp.view %Y[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @o_proj(%b, %t : index, index) resources(%o, %Wo, %y : {T}, memref<4096x4096xf32>, {T})
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %x = wsp.view %X[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %y = wsp.view %Y[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %z = wsp.view %X1[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @residual(%b, %t : index, index) resources(%x, %y, %z : {T}, {T}, {T})
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %x = wsp.view %X1[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %y = wsp.view %Xn2[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @rmsnorm(%b, %t : index, index) resources(%x, %y : {T}, {T})
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      wsp.parallel_for %f in %fs named("f") : !wsp.dense<8> {{
        %r = arith.muli %t, %c64 : index
        %c = arith.muli %f, %c1376 : index
        %x = wsp.view %Xn2[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
        %w = wsp.view %Wgu[%f] : memref<8x2752x4096xf32> -> memref<2752x4096xf32>
        %g = wsp.view %G[%b, %r:+64, %c:+1376] : memref<?x?x{FFN}xf32> -> memref<64x{FFN_COLS}xf32>
        wsp.task @gate_up(%b, %t, %f : index, index, index) resources(%x, %w, %g : {T}, memref<2752x4096xf32>, memref<64x{FFN_COLS}xf32>)
      }}
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %g = wsp.view %G[%b, %r:+64] : memref<?x?x{FFN}xf32> -> memref<64x{FFN}xf32>
      %y = wsp.view %Y2[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @down(%b, %t : index, index) resources(%g, %Wd, %y : memref<64x{FFN}xf32>, memref<{FFN}x4096xf32>, {T})
    }}
  }}
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {{
    wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {{
      %r = arith.muli %t, %c64 : index
      %x = wsp.view %X1[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %y = wsp.view %Y2[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      %z = wsp.view %X2[%b, %r:+64] : memref<?x?x4096xf32> -> {T}
      wsp.task @residual(%b, %t : index, index) resources(%x, %y, %z : {T}, {T}, {T})
    }}
  }}
}}
"""


def bindings(B: int, nt: int) -> dict:
    values: dict = {name: Unbacked(shape) for name, shape in layer_shapes(B, nt).items()}
    values.update(nb=B, nt=nt)
    return values


def parse_layer():
    ctx = Context()
    from xdsl.universe import Universe

    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, WORKLOAD, "llama_layer.mlir", 0).parse_module()


def compile_layer():
    module = parse_layer()
    start = time.perf_counter()
    program = compile_module(module, host=True, stub_kernels=True)
    return program, time.perf_counter() - start


KERNELS = ("rmsnorm", "qkv", "rope", "attention", "o_proj", "residual", "gate_up", "down")


def _noop(*_args):
    return None


def simulator_rates(sizes: list[str], repeat: int) -> dict[str, tuple[float, float, int]]:
    """The CPU simulator (``target="cpu_sim"``, functional mode, no-op Python kernels) on the
    same module: size -> (tasks/ms wall, tasks/ms CPU, edges), best of ``repeat`` runs. The
    arrays are ``np.empty`` (never touched by the no-op bodies, so never paged in)."""
    import numpy as np

    import pto_wsp

    if not sizes:
        return {}
    program = pto_wsp.compile(
        parse_layer(), target="cpu_sim", kernels=dict.fromkeys(KERNELS, _noop)
    )
    rates = {}
    for size in sizes:
        B, nt = SIZES[size]
        values = {
            name: np.empty(v.shape, np.float32) if isinstance(v, Unbacked) else v
            for name, v in bindings(B, nt).items()
        }
        program.bind(**values)
        program.execute()  # warm-up: the first run also generates and compiles the program
        best = None
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            program.execute()
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            if best is None or wall < best[0]:
                best = (wall, cpu)
        assert best is not None
        stats = program.stats()
        rates[size] = (
            stats.num_tasks / (best[0] * 1e3),
            stats.num_tasks / (best[1] * 1e3),
            stats.num_edges,
        )
    return rates


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="1k,13k,51k,200k")
    parser.add_argument("--workers", default="1,2", help="host worker threads, comma-separated")
    parser.add_argument(
        "--sim-sizes",
        default="1k,13k",
        help="sizes also run on the CPU simulator, beside the host runtime ('' for none)",
    )
    parser.add_argument(
        "--cpus", default="", help="run on these CPUs only, comma-separated (like taskset)"
    )
    args = parser.parse_args(argv)
    for option, sizes in (("--sizes", args.sizes), ("--sim-sizes", args.sim_sizes)):
        unknown = [s for s in sizes.split(",") if s and s not in SIZES]
        if unknown:
            parser.error(f"{option}: unknown size {unknown[0]!r} (sizes: {', '.join(SIZES)})")
    if args.cpus:
        try:
            os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
        except (AttributeError, OSError, ValueError) as e:
            parser.error(f"--cpus {args.cpus}: {e}")
    import warnings

    warnings.simplefilter("ignore")
    stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # the stub-kernel warnings
    try:
        program, compile_s = compile_layer()
        sim = simulator_rates([s for s in args.sim_sizes.split(",") if s], args.repeat)
    finally:
        sys.stderr.close()
        sys.stderr = stderr
    print(f"anchor: {ANCHOR}")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}; load average {load_average()}"
        + (f"; pinned to CPUs {args.cpus}" if args.cpus else "")
    )
    print(f"emit + g++ (or cache): {compile_s:.1f} s; library {program.library.name}")
    print(
        "tasks/ms = tasks / (orchestration start to the last completion), wall; CPU rates: "
        "tasks per ms of the orchestrating thread's CPU (build) and of all threads' (idle "
        "workers poll before they sleep, so theirs includes waiting)"
    )
    header = (
        f"{'workers':>7} {'tasks':>8} {'edges':>9} {'build ms':>9} {'total ms':>9} "
        f"{'tasks/ms':>9} {'of anchor':>9} {'orch CPU ms':>11} {'worker CPU ms':>13} "
        f"{'tasks/orch-CPU-ms':>17} {'tasks/CPU-ms':>12}  simulator, same run: tasks/ms (CPU)"
    )
    print(header)
    for workers in [int(w) for w in args.workers.split(",")]:
        program.workers = workers
        for size in args.sizes.split(","):
            B, nt = SIZES[size]
            best = None
            for _ in range(args.repeat):
                program.execute(**bindings(B, nt))
                stats = program.stats()
                if best is None or stats.execute_time_ms < best.execute_time_ms:
                    best = stats
            assert best is not None
            assert best.num_tasks == B * (nt * 46 + 64)
            rate = best.num_tasks / best.execute_time_ms
            orch_rate = best.num_tasks / max(best.build_cpu_ms, 1e-9)
            cpu_rate = best.num_tasks / (best.build_cpu_ms + best.worker_cpu_ms)
            side = ""
            if size in sim:
                s_wall, s_cpu, s_edges = sim[size]
                same = "same edges" if s_edges == best.num_edges else f"{s_edges:,} edges!"
                side = f"  {s_wall:,.1f} ({s_cpu:,.1f}), {same}; host runtime {rate / s_wall:,.0f}x"
            print(
                f"{workers:>7} {best.num_tasks:>8,} {best.num_edges:>9,} "
                f"{best.build_time_ms:>9.1f} {best.execute_time_ms:>9.1f} {rate:>9,.0f} "
                f"{rate / ANCHOR_TASKS_PER_MS:>9.0%} {best.build_cpu_ms:>11.1f} "
                f"{best.worker_cpu_ms:>13.1f} {orch_rate:>17,.0f} {cpu_rate:>12,.0f}{side}"
            )
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
