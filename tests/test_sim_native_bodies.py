"""The functional mode's bodies at the core's speed (docs/simulator.md "Kernel bodies"): a body
that does nothing is not called, and tile kernels' compiled bodies are called by the native
core (runtime/native_bodies.py, runtime/core/bodies.cpp) with no Python per task — in the
dispatch order, interleaved exactly with the numpy bodies of a mixed program."""

from __future__ import annotations

import inspect
import sys
from contextlib import contextmanager

import numpy as np
import pytest

import pto_wsp as pw
from pto_wsp import (
    Dense,
    ExecutionError,
    In,
    InOut,
    Out,
    Tensor,
    f32,
    for_each,
    i32,
    kernel,
    parallel_for,
    task,
)
from pto_wsp import tile as pl
from pto_wsp.lowering.cpu.tile import TileFunction
from pto_wsp.runtime.kernels import does_nothing

N = 8
X = Tensor("X", [N, 4, 4], f32)
Y = Tensor("Y", [N, 4, 4], f32)
WAYS = {"native": {}, "engine": {"fast": False}}


@contextmanager
def calls():
    """The code objects of the Python functions called inside the block, in order."""
    seen: list = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code) if event == "call" else 0)
    try:
        yield seen
    finally:
        sys.setprofile(None)


# --------------------------------------------------------------------------- empty bodies


@kernel
def ellipsis(x: In[f32[4, 4]], y: Out[f32[4, 4]]): ...


@kernel
def documented(x: In[f32[4, 4]], y: Out[f32[4, 4]]):
    """Does nothing."""
    pass


@kernel
def returns_none(x: In[f32[4, 4]], y: Out[f32[4, 4]]):
    return None


@kernel
def one_statement(x: In[f32[4, 4]], y: Out[f32[4, 4]]):
    y[...] = x


@pytest.mark.parametrize("options", list(WAYS.values()), ids=list(WAYS))
@pytest.mark.parametrize("k", [ellipsis, documented, returns_none])
def test_an_empty_body_is_not_called(k, options):
    prog = (
        parallel_for(Dense[N], lambda i: k(X[i], Y[i]))
        .named("w")
        .compile(target="cpu_sim", **options)
    )
    x, y = np.ones((N, 4, 4), np.float32), np.zeros((N, 4, 4), np.float32)
    prog.bind(X=x, Y=y)
    with calls() as seen:
        prog.execute()
    assert k.fn.__code__ not in seen
    assert not y.any()


@pytest.mark.parametrize("options", list(WAYS.values()), ids=list(WAYS))
def test_a_body_with_one_statement_is_called_per_task(options):
    w = parallel_for(Dense[N], lambda i: one_statement(X[i], Y[i])).named("w")
    prog = w.compile(target="cpu_sim", **options)
    x, y = np.ones((N, 4, 4), np.float32), np.zeros((N, 4, 4), np.float32)
    prog.bind(X=x, Y=y)
    with calls() as seen:
        prog.execute()
    assert seen.count(one_statement.fn.__code__) == N
    np.testing.assert_array_equal(y, x)


def test_what_does_nothing():
    def empty(a, b):
        pass

    def fewer():
        pass

    def varargs(*a):
        """Doc."""

    async def coroutine(a, b):
        pass

    def generator(a, b):
        yield

    def store(a, b):
        b[...] = a

    assert does_nothing(empty, 2) and does_nothing(varargs, 2)
    assert does_nothing(lambda a, b: None, 2)
    # A call that raises, or makes an object, or does anything is a body's own outcome.
    assert not does_nothing(fewer, 2)
    assert not does_nothing(coroutine, 2) and not does_nothing(generator, 2)
    assert not does_nothing(store, 2) and not does_nothing(print, 2)


def test_does_nothing_is_decided_per_code_and_defaults():
    """Functions of one code (each compile's KernelSpecs) are decided alike, unless their
    defaults or an explicit signature change whether the call succeeds."""

    def make():
        def body(a, b, c):
            pass

        return body

    one, two, three = make(), make(), make()
    assert does_nothing(one, 3) and does_nothing(two, 3)
    assert not does_nothing(one, 2)
    two.__defaults__ = (None,)
    assert does_nothing(two, 2) and not does_nothing(one, 2)
    three.__signature__ = inspect.Signature()
    assert not does_nothing(three, 3) and does_nothing(one, 3)


def test_an_empty_body_taking_other_parameters_still_fails_its_task():
    def k(a, b):  # a wrong arity: the call raises, as it did
        pass

    @kernel
    def two(x: In[f32[4, 4]], s: f32, y: Out[f32[4, 4]]): ...

    w = parallel_for(Dense[N], lambda i: two[1.0](X[i], Y[i])).named("w")
    prog = w.compile(target="cpu_sim", kernels={"two": k})
    with pytest.raises(ExecutionError, match="task 0 .*TypeError"):
        prog.bind(X=np.zeros((N, 4, 4), np.float32), Y=np.zeros((N, 4, 4), np.float32)).execute()


# --------------------------------------------------------------------------- tile kernels


@kernel
def axpy(x: In[f32[4, 4]], y: InOut[f32[4, 4]], a: f32):
    pl.store(pl.load(x) * a + pl.load(y), y)


@kernel
def double(y: InOut[f32[4, 4]]):
    y *= 2


@kernel
def quotient(x: In[i32[4, 4]], d: In[i32[4, 4]], q: Out[i32[4, 4]]):
    pl.store(pl.div(pl.load(x), pl.load(d)), q)


def _numpy_calls(seen: list) -> int:
    return seen.count(TileFunction.__call__.__code__)


def test_tile_kernels_are_called_by_the_core():
    w = parallel_for(Dense[N], lambda i: axpy[2.0](X[i], Y[i])).named("w")
    prog = pw.compile(w, target="cpu_sim")
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, N, 4, 4), dtype=np.float32)
    want = x * np.float32(2) + y
    prog.bind(X=x, Y=y)
    with calls() as seen:
        prog.execute()
    assert _numpy_calls(seen) == 0  # no Python call per task
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_regions_beyond_int32_are_read_as_int64():
    """A region offset past 2^31 (rows of a zero-stride input): the graph keeps its regions
    in int64 and the core reads them so, still with no Python call per task."""
    rows = (1 << 31) + 8
    big = Tensor("B", [rows, 4, 4], f32)
    w = parallel_for(Dense[N], lambda i: axpy[2.0](big[rows - N + i], Y[i])).named("w")
    prog = pw.compile(w, target="cpu_sim")
    b = np.broadcast_to(np.float32(3), (rows, 4, 4))
    y = np.ones((N, 4, 4), np.float32)
    prog.bind(B=b, Y=y)
    with calls() as seen:
        prog.execute()
    assert _numpy_calls(seen) == 0
    np.testing.assert_array_equal(y, np.full((N, 4, 4), 7, np.float32))


def test_views_with_strides_and_kept_dimensions():
    """Y[:, j] of a transposed, strided array: the core's descriptors are numpy's views."""
    A = Tensor("A", [4, N, 4], f32)
    w = parallel_for(Dense[N], lambda j: axpy[0.5](X[j], A[:, j])).named("w")
    prog = pw.compile(w, target="cpu_sim")
    x = np.arange(N * 16, dtype=np.float32).reshape(N, 4, 4)
    big = np.ones((8, N, 8), np.float32)
    a = big[::2, :, 1::2]  # strided in every dimension
    want = a.copy()
    for j in range(N):
        want[:, j] += x[j] * np.float32(0.5)
    prog.bind(X=x, A=a).execute()
    np.testing.assert_array_equal(a, want)
    assert (big[1::2] == 1).all() and (big[:, :, ::2] == 1).all()  # nothing else written


@pytest.mark.parametrize("options", [{}, {"workers": 3}], ids=["1 worker", "3 workers"])
def test_a_mixed_chain_runs_in_dispatch_order(options):
    """Tile and numpy bodies updating one tile in turn: any other order gives another value."""
    x = np.full((N, 4, 4), 1.0, np.float32)

    def step(j):
        return [axpy[2.0](X[j], Y[0]), double(Y[0])]

    w = for_each(Dense[N], step).named("chain")
    y = np.zeros((N, 4, 4), np.float32)
    pw.compile(w, target="cpu_sim", **options).bind(X=x, Y=y).execute()
    want = np.float32(0)
    for _ in range(N):
        want = (want + np.float32(2)) * np.float32(2)
    np.testing.assert_array_equal(y[0], np.full((4, 4), want, np.float32))
    assert not y[1:].any()


def test_integer_division_by_zero_gives_numpys_result():
    Q = [Tensor(n, [N, 4, 4], i32) for n in ("Xi", "D", "Q")]
    w = parallel_for(Dense[N], lambda i: quotient(Q[0][i], Q[1][i], Q[2][i])).named("w")
    x = np.arange(N * 16, dtype=np.int32).reshape(N, 4, 4) - 40
    d = np.resize(np.array([0, 3, -2, 0, 5], np.int32), (N, 4, 4))
    q = np.ones_like(x)
    pw.compile(w, target="cpu_sim").bind(Xi=x, D=d, Q=q).execute()
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(q, np.where(d == 0, 0, np.trunc(x / np.where(d, d, 1))))


def test_a_task_the_core_cannot_call_gets_its_error():
    """An unbound tensor: the core leaves the task to Python, which names it."""
    w = for_each(Dense[N], lambda i: axpy[1.0](X[i], Y[i])).named("w")
    prog = pw.compile(w, target="cpu_sim")
    with pytest.raises(ExecutionError, match=r"task 0 .*tensor 'Y' is not bound"):
        prog.bind(X=np.zeros((N, 4, 4), np.float32)).execute()


def test_the_same_results_as_the_numpy_entry_on_threads():
    w = parallel_for(Dense[N], lambda i: axpy[3.0](X[i], Y[i])).named("w")
    x = np.random.default_rng(2).standard_normal((N, 4, 4), dtype=np.float32)
    ys = []
    for options in ({}, {"threads": 2}):
        y = np.ones((N, 4, 4), np.float32)
        pw.compile(w, target="cpu_sim", **options).bind(X=x, Y=y).execute()
        ys.append(y)
    np.testing.assert_array_equal(ys[0], ys[1])


def test_task_api_kernels_mix_with_tile_kernels():
    @kernel
    def copy(i, x: In[f32[4, 4]], y: Out[f32[4, 4]]):
        y[...] = x + i

    Z = Tensor("Z", [N, 4, 4], f32)
    w = pw.combine(
        parallel_for(Dense[N], lambda i: task(copy, [i], [X[i], Z[i]])),
        parallel_for(Dense[N], lambda i: axpy[1.0](Z[i], Y[i])),
    ).named("w")
    x, y, z = (
        np.ones((N, 4, 4), np.float32),
        np.zeros((N, 4, 4), np.float32),
        np.zeros((N, 4, 4), np.float32),
    )
    pw.compile(w, target="cpu_sim").bind(X=x, Y=y, Z=z).execute()
    want = x + np.arange(N, dtype=np.float32)[:, None, None]
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(y, want)
