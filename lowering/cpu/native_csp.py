"""Pipelines on the native core: a compiled ``tg.program`` of processes run in virtual time.

``run_pipeline(program, bindings, config, costs)`` binds the arguments as a build does, gives
the core the pipeline's queues and one coroutine per process replica (each calls its
process's compiled function, ``@<program>__<process>``, with the replica index as its last
argument), runs it (runtime/core/csp.cpp: the Python engine's process and scheduling rules)
and returns a ``PipelineRun``: the task graph the processes built and the schedule, in the
reference engine's terms (docs/native.md "Pipelines").
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from pto_wsp.errors import ChannelClosed, Deadlock, ExecutionError, ResourceError
from pto_wsp.lowering.cpu.simgen import MAX_PROCESSES
from pto_wsp.lowering.taskgraph import POOL_ANY
from pto_wsp.runtime.engine import STALL_CAUSES
from pto_wsp.runtime.kernels import BODY_ERRORS, KernelSpec, returned
from pto_wsp.runtime.native_core import Core, Schedule, _args, _regions
from pto_wsp.runtime.native_pipe import (
    COST_FUNCTION,
    PIPE_BUILD,
    PIPE_CLOSED,
    PIPE_COST,
    PIPE_DEADLOCK,
    PIPE_OK,
    PIPE_OPS,
    PIPE_WINDOW,
    PLACE_FUNCTION,
    Channels,
    Pipe,
    PipeResult,
)
from pto_wsp.runtime.run import Run, forget_collected, view

if TYPE_CHECKING:
    from pto_wsp.lowering.cpu.native import NativeProgram

__all__ = ["PipelineRun", "run_pipeline"]


class PipelineRun(Run):
    """A pipeline's run on the core, read as a main program's ``Run`` (and the engine's
    ``Simulator``) is: per node ``worker``, ``start``, ``end``, ``issue_seq``, ``stream_of``,
    ``lane``, ..., ``stalls`` by every cause (channels and events too), ``stall_spans`` naming
    the waiting process, ``processes`` (the replicas' names) and ``makespan``."""

    def __init__(self, *, processes: list[str], result: PipeResult, **run: Any) -> None:
        super().__init__(**run)
        self.processes = tuple(processes)
        self._result = result

    @property
    def makespan(self) -> float:
        """The end of the last task (0 without tasks)."""
        tasks = self.task_graph.kind == 0
        return float(self.end_array[tasks].max()) if tasks.any() else 0.0

    @property
    def created_t_array(self) -> np.ndarray:
        return self._result.created

    @functools.cached_property
    def stalls(self) -> dict[str, float]:
        return dict(zip(STALL_CAUSES, self._result.stalls.tolist()))

    @functools.cached_property
    def stall_spans(self) -> list[tuple[str, str, float, float]]:
        names = self.processes
        return [
            (STALL_CAUSES[c], names[p] if p >= 0 else f"task {-1 - p}", t0, t1)
            for c, p, t0, t1 in self._result.spans
        ]


def _schedule(result: PipeResult) -> Schedule:
    """The run's results in the core scheduler's layout (runtime/run.py reads it)."""
    n, workers = len(result.worker), len(result.busy)
    NI = np.stack([result.worker, result.issue, result.stream, result.lane]).astype(np.int64)
    NF = np.stack(
        [result.start, result.end, result.issued, result.deps_met, result.created]
    ).astype(np.float64)
    tasks = int((result.issue >= 0).sum())
    S = np.zeros(21 + workers, np.int64)
    S[3], S[5], S[6] = result.steals, tasks, tasks
    S[21:] = result.tasks_run
    R = np.zeros(8 + workers, np.float64)
    R[0] = float(result.end.max()) if n else 0.0
    R[3:8] = result.stalls[:5]
    R[8:] = result.busy
    none = np.zeros(0, np.int64)
    return Schedule(NI, NF, S, R, result.order, (none, none.astype(float), none.astype(float)),
                    result.gc_at, result.gc_old)  # fmt: skip


def run_pipeline(
    program: NativeProgram,
    bindings: Mapping[str, Any],
    config: Any,
    kernels: Mapping[str, KernelSpec],
    keys: Any = None,
    started: Callable[[Channels], None] | None = None,
) -> PipelineRun:
    """Run ``program`` (a pipeline) with ``bindings`` on the core (see the module doc);
    ``keys``: the schedule's keys placing received tasks (lowering/cpu/backend.py's
    PlacementKeys); in the functional mode the bodies run on the bound arrays as their tasks
    start; ``started`` is given the run's ``Channels`` before it starts."""
    from pto_wsp.lowering.cpu.native import NativeError

    name = program.name
    if not program.is_pipeline:
        raise NativeError(f"@{name} is not a pipeline (build() makes its graph)")
    if not config.infer_data_deps:
        raise NativeError(f"@{name}: pipelines on the native core always infer data edges")
    total = sum(p[1] for p in program.processes)
    if total > MAX_PROCESSES:  # (a coroutine and its stack each: as the reference, refused)
        raise NativeError(
            f"@{name} has {total:,} processes (replicas counted); the simulator runs at most "
            f"{MAX_PROCESSES:,}"
        )
    shapes, keep, addresses = program._arguments(bindings)
    core = Core(shapes)
    context = ctypes.c_int64(core.address)
    addresses[0] = ctypes.addressof(context)
    workers = max(1, int(config.workers))
    pools = [*config.pools()[:workers]]
    pools += [POOL_ANY] * (workers - len(pools))
    specs = [kernels.get(k) or KernelSpec(k, [], [], origin="unknown") for k in program.kernels]
    fixed = [s.cost if s.cost.__class__ is int and 0 <= s.cost < MAX_COST else -1 for s in specs]
    pipe = Pipe(core, pools, config.ready == "priority", config.dispatch == "work_steal", fixed)
    pipe.schedule(config)
    names = sorted({n for site in program.sites for n in site} | {"replica"})
    ids = {n: i for i, n in enumerate(names)}
    failed: list[BaseException] = []
    tasks = _TaskData(program, names)
    if min(fixed, default=0) < 0:
        pipe.cost_function(_cost_function(tasks, specs, failed))
    if keys is not None and keys.any:
        pipe.place_function(_place_function(keys, names, failed))
    arrays = {k: v for k, v in bindings.items() if isinstance(v, np.ndarray)}
    if config.functional:
        pipe.body_function(_body_function(tasks, specs, arrays, failed))
    pipe.sites([[ids[n] for n in site] for site in program.sites], ids["replica"])
    for _, capacity, is_event in program.queues:
        pipe.queue(capacity, is_event)
    labels: list[str] = []
    for process, replicas, function, sends, receives in program.processes:
        entry = program.engine.lookup(function)  # (a JIT's or the disk cache's)
        keep.append(entry)
        address = ctypes.cast(entry, ctypes.c_void_p).value
        for r in range(replicas):
            replica = ctypes.c_int64(r)
            keep.append(replica)
            args = (ctypes.c_void_p * (len(addresses) + 1))(*addresses, ctypes.addressof(replica))
            pipe.process(address, args, sends, receives)
            labels.append(process if replicas == 1 else f"{process}[{r}]")
    if started is not None:
        started(Channels(pipe, [q for q, _, _ in program.queues]))
    outcome, message = pipe.run()
    result = pipe.result()
    del pipe, keep
    if outcome == PIPE_COST:
        raise failed[0]
    if outcome == PIPE_WINDOW:
        raise ResourceError(message)
    if outcome != PIPE_OK:
        raise _error(program, core, outcome, message, result, labels)
    sites = [[names[i] for i in site] for site in result.sites]
    origin = result.site_origin
    scalars = [program.scalars[o] for o in origin]
    kept = [program.kept[o] for o in origin]
    graph = core.graph(program.kernels, sites, program._tensors, scalars, kept)
    return PipelineRun(
        config=config,
        graph=forget_collected(graph, result.gc_at, result.gc_old),
        schedule=_schedule(result),
        costs=result.cost,
        kernels=kernels,
        arrays=arrays,
        processes=labels,
        result=result,
    )


class _TaskData:
    """A task the core describes to a callback, as the reference's: named coordinates,
    scalars as the kernel takes them, regions with the dimensions their views keep."""

    def __init__(self, program: NativeProgram, names: list[str]) -> None:
        sites = np.arange(len(program.sites))
        self.names = names
        self.args_of = _args(sites, program.scalars)
        self.regions_of = _regions(program._tensors, sites, program.kept)

    def __call__(self, origin, site, nsite, args, nargs, coords, regions, nregions) -> tuple:
        named = tuple(zip((self.names[site[i]] for i in range(nsite)), coords[:nsite]))
        scalars = self.args_of(np.array(args[:nargs], np.int64), origin)
        return named, scalars, self.regions_of(np.array(regions[:nregions], np.int64), origin)


#: The costs the core takes (cycles; as the reference scheduler's).
MAX_COST = 1 << 53


def _cost_function(tasks: _TaskData, specs: list[KernelSpec], failed: list):
    """The core's PtoCostFn calling the kernels' cost functions on the task's scalars and
    views, as the reference does (a failure is kept in ``failed``, as the engine's
    ExecutionError, and ends the run)."""

    def cost(node, kernel, origin, *task) -> int:
        spec = specs[kernel]
        named, scalars, views = tasks(origin, *task)
        try:
            cycles = spec.task_cycles(node, named, scalars, views)
        except BaseException as error:  # (a ctypes callback must not raise)
            failed.append(error)
            return -1
        if not 0 <= cycles < MAX_COST:
            failed.append(ExecutionError(node, spec.name, named, f"a cost of {cycles} cycles "
                                         "is not an integer in [0, 2^53)"))  # fmt: skip
            return -1
        return cycles

    return COST_FUNCTION(cost)


def _body_function(tasks: _TaskData, specs: list[KernelSpec], arrays: Mapping, failed: list):
    """The core's body function: a task's body on views of the bound arrays as it starts,
    with the reference's errors (kept in ``failed``; the run ends there)."""

    def body(node, kernel, origin, *task) -> int:
        spec = specs[kernel]
        if spec.runnable is None:
            return 0
        named, scalars, regions = tasks(origin, *task)
        try:
            unbound = [r.tensor for r in regions if arrays.get(r.tensor) is None]
            if unbound:
                failed.append(ExecutionError(node, spec.name, named, (
                    f"tensor '{unbound[0]}' is not bound (the functional mode runs "
                    f"@{spec.name}'s body on it: bind({unbound[0]}=array))")))  # fmt: skip
                return 1
            views = [view(arrays[r.tensor], r) for r in regions]
            result = spec.runnable(*spec.arguments(scalars, views))
        except BODY_ERRORS as error:
            failed.append(ExecutionError(node, spec.name, named, error))
            failed[-1].__cause__ = error
            return 1
        except BaseException as error:  # (KeyboardInterrupt: raised after the run)
            failed.append(error)
            return 1
        if result is not None:
            error = returned(node, spec, named, result, views)
            if error is not None:
                failed.append(error)
                return 1
        return 0

    return COST_FUNCTION(body)


def _place_function(keys: Any, names: list[str], failed: list):
    """The core's PtoPlaceFn: ``keys.place`` over a received task's coordinates."""

    def place(site, values, n, out) -> int:
        coords = tuple(zip((names[site[i]] for i in range(n)), values[:n]))
        try:
            out[0], out[1], out[2], out[3] = keys.place(coords, out[0], out[1], out[2], out[3])
        except BaseException as error:  # (a ctypes callback must not raise)
            failed.append(error)
            return 1
        return 0

    return PLACE_FUNCTION(place)


def _error(
    program: NativeProgram,
    core: Core,
    outcome: int,
    message: str,
    result: PipeResult,
    labels: list[str],
) -> Exception:
    """The error of a failed run, in the reference engine's terms."""
    from pto_wsp.lowering.cpu.native import NativeError

    queues = [q for q, _, _ in program.queues]
    if outcome == PIPE_DEADLOCK:
        return Deadlock(
            [(labels[p], PIPE_OPS[op], queues[q] if q >= 0 else "") for p, op, q in result.blocked]
        )
    who = labels[result.blocked[0][0]] if result.blocked and result.blocked[0][0] >= 0 else ""
    if outcome == PIPE_CLOSED:
        return ChannelClosed(who, queues[result.blocked[0][2]], message)
    where = f"@{program.name}: process {who}: " if who else f"@{program.name}: "
    if outcome == PIPE_BUILD:  # (the build's error, as a main program's, named by process)
        try:
            program._check(core)
        except NativeError as error:
            return NativeError(where + str(error).removeprefix(f"@{program.name}: "))
    return NativeError(where + message)
