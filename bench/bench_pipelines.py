"""Pipeline (CSP) benchmark: a Program running the examples' pipelines on the native core,
next to the reference point of a threaded C++ simulator of this design.

    python3 bench/bench_pipelines.py [--sizes 8k,24k] [--repeat 5] [--mode cycles|functional]

Pipelines run on the native core (docs/simulator.md "Pipelines"): processes are Python
generators interleaved with the tasks they issue in virtual time; the core builds, infers and
schedules those tasks. Two programs of
examples/ written with the Python API:

- ``megakernel``: loader -> computer -> storer over ``num_tiles`` tiles, two bounded
  channels, one task per stage per tile (3 tasks a tile);
- ``work_steal``: a generator sends one attention task per (b, h) (8 heads) into a shared
  queue of capacity 1,024, four replicas of a worker consume it (8 tasks a batch entry).

Tensors are zero-stride arrays in cycles mode (no memory); functional mode binds real arrays
(the megakernel's bodies copy and square 64-float tiles; work_steal's attention bodies are
empty). Each figure: tasks per ms of wall time of the whole ``execute()`` (generation,
inference, scheduling, bodies), best of ``--repeat`` runs of one Program after a first run.

The reference point: the C++ reference prototype's threaded simulator runs 233.7 tasks/ms end
to end on a 512-task batched GEMM (shared/reference/ascend.md) — another workload, no CSP,
no dependency inference: a scale, not a like-for-like anchor.
"""

from __future__ import annotations

import argparse
import os
import platform
import runpy
import sys
import time

import numpy as np

import pto_wsp

REFERENCE = 233.7
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
# name -> tasks per unit of the size symbol
SIZES = {"8k": 8000, "24k": 24000, "48k": 48000}


def _zeros(*shape: int, functional: bool) -> np.ndarray:
    if functional:
        return np.zeros(shape, np.float32)
    return np.broadcast_to(np.zeros((), np.float32), shape)


def megakernel(tasks: int, functional: bool) -> tuple[object, dict]:
    n = tasks // 3
    values = {
        name: _zeros(n, 64, functional=functional)
        for name in ("input", "output", "tile_buf", "result_buf")
    }
    return "megakernel", {"num_tiles": n, **values}


def work_steal(tasks: int, functional: bool) -> tuple[object, dict]:
    b = tasks // 8
    z = _zeros
    values = {
        "Q": z(b, 8, 64, 64, functional=functional),
        "K": z(b, 64, 64, functional=functional),
        "V": z(b, 64, 64, functional=functional),
        "O": z(b, 8, 64, 64, functional=functional),
    }
    return "work_steal", {"batch_size": b, **values}


def run(example: str, values: dict, mode: str, repeat: int) -> tuple[int, float, float]:
    module = runpy.run_path(os.path.join(EXAMPLES, f"{example}.py"), run_name="bench")
    program = pto_wsp.compile(module["functional"](), target="cpu_sim", mode=mode, workers=4)
    program.bind(**values)
    start = time.perf_counter()
    program.execute()
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        program.execute()
        best = min(best, time.perf_counter() - start)
    return program.stats().num_tasks, best, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8k,24k")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mode", choices=("cycles", "functional"), default="cycles")
    args = parser.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    for s in sizes:
        if s not in SIZES:
            parser.error(f"unknown size {s!r} (known: {', '.join(SIZES)})")
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"{args.mode} mode, 4 workers, best of {args.repeat}; load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(f"# reference: {REFERENCE} tasks/ms (the C++ prototype's threaded simulator, GEMM)")
    for name, make in (("megakernel", megakernel), ("work_steal", work_steal)):
        for s in sizes:
            example, values = make(SIZES[s], args.mode == "functional")
            n, best, first = run(example, values, args.mode, args.repeat)
            print(
                f"{name:11s} {s:>4s}: {n:7,d} tasks  {best * 1e3:8.1f} ms = "
                f"{n / best / 1e3:7.1f} tasks/ms ({n / best / 1e3 / REFERENCE:6.1%} of "
                f"{REFERENCE}; first run {n / first / 1e3:.1f})"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
