"""AICore side of an emitted tree: kernel_ids.h, per-kernel wrappers and bodies, the dispatch.

Style: PTO-ISA task entries, not host-launched Ascend C kernels. Our AICores execute *tasks*
handed over by the AICPU orchestration (reference/ascend.md "Orchestration"), so each kernel
gets one ``extern "C" __global__ __aicore__ void <k>_wrapper(GM_ADDR task)`` entry that reads
the task descriptor (task_abi.h) — tensor regions, then scalars — and calls the kernel body
with typed views; ``pto_wsp_aicore_dispatch`` switches on the kernel id through the X-macro
list. An Ascend C ``<<<blocks, l2ctrl, stream>>>`` kernel takes a fixed list of GM_ADDR
arguments per launch and would need one host launch per task, which is the model the task
runtime replaces. Kernel *bodies* may use either library inside (``pto::`` tiles or
``AscendC::``): the wrapper only hands them ``pto::wsp::GmTensor`` views of global memory.

Kernel bodies come from the kernel declaration's ``impls = {ascend = "..."}``, else from its
tile function (``{tile = @f}``, emitted by tile_emit.py), else a stub. An ``impls`` value with a
newline is inline C++ source (what the Python API's ``@kernel(impls={"ascend": src})`` gives);
otherwise it is a path to a C++ file, absolute or relative to the directory of the file that
declares the kernel (then ``kernel_dirs``, then the working directory) — as ``#include`` finds
files. The body defines the function the kernel's header declares (``kernels/<k>.h``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc, MemRefType

from pto_wsp.dialects import wsp
from pto_wsp.errors import ErrorCode

from .abi import Element, element, identifier, memref_rank, scalar
from .errors import emission_error
from .tile_emit import tile_body
from .tile_passes import prepared

_CORES = {"Vector": "AIV cores", "Cube": "AIC cores", "Both": "AIV and AIC cores"}


@dataclass
class Param:
    name: str  # C++ name
    mlir_name: str
    type_: object
    access: str  # "" for scalars
    elem: Element | None = None
    rank: int = 0

    @property
    def is_tensor(self) -> bool:
        return bool(self.access)

    def cxx_type(self) -> str:
        if not self.is_tensor:
            cxx = scalar(self.type_)
            assert cxx is not None
            return cxx[0]
        assert self.elem is not None
        const = "const " if self.access == "in" else ""
        return f"pto::wsp::GmTensor<{const}{self.elem.cxx}, {self.rank}>"


@dataclass
class Kernel:
    """One ``wsp.kernel`` as the AICore side sees it."""

    op: wsp.KernelOp
    name: str  # the symbol
    cname: str  # its C++ function name
    kid: str  # its KERNEL_LIST id
    unit: str  # vector or cube
    params: list[Param] = field(default_factory=list)
    body: str | None = None  # C++ source of the body
    body_origin: str = ""  # where the body came from (for #line); '' for an emitted one
    pools: set[str] = field(default_factory=set)  # the pools its tasks use ("dynamic" too)

    @property
    def build_unit(self) -> str:
        """The cores to build the kernel for: its unit, or Both when its tasks may run on
        the other pool."""
        if self.pools <= {self.unit}:
            return self.unit.capitalize()
        return "Both"

    @property
    def scalars(self) -> list[Param]:
        return [p for p in self.params if not p.is_tensor]

    @property
    def tensors(self) -> list[Param]:
        return [p for p in self.params if p.is_tensor]

    def signature(self) -> str:
        params = ", ".join(f"{p.cxx_type()} {p.name}" for p in self.params)
        return f"void {self.cname}({params})"


def collect_kernel(op: wsp.KernelOp) -> Kernel:
    """The kernel's C++ shape; an emission error for a parameter the ABI cannot carry."""
    name = op.sym_name.data
    cname = identifier(name)
    kernel = Kernel(op, name, cname, "KERNEL_" + cname.upper(), op.exec_unit.data)
    seen: set[str] = set()
    for mlir_name, type_, access in zip(op.arg_names, op.function_type.inputs, op.access):
        pname = identifier(mlir_name.data)
        while pname in seen or pname == cname:
            pname += "_"
        seen.add(pname)
        param = Param(pname, mlir_name.data, type_, access.data)
        if param.is_tensor:
            assert isinstance(type_, MemRefType)
            param.elem = element(type_.element_type)
            if param.elem is None:
                emission_error(
                    op, f"kernel @{name}: tensor '{mlir_name.data}' has element type "
                    f"{type_.element_type}, which the Ascend task ABI does not carry",
                )  # fmt: skip
            param.rank = memref_rank(type_)
        elif scalar(type_) is None:
            emission_error(
                op,
                f"kernel @{name}: scalar '{mlir_name.data}' has type {type_}; the Ascend "
                "task ABI carries index, i1, i32, i64, f16, f32 and f64 scalars",
            )
        kernel.params.append(param)
    return kernel


def resolve_body(kernel: Kernel, kernel_dirs: list[Path], stub: bool, soc: str) -> list[str]:
    """Find the kernel's body (inline, a file, or emitted from its tile function planned for
    ``soc``); return the warnings to report."""
    op = kernel.op
    impls = op.impls.data if op.impls is not None else {}
    where = impls.get("ascend")
    function = op.tile_function()
    if where is None and function is not None:
        names = [p.name for p in kernel.params]
        kernel.body = tile_body(kernel.signature(), names, prepared(function, soc, kernel.name))
        return []
    if where is None:
        if not stub:
            emission_error(
                op,
                f"kernel @{kernel.name} has no Ascend body: give one with "
                f'impls = {{ascend = "path/{kernel.name}.cpp"}} (or inline C++ source), or '
                "emit stubs with stub-kernels=true",
                ErrorCode.KERNEL_NOT_FOUND,
            )
        kernel.body = None
        return [f"kernel @{kernel.name} has no Ascend body: its tasks run an empty stub"]
    text = where.data  # type: ignore[attr-defined]
    if "\n" in text:
        kernel.body = text if text.endswith("\n") else text + "\n"
        kernel.body_origin = f"inline body of @{kernel.name}"
        return []
    candidates = [Path(text)] if os.path.isabs(text) else []
    if not candidates:
        loc = op.location
        if isinstance(loc, FileLineColLoc) and loc.filename.data not in ("", "-", "<stdin>"):
            candidates.append(Path(loc.filename.data).resolve().parent / text)
        candidates += [Path(d) / text for d in kernel_dirs]
        candidates.append(Path.cwd() / text)
    for path in candidates:
        if path.is_file():
            kernel.body = path.read_text()
            if not kernel.body.endswith("\n"):
                kernel.body += "\n"
            kernel.body_origin = str(path.resolve())
            return []
    searched = ", ".join(str(p) for p in candidates)
    emission_error(
        op,
        f"kernel @{kernel.name}: Ascend body '{text}' not found (searched {searched})",
        ErrorCode.KERNEL_NOT_FOUND,
    )


def kernel_ids_h(kernels: list[Kernel]) -> str:
    """kernel_ids.h: the X-macro kernel list, the one source of kernel ids."""
    rows = [
        f"  X({k.kid}, {k.cname}, {k.build_unit}, {len(k.scalars)}, {len(k.tensors)})"
        for k in kernels
    ]
    body = " \\\n".join(rows) if rows else ""
    return f"""\
// Generated by pto-wsp (lowering/ascend): the kernel list, the single source of kernel ids.
// X(id, name, unit, scalars, tensors): the id names KernelId values, name the kernel body
// and its wrapper name##_wrapper, unit the cores it is built for (Vector = AIV, Cube = AIC,
// Both: its tasks may go to either pool: pool(any) or dispatch_threshold), then how many
// scalar and tensor parameters its task descriptor carries.
#pragma once

#define KERNEL_LIST(X) \\
{body}

enum KernelIds {{
#define PTO_WSP_KERNEL_ENUM(id, name, unit, scalars, tensors) id,
  KERNEL_LIST(PTO_WSP_KERNEL_ENUM)
#undef PTO_WSP_KERNEL_ENUM
  KERNEL_COUNT
}};
"""


def kernel_header(kernel: Kernel) -> str:
    """kernels/<k>.h: the declaration of the kernel body, as the wrapper calls it."""
    op = kernel.op
    decl = ", ".join(
        f"{p.mlir_name}: {p.access + ' ' if p.access else ''}{p.type_}" for p in kernel.params
    )
    return f"""\
// Generated by pto-wsp (lowering/ascend): kernel @{kernel.name}
//   ({decl}) unit({op.exec_unit.data})
// Its body defines the function below; tensors are views of global memory (gm_tensor.h),
// `in` tensors read-only, scalars by value in their C types.
#pragma once

#include "pto_wsp/aicore.h"
#include "task_abi.h"

__aicore__ {kernel.signature()};
"""


def kernel_wrapper(kernel: Kernel) -> str:
    """kernels/<k>.cpp: the AICore entry of the kernel, unpacking the task descriptor."""
    args = []
    slot = tensor = 0
    for p in kernel.params:
        if p.is_tensor:
            args.append(
                f"pto::wsp::gm_tensor<{'const ' if p.access == 'in' else ''}{p.elem.cxx}, "  # type: ignore[union-attr]
                f"{p.rank}>(task->io[{tensor}].region)"
            )
            tensor += 1
        else:
            field = scalar(p.type_)[1]  # type: ignore[index]
            value = f"task->args[{slot}].{field}"
            args.append(f"pto::wsp::f16_from_bits({value})" if field == "f16" else value)
            slot += 1
    call_args = "".join(f"\n      {a}," for a in args).rstrip(",")
    return f"""\
// Generated by pto-wsp (lowering/ascend): the AICore entry of kernel @{kernel.name}
// (unit {kernel.unit}; built for {_CORES[kernel.build_unit]}).
#include "kernels/{kernel.cname}.h"

extern "C" __global__ __aicore__ void {kernel.cname}_wrapper(GM_ADDR task_gm) {{
  __gm__ const pto::wsp::TaskNodePod* task =
      reinterpret_cast<__gm__ const pto::wsp::TaskNodePod*>(task_gm);
  {kernel.cname}({call_args});
}}
"""


def kernel_body(kernel: Kernel) -> str:
    """kernels/<k>_body.cpp: the kernel's body, after its declaration."""
    head = f"""\
// Generated by pto-wsp (lowering/ascend): the body of kernel @{kernel.name}.
#include "kernels/{kernel.cname}.h"
"""
    if kernel.body is None:
        return (
            head
            + f"""
// No Ascend body was given (impls = {{ascend = ...}}): an empty stub (stub-kernels=true).
__aicore__ {kernel.signature()} {{}}
"""
        )
    if not kernel.body_origin:  # emitted from the kernel's tile function
        return head + kernel.body
    origin = kernel.body_origin.replace("\\", "/").replace('"', "'")
    return head + f'#line 1 "{origin}"\n' + kernel.body + _instance_forwarder(kernel)


def _instance_forwarder(kernel: Kernel) -> str:
    """An instance of a generic kernel calls the body's function template named as the generic
    kernel (``template <class X, class Y> void scale(X x, Y y, float alpha)``), one
    instantiation per signature; ``<>`` picks the template even when the names agree."""
    source = kernel.op.instance_of
    if source is None:
        return ""
    args = ", ".join(p.name for p in kernel.params)
    return (
        f"\n// The instance @{kernel.name} of the generic kernel @{source.data}.\n"
        f"__aicore__ {kernel.signature()} {{ {identifier(source.data)}<>({args}); }}\n"
    )


def aicore_dispatch_cpp() -> str:
    """aicore_dispatch.cpp: one switch over the kernel list (seed 004 §6.5's X-macro)."""
    return """\
// Generated by pto-wsp (lowering/ascend): the AICore dispatch. The runtime hands each task's
// descriptor to pto_wsp_aicore_dispatch, which calls the kernel's wrapper by id. Built once
// per core type: with PTO_WSP_AIV (vector cores) it holds the Vector and Both kernels, with
// PTO_WSP_AIC (cube cores) the Cube and Both kernels; the host build holds all.
#include "kernel_ids.h"
#include "pto_wsp/aicore.h"
#include "task_abi.h"

#if defined(PTO_WSP_AIV)
#define PTO_WSP_UNIT_Vector(x) x
#define PTO_WSP_UNIT_Cube(x)
#elif defined(PTO_WSP_AIC)
#define PTO_WSP_UNIT_Vector(x)
#define PTO_WSP_UNIT_Cube(x) x
#else
#define PTO_WSP_UNIT_Vector(x) x
#define PTO_WSP_UNIT_Cube(x) x
#endif
#define PTO_WSP_UNIT_Both(x) x

#define PTO_WSP_DECLARE_WRAPPER(id, name, unit, scalars, tensors) \\
  PTO_WSP_UNIT_##unit(extern "C" __global__ __aicore__ void name##_wrapper(GM_ADDR task_gm);)
KERNEL_LIST(PTO_WSP_DECLARE_WRAPPER)
#undef PTO_WSP_DECLARE_WRAPPER

extern "C" __global__ __aicore__ void pto_wsp_aicore_dispatch(GM_ADDR task_gm) {
  __gm__ const pto::wsp::TaskNodePod* task =
      reinterpret_cast<__gm__ const pto::wsp::TaskNodePod*>(task_gm);
  switch (task->kernel) {
#define DISPATCH_CASE(id, name, unit, scalars, tensors) \\
  PTO_WSP_UNIT_##unit(case id : name##_wrapper(task_gm); break;)
    KERNEL_LIST(DISPATCH_CASE)
#undef DISPATCH_CASE
    default:
      break;
  }
}
"""
