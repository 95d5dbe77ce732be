"""Properties of the simulator under random schedules (hypothesis).

Whatever the schedule: every edge of the task graph is respected in virtual time, a worker
runs one task at a time, placement follows the dispatch target, the pipeline depth and the
task window are never exceeded, tasks of one stream start in issue order — and the
functional results are those of numpy ("the schedule never changes results").
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_wsp import (
    DenseDyn,
    DispatchPolicy,
    In,
    InOut,
    IssuePolicy,
    Out,
    Tensor,
    TimingPolicy,
    combine,
    f32,
    for_each,
    kernel,
    parallel_for,
    sym,
    task,
)
from pto_wsp.lowering.taskgraph import KIND_BARRIER


@kernel(cost=lambda i: 10 + 7 * (i % 3))
def produce(i, x: In[f32[4]], h: Out[f32[4]]):
    h[...] = x * 2


@kernel(cost=lambda i: 20 + 5 * (i % 4))
def consume_k(i, h: In[f32[4]], y: Out[f32[4]]):
    y[...] = h + 1


@kernel(cost=15, exec_unit="cube")
def accumulate(i, y: In[f32[4]], a: InOut[f32[4]]):
    a += y


X = Tensor("X", [None, 4], f32)
H = Tensor("H", [None, 4], f32)
Y = Tensor("Y", [None, 4], f32)
A = Tensor("A", [1, 4], f32)
n = sym("n")

WORKLOAD = combine(
    parallel_for(DenseDyn(n), lambda i: task(produce, [i], [X[i], H[i]])),
    parallel_for(DenseDyn(n), lambda i: task(consume_k, [i], [H[i], Y[i]])),
    for_each(DenseDyn(n), lambda i: task(accumulate, [i], [Y[i], A[0]])),
).named("props")

DISPATCH = st.sampled_from(
    [
        None,
        DispatchPolicy.round_robin(3),
        DispatchPolicy.work_steal(),
        DispatchPolicy.affinity("i"),
        DispatchPolicy.hash(lambda i: i),
        DispatchPolicy.range("i", 2),
        DispatchPolicy.dispatch_by(lambda i: i % 2),
    ]
)
TIMING = st.sampled_from(
    [
        None,
        TimingPolicy.immediate(),
        TimingPolicy.batched(3),
        TimingPolicy.interleaved(2),
        TimingPolicy.rate_limit(50000),
    ]
)


@st.composite
def schedules(draw):
    s = WORKLOAD.schedule()
    dispatch = draw(DISPATCH)
    if dispatch is not None:
        s = s.dispatch(dispatch)
    streams = draw(st.sampled_from([0, 1, 2, 3]))
    if streams:
        s = s.streams(streams)
        if draw(st.booleans()):
            s = s.stream_by(lambda i: i % 3)
    if draw(st.booleans()):
        s = s.issue(IssuePolicy.priority(lambda i: 100 - i))
    timing = draw(TIMING)
    if timing is not None:
        s = s.timing(timing)
    depth = draw(st.sampled_from([0, 1, 2, 3]))
    scope = draw(st.sampled_from(["global", "per_stream", "per_pool"]))
    if depth:
        s = s.pipeline_depth(depth, scope)
    window = draw(st.sampled_from([0, 2, 5]))
    if window:
        s = s.task_window(window)
    batch = draw(st.sampled_from([0, 2, 4]))
    if batch:
        s = s.batch_deps(batch)
    options = {
        "workers": draw(st.integers(1, 4)),
        "gen_cost": draw(st.sampled_from([0, 3])),
    }
    if draw(st.booleans()):
        options = {"vector_workers": 2, "cube_workers": 1, "gen_cost": options["gen_cost"]}
    return s, options, {"depth": depth, "scope": scope, "window": window, "streams": streams}


def _check_invariants(prog, params):
    sim = prog._last()
    graph = prog.graph()
    ends = sim.end
    starts = sim.start
    # Every edge is respected (barriers complete when their last predecessor does).
    src, dst = graph.edges()
    for u, v in zip(src.tolist(), dst.tolist()):
        start_v = ends[v] if graph.kind[v] == KIND_BARRIER else starts[v]
        assert start_v >= ends[u], (u, v)
    tasks = [i for i in range(graph.num_nodes) if graph.kind[i] != KIND_BARRIER]
    # One task at a time per worker.
    by_worker = defaultdict(list)
    for i in tasks:
        by_worker[sim.worker[i]].append((starts[i], ends[i]))
    for spans in by_worker.values():
        spans.sort()
        for (_, e0), (s1, _) in zip(spans, spans[1:]):
            assert s1 >= e0
    # Placement: a task with a target runs on the worker it names (of its pool).
    for i in tasks:
        target = int(graph.target[i])
        if target >= 0:
            pool = int(graph.pool[i])
            candidates = sim.pool_workers.get(pool, sim.pool_workers[255])
            assert sim.worker[i] == candidates[target % len(candidates)]
    # The pipeline depth of each scope is never exceeded.
    if params["depth"]:
        events = defaultdict(list)
        for i in tasks:
            scope = sim._scope(i)
            events[scope] += [(starts[i], 1), (ends[i], -1)]
        for evs in events.values():
            running = 0
            for _, delta in sorted(evs, key=lambda e: (e[0], e[1])):
                running += delta
                assert running <= params["depth"]
    # The task window bounds created-but-not-completed tasks.
    if params["window"]:
        points = sorted([(sim.created_t[i], 1) for i in tasks] + [(ends[i], -1) for i in tasks])
        live = 0
        for _, delta in sorted(points, key=lambda p: (p[0], p[1])):
            live += delta
            assert live <= params["window"]
    # Tasks of one stream (lane) start in issue order.
    if params["streams"]:
        lanes = defaultdict(list)
        for i in tasks:
            lanes[sim.lane[i]].append((sim.issue_seq[i], starts[i]))
        for entries in lanes.values():
            entries.sort()
            assert all(a[1] <= b[1] for a, b in zip(entries, entries[1:]))


@settings(max_examples=40, deadline=None)
@given(schedules(), st.integers(1, 9))
def test_every_schedule_keeps_the_invariants_and_the_results(case, size):
    schedule, options, params = case
    prog = schedule.compile(target="cpu_sim", **options)
    x = np.arange(size * 4, dtype=np.float32).reshape(size, 4)
    arrays = {
        "X": x,
        "H": np.zeros_like(x),
        "Y": np.zeros_like(x),
        "A": np.zeros((1, 4), np.float32),
    }
    prog.bind(n=size, **arrays).execute()
    np.testing.assert_array_equal(arrays["Y"], 2 * x + 1)
    np.testing.assert_array_equal(arrays["A"][0], (2 * x + 1).sum(axis=0))
    assert prog.stats().num_tasks == 3 * size
    _check_invariants(prog, params)
