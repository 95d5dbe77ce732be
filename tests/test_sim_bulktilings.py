"""A batch whose tasks access one tensor on several tilings (runtime/bulk.py
``_disjoint_tilings``): taken one tiling after the other when the tilings nest and no task's
cell meets another tiling's, with exactly the per-task edges; else the per-task path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_batchgen import _shapes, assert_same_graph, compare_program
from test_sim_batchragged import _example

from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.runtime import bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.bulk import BatchRegion, classify, iter_batch
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.regions import TensorRegion

ROWS, COLS = 8, 16
#: Column tilings of X's rows: 4, 8 or 16 columns at offset 0 (each nests in the next).
WIDTHS = (4, 8, 16)


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)


def _tiers(rows: list[int], tiers: list[int], access: str) -> tuple[int, list]:
    """A batch of len(rows) tasks, task k on X[rows[k], 0:WIDTHS[tiers[k]]]: a group per tier
    present (kernel ``t<width>``), positions in creation order."""
    rows_a, tiers_a = np.array(rows, dtype=np.int64), np.array(tiers)
    groups = []
    for tier, width in enumerate(WIDTHS):
        pos = np.flatnonzero(tiers_a == tier)
        if not len(pos):
            continue
        r = rows_a[pos]
        region = BatchRegion("X", (r, 0), (1, width), (1, 1), access, (1,), None)
        groups.append(
            (f"t{width}", pos, (r,), (region,), (("b", r),), "vector", -1, 0, 0, "host_cpu")
        )
    return len(rows), groups


def _play(steps, batched: bool):
    b = GraphBuilder({"X": (ROWS, COLS)})
    for step in steps:
        if step[0] == "batch":
            n, groups = step[1]
            if batched:
                b.add_tasks(n, groups)
            else:
                for row in iter_batch(n, groups):
                    b.add_task(*row)
        else:
            b.add_task("single", (), (step[1],))
    return b


@st.composite
def _step(draw):
    if draw(st.integers(0, 3)) == 0:
        width = draw(st.sampled_from((2, *WIDTHS)))
        region = TensorRegion(
            "X",
            (draw(st.integers(0, ROWS - 1)), width * draw(st.integers(0, COLS // width - 1))),
            (1, width),
            None,
            draw(st.sampled_from(["in", "out", "inout"])),
        )
        return ("task", region)
    n = draw(st.integers(1, 10))
    # Mostly a row per task (disjoint: the tilings taken one after the other), sometimes not.
    if draw(st.booleans()):
        rows = draw(st.permutations(range(ROWS)))[: min(n, ROWS)]
    else:
        rows = draw(st.lists(st.integers(0, ROWS - 1), min_size=n, max_size=n))
    tiers = draw(st.lists(st.integers(0, 2), min_size=len(rows), max_size=len(rows)))
    access = draw(st.sampled_from(["in", "out", "inout"]))
    return ("batch", _tiers(list(rows), tiers, access))


@pytest.mark.parametrize("compiled", [True, False])
@settings(max_examples=120, deadline=None)
@given(st.lists(_step(), min_size=1, max_size=8))
def test_batches_on_several_tilings_give_the_per_task_edges(compiled, steps):
    saved = bulk_kernels.COMPILED
    bulk_kernels.COMPILED = compiled
    try:
        assert_same_graph(_play(steps, True).build(), _play(steps, False).build())
    finally:
        bulk_kernels.COMPILED = saved


def test_disjoint_tiers_take_the_array_path():
    """Rows 0-5 on three tilings after a batch writing every row's first 4 columns: edges in
    array form (X never moved back to the TensorMap), the same as task by task."""
    first = ("batch", _tiers(list(range(ROWS)), [0] * ROWS, "out"))
    mixed = ("batch", _tiers([0, 1, 2, 3, 4, 5], [0, 1, 2, 2, 1, 0], "inout"))
    after = ("batch", _tiers(list(range(ROWS)), [2] * ROWS, "in"))
    steps = [first, mixed, after]
    assert classify(*mixed[1]) is not None
    batched = _play(steps, True)
    assert "X" in batched._bulk.tensors and "X" not in batched.tensormap._tensors
    assert set(batched._bulk.tensors["X"]) == {((1, w), (1, 1), (0, 0)) for w in WIDTHS}
    g = batched.build()
    assert_same_graph(g, _play(steps, False).build())
    # Each mixed task after row's writer (raw), each final read after the mixed task (raw).
    assert [int(p) for p in g.predecessors(ROWS + 2)] == [2]
    assert [int(p) for p in g.predecessors(ROWS + 6 + 7)] == [7]
    assert sorted(int(p) for p in g.predecessors(ROWS + 6 + 3)) == [ROWS + 3]


@pytest.mark.parametrize(
    ("rows", "tiers"),
    [
        ([0, 0], [0, 1]),  # row 0's first 4 columns inside its first 8
        ([3, 1, 3], [2, 0, 0]),  # the whole row 3, then its first 4 columns
    ],
)
def test_tiers_meeting_in_one_batch_take_the_per_task_path(rows, tiers):
    n, groups = _tiers(rows, tiers, "inout")
    assert classify(n, groups) is None
    steps = [("batch", (n, groups))]
    assert_same_graph(_play(steps, True).build(), _play(steps, False).build())


def test_strided_tilings_in_one_batch_take_the_per_task_path():
    """Tilings that do not nest (a strided one): the per-task path."""
    r = np.arange(4, dtype=np.int64)
    groups = [
        ("a", r[:2], (), (BatchRegion("X", (r[:2], 0), (1, 4), (1, 1), "out", (1,), None),), (),
         "vector", -1, 0, 0, "host_cpu"),
        ("b", r[2:], (), (BatchRegion("X", (r[2:], 0), (1, 4), (1, 2), "out", (1,), None),), (),
         "vector", -1, 0, 0, "host_cpu"),
    ]  # fmt: skip
    assert classify(4, groups) is None


def test_tiered_example_infers_its_edges_in_array_form():
    """examples/tiered.py: three kernels on three tilings of X in one batch, one row each."""
    module, program = _example("tiered.mlir")
    compiled = compile_sim_program(program, module, batch=True).compiled
    rng = np.random.default_rng(5)
    for batch in (3, 40):
        seq = rng.integers(0, 12000, batch)
        g = compare_program(module, program, {"batch_size": batch, "seq_lens": seq})
        assert g.num_nodes == batch and g.num_edges == 0
        args = compiled.bind({"batch_size": batch, "seq_lens": seq})
        builder = GraphBuilder(_shapes(args))
        compiled.function(builder, *args)
        tiers = len(set(np.searchsorted([2048, 8192], seq, side="left").tolist()))
        assert len(builder._bulk.tensors["X"]) == tiers  # no task went through the TensorMap
        assert not builder.tensormap._tensors
