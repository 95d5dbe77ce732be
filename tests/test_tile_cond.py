"""Traced branches in tile kernels: ``pl.cond(pred, true_fn, false_fn, *operands)`` is one
``scf.if`` on a comparison of scalars; it runs on the CPU simulator, the Ascend host build
and as an AIE core function as numpy does; misuse is an error at the kernel's line."""

import inspect

import numpy as np
import pytest
from aie_tile_support import run
from test_aie_tile_kernels import _aie_function
from xdsl.dialects import arith, scf

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f32, index, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.errors import CompileError
from pto_wsp.lowering.ascend.build import have_compiler

RNG = np.random.default_rng(31)
N = 12


@kernel
def pick(n: index, x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    """Rows below 8: relu; the rest doubled, then 4 blocks summed with the first one's
    running total started by a branch on the loop index."""
    t = pl.load(x)
    r = pl.cond(n < 8, lambda a: pl.relu(a), lambda a: a * 2.0, t)
    pl.store(r, y)


@kernel
def blocks(x: In[f32[16, 64]], y: Out[f32[16, 16]]):
    acc = pl.full((16, 16), 0.0)
    for j, (acc,) in pl.range(0, 64, 16, init_values=(acc,)):  # noqa: B020
        t = pl.load(x, [0, j], shape=(16, 16))
        acc = pl.yield_(pl.cond(j >= 32, lambda a, b: a + b * 3.0, lambda a, b: a + b, acc, t))
    pl.store(acc, y)


def _pick():
    X, Y = Tensor("X", [N, 16, 16], f32), Tensor("Y", [N, 16, 16], f32)
    w = parallel_for(Dense[N], lambda i: pick[i](X[i], Y[i])).named("w_pick")
    x = RNG.standard_normal((N, 16, 16)).astype(np.float32)
    want = np.where(np.arange(N)[:, None, None] < 8, np.maximum(x, 0), x * 2)
    return w, x, want


def _blocks():
    X, Y = Tensor("X", [2, 16, 64], f32), Tensor("Y", [2, 16, 16], f32)
    w = parallel_for(Dense[2], lambda i: blocks(X[i], Y[i])).named("w_blocks")
    x = RNG.standard_normal((2, 16, 64)).astype(np.float32)
    b = x.reshape(2, 16, 4, 16)
    return w, x, b[:, :, 0] + b[:, :, 1] + 3 * (b[:, :, 2] + b[:, :, 3])


def test_a_branch_is_one_scf_if_on_a_comparison():
    w, _, _ = _pick()
    (f,) = [op for op in pw.module(w).walk() if op.name == "func.func"]
    (branch,) = [op for op in f.walk() if isinstance(op, scf.IfOp)]
    compare = branch.cond.owner
    assert isinstance(compare, arith.CmpiOp) and compare.predicate.value.data == 2  # slt
    assert [op.name for op in branch.true_region.block.ops] == ["pto.relu", "scf.yield"]
    assert len(branch.results) == 1


@pytest.mark.parametrize("make", [_pick, _blocks])
def test_cpu_sim_runs_branches_as_numpy_does(make):
    w, x, want = make()
    y = np.zeros_like(want)
    pw.compile(w, target="cpu_sim").bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")
@pytest.mark.parametrize("make", [_pick, _blocks])
def test_ascend_host_runs_branches_as_numpy_does(make):
    w, x, want = make()
    y = np.zeros_like(want)
    pw.compile(w, target="ascend", host=True).bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_the_aie_core_function_runs_branches_as_numpy_does():
    w, x, want = _blocks()
    fn = _aie_function(w)
    for b in range(2):
        y = np.zeros((16, 16), np.float32)
        run(fn, [np.ascontiguousarray(x[b]), y])
        np.testing.assert_allclose(y, want[b], rtol=1e-5, atol=1e-5)
    w, x, want = _pick()
    fn = _aie_function(w)
    for n in (3, 9):
        y = np.zeros((16, 16), np.float32)
        run(fn, [np.int32(n), x[n], y])
        np.testing.assert_allclose(y, want[n], rtol=1e-6)


# --------------------------------------------------------------------------- errors


@kernel
def python_if(n: index, x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    if n < 8:
        t = t * 2.0
    pl.store(t, y)


@kernel
def mismatched(n: index, x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(pl.cond(n < 8, lambda a: a, lambda a: pl.row_sum(a), t), y)


@kernel
def escaping(n: index, x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    kept = []
    pl.cond(n < 8, lambda a: kept.append(a * 2.0), lambda a: None, t)
    pl.store(kept[0], y)


@kernel
def yield_in_branch(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    for j, (t,) in pl.range(4, init_values=(t,)):  # noqa: B020
        t = pl.cond(j < 2, lambda a: pl.yield_(a), lambda a: a, t)
    pl.store(t, y)


@kernel
def not_a_predicate(n: index, x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(pl.cond(n, lambda a: a, lambda a: a, t), y)


@pytest.mark.parametrize(
    ("k", "line", "message"),
    [
        (python_if, "if n < 8", "Python's if, and, or, not cannot test it"),
        (mismatched, "pl.cond(", "the branches return"),
        (escaping, "pl.store(", "an operand was made inside a pl.range loop or a pl.cond"),
        (yield_in_branch, "pl.cond(", "a pl.cond branch returns its tiles"),
        (not_a_predicate, "pl.cond(", "the predicate is a comparison of scalars"),
    ],
)
def test_branch_misuse_is_an_error_at_the_line(k, line, message):
    X, Y = Tensor("X", [2, 16, 16], f32), Tensor("Y", [2, 16, 16], f32)
    inst = k if k is yield_in_branch else k[1]
    with pytest.raises(CompileError) as info:
        pw.module(parallel_for(Dense[2], lambda i: inst(X[i], Y[i])).named("w"))
    assert message in str(info.value)
    lines, start = inspect.getsourcelines(k.fn)
    assert info.value.loc.lineno == start + next(i for i, s in enumerate(lines) if line in s)
