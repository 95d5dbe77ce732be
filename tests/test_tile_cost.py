"""Derived costs: a tile kernel without ``cost`` takes its cycles from the cost model of its
tile ops (passes/pto_cost.py), in the simulator's makespan, ``Stats.kernel_cycles`` and the
trace (issue 23, item 4)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, Float16Type, Float32Type, ModuleOp
from xdsl.dialects.func import Func, FuncOp
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.parser import Parser

from pto_wsp.dialects.pto import PTO, TileType
from pto_wsp.dialects.wsp import WSP
from pto_wsp.lowering.cpu.backend import compile_cpu_sim
from pto_wsp.passes.pto_cost import function_cycles, matmul_cycles

KERNEL = """
  wsp.kernel @softmax(x: in memref<16x16xf32>, y: out memref<16x16xf32>) unit(vector) attributes {tile = @softmax_tile}
  func.func @softmax_tile(%x: memref<16x16xf32>, %y: memref<16x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
    %t = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
    %m = pto.row_max %t : !pto.tile<16x16xf32, vec> -> !pto.tile<16x1xf32, vec>
    %e = pto.row_expand_exp_sub %t, %m : !pto.tile<16x16xf32, vec>, !pto.tile<16x1xf32, vec>
    pto.store %e, %y : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
    func.return
  }
  wsp.kernel @fixed(x: in memref<16x16xf32>, y: out memref<16x16xf32>) unit(vector) cost(7) attributes {tile = @softmax_tile}
"""

# Four tasks, on one worker: one after the other.
WORKLOAD = """
  wsp.workload @w(%X: memref<16x16xf32>) {
    %0 = wsp.dense 4
    wsp.parallel_for %i in %0 named("i") : !wsp.dense<4> {
      wsp.task @KERNEL() resources(%X, %X : memref<16x16xf32>, memref<16x16xf32>)
    }
  }
"""


def module(kernel: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, MemRef, Scf, WSP, PTO):
        ctx.load_dialect(dialect)
    text = "builtin.module {" + KERNEL + WORKLOAD.replace("KERNEL", kernel) + "}"
    return Parser(ctx, text).parse_module()


def tile_function(m: ModuleOp) -> FuncOp:
    return next(f for f in m.ops if isinstance(f, FuncOp))


@pytest.fixture(scope="module")
def derived():
    m = module("softmax")
    cycles = function_cycles(tile_function(m))
    program = compile_cpu_sim(m, mode="cycles", workers=1)
    program.bind(X=np.zeros((16, 16), np.float32)).execute()
    return program, cycles


def test_the_model_gives_the_kernel_cycles():
    # 16x16xf32 (1 KB): load ceil(1024 / 54.54) = 19; row_max 0.1094 * 256 + 32 = 60;
    # exp_sub: expand 0.2187 * 256 + 37 = 93, sub 0.0313 * 256 + 26 = 34, exp 0.0314 * 256
    # + 31 = 39; store ceil(1024 / 101.87) = 11.
    assert function_cycles(tile_function(module("softmax"))) == 19 + 60 + 93 + 34 + 39 + 11


def test_matmul_counts_fractals():
    f16, f32 = Float16Type(), Float32Type()
    assert matmul_cycles(TileType((64, 64), f16, "left"), TileType((64, 64), f16, "right")) == 70
    assert matmul_cycles(TileType((64, 64), f32, "left"), TileType((64, 64), f32, "right")) == 262
    # A part of a fractal costs a whole one.
    assert matmul_cycles(TileType((17, 16), f16, "left"), TileType((16, 16), f16, "right")) == 8


def test_makespan_is_the_model_s_cycles_per_task(derived):
    program, cycles = derived
    stats = program.stats()
    assert stats.makespan_cycles == 4 * cycles
    assert stats.kernel_cycles == {"softmax": cycles}


def test_the_trace_says_the_cost_is_derived(derived):
    program, cycles = derived
    tasks = [e for e in program.trace()["traceEvents"] if e.get("cat") == "task"]
    assert len(tasks) == 4
    assert all(e["args"]["cycles"] == cycles for e in tasks)
    assert all(e["args"]["cost"] == "derived from its tile ops" for e in tasks)


def test_a_written_cost_wins():
    program = compile_cpu_sim(module("fixed"), mode="cycles", workers=1)
    program.bind(X=np.zeros((16, 16), np.float32)).execute()
    assert program.stats().makespan_cycles == 4 * 7
    assert "fixed" not in program.stats().kernel_cycles
