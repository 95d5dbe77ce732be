"""Tile kernels' CPU numerics, the compile: a ``pto`` tile function as native code.

``compile_tile(f)`` has upstream MLIR parse the function's upstream text (tile_text.py) with
its entries (tile_entries.py), lower it to LLVM (``PIPELINE``) and JIT-compile it. The result
is a ``TileFunction``: called with the kernel's parameters (numpy arrays, possibly strided
views, and Python numbers), it runs the kernel in place on the arrays. Compiled functions
are kept per process by their text, and on disk (objcache) for later processes.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np
from xdsl.dialects import func

from pto_wsp.lowering.cpu import objcache
from pto_wsp.lowering.cpu.tile_entries import glue
from pto_wsp.lowering.cpu.tile_text import TileLoweringError, _Param, upstream_text

#: Upstream MLIR's lowering of the linalg form to the LLVM dialect. f16 and bf16 arithmetic
#: is done in f32 (arith-emulate-unsupported-floats): the CPU has no half-precision ALU.
PIPELINE = (
    "builtin.module(convert-linalg-to-loops,"
    "arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32},"
    "convert-math-to-llvm,convert-math-to-libm,expand-strided-metadata,lower-affine,"
    "convert-scf-to-cf,finalize-memref-to-llvm,convert-func-to-llvm,convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)"
)
_ENGINES: dict[str, Any] = {}
_KEEP = 256
_CONTEXT: Any = None
_PASSES: Any = None
_LOCK = threading.Lock()
_WRITER: Any = None


def _engine(text: str, name: str, glue: str) -> tuple[Any, int, int]:
    """The compiled ``text`` with its ``glue`` (once per process; from the disk cache of
    compiled programs when a process compiled it before) and the addresses of its entries
    ``@name__numpy`` and ``@name__core``, read once through their accessor: calls go straight
    to them."""
    cached = _ENGINES.get(text)
    if cached is not None:
        return cached
    key = objcache.key(text + glue, f"tile {PIPELINE} O2", core=False)
    engine = objcache.load(key)
    fresh = engine is None
    if fresh:
        engine = _jit(text, name, glue)
    addresses = (ctypes.c_void_p * 2)()
    out = ctypes.c_void_p(ctypes.addressof(addresses))
    packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup(f"{name}__addresses"))
    packed((ctypes.c_void_p * 1)(ctypes.addressof(out)))
    if fresh:  # after the lookup: the code is generated, the writer only copies it
        _store(key, engine)
    if len(_ENGINES) >= _KEEP:  # the oldest go: a TileFunction keeps its own engine alive
        del _ENGINES[next(iter(_ENGINES))]
    _ENGINES[text] = (engine, int(addresses[0] or 0), int(addresses[1] or 0))
    return _ENGINES[text]


def _store(key: str, engine: Any) -> None:
    """Keep the compiled ``engine`` on disk for later processes, in a background thread: the
    kernel is usable now, and linking it (a subprocess, ~10 ms) need not delay it. The
    thread is joined at exit: a process that ends leaves its kernels cached."""
    global _WRITER
    if _WRITER is None:
        from concurrent.futures import ThreadPoolExecutor

        _WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pto-wsp-objcache")
    # The folder as it is now: a later $PTO_WSP_CACHE is not this kernel's.
    _WRITER.submit(objcache.store, key, engine, core=False, into=objcache.programs_dir())


def flush() -> None:
    """Wait until every tile kernel compiled so far is written to the disk cache."""
    if _WRITER is not None:
        _WRITER.submit(lambda: None).result()


def _jit(text: str, name: str, glue: str) -> Any:
    """``text`` and its ``glue`` compiled by upstream MLIR (an ExecutionEngine)."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager

    global _CONTEXT, _PASSES
    if _CONTEXT is None:
        # Made once, its dialects loaded as parsing and passes need them (loading all that
        # the bindings register costs ~6 ms).
        _CONTEXT = ir.Context(load_on_create_dialects=[])
        with _CONTEXT:
            _PASSES = PassManager.parse(PIPELINE)
        # The text is verified as parsed; verifying it again after each upstream pass is
        # upstream's own check, and costs half of the pipeline's time.
        _PASSES.enable_verifier(False)
    # The glue calls @name as an llvm.func, which it is only once lowered: it is parsed with
    # the kernel calling a declaration of another name, renamed to @name once lowered. (One
    # parse; moving ops from Python instead would import the bindings' llvm dialect module,
    # ~20 ms of a process's first compile.)
    stand_in = f"{name}__lowered"
    with _LOCK, _CONTEXT:
        try:
            module = ir.Module.parse(text + "\n" + glue.replace(f"@{name}(", f"@{stand_in}("))
            _PASSES.run(module.operation)
        except ir.MLIRError as error:  # a lowering bug: said in one line, not a traceback
            why = str(error).strip().splitlines()[0]
            raise TileLoweringError(f"tile function @{name}", f"upstream MLIR: {why}") from None
        ir.SymbolTable.replace_all_symbol_uses(stand_in, name, module.operation)
        return ExecutionEngine(module, opt_level=2)


class TileFunction:
    """A tile function compiled to native code; call it with the kernel's parameters.

    Tensors are numpy arrays of the parameter's element type and shape, any strides (views of
    bound tensors work in place); scalars are Python numbers. The native entry reads each
    array's data, shape and strides itself: a call costs one ctypes call and these checks."""

    def __init__(self, name: str, text: str, params: list[_Param]):
        self.name, self.text, self.params = name, text, params
        engine, address, core = _engine(text, name, glue(name, params))
        self._engine = engine  # keeps the code alive
        #: The address of the runtime core's entry (``_core_entry``: one array of words).
        self.core_entry = core
        argtypes = [ctypes.py_object if p.rank >= 0 else p.ctype for p in params]
        self._call = ctypes.CFUNCTYPE(None, *argtypes)(address)
        self._checks = [(i, p.dtype, p.shape, p) for i, p in enumerate(params) if p.rank >= 0]

    def __call__(self, *args: Any) -> None:
        if len(args) != len(self.params):
            raise TypeError(f"@{self.name} takes {len(self.params)} arguments, got {len(args)}")
        ndarray = np.ndarray
        for i, dtype, shape, p in self._checks:
            value = args[i]
            # The native entry reads numpy's array object: anything else must not reach it.
            # (Checked the cheap way first: this runs once per task.)
            if type(value) is not ndarray or value.dtype is not dtype or value.shape != shape:
                self._check(p, value)
        self._call(*args)

    def _check(self, p: _Param, value: Any) -> None:
        """Raise unless ``value`` is an array ``p`` takes (dtype equal, runtime extents free)."""
        if not isinstance(value, np.ndarray) or value.dtype != p.dtype:
            raise TypeError(
                f"@{self.name}: {p.name} is a numpy array of {p.dtype}, got "
                f"{getattr(value, 'dtype', type(value).__name__)}"
            )
        shape = value.shape
        if len(shape) != p.rank or any(s >= 0 and s != d for s, d in zip(p.shape, shape)):
            raise TypeError(f"@{self.name}: {p.name} has shape {p.shape}, got {shape}")


def compile_tile(function: func.FuncOp) -> TileFunction:
    """The tile function ``function`` compiled to native code (once per process per text)."""
    text, params = upstream_text(function)
    return TileFunction(function.sym_name.data, text, params)
