"""Native task generation: a ``tg.program`` JIT-compiled by upstream MLIR, run on the core.

``compile_native(module, program)`` lowers the program with ``tg-to-runtime-calls`` (upstream
dialects calling the runtime core's C API), prints it, has upstream MLIR parse it, lower it
to LLVM (``PIPELINE``) and JIT-compile it with ``mlir.execution_engine.ExecutionEngine``
linked against the native core (runtime/native_core.py, built once per machine). Compiled
programs are kept per process by their IR text: compiling the same program again costs the
lowering and printing only. ``NativeProgram.build(bindings)`` runs it with the arguments
bound by name and returns the task graph the core built, as runtime/graph.py's TaskGraph:
the same nodes, fields and edges as tg-materialize's (docs/native.md).
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import tg
from pto_wsp.passes.tg_to_runtime import runtime_module
from pto_wsp.runtime.graph import TaskGraph, gc_paused
from pto_wsp.runtime.native_core import Core, library

#: Upstream MLIR's lowering of the runtime-call form to the LLVM dialect.
PIPELINE = (
    "builtin.module(convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,"
    "convert-func-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
    "reconcile-unrealized-casts)"
)
#: The extent of a dimension whose size is not bound: it covers every index (as tg-materialize).
WHOLE = 1 << 62

# Compiled programs of this process, by the IR text upstream MLIR compiled (the oldest go
# beyond _KEEP: each holds its JIT-compiled code).
_ENGINES: dict[str, Any] = {}
_KEEP = 64


class NativeError(ValueError):
    """A program the native path cannot compile, bind or run: one line saying why."""


@dataclass
class NativeProgram:
    """A tg.program compiled to native code: ``build(bindings)`` makes its task graph."""

    name: str
    arg_names: list[str]
    arg_types: list[Attribute]
    kernels: list[str]
    sites: list[list[str]]
    loads: list[str]
    reads: list[str]
    config: dict[str, Any]
    text: str = field(repr=False)
    engine: Any = field(repr=False)

    def build(self, bindings: Mapping[str, Any]) -> TaskGraph:
        """Run the program with ``bindings`` (by argument name) and return its task graph.

        Scalars are ints; memrefs the program reads (``memref.load``) must be bound to arrays;
        tensors used only as task regions may be left out (their unknown extents then cover
        every index)."""
        args, shapes, keep = self._bind(bindings)
        core = Core(shapes)
        pointers = [ctypes.pointer(ctypes.c_int64(core.address)), *args]
        with gc_paused():
            self.engine.invoke(self.name, *pointers)
        del keep
        self._check(core)
        tensors = [
            n if isinstance(t, MemRefType) else "" for n, t in zip(self.arg_names, self.arg_types)
        ]
        return core.graph(self.kernels, self.sites, tensors)

    def _bind(self, bindings: Mapping[str, Any]) -> tuple[list, list, list]:
        args: list = []
        shapes: list[tuple[int, ...]] = []
        keep: list = []
        for name, type_ in zip(self.arg_names, self.arg_types):
            value = bindings.get(name)
            if isinstance(type_, MemRefType):
                descriptor, shape, data = self._memref(name, type_, value)
                keep.append(data)
                keep.append(descriptor)
                args.append(ctypes.pointer(ctypes.pointer(descriptor)))
                shapes.append(shape)
                continue
            shapes.append(())
            if value is None:
                raise NativeError(f"@{self.name} needs a value for {name}")
            args.append(ctypes.pointer(_scalar_ctype(type_)(value)))
        return args, shapes, keep

    def _memref(self, name: str, type_: MemRefType, value: Any):
        from mlir.runtime import get_ranked_memref_descriptor, make_nd_memref_descriptor

        static = [s if s >= 0 else -1 for s in type_.get_shape()]
        dtype = _dtype(type_.element_type)
        if value is None:
            if name in self.reads:
                raise NativeError(f"@{self.name} reads {name}, which is not bound")
            rank = len(static)
            if rank == 0:
                return get_ranked_memref_descriptor(np.zeros((), dtype)), (), None
            descriptor = make_nd_memref_descriptor(rank, np.ctypeslib.as_ctypes_type(dtype))()
            sizes = [s if s >= 0 else WHOLE for s in static]
            descriptor.shape = (ctypes.c_longlong * rank)(*sizes)
            descriptor.strides = (ctypes.c_longlong * rank)(*([0] * rank))
            descriptor.offset = 0
            return descriptor, tuple(static), None
        data = np.ascontiguousarray(value, dtype=dtype)
        if data.ndim != len(static) or any(s >= 0 and s != d for s, d in zip(static, data.shape)):
            raise NativeError(
                f"@{self.name}: {name} is bound to an array of shape {data.shape}, "
                f"which does not fit {type_}"
            )
        return get_ranked_memref_descriptor(data), tuple(data.shape), data

    def _check(self, core: Core) -> None:
        message, node, load = core.error()
        if not message:
            return
        if load >= 0:
            raise NativeError(
                f"@{self.name}: {self.loads[load]}: an index is out of the bound data"
            )
        if node >= 0:
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
    """The ExecutionEngine of the runtime-call form ``text`` (compiled once per process)."""
    engine = _ENGINES.get(text)
    if engine is not None:
        return engine
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager

    core = str(library())
    with ir.Context():
        module = ir.Module.parse(text)
        PassManager.parse(PIPELINE).run(module.operation)
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[core])
    if len(_ENGINES) >= _KEEP:
        del _ENGINES[next(iter(_ENGINES))]
    _ENGINES[text] = engine
    return engine


def compile_native(module: ModuleOp, program: tg.ProgramOp | str) -> NativeProgram:
    """Compile one ``tg.program`` of ``module`` (the op or its name) to native code."""
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
        raise NativeError(str(error)) from None
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
    config = attrs.get("pto.config")
    return NativeProgram(
        name=program.sym_name.data,
        arg_names=strings("pto.arg_names"),
        arg_types=list(program.function_type.inputs.data),
        kernels=strings("pto.kernels"),
        sites=[[n.data for n in names.data] for names in sites.data],
        loads=strings("pto.loads"),
        reads=strings("pto.reads"),
        config=dict(config.data) if isinstance(config, DictionaryAttr) else {},
        text=text,
        engine=_engine(text),
    )
