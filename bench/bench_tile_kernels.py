"""Tile kernels on the CPU: compile time, a matmul against numpy, and the simulator's task rate.

    python3 bench/bench_tile_kernels.py [--repeat N] [--tasks 13000]

1. Compiling a tile kernel natively as a user meets it: a fresh process with an empty cache
   of compiled kernels (``$PTO_WSP_CACHE`` a temp dir), tracing the kernel and compiling it
   (upstream text, upstream MLIR's lowering and JIT) until it can be called; the disk cache
   is written in the background meanwhile (also printed: the wall time until it is written).
   Per kernel: elementwise, reductions, the matmul, softmax, RMSNorm and the kernels of
   examples/tile_kernels.py; each compiled after another kernel (the steady cost) and first
   in its process (importing upstream MLIR, its context and the JIT's start-up included).
   Wall and CPU milliseconds (the process's and its finished children's: the linker).
   Anchor: at most 100 ms.
2. A 64x64x64 f32 tile matmul (load, load, matmul, store) called on numpy arrays, per call, next
   to ``np.matmul(a, b, out=c)`` in the same run. Anchor: within 4x of numpy.
3. The simulator in functional mode on ``--tasks`` tasks of a 16x16 tile kernel (load, scale,
   add, store), next to the same workload with a no-op Python body (anchor: at least half the
   no-op rate) and with a numpy body doing the same work.

Figures are best of ``--repeat``; the machine may be shared (its load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f32, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.frontend.tile import trace
from pto_wsp.lowering.cpu import tile
from pto_wsp.lowering.cpu.tile import compile_tile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import tile_kernels as examples  # noqa: E402


def compiled(k):
    return compile_tile(trace(k.fn, f"{k.name}_tile", k.params, k.name, k.loc))


@kernel
def softmax(x: In[f32[16, 64]], y: Out[f32[16, 64]]):
    t = pl.load(x)
    e = pl.row_expand_exp_sub(t, pl.row_max(t))
    pl.store(pl.row_expand_div(e, pl.row_sum(e)), y)


@kernel
def rmsnorm(x: In[f32[16, 64]], g: In[f32[1, 64]], y: Out[f32[16, 64]]):
    t = pl.load(x)
    r = pl.rsqrt(pl.row_sum(t * t) * (1 / 64) + 1e-6)
    pl.store(pl.col_expand_mul(pl.row_expand_mul(t, r), pl.load(g)), y)


@kernel
def mm(a: In[f32[64, 64]], b: In[f32[64, 64]], c: Out[f32[64, 64]]):
    pl.store(pl.matmul(pl.load(a), pl.load(b)), c)


@kernel
def axpy(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(t * 2.0 + t, y)


@kernel
def noop(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    pass


@kernel
def numpy_axpy(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    np.add(x * np.float32(2), x, out=y)


@kernel
def elementwise(x: In[f32[16, 64]], y: Out[f32[16, 64]]):
    t = pl.load(x)
    pl.store(pl.exp(t + t) * t - t, y)


@kernel
def reductions(x: In[f32[16, 64]], s: Out[f32[16, 1]], m: Out[f32[16, 1]]):
    t = pl.load(x)
    pl.store(pl.row_sum(t), s)
    pl.store(pl.row_max(t), m)


#: The kernels whose compile time is measured, by kind.
COMPILED = {
    "elementwise": elementwise,
    "reductions": reductions,
    "matmul 64^3": mm,
    "softmax": softmax,
    "rmsnorm": rmsnorm,
    "ex. add_rmsnorm": examples.add_rmsnorm,
    "ex. scores": examples.scores,
    "ex. weighted": examples.weighted,
    "ex. expert_gemm": examples.expert_gemm,
}


def _clock() -> tuple[float, float]:
    """Wall and CPU seconds (this process's and its children's: the linker)."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return time.perf_counter(), cpu


def compile_child(names: list[str]) -> None:
    """In a fresh process: compile ``names`` in order; print per kernel the (wall, cpu) ms
    until it can be called and the wall ms until it is also on disk (written meanwhile)."""
    out = {}
    for name in names:
        w0, c0 = _clock()
        compiled(COMPILED.get(name, axpy))  # anything else: the warm-up
        w1, c1 = _clock()
        tile.flush()
        out[name] = ((w1 - w0) * 1e3, (c1 - c0) * 1e3, (time.perf_counter() - w0) * 1e3)
    print(json.dumps(out))


def _fresh(names: list[str], cache: Path) -> dict:
    for lib in (cache / "programs").glob("*"):
        lib.unlink()
    env = dict(os.environ, PTO_WSP_CACHE=str(cache))
    cmd = [sys.executable, __file__, "--compile-child", *names]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def bench_compile() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        (cache / "programs").mkdir()
        names = list(COMPILED)
        # Steady: after a warm-up kernel (a variant of none of these) in the same process.
        steady = _fresh(["warm-up", *names], cache)
        first = {name: _fresh([name], cache)[name] for name in names}
    print(
        "compile a tile kernel, fresh process, empty cache: ms wall / cpu until callable"
        " (and wall until also cached on disk, written in the background meanwhile)"
    )
    for name in names:
        (sw, sc, sd), (fw, fc, fd) = steady[name], first[name]
        print(
            f"  {name:16s} steady {sw:4.0f} / {sc:3.0f} ({sd:4.0f})"
            f"   first in process {fw:4.0f} / {fc:3.0f} ({fd:4.0f})"
        )
    worst = max(steady[n][0] for n in names)
    print(f"  slowest steady: {worst:.0f} ms wall   (anchor: <= 100 ms)")


def bench_matmul(repeat: int) -> None:
    f = compiled(mm)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 64, 64), dtype=np.float32)
    c, d = np.empty_like(a), np.empty_like(a)
    f(a, b, c)
    np.matmul(a, b, out=d)
    assert np.allclose(c, d, rtol=1e-4, atol=1e-4)
    n = 2000
    ours = min(timeit.repeat(lambda: f(a, b, c), number=n, repeat=repeat)) / n * 1e6
    theirs = min(timeit.repeat(lambda: np.matmul(a, b, out=d), number=n, repeat=repeat)) / n * 1e6
    print(
        f"64x64x64 f32 matmul: {ours:.1f} us per call, numpy {theirs:.1f} us: "
        f"{ours / theirs:.1f}x   (anchor: within 4x)"
    )


def _rate(k, tasks: int, repeat: int) -> float:
    X = Tensor("X", [tasks, 16, 16], f32)
    Y = Tensor("Y", [tasks, 16, 16], f32)
    w = parallel_for(Dense[tasks], lambda i: k(X[i], Y[i])).named(f"w_{k.name}")
    prog = pw.compile(w, target="cpu_sim")
    x = np.ones((tasks, 16, 16), np.float32)
    y = np.zeros_like(x)
    best = float("inf")
    for _ in range(repeat + 1):  # the first run warms up
        prog.bind(X=x, Y=y)
        t0 = time.perf_counter()
        prog.execute()
        best = min(best, time.perf_counter() - t0)
    if k is not noop:
        assert np.all(y == 3.0)
    return tasks / best / 1e3


def bench_simulator(tasks: int, repeat: int) -> None:
    _rate(axpy, 64, 0)  # the process's first cpu_sim program runs slower: not this figure
    tile = _rate(axpy, tasks, repeat)
    empty = _rate(noop, tasks, repeat)
    numpy_body = _rate(numpy_axpy, tasks, repeat)
    print(
        f"simulator, {tasks} tasks of 16x16 tiles: tile kernels {tile:.0f} tasks/ms, "
        f"no-op bodies {empty:.0f} tasks/ms: {tile / empty:.2f} of it   (anchor: >= 0.5); "
        f"the same work as a numpy body: {numpy_body:.0f} tasks/ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=13000)
    parser.add_argument("--compile-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_child:
        compile_child(args.compile_child)
        return
    print(f"load average: {os.getloadavg()[0]:.1f}")
    bench_compile()
    bench_matmul(args.repeat)
    bench_simulator(args.tasks, args.repeat)
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
