"""The Ascend emitter: a module of tg programs -> the source tree of an Ascend deployment.

``emit_tree(module, ...)`` returns an ``EmittedTree`` (the files as text) and
``EmittedTree.write(dir)`` writes it:

    kernel_ids.h            X-macro KERNEL_LIST: the kernel ids
    task_abi.h              TaskNodePod / TaskIO / TensorRegion (N-d: see abi.py)
    aicpu_orchestrate.cpp   each tg.program as a C++ function over the builder API,
                            its config as a RuntimeConfig, the program table
    aicore_dispatch.cpp     pto_wsp_aicore_dispatch: switch over KERNEL_LIST
    kernels/<k>.h           the body's declaration
    kernels/<k>.cpp         extern "C" __global__ __aicore__ <k>_wrapper(GM_ADDR task)
    kernels/<k>_body.cpp    the body (impls = {ascend = ...}), emitted from the kernel's
                            tile function (tile_emit.py), or a stub
    Makefile.host           g++ -std=c++17 -Wall -Werror -DPTO_WSP_HOST -> libpto_wsp_host.so
    Makefile.device         bisheng (-xcce, dav-c220 / dav-c310) + the AICPU compiler: untested
    ascend_host/            a copy of runtime/ascend_host (headers + host runtime)

so the tree builds on its own. The input is the program form after ``wsp-to-tg``: programs
are translated as they are; a kernel's tile function is planned and synchronized
for the SoC first (tile_passes.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import IntegerType, MemRefType, ModuleOp
from xdsl.ir import Operation

from pto_wsp.dialects import tg, wsp

from .abi import AbiLimits, element, identifier, scalar, task_abi_h
from .build import SOCS, device_makefile, host_makefile
from .errors import emission_error
from .kernels import (
    Kernel,
    aicore_dispatch_cpp,
    collect_kernel,
    kernel_body,
    kernel_header,
    kernel_ids_h,
    kernel_wrapper,
    resolve_body,
)
from .orchestrate import Emitted, ProgramEmitter, config_function, program_cname
from .output import write_tree

#: The least size of each descriptor array (task_abi.h).
ABI_FLOOR = 4

#: The host runtime's sources, copied into every tree: found where the package lives (an
#: editable or an installed one) without importing the simulator (a layer above this one).
RUNTIME_DIR = (
    Path(importlib.util.find_spec("pto_wsp.runtime").submodule_search_locations[0]) / "ascend_host"
)


@dataclass(frozen=True)
class ArgSig:
    """One program argument, as the launcher binds it."""

    name: str
    kind: str  # "tensor" or "scalar"
    elem: str = ""  # MLIR element type of a tensor
    cxx: str = ""  # its C++ element type
    elem_bytes: int = 0
    shape: tuple[int | None, ...] = ()  # None where dynamic
    integer: bool = False


@dataclass(frozen=True)
class ProgramSig:
    name: str
    args: tuple[ArgSig, ...]
    config: dict[str, object]
    callees: tuple[str, ...] = ()


@dataclass
class EmittedTree:
    """The files of one emission (relative path -> text), and what the launcher needs."""

    files: dict[str, str]
    programs: dict[str, ProgramSig]
    kernels: list[str]  # MLIR kernel names, in KernelId order
    soc: str
    warnings: list[str] = field(default_factory=list)
    dir: Path | None = None  # where it was written
    stubs: tuple[str, ...] = ()  # kernels emitted with an empty stub body
    #: Per kernel, the ScalarArg field of each scalar parameter (task_abi.h): how to read
    #: the args a recorded run gives back as 64-bit slots.
    scalar_fields: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def generated(self) -> dict[str, str]:
        """The generated files only (without the runtime copy)."""
        return {k: v for k, v in self.files.items() if not k.startswith("ascend_host/")}

    def digest(self) -> str:
        """A hash of every file: the build cache key of the tree."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            h.update(path.encode() + b"\0" + self.files[path].encode() + b"\0")
        return h.hexdigest()

    def write(self, out_dir: str | os.PathLike) -> Path:
        """Write the tree under ``out_dir``, all or nothing (``output.write_tree``): files of
        earlier emissions are removed from kernels/ and ascend_host/, others kept."""
        return write_tree(self.files, out_dir)

    def entry_program(self, name: str | None = None) -> ProgramSig:
        """The program ``name``, or the only program no other program calls."""
        if name is not None:
            if name not in self.programs:
                raise KeyError(
                    f"no program @{name} in the tree (programs: {', '.join(self.programs)})"
                )
            return self.programs[name]
        called = {c for p in self.programs.values() for c in p.callees}
        roots = [p for n, p in self.programs.items() if n not in called]
        if len(roots) != 1:
            raise KeyError(
                "the tree has several entry programs "
                f"({', '.join(p.name for p in roots)}): choose one with program=..."
            )
        return roots[0]


def _programs(module: ModuleOp, only: str | None) -> list[tg.ProgramOp]:
    programs = [op for op in module.ops if isinstance(op, tg.ProgramOp)]
    if not programs:
        emission_error(
            module,
            "the ascend target emits the module's workloads, pipelines and tg.program ops, "
            "and the module has none",
        )
    if only is None:
        return programs
    by_name = {p.sym_name.data: p for p in programs}
    if only not in by_name:
        emission_error(module, f"no tg.program @{only} (programs: {', '.join(by_name)})")
    chosen: dict[str, tg.ProgramOp] = {}
    stack = [by_name[only]]
    while stack:
        p = stack.pop()
        if p.sym_name.data in chosen:
            continue
        chosen[p.sym_name.data] = p
        for call in p.walk():
            if isinstance(call, tg.CallOp) and call.callee.root_reference.data in by_name:
                stack.append(by_name[call.callee.root_reference.data])
    return [p for p in programs if p.sym_name.data in chosen]


def _in_send(op: Operation) -> bool:
    """Whether ``op`` is in the body of a tg.send (a message's task)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tg.SendOp | tg.ProgramOp):
        parent = parent.parent_op()
    return isinstance(parent, tg.SendOp)


def _kernels(
    module: ModuleOp,
    programs: list[tg.ProgramOp],
    kernel_dirs: list[Path],
    stub: bool,
    soc: str,
    receipt_keys: dict[str, Operation],
) -> tuple[dict[str, Kernel], list[str]]:
    """The kernels the programs' tasks use, in declaration order, with their bodies."""
    used: dict[str, set[str]] = {}
    for program in programs:
        # A pipeline's dispatch_threshold picks the pool of a message's tasks at receipt.
        keys = receipt_keys.get(program.sym_name.data)
        threshold = keys is not None and any(
            op.name == "sched.dispatch_threshold" for op in keys.regions[0].block.ops
        )
        for op in program.walk():
            if isinstance(op, tg.TaskOp):
                pool = "dynamic" if op.dynamic_pool is not None else op.pool.data  # type: ignore[union-attr]
                if threshold and _in_send(op):
                    pool = "dynamic"
                used.setdefault(op.kernel.root_reference.data, set()).add(pool)
    kernels: dict[str, Kernel] = {}
    warnings: list[str] = []
    cnames: dict[str, str] = {}
    for op in module.ops:
        if not isinstance(op, wsp.KernelOp) or op.sym_name.data not in used:
            continue
        k = collect_kernel(op)
        k.pools = used[k.name]
        for spelling in (k.cname, k.kid, k.cname + "_wrapper"):
            other = cnames.get(spelling.lower())
            if other is not None:
                emission_error(
                    op,
                    f"kernels @{other} and @{k.name} have the same C++ name {spelling}: rename one",
                )
            cnames[spelling.lower()] = k.name
        warnings += resolve_body(k, kernel_dirs, stub, soc)
        kernels[k.name] = k
    return kernels, warnings


def _limits(programs: list[tg.ProgramOp], kernels: list[Kernel], emitted: Emitted) -> AbiLimits:
    ranks = [1]
    for p in programs:
        ranks += [len(t.get_shape()) for t in p.tensors().values()]
    for k in kernels:
        ranks += [p.rank for p in k.tensors]
    for g in emitted.globals.values():
        ranks.append(len(g.type_.get_shape()))
    # Floors, so most trees share one task_abi.h and one build of the runtime.
    return AbiLimits(
        max_rank=max(max(ranks), ABI_FLOOR),
        max_args=max(max((len(k.scalars) for k in kernels), default=0), ABI_FLOOR),
        max_io=max(max((len(k.tensors) for k in kernels), default=0), ABI_FLOOR),
        max_coords=max(
            max((len(s.coords) for s in emitted.sites), default=0),
            emitted.pipeline_coords,
            ABI_FLOOR,
        ),
    )


def _signature(program: tg.ProgramOp) -> ProgramSig:
    args = []
    for name, type_ in zip(program.arg_names, program.function_type.inputs):
        if isinstance(type_, MemRefType):
            elem = element(type_.element_type)
            assert elem is not None
            shape = tuple(s if s >= 0 else None for s in type_.get_shape())
            args.append(
                ArgSig(name.data, "tensor", elem.mlir, elem.cxx, elem.size, shape, elem.integer)
            )
        else:
            boolean = isinstance(type_, IntegerType) and type_.width.data == 1
            args.append(ArgSig(name.data, "scalar", "i1" if boolean else str(type_)))
    config = {}
    if program.config is not None:
        for key, value in program.config.data.items():
            data = getattr(value, "data", None)
            if hasattr(value, "value"):
                data = int(value.value.data)  # type: ignore[attr-defined]
            config[key] = data
    callees = tuple(
        sorted(
            {op.callee.root_reference.data for op in program.walk() if isinstance(op, tg.CallOp)}
        )
    )
    return ProgramSig(program.sym_name.data, tuple(args), config, callees)


def emit_tree(
    module: ModuleOp,
    *,
    soc: str = "910b",
    program: str | None = None,
    stub_kernels: bool = False,
    kernel_dirs: list[str | os.PathLike] | None = None,
    include_runtime: bool = True,
    receipt_keys: dict[str, Operation] | None = None,
) -> EmittedTree:
    """Emit the Ascend tree of ``module``'s tg programs (all, or ``program`` and its callees).

    ``soc`` is 910b, 910c or 950 (device build flags); ``stub_kernels`` gives kernels without
    an ``impls.ascend`` body an empty body (with a warning) instead of an error;
    ``kernel_dirs`` are searched for body files. Raises ``AscendEmitError`` (located at the
    op) for what the target cannot emit. ``receipt_keys`` are the pipelines' schedules
    (pipeline.receipt_keys of the module before its lowering to tg).
    """
    if soc not in SOCS:
        emission_error(module, f"unknown soc '{soc}' (socs: {', '.join(SOCS)})")
    programs = _programs(module, program)
    dirs = [Path(d) for d in (kernel_dirs or [])]
    receipt_keys = receipt_keys or {}
    kernels, warnings = _kernels(module, programs, dirs, stub_kernels, soc, receipt_keys)
    emitted = Emitted(warnings=warnings, receipt_keys=receipt_keys)
    for p in programs:
        ProgramEmitter(p, module, kernels, emitted).emit()
    klist = list(kernels.values())
    limits = _limits(programs, klist, emitted)
    files: dict[str, str] = {
        "kernel_ids.h": kernel_ids_h(klist),
        "task_abi.h": task_abi_h(limits),
        "aicpu_orchestrate.cpp": _orchestrate_cpp(programs, emitted, soc),
        "aicore_dispatch.cpp": aicore_dispatch_cpp(),
    }
    for k in klist:
        files[f"kernels/{k.cname}.h"] = kernel_header(k)
        files[f"kernels/{k.cname}.cpp"] = kernel_wrapper(k)
        files[f"kernels/{k.cname}_body.cpp"] = kernel_body(k)
    files["Makefile.host"] = host_makefile(klist)
    files["Makefile.device"] = device_makefile(klist, soc)
    if include_runtime:
        for path in sorted(RUNTIME_DIR.rglob("*")):
            if path.is_file() and path.suffix in (".h", ".cpp"):
                files["ascend_host/" + path.relative_to(RUNTIME_DIR).as_posix()] = path.read_text()
    return EmittedTree(
        files,
        {p.sym_name.data: _signature(p) for p in programs},
        [k.name for k in klist],
        soc,
        emitted.warnings,
        stubs=tuple(k.name for k in klist if k.body is None),
        scalar_fields={k.name: tuple(_field(p.type_) for p in k.scalars) for k in klist},
    )


def _field(type_: object) -> str:
    cxx = scalar(type_)  # type: ignore[arg-type]
    assert cxx is not None, "collect_kernel refused the type"
    return cxx[1]


def report_warnings(tree: EmittedTree) -> None:
    for message in tree.warnings:
        print(f"warning: {message}", file=sys.stderr)


def _orchestrate_cpp(programs: list[tg.ProgramOp], emitted: Emitted, soc: str) -> str:
    names = ", ".join("@" + p.sym_name.data for p in programs)
    pipeline_include = '#include "pto_wsp/pipeline.h"\n' if emitted.pipeline_coords else ""
    parts = [
        f"""\
// Generated by pto-wsp (lowering/ascend): the AICPU orchestration of {names}
// (soc {soc}). Each tg.program is a function that walks its loops and creates tasks through
// the builder API (pto_wsp/orchestration.h); the runtime infers their dependencies.
#include "kernel_ids.h"
#include "pto_wsp/orchestration.h"
{pipeline_include}#include "task_abi.h"

extern "C" const char* const pto_wsp_kernel_names[] = {{
#define PTO_WSP_KERNEL_NAME(id, name, unit, scalars, tensors) #name,
    KERNEL_LIST(PTO_WSP_KERNEL_NAME)
#undef PTO_WSP_KERNEL_NAME
    nullptr}};
extern "C" const int32_t pto_wsp_num_kernels = KERNEL_COUNT;
"""
    ]
    if emitted.sites:
        parts.append("// Task creation sites: kernel and coordinate names.")
        site_lines = []
        for site in emitted.sites:
            if site.coords:
                quoted = ", ".join(f'"{c}"' for c in site.coords)
                site_lines.append(f"static const char* const {site.name}_coords[] = {{{quoted}}};")
                coords = f"{site.name}_coords"
            else:
                coords = "nullptr"
            site_lines.append(
                f"static const pto::wsp::TaskSite {site.name} = "
                f"{{{site.kernel.kid}, {len(site.coords)}, {coords}}};"
            )
        parts.append("\n".join(site_lines) + "\n")
    for g in emitted.globals.values():
        elem = element(g.type_.element_type)
        assert elem is not None
        shape = list(g.type_.get_shape())
        strides = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            strides[d] = strides[d + 1] * shape[d + 1]
        values = ", ".join(str(v) for v in g.values)
        parts.append(
            f"// memref.global @{g.name}\n"
            f"static {elem.cxx} {g.cname}_data[] = {{{values}}};\n"
            f"static const pto::wsp::TensorArg {g.cname}_arg = {{"
            f"reinterpret_cast<uint8_t*>({g.cname}_data), {{{', '.join(map(str, shape))}}}, "
            f"{{{', '.join(map(str, strides))}}}, {len(shape)}, {elem.size}, 0xFFFF}};\n"
        )
    parts.append("\n".join(emitted.prototypes) + "\n")
    parts += emitted.functions
    table = []
    for p in programs:
        cname = identifier(p.sym_name.data)
        parts.append(config_function(p, emitted.warnings))
        sig = _signature(p)
        args = []
        for i, a in enumerate(sig.args):
            if a.kind == "tensor":
                args.append(f"_a[{i}].view")
            else:
                args.append(f"(_a[{i}].scalar != 0)" if a.elem == "i1" else f"_a[{i}].scalar")
        call = f"{program_cname(p)}(_b{''.join(', ' + x for x in args)})"
        a_param = " _a" if args else ""
        parts.append(
            f"static void {cname}_entry(pto::wsp::Builder& _b, "
            f"const pto::wsp::ArgValue*{a_param}) {{\n  {call};\n}}\n"
        )
        if sig.args:
            rows = []
            for a in sig.args:
                if a.kind == "tensor":
                    shape = ", ".join(str(s if s is not None else -1) for s in a.shape)
                    rows.append(
                        f'    {{"{a.name}", pto::wsp::kArgTensor, {len(a.shape)}, {a.elem_bytes}, '
                        f'"{a.elem}", {{{shape}}}}},'
                    )
                else:
                    rows.append(
                        f'    {{"{a.name}", pto::wsp::kArgScalar, 0, 8, "{a.elem}", {{0}}}},'
                    )
            parts.append(
                f"static const pto::wsp::ArgInfo {cname}_args[] = {{\n" + "\n".join(rows) + "\n};\n"
            )
            args_ref = f"{cname}_args"
        else:
            args_ref = "nullptr"
        table.append(
            f'    {{"{p.sym_name.data}", {cname}_entry, {len(sig.args)}, {args_ref}, '
            f"{cname}_config}},"
        )
    parts.append(
        'extern "C" const pto::wsp::ProgramInfo pto_wsp_programs[] = {\n'
        + "\n".join(table)
        + "\n};\n"
        + f'extern "C" const int32_t pto_wsp_num_programs = {len(programs)};\n'
    )
    return "\n".join(parts)
