"""``compile_module``: module -> Ascend source tree, or (``host=True``) a runnable host Program.

This is the ``ascend`` backend of ``pto_wsp.compile`` (registered by importing
``pto_wsp.lowering.ascend``). Stages, in order: ``wsp-to-tg`` and ``csp-to-tg`` when the module
still holds workloads or pipelines (on a copy: the caller's module is left alone), emission
(emit.py), then for ``host=True`` the g++ build (build.py) and the ctypes Program (host.py).
"""

from __future__ import annotations

import inspect
import os
import time
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from pto_wsp.dialects import csp, tg, wsp

from .build import build_host, cache_dir
from .emit import EmittedTree, emit_tree, report_warnings
from .errors import AscendEmitError
from .host import AscendProgram


def lower_to_tg(module: ModuleOp) -> ModuleOp:
    """The module in tg program form: a lowered copy when it still has workloads or
    pipelines, else the module itself."""
    ops = list(module.walk())
    has_wsp = any(isinstance(op, wsp.WorkloadOp) for op in ops)
    has_csp = any(isinstance(op, csp.PipelineOp) for op in ops)
    if not (has_wsp or has_csp):
        return module
    from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass

    lowered = module.clone()
    ctx = Context()
    if has_wsp:
        WspToTgPass().apply(ctx, lowered)
    if has_csp:
        CspToTgPass().apply(ctx, lowered)
    return lowered


def compile_module(
    module: ModuleOp,
    *,
    out_dir: str | os.PathLike | None = None,
    host: bool = False,
    soc: str = "910b",
    program: str | None = None,
    stub_kernels: bool = False,
    kernel_dirs: list[str | os.PathLike] | None = None,
    workers: int = 0,
    record: bool = False,
    ring_capacity: int = 0,
) -> EmittedTree | AscendProgram:
    """Emit ``module`` for Ascend ``soc`` (910b, 910c, 950) into ``out_dir``.

    Without ``host``, returns the EmittedTree (written to ``out_dir`` when given). With
    ``host=True``, builds the tree with g++ (cached by content hash; the tree goes to a cache
    folder when no ``out_dir`` is given) and returns an AscendProgram for ``program`` (default:
    the one program no other calls; ``for_program(name)`` gives the others), run by ``workers`` host threads (0: the schedule's
    ``workers``, else 2); ``record=True`` keeps the task graph of each run (``graph()``).
    Raises AscendEmitError for what the target cannot emit, BuildError if g++ fails.
    """
    start = time.perf_counter()
    lowered = lower_to_tg(module)
    if not any(isinstance(op, tg.ProgramOp) for op in lowered.ops):
        raise AscendEmitError("the module has no workload or tg.program to emit")
    # Every program of the module goes into the tree (one build serves each entry).
    tree = emit_tree(lowered, soc=soc, stub_kernels=stub_kernels, kernel_dirs=kernel_dirs)
    report_warnings(tree)
    if out_dir is not None:
        tree.dir = tree.write(out_dir)
    try:
        entry = tree.entry_program(program)
    except KeyError as error:
        raise AscendEmitError(str(error.args[0])) from None
    if not host:
        return tree
    if tree.dir is None:
        tree.dir = tree.write(cache_dir() / "trees" / tree.digest()[:24])
    library = build_host(tree, tree.dir)
    return AscendProgram(
        tree,
        tree.dir,
        library,
        entry,
        workers=workers,
        record=record,
        ring_capacity=ring_capacity,
        compile_time_ms=(time.perf_counter() - start) * 1e3,
    )


def backend(module: ModuleOp, **options: Any) -> EmittedTree | AscendProgram:
    """The ``ascend`` backend of ``pto_wsp.compile``: compile_module, its errors as
    CompileErrors at the user's line."""
    from pto_wsp.errors import CompileError, caller_location

    allowed = [p for p in inspect.signature(compile_module).parameters if p != "module"]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise CompileError(
            "compile",
            f"unknown option(s) for target 'ascend': {', '.join(unknown)} "
            f"(options: {', '.join(allowed)})",
            loc=caller_location(),
        )
    try:
        return compile_module(module, **options)
    except AscendEmitError as error:
        raise CompileError(
            "compile", f"ascend: {error.located()}", loc=caller_location()
        ) from error
    except TypeError as error:
        raise CompileError("compile", f"ascend: {error}", loc=caller_location()) from error
