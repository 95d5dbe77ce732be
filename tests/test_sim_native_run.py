"""The compiled scheduler (runtime/fastsched.py) gives exactly the general engine's run.

Every program runs twice — ``fast=True`` (the default) and ``fast=False`` (always
runtime/engine.py's Simulator) — and the two runs must agree on everything: per node the
worker, start, end, issue number, stream and lane; the statistics; the stall spans; the order
the functional mode calls the bodies in, and the results. Features the fast path does not
port (pipelines, a task window with overflow=abort that fills, out-of-range costs or
priorities) must make it decline, and the result is still the engine's. Each directive's
outcome is compared with the engine's, and with the other implementations, in the conformance
table (test_conformance.py); these tests keep random combinations of directives and the fast
path's own machinery (batches, bulk views, replayed builds, workspaces, loading).
"""

from __future__ import annotations

import dataclasses

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
from pto_wsp.runtime.fastsched import FastRun
from pto_wsp.runtime.trace import chrome_trace


@pytest.fixture(autouse=True)
def _fast_path_for_small_graphs(monkeypatch):
    """These tests run small graphs through the fast path (below FAST_MIN_TASKS a process
    that has not loaded the compiled scheduler takes the general engine)."""
    from pto_wsp.runtime import fastsched

    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 0)
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS_COLD", 0)  # compiled if need be


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
    assert isinstance(sf, FastRun) == fast, pf.fast_declined
    assert not isinstance(sg, FastRun)
    for name in _PER_NODE:
        assert getattr(sf, name) == getattr(sg, name), name
    df, dg = pf.stats().as_dict(), pg.stats().as_dict()
    for d in (df, dg):
        d.pop("execute_time_ms")
        d.pop("compile_time_ms")
    phases = df.pop("phases_ms")
    assert dg.pop("phases_ms") == {}  # the engine's phases interleave
    expected = {"build", "schedule"} | ({"bodies"} if pf.mode == "functional" else set())
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
    # Sizes from 16 on take the batch path (regular nests generated as arrays).
    schedule, options = case
    pf, pg, logs, arrays = both(schedule, size, **options)
    assert_same(pf, pg, logs, arrays)
    if options["mode"] == "functional":
        x = arrays[0]["X"]
        np.testing.assert_array_equal(arrays[0]["Z"], 2 * x + 1)
        np.testing.assert_array_equal(arrays[0]["A"][0], (2 * x + 1).sum(axis=0))


def test_trace_threads_and_progress_on_the_fast_path():
    pf, pg, _, _ = both(WORKLOADS[0], 7, workers=3)
    assert chrome_trace(pf) == chrome_trace(pg)
    calls = []
    pf.execute(progress=lambda created, completed: calls.append((created, completed)))
    assert calls and calls[-1] == (28, 28)
    threaded = WORKLOADS[0].compile(target="cpu_sim", threads=2, workers=3)
    arrays = _arrays(7)
    threaded.bind(n=7, **arrays).execute()
    assert isinstance(threaded._last(), FastRun)
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


@pytest.mark.parametrize(
    "options, schedule, reason",
    [
        ({}, lambda s: s.issue(IssuePolicy.priority(lambda i: i * 2**60)), "the graph"),
    ],
)
def test_declined_features_run_on_the_engine(options, schedule, reason):
    s = WORKLOADS[0].schedule()
    if schedule is not None:
        s = schedule(s)
    pf, pg, logs, arrays = both(s, 5, workers=2, **options)
    assert pf.fast_declined is not None and reason in pf.fast_declined
    assert_same(pf, pg, logs, arrays, fast=False)


@pytest.mark.parametrize("mode", ["functional", "cycles"])
def test_task_window_abort_takes_the_fast_path_until_the_window_fills(mode):
    """``overflow=abort``: a run whose window never fills is the fast path's (the same run as
    the engine's, which never aborts then); one whose window fills declines after scheduling,
    before any body ran, and the engine raises the same ResourceError after the same bodies."""
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
        if fast:
            assert "window filled" in prog.fast_declined
    assert messages[0] == messages[1]
    assert results[0][0] == results[1][0]  # the same bodies ran, in the same order
    for k in results[0][1]:
        np.testing.assert_array_equal(results[0][1][k], results[1][1][k])


def test_negative_cost_declines():
    @kernel(cost=lambda i: 4 - 5 * (i % 3))
    def odd(i, x: In[f32[4]], y: Out[f32[4]]):
        pass

    w = parallel_for(DenseDyn(n), lambda i: task(odd, [i], [X[i], Y[i]])).named("odd_all")
    runs = []
    for fast in (True, False):
        prog = w.compile(target="cpu_sim", mode="cycles", fast=fast)
        prog.bind(n=4).execute()
        runs.append(prog)
    assert "cost" in runs[0].fast_declined
    assert runs[0].schedule_of() == runs[1].schedule_of()


def test_pipelines_decline():
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
    assert "pipeline" in prog.fast_declined
    assert prog.stats().num_tasks == 6


@kernel(cost=3)
def late(y: In[f32[4]], i, z: Out[f32[4]]):
    z[...] = y + i


def test_bulk_views_are_the_engines_views():
    """The views a body receives on the fast path — made in bulk from a batch's arrays: runs
    of rows, rows shared by several tasks, scattered rows; joined with the scalars in one
    tuple, or not when a kernel takes a scalar after a tensor — are the engine's: same
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


def test_tile_views_made_in_bulk_are_the_engines_views():
    """Regions that are not whole rows — tiles moving along a middle dimension, a block of
    columns, a fixed tile — made in bulk as strided windows (``_window_views``), on a
    C-ordered, a Fortran-ordered and a sliced bound array: the engine's views for every
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


def test_window_views_decline_what_numpy_would_clip_or_wrap():
    from pto_wsp.runtime.bulk import BatchRegion
    from pto_wsp.runtime.fastsched import _view, _window_views

    a = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    ok = BatchRegion("a", (np.array([0, 3, 6]), 2), (2, 3), (1, 1), "in", (0, 1))
    views = _window_views(ok, 3, a)
    for j, o in enumerate((0, 3, 6)):
        assert views[j].shape == (2, 3) and views[j].strides == a[o : o + 2, 2:5].strides
        assert views[j].__array_interface__["data"][0] == a[o:, 2:].__array_interface__["data"][0]
        np.testing.assert_array_equal(views[j], a[o : o + 2, 2:5])
    strided = BatchRegion("a", (1, np.array([0, 1])), (3, 2), (2, 3), "in", (0, 1))
    for j, view in enumerate(_window_views(strided, 2, a)):
        np.testing.assert_array_equal(view, a[1:6:2, j : j + 4 : 3])
    for offsets in ((np.array([0, 7]), 2), (np.array([-1, 0]), 0), (0, 4)):
        assert _window_views(BatchRegion("a", offsets, (2, 3), (1, 1), "in", (0, 1)), 2, a) is None
    assert _window_views(ok, 0, a) == []
    assert _window_views(ok, 2, a) is None  # offsets for 3 tasks, 2 asked: per task
    assert _window_views(ok, 3, a[::-1]) is None  # a negative stride: per task
    assert _view(a, BatchRegion("a", (7, 2), (2, 3), (1, 1), "in", (0, 1))).shape == (1, 3)


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


def test_small_graphs_take_the_general_engine_until_the_scheduler_is_loaded(monkeypatch):
    """Below FAST_MIN_TASKS the compiled scheduler is not loaded for one run (0.3-0.5 s, or
    its one-time compile); once loaded, every run takes it. The results are the same."""
    from pto_wsp.runtime import fastsched

    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 10**9)
    monkeypatch.setattr(fastsched, "loaded", lambda: False)
    small, general, logs, arrays = both(WORKLOADS[0], 8, mode="cycles", workers=2)
    assert "FAST_MIN_TASKS" in small.fast_declined
    assert not isinstance(small._last(), FastRun)
    monkeypatch.setattr(fastsched, "loaded", lambda: True)
    fast, general, logs, arrays = both(WORKLOADS[0], 8, mode="cycles", workers=2)
    assert fast.fast_declined is None and isinstance(fast._last(), FastRun)
    assert fast.schedule_of() == small.schedule_of() == general.schedule_of()
    assert fastsched.load() and fastsched.schedule.signatures


def test_small_runs_load_the_scheduler_once_their_tasks_add_up(monkeypatch):
    """A Program run again and again, each run under FAST_MIN_TASKS: the general engine runs
    until the process's small runs reach FAST_MIN_TASKS tasks together, then the compiled
    scheduler is loaded and every later run takes it (the same schedule)."""
    from pto_wsp.runtime import fastsched

    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 20)
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    in_memory = [False]
    monkeypatch.setattr(fastsched, "loaded", lambda: in_memory[0])
    fastsched.load()  # (really in memory: the run that "loads" it only asks)
    monkeypatch.setattr(fastsched, "load", lambda: True)
    prog = WORKLOADS[0].compile(target="cpu_sim", mode="cycles", workers=2)
    names = {a.name for a in prog.args}
    prog.bind(n=2, **{k: v for k, v in _arrays(2).items() if k in names})  # 4 stages of 2
    taken = []
    for _ in range(4):
        prog.execute()
        taken.append(isinstance(prog._last(), FastRun))
        in_memory[0] = in_memory[0] or taken[-1]
        if not taken[-1]:
            assert "earlier small runs" in prog.fast_declined
            general = prog.schedule_of()
    assert prog.stats().num_tasks == 8
    assert taken == [False, False, True, True]  # 8, 16, then 24 >= 20 tasks
    assert prog.fast_declined is None and prog.schedule_of() == general
    assert fastsched._small_tasks == 16


def test_worth_loading_counts_small_runs(monkeypatch):
    from pto_wsp.runtime import fastsched

    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 100)
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    assert fastsched.worth_loading(100)  # big enough alone; nothing counted
    assert [fastsched.worth_loading(40) for _ in range(3)] == [False, False, True]
    assert fastsched._small_tasks == 80


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
def test_error_in_a_bulk_stretch_names_the_same_task(bad):
    """Batches of >= 16 tasks call their bodies by stretches of the dispatch order (one
    ``map`` over columns per stretch): contiguous rows (the parallel nest), reordered rows
    (the for_each chains, dispatched across chains). A raising body is named as the engine
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


def test_bulk_stretches_call_the_engines_order_with_progress():
    """Over 8,192 tasks the bodies run in stretches cut at each progress report: every body
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


def test_workspaces_alternate_between_runs():
    """The fast path reuses its per-node memory from run to run (two workspaces, taken in
    turn): each run's schedule equals a fresh program's, whatever ran before it in other
    sizes, and a failing run leaves the last good run's results readable and intact."""
    w = _cells("cells_reuse")
    fail = [False]

    def body(i, j, xv, yv):
        if fail[0] and (i, j) == (1, 3):
            raise ValueError("planned")
        yv += xv

    def bound(prog, size):
        x = np.ones((size, 20, 4), np.float32)
        return prog.bind(n=size, X2=x, Y2=np.zeros((size, 4), np.float32))

    def fresh(size):
        prog = w.compile(target="cpu_sim", workers=3, kernels={"cell": body})
        return bound(prog, size).execute().schedule_of()

    prog = w.compile(target="cpu_sim", workers=3, kernels={"cell": body})
    spaces = []
    for size in (6, 3, 9, 2, 6):
        bound(prog, size).execute()
        assert prog.fast_declined is None
        spaces.append(prog._last().workspace)
        if size != 6:  # (the last run's results are read only after the failing run)
            assert prog.schedule_of() == fresh(size)
    assert spaces[0] is spaces[2] is spaces[4] and spaces[1] is spaces[3]
    assert spaces[0] is not spaces[1]
    before = fresh(6)
    stats = bound(w.compile(target="cpu_sim", workers=3, kernels={"cell": body}), 6)
    stats = dataclasses.replace(stats.execute().stats(), compile_time_ms=0.0)
    fail[0] = True
    with pytest.raises(ExecutionError):
        bound(prog, 9).execute()
    # (execute_time_ms is the failed run's: elapsed_ms() times the last execution)
    after = dataclasses.replace(
        prog.stats(), execute_time_ms=stats.execute_time_ms, compile_time_ms=0.0
    )
    after.phases_ms = stats.phases_ms = {}
    assert prog.schedule_of() == before and after == stats
    fail[0] = False
    bound(prog, 9).execute()
    assert prog.schedule_of() == fresh(9)


def test_row_views_kept_between_runs_follow_the_bound_arrays():
    """A Program keeps the row views of its bound tensors from run to run (no views made
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
    assert prog._rows  # kept
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
    assert prog._rows
    prog.execute()
    np.testing.assert_array_equal(y3, np.full((4, 4), 60.0))
    np.testing.assert_array_equal(y2, np.full((4, 4), 40.0))


def test_kept_body_inputs_and_stretches_follow_the_graph_and_the_order():
    """A Program run again with the same graph reuses the bodies' argument columns and the
    cut of the dispatch order (``_kept_inputs``, ``_kept_stretches``); another trip count
    (other batches) or other bound arrays (also swapped in behind bind's back) make them
    again — the bodies are called with the engine's arguments, in its order, every time."""
    from pto_wsp.runtime import fastsched

    w = _cells("cells_kept")
    log = []

    def cell(i, j, xv, yv):
        log.append((i, j, float(xv[0]), yv.ctypes.data))

    progs = {}
    for workers in (3, 2):
        for fast in (True, False):
            progs[fast, workers] = w.compile(
                target="cpu_sim", workers=workers, fast=fast, kernels={"cell": cell}
            )
    x = np.arange(6 * 20 * 4, dtype=np.float32).reshape(6, 20, 4)
    y = np.zeros((6, 4), np.float32)

    def run_both(n, workers, x, y, bind=True):
        logs = []
        for fast in (True, False):
            log.clear()
            prog = progs[fast, workers]
            if bind:  # (bind clears what the Program kept)
                prog.bind(n=n, X2=x, Y2=y)
            prog.execute()
            assert (prog.fast_declined is None) == fast
            logs.append(list(log))
        assert logs[0] == logs[1] and len(logs[0]) == 20 * n
        rows = progs[True, workers]._rows
        return rows.get(fastsched._INPUTS), rows.get(fastsched._STRETCHES)

    first = run_both(4, 3, x, y)
    assert first[0] is not None and first[1] is not None
    again = run_both(4, 3, x, y, bind=False)
    assert again[0] is first[0] and again[1] is first[1]  # reused
    other_n = run_both(5, 3, x, y)
    assert other_n[0] is not first[0]  # other batches: made again
    x2 = x + 1000
    other_x = run_both(5, 3, x2, y)
    assert other_x[0] is not other_n[0]  # other arrays: made again
    for fast in (True, False):  # swapped in behind bind's back: checked, not only cleared
        progs[fast, 3]._bindings.update(X2=x)
    assert run_both(5, 3, x, y, bind=False)[0] is not other_x[0]
    assert run_both(5, 2, x2, y)[1] is not None  # another Program, another order: its own


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
@pytest.mark.parametrize("gen_cost", [0, 3])
def test_generation_cost_and_batch_deps_on_batched_chains(workload, gen_cost):
    """gen_cost on the fast path: task k is created at k * gen_cost (creation times, issue
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
def test_a_program_run_again_replays_its_build_and_gives_the_engines_run(case, size):
    """Runs after the first replay the build they recorded (docs/batchgen.md "Replaying a
    build"); the third run is still exactly the engine's, schedule and results. (Replays
    need the batch path's compiled kernels: loaded here, as a long run loads them.)"""
    from pto_wsp.runtime import bulk_kernels

    bulk_kernels.load()
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
    if isinstance(runs[0], FastRun) and runs[0].graph._rec is not None:  # recorded
        assert all(r.graph._replay is not None for r in runs[1:])
