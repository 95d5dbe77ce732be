"""Tile kernels from Python (``from pto_wsp import tile as pl``): tracing, errors, and runs.

A ``@kernel`` whose body uses ``pl`` is traced into an InCore ``@<instance>_tile`` function the
``wsp.kernel`` names; the CPU simulator runs it natively in functional mode (checked against
numpy). Errors in a body are ``CompileError``s at the body's line.
"""

import inspect

import numpy as np
import pytest

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f16, f32, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.errors import CompileError
from pto_wsp.frontend.program import print_module
from pto_wsp.tile import load, store

RNG = np.random.default_rng(5)


@kernel
def scale(x: In[f32[16, 16]], y: Out[f32[16, 16]], a: f32):
    pl.store(pl.exp(pl.load(x) * a), y)


@kernel
def softmax(x: In, y: Out):
    t = pl.load(x)
    e = pl.row_expand_exp_sub(t, pl.row_max(t))
    pl.store(pl.row_expand_div(e, pl.row_sum(e)), y)


@kernel
def numpy_body(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    y[...] = np.exp(x)


@kernel
def imported_names(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    store(load(x), y)


def _text(w) -> str:
    return print_module(pw.module(w))


def test_tile_kernel_is_traced_into_its_tile_function():
    X, Y = Tensor("X", [4, 16, 16], f32), Tensor("Y", [4, 16, 16], f32)
    text = _text(parallel_for(Dense[4], lambda i: scale[0.5](X[i], Y[i])).named("w"))
    assert (
        "wsp.kernel @scale(x: in memref<16x16xf32>, y: out memref<16x16xf32>, a: f32) "
        "unit(vector) attributes {tile = @scale_tile}" in text
    )
    assert (
        "func.func @scale_tile(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %a: f32) "
        "attributes {pto.func_type = #pto.func_type<incore>}" in text
    )
    assert "pto.muls %0, %a : !pto.tile<16x16xf32, vec>, f32" in text
    assert "pto.store %2, %y : !pto.tile<16x16xf32, vec>, memref<16x16xf32>" in text


def test_recognising_tile_bodies():
    assert scale.is_tile and softmax.is_tile and imported_names.is_tile
    assert not numpy_body.is_tile
    X, Y = Tensor("X", [4, 16, 16], f32), Tensor("Y", [4, 16, 16], f32)
    text = _text(parallel_for(Dense[4], lambda i: numpy_body(X[i], Y[i])).named("w"))
    assert "tile =" not in text and "func.func" not in text


def test_generic_kernel_gets_one_tile_function_per_instance():
    X, Y = Tensor("X", [4, 8, 32], f32), Tensor("Y", [4, 8, 32], f32)
    H, G = Tensor("H", [4, 16, 16], f16), Tensor("G", [4, 16, 16], f16)
    one = parallel_for(Dense[4], lambda i: softmax(X[i], Y[i])).named("one")
    assert "@softmax_tile" in _text(one)
    assert "func.func @softmax_tile(%x: memref<8x32xf32>" in _text(one)
    two = pw.combine(
        parallel_for(Dense[4], lambda i: softmax(X[i], Y[i])),
        parallel_for(Dense[4], lambda i: softmax(H[i], G[i])),
    ).named("two")
    text = _text(two)
    assert "wsp.kernel @softmax_8x32xf32(" in text and "tile = @softmax_8x32xf32_tile" in text
    assert "func.func @softmax_16x16xf16_tile(%x: memref<16x16xf16>" in text
    assert "!pto.tile<16x16xf16, vec> -> !pto.tile<16x1xf16, vec>" in text


def test_cpu_sim_runs_tile_kernels_natively():
    X, Y = Tensor("X", [6, 8, 32], f32), Tensor("Y", [6, 8, 32], f32)
    S, T = Tensor("S", [6, 16, 16], f32), Tensor("T", [6, 16, 16], f32)
    w = pw.combine(
        parallel_for(Dense[6], lambda i: softmax(X[i], Y[i])),
        parallel_for(Dense[6], lambda i: scale[0.25](S[i], T[i])),
    ).named("both")
    prog = pw.compile(w, target="cpu_sim")
    x, s = RNG.standard_normal((6, 8, 32), np.float32), RNG.standard_normal((6, 16, 16), np.float32)
    y, t = np.zeros_like(x), np.zeros_like(s)
    prog.bind(X=x, Y=y, S=s, T=t).execute()
    e = np.exp(x - x.max(axis=2, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=2, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(t, np.exp(s * np.float32(0.25)), rtol=1e-6)


@kernel(exec_unit="cube")
def gemm(a: In[f32[16, 32]], b: In[f32[32, 16]], c: Out[f32[16, 16]]):
    pl.store(pl.relu(pl.matmul(pl.load(a), pl.load(b))), c)


def test_cpu_sim_matmul_kernel_with_spaces_inferred():
    A, B, C = (
        Tensor("A", [3, 16, 32], f32),
        Tensor("B", [32, 16], f32),
        Tensor("C", [3, 16, 16], f32),
    )
    w = parallel_for(Dense[3], lambda i: gemm(A[i], B, C[i])).named("g")
    text = _text(w)
    assert "pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, mat>" in text
    assert "-> !pto.tile<16x16xf32, acc>" in text and "acc> -> !pto.tile<16x16xf32, vec>" in text
    a, b = RNG.standard_normal((3, 16, 32), np.float32), RNG.standard_normal((32, 16), np.float32)
    c = np.zeros((3, 16, 16), np.float32)
    pw.compile(w, target="cpu_sim").bind(A=a, B=b, C=c).execute()
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- errors


def _build(k, shape=(16, 16)):
    X, Y = Tensor("X", [2, *shape], f32), Tensor("Y", [2, *shape], f32)
    return pw.module(parallel_for(Dense[2], lambda i: k(X[i], Y[i])).named("w"))


def _line_of(k, text: str) -> int:
    lines, start = inspect.getsourcelines(k.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@kernel
def bad_shapes(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(pl.add(t, pl.row_sum(t)), y)


@kernel
def bad_matmul(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(pl.matmul(t, pl.load(x, shape=(8, 16))), y)


@kernel
def loads_out(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    pl.store(pl.load(y), y)


@kernel
def stores_in(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    pl.store(pl.load(x), x)


@kernel
def vec_to_cube(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.exp(pl.load(x))
    pl.store(pl.matmul(t, t), y)


@pytest.mark.parametrize(
    ("k", "line", "message"),
    [
        (bad_shapes, "pl.add(", "pl.add: "),
        (bad_matmul, "pl.matmul(", "pl.matmul: matmul shapes: 16x16 times 8x16: K differs"),
        (loads_out, "pl.load(y)", "pl.load reads an In or InOut parameter; y is Out"),
        (stores_in, "pl.store(", "pl.store writes an Out or InOut parameter; x is In"),
    ],
)
def test_body_errors_are_located_at_the_line(k, line, message):
    with pytest.raises(CompileError) as info:
        _build(k)
    assert message in str(info.value)
    assert info.value.loc.lineno == _line_of(k, line)
    assert "\n" not in info.value.message


def test_matmul_of_a_computed_vec_tile_is_refused_at_the_matmul():
    with pytest.raises(CompileError, match="a matmul operand computed in vec cannot reach") as info:
        _build(vec_to_cube)
    assert info.value.loc.lineno == _line_of(vec_to_cube, "pl.matmul(")


def test_tile_ops_outside_a_kernel_body():
    with pytest.raises(CompileError, match="tile ops are written inside a @kernel's body"):
        pl.full((4, 4), 1.0)


def test_the_kernels_doc_example_runs():
    """docs/kernels.md's complete example (RMSNorm) runs and matches numpy (its own assert)."""
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "kernels.md"
    block = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)[0]
    namespace: dict = {}
    exec(compile(block, str(doc), "exec"), namespace)
    assert "attributes {tile = @rmsnorm_tile}" in print_module(pw.module(namespace["w"]))


def test_tile_kernels_on_threads():
    """The native call releases the GIL: tile kernels run on the simulator's body threads."""
    X, Y = Tensor("X", [64, 16, 16], f32), Tensor("Y", [64, 16, 16], f32)
    w = parallel_for(Dense[64], lambda i: scale[2.0](X[i], Y[i])).named("threaded")
    x, y = RNG.standard_normal((64, 16, 16), np.float32), np.zeros((64, 16, 16), np.float32)
    pw.compile(w, target="cpu_sim", threads=2).bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, np.exp(x * np.float32(2)), rtol=1e-6)
