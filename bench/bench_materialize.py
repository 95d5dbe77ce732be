"""Materialization end to end: wsp workload -> wsp-to-tg -> Python -> GraphBuilder -> graph.

Issue 4's scale goal: lowering time independent of the task count, and materializing a
100k-task workload in seconds, not minutes. The workload is a two-stage per-(b, h, t) tile
computation (a producer stage, then a consumer stage reading what it wrote: one RAW edge per
tile) in a sequential, so ordering points, barriers and the TensorMap are all exercised.

    python3 bench/bench_materialize.py [--tasks 100000]

Prints, in one run: the lowering time for 10 and for the requested number of tasks (same IR),
the materialization time and rate (tg-materialize: the reference's graph, task by task),
next to the anchors (the issue's "seconds, not minutes"
and the 5,000 tasks/ms that pto-isa-lh, a C runtime of this design, reports for graph build).
"""

from __future__ import annotations

import argparse
import time

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.parser import Parser

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.tg import TG, ProgramOp
from pto_wsp.dialects.wsp import WSP
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.runtime.graph import gc_paused
from pto_wsp.runtime.materialize import materialize

WORKLOAD = """
wsp.kernel @produce(b: index, h: index, t: index, y: out memref<64xf32>) unit(vector)
wsp.kernel @consume(b: index, h: index, t: index, x: in memref<64xf32>, y: out memref<64xf32>) unit(cube)
wsp.workload @layer(%batch: index, %T: memref<?x8x?x64xf32>, %U: memref<?x8x?x64xf32>, %tiles: index) {
  %bs = wsp.dense_dyn %batch
  %hs = wsp.dense 8
  %ts = wsp.dense_dyn %tiles
  wsp.sequential {
    wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
      wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
        wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {
          %y = wsp.view %T[%b, %h, %t] : memref<?x8x?x64xf32> -> memref<64xf32>
          wsp.task @produce(%b, %h, %t : index, index, index) resources(%y : memref<64xf32>)
        }
      }
    }
    wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
      wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
        wsp.parallel_for %t in %ts named("t") : !wsp.dense_dyn {
          %x = wsp.view %T[%b, %h, %t] : memref<?x8x?x64xf32> -> memref<64xf32>
          %y = wsp.view %U[%b, %h, %t] : memref<?x8x?x64xf32> -> memref<64xf32>
          wsp.task @consume(%b, %h, %t : index, index, index) resources(%x, %y : memref<64xf32>, memref<64xf32>)
        }
      }
    }
  }
}
"""


def lowered() -> tuple[builtin.ModuleOp, ProgramOp, float]:
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    module = Parser(ctx, WORKLOAD).parse_module()
    start = time.perf_counter()
    WspToTgPass().apply(ctx, module)
    seconds = time.perf_counter() - start
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return module, program, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    args = parser.parse_args()
    batch = 4
    tiles = max(1, args.tasks // (2 * batch * 8))
    module, program, lower_s = lowered()
    sizes = {op.name for op in module.walk()}
    print(
        f"lowering wsp-to-tg: {lower_s * 1000:.1f} ms for a program of {len(sizes)} op kinds "
        "(independent of the task count: the IR has no per-task op)"
    )
    start = time.perf_counter()
    with gc_paused():
        graph = materialize(module, program, {"batch": batch, "tiles": tiles})
    seconds = time.perf_counter() - start
    rate = graph.num_tasks / (seconds * 1000)
    print(
        f"materialize, task by task: {graph.num_tasks:,} tasks, {graph.num_nodes:,} nodes, "
        f"{graph.num_edges:,} edges in {seconds:.2f} s = {rate:,.1f} tasks/ms"
    )
    print(
        "anchor (issue 4): 100k tasks in seconds, not minutes -> "
        + ("met" if seconds < 60 else "NOT met")
    )
    print(f"anchor (pto-isa-lh C runtime graph build): 5,000 tasks/ms -> {rate / 5000:.1%} of it")


if __name__ == "__main__":
    main()
