"""``Program``: a compiled cpu_sim program (seed 001 §7.1, seed 004 §1.1).

``compile(..., target="cpu_sim")`` returns one. ``bind(**values)`` gives the program's
arguments by name — tensors as numpy arrays (written in place by the functional mode),
symbols as ints, lengths and CSR arrays as integer arrays; bindings accumulate and can be
replaced at any time without recompiling. ``execute()`` runs the program once: a main
program on the native core (its compiled task generation builds the graph, the core's
scheduler runs it in virtual time, then the functional mode calls the bodies in the order the
core dispatched them: runtime/run.py); a pipeline — or any program with ``fast=False`` — on
the reference engine (runtime/engine.py), which gives the same results; ``execute_async()`` runs it on a background thread and
``synchronize()`` waits for it (and raises its error). ``stats()``, ``trace()``,
``write_trace(path)`` and ``write_gantt(path)`` describe the last run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pto_wsp.errors import ExecutionError, ResourceError, Timeout
from pto_wsp.lowering.taskgraph import EDGE_KINDS, KIND_TASK, TaskGraph
from pto_wsp.runtime.beside import Beside
from pto_wsp.runtime.engine import STALL_CAUSES, SimConfig, Simulator
from pto_wsp.runtime.graph import gc_paused
from pto_wsp.runtime.kernels import KernelSpec
from pto_wsp.runtime.native_core import Scheduler
from pto_wsp.runtime.native_pipe import Channels
from pto_wsp.runtime.profiling import check_schedule, profile_totals, timed_specs
from pto_wsp.runtime.run import Run, forget_collected, node_costs
from pto_wsp.runtime.threads import run_bodies_threaded

__all__ = ["ArgSpec", "Program", "Stats"]

#: Extent standing for an unbound runtime dimension (lowering/cpu/pygen.py's WHOLE).
_WHOLE = 1 << 62


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a program: name, kind (tensor / scalar), element dtype, static shape."""

    name: str
    kind: str
    dtype: str = ""  # numpy dtype name of a tensor's elements; "index" for index buffers
    shape: tuple[int | None, ...] = ()
    type_text: str = ""


@dataclass
class Stats:
    """What one execution did (seed 004 ProgramStats and the simulator's own figures).

    Times in cycles are virtual (the kernels' cost models); ``execute_time_ms`` is the wall
    time of the simulation itself. ``stalls`` sums, per cause, the cycles tasks (or
    processes, or the generator) spent waiting (docs/simulator.md). Also readable as a
    mapping: ``stats["makespan_cycles"]``.
    """

    mode: str
    num_tasks: int
    num_barriers: int
    num_edges: int
    edges_by_kind: dict[str, int]
    num_streams: int
    num_workers: int
    compile_time_ms: float
    execute_time_ms: float
    makespan_cycles: float
    busy_cycles: list[float]
    utilization: list[float]
    tasks_per_worker: list[int]
    stalls: dict[str, float]
    steals: int = 0
    num_processes: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Wall time per phase, where the phases run one after the other (the native core):
    #: ``build`` (task generation + dependency inference, seed 004 §2.7's "graph build"),
    #: ``schedule`` (the core's scheduler, costs included), ``bodies`` (functional mode).
    #: Empty on the reference engine, which builds, schedules and runs bodies interleaved.
    phases_ms: dict[str, float] = field(default_factory=dict)
    #: With ``profiling=True``: per kernel, how many bodies ran and their wall time.
    kernel_calls: dict[str, int] = field(default_factory=dict)
    kernel_ms: dict[str, float] = field(default_factory=dict)
    #: Per tile kernel without ``cost=``: its cycles per task, from the cost model.
    kernel_cycles: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return asdict(self)

    def summary(self) -> str:
        """A few readable lines."""
        util = sum(self.busy_cycles) / (self.makespan_cycles * self.num_workers or 1)
        kinds = ", ".join(f"{k} {v}" for k, v in self.edges_by_kind.items() if v)
        lines = [
            f"{self.num_tasks} tasks, {self.num_edges} edges"
            + (f" ({kinds})" if kinds else "")
            + f", {self.num_barriers} barriers",
            f"makespan {self.makespan_cycles:,.0f} cycles on {self.num_workers} workers, "
            f"utilization {util:.1%}",
            "per worker: "
            + ", ".join(
                f"w{w} {n} tasks {u:.0%}"
                for w, (n, u) in enumerate(zip(self.tasks_per_worker, self.utilization))
            ),
        ]
        stalls = {k: v for k, v in self.stalls.items() if v}
        if stalls:
            lines.append("stalls: " + ", ".join(f"{k} {v:,.0f}" for k, v in stalls.items()))
        if self.kernel_calls:
            lines.append(
                "kernel bodies: "
                + ", ".join(
                    f"{k} {n} x {self.kernel_ms[k] / (n or 1):.3f} ms"
                    for k, n in self.kernel_calls.items()
                )
            )
        phases = ", ".join(f"{k} {v:.1f}" for k, v in self.phases_ms.items())
        lines.append(
            f"compile {self.compile_time_ms:.1f} ms, simulation {self.execute_time_ms:.1f} ms"
            + (f" ({phases})" if phases else "")
            + f" ({self.mode} mode)"
        )
        return "\n".join(lines)


class Program:
    """A compiled cpu_sim program: bind, execute, inspect (see the module doc)."""

    def __init__(
        self,
        name: str,
        code: Any,
        kernels: Mapping[str, KernelSpec],
        config: SimConfig,
        args: list[ArgSpec],
        *,
        native: Any = None,
        keys: Any = None,
        compile_time_ms: float = 0.0,
        warnings: list[str] | None = None,
        profiling: bool = False,
        debug: bool = False,
    ) -> None:
        self.name = name
        #: lowering/cpu/simgen.SimProgram (the reference engine's), or a function making it
        #: when first needed.
        self._code = code
        #: lowering/cpu/native.NativeProgram: a main program compiled to native code.
        self.native = native
        #: profiling=True: the wall time of each body call, per kernel (this run's).
        self._samples: dict[str, list[float]] = {}
        self.kernels = timed_specs(kernels, self._samples) if profiling else dict(kernels)
        if config.functional:
            # Which bodies do nothing (no call needed) is decided from their code, here at
            # compile time: the first decision of a process costs ~0.4 ms (dis, inspect).
            for spec in self.kernels.values():
                spec.runnable  # noqa: B018
        self.debug = debug
        #: The pipeline run under way (its channels), or the last one's.
        self._live: Simulator | Channels | None = None
        self._closing: list[str] = []  # closed before the native run's channels existed
        self._close_lock = threading.Lock()
        self.config = config
        self.args = args
        self.keys = keys
        self.compile_time_ms = compile_time_ms
        self.warnings = list(warnings or [])
        self._bindings: dict[str, Any] = {}
        self._sim: Simulator | Run | None = None
        self._scheduler: Scheduler | None = None  # the core's, its memory kept between runs
        self._nodes = 0  # the last build's nodes (0: none yet): the next one's plan is sized so
        self._beside = Beside()  # whether a plain schedule is made beside the build or after
        self._views: dict = {}  # the views of the bound tensors the bodies got (Run.run_bodies)
        self._kept_arguments: tuple | None = None  # _arguments' result until the next bind
        self._tensor_names = [a.name for a in args if a.kind == "tensor"]
        #: (each tensor's binding, those that are arrays by name) of the last execute.
        self._arrays: tuple[list, dict[str, np.ndarray]] = ([], {})
        #: Per kernel id of the native program its spec (a kernel without one: no body).
        self._specs = [
            self.kernels.get(name) or KernelSpec(name, [], [], origin="unknown")
            for name in (native.kernels if native is not None else ())
        ]
        self._kept_costs: tuple | None = None  # (the specs' costs, _kernel_costs' result)
        #: Why the last execution ran on the reference engine (None: on the native core).
        self.fast_declined: str | None = None
        self._elapsed_ms = 0.0
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._failed: str | None = None  # the last run's error, when it failed
        self._complete = False

    @property
    def mode(self) -> str:
        return "functional" if self.config.functional else "cycles"

    @property
    def code(self) -> Any:
        """The reference engine's program (lowering/cpu/simgen.py), compiled when first used."""
        if callable(self._code):
            self._code = self._code()
        return self._code

    @property
    def source(self) -> str:
        """What the task-generation program was compiled to: the runtime-call IR upstream
        MLIR compiled to native code, or the reference engine's Python (``fast=False``)."""
        if self.native is not None and self.config.fast:
            return self.native.text
        return self.code.source

    # ------------------------------------------------------------------ binding

    def bind(self, **values: Any) -> Program:
        """Give arguments by name (tensors: numpy arrays, written in place; symbols: ints;
        lengths/CSR: integer arrays or lists). Returns the program, so calls chain."""
        specs = {a.name: a for a in self.args}
        for name, value in values.items():
            spec = specs.get(name)
            if spec is None:
                raise ValueError(
                    f"@{self.name} has no argument {name!r} "
                    f"(arguments: {', '.join(a.name for a in self.args) or 'none'})"
                )
            self._bindings[name] = self._check(spec, value)
        self._views.clear()  # (views of the arrays bound before: made again)
        self._kept_arguments = None
        if self.native is not None and not self.native.is_pipeline and self.config.fast:
            # A bound main program is ready to run: its arguments packed, a core and a
            # scheduler allocated (their memory is faulted in by the runs that use it).
            self.native.prepare(
                self._bindings, self.config.infer_data_deps, self._reads_records()
            )
            if self._scheduler is None:
                self._scheduler = Scheduler(self.config)
        return self

    def _check(self, spec: ArgSpec, value: Any) -> Any:
        if spec.kind == "scalar":
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"{spec.name} is an index: bind an int, got {value!r}")
            if not -(1 << 63) <= int(value) < 1 << 63:
                raise ValueError(f"{spec.name} is an index: {int(value)} does not fit in 64 bits")
            return int(value)
        if isinstance(value, list | tuple):
            if spec.dtype != "index":
                # A list would be copied into an array, and the results written into the copy.
                raise ValueError(
                    f"{spec.name} is a tensor ({spec.type_text}): bind a numpy array, not a "
                    f"{type(value).__name__} (results are written into the bound array)"
                )
            if not integers_only(value):
                raise ValueError(
                    f"{spec.name} ({spec.type_text}) holds indices: bind a list of integers, "
                    f"got {value!r:.80}"
                )
            try:
                value = np.asarray(value, dtype=np.int64)
            except (ValueError, TypeError, OverflowError) as error:
                raise ValueError(
                    f"{spec.name} ({spec.type_text}): the list is not a rectangular array of "
                    f"numbers: {error}"
                ) from None
        if not isinstance(value, np.ndarray):
            raise ValueError(f"{spec.name} is a tensor ({spec.type_text}): bind a numpy array")
        if value.ndim != len(spec.shape) or any(
            s is not None and s != d for s, d in zip(spec.shape, value.shape)
        ):
            raise ValueError(
                f"{spec.name}: the bound array of shape {value.shape} does not fit {spec.type_text}"
            )
        if spec.dtype == "index":
            if value.dtype.kind not in "iu":
                raise ValueError(f"{spec.name} holds indices: bind an integer array")
        elif spec.dtype and value.dtype != np.dtype(spec.dtype):
            raise ValueError(
                f"{spec.name} is {spec.type_text}: bind a {spec.dtype} array "
                f"(got {value.dtype}; results are written in place, so no copy is made)"
            )
        return value

    # ------------------------------------------------------------------ execution

    def execute(self, progress: Callable[[int, int], None] | None = None) -> Program:
        """Run the program once with the current bindings; raise its error, if any.

        ``progress(created, completed)`` is called every few thousand tasks."""
        if progress is not None and not callable(progress):
            raise TypeError(
                f"progress must be a function progress(created, completed), got {progress!r}"
            )
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            raise RuntimeError(f"@{self.name} is executing asynchronously: synchronize() first")
        self._complete = False
        self._error = None
        for samples in self._samples.values():
            samples.clear()
        start = time.perf_counter()
        try:
            self._sim = self._run(progress)
            if self.debug:
                self._check_run()
            self._failed = None
        except BaseException as error:
            # (an engine run's failure keeps the last good run's results; a native run lets
            # them go first, see _run_native)
            self._failed = f"{type(error).__name__}: {str(error)[:200]}"
            raise
        finally:
            self._elapsed_ms = (time.perf_counter() - start) * 1e3
        self._complete = True
        return self

    def execute_async(self) -> Program:
        """Start ``execute()`` on a background thread; ``synchronize()`` waits for it."""
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError(f"@{self.name} is already executing")
        self._complete = False
        self._error = None

        def run() -> None:
            try:
                self.execute()
            except BaseException as error:  # handed to synchronize()
                self._error = error

        self._thread = threading.Thread(target=run, name=f"pto-wsp {self.name}", daemon=True)
        self._thread.start()
        return self

    def synchronize(self, timeout: float | None = None) -> Program:
        """Wait for ``execute_async()`` to finish; raise the error of the run, if any, or
        ``Timeout`` when ``timeout`` seconds pass first (the run goes on)."""
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise Timeout(f"@{self.name} is still running after {timeout} s")
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self

    def is_running(self) -> bool:
        """Whether an ``execute_async()`` run is under way."""
        return self._thread is not None and self._thread.is_alive()

    def is_complete(self) -> bool:
        """Whether the last execution finished without error."""
        return self._complete and (self._thread is None or not self._thread.is_alive())

    def elapsed_ms(self) -> float:
        """Wall time of the last execution, in milliseconds."""
        return self._elapsed_ms

    def _arguments(self) -> tuple[list[Any], dict[str, np.ndarray], dict[str, list[int]]]:
        # The same as the last run's while every binding is the same object (bind clears
        # it; a binding swapped in behind bind's back is seen) and every bound array has
        # its shape (an array can be reshaped in place): copies of the containers.
        kept = self._kept_arguments
        bindings = self._bindings
        if (
            kept is not None
            and len(kept[3]) == len(bindings)
            and all(bindings.get(name) is value for name, value, _ in kept[3])
            and all(shape is None or value.shape == shape for _, value, shape in kept[3])
        ):
            return list(kept[0]), dict(kept[1]), dict(kept[2])
        args, arrays, shapes = self._make_arguments()
        seen = [(k, v, v.shape if isinstance(v, np.ndarray) else None) for k, v in bindings.items()]
        self._kept_arguments = (list(args), dict(arrays), dict(shapes), seen)
        return args, arrays, shapes

    def _make_arguments(self) -> tuple[list[Any], dict[str, np.ndarray], dict[str, list[int]]]:
        try:
            args = self.code.compiled.bind(self._bindings)
        except KeyError as error:
            name = error.args[0]
            raise ValueError(f"@{self.name} needs a value for {name} (bind({name}=...))") from None
        except ValueError as error:
            raise ValueError(f"@{self.name}: {error}") from None
        arrays: dict[str, np.ndarray] = {}
        shapes: dict[str, list[int]] = {}
        for spec, value in zip(self.args, args):
            if spec.kind == "tensor":
                bound = self._bindings.get(spec.name)
                if bound is not None:
                    arrays[spec.name] = bound
                shapes[spec.name] = [s if s is not None else _WHOLE for s in value.shape]
        return args, arrays, shapes

    def _run(self, progress: Callable[[int, int], None] | None = None) -> Simulator | Run:
        config = self.config
        threaded = config.functional and config.threads > 0
        if threaded:  # schedule in virtual time first, then run the bodies on threads
            config = dataclasses.replace(config, functional=False)
        if self.native is not None and config.fast:
            self.fast_declined = None
            if self.native.is_pipeline:
                run = self._run_native_pipeline(config)
            else:
                run = self._run_native(config, progress)
            if threaded:
                start = time.perf_counter()
                run_bodies_threaded(run, config.threads)
                run.phases_ms["bodies"] = (time.perf_counter() - start) * 1e3
            return run
        self.fast_declined = "fast=False"
        args, arrays, shapes = self._arguments()
        code = self.code
        sim = Simulator(config, self.kernels, arrays, shapes, self.keys)
        sim.progress = progress
        with self._bound_errors(), gc_paused():
            if code.is_pipeline:
                for name, capacity, is_event in code.queues:
                    sim.add_queue(name, capacity, is_event)
                for p in code.processes:
                    for r in range(p.replicas):
                        label = p.name if p.replicas == 1 else f"{p.name}[{r}]"
                        sim.add_process(label, p.function(sim, *args, r), p.sends, p.receives)
                sim.closing = []
                self._live = sim
                sim.run_pipeline()
            else:
                sim.run_main(code.compiled.function, args)
        if threaded:
            run_bodies_threaded(sim, config.threads)
        return sim

    @contextlib.contextmanager
    def _bound_errors(self) -> Iterator[None]:
        """Missing or short bound data, read by the task-generation program, as ValueErrors."""
        try:
            yield
        except KeyError as error:
            name = error.args[0]
            raise ValueError(
                f"@{self.name} reads {name}, which is not bound (bind({name}=[...]))"
            ) from None
        except IndexError as error:
            raise ValueError(f"@{self.name}: an index is out of the bound data: {error}") from None
        except ZeroDivisionError as error:
            raise ValueError(
                f"@{self.name}: a division or remainder by zero in the task-generation program "
                f"(the workload's index arithmetic or a schedule key): {error}"
            ) from None

    def _run_native(self, config: SimConfig, progress: Callable[[int, int], None] | None) -> Run:
        """A main program on the native core: build the graph with the compiled program,
        schedule it, then (functional mode) run the bodies in dispatch order."""
        # The last run's graph and schedule are the core's and the scheduler's memory: let go
        # of them first, and this build reuses that memory instead of faulting in fresh pages.
        self._sim = None
        if self._scheduler is None:  # (no bind() before: a program without arguments)
            self._scheduler = Scheduler()
        scheduler = self._scheduler
        with gc_paused():  # (the graph's per-node tuples are made lazily: few objects)
            start = time.perf_counter()
            table, functions = self._kernel_costs()
            bodies = self._bodies()
            # (every kernel's cost a constant: a plain schedule is made beside the build, in
            # rows of at least _LEAST_CAPACITY nodes or the last build's, unless after it
            # was faster lately)
            plan = None
            if not functions and self._beside.beside(start):
                plan = scheduler.plan(config, table, max(self._nodes, _LEAST_CAPACITY))
            records = self._reads_records(functions, bodies)
            graph = self.native.build(self._bindings, config.infer_data_deps, records, plan)
            self._nodes = graph.num_nodes
            built = time.perf_counter()
            if plan is not None and plan.scheduled:
                costs, failed = None, None
                schedule = scheduler.planned(plan, graph.num_nodes)
            else:
                plan = None  # (its views of the scheduler's outputs: the run reuses them)
                costs, failed = self._costs(graph, table, functions)
                stop_at = -1 if failed is None else failed[0]
                points = self.native.order_points()
                schedule = scheduler.run(graph, costs, config, points, stop_at, kernel_costs=table)
            graph = forget_collected(graph, schedule.gc_at, schedule.gc_old)
            run = Run(
                config=config,
                graph=graph,
                schedule=schedule,
                costs=costs,
                kernel_costs=table,
                kernels=self.kernels,
                arrays=self._bound_arrays(),
            )
            scheduled = time.perf_counter()
            if not functions:
                per_node = (scheduled - start) / max(graph.num_nodes, 1)
                self._beside.took(plan is not None, per_node, scheduled)
            if plan is not None:  # (one phase: the two ran side by side)
                run.phases_ms = {"build and schedule": (scheduled - start) * 1e3}
            else:
                run.phases_ms = {
                    "build": (built - start) * 1e3,
                    "schedule": (scheduled - built) * 1e3,
                }
            error = failed[1] if failed is not None else None
            if run.window_full and config.window_overflow == "abort":
                window = config.task_window
                error = ResourceError(
                    f"task window full: {run.live} tasks in flight (task_window({window}, "
                    f"overflow=abort)) when creating task #{run.created}; use overflow=stall "
                    "or a larger window"
                )
            if progress is not None:
                progress(run.created, 0 if config.functional else run.completed)
            if config.functional:
                # (a run that stopped: the bodies of the tasks started by then, as the engine)
                run.run_bodies(progress, self._views, bodies)
                run.phases_ms["bodies"] = (time.perf_counter() - scheduled) * 1e3
        if error is not None:
            raise error
        return run

    def _bound_arrays(self) -> dict[str, np.ndarray]:
        """The tensors bound to arrays, by name: the last execute's dict (never changed) while
        each tensor's binding is the same object (also one swapped in behind bind's back)."""
        bound, arrays = self._arrays
        get = self._bindings.get
        now = list(map(get, self._tensor_names))
        if len(now) != len(bound) or not all(map(operator.is_, now, bound)):
            arrays = {
                name: value
                for name, value in zip(self._tensor_names, now)
                if isinstance(value, np.ndarray)
            }
            self._arrays = (now, arrays)
        return arrays

    def _run_native_pipeline(self, config: SimConfig) -> Run:
        """A pipeline on the native core: its processes as coroutines scheduled in virtual
        time with the tasks they issue, each body run as its task starts (functional mode)."""

        def started(channels: Channels) -> None:
            with self._close_lock:  # (Channel.close() and channel_state() while it runs)
                self._live = channels
                for name in self._closing:
                    channels.close(name)
                self._closing.clear()

        with self._close_lock:
            self._live = None
        start = time.perf_counter()
        with gc_paused():
            run = self.native.run_pipeline(self._bindings, config, self.kernels, self.keys, started)
        run.phases_ms = {"run": (time.perf_counter() - start) * 1e3}
        return run

    def _reads_records(
        self, functions: list[int] | None = None, bodies: list | None = None
    ) -> bool:
        """Whether an execute reads its tasks' scalars, coordinates and regions: a body to
        run (functional mode) or a cost function does; other readers (``graph()``) have
        the graph built again with them when they first read them. (``functions`` and
        ``bodies``: _kernel_costs' and _bodies', if the caller has them.)"""
        functions = self._kernel_costs()[1] if functions is None else functions
        bodies = self._bodies() if bodies is None else bodies
        return bool(functions) or bodies.count(None) < len(bodies)

    def _bodies(self) -> list:
        """Per kernel id the body the functional mode calls (None: none, or it does
        nothing); none in cycles mode."""
        return [s.runnable for s in self._specs] if self.config.functional else []

    def _kernel_costs(self) -> tuple[np.ndarray, list[int]]:
        """Per kernel id its cycles where its cost is a constant (else 0), and the ids of
        the kernels whose cost is a function of the task: the last ones while no cost
        changed (the table read-only: runs keep it)."""
        costs = [s.cost for s in self._specs]
        kept = self._kept_costs
        if kept is not None and kept[0] == costs:
            return kept[1]
        table = np.zeros(len(costs), np.int64)
        functions = []
        for kid, cost in enumerate(costs):
            if cost.__class__ is int:
                table[kid] = cost
            else:
                functions.append(kid)
        table.flags.writeable = False
        self._kept_costs = (costs, (table, functions))
        return table, functions

    def _costs(
        self, graph: TaskGraph, table: np.ndarray, functions: list[int]
    ) -> tuple[np.ndarray | None, tuple[int, ExecutionError] | None]:
        """The nodes' cycles (``_kernel_costs``' table and functions of ``graph.kernels``):
        None when every kernel's cost is a constant (a node costs its kernel's, a barrier
        0), else per node (0 for barriers; a cost function called per task,
        ``KernelSpec.task_cycles``, as the engine does). The second result: the first task
        (by number) whose cost could not be computed, and its error."""
        if not functions:
            return None, None
        costs = node_costs(table, graph.kernel)
        ids = np.flatnonzero(np.isin(graph.kernel, functions)).tolist()
        kernel, args, regions, coords = graph.kernel, graph.args, graph.regions, graph.coords
        specs = {kid: self.kernels.get(graph.kernels[kid]) for kid in functions}
        for i in ids:
            spec = specs[int(kernel[i])]
            try:
                cycles = spec.task_cycles(i, coords[i], args[i], regions[i])
            except ExecutionError as error:
                number = int(np.count_nonzero(graph.kind[:i] == KIND_TASK))
                return costs, (number, error)
            costs[i] = cycles
        return costs, None

    # ------------------------------------------------------------------ results

    def _last(self) -> Simulator | Run:
        if self._sim is None:
            if self._failed is not None:
                raise RuntimeError(
                    f"@{self.name} has no results: no run finished (the last one failed: "
                    f"{self._failed})"
                )
            raise RuntimeError(f"@{self.name} has not been executed yet")
        return self._sim

    def stats(self) -> Stats:
        """Statistics of the last execution (see ``Stats``)."""
        sim = self._last()
        if isinstance(sim, Run):
            tg = sim.task_graph
            kind = tg.kind
            end = sim.end_array
            stream_of = sim.stream_of_array
            num_tasks, num_nodes, num_edges = tg.num_tasks, tg.num_nodes, tg.num_edges
            edges_by_kind = tg.edge_counts()
        else:
            graph = sim.graph
            kind = np.asarray(graph._kind, dtype=np.int64)
            end = np.asarray(sim.end, dtype=np.float64)
            stream_of = np.asarray(sim.stream_of, dtype=np.int64)
            num_tasks, num_nodes, num_edges = graph.num_tasks, graph.num_nodes, len(graph._src)
            kinds = np.bincount(np.asarray(graph._ekind, dtype=np.int64), minlength=4)
            edges_by_kind = {name: int(kinds[i]) for i, name in enumerate(EDGE_KINDS)}
        ends = end[end >= 0]
        makespan = float(ends.max()) if ends.size else 0.0
        streams = self.config.streams or _distinct(stream_of[kind == 0]) or 1
        return Stats(
            mode=self.mode,
            num_tasks=num_tasks,
            num_barriers=num_nodes - num_tasks,
            num_edges=num_edges,
            edges_by_kind=edges_by_kind,
            num_streams=streams,
            num_workers=sim.n_workers,
            compile_time_ms=self.compile_time_ms,
            execute_time_ms=self._elapsed_ms,
            makespan_cycles=makespan,
            busy_cycles=list(sim.busy),
            utilization=[b / makespan if makespan else 0.0 for b in sim.busy],
            tasks_per_worker=list(sim.tasks_run),
            stalls={k: sim.stalls.get(k, 0.0) for k in STALL_CAUSES},
            steals=sim.steals,
            num_processes=len(sim.processes),
            warnings=list(self.warnings),
            phases_ms=dict(getattr(sim, "phases_ms", {})),
            kernel_calls=profile_totals(self._samples)[0],
            kernel_ms=profile_totals(self._samples)[1],
            kernel_cycles={k.name: k.cost for k in self.kernels.values() if k.derived_cost},
        )

    def _check_run(self) -> None:
        """``debug=True``: the last run's schedule against its graph (runtime/profiling.py)."""
        sim = self._sim
        if isinstance(sim, Run):
            start, end = sim.start_array, sim.end_array
        else:
            start, end = sim.start, sim.end
        check_schedule(self.graph(), start, end, f"@{self.name}")

    def graph(self) -> TaskGraph:
        """The task graph the last execution built (static form: ids, edges, regions)."""
        sim = self._last()
        if isinstance(sim, Run):
            return sim.task_graph
        return sim.graph.build()

    def trace(self) -> dict[str, Any]:
        """The last run as a Chrome/Perfetto trace (Trace Event Format, a JSON-ready dict)."""
        from pto_wsp.runtime.trace import chrome_trace

        return chrome_trace(self)

    def write_trace(self, path: str | os.PathLike) -> None:
        """Write the last run's Chrome/Perfetto trace to ``path`` (JSON)."""
        from pto_wsp.runtime.trace import chrome_trace

        chrome_trace(self, path)

    def write_gantt(self, path: str | os.PathLike, title: str | None = None) -> None:
        """Draw the last run as a Gantt chart into ``path`` (PNG unless its extension says)."""
        from pto_wsp.runtime.trace import write_gantt

        write_gantt(self, path, title)

    def schedule_of(self) -> list[dict[str, Any]]:
        """Per task of the last run: id, kernel, coordinates, worker, stream, start, end."""
        sim = self._last()
        if isinstance(sim, Run):
            tg = sim.task_graph
            kinds, kernel_of, coords = tg.kind.tolist(), tg.kernel.tolist(), tg.coords
            kernels = tg.kernels
        else:
            graph = sim.graph
            kinds, kernel_of, coords = graph._kind, graph._kernel, graph._coords
            kernels = graph.kernels
        worker, stream_of, start, end = sim.worker, sim.stream_of, sim.start, sim.end
        out = []
        for i, kind in enumerate(kinds):
            if kind != 0:
                continue
            out.append(
                {
                    "id": i,
                    "kernel": kernels[kernel_of[i]],
                    "coords": dict(coords[i]),
                    "worker": worker[i],
                    "stream": stream_of[i],
                    "start": start[i],
                    "end": end[i],
                }
            )
        return out

    # ------------------------------------------------------------------ channels

    def channel_state(self, name: str) -> tuple[bool, int]:
        """(open, messages buffered) of a pipeline's channel: in the run under way, else in
        the last run; (True, 0) before any."""
        live = self._live
        if isinstance(live, Channels) and name in live:
            return live.state(name)
        queues = getattr(live, "queues", None)
        if not queues or name not in queues:
            if name not in {q[0] for q in getattr(self.code, "queues", ())}:
                raise ValueError(f"@{self.name} has no channel {name!r}")
            return True, 0
        q = queues[name]
        return not q.closed, len(q.buffer)

    def close_channel(self, name: str) -> None:
        """Close a channel of the pipeline run under way (its simulator applies it at its next
        step: receivers drain it, then their consume ends; a later send is ChannelClosed)."""
        if not self.is_running():
            raise RuntimeError(
                f"@{self.name} is not running: close() acts on a pipeline started with "
                "start() or execute_async()"
            )
        native = self.native is not None and self.native.is_pipeline and self.config.fast
        with self._close_lock:
            sim = self._live
            if native and sim is None:  # the run is starting: closed when its channels exist
                if name not in {q for q, _, _ in self.native.queues}:
                    raise ValueError(f"@{self.name} has no channel {name!r}")
                self._closing.append(name)
                return
        if sim is None:
            raise RuntimeError(f"@{self.name} is starting: close() again")
        if isinstance(sim, Channels):
            if name not in sim:
                raise ValueError(f"@{self.name} has no channel {name!r}")
            sim.close(name)
            return
        if name not in sim.queues:
            raise ValueError(f"@{self.name} has no channel {name!r}")
        sim.closing.append(name)

    def __repr__(self) -> str:
        return f"<pto_wsp Program @{self.name} cpu_sim {self.mode}, {self.config.workers} workers>"


#: The fewest nodes of the rows a Program's plain schedule beside the build is made in (or
#: the last build's, if more): 80 B a node, under the 4 MiB from which numpy asks for
#: transparent huge pages (a first touch of a 2 MB page each, with compaction: slower than
#: the rows' own pages). The same rows from the first execute on (only the rows of the nodes
#: built are touched); a larger graph is scheduled after its build.
_LEAST_CAPACITY = 48 << 10


def _distinct(values: np.ndarray) -> int:
    """How many distinct values: np.unique's count, without its first call's import of
    numpy.ma (~10 ms, a process's first stats())."""
    ordered = np.sort(values)
    return int(ordered.size and 1 + np.count_nonzero(ordered[1:] != ordered[:-1]))


def integers_only(value: Any) -> bool:
    """Whether a list (or tuple) holds integers only — no bools, floats or strings — at any
    depth: numpy would truncate 1.5 to 1 without a word."""
    if isinstance(value, list | tuple):
        return all(integers_only(v) for v in value)
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
