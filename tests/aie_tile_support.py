"""Workloads with tile kernels for the AIE tests, and a JIT that runs an emitted kernel."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from pto_wsp.lowering.aie.emulate import Kernel
from pto_wsp.lowering.aie.lower import _context


@dataclass
class Param:
    """A kernel parameter: a tensor (access, the task's tile shape) or a scalar."""

    name: str
    type: str  # memref element type, or the scalar's type
    access: str = ""  # in / out / inout; "" for a scalar
    shape: tuple[int, ...] = ()
    shard: bool = True  # the tensor is split over the 2 cores along dimension 0
    value: str = ""  # a scalar's constant


def workload(params: list[Param], body: str) -> str:
    """A spatial program of two cores, each running the tile kernel ``@k`` (``body``, the tile
    function's ops) once on its block of every sharded tensor."""
    sig, fn_args, tensors, views, consts, scalars, res = [], [], [], [], [], [], []
    for p in params:
        if not p.access:
            sig.append(f"{p.name}: {p.type}")
            fn_args.append(f"%{p.name}: {p.type}")
            consts.append(f"%s_{p.name} = arith.constant {p.value} : {p.type}")
            scalars.append((f"%s_{p.name}", p.type))
            continue
        tile = "x".join(map(str, p.shape)) + f"x{p.type}"
        full = [p.shape[0] * (2 if p.shard else 1), *p.shape[1:]]
        whole = "x".join(map(str, full)) + f"x{p.type}"
        sig.append(f"{p.name}: {p.access} memref<{tile}>")
        fn_args.append(f"%{p.name}: memref<{tile}>")
        tensors.append(f"%T_{p.name}: memref<{whole}>")
        start = f"%o{p.shape[0]}" if p.shard else "0"
        if p.shard:
            consts.append(f"%c{p.shape[0]} = arith.constant {p.shape[0]} : index")
            consts.append(f"%o{p.shape[0]} = arith.muli %i, %c{p.shape[0]} : index")
        views.append(
            f"%v_{p.name} = wsp.view %T_{p.name}[{start}:+{p.shape[0]}] : "
            f"memref<{whole}> -> memref<{tile}>"
        )
        res.append((f"%v_{p.name}", f"memref<{tile}>"))
    consts = list(dict.fromkeys(consts))
    layouts = "\n".join(
        f'  sched.layout "T_{p.name}" ({"shard(0)" if p.shard else "replicate"}'
        + ", replicate" * (len(p.shape) - 1)
        + ")"
        for p in params
        if p.access
    )
    scalar_part = ""
    if scalars:
        scalar_part = f"{', '.join(n for n, _ in scalars)} : {', '.join(t for _, t in scalars)}"
    return f"""
wsp.kernel @k({", ".join(sig)}) unit(vector) attributes {{tile = @k_tile}}
func.func @k_tile({", ".join(fn_args)}) attributes {{pto.func_type = #pto.func_type<incore>}} {{
{body}
  func.return
}}
wsp.workload @w({", ".join(tensors)}) {{
  %I = wsp.dense 2
  wsp.parallel_for %i in %I named("i") : !wsp.dense<2> {{
    {chr(10).join("    " + c for c in consts)}
    {chr(10).join("    " + v for v in views)}
    wsp.task @k({scalar_part}) resources({", ".join(n for n, _ in res)} : {", ".join(t for _, t in res)})
  }}
}}
sched.schedule @s for @w {{
  sched.spatial_map grid(2)
{layouts}
}}
"""


def parse(text: str) -> ModuleOp:
    return Parser(_context(), text, "test").parse_module()


def kernel_functions(design: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in design.walk() if isinstance(op, func.FuncOp)}


def run(fn: func.FuncOp, args: list) -> None:
    """Run the emitted kernel function on the CPU through upstream MLIR, in place on the
    numpy arrays of ``args`` (scalars: numpy scalars of the parameter's type)."""
    Kernel(fn)(args)
