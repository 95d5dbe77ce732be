"""The Ascend target end to end on the seeds' examples: emit, build with g++ -Wall -Werror
(once for the module: the five examples share one tree), run on the host runtime with C++
kernel bodies, and check the outputs against numpy and the task graph against tg-materialize's
(same nodes, same edges, same placement: ``graph().to_text()`` equal).

Bodies: attention, MoE and the three stages from files (tests/lit/ascend/Inputs/kernels),
scan and tiered inline (C++ source in the kernel's ``impls``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.universe import Universe

from pto_wsp.dialects import tg, wsp
from pto_wsp.lowering.ascend import (
    AscendProgram,
    ExecutionError,
    compile_module,
    lower_to_tg,
)
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.runtime.materialize import materialize

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
KERNELS = REPO / "tests" / "lit" / "ascend" / "Inputs" / "kernels"

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

INLINE = {
    "scan_first": """\
__aicore__ void scan_first(pto::wsp::GmTensor<const float, 1> x, pto::wsp::GmTensor<float, 1> y) {
  for (int64_t i = 0; i < x.size(0); ++i) y(i) = x(i);
}
""",
    "scan_step": """\
__aicore__ void scan_step(int64_t i, pto::wsp::GmTensor<const float, 1> prev,
                          pto::wsp::GmTensor<const float, 1> x, pto::wsp::GmTensor<float, 1> y) {
  (void)i;
  for (int64_t k = 0; k < x.size(0); ++k) y(k) = prev(k) + x(k);
}
""",
}
for _tier, _size in ((1, "2k"), (2, "8k"), (3, "32k")):
    INLINE[f"attn_{_size}"] = f"""\
__aicore__ void attn_{_size}(int64_t b, int64_t len, pto::wsp::GmTensor<float, 2> X) {{
  (void)b;
  const int64_t rows = len < X.size(0) ? len : X.size(0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < X.size(1); ++c) X(r, c) += {_tier}.0f;
}}
"""

FILES = ["attention_kernel", "expert_kernel", "load_kernel", "compute_kernel", "store_kernel"]


def parse(text: str, name: str = "<test>") -> ModuleOp:
    ctx = Context()
    for dialect, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(dialect, factory)
    return Parser(ctx, text, name).parse_module()


def examples_module() -> ModuleOp:
    """attention, moe, scan, three_stage and tiered in one module, with Ascend bodies."""
    ops = []
    for name in ("attention", "moe", "scan", "three_stage", "tiered"):
        path = EXAMPLES / f"{name}.mlir"
        module = parse(path.read_text(), str(path))
        ops += [op.clone() for op in module.ops]
    for op in ops:
        if isinstance(op, wsp.KernelOp):
            name = op.sym_name.data
            body = INLINE.get(name) or str(KERNELS / f"{name}.cpp")
            op.impls = DictionaryAttr({"ascend": StringAttr(body)})
    return ModuleOp(ops)


@pytest.fixture(scope="module")
def lowered() -> ModuleOp:
    return lower_to_tg(examples_module())


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, AscendProgram]:
    """One emitted tree and one g++ build for the whole module; a Program per example."""
    module = examples_module()
    out = tmp_path_factory.mktemp("ascend_examples")
    first = compile_module(module, out_dir=out, host=True, program="attention", record=True)
    assert isinstance(first, AscendProgram)
    result = {"attention": first}
    for name in ("moe", "scan", "three_stage", "tiered"):
        result[name] = first.for_program(name)
    return result


def check_graph(program: AscendProgram, lowered: ModuleOp, bindings: dict) -> None:
    """The run's graph is tg-materialize's: the same text (nodes, edges, placement) and
    the same counts in stats()."""
    name = program.name
    op = next(p for p in lowered.ops if isinstance(p, tg.ProgramOp) and p.sym_name.data == name)
    expected = materialize(lowered, op, bindings)
    graph = program.graph()
    assert graph.to_text() == expected.to_text()
    assert graph.edge_counts() == expected.edge_counts()
    stats = program.stats()
    assert stats.num_tasks == expected.num_tasks
    assert stats.num_barriers == expected.num_barriers
    assert stats.num_edges == expected.num_edges
    assert stats.edges_by_kind == expected.edge_counts()
    assert sum(stats.tasks_per_worker) == expected.num_nodes - expected.num_barriers


def test_attention(programs, lowered):
    rng = np.random.default_rng(0)
    B, seq = 2, np.array([17, 40], dtype=np.int64)
    Q = rng.standard_normal((B, 8, 64, 64), dtype=np.float32)
    K = rng.standard_normal((B, 32768, 64), dtype=np.float32)
    V = rng.standard_normal((B, 32768, 64), dtype=np.float32)
    out = np.zeros((B, 8, 64, 64), dtype=np.float32)
    bindings = dict(Q=Q, K=K, V=V, O=out, seq_lens=seq, batch_size=B)
    programs["attention"].execute(**bindings)
    for b in range(B):
        n = int(seq[b])
        for h in range(8):
            s = Q[b, h] @ K[b, :n].T / 8.0
            p = np.exp(s - s.max(axis=1, keepdims=True))
            ref = (p / p.sum(axis=1, keepdims=True)) @ V[b, :n]
            np.testing.assert_allclose(out[b, h], ref, rtol=1e-4, atol=1e-5)
    check_graph(programs["attention"], lowered, bindings)
    stats = programs["attention"].stats()
    assert stats.tasks_per_pool == {"vector": 0, "cube": 16, "any": 0}
    assert stats.num_streams == 2  # stream_by b mod 2


def test_moe(programs, lowered):
    rng = np.random.default_rng(1)
    indptr = np.array([0, 2, 5, 7, 10], dtype=np.int64)
    indices = np.array([1, 3, 0, 2, 4, 1, 5, 0, 3, 7], dtype=np.int64)
    B = 4
    tokens = rng.standard_normal((B, 128), dtype=np.float32)
    weights = rng.standard_normal((8, 128, 128), dtype=np.float32)
    out = np.zeros((B, 8, 128), dtype=np.float32)
    bindings = dict(
        tokens=tokens, expert_weights=weights, expert_out=out, batch_size=B,
        indptr=indptr, indices=indices,
    )  # fmt: skip
    programs["moe"].execute(**bindings)
    expected = np.zeros_like(out)
    for b in range(B):
        for e in indices[indptr[b] : indptr[b + 1]]:
            expected[b, e] = weights[e] @ tokens[b]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    check_graph(programs["moe"], lowered, bindings)
    assert programs["moe"].stats().num_tasks == 10  # one per (token, routed expert) pair


@pytest.mark.parametrize("workers", [1, 4])
def test_scan(programs, lowered, workers):
    rng = np.random.default_rng(2)
    n = 9
    x = rng.standard_normal((n, 64), dtype=np.float32)
    y = np.zeros_like(x)
    program = programs["scan"]
    program.workers = workers
    try:
        program.execute(**{"in": x, "out": y, "n": n})
    finally:
        program.workers = 0
    np.testing.assert_allclose(y, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)
    check_graph(program, lowered, {"in": x, "out": y, "n": n})
    assert program.stats().num_workers == workers


def test_three_stage(programs, lowered):
    rng = np.random.default_rng(3)
    B = 5
    inp = rng.standard_normal((B, 256), dtype=np.float32)
    work = np.zeros_like(inp)
    out = np.zeros_like(inp)
    bindings = dict(input=inp, work=work, output=out, batch_size=B)
    programs["three_stage"].execute(**bindings)
    np.testing.assert_allclose(out, 2 * inp + 1, rtol=1e-6)
    check_graph(programs["three_stage"], lowered, bindings)
    stats = programs["three_stage"].stats()
    # sequential(N, N, N) with N > 1: two barriers, N + N edges through each, plus the
    # RAW/WAW/WAR edges per b that the TensorMap finds.
    assert (stats.num_tasks, stats.num_barriers) == (15, 2)


def test_tiered(programs, lowered):
    B = 4
    seq = np.array([100, 3000, 9000, 2048], dtype=np.int64)
    X = np.zeros((B, 32768, 64), dtype=np.float32)
    bindings = dict(X=X, seq_lens=seq, batch_size=B)
    programs["tiered"].execute(**bindings)
    expected = np.zeros_like(X)
    for b, n in enumerate(seq):
        tier = 1 if n <= 2048 else 2 if n <= 8192 else 3
        expected[b, :n] = tier
    np.testing.assert_array_equal(X, expected)
    check_graph(programs["tiered"], lowered, bindings)
    graph = programs["tiered"].graph()
    assert [graph.kernel_name(i) for i in range(B)] == ["attn_2k", "attn_8k", "attn_32k", "attn_2k"]


def test_kept_worker_threads(programs):
    """Worker threads are kept between runs (runtime WorkerPool): runs with more, fewer and
    the same workers in turn, and runs from two Python threads at once (one of them finds the
    pool busy and starts its own threads) all compute the right results on every task."""
    import threading

    rng = np.random.default_rng(7)
    B = 6
    inp = rng.standard_normal((B, 256), dtype=np.float32)
    base = programs["three_stage"]
    for workers in (1, 3, 2, 17, 3, 1):  # 17: more than the pool keeps
        out = np.zeros_like(inp)
        base.workers = workers
        try:
            base.execute(input=inp, work=np.zeros_like(inp), output=out, batch_size=B)
        finally:
            base.workers = 0
        np.testing.assert_allclose(out, 2 * inp + 1, rtol=1e-6)
        stats = base.stats()
        assert stats.num_workers == workers
        assert sum(stats.tasks_per_worker) == stats.num_tasks == 3 * B

    errors: list[BaseException] = []

    def runs(seed: int) -> None:
        try:
            program = base.for_program("three_stage")
            program.workers = 2
            r = np.random.default_rng(seed)
            for _ in range(20):
                x = r.standard_normal((B, 256), dtype=np.float32)
                y = np.zeros_like(x)
                program.execute(input=x, work=np.zeros_like(x), output=y, batch_size=B)
                np.testing.assert_allclose(y, 2 * x + 1, rtol=1e-6)
                assert program.stats().num_tasks == 3 * B
        except BaseException as e:  # reported below, from the main thread
            errors.append(e)

    threads = [threading.Thread(target=runs, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_execute_async_and_rebinding(programs):
    program = programs["three_stage"]
    inp = np.arange(3 * 256, dtype=np.float32).reshape(3, 256)
    work, out = np.zeros_like(inp), np.zeros_like(inp)
    program.bind(input=inp, work=work, output=out, batch_size=3)
    program.execute_async()
    assert program.synchronize() is program
    assert program.is_complete()
    np.testing.assert_array_equal(out, 2 * inp + 1)
    # New bindings, no recompilation: a non-contiguous output is copied back.
    wide = np.zeros((2, 512), dtype=np.float32)
    program.execute(
        input=inp[:2], work=np.zeros((2, 256), np.float32), output=wide[:, ::2], batch_size=2
    )
    np.testing.assert_array_equal(wide[:, ::2], 2 * inp[:2] + 1)
    assert program.stats().num_tasks == 6
    assert program.elapsed_ms() > 0


def test_binding_errors(programs):
    program = programs["scan"]
    with pytest.raises(ValueError, match="no argument 'x'"):
        program.bind(x=1)
    with pytest.raises(ValueError, match="needs dtype float32"):
        program.execute(**{"in": np.zeros((3, 64)), "out": np.zeros((3, 64)), "n": 3})
    with pytest.raises(ValueError, match=r"needs shape \?x64"):
        program.execute(
            **{"in": np.zeros((3, 32), np.float32), "out": np.zeros((3, 32), np.float32), "n": 3}
        )
    with pytest.raises(ValueError, match="is a scalar"):
        program.bind(n=np.zeros(3))
    fresh = programs["scan"].for_program("scan")
    with pytest.raises(ValueError, match="needs a value for"):
        fresh.execute()


def test_region_outside_the_tensor(programs):
    """A view past the bound array fails the run instead of letting a kernel write there."""
    rows = np.zeros((2, 256), dtype=np.float32)
    with pytest.raises(ExecutionError, match="a task region is outside its tensor"):
        programs["three_stage"].execute(
            input=rows, work=rows.copy(), output=rows.copy(), batch_size=3
        )


def test_runs_after_a_failed_run(programs, lowered):
    """Task rings are kept between runs with their slots constructed: after a run that failed
    part way (tasks never run, fanouts never processed), the next runs on the same ring build
    tg-materialize's graph and compute the same results."""
    program = programs["three_stage"]
    rows = np.zeros((2, 256), dtype=np.float32)
    inp = np.arange(3 * 256, dtype=np.float32).reshape(3, 256)
    for _ in range(3):
        with pytest.raises(ExecutionError, match="a task region is outside its tensor"):
            program.execute(input=rows, work=rows.copy(), output=rows.copy(), batch_size=3)
        out = np.zeros_like(inp)
        bindings = dict(input=inp, work=np.zeros_like(inp), output=out, batch_size=3)
        program.execute(**bindings)
        np.testing.assert_array_equal(out, 2 * inp + 1)
        check_graph(program, lowered, bindings)


def test_index_out_of_bound_data(programs):
    """A load outside the bound data fails the run (as tg-materialize does), naming it."""
    X = np.zeros((2, 32768, 64), dtype=np.float32)
    with pytest.raises(ExecutionError, match="memref.load: index out of the bound data"):
        programs["tiered"].execute(X=X, seq_lens=np.array([1], np.int64), batch_size=2)


def test_one_build_for_every_program(programs):
    libraries = {p.library for p in programs.values()}
    assert len(libraries) == 1
    assert sorted(programs["attention"].tree.programs) == [
        "attention", "moe", "scan", "three_stage", "tiered",
    ]  # fmt: skip
