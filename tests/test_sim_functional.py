"""The CPU simulator's functional mode: results equal numpy (issue 5 "Tests").

Each workload is built with the Python API, compiled with ``target="cpu_sim"`` and run on
bound numpy arrays; the outputs are compared with a plain numpy computation. Shapes are
small: these tests check semantics, not speed.
"""

from __future__ import annotations

import numpy as np
import pytest

import pto_wsp
from pto_wsp import (
    Dense,
    DenseDyn,
    DispatchPolicy,
    ExecutionError,
    In,
    InOut,
    IssuePolicy,
    Out,
    Sparse,
    Tensor,
    cond,
    f32,
    for_each,
    index,
    kernel,
    parallel_for,
    select,
    sequential,
    sym,
    task,
)

RNG = np.random.default_rng(7)


def _attention_reference(Q, K, V, lens):
    out = np.zeros_like(Q)
    for b in range(Q.shape[0]):
        k, v = K[b, : lens[b]], V[b, : lens[b]]
        for h in range(Q.shape[1]):
            s = Q[b, h] @ k.T
            p = np.exp(s - s.max(axis=1, keepdims=True))
            out[b, h] = (p / p.sum(axis=1, keepdims=True)) @ v
    return out


@kernel(cost=lambda n: 64 * n, exec_unit="cube")
def attn(
    b, h, n, q: In[f32[8, 16]], k: In[f32[None, 16]], v: In[f32[None, 16]], o: Out[f32[8, 16]]
):
    s = q @ k.T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    o[...] = (p / p.sum(axis=1, keepdims=True)) @ v


def test_variable_length_attention():
    Q = Tensor("Q", [None, 4, 8, 16], f32)
    K = Tensor("K", [None, 40, 16], f32)
    V = Tensor("V", [None, 40, 16], f32)
    O = Tensor("O", [None, 4, 8, 16], f32)  # noqa: E741
    lens = Tensor("seq_lens", [None], index)
    batch = sym("batch_size")
    w = parallel_for(
        DenseDyn(batch),
        lambda b: parallel_for(
            Dense[4],
            lambda h: task(
                attn, [b, h, lens[b]], [Q[b, h], K[b, 0 : lens[b]], V[b, 0 : lens[b]], O[b, h]]
            ),
        ),
    ).named("attention")
    prog = (
        w.schedule()
        .dispatch(DispatchPolicy.affinity("b"))
        .streams(2)
        .stream_by(lambda b: b % 2)
        .compile(target="cpu_sim", workers=3)
    )
    B = 3
    q = RNG.standard_normal((B, 4, 8, 16)).astype(np.float32)
    k = RNG.standard_normal((B, 40, 16)).astype(np.float32)
    v = RNG.standard_normal((B, 40, 16)).astype(np.float32)
    o = np.zeros((B, 4, 8, 16), np.float32)
    seq = np.array([5, 40, 17])
    prog.bind(Q=q, K=k, V=v, O=o, seq_lens=seq, batch_size=B).execute()
    np.testing.assert_allclose(o, _attention_reference(q, k, v, seq), rtol=1e-5, atol=1e-6)
    stats = prog.stats()
    assert stats.num_tasks == B * 4
    assert stats.tasks_per_worker == [4, 4, 4]  # affinity: batch b on worker b
    # Rebinding needs no recompile: another batch, other lengths.
    seq2 = np.array([1, 2])
    o2 = np.zeros((2, 4, 8, 16), np.float32)
    prog.bind(Q=q[:2].copy(), K=k[:2].copy(), V=v[:2].copy(), O=o2, seq_lens=seq2, batch_size=2)
    prog.execute()
    np.testing.assert_allclose(
        o2, _attention_reference(q[:2], k[:2], v[:2], seq2), rtol=1e-5, atol=1e-6
    )
    assert prog.stats().num_tasks == 8


@kernel(cost=2048, exec_unit="cube")
def expert(b, e, x: In[f32[16]], wt: In[f32[16, 16]], y: Out[f32[16]]):
    y[...] = wt @ x


def _moe():
    """MoE with sparse routing: per token b, an expert task for each routed expert e
    (CSR ``indptr``, ``indices``)."""
    tokens = Tensor("tokens", [None, 16], f32)
    weights = Tensor("weights", [8, 16, 16], f32)
    out = Tensor("out", [None, 8, 16], f32)
    batch = sym("batch_size")
    indptr = Tensor("indptr", [None], index)
    indices = Tensor("indices", [None], index)
    routing = Sparse(batch, indptr, indices)
    return parallel_for(
        DenseDyn(batch),
        lambda b: select(
            routing[b], lambda e: task(expert, [b, e], [tokens[b], weights[e], out[b, e]])
        ),
    ).named("moe")


def test_moe_sparse_routing():
    w = _moe()
    prog = w.schedule().dispatch(DispatchPolicy.work_steal()).compile(target="cpu_sim")
    ptr = np.array([0, 2, 5, 7, 10])
    idx = np.array([1, 3, 0, 2, 4, 1, 5, 0, 3, 7])
    x = RNG.standard_normal((4, 16)).astype(np.float32)
    wts = RNG.standard_normal((8, 16, 16)).astype(np.float32)
    y = np.zeros((4, 8, 16), np.float32)
    prog.bind(tokens=x, weights=wts, out=y, batch_size=4, indptr=ptr, indices=idx).execute()
    ref = np.zeros_like(y)
    for b in range(4):
        for e in idx[ptr[b] : ptr[b + 1]]:
            ref[b, e] = wts[e] @ x[b]
    np.testing.assert_allclose(y, ref, rtol=1e-5)
    assert prog.stats().num_tasks == 10  # exactly nnz


@kernel(cost=10)
def scan_first(x: In[f32[8]], y: Out[f32[8]]):
    y[...] = x


@kernel(cost=10)
def scan_step(i, prev: In[f32[8]], x: In[f32[8]], y: Out[f32[8]]):
    y[...] = prev + x


def _scan_tensors():
    return Tensor("in", [None, 8], f32), Tensor("out", [None, 8], f32), sym("n")


def test_scan_for_each():
    in_, out, n = _scan_tensors()
    w = sequential(
        task(scan_first, [], [in_[0], out[0]]),
        for_each(
            DenseDyn(n - 1), lambda j: task(scan_step, [j + 1], [out[j], in_[j + 1], out[j + 1]])
        ),
    ).named("scan")
    prog = w.compile(target="cpu_sim", workers=4)
    x = RNG.standard_normal((12, 8)).astype(np.float32)
    y = np.zeros_like(x)
    prog.bind(**{"in": x, "out": y, "n": 12}).execute()
    np.testing.assert_allclose(y, np.cumsum(x, axis=0), rtol=1e-5)


def _parallel_scan(reverse_priority: bool):
    in_, out, n = _scan_tensors()
    w = sequential(
        task(scan_first, [], [in_[0], out[0]]),
        parallel_for(
            DenseDyn(n - 1), lambda j: task(scan_step, [j + 1], [out[j], in_[j + 1], out[j + 1]])
        ),
    ).named("pscan")
    s = w.schedule().dispatch(DispatchPolicy.round_robin(4))
    if reverse_priority:
        # Lower value first: later steps would run first if nothing ordered them.
        s = s.issue(IssuePolicy.priority(lambda j: 1000 - j))
    return s


def test_scan_parallel_for_ordered_by_inferred_raw_only():
    """The steps are a parallel_for: only read-after-write on out[j] orders them."""
    prog = _parallel_scan(True).compile(target="cpu_sim")
    x = RNG.standard_normal((12, 8)).astype(np.float32)
    y = np.zeros_like(x)
    prog.bind(**{"in": x, "out": y, "n": 12}).execute()
    np.testing.assert_allclose(y, np.cumsum(x, axis=0), rtol=1e-5)
    graph = prog.graph()
    # Every step follows scan_first (the sequential); step j+1 reads what step j wrote.
    assert graph.edge_counts()["structural"] == 11
    assert graph.edge_counts()["raw"] == 10


def test_scan_without_inferred_edges_would_be_wrong():
    """Control for the test above: the executor really reorders unordered tasks."""
    prog = _parallel_scan(True).compile(target="cpu_sim", workers=1)
    x = np.ones((12, 8), np.float32)
    y = np.zeros_like(x)
    prog.bind(**{"in": x, "out": y, "n": 12})
    prog.config.infer_data_deps = False  # structural order only
    prog.execute()
    assert not np.allclose(y, np.cumsum(x, axis=0))


@kernel(cost=50)
def load(b, src: In[f32[32]], dst: Out[f32[32]]):
    dst[...] = src


@kernel(cost=200)
def compute(b, x: InOut[f32[32]]):
    x *= 2


@kernel(cost=50)
def store(b, src: In[f32[32]], dst: Out[f32[32]]):
    dst[...] = src + 1


def _three_stage():
    inp = Tensor("input", [None, 32], f32)
    work = Tensor("work", [None, 32], f32)
    outp = Tensor("output", [None, 32], f32)
    batch = sym("batch_size")
    return sequential(
        parallel_for(DenseDyn(batch), lambda b: task(load, [b], [inp[b], work[b]])),
        parallel_for(DenseDyn(batch), lambda b: task(compute, [b], [work[b]])),
        parallel_for(DenseDyn(batch), lambda b: task(store, [b], [work[b], outp[b]])),
    ).named("three_stage")


def test_three_stage_sequential():
    prog = pto_wsp.compile(_three_stage(), target="cpu_sim", workers=2)
    x = RNG.standard_normal((6, 32)).astype(np.float32)
    work = np.zeros_like(x)
    y = np.zeros_like(x)
    prog.bind(input=x, work=work, output=y, batch_size=6).execute()
    np.testing.assert_allclose(y, 2 * x + 1, rtol=1e-6)
    stats = prog.stats()
    assert stats.num_tasks == 18
    assert stats.num_barriers == 2
    # Stage by stage on 2 workers: 3 rounds of each stage.
    assert stats.makespan_cycles == 3 * 50 + 3 * 200 + 3 * 50


@kernel(cost=1000, exec_unit="cube")
def tier_small(b, n, x: InOut[f32[8, 4]]):
    x += 1


@kernel(cost=4000, exec_unit="cube")
def tier_medium(b, n, x: InOut[f32[16, 4]]):
    x += 10


@kernel(cost=16000, exec_unit="cube")
def tier_large(b, n, x: InOut[f32[32, 4]]):
    x += 100


def test_tiered_cond_on_runtime_lengths():
    X = Tensor("X", [None, 32, 4], f32)
    lens = Tensor("seq_lens", [None], index)
    batch = sym("batch_size")
    w = parallel_for(
        DenseDyn(batch),
        lambda b: cond(
            lens[b] <= 8,
            task(tier_small, [b, lens[b]], [X[b, 0:8]]),
            cond(
                lens[b] <= 16,
                task(tier_medium, [b, lens[b]], [X[b, 0:16]]),
                task(tier_large, [b, lens[b]], [X[b]]),
            ),
        ),
    ).named("tiered")
    prog = w.compile(target="cpu_sim")
    seq = np.array([3, 16, 30, 8, 9])
    x = np.zeros((5, 32, 4), np.float32)
    prog.bind(X=x, seq_lens=seq, batch_size=5).execute()
    ref = np.zeros_like(x)
    for b, n in enumerate(seq):
        rows, add = (8, 1) if n <= 8 else (16, 10) if n <= 16 else (32, 100)
        ref[b, :rows] += add
    np.testing.assert_array_equal(x, ref)
    assert prog.stats().num_tasks == 5


@kernel(cost=5)
def fragile(i, y: Out[f32[4]]):
    if i == 3:
        raise ValueError("bad tile")
    y[...] = i


def test_raising_kernel_names_the_task_and_stops():
    Y = Tensor("Y", [None, 4], f32)
    n = sym("n")
    prog = (
        parallel_for(DenseDyn(n), lambda i: task(fragile, [i], [Y[i]]))
        .named("f")
        .compile(target="cpu_sim", workers=1)
    )
    y = np.full((6, 4), -1, np.float32)
    prog.bind(Y=y, n=6)
    with pytest.raises(ExecutionError) as info:
        prog.execute()
    error = info.value
    assert error.task_id == 3 and error.kernel == "fragile" and error.coords == (("i", 3),)
    assert "task 3 (kernel @fragile, i=3) failed: ValueError: bad tile" in str(error)
    assert isinstance(error.__cause__, ValueError)
    # Nothing started after the failing task (one worker, creation order).
    np.testing.assert_array_equal(y[4:], -1)
    assert not prog.is_complete()
    # The same error comes out of synchronize() after execute_async().
    prog.execute_async()
    with pytest.raises(ExecutionError):
        prog.synchronize()


_OVERLAP = {"now": 0, "most": 0}


@kernel(cost=5)
def napping(i, y: Out[f32[4]]):
    """Sleeps (releasing the GIL, as a large numpy operation does) while counting the bodies
    running at once."""
    import threading
    import time

    with _OVERLAP.setdefault("lock", threading.Lock()):
        _OVERLAP["now"] += 1
        _OVERLAP["most"] = max(_OVERLAP["most"], _OVERLAP["now"])
    time.sleep(0.02)
    with _OVERLAP["lock"]:
        _OVERLAP["now"] -= 1
    y[...] = i


def test_bodies_on_threads_overlap_and_every_failure_is_the_smallest_task():
    """Bodies that release the GIL run at once on the threads (here all four of a stage,
    each sleeping); the stages still run in order (a sequential: barriers); with several
    failing tasks the smallest failing id is reported and nothing runs after it."""
    Y = Tensor("Y", [None, 4], f32)
    Z = Tensor("Z", [None, 4], f32)
    n = sym("n")
    w = sequential(
        parallel_for(DenseDyn(n), lambda i: task(napping, [i], [Y[i]])),
        parallel_for(DenseDyn(n), lambda i: task(napping, [i + 100], [Z[i]])),
    ).named("naps")
    prog = w.compile(target="cpu_sim", workers=4, threads=4)
    y, z = np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)
    _OVERLAP.update(now=0, most=0)
    prog.bind(Y=y, Z=z, n=4).execute()
    np.testing.assert_array_equal(y[:, 0], np.arange(4))
    np.testing.assert_array_equal(z[:, 0], np.arange(100, 104))
    assert 2 <= _OVERLAP["most"] <= 4  # never the two stages at once: 4 at most

    @kernel(cost=5)
    def shaky(i, y: Out[f32[4]]):
        if i % 5 == 3:
            raise ValueError(f"bad tile {i}")
        y[...] = i

    failing = parallel_for(DenseDyn(n), lambda i: task(shaky, [i], [Y[i]])).named("shaky_all")
    prog = failing.compile(target="cpu_sim", threads=3)
    prog.bind(Y=np.zeros((40, 4), np.float32), n=40)
    with pytest.raises(ExecutionError, match="task 3 .*bad tile 3"):
        prog.execute()


def test_execute_async_synchronize_is_complete():
    prog = pto_wsp.compile(_three_stage(), target="cpu_sim", mode="functional")
    x = np.ones((3, 32), np.float32)
    y = np.zeros_like(x)
    prog.bind(input=x, work=np.zeros_like(x), output=y, batch_size=3)
    prog.execute_async().synchronize()
    assert prog.is_complete()
    np.testing.assert_array_equal(y, 3)
    assert prog.elapsed_ms() > 0


def test_binding_errors():
    prog = pto_wsp.compile(_three_stage(), target="cpu_sim")
    with pytest.raises(ValueError, match="has no argument 'inputs'"):
        prog.bind(inputs=1)
    with pytest.raises(ValueError, match="bind a float32 array"):
        prog.bind(input=np.zeros((2, 32)))
    with pytest.raises(ValueError, match="does not fit"):
        prog.bind(input=np.zeros((2, 31), np.float32))
    with pytest.raises(ValueError, match="needs a value for batch_size"):
        prog.execute()
    with pytest.raises(ValueError, match="9223372036854775808 does not fit in 64 bits"):
        prog.bind(batch_size=np.uint64(1 << 63))
    with pytest.raises(ValueError, match="is an index: bind an int, got True"):
        prog.bind(batch_size=True)
    with pytest.raises(TypeError, match="progress must be a function"):
        prog.execute(progress=5)


def test_results_of_a_program_whose_runs_all_failed_say_so():
    X = Tensor("X", [None, 4], f32)

    @kernel
    def fails(i, x: InOut[f32[4]]):
        raise RuntimeError("boom")

    prog = parallel_for(Dense[2], lambda i: task(fails, [i], [X[i]])).named("w")
    prog = prog.compile(target="cpu_sim").bind(X=np.zeros((2, 4), np.float32))
    with pytest.raises(RuntimeError, match="has not been executed yet"):
        prog.stats()
    with pytest.raises(ExecutionError):
        prog.execute()
    with pytest.raises(RuntimeError, match=r"no run finished \(the last one failed: Execution"):
        prog.stats()


def test_index_lists_bind_integers_only():
    """numpy would truncate 1.5 to 1 without a word; a ragged list is named."""
    prog = _moe().compile(target="cpu_sim", mode="cycles")
    for bad in ([0, 1.5, 2], [0, True], [0, "a"]):
        with pytest.raises(ValueError, match="holds indices: bind a list of integers"):
            prog.bind(indptr=bad)
    with pytest.raises(ValueError, match="the list is not a rectangular array"):
        prog.bind(indptr=[[0, 1], [2]])
    prog.bind(indptr=[0, 1, 2])  # (integers: fine)


def test_a_body_for_a_kernel_the_module_lacks_is_said(capsys):
    prog = _three_stage().compile(target="cpu_sim", kernels={"stage_9": lambda *a: None})
    assert prog is not None  # (one dict of bodies may serve several workloads)
    assert "warning: kernels={'stage_9': ...}: the module has no kernel @stage_9" in (
        capsys.readouterr().err
    )


def test_compile_errors():
    w = _three_stage()
    with pytest.raises(pto_wsp.CompileError, match="unknown option 'wrokers'"):
        w.compile(target="cpu_sim", wrokers=2)
    with pytest.raises(pto_wsp.CompileError, match="mode must be"):
        w.compile(target="cpu_sim", mode="fast")
    with pytest.raises(pto_wsp.CompileError, match="test_sim_functional.py"):
        w.compile(target="cpu_sim", workers=0)
    # Bounds: virtual workers cost memory and a share of every dispatch.
    with pytest.raises(pto_wsp.CompileError, match=r"workers must be an int <= 65536"):
        w.compile(target="cpu_sim", workers=10**9)
    with pytest.raises(pto_wsp.CompileError, match=r"vector_workers must be an int >= 0"):
        w.compile(target="cpu_sim", vector_workers=-2, cube_workers=1)
    with pytest.raises(pto_wsp.CompileError, match=r"cube_workers must be an int <= 65536"):
        w.compile(target="cpu_sim", cube_workers=10**9)
    with pytest.raises(pto_wsp.CompileError, match=r"threads must be an int <= 1024"):
        w.compile(target="cpu_sim", threads=10**6)
    wide = w.schedule().dispatch(DispatchPolicy.round_robin(10**6))
    with pytest.raises(
        pto_wsp.CompileError, match=r"workers \(the schedule's round_robin/range count\) must"
    ):
        wide.compile(target="cpu_sim")
    for bad, message in [
        ({"cycles_per_ms": 0}, "cycles_per_ms must be a positive number"),
        ({"cycles_per_ms": float("nan")}, "cycles_per_ms must be a positive number"),
        ({"cycles_per_ms": "fast"}, "cycles_per_ms must be a positive number"),
        ({"default_cost": -3}, "default_cost must be an int >= 0"),
        ({"default_cost": 2**60}, "default_cost must be an int <= 9007199254740991"),
        ({"fast": "no"}, "fast must be True or False"),
        ({"kernels": 5}, r"kernels must be a dict \{kernel name: function\}"),
    ]:
        with pytest.raises(pto_wsp.CompileError, match=message):
            w.compile(target="cpu_sim", **bad)
    # A schedule name the module does not have: an error, not another schedule (or none).
    with pytest.raises(pto_wsp.CompileError, match=r"no schedule @fast \(the module's"):
        w.compile(target="cpu_sim", schedule="fast")


MLIR_WITH_IMPLS = """
wsp.kernel @scale(i: index, x: in memref<4xf32>, y: out memref<4xf32>) unit(vector) cost(7) attributes {impls = {cpu_sim = "sim_impls_test:scale"}}
wsp.workload @w(%X: memref<?x4xf32>, %Y: memref<?x4xf32>, %n: index) {
  %a = wsp.dense_dyn %n
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    %x = wsp.view %X[%i] : memref<?x4xf32> -> memref<4xf32>
    %y = wsp.view %Y[%i] : memref<?x4xf32> -> memref<4xf32>
    wsp.task @scale(%i : index) resources(%x, %y : memref<4xf32>, memref<4xf32>)
  }
}
"""


def test_mlir_kernels_run_their_impls_cpu_sim_body(tmp_path, monkeypatch):
    (tmp_path / "sim_impls_test.py").write_text("def scale(i, x, y):\n    y[...] = x * (i + 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.universe import Universe

    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    module = Parser(ctx, MLIR_WITH_IMPLS).parse_module()
    prog = pto_wsp.compile(module, target="cpu_sim", workers=2)
    x = np.ones((3, 4), np.float32)
    y = np.zeros_like(x)
    prog.bind(X=x, Y=y, n=3).execute()
    np.testing.assert_array_equal(y, [[1] * 4, [2] * 4, [3] * 4])
    assert prog.kernels["scale"].origin == "impls"
    assert prog.stats().makespan_cycles == 14  # cost(7), 3 tasks on 2 workers
    # kernels= overrides it; a kernel without any body is a no-op with a warning.
    prog = pto_wsp.compile(module, target="cpu_sim", kernels={"scale": lambda i, x, y: None})
    y[...] = 0
    prog.bind(X=x, Y=y, n=3).execute()
    assert not y.any()


@kernel(cost=3)
def row_item(r, j, x: In[f32[4]], y: Out[f32[4]]):
    y[...] = x + 10 * r + j


def test_ragged_rows_run_each_present_item():
    from pto_wsp import Ragged

    X = Tensor("X", [None, 5, 4], f32)
    Y = Tensor("Y", [None, 5, 4], f32)
    n = sym("rows")
    lens = Tensor("lens", [None], index)
    w = parallel_for(
        Ragged(n, lens), lambda r, j: task(row_item, [r, j], [X[r, j], Y[r, j]])
    ).named("ragged")
    prog = w.compile(target="cpu_sim", workers=2)
    x = np.zeros((3, 5, 4), np.float32)
    y = np.full_like(x, -1)
    prog.bind(X=x, Y=y, rows=3, lens=[3, 0, 2]).execute()
    assert prog.stats().num_tasks == 5
    ref = np.full_like(x, -1)
    for r, length in enumerate([3, 0, 2]):
        for j in range(length):
            ref[r, j] = 10 * r + j
    np.testing.assert_array_equal(y, ref)


def test_bodies_on_threads_give_the_same_results():
    in_, out, n = _scan_tensors()
    w = sequential(
        task(scan_first, [], [in_[0], out[0]]),
        parallel_for(
            DenseDyn(n - 1), lambda j: task(scan_step, [j + 1], [out[j], in_[j + 1], out[j + 1]])
        ),
    ).named("tscan")
    prog = w.compile(target="cpu_sim", workers=4, threads=3)
    x = RNG.standard_normal((40, 8)).astype(np.float32)
    y = np.zeros_like(x)
    prog.bind(**{"in": x, "out": y, "n": 40}).execute()
    np.testing.assert_allclose(y, np.cumsum(x, axis=0), rtol=1e-5)
    assert prog.stats().makespan_cycles == 40 * 10  # the schedule is simulated as before
    Y = Tensor("Y", [None, 4], f32)
    failing = parallel_for(DenseDyn(n), lambda i: task(fragile, [i], [Y[i]])).named("t")
    prog = failing.compile(target="cpu_sim", threads=2)
    prog.bind(Y=np.zeros((6, 4), np.float32), n=6)
    with pytest.raises(ExecutionError, match="task 3 .*bad tile"):
        prog.execute()
