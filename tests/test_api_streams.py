"""Streams and events in ordinary workloads (seed 001 §6; docs/semantics.md "Streams and
events"): one test per order rule, on both simulator engines (the compiled scheduler and the
general engine must give the same schedule), checked on the graph (which task waits for
which) and on the run (a task starts after what it waits for has ended).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_wsp import (
    Channel,
    CompileError,
    Dense,
    DenseDyn,
    Event,
    InOut,
    IssuePolicy,
    Stream,
    Tensor,
    TimingPolicy,
    barrier,
    combine,
    cond,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    parallel_for,
    process,
    query,
    record,
    send,
    stream_wait,
    sym,
    synchronize,
    task,
)


@kernel(cost=10)
def k(i, x: InOut[f32[4]]):
    x += i + 1


X = Tensor("X", [16, 4], f32)
s0, s1, s2 = Stream(0), Stream(1), Stream(2)
e, f = Event("e"), Event("f")


def t(i: int):
    """Task i: adds i + 1 to row i (rows are disjoint: no data order between tasks)."""
    return task(k, [i], [X[i]])



def run(target, workers: int = 4, **options):
    """Run on both engines; they agree; return the general engine's program."""
    progs = []
    for fast in (True, False):
        prog = target.compile(target="cpu_sim", fast=fast, workers=workers, **options)
        x = np.zeros((16, 4), np.float32)
        prog.bind(X=x).execute()
        assert prog.fast_declined == (None if fast else "fast=False")
        progs.append((prog, x))
    (pf, xf), (pg, xg) = progs
    np.testing.assert_array_equal(xf, xg)
    assert pf.schedule_of() == pg.schedule_of()
    return pg, xg


def task_of(prog) -> dict[int, int]:
    """Task i (its first parameter) -> its node id."""
    graph = prog.graph()
    return {int(graph.args[n][0]): int(n) for n in graph.task_ids()}


def after(prog, a: int, b: int) -> bool:
    """Whether task b waits for task a (a path in the graph), and then starts after a ends."""
    ids = task_of(prog)
    waits = prog.graph().reachable(ids[a], ids[b])
    if waits:
        runs = {d["id"]: d for d in prog.schedule_of()}
        assert runs[ids[b]]["start"] >= runs[ids[a]]["end"]
    return waits


def test_stream_issue_gives_the_tasks_their_stream():
    w = combine(s1.issue(t(0), t(1)), s2.issue(t(2)), t(3)).named("streams")
    assert "wsp.stream 1 {" in str(w)
    prog, x = run(w)
    streams = {d["coords"].get("i", d["id"]): d["stream"] for d in prog.schedule_of()}
    ids = task_of(prog)
    by_task = {i: streams[ids[i]] for i in range(4)}
    assert by_task == {0: 1, 1: 1, 2: 2, 3: 0}  # a task outside any stream is on stream 0
    np.testing.assert_array_equal(x[:4, 0], [1, 2, 3, 4])


def test_tasks_of_one_stream_start_in_issue_order():
    # One worker and a priority favouring later tasks: within a stream, issue order holds.
    w = combine(s0.issue(t(0), t(1), t(2)), s1.issue(t(3), t(4))).named("order")
    s = w.schedule().issue(IssuePolicy.priority(lambda t: 0)).timing(TimingPolicy.batched(5))
    prog, _ = run(s, workers=1)
    ids = task_of(prog)
    start = {d["id"]: d["start"] for d in prog.schedule_of()}
    assert start[ids[0]] < start[ids[1]] < start[ids[2]]
    assert start[ids[3]] < start[ids[4]]


def test_stream_wait_orders_the_streams_later_tasks_after_the_event():
    w = combine(
        s0.issue(t(0)),
        s0.record(e),
        s0.issue(t(1)),  # after the record: not part of e
        s1.issue(t(2)),  # before the wait: free
        stream_wait(s1, e),
        s1.issue(t(3)),  # waits for e = {0}
        s2.issue(t(4)),  # another stream: free
    ).named("stream_wait")
    prog, _ = run(w)
    assert after(prog, 0, 3)
    assert not after(prog, 1, 3) and not after(prog, 0, 2) and not after(prog, 0, 4)


def test_synchronize_orders_every_later_task_after_the_event():
    w = combine(
        s0.issue(t(0)),
        s0.record(e),
        s1.issue(t(1)),
        synchronize(e),
        s1.issue(t(2)),
        s2.issue(t(3)),
    ).named("synchronize")
    prog, _ = run(w)
    assert after(prog, 0, 2) and after(prog, 0, 3)
    assert not after(prog, 1, 2) and not after(prog, 0, 1)


def test_stream_synchronize_waits_for_the_streams_tasks_so_far():
    w = combine(
        s0.issue(t(0), t(1)),
        s1.issue(t(2)),
        s0.synchronize(),
        t(3),
        s1.issue(t(4)),
    ).named("stream_sync")
    prog, _ = run(w)
    assert after(prog, 0, 3) and after(prog, 1, 4)
    assert not after(prog, 2, 3) and not after(prog, 2, 4)


def test_record_outside_a_stream_covers_every_task_so_far():
    w = combine(s0.issue(t(0)), s1.issue(t(1)), record(e), s2.issue(t(2)), synchronize(e), t(3))
    prog, _ = run(w.named("record_all"))
    assert after(prog, 0, 3) and after(prog, 1, 3)
    assert not after(prog, 2, 3)


def test_barrier_of_events_and_barrier_of_everything():
    w = combine(
        s0.issue(t(0)),
        s0.record(e),
        s1.issue(t(1)),
        s1.record(f),
        s2.issue(t(2)),
        barrier(e, f),
        s2.issue(t(3)),  # after 0 and 1, not 2
        barrier(),
        t(4),  # after everything before
    ).named("barriers")
    prog, _ = run(w)
    assert after(prog, 0, 3) and after(prog, 1, 3) and not after(prog, 2, 3)
    assert all(after(prog, i, 4) for i in range(4))


def test_a_wait_takes_the_events_last_record_before_it():
    # Recorded in each iteration of a for_each... without the loop's own order: per row.
    w = combine(
        s0.issue(t(0)),
        s0.record(e),
        s0.issue(t(1)),
        s1.issue(t(2)),  # waits for nothing
        stream_wait(s1, e),
        s0.record(e),  # e re-recorded: {0, 1}; the wait above keeps {0}
        s1.issue(t(3)),
        stream_wait(s2, e),
        s2.issue(t(4)),
    ).named("rerecord")
    prog, _ = run(w)
    assert after(prog, 0, 3) and not after(prog, 1, 3)
    assert after(prog, 0, 4) and after(prog, 1, 4)


def test_query_is_whether_the_event_was_recorded_earlier_in_creation_order():
    # Iteration 0 queries before the first record (else branch), later ones after it.
    n = sym("n")
    w = for_each(
        DenseDyn(n),
        lambda i: combine(
            cond(query(e), task(k, [i], [X[i]]), task(k, [i + 8], [X[i + 8]])), record(e)
        ),
    ).named("query")
    prog = w.compile(target="cpu_sim")
    x = np.zeros((16, 4), np.float32)
    prog.bind(X=x, n=4).execute()
    assert (x[:, 0] > 0).nonzero()[0].tolist() == [1, 2, 3, 8]


def test_single_stream_and_per_axis():
    w = parallel_for(Dense[4], lambda b: t(b)).named("per_axis")
    one = w.schedule().issue(IssuePolicy.single_stream())
    assert "sched.streams 1" in str(one)
    prog, _ = run(one, workers=1)
    assert {d["stream"] for d in prog.schedule_of()} == {0}
    per = w.schedule().issue(IssuePolicy.per_axis("b"))
    assert "sched.streams 4" in str(per) and 'sched.stream_by key(%b = "b")' in str(per)
    prog, _ = run(per)
    assert sorted(d["stream"] for d in prog.schedule_of()) == [0, 1, 2, 3]
    dyn = parallel_for(DenseDyn(sym("m")), lambda b: t(b)).named("per_axis_dyn")
    with pytest.raises(CompileError, match="has no static extent: give .streams\\(n\\) first"):
        dyn.schedule().issue(IssuePolicy.per_axis("b"))
    assert "sched.streams 2" in str(dyn.schedule().streams(2).issue(IssuePolicy.per_axis("b")))


def test_deadline_issues_the_earliest_deadline_first():
    w = parallel_for(Dense[4], lambda b: t(b)).named("deadline")
    s = w.schedule().issue(IssuePolicy.deadline(lambda b: 10 - b)).timing(TimingPolicy.batched(4))
    prog, _ = run(s, workers=1)
    ids = task_of(prog)
    start = {d["id"]: d["start"] for d in prog.schedule_of()}
    assert sorted(range(4), key=lambda i: start[ids[i]]) == [3, 2, 1, 0]


def test_bad_streams_and_events_are_errors():
    with pytest.raises(CompileError, match="a stream is an int >= 0, got -1"):
        Stream(-1)
    with pytest.raises(CompileError, match="expected a Stream, got 3"):
        stream_wait(3, e)
    with pytest.raises(CompileError, match="barrier names an event twice"):
        barrier(e, e)
    with pytest.raises(CompileError, match="event 'e' is never recorded in @lonely"):
        combine(t(0), synchronize(e)).named("lonely").module()


def test_in_a_pipeline_record_and_synchronize_stay_a_rendezvous():
    ch = Channel("ch", capacity=1)
    ev = Event("ev")
    producer = process("p").produces(ch, ev).body([send(ch, task(k, [0], [X[0]])), record(ev)])
    consumer = process("c").consumes(ch, ev).body([consume(ch), synchronize(ev)])
    text = str(connect([producer, consumer], [ch, ev]).named("pipe"))
    assert "csp.record @ev" in text and "csp.synchronize @ev" in text
