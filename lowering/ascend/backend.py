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
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import csp, tg, wsp
from pto_wsp.errors import CompileError, ErrorCode, caller_location

from .build import BuildError, build_host, cache_dir
from .emit import EmittedTree, emit_tree, report_warnings
from .errors import AscendEmitError
from .host import AscendProgram
from .pipeline import receipt_keys

_OPTION = ErrorCode.INVALID_OPTION


def lower_to_tg(module: ModuleOp, schedule: str = "") -> ModuleOp:
    """The module in tg program form: a lowered copy when it still has workloads or
    pipelines (``schedule`` picks a workload's schedule where it has several), else the
    module itself. Raises AscendEmitError when the lowering fails."""
    ops = list(module.walk())
    has_wsp = any(isinstance(op, wsp.WorkloadOp) for op in ops)
    has_csp = any(isinstance(op, csp.PipelineOp) for op in ops)
    if not (has_wsp or has_csp):
        return module
    from pto_wsp.passes import wsp_to_tg

    lowered = module.clone()
    try:
        wsp_to_tg.lower_to_tg(Context(), lowered, schedule)
    except PassFailedException as error:
        raise AscendEmitError(str(error)) from None
    return lowered


def compile_module(
    module: ModuleOp,
    *,
    out_dir: str | os.PathLike | None = None,
    host: bool = False,
    soc: str = "910b",
    program: str | None = None,
    schedule: str = "",
    stub_kernels: bool = False,
    kernel_dirs: list[str | os.PathLike] | None = None,
    workers: int = 0,
    record: bool = False,
    ring_capacity: int = 0,
    profiling: bool = False,
    debug: bool = False,
    optimization_level: int | None = None,
    max_code_size: int | None = None,
) -> EmittedTree | AscendProgram:
    """Emit ``module`` for Ascend ``soc`` (910b, 910c, 950) into ``out_dir``.

    Without ``host``, returns the EmittedTree (written to ``out_dir`` when given). With
    ``host=True``, builds the tree with g++ (cached by content hash; the tree goes to a cache
    folder when no ``out_dir`` is given) and returns an AscendProgram for ``program`` (default:
    the one program no other calls; ``for_program(name)`` gives the others), run by ``workers`` host threads (0: the schedule's
    ``workers``, else 2); ``record=True`` keeps the task graph of each run (``graph()``).
    Seed 001 §7.2's options: ``profiling`` records each run (as ``record``); ``debug`` and
    ``optimization_level`` are flags of the host build (``-g -D_GLIBCXX_ASSERTIONS``, ``-ON``);
    ``max_code_size`` limits the AICPU orchestration source (bytes). ``schedule`` names the
    schedule to apply to a workload that has several.
    Raises AscendEmitError for what the target cannot emit, BuildError if g++ fails.
    """
    start = time.perf_counter()
    flags = _build_flags(host, debug, optimization_level)
    record = record or _yes("profiling", profiling)
    lowered = lower_to_tg(module, schedule)
    if not any(isinstance(op, tg.ProgramOp) for op in lowered.ops):
        raise AscendEmitError("the module has no workload or tg.program to emit")
    # Every program of the module goes into the tree (one build serves each entry).
    tree = emit_tree(
        lowered,
        soc=soc,
        stub_kernels=stub_kernels,
        kernel_dirs=kernel_dirs,
        receipt_keys=receipt_keys(module, schedule),
    )
    _check_size(tree, max_code_size)
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
    library = build_host(tree, tree.dir, flags)
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


def _yes(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise AscendEmitError(f"{name} must be True or False, got {value!r}", code=_OPTION)
    return value


def _build_flags(host: bool, debug: bool, level: int | None) -> list[str]:
    """The host build's extra flags for ``debug`` and ``optimization_level``."""
    flags = ["-g", "-D_GLIBCXX_ASSERTIONS"] if _yes("debug", debug) else []
    if level is not None:
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 3:
            raise AscendEmitError(f"optimization_level must be 0 to 3, got {level!r}", code=_OPTION)
        flags.append(f"-O{level}")
    if flags and not host:
        raise AscendEmitError(
            "debug and optimization_level are flags of the host build (host=True); the "
            "device build's are CANN's (Makefile.device)",
            code=_OPTION,
        )
    return flags


def _check_size(tree: EmittedTree, limit: int | None) -> None:
    """``max_code_size``: the AICPU orchestration source (what becomes the AICPU binary)."""
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise AscendEmitError(f"max_code_size must be an int >= 1, got {limit!r}", code=_OPTION)
    size = len(tree.files["aicpu_orchestrate.cpp"].encode())
    if size > limit:
        raise AscendEmitError(
            f"the AICPU orchestration (aicpu_orchestrate.cpp) is {size} bytes, over "
            f"max_code_size={limit}",
            code=ErrorCode.CODE_SIZE_EXCEEDED,
        )


#: What ``pto_wsp.target_info("ascend")`` reports.
INFO = {
    "returns": "the emitted source tree (EmittedTree), or with host=True a runnable "
    "AscendProgram built with g++",
    "modes": ("tree", "host"),
    "options": {
        "out_dir": "write the tree there",
        "host": "build the tree with g++ and return a runnable AscendProgram",
        "soc": "910b (default), 910c or 950",
        "program": "the entry program (default: the one no other calls)",
        "schedule": "the schedule to apply where a workload has several",
        "stub_kernels": "kernels without an Ascend body get an empty one",
        "kernel_dirs": "folders holding kernel body files",
        "workers": "host worker threads (default: the schedule's, else 2)",
        "record": "keep each run's task graph and schedule (graph(), schedule_of())",
        "ring_capacity": "the host runtime's task ring size",
        "profiling": "True: as record=True",
        "debug": "True: the host build with -g -D_GLIBCXX_ASSERTIONS (needs host=True)",
        "optimization_level": "0-3: the host build's -O level (default -O3; needs host=True)",
        "max_code_size": "a limit in bytes on the AICPU orchestration source",
    },
    "directives": {
        "dispatch": "every policy",
        "streams": "honoured, with stream_by",
        "issue": "fifo and priority",
        "timing": "immediate, batched, interleaved, rate_limit",
        "dispatch_threshold": "honoured (vector / cube pools)",
        "pipeline_depth": "honoured, every scope",
        "task_window": "honoured (stall or abort)",
        "batch_deps": "honoured",
        "spatial_map": "ignored with a warning (AIE placement)",
        "layout": "ignored with a warning (AIE placement)",
        "extension ops": "ignored with a warning naming each",
    },
}


def backend(module: ModuleOp, **options: Any) -> EmittedTree | AscendProgram:
    """The ``ascend`` backend of ``pto_wsp.compile``: compile_module, its errors as
    CompileErrors at the user's line."""
    allowed = [p for p in inspect.signature(compile_module).parameters if p != "module"]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise CompileError(
            "compile",
            f"unknown option(s) for target 'ascend': {', '.join(unknown)} "
            f"(options: {', '.join(allowed)})",
            loc=caller_location(),
            code=_OPTION,
        )
    try:
        return compile_module(module, **options)
    except AscendEmitError as error:
        raise CompileError(
            "compile",
            f"ascend: {error.located_for_python()}",
            loc=error.source or caller_location(),
            code=error.code,
        ) from None  # the chain would add the module's text, nothing more
    except BuildError as error:
        raise CompileError(
            "compile", f"ascend: the host build failed: {error}", loc=caller_location()
        ) from None
    except TypeError as error:
        raise CompileError("compile", f"ascend: {error}", loc=caller_location()) from None
