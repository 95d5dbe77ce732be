"""Generic kernels and typed scalars through the public API (issue 20 items 1 and 2).

A kernel with bare ``In``/``Out``/``InOut`` annotations is generic: each distinct list of
resource types its tasks pass makes one ``wsp.kernel`` instance. Scalar parameters annotated
``float``, ``bool``, ``int`` (index) or ``f16``/``f32``/``f64``/``i32``/``i64``/``i1`` reach
numpy bodies as Python numbers, the Ascend host runtime in their C types, and AIE cores as
constants. Results are checked against numpy on every target that runs.
"""

from __future__ import annotations

import builtins
import re

import numpy as np
import pytest

from pto_wsp import (
    CompileError,
    Dense,
    DenseDyn,
    In,
    Out,
    Replicate,
    Shard,
    Tensor,
    combine,
    compile,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
    kernel,
    parallel_for,
    sym,
    task,
)
from pto_wsp.lowering.ascend.build import have_compiler

X = Tensor("X", [4, 16], f32)
Y = Tensor("Y", [4, 16], f32)
H = Tensor("H", [8, 8], f16)
G = Tensor("G", [8, 8], f16)


@kernel
def axpb(x: In, y: Out, alpha: float, beta: float):
    y[...] = x * alpha + beta


def _inputs():
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    h = np.linspace(-1, 1, 64, dtype=np.float16).reshape(8, 8)
    return x, np.zeros_like(x), h, np.zeros_like(h)


# ------------------------------------------------------------------ generic kernels


def test_a_generic_kernel_used_with_one_signature_keeps_its_name():
    w = parallel_for(Dense[4], lambda i: task(axpb, [2.5, 1], [X[i], Y[i]])).named("one")
    text = str(w.module())
    assert (
        "wsp.kernel @axpb(x: in memref<16xf32>, y: out memref<16xf32>, alpha: f64, beta: f64) "
        'unit(vector) attributes {instance_of = "axpb"}'
    ) in text
    assert "wsp.task @axpb(" in text
    x, y, _, _ = _inputs()
    compile(w, target="cpu_sim").bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, x * 2.5 + 1)


def test_each_signature_of_a_generic_kernel_is_one_instance():
    w = combine(
        parallel_for(Dense[4], lambda i: task(axpb, [2.0, 0.5], [X[i], Y[i]])),
        parallel_for(Dense[8], lambda i: task(axpb, [-1.0, 0.25], [H[i], G[i]])),
        task(axpb, [1.0, 0.0], [X[0], Y[1]]),  # the first signature again: no new instance
    ).named("two")
    text = str(w.module())
    kernels = re.findall(r"wsp.kernel @(\w+)\(([^)]*)\)", text)
    assert [name for name, _ in kernels] == ["axpb_16xf32", "axpb_8xf16"]
    assert kernels[1][1].startswith("x: in memref<8xf16>, y: out memref<8xf16>")
    assert text.count('instance_of = "axpb"') == 2
    x, y, h, g = _inputs()
    prog = compile(w, target="cpu_sim")
    prog.bind(X=x, Y=y, H=h, G=g).execute()
    want = x * 2.0 + 0.5
    want[1] = x[0]
    np.testing.assert_allclose(y, want)
    np.testing.assert_allclose(g, (h * np.float16(-1.0) + np.float16(0.25)), rtol=1e-3)
    assert prog.stats().num_tasks == 13


def test_a_body_given_by_the_generic_name_serves_every_instance(capsys):
    w = combine(task(axpb, [2.0, 0.0], [X[0], Y[0]]), task(axpb, [2.0, 0.0], [H[0], G[0]]))
    x, y, h, g = _inputs()

    def triple(x, y, alpha, beta):
        y[...] = 3 * x

    prog = compile(w.named("overridden"), target="cpu_sim", kernels={"axpb": triple})
    prog.bind(X=x, Y=y, H=h, G=g).execute()
    np.testing.assert_allclose(y[0], 3 * x[0])
    np.testing.assert_allclose(g[0], 3 * h[0], rtol=1e-3)
    assert "no kernel @axpb" not in capsys.readouterr().err


def test_an_instance_name_taken_by_another_kernel_is_an_error():
    @kernel(name="axpb_16xf32")
    def taken(x: In[f32[16]], y: Out[f32[16]]):
        y[...] = x

    w = combine(task(taken, [], [X[0], Y[0]]), task(axpb, [1.0, 0.0], [X[1], Y[1]]))
    with pytest.raises(CompileError, match="would be named 'axpb_16xf32', as another kernel is"):
        w.named("clash").module()


def test_typed_annotations_stay_checked():
    @kernel
    def copy16(x: In[f32[16]], y: Out[f32[16]]):
        y[...] = x

    with pytest.raises(CompileError, match=r"must be memref<16xf32>, but .* is memref<8xf16>"):
        task(copy16, [], [H[0], G[0]])


def test_a_generic_cost_function_sees_each_instance_shape():
    @kernel(cost=lambda x: 10 * x.shape[0])
    def touch(x: In, y: Out):
        y[...] = x

    w = combine(task(touch, [], [X[0], Y[0]]), task(touch, [], [H[0], G[0]])).named("costs")
    text = str(w.module())
    assert (
        "wsp.kernel @touch_16xf32(x: in memref<16xf32>, y: out memref<16xf32>) unit(vector) cost(160)"
        in text
    )
    assert (
        "wsp.kernel @touch_8xf16(x: in memref<8xf16>, y: out memref<8xf16>) unit(vector) cost(80)"
        in text
    )


def test_the_python_api_doc_examples_of_kernel_signatures_run():
    from pathlib import Path

    import pto_wsp

    doc = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
    mine = [b for b in blocks if "def scale(x: In" in b or "@scale_16xf32" in b]
    assert len(mine) == 2
    namespace = {name: getattr(pto_wsp, name) for name in pto_wsp.__all__}
    namespace.update(X=X, Y=Y, H=H, G=G)
    for block in mine:
        exec(builtins.compile(block, str(doc), "exec"), namespace)
    text = str(namespace["w"].named("doc").module())
    assert "wsp.kernel @scale_16xf32(" in text and "wsp.kernel @scale_8xf16(" in text


# ------------------------------------------------------------------ typed scalars

SEEN: list[tuple] = []


@kernel
def typed(
    i, x: In, y: Out, a: float, b: f32, c: f16, d: f64, n: i32, m: i64, k: int, p: bool, q: i1
):
    SEEN.append((i, a, b, c, d, n, m, k, p, q))
    y[...] = x * b + (n if p else -n)


def _typed_workload():
    n = sym("n")
    return parallel_for(
        DenseDyn(n),
        lambda i: task(
            typed, [i, 2.5, 0.1, 0.5, 1e-3, i + 1, -(2**40), 7, i % 2 == 0, True], [X[i], Y[i]]
        ),
    ).named("typed_scalars")


@pytest.mark.parametrize("fast", [False, True])
def test_scalars_reach_numpy_bodies_as_python_numbers(fast, monkeypatch):

    SEEN.clear()
    x, y, _, _ = _inputs()
    compile(_typed_workload(), target="cpu_sim", fast=fast).bind(X=x, Y=y, n=4).execute()
    f32_tenth = float(np.float32(0.1))
    assert sorted(SEEN) == [
        (i, 2.5, f32_tenth, 0.5, 1e-3, i + 1, -(2**40), 7, i % 2 == 0, True) for i in range(4)
    ]
    kinds = {tuple(type(v).__name__ for v in row) for row in SEEN}
    assert kinds == {
        ("int", "float", "float", "float", "float", "int", "int", "int", "bool", "bool")
    }
    i = np.arange(4)[:, None]
    np.testing.assert_allclose(y, x * np.float32(0.1) + np.where(i % 2 == 0, i + 1, -(i + 1)))


@kernel
def shifted(x: In, y: Out, a: f32, n: i32, q: bool):
    SEEN.append((type(a), type(n), type(q), a, q))
    y[...] = x * a + n


@pytest.mark.parametrize("fast", [False, True])
def test_typed_scalars_in_a_batched_nest(fast, monkeypatch):
    """A nest the generated code creates as a numpy batch (no predicate among the params)
    hands the same Python numbers to the bodies."""

    Xd, Yd = Tensor("Xd", [None, 16], f32), Tensor("Yd", [None, 16], f32)
    w = parallel_for(
        DenseDyn(sym("n")), lambda i: task(shifted, [0.5, i + 1, True], [Xd[i], Yd[i]])
    ).named("batched")
    SEEN.clear()
    x = np.ones((8, 16), np.float32)
    y = np.zeros_like(x)
    compile(w, target="cpu_sim", fast=fast).bind(Xd=x, Yd=y, n=8).execute()
    assert set(SEEN) == {(float, int, bool, 0.5, True)} and len(SEEN) == 8
    np.testing.assert_allclose(y, np.broadcast_to(0.5 + np.arange(1, 9)[:, None], x.shape))


def test_scalar_types_in_the_ir():
    text = str(_typed_workload().module())
    assert (
        "wsp.kernel @typed(i: index, x: in memref<16xf32>, y: out memref<16xf32>, a: f64, b: f32, "
        "c: f16, d: f64, n: i32, m: i64, k: index, p: i1, q: i1)"
    ) in text
    assert "arith.constant 1.000000e-01 : f32" in text
    assert "arith.index_cast" in text and ": index to i32" in text


def test_scalars_by_name_in_the_decorator_form():
    w = parallel_for(Dense[4], lambda i: axpb(x=X[i], y=Y[i], alpha=3.0, beta=-1)).named("named")
    x, y, _, _ = _inputs()
    compile(w, target="cpu_sim").bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, x * 3.0 - 1)
    w = parallel_for(Dense[4], lambda i: axpb[3.0](X[i], Y[i], beta=2)).named("mixed")
    compile(w, target="cpu_sim").bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, x * 3.0 + 2)
    with pytest.raises(CompileError, match="missing value for scalar parameter 'beta'"):
        axpb(x=X[0], y=Y[0], alpha=1.0)


OK = {"i": 0, "a": 1.0, "b": 0.5, "c": 0.5, "d": 1.0, "n": 1, "m": 1, "k": 1, "p": True, "q": True}


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        ({"a": "a"}, r"scalar parameter 'a' of @typed is a number \(f64\), got 'a'"),
        ({"n": 2**31}, r"'n' of @typed is an i32: 2147483648 does not fit"),
        ({"p": 1}, r"'p' of @typed is a bool \(i1\): True, False or a predicate, got 1"),
        ({"p": 0.5}, r"'p' of @typed is a bool \(i1\): True, False or a predicate, got 0.5"),
        ({"c": 1e6}, r"'c' of @typed is an f16: 1000000.0 does not fit"),
        ({"n": 1.5}, r"expected scalar parameter 'n' of @typed \(an int, a loop index"),
        (
            {"k": 2.5},
            r"'k' of @typed is an index \(unannotated or int\), got 2.5: annotate it 'k: float'",
        ),
    ],
)
def test_scalar_values_of_the_wrong_kind_are_compile_errors(wrong, message):
    params = list({**OK, **wrong}.values())
    with pytest.raises(CompileError, match=message):
        task(typed, params, [X[0], Y[0]])


def test_scalar_annotations_that_are_not_scalar_types():
    with pytest.raises(CompileError, match="scalars are index .* float, bool or one of f16"):

        @kernel
        def bad(x: In, s: str): ...

    with pytest.raises(CompileError, match="a cost is index arithmetic over index parameters"):

        @kernel(cost=lambda alpha: alpha)
        def costly(x: In[f32[4]], alpha: float): ...


def test_tasks_sent_over_a_channel_keep_their_typed_scalars():
    from pto_wsp import Channel, connect, consume, for_each, process, replicate, send

    queue = Channel("work", capacity=4)
    gen = (
        process("generator")
        .produces(queue)
        .body(for_each(Dense[4], lambda i: send(queue, task(axpb, [0.5, 2], [X[i], Y[i]]))))
    )
    worker = process("worker").consumes(queue).body(consume(queue))
    pipeline = connect([gen, replicate(worker, 2)], [queue]).named("typed_queue")
    x, y, _, _ = _inputs()
    compile(pipeline, target="cpu_sim", workers=2).bind(X=x, Y=y).execute()
    np.testing.assert_allclose(y, x * 0.5 + 2)


COST_READS_SCALARS = """
wsp.kernel @k(alpha: f32, n: i32, i: index) unit(vector) cost {
^bb0(%alpha: f32, %n: i32, %i: index):
  %nf = arith.sitofp %n : i32 to f32
  %p = arith.mulf %alpha, %nf : f32
  %c = arith.fptosi %p : f32 to i64
  %ci = arith.index_cast %c : i64 to index
  wsp.yield %ci : index
}
wsp.workload @w() {
  %d = wsp.dense 3
  %a = arith.constant 1.500000e+01 : f32
  wsp.parallel_for %i in %d named("i") : !wsp.dense<3> {
    %one = arith.constant 1 : index
    %j = arith.addi %i, %one : index
    %n = arith.index_cast %j : index to i32
    wsp.task @k(%a, %n, %i : f32, i32, index) resources()
  }
}
"""


def test_a_cost_region_reads_typed_scalars(tmp_path, capsys):
    from pto_wsp.tools.pto_run import main as pto_run

    path = tmp_path / "cost.mlir"
    path.write_text(COST_READS_SCALARS)
    code = pto_run([str(path), "--mode", "cycles", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "makespan 90 cycles" in out  # 15 * (1 + 2 + 3)


# ------------------------------------------------------------------ Ascend

SCALE_CPP = """
template <class X, class Y>
__aicore__ void scale(X x, Y y, float alpha, int32_t n, bool flip, double beta) {
  for (int64_t k = 0; k < x.size(0); ++k)
    y(k) = x(k) * alpha + static_cast<float>(flip ? -n : n) + static_cast<float>(beta);
}
"""


@kernel(impls={"ascend": SCALE_CPP, "aie": "scale.o"})
def scale(x: In, y: Out, alpha: f32, n: i32, flip: bool, beta: float):
    y[...] = x * alpha + (-n if flip else n) + beta


A = Tensor("A", [8, 8], f32)
B = Tensor("B", [8, 8], f32)


def _scale_workload():
    return combine(
        parallel_for(Dense[4], lambda i: task(scale, [0.5, i, True, 0.25], [X[i], Y[i]])),
        parallel_for(Dense[8], lambda i: task(scale, [2.0, -3, False, 1.5], [A[i], B[i]])),
    ).named("scaled")


@pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")
def test_ascend_builds_and_runs_instances_with_typed_scalars(tmp_path):
    program = compile(_scale_workload(), target="ascend", host=True, out_dir=tmp_path, record=True)
    body = (tmp_path / "kernels" / "scale_16xf32_body.cpp").read_text()
    assert "__aicore__ void scale_16xf32(pto::wsp::GmTensor<const float, 1> x" in body
    assert (
        "float alpha, int32_t n, bool flip, double beta) { scale<>(x, y, alpha, n, flip, beta); }"
        in body
    )
    assert "ScalarArg args[kMaxArgs]" in (tmp_path / "task_abi.h").read_text()
    wrapper = (tmp_path / "kernels" / "scale_16xf32.cpp").read_text()
    for slot, field in enumerate(("f32", "i32", "i1", "f64")):
        assert f"task->args[{slot}].{field}" in wrapper
    orchestration = (tmp_path / "aicpu_orchestrate.cpp").read_text()
    assert "const float" in orchestration and "= 0x1.0000000000000p-1f;" in orchestration
    assert "_t.add_scalar(static_cast<int32_t>(" in orchestration
    x, y, _, _ = _inputs()
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = np.zeros_like(a)
    program.execute(X=x, Y=y, A=a, B=b)
    np.testing.assert_allclose(y, x * 0.5 - np.arange(4)[:, None] + 0.25)
    np.testing.assert_allclose(b, a * 2 - 3 + 1.5)
    # The graph the host runtime built equals tg-materialize's: the same scalars, typed.
    from pto_wsp.dialects import tg
    from pto_wsp.lowering.ascend import lower_to_tg
    from pto_wsp.runtime.materialize import materialize

    lowered = lower_to_tg(_scale_workload().module())
    op = next(o for o in lowered.ops if isinstance(o, tg.ProgramOp))
    graph = program.graph()
    assert graph.to_text() == materialize(lowered, op, {}).to_text()
    assert (0.5, 3, True, 0.25) in graph.args and (2.0, -3, False, 1.5) in graph.args


# ------------------------------------------------------------------ AIE

C = Tensor("C", [2, 16], f32)
D = Tensor("D", [2, 16], f32)


def _mapped(k, params):
    w = parallel_for(Dense[2], lambda b: task(k, params(b), [C[b], D[b]])).named("mapped")
    return (
        w.schedule()
        .spatial_map((2,))
        .layout(C, Shard(0), Replicate())
        .layout(D, Shard(0), Replicate())
    )


@kernel(impls={"aie": "gain.o"})
def gain(x: In, y: Out, alpha: f32, n: i32, flip: bool):
    y[...] = x * alpha + (-n if flip else n)


def test_aie_specializes_the_instance_and_passes_constant_scalars():
    text = str(compile(_mapped(gain, lambda b: [0.5, b + 1, True]), target="aie"))
    assert "func.func private @gain(memref<16xf32>, memref<16xf32>, f32, i32, i1)" in text
    assert 'link_with = "gain.o"' in text
    assert text.count("arith.constant 5.000000e-01 : f32") == 2  # one per core
    assert re.search(r"func.call @gain\(%\d+, %\d+, %\d+, %c2_i32, %true", text)


def test_aie_scalar_it_cannot_pass_is_a_located_error():
    @kernel(impls={"aie": "s.o"})
    def wide(x: In, y: Out, alpha: float):
        y[...] = x * alpha

    with pytest.raises(CompileError) as info:
        compile(_mapped(wide, lambda b: [0.5]), target="aie")
    message = str(info.value)
    assert "test_api_kernel_signatures.py:" in message
    assert (
        "kernel @wide parameter alpha is f64; an AIE core passes index (as i32), i1, i32, i64 and f32"
        in message
    )


def test_aie_runtime_scalar_is_a_located_error():
    """A scalar read from memory when the program runs has no value for a static design."""
    from pto_wsp import index

    counts = Tensor("counts", [2], index)
    with pytest.raises(CompileError) as info:
        compile(_mapped(gain, lambda b: [0.5, counts[b], True]), target="aie")
    message = str(info.value)
    assert "test_api_kernel_signatures.py:" in message and "loaded from memory" in message
    assert "\n" not in message


def test_aie_dynamic_tile_of_a_generic_kernel_is_a_located_error():
    @kernel(impls={"aie": "c.o"})
    def copy(x: In, y: Out):
        y[...] = x

    m = sym("m")
    w = parallel_for(Dense[2], lambda b: task(copy, [], [C[b, 0:m], D[b, 0:m]])).named("dyn")
    s = w.schedule().spatial_map((2,)).layout(C, Shard(0), Replicate())
    with pytest.raises(CompileError) as info:
        compile(s.layout(D, Shard(0), Replicate()), target="aie", bind={"m": 16})
    message = str(info.value)
    assert "test_api_kernel_signatures.py:" in message
    assert "kernel @copy takes memref<?xf32>; an AIE kernel works on static tiles" in message
