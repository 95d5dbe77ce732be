"""Tile kernels on the Ascend target: AICore bodies emitted from the kernels' tile functions as
C++ against pto_wsp/tile.h, built with g++ -Wall -Werror (once for the module) and run on the
host runtime; each op family's kernel checked against numpy.

The tile functions are written by hand in MLIR; every kernel gets a workload ``w_<kernel>``
that runs one task per batch entry ``b`` on the ``b``-th slice of each tensor.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f32, parallel_for
from pto_wsp import tile as pl
from pto_wsp.dialects import wsp
from pto_wsp.errors import CompileError
from pto_wsp.lowering.ascend import (
    AscendEmitError,
    AscendProgram,
    ExecutionError,
    compile_module,
)
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.tools.diagnostics import parse_located

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

INCORE = "attributes {pto.func_type = #pto.func_type<incore>}"
V816 = "!pto.tile<8x16xf32, vec>"
M816 = "memref<8x16xf32>"

#: kernel name -> (its wsp.kernel parameters, the workload's scalar arguments, its tile body).
KERNELS: dict[str, tuple[str, str, str]] = {}


def kernel(name: str, params: str, body: str, scalars: str = "") -> None:
    KERNELS[name] = (params, scalars, body)


kernel(
    "binary",
    f"a: in {M816}, b: in {M816}, o: out {M816}",
    f"""
  %c3 = arith.constant 3.0 : f32
  %c1 = arith.constant 1.0 : f32
  %ta = pto.load %a : {M816} -> {V816}
  %tb = pto.load %b : {M816} -> {V816}
  %s = pto.add %ta, %tb : {V816}
  %m = pto.mul %s, %ta : {V816}
  %d = pto.sub %m, %tb : {V816}
  %x = pto.max %d, %ta : {V816}
  %b3 = pto.adds %tb, %c3 : {V816}, f32
  %n = pto.min %x, %b3 : {V816}
  %bb = pto.mul %tb, %tb : {V816}
  %den = pto.adds %bb, %c1 : {V816}, f32
  %q = pto.div %n, %den : {V816}
  pto.store %q, %o : {V816}, {M816}
""",
)

kernel(
    "scalars",
    f"x: in {M816}, o: out {M816}, s: f32",
    f"""
  %half = arith.constant 0.5 : f32
  %four = arith.constant 4.0 : f32
  %lo = arith.constant -0.25 : f32
  %hi = arith.constant 0.75 : f32
  %t = pto.load %x : {M816} -> {V816}
  %t1 = pto.adds %t, %s : {V816}, f32
  %t2 = pto.subs %t1, %half : {V816}, f32
  %t3 = pto.muls %t2, %s : {V816}, f32
  %t4 = pto.divs %t3, %four : {V816}, f32
  %t5 = pto.maxs %t4, %lo : {V816}, f32
  %t6 = pto.mins %t5, %hi : {V816}, f32
  pto.store %t6, %o : {V816}, {M816}
""",
    scalars="f32 = 1.5",
)

kernel(
    "unary",
    f"x: in {M816}, o1: out {M816}, o2: out {M816}",
    f"""
  %one = arith.constant 1.0 : f32
  %c12 = arith.constant 1.2 : f32
  %t = pto.load %x : {M816} -> {V816}
  %e = pto.exp %t : {V816}
  %l = pto.log %t : {V816}
  %s = pto.sqrt %t : {V816}
  %r = pto.rsqrt %t : {V816}
  %i = pto.recip %t : {V816}
  %a1 = pto.add %e, %l : {V816}
  %a2 = pto.add %a1, %s : {V816}
  %a3 = pto.add %a2, %r : {V816}
  %a4 = pto.add %a3, %i : {V816}
  pto.store %a4, %o1 : {V816}, {M816}
  %u = pto.subs %t, %one : {V816}, f32
  %n = pto.neg %u : {V816}
  %rl = pto.relu %n : {V816}
  %w = pto.subs %t, %c12 : {V816}, f32
  %ab = pto.abs %w : {V816}
  %sum = pto.add %rl, %ab : {V816}
  pto.store %sum, %o2 : {V816}, {M816}
""",
)

MASK = "!pto.tile<8x16xi1, vec>"
I816 = "!pto.tile<8x16xi32, vec>"
kernel(
    "select",
    f"a: in {M816}, b: in {M816}, o: out {M816}, i: out memref<8x16xi32>",
    f"""
  %zero = arith.constant 0.0 : f32
  %ten = arith.constant 10.0 : f32
  %ta = pto.load %a : {M816} -> {V816}
  %tb = pto.load %b : {M816} -> {V816}
  %m = pto.cmp lt %ta, %tb : {V816}, {V816} -> {MASK}
  %s = pto.sel %m, %ta, %tb : {MASK}, {V816}
  %m2 = pto.cmps gt %s, %zero : {V816}, f32 -> {MASK}
  %z = pto.full %zero : f32 -> {V816}
  %r = pto.sel %m2, %s, %z : {MASK}, {V816}
  pto.store %r, %o : {V816}, {M816}
  %a10 = pto.muls %ta, %ten : {V816}, f32
  %ai = pto.cast %a10 : {V816} -> {I816}
  pto.store %ai, %i : {I816}, memref<8x16xi32>
""",
)

ROW, COL = "!pto.tile<8x1xf32, vec>", "!pto.tile<1x16xf32, vec>"
MROW, MCOL = "memref<8x1xf32>", "memref<1x16xf32>"
kernel(
    "reduce",
    f"x: in {M816}, rs: out {MROW}, rmax: out {MROW}, rmin: out {MROW}, "
    f"cs: out {MCOL}, cmax: out {MCOL}, cmin: out {MCOL}",
    f"""
  %t = pto.load %x : {M816} -> {V816}
""" + "".join(
        f"""  %{axis}{op} = pto.{axis}_{op} %t : {V816} -> {ROW if axis == "row" else COL}
  pto.store %{axis}{op}, %{out} : {ROW if axis == "row" else COL}, {MROW if axis == "row" else MCOL}
"""
        for axis, op, out in (
            ("row", "sum", "rs"), ("row", "max", "rmax"), ("row", "min", "rmin"),
            ("col", "sum", "cs"), ("col", "max", "cmax"), ("col", "min", "cmin"),
        )
    ),
)  # fmt: skip

kernel(
    "expand",
    f"x: in {M816}, v: in {MCOL}, o1: out {M816}, o2: out {M816}",
    f"""
  %t = pto.load %x : {M816} -> {V816}
  %tv = pto.load %v : {MCOL} -> {COL}
  %mx = pto.row_max %t : {V816} -> {ROW}
  %e = pto.row_expand_exp_sub %t, %mx : {V816}, {ROW}
  %sm = pto.row_sum %e : {V816} -> {ROW}
  %p = pto.row_expand_div %e, %sm : {V816}, {ROW}
  pto.store %p, %o1 : {V816}, {M816}
  %mn = pto.row_min %t : {V816} -> {ROW}
  %r1 = pto.row_expand_sub %t, %mn : {V816}, {ROW}
  %r2 = pto.row_expand_add %r1, %mx : {V816}, {ROW}
  %r3 = pto.row_expand_mul %r2, %mx : {V816}, {ROW}
  %r4 = pto.row_expand_max %r3, %mn : {V816}, {ROW}
  %r5 = pto.row_expand_min %r4, %mx : {V816}, {ROW}
  %c1 = pto.col_expand_add %r5, %tv : {V816}, {COL}
  %c2 = pto.col_expand_mul %c1, %tv : {V816}, {COL}
  %c3 = pto.col_expand_sub %c2, %tv : {V816}, {COL}
  %c4 = pto.col_expand_max %c3, %tv : {V816}, {COL}
  %c5 = pto.col_expand_min %c4, %tv : {V816}, {COL}
  %c6 = pto.col_expand_div %c5, %tv : {V816}, {COL}
  %c7 = pto.col_expand_exp_sub %c6, %tv : {V816}, {COL}
  %bx = pto.row_expand %mx : {ROW} -> {V816}
  %bv = pto.col_expand %tv : {COL} -> {V816}
  %s1 = pto.add %c7, %bx : {V816}
  %s2 = pto.add %s1, %bv : {V816}
  pto.store %s2, %o2 : {V816}, {M816}
""",
)


def tile_t(shape: str, space: str, elem: str = "f32") -> str:
    return f"!pto.tile<{shape}x{elem}, {space}>"


kernel(
    "matmul",
    "a: in memref<16x32xf32>, b: in memref<32x16xf32>, c: out memref<16x16xf32>",
    f"""
  %la = pto.load %a : memref<16x32xf32> -> {tile_t("16x32", "mat")}
  %lb = pto.load %b : memref<32x16xf32> -> {tile_t("32x16", "mat")}
  %l = pto.move %la : {tile_t("16x32", "mat")} -> {tile_t("16x32", "left")}
  %r = pto.move %lb : {tile_t("32x16", "mat")} -> {tile_t("32x16", "right")}
  %acc = pto.matmul %l, %r : {tile_t("16x32", "left")}, {tile_t("32x16", "right")} -> {tile_t("16x16", "acc")}
  %v = pto.move %acc : {tile_t("16x16", "acc")} -> {tile_t("16x16", "vec")}
  pto.store %v, %c : {tile_t("16x16", "vec")}, memref<16x16xf32>
""",
)

# K in chunks of 16 through scf.for with the accumulator carried (pto.matmul_acc), loads at
# offsets, then the bias added by a last pto.matmul_bias of a zero chunk.
A, L, R, C16 = (tile_t("16x16", s) for s in ("mat", "left", "right", "acc"))
kernel(
    "matmul_k",
    "a: in memref<16x64xf32>, b: in memref<64x16xf32>, bias: in memref<1x16xf32>, "
    "c: out memref<16x16xf32>",
    f"""
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a0 = pto.load %a[%c0, %c0] : memref<16x64xf32> -> {A}
  %b0 = pto.load %b[%c0, %c0] : memref<64x16xf32> -> {A}
  %l0 = pto.move %a0 : {A} -> {L}
  %r0 = pto.move %b0 : {A} -> {R}
  %zero = arith.constant 0.0 : f32
  %zv = pto.full %zero : f32 -> {tile_t("16x16", "vec")}
  %bm = pto.load %bias : memref<1x16xf32> -> {tile_t("1x16", "mat")}
  %bt = pto.move %bm : {tile_t("1x16", "mat")} -> {tile_t("1x16", "bias")}
  %init = pto.matmul_bias %l0, %r0, %bt : {L}, {R}, {tile_t("1x16", "bias")} -> {C16}
  %acc = scf.for %k = %c16 to %c64 step %c16 iter_args(%sum = %init) -> ({C16}) {{
    %ak = pto.load %a[%c0, %k] : memref<16x64xf32> -> {A}
    %bk = pto.load %b[%k, %c0] : memref<64x16xf32> -> {A}
    %lk = pto.move %ak : {A} -> {L}
    %rk = pto.move %bk : {A} -> {R}
    %next = pto.matmul_acc %sum, %lk, %rk : {L}, {R} -> {C16}
    scf.yield %next : {C16}
  }}
  %v = pto.move %acc : {C16} -> {tile_t("16x16", "vec")}
  pto.store %v, %c : {tile_t("16x16", "vec")}, memref<16x16xf32>
""",
)

kernel(
    "transpose",
    f"x: in {M816}, o: out memref<16x8xf32>",
    f"""
  %t = pto.load %x : {M816} -> {V816}
  %u = pto.transpose %t : {V816} -> !pto.tile<16x8xf32, vec>
  pto.store %u, %o : !pto.tile<16x8xf32, vec>, memref<16x8xf32>
""",
)

# A loop's carried tile transposed three times: planned, the transpose cannot write over the
# tile it reads, so pto-plan-memory gives it a buffer of its own and copies it back.
S8 = tile_t("8x8", "vec")
kernel(
    "transpose_loop",
    "x: in memref<8x8xf32>, o: out memref<8x8xf32>",
    f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %t = pto.load %x : memref<8x8xf32> -> {S8}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t) -> ({S8}) {{
    %b = pto.transpose %a : {S8} -> {S8}
    scf.yield %b : {S8}
  }}
  pto.store %r, %o : {S8}, memref<8x8xf32>
""",
)

# Entry b loads its first b % 8 + 1 rows (a runtime valid shape), pads the rest with 0 and
# scales by 2 (b even) or 3 (b odd) through scf.if with a tile result.
VALID = "!pto.tile<8x16xf32, vec, valid = [?, 16]>"
kernel(
    "valid",
    f"x: in {M816}, o: out {M816}, rs: out {MROW}, b: index",
    f"""
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : index
  %m = arith.remsi %b, %c8 : index
  %rows = arith.addi %m, %c1 : index
  %t = pto.load %x valid(%rows) : {M816} -> {VALID}
  %fz = arith.constant 0.0 : f32
  %p = pto.fillpad %t, %fz : {VALID}, f32 -> {V816}
  %parity = arith.remsi %b, %c2 : index
  %even = arith.cmpi eq, %parity, %zero : index
  %s = scf.if %even -> ({V816}) {{
    %two = arith.constant 2.0 : f32
    %y = pto.muls %p, %two : {V816}, f32
    scf.yield %y : {V816}
  }} else {{
    %three = arith.constant 3.0 : f32
    %y = pto.muls %p, %three : {V816}, f32
    scf.yield %y : {V816}
  }}
  pto.store %s, %o : {V816}, {M816}
  %r = pto.row_sum %t : {VALID} -> !pto.tile<8x1xf32, vec, valid = [?, 1]>
  pto.store %r, %rs : !pto.tile<8x1xf32, vec, valid = [?, 1]>, {MROW}
""",
    scalars="b",
)

H816 = "!pto.tile<8x16xf16, vec>"
kernel(
    "half",
    "x: in memref<8x16xf16>, o: out memref<8x16xf16>, Tile: f16",
    f"""
  %two = arith.constant 2.0 : f32
  %t = pto.load %x : memref<8x16xf16> -> {H816}
  %f = pto.cast %t : {H816} -> {V816}
  %g = pto.muls %f, %two : {V816}, f32
  %h = pto.cast %g : {V816} -> {H816}
  %Space = pto.adds %h, %Tile : {H816}, f16
  pto.store %Space, %o : {H816}, memref<8x16xf16>
""",
    scalars="f16 = 0.5",
)

kernel(
    "sync",
    "x: in memref<16xf32>, o: out memref<16xf32>",
    """
  %one = arith.constant 1.0 : f32
  %t = pto.load %x : memref<16xf32> -> !pto.tile<16xf32, vec>
  pto.set_flag MTE2 -> V, 0
  pto.wait_flag MTE2 -> V, 0
  %u = pto.adds %t, %one : !pto.tile<16xf32, vec>, f32
  pto.set_flag V -> MTE3, 1
  pto.wait_flag V -> MTE3, 1
  pto.barrier ALL
  pto.store %u, %o : !pto.tile<16xf32, vec>, memref<16xf32>
""",
)

# Two instances of one generic kernel @scale, each with its own tile function.
for _shape in ("8x16", "4x4"):
    _m, _t = f"memref<{_shape}xf32>", f"!pto.tile<{_shape}xf32, vec>"
    kernel(
        f"scale_{_shape}",
        f"x: in {_m}, y: out {_m}",
        f"""
  %k = arith.constant 3.0 : f32
  %t = pto.load %x : {_m} -> {_t}
  %u = pto.muls %t, %k : {_t}, f32
  pto.store %u, %y : {_t}, {_m}
""",
    )


# RMSNorm with a residual over two 8 x 16 blocks of a rank-3 view: a loop without carried
# values, loads and stores at offsets of all three dimensions, 8 x 1 tile arithmetic.
M3 = "memref<2x8x16xf32>"
kernel(
    "rmsnorm",
    f"x: in {M3}, res: in {M3}, w: in {MCOL}, h: out {M3}, y: out {M3}",
    f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cols = arith.constant 16.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %tw = pto.load %w : {MCOL} -> {COL}
  scf.for %i = %c0 to %c2 step %c1 {{
    %tx = pto.load %x[%i, %c0, %c0] : {M3} -> {V816}
    %tr = pto.load %res[%i, %c0, %c0] : {M3} -> {V816}
    %th = pto.add %tx, %tr : {V816}
    pto.store %th, %h[%i, %c0, %c0] : {V816}, {M3}
    %sq = pto.mul %th, %th : {V816}
    %ss = pto.row_sum %sq : {V816} -> {ROW}
    %ms = pto.divs %ss, %cols : {ROW}, f32
    %me = pto.adds %ms, %eps : {ROW}, f32
    %rr = pto.rsqrt %me : {ROW}
    %n = pto.row_expand_mul %th, %rr : {V816}, {ROW}
    %o = pto.col_expand_mul %n, %tw : {V816}, {COL}
    pto.store %o, %y[%i, %c0, %c0] : {V816}, {M3}
  }}
""",
)

# int8 x int8 -> int32 on the cube.
kernel(
    "matmul_i8",
    "a: in memref<16x32xi8>, b: in memref<32x16xi8>, c: out memref<16x16xi32>",
    f"""
  %la = pto.load %a : memref<16x32xi8> -> {tile_t("16x32", "mat", "i8")}
  %lb = pto.load %b : memref<32x16xi8> -> {tile_t("32x16", "mat", "i8")}
  %l = pto.move %la : {tile_t("16x32", "mat", "i8")} -> {tile_t("16x32", "left", "i8")}
  %r = pto.move %lb : {tile_t("32x16", "mat", "i8")} -> {tile_t("32x16", "right", "i8")}
  %acc = pto.matmul %l, %r : {tile_t("16x32", "left", "i8")}, {tile_t("32x16", "right", "i8")} -> {tile_t("16x16", "acc", "i32")}
  pto.store %acc, %c : {tile_t("16x16", "acc", "i32")}, memref<16x16xi32>
""",
)


# Integer division by zero and MIN / -1: numpy's values, not a trap (as the CPU numerics).
I48, IM48, IR4 = "!pto.tile<4x8xi32, vec>", "memref<4x8xi32>", "!pto.tile<4x1xi32, vec>"
kernel(
    "idiv",
    f"x: in {IM48}, y: in {IM48}, v: in memref<4x1xi32>, o: out {IM48}, p: out {IM48}",
    f"""
  %zero = arith.constant 0 : i32
  %tx = pto.load %x : {IM48} -> {I48}
  %ty = pto.load %y : {IM48} -> {I48}
  %tv = pto.load %v : memref<4x1xi32> -> {IR4}
  %q = pto.div %tx, %ty : {I48}
  %z = pto.divs %q, %zero : {I48}, i32
  %s = pto.add %q, %z : {I48}
  pto.store %s, %o : {I48}, {IM48}
  %e = pto.row_expand_div %tx, %tv : {I48}, {IR4}
  pto.store %e, %p : {I48}, {IM48}
""",
)


# Faults the host reports as the task's error: entry b loads b + 3 rows of a 4-row view; a
# wait_flag with no set_flag before it.
kernel(
    "outside",
    "x: in memref<4x16xf32>, o: out memref<4x16xf32>, b: index",
    """
  %c3 = arith.constant 3 : index
  %rows = arith.addi %b, %c3 : index
  %t = pto.load %x valid(%rows) : memref<4x16xf32> -> !pto.tile<8x16xf32, vec, valid = [?, 16]>
  pto.store %t, %o : !pto.tile<8x16xf32, vec, valid = [?, 16]>, memref<4x16xf32>
""",
    scalars="b",
)
kernel(
    "unset_flag",
    "x: in memref<16xf32>",
    """
  pto.wait_flag V -> MTE3, 2
""",
)


# A kernel with a tile function and an Ascend body: the body wins on Ascend.
kernel(
    "override",
    f"x: in {M816}, y: out {M816}",
    f"""
  %t = pto.load %x : {M816} -> {V816}
  pto.store %t, %y : {V816}, {M816}
""",
)
OVERRIDE = """\
__aicore__ void override(pto::wsp::GmTensor<const float, 2> x, pto::wsp::GmTensor<float, 2> y) {
  for (int64_t r = 0; r < x.size(0); ++r)
    for (int64_t c = 0; c < x.size(1); ++c) y(r, c) = 5 * x(r, c);
}
"""


def module_text() -> str:
    parts = []
    for name, (params, scalars, body) in KERNELS.items():
        instance = ' instance_of = "scale",' if name.startswith("scale_") else ""
        parts.append(
            f"wsp.kernel @{name}({params}) unit(vector) cost(10) attributes {{{instance} "
            f"tile = @{name}_tile}}"
        )
        args = ", ".join(
            f"%{p.split(':')[0].strip()}: {p.split(':')[1].split()[-1]}" for p in params.split(", ")
        )
        parts.append(f"func.func @{name}_tile({args}) {INCORE} {{{body}  func.return\n}}")
        parts.append(workload(name, params, scalars))
    return "\n".join(parts)


def workload(name: str, params: str, scalars: str) -> str:
    """``w_<name>``: one task per b over the b-th slice of a tensor per parameter."""
    tensors = []
    for p in params.split(", "):
        pname, ptype = p.split(": ")
        if ptype.split()[0] in ("in", "out", "inout"):
            tensors.append((pname, ptype.split()[-1]))
    big = [re.sub(r"memref<", "memref<?x", t) for _, t in tensors]
    args = ", ".join(f"%{n}: {t}" for (n, _), t in zip(tensors, big))
    views = "".join(
        f"    %v_{n} = wsp.view %{n}[%bb] : {bt} -> {t}\n" for (n, t), bt in zip(tensors, big)
    )
    consts, task_scalars = "", ""
    if scalars == "b":
        task_scalars = "%bb : index"
    elif scalars:
        ty, value = scalars.split(" = ")
        consts = f"  %sc = arith.constant {value} : {ty}\n"
        task_scalars = f"%sc : {ty}"
    names = ", ".join(f"%v_{n}" for n, _ in tensors)
    types = ", ".join(t for _, t in tensors)
    return f"""wsp.workload @w_{name}({args}, %n: index) {{
{consts}  %dom = wsp.dense_dyn %n
  wsp.parallel_for %bb in %dom named("b") : !wsp.dense_dyn {{
{views}    wsp.task @{name}({task_scalars}) resources({names} : {types})
  }}
}}"""


def parse(text: str):
    return parse_located(text, "tile_kernels.mlir")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> AscendProgram:
    """One emitted tree and one g++ -Wall -Werror build for every kernel. The target plans
    each tile function's memory and inserts its flags itself (tiles at their pto.addr in one
    buffer per space, buffers reused; pipe flags checked for balance on the host)."""
    module = parse(module_text())
    for op in module.ops:
        if isinstance(op, wsp.KernelOp) and op.sym_name.data == "override":
            op.impls = DictionaryAttr({"ascend": StringAttr(OVERRIDE)})
    out = tmp_path_factory.mktemp("ascend_tile")
    program = compile_module(module, out_dir=out, host=True, program="w_binary")
    assert isinstance(program, AscendProgram)
    return program


N = 4
RNG = np.random.default_rng(23)


def run(built: AscendProgram, name: str, **arrays: np.ndarray) -> None:
    built.for_program(f"w_{name}").execute(**arrays, n=N)


def rand(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return RNG.uniform(low, high, (N, *shape)).astype(np.float32)


def test_binary(built):
    a, b, o = rand(8, 16), rand(8, 16), np.zeros((N, 8, 16), np.float32)
    run(built, "binary", a=a, b=b, o=o)
    want = np.minimum(np.maximum((a + b) * a - b, a), b + 3) / (b * b + 1)
    np.testing.assert_allclose(o, want, rtol=1e-6)


def test_scalars(built):
    x, o = rand(8, 16), np.zeros((N, 8, 16), np.float32)
    run(built, "scalars", x=x, o=o)
    want = np.clip((x + 1.5 - 0.5) * 1.5 / 4.0, -0.25, 0.75)
    np.testing.assert_allclose(o, want, rtol=1e-6)


def test_unary(built):
    x = rand(8, 16, low=0.5, high=2.0)
    o1, o2 = np.zeros_like(x), np.zeros_like(x)
    run(built, "unary", x=x, o1=o1, o2=o2)
    want1 = np.exp(x) + np.log(x) + np.sqrt(x) + 1 / np.sqrt(x) + 1 / x
    np.testing.assert_allclose(o1, want1, rtol=1e-5)
    np.testing.assert_allclose(o2, np.maximum(1 - x, 0) + np.abs(x - np.float32(1.2)), rtol=1e-5)


def test_compare_select_cast(built):
    a, b = rand(8, 16), rand(8, 16)
    o, i = np.zeros_like(a), np.zeros((N, 8, 16), np.int32)
    run(built, "select", a=a, b=b, o=o, i=i)
    np.testing.assert_array_equal(o, np.maximum(np.minimum(a, b), 0))
    np.testing.assert_array_equal(i, np.rint(a * np.float32(10)).astype(np.int32))


def test_reductions(built):
    x = rand(8, 16)
    outs = {k: np.zeros((N, 8, 1), np.float32) for k in ("rs", "rmax", "rmin")}
    outs |= {k: np.zeros((N, 1, 16), np.float32) for k in ("cs", "cmax", "cmin")}
    run(built, "reduce", x=x, **outs)
    for key, fn in (("s", np.sum), ("max", np.max), ("min", np.min)):
        np.testing.assert_allclose(
            outs["r" + key], fn(x, axis=2, keepdims=True), rtol=1e-5, atol=1e-6
        )
        np.testing.assert_allclose(
            outs["c" + key], fn(x, axis=1, keepdims=True), rtol=1e-5, atol=1e-6
        )


def test_expand(built):
    x, v = rand(8, 16), rand(1, 16, low=0.5, high=1.5)
    o1, o2 = np.zeros_like(x), np.zeros_like(x)
    run(built, "expand", x=x, v=v, o1=o1, o2=o2)
    mx, mn = x.max(axis=2, keepdims=True), x.min(axis=2, keepdims=True)
    e = np.exp(x - mx)
    np.testing.assert_allclose(o1, e / e.sum(axis=2, keepdims=True), rtol=1e-5)
    r = np.minimum(np.maximum((x - mn + mx) * mx, mn), mx)
    c = np.exp(np.minimum(np.maximum((r + v) * v - v, v), v) / v - v)
    np.testing.assert_allclose(o2, c + mx + v, rtol=1e-5)


def test_matmul(built):
    a, b = rand(16, 32), rand(32, 16)
    c = np.zeros((N, 16, 16), np.float32)
    run(built, "matmul", a=a, b=b, c=c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_matmul_accumulate_bias_loop(built):
    a, b, bias = rand(16, 64), rand(64, 16), rand(1, 16)
    c = np.zeros((N, 16, 16), np.float32)
    run(built, "matmul_k", a=a, b=b, bias=bias, c=c)
    np.testing.assert_allclose(c, a @ b + bias, rtol=1e-5, atol=1e-5)


def test_transpose(built):
    x, o = rand(8, 16), np.zeros((N, 16, 8), np.float32)
    run(built, "transpose", x=x, o=o)
    np.testing.assert_array_equal(o, x.transpose(0, 2, 1))


def test_transpose_of_a_loop_carried_tile(built):
    x, o = rand(8, 8), np.zeros((N, 8, 8), np.float32)
    run(built, "transpose_loop", x=x, o=o)
    np.testing.assert_array_equal(o, x.transpose(0, 2, 1))


def test_valid_shape_fillpad_if(built):
    x = rand(8, 16)
    o, rs = np.full_like(x, 7.0), np.full((N, 8, 1), 7.0, np.float32)
    n = 10
    x = RNG.uniform(-1, 1, (n, 8, 16)).astype(np.float32)
    o, rs = np.full_like(x, 7.0), np.full((n, 8, 1), 7.0, np.float32)
    built.for_program("w_valid").execute(x=x, o=o, rs=rs, n=n)
    for b in range(n):
        rows = b % 8 + 1
        padded = np.where(np.arange(8)[:, None] < rows, x[b], 0)
        np.testing.assert_allclose(o[b], padded * (2 if b % 2 == 0 else 3), rtol=1e-6)
        np.testing.assert_allclose(rs[b, :rows, 0], x[b, :rows].sum(axis=1), rtol=1e-5, atol=1e-6)
        assert (rs[b, rows:] == 7.0).all()  # past the valid rows: not stored


def test_f16_and_reserved_names(built):
    """f16 tiles and an f16 scalar; values named as tile.h's types (%Tile, %Space) still build."""
    x = rand(8, 16).astype(np.float16)
    o = np.zeros_like(x)
    run(built, "half", x=x, o=o)
    # f16 elements compute in float, rounded at the cast and at the store, as numpy's do here.
    doubled = (x.astype(np.float32) * 2).astype(np.float16)
    np.testing.assert_array_equal(o, (doubled.astype(np.float32) + 0.5).astype(np.float16))


def test_sync_flags_and_1d_tiles(built):
    x, o = rand(16), np.zeros((N, 16), np.float32)
    run(built, "sync", x=x, o=o)
    np.testing.assert_array_equal(o, x + 1)


def test_generic_instances(built):
    for shape in ((8, 16), (4, 4)):
        name = "x".join(map(str, shape))
        x, y = rand(*shape), np.zeros((N, *shape), np.float32)
        run(built, f"scale_{name}", x=x, y=y)
        np.testing.assert_allclose(y, 3 * x, rtol=1e-6)


def test_rmsnorm_residual(built):
    x, res, w = rand(2, 8, 16), rand(2, 8, 16), rand(1, 16)
    h, y = np.zeros_like(x), np.zeros_like(x)
    run(built, "rmsnorm", x=x, res=res, w=w, h=h, y=y)
    want_h = x + res
    rms = np.sqrt((want_h * want_h).mean(axis=-1, keepdims=True) + np.float32(1e-5))
    np.testing.assert_allclose(h, want_h, rtol=1e-6)
    np.testing.assert_allclose(y, want_h / rms * w[:, None], rtol=1e-5, atol=1e-6)


def test_matmul_int8(built):
    a = RNG.integers(-128, 128, (N, 16, 32), dtype=np.int8)
    b = RNG.integers(-128, 128, (N, 32, 16), dtype=np.int8)
    c = np.zeros((N, 16, 16), np.int32)
    run(built, "matmul_i8", a=a, b=b, c=c)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_integer_division_by_zero_and_overflow_do_not_trap(built):
    least = np.iinfo(np.int32).min
    x = np.where(np.arange(8) % 2 == 0, 7, least).astype(np.int32) * np.ones((N, 4, 1), np.int32)
    y = np.resize(np.array([0, -1, 2], np.int32), (N, 4, 8))
    v = np.resize(np.array([0, -1], np.int32), (N, 4, 1))
    o, p = np.ones((N, 4, 8), np.int32), np.ones((N, 4, 8), np.int32)
    run(built, "idiv", x=x, y=y, v=v, o=o, p=p)
    np.testing.assert_array_equal(o, _trunc_div(x, y))
    np.testing.assert_array_equal(p, _trunc_div(x, np.broadcast_to(v, x.shape)))


def _trunc_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Division truncating toward zero, x / 0 = 0 and MIN / -1 = MIN (numpy's at the edges)."""
    safe = np.where(y == 0, 1, y)
    q = np.abs(x.astype(np.int64)) // np.abs(safe) * np.sign(x) * np.sign(safe)
    return np.where(y == 0, 0, q).astype(np.int32)


def test_tile_outside_its_view_is_the_tasks_error(built):
    x, o = np.ones((3, 4, 16), np.float32), np.zeros((3, 4, 16), np.float32)
    with pytest.raises(
        ExecutionError,
        match=r"outside.*TLOAD: 5 x 16 tile at offset 0 of dimension 0 is outside the view \(size 4\)",
    ):
        built.for_program("w_outside").execute(x=x, o=o, n=3)


def test_wait_without_set_is_the_tasks_error(built):
    with pytest.raises(ExecutionError, match=r"unset_flag.*wait_flag without a set_flag before it"):
        run(built, "unset_flag", x=rand(16))


def test_impls_wins_over_tile_function(built):
    x, y = rand(8, 16), np.zeros((N, 8, 16), np.float32)
    run(built, "override", x=x, y=y)
    np.testing.assert_array_equal(y, 5 * x)


def test_emitted_body_text(built):
    """The body is the tile function's ops, one tile API call each, no stub and no #line; the
    target planned it (tiles in one buffer per space) and synchronized its pipes itself."""
    body = (built.tree.dir / "kernels" / "matmul_k_body.cpp").read_text()
    assert "#line" not in body and "stub" not in body
    for call in ("TLOAD(", "TMOV(", "TMATMUL_BIAS(", "TMATMUL_ACC(", "TSTORE(", "for (int64_t"):
        assert call in body
    for planned in ("uint8_t acc_buffer[", "TileAt<float, Space::Acc", "TWAIT_FLAG(PIPE_MTE1"):
        assert planned in body
    assert built.tree.stubs == ()


def bad_module(body: str, params: str = f"x: in {M816}") -> str:
    """The kernel @bad with this tile body, and its workload."""
    KERNEL = f"wsp.kernel @bad({params}) unit(vector) cost(1) attributes {{tile = @bad_tile}}"
    args = ", ".join(f"%{p.split(':')[0]}: {p.split()[-1]}" for p in params.split(", "))
    text = f"{KERNEL}\nfunc.func @bad_tile({args}) {INCORE} {{{body}  func.return\n}}\n"
    return text + workload("bad", params, "")


def emit_error(body: str, params: str = f"x: in {M816}") -> str:
    with pytest.raises(AscendEmitError) as info:
        compile_module(parse(bad_module(body, params)))
    return info.value.located()


def test_error_unsupported_op():
    message = emit_error("""
  %c0 = arith.constant 0 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %f = arith.constant false
    scf.condition(%f) %i : index
  } do {
  ^bb0(%j: index):
    scf.yield %j : index
  }
""")
    assert re.search(
        r"tile_kernels.mlir:\d+:\d+: error: scf.while has no Ascend tile C\+\+ form", message
    )


def test_error_tile_view():
    message = emit_error(f"""
  %t = pto.load %x : {M816} -> !pto.tile<8x16xf32, vec, strides = [32, 1]>
""")
    assert "a tile view (strides, offset) is not emitted for Ascend" in message
    assert re.match(r"tile_kernels.mlir:\d+:\d+: error: pto.load", message)


def test_memory_is_planned_for_the_targets_soc():
    """Three 72 KiB tiles live at once overflow the 910B's UB (pto-plan-memory's located
    error, naming the kernel) and fit in the 950's."""
    tile, view = "!pto.tile<128x144xf32, vec>", "memref<128x144xf32>"
    body = f"""
  %t = pto.load %x : {view} -> {tile}
  %u = pto.exp %t : {tile}
  %v = pto.add %t, %u : {tile}
  pto.store %v, %y : {tile}, {view}
"""
    params = f"x: in {view}, y: out {view}"
    message = emit_error(body, params)
    assert re.match(
        r"tile_kernels.mlir:\d+:\d+: error: kernel @bad: pto-plan-memory: tile %v .* does not "
        r"fit in vec: 147456 B live \+ 73728 B need 221184 B at this point, the 910B's UB holds",
        message,
    )
    assert compile_module(parse(bad_module(body, params)), soc="950").stubs == ()


def test_a_plan_by_hand_that_misses_a_tile_is_an_error_at_it():
    """A function already planned (pto.memory) is kept as it is: a tile without pto.addr
    there is an error at the op, not a crash."""
    body = f"""
  %t = pto.load %x : {M816} -> {V816}
  pto.store %t, %y : {V816}, {M816}
"""
    text = bad_module(body, f"x: in {M816}, y: out {M816}").replace(
        INCORE,
        "attributes {pto.func_type = #pto.func_type<incore>, pto.memory = {vec = 512 : i64}}",
    )
    with pytest.raises(AscendEmitError) as info:
        compile_module(parse(text))
    assert re.match(
        r"tile_kernels.mlir:\d+:\d+: error: pto.load: the function's plan \(pto.memory\) does "
        r"not place this tile \(no pto.addr",
        info.value.located(),
    )


def test_python_kernel_overflowing_the_ub_is_one_clear_compile_error():
    """compile(target="ascend") of a Python tile kernel whose tiles do not fit: a CompileError
    at the kernel body's line making the tile, naming the kernel and the tile; the 950's
    larger UB takes it."""

    @pw.kernel
    def big(x: In[f32[128, 144]], y: Out[f32[128, 144]]):
        t = pl.load(x)
        pl.store(t + pl.exp(t), y)

    X, Y = Tensor("X", [2, 128, 144], f32), Tensor("Y", [2, 128, 144], f32)
    w = parallel_for(Dense[2], lambda i: big(X[i], Y[i])).named("w")
    with pytest.raises(CompileError) as info:
        pw.compile(w, target="ascend")
    message = str(info.value)
    assert "\n" not in message
    lines, start = inspect.getsourcelines(big.fn)
    assert info.value.loc.lineno == start + 3  # the pl.store line, where t + ... is made
    assert re.search(
        r"test_ascend_tile.py:\d+: compile: ascend: kernel @big: pto-plan-memory: tile made by "
        r"pto.add "
        r"\(!pto.tile<128x144xf32, vec>, 73728 B\) does not fit in vec: .* the 910B's UB holds 196608 B",
        message,
    ), message
    assert pw.compile(w, target="ascend", soc="950").stubs == ()
