"""Batch sites keep their results (docs/batchgen.md "Batch sites"): a regular nest of the
generated code keeps its add_tasks arguments keyed by the values it reads from outside, and
the builder keeps what it derives from those groups alone. A kept result must never be
stale: the same program run again with other symbol values, other tensor shapes, on a
builder that already holds tasks, or with a site's keys overflowing, gives the per-task
graph every time."""

from __future__ import annotations

import numpy as np
import pytest
from test_sim_batchgen import _context, _shapes, assert_same_graph
from xdsl.parser import Parser

from pto_wsp.dialects.tg import ProgramOp
from pto_wsp.lowering.cpu import simgen
from pto_wsp.lowering.cpu.pygen import Tensor, View
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.runtime import bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.bulk import Groups
from pto_wsp.runtime.graph import GraphBuilder

SITES = """
wsp.kernel @k(i: index, j: index, x: in memref<4x4xf32>, w: in memref<?x4xf32>, y: out memref<4x4xf32>) unit(vector)
wsp.kernel @r(i: index, s: index, y: in memref<?x4x4xf32>, z: inout memref<4xf32>) unit(vector)
wsp.workload @w(%n: index, %m: index, %X: memref<?x?x4x4xf32>, %W: memref<?x4xf32>, %Y: memref<?x?x4x4xf32>, %Z: memref<?x4xf32>) {
  %a = wsp.dense_dyn %n
  %b = wsp.dense_dyn %m
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    wsp.parallel_for %j in %b named("j") : !wsp.dense_dyn {
      %x = wsp.view %X[%i, %j] : memref<?x?x4x4xf32> -> memref<4x4xf32>
      %y = wsp.view %Y[%i, %j] : memref<?x?x4x4xf32> -> memref<4x4xf32>
      wsp.task @k(%i, %j : index, index) resources(%x, %W, %y : memref<4x4xf32>, memref<?x4xf32>, memref<4x4xf32>)
    }
  }
  wsp.for_each %s in %b named("s") : !wsp.dense_dyn {
    wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
      %yr = wsp.view %Y[%i] : memref<?x?x4x4xf32> -> memref<?x4x4xf32>
      %z = wsp.view %Z[%i] : memref<?x4xf32> -> memref<4xf32>
      wsp.task @r(%i, %s : index, index) resources(%yr, %z : memref<?x4x4xf32>, memref<4xf32>)
    }
  }
}
"""


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    bulk_kernels.load()


def _programs(source: str = SITES):
    """The workload in ``source`` compiled with batches (and sites) and task by task."""
    ctx = _context()
    module = Parser(ctx, source).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    batched = compile_sim_program(program, module, batch=True).compiled
    plain = compile_sim_program(program, module, batch=False).compiled
    return batched, plain


def _bindings(n: int, m: int, cols: int = 0, w_rows: int = 3) -> dict:
    cols = cols or m
    z = np.zeros((), np.float32)
    return {
        "n": n,
        "m": m,
        "X": np.broadcast_to(z, (max(n, 1), max(cols, 1), 4, 4)),
        "W": np.broadcast_to(z, (w_rows, 4)),
        "Y": np.broadcast_to(z, (max(n, 1), max(cols, 1), 4, 4)),
        "Z": np.broadcast_to(z, (max(n, 1), 4)),
    }


def _graphs(batched, plain, bindings: dict, runs: int = 1):
    """The graphs of ``runs`` runs of each program on one builder each."""
    out = []
    for code in (batched, plain):
        args = code.bind(bindings)
        builder = GraphBuilder(_shapes(args))
        for _ in range(runs):
            code.function(builder, *args)
        out.append(builder.build())
    return out


def test_the_generated_code_keeps_each_sites_result():
    batched, _ = _programs()
    source = batched.source
    assert source.count("_hit = _site_put(") == 2 and "_b.add_tasks(*_hit)" in source
    # Keyed by what the nest reads: n and m, and W (a whole-tensor region) by name and shape.
    assert "_key = (v0, v1, _skey(v3), )" in source
    sites = batched.function.__globals__
    assert sites["_site0"] == {} and sites["_site1"] == {}


def test_repeated_runs_with_other_values_and_shapes_give_the_per_task_graph():
    batched, plain = _programs()
    runs = [
        _bindings(3, 4),
        _bindings(5, 2),
        _bindings(3, 4),  # as the first: kept results are used
        _bindings(3, 4, w_rows=7),  # W's shape changed: its region differs
        _bindings(3, 4, cols=6),  # Y's extent changed: the r tasks' regions differ
        _bindings(0, 3),
        _bindings(3, 0),
        _bindings(3, 4),
    ]
    kept = None
    for bindings in runs:
        g1, g0 = _graphs(batched, plain, bindings)
        assert_same_graph(g1, g0)
        if bindings is runs[2]:
            # The kept groups are the very objects the first run made.
            assert g1.args._segs[0].fields is kept
        if bindings is runs[0]:
            kept = g1.args._segs[0].fields
    w = [r for r in g1.regions[0] if r.tensor == "W"]
    assert w and tuple(w[0].sizes) == (3, 4)
    site = batched.function.__globals__["_site0"]
    assert 1 <= len(site) <= simgen.SITE_ENTRIES
    assert all(isinstance(entry[-1], Groups) for entry in site.values())


def test_a_builder_holding_earlier_tasks_gets_the_per_task_edges():
    """The second run of the program on the same builder: the kept classification is used,
    the state checks and edges see the first run's tasks."""
    batched, plain = _programs()
    for bindings in (_bindings(3, 4), _bindings(2, 5, cols=5)):
        g1, g0 = _graphs(batched, plain, bindings, runs=3)
        assert_same_graph(g1, g0)


def test_a_site_keeps_a_bounded_number_of_results(monkeypatch):
    """The for_each's nest runs once per s with s in its key: more keys than a site keeps."""
    monkeypatch.setattr(simgen, "SITE_ENTRIES", 3)
    batched, plain = _programs()
    for _ in range(2):
        g1, g0 = _graphs(batched, plain, _bindings(2, 7))
        assert_same_graph(g1, g0)
        assert len(batched.function.__globals__["_site1"]) <= 3


def test_no_kept_results_when_switched_off(monkeypatch):
    monkeypatch.setattr(simgen, "SITE_ENTRIES", 0)
    batched, plain = _programs()
    for bindings in (_bindings(3, 4), _bindings(3, 4)):
        assert_same_graph(*_graphs(batched, plain, bindings))
    assert batched.function.__globals__["_site0"] == {}


def test_an_unbound_extent_is_never_hidden_by_a_kept_result():
    """A nest reading an extent only when its loops run: with no tasks the unbound tensor is
    fine (and kept under that key); with tasks the extent is read and the error raised."""
    batched, _ = _programs()
    bindings = _bindings(0, 3)
    bindings.pop("Y")
    for _ in range(2):
        batched.function(GraphBuilder(), *batched.bind(bindings))
    bindings["n"] = 2
    with pytest.raises(KeyError):
        batched.function(GraphBuilder(), *batched.bind(bindings))


def test_site_keys():
    a = Tensor("X", (2, 3), np.zeros((2, 3)))
    b = Tensor("X", (2, 3), None)
    c = Tensor("X", (2, 4), np.zeros((2, 4)))
    assert simgen._skey(a) == simgen._skey(b) != simgen._skey(c)
    assert simgen._skey(Tensor("Y", (2, 3))) != simgen._skey(a)
    view = View("X", (0, 1), (1, 2), (1, 1), (1,))
    assert simgen._skey(view) == View("X", (0, 1), (1, 2), (1, 1), (1,))
    assert simgen._skey(np.int64(5)) == 5 and simgen._skey(7) == 7
    # Anything else cannot be keyed: its result is not kept.
    key = (1, simgen._skey(object()))
    site: dict = {}
    entry = simgen._site_put(site, key, 4, [("k",)])
    assert site == {} and entry[0] == 4 and isinstance(entry[1], Groups)
    entry = simgen._site_put(site, (1, 2), 4, [("k",)])
    assert site == {(1, 2): entry}


def test_kernel_numbering_of_each_builder_is_respected():
    """Kept per-node arrays hold kernel ids per builder numbering: a builder that met another
    kernel first numbers the program's kernels differently."""
    batched, plain = _programs()
    bindings = _bindings(3, 4)
    for prefix in (False, True, False, True):
        graphs = []
        for code in (batched, plain):
            args = code.bind(bindings)
            builder = GraphBuilder(_shapes(args))
            if prefix:
                builder.add_task("first", (1,), ())
            code.function(builder, *args)
            graphs.append(builder.build())
        assert_same_graph(*graphs)
        assert graphs[0].kernels[0] == ("first" if prefix else "k")


def test_a_program_run_once_has_no_sites():
    """tg-materialize runs its program once: compiled with ``sites=False`` its nests are
    plain batches (no key analysis, nothing kept), with the same graph."""
    from pto_wsp.lowering.cpu.pygen import compile_program

    ctx = _context()
    module = Parser(ctx, SITES).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    once = compile_program(program, module, sites=False)
    assert "_site" not in once.source and once.source.count("_b.add_tasks(") == 2
    batched, plain = _programs()
    bindings = _bindings(3, 5)
    ref = _graphs(once, plain, bindings)
    assert_same_graph(*ref)
    assert_same_graph(ref[0], _graphs(batched, plain, bindings)[0])
