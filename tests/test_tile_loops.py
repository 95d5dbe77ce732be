"""Traced loops in tile kernels: ``for i in pl.range(...)`` is one ``scf.for``, tiles carried
with ``init_values`` and ``pl.yield_``; the loop runs through the passes and on the CPU
simulator and the Ascend host build, checked against numpy; misuse is a located error."""

import inspect

import numpy as np
import pytest
from xdsl.dialects import func, scf

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Tensor, f32, index, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.dialects import pto
from pto_wsp.errors import CompileError
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.lowering.ascend.tile_passes import prepared
from pto_wsp.passes.pto_plan_memory import ADDR_ATTR

RNG = np.random.default_rng(23)


@kernel
def k_matmul(a: In[f32[16, 64]], b: In[f32[64, 16]], c: Out[f32[16, 16]]):
    acc = pl.matmul(pl.load(a, [0, 0], shape=(16, 16)), pl.load(b, [0, 0], shape=(16, 16)))
    for k, (acc,) in pl.range(16, 64, 16, init_values=(acc,)):  # noqa: B020 (PyPTO's idiom)
        x = pl.load(a, [0, k], shape=(16, 16))
        y = pl.load(b, [k, 0], shape=(16, 16))
        acc = pl.yield_(pl.matmul_acc(acc, x, y))
    pl.store(acc, c)


@kernel
def row_blocks(x: In[f32[64, 32]], y: Out[f32[64, 32]], s: Out[f32[1, 32]], n: index):
    """Blocks of 16 rows scaled and stored; their column sums accumulated in a vec tile."""
    total = pl.full((1, 32), 0.0)
    for i, (total,) in pl.range(n, init_values=(total,)):  # noqa: B020
        t = pl.load(x, [i * 16, 0], shape=(16, 32))
        pl.store(pl.exp(t) * 0.5, y, [16 * i, 0])
        total = pl.yield_(total + pl.col_sum(t))
    pl.store(total, s)


@kernel
def online_softmax(x: In[f32[16, 128]], y: Out[f32[16, 32]]):
    """Softmax over 4 blocks of 32 columns, summed block by block: three carried tiles, the
    old running max read after the new one is made."""
    t = pl.load(x, [0, 0], shape=(16, 32))
    m = pl.row_max(t)
    o = pl.row_expand_exp_sub(t, m)
    total = pl.row_sum(o)
    for j, (m, total, o) in pl.range(32, 128, 32, init_values=(m, total, o)):  # noqa: B020
        t = pl.load(x, [0, j], shape=(16, 32))
        m2 = pl.max(m, pl.row_max(t))
        scale = pl.exp(m - m2)
        e = pl.row_expand_exp_sub(t, m2)
        m, total, o = pl.yield_(m2, total * scale + pl.row_sum(e), pl.row_expand_mul(o, scale) + e)
    pl.store(pl.row_expand_div(o, total), y)


def _online_workload():
    X, Y = Tensor("X", [2, 16, 128], f32), Tensor("Y", [2, 16, 32], f32)
    w = parallel_for(Dense[2], lambda i: online_softmax(X[i], Y[i])).named("online")
    x = RNG.uniform(-3, 3, (2, 16, 128)).astype(np.float32)
    blocks = np.exp(x - x.max(axis=2, keepdims=True)).reshape(2, 16, 4, 32)
    return w, {"X": x}, "Y", blocks.sum(axis=2) / blocks.sum(axis=(2, 3))[..., None]


def _matmul_workload():
    A, B = Tensor("A", [3, 16, 64], f32), Tensor("B", [3, 64, 16], f32)
    C = Tensor("C", [3, 16, 16], f32)
    w = parallel_for(Dense[3], lambda i: k_matmul(A[i], B[i], C[i])).named("mm")
    a = RNG.standard_normal((3, 16, 64)).astype(np.float32)
    b = RNG.standard_normal((3, 64, 16)).astype(np.float32)
    return w, {"A": a, "B": b}, "C", a @ b


def _rows_workload():
    X, Y = Tensor("X", [2, 64, 32], f32), Tensor("Y", [2, 64, 32], f32)
    S = Tensor("S", [2, 1, 32], f32)
    w = parallel_for(Dense[2], lambda i: row_blocks[3](X[i], Y[i], S[i])).named("rows")
    x = RNG.uniform(-1, 1, (2, 64, 32)).astype(np.float32)
    y = np.zeros_like(x)
    y[:, :48] = np.exp(x[:, :48]) * 0.5
    return w, {"X": x}, ("Y", "S"), (y, x[:, :48].sum(axis=1, keepdims=True))


def _tile_function(w) -> func.FuncOp:
    module = pw.module(w)
    return next(
        op
        for op in module.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data.endswith("_tile")
    )


def test_a_loop_is_one_scf_for_carrying_the_accumulator():
    f = _tile_function(_matmul_workload()[0])
    (loop,) = [op for op in f.walk() if isinstance(op, scf.ForOp)]
    assert [pto.tile(v).space_name for v in loop.iter_args] == ["acc"]
    assert isinstance(loop.body.block.last_op, scf.YieldOp)
    matmul_acc = next(op for op in loop.body.walk() if isinstance(op, pto.MatmulAccOp))
    assert matmul_acc.acc is loop.body.block.args[1]
    # The loop's index addresses the loads: their offsets use it.
    loads = [op for op in loop.body.walk() if isinstance(op, pto.LoadOp)]
    assert all(loop.body.block.args[0] in op.offsets for op in loads)
    f.verify()


def test_the_accumulator_shares_one_buffer_and_flags_cross_iterations():
    f = prepared(_tile_function(_matmul_workload()[0]), "910b", "k_matmul")
    (loop,) = [op for op in f.walk() if isinstance(op, scf.ForOp)]
    first = loop.iter_args[0].owner
    yielded = loop.body.block.last_op.operands[0].owner
    assert first.attributes[ADDR_ATTR] == yielded.attributes[ADDR_ATTR]
    # Ping-pong: a flag set before the loop is waited inside it and once after it.
    before = {(str(o.src_pipe), str(o.dst_pipe)) for o in _flags(f.body.block, pto.SetFlagOp)}
    inside = {(str(o.src_pipe), str(o.dst_pipe)) for o in _flags(loop.body.block, pto.WaitFlagOp)}
    assert before & inside


def _flags(block, kind):
    return [op for op in block.ops if isinstance(op, kind)]


@pytest.mark.parametrize("make", [_matmul_workload, _rows_workload, _online_workload])
def test_cpu_sim_runs_traced_loops_as_numpy_does(make):
    w, inputs, outputs, expected = make()
    outputs, expected = _pairs(outputs, expected)
    arrays = {k: np.zeros_like(v) for k, v in zip(outputs, expected)}
    pw.compile(w, target="cpu_sim").bind(**inputs, **arrays).execute()
    for name, want in zip(outputs, expected):
        np.testing.assert_allclose(arrays[name], want, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")
@pytest.mark.parametrize("make", [_matmul_workload, _rows_workload, _online_workload])
def test_ascend_host_runs_traced_loops_as_numpy_does(make):
    w, inputs, outputs, expected = make()
    outputs, expected = _pairs(outputs, expected)
    arrays = {k: np.zeros_like(v) for k, v in zip(outputs, expected)}
    pw.compile(w, target="ascend", host=True).bind(**inputs, **arrays).execute()
    for name, want in zip(outputs, expected):
        np.testing.assert_allclose(arrays[name], want, rtol=1e-5, atol=1e-5)


def _pairs(outputs, expected):
    if isinstance(outputs, str):
        return (outputs,), (expected,)
    return outputs, expected


# --------------------------------------------------------------------------- errors


@kernel
def leaves_early(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    for _ in pl.range(4):
        t = pl.load(x)
        break
    pl.store(t, y)


@kernel
def no_yield(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    for _, (t,) in pl.range(4, init_values=(t,)):  # noqa: B020
        t = t * 2.0
    pl.store(t, y)


@kernel
def escapes(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    for _ in pl.range(4):
        t = pl.load(x)
    pl.store(t, y)


@kernel
def wrong_carry(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    for _, (t,) in pl.range(4, init_values=(t,)):  # noqa: B020
        t = pl.yield_(pl.row_sum(t))
    pl.store(t, y)


@kernel
def after_yield(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    for _, (t,) in pl.range(4, init_values=(t,)):  # noqa: B020
        t = pl.yield_(t * 2.0)
        pl.store(t, y)


@pytest.mark.parametrize(
    ("k", "line", "message"),
    [
        (leaves_early, "pl.range(", "pl.range: the loop was left early (break or return)"),
        (no_yield, "pl.range(", "end its body with pl.yield_"),
        (escapes, "pl.store(", "an operand was made inside a pl.range loop or a pl.cond branch that has ended"),
        (wrong_carry, "pl.yield_(", "tile 0 is !pto.tile<16x1xf32, vec>, the loop carries"),
        (after_yield, "pl.store(", "pl.yield_ ends the loop body"),
    ],
)
def test_loop_misuse_is_an_error_at_the_line(k, line, message):
    X, Y = Tensor("X", [2, 16, 16], f32), Tensor("Y", [2, 16, 16], f32)
    with pytest.raises(CompileError) as info:
        pw.module(parallel_for(Dense[2], lambda i: k(X[i], Y[i])).named("w"))
    assert message in str(info.value)
    lines, start = inspect.getsourcelines(k.fn)
    assert info.value.loc.lineno == start + next(i for i, s in enumerate(lines) if line in s)
