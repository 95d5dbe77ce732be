"""Batches of data-dependent loop nests (docs/batchgen.md): ``memref.load`` as a gather,
ragged loops (bounds from loads or from outer induction variables) in a flat iteration space.

Whatever the path, the graph must be the per-task one (nodes, ids, regions, params, coords,
streams, edges with kinds), a load is evaluated only where the per-task code evaluates it,
and an error is the per-task code's error (the nest then runs task by task: its fallback).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_batchgen import _context, _run, _shapes, assert_same_graph, compare_program
from xdsl.parser import Parser

from pto_wsp.dialects.tg import ProgramOp
from pto_wsp.lowering.cpu import simgen
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime import bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.graph import GraphBuilder

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    """Batches of any size take the array path, with the compiled kernels."""
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    bulk_kernels.load()


def _parse(text: str):
    ctx = _context()
    module = Parser(ctx, text).parse_module()
    with contextlib.redirect_stderr(io.StringIO()):
        WspToTgPass().apply(ctx, module)
        CspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return module, program


def _compare(module, program, bindings, fallbacks: int = 0):
    """compare_program, checking how many nests fell back to their per-task code."""
    before = simgen.FALLBACKS
    g = compare_program(module, program, bindings)
    assert simgen.FALLBACKS - before == fallbacks
    return g


def _batched_source(program, module) -> str:
    """The generated code without the per-task fallbacks (what runs when nothing fails)."""
    return _without_fallbacks(compile_sim_program(program, module).source)


def _without_fallbacks(source: str) -> str:
    """Generated code without the data nests' per-task fallbacks."""
    out, skip = [], None
    for line in source.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip is not None and indent > skip:
            continue
        skip = indent if line.strip().startswith("except Exception") else None
        out.append(line)
    return "\n".join(out)


def _csr(rng, rows: int, width: int = 3, experts: int = 8):
    per_row = rng.integers(0, width + 1, rows)
    per_row[rng.integers(0, rows)] = 0  # an empty row
    indptr = np.concatenate([[0], np.cumsum(per_row)])
    indices = rng.integers(0, experts, int(indptr[-1]))
    return indptr, indices


# ---------------------------------------------------------------------------- the examples


def _example(name: str):
    return _parse((EXAMPLES / name).read_text())


def _one_batch(name):
    """The example's program, its module and batched source: one add_tasks call, no task
    created one by one."""
    module, program = _example(name)
    batched = _batched_source(program, module)
    assert batched.count("_b.add_tasks(") == 1 and "_b.add_task(" not in batched
    return module, program, batched


def test_moe_takes_the_array_path_and_gives_the_per_task_graph():
    module, program, batched = _one_batch("moe.mlir")
    assert "_ragged(" in batched and "_gather(" in batched
    rng = np.random.default_rng(0)
    for rows in (1, 5, 23):
        indptr, indices = _csr(rng, rows)
        g = _compare(
            module,
            program,
            {"batch_size": rows, "indptr": indptr, "indices": indices},
        )
        assert g.num_nodes == len(indices)
        assert [g.coords[i][1][1] for i in range(g.num_nodes)] == indices.tolist()


def test_attention_takes_the_array_path_and_gives_the_per_task_graph():
    """seq_lens[b] is a parameter and K's and V's size (a size array in one batch)."""
    module, program, _ = _one_batch("attention.mlir")
    rng = np.random.default_rng(1)
    for batch in (1, 4, 9):
        for seq in (np.full(batch, 200), rng.integers(0, 300, batch)):
            g = _compare(module, program, {"batch_size": batch, "seq_lens": seq})
            assert [int(g.args[i][2]) for i in range(g.num_nodes)] == np.repeat(seq, 8).tolist()


def test_tiered_branches_take_the_array_path_and_give_the_per_task_graph():
    """examples/tiered.py: scf.if on a loaded length, nested in the else branch."""
    module, program, _ = _one_batch("tiered.mlir")
    rng = np.random.default_rng(2)
    for batch in (1, 6, 17):
        seq = rng.integers(0, 12000, batch)
        g = _compare(module, program, {"batch_size": batch, "seq_lens": seq})
        kinds = np.where(seq <= 2048, "attn_2k", np.where(seq <= 8192, "attn_8k", "attn_32k"))
        assert [g.kernel_name(i) for i in range(g.num_nodes)] == kinds.tolist()


RAGGED = """
wsp.kernel @tile(b: index, t: index, q: in memref<16xf32>, k: in memref<64x16xf32>, o: inout memref<16xf32>) unit(cube)
wsp.kernel @head(b: index, o: inout memref<16xf32>) unit(vector)
tg.program @ragged(%Q: memref<?x64x16xf32>, %K: memref<?x64x16xf32>, %O: memref<?x8x16xf32>, %lens: memref<?xindex>, %B: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %b = %c0 to %B step %c1 {
    %n = memref.load %lens[%b] : memref<?xindex>
    %kv = memref.subview %K[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<?x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    %o0 = memref.subview %O[%b, 0, 0] [1, 1, 16] [1, 1, 1] : memref<?x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    tg.task @head(%b : index) resources(%o0 : memref<16xf32, strided<[1], offset: ?>>) access(inout) at(b = %b) pool(vector)
    scf.for %t = %c0 to %n step %c1 {
      %r = arith.remui %t, %c8 : index
      %q = memref.subview %Q[%b, %t, 0] [1, 1, 16] [1, 1, 1] : memref<?x64x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %o = memref.subview %O[%b, %r, 0] [1, 1, 16] [1, 1, 1] : memref<?x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      tg.task @tile(%b, %t : index, index) resources(%q, %kv, %o : memref<16xf32, strided<[1], offset: ?>>, memref<64x16xf32, strided<[16, 1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) access(in, in, inout) at(b = %b, t = %t) pool(cube) stream(%r)
      tg.task @head(%b : index) resources(%o0 : memref<16xf32, strided<[1], offset: ?>>) access(inout) at(b = %b) pool(vector)
    }
    tg.task @head(%b : index) resources(%o0 : memref<16xf32, strided<[1], offset: ?>>) access(inout) at(b = %b) pool(vector)
  }
}
"""


def test_a_ragged_nest_with_tasks_at_two_depths_interleaves_as_task_by_task():
    module, program = _parse(RAGGED)
    batched = _batched_source(program, module)
    assert batched.count("_b.add_tasks(") == 1 and "_b.add_task(" not in batched
    for lens in ([3, 0, 2], [0, 0], [5], [0, 4, 0, 1, 7]):
        lens = np.array(lens)
        g = _compare(module, program, {"B": len(lens), "lens": lens})
        want = []
        for n in lens:
            want += ["head"] + ["tile", "head"] * int(n) + ["head"]
        assert [g.kernel_name(i) for i in range(g.num_nodes)] == want
        assert g.num_edges or not len(g.args)


# ---------------------------------------------------------------------------- random nests

KERNELS = """
wsp.kernel @k1(a: index, x: inout memref<4xf32>) unit(vector)
wsp.kernel @k2(a: index, b: index, x: inout memref<4xf32>) unit(vector)
wsp.kernel @k3(a: index, b: index, c: index, x: inout memref<4xf32>) unit(vector)
wsp.kernel @k4(a: index, b: index, c: index, d: index, x: inout memref<4xf32>) unit(vector)
"""
ARGS = (
    "%A: memref<?x4xf32>, %lens: memref<?xindex>, %ptr: memref<?xindex>, "
    "%idx: memref<?xindex>, %n: index"
)
ROWS = 6  # lens and ptr rows
VIEW = "memref<4xf32, strided<[1], offset: ?>>"


class _Text:
    """tg text being written (random programs): its lines, fresh names, index constants and
    rows (a value modulo ``rows``)."""

    def __init__(self, rows: int) -> None:
        self.lines: list[str] = []
        self.rows = rows
        self.k = 0

    def fresh(self, prefix: str) -> str:
        self.k += 1
        return f"%{prefix}{self.k}"

    def const(self, value: int) -> str:
        name = self.fresh("c")
        self.lines.append(f"{name} = arith.constant {value} : index")
        return name

    def row(self, value: str) -> str:
        name = self.fresh("row")
        self.lines.append(f"{name} = arith.remui {value}, {self.const(self.rows)} : index")
        return name


@st.composite
def _nest(draw):
    """A random nest: loops dense, ragged (lens[i]), triangular (0..i, i..4) or CSR
    (ptr[i]..ptr[i+1], idx[k] as a value), 1-3 levels, scf.if branches (with or without an
    else) on the loop values, tasks at any level, targets from tg.seq or divided by %n (tg
    text)."""
    text = _Text(ROWS)
    lines, fresh, const, row = text.lines, text.fresh, text.const, text.row

    def task(values: list[str]) -> None:
        values = values[-4:]
        tile = fresh("s")
        mix = values[0]
        for v in values[1:]:
            name = fresh("m")
            lines.append(f"{name} = arith.addi {mix}, {v} : index")
            mix = name
        lines.append(f"{tile} = arith.remui {mix}, {const(draw(st.integers(1, 5)))} : index")
        view = fresh("v")
        lines.append(
            f"{view} = memref.subview %A[{tile}, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}"
        )
        types = ", ".join(["index"] * len(values))
        coords = ", ".join(f"x{i} = {v}" for i, v in enumerate(values))
        target = ""
        if draw(st.booleans()):  # round_robin (tg.seq) or range (a division by %n) dispatch
            t = fresh("tgt")
            if draw(st.booleans()):
                seq = fresh("seq")
                lines.append(f"{seq} = tg.seq")
                lines.append(f"{t} = arith.remui {seq}, {const(3)} : index")
            else:
                lines.append(f"{t} = arith.divui {mix}, %n : index")
            target = f" target({t})"
        lines.append(
            f"tg.task @k{len(values)}({', '.join(values)} : {types}) resources({view} : "
            f"{VIEW}) access(inout) at({coords}) pool(vector){target} stream({tile})"
        )

    def loop(values: list[str], depth: int) -> None:
        kind = "dense" if depth == 0 else draw(st.sampled_from(["dense", "ragged", "tri", "csr"]))
        one = const(1)
        step = one
        if kind == "dense":
            lb, ub = const(draw(st.integers(0, 1))), "%n" if depth == 0 else const(3)
            step = const(draw(st.integers(1, 2)))
        elif kind == "ragged":
            lb, ub = const(0), fresh("len")
            lines.append(f"{ub} = memref.load %lens[{row(values[-1])}] : memref<?xindex>")
        elif kind == "tri":
            if draw(st.booleans()):
                lb, ub = const(0), values[-1]
            else:
                lb, ub = values[-1], const(4)
        else:
            r = row(values[0])
            lb, ub, nxt = fresh("lo"), fresh("hi"), fresh("r")
            lines.append(f"{lb} = memref.load %ptr[{r}] : memref<?xindex>")
            lines.append(f"{nxt} = arith.addi {r}, {one} : index")
            lines.append(f"{ub} = memref.load %ptr[{nxt}] : memref<?xindex>")
        iv = fresh("i")
        lines.append(f"scf.for {iv} = {lb} to {ub} step {step} {{")
        inner = [*values, iv]
        if kind == "csr" or kind == "dense" and draw(st.booleans()):
            e = fresh("e")  # idx[k] (CSR), or a gather in a dense loop (iv < 8)
            lines.append(f"{e} = memref.load %idx[{iv}] : memref<?xindex>")
            inner.append(e)
        items = draw(st.lists(st.sampled_from(["task", "loop", "if"]), min_size=1, max_size=3))
        if depth == 2 or "task" not in items and draw(st.booleans()):
            items = ["task"]
        elif depth == 0 and "loop" not in items:
            items.append("loop")  # the root holds an inner loop: mostly a ragged nest
        for item in items:
            if item == "loop" and depth < 2:
                loop(inner, depth + 1)
            elif item == "if":
                branch(inner, depth)
            else:
                task(inner)
        lines.append("}")

    def branch(values: list[str], depth: int) -> None:
        cond = fresh("q")
        pred = draw(st.sampled_from(["slt", "eq", "uge"]))
        lines.append(
            f"{cond} = arith.cmpi {pred}, {values[-1]}, {const(draw(st.integers(0, 3)))} : index"
        )
        lines.append(f"scf.if {cond} {{")
        if depth < 2 and draw(st.booleans()):
            loop(values, depth + 1)
        else:
            task(values)
        if draw(st.booleans()):
            lines.append("} else {")
            task(values[:-1] or values)
        lines.append("}")

    loop([], 0)
    body = "\n    ".join(lines)
    return f"{KERNELS}\ntg.program @p({ARGS}) {{\n    {body}\n}}\n"


def _data(rng):
    lens = rng.integers(0, 4, ROWS)
    lens[rng.integers(0, ROWS)] = 0
    per = rng.integers(0, 4, ROWS)
    per[rng.integers(0, ROWS)] = 0
    ptr = np.concatenate([[0], np.cumsum(per)])
    idx = rng.integers(0, 5, max(int(ptr[-1]), 8))
    return {"lens": lens, "ptr": ptr, "idx": idx}


@settings(max_examples=40, deadline=None)
@given(_nest(), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_random_data_dependent_nests_give_the_per_task_graph(text, n, seed):
    module, program = _parse(text)
    batched = _batched_source(program, module)
    assert "_b.add_task(" not in batched
    rng = np.random.default_rng(seed)
    for _ in range(2):
        _compare(module, program, {"n": n, **_data(rng)})


# ---------------------------------------------------------------------------- errors

GATHER = """
wsp.kernel @k(i: index, e: index, x: in memref<4xf32>) unit(vector)
tg.program @g(%A: memref<?x4xf32>, %idx: memref<?xindex>, %lens: memref<?xindex>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %c2 = arith.constant 2 : index
      %i2 = arith.muli %i, %c2 : index
      %k = arith.subi %j, %i2 : index
      %e = memref.load %idx[%k] : memref<?xindex>
      %v = memref.subview %A[%j, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%i, %e : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector)
    }
    %len = memref.load %lens[%i] : memref<?xindex>
    scf.for %t = %c0 to %len step %c1 {
      %w = memref.subview %A[%t, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%i, %t : index, index) resources(%w : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector)
    }
  }
}
"""


def _outcome(compiled, bindings):
    """(graph, None) or (None, (error type, message)) of one run."""
    args = compiled.bind(bindings)
    builder = GraphBuilder(_shapes(args))
    try:
        compiled.function(builder, *args)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return None, (type(error), str(error))
    return builder.build(), None


def _same_outcome(module, program, bindings) -> tuple | None:
    """Both generators give the same graph or the same error; the error, if any."""
    batched = compile_sim_program(program, module, batch=True).compiled
    plain = compile_sim_program(program, module, batch=False).compiled
    g1, e1 = _outcome(batched, bindings)
    g0, e0 = _outcome(plain, bindings)
    assert e1 == e0
    if e0 is None:
        assert_same_graph(g1, g0)
    return e0


@pytest.mark.parametrize(
    "idx, lens, error",
    [
        ([0, 1, 2, 3, 4], [1, 0, 2], None),  # idx[j - 2 i]: -4..2, negative ones wrap
        ([4, 1, 2, 3, 0], [0, 0, 0], None),
        ([0, 1, 2], [1, 0, 2], IndexError),  # idx[-4] (i = 2): below -len
        ([0, 1], [1, 0, 2], IndexError),  # idx[2] (i = 0): out of range
        ([0, 1, 2, 3, 4], [1, 9], IndexError),  # lens[2] out of range
        ([0, 1, 2, 3, 4], None, KeyError),  # lens unbound
        (None, [1, 0, 2], KeyError),  # idx unbound
        ([0.5, 1, 2, 3, 4], [1, 0, 2], None),  # floats: loaded task by task (int())
    ],
)
def test_gather_errors_are_the_per_task_errors(idx, lens, error):
    module, program = _parse(GATHER)
    bindings = {"n": 3, "m": 3}
    if idx is not None:
        bindings["idx"] = np.array(idx)
    if lens is not None:
        bindings["lens"] = np.array(lens)
    before = simgen.FALLBACKS
    got = _same_outcome(module, program, bindings)
    assert (got and got[0]) == error
    if error is None and not isinstance(idx[0], float):
        assert simgen.FALLBACKS == before  # the array path, no fallback


def test_loads_under_zero_trips_are_not_evaluated():
    """Unbound or too short tensors are no error where no load runs; nothing is created and
    the array path is taken."""
    module, program = _parse(GATHER)
    for bindings in (
        {"n": 0, "m": 3},  # no outer iteration: nothing loaded, nothing bound
        {"n": 3, "m": 0, "lens": np.zeros(3, int)},  # idx never loaded
        {"n": 2, "m": 0, "lens": np.array([0, 0, 99])},
    ):
        before = simgen.FALLBACKS
        assert _same_outcome(module, program, bindings) is None
        assert simgen.FALLBACKS == before
    batched = compile_sim_program(program, module).compiled
    args = batched.bind({"n": 0, "m": 3})
    assert _run(batched.function, args, _shapes(args)).num_nodes == 0


def test_an_invariant_load_is_guarded_by_its_loops():
    text = """
wsp.kernel @k(i: index, e: index, x: in memref<4xf32>) unit(vector)
tg.program @g(%A: memref<?x4xf32>, %idx: memref<?xindex>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %e = memref.load %idx[%c1] : memref<?xindex>
      %v = memref.subview %A[%e, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%i, %e : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector)
    }
  }
}
"""
    module, program = _parse(text)
    assert _same_outcome(module, program, {"n": 2, "m": 0}) is None
    assert _same_outcome(module, program, {"n": 2, "m": 2})[0] is KeyError
    assert _same_outcome(module, program, {"n": 2, "m": 2, "idx": np.array([0])})[0] is IndexError
    assert _same_outcome(module, program, {"n": 2, "m": 2, "idx": np.array([0, 3])}) is None


# ---------------------------------------------------------------------------- batch sites


def test_a_site_follows_the_loaded_data_changed_in_place():
    """A nest reading tensor data keeps its result keyed by that data (docs/batchgen.md
    "Batch sites"): the same arrays changed in place give the new graph."""
    module, program = _example("moe.mlir")
    batched = compile_sim_program(program, module, batch=True).compiled
    plain = compile_sim_program(program, module, batch=False).compiled
    assert "_dkey(" in batched.source
    indptr = np.array([0, 2, 2, 5])
    indices = np.array([1, 3, 0, 2, 7])
    bindings = {"batch_size": 3, "indptr": indptr, "indices": indices}
    for change in (None, None, (indices, 0, 6), (indptr, 1, 1), (indices, 4, 6), None):
        if change is not None:
            array, i, value = change
            array[i] = value
        args = batched.bind(bindings)
        g1 = _run(batched.function, args, _shapes(args))
        args = plain.bind(bindings)
        assert_same_graph(g1, _run(plain.function, args, _shapes(args)))
    # One entry per distinct data.
    (site,) = [v for k, v in batched.function.__globals__.items() if k[5:].isdigit()]
    assert len(site) == 4


def test_without_sites_the_nest_still_batches_and_falls_back():
    """tg-materialize's compilation (no batch sites): the same batch, the same fallback."""
    from pto_wsp.lowering.cpu.pygen import compile_program

    module, program = _parse(RAGGED)
    compiled = compile_program(program, module, sites=False)
    assert "_site" not in compiled.source and "_b.add_tasks(*_hit" in compiled.source
    plain = compile_sim_program(program, module, batch=False).compiled
    for lens in (np.array([2, 0, 3]), None):
        bindings = {"B": 3} if lens is None else {"B": 3, "lens": lens}
        before = simgen.FALLBACKS
        g1, e1 = _outcome(compiled, bindings)
        g0, e0 = _outcome(plain, bindings)
        assert e1 == e0 and (e0 is None) == (lens is not None)
        assert simgen.FALLBACKS - before == (lens is None)
        if e0 is None:
            assert_same_graph(g1, g0)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_])
def test_a_gather_is_the_per_task_load(dtype):
    """_gather = Tensor.load per entry (int(data[i])), negative indices wrapping; data it
    does not take as int64 (floats, a uint64 above 2^63) raises: the nest falls back."""
    from pto_wsp.lowering.cpu.pygen import Tensor

    data = np.array([[3, 0, 1], [2, 1, 0]]).astype(dtype)
    t = Tensor("t", data.shape, data)
    i = np.array([[0], [1], [-1]])
    j = np.array([[0, 2, -3]])
    got = simgen._gather(t, (i, j))
    assert got.dtype == np.int64 and got.shape == (3, 3)
    want = [[t.load(int(a), int(b)) for b in j[0]] for a in i[:, 0]]
    assert got.tolist() == want
    assert simgen._gather(t, (i[:1], j), (3, 3)).tolist() == [want[0]] * 3  # broadcast
    assert simgen._gather(Tensor("u", (2,)), (np.zeros(0, int),)).shape == (0,)  # no read
    for bad in (np.array([0.5, 1.0]), np.array([1, 2**63 + 1], np.uint64)):
        with pytest.raises(TypeError):
            simgen._gather(Tensor("f", (2,), bad), (np.array([0, 1]),))


def test_a_ragged_nest_whose_region_sizes_vary_is_one_batch():
    """K[b, 0:lens[b]] read by every tile of row b: one batch with a size array, no
    fallback, the per-task graph."""
    text = (
        RAGGED.replace("k: in memref<64x16xf32>", "k: in memref<?x16xf32>")
        .replace("[1, 64, 16] [1, 1, 1]", "[1, %n, 16] [1, 1, 1]")
        .replace("memref<64x16xf32, strided", "memref<?x16xf32, strided")
    )
    module, program = _parse(text)
    batched = _batched_source(program, module)
    assert batched.count("_b.add_tasks(") == 1 and "_b.add_task(" not in batched
    for lens in ([3, 0, 2], [2, 2], [0, 0], [5]):
        g = _compare(module, program, {"B": len(lens), "lens": np.array(lens)})
        sizes = [r.sizes[1] for i in range(g.num_nodes) for r in g.regions[i] if r.tensor == "K"]
        assert sizes == [n for n in lens for _ in range(n)]


# ---------------------------------------------------------------------------- divisions

DIVIDE = """
wsp.kernel @k(i: index, a: index, b: index, x: in memref<4xf32>) unit(vector)
tg.program @g(%A: memref<?x4xf32>, %n: index, %m: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %q = arith.muli %i, %c3 : index
      %u = arith.OP1 %q, %m : index
      %d = arith.subi %j, %s : index
      %w = arith.OP2 %i, %d : index
      %x = arith.OP1 %s, %m : index
      %v = memref.subview %A[%j, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%u, %w, %x : index, index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector) target(%u)
    }
  }
}
"""
_DIVS = ["divui", "divsi", "floordivsi", "ceildivsi", "remui", "remsi"]


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(_DIVS),
    st.sampled_from(_DIVS),
    st.integers(0, 3),
    st.integers(-3, 3),
    st.integers(-1, 3),
)
def test_divisions_by_a_value_take_the_array_path_or_the_per_task_error(op1, op2, n, m, s):
    """Divisions by a symbol (range dispatch: ``coord * count / extent``), by a varying
    value and an invariant one: a data nest — the array path, or the per-task code's
    ZeroDivisionError (the nest falls back; nothing raised where no division runs)."""
    module, program = _parse(DIVIDE.replace("OP1", op1).replace("OP2", op2))
    assert "_nonzero(" in _batched_source(program, module)
    before = simgen.FALLBACKS
    error = _same_outcome(module, program, {"n": n, "m": m, "s": s})
    divides = n and (m == 0 or 0 <= s < 3)
    assert (error and error[0]) == (ZeroDivisionError if divides else None)
    assert simgen.FALLBACKS - before == (1 if error else 0)


# ---------------------------------------------------------------------------- tg.seq

SEQ = """
wsp.kernel @k(i: index, a: index, x: inout memref<4xf32>) unit(vector)
tg.program @g(%A: memref<?x4xf32>, %n: index, %m: index, %w: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s0 = tg.seq
  %v0 = memref.subview %A[%c0, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  tg.task @k(%s0, %c0 : index, index) resources(%v0 : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %c0) pool(vector)
  scf.for %i = %c0 to %n step %c1 {
    %s1 = tg.seq
    %t1 = arith.remui %s1, %w : index
    %v = memref.subview %A[%i, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @k(%i, %s1 : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector) target(%t1)
    scf.for %j = %c0 to %m step %c1 {
      %s2 = tg.seq
      %u = arith.addi %s2, %j : index
      %t2 = arith.remui %u, %w : index
      %q = arith.cmpi ult, %s2, %c2 : index
      %p = arith.select %q, %t2, %s1 : index
      tg.task @k(%j, %p : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector) target(%t2)
    }
    %s3 = tg.seq
    tg.task @k(%i, %s3 : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector) target(%s3)
  }
}
"""


SEQ_RAGGED = SEQ.replace("%w: index)", "%w: index, %lens: memref<?xindex>)").replace(
    "    scf.for %j = %c0 to %m step %c1 {",
    "    %len = memref.load %lens[%i] : memref<?xindex>\n    scf.for %j = %c0 to %len step %c1 {",
)


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("n, m, w", [(3, 2, 2), (0, 2, 2), (2, 0, 3), (4, 3, 0), (1, 1, 1)])
def test_tg_seq_in_a_nest_is_the_task_count_before_each_task(ragged, n, m, w):
    """round_robin dispatch (``tg.seq % workers``): the count of tasks created before each
    task — after a task outside the nest, with tasks before, in and after an inner loop
    (dense, or ragged: ``0 to lens[i]``, the flat iteration space) — in one batch (a zero
    divisor: the per-task ZeroDivisionError, through the fallback)."""
    module, program = _parse(SEQ_RAGGED if ragged else SEQ)
    batched = _batched_source(program, module)
    assert batched.count("_b.add_tasks(") == 1 and batched.count("_b.add_task(") == 1
    assert ("_ragged(" in batched) == ragged
    bindings = {"n": n, "m": m, "w": w}
    if ragged:
        bindings["lens"] = (np.arange(n) * m) % 4
    error = _same_outcome(module, program, bindings)
    assert (error and error[0]) == (ZeroDivisionError if n and not w else None)


# ---------------------------------------------------------------------------- loads of views

VIEW_LOADS = """
wsp.kernel @k(i: index, e: index, f: index, x: in memref<4xf32>) unit(vector)
tg.program @g(%A: memref<?x4xf32>, %idx: memref<?x8xindex>, %lens: memref<?x2xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row = memref.subview %idx[%c1, 0] [1, 8] [1, 1] : memref<?x8xindex> to memref<8xindex, strided<[1], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %lr = memref.subview %lens[%i, 0] [1, 2] [1, 1] : memref<?x2xindex> to memref<2xindex, strided<[1], offset: ?>>
    %len = memref.load %lr[%c1] : memref<2xindex, strided<[1], offset: ?>>
    scf.for %j = %c0 to %len step %c1 {
      %e = memref.load %row[%j] : memref<8xindex, strided<[1], offset: ?>>
      %s = memref.subview %idx[%c0, 2] [1, 3] [1, 2] : memref<?x8xindex> to memref<3xindex, strided<[2], offset: ?>>
      %f = memref.load %s[%c1] : memref<3xindex, strided<[2], offset: ?>>
      %v = memref.subview %A[%e, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%i, %e, %f : index, index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector)
    }
  }
}
"""


@pytest.mark.parametrize(
    "lens, idx, error",
    [
        ([[0, 3], [9, 0], [5, 2]], np.arange(16).reshape(2, 8) % 5, None),
        ([[0, 0]], None, None),  # idx never loaded
        ([[0, 9]], np.arange(16).reshape(2, 8) % 5, IndexError),  # idx[1, 8]: past the root
        ([[0, 2], [0, 1]], None, KeyError),  # idx unbound
        ([[0, 2]], np.arange(8).reshape(1, 8), IndexError),  # idx[1, ...]: one row only
    ],
)
def test_loads_of_views_read_the_root_tensor(lens, idx, error):
    """memref.load of a subview (of a tensor argument, defined outside the nest or inside
    it, strided): the root tensor's element at offset + index * stride, task by task (it
    failed there before: View has no load) and gathered in one batch; the same errors."""
    module, program = _parse(VIEW_LOADS)
    batched = _batched_source(program, module)
    assert batched.count("_b.add_tasks(") == 1 and "_b.add_task(" not in batched
    bindings = {"n": len(lens), "lens": np.array(lens)}
    if idx is not None:
        bindings["idx"] = idx
    before = simgen.FALLBACKS
    got = _same_outcome(module, program, bindings)
    assert (got and got[0]) == error
    assert simgen.FALLBACKS - before == (error is not None)
    if error is None and idx is not None:
        g = compare_program(module, program, bindings)
        want = [
            (i, int(idx[1, j]), int(idx[0, 4])) for i, (_, k) in enumerate(lens) for j in range(k)
        ]
        assert [tuple(int(a) for a in g.args[t]) for t in range(g.num_nodes)] == want


@pytest.mark.parametrize(
    "lens, idx, error",
    [
        ([[0, 3], [9, 0], [5, 2]], np.arange(16).reshape(2, 8) % 5, None),
        ([[0, 9]], np.arange(16).reshape(2, 8) % 5, IndexError),
        ([[0, 2], [0, 1]], None, KeyError),
    ],
)
def test_pygens_plain_generator_loads_views_as_the_simulator_does(lens, idx, error):
    """compile_program_plain (pygen's own task-by-task generator, runtime Views): a load of
    a view reads the root tensor as simgen's code does; the same graph, the same errors."""
    from pto_wsp.lowering.cpu.pygen import compile_program_plain

    module, program = _parse(VIEW_LOADS)
    bindings = {"n": len(lens), "lens": np.array(lens)}
    if idx is not None:
        bindings["idx"] = idx
    plain = compile_program_plain(program, module)
    args = plain.bind(bindings)
    if error is not None:
        with pytest.raises(error):
            _run(plain.function, args, _shapes(args))
        return
    g = compare_program(module, program, bindings)
    assert _run(plain.function, args, _shapes(args)).to_text() == g.to_text()


# ---------------------------------------------------------------------------- tg.call callees

CALLS = """
wsp.kernel @k(i: index, e: index, x: inout memref<4xf32>) unit(vector)
tg.program @inner(%X: memref<?x4xf32>, %lens: memref<?xindex>, %idx: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %len = memref.load %lens[%i] : memref<?xindex>
    scf.for %j = %c0 to %len step %c1 {
      %e = memref.load %idx[%j] : memref<?xindex>
      %v = memref.subview %X[%e, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      tg.task @k(%i, %e : index, index) resources(%v : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector)
    }
  }
}
tg.program @main(%A: memref<?x4xf32>, %B: memref<?x4xf32>, %lens: memref<?xindex>, %idx: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tg.call @inner(%A, %lens, %idx, %n : memref<?x4xf32>, memref<?xindex>, memref<?xindex>, index)
  %w = memref.subview %B[%c2, 0] [4, 4] [1, 1] : memref<?x4xf32> to memref<4x4xf32, strided<[4, 1], offset: ?>>
  tg.call @inner(%w, %lens, %idx, %n : memref<4x4xf32, strided<[4, 1], offset: ?>>, memref<?xindex>, memref<?xindex>, index)
  tg.call @inner(%B, %lens, %idx, %n : memref<?x4xf32>, memref<?xindex>, memref<?xindex>, index)
}
"""


def _main(text: str):
    ctx = _context()
    module = Parser(ctx, text).parse_module()
    (main,) = [op for op in module.ops if isinstance(op, ProgramOp) and op.sym_name.data == "main"]
    return module, main


@pytest.mark.parametrize(
    "lens, idx, error",
    [
        ([2, 0, 3], [3, 1, 0], None),
        ([0, 0], None, None),  # idx never loaded
        ([2, 0, 4], [3, 1, 0], IndexError),  # idx[3]
        ([2, 1], [5, 0], None),  # row 5 of A and of B; of the view (rows 2..5): row 7
    ],
)
def test_callee_nests_batch_on_whole_tensors(lens, idx, error):
    """A tg.call callee's nests (a ragged loop, a gather) batch as the caller's when it is
    given whole tensors (the regions name the caller's tensors) and run task by task when
    given a view (the caller's subview: its code with runtime views) — the per-task graph
    (a callee compiled with runtime views throughout) and errors either way."""
    module, program = _main(CALLS)
    compiled = compile_sim_program(program, module).compiled
    inner = compiled.callees["inner"].source
    assert "_unfolded(" in inner
    assert "_b.add_tasks(" in _without_fallbacks(inner) and "_gather(" in inner
    bindings = {"n": len(lens), "lens": np.array(lens)}
    if idx is not None:
        bindings["idx"] = np.array(idx)
    before = simgen.FALLBACKS
    got = _same_outcome(module, program, bindings)
    assert (got and got[0]) == error
    assert simgen.FALLBACKS - before == (error is not None)
    if error is None:
        g = compare_program(module, program, bindings)
        assert {r.tensor for i in range(g.num_nodes) for r in g.regions[i]} <= {"A", "B"}


# A branch or loop body whose ops emit no Python (views fold into the regions of the tasks
# that use them): the generated code still needs a statement there. A fuzzed tiered.mlir
# whose innermost else kept only its view made an empty `else:` (an IndentationError).
_EMPTY_HEAD = """wsp.kernel @k(b: index, X: inout memref<4xf32>) unit(vector) cost(10)
wsp.workload @w(%X: memref<?x4xf32>, %lens: memref<?xindex>, %n: index) {
  %d = wsp.dense_dyn %n
  %c2 = arith.constant 2 : index
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    %len = memref.load %lens[%b] : memref<?xindex>
    %p = arith.cmpi sle, %len, %c2 : index
"""
_VIEW = "%x = wsp.view %X[%b] : memref<?x4xf32> -> memref<4xf32>"
_TASK = "wsp.task @k(%b : index) resources(%x : memref<4xf32>)"


@pytest.mark.parametrize(
    ("then", "other", "expect"),
    [
        ([_VIEW, _TASK], [_VIEW], lambda lens: lens <= 2),
        ([_VIEW], [_VIEW, _TASK], lambda lens: lens > 2),
        ([_VIEW], [_VIEW], lambda lens: lens < 0),
    ],
)
@pytest.mark.parametrize("n", [3, 40])  # the per-task path, and batches
def test_a_branch_of_views_only_generates_code(then, other, expect, n):
    from pto_wsp.lowering.cpu.backend import compile_cpu_sim
    from pto_wsp.tools.diagnostics import parse_located

    def block(lines):
        return "".join(f"      {line}\n" for line in lines)

    text = _EMPTY_HEAD + f"    wsp.cond %p {{\n{block(then)}    }} else {{\n{block(other)}"
    text += "    }\n  }\n}\n"
    module = parse_located(text, "views.mlir")
    module.verify()
    lens = np.arange(n) % 5
    for mode in ("cycles", "functional"):
        prog = compile_cpu_sim(module, mode=mode)
        prog.bind(n=n, lens=lens, X=np.zeros((n, 4), np.float32)).execute()
        assert prog.stats().num_tasks == int(expect(lens).sum())


def test_generated_code_that_does_not_compile_is_said_to_be_a_generator_bug():
    from pto_wsp.lowering.cpu.pygen import CodegenError, exec_generated

    namespace: dict = {}
    exec_generated("def _program(_b):\n    return 1\n", "<tg.program @ok>", namespace)
    assert namespace["_program"](None) == 1
    with pytest.raises(CodegenError) as error:
        exec_generated("def _program(_b):\n    if _b:\n    else:\n", "<tg.program @w>", {})
    message = str(error.value)
    assert message.startswith("internal error: the Python generated for tg.program @w does not")
    assert "at its line 3: 'else:'" in message and "a bug in the CPU code generator" in message
