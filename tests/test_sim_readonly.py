"""Tensors no task writes take no part in dependency inference (docs/batchgen.md "Tensors no
task writes"): simgen finds them statically and tells the builder (``GraphBuilder.read_only``);
batches whose regions of them vary in size per task then take the array path, and the graph
is still the per-task graph of a builder that knows nothing of it."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from test_sim_batchgen import _context, _shapes, assert_same_graph
from test_sim_batchragged import RAGGED, _example
from xdsl.parser import Parser

from pto_wsp.dialects.tg import ProgramOp
from pto_wsp.lowering.cpu.simgen import compile_sim_program, read_only_args
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.bulk import BatchRegion, BulkDeps
from pto_wsp.runtime.graph import EDGE_RAW, GraphBuilder
from pto_wsp.runtime.regions import TensorRegion


class _Unaware(GraphBuilder):
    """The reference: task by task (no ``batches = True``) and no ``read_only`` (the
    generated code skips the declaration), every access in the TensorMap as before."""

    read_only = None


@pytest.fixture
def calls(monkeypatch):
    """Counts of per-task ``add_task`` calls and of batch plans accepted / refused."""
    seen = {"add_task": 0, "plans": 0, "refused": 0}
    add_task, plan = GraphBuilder.add_task, BulkDeps.plan

    def counting_add_task(self, *a, **k):
        seen["add_task"] += 1
        return add_task(self, *a, **k)

    def counting_plan(self, *a, **k):
        out = plan(self, *a, **k)
        seen["plans" if out is not None else "refused"] += 1
        return out

    monkeypatch.setattr(GraphBuilder, "add_task", counting_add_task)
    monkeypatch.setattr(BulkDeps, "plan", counting_plan)
    return seen


def _parse_named(text: str, name: str):
    ctx = _context()
    module = Parser(ctx, text).parse_module()
    with contextlib.redirect_stderr(io.StringIO()):
        WspToTgPass().apply(ctx, module)
        CspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp) and op.sym_name.data == name]
    return module, program


def _graphs(module, program, bindings, calls):
    """The batched graph on a GraphBuilder (counting its per-task calls and plans) and the
    reference graph; asserts they are the same."""
    batched = compile_sim_program(program, module, batch=True).compiled
    args = batched.bind(bindings)
    calls.update(add_task=0, plans=0, refused=0)
    builder = GraphBuilder(_shapes(args))
    batched.function(builder, *args)
    counts = dict(calls)
    g = builder.build()
    plain = compile_sim_program(program, module, batch=False).compiled
    args = plain.bind(bindings)
    ref = _Unaware(_shapes(args))
    plain.function(ref, *args)
    assert_same_graph(g, ref.build())
    return g, counts, builder


def _raw_edges(g, src_kernel: str, dst_kernel: str) -> int:
    src, dst = g.edges()
    return sum(
        1
        for s, d, k in zip(src.tolist(), dst.tolist(), g.edge_kind.tolist())
        if k == EDGE_RAW and g.kernel_name(s) == src_kernel and g.kernel_name(d) == dst_kernel
    )


# ---------------------------------------------------------------------------- batched now


def test_attention_batches_with_its_variable_length_reads(calls):
    """K[b, 0:seq_lens[b]] and V[...]: sizes vary per task, yet the batch plan is accepted
    (no task created one by one) and the graph is the per-task one."""
    module, program = _example("attention.mlir")
    ro = read_only_args(program)
    assert {"K", "V", "Q", "seq_lens"} <= set(ro) and "O" not in ro
    rng = np.random.default_rng(3)
    for batch in (2, 5):  # 16 and 40 tasks: at least BATCH_MIN
        seq = rng.integers(0, 300, batch)
        g, counts, builder = _graphs(module, program, {"batch_size": batch, "seq_lens": seq}, calls)
        assert counts == {"add_task": 0, "plans": 1, "refused": 0}
        assert g.num_tasks == 8 * batch
        assert {"K", "V"} <= builder._read_only
        assert "K" not in builder.tensormap._tensors and "K" not in builder._bulk.tensors


RAGGED_K = (
    RAGGED.replace("k: in memref<64x16xf32>", "k: in memref<?x16xf32>")
    .replace("[1, 64, 16] [1, 1, 1]", "[1, %n, 16] [1, 1, 1]")
    .replace("memref<64x16xf32, strided", "memref<?x16xf32, strided")
)


def test_a_ragged_nest_reading_rows_of_varying_length_batches(calls, monkeypatch):
    """RAGGED with K[b, 0:lens[b]] read by every tile of row b (test_sim_batchragged)."""
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    module, program = _parse_named(RAGGED_K, "ragged")
    assert "K" in read_only_args(program) and "O" not in read_only_args(program)
    for lens in ([3, 0, 2], [5, 1], [0, 0]):
        g, counts, _ = _graphs(module, program, {"B": len(lens), "lens": np.array(lens)}, calls)
        assert counts == {"add_task": 0, "plans": 1, "refused": 0}
        assert g.num_tasks == sum(2 + 2 * n for n in lens)
        assert g.num_edges  # O's read-after-writes are still there


# ---------------------------------------------------------------------------- not read-only

FILL_KERNEL = "wsp.kernel @fill(b: index, k: out memref<64x16xf32>) unit(vector)\n"
FILL_LOOP = """
  scf.for %fb = %c0 to %B step %c1 {
    %kw = memref.subview %K[%fb, 0, 0] [1, 64, 16] [1, 1, 1] : memref<?x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    tg.task @fill(%fb : index) resources(%kw : memref<64x16xf32, strided<[16, 1], offset: ?>>) access(out) at(b = %fb) pool(vector)
  }
"""
CALLEE = (
    "tg.program @fill_k(%K: memref<?x64x16xf32>, %B: index) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n" + FILL_LOOP + "}\n"
)
ANCHOR = "  %c8 = arith.constant 8 : index\n"


@pytest.mark.parametrize("how", ["nest", "call"])
def test_a_tensor_written_elsewhere_is_not_read_only(how, calls, monkeypatch):
    """K written by another nest of the program, or only inside a tg.call callee, then read
    with varying sizes: not read-only, its read-after-write edges are there."""
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    if how == "nest":
        text = FILL_KERNEL + RAGGED_K.replace(ANCHOR, ANCHOR + FILL_LOOP)
    else:
        call = "  tg.call @fill_k(%K, %B : memref<?x64x16xf32>, index)\n"
        text = FILL_KERNEL + CALLEE + RAGGED_K.replace(ANCHOR, ANCHOR + call)
    module, program = _parse_named(text, "ragged")
    ro = read_only_args(program)
    assert "K" not in ro and "Q" in ro
    for lens in ([3, 0, 2], [4, 4, 1]):
        g, _, builder = _graphs(module, program, {"B": len(lens), "lens": np.array(lens)}, calls)
        assert "K" not in builder._read_only
        assert _raw_edges(g, "fill", "tile") == sum(lens)


# ---------------------------------------------------------------------------- the builder


def _row(tensor: str, b: int, access: str) -> TensorRegion:
    return TensorRegion(tensor, (b, 0), (1, 4), None, access)


def test_writing_a_read_only_tensor_raises_before_creating_anything():
    b = GraphBuilder()
    assert b.read_only(["K"]) == {"K"}
    b.add_task("r", regions=[_row("K", 0, "in")])
    with pytest.raises(ValueError, match=r"task 1 \(kernel 'w'\).*'K'.*read-only"):
        b.add_task("w", regions=[_row("X", 0, "out"), _row("K", 0, "inout")])
    batch = [
        (
            "wb",
            None,
            (),
            (BatchRegion("K", (np.arange(20), 0), (1, 4), (1, 1), "out", (0, 1)),),
            (),
            "any",
            -1,
            0,
            0,
            0,
        )
    ]
    with pytest.raises(ValueError, match=r"kernel 'wb'.*'K'.*read-only"):
        b.add_tasks(20, batch)
    assert b.num_nodes == 1
    g = b.build()
    assert g.num_nodes == 1 and g.num_edges == 0


def test_a_tensor_already_written_is_not_declared_read_only():
    """Its later readers need the edge from the earlier writer."""
    b = GraphBuilder()
    w = b.add_task("w", regions=[_row("K", 0, "out")])
    b.add_task("r0", regions=[_row("V", 0, "in")])
    assert b.read_only(["K", "V"]) == {"V"}
    r = b.add_task("r", regions=[_row("K", 0, "in")])
    b.add_task("w2", regions=[_row("K", 0, "out")])  # allowed: K is not read-only
    src, dst = b.build().edges()
    assert (w, r) in set(zip(src.tolist(), dst.tolist()))
    # The same on a batch's array state.
    b = GraphBuilder()
    b.add_tasks(
        20,
        [
            (
                "wb",
                None,
                (),
                (BatchRegion("K", (np.arange(20), 0), (1, 4), (1, 1), "out", (0, 1)),),
                (),
                "any",
                -1,
                0,
                0,
                0,
            )
        ],
    )
    assert "K" in b._bulk.tensors and b.read_only(["K"]) == frozenset()
