"""The Python API's values: index arithmetic, tensors and views, axes, arguments, placement.

Each test builds a small workload and checks the IR it lowers to: which arith op an
operator becomes, where helper ops are placed, how views and arguments come out. Every
built module also verifies and round-trips through the printer and parser.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from pto_wsp import (
    CompileError,
    Dense,
    DenseDyn,
    In,
    InOut,
    Out,
    P,
    Ragged,
    Sparse,
    Tensor,
    call,
    combine,
    cond,
    cross,
    f16,
    f32,
    for_each,
    i32,
    index,
    kernel,
    module,
    parallel_for,
    select,
    sequential,
    sym,
    task,
    u8,
    workload,
)
from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.wsp import WSP


def roundtrip(m: ModuleOp) -> str:
    """Verify, print, parse and compare: the text of the module."""
    m.verify()
    text = str(m)
    ctx = Context()
    for dialect in (Builtin, arith.Arith, memref.MemRef, WSP, CSP, SCHED):
        ctx.load_dialect(dialect)
    again = Parser(ctx, text).parse_module()
    assert again.is_structurally_equivalent(m), text
    return text


def body_lines(text: str, op: str) -> list[str]:
    """The stripped lines of the region that the first line containing ``op`` opens."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if op in line)
    depth, out = 0, []
    for line in lines[start:]:
        depth += line.count("{") - line.count("}")
        out.append(line.strip())
        if depth == 0:
            break
    return out[1:-1]


@kernel
def k1(a, x: InOut[f32[64]]):
    """One scalar."""


@kernel
def k6(a, b, c, d, e, f, x: InOut[f32[64]]):
    """Six scalars."""


X = Tensor("X", [None, 64], f32)


# --------------------------------------------------------------------------- arithmetic


def test_operators_and_their_signedness():
    n = sym("n")
    w = parallel_for(
        DenseDyn(n),
        lambda i: task(k6, [i + 1, i - 1, i * 3, i // 2, i % 2, 7 - i], [X[i]]),
    ).named("w")
    text = roundtrip(w.module())
    assert "arith.addi %i, %" in text
    assert "arith.subi %i, %" in text
    assert "arith.muli %i, %" in text
    # A loop index and a constant are non-negative: unsigned division and remainder.
    assert "arith.divui %i, %" in text and "arith.remui %i, %" in text
    assert re.search(r"arith.subi %\w+, %i : index", text)  # 7 - i: the constant first


def test_possibly_negative_operands_use_signed_ops():
    n = sym("n")
    w = parallel_for(
        DenseDyn(n),
        lambda i: task(k6, [(i - 1) // 2, (i - 1) % 2, 1, 2, 3, 4], [X[i]]),
    ).named("w")
    text = roundtrip(w.module())
    assert "arith.floordivsi" in text and "arith.remsi" in text
    assert "divui" not in text and "remui" not in text


def test_comparisons_and_predicates():
    n = sym("n")
    lens = Tensor("lens", [None], index)
    ulens = Tensor("ulens", [None], u8)

    def body(i):
        p = (i < n) & (lens[i] >= 4) | ~(ulens[i] == 3) ^ (i != 2)
        return cond(p, task(k1, [i], [X[i]]))

    text = roundtrip(parallel_for(DenseDyn(n), body).named("w").module())
    assert "arith.cmpi ult, %i, %n" in text  # both non-negative: unsigned
    assert "arith.cmpi sge" in text  # an index tensor's values may be negative: signed
    assert "arith.cmpi eq" in text and "arith.cmpi ne" in text
    assert "arith.andi" in text and "arith.ori" in text and "arith.xori" in text
    # u8 values are loaded, then cast to index.
    assert "memref.load %ulens[%i] : memref<?xui8>" in text
    assert "arith.index_cast" in text


def test_constant_operands_fold_in_python():
    n = sym("n")
    w = parallel_for(DenseDyn(n), lambda i: task(k1, [i + (2 * 3 - 6)], [X[i]])).named("w")
    text = roundtrip(w.module())
    assert "arith.constant 0" in text  # 2 * 3 - 6 is Python's; i + 0 stays an addi


def test_division_by_zero_is_refused():
    with pytest.raises(CompileError, match="division by zero"):
        parallel_for(Dense[4], lambda i: task(k1, [i // 0], [X[i]]))


# --------------------------------------------------------------------------- placement


def test_pure_ops_leave_loops_reads_and_runtime_divisions_do_not():
    n = sym("n")
    data = Tensor("data", [None], index)
    w = parallel_for(
        DenseDyn(n),
        lambda i: parallel_for(
            Dense[4],
            lambda j: task(k6, [i * 2, i // n, data[i], j, i % 4, j + i * 2], [X[i]]),
        ),
    ).named("w")
    text = roundtrip(w.module())
    outer = body_lines(text, 'named("i")')
    inner = body_lines(text, 'named("j")')
    assert any("arith.muli %i" in line for line in outer[:3])  # hoisted out of the j loop
    assert any("arith.remui %i" in line for line in outer[:3])
    assert any("wsp.view %X[%i]" in line for line in outer[:4])
    assert any("arith.floordivsi" in line or "arith.divui %i, %n" in line for line in inner)
    assert any("memref.load %data[%i]" in line for line in inner)
    assert "arith.constant" not in "\n".join(outer + inner)  # constants are at the top


def test_values_are_computed_once_where_they_dominate():
    n = sym("n")
    w = parallel_for(
        DenseDyn(n),
        lambda i: combine(task(k1, [i + 1], [X[i + 1]]), task(k1, [i + 1], [X[i + 1]])),
    ).named("w")
    text = roundtrip(w.module())
    assert text.count("arith.addi") == 1
    assert text.count("wsp.view") == 1
    # The helpers sit before the combine, which holds only the tasks.
    assert all(line.startswith("wsp.task") for line in body_lines(text, "wsp.combine"))


def test_cond_branches_keep_their_views_and_reads():
    n = sym("n")
    lens = Tensor("lens", [None], index)
    w = parallel_for(
        DenseDyn(n),
        lambda i: cond(i < 4, task(k1, [lens[i]], [X[i, 0:64]]), task(k1, [i], [X[i]])),
    ).named("w")
    text = roundtrip(w.module())
    then_lines = body_lines(text, "wsp.cond")
    assert any("memref.load %lens[%i]" in line for line in then_lines)
    assert any("wsp.view %X[%i, 0:64]" in line for line in then_lines)
    assert text.index("arith.constant 4") < text.index("wsp.parallel_for")


def test_static_predicate_is_a_constant_cond():
    w = parallel_for(
        Dense[4], lambda i: cond(True, task(k1, [i], [X[i]]), task(k1, [0], [X[0]]))
    ).named("w")
    text = roundtrip(w.module())
    assert "arith.constant true" in text and "wsp.cond %" in text and "} else {" in text


# --------------------------------------------------------------------------- views


def test_view_forms():
    Q = Tensor("Q", [4, 8, 64, 64], f32)
    assert Q[1][2].key == Q[1, 2].key
    assert Q[1][2].type == Q[1, 2].type and str(Q[1, 2].type) == "memref<64x64xf32>"
    assert str(Q[1, 2, 0:16].type) == "memref<16x64xf32>"
    assert Q[0:2][1].key == Q[1].key  # indexing a slice adds its offset
    assert Q[1:3][1, 5].key == Q[2, 5].key
    assert str(Q[:, 3].type) == "memref<4x64x64xf32>"  # ':' then an index: 0:4 entry
    assert Q[:, 3].entries == [(0, 4), (3, None)]
    assert Q[1, :].entries == [(1, None)]  # a trailing ':' adds nothing
    assert Q[1][:8].shape == (8, 64, 64)


def test_dynamic_slices():
    n, lo = sym("n"), sym("lo")
    Z = Tensor("Z", [None, 128], f32)

    @kernel
    def kd(x: In[f32[None]]):
        """A runtime-size region."""

    w = parallel_for(
        DenseDyn(n),
        lambda i: combine(
            task(kd, [], [Z[i, lo : lo + 8]]),
            task(kd, [], [Z[i, 0:n]]),
            task(kd, [], [Z[i, lo:]]),
            task(kd, [], [Z[i, i * 4 : i * 4 + 4]]),
        ),
    ).named("w")
    text = roundtrip(w.module())
    assert "wsp.view %Z[%i, %lo:+8] : memref<?x128xf32> -> memref<8xf32>" in text
    assert "wsp.view %Z[%i, 0:+%n] : memref<?x128xf32> -> memref<?xf32>" in text
    assert re.search(r"wsp.view %Z\[%i, %lo:\+%\w+\] : memref<\?x128xf32> -> memref<\?xf32>", text)
    assert re.search(r"wsp.view %Z\[%i, %\w+:\+4\]", text)


def test_a_whole_tensor_is_a_resource():
    W = Tensor("W", [64], f32)
    text = roundtrip(parallel_for(Dense[2], lambda i: task(k1, [i], [W])).named("w").module())
    assert "resources(%W : memref<64xf32>)" in text


def test_element_types():
    H = Tensor("H", [None, 64], f16)
    text = roundtrip(parallel_for(Dense[2], lambda i: task(k1, [i], [X[i]])).named("w").module())
    assert "memref<?x64xf32>" in text
    with pytest.raises(CompileError, match="must be memref<64xf32>"):
        task(k1, [0], [H[0]])
    assert str(Tensor("I", [3], i32).type) == "memref<3xi32>"
    assert str(Tensor("U", [3], u8).type) == "memref<3xui8>"


# --------------------------------------------------------------------------- axes


def test_ragged_loop_binds_row_and_j():
    n = sym("n")
    lens = Tensor("lens", [None], index)
    w = parallel_for(Ragged(n, lens), lambda row, j: task(k1, [j], [X[row]])).named("w")
    text = roundtrip(w.module())
    assert "wsp.ragged %n, %lens : memref<?xindex>" in text
    assert "wsp.parallel_for %row, %j in %" in text and 'named("row", "j") : !wsp.ragged' in text


def test_arrays_bound_at_build_time_are_globals():
    lengths = np.array([3, 1, 2], dtype=np.int32)
    routing = Sparse(None, [0, 2, 3], [1, 0, 2])
    w = combine(
        for_each(Ragged(3, lengths), lambda r, j: task(k1, [j], [X[r]])),
        parallel_for(Dense[2], lambda b: select(routing[b], lambda e: task(k1, [e], [X[b]]))),
    ).named("w")
    text = roundtrip(w.module())
    assert 'sym_name = "w_lengths", type = memref<3xi32>' in text
    assert "dense<[3, 1, 2]> : tensor<3xi32>" in text
    assert 'sym_name = "w_indptr"' in text and 'sym_name = "w_indices"' in text
    assert "memref.get_global @w_lengths : memref<3xi32>" in text
    assert re.search(r"wsp.sparse %\w+, %\w+, %\w+ : memref<3xi64>, memref<3xi64>", text)
    assert "arith.constant 2 : index" in text  # rows of the CSR: len(indptr) - 1


def test_cross_nests_loops_of_one_kind():
    n = sym("n")
    w = for_each(cross(DenseDyn(n), Dense[8]), lambda b, h: task(k1, [b + h], [X[b]])).named("w")
    text = roundtrip(w.module())
    assert "wsp.for_each %b in %" in text and "wsp.for_each %h in %" in text
    assert "parallel_for" not in text


def test_select_names_its_index_after_the_parameter():
    routing = Sparse(4, Tensor("ptr", [5], index), Tensor("idx", [None], index))
    w = parallel_for(
        Dense[4], lambda tok: select(routing[tok], lambda expert: task(k1, [expert], [X[tok]]))
    ).named("w")
    text = roundtrip(w.module())
    assert "wsp.select %expert in %" in text and '[%tok] named("expert")' in text


def test_axes_are_validated():
    with pytest.raises(CompileError, match="int >= 0"):
        Dense[-1]
    with pytest.raises(CompileError, match="1-d integer"):
        Sparse(2, Tensor("p", [3], f32), [0])
    assert Dense(8).size == Dense[8].size == 8


# --------------------------------------------------------------------------- arguments


def test_free_arguments_follow_creation_order():
    b_ = Tensor("B", [4, 64], f32)
    n = sym("n")
    a_ = Tensor("A", [4, 64], f32)
    w = parallel_for(DenseDyn(n), lambda i: [task(k1, [i], [a_[i]]), task(k1, [i], [b_[i]])]).named(
        "w"
    )
    text = roundtrip(w.module())
    assert "wsp.workload @w(%B: memref<4x64xf32>, %n: index, %A: memref<4x64xf32>)" in text


def test_syms_with_one_name_are_one_argument():
    w = parallel_for(DenseDyn(sym("n")), lambda i: task(k1, [sym("n") - i], [X[i]])).named("w")
    text = roundtrip(w.module())
    assert text.count("%n: index") == 1


def test_parameters_come_first_then_free_values():
    n = sym("n")

    @workload
    def w(x, m):
        return parallel_for(DenseDyn(m), lambda i: task(k1, [n], [x[i]]))

    text = roundtrip(w(X, n).module())
    assert "wsp.workload @w(%x: memref<?x64xf32>, %m: index, %n: index)" in text


def test_called_workloads_get_free_values_from_their_caller():
    n = sym("n")
    Y = Tensor("Y", [None, 64], f32)

    @workload(level="npu")
    def inner(i):
        return task(k1, [i], [Y[i]])  # Y is not a parameter: the caller passes it

    outer = parallel_for(DenseDyn(n), lambda i: call(inner, i)).named("outer")
    text = roundtrip(outer.module())
    assert "wsp.workload @inner(%i: index, %Y: memref<?x64xf32>) level(npu)" in text
    assert "wsp.workload @outer(%n: index, %Y: memref<?x64xf32>)" in text
    assert "wsp.call @inner(%i, %Y : index, memref<?x64xf32>)" in text
    assert text.index("@inner(") < text.index("@outer(")


def test_named_expressions_used_inside_are_calls():
    n = sym("n")
    stage = parallel_for(DenseDyn(n), lambda i: task(k1, [i], [X[i]])).named("stage")
    both = sequential(stage, stage).named("both")
    text = roundtrip(module(both))
    assert text.count("wsp.call @stage(") == 2
    assert text.count("wsp.workload @stage(") == 1


def test_one_name_for_two_workloads_is_refused():
    a = parallel_for(Dense[2], lambda i: task(k1, [i], [X[i]])).named("w")
    b = parallel_for(Dense[3], lambda i: task(k1, [i], [X[i]])).named("w")
    with pytest.raises(CompileError, match="two different workloads are named 'w'"):
        module(a, b)


def test_a_workload_named_like_its_kernel_is_refused_at_its_definition():
    @kernel(cost=1)
    def scale(i, x: In[f32[64]]): ...

    k = scale

    @workload
    def scale():
        for i in P(Dense[2]):
            k[i](x=X[i])

    line = scale.loc.lineno
    with pytest.raises(CompileError) as info:
        scale.module()
    message = str(info.value)
    assert f"test_api_values.py:{line}:" in message
    assert "a kernel and a workload share the name 'scale'" in message


def test_a_workload_bound_twice_with_the_same_types_is_one_symbol():
    @workload
    def f(x):
        return parallel_for(Dense[2], lambda i: task(k1, [i], [x[i]]))

    Y = Tensor("Y", [None, 64], f32)
    top = combine(call(f, X), call(f, Y)).named("top")
    text = roundtrip(top.module())
    assert text.count("wsp.workload @f(") == 1
    assert "wsp.call @f(%X" in text and "wsp.call @f(%Y" in text


def test_axis_parameters():
    @workload
    def w(ax, x):
        return parallel_for(ax, lambda i: task(k1, [i], [x[i]]))

    text = roundtrip(w(Dense[4], X).module())
    assert "wsp.workload @w(%ax: !wsp.dense<4>, %x: memref<?x64xf32>)" in text


# --------------------------------------------------------------------------- kernels


def test_kernel_cost_function_is_a_cost_region():
    @kernel(cost=lambda n, x: n * x.shape[0] + 1, exec_unit="cube", impls={"aie": "k.o"})
    def kc(n, x: In[f32[None]], y: Out[f32[4]]):
        """A cost that depends on a scalar and a runtime extent."""

    w = parallel_for(Dense[2], lambda i: task(kc, [i], [X[i], X[i, 0:4]])).named("w")
    text = roundtrip(w.module())
    assert (
        "wsp.kernel @kc(n: index, x: in memref<?xf32>, y: out memref<4xf32>) unit(cube) cost {"
        in text
    )
    assert re.search(r"memref.dim %x, %\w+ : memref<\?xf32>", text)
    assert "wsp.yield" in text and 'impls = {aie = "k.o"}' in text
    assert kc.fn.__doc__ and kc.scalar_params[0].name == "n"


def test_constant_costs():
    @kernel(cost=lambda: 40 + 2)
    def kk(x: In[f32[4]]):
        """Cost 42."""

    text = roundtrip(parallel_for(Dense[2], lambda i: kk(x=X[i, 0:4])).named("w").module())
    assert "wsp.kernel @kk(x: in memref<4xf32>) unit(vector) cost(42)" in text
    with pytest.raises(CompileError, match="not a parameter"):

        @kernel(cost=lambda z: z)
        def bad(x: In[f32[4]]):
            """The cost names no parameter."""


# --------------------------------------------------------------------------- bodies


def test_a_list_body_is_an_implicit_combine():
    w = parallel_for(Dense[2], lambda i: [task(k1, [i], [X[i]]), task(k1, [i + 1], [X[i]])])
    text = roundtrip(w.named("w").module())
    assert text.count("wsp.task @k1") == 2 and "wsp.combine" not in text


def test_decorator_statements_and_functional_returns_mix():
    @workload
    def w():
        for i in P(Dense[2]):
            parallel_for(Dense[3], lambda j: task(k1, [i + j], [X[i]]))  # noqa: B023
            k1[i](x=X[i])

    text = roundtrip(w.module())
    loop = body_lines(text, 'named("i")')
    assert loop[-1].startswith("wsp.task @k1(%i")
    assert any(line.startswith("wsp.parallel_for %j") for line in loop)


def test_both_forms_of_cond_match():
    n = sym("n")

    @workload
    def d():
        for i in P(DenseDyn(n)):
            with P.when(i < 2):
                k1[i](x=X[i])

    f = parallel_for(DenseDyn(n), lambda i: cond(i < 2, task(k1, [i], [X[i]]))).named("d")
    assert str(d.module()) == str(f.module())


def test_sym_arrays_are_runtime_index_arrays():
    n = sym("n")
    w = parallel_for(Ragged(n, sym("lens")), lambda r, j: task(k1, [j], [X[r]])).named("w")
    text = roundtrip(w.module())
    assert "wsp.workload @w(%X: memref<?x64xf32>, %n: index, %lens: memref<?xindex>)" in text
    assert "wsp.ragged %n, %lens : memref<?xindex>" in text


def test_helper_values_carry_readable_names():
    text = roundtrip(
        parallel_for(Dense[4], lambda i: task(k1, [i + 2], [X[i]])).named("w").module()
    )
    assert "%c2 = arith.constant 2 : index" in text
    assert "%x = wsp.view %X[%i]" in text


def test_an_error_inside_a_loop_body_leaves_no_open_body_behind():
    import gc

    from pto_wsp.frontend import workloads

    @workload
    def broken():
        for i in P(Dense[2]):
            k1[i](x=X[i, 0])  # rank 0 for a rank-1 parameter

    with pytest.raises(CompileError, match="rank"):
        broken.module()
    gc.collect()  # closes the abandoned P generator
    assert workloads._FRAMES == []
    ok = parallel_for(Dense[2], lambda i: task(k1, [i], [X[i]])).named("ok")
    assert "wsp.task @k1" in roundtrip(ok.module())


def test_break_keeps_what_the_loop_body_built():
    @workload
    def w():
        for i in P(Dense[2]):
            k1[i](x=X[i])
            break

    assert "wsp.task @k1(%i" in roundtrip(w.module())
