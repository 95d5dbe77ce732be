"""The plain schedule made beside the build (runtime/core/stream.cpp): the plain loop's
schedule of the whole graph, to the bit, however the build and the loop interleave (the
build published node by node or in chunks, the loop running from the build's first node);
and a Program's executes that use it, fall back from it, or fail in it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from dataclasses import replace

import numpy as np
import pytest
from test_conformance import BY_NAME, PLAIN, RUN_ARRAYS, parse_text

from pto_wsp import (
    DenseDyn,
    In,
    InOut,
    Out,
    Tensor,
    combine,
    f32,
    for_each,
    kernel,
    parallel_for,
    sym,
    task,
)
from pto_wsp.lowering.cpu.backend import compile_cpu_sim
from pto_wsp.runtime.engine import SimConfig
from pto_wsp.runtime.native_core import NativeCoreError, Scheduler
from pto_wsp.runtime.run import Run

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="the schedule is made beside the build on two CPUs"
)

_PROGRAMS: dict[str, object] = {}


def _program(name: str):
    """Case ``name``'s Program, compiled once (bound again by each test)."""
    if name not in _PROGRAMS:
        case = BY_NAME[name]
        if isinstance(case.workload, str):
            prog = compile_cpu_sim(parse_text(case), **{**case.options, "workload": case.entry})
        else:
            prog = case.target().compile(target="cpu_sim", **case.options)
        _PROGRAMS[name] = prog
    return _PROGRAMS[name]


def _bound(name: str, n: int | None = None):
    """Case ``name``'s Program bound to its values (its size ``n`` if given)."""
    case = BY_NAME[name]
    if n is not None:
        case = replace(case, n=n)
    prog = _program(name)
    names = {a.name for a in prog.args}
    return prog.bind(**{k: v for k, v in case.bindings().items() if k in names})


def _run(prog, graph, schedule, table) -> Run:
    return Run(
        config=prog.config,
        graph=graph,
        schedule=schedule,
        costs=None,
        kernel_costs=table,
        kernels={},
        arrays={},
    )


def _streamed(prog, chunk: int, table: np.ndarray):
    """The Program's graph built with its schedule made beside it (each kernel costing
    ``table``'s), the build starting once the loop runs and publishing ``chunk`` nodes at a
    time: (scheduled, graph, Run)."""
    config = prog.config
    scheduler = Scheduler()
    plan = scheduler.plan(config, table, 1 << 16, chunk=chunk, interleave=True)
    graph = prog.native.build(
        prog._bindings, config.infer_data_deps, prog._reads_records(), plan
    )
    if not plan.scheduled:
        return False, graph, None
    return True, graph, _run(prog, graph, scheduler.planned(plan, graph.num_nodes), table)


def _assert_runs_equal(a: Run, b: Run) -> None:
    for name in RUN_ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a._S.tolist() == b._S.tolist()  # counters, tasks run per worker
    assert a._R.tolist() == b._R.tolist()  # clock, stalls, busy cycles per worker


@pytest.mark.parametrize("chunk", [1, 5, 64])
@pytest.mark.parametrize("name", PLAIN)
def test_the_schedule_beside_the_build_is_the_whole_graphs(name, chunk):
    """Every plain-shaped case of the conformance table (pools, targets, barriers, one or
    several workers), at its size and 30 times it, its kernels costing 1-30 cycles at
    random (or 0, some of them): the loop beside the build, however the two interleave,
    gives the plain loop's outputs over the whole graph; a schedule it does not take (a
    zero cost, a generator cost, ready priority) is left to the caller."""
    rng = np.random.default_rng(chunk)
    for n in (None, 30 * (BY_NAME[name].n or 6)):
        prog = _bound(name, n)
        config = prog.config
        table = rng.integers(1, 31, len(prog.native.kernels))
        table[rng.random(len(table)) < 0.1] = 0
        scheduled, graph, streamed = _streamed(prog, chunk, table)
        assert scheduled == (config.gen_cost == 0 and config.ready != "priority" and table.all())
        if scheduled:
            whole = Scheduler().run(graph, None, config, kernel_costs=table)
            _assert_runs_equal(streamed, _run(prog, graph, whole, table))


@kernel(cost=12)
def st_load(i, x: In[f32[4]], h: Out[f32[4]]):
    h[...] = x * 2


@kernel(cost=7, exec_unit="cube")
def st_mix(i, h: In[f32[4]], y: Out[f32[4]]):
    y[...] = h + 1


@kernel(cost=3)
def st_sum(i, y: In[f32[4]], a: InOut[f32[4]]):
    a += y


_n = sym("n")
_X, _H, _Y = (Tensor(name, [None, 4], f32) for name in "XHY")
_A = Tensor("A", [1, 4], f32)


def _stages():
    """Load (X -> H, vector or any), mix (H -> Y, cube), a chain summing Y into A: 3n tasks,
    every kernel a constant cost."""
    return combine(
        parallel_for(DenseDyn(_n), lambda i: task(st_load, [i], [_X[i], _H[i]])),
        parallel_for(DenseDyn(_n), lambda i: task(st_mix, [i], [_H[i], _Y[i]])),
        for_each(DenseDyn(_n), lambda i: task(st_sum, [i], [_Y[i], _A[0]])),
    ).named("stages")


def _compiled():
    return _stages().compile(target="cpu_sim", workers=4, mode="cycles")


def _values(n: int) -> dict:
    rows = np.zeros((n, 4), np.float32)
    return {
        "n": n,
        "X": rows,
        "H": rows.copy(),
        "Y": rows.copy(),
        "A": np.zeros((1, 4), np.float32),
    }


@pytest.fixture(scope="module")
def four():
    """The three stages on four workers (builds of 3n nodes: n 1,400 passes 4,096)."""
    return _compiled()


def _snapshot(run: Run) -> tuple:
    return tuple(np.array(getattr(run, name)) for name in RUN_ARRAYS) + (
        run._S.tolist(),
        run._R.tolist(),
    )


def _same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def _whole(prog) -> tuple:
    """The last execute's graph scheduled whole, after its build, as a snapshot."""
    graph = prog.graph()
    table, _ = prog._kernel_costs()
    schedule = Scheduler().run(graph, None, prog.config, kernel_costs=table)
    return _snapshot(_run(prog, graph, schedule, table))


#: The phases of an execute whose schedule may be made after the build: the Program tries
#: after the build now and then, and takes it while it is faster (runtime/beside.py).
EITHER = ({"build and schedule"}, {"build", "schedule"})


def test_a_programs_executes_schedule_beside_the_build(four):
    """A first execute (up to 49,152 nodes) and later ones: the schedule made beside the
    build, in one phase, the whole graph's, in the same rows (the first execute's plan)."""
    four.bind(**_values(1400))
    first = four.execute()._last()
    assert set(first.phases_ms) == {"build and schedule"}
    plan = four._scheduler._plan
    want = _whole(four)
    assert _same(_snapshot(first), want)
    del first
    assert set(four.execute()._last().phases_ms) == {"build and schedule"}
    assert four._scheduler._plan is plan
    for _ in range(3):
        again = four.execute()._last()
        assert set(again.phases_ms) in EITHER
        assert _same(_snapshot(again), want)


def test_a_program_schedules_after_the_build_while_that_is_faster():
    """A Program whose executes after the build took less time a node than beside
    (runtime/beside.py: the second CPU shared) schedules the next after its build, with the
    same results, and counts each execute's time for the way it took."""
    prog = _compiled().bind(**_values(1400))
    want = _snapshot(prog.execute()._last())
    assert prog._beside.estimate(True, time.perf_counter()) > 0
    prog._beside.took(False, 0.0, time.perf_counter())  # (after: nothing a node)
    run = prog.execute()._last()
    assert set(run.phases_ms) == {"build", "schedule"}
    assert _same(_snapshot(run), want)
    assert prog._beside.estimate(False, time.perf_counter()) == 0.0  # (its best)


def test_a_plan_is_given_again_while_nobody_holds_its_outputs():
    """Scheduler.plan gives the last plan again (a Program's later executes: its outputs'
    memory, its config and table) unless a schedule made of it, or a part of one, is still
    held: then a plan in new memory, leaving the held one's values alone."""
    config = SimConfig(workers=2, functional=False)
    scheduler = Scheduler()
    table = np.array([4], np.int64)
    table.flags.writeable = False
    plan = scheduler.plan(config, table, 64)
    assert scheduler.plan(config, table, 64) is plan
    assert scheduler.plan(config, table, 32) is not plan  # (another capacity)
    plan = scheduler.plan(config, table, 64)
    for part in (lambda s: s, lambda s: s.S, lambda s: s.NI, lambda s: s.order):
        S = plan.outputs[3]
        S[:] = 0
        S[7] = 10  # (the counters of a run of 10 nodes, as the core leaves them)
        held = part(scheduler.planned(plan, 10))
        again = scheduler.plan(config, table, 64)
        assert again is not plan and not np.shares_memory(again.outputs[0], plan.outputs[0])
        del held
        plan = again
    assert scheduler.plan(config, table, 64) is plan


def test_a_new_scheduler_starts_in_the_memory_of_one_freed(monkeypatch):
    """A Scheduler freed leaves its outputs' memory to the next one made (a new Program's
    first execute): taken once nobody views it, and only if it holds the outputs."""
    monkeypatch.setattr(Scheduler, "_kept", [])
    config = SimConfig(workers=2, functional=False)
    table = np.array([4], np.int64)
    freed = Scheduler()
    plan = freed.plan(config, table, 5000)
    start, held = plan.outputs[0].ctypes.data, plan.outputs[3]  # (a schedule's counters)
    del plan, freed
    made = [Scheduler() for _ in range(3)]  # (alive: a Scheduler freed would leave its own)
    assert made[0].plan(config, table, 5000).outputs[0].ctypes.data != start  # (still read)
    del held
    assert made[1].plan(config, table, 6000).outputs[0].ctypes.data != start  # (too small)
    assert made[2].plan(config, table, 5000).outputs[0].ctypes.data == start


def test_a_build_past_the_rows_is_scheduled_after_it():
    """A first execute of more than 49,152 nodes: scheduled after the build; the next one
    beside it in rows of that size, the same; bound to a larger size, the build outgrows
    those rows and is scheduled after it, with the results of a Program executed at that
    size first."""
    prog = _compiled().bind(**_values(17000))
    first = prog.execute()._last()
    assert set(first.phases_ms) == {"build", "schedule"}
    want = _snapshot(first)
    again = prog.execute()._last()
    assert set(again.phases_ms) == {"build and schedule"}
    assert _same(_snapshot(again), want)
    prog.bind(**_values(17500))
    run = prog.execute()._last()
    assert set(run.phases_ms) == {"build", "schedule"}
    fresh = _compiled()
    fresh.bind(**_values(17500))
    assert _same(_snapshot(run), _snapshot(fresh.execute()._last()))


def test_a_build_that_fails_beside_its_schedule_fails_as_alone(four):
    """A build failing part way (a region outside its tensor) while its schedule is made
    beside it: the error of a build alone; the next build schedules again."""
    good = _values(1400)
    four.bind(**good).execute()
    short = {k: (v[: len(v) // 2] if isinstance(v, np.ndarray) else v) for k, v in good.items()}
    with pytest.raises(Exception) as beside:
        four.bind(**short).execute()
    alone = _compiled()
    with pytest.raises(Exception) as first:
        alone.bind(**short).execute()
    assert str(beside.value) == str(first.value) and type(beside.value) is type(first.value)
    run = four.bind(**good).execute()._last()
    assert set(run.phases_ms) in EITHER
    assert _same(_snapshot(run), _whole(four))


def test_on_one_cpu_the_schedule_follows_the_build():
    """A process that may run on one CPU only schedules the built graph after the build."""
    code = textwrap.dedent(
        """
        import os, sys
        sys.path[:0] = [{tests!r}]
        os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})
        from test_native_stream import _compiled, _values
        prog = _compiled()
        prog.bind(**_values(1400))
        prog.execute()
        print(sorted(prog.execute()._last().phases_ms))
        """
    ).format(tests=os.path.dirname(__file__))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['build', 'schedule']"


def test_the_build_moves_its_arrays_while_the_schedule_reads_them():
    """A first build in a fresh process (its arrays grow from 64 kB: 24,000 nodes move the
    int32 columns and the edges' sources several times), published node by node to the loop
    beside it: the whole graph's schedule, to the bit."""
    code = textwrap.dedent(
        """
        import sys
        sys.path[:0] = [{tests!r}]
        import numpy as np
        from test_native_stream import _compiled, _run, _same, _snapshot, _streamed, _values
        from pto_wsp.runtime.native_core import Scheduler
        prog = _compiled().bind(**_values(8000))
        table, _ = prog._kernel_costs()
        scheduled, graph, streamed = _streamed(prog, 1, table)
        assert scheduled and graph.num_nodes == 24000, (scheduled, graph.num_nodes)
        whole = Scheduler().run(graph, None, prog.config, kernel_costs=table)
        assert _same(_snapshot(streamed), _snapshot(_run(prog, graph, whole, table)))
        print("same")
        """
    ).format(tests=os.path.dirname(__file__))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "same"


@kernel(cost=0)
def st_free(i, x: In[f32[4]], h: Out[f32[4]]):
    h[...] = x


def test_a_schedule_left_to_after_the_build_reuses_the_outputs_memory():
    """A schedule the loop beside the build does not take (a kernel costing nothing) is made
    after the build, every execute in the same output memory (the declined plan's views let
    go)."""
    free = parallel_for(DenseDyn(_n), lambda i: task(st_free, [i], [_X[i], _H[i]]))
    prog = free.named("free").compile(target="cpu_sim", workers=2, mode="cycles")
    prog.bind(**{k: v for k, v in _values(50).items() if k in ("n", "X", "H")})
    blocks = []
    for _ in range(3):
        assert set(prog.execute()._last().phases_ms) == {"build", "schedule"}
        blocks.append(prog._scheduler._out.ctypes.data)
    assert blocks[0] == blocks[1] == blocks[2]


def test_a_schedule_beside_the_build_missing_nodes_is_an_error_not_a_result():
    """A schedule made beside the build that did not schedule every node of it (what a lost
    publication of the build's last nodes would leave) is an internal error, never read."""
    scheduler = Scheduler()
    plan = scheduler.plan(SimConfig(workers=2, functional=False), np.array([4], np.int64), 64)
    plan.outputs[3][7] = 9  # (nodes created)
    with pytest.raises(NativeCoreError, match="has 9 of 10 nodes"):
        scheduler.planned(plan, 10)
