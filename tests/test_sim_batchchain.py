"""Ordered chains as one batch (docs/batchgen.md "Ordered chains", runtime/batch_order.py).

A ``for_each`` over t with one task per iteration — bare, or inside parallel loops — is emitted
as one ``_chains`` call. Whatever the path, the graph must be the per-task one: same nodes in
the same order with the same fields, same edges with the same kinds.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.parser import Parser

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.tg import TG, ProgramOp
from pto_wsp.dialects.wsp import WSP
from pto_wsp.lowering.cpu.pygen import WHOLE
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.runtime import batch_order, bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.graph import GraphBuilder, TaskGraph

KERNELS = """
wsp.kernel @w(i: index, j: index, y: out memref<4xf32>) unit(vector)
wsp.kernel @acc(i: index, j: index, y: in memref<4xf32>, a: inout memref<4xf32>) unit(vector)
wsp.kernel @one(a: inout memref<4xf32>) unit(vector)
"""
HEADER = (
    "wsp.workload @w0(%nb: index, %nt: index, %Y: memref<?x?x4xf32>, %A: memref<?x4xf32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %B = wsp.dense_dyn %nb\n"
    "  %T = wsp.dense_dyn %nt\n"
    "  %D = wsp.dense 2\n"
)


@pytest.fixture(autouse=True)
def _fast_path_for_small_graphs(monkeypatch):
    """These tests run small graphs through the fast path (below FAST_MIN_TASKS a process
    that has not loaded the compiled scheduler takes the general engine)."""
    from pto_wsp.runtime import fastsched

    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 0)
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS_COLD", 0)


@pytest.fixture(params=[1, None], ids=["every-batch", "default-min"])
def batch_min(request, monkeypatch):
    """Batches of any size take the array path (or the default minimum: small ones per task)."""
    if request.param is not None:
        monkeypatch.setattr(graph_module, "BATCH_MIN", request.param)
    bulk_kernels.load()


class _Names:
    def __init__(self) -> None:
        self.k = 0

    def __call__(self, base: str) -> str:
        self.k += 1
        return f"{base}{self.k}"


def _chain(depth: int, fresh: _Names, inner: str | None = None) -> str:
    """``depth`` parallel loops (over B, then D) around a for_each over T of one acc task."""
    loops = []
    b = "%c0"
    for d in range(depth):
        v = fresh("%p")
        axis, ty = ("%B", "!wsp.dense_dyn") if d == 0 else ("%D", "!wsp.dense<2>")
        loops.append(f'wsp.parallel_for {v} in {axis} named("{v[1:]}") : {ty} {{')
        if d == 0:
            b = v
    t = fresh("%t")
    y, a = fresh("%y"), fresh("%a")
    body = (
        f'wsp.for_each {t} in %T named("{t[1:]}") : !wsp.dense_dyn {{\n'
        f"  {y} = wsp.view %Y[{b}, {t}] : memref<?x?x4xf32> -> memref<4xf32>\n"
        f"  {a} = wsp.view %A[{b}] : memref<?x4xf32> -> memref<4xf32>\n"
        f"  wsp.task @acc({b}, {t} : index, index) resources({y}, {a} : memref<4xf32>, "
        "memref<4xf32>)\n" + (inner or "") + "}\n"
    )
    return "\n".join(loops) + "\n" + body + "}\n" * depth


def _writes(fresh: _Names) -> str:
    b, t, y = fresh("%p"), fresh("%q"), fresh("%y")
    return (
        f'wsp.parallel_for {b} in %B named("{b[1:]}") : !wsp.dense_dyn {{\n'
        f'wsp.parallel_for {t} in %T named("{t[1:]}") : !wsp.dense_dyn {{\n'
        f"  {y} = wsp.view %Y[{b}, {t}] : memref<?x?x4xf32> -> memref<4xf32>\n"
        f"  wsp.task @w({b}, {t} : index, index) resources({y} : memref<4xf32>)\n"
        "}\n}\n"
    )


def _single(fresh: _Names) -> str:
    a = fresh("%a")
    return (
        f"{a} = wsp.view %A[%c0] : memref<?x4xf32> -> memref<4xf32>\n"
        f"wsp.task @one() resources({a} : memref<4xf32>)\n"
    )


def _program(body: str):
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    module = Parser(ctx, KERNELS + HEADER + body + "}\n").parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return module, program


def _snapshot(g: TaskGraph) -> tuple:
    src, dst = g.edges()
    nodes = [
        (
            int(g.kind[i]),
            g.kernel_name(i),
            tuple(int(a) for a in g.args[i]),
            tuple((r.tensor, tuple(r.offsets), tuple(r.sizes), r.access) for r in g.regions[i]),
            tuple((k, int(v)) for k, v in g.coords[i]),
            int(g.pool[i]),
            int(g.fanin[i]),
        )
        for i in range(g.num_nodes)
    ]
    return nodes, sorted(zip(src.tolist(), dst.tolist(), g.edge_kind.tolist()))


def _graph(compiled, nb: int, nt: int) -> TaskGraph:
    args = compiled.bind({"nb": nb, "nt": nt})
    shapes = {"Y": [WHOLE, WHOLE, 4], "A": [WHOLE, 4]}
    builder = GraphBuilder(shapes)
    compiled.function(builder, *args)
    return builder.build()


def compare(body: str, sizes) -> list[TaskGraph]:
    module, program = _program(body)
    batched = compile_sim_program(program, module, batch=True)
    plain = compile_sim_program(program, module, batch=False).compiled
    assert "_chains(" in batched.source
    out = []
    for nb, nt in sizes:
        g1 = _graph(batched.compiled, nb, nt)
        g0 = _graph(plain, nb, nt)
        n1, e1 = _snapshot(g1)
        n0, e0 = _snapshot(g0)
        assert len(n1) == len(n0), (nb, nt)
        for i, (x, y) in enumerate(zip(n1, n0)):
            assert x == y, f"({nb}, {nt}) node {i}: {x} != {y}"
        assert e1 == e0, f"({nb}, {nt}) edges differ: {sorted(set(e1) ^ set(e0))[:10]}"
        assert g1.to_text() == g0.to_text()
        out.append(g1)
    return out


SIZES = [(3, 5), (1, 1), (2, 0), (0, 3), (4, 17)]


def test_scan_like_bare_chain(batch_min):
    fresh = _Names()
    (g, *_) = compare(_chain(0, fresh), [(1, 8), (2, 1), (1, 0), (3, 40)])
    # for_each over 8 one-task iterations: 7 structural edges (and the inout RAW is the same
    # pair: structural first).
    assert g.num_tasks == 8 and g.edge_counts()["structural"] == 7 and g.num_edges == 7


@pytest.mark.parametrize("depth", [1, 2])
def test_chains_inside_parallel_loops(batch_min, depth):
    fresh = _Names()
    compare(_writes(fresh) + _chain(depth, fresh), SIZES)


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_chains_in_a_sequential_with_other_stages(batch_min, depth):
    fresh = _Names()
    body = (
        "wsp.sequential {\n"
        + _writes(fresh)
        + _chain(depth, fresh)
        + _single(fresh)
        + _chain(1, fresh)
        + _writes(fresh)
        + "}\n"
    )
    graphs = compare(body, SIZES)
    # Several tasks before the chains: one barrier, right before the first chain's task.
    assert graphs[0].num_barriers >= 1


@pytest.mark.parametrize("depth", [0, 1])
def test_chains_nested_in_another_for_each(batch_min, depth):
    fresh = _Names()
    o = fresh("%o")
    body = (
        f'wsp.for_each {o} in %D named("{o[1:]}") : !wsp.dense<2> {{\n'
        + "wsp.sequential {\n"
        + _writes(fresh)
        + _chain(depth, fresh)
        + "}\n"
        + _chain(1, fresh)
        + "}\n"
    )
    compare(body, SIZES)


def test_a_bare_chain_after_a_task_in_an_enclosing_for_each(batch_min):
    fresh = _Names()
    o = fresh("%o")
    body = (
        f'wsp.for_each {o} in %D named("{o[1:]}") : !wsp.dense<2> {{\n'
        + _single(fresh)
        + _chain(0, fresh)
        + "}\n"
    )
    compare(body, SIZES)


class _PerTask(GraphBuilder):
    """A subclass without ``batches = True``: add_tasks takes the per-task path."""


@pytest.mark.parametrize("scoped", [True, False])
@pytest.mark.parametrize("cls", [GraphBuilder, _PerTask])
@pytest.mark.parametrize("before", [0, 1, 3])
def test_add_chains_equals_its_per_task_form(batch_min, scoped, cls, before):
    """``add_chains`` on builders directly, after ``before`` tasks of the same scope (a bare
    chain whose scope already holds tasks goes task by task: its first ordering point makes a
    frontier of several nodes) and with a frontier of several nodes before it."""
    count, length = (3, 4) if scoped else (1, 6)
    t = np.tile(np.arange(length), count)
    groups = [("k", None, (t,), (), (("t", t),), "vector", -1, 0, 0, "host_cpu")]
    graphs = []
    for chains in (batch_order.add_chains, batch_order.per_task):
        b = cls()
        b.add_task("x")
        b.add_task("x")
        b.enter_ordered()
        b.add_task("y")
        b.add_task("y")
        b.order_point()
        for _ in range(before):
            b.add_task("z")
        chains(b, count, length, scoped, groups)
        b.add_task("after")
        b.order_point()
        b.add_task("last")
        b.exit_ordered()
        graphs.append(b.build())
    assert _snapshot(graphs[0]) == _snapshot(graphs[1])
    assert graphs[0].to_text() == graphs[1].to_text()


@settings(max_examples=25, deadline=None)
@given(
    stages=st.lists(
        st.tuples(st.sampled_from(["chain", "writes", "single"]), st.integers(0, 2)),
        min_size=1,
        max_size=4,
    ),
    container=st.sampled_from(["sequential", "combine"]),
    outer=st.booleans(),
    nb=st.integers(0, 3),
    nt=st.integers(0, 4),
)
def test_random_chain_shapes(stages, container, outer, nb, nt):
    graph_module_min = graph_module.BATCH_MIN
    graph_module.BATCH_MIN = 1
    try:
        fresh = _Names()
        parts = []
        for kind, depth in stages:
            if kind == "chain":
                parts.append(_chain(depth, fresh))
            elif kind == "writes":
                parts.append(_writes(fresh))
            else:
                parts.append(_single(fresh))
        if not any(kind == "chain" for kind, _ in stages):
            parts.append(_chain(1, fresh))
        body = f"wsp.{container} {{\n" + "".join(parts) + "}\n"
        if outer:
            o = fresh("%o")
            body = f'wsp.for_each {o} in %D named("{o[1:]}") : !wsp.dense<2> {{\n{body}}}\n'
        compare(body, [(nb, nt)])
    finally:
        graph_module.BATCH_MIN = graph_module_min


def test_the_benchmark_workload_batches_its_chains():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    try:
        import bench_sim_exec as bench
    finally:
        sys.path.pop(0)
    noop = {"proj": bench._noop, "mlp": bench._noop, "accum": bench._noop}
    prog = bench.workload().compile(target="cpu_sim", workers=2, kernels=noop)
    source = prog.source
    assert "_b.add_task(" not in source and "enter_ordered" not in source
    assert source.count("_b.add_tasks(") == 2 and source.count("_chains(_b, ") == 1
    # Functional results with real bodies equal numpy's, batched or not, fast or general.
    B, T = 3, 20
    ref = bench.arrays(B, T)
    h = ref["X"] @ ref["W1"]
    expect = (h @ ref["W2"]).sum(axis=1)
    for fast in (True, False):
        arrays = bench.arrays(B, T)
        prog = bench.workload().compile(target="cpu_sim", workers=2, fast=fast)
        prog.bind(B=B, T=T, **arrays)
        prog.execute()
        np.testing.assert_allclose(arrays["A"], expect, rtol=1e-4, atol=1e-3)
