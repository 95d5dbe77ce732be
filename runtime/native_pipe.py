"""A pipeline run on the native runtime core (runtime/native_core.py's library).

``Pipe`` runs a pipeline's processes as coroutines on the ``Core`` of its graph, scheduled in
virtual time with the tasks they issue (pto_wsp_core.h's pto_core_pipe_*);
lowering/cpu/native_csp.py drives it. ``Channels`` gives the host the queues of a run under
way.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from pto_wsp.runtime.native_core import _SCOPE, _TIMING, Core, _api, _copied

__all__ = [
    "COST_FUNCTION",
    "PIPE_OPS",
    "PLACE_FUNCTION",
    "Channels",
    "Pipe",
    "PipeResult",
]


class _PipeResult(ctypes.Structure):
    _fields_ = [
        *[
            (n, ctypes.c_int64)
            for n in ("num_nodes", "num_order", "workers", "num_spans", "num_sites", "num_blocked")
        ],
        *[(n, ctypes.POINTER(ctypes.c_int64)) for n in ("worker", "issue", "order", "tasks_run")],
        *[(n, ctypes.POINTER(ctypes.c_double)) for n in ("start", "end", "busy", "stalls")],
        *[(n, ctypes.POINTER(ctypes.c_int64)) for n in ("span_cause", "span_process")],
        *[(n, ctypes.POINTER(ctypes.c_double)) for n in ("span_from", "span_to")],
        ("site_begin", ctypes.POINTER(ctypes.c_int64)),
        ("site_names", ctypes.POINTER(ctypes.c_int32)),
        *[
            (n, ctypes.POINTER(ctypes.c_int64))
            for n in ("blocked_process", "blocked_op", "blocked_queue")
        ],
        ("num_collections", ctypes.c_int64),
        *[(n, ctypes.POINTER(ctypes.c_int64)) for n in ("gc_at", "gc_old", "stream", "lane")],
        ("site_origin", ctypes.POINTER(ctypes.c_int64)),
        *[(n, ctypes.POINTER(ctypes.c_double)) for n in ("created", "issued", "deps_met")],
        ("cost", ctypes.POINTER(ctypes.c_int64)),
        ("steals", ctypes.c_int64),
    ]


class _PipeSchedule(ctypes.Structure):
    _fields_ = [
        *[
            (n, ctypes.c_int64)
            for n in (
                "streams", "stream_keyed", "timing", "timing_n", "depth", "depth_scope",
                "batch_deps", "task_window", "window_abort",
            )
        ],
        ("interval", ctypes.c_double),
    ]  # fmt: skip


#: pto_core_pipe_run's outcomes.
PIPE_OK, PIPE_DEADLOCK, PIPE_CLOSED, PIPE_BUILD, PIPE_OTHER, PIPE_COST, PIPE_WINDOW = range(7)
_I64P = ctypes.POINTER(ctypes.c_int64)
#: PtoCostFn: (node, kernel, origin site, names, #names, args, #args, coords, regions,
#: #regions) -> cycles.
COST_FUNCTION = ctypes.CFUNCTYPE(
    ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int32),
    ctypes.c_int64, _I64P, ctypes.c_int64, _I64P, _I64P, ctypes.c_int64,
)  # fmt: skip
#: PtoPlaceFn: (names, values, #coordinates, [pool, target, stream, priority]) -> 0, or failed.
PLACE_FUNCTION = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.POINTER(ctypes.c_int32), _I64P, ctypes.c_int64, _I64P
)
#: The operations a process waits in (pto_wsp_core.h), as the Python engine names them.
PIPE_OPS = ("send", "recv", "record", "synchronize", "wait", "window", "")


class PipeResult(NamedTuple):
    """A pipeline run's results (copies): per node ``worker`` (-1: a barrier), ``issue``,
    ``start``, ``end``; the dispatch ``order``; per worker ``busy`` cycles and ``tasks_run``;
    ``stalls`` by cause (engine.STALL_CAUSES' order); ``spans`` (cause index, process or
    -1 - task, from, to); ``sites`` (each site's coordinate name ids); ``blocked`` (process,
    operation index, queue or -1) of the error's processes; per node ``stream``, ``lane``,
    ``created``, ``issued``, ``deps_met`` (times) and ``cost``; the ``steals``;
    the task window's TensorMap collections ``gc_at``, ``gc_old`` (as ``Schedule``'s)."""

    worker: np.ndarray
    issue: np.ndarray
    start: np.ndarray
    end: np.ndarray
    order: np.ndarray
    busy: np.ndarray
    tasks_run: np.ndarray
    stalls: np.ndarray
    spans: list[tuple[int, int, float, float]]
    sites: list[list[int]]
    site_origin: list[int]
    blocked: list[tuple[int, int, int]]
    created: np.ndarray
    issued: np.ndarray
    deps_met: np.ndarray
    cost: np.ndarray
    steals: int
    stream: np.ndarray
    lane: np.ndarray
    gc_at: np.ndarray
    gc_old: np.ndarray


class Pipe:
    """A pipeline run on the core (its processes as coroutines, pto_wsp_core.h): made on the
    ``Core`` of the run's graph; ``queue`` and ``process`` describe it, ``run`` runs it."""

    def __init__(self, core: Core, workers: Sequence[int], ready_priority: bool, steal: bool,
                 kernel_costs: Sequence[int]) -> None:  # fmt: skip
        """``workers``: each worker's pool code; ``kernel_costs``: cycles per kernel id."""
        self._api = api = _pipe_api()
        self._core = core  # (freed after the pipe: the pipe points into it)
        pools = np.ascontiguousarray(workers, np.uint8)
        costs = np.ascontiguousarray(kernel_costs, np.int64)
        self._ptr = api.pto_core_pipe_new(
            core._ptr, len(pools), pools.ctypes.data, int(ready_priority), int(steal),
            len(costs), costs.ctypes.data,
        )  # fmt: skip
        self._keep: list = []

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._api.pto_core_pipe_free(ptr)
            self._ptr = None

    def sites(self, sites: Sequence[Sequence[int]], replica_name: int) -> None:
        """Each task site's coordinate names (ids) and the id of ``replica``."""
        begin = np.cumsum([0, *map(len, sites)]).astype(np.int64)
        names = np.array([n for s in sites for n in s] or [0], np.int32)
        self._api.pto_core_pipe_sites(
            self._ptr, len(sites), begin.ctypes.data, names.ctypes.data, replica_name
        )

    def schedule(self, config: Any) -> None:
        """The directives of ``config`` (a SimConfig) beyond workers, dispatch and issue."""
        timing = _TIMING.get(config.timing, 2)
        n = config.timing_n
        s = _PipeSchedule(
            streams=config.streams, stream_keyed=int(bool(config.stream_keyed)), timing=timing,
            timing_n=n, depth=config.pipeline_depth, depth_scope=_SCOPE.get(config.depth_scope, 0),
            batch_deps=config.batch_deps, task_window=config.task_window,
            window_abort=int(config.window_overflow == "abort"),
            interval=config.cycles_per_ms / n if timing == 1 and n else 0.0,
        )  # fmt: skip
        self._api.pto_core_pipe_schedule(self._ptr, ctypes.byref(s))

    def cost_function(self, function: Any) -> None:
        """The cycles of tasks whose kernel cost is -1: ``function``, a ``COST_FUNCTION``."""
        self._keep.append(function)
        self._api.pto_core_pipe_cost_function(self._ptr, function)

    def place_function(self, function: Any) -> None:
        """The placement of received tasks: ``function``, a ``PLACE_FUNCTION``."""
        self._keep.append(function)
        self._api.pto_core_pipe_place_function(self._ptr, function)

    def body_function(self, function: Any) -> None:
        """The functional mode: ``function`` (a ``COST_FUNCTION``, 0: the body ran) runs a
        task's body as it starts."""
        self._keep.append(function)
        self._api.pto_core_pipe_body_function(self._ptr, function)

    def close(self, queue: int) -> None:
        """Close ``queue`` (from another thread while the run is under way)."""
        self._api.pto_core_pipe_close(self._ptr, queue)

    def channel(self, queue: int) -> tuple[bool, int]:
        """(open, messages buffered) of ``queue``, now."""
        is_open, size = ctypes.c_int64(), ctypes.c_int64()
        self._api.pto_core_pipe_channel(self._ptr, queue, ctypes.byref(is_open), ctypes.byref(size))
        return bool(is_open.value), size.value

    def queue(self, capacity: int, is_event: bool) -> None:
        self._api.pto_core_pipe_queue(self._ptr, capacity, int(is_event))

    def process(self, function: int, args: Any, sends: Sequence[int], receives: Sequence[int]):
        """A replica: ``function`` (MLIR's packed interface) called with ``args`` (a ctypes
        array of argument addresses, kept alive here)."""
        s = np.array([*sends, 0], np.int64)
        r = np.array([*receives, 0], np.int64)
        self._keep.append(args)
        self._api.pto_core_pipe_process(
            self._ptr, function, ctypes.addressof(args), len(sends), s.ctypes.data,
            len(receives), r.ctypes.data,
        )  # fmt: skip

    def run(self) -> tuple[int, str]:
        """Run to the end: the outcome (PIPE_*) and its message."""
        outcome = self._api.pto_core_pipe_run(self._ptr)
        return outcome, self._api.pto_core_pipe_message(self._ptr).decode()

    def result(self) -> PipeResult:
        r = _PipeResult()
        self._api.pto_core_pipe_result(self._ptr, ctypes.byref(r))
        n = r.num_nodes
        begin = _copied(r.site_begin, r.num_sites + 1).tolist()
        names = _copied(r.site_names, begin[-1]).tolist()
        spans = zip(*(_copied(getattr(r, f), r.num_spans).tolist()
                      for f in ("span_cause", "span_process", "span_from", "span_to")))  # fmt: skip
        blocked = zip(*(_copied(getattr(r, f), r.num_blocked).tolist()
                        for f in ("blocked_process", "blocked_op", "blocked_queue")))  # fmt: skip
        return PipeResult(
            worker=_copied(r.worker, n),
            issue=_copied(r.issue, n),
            start=_copied(r.start, n),
            end=_copied(r.end, n),
            order=_copied(r.order, r.num_order),
            busy=_copied(r.busy, r.workers),
            tasks_run=_copied(r.tasks_run, r.workers),
            stalls=_copied(r.stalls, 8),
            spans=list(spans),
            sites=[names[a:b] for a, b in zip(begin, begin[1:])],
            site_origin=_copied(r.site_origin, r.num_sites).tolist(),
            created=_copied(r.created, n),
            issued=_copied(r.issued, n),
            deps_met=_copied(r.deps_met, n),
            cost=_copied(r.cost, n),
            steals=r.steals,
            blocked=list(blocked),
            stream=_copied(r.stream, n),
            lane=_copied(r.lane, n),
            gc_at=_copied(r.gc_at, r.num_collections),
            gc_old=_copied(r.gc_old, r.num_collections),
        )


class Channels:
    """The queues of a pipeline run under way, by name, for the host (another thread):
    ``close(name)`` (applied at the run's next step) and ``state(name)`` (open, messages)."""

    def __init__(self, pipe: Pipe, queues: list[str]) -> None:
        self._pipe = pipe
        self._ids = {q: i for i, q in enumerate(queues)}

    def __contains__(self, name: str) -> bool:
        return name in self._ids

    def close(self, name: str) -> None:
        self._pipe.close(self._ids[name])

    def state(self, name: str) -> tuple[bool, int]:
        return self._pipe.channel(self._ids[name])


@cache
def _pipe_api() -> ctypes.CDLL:
    lib = _api()
    p, i64 = ctypes.c_void_p, ctypes.c_int64
    lib.pto_core_pipe_new.restype = p
    lib.pto_core_pipe_new.argtypes = [p, i64, p, i64, i64, i64, p]
    lib.pto_core_pipe_free.argtypes = [p]
    lib.pto_core_pipe_sites.argtypes = [p, i64, p, p, ctypes.c_int32]
    lib.pto_core_pipe_queue.argtypes = [p, i64, ctypes.c_int32]
    lib.pto_core_pipe_cost_function.argtypes = [p, COST_FUNCTION]
    lib.pto_core_pipe_schedule.argtypes = [p, ctypes.POINTER(_PipeSchedule)]
    lib.pto_core_pipe_body_function.argtypes = [p, COST_FUNCTION]
    lib.pto_core_pipe_close.argtypes = [p, i64]
    lib.pto_core_pipe_channel.argtypes = [p, i64, p, p]
    lib.pto_core_pipe_place_function.argtypes = [p, PLACE_FUNCTION]
    lib.pto_core_pipe_process.argtypes = [p, p, p, i64, p, i64, p]
    lib.pto_core_pipe_run.restype = ctypes.c_int32
    lib.pto_core_pipe_run.argtypes = [p]
    lib.pto_core_pipe_message.restype = ctypes.c_char_p
    lib.pto_core_pipe_message.argtypes = [p]
    lib.pto_core_pipe_result.argtypes = [p, ctypes.POINTER(_PipeResult)]
    return lib
