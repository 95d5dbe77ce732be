"""The native path (runtime/run.py on the native core) gives exactly the reference engine's run.

Every program runs twice — ``fast=True`` (the default) and ``fast=False`` (always
runtime/engine.py's Simulator) — and the two runs must agree on everything: per node the
worker, start, end, issue number, stream and lane; the statistics; the stall spans; the order
the functional mode calls the bodies in, and the results; a run that stops (a task window with
overflow=abort that fills, a failing body) stops after the same bodies with the same error.
Each directive's outcome is compared with the engine's, and with the other implementations,
in the conformance table (test_conformance.py); these tests keep random combinations of
directives, views, errors and runs again.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_properties import DISPATCH, A, H, X, Y, accumulate, consume_k, n, produce

from pto_wsp import (
    Channel,
    DenseDyn,
    ExecutionError,
    In,
    InOut,
    IssuePolicy,
    Out,
    Tensor,
    TimingPolicy,
    combine,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    parallel_for,
    process,
    send,
    sequential,
    task,
)
from pto_wsp.runtime.run import Run
from pto_wsp.runtime.trace import chrome_trace


@kernel(cost=lambda i: 6 * (i % 2))
def touch(i, y: In[f32[4]], z: Out[f32[4]]):
    z[...] = y


Z = Tensor("Z", [None, 4], f32)


def _stages(group):
    return group(
        parallel_for(DenseDyn(n), lambda i: task(produce, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(consume_k, [i], [H[i], Y[i]])),
        for_each(DenseDyn(n), lambda i: task(accumulate, [i], [Y[i], A[0]])),
        parallel_for(DenseDyn(n), lambda i: task(touch, [i], [Y[i], Z[i]])),
    )


@kernel(cost=9)
def copy_row(i, y: In[f32[4]], z: Out[f32[4]]):
    z[...] = y


#: Constant costs only: a cycles run reads no task's scalars, coordinates or regions.
FIXED = combine(
    parallel_for(DenseDyn(n), lambda i: task(copy_row, [i], [X[i], Y[i]])),
    for_each(DenseDyn(n), lambda i: task(accumulate, [i], [Y[i], A[0]])),
).named("fixed_costs")

WORKLOADS = [
    _stages(combine).named("fast_combine"),  # data edges only
    _stages(sequential).named("fast_sequential"),  # barriers between the stages
]


def _logged(log):
    """Kernel bodies that record the order they are called in."""

    def wrap(k):
        def body(i, *views):
            log.append((k.name, i))
            k.fn(i, *views)

        return body

    return {k.name: wrap(k) for k in (produce, consume_k, accumulate, touch)}


def _arrays(size):
    x = np.arange(size * 4, dtype=np.float32).reshape(size, 4)
    return {
        "X": x,
        "H": np.zeros_like(x),
        "Y": np.zeros_like(x),
        "Z": np.zeros_like(x),
        "A": np.zeros((1, 4), np.float32),
    }


def both(target, size, **options):
    """Run ``target`` on both paths; return (fast program, general program, logs, arrays)."""
    out = []
    for fast in (True, False):
        log: list = []
        prog = target.compile(target="cpu_sim", fast=fast, kernels=_logged(log), **options)
        names = {a.name for a in prog.args}
        arrays = {k: v for k, v in _arrays(size).items() if k in names}
        prog.bind(n=size, **arrays).execute()
        out.append((prog, log, arrays))
    (pf, lf, af), (pg, lg, ag) = out
    return pf, pg, (lf, lg), (af, ag)


_PER_NODE = (
    "worker",
    "start",
    "end",
    "issue_seq",
    "stream_of",
    "lane",
    "created_t",
    "issued_t",
    "deps_t",
)


def assert_same(pf, pg, logs=None, arrays=None, fast=True):
    sf, sg = pf._last(), pg._last()
    assert isinstance(sf, Run) == fast, pf.fast_declined
    assert not isinstance(sg, Run)
    for name in _PER_NODE:
        assert getattr(sf, name) == getattr(sg, name), name
    df, dg = pf.stats().as_dict(), pg.stats().as_dict()
    for d in (df, dg):
        d.pop("execute_time_ms")
        d.pop("compile_time_ms")
    phases = df.pop("phases_ms")
    assert dg.pop("phases_ms") == {}  # the engine's phases interleave
    # (one phase when the schedule was made beside the build)
    built = {"build", "schedule"} if "build" in phases else {"build and schedule"}
    expected = built | ({"bodies"} if pf.mode == "functional" else set())
    assert set(phases) - {"load"} == (expected if fast else set())  # load: the first run
    assert sum(phases.values()) <= pf.stats().execute_time_ms
    assert df == dg
    assert sf.stall_spans == sg.stall_spans
    assert pf.schedule_of() == pg.schedule_of()
    assert pf.graph().edge_set() == pg.graph().edge_set()
    if logs is not None:
        assert logs[0] == logs[1]
    if arrays is not None:
        for name in arrays[0]:
            np.testing.assert_array_equal(arrays[0][name], arrays[1][name])


TIMING = st.sampled_from(
    [
        None,
        TimingPolicy.immediate(),
        TimingPolicy.batched(3),
        TimingPolicy.interleaved(2),
        TimingPolicy.interleaved(5),
        TimingPolicy.rate_limit(50000),
    ]
)


@st.composite
def cases(draw):
    s = draw(st.sampled_from(WORKLOADS)).schedule()
    dispatch = draw(DISPATCH)
    if dispatch is not None:
        s = s.dispatch(dispatch)
    streams = draw(st.sampled_from([0, 1, 2, 3]))
    if streams:
        s = s.streams(streams)
        if draw(st.booleans()):
            s = s.stream_by(lambda i: i % 3)
    if draw(st.booleans()):
        s = s.issue(IssuePolicy.priority(lambda i: 100 - i % 5))
    timing = draw(TIMING)
    if timing is not None:
        s = s.timing(timing)
    depth = draw(st.sampled_from([0, 0, 1, 2, 3]))
    if depth:
        s = s.pipeline_depth(depth, draw(st.sampled_from(["global", "per_stream", "per_pool"])))
    batch = draw(st.sampled_from([0, 2, 4]))
    if batch:
        s = s.batch_deps(batch)
    if draw(st.integers(0, 4)) == 0:
        s = s.dispatch_threshold(4, lambda i: i % 7, below="vector", above="cube")
    if draw(st.integers(0, 4)) == 0:  # the generator stalls on a full window
        s = s.task_window(draw(st.sampled_from([1, 2, 5])))
    options = {"workers": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        options = {"vector_workers": draw(st.integers(1, 2)), "cube_workers": 1}
    options["mode"] = draw(st.sampled_from(["functional", "cycles"]))
    options["gen_cost"] = draw(st.sampled_from([0, 0, 0, 3, 700, 5000]))
    return s, options


@settings(max_examples=40, deadline=None)
@given(cases(), st.one_of(st.integers(1, 9), st.sampled_from([16, 23])))
def test_random_schedules_give_the_engines_run(case, size):
    schedule, options = case
    pf, pg, logs, arrays = both(schedule, size, **options)
    assert_same(pf, pg, logs, arrays)
    if options["mode"] == "functional":
        x = arrays[0]["X"]
        np.testing.assert_array_equal(arrays[0]["Z"], 2 * x + 1)
        np.testing.assert_array_equal(arrays[0]["A"][0], (2 * x + 1).sum(axis=0))


def test_trace_threads_and_progress_on_the_native_path():
    pf, pg, _, _ = both(WORKLOADS[0], 7, workers=3)
    assert chrome_trace(pf) == chrome_trace(pg)
    calls = []
    pf.execute(progress=lambda created, completed: calls.append((created, completed)))
    assert calls and calls[-1] == (28, 28)
    threaded = WORKLOADS[0].compile(target="cpu_sim", threads=2, workers=3)
    arrays = _arrays(7)
    threaded.bind(n=7, **arrays).execute()
    assert isinstance(threaded._last(), Run)
    np.testing.assert_array_equal(arrays["A"][0], (2 * arrays["X"] + 1).sum(axis=0))
    assert threaded.schedule_of() == pg.schedule_of()


def test_execution_error_names_the_same_task():
    @kernel(cost=3)
    def boom(i, x: In[f32[4]], y: Out[f32[4]]):
        if i == 3:
            raise ValueError("bad tile")

    w = parallel_for(DenseDyn(n), lambda i: task(boom, [i], [X[i], Y[i]])).named("boom_all")
    messages = []
    for fast in (True, False):
        prog = w.compile(target="cpu_sim", fast=fast, workers=2)
        x = np.zeros((6, 4), np.float32)
        with pytest.raises(ExecutionError) as info:
            prog.bind(n=6, X=x, Y=np.zeros_like(x)).execute()
        messages.append(str(info.value))
        assert prog.fast_declined == (None if fast else "fast=False")
    assert messages[0] == messages[1]
    assert "bad tile" in messages[0]


def test_unbound_tensor_fails_at_the_same_task():
    messages = []
    for fast in (True, False):
        prog = WORKLOADS[0].compile(target="cpu_sim", fast=fast, workers=3)
        arrays = _arrays(20)
        del arrays["Z"]
        with pytest.raises(ExecutionError) as info:
            prog.bind(n=20, **arrays).execute()
        messages.append(str(info.value))
        # the bodies before it ran in both paths: accumulate's chain reached A
        assert arrays["A"].any()
    assert messages[0] == messages[1]
    assert "tensor 'Z' is not bound" in messages[0]


def test_huge_priorities_give_the_engines_run():
    s = WORKLOADS[0].schedule().issue(IssuePolicy.priority(lambda i: i * 2**60))
    assert_same(*both(s, 5, workers=2))


@pytest.mark.parametrize("mode", ["functional", "cycles"])
def test_task_window_abort_stops_where_the_engine_does(mode):
    """``overflow=abort``: a run whose window never fills is the engine's (which never aborts
    then); one whose window fills raises the engine's ResourceError after the same bodies."""
    from pto_wsp import ResourceError

    big = WORKLOADS[1].schedule().task_window(64, overflow="abort")  # 20 tasks: never full
    pf, pg, logs, arrays = both(big, 5, workers=2, mode=mode)
    assert pf.fast_declined is None
    assert_same(pf, pg, logs, arrays)
    small = WORKLOADS[1].schedule().task_window(3, overflow="abort")
    messages, results = [], []
    for fast in (True, False):
        log: list = []
        prog = small.compile(
            target="cpu_sim", fast=fast, kernels=_logged(log), mode=mode, workers=2
        )
        arrays = {k: v for k, v in _arrays(5).items() if k in {a.name for a in prog.args}}
        with pytest.raises(ResourceError, match="task window full") as info:
            prog.bind(n=5, **arrays).execute()
        messages.append(str(info.value))
        results.append((log, {k: v.copy() for k, v in arrays.items()}))
    assert messages[0] == messages[1]
    assert results[0][0] == results[1][0]  # the same bodies ran, in the same order
    for k in results[0][1]:
        np.testing.assert_array_equal(results[0][1][k], results[1][1][k])


def test_a_negative_cost_is_the_same_error_on_both_paths():
    @kernel(cost=lambda i: 4 - 5 * (i % 3))
    def odd(i, x: In[f32[4]], y: Out[f32[4]]):
        pass

    w = parallel_for(DenseDyn(n), lambda i: task(odd, [i], [X[i], Y[i]])).named("odd_all")
    messages = []
    for fast in (True, False):
        prog = w.compile(target="cpu_sim", mode="cycles", fast=fast)
        with pytest.raises(ExecutionError) as info:
            prog.bind(n=4).execute()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "task 1 (kernel @odd, i=1) failed: its cost function returned -1" in messages[0]


def test_pipelines_run_on_the_native_core():
    ch = Channel("tiles", capacity=2)
    producer = (
        process("producer")
        .produces(ch)
        .body(for_each(DenseDyn(n), lambda i: send(ch, task(produce, [i], [X[i], H[i]]))))
    )
    consumer = (
        process("consumer")
        .consumes(ch)
        .body(consume(ch, lambda t: task(consume_k, [t], [H[t], Y[t]])))
    )
    pipe = connect([producer, consumer], [ch]).named("pipe")
    prog = pipe.compile(target="cpu_sim", mode="cycles", workers=2)
    prog.bind(n=3).execute()
    assert prog.fast_declined is None
    assert prog.stats().num_tasks == 6


@kernel(cost=3)
def late(y: In[f32[4]], i, z: Out[f32[4]]):
    z[...] = y + i


def test_row_views_are_the_engines_views():
    """The views a body receives on the native path — runs of rows, rows shared by several
    tasks, scattered rows; a kernel taking a scalar after a tensor — are the engine's: same
    shape, strides and memory, for every task."""

    def record(log, name):
        def body(*xs):
            log.append(
                (
                    name,
                    tuple(
                        (x.shape, x.strides, x.__array_interface__["data"][0])
                        if isinstance(x, np.ndarray)
                        else int(x)
                        for x in xs
                    ),
                )
            )

        return body

    m = 24
    w_simple = combine(
        parallel_for(DenseDyn(n), lambda i: task(produce, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(consume_k, [i], [H[n - 1 - i], Y[i % 3]])),
        for_each(DenseDyn(n), lambda i: task(accumulate, [i], [Y[i], A[0]])),
    ).named("views_simple")
    w_late = combine(
        parallel_for(DenseDyn(n), lambda i: task(late, [i], [X[i], Z[i // 2]])),
    ).named("views_late")
    for w in (w_simple, w_late):
        logs = []
        for fast in (True, False):
            log: list = []
            names = ("produce", "consume_k", "accumulate", "late")
            prog = w.compile(
                target="cpu_sim", fast=fast, kernels={k: record(log, k) for k in names}
            )
            arrays = {k: v for k, v in _arrays(m).items() if k in {a.name for a in prog.args}}
            prog.bind(n=m, **arrays).execute()
            assert (prog.fast_declined is None) == fast
            logs.append([_where(e, arrays) for e in log])
        assert logs[0] == logs[1] and logs[0]
    # Scalars after a tensor: the bodies got them in their places.
    assert any(e[0] == "late" and e[1][1] == 5 for e in logs[0])


T3 = Tensor("T3", [None, 8, 6], f32)
C2 = Tensor("C2", [8, None], f32)


@kernel(cost=2)
def tile_in(i, x: In[f32[2, 3]], c: In[f32[8, 2]], z: Out[f32[4]]):
    z[...] = x.sum() + c.sum() + i


def test_tile_views_are_the_engines_views():
    """Regions that are not whole rows — tiles moving along a middle dimension, a block of
    columns, a fixed tile — on a C-ordered, a Fortran-ordered and a sliced bound array: the engine's views for every
    task (shape, strides, memory), the same results."""

    def record(log):
        def body(i, *xs):
            log.append((i, *((x.shape, x.strides, x.__array_interface__["data"][0]) for x in xs)))
            x, c, z = xs
            z[...] = x.sum() + c.sum() + i

        return body

    m = 6
    w = combine(
        parallel_for(
            DenseDyn(n),
            lambda i: task(tile_in, [i], [T3[0, i : i + 2, 1:4], C2[:, 2 * i : 2 * i + 2], Z[i]]),
        ),
        parallel_for(
            DenseDyn(n), lambda i: task(tile_in, [i], [T3[i, 5:7, 3:6], C2[:, 0:2], Y[i]])
        ),
    ).named("views_tiles")
    base = np.arange(m * 8 * 6, dtype=np.float32).reshape(m, 8, 6)
    cols = np.arange(8 * 2 * m, dtype=np.float32).reshape(8, 2 * m)
    bound = {
        "C": (base, cols),
        "F": (np.asfortranarray(base), np.asfortranarray(cols)),
        "sliced": (np.arange(m * 8 * 12, dtype=np.float32).reshape(m, 8, 12)[:, :, ::2], cols),
    }
    out = {"Y": np.zeros((m, 4), np.float32), "Z": np.zeros((m, 4), np.float32)}
    for t3, c2 in bound.values():
        runs = []
        for fast in (True, False):
            log: list = []
            prog = w.compile(target="cpu_sim", fast=fast, kernels={"tile_in": record(log)})
            for v in out.values():
                v[...] = 0
            prog.bind(n=m, T3=t3, C2=c2, **out).execute()
            assert (prog.fast_declined is None) == fast
            runs.append((sorted(log), {k: v.copy() for k, v in out.items()}))
        (log_fast, out_fast), (log_general, out_general) = runs
        assert log_fast == log_general and len(log_fast) == 2 * m
        for k in out_fast:
            np.testing.assert_array_equal(out_fast[k], out_general[k])
        assert {entry[1][0] for entry in log_fast} == {(2, 3)}
        assert out_fast["Z"][5, 0] == t3[0, 5:7, 1:4].sum() + c2[:, 10:12].sum() + 5


def _where(entry, arrays):
    """A recorded call with each view as (tensor, byte offset, shape, strides)."""
    name, xs = entry
    out = []
    for x in xs:
        if isinstance(x, tuple):
            shape, strides, ptr = x
            (owner,) = [
                (k, ptr - v.__array_interface__["data"][0])
                for k, v in arrays.items()
                if 0 <= ptr - v.__array_interface__["data"][0] < v.nbytes
            ]
            out.append((*owner, shape, strides))
        else:
            out.append(x)
    return name, tuple(out)


@kernel(cost=lambda i, j: 5 + (i + j) % 3)
def cell(i, j, x: In[f32[4]], y: InOut[f32[4]]):
    y += x


def _cells(name):
    """n chains of 20 ``cell`` tasks: a parallel_for over i of a for_each over j."""
    X2 = Tensor("X2", [None, None, 4], f32)
    Y2 = Tensor("Y2", [None, 4], f32)
    return combine(
        parallel_for(
            DenseDyn(n),
            lambda i: for_each(DenseDyn(20), lambda j: task(cell, [i, j], [X2[i, j], Y2[i]])),
        ),
    ).named(name)


def _failing(bad):
    def body(*xs):
        if xs[:2] == bad:
            raise ValueError(f"bad cell {bad}")

    return body


@pytest.mark.parametrize("bad", [(0, 17), (2, 5), (3, 19)])
def test_an_error_in_a_body_names_the_same_task(bad):
    """Bodies in the dispatch order — contiguous rows (the parallel nest), reordered rows
    (the for_each chains, dispatched across chains): a raising body is named as the engine
    names it, and no later body ran."""
    w = _cells("cells")
    messages, calls = [], []
    for fast in (True, False):
        log = []

        def body(*xs, _log=log):
            _log.append(xs[:2])
            _failing(bad)(*xs)

        prog = w.compile(target="cpu_sim", fast=fast, workers=3, kernels={"cell": body})
        x = np.zeros((4, 20, 4), np.float32)
        with pytest.raises(ExecutionError) as info:
            prog.bind(n=4, X2=x, Y2=np.zeros((4, 4), np.float32)).execute()
        assert prog.fast_declined == (None if fast else "fast=False")
        messages.append(str(info.value))
        calls.append(log)
    assert messages[0] == messages[1] and f"bad cell {bad}" in messages[0]
    assert calls[0] == calls[1] and calls[0][-1] == bad


def test_bodies_run_in_the_engines_order_with_progress():
    """Over 8,192 tasks progress is reported every 8,192 bodies: every body
    is called once, in the engine's dispatch order, and the results equal numpy."""
    w = _cells("cells_many")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((450, 20, 4)).astype(np.float32)
    logs, reports = [], []
    for fast in (True, False):
        log = []

        def body(i, j, xv, yv, _log=log):
            _log.append((i, j))
            yv += xv

        y = np.zeros((450, 4), np.float32)
        prog = w.compile(target="cpu_sim", fast=fast, workers=4, kernels={"cell": body})
        calls = []
        prog.bind(n=450, X2=x, Y2=y).execute(progress=lambda c, r, _c=calls: _c.append((c, r)))
        np.testing.assert_allclose(y, x.sum(axis=1), rtol=1e-5, atol=1e-5)
        logs.append(log)
        reports.append(calls)
    assert len(logs[0]) == 9000 and logs[0] == logs[1]
    assert reports[0][-1] == (9000, 9000) and (9000, 8192) in reports[0]


def test_row_views_kept_between_runs_follow_the_bound_arrays():
    """A Program keeps the views of its bound tensors from run to run (no views made
    again): runs write into the arrays bound now — after a rebind, never into the arrays
    bound before — and a bound array reshaped in place gets views of its new geometry."""
    w = _cells("cells_rows")
    prog = w.compile(
        target="cpu_sim", workers=3, kernels={"cell": lambda i, j, x, y: y.__iadd__(x)}
    )
    x1 = np.ones((4, 20, 4), np.float32)
    y1 = np.zeros((4, 4), np.float32)
    prog.bind(n=4, X2=x1, Y2=y1).execute().execute()
    np.testing.assert_array_equal(y1, np.full((4, 4), 40.0))
    assert prog._views  # kept
    x2 = np.full((4, 20, 4), 2.0, np.float32)
    y2 = np.zeros((4, 4), np.float32)
    prog.bind(X2=x2, Y2=y2).execute()
    np.testing.assert_array_equal(y2, np.full((4, 4), 40.0))
    np.testing.assert_array_equal(y1, np.full((4, 4), 40.0))  # the old arrays untouched
    # Kept rows are checked against the array bound now (not only cleared by bind): an
    # array swapped in behind bind's back is not written through the old views.
    x3 = np.full((4, 20, 4), 3.0, np.float32)
    y3 = np.zeros((4, 4), np.float32)
    prog._bindings.update(X2=x3, Y2=y3)
    assert prog._views
    prog.execute()
    np.testing.assert_array_equal(y3, np.full((4, 4), 60.0))
    np.testing.assert_array_equal(y2, np.full((4, 4), 40.0))


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
@pytest.mark.parametrize("gen_cost", [0, 3])
def test_generation_cost_and_batch_deps_on_chains(workload, gen_cost):
    """gen_cost on the native path: task k is created at k * gen_cost (creation times, issue
    and dependency stalls as the engine's); batch_deps flushes at the ordering point after
    every task of a for_each chain, also when the chain was created as one batch (16 tasks:
    the batch path)."""
    schedule = workload.schedule().batch_deps(2)
    for mode in ("cycles", "functional"):
        pf, pg, logs, arrays = both(schedule, 16, workers=1, mode=mode, gen_cost=gen_cost)
        assert_same(pf, pg, logs, arrays)
        chain = [
            t for t in range(pf.graph().num_nodes) if pf.graph().kernel_name(t) == "accumulate"
        ]
        assert pf._last().issued_t[chain[-1]] == pf._last().created_t[chain[-1]]  # flushed at once
    assert pf._last().created_t[-1] == gen_cost * (pf.stats().num_tasks - 1)


@settings(max_examples=30, deadline=None)
@given(cases(), st.sampled_from([16, 23]))
def test_a_program_run_again_gives_the_engines_run(case, size):
    """The third run of a Program (its scheduler's memory, its kept views reused) is still
    exactly the engine's, schedule and results."""
    schedule, options = case
    log: list = []
    pf = schedule.compile(target="cpu_sim", kernels=_logged(log), **options)
    names = {a.name for a in pf.args}
    arrays = {k: v for k, v in _arrays(size).items() if k in names}
    initial = {k: v.copy() for k, v in arrays.items()}
    pf.bind(n=size, **arrays)
    runs = []
    for _ in range(3):
        for k in arrays:  # the same arrays, their first values again
            arrays[k][...] = initial[k]
        log.clear()
        pf.execute()
        runs.append(pf._last())
    log_g: list = []
    pg = schedule.compile(target="cpu_sim", fast=False, kernels=_logged(log_g), **options)
    arrays_g = {k: v.copy() for k, v in initial.items()}
    pg.bind(n=size, **arrays_g).execute()
    assert_same(pf, pg, (log, log_g), (arrays, arrays_g))


def test_a_program_run_again_builds_in_the_memory_of_its_last_run():
    """A later execute lets go of the last run first, so its graph is built in the same core
    memory (no fresh pages); a graph the caller still holds keeps its memory and its values."""
    prog = WORKLOADS[0].compile(target="cpu_sim", mode="cycles").bind(n=64, **_arrays(64))
    prog.execute()
    address = prog.graph().fanout_edges.ctypes.data  # (the address only: the graph goes)
    prog.execute()
    assert prog.graph().fanout_edges.ctypes.data == address
    held = prog.graph()
    edges = held.fanout_edges.copy()
    prog.execute()
    assert prog.graph().fanout_edges.ctypes.data != address
    assert np.array_equal(held.fanout_edges, edges)
    assert np.array_equal(prog.graph().fanout_edges, edges)


def test_a_program_run_again_schedules_into_the_arrays_of_its_last_run():
    """The scheduler keeps its per-node outputs between runs; a Run still held keeps its own."""
    prog = WORKLOADS[0].compile(target="cpu_sim", mode="cycles").bind(n=64, **_arrays(64))
    names = ("worker_array", "end_array", "order")
    prog.execute()
    address = prog._last().end_array.ctypes.data  # (the address only: the run goes)
    prog.execute()
    assert prog._last().end_array.ctypes.data == address
    held = prog._last()
    values = [getattr(held, k).copy() for k in names]
    prog.execute()
    again = prog._last()
    assert again.end_array.ctypes.data != address
    for name, was in zip(names, values):
        assert np.array_equal(getattr(held, name), was)
        assert np.array_equal(getattr(again, name), was)


def _nothing(i, *views):
    pass


def _fixed_arrays():
    return {k: v for k, v in _arrays(6).items() if k in "XYA"}


@pytest.mark.parametrize("mode", ["cycles", "functional"])
def test_a_run_that_reads_no_records_stores_none_and_graph_gives_them(mode):
    """A cycles run with constant costs, and a functional run whose bodies do nothing, store
    no task's scalars, coordinates or regions; graph(), schedule_of() and the trace still
    give them (built again), equal to those of a run that reads them, and to the engine's."""
    kernels = {"copy_row": _nothing, "accumulate": _nothing}
    prog = FIXED.compile(target="cpu_sim", mode=mode, kernels=kernels).bind(n=6, **_fixed_arrays())
    prog.execute()
    graph = prog.graph()
    assert not {"_begin", "_values"} & set(vars(graph.regions))
    reading = FIXED.compile(target="cpu_sim", mode="functional").bind(n=6, **_fixed_arrays())
    recorded = reading.execute().graph()
    for name in ("args", "regions", "coords"):
        assert list(getattr(graph, name)) == list(getattr(recorded, name)), name
    engine = FIXED.compile(target="cpu_sim", mode=mode, kernels=kernels, fast=False)
    engine.bind(n=6, **_fixed_arrays()).execute()
    assert_same(prog, engine)
    assert chrome_trace(prog) == chrome_trace(engine)
