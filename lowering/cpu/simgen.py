"""Compile a ``tg.program`` to Python for the simulator, pipelines included.

The code generator of ``pygen.py`` (scf/arith/memref and the task ops, as straight Python)
is extended here with what only the simulator runs:

- each task's regions remember which root dimensions its view keeps (``ViewRegion``), so
  the functional mode hands the kernel a numpy view of the declared shape;
- a pipeline's processes become Python *generator* functions: every point where a process
  may block yields a request to the simulator's process scheduler (runtime/engine.py) —
  ``("send", q, message)``, ``("recv", q)`` (answered with the message, None once closed),
  ``("wait",)`` (until the tasks this process issued have completed) and ``("window",)``
  (until the task window has room). ``tg.send`` builds its message by capturing the tasks
  its body creates; ``tg.consume`` is a loop that receives, issues the message's tasks with
  the process's replica coordinate, runs the body, then waits for what it issued;
  ``tg.record`` waits for the process's tasks, then rendezvous-sends a signal;
  ``tg.synchronize`` receives one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue

from pto_wsp.dialects import csp, tg
from pto_wsp.lowering.cpu.pygen import (
    CodegenError,
    CompiledProgram,
    Tensor,
    View,
    _divsi,
    _Generator,
    _rank_reduction_mask,
    _remsi,
)
from pto_wsp.runtime.kernels import ViewRegion

__all__ = ["ProcessCode", "SimProgram", "compile_sim_program"]


def _view_cached(value: Any) -> View:
    """pygen's ``_view``, keeping each tensor's root view (made once per run, not per use)."""
    if value.__class__ is Tensor:
        root = value.__dict__.get("_root_view")
        if root is None:
            root = value._root_view = value.root()  # type: ignore[attr-defined]
        return root
    return value


def _region(value: Any, access: str) -> ViewRegion:
    if value.__class__ is Tensor:  # a whole tensor: one region per access, made once a run
        cache = value.__dict__.setdefault("_regions", {})
        region = cache.get(access)
        if region is None:
            view = _view_cached(value)
            region = cache[access] = ViewRegion.of(
                view.tensor, view.offsets, view.sizes, view.strides, access, view.kept
            )
        return region
    view: View = value
    return ViewRegion.of(view.tensor, view.offsets, view.sizes, view.strides, access, view.kept)


@dataclass
class _Sym:
    """A view known at code-generation time as Python expressions: per root dimension the
    offset, size and stride (variable names or integer literals) and the kept dimensions."""

    tensor: str
    offsets: list[str]
    sizes: list[str]
    strides: list[str]
    kept: tuple[int, ...]
    materialized: bool = False


def _is_simple(expr: str) -> bool:
    return expr.isidentifier() or expr.lstrip("-").isdigit()


class _SimGenerator(_Generator):
    """pygen's generator plus view regions and the process ops.

    ``memref.subview`` chains rooted at a tensor argument are folded at generation time
    (``_Sym``): a task's region is built from the offsets the loop computed, with no View
    object per subview (the per-task path's largest cost of generation)."""

    def __init__(self, replica: str | None = None) -> None:
        super().__init__()
        self.replica = replica  # the replica variable inside a process body
        self.in_send = False
        self.sends: set[str] = set()
        self.receives: set[str] = set()
        self.tensor_args: dict[SSAValue, str] = {}
        self.symviews: dict[SSAValue, _Sym] = {}
        self._temps = 0

    def op(self, op: Operation) -> None:
        if isinstance(op, tg.SendOp):
            self.send(op)
        elif isinstance(op, tg.ConsumeOp):
            self.consume(op)
        elif isinstance(op, tg.CoordOp):
            position = op.position.value.data
            self.line(f"{self.name(op.result)} = {self.name(op.message)}.coord({position})")
        elif isinstance(op, tg.RecordOp):
            queue = op.queue.root_reference.data
            self.sends.add(queue)
            self.line("yield ('wait',)")
            self.line(f"yield ('send', {queue!r}, None)")
        elif isinstance(op, tg.SynchronizeOp):
            queue = op.queue.root_reference.data
            self.receives.add(queue)
            self.line(f"yield ('recv', {queue!r})")
        elif isinstance(op, tg.TaskOp) and self.replica is not None and not self.in_send:
            self.line("while _b.window_full():")
            self.line("    yield ('window',)")
            super().op(op)
        else:
            super().op(op)

    # --- folded views ----------------------------------------------------------------------

    def _temp(self, expr: str) -> str:
        """``expr`` as a variable (emitted once) unless it is already a name or a literal."""
        if _is_simple(expr):
            return expr
        self._temps += 1
        name = f"_t{self._temps}"
        self.line(f"{name} = {expr}")
        return name

    def _source_sym(self, value: SSAValue) -> _Sym | None:
        sym = self.symviews.get(value)
        if sym is not None:
            return sym
        name = self.tensor_args.get(value)
        if name is None:
            return None
        rank = len(value.type.get_shape())
        return _Sym(name, ["0"] * rank, ["?"] * rank, ["1"] * rank, tuple(range(rank)))

    def _materialize(self, value: SSAValue) -> None:
        """Give a folded view a Python variable (a pygen View) for the ops that need one."""
        sym = self.symviews.get(value)
        if sym is None or sym.materialized:
            return
        sym.materialized = True
        tup = lambda xs: "(" + "".join(x + ", " for x in xs) + ")"  # noqa: E731
        self.line(
            f"{self.name(value)} = _View({sym.tensor!r}, {tup(sym.offsets)}, {tup(sym.sizes)}, "
            f"{tup(sym.strides)}, {sym.kept!r})"
        )

    def subview(self, op) -> None:
        foldable = all(
            isinstance(use.operation, memref.SubviewOp | tg.TaskOp) for use in op.result.uses
        )
        sym = self._source_sym(op.source)
        if sym is None or not foldable:
            self._materialize(op.source)
            super().subview(op)
            return

        def values(static, dynamic) -> list[str]:
            dyn = iter(dynamic)
            return [self.name(next(dyn)) if v == DYNAMIC_INDEX else str(v) for v in static]

        offsets = values(op.static_offsets.get_values(), op.offsets)
        sizes = values(op.static_sizes.get_values(), op.sizes)
        strides = values(op.static_strides.get_values(), op.strides)
        mask = _rank_reduction_mask(
            list(op.static_sizes.get_values()), list(op.result.type.get_shape())
        )
        off, size, stride = list(sym.offsets), list(sym.sizes), list(sym.strides)
        kept = []
        for i, dim in enumerate(sym.kept):
            o, st = offsets[i], stride[dim]
            term = "0" if o == "0" else o if st == "1" else f"{o} * {st}"
            if term != "0":
                off[dim] = self._temp(term if off[dim] == "0" else f"{off[dim]} + {term}")
            size[dim] = sizes[i]
            if strides[i] != "1":
                stride[dim] = self._temp(strides[i] if st == "1" else f"{st} * {strides[i]}")
            if mask[i]:
                kept.append(dim)
        self.symviews[op.result] = _Sym(sym.tensor, off, size, stride, tuple(kept))

    def _region_expr(self, value: SSAValue, access: str) -> str:
        sym = self.symviews.get(value)
        if sym is None or "?" in sym.sizes:
            self._materialize(value)
            return f"_region({self.name(value)}, {access!r})"
        tup = lambda xs: "(" + "".join(x + ", " for x in xs) + ")"  # noqa: E731
        unit = all(x == "1" for x in sym.strides)
        return (
            f"_R({sym.tensor!r}, {tup(sym.offsets)}, {tup(sym.sizes)}, {tup(sym.strides)}, "
            f"{access!r}, {sym.kept!r}, {unit})"
        )

    def _need_process(self, op: Operation) -> None:
        if self.replica is None:
            self.fail(op, f"{op.name} outside a tg.process")

    def send(self, op: tg.SendOp) -> None:
        self._need_process(op)
        queue = op.queue.root_reference.data
        self.sends.add(queue)
        coords = "".join(
            f"({n.data!r}, {self.name(v)}), " for n, v in zip(op.coord_names, op.coords)
        )
        self.line("_b.begin_send()")
        self.in_send = True
        self.block(op.body.block)
        self.in_send = False
        message = f"_msg{len(self.names)}"
        self.line(f"{message} = _b.end_send(({coords}))")
        self.line(f"yield ('send', {queue!r}, {message})")

    def consume(self, op: tg.ConsumeOp) -> None:
        self._need_process(op)
        queue = op.queue.root_reference.data
        self.receives.add(queue)
        m = self.name(op.message)
        self.line("while True:")
        self.indent += 1
        self.line(f"{m} = yield ('recv', {queue!r})")
        self.line(f"if {m} is None:")
        self.line("    break")
        self.line("while _b.window_full():")
        self.line("    yield ('window',)")
        self.line(f"_b.issue_message({m}, {self.replica})")
        self.block(op.body.block)
        self.line("yield ('wait',)")
        self.indent -= 1

    def task(self, op: tg.TaskOp) -> None:
        kernel = op.kernel.root_reference.data
        params = "".join(self.name(p) + ", " for p in op.params)
        regions = "".join(
            self._region_expr(r, a.data) + ", " for r, a in zip(op.resources, op.access)
        )
        coords = "".join(
            f"({n.data!r}, {self.name(v)}), " for n, v in zip(op.coord_names, op.coords)
        )
        pool = (
            self.name(op.dynamic_pool)
            if op.dynamic_pool
            else repr(op.pool.data if op.pool else "any")
        )
        target = self.name(op.target) if op.target else "-1"
        stream = self.name(op.stream) if op.stream else "0"
        priority = self.name(op.priority) if op.priority else "0"
        self.line(
            f"_b.add_task({kernel!r}, ({params}), ({regions}), ({coords}), {pool}, "
            f"{target}, {stream}, {priority}, {op.domain.data!r})"
        )


@dataclass
class ProcessCode:
    """One compiled process: its generator function and the queues it sends and receives."""

    name: str
    replicas: int
    function: Callable[..., Any]
    sends: set[str]
    receives: set[str]


@dataclass
class SimProgram:
    """A tg.program compiled for the simulator: a main function, or a pipeline's processes."""

    name: str
    compiled: CompiledProgram  # arguments and binding (main function None for a pipeline)
    source: str
    processes: list[ProcessCode] = field(default_factory=list)
    queues: list[tuple[str, int, bool]] = field(default_factory=list)
    stream_keyed: bool = False

    @property
    def is_pipeline(self) -> bool:
        return bool(self.processes)


def _namespace() -> dict[str, Any]:
    return {
        "_view": _view_cached,
        "_region": _region,
        "_R": ViewRegion.of,
        "_View": View,
        "_divsi": _divsi,
        "_remsi": _remsi,
    }


def _generator(program: tg.ProgramOp) -> _SimGenerator:
    """A generator that knows the program's tensor arguments by name (for folded views)."""
    gen = _SimGenerator()
    for arg, name in zip(program.body.block.args, program.arg_names):
        if isinstance(arg.type, MemRefType):
            gen.tensor_args[arg] = name.data
    return gen


def _compile_function(
    program: tg.ProgramOp, module: ModuleOp | None, seen: dict[str, CompiledProgram]
) -> CompiledProgram:
    """A plain (non-pipeline) program, with its tg.call callees."""
    name = program.sym_name.data
    if name in seen:
        return seen[name]
    gen = _generator(program)
    params = [gen.name(a) for a in program.body.block.args]
    gen.block(program.body.block)
    header = f"def _program(_b{''.join(', ' + p for p in params)}):"
    source = "\n".join([header, "    pass", *gen.lines]) + "\n"
    namespace = _namespace()
    callees: dict[str, CompiledProgram] = {}
    for callee in sorted(gen.calls):
        target = _find_program(module, callee, program)
        callees[callee] = _compile_function(target, module, seen)
        namespace[f"_call_{callee}"] = callees[callee].function
    exec(compile(source, f"<tg.program @{name}>", "exec"), namespace)
    compiled = CompiledProgram(
        name,
        [n.data for n in program.arg_names],
        list(program.function_type.inputs.data),
        source,
        namespace["_program"],
        callees,
    )
    seen[name] = compiled
    return compiled


def _find_program(module: ModuleOp | None, name: str, at: Operation) -> tg.ProgramOp:
    if module is not None:
        for op in module.ops:
            if isinstance(op, tg.ProgramOp) and op.sym_name.data == name:
                return op
    raise CodegenError(f"tg.call of unknown program @{name}")


def _stream_keyed(program: tg.ProgramOp) -> bool:
    return any(isinstance(op, tg.TaskOp) and op.stream is not None for op in program.walk())


def compile_sim_program(program: tg.ProgramOp, module: ModuleOp | None = None) -> SimProgram:
    """Translate one ``tg.program`` (and the programs it calls) to Python for the simulator."""
    name = program.sym_name.data
    arg_names = [n.data for n in program.arg_names]
    arg_types = list(program.function_type.inputs.data)
    if not program.processes():
        compiled = _compile_function(program, module, {})
        return SimProgram(name, compiled, compiled.source, stream_keyed=_stream_keyed(program))
    queues = [
        (q.sym_name.data, q.capacity.value.data, isinstance(q.element_type, csp.SignalType))
        for q in program.body.block.ops
        if isinstance(q, tg.QueueOp)
    ]
    processes: list[ProcessCode] = []
    sources: list[str] = []
    namespace = _namespace()
    seen: dict[str, CompiledProgram] = {}
    for process in program.processes():
        gen = _generator(program)
        params = [gen.name(a) for a in program.body.block.args]
        replica = gen.name(process.replica)
        gen.replica = replica
        gen.block(process.body.block)
        fn_name = f"_process_{process.sym_name.data}"
        header = f"def {fn_name}(_b{''.join(', ' + p for p in params)}, {replica}):"
        source = "\n".join([header, *gen.lines, "    yield ('wait',)"]) + "\n"
        sources.append(source)
        for callee in sorted(gen.calls):
            target = _find_program(module, callee, program)
            namespace[f"_call_{callee}"] = _compile_function(target, module, seen).function
        exec(compile(source, f"<tg.process @{name}::{process.sym_name.data}>", "exec"), namespace)
        processes.append(
            ProcessCode(
                process.sym_name.data,
                process.replicas.value.data,
                namespace[fn_name],
                gen.sends,
                gen.receives,
            )
        )
    compiled = CompiledProgram(name, arg_names, arg_types, "\n".join(sources), _no_main, {})
    return SimProgram(
        name,
        compiled,
        compiled.source,
        processes,
        queues,
        stream_keyed=_stream_keyed(program),
    )


def _no_main(*_: Any) -> None:
    raise RuntimeError("a pipeline has no main function: run its processes")
