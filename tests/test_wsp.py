"""The wsp dialect from Python: build workloads with the op constructors, verify, round-trip.

The lit tests (tests/lit/wsp/) cover the text syntax and every diagnostic; these tests cover
what only Python sees: the constructors and their defaults (loop bodies, computed view
types), the helper API the passes use, and a property test of ``wsp.view``.
"""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Builtin,
    IndexType,
    MemRefType,
    ModuleOp,
    StringAttr,
    f16,
    f32,
    i1,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.wsp import (
    VIEW_DYNAMIC,
    VIEW_INDEX,
    WSP,
    CallOp,
    CombineOp,
    CondOp,
    DenseAxisType,
    DenseDynAxisType,
    DenseDynOp,
    DenseOp,
    ForEachOp,
    KernelOp,
    ParallelForOp,
    RaggedAxisType,
    RaggedOp,
    SelectOp,
    SequentialOp,
    SparseAxisType,
    SparseOp,
    TaskOp,
    TaskType,
    ViewOp,
    WorkloadExpr,
    WorkloadOp,
    YieldOp,
    loop_index_count,
    resolve_symbol,
    view_result_type,
)

INDEX = IndexType()


def _ctx() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, memref.MemRef, WSP):
        ctx.load_dialect(dialect)
    return ctx


def _print(op: Operation, generic: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(op)
    return out.getvalue()


def _parse(text: str) -> ModuleOp:
    return Parser(_ctx(), text).parse_module()


def _roundtrip(module: ModuleOp) -> str:
    """Verify, print, parse, verify, print: both texts must agree (also via generic form)."""
    module.verify()
    text = _print(module)
    reparsed = _parse(text)
    reparsed.verify()
    assert _print(reparsed) == text
    from_generic = _parse(_print(module, generic=True))
    from_generic.verify()
    assert _print(from_generic) == text
    return text


def _before_yield(block: Block, *ops: Operation) -> None:
    """Insert ``ops`` before the block's wsp.yield terminator (the default bodies end in one)."""
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    block.insert_ops_before(list(ops), terminator)


# --------------------------------------------------------------------------- attention


def _attention() -> tuple[ModuleOp, WorkloadOp, KernelOp]:
    """Seed 001 §3.1: parallel_for(Dense<4>, b -> parallel_for(Dense<8>, h -> task(attn)))."""
    q_tile = MemRefType(f16, [64, 128])
    k_tile = MemRefType(f16, [128, 128])
    kernel = KernelOp(
        "attn",
        ["b", "h", "Q", "K", "O"],
        [INDEX, INDEX, q_tile, k_tile, q_tile],
        ["", "", "in", "in", "out"],
        exec_unit="cube",
        cost=64,
        impls={"cpu_sim": "kernels:attn", "aie": "attn.o"},
    )
    q_all = MemRefType(f16, [4, 8, 64, 128])
    k_all = MemRefType(f16, [4, 128, 128])
    workload = WorkloadOp(
        "attention",
        [DenseAxisType(4), DenseAxisType(8), q_all, k_all, q_all],
        ["batch", "heads", "Q", "K", "O"],
    )
    batch, heads, q_arg, k_arg, o_arg = workload.body.block.args
    outer = ParallelForOp(batch, ["b"])
    inner = ParallelForOp(heads, ["h"])
    (b,) = outer.indices
    (h,) = inner.indices
    q = ViewOp(q_arg, [VIEW_DYNAMIC, VIEW_DYNAMIC], [VIEW_INDEX, VIEW_INDEX], [b, h])
    k = ViewOp(k_arg, [VIEW_DYNAMIC], [VIEW_INDEX], [b])
    o = ViewOp(o_arg, [VIEW_DYNAMIC, VIEW_DYNAMIC], [VIEW_INDEX, VIEW_INDEX], [b, h])
    for view in (q, k, o):
        view.result.name_hint = view.source.name_hint.lower()  # type: ignore[union-attr]
    task = TaskOp("attn", [b, h], [q, k, o])
    _before_yield(inner.body.block, q, k, o, task)
    _before_yield(outer.body.block, inner)
    _before_yield(workload.body.block, outer)
    return ModuleOp([kernel, workload]), workload, kernel


ATTENTION_TEXT = """\
builtin.module {
  wsp.kernel @attn(b: index, h: index, Q: in memref<64x128xf16>, K: in memref<128x128xf16>, O: out memref<64x128xf16>) unit(cube) cost(64) attributes {impls = {cpu_sim = "kernels:attn", aie = "attn.o"}}
  wsp.workload @attention(%batch: !wsp.dense<4>, %heads: !wsp.dense<8>, %Q: memref<4x8x64x128xf16>, %K: memref<4x128x128xf16>, %O: memref<4x8x64x128xf16>) {
    wsp.parallel_for %b in %batch named("b") : !wsp.dense<4> {
      wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
        %q = wsp.view %Q[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
        %k = wsp.view %K[%b] : memref<4x128x128xf16> -> memref<128x128xf16>
        %o = wsp.view %O[%b, %h] : memref<4x8x64x128xf16> -> memref<64x128xf16>
        wsp.task @attn(%b, %h : index, index) resources(%q, %k, %o : memref<64x128xf16>, memref<128x128xf16>, memref<64x128xf16>)
      }
    }
  }
}"""


def test_attention_built_in_python_roundtrips():
    module, _, _ = _attention()
    assert _roundtrip(module) == ATTENTION_TEXT


def test_attention_text_parses_to_the_same_module():
    module, _, _ = _attention()
    parsed = _parse(ATTENTION_TEXT)
    parsed.verify()
    assert parsed.is_structurally_equivalent(module)


def test_default_bodies_bind_named_indices_and_end_in_yield():
    dense = WorkloadOp("w", [DenseAxisType(4), RaggedAxisType(), SparseAxisType()], ["d", "r", "s"])
    d, r, s = dense.body.block.args
    loop = ParallelForOp(d, ["b"])
    ragged = ForEachOp(r, ["row", "j"])
    sparse = ParallelForOp(s, ["row", "col"])
    select = SelectOp(s, loop.indices[0], "e")
    for op in (loop, ragged, sparse, select):
        assert isinstance(op.body.block.last_op, YieldOp)
        assert all(a.type == INDEX for a in op.body.block.args)
    assert [a.name_hint for a in loop.indices] == ["b"]
    assert [a.name_hint for a in ragged.indices] == ["row", "j"]
    assert [a.name_hint for a in sparse.indices] == ["row", "col"]
    assert [n.data for n in ragged.names] == ["row", "j"]
    assert select.body.block.args[0].name_hint == "e"
    _before_yield(loop.body.block, select)
    _before_yield(dense.body.block, loop, ragged, sparse)
    assert 'wsp.select %e in %s[%b] named("e") : !wsp.sparse' in _roundtrip(ModuleOp([dense]))


def test_loop_index_count():
    assert loop_index_count(DenseAxisType(3)) == 1
    assert loop_index_count(DenseDynAxisType()) == 1
    assert loop_index_count(RaggedAxisType()) == 2
    assert loop_index_count(SparseAxisType()) == 2


# --------------------------------------------------------------------------- every op


EVERY_OP_TEXT = """\
builtin.module {
  wsp.kernel @step(i: index) unit(vector)
  wsp.kernel @pair(i: index, X: in memref<16xf32>, Y: inout memref<16xf32>) unit(vector)
  wsp.kernel @costly(i: index) unit(cube) cost {
  ^bb0(%i: index):
    %0 = arith.constant 4 : index
    %1 = arith.muli %i, %0 : index
    wsp.yield %1 : index
  }
  wsp.workload @incore(%i: index) level(npu) {
    wsp.task @step(%i : index) resources()
  }
  wsp.workload @outer(%n: index, %lens: memref<?xi64>, %indptr: memref<?xindex>, %indices: memref<?xindex>, %X: memref<?x16xf32>, %p: i1, %t: !wsp.task) {
    %d4 = wsp.dense 4
    %dd = wsp.dense_dyn %n
    %r = wsp.ragged %n, %lens : memref<?xi64>
    %s = wsp.sparse %n, %indptr, %indices : memref<?xindex>, memref<?xindex>
    wsp.combine {
      wsp.sequential {
        wsp.for_each %i in %d4 named("i") : !wsp.dense<4> {
          wsp.task @costly(%i : index) resources()
        }
        wsp.parallel_for %row, %j in %r named("row", "j") : !wsp.ragged {
          %0 = wsp.view %X[%row] : memref<?x16xf32> -> memref<16xf32>
          %1 = wsp.view %X[%j] : memref<?x16xf32> -> memref<16xf32>
          wsp.task @pair(%j : index) resources(%0, %1 : memref<16xf32>, memref<16xf32>)
        }
      }
    }
    wsp.parallel_for %b in %dd named("b") : !wsp.dense_dyn {
      wsp.select %e in %s[%b] named("e") : !wsp.sparse {
        wsp.call @incore(%e : index)
      }
    }
    wsp.cond %p {
      wsp.task @step(%n : index) resources()
    } else {
      wsp.sequential {
      }
      wsp.combine {
      }
    }
    wsp.cond %p {
      wsp.task @step(%n : index) resources()
    }
  }
}"""


def test_every_op_built_in_python_roundtrips():
    """Axes, kernels with cost region, loops, select, cond, combine, sequential, call."""
    step = KernelOp("step", ["i"], [INDEX], [""])
    pair = KernelOp(
        "pair",
        ["i", "X", "Y"],
        [INDEX, MemRefType(f32, [16]), MemRefType(f32, [16])],
        ["", "in", "inout"],
    )
    cost_block = Block(arg_types=[INDEX])
    cost_block.args[0].name_hint = "i"
    c4 = arith.ConstantOp.from_int_and_width(4, INDEX)
    scaled = arith.MuliOp(cost_block.args[0], c4)
    cost_block.add_ops([c4, scaled, YieldOp(scaled)])
    costly = KernelOp("costly", ["i"], [INDEX], [""], "cube", cost_region=Region(cost_block))

    incore = WorkloadOp("incore", [INDEX], ["i"], level="npu")
    _before_yield(incore.body.block, TaskOp("step", [incore.body.block.args[0]], []))

    memref_i64 = MemRefType(i64, [DYNAMIC_INDEX])
    memref_idx = MemRefType(INDEX, [DYNAMIC_INDEX])
    rows = MemRefType(f32, [DYNAMIC_INDEX, 16])
    outer = WorkloadOp(
        "outer",
        [INDEX, memref_i64, memref_idx, memref_idx, rows, i1, TaskType()],
        ["n", "lens", "indptr", "indices", "X", "p", "t"],
    )
    n, lens, indptr, indices, x_arg, p, _ = outer.body.block.args
    d4 = DenseOp(4)
    dd = DenseDynOp(n)
    ragged = RaggedOp(n, lens)
    sparse = SparseOp(n, indptr, indices)
    for op, hint in ((d4, "d4"), (dd, "dd"), (ragged, "r"), (sparse, "s")):
        op.results[0].name_hint = hint

    over_dense = ForEachOp(d4, ["i"])
    _before_yield(over_dense.body.block, TaskOp("costly", [over_dense.indices[0]], []))
    over_ragged = ParallelForOp(ragged, ["row", "j"])
    row, j = over_ragged.indices
    x_row = ViewOp(x_arg, [VIEW_DYNAMIC], [VIEW_INDEX], [row])
    x_j = ViewOp(x_arg, [VIEW_DYNAMIC], [VIEW_INDEX], [j])
    _before_yield(over_ragged.body.block, x_row, x_j, TaskOp("pair", [j], [x_row, x_j]))
    over_dyn = ParallelForOp(dd, ["b"])
    select = SelectOp(sparse, over_dyn.indices[0], "e")
    _before_yield(select.body.block, CallOp("incore", [select.body.block.args[0]]))
    _before_yield(over_dyn.body.block, select)

    then_region = Region(Block([TaskOp("step", [n], [])]))
    cond = CondOp(p, then_region, Region(Block([SequentialOp(), CombineOp()])))
    cond_no_else = CondOp(p, Region(Block([TaskOp("step", [n], [])])))
    group = CombineOp(Region(Block([SequentialOp(Region(Block([over_dense, over_ragged])))])))

    _before_yield(outer.body.block, d4, dd, ragged, sparse, group, over_dyn, cond, cond_no_else)
    module = ModuleOp([step, pair, costly, incore, outer])
    assert _roundtrip(module) == EVERY_OP_TEXT


def test_kernel_and_workload_helpers():
    module, workload, kernel = _attention()
    assert kernel.param_types == [INDEX, INDEX]
    assert kernel.resource_types == [
        MemRefType(f16, [64, 128]),
        MemRefType(f16, [128, 128]),
        MemRefType(f16, [64, 128]),
    ]
    assert workload.arg_index("K") == 3
    assert workload.arg_index("nope") is None
    task = next(op for op in module.walk() if isinstance(op, TaskOp))
    assert resolve_symbol(task, task.kernel) is kernel
    assert resolve_symbol(task, "attention") is workload
    assert resolve_symbol(task, "nothere") is None


def test_symbol_lookups_follow_changes_to_the_ir():
    """resolve_symbol indexes a table once; renamed, erased and new symbols are still seen."""
    module, workload, kernel = _attention()
    task = next(op for op in module.walk() if isinstance(op, TaskOp))
    assert resolve_symbol(task, task.kernel) is kernel
    name = kernel.sym_name.data
    kernel.sym_name = StringAttr("renamed")
    assert resolve_symbol(task, name) is None
    assert resolve_symbol(task, "renamed") is kernel
    clone = kernel.clone()
    clone.sym_name = StringAttr(name)
    module.body.block.add_op(clone)
    assert resolve_symbol(task, name) is clone
    module.body.block.detach_op(clone)
    assert resolve_symbol(task, name) is None
    kernel.sym_name = StringAttr(name)
    assert resolve_symbol(task, name) is kernel


def test_group_children_are_the_workload_expressions():
    w = WorkloadOp("w", [INDEX], ["n"])
    (n,) = w.body.block.args
    t1, t2 = TaskOp("k", [n], []), TaskOp("k", [], [])
    seq = SequentialOp(Region(Block([t1, t2])))
    assert seq.children() == [t1, t2]
    assert all(c.has_trait(WorkloadExpr) for c in seq.children())
    assert CombineOp().children() == []


def test_view_entries_and_computed_type():
    w = WorkloadOp("w", [MemRefType(f32, [4, 8, 64, 128]), INDEX, INDEX], ["Q", "o", "n"])
    q, o, n = w.body.block.args
    view = ViewOp(
        q, [3, 0, VIEW_DYNAMIC, VIEW_DYNAMIC], [VIEW_INDEX, 8, 16, VIEW_DYNAMIC], [o, o, n]
    )
    assert view.result.type == MemRefType(f32, [8, 16, DYNAMIC_INDEX])
    assert view.entries() == [(3, None), (0, 8), (o, 16), (o, n)]
    _before_yield(w.body.block, view)
    assert "wsp.view %Q[3, 0:8, %o:+16, %o:+%n]" in _roundtrip(ModuleOp([w]))


# --------------------------------------------------------------------------- verifier


def _verify_error(op: Operation) -> str:
    with pytest.raises(VerifyException) as info:
        op.verify()
    return str(info.value)


def test_task_against_its_kernel():
    module, _, kernel = _attention()
    module.verify()
    task = next(op for op in module.walk() if isinstance(op, TaskOp))
    kernel.sym_name = StringAttr("renamed")
    assert "task refers to unknown kernel @attn" in _verify_error(module)
    kernel.sym_name = StringAttr("attn")
    short = TaskOp("attn", [task.params[0]], list(task.resources))
    task.parent_block().insert_op_before(short, task)  # type: ignore[union-attr]
    task.detach()
    task.erase()
    assert "kernel @attn takes 2 parameter(s), got 1" in _verify_error(module)


def test_npu_workload_calling_a_non_workload():
    """The npu rule also names a call of a non-workload symbol. Verifying the module never
    gets there (the call's own verifier reports the unknown workload first), so call the
    workload's verify_ alone."""
    kernel = KernelOp("k", [], [], [])
    w = WorkloadOp("w", [], [], level="npu")
    call = CallOp("k", [])
    _before_yield(w.body.block, call)
    module = ModuleOp([kernel, w])
    assert "call refers to unknown workload @k" in _verify_error(module)
    with pytest.raises(VerifyException, match="npu-level workload @w must not call wsp.kernel @k"):
        w.verify_()


def test_npu_workload_calling_cpu_workload():
    cpu = WorkloadOp("cpu_side", [], [])
    npu = WorkloadOp("npu_side", [], [], level="npu")
    _before_yield(npu.body.block, CallOp("cpu_side", []))
    message = _verify_error(ModuleOp([cpu, npu]))
    assert "npu-level workload @npu_side must not call cpu-level workload @cpu_side" in message


# --------------------------------------------------------------------------- property test


@st.composite
def _view_cases(draw):
    """A source memref type, a valid entry list for it and the view's type.

    An entry is (text written, text printed, static offset, static size); its form is one
    of %i, an integer index, lo:hi, lo:+size (printed lo:hi), %o:+size, %o:+%n, lo:+%n.
    The type is computed here from first principles, not with view_result_type.
    """
    rank = draw(st.integers(0, 4))
    shape = [draw(st.one_of(st.integers(0, 12), st.just(DYNAMIC_INDEX))) for _ in range(rank)]
    count = draw(st.integers(0, rank))
    entries: list[tuple[str, str, int, int]] = []
    kept: list[int] = []
    for extent in shape[:count]:
        bound = 1000 if extent == DYNAMIC_INDEX else extent
        forms = ["lo:hi", "lo:+size", "%o:+size", "%o:+%n", "lo:+%n"]
        if bound > 0:  # no index selects an element of an empty dimension
            forms += ["%i", "k"]
        form = draw(st.sampled_from(forms))
        lo = draw(st.integers(0, bound))
        if form == "%i":
            entries.append(("%i", "%i", VIEW_DYNAMIC, VIEW_INDEX))
        elif form == "k":
            k = draw(st.integers(0, bound - 1))
            entries.append((str(k), str(k), k, VIEW_INDEX))
        elif form == "lo:hi":
            hi = draw(st.integers(lo, bound))
            entries.append((f"{lo}:{hi}", f"{lo}:{hi}", lo, hi - lo))
            kept.append(hi - lo)
        elif form == "lo:+size":
            size = draw(st.integers(0, bound - lo))
            entries.append((f"{lo}:+{size}", f"{lo}:{lo + size}", lo, size))
            kept.append(size)
        elif form == "%o:+size":
            size = draw(st.integers(0, bound))
            entries.append((f"%o:+{size}", f"%o:+{size}", VIEW_DYNAMIC, size))
            kept.append(size)
        elif form == "%o:+%n":
            entries.append(("%o:+%n", "%o:+%n", VIEW_DYNAMIC, VIEW_DYNAMIC))
            kept.append(DYNAMIC_INDEX)
        else:
            entries.append((f"{lo}:+%n", f"{lo}:+%n", lo, VIEW_DYNAMIC))
            kept.append(DYNAMIC_INDEX)
    element = draw(st.sampled_from([f16, f32, i64]))
    expected = MemRefType(element, kept + shape[count:])
    return MemRefType(element, shape), entries, expected


@settings(max_examples=150, deadline=None)
@given(_view_cases())
def test_random_views_roundtrip_with_predicted_type(case):
    source, entries, expected = case
    offsets = [off for _, _, off, _ in entries]
    sizes = [size for _, _, _, size in entries]
    assert view_result_type(source, offsets, sizes) == expected

    written = ", ".join(text for text, _, _, _ in entries)
    printed_entries = ", ".join(text for _, text, _, _ in entries)
    text = (
        f"wsp.workload @w(%Q: {source}, %i: index, %o: index, %n: index) {{\n"
        f"  %v = wsp.view %Q[{written}] : {source} -> {expected}\n"
        "}\n"
    )
    module = _parse(text)
    printed = _roundtrip(module)
    view = next(op for op in module.walk() if isinstance(op, ViewOp))
    assert view.result.type == expected
    assert list(view.static_offsets.get_values()) == offsets
    assert list(view.static_sizes.get_values()) == sizes
    assert f"%v = wsp.view %Q[{printed_entries}] : {source} -> {expected}" in printed

    # The Python constructor computes the same type and prints the same entries.
    workload = next(op for op in module.walk() if isinstance(op, WorkloadOp))
    _, i, o, n = workload.body.block.args
    dynamic: list[SSAValue] = []
    for _, _, off, size in entries:
        if off == VIEW_DYNAMIC:
            dynamic.append(i if size == VIEW_INDEX else o)
        if size == VIEW_DYNAMIC:
            dynamic.append(n)
    built = ViewOp(workload.body.block.args[0], offsets, sizes, dynamic)
    assert built.result.type == expected
    view.detach()
    view.erase()
    built.result.name_hint = "v"
    _before_yield(workload.body.block, built)
    assert _roundtrip(module) == printed
