"""A module lowered for the CPU simulator, kept on disk: a compile found there skips xDSL.

``lowered(module, entry, schedule)`` is what the cpu_sim backend needs of the lowering of one
workload or pipeline of ``module``: the ``wsp-to-tg`` / ``csp-to-tg`` passes' warnings, the
``tg.program``'s argument specs and runtime config, and the native program
(``tg-to-runtime-calls``, then upstream MLIR). A later compile of the same module — in this
process or another — finds it in the disk cache (lowering/cpu/objcache.py) by a key taken
before any pass runs: the module's text with its locations, the entry and schedule chosen,
and a digest of the compiler (``objcache.compiler``: the dialects', passes' and CPU
lowering's sources, the installed xDSL); the native program's code is found by its own key.
Such a compile imports neither the passes nor the tg dialect. The other compile options
(mode, workers, kernels, ...) act after this step: one entry serves them all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, PassFailedException

from pto_wsp.lowering.cpu import native, objcache
from pto_wsp.runtime.program import ArgSpec

__all__ = ["Lowered", "LoweringFailed", "key", "lowered"]


class LoweringFailed(Exception):
    """The lowering refused the module: its message, and what the passes said before."""

    def __init__(self, message: str, warnings: list[str]) -> None:
        super().__init__(message)
        self.message = message
        self.warnings = warnings


@dataclass
class Lowered:
    """What a compile for the CPU simulator takes from the lowering of its entry."""

    #: What the passes printed (``file:line:col: warning: ...``), said again at each compile.
    warnings: list[str]
    #: The tg.program's ``config`` (the schedule's runtime directives), as plain values.
    config: dict[str, Any]
    #: Whether the program's tasks give their stream (stream_by).
    stream_keyed: bool
    args: list[ArgSpec]
    native: native.NativeProgram
    #: The reference engine's program (lowering/cpu/simgen.py), made when first asked for.
    reference: Callable[[], Any] = field(repr=False)


def key(module: ModuleOp, entry: str, schedule: str) -> str:
    """The cache key of ``entry`` of ``module`` lowered with ``schedule``."""
    text = io.StringIO()
    # Locations too: the passes' warnings name them.
    Printer(stream=text, print_debuginfo=True).print_op(module)
    return objcache.key(text.getvalue(), f"cpu_sim {entry} {schedule} {objcache.compiler()}")


def lowered(module: ModuleOp, entry: str, schedule: str) -> Lowered:
    """``entry`` of ``module`` lowered with ``schedule``: from the disk cache, else lowered
    now (and kept). Raises LoweringFailed."""
    name = key(module, entry, schedule)
    found = objcache.load_table(name)
    if found is not None:
        try:
            return _from_table(found, lambda: _lower(module, entry, schedule).reference())
        except (KeyError, TypeError, ValueError, AttributeError, ParseError):
            pass  # (not a table this code wrote)
    result = _lower(module, entry, schedule)
    objcache.store_table(name, _table(result))
    return result


def _lower(module: ModuleOp, entry: str, schedule: str) -> Lowered:
    """Run the passes on a copy of ``module`` and compile ``entry`` to native code."""
    # (here, not above: a compile found in the cache imports none of them)
    from pto_wsp.dialects import tg
    from pto_wsp.lowering.cpu.pygen import CodegenError
    from pto_wsp.lowering.cpu.simgen import check_replicas, compile_sim_program, stream_keyed
    from pto_wsp.passes.diagnostics import python_spelling
    from pto_wsp.passes.wsp_to_tg import lower_to_tg

    m = module.clone()
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            lower_to_tg(Context(), m, schedule)
    except PassFailedException as error:
        raise LoweringFailed(python_spelling(str(error)), []) from None
    warnings = [line for line in stderr.getvalue().splitlines() if line.strip()]
    program = next(op for op in m.ops if isinstance(op, tg.ProgramOp) and op.sym_name.data == entry)

    def reference() -> Any:
        try:
            return compile_sim_program(program, m)
        except CodegenError as error:  # (the warnings are said with the Lowered)
            raise LoweringFailed(str(error), []) from None

    try:
        check_replicas(program)  # (before the run makes a coroutine per process)
        compiled = native.compile_native(m, program)
    except CodegenError as error:
        raise LoweringFailed(str(error), warnings) from None
    except native.NativeError as error:
        raise LoweringFailed(error.message, warnings) from None
    raw = program.config.data if program.config is not None else {}
    return Lowered(
        warnings=warnings,
        config={k: _plain(v) for k, v in raw.items()},
        stream_keyed=stream_keyed(program),
        args=_arg_specs(program),
        native=compiled,
        reference=reference,
    )


def _plain(value: Attribute) -> Any:
    """A config value as JSON data: integers and strings as such, arrays as lists, anything
    else as its text (only its presence is read)."""
    if isinstance(value, IntegerAttr):
        return int(value.value.data)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, ArrayAttr):
        return [_plain(v) for v in value.data]
    return str(value)


def _table(result: Lowered) -> dict[str, Any]:
    return {
        "warnings": result.warnings,
        "config": result.config,
        "stream_keyed": result.stream_keyed,
        "args": [dataclasses.asdict(a) for a in result.args],
        "native": native.table(result.native),
    }


def _from_table(data: dict[str, Any], reference: Callable[[], Any]) -> Lowered:
    return Lowered(
        warnings=list(data["warnings"]),
        config=dict(data["config"]),
        stream_keyed=bool(data["stream_keyed"]),
        args=[ArgSpec(**{**a, "shape": tuple(a["shape"])}) for a in data["args"]],
        native=native.from_table(data["native"]),
        reference=reference,
    )


# --------------------------------------------------------------------------- arguments

_DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64"}


def _dtype(element: Any) -> str:
    if isinstance(element, IndexType):
        return "index"
    if isinstance(element, IntegerType):
        width = element.width.data
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return f"{'u' if unsigned else ''}int{width}" if width in (8, 16, 32, 64) else ""
    return _DTYPES.get(str(element), "")


def _arg_specs(program: Any) -> list[ArgSpec]:
    specs = []
    names = [n.data for n in program.arg_names]
    for name, type_ in zip(names, program.function_type.inputs.data):
        if isinstance(type_, MemRefType):
            shape = tuple(s if s >= 0 else None for s in type_.get_shape())
            specs.append(ArgSpec(name, "tensor", _dtype(type_.element_type), shape, str(type_)))
        else:
            specs.append(ArgSpec(name, "scalar", "", (), str(type_)))
    return specs
