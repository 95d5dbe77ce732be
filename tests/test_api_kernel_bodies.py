"""Kernel bodies that misbehave are caught (docs/simulator.md "Kernel bodies"): a write into an
``In`` view and a returned value are ExecutionErrors naming the task, on every way the
functional mode calls bodies (the general engine, the fast path task by task and in columns,
threads); a body returning one of its own views (``np.add(a, b, out=c)``) is fine."""

from __future__ import annotations

import numpy as np
import pytest

from pto_wsp import (
    Dense,
    ErrorCode,
    ExecutionError,
    In,
    InOut,
    Out,
    Tensor,
    f32,
    kernel,
    parallel_for,
    task,
)

#: (compile options, whether the fast path must be taken)
WAYS = {
    "engine": ({"fast": False}, False),
    "native": ({}, True),
    "threads": ({"threads": 2}, True),
}


@pytest.fixture(params=list(WAYS))
def way(request):
    return WAYS[request.param]


N = 32  # tasks
X = Tensor("X", [N, 4], f32)
Y = Tensor("Y", [N, 4], f32)


def _run(k, way, i_first: bool = True):
    """Run ``k`` over N rows (X in, Y out) and return the program and the arrays."""
    options, fast = way
    if i_first:
        w = parallel_for(Dense[N], lambda i: task(k, [i], [X[i], Y[i]])).named("rows")
    else:
        w = parallel_for(Dense[N], lambda i: task(k, [], [X[i], Y[i]])).named("rows")
    x = np.arange(4 * N, dtype=np.float32).reshape(N, 4)
    y = np.zeros((N, 4), np.float32)
    p = w.compile(target="cpu_sim", **options).bind(X=x, Y=y)
    return p, x, y, fast


def test_a_body_writing_its_input_is_an_execution_error_naming_the_task(way):
    @kernel
    def scribble(i, x: In[f32[4]], y: Out[f32[4]]):
        if i == 3:
            x[0] = -1.0
        y[...] = x

    p, x, _, fast = _run(scribble, way)
    with pytest.raises(ExecutionError) as info:
        p.execute()
    assert (p.fast_declined is None) == fast
    error = info.value
    assert error.kernel == "scribble" and dict(error.coords) == {"i": 3}
    assert error.code is ErrorCode.KERNEL_FAILED
    assert "read-only" in str(error) and "declare it Out or InOut" in str(error)
    assert (x == np.arange(4 * N).reshape(N, 4)).all()  # the input is intact


def test_inout_views_stay_writeable(way):
    @kernel
    def bump(i, x: InOut[f32[4]]):
        x += 1

    w = parallel_for(Dense[N], lambda i: task(bump, [i], [X[i]])).named("bumps")
    x = np.zeros((N, 4), np.float32)
    w.compile(target="cpu_sim", **way[0]).bind(X=x).execute()
    assert (x == 1).all()


@pytest.mark.parametrize("i_first", [True, False], ids=["scalar-first", "tensors-only"])
def test_a_body_returning_its_result_is_an_execution_error_naming_the_task(way, i_first):
    if i_first:

        @kernel
        def double(i, x: In[f32[4]], y: Out[f32[4]]):
            return x * 2

    else:

        @kernel
        def double(x: In[f32[4]], y: Out[f32[4]]):
            return x * 2

    p, _, y, _ = _run(double, way, i_first)
    with pytest.raises(ExecutionError) as info:
        p.execute()
    error = info.value
    assert error.kernel == "double"
    assert "returned a value (ndarray) instead of writing its results" in str(error)
    assert "y[...] = value" in str(error)
    assert (y == 0).all()


def test_a_body_returning_its_own_output_view_is_fine(way):
    @kernel
    def double(i, x: In[f32[4]], y: Out[f32[4]]):
        return np.multiply(x, 2, out=y)

    p, x, y, _ = _run(double, way)
    p.execute()
    np.testing.assert_array_equal(y, 2 * x)

