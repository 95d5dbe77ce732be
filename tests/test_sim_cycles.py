"""The CPU simulator's cycles mode: exact invariants of every schedule directive (issue 5).

Virtual time is exact integer arithmetic on the kernels' costs, so these are equalities, not
timings: no test here measures wall-clock time.
"""

from __future__ import annotations

import pytest

import pto_wsp
from pto_wsp import (
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
    IssuePolicy,
    Out,
    ResourceError,
    Tensor,
    TimingPolicy,
    f32,
    for_each,
    kernel,
    parallel_for,
    sym,
    task,
)

C = 100  # the cost of one task


@kernel(cost=C)
def step(i, x: In[f32[4]], y: Out[f32[4]]):
    pass


@kernel(cost=C, exec_unit="cube")
def mm(i, x: In[f32[4]], y: Out[f32[4]]):
    pass


X = Tensor("X", [None, 4], f32)
Y = Tensor("Y", [None, 4], f32)
n = sym("n")


def independent(k=step):
    """n independent tasks: i reads X[i], writes Y[i]."""
    return parallel_for(DenseDyn(n), lambda i: task(k, [i], [X[i], Y[i]])).named("indep")


def chain():
    """A for_each chain: iteration i+1 after iteration i (and no data order at all)."""
    return for_each(DenseDyn(n), lambda i: task(step, [i], [X[i], Y[i]])).named("chain")


def run(schedule_or_workload, tasks=4, **options):
    options.setdefault("mode", "cycles")
    prog = schedule_or_workload.compile(target="cpu_sim", **options)
    if any(a.name == "n" for a in prog.args):
        prog.bind(n=tasks)
    prog.execute()
    return prog


def makespan(*args, **kwargs):
    return run(*args, **kwargs).stats().makespan_cycles


def starts(prog):
    """(coordinate i, worker, start) per task, in start order."""
    rows = sorted(prog.schedule_of(), key=lambda t: (t["start"], t["worker"]))
    return [(t["coords"]["i"], t["worker"], t["start"]) for t in rows]


def test_round_robin_two_workers_is_half_the_serial_makespan():
    serial = makespan(independent(), workers=1)
    assert serial == 4 * C
    rr = run(independent().schedule().dispatch(DispatchPolicy.round_robin(2)))
    assert rr.stats().num_workers == 2  # round_robin(2) sizes the machine
    assert rr.stats().makespan_cycles == serial / 2
    assert rr.stats().tasks_per_worker == [2, 2]
    assert rr.stats().utilization == [1.0, 1.0]


def test_task_window_one_is_serial():
    assert makespan(independent(), workers=4) == C
    windowed = run(independent().schedule().task_window(1), workers=4)
    assert windowed.stats().makespan_cycles == 4 * C
    assert windowed.stats().stalls["window"] == 3 * C  # the generator waited, C per task


@kernel(cost=lambda i: 10 // (i - 2) * (i - 2))  # (never negative)
def fragile_cost(i, x: In[f32[4]], y: Out[f32[4]]):
    pass


@pytest.mark.parametrize("fast", [True, False])
def test_a_failing_cost_function_names_the_task(fast, monkeypatch):
    """A cost function that raises is the task's ExecutionError (as a failing body), on both
    paths: the task id, kernel and coordinates, and the cause (the native path computes the
    costs before scheduling, and its run stops where the engine's does)."""

    prog = independent(fragile_cost).compile(target="cpu_sim", mode="cycles", fast=fast)
    with pytest.raises(pto_wsp.ExecutionError) as info:
        prog.bind(n=5).execute()
    error = info.value
    assert error.task_id == 2 and error.kernel == "fragile_cost" and error.coords == (("i", 2),)
    assert "its cost function raised ZeroDivisionError" in str(error)
    assert isinstance(error.__cause__, ZeroDivisionError)
    assert prog.fast_declined == (None if fast else "fast=False")


def test_task_window_abort_raises_resource_error():
    prog = (
        independent()
        .schedule()
        .task_window(2, overflow="abort")
        .compile(target="cpu_sim", mode="cycles")
    )
    with pytest.raises(ResourceError, match=r"task window full: 2 tasks in flight"):
        prog.bind(n=4).execute()
    prog.bind(n=2).execute()  # fits


def test_affinity_onto_one_worker_is_serial():
    w = parallel_for(
        Dense[1],
        lambda b: parallel_for(Dense[4], lambda i: task(step, [i], [X[i], Y[i]])),
    ).named("one_batch")
    prog = run(w.schedule().dispatch(DispatchPolicy.affinity("b")), workers=4)
    assert prog.stats().makespan_cycles == 4 * C
    assert prog.stats().tasks_per_worker == [4, 0, 0, 0]


@pytest.mark.parametrize(
    "policy",
    [
        DispatchPolicy.round_robin(4),
        DispatchPolicy.work_steal(),
        DispatchPolicy.affinity("i"),
        DispatchPolicy.hash(lambda i: i),
        DispatchPolicy.range("i", 4),
        DispatchPolicy.dispatch_by(lambda i: i % 3),
        None,
    ],
)
def test_for_each_chain_is_serial_whatever_the_dispatch(policy):
    s = chain().schedule()
    s = s if policy is None else s.dispatch(policy)
    assert makespan(s, tasks=6, workers=4) == 6 * C


def test_placement_policies_choose_the_worker():
    def workers(policy, tasks=8):
        prog = run(independent().schedule().dispatch(policy), tasks=tasks, workers=4)
        return {i: w for i, w, _ in starts(prog)}

    assert workers(DispatchPolicy.round_robin(4)) == {i: i % 4 for i in range(8)}
    assert workers(DispatchPolicy.affinity("i")) == {i: i % 4 for i in range(8)}
    assert workers(DispatchPolicy.range("i", 4)) == {i: i // 2 for i in range(8)}
    assert workers(DispatchPolicy.dispatch_by(lambda i: 3 - i % 4)) == {
        i: 3 - i % 4 for i in range(8)
    }
    hashed = workers(DispatchPolicy.hash(lambda i: i))
    assert hashed == {i: (i * 2654435761 % 2**32) % 4 for i in range(8)}


def test_work_steal_balances_and_counts_steals():
    prog = run(independent().schedule().dispatch(DispatchPolicy.work_steal()), tasks=8)
    stats = prog.stats()
    assert stats.makespan_cycles == 2 * C
    assert stats.tasks_per_worker == [2, 2, 2, 2]


def test_issue_priority_orders_ready_tasks():
    # Issued together (batched), so all are ready when the worker picks: smallest key first.
    s = (
        independent()
        .schedule()
        .issue(IssuePolicy.priority(lambda i: 10 - i))
        .timing(TimingPolicy.batched(5))
    )
    prog = run(s, tasks=5, workers=1)
    assert [i for i, _, _ in starts(prog)] == [4, 3, 2, 1, 0]
    # Issued one by one, the first task starts before the others exist.
    eager = run(
        independent().schedule().issue(IssuePolicy.priority(lambda i: 10 - i)), tasks=5, workers=1
    )
    assert [i for i, _, _ in starts(eager)] == [0, 4, 3, 2, 1]
    fifo = run(independent().schedule().issue(IssuePolicy.fifo()), tasks=5, workers=1)
    assert [i for i, _, _ in starts(fifo)] == [0, 1, 2, 3, 4]


def test_tasks_of_one_stream_start_in_issue_order():
    # Two streams on one worker, the priority favouring late tasks: priority picks among
    # the heads of the streams only, so each stream keeps its issue order.
    s = (
        independent()
        .schedule()
        .streams(2)
        .stream_by(lambda i: i % 2)
        .issue(IssuePolicy.priority(lambda i: 10 - i))
        .timing(TimingPolicy.batched(6))
    )
    prog = run(s, tasks=6, workers=1)
    order = [i for i, _, _ in starts(prog)]
    assert [i for i in order if i % 2 == 0] == [0, 2, 4]
    assert [i for i in order if i % 2 == 1] == [1, 3, 5]
    assert order[0] == 1  # the better head first


def test_pipeline_depth_gates_per_scope():
    assert makespan(independent().schedule().pipeline_depth(1), workers=4) == 4 * C
    assert makespan(independent().schedule().pipeline_depth(2), workers=4) == 2 * C
    per_stream = (
        independent()
        .schedule()
        .streams(2)
        .stream_by(lambda i: i % 2)
        .pipeline_depth(1, "per_stream")
    )
    prog = run(per_stream, workers=4)
    assert prog.stats().makespan_cycles == 2 * C
    assert prog.stats().stalls["pipeline_depth"] > 0


def test_timing_rate_limit_spaces_issues():
    # 1000 tasks per ms at 10^6 cycles per ms: one issue every 1000 cycles.
    s = independent().schedule().timing(TimingPolicy.rate_limit(1000))
    prog = run(s, workers=4)
    assert [t for _, _, t in starts(prog)] == [0, 1000, 2000, 3000]
    assert prog.stats().makespan_cycles == 3000 + C


def test_timing_batched_holds_tasks_until_the_batch_is_full():
    # The generator spends 10 cycles per task: task k is created at 10 k.
    immediate = run(independent(), workers=1, gen_cost=10)
    assert [t for _, _, t in starts(immediate)] == [0, C, 2 * C, 3 * C]
    batched = run(independent().schedule().timing(TimingPolicy.batched(4)), workers=1, gen_cost=10)
    assert [t for _, _, t in starts(batched)] == [30, 30 + C, 30 + 2 * C, 30 + 3 * C]
    assert batched.stats().stalls["issue"] == 30 + 20 + 10


def test_timing_interleaved_issues_round_robin_across_streams():
    s = (
        independent()
        .schedule()
        .streams(2)
        .stream_by(lambda i: i // 3)
        .timing(TimingPolicy.interleaved(6))
    )
    prog = run(s, tasks=6, workers=1)
    assert [i for i, _, _ in starts(prog)] == [0, 3, 1, 4, 2, 5]


def test_batch_deps_hands_tasks_over_in_batches():
    s = independent().schedule().batch_deps(2)
    prog = run(s, workers=4, gen_cost=10)
    assert [t for _, _, t in starts(prog)] == [10, 10, 30, 30]


def test_dispatch_threshold_routes_to_pools():
    s = independent().schedule().dispatch_threshold(2, lambda i: i, below="vector", above="cube")
    prog = run(s, tasks=4, vector_workers=1, cube_workers=1)
    by_i = {i: w for i, w, _ in starts(prog)}
    assert by_i == {0: 0, 1: 0, 2: 1, 3: 1}  # worker 0 is the vector pool, 1 the cube pool
    # Without the directive the kernel's unit decides.
    cube = run(independent(mm), tasks=4, vector_workers=3, cube_workers=1)
    assert cube.stats().tasks_per_worker == [0, 0, 0, 4]


def test_a_pool_no_worker_serves_is_a_compile_error():
    # A cube kernel with no cube worker would wait forever: refused at compile, naming both.
    with pytest.raises(pto_wsp.CompileError, match=r"kernel mm runs on cube units .* no worker "
                       r"serves the cube pool \(vector_workers=2, cube_workers=0\)"):  # fmt: skip
        run(independent(mm), vector_workers=2, cube_workers=0)
    s = independent().schedule().dispatch_threshold(2, lambda i: i, below="vector", above="cube")
    with pytest.raises(pto_wsp.CompileError, match="dispatch_threshold sends tasks above its "
                       "threshold to the cube pool, which no worker serves"):  # fmt: skip
        run(s, vector_workers=1, cube_workers=0)
    # Without a split every worker serves every pool.
    assert run(independent(mm), workers=2).stats().makespan_cycles > 0


def test_cycles_mode_is_deterministic():
    s = independent().schedule().dispatch(DispatchPolicy.work_steal()).streams(3)
    a = run(s, tasks=40, workers=3)
    b = run(s, tasks=40, workers=3)
    assert a.schedule_of() == b.schedule_of()
    assert a.stats().stalls == b.stats().stalls


def test_directives_for_other_targets_are_reported(capsys):
    s = (
        independent()
        .schedule()
        .spatial_map((2, 2))
        .layout(X, pto_wsp.Shard(0), pto_wsp.Replicate())
    )
    prog = s.compile(target="cpu_sim", mode="cycles")
    assert any("sched.spatial_map" in w for w in prog.warnings)
    assert any("sched.layout" in w for w in prog.warnings)
    assert "ignores it" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option, value",
    [("gen_cost", -3), ("gen_cost", 2.5), ("gen_cost", True), ("threads", -1), ("workers", 0)],
)
def test_count_options_are_checked(option, value):
    """workers, threads and gen_cost are ints (gen_cost and threads >= 0, workers >= 1):
    anything else is a CompileError naming the option, never a silent truncation."""
    with pytest.raises(pto_wsp.CompileError, match=f"{option} must be an int >= "):
        independent().compile(target="cpu_sim", **{option: value})
