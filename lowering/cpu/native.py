"""Native task generation: a ``tg.program`` JIT-compiled by upstream MLIR, run on the core.

``compile_native(module, program)`` lowers the program with ``tg-to-runtime-calls`` (upstream
dialects calling the runtime core's C API), prints it, has upstream MLIR parse it, lower it
to LLVM (``PIPELINE``) and JIT-compile it with ``mlir.execution_engine.ExecutionEngine``
linked against the native core (runtime/native_core.py, built once per machine). Compiled
programs are kept per process by their IR text, and on disk (objcache.py): compiling the same
program again, in this process or a later one, costs the lowering and printing only. ``NativeProgram.build(bindings)`` runs it with the arguments
bound by name and returns the task graph the core built, as runtime/graph.py's TaskGraph:
the same nodes, fields and edges as tg-materialize's (docs/native.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import operator
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.errors import CompileError, ErrorCode, user_location
from pto_wsp.lowering.cpu import objcache
from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.runtime.native_core import Core, address_of, library

if TYPE_CHECKING:
    from pto_wsp.dialects import tg

#: Upstream MLIR's lowering of the runtime-call form to the LLVM dialect.
PIPELINE = (
    "builtin.module(convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,"
    "convert-func-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
    "reconcile-unrealized-casts)"
)
_OPT = 2
_SHAPE = operator.attrgetter("shape")
#: The extent of a dimension whose size is not bound: it covers every index (as tg-materialize).
WHOLE = 1 << 62

# Compiled programs of this process, by the IR text upstream MLIR compiled (the oldest go
# beyond _KEEP: each holds its JIT-compiled code).
_ENGINES: dict[str, Any] = {}
_KEEP = 64
#: struct's format of each scalar argument's C type (its value is written at its address).
_FORMATS = {
    ctypes.c_bool: "?",
    ctypes.c_int8: "b",
    ctypes.c_int16: "h",
    ctypes.c_int32: "i",
    ctypes.c_int64: "q",
    ctypes.c_float: "f",
    ctypes.c_double: "d",
}


class NativeError(CompileError, ValueError):
    """A program the native path cannot compile, bind or run: one line saying why.

    A ``CompileError`` of the one error family (code INVALID_WORKLOAD), and a ``ValueError``
    like the reference path's binding errors; its text is the line alone, without a place in
    the user's code (``loc`` still holds the caller's)."""

    def __init__(self, message: str) -> None:
        self.construct = "tg.program"
        self.message = message
        self.loc = user_location()
        self.code = ErrorCode.INVALID_WORKLOAD
        Exception.__init__(self, message)


class _Packed(NamedTuple):
    """A build's arguments (``_arguments``): the values bound they were made of (per
    argument, in order) and the shapes of those that are arrays (the arrays, then their
    shapes), per tensor its extents, what the words point into, the words (the argument
    addresses first), the context's word (the core's address goes there) and the address of
    the packed call's argument array."""

    values: list
    arrays: tuple[list, list]
    shapes: list[tuple[int, ...]]
    keep: list
    words: np.ndarray
    context: int
    address: int


@dataclass
class NativeProgram:
    """A tg.program compiled to native code: ``build(bindings)`` makes its task graph."""

    name: str
    arg_names: list[str]
    arg_types: list[Attribute]
    kernels: list[str]
    sites: list[list[str]]
    checks: list[str]
    reads: list[str]
    text: str = field(repr=False)
    engine: Any = field(repr=False)
    #: Per task site: how its scalars read back, and per region the dimensions its view keeps.
    scalars: list[str] = field(default_factory=list)
    kept: list[list[list[int]]] = field(default_factory=list)
    #: A pipeline's queues (name, capacity, whether an event) and processes (name, replicas,
    #: function, the queue ids it sends on, those it receives from); empty for a main program.
    queues: list[tuple[str, int, bool]] = field(default_factory=list)
    processes: list[tuple[str, int, str, list[int], list[int]]] = field(default_factory=list)
    #: The entry point (ExecutionEngine.lookup: its C interface, compiled now, not at a build).
    entry: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.entry is None:
            self.entry = self.engine.lookup(self.name)
        self._address = ctypes.cast(self.entry, ctypes.c_void_p).value
        # Per argument what binding it takes: a memref's static shape, element and whether
        # the program reads its data, or a scalar's C type.
        self._plan = [
            (name, type_, [s if s >= 0 else -1 for s in type_.get_shape()],
             _dtype(type_.element_type), name in self.reads)
            if isinstance(type_, MemRefType)
            else (name, type_, None, _scalar_ctype(type_), False)
            for name, type_ in zip(self.arg_names, self.arg_types)
        ]  # fmt: skip
        self._tensors = [n if static is not None else "" for n, _, static, _, _ in self._plan]
        self._kept_packed: _Packed | None = None
        self._kept_core: Core | None = None

    @property
    def is_pipeline(self) -> bool:
        return bool(self.processes)

    def run_pipeline(
        self,
        bindings: Mapping[str, Any],
        config: Any,
        kernels: Mapping,
        keys: Any = None,
        started: Any = None,
    ) -> Any:
        """Run a pipeline on the core in virtual time (``config``: a SimConfig; ``kernels``:
        KernelSpecs by name; ``keys``: the schedule's keys placing received tasks; ``started``
        is given the run's channels): lowering/cpu/native_csp.py's ``PipelineRun``."""
        from pto_wsp.lowering.cpu.native_csp import run_pipeline

        return run_pipeline(self, bindings, config, kernels, keys, started)

    def build(
        self,
        bindings: Mapping[str, Any],
        infer_data_deps: bool = True,
        records: bool = True,
        plan: Any = None,
    ) -> TaskGraph:
        """Run the program with ``bindings`` (by argument name) and return its task graph.

        Scalars are ints; memrefs the program reads (``memref.load``) must be bound to arrays;
        tensors used only as task regions may be left out (their unknown extents then cover
        every index). ``infer_data_deps=False``: structural and event edges only;
        ``records=False``: the core stores no task's scalars, coordinates or regions (most of
        a task's bytes), and the graph's args, regions and coords are built again, with them,
        when first read; ``plan``: a runtime Scheduler's plan, scheduled beside the build
        (``Core.run``)."""
        if self.is_pipeline:
            raise NativeError(
                f"@{self.name} is a pipeline: its tasks are made as it runs (run_pipeline)"
            )
        packed = self._packed(bindings)
        core = self._core(packed.shapes, infer_data_deps, records)
        packed.words[packed.context] = core.address
        if not core.run(self._address, packed.address, plan):
            self._check(core)
        again = None if records else self._again(bindings, infer_data_deps)
        return core.graph(self.kernels, self.sites, self._tensors, self.scalars, self.kept, again)

    def order_points(self) -> np.ndarray:
        """Per ordering point of the last build, how many tasks preceded it (what
        ``batch_deps`` flushes on)."""
        return self._kept_core.order_points()

    def _again(self, bindings: Mapping[str, Any], infer_data_deps: bool) -> Any:
        """The graph of a build without records, built again with them: from the bindings
        of now (the data the program reads copied: the caller may change it in place)."""
        now = dict(bindings)
        for name in self.reads:
            if now.get(name) is not None:
                now[name] = np.array(now[name])
        return lambda: self.build(now, infer_data_deps)

    def prepare(
        self, bindings: Mapping[str, Any], infer_data_deps: bool = True, records: bool = True
    ) -> None:
        """Make beforehand what a build with ``bindings`` needs: the program's packed
        arguments and a core (``Program.bind``). Errors wait for the build."""
        with contextlib.suppress(NativeError):
            self._core(self._packed(bindings).shapes, infer_data_deps, records)

    def _core(self, shapes: list[tuple[int, ...]], infer_data_deps: bool, records: bool) -> Core:
        """The core of the last build, started again in its memory, or a new one while the
        last graph is still held."""
        core = self._kept_core
        if core is None or not core.restart(shapes, infer_data_deps, records):
            core = self._kept_core = Core(shapes, infer_data_deps, records)
        return core

    def _still(self, kept: _Packed, bindings: Mapping[str, Any]) -> bool:
        """Whether every binding is the one ``kept`` was packed for, of the same shape."""
        # (map and C's functions: no Python frame per argument)
        now = map(bindings.get, self.arg_names)
        arrays, shapes = kept.arrays
        return all(map(operator.is_, now, kept.values)) and list(map(_SHAPE, arrays)) == shapes

    def _packed(self, bindings: Mapping[str, Any]) -> _Packed:
        """The packed call's arguments for ``bindings``: the last ones while every binding
        is the same object of the same shape (its data is read where it is)."""
        kept = self._kept_packed
        if kept is not None and self._still(kept, bindings):
            return kept
        shapes, keep, addresses = self._arguments(bindings)
        values = [bindings.get(name) for name in self.arg_names]
        arrays = [v for v in values if isinstance(v, np.ndarray)]
        words = keep[0]
        packed = _Packed(
            values,
            (arrays, [a.shape for a in arrays]),
            shapes,
            keep,
            words,
            len(addresses),  # (the context's word follows the argument addresses)
            address_of(words),
        )
        # (kept unless data the program reads was copied: the copy would not see changes)
        copied = any(not any(k is v for v in values) for k in keep[1:])
        self._kept_packed = None if copied else packed
        return packed

    def _arguments(self, bindings: Mapping[str, Any]) -> tuple[list, list, list[int]]:
        """Per argument its extents (scalars: ``()``), what the addresses point into (alive
        for the call: first the words they are in) and the packed call's argument addresses
        (slot 0: the context's).

        The words of one int64 array (not ctypes objects: a ctypes structure type costs tens
        of microseconds to make): the argument addresses, the context, then per argument a
        scalar's value, or a memref's descriptor address and its descriptor (MLIR's ranked
        memref: allocated, aligned, offset, sizes, strides)."""
        shapes: list[tuple[int, ...]] = []
        keep: list = []
        items: list = []
        for name, type_, static, kind, reads in self._plan:
            value = bindings.get(name)
            if static is None:
                if value is None:
                    raise NativeError(f"@{self.name} needs a value for {name} (bind({name}=...))")
                items.append(self._scalar(name, kind, value))
                shapes.append(())
            else:
                descriptor, shape = self._memref(name, type_, static, kind, reads, value, keep)
                items.append(descriptor)
                shapes.append(shape)
        n = len(items)
        size = 2 + n + sum(1 + len(i) if isinstance(i, list) else 1 for i in items)
        words = np.zeros(size, np.int64)
        base = address_of(words)
        addresses = [base + 8 * (1 + n)]
        at = 2 + n
        for item in items:
            addresses.append(base + 8 * at)
            if isinstance(item, list):  # (the descriptor's address, then the descriptor)
                words[at] = base + 8 * (at + 1)
                words[at + 1 : at + 1 + len(item)] = item
                at += 1 + len(item)
            else:
                struct.pack_into(item[0], words, 8 * at, item[1])
                at += 1
        words[: 1 + n] = addresses
        return shapes, [words, *keep], addresses

    def _scalar(self, name: str, ctype: Any, value: Any) -> tuple[str, Any]:
        """A scalar argument as (struct format, value); an integer must fit its C type."""
        if ctype in (ctypes.c_float, ctypes.c_double):
            return _FORMATS[ctype], float(value)
        try:
            number = operator.index(value)
        except TypeError:
            raise NativeError(f"@{self.name}: {name} = {value!r} is not an integer") from None
        bits = 8 * ctypes.sizeof(ctype)
        if ctype is not ctypes.c_bool and not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
            raise NativeError(f"@{self.name}: {name} = {number} does not fit {bits} bits")
        return _FORMATS[ctype], number

    def _memref(self, name, type_, static, dtype, reads, value, keep):
        """The memref descriptor of an argument (its words) and the extents the core checks
        regions against (-1: unknown). Only data the program reads is passed: a tensor used
        as task regions alone is its extents (a descriptor without data)."""
        if value is None and reads:
            raise NativeError(f"@{self.name} reads {name}, which is not bound (bind({name}=[...]))")
        data = None if value is None else np.asarray(value)
        if data is not None and (
            data.ndim != len(static) or any(s >= 0 and s != d for s, d in zip(static, data.shape))
        ):
            raise NativeError(
                f"@{self.name}: {name} is bound to an array of shape {data.shape}, "
                f"which does not fit {type_}"
            )
        if reads:
            data = np.ascontiguousarray(data, dtype=dtype)
            keep.append(data)
            address = address_of(data)
            shape = data.shape
            strides = [s // data.itemsize for s in data.strides]
        else:
            address = 0
            shape = tuple(static) if data is None else data.shape
            strides = [0] * len(static)
        sizes = [s if s >= 0 else WHOLE for s in shape]
        return [address, address, 0, *sizes, *strides], tuple(shape)

    def _check(self, core: Core) -> None:
        message, node, check = core.error()
        if not message:
            return
        if check >= 0:
            raise NativeError(f"@{self.name}: {self.checks[check]}")
        if message.startswith("out of memory"):  # (Python's spelling of it)
            raise MemoryError(f"@{self.name}: {message.removeprefix('out of memory').lstrip(': ')}")
        if node >= 0:
            # (the core numbers tensors: program arguments)
            message = re.sub(
                r"tensor (\d+)", lambda m: f"tensor '{self._tensors[int(m[1])]}'", message
            )
            raise NativeError(f"@{self.name}: task {node}: {message}")
        raise NativeError(f"@{self.name}: {message}")


def _dtype(element: Attribute) -> np.dtype:
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, IntegerType):
        width = element.width.data
        return np.dtype(np.bool_ if width == 1 else f"int{width}")
    floats = {
        Float16Type: np.float16,
        Float32Type: np.float32,
        Float64Type: np.float64,
        BFloat16Type: np.uint16,
    }
    for kind, dtype in floats.items():
        if isinstance(element, kind):
            return np.dtype(dtype)
    raise NativeError(f"memrefs of {element} are not supported by the native path")


def _scalar_ctype(type_: Attribute):
    if isinstance(type_, IndexType):
        return ctypes.c_int64
    if isinstance(type_, IntegerType):
        width = type_.width.data
        return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32}.get(
            width, ctypes.c_int64
        )
    if isinstance(type_, Float32Type):
        return ctypes.c_float
    if isinstance(type_, Float64Type):
        return ctypes.c_double
    raise NativeError(f"program arguments of type {type_} are not supported by the native path")


def _engine(text: str) -> Any:
    """The compiled program of the runtime-call form ``text``: from this process's programs,
    else from the disk cache (objcache), else compiled by upstream MLIR now and cached."""
    engine = _ENGINES.get(text)
    if engine is not None:
        return engine
    key = objcache.key(text, f"{PIPELINE} O{_OPT}")
    engine = objcache.load(key)
    if engine is None:
        engine = _jit(text)
        objcache.store(key, engine)
    if len(_ENGINES) >= _KEEP:
        del _ENGINES[next(iter(_ENGINES))]
    _ENGINES[text] = engine
    return engine


def _jit(text: str) -> Any:
    """Upstream MLIR's ExecutionEngine of ``text``, linked with the core's library."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager

    core = str(library())
    with ir.Context():
        module = ir.Module.parse(text)
        PassManager.parse(PIPELINE).run(module.operation)
        return ExecutionEngine(module, opt_level=_OPT, shared_libs=[core])


def compile_native(module: ModuleOp, program: tg.ProgramOp | str) -> NativeProgram:
    """Compile one ``tg.program`` of ``module`` (the op or its name) to native code."""
    # (here, not above: a compile that finds its program on disk (lowering/cpu/lowered.py)
    # imports neither the tg dialect nor its passes)
    from pto_wsp.dialects import tg
    from pto_wsp.passes.tg_to_runtime import runtime_module

    if isinstance(program, str):
        found = [
            p for p in module.ops if isinstance(p, tg.ProgramOp) and p.sym_name.data == program
        ]
        if not found:
            raise NativeError(f"no tg.program @{program}")
        program = found[0]
    try:
        lowered = runtime_module(module, [program])
    except PassFailedException as error:
        where = getattr(error, "location", "")
        raise NativeError(f"{where}: {error}" if where else str(error)) from None
    function = lowered.body.block.last_op
    assert isinstance(function, func.FuncOp)
    text = str(lowered)
    attrs = function.attributes

    def strings(key: str) -> list[str]:
        value = attrs[key]
        assert isinstance(value, ArrayAttr)
        return [s.data for s in value.data]

    sites = attrs["pto.coords"]
    assert isinstance(sites, ArrayAttr)
    kept = attrs["pto.kept"]
    assert isinstance(kept, ArrayAttr)
    queues, processes = _pipeline_tables(attrs)
    return NativeProgram(
        name=program.sym_name.data,
        arg_names=strings("pto.arg_names"),
        arg_types=list(program.function_type.inputs.data),
        kernels=strings("pto.kernels"),
        sites=[[n.data for n in names.data] for names in sites.data],
        checks=strings("pto.checks"),
        reads=strings("pto.reads"),
        scalars=strings("pto.scalars"),
        kept=[
            [[d.value.data for d in dims.data] for dims in site.data]  # type: ignore[attr-defined]
            for site in kept.data
        ],
        text=text,
        engine=_engine(text),
        queues=queues,
        processes=processes,
    )


#: The fields of a NativeProgram that ``table`` keeps as they are (plain lists and strings).
_PLAIN = ("name", "arg_names", "kernels", "sites", "checks", "reads", "scalars", "kept", "text",
          "queues", "processes")  # fmt: skip


def table(program: NativeProgram) -> dict[str, Any]:
    """``program`` as plain JSON data, its code left out: ``from_table`` makes it again."""
    data = {name: getattr(program, name) for name in _PLAIN}
    return {**data, "arg_types": [str(t) for t in program.arg_types]}


def from_table(data: Mapping[str, Any]) -> NativeProgram:
    """The NativeProgram ``table`` kept, its code from this process's programs or the disk
    cache (upstream MLIR compiles its text again when neither has it)."""
    fields = {name: data[name] for name in _PLAIN}
    fields["queues"] = [(n, c, bool(e)) for n, c, e in fields["queues"]]
    fields["processes"] = [tuple(p) for p in fields["processes"]]
    types = [Parser(Context(), text).parse_type() for text in data["arg_types"]]
    return NativeProgram(**fields, arg_types=types, engine=_engine(data["text"]))


def _pipeline_tables(attrs: Mapping[str, Attribute]) -> tuple[list, list]:
    """A pipeline's ``pto.queues`` and ``pto.processes`` (tg-to-runtime-calls), as lists."""

    def plain(a: Attribute) -> Any:
        if isinstance(a, ArrayAttr):
            return [plain(x) for x in a.data]
        if isinstance(a, IntegerAttr):
            return a.value.data
        assert isinstance(a, StringAttr)
        return a.data

    queues = [(n, c, bool(e)) for n, c, e in plain(attrs.get("pto.queues", ArrayAttr([])))]
    processes = [tuple(p) for p in plain(attrs.get("pto.processes", ArrayAttr([])))]
    return queues, processes
