"""Modules, printing and compilation: ``module(...)``, ``str(w)``, ``compile(w, target=...)``.

A module holds, in this order: the kernels (in order of first use), the global constants
of arrays bound at build time, then each workload, pipeline and schedule — a workload's
callees before it, a schedule right after its workload.
"""

from __future__ import annotations

import re
from io import StringIO
from typing import TYPE_CHECKING, Any

from xdsl.builder import Builder
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import csp as csp_ops
from pto_wsp.dialects import sched as sched_ops
from pto_wsp.dialects import wsp as wsp_ops
from pto_wsp.errors import CompileError, located_at, user_location
from pto_wsp.lowering.targets import (  # noqa: F401
    _BACKENDS,
    TARGETS,
    attach_bodies,
    register_backend,
    resolve,
)

from .axes import ConstArray
from .csp import Pipeline
from .definitions import Bound, param_type
from .expressions import Expr
from .kernels import Kernel
from .lowering import ArgTable, Lowerer
from .schedules import Key, Schedule
from .workloads import Workload

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor


class ModuleBuilder:
    """Collects the ops of one module while workloads, pipelines and schedules are lowered."""

    def __init__(self) -> None:
        self.kernels: dict[str, tuple[Kernel, Operation]] = {}
        #: The traced tile function of each tile kernel (instance), by kernel symbol.
        self.tile_functions: dict[str, func.FuncOp] = {}
        #: Per generic kernel (by name): the kernel and its instances, resource types -> symbol.
        self._instances: dict[str, tuple[Kernel, dict[tuple[str, ...], str]]] = {}
        self.globals: list[Operation] = []
        self._global_names: dict[int, str] = {}
        self.symbols: list[Operation] = []
        self._defined: dict[str, tuple[tuple, list[Any]]] = {}
        self._building: set[str] = set()
        #: Where each workload or pipeline symbol was defined (for a clash of names).
        self._locs: dict[str, Any] = {}

    # ------------------------------------------------------------------ kernels and globals

    def use_kernel(self, k: Kernel, resources: list[Attribute]) -> str:
        """Declare ``k`` in the module once (a generic kernel: once per list of resource
        types); the symbol a task with these resources calls."""
        generic = self._instances.get(k.name)
        known = self.kernels.get(k.name)
        if (known is not None and known[0] is not k) or (generic and generic[0] is not k):
            raise CompileError("kernel", f"two different kernels are named {k.name!r}", loc=k.loc)
        if not k.generic:
            if known is None:
                self.kernels[k.name] = (k, self._kernel_op(k, k.name, k.params, k.cost))
            return k.name
        instances = self._instances.setdefault(k.name, (k, {}))[1]
        signature = tuple(str(t) for t in resources)
        symbol = instances.get(signature)
        if symbol is None:
            symbol = instance_name(k.name, resources)
            if symbol in self.kernels:
                raise CompileError(
                    "kernel",
                    f"the instance of generic kernel @{k.name} for {', '.join(signature)} would "
                    f"be named {symbol!r}, as another kernel is: rename one",
                    loc=k.loc,
                )
            params = k.instance(resources)
            self.kernels[symbol] = (k, self._kernel_op(k, symbol, params, k.traced_cost(params)))
            instances[signature] = symbol
        return symbol

    def _kernel_op(self, k: Kernel, name: str, params: list[Any], cost: Any) -> Operation:
        op = self._declaration(k, name, params, cost)
        if k.is_tile:
            from .tile import trace as trace_tile  # (the pto dialect: tile kernels only)

            function = trace_tile(k.fn, f"{name}_tile", params, f"@kernel {k.name}", k.loc)
            op.properties["tile"] = SymbolRefAttr(function.sym_name.data)
            self.tile_functions[name] = function
        return op

    def _declaration(self, k: Kernel, name: str, params: list[Any], cost: Any) -> Operation:
        types = [p.type for p in params]
        names = [p.name for p in params]
        access = [p.access for p in params]
        if not isinstance(cost, Expr):
            return wsp_ops.KernelOp(name, names, types, access, k.exec_unit, cost, None, k.impls)
        block = Block(arg_types=types)
        lowerer = Lowerer(self, block, None, f"@{name}")
        for arg, p in zip(block.args, params):
            arg.name_hint = p.name
            lowerer.bind(("tensor", p.name) if p.is_tensor else ("arg", p.name), arg)
        block.add_op(wsp_ops.YieldOp(lowerer.value(cost)))
        return wsp_ops.KernelOp(
            name, names, types, access, k.exec_unit, None, Region(block), k.impls
        )

    def _name_instances(self) -> None:
        """A generic kernel used with one signature keeps its name; several instances keep
        theirs (derived from the signature). Each says which kernel it instantiates."""
        rename: dict[str, str] = {}
        for name, (_, instances) in self._instances.items():
            symbols = list(instances.values())
            if len(symbols) == 1:
                rename[symbols[0]] = name
            for symbol in symbols:
                self.kernels[symbol][1].properties["instance_of"] = StringAttr(name)
        if not rename:
            return
        kernels: dict[str, tuple[Kernel, Operation]] = {}
        functions: dict[str, func.FuncOp] = {}
        for symbol, (k, op) in self.kernels.items():
            final = rename.get(symbol, symbol)
            op.properties["sym_name"] = StringAttr(final)
            kernels[final] = (k, op)
            function = self.tile_functions.get(symbol)
            if function is not None:
                function.sym_name = StringAttr(f"{final}_tile")
                op.properties["tile"] = SymbolRefAttr(f"{final}_tile")
                functions[final] = function
        self.kernels, self.tile_functions = kernels, functions
        for sym in self.symbols:
            for op in sym.walk():
                if isinstance(op, wsp_ops.TaskOp) and op.kernel.root_reference.data in rename:
                    op.kernel = SymbolRefAttr(rename[op.kernel.root_reference.data])

    def global_for(self, array: ConstArray, prefix: str) -> str:
        """The ``memref.global`` holding an array bound at build time."""
        known = self._global_names.get(id(array))
        if known is not None:
            return known
        taken = set(self._global_names.values()) | set(self._defined) | set(self.kernels)
        name, n = f"{prefix}_{array.role}", 1
        while name in taken:
            name, n = f"{prefix}_{array.role}_{n}", n + 1
        element = array.dtype.mlir
        initial = DenseIntOrFPElementsAttr.from_list(
            TensorType(element, [len(array.values)]), array.values
        )
        self.globals.append(
            memref.GlobalOp.get(StringAttr(name), array.type, initial, constant=UnitAttr())
        )
        self._global_names[id(array)] = name
        return name

    # ------------------------------------------------------------------ symbols

    def symbol(self, w: Workload) -> tuple[str, list[Any]]:
        """Lower a named workload or pipeline once; its name and free values (extra arguments)."""
        name = w.name or "workload"
        if isinstance(w, Bound):
            signature = tuple(str(param_type(p)) for _, p in w.params)
            identity: tuple = ("def", id(w.definition), signature)
        else:
            identity = ("expr", id(w))
        known = self._defined.get(name)
        if known is not None:
            if known[0] != identity:
                raise CompileError(
                    "module", f"two different workloads are named {name!r}", loc=w.loc
                )
            return name, known[1]
        if name in self._building:
            raise CompileError("call", f"workload {name} calls itself (recursion)", loc=w.loc)
        self._building.add(name)
        try:
            op, free = (
                self._pipeline(w, name) if isinstance(w, Pipeline) else self._workload(w, name)
            )
        finally:
            self._building.discard(name)
        self.symbols.append(op)
        self._defined[name] = (identity, free)
        self._locs[name] = w.loc
        return name, free

    def _workload(self, w: Workload, name: str) -> tuple[Operation, list[Any]]:
        if isinstance(w, Bound):
            params, body, level, inline = w.params, w.body, w.level, None
        else:
            params, body, level, inline = [], [w], "cpu", w
        param_names = [n for n, _ in params]
        op = wsp_ops.WorkloadOp(name, [param_type(p) for _, p in params], param_names, level)
        table = ArgTable(op.body.block, param_names, f"workload {name}")
        lowerer = Lowerer(self, op.body.block, table, name, level)
        for (_, placeholder), arg in zip(params, op.body.block.args):
            lowerer.bind(placeholder.key, arg)
        for statement in body:
            lowerer.emit(statement, inline=statement is inline)
        table.finish(op)
        return op, table.free_values

    def _pipeline(self, w: Pipeline, name: str) -> tuple[Operation, list[Any]]:
        op = csp_ops.PipelineOp(name, [], [])
        block = op.body.block
        table = ArgTable(block, [], f"pipeline {name}")
        builder = Builder(InsertPoint.before(block.ops.last))  # before the terminator
        for ch in w.channels:
            element = csp_ops.SignalType() if ch.is_event else wsp_ops.TaskType()
            builder.insert(csp_ops.ChannelOp(ch.name, element, ch.capacity))
        for p in w.processes:
            process = csp_ops.ProcessOp(
                p.name, [c.name for c in p.consumes], [c.name for c in p.produces], p.replicas
            )
            builder.insert(process)
            Lowerer(self, process.body.block, table, name).emit_all(p.body)
        table.finish(op)
        return op, table.free_values

    def schedule(self, s: Schedule) -> None:
        """Lower a schedule (and, first, the workload it is bound to)."""
        target, _ = self.symbol(s.target)
        name = s.name or f"{target}_sched"
        if name in self._defined:
            raise CompileError("schedule", f"two symbols are named {name!r}", loc=s.loc)
        kinds = [d.kind for d in s.directives]
        for kind, needs in (("stream_by", "streams"), ("layout", "spatial_map")):
            if kind in kinds and needs not in kinds:
                d = s.directives[kinds.index(kind)]
                raise CompileError(kind, f"{kind} needs a .{needs}(...) directive", loc=d.loc)
        directives = [d.build(self) for d in s.directives]
        self.symbols.append(sched_ops.ScheduleOp(name, target, directives))
        self._defined[name] = (("schedule", id(s)), [])

    def key_region(self, key: Key) -> Region:
        """A key region over the task data a traced key reads, computing its value."""
        block = Block(arg_types=[i.type for i in key.inputs])
        lowerer = Lowerer(self, block, None, "key")
        for arg, i in zip(block.args, key.inputs):
            arg.name_hint = i.name
            lowerer.bind(i.bind, arg)
        block.add_op(sched_ops.YieldOp(lowerer.value(key.expr)))
        return Region(block)

    def add(self, item: Any) -> None:
        """Add a workload, pipeline or schedule to the module."""
        if isinstance(item, Schedule):
            self.schedule(item)
        elif isinstance(item, Workload):
            self.symbol(item)
        else:
            raise CompileError("module", f"expected a workload, pipeline or schedule, got {item!r}")

    def build(self) -> ModuleOp:
        """The module: kernels, globals, then workloads, pipelines and schedules."""
        self._name_instances()
        ops = [op for _, op in self.kernels.values()] + list(self.tile_functions.values())
        ops += self.globals + self.symbols
        _check_names(ops, self._locs)
        return ModuleOp(ops)


def _check_names(ops: list[Operation], locs: dict[str, Any]) -> None:
    """A module holds one symbol a name: two definitions sharing one are named, with what
    each is (a workload called like its kernel is the usual case)."""
    seen: dict[str, Operation] = {}
    for op in ops:
        name = op.properties.get("sym_name")
        if not isinstance(name, StringAttr):
            continue
        first = seen.setdefault(name.data, op)
        if first is not op:
            kinds = sorted({_what(first), _what(op)})
            both = f"a {kinds[0]} and a {kinds[1]}" if len(kinds) == 2 else f"two {kinds[0]}s"
            raise CompileError(
                "module",
                f"{both} share the name {name.data!r}: a module holds one definition a "
                "name; rename one of them",
                loc=locs.get(name.data) or user_location(),
            )


def _what(op: Operation) -> str:
    """What a module-level definition is, in the Python API's words."""
    names = {"wsp.kernel": "kernel", "func.func": "tile kernel", "csp.pipeline": "pipeline",
             "sched.schedule": "schedule", "memref.global": "constant array"}  # fmt: skip
    return names.get(op.name, "workload" if op.name.startswith("wsp.") else op.name)


def instance_name(kernel: str, resources: list[Attribute]) -> str:
    """The symbol of a generic kernel's instance: ``scale_64x64xf32`` (one type for all its
    tensors) or ``scale_64x64xf32_8xf16`` (each tensor's type), ``?`` spelled ``d``."""
    parts = [str(t).removeprefix("memref<").removesuffix(">") for t in resources]
    parts = parts[:1] if len(set(parts)) == 1 else parts
    return "_".join([kernel, *(re.sub(r"\W+", "_", p.replace("?", "d")) for p in parts)])


def build_module(items: list[Any]) -> ModuleOp:
    """Lower workloads, pipelines and schedules into one verified module."""
    builder = ModuleBuilder()
    for item in items:
        builder.add(item)
    module = builder.build()
    try:
        module.verify()
    except VerifyException as error:
        loc = getattr(items[0], "loc", None) if items else None
        # The chain would hold the whole module's text; the message says what is wrong.
        raise CompileError("module", f"the IR built is invalid: {error}", loc=loc) from None
    # The CPU simulator runs the @kernels' Python bodies (a tile kernel's runs natively).
    attach_bodies(module, {name: k.fn for name, (k, _) in builder.kernels.items() if not k.is_tile})
    return module


def module(*items: Any) -> ModuleOp:
    """One module of several workloads, pipelines and schedules: ``module(sched, pipeline)``."""
    if not items:
        raise CompileError("module", "module(...) needs at least one workload or schedule")
    return build_module(list(items))


def print_module(m: ModuleOp, debuginfo: bool = False) -> str:
    """The module's text, as pto-opt prints it; with ``debuginfo`` each op's location too
    (``loc("file.py":line:col)``, a traced tile op's ``pl.*`` call), as pto-opt's
    ``--print-debuginfo`` prints and reads them."""
    out = StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(m)
    return out.getvalue() + "\n"


def compile(item: Any, target: str = "cpu_sim", **options: Any) -> Any:
    """Compile a module, workload or schedule for ``target`` (seed 001 §7, seed 004): a
    backend's name or one of the seed's target names (``targets()``)."""
    loc = user_location()
    _, backend, options = resolve(target, options, loc)
    m = item if isinstance(item, ModuleOp) else build_module([item])
    return backend(m, **options)


#: The thread compile_async runs compilations on (one: xDSL holds the GIL; results in order).
_compiler: ThreadPoolExecutor | None = None


def compile_async(item: Any, target: str = "cpu_sim", **options: Any) -> Future:
    """``compile`` on a background thread: a ``concurrent.futures.Future`` of its result (or
    error, located at this call)."""
    global _compiler
    if _compiler is None:
        from concurrent.futures import ThreadPoolExecutor  # (its import costs every process)

        _compiler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pto-wsp-compile")
    loc = user_location()

    def run() -> Any:
        with located_at(loc):
            return compile(item, target, **options)

    return _compiler.submit(run)
