"""Compile a ``tg.program`` to Python for the simulator, pipelines included.

The code generator of ``pygen.py`` (scf/arith/memref and the task ops, as straight Python)
is extended here with what only the simulator runs:

- each task's regions remember which root dimensions its view keeps (``ViewRegion``), so
  the functional mode hands the kernel a numpy view of the declared shape;
- a pipeline's processes become Python *generator* functions: every point where a process
  may block yields a request to the simulator's process scheduler (runtime/engine.py) —
  ``("send", q, message)`` (``("try_send", q, message)`` for a nonblocking send: answered at
  once, the message dropped when ``q`` cannot take it), ``("recv", q)`` (answered with the
  message, None once closed),
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

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Operation, SSAValue

from pto_wsp.dialects import csp, tg, tg_events
from pto_wsp.lowering.cpu.pygen import (
    CodegenError,
    CompiledProgram,
    Tensor,
    View,
    _divsi,
    _Generator,
    _rank_reduction_mask,
    _remsi,
    _tup,
    check_no_recursion,
    empty_loop,
    exec_generated,
    find_program,
)
from pto_wsp.passes.diagnostics import location_of
from pto_wsp.runtime.kernels import ViewRegion

__all__ = ["ProcessCode", "SimProgram", "compile_sim_program", "stream_keyed"]


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
        #: Whether this is a tg.call callee (its tensors are the caller's: no folded views).
        self.callee = False
        #: A tensor argument's name as a Python expression when it is not its literal name
        #: (a callee's tensors are the caller's: ``v1.name``).
        self.tensor_expr: dict[str, str] = {}

    def op(self, op: Operation) -> None:
        if isinstance(op, memref.LoadOp) and op.memref in self.symviews:
            self._folded_load(op)
            return
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

    def constant(self, op: memref.GetGlobalOp) -> str:
        var = super().constant(op)
        # A constant array reads as a tensor argument does (loads, folded subviews).
        self.tensor_args[op.memref] = self.constants[var].name
        return var

    def for_loop(self, op: scf.ForOp) -> None:
        if not op.iter_args and empty_loop(op):
            return  # (no task: a huge trip count is not walked)
        if self.replica is None and any(isinstance(o, tg.TaskOp) for o in op.body.block.ops):
            # A task per iteration: a builder with a limit refuses the count before the loop.
            lb, ub, step = (self.name(v) for v in (op.lb, op.ub, op.step))
            self.line(f"_b.reserve(len(range({lb}, {ub}, {step})) if {step} > 0 else 0)")
        super().for_loop(op)

    def _texpr(self, tensor: str) -> str:
        """A folded view's tensor name as a Python expression (a literal, or a callee's
        ``v1.name``)."""
        return self.tensor_expr.get(tensor) or repr(tensor)

    def _folded_load(self, op: memref.LoadOp) -> None:
        """``memref.load`` of a folded view (a subview chain of a tensor argument): the root
        tensor's element at ``offset + index * stride`` per kept dimension, the others at
        their offset — what the load addresses — read with ``Tensor.load`` (numpy's bounds,
        on the root tensor)."""
        sym = self.symviews[op.memref]
        root = next(self.name(v) for v, n in self.tensor_args.items() if n == sym.tensor)
        exprs = list(sym.offsets)
        for i, dim in zip(op.indices, sym.kept):
            stride = sym.strides[dim]
            term = self.name(i) if stride == "1" else f"{self.name(i)} * {stride}"
            exprs[dim] = term if exprs[dim] == "0" else f"{exprs[dim]} + {term}"
        index = [self._temp(e) for e in exprs]
        self.line(f"{self.name(op.res)} = {root}.load({', '.join(index)})")

    def _temp(self, expr: str) -> str:
        """``expr`` as a variable (emitted once) unless it is already a name or a literal."""
        if _is_simple(expr):
            return expr
        self._temps += 1
        name = f"_t{self._temps}"
        self.line(f"{name} = {expr}")
        return name

    # --- folded views ----------------------------------------------------------------------

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
        self.line(
            f"{self.name(value)} = _View({self._texpr(sym.tensor)}, {_tup(sym.offsets)}, "
            f"{_tup(sym.sizes)}, "
            f"{_tup(sym.strides)}, {sym.kept!r})"
        )

    def subview(self, op) -> None:
        foldable = all(
            isinstance(use.operation, memref.SubviewOp | tg.TaskOp | memref.LoadOp)
            for use in op.result.uses
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
        unit = all(x == "1" for x in sym.strides)
        return (
            f"_R({self._texpr(sym.tensor)}, {_tup(sym.offsets)}, {_tup(sym.sizes)}, "
            f"{_tup(sym.strides)}, "
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
        request = "try_send" if op.nonblocking is not None else "send"
        self.line(f"yield ({request!r}, {queue!r}, {message})")

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


def _generator(program: tg.ProgramOp, fold: bool = True, callee: bool = False) -> _SimGenerator:
    """A generator that knows the program's tensor arguments by name (for folded views).

    A ``tg.call`` callee's tensor arguments are the caller's tensors: ``fold=False`` keeps
    its views runtime View objects; folded, a tensor argument ``v1`` is named ``v1.name``
    in the code (the callee's code then requires whole tensors: ``_compile_function``)."""
    gen = _SimGenerator()
    gen.callee = callee or not fold
    if not fold:
        return gen
    if gen.callee:
        for arg in program.body.block.args:
            gen.name(arg)  # the parameters' names in order
    for arg, name in zip(program.body.block.args, program.arg_names):
        if isinstance(arg.type, MemRefType):
            if gen.callee:  # the caller's tensor: its name when the callee runs
                var = gen.name(arg)
                gen.tensor_args[arg] = var
                gen.tensor_expr[var] = f"{var}.name"
            else:
                gen.tensor_args[arg] = name.data
    return gen


def _only_read(value: SSAValue) -> bool:
    """Whether every use of ``value`` (a tensor argument), through subview chains, reads it:
    a ``tg.task`` resource with access ``in``, a ``memref.load``, a ``memref.dim``. Anything
    else (another access, a ``tg.call`` operand whose callee could write it, an op not
    analysed here) means it may be written."""
    work = [value]
    while work:
        v = work.pop()
        for use in list(v.uses):
            op = use.operation
            if isinstance(op, memref.SubviewOp) and op.source is v:
                work.append(op.result)
            elif isinstance(op, memref.LoadOp) and op.memref is v:
                continue
            elif isinstance(op, memref.DimOp) and op.source is v:
                continue
            elif isinstance(op, tg.TaskOp):
                access = [a.data for a in op.access.data]
                resources = list(op.resources)
                if len(access) != len(resources) or any(p is v for p in op.params):
                    return False
                if not any(r is v for r in resources):
                    return False  # a coordinate, a pool, ...: not a region
                if any(r is v and a != "in" for r, a in zip(resources, access)):
                    return False
            else:
                return False
    return True


def read_only_args(program: tg.ProgramOp) -> tuple[str, ...]:
    """The names of ``program``'s tensor arguments that no task of it writes: every use, in
    the program and its process bodies, through subview chains, is a read (``_only_read``).
    The builder is told (``GraphBuilder.read_only``) before the first task: their accesses
    take no part in dependency inference (docs/batchgen.md "Tensors no task writes").
    Conservative: anything not analysed counts as a write."""
    try:
        return tuple(
            name.data
            for arg, name in zip(program.body.block.args, program.arg_names)
            if isinstance(arg.type, MemRefType) and _only_read(arg)
        )
    except Exception:  # an op shaped otherwise than expected: nothing is read-only
        return ()


def _compile_function(
    program: tg.ProgramOp,
    module: ModuleOp | None,
    seen: dict[str, CompiledProgram],
    callee: bool = False,
) -> CompiledProgram:
    """A plain (non-pipeline) program, with its tg.call callees (a callee with runtime
    views: its tensor arguments may be the caller's subviews)."""
    name = program.sym_name.data
    if name in seen:
        return seen[name]
    events = tg_events.uses_events(program, module)
    gen = _generator(program, fold=not callee, callee=callee)
    params = [gen.name(a) for a in program.body.block.args]
    gen.block(program.body.block)
    header = f"def _program(_b{''.join(', ' + p for p in params)}):"
    head = [header, "    pass"] + (["    _b.use_events()"] if events else [])
    read_only = () if callee else read_only_args(program)
    if read_only:
        # Tensors no task writes: no part in dependency inference (builders that can).
        head += [
            "    _ro = getattr(_b, 'read_only', None)",
            "    if _ro is not None:",
            f"        _ro({read_only!r})",
        ]
    source = "\n".join([*head, *gen.lines]) + "\n"
    namespace = _namespace()
    namespace.update(gen.constants)
    callees: dict[str, CompiledProgram] = {}
    for callee in sorted(gen.calls):
        target = find_program(module, callee, program)
        callees[callee] = _compile_function(target, module, seen, True)
        namespace[f"_call_{callee}"] = callees[callee].function
    exec_generated(source, f"<tg.program @{name}>", namespace)
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


def stream_keyed(program: tg.ProgramOp) -> bool:
    """Whether the program's tasks give their stream (stream_by)."""
    return any(isinstance(op, tg.TaskOp) and op.stream is not None for op in program.walk())


def compile_sim_program(program: tg.ProgramOp, module: ModuleOp | None = None) -> SimProgram:
    """Translate one ``tg.program`` (and the programs it calls) to Python for the reference
    engine, task by task."""
    check_no_recursion(program, module)
    name = program.sym_name.data
    arg_names = [n.data for n in program.arg_names]
    arg_types = list(program.function_type.inputs.data)
    if not program.processes():
        compiled = _compile_function(program, module, {})
        return SimProgram(name, compiled, compiled.source, stream_keyed=stream_keyed(program))
    queues = [
        (q.sym_name.data, q.capacity.value.data, isinstance(q.element_type, csp.SignalType))
        for q in program.body.block.ops
        if isinstance(q, tg.QueueOp)
    ]
    check_replicas(program)
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
        namespace.update(gen.constants)
        header = f"def {fn_name}(_b{''.join(', ' + p for p in params)}, {replica}):"
        source = "\n".join([header, *gen.lines, "    yield ('wait',)"]) + "\n"
        sources.append(source)
        for callee in sorted(gen.calls):
            target = find_program(module, callee, program)
            namespace[f"_call_{callee}"] = _compile_function(
                target, module, seen, callee=True
            ).function
        exec_generated(source, f"<tg.process @{name}::{process.sym_name.data}>", namespace)
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
        stream_keyed=stream_keyed(program),
    )


#: The most processes (replicas counted) a pipeline may run: one generator each, made before
#: the run, so a count beyond it would spend minutes creating them (as many as workers).
MAX_PROCESSES = 1 << 16


def check_replicas(program: tg.ProgramOp) -> None:
    """A pipeline of more processes than ``MAX_PROCESSES`` is refused, at its largest process."""
    processes = list(program.processes())
    total = sum(p.replicas.value.data for p in processes)
    if total > MAX_PROCESSES:
        largest = max(processes, key=lambda p: p.replicas.value.data)
        where = location_of(largest)
        raise CodegenError(
            f"{where + ': ' if where else ''}tg.process @{largest.sym_name.data} has "
            f"{largest.replicas.value.data:,} replicas ({total:,} processes in the pipeline); "
            f"the simulator runs at most {MAX_PROCESSES:,}"
        )


def _no_main(*_: Any) -> None:
    raise RuntimeError("a pipeline has no main function: run its processes")
