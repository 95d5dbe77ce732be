"""``tg-to-aie``: a ``tg.program`` to an mlir-aie design (``aie.device``), and the ``aie``
target (``pto-opt -t aie``, ``pto_wsp.compile(..., target="aie")``)."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException
from xdsl.utils.target import Target

from pto_wsp.dialects import aie, tg, wsp

from . import directives
from .analysis import MappingError
from .design import Design
from .patterns import host_type
from .pipeline import PipelineMapper
from .spatial import SpatialMapper

#: The device when none is given.
DEFAULT_DEVICE = "npu1_1col"


def parse_bind(text: str) -> dict[str, int | list[int]]:
    """``"n=4,m=2,lens=5:40:17"`` -> {"n": 4, "m": 2, "lens": [5, 40, 17]}: the program's
    scalar arguments, and the values of tensors the cores read as runtime parameters
    (``lens=5:`` is a list of one)."""
    values: dict[str, int | list[int]] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        try:
            if not sep or not name.isidentifier():
                raise ValueError
            parts = value.split(":")
            numbers = [
                int(v, 0) for v in (parts[:-1] if len(parts) > 1 and not parts[-1] else parts)
            ]
        except ValueError:
            raise MappingError(
                f"bad binding '{item.strip()}': expected name=integer or name=i:j:..."
            ) from None
        for number in numbers:
            if not -(1 << 63) <= number < 1 << 63:  # as the simulator's bindings
                raise MappingError(f"{name} is an index: {number} does not fit in 64 bits")
        values[name] = numbers if ":" in value else numbers[0]
    return values


def lower_program(
    module: ModuleOp,
    program: tg.ProgramOp,
    device: str = DEFAULT_DEVICE,
    bind: dict[str, int | list[int]] | None = None,
    form: aie.AcquireForm = aie.AcquireForm.SUBVIEW,
) -> ModuleOp:
    """The mlir-aie module of one program (raises MappingError when it cannot map)."""
    bind = dict(bind or {})
    names = [a.data for a in program.arg_names.data]
    unknown = sorted(set(bind) - set(names))
    if unknown:
        raise MappingError(
            f"bind names {', '.join(unknown)}, which @{program.sym_name.data} does not have "
            f"(arguments: {', '.join(names)})",
            program,
        )
    data: dict[str, list[int]] = {}
    for n, v in list(bind.items()):
        type_ = program.function_type.inputs.data[names.index(n)]
        if isinstance(v, list) or isinstance(type_, MemRefType):
            if not isinstance(v, list) or not isinstance(type_, MemRefType):
                raise MappingError(
                    f"bind gives {n} {'values' if isinstance(v, list) else 'a value'}, but {n} "
                    f"is a {type_}: a list (i:j:...) binds a tensor's runtime parameters, an "
                    "integer a scalar argument"
                )
            data[n] = v
            del bind[n]
        elif not isinstance(type_, IndexType | IntegerType):
            raise MappingError(
                f"bind gives {n} a value, but {n} is a {type_}, not a scalar (index) argument"
            )
    env: dict[SSAValue, int] = {program.body.block.args[names.index(n)]: v for n, v in bind.items()}  # type: ignore[misc]
    symbols: dict[str, Operation] = {}
    for op in module.body.block.ops:
        sym = op.properties.get("sym_name")
        if sym is not None and hasattr(sym, "data"):
            symbols[sym.data] = op  # type: ignore[union-attr]
    design = Design(device, form)
    # Kernel names are fixed (their object files define them): objectfifos get other names.
    design.symbols |= {op.sym_name.data for op in symbols.values() if isinstance(op, wsp.KernelOp)}
    config = program.config.data if program.config is not None else {}
    if program.processes():
        mapper: PipelineMapper | SpatialMapper = PipelineMapper(symbols, program, env, design)
    elif "spatial_map" in config:
        mapper = SpatialMapper(symbols, program, env, design, data)
    else:
        raise MappingError(
            f"@{program.sym_name.data} is neither a pipeline (tg.process) nor spatially mapped "
            "(config spatial_map): the AIE target maps CSP pipelines and workloads with "
            "sched.spatial_map",
            program,
        )
    tensors = mapper.run()
    directives.report(program, spatial=isinstance(mapper, SpatialMapper))
    shapes = mapper.shapes
    types: list[tuple[str, MemRefType]] = []
    for name in tensors:
        declared = program.function_type.inputs.data[names.index(name)]
        assert isinstance(declared, MemRefType)
        types.append((name, host_type(MemRefType(declared.element_type, shapes[name]))))
    result = design.build(types)
    result.verify()
    return result


def _entry(module: ModuleOp, name: str) -> tg.ProgramOp:
    programs = [op for op in module.body.block.ops if isinstance(op, tg.ProgramOp)]
    if name:
        chosen = [p for p in programs if p.sym_name.data == name]
        if not chosen:
            found = ", ".join("@" + p.sym_name.data for p in programs) or "none"
            raise MappingError(f"no tg.program @{name} (programs: {found})")
        return chosen[0]
    if not programs:
        raise MappingError(
            "the module has no tg.program: run csp-to-tg / wsp-to-tg first (the aie target "
            "does it for you)"
        )
    called = {
        op.callee.root_reference.data
        for p in programs
        for op in p.walk()
        if isinstance(op, tg.CallOp)
    }
    roots = [p for p in programs if p.sym_name.data not in called]
    if len(roots) != 1:
        raise MappingError(
            f"the module has {len(roots)} entry programs "
            f"({', '.join('@' + p.sym_name.data for p in roots)}); choose one with program=NAME"
        )
    return roots[0]


def _form(text: str) -> aie.AcquireForm:
    try:
        return aie.AcquireForm(text)
    except ValueError:
        raise MappingError(f"acquire must be 'subview' or 'memref', got '{text}'") from None


def _fail(name: str, error: MappingError) -> None:
    """Report ``error`` at its op (file:line:col when the op has a location)."""
    message = f"{name}: {error}"
    failure = PassFailedException(message)
    if error.op is not None:
        # Callers locate the error at the op (a traced tile op: the kernel body's line).
        failure.op = error.op  # type: ignore[attr-defined]
    if error.op is not None and not isinstance(error.op, tg.ProgramOp):
        error.op.emit_error(message, failure)
    # A whole program is located at its workload or pipeline (wsp-to-tg carries the
    # location), without the long "see current operation" note.
    raise failure from None


@dataclass(frozen=True)
class TgToAiePass(ModulePass):
    """Replace the module by the mlir-aie design of its entry ``tg.program``.

    Options: ``device`` (npu1, npu1_1col..3col, npu2, npu2_1col..7col), ``bind`` (values of
    the program's scalar arguments: ``"n=8,m=2"``), ``program`` (the entry program when the
    module has several), ``acquire`` (``subview``: today's acquire + subview.access;
    ``memref``: the upcoming acquire that returns the element).
    """

    name = "tg-to-aie"

    device: str = DEFAULT_DEVICE
    bind: str = ""
    program: str = ""
    acquire: str = "subview"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            program = _entry(op, self.program)
            result = lower_program(
                op, program, self.device, parse_bind(self.bind), _form(self.acquire)
            )
        except MappingError as error:
            _fail(self.name, error)
            return
        for old in list(op.body.block.ops):
            old.detach()
        for new in list(result.body.block.ops):
            new.detach()
            op.body.block.add_op(new)


def _front_to_tg(ctx: Context, module: ModuleOp) -> None:
    """Run the shared lowering (csp-to-tg, wsp-to-tg) when the module is not tg yet."""
    from pto_wsp.passes.wsp_to_tg import lower_to_tg

    lower_to_tg(ctx, module)


def compile_module(
    module: ModuleOp,
    device: str = DEFAULT_DEVICE,
    bind: dict[str, int | list[int]] | str | None = None,
    program: str = "",
    acquire: str = "subview",
    ctx: Context | None = None,
) -> ModuleOp:
    """Lower a module (wsp/csp or tg) to an mlir-aie module; the input is not changed.

    Raises ``PassFailedException`` with a message naming the construct and the limit when
    the program cannot map.
    """
    ctx = ctx or _context()
    module = module.clone()
    _front_to_tg(ctx, module)
    text = (
        bind
        if isinstance(bind, str)
        else ",".join(f"{k}={_bound(v)}" for k, v in (bind or {}).items())
    )
    TgToAiePass(device=device, bind=text, program=program, acquire=acquire).apply(ctx, module)
    return module


def _bound(value) -> str:
    """A bound value as the option text: an integer, or a tensor's values as ``i:j:...``."""
    if isinstance(value, int):
        return str(value)
    values = [str(int(v)) for v in list(value)]
    return ":".join(values) + ":" * (len(values) == 1)  # "5:": a list of one


def module_text(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


def _context() -> Context:
    from xdsl.universe import Universe

    ctx = Context()
    from xdsl.dialects import get_all_dialects

    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


@dataclass(frozen=True)
class AieTarget(Target):
    """``pto-opt FILE -t aie{device=npu1_1col bind="n=4"}``: the mlir-aie design as text.

    Runs csp-to-tg / wsp-to-tg when the input is not tg yet, then tg-to-aie, and prints the
    custom form (what ``aie-opt`` reads).
    """

    name: ClassVar[str] = "aie"

    device: str = DEFAULT_DEVICE
    bind: str = ""
    program: str = ""
    acquire: str = "subview"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        _front_to_tg(ctx, module)
        TgToAiePass(self.device, self.bind, self.program, self.acquire).apply(ctx, module)
        output.write(module_text(module))


#: Seed 001 §7.2's compile options the AIE target refuses, and why.
REFUSED = {
    "profiling": "tracing an AIE design is set up in mlir-aie and XRT when it is built and "
    "run, not in the design pto-wsp emits",
    "debug": "the design is MLIR for mlir-aie's tools (aie-opt, aiecc), which build and debug "
    "it; pto-wsp emits no code of its own to instrument",
    "optimization_level": "the cores' code is compiled and optimized by aiecc; the design "
    "pto-wsp emits has no levels",
    "max_code_size": "a core's program size is known only once aiecc has compiled the design",
}

#: What ``pto_wsp.target_info("aie")`` reports.
INFO = {
    "returns": "the mlir-aie design's text (one aie.device)",
    "modes": ("pipeline", "spatial"),
    "options": {
        "device": f"the device (default {DEFAULT_DEVICE}; npu1, npu1_1col..npu1_3col, npu2, "
        "npu2_1col..npu2_7col, xcvc1902, xcve2302, xcve2802)",
        "bind": "values of the program's scalar arguments ({name: int} or 'n=4')",
        "program": "the tg.program to map when the module has several",
        "acquire": "'subview' (default) or 'memref'",
        **{key: "refused: " + why for key, why in REFUSED.items()},
    },
    "directives": directives.INFO,
}


def compile_aie(module: ModuleOp, **options: object) -> str:
    """The ``aie`` backend of ``pto_wsp.compile``: the mlir-aie module text.

    Options: ``device`` (default npu1_1col), ``bind`` ({name: int} or "n=4"), ``program``,
    ``acquire`` ('subview' or 'memref'); seed 001 §7.2's options are refused (``REFUSED``).
    """
    from pto_wsp.errors import CompileError, ErrorCode, caller_location
    from pto_wsp.passes.diagnostics import source_of

    for key, why in REFUSED.items():
        if key in options:
            raise CompileError(
                "compile",
                f"target 'aie' does not take {key}: {why}",
                loc=caller_location(),
                code=ErrorCode.INVALID_OPTION,
            )
    allowed = {"device", "bind", "program", "acquire"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise CompileError(
            "compile",
            f"unknown option(s) for target 'aie': {', '.join(unknown)} "
            f"(options: {', '.join(sorted(allowed))})",
            loc=caller_location(),
            code=ErrorCode.INVALID_OPTION,
        )
    try:
        lowered = compile_module(module, **options)  # type: ignore[arg-type]
    except PassFailedException as error:
        op = getattr(error, "op", None)
        where = (source_of(op) if op is not None else None) or caller_location()
        raise CompileError("compile", str(error).split("\n")[0], loc=where) from None
    return module_text(lowered)
