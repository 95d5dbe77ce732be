"""Pictures of a simulator run: a Chrome/Perfetto trace and a Gantt chart.

``chrome_trace(program, path)`` is the Trace Event Format (open it in ui.perfetto.dev or
chrome://tracing): one track per worker with a slice per task — named
``kernel(b=0, h=1)``, its arguments the task id, kernel, coordinates, stream and cycles —,
one track per stream with the same slices (only when the schedule declares streams), and
the stalls as async slices named by cause (the generator waiting on the task window, a
process blocked on a channel, a task held by a pipeline_depth gate). Time is virtual: one
microsecond of the trace is ``cycles_per_ms / 1000`` cycles (1,000 at the default 1 GHz).

``write_gantt(program, path)`` draws the worker tracks with matplotlib (PNG).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

__all__ = ["chrome_trace", "write_gantt"]

_WORKERS_PID = 1
_STREAMS_PID = 2
_STALLS_PID = 3


def _label(kernel: str, coords: dict[str, int]) -> str:
    inner = ", ".join(f"{k}={v}" for k, v in coords.items())
    return f"{kernel}({inner})"


def chrome_trace(program: Any, path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The last run of ``program`` in the Trace Event Format (a JSON-ready dict), also
    written to ``path`` as JSON when one is given."""
    trace = _trace_events(program)
    if path is not None:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(trace, file)
            file.write("\n")
    return trace


def _trace_events(program: Any) -> dict[str, Any]:
    sim = program._last()
    per_us = program.config.cycles_per_ms / 1000.0
    events: list[dict[str, Any]] = [
        _meta(_WORKERS_PID, None, "process_name", f"@{program.name} workers"),
        _meta(_WORKERS_PID, None, "process_sort_index", 0),
    ]
    for w in range(sim.n_workers):
        pool = ("vector", "cube")[sim.worker_pool[w]] if sim.worker_pool[w] in (0, 1) else "any"
        events.append(_meta(_WORKERS_PID, w, "thread_name", f"worker {w} ({pool})"))
        events.append(_meta(_WORKERS_PID, w, "thread_sort_index", w))
    streams = bool(program.config.streams)
    if streams:
        events.append(_meta(_STREAMS_PID, None, "process_name", "streams"))
        events.append(_meta(_STREAMS_PID, None, "process_sort_index", 1))
    lanes: set[int] = set()
    for t in program.schedule_of():
        if t["start"] < 0:
            continue
        name = _label(t["kernel"], t["coords"])
        args = {
            "task": t["id"],
            "kernel": t["kernel"],
            "coords": t["coords"],
            "stream": t["stream"],
            "cycles": t["end"] - t["start"],
            "start_cycle": t["start"],
        }
        spec = program.kernels.get(t["kernel"])
        if spec is not None and spec.derived_cost:
            args["cost"] = "derived from its tile ops"
        slice_ = {
            "name": name,
            "cat": "task",
            "ph": "X",
            "ts": t["start"] / per_us,
            "dur": (t["end"] - t["start"]) / per_us,
            "pid": _WORKERS_PID,
            "tid": t["worker"],
            "args": args,
        }
        events.append(slice_)
        if streams:
            lane = sim.lane[t["id"]]
            if lane not in lanes:
                lanes.add(lane)
                worker = lane // program.config.streams - 1
                where = f"worker {worker}" if worker >= 0 else "any worker"
                label = f"stream {t['stream']} ({where})"
                events.append(_meta(_STREAMS_PID, lane, "thread_name", label))
            events.append(dict(slice_, pid=_STREAMS_PID, tid=lane))
    if sim.stall_spans:
        events.append(_meta(_STALLS_PID, None, "process_name", "stalls"))
        events.append(_meta(_STALLS_PID, None, "process_sort_index", 2))
    for n, (cause, who, t0, t1) in enumerate(sim.stall_spans):
        common = {"name": f"{cause}: {who}", "cat": cause, "pid": _STALLS_PID, "id": n}
        events.append(dict(common, ph="b", ts=t0 / per_us, tid=0))
        events.append(dict(common, ph="e", ts=t1 / per_us, tid=0))
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "program": program.name,
            "mode": program.mode,
            "cycles_per_us": per_us,
            "makespan_cycles": max((e for e in sim.end if e >= 0), default=0.0),
        },
    }


def _meta(pid: int, tid: int | None, name: str, value: Any) -> dict[str, Any]:
    key = "sort_index" if name.endswith("sort_index") else "name"
    event: dict[str, Any] = {"name": name, "ph": "M", "pid": pid, "args": {key: value}}
    if tid is not None:
        event["tid"] = tid
    return event


def write_gantt(program: Any, path: str, title: str | None = None) -> None:
    """Draw the last run as a Gantt chart (a row per worker, a bar per task) into ``path``.

    All bars are one ``PolyCollection`` (one artist, whatever the number of tasks): a
    rectangle per task on its worker's row, coloured by kernel, outlined while there are at
    most ``_OUTLINED`` tasks (beyond, outlines would cover the bars), labelled with the
    task's coordinates while there are at most 64."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    sim = program._last()
    ids, start, end, row, kernel, names = _bars(sim)
    kernels = sorted({names[k] for k in np.unique(kernel).tolist()})
    cmap = plt.get_cmap("tab10" if len(kernels) <= 10 else "tab20")
    colors = {k: cmap(i % cmap.N) for i, k in enumerate(kernels)}
    table = np.array([colors.get(name, (0, 0, 0, 1)) for name in names] or [(0, 0, 0, 1)])
    height = max(2.0, 0.45 * sim.n_workers + 1.2)
    fig, ax = plt.subplots(figsize=(11, height))
    verts = np.empty((len(ids), 4, 2))
    verts[:, 0, 0] = verts[:, 1, 0] = start
    verts[:, 2, 0] = verts[:, 3, 0] = end
    verts[:, 0, 1] = verts[:, 3, 1] = row - 0.4
    verts[:, 1, 1] = verts[:, 2, 1] = row + 0.4
    outlined = len(ids) <= _OUTLINED
    bars = PolyCollection(
        verts,
        facecolors=table[kernel],
        edgecolors="black" if outlined else "face",
        linewidths=0.3 if outlined else 0.0,
    )
    ax.add_collection(bars)
    if len(ids):
        ax.set_xlim(0.0, max(float(end.max()), 1.0) * 1.01)
    ax.set_ylim(sim.n_workers - 0.5, -0.5)  # worker 0 on top
    if len(ids) <= 64:
        for t in (t for t in program.schedule_of() if t["start"] >= 0):
            width = t["end"] - t["start"]
            if width > 0:
                label = ",".join(str(v) for v in t["coords"].values())
                ax.text(
                    t["start"] + width / 2, t["worker"], label, ha="center", va="center", fontsize=6
                )
    ax.set_yticks(range(sim.n_workers), [f"worker {w}" for w in range(sim.n_workers)])
    ax.set_xlabel("virtual time (cycles)")
    stats = program.stats()
    ax.set_title(
        title
        or f"@{program.name}: {stats.num_tasks} tasks, makespan {stats.makespan_cycles:,.0f} "
        f"cycles on {stats.num_workers} workers"
    )
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[k]) for k in kernels]
    ax.legend(handles, kernels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    fig.tight_layout()
    # The format follows the extension (.svg, .pdf); without one, PNG into ``path`` itself
    # (matplotlib would write ``path.png``).
    has_extension = "." in str(path).rsplit("/", 1)[-1].lstrip(".")
    fig.savefig(path, dpi=120, format=None if has_extension else "png")
    plt.close(fig)


#: Up to this many tasks the Gantt chart outlines each bar.
_OUTLINED = 2000


def _bars(sim: Any) -> tuple:
    """The run's tasks that started, as arrays: ids, start, end, worker, kernel id, and the
    kernel names (the fast path's arrays, or the engine's lists)."""
    tg = getattr(sim, "task_graph", None)
    if tg is not None:
        kind, kernel, names = tg.kind, tg.kernel, tg.kernels
        start, end, worker = sim.start_array, sim.end_array, sim.worker_array
    else:
        graph = sim.graph
        kind, kernel, names = np.asarray(graph._kind), np.asarray(graph._kernel), graph.kernels
        start, end, worker = (
            np.asarray(x, dtype=np.float64) for x in (sim.start, sim.end, sim.worker)
        )
    n = len(kind)
    start, end, worker = start[:n], end[:n], worker[:n]
    ids = np.flatnonzero((kind == 0) & (start >= 0))
    return ids, start[ids], end[ids], worker[ids].astype(np.float64), kernel[ids], list(names)
