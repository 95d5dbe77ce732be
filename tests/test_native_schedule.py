"""The native core's virtual-time scheduler (runtime/native_core.py ``Scheduler``): random
combinations of schedule directives run end to end by ``Program.execute`` against the reference
engine (the conformance table has
one case per directive), and its one-line errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conformance_cases import PACED, POOLED, Case, _by_i, _data_order, _four, _mod3, _prio
from test_conformance import (
    FIELDS,
    PLAIN_RAN,
    _compare,
    assert_loops_agree,
    plain_shaped,
    reference,
    run_sim,
)

from pto_wsp import DispatchPolicy, IssuePolicy, TimingPolicy, combine
from pto_wsp.runtime.engine import SimConfig
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.native_core import NativeCoreError, Scheduler
from pto_wsp.runtime.run import Run


def _directives(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """A random schedule, as (directive, arguments) steps: each directive present or not,
    with random parameters."""
    pick = lambda lo, hi: int(rng.integers(lo, hi))  # noqa: E731
    steps: list[tuple[str, tuple]] = []
    dispatch = (
        None,
        DispatchPolicy.round_robin(pick(2, 4)),
        DispatchPolicy.work_steal(),
        DispatchPolicy.affinity("i"),
        DispatchPolicy.hash(_by_i),
    )[pick(0, 5)]
    if dispatch is not None:
        steps.append(("dispatch", (dispatch,)))
    elif pick(0, 3) == 0:
        steps.append(("dispatch_threshold", (pick(2, 6), _by_i, "vector", "cube")))
    streams = pick(0, 4)
    if streams:
        steps.append(("streams", (streams,)))
        if pick(0, 2):
            steps.append(("stream_by", (_mod3,)))
    issue = (None, IssuePolicy.priority(_prio), IssuePolicy.deadline(_prio))[pick(0, 3)]
    if issue is not None:
        steps.append(("issue", (issue,)))
    timing = pick(0, 4)
    if timing == 1:
        steps.append(("timing", (TimingPolicy.batched(pick(2, 5)),)))
    elif timing == 2 and streams:
        steps.append(("timing", (TimingPolicy.interleaved(pick(2, 5)),)))
    elif timing == 3:
        steps.append(("timing", (TimingPolicy.rate_limit(100000),)))
    if pick(0, 2):
        scope = ("global", "per_stream", "per_pool")[pick(0, 3)]
        steps.append(("pipeline_depth", (pick(1, 3), scope)))
    if pick(0, 3) == 0:
        steps.append(("task_window", (pick(3, 9),)))
    if pick(0, 2):
        steps.append(("batch_deps", (pick(2, 5),)))
    return steps


def _applied(steps: list[tuple[str, tuple]]):
    def schedule(s):
        for name, args in steps:
            s = getattr(s, name)(*args)
        return s

    return schedule


@pytest.mark.parametrize("seed", range(16))
def test_random_directives_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    workload = _data_order() if seed % 2 else combine(_four())
    options = dict(PACED if rng.integers(0, 2) else POOLED, mode="cycles")
    steps = _directives(rng)
    case = Case(f"random_{seed}", workload, _applied(steps), options, n=int(rng.integers(6, 17)))
    want = reference(case)
    assert want["error"] is None, (steps, want["error"])
    got = run_sim(case, fast=True)  # Program.execute on the native path
    assert got["declined"] is None, got["declined"]
    assert set(FIELDS["program"]) <= set(got)
    try:
        _compare("program", got, want, case)
    except AssertionError as error:
        raise AssertionError(f"{steps}: {error}") from None


def _random_graph(rng: np.random.Generator, n: int):
    """``n`` tasks of random pools, targets, streams and priorities, each after up to four
    random earlier nodes; events recorded and waited for between them (barriers)."""
    builder = GraphBuilder({})
    builder.use_events()
    pick = lambda lo, hi: int(rng.integers(lo, hi))  # noqa: E731
    for i in range(n):
        stream = None if pick(0, 2) else pick(0, 3)
        if i and pick(0, 8) == 0:
            builder.event_record(f"e{pick(0, 3)}", stream)
        elif pick(0, 8) == 0:
            builder.event_wait(f"e{pick(0, 3)}", stream)
        made = builder.num_nodes
        deps = sorted(set(rng.integers(0, made, pick(0, 5)).tolist())) if made else []
        target = pick(0, 4) if pick(0, 4) == 0 else -1
        pool = (0, 1, 255)[pick(0, 3)]
        builder.add_task("k", pool=pool, target=target, stream=pick(0, 3), deps=deps)
    if pick(0, 2):
        builder.event_record("last", None)  # (barriers after the last task)
    return builder.build()


@pytest.mark.parametrize("seed", range(8))
def test_the_plain_loop_gives_the_general_loops_schedule(seed):
    """Plain schedules (no streams, depth, window, stealing, batching; timing immediate; one
    priority) of random graphs: the core's plain loop and its general loop agree to the bit,
    with one to five workers of every pool mix, equal and different costs, barriers, fan-in
    and fan-out, and a generator with a cost per task or none."""
    rng = np.random.default_rng(seed)
    for _ in range(12):
        graph = _random_graph(rng, int(rng.integers(1, 80)))
        tasks = graph.kind == 0
        cost = rng.integers(0, 20, graph.num_nodes) if rng.integers(0, 2) else rng.integers(0, 5)
        costs = np.where(tasks, cost, 0).astype(np.int64)
        workers = int(rng.integers(1, 6))
        pools = list(rng.choice(["any", "vector", "cube"], workers)) if rng.integers(0, 2) else []
        if pools and not ({"vector", "cube"} <= set(pools) or "any" in pools):
            pools[-1] = "any"  # (every pool served)
        config = SimConfig(
            workers=workers,
            worker_pools=tuple(pools),
            functional=False,
            gen_cost=int(rng.choice([0, 0, 3])),
            ready=("fifo", "priority")[int(rng.integers(0, 2))],  # (all priorities 0)
            timing=("immediate", "batched")[int(rng.integers(0, 2))],  # (batched(0): immediate)
        )
        assert plain_shaped(config, graph)
        run = _scheduled(graph, costs, config)
        assert_loops_agree(run)


@pytest.mark.parametrize("seed", range(4))
def test_the_plain_loop_on_fanout_rows_out_of_order(seed):
    """Random graphs with every fanout row reversed: the plain loop, which finds a
    completion's ready successors out of order and runs again on sorted rows, gives the
    general loop's schedule (which sorts them first)."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(6):
        graph = _random_graph(rng, int(rng.integers(20, 80)))
        begin = graph.fanout_begin
        reversed_rows = np.concatenate(
            [graph.fanout_edges[begin[v] : begin[v + 1]][::-1] for v in range(graph.num_nodes)]
        ).astype(graph.fanout_edges.dtype)
        graph = dataclasses.replace(graph, fanout_edges=reversed_rows)
        costs = np.where(graph.kind == 0, rng.integers(0, 20, graph.num_nodes), 0)
        config = SimConfig(workers=int(rng.integers(1, 5)), functional=False, gen_cost=3)
        assert_loops_agree(_scheduled(graph, costs.astype(np.int64), config))


def test_the_plain_loop_with_more_workers_than_a_word_has_bits():
    """70 workers of every pool, busy at once, some tasks pinned by targets (idle workers are
    kept a bit each, in 64-bit words): the plain loop gives the general loop's schedule."""
    rng = np.random.default_rng(7)
    builder = GraphBuilder({})
    for i in range(400):
        deps = [int(rng.integers(0, i))] if i > 100 and rng.integers(0, 2) else []
        target = int(rng.integers(0, 70)) if rng.integers(0, 5) == 0 else -1
        builder.add_task("k", pool=(0, 1, 255)[i % 3], target=target, deps=deps)
    graph = builder.build()
    costs = rng.integers(1, 9, graph.num_nodes).astype(np.int64)
    pools = ("vector", "cube", "any") * 23 + ("any",)
    run = _scheduled(graph, costs, SimConfig(workers=70, worker_pools=pools, functional=False))
    assert run.worker_array.max() >= 64
    assert_loops_agree(run)


def _scheduled(graph, costs, config: SimConfig) -> Run:
    """The run of ``graph`` as the native scheduler places it (no bodies)."""
    schedule = Scheduler().run(graph, costs, config)
    return Run(config=config, graph=graph, schedule=schedule, costs=costs, kernels={}, arrays={})


def test_a_barrier_done_by_another_of_its_group_completes_once():
    """Barriers b1 -> b2 created together before a task (b2 also after t0): when b1's
    predecessors are done by then, b1 completes, b2 with it, and the task is issued ready:
    b2 is not completed a second time (that released the task's successors twice)."""
    builder = GraphBuilder({})
    builder.use_events()
    builder.add_task("k", stream=0)
    builder.event_record("c", 0)
    builder.add_task("k", stream=1)
    builder.event_record("a", None)  # b1 after both tasks
    builder.event_wait("a", None)
    builder.event_wait("c", None)  # the next task waits for b1 and t0: through b2
    builder.add_task("k", stream=2)
    graph = builder.build()
    assert graph.kind.tolist() == [0, 0, 1, 1, 0]
    assert sorted(zip(*[e.tolist() for e in graph.edges()])) == [
        (0, 2),
        (0, 3),
        (1, 2),
        (2, 3),
        (3, 4),
    ]
    costs = np.where(graph.kind == 0, 1, 0).astype(np.int64)
    config = SimConfig(workers=2, functional=False, gen_cost=5)
    run = _scheduled(graph, costs, config)
    assert run.end_array.tolist() == [1.0, 6.0, 10.0, 10.0, 11.0]
    assert run.issue_seq_array.tolist() == [0, 1, -1, -1, 2]
    assert run.stalls["dependencies"] == 0.0
    assert_loops_agree(run)


def _chain(n: int):
    builder = GraphBuilder({})
    builder.enter_ordered()
    for i in range(n):
        builder.add_task("k", stream=i)
        builder.order_point()
    builder.exit_ordered()
    return builder.build()


def _defined(schedule) -> tuple:
    """The rows of NI and NF a schedule without a generator cost or task window writes (not
    its creation times; of a plain one, S[9], neither starts, issue numbers, streams, lanes,
    issue times nor dependencies-met times), its order, S and R."""
    NI, NF = schedule.NI, schedule.NF[:4]
    if schedule.S[PLAIN_RAN]:
        NI, NF = NI[:1], NF[1:2]
    return NI, NF, schedule.order, schedule.S, schedule.R


def test_fanout_rows_in_any_order_schedule_the_same():
    builder = GraphBuilder({})
    builder.enter_ordered()
    builder.add_task("a")
    builder.add_task("b")
    builder.order_point()
    for _ in range(3):
        builder.add_task("c")
    builder.exit_ordered()
    graph = builder.build()
    begin = graph.fanout_begin
    flipped = np.concatenate(
        [graph.fanout_edges[begin[v] : begin[v + 1]][::-1] for v in range(graph.num_nodes)]
    ).astype(graph.fanout_edges.dtype)
    costs = np.array([3 if k == 0 else 0 for k in graph.kind], np.int64)
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    first = scheduler.run(graph, costs, config)
    again = scheduler.run(dataclasses.replace(graph, fanout_edges=flipped), costs, config)
    for a, b in zip(_defined(first), _defined(again)):
        assert np.array_equal(a, b)


def test_a_scheduler_runs_again_from_a_clean_state():
    graph = _chain(5)
    costs = np.where(graph.kind == 0, 7, 0).astype(np.int64)
    plain = SimConfig(workers=3, functional=False)
    other = SimConfig(workers=2, functional=False, streams=2, pipeline_depth=1, task_window=2)
    scheduler = Scheduler()
    first = scheduler.run(graph, costs, plain)
    scheduler.run(graph, costs, other)
    again = scheduler.run(graph, costs, plain)
    for a, b in zip(_defined(first), _defined(again)):
        assert np.array_equal(a, b)
    assert first.NF[1].max() == 35.0  # five tasks of 7 cycles in order
    assert first.S[21:].tolist() == [5, 0, 0] and first.R[8:].tolist() == [35.0, 0.0, 0.0]
    plain.workers, plain.pipeline_depth = 2, 1  # (changed in place: seen by the next run)
    changed = scheduler.run(graph, costs, plain)
    fresh = Scheduler(plain).run(graph, costs, plain)
    for a, b in zip(changed[:5], fresh[:5]):
        assert np.array_equal(a, b)
    assert changed.S[21:].tolist() == [5, 0]


def test_a_scheduler_writes_its_next_schedule_in_the_memory_of_the_last():
    """Per-node outputs are kept between runs (no fresh pages), unless a schedule still views
    them: that one keeps its values."""
    graph = _chain(50)
    costs = np.where(graph.kind == 0, 3, 0).astype(np.int64)
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    first = scheduler.run(graph, costs, config)
    addresses = [a.ctypes.data for a in (first.NI, first.NF, first.order)]
    values = [a.copy() for a in _defined(first)[:3]]
    del first
    fillers = [np.empty_like(a) for a in values]  # (would take memory malloc gave back)
    again = scheduler.run(graph, costs, config)
    assert [a.ctypes.data for a in (again.NI, again.NF, again.order)] == addresses
    third = scheduler.run(graph, costs, config)  # `again` is held: new memory
    assert third.NI.ctypes.data != addresses[0]
    for held, now, was in zip(_defined(again)[:3], _defined(third)[:3], values):
        assert np.array_equal(held, was) and np.array_equal(now, was)
    del fillers


@pytest.mark.parametrize("general", [False, True])
def test_costs_by_kernel_schedule_as_the_same_costs_per_node(general):
    """A Program's constant kernel costs go to the scheduler as one table (``kernel_costs``,
    no per-node array): both loops schedule as with each node's cost given, barriers 0."""
    rng = np.random.default_rng(3)
    builder = GraphBuilder({})
    builder.use_events()
    for i in range(300):
        if i % 7 == 3:
            builder.event_record("e", None)  # (barriers: kernel -1)
            builder.event_wait("e", None)
        deps = sorted(set(rng.integers(0, builder.num_nodes, 2).tolist())) if i else []
        builder.add_task("abc"[i % 3], pool=(0, 1, 255)[i % 3], deps=deps)
    graph = builder.build()
    table = np.array([5, 0, 13], np.int64)
    per_node = np.where(graph.kind == 0, table[graph.kernel], 0)
    config = SimConfig(workers=3, worker_pools=("vector", "cube", "any"), functional=False)
    by_kernel = Scheduler().run(graph, None, config, general=general, kernel_costs=table)
    by_node = Scheduler().run(graph, per_node, config, general=general)
    for a, b in zip(_defined(by_kernel), _defined(by_node)):
        assert np.array_equal(a, b)
    run = Run(
        config=config, graph=graph, schedule=by_kernel, costs=None, kernels={},
        arrays={}, kernel_costs=table,
    )  # fmt: skip
    assert run.cost_array.tolist() == per_node.tolist()


def test_a_scheduler_reads_a_graph_changed_in_place():
    """The scheduler keeps its view of a graph it read in place (a Program's graph built
    again in the same memory): a change made to those arrays in between is seen."""
    graph = _chain(6)
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    table = np.array([4], np.int64)
    first = scheduler.run(graph, None, config, kernel_costs=table)
    assert first.NF[1].max() == 24.0  # six tasks of 4 cycles in a chain
    graph.pool[:] = 1  # (every task a cube task: a cube worker or an any worker takes it)
    graph.fanout_edges[:] = graph.num_nodes - 1  # (every row's successor the last node)
    graph.fanin[:] = 0
    graph.fanin[-1] = graph.num_edges
    again = scheduler.run(graph, None, config, kernel_costs=np.array([9], np.int64))
    # (five tasks two at a time, the last after all of them)
    assert again.NF[1].tolist() == [9.0, 9.0, 18.0, 18.0, 27.0, 36.0]


def test_kernel_costs_changed_in_place_are_seen_and_read_only_ones_kept():
    """A writable table of kernel costs is read again at each run (a change in place is
    seen); a read-only one (a Program's) is taken as it was, without a comparison."""
    graph = _chain(3)
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    table = np.array([4], np.int64)
    assert scheduler.run(graph, None, config, kernel_costs=table).NF[1].max() == 12.0
    table[0] = 5
    assert scheduler.run(graph, None, config, kernel_costs=table).NF[1].max() == 15.0
    table.flags.writeable = False
    kept = scheduler._kernel_costs(table)
    assert scheduler._kernel_costs(table) is kept and kept.tolist() == [0, 5]
    assert scheduler.run(graph, None, config, kernel_costs=table).NF[1].max() == 15.0


def test_a_run_after_a_declined_plan_of_its_size_writes_into_the_plans_outputs():
    """A schedule made after the build (the plan declined: not plain, or the loop lagging)
    writes into the plan's outputs when they fit the graph and nobody holds them: the next
    plan is the same; a graph of another size lets the plan go."""
    graph = _chain(6)
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    table = np.array([4], np.int64)
    plan = scheduler.plan(config, table, graph.num_nodes)
    schedule = scheduler.run(graph, None, config, kernel_costs=table)
    assert schedule.NI is plan.outputs[0] and schedule.NF[1].max() == 24.0
    del schedule
    assert scheduler.plan(config, table, graph.num_nodes) is plan
    longer = _chain(7)
    assert scheduler.run(longer, None, config, kernel_costs=table).NF[1].max() == 28.0
    assert scheduler._plan is None


def test_what_it_cannot_schedule_is_one_clear_error():
    graph = _chain(2)
    config = SimConfig(workers=2, functional=False)
    with pytest.raises(NativeCoreError, match=r"^3 costs for a graph of \d+ nodes$"):
        Scheduler().run(graph, np.zeros(3, np.int64), config)
    costs = np.zeros(graph.num_nodes, np.int64)
    costs[0] = -1
    with pytest.raises(NativeCoreError, match=r"^node 0: a cost not in \[0, 2\^53\)$"):
        Scheduler().run(graph, costs, config)
    with pytest.raises(NativeCoreError, match=r"^kernel 0: a cost not in \[0, 2\^53\)$"):
        Scheduler().run(graph, None, config, kernel_costs=np.array([-2]))
    with pytest.raises(
        NativeCoreError, match=r"^kernel 0 of a node has no cost \(0 kernel costs\)$"
    ):
        Scheduler().run(graph, None, config, kernel_costs=np.zeros(0, np.int64))
    pools = graph.pool.copy()
    pools[1] = 7
    with pytest.raises(NativeCoreError, match="^node 1: pool 7 is not vector, cube or any$"):
        Scheduler().run(dataclasses.replace(graph, pool=pools), np.zeros_like(costs), config)
