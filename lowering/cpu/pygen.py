"""Compile a ``tg.program`` to a Python function that creates its tasks.

DESIGN.md: interpreting IR op by op costs far more per task than Python itself, so the
task-generation program is translated once into Python source — ``scf.for`` becomes a
``for`` loop, ``arith`` becomes Python integer arithmetic, ``tg.task`` a call — and run as
ordinary Python. The function drives a *builder*: any object with GraphBuilder's interface
(``add_task``, ``enter_ordered``, ``order_point``, ``exit_ordered``, ``num_tasks``), so the
same compiled program materializes a static graph (``tg-materialize``) or feeds a runtime.

Tensors are addressed by name: a ``memref.subview`` chain becomes a region of its root
argument (offsets, sizes and strides in the root's index space), which is what the
TensorMap needs to decide overlap. Values loaded with ``memref.load`` come from the
arrays bound to the program's arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue

from pto_wsp.dialects import tg, tg_events
from pto_wsp.dialects.tg_calls import call_cycle
from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.passes.diagnostics import location_of
from pto_wsp.passes.globals import constant_array


def empty_loop(op: scf.ForOp) -> bool:
    """Whether the loop does nothing: its body holds only empty loops. It is not emitted, so
    a huge trip count of no task is not walked (a Ragged axis of 2^31 elements, no body)."""
    return all(
        isinstance(o, scf.YieldOp) or (isinstance(o, scf.ForOp) and empty_loop(o))
        for o in op.body.block.ops
    )


class CodegenError(Exception):
    """An op the Python code generator cannot translate, with its location."""


def exec_generated(source: str, filename: str, namespace: dict[str, Any]) -> None:
    """Compile and run generated ``source`` (its definitions go into ``namespace``). Source
    that does not compile is the generator's bug, said as such (a CodegenError, not a
    SyntaxError pointing into a file nobody can open)."""
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as error:
        line = source.splitlines()[error.lineno - 1].strip() if error.lineno else ""
        raise CodegenError(
            f"internal error: the Python generated for {filename.strip('<>')} does not compile "
            f"({error.msg} at its line {error.lineno}: {line!r}); this is a bug in the CPU "
            "code generator"
        ) from None
    exec(code, namespace)


@dataclass(frozen=True)
class View:
    """A region of a root tensor: per root dimension offset, size, stride; which dims remain."""

    tensor: str
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    kept: tuple[int, ...]  # root dims that are dims of this view, in order
    #: The root tensor (its data, for ``load``); not part of the view's value.
    source: Tensor | None = field(default=None, compare=False, repr=False)

    def sub(self, offsets, sizes, strides, keep_mask) -> View:
        """The subview of this view: entries address this view's dims (``kept``)."""
        root_off = list(self.offsets)
        root_size = list(self.sizes)
        root_stride = list(self.strides)
        kept = []
        for i, dim in enumerate(self.kept):
            root_off[dim] += offsets[i] * self.strides[dim]
            root_size[dim] = sizes[i]
            root_stride[dim] = self.strides[dim] * strides[i]
            if keep_mask[i]:
                kept.append(dim)
        return View(
            self.tensor,
            tuple(root_off),
            tuple(root_size),
            tuple(root_stride),
            tuple(kept),
            self.source,
        )

    def load(self, *index: int) -> int:
        """``memref.load`` of the view: the root tensor's element at offset + index * stride
        per kept dimension, the others at their offset (numpy's bounds, on the root)."""
        if self.source is None:
            raise KeyError(self.tensor)
        at = list(self.offsets)
        for i, dim in zip(index, self.kept):
            at[dim] += i * self.strides[dim]
        return self.source.load(*at)

    def region(self, access: str) -> TensorRegion:
        return TensorRegion(self.tensor, self.offsets, self.sizes, self.strides, access)


#: The extent of a dimension whose size is not bound: it covers every index.
WHOLE = 1 << 62


@dataclass
class Tensor:
    """A memref argument of a program: its name, its shape, and its data if bound."""

    name: str
    shape: tuple[int | None, ...]
    data: np.ndarray | None = None

    def root(self) -> View:
        rank = len(self.shape)
        # An unknown extent is "the whole dimension": large enough to overlap any region.
        sizes = tuple(s if s is not None else WHOLE for s in self.shape)
        return View(self.name, (0,) * rank, sizes, (1,) * rank, tuple(range(rank)), self)

    def load(self, *index: int) -> int:
        if self.data is None:
            raise KeyError(self.name)
        return int(self.data[index])

    def dim(self, d: int) -> int:
        size = self.shape[d]
        if size is None:
            raise KeyError(self.name)
        return size


@dataclass
class CompiledProgram:
    """A tg.program compiled to Python: ``run(builder, bindings)`` creates its tasks."""

    name: str
    arg_names: list[str]
    arg_types: list[Any]
    source: str
    function: Callable[..., None]
    callees: dict[str, CompiledProgram] = field(default_factory=dict)
    # Each argument's static shape (a memref's; None: a scalar), made on the first bind.
    _statics: list[tuple | None] | None = field(default=None, init=False, repr=False, compare=False)

    def run(self, builder: Any, bindings: Mapping[str, Any]) -> None:
        """Create the program's tasks on ``builder`` with its arguments bound by name."""
        self.function(builder, *self.bind(bindings))

    def bind(self, bindings: Mapping[str, Any]) -> list[Any]:
        """The positional arguments of the compiled function for these bindings."""
        statics = self._statics
        if statics is None:
            statics = self._statics = [
                tuple(s if s >= 0 else None for s in t.get_shape())
                if isinstance(t, MemRefType)
                else None
                for t in self.arg_types
            ]
        values = []
        for name, type_, static in zip(self.arg_names, self.arg_types, statics):
            value = bindings.get(name)
            if static is not None:
                values.append(_tensor(name, type_, value, static))
            elif value is None:
                raise KeyError(name)
            elif np.ndim(value) != 0:
                raise ValueError(
                    f"{name} is a scalar ({type_}): bind an integer, not a list or an array"
                )
            else:
                values.append(int(value))
        return values


def _tensor(name: str, type_: MemRefType, value: Any, static: tuple) -> Tensor:
    if value is None:
        return Tensor(name, static)
    data = np.asarray(value)
    if data.ndim != len(static) or any(
        s is not None and s != d for s, d in zip(static, data.shape)
    ):
        raise ValueError(f"{name}: bound array of shape {data.shape} does not fit {type_}")
    return Tensor(name, tuple(data.shape), data)


# --------------------------------------------------------------------------- codegen

_BINARY = {
    arith.AddiOp: "({a} + {b})",
    arith.SubiOp: "({a} - {b})",
    arith.MuliOp: "({a} * {b})",
    arith.DivUIOp: "({a} // {b})",
    arith.FloorDivSIOp: "({a} // {b})",
    arith.DivSIOp: "_divsi({a}, {b})",
    arith.CeilDivUIOp: "(-((-{a}) // {b}))",
    arith.CeilDivSIOp: "(-((-{a}) // {b}))",
    arith.RemUIOp: "({a} % {b})",
    arith.RemSIOp: "_remsi({a}, {b})",
    arith.MinUIOp: "min({a}, {b})",
    arith.MinSIOp: "min({a}, {b})",
    arith.MaxUIOp: "max({a}, {b})",
    arith.MaxSIOp: "max({a}, {b})",
    arith.AndIOp: "({a} & {b})",
    arith.OrIOp: "({a} | {b})",
    arith.XOrIOp: "({a} ^ {b})",
    arith.ShLIOp: "({a} << {b})",
    arith.ShRUIOp: "({a} >> {b})",
    arith.ShRSIOp: "({a} >> {b})",
}

# Float arithmetic, for cost regions that read a kernel's float parameters (Python floats:
# a cost is an estimate, f32/f16 rounding of the intermediate values is not modelled).
_FLOAT = {
    arith.AddfOp: "({0} + {1})",
    arith.SubfOp: "({0} - {1})",
    arith.MulfOp: "({0} * {1})",
    arith.DivfOp: "({0} / {1})",
    arith.NegfOp: "(-{0})",
    arith.FPToSIOp: "int({0})",
    arith.FPToUIOp: "int({0})",
    arith.SIToFPOp: "float({0})",
    arith.UIToFPOp: "float({0})",
}

_CMP = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}


def constant_value(attr: IntegerAttr) -> int:
    """An integer constant as the generated code computes with it: a 64-bit one (an index or
    i64) between 2^63 and 2^64 - 1 is that bit pattern, i.e. the negative value it stands for
    in two's complement (``18446744073709551615 : index`` is -1), as MLIR reads it; the
    runtime's fields are int64. Other widths keep their value."""
    value = int(attr.value.data)
    wide = isinstance(attr.type, IndexType) or getattr(attr.type, "bitwidth", 0) == 64
    return value - (1 << 64) if wide and value >= 1 << 63 else value


def _divsi(a: int, b: int) -> int:
    """Signed division rounding toward zero, as arith.divsi."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _remsi(a: int, b: int) -> int:
    """Signed remainder with the sign of the dividend, as arith.remsi."""
    return a - _divsi(a, b) * b


def _rank_reduction_mask(sizes: list[int], result: list[int]) -> list[bool]:
    """Which entries of a subview remain dims of its result (MLIR's greedy unit-dim rule).

    ``sizes`` are the subview's static sizes (DYNAMIC_INDEX where dynamic), ``result`` the
    result type's shape: an entry is kept when it matches the next result dim, else it must
    be a unit dim and is dropped.
    """
    keep = []
    r = 0
    for size in sizes:
        if r < len(result) and size == result[r]:
            keep.append(True)
            r += 1
        else:
            keep.append(False)
    return keep


class _Generator:
    """Emits the Python source of one program."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.indent = 1
        self.kernels: dict[str, str] = {}
        self.calls: set[str] = set()
        #: The constant arrays the code reads (``memref.get_global``), by their Python name.
        self.constants: dict[str, Tensor] = {}

    def name(self, value: SSAValue) -> str:
        if value not in self.names:
            self.names[value] = f"v{len(self.names)}"
        return self.names[value]

    def constant_source(self, op: arith.ConstantOp) -> str:
        """An ``arith.constant`` as Python: an int, a bool (i1) or a float rounded to its
        type's precision (the value a kernel's scalar parameter of that type receives)."""
        value = op.value
        if isinstance(value, FloatAttr):
            with np.errstate(over="ignore"):  # beyond the type's range: inf, as the type holds it
                number = float(np.dtype(f"f{value.type.bitwidth // 8}").type(value.value.data))
            return repr(number) if np.isfinite(number) else f"float({str(number)!r})"
        if not isinstance(value, IntegerAttr):
            self.fail(op, "constants that are not integers or floats")
        if value.type == IntegerType(1):
            return repr(bool(value.value.data))
        return str(constant_value(value))

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:  # noqa: C901 - a dispatch over the ops it knows
        if isinstance(op, tg.YieldOp | scf.YieldOp):
            if op.operands:
                self.fail(op, "loop-carried values (scf.yield with operands)")
            return
        if isinstance(op, arith.ConstantOp):
            self.line(f"{self.name(op.result)} = {self.constant_source(op)}")
        elif type(op) in _BINARY:
            a, b = (self.name(x) for x in op.operands)
            self.line(f"{self.name(op.results[0])} = " + _BINARY[type(op)].format(a=a, b=b))
        elif isinstance(op, arith.CmpiOp):
            a, b = (self.name(x) for x in op.operands)
            pred = _CMP[op.predicate.value.data]
            self.line(f"{self.name(op.result)} = ({a} {pred} {b})")
        elif isinstance(op, arith.SelectOp):
            c, a, b = (self.name(x) for x in op.operands)
            self.line(f"{self.name(op.result)} = ({a} if {c} else {b})")
        elif type(op) in _FLOAT:
            operands = (self.name(x) for x in op.operands)
            self.line(f"{self.name(op.results[0])} = " + _FLOAT[type(op)].format(*operands))
        elif isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
            self.line(f"{self.name(op.results[0])} = {self.name(op.operands[0])}")
        elif isinstance(op, scf.ForOp):
            self.for_loop(op)
        elif isinstance(op, scf.IfOp):
            self.if_op(op)
        elif isinstance(op, memref.LoadOp):
            index = ", ".join(self.name(i) for i in op.indices)
            self.line(f"{self.name(op.res)} = {self.name(op.memref)}.load({index})")
        elif isinstance(op, memref.DimOp):
            self.line(f"{self.name(op.result)} = {self.name(op.source)}.dim({self.name(op.index)})")
        elif isinstance(op, memref.SubviewOp):
            self.subview(op)
        elif isinstance(op, memref.GetGlobalOp):
            self.line(f"{self.name(op.memref)} = {self.constant(op)}")
        elif isinstance(op, tg.TaskOp):
            self.task(op)
        elif isinstance(op, tg.OrderedOp):
            self.line("_b.enter_ordered()")
            self.block(op.body.block)
            self.line("_b.exit_ordered()")
        elif isinstance(op, tg_events.EventRecordOp | tg_events.EventWaitOp):
            call = "event_record" if isinstance(op, tg_events.EventRecordOp) else "event_wait"
            stream = None if op.stream is None else op.stream.value.data
            self.line(f"_b.{call}({op.event.data!r}, {stream})")
        elif isinstance(op, tg_events.EventQueryOp):
            self.line(f"{self.name(op.result)} = _b.event_query({op.event.data!r})")
        elif isinstance(op, tg.OrderPointOp):
            self.line("_b.order_point()")
        elif isinstance(op, tg.SeqOp):
            self.line(f"{self.name(op.results[0])} = _b.num_tasks")
        elif isinstance(op, tg.CallOp):
            callee = op.callee.root_reference.data
            self.calls.add(callee)
            args = "".join(f", {self.name(a)}" for a in op.args)
            self.line(f"_call_{callee}(_b{args})")
        else:
            self.fail(op, f"the op {op.name}")

    def constant(self, op: memref.GetGlobalOp) -> str:
        """The Python name of the Tensor holding the constant array ``op`` reads."""
        name = op.name_.root_reference.data
        data = constant_array(op)
        if data is None:
            self.fail(op, f"memref.get_global @{name}: not a constant integer memref.global")
        if _is_region(op.memref):
            self.fail(
                op,
                f"memref.get_global @{name} as a task's region (a constant array is only "
                "loaded; give the task a tensor argument)",
            )
        # Named by the global alone: the processes of a pipeline share one namespace.
        var = f"_g_{name}" if name.isidentifier() else f"_gx_{name.encode().hex()}"
        self.constants[var] = Tensor("@" + name, data.shape, data)  # no argument is so named
        return var

    def fail(self, op: Operation, what: str) -> None:
        where = location_of(op)
        raise CodegenError(
            f"{where + ': ' if where else ''}the CPU code generator cannot run {what}"
        )

    def for_loop(self, op: scf.ForOp) -> None:
        if op.iter_args:
            self.fail(op, "loop-carried values (scf.for iter_args)")
        if empty_loop(op):
            return
        lb, ub, step = (self.name(v) for v in (op.lb, op.ub, op.step))
        self.line(f"for {self.name(op.body.block.args[0])} in range({lb}, {ub}, {step}):")
        self.indent += 1
        self.line("pass")
        self.block(op.body.block)
        self.indent -= 1

    def if_op(self, op: scf.IfOp) -> None:
        if op.results:
            self.fail(op, "scf.if with results")
        self.line(f"if {self.name(op.cond)}:")
        self.indent += 1
        self.line("pass")
        self.block(op.true_region.block)
        self.indent -= 1
        if op.false_region.blocks and len(op.false_region.block.ops) > 1:
            self.line("else:")
            self.indent += 1
            self.line("pass")  # (its ops may emit nothing: views folded into regions)
            self.block(op.false_region.block)
            self.indent -= 1

    def subview(self, op: memref.SubviewOp) -> None:
        def values(static, dynamic) -> str:
            dyn = iter(dynamic)
            parts = [self.name(next(dyn)) if s == DYNAMIC_INDEX else str(s) for s in static]
            return "(" + "".join(p + ", " for p in parts) + ")"

        offsets = values(op.static_offsets.get_values(), op.offsets)
        sizes = values(op.static_sizes.get_values(), op.sizes)
        strides = values(op.static_strides.get_values(), op.strides)
        src = op.source.type
        assert isinstance(src, MemRefType) and isinstance(op.result.type, MemRefType)
        mask = _rank_reduction_mask(
            list(op.static_sizes.get_values()), list(op.result.type.get_shape())
        )
        source = self.name(op.source)
        base = f"_view({source})"
        self.line(
            f"{self.name(op.result)} = {base}.sub({offsets}, {sizes}, {strides}, {tuple(mask)})"
        )

    def _region_expr(self, value: SSAValue, access: str) -> str:
        """The source of a task's region of ``value`` (a View of its root tensor)."""
        return f"_view({self.name(value)}).region({access!r})"

    def task_args(
        self,
        op: tg.TaskOp,
        value: Callable[[str], str] | None = None,
        region: Callable[[SSAValue, str], str] | None = None,
    ) -> list[str]:
        """The source of a tg.task's builder arguments after its kernel: params, regions,
        coordinates, pool, target, stream, priority, domain. ``value`` maps each value's
        name (the batch path flattens loop values), ``region`` makes a region's source
        (default ``_region_expr``)."""
        value = value or (lambda name: name)
        region = region or self._region_expr
        params = _tup(value(self.name(p)) for p in op.params)
        regions = _tup(region(r, a.data) for r, a in zip(op.resources, op.access))
        coords = _tup(
            f"({n.data!r}, {value(self.name(v))})" for n, v in zip(op.coord_names, op.coords)
        )
        pool = (
            value(self.name(op.dynamic_pool))
            if op.dynamic_pool
            else repr(op.pool.data if op.pool else "any")
        )
        target = value(self.name(op.target)) if op.target else "-1"
        stream = value(self.name(op.stream)) if op.stream else "0"
        priority = value(self.name(op.priority)) if op.priority else "0"
        return [params, regions, coords, pool, target, stream, priority, repr(op.domain.data)]

    def task(self, op: tg.TaskOp) -> None:
        kernel = op.kernel.root_reference.data
        self.line(f"_b.add_task({kernel!r}, {', '.join(self.task_args(op))})")


def _tup(items: Iterable[str]) -> str:
    """The source of a tuple of these expressions (with a trailing comma: also for one)."""
    return "(" + "".join(x + ", " for x in items) + ")"


def _is_region(value: SSAValue) -> bool:
    """Whether ``value`` (or a subview of it) is a task's region."""
    for use in value.uses:
        if isinstance(use.operation, tg.TaskOp):
            return True
        if isinstance(use.operation, memref.SubviewOp) and _is_region(use.operation.result):
            return True
    return False


def _view(value: Any) -> View:
    return value.root() if isinstance(value, Tensor) else value


def compile_program(program: tg.ProgramOp, module: ModuleOp | None = None) -> CompiledProgram:
    """Translate one ``tg.program`` (and the programs it calls) to Python.

    The code is the simulator's reference (lowering/cpu/simgen.py, which extends this
    generator): subviews folded into region offsets, task by task. ``compile_program_plain``
    is this module's own generator."""
    if program.processes():
        raise CodegenError(
            f"@{program.sym_name.data} is a pipeline; running processes is the simulator's job"
        )
    check_no_recursion(program, module)
    from pto_wsp.lowering.cpu.simgen import _compile_function

    return _compile_function(program, module, {})


def compile_program_plain(program: tg.ProgramOp, module: ModuleOp | None = None) -> CompiledProgram:
    """Translate one ``tg.program`` (and the programs it calls) to Python, task by task."""
    if program.processes():
        raise CodegenError(
            f"@{program.sym_name.data} is a pipeline; running processes is the simulator's job"
        )
    check_no_recursion(program, module)
    gen = _Generator()
    params = [gen.name(a) for a in program.body.block.args]
    gen.block(program.body.block)
    header = f"def _program(_b{''.join(', ' + p for p in params)}):"
    events = ["    _b.use_events()"] if tg_events.uses_events(program, module) else []
    source = "\n".join([header, "    pass", *events, *gen.lines]) + "\n"
    namespace: dict[str, Any] = {"_view": _view, "_divsi": _divsi, "_remsi": _remsi}
    namespace.update(gen.constants)
    callees: dict[str, CompiledProgram] = {}
    for callee in sorted(gen.calls):
        target = find_program(module, callee, program)
        compiled = compile_program_plain(target, module)
        callees[callee] = compiled
        namespace[f"_call_{callee}"] = compiled.function
    exec_generated(source, f"<tg.program @{program.sym_name.data}>", namespace)
    return CompiledProgram(
        program.sym_name.data,
        [n.data for n in program.arg_names],
        list(program.function_type.inputs.data),
        source,
        namespace["_program"],
        callees,
    )


def check_no_recursion(program: tg.ProgramOp, module: ModuleOp | None) -> None:
    """A ``CodegenError`` at the ``tg.call`` closing a cycle of calls from ``program``: its
    code would call itself until Python's stack ran out."""
    found = call_cycle(program, module)
    if found is not None:
        call, cycle = found
        where = location_of(call)
        chain = " -> ".join(f"@{name}" for name in cycle)
        raise CodegenError(
            f"{where + ': ' if where else ''}recursive tg.call: {chain} (a program that calls "
            "itself never ends)"
        )


def find_program(module: ModuleOp | None, name: str, at: Operation) -> tg.ProgramOp:
    """The ``tg.program`` a ``tg.call`` at ``at`` names (a located CodegenError if none)."""
    if module is not None:
        for op in module.ops:
            if isinstance(op, tg.ProgramOp) and op.sym_name.data == name:
                return op
    where = location_of(at)
    raise CodegenError(f"{where + ': ' if where else ''}tg.call of unknown program @{name}")
