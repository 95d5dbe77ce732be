"""The ``cpu_sim`` backend: a module to a runnable ``Program`` (seed 004 §2, §6.3).

``compile_cpu_sim(module, mode=..., workers=..., ...)`` runs the shared lowering — the
``wsp-to-tg`` and ``csp-to-tg`` passes with the module's schedules — then the backend's own
stage: the entry ``tg.program`` of a main program is compiled to native code by upstream MLIR
(``native.py``: JIT-compiled now, its time part of ``compile_time_ms``), a pipeline's to
Python for the reference engine (``simgen.py``), each ``wsp.kernel``
becomes a ``KernelSpec`` (cost model and CPU body), the program's ``config`` and the options
become the simulator's ``SimConfig``. Importing this module registers the backend, so
``pto_wsp.compile(x, target="cpu_sim")``, ``w.compile(...)`` and ``s.compile(...)`` use it.

Kernel bodies are found, in order: the ``kernels={name: function}`` option; the ``@kernel``
numpy functions of a module built by the Python API; the kernel's tile function
(``{tile = @f}``), compiled natively in functional mode (lowering/cpu/tile.py);
``impls = {cpu_sim = "module:function"}`` on the ``wsp.kernel``. A kernel with none runs as a no-op in the functional mode (a warning
says so); the cycles mode needs no body.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation

from pto_wsp.dialects import csp, sched, wsp
from pto_wsp.errors import CompileError, ErrorCode, SourceLoc, caller_location
from pto_wsp.lowering.cpu.lowered import Lowered, LoweringFailed, lowered
from pto_wsp.lowering.targets import bodies_of, register_backend
from pto_wsp.lowering.taskgraph import POOLS
from pto_wsp.runtime.engine import SimConfig
from pto_wsp.runtime.kernels import KernelSpec
from pto_wsp.runtime.program import Program

# The passes, the code generators and the tile kernels' compiler are imported where they
# are used: a compile whose lowering is in the disk cache (lowered.py) needs none of them.

__all__ = ["OPTIONS", "compile_cpu_sim", "entry_names"]

#: The options of ``compile(..., target="cpu_sim", **options)``.
OPTIONS = {
    "mode": "'functional' (run kernel bodies on the bound arrays) or 'cycles' (cost models only)",
    "workers": "number of workers (default: the schedule's round_robin/range count, else 4)",
    "vector_workers": "workers serving only the vector pool (with cube_workers)",
    "cube_workers": "workers serving only the cube pool (with vector_workers)",
    "workload": "the workload or pipeline to run when the module has several",
    "schedule": "the schedule to apply when the workload has several (it must exist)",
    "kernels": "{kernel name: Python function} bodies that override the others",
    "default_cost": "cycles of a kernel without a cost (default 1)",
    "gen_cost": "cycles the generator spends per task created (default 0)",
    "cycles_per_ms": "virtual cycles per millisecond, for rate_limit (default 1e6: 1 GHz)",
    "threads": "functional mode: run the kernel bodies on N threads (numpy releases the GIL)",
    "fast": "run main programs on the native core (default True; False: on the reference "
    "engine, runtime/engine.py; the results are the same)",
    "profiling": "True: stats() adds each kernel's body calls and wall time (kernel_calls, "
    "kernel_ms)",
    "debug": "True: after every run, check that the schedule honoured every edge of the task "
    "graph and ran every task once",
    "optimization_level": "0 or 1: the reference engine (as fast=False); 2 (default) or 3: "
    "the native core (the results are the same at every level)",
    "max_code_size": "a limit in bytes on the compiled task-generation program (the "
    "runtime-call IR upstream MLIR compiles; a pipeline's Python source)",
}

#: What the target honours of a schedule (pto_wsp.target_info).
DIRECTIVES = {
    "dispatch": "every policy: round_robin, affinity, hash, range, work_steal, dispatch_by",
    "streams": "honoured, with stream_by",
    "issue": "fifo and priority",
    "timing": "immediate, batched, interleaved, rate_limit (cycles_per_ms)",
    "dispatch_threshold": "honoured",
    "pipeline_depth": "honoured, every scope",
    "task_window": "honoured (stall or abort)",
    "batch_deps": "honoured",
    "spatial_map": "ignored with a warning (AIE placement)",
    "layout": "ignored with a warning (AIE placement)",
}

_MODES = ("functional", "cycles")

#: The code of an invalid option's CompileError.
_OPTION = ErrorCode.INVALID_OPTION


def _error(message: str, loc: SourceLoc, code: ErrorCode | None = None) -> CompileError:
    return CompileError("compile(target='cpu_sim')", message, loc=loc, code=code)


# --------------------------------------------------------------------------- entry


def entry_names(module: ModuleOp) -> tuple[list[str], list[str]]:
    """(all workloads and pipelines, those no other workload calls) of a module — and its
    task-generation programs already lowered (pto-opt -p wsp-to-tg), which run as they are."""
    # (by op name: the tg dialect is not imported, lowered.py)
    names: list[str] = []
    called: set[str] = set()
    for op in module.ops:
        if op.name in ("wsp.workload", "csp.pipeline", "tg.program"):
            names.append(op.sym_name.data)
    for op in module.walk():
        if op.name in ("wsp.call", "tg.call"):
            called.add(op.callee.root_reference.data)
    return names, [n for n in names if n not in called]


def _schedules(module: ModuleOp) -> list[Operation]:
    return [op for op in module.ops if op.name == "sched.schedule"]


def _entry(module: ModuleOp, workload: str | None, schedule: str | None, loc: SourceLoc) -> str:
    names, roots = entry_names(module)
    if workload is not None:
        if workload not in names:
            raise _error(
                f"no workload or pipeline @{workload} (there are: "
                f"{', '.join('@' + n for n in names) or 'none'})",
                loc,
            )
        return workload
    if len(roots) == 1:
        return roots[0]
    if schedule is not None:
        for s in _schedules(module):
            if s.properties["sym_name"].data == schedule:
                return s.properties["workload"].root_reference.data
    if not names:
        graphs = [op.sym_name.data for op in module.ops if op.name == "tg.graph"]
        if graphs:  # tg-materialize's output: the graph of one run, not a program
            raise _error(
                f"the module has only materialized task graphs (tg.graph @{graphs[0]}: "
                "tg-materialize's output); run the module from before tg-materialize",
                loc,
            )
        raise _error("the module has no workload or pipeline to run", loc)
    raise _error(
        f"the module has several workloads or pipelines ({', '.join('@' + n for n in roots)});"
        " choose one with workload=NAME",
        loc,
    )


# --------------------------------------------------------------------------- keys


def _compile_region(block: Block, arg_names: list[str], what: str) -> Callable[..., int]:
    """A key or cost region (arith, memref.dim; ends in a yield) as a Python function."""
    from pto_wsp.lowering.cpu.pygen import CodegenError, _divsi, _Generator, _remsi, exec_generated

    gen = _Generator()
    params = [gen.name(a) for a in block.args]
    ops = list(block.ops)
    if not ops or not ops[-1].operands:
        raise CodegenError(f"{what}: the region yields no value")
    for op in ops[:-1]:
        gen.op(op)
    result = gen.name(ops[-1].operands[0])
    source = "\n".join(
        [f"def _region({', '.join(params)}):", "    pass", *gen.lines, f"    return {result}"]
    )
    namespace: dict[str, Any] = {"_divsi": _divsi, "_remsi": _remsi}
    exec_generated(source, f"<{what}>", namespace)
    return namespace["_region"]


class PlacementKeys:
    """The schedule's per-task keys, for tasks a process receives in a message.

    A message's tasks are issued by the receiving process, which gives them its ``replica``
    coordinate; keys over it could not be computed by the sender (csp-to-tg leaves them out)
    and are computed here, at receipt, from the task's coordinates by name.
    """

    def __init__(self, schedule: Operation | None) -> None:
        self.dispatch: tuple[str, Any] | None = None
        self.stream: tuple[list[str], Callable[..., int]] | None = None
        self.priority: tuple[list[str], Callable[..., int]] | None = None
        #: dispatch_threshold: (T, pool below, pool above, key).
        self.threshold: tuple[int, int, int, tuple[list[str], Callable[..., int]]] | None = None
        if schedule is None:
            return
        for op in schedule.regions[0].block.ops:
            policy = op.properties.get("policy")
            policy = policy.data if isinstance(policy, StringAttr) else ""
            if op.name == "sched.dispatch" and policy in ("affinity", "range"):
                axis = op.properties.get("axis")
                if isinstance(axis, StringAttr) and policy == "affinity":
                    self.dispatch = ("affinity", axis.data)
            elif op.name == "sched.dispatch" and policy in ("hash", "dispatch_by"):
                self.dispatch = (policy, self._key(op))
            elif op.name == "sched.stream_by":
                self.stream = self._key(op)
            elif op.name == "sched.issue" and policy == "priority":
                self.priority = self._key(op)
            elif isinstance(op, sched.DispatchThresholdOp):
                self.threshold = (
                    op.threshold.value.data,
                    POOLS[op.below.data],
                    POOLS[op.above.data],
                    self._key(op),
                )

    @staticmethod
    def _key(op: Operation) -> tuple[list[str], Callable[..., int]]:
        names_attr = op.properties.get("key_names")
        names = [n.data for n in names_attr.data] if names_attr else []
        return names, _compile_region(op.regions[0].block, names, f"{op.name} key")

    @property
    def any(self) -> bool:
        return bool(self.dispatch or self.stream or self.priority or self.threshold)

    @staticmethod
    def _eval(key: tuple[list[str], Callable[..., int]], coords: dict[str, int]) -> int | None:
        names, fn = key
        if any(n not in coords for n in names):
            return None
        return int(fn(*(coords[n] for n in names)))

    def place(self, coords: tuple, pool: Any, target: int, stream: int, priority: int) -> tuple:
        """Pool, target, stream and priority of a received task (keeps what the sender set).

        A dispatch_threshold key is evaluated again at receipt: with the sender's coordinates
        it gives what the sender computed; over ``replica`` it gives the pool the sender
        could not (it kept the kernel's exec unit)."""
        named = dict(coords)
        if self.threshold is not None:
            value, below, above, key = self.threshold
            metric = self._eval(key, named)
            if metric is not None:  # compared unsigned, as wsp-to-tg's arith.cmpi ult
                pool = below if metric % (1 << 64) < value else above
        if target < 0 and self.dispatch is not None:
            policy, detail = self.dispatch
            if policy == "affinity":
                target = named.get(detail, -1)
            else:
                value = self._eval(detail, named)
                if value is not None:
                    target = value * 2654435761 % (1 << 32) if policy == "hash" else value
        if self.stream is not None and stream == 0:
            value = self._eval(self.stream, named)
            stream = stream if value is None else value
        if self.priority is not None and priority == 0:
            value = self._eval(self.priority, named)
            priority = priority if value is None else value
        return pool, target, stream, priority


# --------------------------------------------------------------------------- kernels


def _import_body(spec: str) -> Callable[..., Any]:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"impls cpu_sim = {spec!r} is not 'module:function'")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError:
        raise
    except SyntaxError as error:
        where = f"{error.filename}:{error.lineno}" if error.filename else module_name
        raise ValueError(f"module {module_name!r} does not parse ({where}: {error.msg})") from None
    except (Exception, SystemExit) as error:  # the module's own code failed as it loaded
        raise ValueError(
            f"importing module {module_name!r} raised {type(error).__name__}: {error}"
        ) from None
    for part in attr.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"impls cpu_sim = {spec!r} is not callable")
    return getattr(target, "fn", target)


def _kernel_specs(
    module: ModuleOp,
    bodies: Mapping[str, Any],
    default_cost: int,
    functional: bool,
    loc: SourceLoc,
    warnings: list[str],
) -> dict[str, KernelSpec]:
    specs: dict[str, KernelSpec] = {}
    for op in module.ops:
        if not isinstance(op, wsp.KernelOp):
            continue
        name = op.sym_name.data
        names = [n.data for n in op.arg_names]
        tile = op.tile_function()
        derived = op.cost is None and not op.cost_region.blocks and tile is not None
        if op.cost is not None:
            cost: int | Callable[..., int] = int(op.cost.value.data)
            if not 0 <= cost <= MAX_COST:  # (virtual time is a float64: exact below 2^53)
                raise _error(f"kernel @{name}: cost {cost} is not in [0, 2^53)", loc)
        elif op.cost_region.blocks:
            from pto_wsp.lowering.cpu.pygen import CodegenError

            try:
                cost = _compile_region(op.cost_region.block, names, f"cost of @{name}")
            except CodegenError as error:
                raise _error(str(error), loc) from None
        elif derived:
            from pto_wsp.passes.pto_cost import function_cycles

            cost = function_cycles(tile)
        else:
            cost = default_cost
        body, origin = bodies.get(name), "kernels="
        if body is not None and not callable(body):
            raise _error(f"kernels={{{name!r}: ...}} is not callable", loc)
        body = getattr(body, "fn", body)
        impls = op.impls.data if op.impls is not None else {}
        if body is None and tile is not None and functional:
            from pto_wsp.lowering.cpu.tile import compile_tile

            try:
                body, origin = compile_tile(tile), "tile function"
            except CompileError as error:
                where = getattr(error, "source", None) or loc  # the body's line, if known
                raise _error(f"kernel @{name}: {error.message}", where) from None
        if body is None and "cpu_sim" in impls:
            text = impls["cpu_sim"]
            text = text.data if isinstance(text, StringAttr) else str(text)
            try:
                body, origin = _import_body(text), "impls"
            except (ImportError, AttributeError, ValueError) as error:
                raise _error(
                    f"kernel @{name}: cannot load its cpu_sim body: {error}", loc
                ) from None
        if body is None and functional:
            warnings.append(
                f"warning: kernel @{name} has no CPU body (@kernel function, kernels= or "
                'impls = {cpu_sim = "module:function"}): its tasks run as no-ops'
            )
        specs[name] = KernelSpec(
            name,
            names,
            [a.data for a in op.access],
            op.exec_unit.data,
            cost,
            body,
            origin if body is not None else "",
            derived_cost=derived,
        )
    return specs


# --------------------------------------------------------------------------- config


def _config(program: Lowered, options: dict[str, Any], loc: SourceLoc) -> SimConfig:
    raw = program.config

    def get(key: str, default: Any) -> Any:
        value = raw.get(key)
        return value if isinstance(value, int | str) and not isinstance(value, bool) else default

    vector, cube = options.get("vector_workers"), options.get("cube_workers")
    workers = options.get("workers")
    pools: tuple[str, ...] = ()
    if vector is not None or cube is not None:
        vector = _count("vector_workers", vector or 0, 0, loc, MAX_WORKERS)
        cube = _count("cube_workers", cube or 0, 0, loc, MAX_WORKERS)
        pools = ("vector",) * vector + ("cube",) * cube
        if workers is not None and workers != len(pools):
            raise _error(f"workers={workers} but vector_workers + cube_workers = {len(pools)}", loc)
        workers = len(pools)
    name = "workers"
    if workers is None:
        workers = get("workers", 4)
        if raw.get("workers") is not None:
            name = "workers (the schedule's round_robin/range count)"
    workers = _count(name, workers, 1, loc, MAX_WORKERS)
    return SimConfig(
        workers=workers,
        worker_pools=pools,
        dispatch=get("dispatch", ""),
        streams=get("streams", 0),
        stream_keyed=program.stream_keyed,
        ready=get("ready", "fifo"),
        timing=get("timing", "immediate"),
        timing_n=get("timing_n", 0),
        task_window=get("task_window", 0),
        window_overflow=get("window_overflow", "stall"),
        pipeline_depth=get("pipeline_depth", 0),
        depth_scope=get("depth_scope", "global"),
        batch_deps=get("batch_deps", 0),
        functional=options.get("mode", "functional") == "functional",
        gen_cost=_count("gen_cost", options.get("gen_cost", 0), 0, loc),
        cycles_per_ms=_rate(options.get("cycles_per_ms", 1e6), loc),
        threads=_count("threads", options.get("threads", 0), 0, loc, MAX_THREADS),
        fast=_flag("fast", options.get("fast", True), loc),
    )


#: The largest cycle count of a cost (the schedulers keep time in float64: exact below 2^53).
MAX_COST = (1 << 53) - 1

#: The most workers a simulation has (virtual workers: each costs memory and a share of
#: every dispatch, and more than this many makes no machine we model), and threads.
MAX_WORKERS = 1 << 16
MAX_THREADS = 1 << 10


def _count(name: str, value: Any, least: int, loc: SourceLoc, most: int | None = None) -> int:
    """An integer option (a Python or numpy int, not a bool) of at least ``least`` (and at
    most ``most``)."""
    if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) < least:
        raise _error(f"{name} must be an int >= {least}, got {value!r}", loc, _OPTION)
    if most is not None and int(value) > most:
        raise _error(f"{name} must be an int <= {most}, got {value!r}", loc, _OPTION)
    return int(value)


def _rate(value: Any, loc: SourceLoc) -> float:
    """``cycles_per_ms``: a positive finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise _error(f"cycles_per_ms must be a positive number, got {value!r}", loc, _OPTION)
    rate = float(value)
    if not math.isfinite(rate) or rate <= 0:
        raise _error(f"cycles_per_ms must be a positive number, got {value!r}", loc, _OPTION)
    return rate


def _flag(name: str, value: Any, loc: SourceLoc) -> bool:
    """A yes/no option: True or False (a string such as "no" would read as true)."""
    if not isinstance(value, bool | np.bool_):
        raise _error(f"{name} must be True or False, got {value!r}", loc, _OPTION)
    return bool(value)


# --------------------------------------------------------------------------- compile


def _common_options(options: dict[str, Any], loc: SourceLoc) -> tuple[bool, bool, int, int | None]:
    """profiling, debug, optimization_level and max_code_size (seed 001 §7.2), checked."""
    profiling = _flag("profiling", options.get("profiling", False), loc)
    debug = _flag("debug", options.get("debug", False), loc)
    level = _count("optimization_level", options.get("optimization_level", 2), 0, loc, 3)
    limit = options.get("max_code_size")
    if limit is not None:
        limit = _count("max_code_size", limit, 1, loc)
    if level < 2 and options.get("fast") is True:
        raise _error(
            f"fast=True needs optimization_level 2 or 3 (level {level} runs the general engine)",
            loc,
            _OPTION,
        )
    return profiling, debug, level, limit


def compile_cpu_sim(module: ModuleOp, **options: Any) -> Program:
    """Compile ``module`` for the CPU simulator; the options are ``OPTIONS``."""
    loc = caller_location()
    start = time.perf_counter()
    unknown = [k for k in options if k not in OPTIONS]
    if unknown:
        raise _error(
            f"unknown option {unknown[0]!r} (options: {', '.join(OPTIONS)})",
            loc,
            _OPTION,
        )
    profiling, debug, level, max_code_size = _common_options(options, loc)
    mode = options.get("mode", "functional")
    if mode not in _MODES:
        raise _error(f"mode must be 'functional' or 'cycles', got {mode!r}", loc, _OPTION)
    bodies = bodies_of(module)
    given = options.get("kernels") or {}
    if not isinstance(given, Mapping):
        raise _error(
            f"kernels must be a dict {{kernel name: function}}, got {type(given).__name__}", loc
        )
    kernel_ops = [op for op in module.ops if isinstance(op, wsp.KernelOp)]
    known = [op.sym_name.data for op in kernel_ops]
    # A generic kernel's body given by its name serves each of its instances.
    generic = {k.sym_name.data: k.instance_of.data for k in kernel_ops if k.instance_of}
    known += sorted(set(generic.values()) - set(known))
    # A misspelt name leaves its kernel's body as it was: said (not an error: one dict of
    # bodies may serve several workloads, each module holding the kernels it uses).
    unused = [
        f"warning: kernels={{{name!r}: ...}}: the module has no kernel @{name} (its kernels: "
        f"{', '.join('@' + k for k in known) or 'none'}); that body is not used"
        for name in given
        if name not in known
    ]
    bodies.update(given)
    bodies.update({n: given[g] for n, g in generic.items() if g in given and n not in given})
    schedule = options.get("schedule")
    if schedule is not None:
        names = [s.properties["sym_name"].data for s in _schedules(module)]
        if schedule not in names:  # a typo would otherwise run another schedule, or none
            raise _error(
                f"no schedule @{schedule} (the module's schedules: "
                f"{', '.join('@' + n for n in names) or 'none'})",
                loc,
            )
    entry = _entry(module, options.get("workload"), schedule, loc)
    keys = _placement_keys(module, entry, schedule, loc)
    warnings: list[str] = unused
    try:
        program = lowered(module, entry, schedule or "")
        warnings += program.warnings
        config = _config(program, options, loc)
        if level < 2:
            config = dataclasses.replace(config, fast=False)
        code = program.reference() if not config.fast else program.reference
    except LoweringFailed as error:
        for line in warnings + error.warnings:  # what the lowering said first
            print(line, file=sys.stderr)
        raise _error(error.message, loc) from None
    native = program.native
    size = len(native.text.encode())
    if max_code_size is not None and size > max_code_size:
        raise _error(
            f"the task-generation program is {size} bytes of runtime-call IR, over max_code_size="
            f"{max_code_size}",
            loc,
            ErrorCode.CODE_SIZE_EXCEEDED,
        )
    warnings += _ignored(program.config, native.is_pipeline, config)
    default_cost = _count("default_cost", options.get("default_cost", 1), 0, loc, MAX_COST)
    kernels = _kernel_specs(module, bodies, default_cost, config.functional, loc, warnings)
    _check_pools(config, kernels, native.kernels, _chosen(module, entry, schedule), loc)
    for line in warnings:
        print(line, file=sys.stderr)
    return Program(
        entry,
        code,
        kernels,
        config,
        program.args,
        native=native,
        keys=keys,
        compile_time_ms=(time.perf_counter() - start) * 1e3,
        warnings=warnings,
        profiling=profiling,
        debug=debug,
    )


def _chosen(module: ModuleOp, entry: str, schedule: str | None) -> Operation | None:
    """The schedule of ``entry`` the compile applies: the one named, else its only one."""
    schedules = [
        s for s in _schedules(module) if s.properties["workload"].root_reference.data == entry
    ]
    chosen = [s for s in schedules if s.properties["sym_name"].data == schedule]
    chosen = chosen or (schedules if len(schedules) == 1 else [])
    return chosen[0] if chosen else None


def _check_pools(
    config: SimConfig,
    kernels: Mapping[str, KernelSpec],
    used: list[str],
    schedule: Operation | None,
    loc: SourceLoc,
) -> None:
    """With the workers split into pools, every pool a task may go to has a worker: a task
    of a pool nobody serves would never run."""
    if not config.worker_pools:
        return
    served = set(config.worker_pools)
    counts = (
        f"vector_workers={config.worker_pools.count('vector')}, "
        f"cube_workers={config.worker_pools.count('cube')}"
    )
    for name in used:
        unit = kernels[name].exec_unit if name in kernels else "vector"
        if unit not in served:
            raise _error(
                f'kernel {name} runs on {unit} units (exec_unit="{unit}") but no worker '
                f"serves the {unit} pool ({counts}): its tasks would never run",
                loc,
            )
    ops = [] if schedule is None else schedule.walk()
    for op in ops:
        if op.name == "sched.dispatch_threshold":
            for side in ("below", "above"):
                unit = op.properties[side].data
                if unit in ("vector", "cube") and unit not in served:
                    raise _error(
                        f"dispatch_threshold sends tasks {side} its threshold to the {unit} "
                        f"pool, which no worker serves ({counts})",
                        loc,
                    )


def _placement_keys(
    module: ModuleOp, entry: str, schedule: str | None, loc: SourceLoc
) -> PlacementKeys | None:
    """A pipeline's schedule keys, computed at receipt (None for a main program)."""
    if not any(isinstance(op, csp.PipelineOp) and op.sym_name.data == entry for op in module.ops):
        return None
    from pto_wsp.lowering.cpu.pygen import CodegenError

    try:
        keys = PlacementKeys(_chosen(module, entry, schedule))
    except CodegenError as error:
        raise _error(str(error), loc) from None
    return keys if keys.any else None


def _ignored(raw: Mapping[str, Any], is_pipeline: bool, config: SimConfig) -> list[str]:
    """Warnings for what of the schedule and options the CPU simulator does not honour."""
    warnings = [
        f"warning: sched.{what} places tasks on an AIE array; the CPU simulator runs "
        "on its workers and ignores it"
        for key, what in (("spatial_map", "spatial_map"), ("layouts", "layout"))
        if key in raw
    ]
    if is_pipeline and config.gen_cost:
        warnings.append(
            f"warning: gen_cost={config.gen_cost} is the main program's generation cost; a "
            'pipeline\'s processes cost no cycles (docs/simulator.md "Pipelines"), so it is '
            "ignored"
        )
    extensions = raw.get("extensions")
    if extensions is not None:
        names = ", ".join(map(str, extensions))
        warnings.append(f"warning: the CPU simulator does not know the schedule op(s) {names}")
    return warnings


def _register() -> None:
    register_backend(
        "cpu_sim",
        compile_cpu_sim,
        info={
            "returns": "a Program (bind, execute, stats, trace)",
            "modes": _MODES,
            "options": OPTIONS,
            "directives": DIRECTIVES,
        },
    )


_register()
