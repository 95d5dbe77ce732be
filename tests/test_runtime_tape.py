"""A build of kept batches is recorded and replayed (runtime/tape.py): the replayed graph is
the recorded one and the per-task one; a build that stops matching its tape midway catches
up and gives the graph it would give without tapes; anything a replay does not do (a task
by itself, a pipeline's contexts, the numpy twins) is built as before."""

from __future__ import annotations

import contextlib
import io
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_batchcache import _programs
from test_sim_batchchains_data import _data, _program_text
from test_sim_batchgen import (
    TENSORS,
    _example_programs,
    _groups,
    _nested_step,
    _shapes,
    _step,
    assert_same_graph,
)
from test_sim_batchgen import _play as play
from test_sim_batchragged import _parse
from xdsl.dialects import builtin

from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.runtime import bulk_kernels, tape
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.bulk import Groups
from pto_wsp.runtime.fastsched import OrderRecordingBuilder
from pto_wsp.runtime.graph import GraphBuilder


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    bulk_kernels.load()


# ---------------------------------------------------------------------------- random nests


def _kept(steps) -> list:
    """The steps with each batch's groups made once, as a batch site keeps them."""
    out = []
    for step in steps:
        if step[0] == "batch":
            n, groups = _groups(step[1], step[2])
            out.append(("kept", n, Groups(groups)))
        else:
            out.append(step)
    return out


def _play(kept, per_task=False):
    b = GraphBuilder(TENSORS)
    return b, play(kept, not per_task, b)


def _replayed(b) -> bool:
    return b._replay is not None


def _check_replays(steps) -> None:
    kept = _kept(steps)
    reference = _play(kept, per_task=True)[1]
    b1, g1 = _play(kept)
    assert not _replayed(b1)
    assert_same_graph(g1, reference)
    # Taped when every task came from an exact batch (no task by itself, no batch that the
    # array rule cannot take).
    taped = b1._events is not None and any(s[0] == "kept" for s in kept)
    assert taped == (b1._rec is not None)
    for _ in range(2):
        b, g = _play(kept)
        assert _replayed(b) == taped
        assert_same_graph(g, reference)


@settings(max_examples=120, deadline=None)
@given(st.lists(_step(), min_size=1, max_size=8))
def test_random_nests_replayed_give_the_per_task_graph(steps):
    _check_replays(steps)


@settings(max_examples=80, deadline=None)
@given(st.lists(_nested_step(), min_size=1, max_size=8))
def test_nested_tilings_replayed_give_the_per_task_graph(steps):
    _check_replays(steps)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(_step(), _nested_step(), _nested_step()).filter(lambda s: s[0] != "task"),
        min_size=2,
        max_size=8,
    ),
    st.integers(1, 7),
)
def test_a_build_that_leaves_its_tape_midway_gives_the_per_task_graph(steps, k):
    """Recorded with one set of kept groups, then built with batch ``k`` made anew (another
    object: a site whose key changed) — the builder replays up to it and catches up."""
    kept = _kept(steps)
    _play(kept)
    batches = [i for i, s in enumerate(kept) if s[0] == "kept"]
    if batches:
        i = batches[k % len(batches)]
        kept[i] = ("kept", kept[i][1], Groups(kept[i][2]))
    b, g = _play(kept)
    assert not _replayed(b) or not batches
    assert_same_graph(g, _play(kept, per_task=True)[1])
    # The catch-up recorded the new sequence: replayed next time.
    if b._rec is not None:
        b, g = _play(kept)
        assert _replayed(b)
        assert_same_graph(g, _play(kept, per_task=True)[1])


def _region(tensor, dims, sizes, access):
    return (tensor, dims, sizes, (1, 1), access)


def test_every_operation_is_recorded_and_replayed():
    """Boxes that grow (refit), finer and coarser tilings, several accesses per cell (the
    general pass), barriers and structural edges: each operation code is on the tape."""
    rows = _region("A", [(0, 2, 0), (None, 12, 0)], (2, 12), "out")  # row blocks 0..3
    more = _region("A", [(0, 2, 8), (None, 12, 0)], (2, 12), "out")  # row blocks 4..7: grow
    tiles = _region("A", [(0, 1, 0), (1, 4, 0)], (1, 4), "inout")  # finer tiles
    whole = _region("A", [(None, 12, 0), (None, 12, 0)], (12, 12), "in")  # coarser
    twice = _region("A", [(None, 2, 0), (1, 4, 0)], (2, 4), "inout")  # one cell per j
    steps = [
        ("batch", (2, 1), [[rows]]),
        ("batch", (2, 1), [[more]]),
        ("enter",),
        ("batch", (3, 3), [[tiles]]),
        ("point",),
        ("batch", (3, 3), [[twice]]),
        ("batch", (2, 1), [[rows]]),
        ("point",),
        ("batch", (1, 1), [[whole]]),
        ("exit",),
    ]
    kept = _kept(steps)
    _play(kept)
    first = kept[0][2]
    codes = Counter(op[0] for op in first.memo["tape"].ops)
    names = {v: k for k, v in vars(bulk_kernels).items() if k.startswith("OP_")}
    assert {names[c] for c in codes} == set(names.values()), codes
    _check_replays(steps)


# ---------------------------------------------------------------------------- programs

TWO = """
wsp.kernel @p(i: index, y: out memref<4xf32>) unit(vector)
wsp.kernel @q(i: index, y: in memref<4xf32>, z: out memref<4xf32>) unit(vector)
wsp.workload @w(%n: index, %m: index, %Y: memref<?x4xf32>, %Z: memref<?x4xf32>) {
  %a = wsp.dense_dyn %n
  %b = wsp.dense_dyn %m
  wsp.sequential {
    wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
      %y = wsp.view %Y[%i] : memref<?x4xf32> -> memref<4xf32>
      wsp.task @p(%i : index) resources(%y : memref<4xf32>)
    }
    wsp.for_each %s in %b named("s") : !wsp.dense_dyn {
      wsp.parallel_for %j in %a named("j") : !wsp.dense_dyn {
        %y = wsp.view %Y[%j] : memref<?x4xf32> -> memref<4xf32>
        %z = wsp.view %Z[%j] : memref<?x4xf32> -> memref<4xf32>
        wsp.task @q(%j : index) resources(%y, %z : memref<4xf32>, memref<4xf32>)
      }
    }
  }
}
"""


def _two():
    return _programs(TWO)


def _bind(code, n, m):
    z = np.zeros((), np.float32)
    return code.bind(
        {"n": n, "m": m, "Y": np.broadcast_to(z, (n, 4)), "Z": np.broadcast_to(z, (n, 4))}
    )


def _build(code, n, m, builder_cls=GraphBuilder, before=None):
    args = _bind(code, n, m)
    b = builder_cls(_shapes(args))
    if before is not None:
        before(b)
    code.function(b, *args)
    return b, b.build()


def test_a_program_run_again_is_replayed_and_catches_up_when_a_site_differs():
    batched, plain = _two()
    # (n, m) in turn: m changes the second nest's key only, so its build matches the tape
    # for a prefix of calls and then catches up.
    runs = [(4, 3), (4, 3), (4, 5), (4, 5), (4, 3), (6, 3), (4, 3)]
    replayed = []
    for n, m in runs:
        b, g = _build(batched, n, m)
        assert_same_graph(g, _build(plain, n, m)[1])
        replayed.append(_replayed(b))
    # The first run records; a run like the one before replays; a run after another (its
    # tape overwritten by the catch-up's recording) catches up.
    assert replayed == [False, True, False, True, False, False, True]


def test_order_points_are_recorded_alike_when_replayed():
    batched, plain = _two()
    points = []
    for code in (batched, batched, batched, plain):
        b, g = _build(code, 4, 3, OrderRecordingBuilder)
        points.append((list(b.order_points), g))
    assert points[0][0] == points[1][0] == points[2][0] == points[3][0]
    assert_same_graph(points[2][1], points[3][1])


def test_a_builder_used_after_a_replayed_build_builds_the_rest_for_real():
    batched, plain = _two()
    _build(batched, 4, 3)

    def more(b):
        g = b.build()
        b.add_task("p", (0,), ())
        b.enter_ordered()
        b.order_point()
        b.exit_ordered()
        return g, b.build()

    b, _ = _build(batched, 4, 3)
    assert _replayed(b)
    first, second = more(b)
    b0, _ = _build(plain, 4, 3)
    first0, second0 = more(b0)
    assert_same_graph(first, first0)
    assert_same_graph(second, second0)
    assert second.num_nodes == first.num_nodes + 1


def test_calls_before_the_program_decide_whether_the_tape_fits():
    batched, plain = _two()
    _build(batched, 4, 3)
    # Another kernel numbered first: not the tape's prefix, recorded anew, same graph.
    b, g = _build(batched, 4, 3, before=lambda b: b.kernel_id("other"))
    assert not _replayed(b)
    assert_same_graph(g, _build(plain, 4, 3, before=lambda b: b.kernel_id("other"))[1])
    # A task created before the program: never taped.
    task = lambda b: b.add_task("p", (9,), ())  # noqa: E731
    b, g = _build(batched, 4, 3, before=task)
    assert not _replayed(b) and b._events is None
    assert_same_graph(g, _build(plain, 4, 3, before=task)[1])


def test_a_pipeline_context_or_the_numpy_twins_are_not_taped(monkeypatch):
    batched, _ = _two()
    _build(batched, 4, 3)
    b, _ = _build(batched, 4, 3, before=lambda b: b.use_context(b.new_context()))
    assert not _replayed(b) and b._events is None
    monkeypatch.setattr(bulk_kernels, "COMPILED", False)
    assert not tape.usable()
    b, _ = _build(batched, 4, 3)
    assert not _replayed(b)


def test_a_tape_that_gives_another_graph_is_an_internal_error():
    batched, _ = _two()
    b, _ = _build(batched, 4, 3)
    first = next(ev for ev in b._events if ev[0] == "b")[1]
    first.memo["tape"].n_edges += 1  # as if a kept array had been modified
    with pytest.raises(RuntimeError, match="replayed build differs from its recording"):
        _build(batched, 4, 3)


def test_every_example_replayed_gives_the_per_task_graph():
    replayed = 0
    for _file, _name, module, program in _example_programs():
        bindings = {
            "seq_lens": np.array([1, 3, 2]),
            "lengths": np.array([1, 3, 2]),
            "indptr": np.array([0, 1, 4, 6]),
            "indices": np.array([0, 3, 6, 1, 4, 7]),
        }
        for name, type_ in zip(program.arg_names, program.function_type.inputs.data):
            if isinstance(type_, builtin.IndexType):
                bindings.setdefault(name.data, 3)
        with contextlib.redirect_stderr(io.StringIO()):
            batched = compile_sim_program(program, module, batch=True).compiled
            plain = compile_sim_program(program, module, batch=False).compiled
        graphs = []
        for code in (batched, batched, batched, plain):
            args = code.bind(bindings)
            b = GraphBuilder(_shapes(args))
            code.function(b, *args)
            graphs.append(b.build())
            replayed += _replayed(b)
        for g in graphs[:3]:
            assert_same_graph(g, graphs[3])
    assert replayed >= 10, replayed  # regular examples replay their second and third builds


def test_the_graph_build_benchmark_times_replayed_builds(capsys):
    """bench/bench_graph_build.py runs its three ways at 1k and checks the graphs; an unknown
    --sites value and a negative --min-time are usage errors."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    try:
        import bench_graph_build as bench
    finally:
        sys.path.pop(0)
    args = ["--sizes", "1k", "--repeat", "2", "--path", "batch", "--structure", "seq"]
    bench.main([*args, "--sites", "off,kept,replayed", "--check", "1k", "--min-time", "0.01"])
    out = capsys.readouterr().out
    assert "best of 2 runs and of as many more as fit in 0.01 s" in out
    rows = [line.split() for line in out.splitlines() if line[:5] == "batch"]
    assert [r[2] for r in rows] == ["off", "kept", "replayed"]
    assert all(
        r[3:7] == ["1k", "984", "993", "4920"] and r[-2:] == ["per-task", "graphs"] for r in rows
    )
    with pytest.raises(SystemExit) as exit_:
        bench.main([*args, "--sites", "kept,cached"])
    assert exit_.value.code == 2
    assert "unknown cached" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        bench.main([*args, "--min-time", "-1"])
    assert exit_.value.code == 2
    assert "--min-time not negative" in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(_program_text(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_chains_over_data_replayed_give_the_per_task_graph(program_chains, n, seed):
    """Random programs of ordered chains whose lengths or bodies load tensor data (chains of
    varying lengths: their lengths compared by value), built three times."""
    text, _chains = program_chains
    module, program = _parse(text)
    with contextlib.redirect_stderr(io.StringIO()):
        batched = compile_sim_program(program, module, batch=True).compiled
        plain = compile_sim_program(program, module, batch=False).compiled
    bindings = {"n": n, **_data(np.random.default_rng(seed))}
    graphs, builders = [], []
    for code in (plain, batched, batched, batched):
        args = code.bind(bindings)
        b = GraphBuilder(_shapes(args))
        code.function(b, *args)
        graphs.append(b.build())
        builders.append(b)
    for g in graphs[1:]:
        assert_same_graph(g, graphs[0])
    if builders[1]._rec is not None:  # recorded: replayed next
        assert _replayed(builders[2]) and _replayed(builders[3])


LEAK_CHECK = """
import numpy as np
from numba.core.runtime import rtsys
from pto_wsp import DenseDyn, In, Out, Tensor, combine, f32, kernel, parallel_for, sym, task
from pto_wsp.runtime import bulk_kernels, fastsched

assert bulk_kernels.load() and fastsched.load()

def leaked(fn, times):
    for _ in range(3):
        fn()
    before = rtsys.get_allocation_stats()
    for _ in range(times):
        fn()
    after = rtsys.get_allocation_stats()
    return (after.alloc - before.alloc) - (after.free - before.free)

# Every operation code, the batch's edge parts among them (OP_OWN, OP_FINER, then OP_END).
tape = bulk_kernels._warm_tape()
print("kernel", leaked(lambda: bulk_kernels._replay_nb(*tape), 20))

@kernel
def copy(i, x: In[f32[4]], y: Out[f32[4]]):
    y[...] = x

@kernel
def twice(i, y: In[f32[4]], z: Out[f32[4]]):
    z[...] = 2 * y

X, Y, Z = (Tensor(name, [None, 4], f32) for name in "XYZ")
n = sym("n")
prog = combine(
    parallel_for(DenseDyn(n), lambda i: task(copy, [i], [X[i], Y[i]])),
    parallel_for(DenseDyn(n), lambda i: task(twice, [i], [Y[i], Z[i]])),
).named("w").compile(target="cpu_sim", mode="cycles")
prog.bind(n=64)
print("program", leaked(prog.execute, 20))
print("replayed", prog._last().graph._replay is not None)  # (graph: its builder)
"""


def test_a_replay_frees_every_array_it_makes(tmp_path):
    """numba's list.clear() does not release the arrays it held: the replay kernel cleared
    its list of a batch's edge parts that way and leaked them on every replayed build (~90
    bytes a task, faulted in afresh each time). Counted by numba's allocation statistics in
    a fresh process: a replay, and a Program run again (each run a replay), allocate and
    free alike (20 runs: a leak of one array a run would count 20)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", LEAK_CHECK], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    # (A Program's later runs may free a little of what its first runs kept: at most 0.)
    assert lines["kernel"] == "0" and int(lines["program"]) <= 0, out.stdout
    assert lines["replayed"] == "True", out.stdout
