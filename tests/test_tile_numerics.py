"""Tile kernels' CPU numerics: each ``pl`` op traced, compiled natively and checked against numpy.

Tolerances (docs/kernels.md "CPU numerics"): f32 within rtol 1e-5; f16 computes each op in
f32 and rounds to f16, so within one f16 rounding of numpy's f16 result (rtol 1e-3) for an
elementwise op and of an f32 reference for a reduction (rtol 1e-2); integers exactly.
"""

import numpy as np
import pytest

from pto_wsp import In, InOut, Out, f16, f32, i8, i32, index, kernel
from pto_wsp import tile as pl
from pto_wsp.errors import CompileError
from pto_wsp.frontend.tile import trace
from pto_wsp.lowering.cpu.tile import compile_tile
from pto_wsp.lowering.cpu.tile_text import upstream_text

RNG = np.random.default_rng(23)
DTYPES = {f32: np.float32, f16: np.float16, i32: np.int32}
TOL = {f32: dict(rtol=1e-5, atol=1e-6), f16: dict(rtol=1e-3, atol=1e-3), i32: dict(rtol=0, atol=0)}


def native(k):
    """The kernel's tile function, traced and compiled."""
    return compile_tile(trace(k.fn, f"{k.name}_tile", k.params, f"@kernel {k.name}", k.loc))


def data(shape, dtype, positive=False):
    if dtype is i32:
        return RNG.integers(1 if positive else -50, 50, shape).astype(np.int32)
    x = RNG.standard_normal(shape)
    return (np.abs(x) + 0.5 if positive else x).astype(DTYPES[dtype])


def strided(a):
    """``a`` as a non-contiguous view (every other column of a wider array)."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
    wide[:, ::2] = a
    return wide[:, ::2]


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum,
}  # fmt: skip
_RUNS: dict = {}


def _stacked(name, dtype, ops, make_body, inputs):
    """One kernel computing every op of ``ops`` (one compile), its results stacked in ``z``;
    run once per test module and dtype."""
    key = (name, dtype)
    if key not in _RUNS:
        n = len(ops)

        @kernel
        def k(x: In[dtype[8, 16]], y: In[dtype[8, 16]], z: Out[dtype[n, 8, 16]]):
            a, b = pl.load(x), pl.load(y)
            for i, op in enumerate(ops):
                pl.store(make_body(op, a, b), z, [i, 0, 0])

        x, y = inputs(dtype)
        z = np.zeros((n, 8, 16), x.dtype)
        native(k)(strided(x), y, z)
        _RUNS[key] = (x, y, {op: z[i] for i, op in enumerate(ops)})
    return _RUNS[key]


def _two_inputs(dtype):
    return data((8, 16), dtype), data((8, 16), dtype, positive=True)


@pytest.mark.parametrize(
    ("op", "dtype"),
    # (integer division: test_integer_division_truncates)
    [(o, d) for d in (f32, f16, i32) for o in BINARY if d is not i32 or o != "div"],
)
def test_binary_tile_and_scalar(op, dtype):
    ops = [o for o in BINARY if dtype is not i32 or o != "div"]
    cases = [(o, form) for o in ops for form in ("tile", "scalar", "scalar first")]

    def body(case, a, b):
        o, form = case
        fn = getattr(pl, o)
        return fn(a, b) if form == "tile" else fn(a, 3) if form == "scalar" else fn(3, b)

    x, y, z = _stacked("binary", dtype, cases, body, _two_inputs)
    ref, three = BINARY[op], x.dtype.type(3)
    np.testing.assert_allclose(z[op, "tile"], ref(x, y).astype(x.dtype), **TOL[dtype])
    np.testing.assert_allclose(z[op, "scalar"], ref(x, three).astype(x.dtype), **TOL[dtype])
    np.testing.assert_allclose(z[op, "scalar first"], ref(three, y).astype(x.dtype), **TOL[dtype])


def test_integer_division_truncates():
    @kernel
    def k(x: In[i32[4, 8]], y: In[i32[4, 8]], z: Out[i32[4, 8]]):
        pl.store(pl.div(pl.load(x), pl.load(y)), z)

    x, y = data((4, 8), i32), data((4, 8), i32, positive=True)
    z = np.zeros_like(x)
    native(k)(x, y, z)
    np.testing.assert_array_equal(z, (np.abs(x) // y) * np.sign(x))


def test_integer_division_by_zero_and_its_overflow_are_numpys_not_a_trap():
    @kernel
    def k(x: In[i32[4, 8]], y: In[i32[4, 8]], v: In[i32[4, 1]], z: Out[i32[3, 4, 8]]):
        a = pl.load(x)
        pl.store(pl.div(a, pl.load(y)), z, [0, 0, 0])
        pl.store(pl.div(a, 0), z, [1, 0, 0])
        pl.store(pl.row_expand_div(a, pl.load(v)), z, [2, 0, 0])

    least = np.iinfo(np.int32).min
    x = np.full((4, 8), least, np.int32)
    x[:, ::2] = 7
    y = np.resize(np.array([0, -1], np.int32), (4, 8))
    v = np.array([[0], [-1], [0], [-1]], np.int32)
    z = np.ones((3, 4, 8), np.int32)
    native(k)(x, y, v, z)  # a bare integer division kills the process with SIGFPE here
    with np.errstate(divide="ignore", over="ignore"):
        np.testing.assert_array_equal(z[0], np.where(y == 0, 0, x // np.where(y == 0, 1, y)))
        np.testing.assert_array_equal(z[1], np.zeros((4, 8), np.int32))
        np.testing.assert_array_equal(z[2], np.where(v == 0, 0, x // np.where(v == 0, 1, v)))
        np.testing.assert_array_equal(z[0], np.floor_divide(x, y))


UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "recip": lambda x: 1 / x, "abs": np.abs, "neg": np.negative, "relu": lambda x: np.maximum(x, 0),
}  # fmt: skip


@pytest.mark.parametrize("dtype", [f32, f16])
@pytest.mark.parametrize("op", UNARY)
def test_unary(op, dtype):
    def inputs(dtype):
        return data((8, 16), dtype), data((8, 16), dtype, positive=True)

    def body(o, a, b):
        return getattr(pl, o)(b if o in ("log", "sqrt", "rsqrt") else a)

    x, y, z = _stacked("unary", dtype, list(UNARY), body, inputs)
    arg = y if op in ("log", "sqrt", "rsqrt") else x
    ref = UNARY[op](arg.astype(np.float32)).astype(x.dtype)
    np.testing.assert_allclose(z[op], ref, **TOL[dtype])


@pytest.mark.parametrize("op", ["abs", "neg", "relu"])
def test_unary_integer(op):
    fn = getattr(pl, op)

    @kernel
    def k(x: In[i32[4, 8]], z: Out[i32[4, 8]]):
        pl.store(fn(pl.load(x)), z)

    x, z = data((4, 8), i32), np.zeros((4, 8), np.int32)
    native(k)(x, z)
    np.testing.assert_array_equal(z, UNARY[op](x))


REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}


@pytest.mark.parametrize("dtype", [f32, f16, i32])
@pytest.mark.parametrize("op", REDUCE)
def test_reductions(op, dtype):
    row, col = getattr(pl, f"row_{op}"), getattr(pl, f"col_{op}")

    @kernel
    def k(x: In[dtype[8, 16]], r: Out[dtype[8, 1]], c: Out[dtype[1, 16]]):
        t = pl.load(x)
        pl.store(row(t), r)
        pl.store(col(t), c)

    x = data((8, 16), dtype)
    r, c = np.zeros((8, 1), x.dtype), np.zeros((1, 16), x.dtype)
    native(k)(x, r, c)
    wide = x.astype(np.float64) if dtype is not i32 else x
    tol = dict(rtol=1e-2, atol=2e-2) if dtype is f16 else TOL[dtype]
    np.testing.assert_allclose(r, REDUCE[op](wide, axis=1, keepdims=True).astype(x.dtype), **tol)
    np.testing.assert_allclose(c, REDUCE[op](wide, axis=0, keepdims=True).astype(x.dtype), **tol)


EXPAND = {**BINARY, "div": np.divide, "exp_sub": lambda a, v: np.exp(a - v)}


@pytest.mark.parametrize("op", EXPAND)
def test_expand_binary(op):
    row, col = getattr(pl, f"row_expand_{op}"), getattr(pl, f"col_expand_{op}")

    @kernel
    def k(
        x: In[f32[8, 16]],
        v: In[f32[8, 1]],
        u: In[f32[1, 16]],
        r: Out[f32[8, 16]],
        c: Out[f32[8, 16]],
    ):
        t = pl.load(x)
        pl.store(row(t, pl.load(v)), r)
        pl.store(col(t, pl.load(u)), c)

    x, v, u = data((8, 16), f32), data((8, 1), f32, True), data((1, 16), f32, True)
    r, c = np.zeros_like(x), np.zeros_like(x)
    native(k)(x, v, u, r, c)
    np.testing.assert_allclose(r, EXPAND[op](x, v), **TOL[f32])
    np.testing.assert_allclose(c, EXPAND[op](x, u), **TOL[f32])


def test_expand_transpose_full_fillpad():
    @kernel
    def k(v: In[f32[8, 1]], u: In[f32[1, 16]], x: In[f32[8, 16]], r: Out[f32[8, 16]],
          c: Out[f32[8, 16]], t: Out[f32[16, 8]], f: Out[f32[8, 16]], n: index):  # fmt: skip
        pl.store(pl.row_expand(pl.load(v), 16), r)
        pl.store(pl.col_expand(pl.load(u), 8), c)
        pl.store(pl.load(x).T, t)
        part = pl.load(x, valid=(n, 16))
        pl.store(pl.fillpad(part, -1.0) + pl.full((8, 16), 0.5), f)

    v, u, x = data((8, 1), f32), data((1, 16), f32), data((8, 16), f32)
    r, c, t, f = (np.zeros(s, np.float32) for s in ((8, 16), (8, 16), (16, 8), (8, 16)))
    native(k)(v, u, x, r, c, t, f, 3)
    np.testing.assert_array_equal(r, np.broadcast_to(v, (8, 16)))
    np.testing.assert_array_equal(c, np.broadcast_to(u, (8, 16)))
    np.testing.assert_array_equal(t, x.T)
    want = np.full((8, 16), -0.5, np.float32)
    want[:3] = x[:3] + 0.5
    np.testing.assert_allclose(f, want, rtol=1e-6)


def test_cast_compare_select():
    @kernel
    def k(x: In[f32[4, 8]], y: In[f32[4, 8]], i: Out[i32[4, 8]], h: Out[f16[4, 8]],
          s: Out[f32[4, 8]], m: Out[f32[4, 8]]):  # fmt: skip
        a, b = pl.load(x), pl.load(y)
        pl.store(pl.cast(a * 10.0, i32), i)
        pl.store(pl.cast(a, f16), h)
        pl.store(pl.sel(pl.cmp(a, b, "lt"), a, b), s)
        pl.store(pl.sel(pl.cmp(a, 0.0, "ge"), a, pl.full((4, 8), 0.0)), m)

    x, y = data((4, 8), f32), data((4, 8), f32)
    x[0, :4] = [0.05, 0.15, 0.25, -0.25]  # x*10 at .5: rounds to nearest even
    i, h = np.zeros((4, 8), np.int32), np.zeros((4, 8), np.float16)
    s, m = np.zeros_like(x), np.zeros_like(x)
    native(k)(x, y, i, h, s, m)
    np.testing.assert_array_equal(i, np.rint(x * np.float32(10)).astype(np.int32))
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(s, np.minimum(x, y))
    np.testing.assert_array_equal(m, np.maximum(x, 0))


@pytest.mark.parametrize(("a_t", "acc"), [(f32, np.float32), (f16, np.float32), (i8, np.int32)])
def test_matmul_from_loaded_tiles(a_t, acc):
    acc_t = i32 if a_t is i8 else f32

    @kernel
    def k(a: In[a_t[16, 32]], b: In[a_t[32, 8]], bias: In[acc_t[1, 8]], c: InOut[acc_t[16, 8]],
          d: Out[acc_t[16, 8]], e: Out[acc_t[16, 8]]):  # fmt: skip
        x, y = pl.load(a), pl.load(b)
        p = pl.matmul(x, y)
        pl.store(p, d)
        pl.store(pl.matmul_acc(p, x, y), c)
        pl.store(pl.matmul_bias(x, y, pl.load(bias)), e)

    if a_t is i8:
        a = RNG.integers(-8, 8, (16, 32)).astype(np.int8)
        b = RNG.integers(-8, 8, (32, 8)).astype(np.int8)
        bias = RNG.integers(-8, 8, (1, 8)).astype(np.int32)
    else:
        a, b, bias = data((16, 32), a_t), data((32, 8), a_t), data((1, 8), f32)
    c, d, e = np.zeros((16, 8), acc), np.zeros((16, 8), acc), np.zeros((16, 8), acc)
    native(k)(a, strided(b), bias, c, d, e)
    ref = a.astype(acc) @ b.astype(acc)
    tol = dict(rtol=0, atol=0) if a_t is i8 else dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d, ref, **tol)
    np.testing.assert_allclose(c, 2 * ref, **tol)
    np.testing.assert_allclose(e, ref + bias, **tol)


def test_matmul_result_in_vector_ops():
    """``acc`` results read by vector ops are moved to vec (pto-infer-spaces)."""

    @kernel
    def k(a: In[f32[8, 8]], z: Out[f32[8, 8]]):
        x = pl.load(a)
        pl.store(pl.exp(x @ x) - x, z)

    a, z = data((8, 8), f32) * 0.1, np.zeros((8, 8), np.float32)
    native(k)(a, z)
    np.testing.assert_allclose(z, np.exp(a @ a) - a, rtol=1e-5)


def test_valid_shape_and_offsets():
    """A window at offsets with a runtime valid row count: only the valid rows are written."""

    @kernel
    def k(x: In[f32[32, 16]], y: InOut[f32[32, 16]], n: index, row: index):
        t = pl.load(x, [row, 0], shape=(8, 16), valid=(n, 16))
        pl.store(pl.row_expand_sub(t, pl.row_max(t)), y, [row, 0])

    x, y = data((32, 16), f32), np.full((32, 16), 7.0, np.float32)
    native(k)(x, y, 5, 8)
    want = np.full((32, 16), 7.0, np.float32)
    part = x[8:13]
    want[8:13] = part - part.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(y, want)


def test_scalar_parameter_operand():
    @kernel
    def k(x: In[f32[4, 4]], y: Out[f32[4, 4]], alpha: f32):
        pl.store(pl.load(x) * alpha + 1.0, y)

    x, y = data((4, 4), f32), np.zeros((4, 4), np.float32)
    native(k)(x, y, 2.5)
    np.testing.assert_allclose(y, x * np.float32(2.5) + 1, rtol=1e-6)


def test_wrong_arguments_are_type_errors():
    @kernel
    def k(x: In[f32[4, 4]], y: Out[f32[4, 4]]):
        pl.store(pl.load(x), y)

    f = native(k)
    with pytest.raises(TypeError, match="x is a numpy array of float32, got float64"):
        f(np.zeros((4, 4)), np.zeros((4, 4), np.float32))
    with pytest.raises(TypeError, match=r"y has shape \(4, 4\), got \(4, 5\)"):
        f(np.zeros((4, 4), np.float32), np.zeros((4, 5), np.float32))


def test_unsupported_element_type_is_a_compile_error():
    from pto_wsp import bf16

    @kernel
    def k(x: In[bf16[4, 4]], y: Out[bf16[4, 4]]):
        pl.store(pl.load(x), y)

    with pytest.raises(CompileError, match="tensors of bf16 are not supported by the CPU numerics"):
        native(k)


def test_whole_tile_elementwise_ops_run_as_one_loop():
    """Elementwise ops on whole dense tiles are one 1-d loop (LLVM vectorizes it along the
    rows); on a valid part (a window of the tile) they stay 2-d. Loads and stores branch on
    the view's innermost stride."""

    @kernel
    def whole(x: In[f32[4, 8]], y: Out[f32[4, 8]]):
        t = pl.load(x)
        pl.store(pl.exp(t) + t, y)

    @kernel
    def part(x: In[f32[4, 8]], y: Out[f32[4, 8]], n: index):
        t = pl.load(x, shape=(4, 8), valid=(n, 8))
        pl.store(pl.exp(t) + t, y)

    text, _ = upstream_text(trace(whole.fn, "whole_tile", whole.params, "whole", whole.loc))
    assert text.count("into memref<32xf32>") == 5 and "(d0, d1)" not in text
    # loads and stores: a copy for a unit innermost stride, and one for any strides
    assert text.count("scf.if") == 2 and text.count("linalg.copy") == 4
    assert text.count("to memref<4x8xf32, strided<[?, 1], offset: ?>>") == 2
    text, _ = upstream_text(trace(part.fn, "part_tile", part.params, "part", part.loc))
    assert "collapse_shape" not in text
    x, y = data((4, 8), f32), np.zeros((4, 8), np.float32)
    native(whole)(x, y)
    np.testing.assert_allclose(y, np.exp(x) + x, **TOL[f32])
    y = strided(np.zeros((4, 8), np.float32))
    native(whole)(strided(x), y)
    np.testing.assert_allclose(y, np.exp(x) + x, **TOL[f32])
    z = np.full((4, 8), 9.0, np.float32)
    native(part)(x, z, 3)
    np.testing.assert_allclose(z[:3], np.exp(x[:3]) + x[:3], **TOL[f32])
    assert (z[3:] == 9).all()
