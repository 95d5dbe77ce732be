"""Tile kernels on AIE: the kernel function gets a body built from its pto IR (upstream
memref/scf/arith/math, no link_with), the design verifies, and the body, compiled by upstream
MLIR and run on the CPU, computes what numpy does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from aie_tile_support import Param, kernel_functions, parse, run, workload
from test_tile_loops import _online_workload
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.utils.exceptions import PassFailedException

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f32, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.dialects import aie, pto, wsp
from pto_wsp.lowering.aie import compile_module
from pto_wsp.lowering.aie.design import kernel_arg_type
from pto_wsp.lowering.aie.kernels import kernel_function
from pto_wsp.lowering.cpu.tile import compile_tile

ROOT = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(7)
V = "!pto.tile<16x32xf32, vec>"
ROW = "!pto.tile<16x1xf32, vec>"
COL = "!pto.tile<1x32xf32, vec>"
M = "memref<16x32xf32>"


def _lower(params, body, device="npu1"):
    design = compile_module(parse(workload(params, body)), device=device)
    design.verify()
    return design


def _data(shape, dtype=np.float32, low=-1.0, high=1.0):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-8, 8, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


ELEMENTWISE = f"""
  %tx = pto.load %x : {M} -> {V}
  %tz = pto.load %z : {M} -> {V}
  %m = pto.muls %tx, %a : {V}, f32
  %s = pto.add %m, %tz : {V}
  %r = pto.relu %s : {V}
  %d = pto.div %r, %tx : {V}
  %n = pto.neg %tz : {V}
  %q = pto.max %d, %n : {V}
  %e = pto.exp %q : {V}
  pto.store %e, %y : {V}, {M}
"""
SOFTMAX = f"""
  %t = pto.load %x : {M} -> {V}
  %m = pto.row_max %t : {V} -> {ROW}
  %e = pto.row_expand_exp_sub %t, %m : {V}, {ROW}
  %s = pto.row_sum %e : {V} -> {ROW}
  %o = pto.row_expand_div %e, %s : {V}, {ROW}
  pto.store %o, %y : {V}, {M}
  pto.store %s, %r : {ROW}, memref<16x1xf32>
"""
COLUMNS = f"""
  %t = pto.load %x : {M} -> {V}
  %c = pto.col_min %t : {V} -> {COL}
  %s = pto.col_expand_sub %t, %c : {V}, {COL}
  %b = pto.col_expand %c : {COL} -> {V}
  %u = pto.add %s, %b : {V}
  %w = pto.sqrt %u : {V}
  pto.store %w, %y : {V}, {M}
  pto.store %c, %r : {COL}, memref<1x32xf32>
"""
MATMUL = """
  %ta = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, mat>
  %tb = pto.load %b : memref<32x8xf32> -> !pto.tile<32x8xf32, mat>
  %la = pto.move %ta : !pto.tile<16x32xf32, mat> -> !pto.tile<16x32xf32, left>
  %rb = pto.move %tb : !pto.tile<32x8xf32, mat> -> !pto.tile<32x8xf32, right>
  %tc = pto.matmul %la, %rb : !pto.tile<16x32xf32, left>, !pto.tile<32x8xf32, right> -> !pto.tile<16x8xf32, acc>
  pto.store %tc, %c : !pto.tile<16x8xf32, acc>, memref<16x8xf32>
"""
MATMUL_I8 = """
  %ta = pto.load %a : memref<8x16xi8> -> !pto.tile<8x16xi8, mat>
  %tb = pto.load %b : memref<16x8xi8> -> !pto.tile<16x8xi8, mat>
  %la = pto.move %ta : !pto.tile<8x16xi8, mat> -> !pto.tile<8x16xi8, left>
  %rb = pto.move %tb : !pto.tile<16x8xi8, mat> -> !pto.tile<16x8xi8, right>
  %p = pto.matmul %la, %rb : !pto.tile<8x16xi8, left>, !pto.tile<16x8xi8, right> -> !pto.tile<8x8xi32, acc>
  %pv = pto.move %p : !pto.tile<8x8xi32, acc> -> !pto.tile<8x8xi32, vec>
  %f = pto.cast %pv : !pto.tile<8x8xi32, vec> -> !pto.tile<8x8xf32, vec>
  %g = pto.muls %f, %s : !pto.tile<8x8xf32, vec>, f32
  %m = pto.cmps gt %f, %s : !pto.tile<8x8xf32, vec>, f32 -> !pto.tile<8x8xi1, vec>
  %h = pto.sel %m, %g, %f : !pto.tile<8x8xi1, vec>, !pto.tile<8x8xf32, vec>
  pto.store %h, %c : !pto.tile<8x8xf32, vec>, memref<8x8xf32>
"""


def _softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    s = e.sum(axis=1, keepdims=True)
    return e / s, s


def _i8_ref(a, b, s):
    f = (a.astype(np.int32) @ b.astype(np.int32)).astype(np.float32)
    return [np.where(f > s, f * s, f)]


CASES = {
    "elementwise": (
        [
            Param("x", "f32", "in", (16, 32)),
            Param("z", "f32", "in", (16, 32)),
            Param("y", "f32", "out", (16, 32)),
            Param("a", "f32", value="5.000000e-01"),
        ],
        ELEMENTWISE,
        lambda x, z, a: [np.exp(np.maximum(np.maximum(x * a + z, 0) / x, -z))],
        lambda: [_data((16, 32), low=0.5, high=2.0), _data((16, 32)), np.float32(0.5)],
    ),
    "row reductions and broadcasts (softmax)": (
        [
            Param("x", "f32", "in", (16, 32)),
            Param("y", "f32", "out", (16, 32)),
            Param("r", "f32", "out", (16, 1)),
        ],
        SOFTMAX,
        _softmax_ref,
        lambda: [_data((16, 32), low=-4, high=4)],
    ),
    "column reductions and broadcasts": (
        [
            Param("x", "f32", "in", (16, 32)),
            Param("y", "f32", "out", (16, 32)),
            Param("r", "f32", "out", (1, 32)),
        ],
        COLUMNS,
        lambda x: [np.sqrt(x), x.min(axis=0, keepdims=True)],
        lambda: [_data((16, 32), low=0.1, high=3.0)],
    ),
    "matmul": (
        [
            Param("a", "f32", "in", (16, 32)),
            Param("b", "f32", "in", (32, 8), shard=False),
            Param("c", "f32", "out", (16, 8)),
        ],
        MATMUL,
        lambda a, b: [a @ b],
        lambda: [_data((16, 32)), _data((32, 8))],
    ),
    "i8 matmul, cast, compare and select": (
        [
            Param("a", "i8", "in", (8, 16)),
            Param("b", "i8", "in", (16, 8), shard=False),
            Param("c", "f32", "out", (8, 8)),
            Param("s", "f32", value="2.000000e+00"),
        ],
        MATMUL_I8,
        _i8_ref,
        lambda: [_data((8, 16), np.int8), _data((16, 8), np.int8), np.float32(2.0)],
    ),
}


@pytest.fixture(scope="module")
def designs():
    return {name: _lower(case[0], case[1]) for name, case in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_tile_kernel_is_a_function_with_a_body(designs, name):
    fn = kernel_functions(designs[name])["k"]
    assert not fn.is_declaration and "link_with" not in fn.attributes
    dialects = {op.name.split(".")[0] for op in fn.walk()} - {"func"}
    assert dialects <= {"arith", "math", "memref", "scf", "vector"}
    calls = [op for op in designs[name].walk() if isinstance(op, func.CallOp)]
    assert len(calls) == 2 and all(c.callee.root_reference.data == "k" for c in calls)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[2] is not None])
def test_emitted_body_computes_what_numpy_does(designs, name):
    params, _, reference, inputs = CASES[name]
    fn = kernel_functions(designs[name])["k"]
    data = inputs()
    arrays = iter(data)
    args, outs = [], []
    for p in params:
        if p.access == "out":
            args.append(np.zeros(p.shape, np.float32))
            outs.append(args[-1])
        elif p.access:
            args.append(next(arrays))
    scalars = [d for d in data if not isinstance(d, np.ndarray)]
    run(fn, args + scalars)
    for got, want in zip(outs, reference(*data), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _vector_types(fn: func.FuncOp) -> set[str]:
    return {str(op.result.type) for op in fn.walk() if isinstance(op, vector.LoadOp)}


def test_rows_that_fit_the_vector_width_are_stored_by_vectors(designs):
    # 16 x 32 f32 rows: two vectors of 16 lanes (512 bits) per row, the scalar broadcast
    elementwise = kernel_functions(designs["elementwise"])["k"]
    assert _vector_types(elementwise) == {"vector<16xf32>"}
    assert any(isinstance(op, vector.BroadcastOp) for op in elementwise.walk())
    loops = [op for op in elementwise.walk() if isinstance(op, scf.ForOp)]
    assert [op.step.owner.value.value.data for op in loops] == [1, 16]
    # the softmax's last loop: a row's vector minus its max broadcast, over its sum broadcast
    softmax = kernel_functions(designs["row reductions and broadcasts (softmax)"])["k"]
    assert _vector_types(softmax) == {"vector<16xf32>"}
    # compares and selects, and rows of 8 f32 (256 bits), stay scalar
    scalar = kernel_functions(designs["i8 matmul, cast, compare and select"])["k"]
    assert not _vector_types(scalar)


def test_matmul_accumulates_in_the_output_element(designs):
    design = designs["matmul"]
    fn = kernel_functions(design)["k"]
    assert not [op for op in fn.walk() if isinstance(op, memref.AllocaOp)]
    cores = [op for op in design.walk() if isinstance(op, aie.CoreOp)]
    assert all("stack_size" not in c.attributes for c in cores)


def test_reductions_use_scratch_on_a_larger_stack(designs):
    design = designs["row reductions and broadcasts (softmax)"]
    fn = kernel_functions(design)["k"]
    scratch = [op for op in fn.walk() if isinstance(op, memref.AllocaOp)]
    # the row max only: the row sum is computed into its output parameter, read back there
    assert [str(op.memref.type) for op in scratch] == ["memref<16x1xf32>"]
    stores = [op.operands[1].name_hint for op in fn.walk() if "store" in op.name]
    assert stores == [None, "r", "y"]
    cores = [op for op in design.walk() if isinstance(op, aie.CoreOp)]
    assert {c.attributes["stack_size"].value.data for c in cores} == {1024 + 64}


LOOP = """
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %r = %c0 to %c16 step %c4 {
    %t = pto.load %x[%r, %n] : memref<16x32xf32> -> !pto.tile<4x16xf32, vec>
    %u = pto.adds %t, %a : !pto.tile<4x16xf32, vec>, f32
    pto.store %u, %y[%r, %n] : !pto.tile<4x16xf32, vec>, memref<16x32xf32>
  }
"""


def test_loops_and_index_parameters_address_sub_tiles():
    params = [
        Param("x", "f32", "in", (16, 32)),
        Param("y", "f32", "out", (16, 32)),
        Param("n", "index", value="16"),
        Param("a", "f32", value="1.000000e+00"),
    ]
    design = _lower(params, LOOP)
    fn = kernel_functions(design)["k"]
    assert [str(t) for t in fn.function_type.inputs] == [M, M, "i32", "f32"]
    assert any(isinstance(op, arith.IndexCastOp) for op in fn.walk())
    assert len([op for op in fn.walk() if isinstance(op, scf.ForOp)]) == 3
    x, y = _data((16, 32)), np.zeros((16, 32), np.float32)
    run(fn, [x, y, np.int32(16), np.float32(1.0)])
    want = np.zeros_like(x)
    want[:, 16:] = x[:, 16:] + 1
    np.testing.assert_allclose(y, want, rtol=1e-6)


def _direct(signature: str, body: str) -> func.FuncOp:
    """The AIE kernel function of ``wsp.kernel @k(signature)`` whose tile function is
    ``body``, built without mapping a workload (no DMA channel limits)."""
    names = [p.split(":")[0].strip() for p in signature.split(",")]
    types = [p.split(":")[1].split()[-1] for p in signature.split(",")]
    fn_args = ", ".join(f"%{n}: {t}" for n, t in zip(names, types))
    module = parse(
        f"wsp.kernel @k({signature}) unit(vector) attributes {{tile = @k_tile}}\n"
        f"func.func @k_tile({fn_args}) attributes {{pto.func_type = #pto.func_type<incore>}} "
        f"{{\n{body}\n  func.return\n}}"
    )
    kernel = next(op for op in module.ops if isinstance(op, wsp.KernelOp))
    inputs = [
        kernel_arg_type("k", n, t, kernel) for n, t in zip(names, kernel.function_type.inputs)
    ]
    fn, _ = kernel_function(kernel, kernel.tile_function(), inputs)
    fn.verify()
    return fn


def test_a_parameter_read_and_written_is_read_before_it_is_written():
    fn = _direct(
        f"x: in {M}, y: inout {M}, z: out {M}",
        f"""
  %t = pto.load %y : {M} -> {V}
  %u = pto.load %x : {M} -> {V}
  %v = pto.add %t, %u : {V}
  pto.store %v, %y : {V}, {M}
  %w = pto.mul %t, %t : {V}
  pto.store %w, %z : {V}, {M}
""",
    )
    x, y, z = _data((16, 32)), _data((16, 32)), np.zeros((16, 32), np.float32)
    old = y.copy()
    run(fn, [x, y, z])
    np.testing.assert_allclose(y, old + x, rtol=1e-6)
    np.testing.assert_allclose(z, old * old, rtol=1e-6)


MORE = """
  %t = pto.load %x : memref<8x16xf32> -> !pto.tile<8x16xf32, vec>
  %tt = pto.transpose %t : !pto.tile<8x16xf32, vec> -> !pto.tile<16x8xf32, vec>
  %a = pto.abs %tt : !pto.tile<16x8xf32, vec>
  %r = pto.recip %a : !pto.tile<16x8xf32, vec>
  %l = pto.log %r : !pto.tile<16x8xf32, vec>
  %q = pto.rsqrt %a : !pto.tile<16x8xf32, vec>
  %s = pto.sub %l, %q : !pto.tile<16x8xf32, vec>
  %mn = pto.row_min %s : !pto.tile<16x8xf32, vec> -> !pto.tile<16x1xf32, vec>
  %cs = pto.col_sum %s : !pto.tile<16x8xf32, vec> -> !pto.tile<1x8xf32, vec>
  %e = pto.row_expand_mul %s, %mn : !pto.tile<16x8xf32, vec>, !pto.tile<16x1xf32, vec>
  %f = pto.col_expand_max %e, %cs : !pto.tile<16x8xf32, vec>, !pto.tile<1x8xf32, vec>
  %g = pto.mins %f, %k : !pto.tile<16x8xf32, vec>, f32
  pto.store %g, %y : !pto.tile<16x8xf32, vec>, memref<16x8xf32>
  %ta = pto.load %w : memref<16x8xf32> -> !pto.tile<16x8xf32, mat>
  %tb = pto.load %b : memref<1x8xf32> -> !pto.tile<1x8xf32, mat>
  %lt = pto.load %x : memref<8x16xf32> -> !pto.tile<8x16xf32, mat>
  %la = pto.move %lt : !pto.tile<8x16xf32, mat> -> !pto.tile<8x16xf32, left>
  %rw = pto.move %ta : !pto.tile<16x8xf32, mat> -> !pto.tile<16x8xf32, right>
  %bb = pto.move %tb : !pto.tile<1x8xf32, mat> -> !pto.tile<1x8xf32, bias>
  %mm = pto.matmul_bias %la, %rw, %bb : !pto.tile<8x16xf32, left>, !pto.tile<16x8xf32, right>, !pto.tile<1x8xf32, bias> -> !pto.tile<8x8xf32, acc>
  %m2 = pto.matmul_acc %mm, %la, %rw : !pto.tile<8x16xf32, left>, !pto.tile<16x8xf32, right> -> !pto.tile<8x8xf32, acc>
  pto.store %m2, %c : !pto.tile<8x8xf32, acc>, memref<8x8xf32>
"""


def test_more_ops_compute_what_numpy_does():
    fn = _direct(
        "x: in memref<8x16xf32>, w: in memref<16x8xf32>, b: in memref<1x8xf32>, "
        "y: out memref<16x8xf32>, c: out memref<8x8xf32>, k: f32",
        MORE,
    )
    x, w, b = _data((8, 16), low=0.2, high=2.0), _data((16, 8)), _data((1, 8))
    y, c = np.zeros((16, 8), np.float32), np.zeros((8, 8), np.float32)
    run(fn, [x, w, b, y, c, np.float32(0.25)])
    a = np.abs(x.T)
    s = np.log(1 / a) - 1 / np.sqrt(a)
    e = s * s.min(axis=1, keepdims=True)
    want = np.minimum(np.maximum(e, s.sum(axis=0, keepdims=True)), 0.25)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, 2 * (x @ w) + b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "body, message",
    [
        (
            f"""
  %n = arith.constant 3 : index
  %t = pto.load %x valid(%n) : {M} -> !pto.tile<16x32xf32, vec, valid = [?, 32]>
  %u = pto.transpose %t : !pto.tile<16x32xf32, vec, valid = [?, 32]> -> !pto.tile<32x16xf32, vec, valid = [32, ?]>
  pto.store %u, %y : !pto.tile<32x16xf32, vec, valid = [32, ?]>, memref<32x16xf32>
""",
            "pto.transpose makes a tile with a dynamic valid shape ([32, ?]) whose sizes the "
            "AIE kernel cannot trace",
        ),
    ],
    ids=["dynamic valid shape"],
)
def test_what_cannot_map_is_a_located_error(body, message):
    shape = (32, 16) if "transpose" in body else (16, 32)
    text = workload([Param("x", "f32", "in", (16, 32)), Param("y", "f32", "out", shape)], body)
    with pytest.raises(PassFailedException) as error:
        compile_module(parse(text), device="npu1")
    assert f"kernel @k (tile function @k_tile): {message}" in str(error.value)


def test_scratch_beyond_the_tile_memory_is_an_error_naming_the_kernel():
    body = f"""
  %big = pto.alloc : !pto.tile<128x128xf32, vec>
  %t = pto.load %x : {M} -> {V}
  pto.store %t, %y : {V}, {M}
"""
    text = workload([Param("x", "f32", "in", (16, 32)), Param("y", "f32", "out", (16, 32))], body)
    with pytest.raises(PassFailedException, match=r"stack of @k: 65536 B of scratch\), but it has"):
        compile_module(parse(text), device="npu1")


def test_a_tile_of_lower_rank_addresses_the_trailing_dimensions_of_its_view():
    fn = _direct(
        "x: in memref<4x8xi32>, y: out memref<4x8xi32>",
        """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = pto.load %x : memref<4x8xi32> -> !pto.tile<8xi32, vec>
  %u = pto.load %x[%c2, %c0] : memref<4x8xi32> -> !pto.tile<8xi32, vec>
  %s = pto.sub %t, %u : !pto.tile<8xi32, vec>
  %a = pto.abs %s : !pto.tile<8xi32, vec>
  %n = pto.neg %a : !pto.tile<8xi32, vec>
  %r = pto.relu %s : !pto.tile<8xi32, vec>
  pto.store %n, %y[%c1, %c0] : !pto.tile<8xi32, vec>, memref<4x8xi32>
  pto.store %r, %y[%c2, %c0] : !pto.tile<8xi32, vec>, memref<4x8xi32>
""",
    )
    x, y = _data((4, 8), np.int32), np.zeros((4, 8), np.int32)
    run(fn, [x, y])
    d = x[0] - x[2]
    np.testing.assert_array_equal(y[1], -np.abs(d))
    np.testing.assert_array_equal(y[2], np.maximum(d, 0))
    np.testing.assert_array_equal(y[[0, 3]], 0)


def _megakernel_with_tile_kernels() -> str:
    """examples/megakernel.mlir (a CSP pipeline of three cores) whose compute kernel is a
    tile kernel: y = exp(x * i) with ``i`` the tile's index parameter."""
    text = (ROOT / "examples" / "megakernel.mlir").read_text()
    decl = (
        "wsp.kernel @compute_kernel(i: index, tile: in memref<64xf32>, "
        "result: out memref<64xf32>) unit(vector) cost(400)"
    )
    assert decl in text
    tile = """ attributes {tile = @compute_tile}
func.func @compute_tile(%i: index, %x: memref<64xf32>, %y: memref<64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %n = arith.index_cast %i : index to i32
  %f = arith.sitofp %n : i32 to f32
  %t = pto.load %x : memref<64xf32> -> !pto.tile<64xf32, vec>
  %m = pto.muls %t, %f : !pto.tile<64xf32, vec>, f32
  %e = pto.exp %m : !pto.tile<64xf32, vec>
  pto.store %e, %y : !pto.tile<64xf32, vec>, memref<64xf32>
  func.return
}"""
    return text.replace(decl, decl + tile)


def test_a_pipeline_core_calls_the_tile_kernel_with_its_index_as_i32():
    design = compile_module(parse(_megakernel_with_tile_kernels()), bind="num_tiles=4")
    design.verify()
    fns = kernel_functions(design)
    assert "link_with" in fns["load_kernel"].attributes  # opaque kernels keep their object
    fn = fns["compute_kernel"]
    assert not fn.is_declaration and "link_with" not in fn.attributes
    assert [str(t) for t in fn.function_type.inputs] == ["i32", "memref<64xf32>", "memref<64xf32>"]
    x, y = _data(64), np.zeros(64, np.float32)
    run(fn, [np.int32(3), x, y])
    np.testing.assert_allclose(y, np.exp(x * 3), rtol=1e-5)


def test_conditions_on_scalars_choose_what_is_stored():
    fn = _direct(
        f"x: in {M}, y: out {M}, n: index",
        f"""
  %c2 = arith.constant 2 : index
  %t = pto.load %x : {M} -> {V}
  %big = arith.cmpi sgt, %n, %c2 : index
  scf.if %big {{
    %e = pto.exp %t : {V}
    pto.store %e, %y : {V}, {M}
  }} else {{
    %c = pto.neg %t : {V}
    pto.store %c, %y : {V}, {M}
  }}
  %odd = arith.remui %n, %c2 : index
  %one = arith.cmpi eq, %odd, %c2 : index
  scf.if %one {{
    pto.store %t, %y : {V}, {M}
  }}
""",
    )
    x = _data((16, 32))
    for n, want in ((3, np.exp(x)), (1, -x)):
        y = np.zeros_like(x)
        run(fn, [x, y, np.int32(n)])
        np.testing.assert_allclose(y, want, rtol=1e-6)


# --------------------------------------------------------------------------- carried tiles, f16,
# integer division: each JIT-run against numpy and the CPU numerics (compile_tile)

S = "!pto.tile<16x16xf32, vec>"
SM = "memref<16x16xf32>"
LOOP_HEAD = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
"""


def _both(signature, body, args):
    """Run the AIE kernel function and the CPU numerics' compile of the same tile function on
    copies of ``args``; both results."""
    fn = _direct(signature, body)
    module = parse(
        f"func.func @k_tile({', '.join(_fn_args(signature))}) attributes "
        f"{{pto.func_type = #pto.func_type<incore>}} {{\n{body}\n  func.return\n}}"
    )
    aie_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run(fn, aie_args)
    cpu_args = [a.copy() if isinstance(a, np.ndarray) else a.item() for a in args]
    compile_tile(next(iter(module.ops)))(*cpu_args)
    return aie_args, cpu_args


def _fn_args(signature):
    return [
        f"%{p.split(':')[0].strip()}: {p.split(':')[1].split()[-1]}" for p in signature.split(",")
    ]


@pytest.mark.parametrize(
    "yielded, reference",
    [
        # Two carried tiles taking each other's values (all at once): (a, b) -> (a + b, a).
        ("%n = pto.add %a, %b : {S}\n    scf.yield %n, %a : {S}, {S}", "fib"),
        # A carried tile read at another index than it is written (transposed).
        (
            "%n = pto.transpose %a : {S} -> {S}\n    %m = pto.adds %n, %one : {S}, f32\n"
            "    scf.yield %m, %b : {S}, {S}",
            "transpose",
        ),
    ],  # fmt: skip
    ids=["swap", "transpose"],
)
def test_tiles_carried_by_a_loop_are_buffers_updated_all_at_once(yielded, reference):
    body = (
        LOOP_HEAD
        + f"""
  %one = arith.constant 1.0 : f32
  %t = pto.load %x : {SM} -> {S}
  %u = pto.load %z : {SM} -> {S}
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t, %b = %u) -> ({S}, {S}) {{
    {yielded.format(S=S)}
  }}
  pto.store %r#0, %y : {S}, {SM}
  pto.store %r#1, %w : {S}, {SM}
"""
    )
    x, z = _data((16, 16)), _data((16, 16))
    a, b = x.copy(), z.copy()
    for _ in range(3):
        a, b = (a + b, a) if reference == "fib" else (a.T + 1, b)
    zeros = np.zeros((16, 16), np.float32)
    (_, _, y, w), cpu = _both(
        f"x: in {SM}, z: in {SM}, y: out {SM}, w: out {SM}", body, [x, z, zeros, zeros]
    )
    np.testing.assert_allclose(y, a, rtol=1e-6)
    np.testing.assert_allclose(w, b, rtol=1e-6)
    np.testing.assert_array_equal(y, cpu[2])


def test_a_tile_chosen_by_an_if_is_a_buffer_each_branch_writes():
    body = f"""
  %t = pto.load %x : {SM} -> {S}
  %c = arith.cmpf ogt, %s, %s : f32
  %z = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %s, %z : f32
  %r = scf.if %p -> ({S}) {{
    %e = pto.exp %t : {S}
    scf.yield %e : {S}
  }} else {{
    %n = pto.transpose %t : {S} -> {S}
    scf.yield %n : {S}
  }}
  pto.store %r, %y : {S}, {SM}
"""
    x = _data((16, 16))
    for s, want in ((1.0, np.exp(x)), (-1.0, x.T)):
        (_, y, _), _ = _both(
            f"x: in {SM}, y: out {SM}, s: f32", body, [x, np.zeros_like(x), np.float32(s)]
        )
        np.testing.assert_allclose(y, want, rtol=1e-6)


@kernel
def k_matmul(a: In[f32[16, 64]], b: In[f32[64, 16]], c: Out[f32[16, 16]]):
    acc = pl.matmul(pl.load(a, [0, 0], shape=(16, 16)), pl.load(b, [0, 0], shape=(16, 16)))
    for k, (acc,) in pl.range(16, 64, 16, init_values=(acc,)):  # noqa: B020 (PyPTO's idiom)
        acc = pl.yield_(
            pl.matmul_acc(
                acc, pl.load(a, [0, k], shape=(16, 16)), pl.load(b, [k, 0], shape=(16, 16))
            )
        )
    pl.store(acc, c)


def _aie_function(w) -> func.FuncOp:
    """The AIE kernel function of the one tile kernel of workload ``w``."""
    module = pw.module(w)
    kernel = next(op for op in module.walk() if isinstance(op, wsp.KernelOp))
    inputs = [
        kernel_arg_type(kernel.sym_name.data, n.data, t, kernel)
        for n, t in zip(kernel.arg_names.data, kernel.function_type.inputs)
    ]
    fn, _ = kernel_function(kernel, kernel.tile_function(), inputs)
    fn.verify()
    assert not any(isinstance(t, pto.TileType) for op in fn.walk() for t in op.result_types)
    return fn


def test_a_python_k_loop_matmul_runs_as_numpy_does():
    A, B = Tensor("A", [2, 16, 64], f32), Tensor("B", [2, 64, 16], f32)
    C = Tensor("C", [2, 16, 16], f32)
    fn = _aie_function(parallel_for(Dense[2], lambda i: k_matmul(A[i], B[i], C[i])).named("w"))
    a, b, c = _data((16, 64)), _data((64, 16)), np.zeros((16, 16), np.float32)
    run(fn, [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_a_python_online_softmax_carrying_three_tiles_runs_as_numpy_does():
    w, inputs, _, want = _online_workload()
    fn = _aie_function(w)
    for b in range(2):
        y = np.zeros((16, 32), np.float32)
        run(fn, [np.ascontiguousarray(inputs["X"][b]), y])
        np.testing.assert_allclose(y, want[b], rtol=1e-5, atol=1e-6)


F16 = "!pto.tile<16x32xf16, vec>"
F16M = "memref<16x32xf16>"


def test_f16_computes_in_f32_rounding_each_result_as_the_cpu_does():
    body = f"""
  %s = arith.constant 2.0 : f16
  %t = pto.load %x : {F16M} -> {F16}
  %u = pto.load %z : {F16M} -> {F16}
  %m = pto.mul %t, %u : {F16}
  %e = pto.exp %m : {F16}
  %d = pto.divs %e, %s : {F16}, f16
  %r = pto.row_sum %d : {F16} -> !pto.tile<16x1xf16, vec>
  %b = pto.row_expand_sub %d, %r : {F16}, !pto.tile<16x1xf16, vec>
  pto.store %b, %y : {F16}, {F16M}
"""
    x, z = _data((16, 32), np.float16), _data((16, 32), np.float16)
    fn = _direct(f"x: in {F16M}, z: in {F16M}, y: out {F16M}", body)
    assert any(isinstance(op, arith.ExtFOp) for op in fn.walk())
    (_, _, y), cpu = _both(
        f"x: in {F16M}, z: in {F16M}, y: out {F16M}", body, [x, z, np.zeros_like(x)]
    )
    d = (np.exp(x * z) / np.float16(2)).astype(np.float16)
    want = d - d.astype(np.float32).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, want, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(y, cpu[2], rtol=1e-3, atol=1e-3)


def test_integer_division_by_zero_gives_zero_as_on_the_cpu():
    t = "!pto.tile<4x16xi32, vec>"
    mt = "memref<4x16xi32>"
    body = f"""
  %a = pto.load %x : {mt} -> {t}
  %b = pto.load %z : {mt} -> {t}
  %q = pto.div %a, %b : {t}
  pto.store %q, %y : {t}, {mt}
"""
    x = RNG.integers(-100, 100, (4, 16)).astype(np.int32)
    z = RNG.integers(-5, 5, (4, 16)).astype(np.int32)
    x[0, :2], z[0, :2] = np.iinfo(np.int32).min, -1
    z[1] = 0
    (_, _, y), cpu = _both(f"x: in {mt}, z: in {mt}, y: out {mt}", body, [x, z, np.zeros_like(x)])
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(z == 0, 0, np.trunc(x.astype(np.float64) / np.where(z == 0, 1, z)))
    want[0, :2] = np.iinfo(np.int32).min
    np.testing.assert_array_equal(y, want.astype(np.int32))
    np.testing.assert_array_equal(y, cpu[2])
