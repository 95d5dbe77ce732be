"""aicpu_orchestrate.cpp: each ``tg.program`` as a C++ function over the builder API.

The translation has the shape of ``lowering/cpu/pygen.py``, op by op: ``scf.for`` becomes a
``for`` loop, ``scf.if`` an ``if``, ``arith`` integer arithmetic with MLIR's semantics
(unsigned division, floor division, ...), ``memref.load`` / ``memref.dim`` reads of bound
arguments, ``memref.subview`` a ``View`` of its root argument (offsets, sizes and strides in
the root's index space, which is what the TensorMap needs), ``tg.ordered`` /
``tg.order_point`` the builder's ordering calls, ``tg.seq`` ``num_tasks()``, ``tg.call`` a
call of the callee's function, and ``tg.task`` ``alloc_task`` / ``add_scalar`` /
``add_input`` ... / ``submit``. The schedule is already in the program (per-task target,
stream, priority and pool values computed from keys) and in its ``config``, which becomes a
``RuntimeConfig``. Every value is a named ``const`` local; unused pure values are not
emitted, so the file compiles with ``-Wall -Werror``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, SSAValue

from pto_wsp.dialects import tg, tg_events
from pto_wsp.passes.globals import constant_array
from pto_wsp.passes.tg_reads import reads_after_writes

from .abi import _CXX_KEYWORDS, element, identifier
from .errors import emission_error
from .kernels import Kernel

#: The C++ types of float values in the orchestration (f16: its bits; nothing computes on it).
_FLOAT_TYPES = {"f64": "double", "f32": "float", "f16": "uint16_t"}

_BINARY = {
    arith.AddiOp: "({a} + {b})",
    arith.SubiOp: "({a} - {b})",
    arith.MuliOp: "({a} * {b})",
    arith.DivUIOp: "pto::wsp::div_ui({a}, {b})",
    arith.DivSIOp: "({a} / {b})",
    arith.FloorDivSIOp: "pto::wsp::floordiv_si({a}, {b})",
    arith.CeilDivUIOp: "pto::wsp::ceildiv_ui({a}, {b})",
    arith.CeilDivSIOp: "pto::wsp::ceildiv_si({a}, {b})",
    arith.RemUIOp: "pto::wsp::rem_ui({a}, {b})",
    arith.RemSIOp: "({a} % {b})",
    arith.MinUIOp: "pto::wsp::min_ui({a}, {b})",
    arith.MinSIOp: "({a} < {b} ? {a} : {b})",
    arith.MaxUIOp: "pto::wsp::max_ui({a}, {b})",
    arith.MaxSIOp: "({a} > {b} ? {a} : {b})",
    arith.AndIOp: "({a} & {b})",
    arith.OrIOp: "({a} | {b})",
    arith.XOrIOp: "({a} ^ {b})",
    arith.ShLIOp: "({a} << {b})",
    arith.ShRUIOp: "pto::wsp::shr_ui({a}, {b})",
    arith.ShRSIOp: "({a} >> {b})",
}

# arith.cmpi predicates: eq ne slt sle sgt sge ult ule ugt uge.
_CMP = {
    0: "({a} == {b})",
    1: "({a} != {b})",
    2: "({a} < {b})",
    3: "({a} <= {b})",
    4: "({a} > {b})",
    5: "({a} >= {b})",
    6: "pto::wsp::lt_ui({a}, {b})",
    7: "pto::wsp::le_ui({a}, {b})",
    8: "pto::wsp::lt_ui({b}, {a})",
    9: "pto::wsp::le_ui({b}, {a})",
}

_POOLS = {"vector": "Vector", "cube": "Cube", "any": "Any"}
_DOMAINS = {"host_cpu": "HostCPU", "aicore": "AscendAICore", "aie_tile": "AMDAIETile"}
_ACCESS_CALL = {"in": "add_input", "out": "add_output", "inout": "add_inout"}

# config key -> (RuntimeConfig field, how its value is written)
_DISPATCH = {
    "round_robin": "RoundRobin",
    "affinity": "Affinity",
    "hash": "Hash",
    "range": "Range",
    "work_steal": "WorkSteal",
    "dispatch_by": "DispatchBy",
}
_TIMING = {
    "immediate": "Immediate",
    "batched": "Batched",
    "interleaved": "Interleaved",
    "rate_limit": "RateLimit",
}
_ENUMS = {
    "dispatch": ("Dispatch", _DISPATCH),
    "ready": ("ReadyPolicy", {"fifo": "Fifo", "priority": "Priority"}),
    "timing": ("Timing", _TIMING),
    "window_overflow": ("Overflow", {"stall": "Stall", "abort": "Abort"}),
    "depth_scope": (
        "DepthScope",
        {"global": "Global", "per_stream": "PerStream", "per_pool": "PerPool"},
    ),
}
_COUNTS = ("workers", "streams", "timing_n", "task_window", "pipeline_depth", "batch_deps")
#: Config keys for other targets: carried in the IR, ignored here with a warning.
_IGNORED = ("spatial_map", "layouts")


@dataclass
class Site:
    """A task creation site: its kernel and coordinate names."""

    name: str
    kernel: Kernel
    coords: list[str]


@dataclass
class GlobalArray:
    """A ``memref.global`` constant a program reads (arrays bound at build time)."""

    name: str
    cname: str
    type_: MemRefType
    values: list[int]


@dataclass
class Emitted:
    """What generating the programs found: the code, and what the tree needs around it."""

    functions: list[str] = field(default_factory=list)
    prototypes: list[str] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    globals: dict[str, GlobalArray] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: The most coordinates a pipeline's task may get (its message's, its own, replica).
    pipeline_coords: int = 0
    #: Per pipeline, the schedule whose keys its receivers compute (pipeline.receipt_keys).
    receipt_keys: dict[str, Operation] = field(default_factory=dict)


def program_cname(program: tg.ProgramOp) -> str:
    return identifier(program.sym_name.data) + "_orchestrate"


class _Names:
    """C++ names of SSA values: their name hints where usable, made unique per function."""

    def __init__(self, taken: set[str]) -> None:
        self.names: dict[SSAValue, str] = {}
        self.taken = set(taken)
        self.counter = 0

    def fresh(self, hint: str | None) -> str:
        if hint:
            base = identifier(hint)
            name, n = base, 1
            while name in self.taken:
                name, n = f"{base}_{n}", n + 1
        else:
            name = f"v{self.counter}"
            while name in self.taken:
                self.counter += 1
                name = f"v{self.counter}"
            self.counter += 1
        self.taken.add(name)
        return name

    def define(self, value: SSAValue) -> str:
        name = self.fresh(value.name_hint)
        self.names[value] = name
        return name

    def __getitem__(self, value: SSAValue) -> str:
        return self.names[value]


@dataclass
class _ViewInfo:
    """Static facts of a memref value: which root dims it keeps."""

    kept: tuple[int, ...]
    root_rank: int


class ProgramEmitter:
    """Emits the C++ function of one program."""

    def __init__(
        self,
        program: tg.ProgramOp,
        module: ModuleOp,
        kernels: dict[str, Kernel],
        emitted: Emitted,
    ) -> None:
        self.program = program
        self.module = module
        self.kernels = kernels
        self.out = emitted
        self.lines: list[str] = []
        self.indent = 1
        self.names = _Names({"_b", "_t", "_a"} | _CXX_KEYWORDS)
        self.views: dict[SSAValue, _ViewInfo] = {}
        self.live: set[SSAValue] = set()
        self.marks = _read_marks(program, module)

    # ------------------------------------------------------------------ helpers

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def fail(self, op: Operation, what: str) -> None:
        emission_error(op, f"the ascend target cannot emit {what}")

    def used(self, op: Operation) -> bool:
        return any(r in self.live for r in op.results)

    def liveness(self) -> None:
        """The values the emitted code reads: operands of ops with effects (tasks, loops,
        calls, loads, ...) and, transitively, of the pure ops computing them."""
        live: set[SSAValue] = set()
        for op in reversed(list(self.program.body.walk())):
            if not self.pure(op) or any(r in live for r in op.results):
                live.update(op.operands)
        self.live = live

    def scalar_type(self, value: SSAValue) -> str:
        """The C++ type of a value: integers compute as int64_t (narrowed only where a task
        takes an i32), i1 is bool, floats are float/double, f16 its IEEE bits."""
        t = value.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "bool"
        return _FLOAT_TYPES.get(str(t), "int64_t")

    # ------------------------------------------------------------------ the function

    def emit(self) -> None:
        program = self.program
        if program.processes() or any(isinstance(op, tg.QueueOp) for op in program.body.block.ops):
            from .pipeline import emit_pipeline  # (pipeline.py builds on this class)

            emit_pipeline(self)
            return
        params, views = self.parameters()
        # The function works on local copies of its argument views (the parameters are the
        # caller's memory, which any builder call might change as far as the compiler knows):
        # then a view that does not depend on a loop's variables is computed once, not per task.
        copies = []
        for i, cname, used in views:
            if used:
                pname = self.names.fresh(cname + "_in")
                params[i] = f"const pto::wsp::View& {pname}"
                copies.append(f"  const pto::wsp::View {cname} = {pname};")
        signature = (
            f"void {program_cname(program)}(pto::wsp::Builder& _b"
            + "".join(f", {p}" for p in params)
            + ")"
        )
        self.out.prototypes.append(signature + ";")
        self.liveness()
        self.lines += copies
        if tg_events.uses_events(program, self.module):
            self.line("_b.use_events();")
        self.block(program.body.block)
        self.function(f"// tg.program @{program.sym_name.data}\n" + signature)

    def function(self, head: str) -> None:
        """Add the function of ``head`` with the lines emitted so far as its body."""
        body = "\n".join(self.lines) + ("\n" if self.lines else "")
        self.out.functions.append(head + " {\n" + body + "}\n")

    def parameters(self) -> tuple[list[str], list[tuple[int, str, bool]]]:
        """The C++ parameters of the program's arguments (naming them), and per memref
        argument its position, name and whether the program reads it."""
        program = self.program
        params: list[str] = []
        views = []
        for arg, name, type_ in zip(
            program.body.block.args, program.arg_names, program.function_type.inputs
        ):
            cname = self.names.fresh(name.data)
            self.names.names[arg] = cname
            if isinstance(type_, MemRefType):
                self.check_memref(program, name.data, type_)
                views.append((len(params), cname, bool(arg.uses)))
                params.append(f"const pto::wsp::View& {cname}")
                rank = len(type_.get_shape())
                self.views[arg] = _ViewInfo(tuple(range(rank)), rank)
            elif isinstance(type_, IntegerType) or str(type_) == "index":
                params.append(f"{self.scalar_type(arg)} {cname}")
            else:
                emission_error(
                    program,
                    f"tg.program @{program.sym_name.data}: argument '{name.data}' has type "
                    f"{type_}; the ascend target takes memrefs, index and integer arguments",
                )
        return params, views

    def check_memref(self, op: Operation, name: str, type_: MemRefType) -> None:
        if element(type_.element_type) is None:
            emission_error(
                op,
                f"memref '{name}' has element type {type_.element_type}, which the Ascend "
                "task ABI does not carry",
            )

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:  # noqa: C901 - a dispatch over the ops it knows
        if isinstance(op, tg.YieldOp | scf.YieldOp):
            if op.operands:
                self.fail(op, "loop-carried values (yield with operands)")
            return
        if isinstance(op, tg.TaskOp):
            self.task(op)
        elif isinstance(op, tg.OrderedOp):
            self.line("_b.enter_ordered();")
            self.line("{")
            self.indent += 1
            self.block(op.body.block)
            self.indent -= 1
            self.line("}")
            self.line("_b.exit_ordered();")
        elif isinstance(op, tg.OrderPointOp):
            self.line("_b.order_point();")
        elif isinstance(op, scf.ForOp):
            self.for_loop(op)
        elif isinstance(op, scf.IfOp):
            self.if_op(op)
        elif isinstance(op, tg.CallOp):
            self.call(op)
        elif isinstance(op, memref.LoadOp):
            self.load(op)
        elif isinstance(op, tg.ProcessOp | tg.QueueOp):
            self.fail(op, f"a {op.name} outside the top level of a tg.program")
        elif isinstance(op, tg_events.EventRecordOp | tg_events.EventWaitOp):
            call = "event_record" if isinstance(op, tg_events.EventRecordOp) else "event_wait"
            stream = "pto::wsp::kAllStreams" if op.stream is None else str(op.stream.value.data)
            self.line(f"_b.{call}({json.dumps(op.event.data)}, {stream});")
        elif isinstance(op, tg_events.EventQueryOp):
            self.define(op.result, f"_b.event_query({json.dumps(op.event.data)})")
        elif not self.used(op):
            # A pure value nobody reads: C++ would warn about it, and it creates nothing.
            if not self.pure(op):
                self.fail(op, f"the op {op.name}")
        else:
            self.value_op(op)

    def pure(self, op: Operation) -> bool:
        return (
            isinstance(
                op,
                arith.ConstantOp
                | arith.CmpiOp
                | arith.SelectOp
                | arith.IndexCastOp
                | arith.ExtSIOp
                | arith.ExtUIOp
                | arith.TruncIOp
                | memref.DimOp
                | memref.SubviewOp
                | memref.GetGlobalOp
                | tg.SeqOp,
            )
            or type(op) in _BINARY
        )

    def value_op(self, op: Operation) -> None:  # noqa: C901
        if isinstance(op, arith.ConstantOp):
            value = op.value
            if isinstance(value, FloatAttr):
                self.define(op.result, self.float_literal(op, value))
                return
            if not isinstance(value, IntegerAttr):
                self.fail(op, f"the constant {value}")
            v = int(value.value.data)
            if self.scalar_type(op.result) == "bool":
                text = "true" if v else "false"
            elif v == -(2**63):
                text = "INT64_MIN"
            else:
                text = str(v)
            self.define(op.result, text)
        elif type(op) in _BINARY:
            a, b = (self.names[x] for x in op.operands)
            self.define(op.results[0], _BINARY[type(op)].format(a=a, b=b))
        elif isinstance(op, arith.CmpiOp):
            a, b = (self.names[x] for x in op.operands)
            self.define(op.result, _CMP[op.predicate.value.data].format(a=a, b=b))
        elif isinstance(op, arith.SelectOp):
            c, a, b = (self.names[x] for x in op.operands)
            self.define(op.result, f"({c} ? {a} : {b})")
        elif isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
            src = self.names[op.operands[0]]
            if self.scalar_type(op.results[0]) == "bool":
                src = f"(({src} & 1) != 0)"
            self.define(op.results[0], src)
        elif isinstance(op, memref.DimOp):
            self.define(op.result, f"{self.names[op.source]}.dim({self.names[op.index]})")
        elif isinstance(op, memref.SubviewOp):
            self.subview(op)
        elif isinstance(op, memref.GetGlobalOp):
            self.get_global(op)
        elif isinstance(op, tg.SeqOp):
            self.define(op.results[0], "_b.num_tasks()")
        else:
            self.fail(op, f"the op {op.name}")

    def float_literal(self, op: Operation, value: FloatAttr) -> str:
        """A float constant exactly (a hexadecimal literal), an f16 as its bits."""
        width = value.type.bitwidth
        number = np.dtype(f"f{width // 8}").type(value.value.data)
        if not np.isfinite(number):
            self.fail(op, f"the non-finite constant {value}")
        if width == 16:
            return f"0x{int(number.view(np.uint16)):04x}"
        return float(number).hex() + ("f" if width == 32 else "")

    def define(self, value: SSAValue, expr: str) -> None:
        name = self.names.define(value)
        self.line(f"const {self.scalar_type(value)} {name} = {expr};")

    # ------------------------------------------------------------------ control flow

    def for_loop(self, op: scf.ForOp) -> None:
        if op.iter_args:
            self.fail(op, "loop-carried values (scf.for iter_args)")
        lb, ub, step = (self.names[v] for v in (op.lb, op.ub, op.step))
        iv = self.names.define(op.body.block.args[0])
        self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        self.indent += 1
        self.block(op.body.block)
        self.indent -= 1
        self.line("}")

    def if_op(self, op: scf.IfOp) -> None:
        if op.results:
            self.fail(op, "scf.if with results")
        self.line(f"if ({self.names[op.cond]}) {{")
        self.indent += 1
        self.block(op.true_region.block)
        self.indent -= 1
        if op.false_region.blocks and len(op.false_region.block.ops) > 1:
            self.line("} else {")
            self.indent += 1
            self.block(op.false_region.block)
            self.indent -= 1
        self.line("}")

    def call(self, op: tg.CallOp) -> None:
        callee = op.callee.root_reference.data
        target = next(
            (
                p
                for p in self.module.ops
                if isinstance(p, tg.ProgramOp) and p.sym_name.data == callee
            ),
            None,
        )
        if target is None:
            self.fail(op, f"a tg.call of the unknown program @{callee}")
        args = "".join(f", {self.names[a]}" for a in op.args)
        self.line(f"{program_cname(target)}(_b{args});")

    # ------------------------------------------------------------------ memrefs

    def load(self, op: memref.LoadOp) -> None:
        source = op.memref
        type_ = source.type
        assert isinstance(type_, MemRefType)
        elem = element(type_.element_type)
        if elem is None or not elem.integer:
            self.fail(op, f"a memref.load of {type_.element_type} (index and integers only)")
        index = ", ".join(self.names[i] for i in op.indices)
        expr = f"{self.names[source]}.load<{elem.cxx}>({index})"
        if op.res in self.live:
            self.define(op.res, expr)
        else:
            # Still read it: an index outside the bound data is an error, as in materialize.
            self.line(f"(void){expr};")

    def subview(self, op: memref.SubviewOp) -> None:
        source = self.views.get(op.source)
        if source is None:
            self.fail(op, "a memref.subview of a value that is not a view of an argument")
        result = op.result.type
        assert isinstance(result, MemRefType)

        def values(static, dynamic) -> list[str]:
            dyn = iter(dynamic)
            return [self.names[next(dyn)] if s == DYNAMIC_INDEX else str(s) for s in static]

        offsets = values(op.static_offsets.get_values(), op.offsets)
        sizes = values(op.static_sizes.get_values(), op.sizes)
        strides = values(op.static_strides.get_values(), op.strides)
        mask = _rank_reduction_mask(list(op.static_sizes.get_values()), list(result.get_shape()))
        kept = tuple(d for d, keep in zip(source.kept, mask) if keep)
        self.views[op.result] = _ViewInfo(kept, source.root_rank)
        name = self.names.define(op.result)
        dims = ", ".join(str(d) for d in source.kept)
        bits = sum(1 << d for d in kept)
        self.line(
            f"const pto::wsp::View {name} = {self.names[op.source]}.sub({{{dims}}}, "
            f"{{{', '.join(offsets)}}}, {{{', '.join(sizes)}}}, {{{', '.join(strides)}}}, "
            f"0x{bits:x}u);"
        )

    def get_global(self, op: memref.GetGlobalOp) -> None:
        name = op.name_.root_reference.data
        array = self.out.globals.get(name)
        if array is None:
            values = constant_array(op)
            if values is None:
                self.fail(op, f"memref.get_global @{name} (an integer constant array is needed)")
            type_ = op.memref.type
            assert isinstance(type_, MemRefType)
            array = GlobalArray(name, "g_" + identifier(name), type_, values.ravel().tolist())
            self.out.globals[name] = array
        rank = len(array.type_.get_shape())
        self.views[op.memref] = _ViewInfo(tuple(range(rank)), rank)
        cname = self.names.define(op.memref)
        self.line(f"const pto::wsp::View {cname} = pto::wsp::View::root({array.cname}_arg);")

    # ------------------------------------------------------------------ tasks

    def task(self, op: tg.TaskOp) -> None:
        name = op.kernel.root_reference.data
        kernel = self.kernels[name]
        site = Site(f"kSite{len(self.out.sites)}", kernel, [n.data for n in op.coord_names])
        self.out.sites.append(site)
        pool = (
            f"pto::wsp::pool_from_index({self.names[op.dynamic_pool]})"
            if op.dynamic_pool is not None
            else f"pto::wsp::ExecPool::{_POOLS[op.pool.data if op.pool else 'any']}"
        )
        domain = f"pto::wsp::ExecDomain::{_DOMAINS[op.domain.data]}"
        target = self.names[op.target] if op.target is not None else "-1"
        stream = self.names[op.stream] if op.stream is not None else "0"
        priority = self.names[op.priority] if op.priority is not None else "0"
        self.line("{")
        self.indent += 1
        self.line(
            f"pto::wsp::TaskBuilder _t = _b.alloc_task({kernel.kid}, {domain}, {pool}, "
            f"{target}, {stream}, {priority}, &{site.name});"
        )
        for p in op.params:
            name, type_ = self.names[p], str(p.type)
            if type_ == "f16":
                self.line(f"_t.add_scalar_f16({name});")
            elif type_ == "i32":
                self.line(f"_t.add_scalar(static_cast<int32_t>({name}));")
            else:
                self.line(f"_t.add_scalar({name});")
        marks = self.marks.get(op) or [""] * len(op.resources)
        for r, a, mark in zip(op.resources, op.access, marks):
            call = _ACCESS_CALL[a.data] + (f"_{mark}" if mark else "")
            self.line(f"_t.{call}({self.names[r]});")
        for i, c in enumerate(op.coords):
            self.line(f"_t.at({i}, {self.names[c]});")
        self.line("_b.submit(_t);")
        self.indent -= 1
        self.line("}")


def _read_marks(program: tg.ProgramOp, module: ModuleOp) -> dict[tg.TaskOp, list[str]]:
    """The reads of ``program`` its builder need not record (passes/tg_reads.py): only for
    a program that is no pipeline, calls none and that no program calls (each is a C++
    function of its own: a callee's reads depend on where it is called)."""
    name = program.sym_name.data
    if (
        program.processes()
        or any(isinstance(op, tg.CallOp | tg.QueueOp) for op in program.walk())
        or any(
            isinstance(op, tg.CallOp) and op.callee.root_reference.data == name
            for op in module.walk()
        )
    ):
        return {}
    return reads_after_writes(program.body.block)


def _rank_reduction_mask(sizes: list[int], result: list[int]) -> list[bool]:
    """Which subview entries stay dims of the result (MLIR's greedy unit-dim rule; as
    lowering/cpu/pygen.py)."""
    keep = []
    r = 0
    for size in sizes:
        if r < len(result) and size == result[r]:
            keep.append(True)
            r += 1
        else:
            keep.append(False)
    return keep


def _stream_keyed(program: tg.ProgramOp) -> bool:
    """Whether the program's tasks carry a ``stream_by`` key (lowering/cpu/simgen.py's rule)."""
    return any(isinstance(op, tg.TaskOp) and op.stream is not None for op in program.walk())


def config_function(program: tg.ProgramOp, warnings: list[str]) -> str:
    """``<p>_config()``: the program's ``config`` as a RuntimeConfig."""
    lines = ["  pto::wsp::RuntimeConfig c;"]
    config = program.config.data if program.config is not None else {}
    for key, value in config.items():
        if key in _ENUMS and isinstance(value, StringAttr):
            enum, names = _ENUMS[key]
            lines.append(f"  c.{key} = pto::wsp::{enum}::{names[value.data]};")
        elif key in _COUNTS and isinstance(value, IntegerAttr):
            lines.append(f"  c.{key} = {int(value.value.data)};")
        elif key in _IGNORED:
            warnings.append(
                f"tg.program @{program.sym_name.data}: config '{key}' places tasks on AIE "
                "tiles; the ascend target ignores it"
            )
        elif key == "extensions" and isinstance(value, ArrayAttr):
            names = [v.data for v in value.data if isinstance(v, StringAttr)]
            lines.append(f"  // extensions not lowered: {', '.join(names)}")
            warnings.extend(
                f"tg.program @{program.sym_name.data}: the schedule op '{n}' has no effect on "
                "the ascend target: it knows no such directive"
                for n in names
            )
        else:
            warnings.append(
                f"tg.program @{program.sym_name.data}: config '{key}' has no effect on the "
                "ascend target"
            )
    if _stream_keyed(program):
        # Lane keys are the tasks' stream_by values (else issue numbers), as the simulator's.
        lines.append("  c.stream_keyed = true;")
    lines.append("  return c;")
    cname = identifier(program.sym_name.data) + "_config"
    return f"static pto::wsp::RuntimeConfig {cname}() {{\n" + "\n".join(lines) + "\n}\n"
