"""The ``profiling`` and ``debug`` compile options of the CPU simulator (seed 001 §7.2).

``profiling=True``: each kernel body is wrapped to record its wall time (``timed_specs``);
``Stats.kernel_calls`` and ``Stats.kernel_ms`` sum them per kernel. ``debug=True``: after
every run, ``check_schedule`` verifies the simulator's own invariants on the schedule it
produced — every task ran once, none started before a predecessor ended — so a scheduler
bug shows as an error instead of a silently wrong order.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pto_wsp.lowering.taskgraph import KIND_TASK, TaskGraph
from pto_wsp.runtime.kernels import KernelSpec

__all__ = ["check_schedule", "profile_totals", "timed_specs"]


def _timed(body: Callable[..., Any], samples: list[float]) -> Callable[..., Any]:
    clock = time.perf_counter

    def run(*args: Any) -> Any:
        start = clock()
        try:
            return body(*args)
        finally:
            samples.append(clock() - start)  # (list.append is atomic: threads=N is safe)

    return run


def timed_specs(
    kernels: Mapping[str, KernelSpec], samples: dict[str, list[float]]
) -> dict[str, KernelSpec]:
    """``kernels`` with each body wrapped to append its wall time to ``samples[name]``."""
    out = {}
    for name, spec in kernels.items():
        if spec.body is not None:
            samples[name] = []
            spec = dataclasses.replace(spec, body=_timed(spec.body, samples[name]))
        out[name] = spec
    return out


def profile_totals(samples: Mapping[str, list[float]]) -> tuple[dict[str, int], dict[str, float]]:
    """(calls, wall milliseconds) per kernel."""
    calls = {name: len(s) for name, s in samples.items()}
    ms = {name: float(np.sum(s)) * 1e3 for name, s in samples.items()}
    return calls, ms


def check_schedule(graph: TaskGraph, start: Any, end: Any, label: str) -> None:
    """Raise a RuntimeError when the run's ``start``/``end`` times (per node) break the graph:
    a task that did not run, or one that started before a predecessor ended."""
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    tasks = graph.kind == KIND_TASK
    missing = np.flatnonzero(tasks & ((start < 0) | (end < start)))
    if missing.size:
        raise RuntimeError(
            f"internal error (debug check) in {label}: task {missing[0]} did not run"
        )
    src, dst = graph.edges()
    early = np.flatnonzero(tasks[dst] & (start[dst] < end[src]))
    if early.size:
        e = early[0]
        raise RuntimeError(
            f"internal error (debug check) in {label}: task {dst[e]} started at {start[dst[e]]} "
            f"before its predecessor {src[e]} ended at {end[src[e]]}"
        )
