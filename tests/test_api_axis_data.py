"""Axis data bound at build time runs everywhere: ``Ragged(n, lengths)`` and
``Sparse(n, indptr, indices)`` from numpy arrays or int lists become ``memref.global``
constants, which the CPU simulator (both modes, both engines, task by task and batched),
``pto-run`` on a .mlir file, ``tg-materialize``, the Ascend host runtime and the AIE mapping
read. Results are checked against numpy, task counts against the data."""

from __future__ import annotations

import json

import numpy as np
import pytest
from xdsl.context import Context

from pto_wsp import (
    Channel,
    CompileError,
    Dense,
    In,
    InOut,
    Out,
    Ragged,
    Replicate,
    Shard,
    Sparse,
    Tensor,
    combine,
    compile,
    connect,
    consume,
    f32,
    index,
    kernel,
    parallel_for,
    process,
    replicate,
    select,
    send,
    task,
)
from pto_wsp.dialects import tg
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.runtime.materialize import materialize
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.tools.pto_run import main as pto_run

ROWS, WIDTH = 6, 8
RNG = np.random.default_rng(7)
LENGTHS = RNG.integers(0, 4, size=ROWS)  # numpy int64: tokens per row (some rows empty)
# A CSR routing table as int lists: row b routes to experts indices[indptr[b]:indptr[b+1]].
INDPTR = [0, 2, 2, 5, 6, 8, 9]
INDICES = [1, 4, 0, 2, 3, 5, 1, 2, 0]
ROUTED = len(INDICES)

ASCEND_BODY = """\
__aicore__ void accumulate(int64_t r, int64_t j, pto::wsp::GmTensor<const float, 1> x,
                           pto::wsp::GmTensor<float, 1> y) {
  (void)r;
  for (int64_t i = 0; i < x.size(0); ++i) y(i) += x(i) * static_cast<float>(j + 1);
}
"""


def _accumulate_body(r, j, x, y):
    y[...] += x * (j + 1)


@kernel(impls={"ascend": ASCEND_BODY, "cpu_sim": "test_api_axis_data:_accumulate_body"})
def accumulate(r, j, x: In[f32[WIDTH]], y: InOut[f32[WIDTH]]):
    y[...] += x * (j + 1)


X = Tensor("X", [ROWS, WIDTH], f32)
Y = Tensor("Y", [ROWS, WIDTH], f32)
Z = Tensor("Z", [ROWS, WIDTH], f32)


def workload():
    """Ragged over numpy lengths (outer size from the array) and Sparse over int lists."""
    tokens = Ragged(None, LENGTHS)
    routing = Sparse(None, INDPTR, INDICES)
    return combine(
        parallel_for(tokens, lambda r, j: task(accumulate, [r, j], [X[j], Y[r]])),
        parallel_for(
            Dense[ROWS],
            lambda b: select(routing[b], lambda e: task(accumulate, [b, e], [X[e], Z[b]])),
        ),
    ).named("routed")


def inputs():
    x = np.random.default_rng(1).standard_normal((ROWS, WIDTH)).astype(np.float32)
    return x, np.zeros_like(x), np.zeros_like(x)


def expected(x):
    y, z = np.zeros_like(x), np.zeros_like(x)
    for r, n in enumerate(LENGTHS):
        for j in range(n):
            y[r] += x[j] * (j + 1)
    for b in range(ROWS):
        for e in INDICES[INDPTR[b] : INDPTR[b + 1]]:
            z[b] += x[e] * (e + 1)
    return y, z


TASKS = int(LENGTHS.sum()) + ROUTED


@pytest.mark.parametrize("fast", [False, True])
def test_cpu_sim_functional_matches_numpy(fast):
    x, y, z = inputs()
    program = compile(workload(), target="cpu_sim", fast=fast)
    program.bind(X=x, Y=y, Z=z).execute()
    want_y, want_z = expected(x)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z, want_z, rtol=1e-5, atol=1e-5)
    assert program.stats().num_tasks == TASKS
    if fast:
        assert program.fast_declined is None  # the native core ran it


@pytest.mark.parametrize("fast", [False, True])
def test_cpu_sim_cycles_counts_the_tasks_the_data_gives(fast):
    program = compile(workload(), target="cpu_sim", mode="cycles", fast=fast)
    program.execute()  # no binding: the axis data is in the program
    stats = program.stats()
    assert stats.num_tasks == TASKS
    assert stats.makespan_cycles > 0
    assert (program.fast_declined is None) == fast


def test_pipeline_processes_read_the_constant_arrays():
    """A process body routes by a constant CSR: its generated code holds the arrays too."""
    queue = Channel("q", capacity=2)
    routing = Sparse(None, INDPTR, INDICES)
    body = parallel_for(
        Dense[ROWS],
        lambda b: select(routing[b], lambda e: send(queue, task(accumulate, [b, e], [X[e], Z[b]]))),
    )
    generator = process("generator").produces(queue).body(body)
    worker = process("worker").consumes(queue).body(consume(queue))
    pipeline = connect([generator, replicate(worker, 2)], [queue]).named("routed_pipe")
    x, _, z = inputs()
    program = compile(pipeline, target="cpu_sim")
    program.bind(X=x, Z=z).execute()
    np.testing.assert_allclose(z, expected(x)[1], rtol=1e-5, atol=1e-5)
    assert program.stats().num_tasks == ROUTED


def _lowered():
    module = workload().module()
    WspToTgPass().apply(Context(), module)
    program = next(op for op in module.ops if isinstance(op, tg.ProgramOp))
    return module, program


def test_tg_materialize_enumerates_the_routed_tasks():
    module, program = _lowered()
    graph = materialize(module, program, {})
    assert graph.num_tasks == TASKS
    text = graph.to_text()
    for b in range(ROWS):
        for e in INDICES[INDPTR[b] : INDPTR[b + 1]]:
            assert f"at(b = {b}, e = {e})" in text
    for r, n in enumerate(LENGTHS):
        assert (f"at(r = {r}, j = {n - 1})" in text) == (n > 0)
        assert f"at(r = {r}, j = {n})" not in text


def test_plain_generator_reads_the_globals_too():
    from pto_wsp.lowering.cpu.pygen import compile_program_plain
    from pto_wsp.runtime.graph import GraphBuilder

    module, program = _lowered()
    builder = GraphBuilder()
    compile_program_plain(program, module).run(builder, {})
    assert builder.num_tasks == materialize(module, program, {}).num_tasks == TASKS


def test_pto_run_runs_a_mlir_file_with_globals(tmp_path, capsys):
    path = tmp_path / "routed.mlir"
    path.write_text(str(workload().module()))
    assert "memref.global" in path.read_text()
    x, _, _ = inputs()
    np.save(tmp_path / "x.npy", x)
    args = [str(path), "--bind", f"X=@{tmp_path / 'x.npy'}", "--bind", "Y=zeros(6,8)"]
    args += ["--bind", "Z=zeros(6,8)", "--save", f"Y={tmp_path / 'y.npy'}"]
    args += ["--save", f"Z={tmp_path / 'z.npy'}", "--stats-json", str(tmp_path / "s.json")]
    code = pto_run(args)
    err = capsys.readouterr().err
    assert code == 0, err
    want_y, want_z = expected(x)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.load(tmp_path / "z.npy"), want_z, rtol=1e-5, atol=1e-5)
    assert json.loads((tmp_path / "s.json").read_text())["num_tasks"] == TASKS


@pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")
def test_ascend_host_runtime_runs_the_constant_arrays(tmp_path):
    program = compile(workload(), target="ascend", host=True, out_dir=tmp_path)
    source = "\n".join(p.read_text() for p in tmp_path.rglob("*.cpp"))
    assert "g_routed_indptr" in source  # the orchestration carries the arrays
    x, y, z = inputs()
    program.execute(X=x, Y=y, Z=z)
    want_y, want_z = expected(x)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z, want_z, rtol=1e-5, atol=1e-5)
    assert program.stats().num_tasks == TASKS


@kernel(impls={"aie": "copy.o"})
def copy(b, e, a: In[f32[16]], c: Out[f32[16]]):
    c[...] = a


A = Tensor("A", [2, 16], f32)
C = Tensor("C", [2, 16], f32)


def _mapped(routing):
    w = parallel_for(
        Dense[2], lambda b: select(routing[b], lambda e: task(copy, [b, e], [A[e], C[b]]))
    ).named("mapped")
    layout = (Shard(0), Replicate())
    return w.schedule().spatial_map((2,)).layout(A, *layout).layout(C, *layout)


def test_aie_uses_constant_routing_as_static_values():
    module = compile(_mapped(Sparse(None, [0, 1, 2], [0, 1])), target="aie")
    text = str(module)
    assert text.count("aie.core(") == 2
    assert "func.call @copy(%c0_i32, %c0_i32," in text  # (b, e) = (0, 0) and (1, 1)
    assert "func.call @copy(%c1_i32, %c1_i32," in text


def test_aie_runtime_routing_is_a_located_error():
    routing = Sparse(2, Tensor("indptr", [3], index), Tensor("indices", [2], index))
    with pytest.raises(CompileError) as info:
        compile(_mapped(routing), target="aie")
    message = str(info.value)
    assert "test_api_axis_data.py:" in message and "loaded from memory" in message
    assert "\n" not in message
