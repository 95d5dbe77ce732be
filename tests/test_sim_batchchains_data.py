"""Ordered chains over data as one batch (docs/batchgen.md "Ordered chains"): ``for_each``
chains whose bodies load tensor data (gathers) or whose lengths are data (``0 to lens[b]``,
CSR rows, triangular bounds, ragged axes: one length per chain), bare or inside parallel
loops, including zero-length chains and empty outer loops.

Whatever the path, the graph must be the per-task one (nodes in creation order, regions,
coordinates, edges with kinds, barriers), and bad data gives the per-task error: the nest
then runs its per-task code (``simgen.FALLBACKS``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_batchragged import _batched_source, _compare, _parse, _same_outcome, _Text

from pto_wsp.lowering.cpu import simgen
from pto_wsp.runtime import batch_order, bulk_kernels
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.graph import GraphBuilder


@pytest.fixture(autouse=True)
def every_batch(monkeypatch):
    """Batches of any size take the array path, with the compiled kernels."""
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    bulk_kernels.load()


KERNELS = """
wsp.kernel @acc(b: index, t: index, e: index, y: in memref<4xf32>, a: inout memref<4xf32>) unit(vector)
wsp.kernel @w(b: index, y: out memref<4xf32>) unit(vector)
"""
ARGS = (
    "%A: memref<?x4xf32>, %Y: memref<?x4xf32>, %lens: memref<?xindex>, %ptr: memref<?xindex>, "
    "%idx: memref<?xindex>, %n: index"
)
ROWS = 5  # rows of lens, ptr, A and Y
VIEW = "memref<4xf32, strided<[1], offset: ?>>"


def _gen(draw) -> tuple[str, int]:
    """A random program: stages of parallel writes, single tasks and ordered chains (bare or
    in 0-2 parallel loops; chain loops dense, ragged ``lens[row]``, CSR ``ptr[r]..ptr[r+1]``
    or triangular, 1-2 deep; the body maybe gathering ``idx[t]`` as a parameter and a row)."""
    text = _Text(ROWS)
    lines, fresh, const, row = text.lines, text.fresh, text.const, text.row
    chains = [0]

    def view(tensor: str, r: str) -> str:
        v = fresh("v")
        lines.append(
            f"{v} = memref.subview %{tensor}[{r}, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}"
        )
        return v

    def bounds(values: list[str], outer: bool) -> tuple[str, str]:
        kinds = ["dense"] if not values else ["ragged", "csr", "tri", "dense"]
        kind = draw(st.sampled_from(kinds))
        if kind == "dense":
            return const(draw(st.integers(0, 1))), "%n" if outer else const(draw(st.integers(0, 3)))
        if kind == "ragged":
            ub = fresh("len")
            lines.append(f"{ub} = memref.load %lens[{row(values[-1])}] : memref<?xindex>")
            return const(0), ub
        if kind == "tri":
            return const(0), values[-1]
        r = row(values[-1])
        lb, ub, nxt = fresh("lo"), fresh("hi"), fresh("r")
        lines.append(f"{lb} = memref.load %ptr[{r}] : memref<?xindex>")
        lines.append(f"{nxt} = arith.addi {r}, {const(1)} : index")
        lines.append(f"{ub} = memref.load %ptr[{nxt}] : memref<?xindex>")
        return lb, ub

    def chain(values: list[str], levels: int) -> None:
        lb, ub = bounds(values, outer=not values)
        t = fresh("t")
        lines.append(f"scf.for {t} = {lb} to {ub} step {const(1)} {{")
        if levels > 1:
            chain([*values, t], levels - 1)
        else:
            b = values[0] if values else const(0)
            e = t
            if draw(st.booleans()):
                e = fresh("e")
                lines.append(f"{e} = memref.load %idx[{t}] : memref<?xindex>")
            y = view("Y", row(e))
            a = view("A", row(b))
            lines.append(
                f"tg.task @acc({b}, {t}, {e} : index, index, index) resources({y}, {a} : "
                f"{VIEW}, {VIEW}) access(in, inout) at(b = {b}, t = {t}) pool(vector)"
            )
            lines.append("tg.order_point")
        lines.append("}")

    def stage() -> None:
        kind = draw(st.sampled_from(["chain", "writes", "single"]))
        if kind == "writes":
            b = fresh("b")
            lines.append(f"scf.for {b} = {const(0)} to %n step {const(1)} {{")
            lines.append(
                f"tg.task @w({b} : index) resources({view('Y', row(b))} : {VIEW}) "
                f"access(out) at(b = {b}) pool(vector)"
            )
            lines.append("}")
            return
        if kind == "single":
            c = const(0)
            lines.append(
                f"tg.task @w({c} : index) resources({view('A', c)} : {VIEW}) "
                f"access(out) at(b = {c}) pool(vector)"
            )
            return
        chains[0] += 1
        depth = draw(st.integers(0, 2))
        levels = draw(st.integers(1, 2))
        if depth == 0:  # bare: the chain loops in the current ordered scope
            wrap = not seq or draw(st.booleans())
            lines.append("tg.ordered {" if wrap else "// bare in the sequential's scope")
            chain([], levels)
            lines.append("}" if wrap else "// end")
            return
        values: list[str] = []
        for d in range(depth):
            lb, ub = bounds(values, outer=d == 0)
            b = fresh("b")
            lines.append(f"scf.for {b} = {lb} to {ub} step {const(1)} {{")
            values.append(b)
        lines.append("tg.ordered {")
        chain(values, levels)
        lines.append("}")
        lines.extend("}" for _ in range(depth))

    seq = draw(st.booleans())  # the stages in a sequential: ordering points between them
    for _ in range(draw(st.integers(1, 3))):
        stage()
        if seq:
            lines.append("tg.order_point")
    body = "\n    ".join(x for x in lines if not x.startswith("//"))
    if seq:
        body = f"tg.ordered {{\n    {body}\n    }}"
    return f"{KERNELS}\ntg.program @p({ARGS}) {{\n    {body}\n}}\n", chains[0]


def _data(rng) -> dict:
    lens = rng.integers(0, 4, ROWS)
    lens[rng.integers(0, ROWS)] = 0
    per = rng.integers(0, 4, ROWS)
    per[rng.integers(0, ROWS)] = 0
    ptr = np.concatenate([[0], np.cumsum(per)])
    idx = rng.integers(0, 7, max(int(ptr[-1]), 8))
    return {"lens": lens, "ptr": ptr, "idx": idx}


@st.composite
def _program_text(draw):
    return _gen(draw)


@settings(max_examples=60, deadline=None)
@given(_program_text(), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_random_data_chains_give_the_per_task_graph(program_chains, n, seed):
    text, chains = program_chains
    module, program = _parse(text)
    batched = _batched_source(program, module)
    assert batched.count("_chains(_b, ") == chains  # every chain one batch
    rng = np.random.default_rng(seed)
    for _ in range(2):
        _compare(module, program, {"n": n, **_data(rng)})


# ---------------------------------------------------------------------------- fixed shapes

SCOPED = f"""{KERNELS}
tg.program @p({ARGS}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  tg.ordered {{
  scf.for %b = %c0 to %n step %c1 {{
    %v = memref.subview %Y[%b, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
    tg.task @w(%b : index) resources(%v : {VIEW}) access(out) at(b = %b) pool(vector)
  }}
  tg.order_point
  scf.for %b = %c0 to %n step %c1 {{
    %r = arith.remui %b, %c5 : index
    %len = memref.load %lens[%r] : memref<?xindex>
    tg.ordered {{
      scf.for %t = %c0 to %len step %c1 {{
        %e = memref.load %idx[%t] : memref<?xindex>
        %re = arith.remui %e, %c5 : index
        %y = memref.subview %Y[%re, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
        %a = memref.subview %A[%r, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
        tg.task @acc(%b, %t, %e : index, index, index) resources(%y, %a : {VIEW}, {VIEW}) access(in, inout) at(b = %b, t = %t) pool(vector)
        tg.order_point
      }}
    }}
  }}
  tg.order_point
  %z = memref.subview %Y[%c0, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
  tg.task @w(%c0 : index) resources(%z : {VIEW}) access(out) at(b = %c0) pool(vector)
  }}
}}
"""


def _scoped(lens, idx=None) -> dict:
    lens = np.array(lens)
    return {"n": len(lens), "lens": lens, "idx": np.arange(8) if idx is None else idx}


@pytest.mark.parametrize(
    "lens", [[3, 0, 2, 1, 4], [0, 0, 0], [2, 2, 2], [0, 5], [], [1], [4, 0, 0, 0, 1]]
)
def test_chains_of_loaded_lengths_in_a_parallel_loop(lens):
    """In a sequential, between parallel writes and a task: for b: for_each t in
    0..lens[b], gathering idx[t], accumulating into A[b] — one ``_chains`` call with a length
    per chain (zero-length chains and an empty outer loop included)."""
    module, program = _parse(SCOPED)
    batched = _batched_source(program, module)
    assert batched.count("_chains(_b, ") == 1 and batched.count("_b.add_task(") == 1
    g = _compare(module, program, _scoped(lens))
    assert g.num_tasks == len(lens) + sum(lens) + 1
    # Barriers: before the chains (after several writes), before the last task (after the
    # last tasks of several chains, or after several writes when every chain is empty).
    nonzero = sum(k > 0 for k in lens)
    before = len(lens) > 1 and nonzero > 0
    assert g.num_barriers == before + (nonzero > 1 or (nonzero == 0 and len(lens) > 1))


def test_a_for_each_over_a_ragged_axis_is_one_chain():
    """wsp.for_each over ``wsp.ragged`` (both loops in one ordered scope), alone and inside a
    parallel_for (the chain's length per outer iteration counted over two loops)."""
    text = """
wsp.kernel @acc(d: index, b: index, j: index, y: in memref<4xf32>, a: inout memref<4xf32>) unit(vector)
wsp.workload @w0(%nb: index, %lens: memref<?xi64>, %Y: memref<?x?x4xf32>, %A: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %R = wsp.ragged %nb, %lens : memref<?xi64>
  %D = wsp.dense 3
  wsp.sequential {
    wsp.for_each %b, %j in %R named("b", "j") : !wsp.ragged {
      %y = wsp.view %Y[%b, %j] : memref<?x?x4xf32> -> memref<4xf32>
      %a = wsp.view %A[%b] : memref<?x4xf32> -> memref<4xf32>
      wsp.task @acc(%c0, %b, %j : index, index, index) resources(%y, %a : memref<4xf32>, memref<4xf32>)
    }
    wsp.parallel_for %d in %D named("d") : !wsp.dense<3> {
      wsp.for_each %b, %j in %R named("b", "j") : !wsp.ragged {
        %y = wsp.view %Y[%b, %j] : memref<?x?x4xf32> -> memref<4xf32>
        %a = wsp.view %A[%d] : memref<?x4xf32> -> memref<4xf32>
        wsp.task @acc(%d, %b, %j : index, index, index) resources(%y, %a : memref<4xf32>, memref<4xf32>)
      }
    }
  }
}
"""
    module, program = _parse(text)
    batched = _batched_source(program, module)
    assert batched.count("_chains(_b, ") == 2 and "_b.add_task(" not in batched
    assert "_np.bincount(" in batched
    for lens in ([3, 0, 2], [0, 0], [5], [2, 2], [1, 0, 4, 0, 3], []):
        lens = np.array(lens, np.int64)
        g = _compare(module, program, {"nb": len(lens), "lens": lens})
        assert g.num_tasks == 4 * lens.sum()


def test_bare_chains_gathering_take_the_axes_form():
    """A for_each over 0..n whose task gathers idx[t] (no ragged loop): regular loops with a
    gather, one chain; and nested in another for_each (one batch per outer iteration)."""
    text = f"""{KERNELS}
tg.program @p({ARGS}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  tg.ordered {{
    scf.for %o = %c0 to %c5 step %c1 {{
      tg.ordered {{
        scf.for %t = %o to %n step %c1 {{
          %e = memref.load %idx[%t] : memref<?xindex>
          %re = arith.remui %e, %c5 : index
          %y = memref.subview %Y[%re, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
          %a = memref.subview %A[%o, 0] [1, 4] [1, 1] : memref<?x4xf32> to {VIEW}
          tg.task @acc(%o, %t, %e : index, index, index) resources(%y, %a : {VIEW}, {VIEW}) access(in, inout) at(b = %o, t = %t) pool(vector)
          tg.order_point
        }}
      }}
      tg.order_point
    }}
  }}
}}
"""
    module, program = _parse(text)
    batched = _batched_source(program, module)
    assert batched.count("_chains(_b, ") == 1 and "_b.add_task(" not in batched
    assert "_ragged(" not in batched and "_gather(" in batched
    for n in (0, 1, 3, 8):
        _compare(module, program, {"n": n, "idx": np.arange(8)[::-1].copy()})


# ---------------------------------------------------------------------------- bad data


@pytest.mark.parametrize(
    "lens, idx, error",
    [
        ([2, 0, 3], np.arange(8), None),
        ([2, -3, 3], np.arange(8), None),  # a negative length: no trip, task by task too
        ([2, 0, 9], np.arange(8), IndexError),  # idx[8]: out of range, after 5 tasks
        ([2, 0, 3], np.arange(8) - 12, None),  # negative rows: not checked, either way
        ([2, 0], np.arange(8), IndexError),  # lens[2]: out of range
        (None, np.arange(8), KeyError),  # lens unbound
        ([2, 0, 3], None, KeyError),  # idx unbound
        ([0, 0, 0], None, None),  # idx never loaded: no error
        ([2, 0, 3], np.arange(8) + 0.5, None),  # floats: loaded one by one (int())
    ],
)
def test_bad_data_gives_the_per_task_error(lens, idx, error):
    module, program = _parse(
        SCOPED.replace("%re = arith.remui %e, %c5", "%re = arith.addi %e, %c0")
    )
    bindings = {"n": 3}
    if lens is not None:
        bindings["lens"] = np.array(lens)
    if idx is not None:
        bindings["idx"] = idx
    before = simgen.FALLBACKS
    got = _same_outcome(module, program, bindings)
    assert (got and got[0]) == error
    if error is None and (idx is None or idx.dtype.kind == "i"):
        assert simgen.FALLBACKS == before  # the array path


# ---------------------------------------------------------------------------- builders


class _PerTask(GraphBuilder):
    """A subclass without ``batches = True``: add_tasks takes the per-task path."""


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("cls", [GraphBuilder, _PerTask])
@pytest.mark.parametrize("lengths", [[3, 0, 1, 4], [2, 2, 0], [0, 0], [1], [0, 5, 0]])
def test_add_chains_with_lengths_equals_its_per_task_form(monkeypatch, compiled, cls, lengths):
    """``add_chains`` with one length per chain, on builders directly (a frontier of several
    nodes before it, a scope around it), with the compiled kernel and its numpy twin."""
    from test_sim_batchchain import _snapshot

    monkeypatch.setattr(bulk_kernels, "COMPILED", compiled)
    lengths = np.array(lengths, np.int64)
    t = np.concatenate([np.arange(k) for k in lengths]).astype(np.int64)
    c = np.repeat(np.arange(len(lengths)), lengths)
    groups = [("k", None, (c, t), (), (("c", c), ("t", t)), "vector", -1, 0, 0, "host_cpu")]
    graphs = []
    for chains in (batch_order.add_chains, batch_order.per_task):
        b = cls()
        b.add_task("x")
        b.enter_ordered()
        b.add_task("y")
        b.add_task("y")
        b.order_point()
        chains(b, len(lengths), lengths, True, groups)
        b.add_task("after")
        b.order_point()
        b.add_task("last")
        b.exit_ordered()
        graphs.append(b.build())
    assert _snapshot(graphs[0]) == _snapshot(graphs[1])
    assert graphs[0].to_text() == graphs[1].to_text()
