"""Vectorised task generation and bulk dependency inference (docs/batchgen.md).

A regular loop nest is emitted as numpy arrays and one ``_b.add_tasks`` call; the GraphBuilder
infers its data edges in array form. Whatever the path, the graph must be the per-task one:
same nodes in the same order with the same fields, same edges with the same kinds. Checked on
every example, on the workloads of test_materialize.py and test_sim_functional.py, and on
random regular nests mixed with single tasks and ordering points.
"""

from __future__ import annotations

import contextlib
import inspect
import io
from pathlib import Path

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
from pto_wsp.lowering.cpu import backend
from pto_wsp.lowering.cpu.pygen import WHOLE
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime import bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.bulk import BatchRegion, iter_batch
from pto_wsp.runtime.graph import GraphBuilder, TaskGraph
from pto_wsp.runtime.program import Program
from pto_wsp.runtime.regions import TensorRegion

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    """Batches of any size take the array path (the default leaves tiny ones per task), with
    the compiled kernels (loaded at once, not only for large arrays)."""
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    bulk_kernels.load()


def _context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    return ctx


def _snapshot(g: TaskGraph) -> tuple:
    """Everything a TaskGraph says, in plain Python values."""
    src, dst = g.edges()
    nodes = []
    for i in range(g.num_nodes):
        regions = tuple(
            (
                r.tensor,
                tuple(r.offsets),
                tuple(r.sizes),
                tuple(r.strides),
                r.access,
                getattr(r, "kept", None),
            )
            for r in g.regions[i]
        )
        nodes.append(
            (
                int(g.kind[i]),
                g.kernel_name(i),
                tuple(int(a) for a in g.args[i]),
                regions,
                tuple((k, int(v)) for k, v in g.coords[i]),
                int(g.pool[i]),
                int(g.domain[i]),
                int(g.target[i]),
                int(g.stream[i]),
                int(g.priority[i]),
                int(g.fanin[i]),
            )
        )
    edges = sorted(zip(src.tolist(), dst.tolist(), g.edge_kind.tolist()))
    return nodes, edges


def assert_same_graph(batched: TaskGraph, reference: TaskGraph) -> None:
    a, b = _snapshot(batched), _snapshot(reference)
    assert len(a[0]) == len(b[0]), "node counts differ"
    assert batched.kernels == reference.kernels
    assert (batched.kernel == reference.kernel).all()
    for i, (x, y) in enumerate(zip(a[0], b[0])):
        assert x == y, f"node {i}: {x} != {y}"
    assert set(a[1]) == set(b[1]), f"edges differ: {sorted(set(a[1]) ^ set(b[1]))[:10]}"
    assert len(a[1]) == len(b[1])
    assert batched.to_text() == reference.to_text()


def _run(function, args, shapes, infer=True) -> TaskGraph:
    builder = GraphBuilder(shapes, infer_data_deps=infer)
    function(builder, *args)
    return builder.build()


def _shapes(args) -> dict:
    return {
        a.name: [s if s is not None else WHOLE for s in a.shape]
        for a in args
        if hasattr(a, "shape") and hasattr(a, "name")
    }


def compare_program(module, program: ProgramOp, bindings: dict) -> TaskGraph:
    """The graph of ``program`` with batches, after checking it equals the per-task one."""
    batched = compile_sim_program(program, module, batch=True).compiled
    plain = compile_sim_program(program, module, batch=False).compiled
    args = batched.bind(bindings)
    g1 = _run(batched.function, args, _shapes(args))
    args = plain.bind(bindings)
    g0 = _run(plain.function, args, _shapes(args))
    assert_same_graph(g1, g0)
    return g1


# ---------------------------------------------------------------------------- examples


def _example_programs():
    out = []
    for path in sorted(EXAMPLES.glob("*.mlir")):
        ctx = _context()
        module = Parser(ctx, path.read_text()).parse_module()
        with contextlib.redirect_stderr(io.StringIO()):
            WspToTgPass().apply(ctx, module)
            CspToTgPass().apply(ctx, module)
        for op in module.ops:
            if isinstance(op, ProgramOp) and not op.processes():
                out.append((path.name, op.sym_name.data, module, op))
    return out


@pytest.mark.parametrize("size", [1, 3, 7])
def test_every_example_program_gives_the_per_task_graph(size):
    programs = _example_programs()
    assert programs
    batched = 0
    for _file, _name, module, program in programs:
        per_row = [(2 * i + 1) % 4 for i in range(size)]  # 1, 3, 2, 0, ...
        indptr = np.concatenate([[0], np.cumsum(per_row)])
        bindings = {
            "seq_lens": np.array(per_row),
            "lengths": np.array(per_row),
            "indptr": indptr,
            "indices": np.arange(indptr[-1]) * 3 % 8,
        }
        for name, type_ in zip(program.arg_names, program.function_type.inputs.data):
            if isinstance(type_, builtin.IndexType):
                bindings.setdefault(name.data, size)
        compare_program(module, program, bindings)
        batched += "add_tasks" in compile_sim_program(program, module).source
    assert batched >= 5  # the regular ones are batched (transformer_layer, three_stage, ...)


# ---------------------------------------------------------------------------- test workloads


def _parametrized_calls(fn):
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        return [{}]
    names = marks[0].args[0]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    return [dict(zip(names, v if len(names) > 1 else (v,))) for v in marks[0].args[1]]


def _run_module_tests(module) -> int:
    count = 0
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("test_") or fn.__module__ != module.__name__:
            continue
        params = inspect.signature(fn).parameters
        for kwargs in _parametrized_calls(fn):
            if set(params) - set(kwargs):
                continue  # needs a fixture
            fn(**kwargs)
            count += 1
    return count


def test_materialize_workloads_give_the_per_task_graph(monkeypatch):
    """test_materialize.py's workloads, each through both generators (and its own checks)."""
    import test_materialize

    seen = []

    def materialize(module, program, bindings):
        seen.append(program.sym_name.data)
        return compare_program(module, program, bindings)

    monkeypatch.setattr(test_materialize, "materialize", materialize)
    assert _run_module_tests(test_materialize) > 5
    assert len(seen) > 5


def test_functional_workloads_give_the_per_task_graph(monkeypatch):
    """test_sim_functional.py's workloads: every main program each test runs, rebuilt with
    batches and without, from the same bound arguments."""
    import test_sim_functional

    plain = {}
    compile_orig = backend.compile_sim_program

    def compile_both(program, module=None, batch=None):
        code = compile_orig(program, module, batch=True)
        plain[id(code)] = (code, compile_orig(program, module, batch=False))
        return code

    runs = []
    run_orig = Program._run

    def run(self, *a, **k):
        if not self.code.is_pipeline:
            args, _arrays, shapes = self._arguments()
            runs.append((self.code, args, shapes, self.config.infer_data_deps))
        return run_orig(self, *a, **k)

    monkeypatch.setattr(backend, "compile_sim_program", compile_both)
    monkeypatch.setattr(Program, "_run", run)
    assert _run_module_tests(test_sim_functional) > 5
    assert len(runs) > 5
    batched = 0
    for code, args, shapes, infer in runs:
        _code, reference = plain[id(code)]
        assert_same_graph(
            _run(code.compiled.function, args, shapes, infer),
            _run(reference.compiled.function, args, shapes, infer),
        )
        batched += "add_tasks" in code.source
    assert batched


# ---------------------------------------------------------------------------- generated source

NEST = """
wsp.kernel @k(i: index, j: index, x: in memref<4x4xf32>, y: out memref<4x4xf32>) unit(vector)
wsp.kernel @k2(i: index, y: inout memref<4x4xf32>) unit(vector)
wsp.workload @w(%n: index, %X: memref<?x3x4x4xf32>, %Y: memref<?x3x4x4xf32>) {
  %a = wsp.dense_dyn %n
  %b = wsp.dense 3
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    wsp.parallel_for %j in %b named("j") : !wsp.dense<3> {
      %x = wsp.view %X[%i, %j] : memref<?x3x4x4xf32> -> memref<4x4xf32>
      %y = wsp.view %Y[%i, %j] : memref<?x3x4x4xf32> -> memref<4x4xf32>
      wsp.task @k(%i, %j : index, index) resources(%x, %y : memref<4x4xf32>, memref<4x4xf32>)
    }
    %y0 = wsp.view %Y[%i, 0] : memref<?x3x4x4xf32> -> memref<4x4xf32>
    wsp.task @k2(%i : index) resources(%y0 : memref<4x4xf32>)
  }
  %c = wsp.dense 3
  wsp.for_each %s in %c named("s") : !wsp.dense<3> {
    %y1 = wsp.view %Y[0, %s] : memref<?x3x4x4xf32> -> memref<4x4xf32>
    wsp.task @k2(%s : index) resources(%y1 : memref<4x4xf32>)
  }
}
"""


def _nest_program():
    ctx = _context()
    module = Parser(ctx, NEST).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return module, program


def test_a_regular_nest_becomes_one_add_tasks_call():
    module, program = _nest_program()
    source = compile_sim_program(program, module).source
    vector, _, ordered = source.partition("enter_ordered")
    assert vector.count("_b.add_tasks(") == 1
    assert "_b.add_task(" not in vector
    assert "_axis(" in vector
    # The for_each is one chain (docs/batchgen.md "Ordered chains").
    assert "_chains(_b, *_hit)" in ordered and "_b.add_task(" not in ordered
    assert "_key, 1, _n0, False, [" in ordered  # count, length, scoped, groups
    plain = compile_sim_program(program, module, batch=False).source
    assert "add_tasks" not in plain
    g = compare_program(module, program, {"n": 4})
    # Interleaved creation order: 3 k tasks then one k2 task per i.
    names = [g.kernel_name(i) for i in range(8)]
    assert names == ["k", "k", "k", "k2", "k", "k", "k", "k2"]


def test_engine_add_tasks_creates_the_tasks_one_by_one():
    """The general engine takes a batch task by task: its graph is the per-task one."""
    from pto_wsp.runtime.engine import SimConfig, Simulator

    module, program = _nest_program()
    graphs = []
    for batch in (True, False):
        compiled = compile_sim_program(program, module, batch=batch).compiled
        args = compiled.bind({"n": 3})
        sim = Simulator(SimConfig(functional=False, workers=2), {}, shapes=_shapes(args))
        sim.run_main(compiled.function, args)
        assert sim.completed == 3 * 4 + 3
        graphs.append(sim.graph.build())
    assert_same_graph(*graphs)


# ---------------------------------------------------------------------------- random nests

TENSORS = {"A": (12, 12), "B": (12, 12)}


@st.composite
def _region_spec(draw):
    """A region per task: tiles of a tiling (often nested with the others: sizes 1, 2, 4),
    or any box, strided or not, offset by the loop indices."""
    tensor = draw(st.sampled_from(sorted(TENSORS)))
    aligned = draw(st.booleans())
    if aligned:
        sizes = (draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2, 4, 12])))
        strides = (1, 1)
    else:
        sizes = (draw(st.integers(0, 4)), draw(st.integers(1, 5)))
        strides = draw(st.sampled_from([(1, 1), (1, 1), (1, 2)]))
    # offset = base + index * step per dimension (loop index 0 or 1, or none).
    dims = []
    for d in range(2):
        which = draw(st.sampled_from([None, 0, 1]))
        if aligned:
            step = sizes[d] * draw(st.integers(1, 2))
            base = sizes[d] * draw(st.integers(0, 2))
        else:
            step = draw(st.integers(1, 5))
            base = draw(st.integers(0, 4))
        dims.append((which, step, base))
    access = draw(st.sampled_from(["in", "out", "inout"]))
    return tensor, dims, sizes, strides, access


@st.composite
def _step(draw):
    kind = draw(st.sampled_from(["batch", "batch", "batch", "task", "enter", "point", "exit"]))
    if kind == "batch":
        loops = (draw(st.integers(1, 4)), draw(st.integers(1, 3)))
        ops = draw(
            st.lists(st.lists(_region_spec(), min_size=1, max_size=3), min_size=1, max_size=2)
        )
        return ("batch", loops, ops)
    if kind == "task":
        tensor = draw(st.sampled_from(sorted(TENSORS)))
        offs = (draw(st.integers(0, 10)), draw(st.integers(0, 10)))
        sizes = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
        access = draw(st.sampled_from(["in", "out", "inout"]))
        return ("task", TensorRegion(tensor, offs, sizes, None, access))
    return (kind,)


def _groups(loops, ops):
    n0, n1 = loops
    i = np.repeat(np.arange(n0), n1)
    j = np.tile(np.arange(n1), n0)
    idx = (i, j)
    k = len(ops)
    groups = []
    for g, regions in enumerate(ops):
        pos = None if k == 1 else np.arange(n0 * n1) * k + g
        made = []
        for tensor, dims, sizes, strides, access in regions:
            offs = tuple(base if w is None else base + idx[w] * step for w, step, base in dims)
            made.append(BatchRegion(tensor, offs, sizes, strides, access, (0, 1), None))
        groups.append(
            (
                f"k{g}",
                pos,
                (i, j),
                tuple(made),
                (("i", i), ("j", j)),
                "vector",
                -1,
                j,
                0,
                "host_cpu",
            )
        )
    return n0 * n1 * k, groups


def _play(steps, batched: bool, b: GraphBuilder | None = None) -> TaskGraph:
    """The steps on builder ``b`` (a fresh one if None). A step ("kept", n, groups) is a
    batch made once, handed over again (tests/test_runtime_tape.py)."""
    b = GraphBuilder(TENSORS) if b is None else b
    depth = 0
    for step in steps:
        if step[0] in ("batch", "kept"):
            n, groups = step[1:] if step[0] == "kept" else _groups(step[1], step[2])
            if batched:
                b.add_tasks(n, groups)
            else:
                for row in iter_batch(n, groups):
                    b.add_task(*row)
        elif step[0] == "task":
            b.add_task("single", (), (step[1],))
        elif step[0] == "enter":
            b.enter_ordered()
            depth += 1
        elif step[0] == "point" and depth:
            b.order_point()
        elif step[0] == "exit" and depth:
            b.exit_ordered()
            depth -= 1
    for _ in range(depth):
        b.exit_ordered()
    return b.build()


@settings(max_examples=150, deadline=None)
@given(st.lists(_step(), min_size=1, max_size=8))
def test_random_regular_nests_give_the_per_task_edges(steps):
    assert_same_graph(_play(steps, True), _play(steps, False))


@pytest.mark.parametrize("compiled", [True, False])
def test_tiled_stages_take_the_array_path_and_stay_exact(monkeypatch, compiled):
    """Row tiles written, whole rows read, column blocks written: nested tilings in array
    form (no fallback), edges equal to the per-task path."""
    monkeypatch.setattr(bulk_kernels, "COMPILED", compiled)
    B, T = 3, 4
    b_ = np.repeat(np.arange(B), T)
    t_ = np.tile(np.arange(T), B)

    def stage(kernel, regions, n, coords):
        return n, [(kernel, None, (), regions, coords, "vector", -1, 0, 0, "host_cpu")]

    steps = [
        stage("w", (BatchRegion("X", (b_, t_ * 4), (1, 4), (1, 1), "out", (1,), True),), B * T, ()),
        stage(
            "r", (BatchRegion("X", (np.arange(B), 0), (1, 16), (1, 1), "in", (1,), True),), B, ()
        ),
        stage(
            "u", (BatchRegion("X", (b_, t_ * 4), (1, 4), (1, 1), "inout", (1,), True),), B * T, ()
        ),
        stage("c", (BatchRegion("X", (b_, t_ * 2), (1, 2), (1, 1), "out", (1,), True),), B * T, ()),
    ]
    out = []
    for batched in (True, False):
        g = GraphBuilder({"X": (B, 16)})
        for n, groups in steps:
            if batched:
                g.add_tasks(n, groups)
            else:
                for row in iter_batch(n, groups):
                    g.add_task(*row)
        if batched:
            assert "X" in g._bulk.tensors  # never fell back to the TensorMap
        out.append(g.build())
    assert_same_graph(*out)
    assert out[0].edge_counts()["raw"] > 0 and out[0].edge_counts()["war"] > 0


def test_called_programs_address_the_callers_tensors():
    """With tg.call kept, a callee's tensor arguments are the caller's tensors: its regions
    name those (as the task-by-task generator of pygen does), batched or not."""
    from pto_wsp.lowering.cpu.pygen import compile_program_plain

    ctx = _context()
    module = Parser(ctx, (EXAMPLES / "transformer_layer.mlir").read_text()).parse_module()
    WspToTgPass(calls="nested").apply(ctx, module)
    program = next(
        op
        for op in module.ops
        if isinstance(op, ProgramOp) and op.sym_name.data == "transformer_layer"
    )
    g = compare_program(module, program, {"n": 3})
    plain = compile_program_plain(program, module)
    args = plain.bind({"n": 3})
    # pygen's regions have no kept dimensions; everything else is the same.
    assert g.to_text() == _run(plain.function, args, _shapes(args)).to_text()
    assert {r.tensor for r in g.regions[3]} == {"x_norm", "attn"}


@st.composite
def _nested_step(draw):
    """Batches and single tasks on one tensor, all on tilings that nest (rows of 1, 2 or 4,
    columns of 2, 4 or 12): the array path with finer and coarser tilings, adoption of
    TensorMap entries and release back to it."""
    if draw(st.integers(0, 4)) == 0:
        rows, cols = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([2, 4, 12]))
        offs = (rows * draw(st.integers(0, 2)), cols * draw(st.integers(0, 12 // cols - 1)))
        access = draw(st.sampled_from(["in", "out", "inout"]))
        return ("task", TensorRegion("A", offs, (rows, cols), None, access))
    ops = []
    # Mostly one tiling per batch (what the array path takes), sometimes several.
    one = draw(st.integers(0, 3)) > 0
    tiling = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([2, 4, 12]))
    for _ in range(draw(st.integers(1, 2))):
        regions = []
        for _ in range(draw(st.integers(1, 2))):
            rows, cols = (
                tiling
                if one
                else (draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([2, 4, 12])))
            )
            dims = [
                (draw(st.sampled_from([None, 0])), rows, rows * draw(st.integers(0, 1))),
                (
                    draw(st.sampled_from([None, 1])) if cols < 12 else None,
                    cols,
                    0 if cols == 12 else cols * draw(st.integers(0, 1)),
                ),
            ]
            access = draw(st.sampled_from(["in", "out", "inout"]))
            regions.append(("A", dims, (rows, cols), (1, 1), access))
        ops.append(regions)
    return ("batch", (draw(st.integers(1, 3)), draw(st.integers(1, 2))), ops)


@settings(max_examples=100, deadline=None)
@given(st.lists(_nested_step(), min_size=1, max_size=8))
def test_nested_tilings_give_the_per_task_edges(steps):
    assert_same_graph(_play(steps, True), _play(steps, False))


@contextlib.contextmanager
def _numpy_twins():
    """runtime/bulk_kernels.py's numpy versions instead of the compiled ones."""
    saved = bulk_kernels.COMPILED
    bulk_kernels.COMPILED = False
    try:
        yield
    finally:
        bulk_kernels.COMPILED = saved


@settings(max_examples=60, deadline=None)
@given(st.lists(_step(), min_size=1, max_size=8))
def test_random_regular_nests_with_the_numpy_twins(steps):
    with _numpy_twins():
        assert_same_graph(_play(steps, True), _play(steps, False))


@settings(max_examples=60, deadline=None)
@given(st.lists(_nested_step(), min_size=1, max_size=8))
def test_nested_tilings_with_the_numpy_twins(steps):
    with _numpy_twins():
        assert_same_graph(_play(steps, True), _play(steps, False))


EMPTY_INNER = """
wsp.kernel @k(i: index, j: index, x: out memref<4xf32>) unit(vector)
wsp.kernel @k2(i: index, y: out memref<4xf32>) unit(vector)
wsp.workload @w(%n: index, %m: index, %X: memref<?x?x4xf32>, %Y: memref<?x4xf32>) {
  %a = wsp.dense_dyn %n
  %b = wsp.dense_dyn %m
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    wsp.parallel_for %j in %b named("j") : !wsp.dense_dyn {
      %x = wsp.view %X[%i, %j] : memref<?x?x4xf32> -> memref<4xf32>
      wsp.task @k(%i, %j : index, index) resources(%x : memref<4xf32>)
    }
    %y = wsp.view %Y[%i] : memref<?x4xf32> -> memref<4xf32>
    wsp.task @k2(%i : index) resources(%y : memref<4xf32>)
  }
}
"""


@pytest.mark.parametrize("n, m", [(3, 0), (0, 2), (2, 3)])
def test_empty_loops_create_nothing_and_keep_the_kernel_table(n, m):
    ctx = _context()
    module = Parser(ctx, EMPTY_INNER).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    assert "add_tasks" in compile_sim_program(program, module).source
    g = compare_program(module, program, {"n": n, "m": m})
    assert g.num_tasks == n * (m + 1)
    assert g.kernels == (["k", "k2"] if m else ["k2"])[: 2 if n else 0]


UNBOUND = """
wsp.kernel @k(i: index, x: in memref<?xf32>) unit(vector)
wsp.workload @w(%n: index, %X: memref<?x?xf32>) {
  %a = wsp.dense_dyn %n
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    %x = wsp.view %X[%i] : memref<?x?xf32> -> memref<?xf32>
    wsp.task @k(%i : index) resources(%x : memref<?xf32>)
  }
}
"""


def test_an_unbound_extent_is_read_only_where_tasks_are_created():
    ctx = _context()
    module = Parser(ctx, UNBOUND).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    assert ".dim(" in compile_sim_program(program, module).source
    assert compare_program(module, program, {"n": 0}).num_nodes == 0
    for batch in (True, False):
        compiled = compile_sim_program(program, module, batch=batch).compiled
        with pytest.raises(KeyError):
            _run(compiled.function, compiled.bind({"n": 3}), {})
    g = compare_program(module, program, {"n": 3, "X": np.zeros((3, 5), np.float32)})
    assert [r.sizes for r in g.regions[2]] == [(1, 5)]
