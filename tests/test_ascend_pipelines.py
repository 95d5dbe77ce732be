"""CSP pipelines on the Ascend target: emitted as a function per process, built with g++
-Wall -Werror (one tree for the module), run on the host runtime's process threads.

Outputs equal numpy's and the CPU simulator's; a deadlock, a closed channel and a kernel fault
are the simulator's errors, naming the processes, channels and task. (The conformance table
compares task sets and orders with the reference: tests/test_conformance.py.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr

from pto_wsp import (
    Channel,
    ChannelClosed,
    Deadlock,
    Dense,
    DenseDyn,
    Event,
    IssuePolicy,
    Out,
    Tensor,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    module,
    process,
    record,
    replicate,
    send,
    sym,
    synchronize,
    task,
)
from pto_wsp.dialects import wsp
from pto_wsp.lowering.ascend import AscendProgram, ExecutionError, compile_module
from pto_wsp.lowering.ascend.build import have_compiler

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "examples"))
import megakernel as megakernel_example  # noqa: E402
import work_steal as work_steal_example  # noqa: E402

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

BODIES = {
    "load_kernel": """\
__aicore__ void load_kernel(int64_t i, pto::wsp::GmTensor<const float, 1> src,
                            pto::wsp::GmTensor<float, 1> tile) {
  (void)i;
  for (int64_t k = 0; k < src.size(0); ++k) tile(k) = src(k);
}
""",
    "compute_kernel": """\
__aicore__ void compute_kernel(int64_t i, pto::wsp::GmTensor<const float, 1> tile,
                               pto::wsp::GmTensor<float, 1> result) {
  (void)i;
  for (int64_t k = 0; k < tile.size(0); ++k) result(k) = tile(k) * tile(k);
}
""",
    "store_kernel": """\
__aicore__ void store_kernel(int64_t i, pto::wsp::GmTensor<const float, 1> result,
                             pto::wsp::GmTensor<float, 1> dst) {
  (void)i;
  for (int64_t k = 0; k < result.size(0); ++k) dst(k) = result(k);
}
""",
    "attn_kernel": """\
__aicore__ void attn_kernel(int64_t b, int64_t h, pto::wsp::GmTensor<const float, 2> Q,
                            pto::wsp::GmTensor<const float, 2> K,
                            pto::wsp::GmTensor<const float, 2> V,
                            pto::wsp::GmTensor<float, 2> O) {
  (void)b; (void)h; (void)K; (void)V;
  for (int64_t r = 0; r < Q.size(0); ++r)
    for (int64_t c = 0; c < Q.size(1); ++c) O(r, c) = Q(r, c) + 1.0f;
}
""",
    "ky_step": """\
__aicore__ void ky_step(int64_t i, pto::wsp::GmTensor<float, 1> x) {
  (void)i;
  for (int64_t k = 0; k < x.size(0); ++k) x(k) += 1.0f;
}
""",
    "pf_step": """\
#include <stdexcept>

__aicore__ void pf_step(int64_t i, pto::wsp::GmTensor<float, 1> x) {
  if (i == 2) throw std::runtime_error("fault at 2");
  for (int64_t k = 0; k < x.size(0); ++k) x(k) += 1.0f;
}
""",
}


@kernel(cost=10)
def pf_step(i, x: Out[f32[4]]):
    x[...] = x + 1


@kernel(cost=10)
def ky_step(i, x: Out[f32[4]]):
    x[...] = x + 1


n = sym("n")
X = Tensor("X", [None, 4], f32)


def _faulty():
    """Two stages; the second stage's task of message 2 throws."""
    ch = Channel("pf_ch", capacity=1)
    first = process("pf_first").produces(ch)
    first = first.body(for_each(DenseDyn(n), lambda i: send(ch, task(pf_step, [i], [X[i]]))))
    second = process("pf_second").consumes(ch).body(consume(ch))
    return connect([first, second], [ch]).named("faulty")


def _crossed():
    """Each process waits for the other's signal before giving its own: a deadlock."""
    e1, e2 = Event("cr_e1"), Event("cr_e2")
    a = process("cr_a").consumes(e1).produces(e2).body([synchronize(e1), record(e2)])
    b = process("cr_b").consumes(e2).produces(e1).body([synchronize(e2), record(e1)])
    return connect([a, b], [e1, e2]).named("crossed")


def _signals():
    """The same events in an order that works: a rendezvous each way."""
    e1, e2 = Event("sg_e1"), Event("sg_e2")
    a = process("sg_a").consumes(e1).produces(e2).body([record(e2), synchronize(e1)])
    b = process("sg_b").consumes(e2).produces(e1).body([synchronize(e2), record(e1)])
    return connect([a, b], [e1, e2]).named("signals")


def _closed():
    """b synchronizes twice on an event a records once."""
    ev = Event("cl_done")
    a = process("cl_a").produces(ev).body([record(ev)])
    b = process("cl_b").consumes(ev).body(for_each(Dense[2], lambda i: synchronize(ev)))
    return connect([a, b], [ev]).named("closed")


def _starved():
    """A replicated consumer stuck on a channel nobody sends on any more: with a producer
    blocked on a full other channel nobody reads, every process waits."""
    full, empty = Channel("st_full", capacity=1), Channel("st_empty", capacity=1)
    gen = process("st_gen").produces(full)
    gen = gen.body(for_each(DenseDyn(n), lambda i: send(full, task(pf_step, [i], [X[i]]))))
    waiter = process("st_wait").consumes(empty, full).produces(empty)
    waiter = waiter.body(
        [consume(empty, lambda t: send(empty, task(pf_step, [t], [X[t]]))), consume(full)]
    )
    return connect([gen, replicate(waiter, 2)], [full, empty]).named("starved")


def _keyed():
    """Two replicas of a work queue; pool, stream and priority keyed on the replica."""
    queue = Channel("ky_q", capacity=2)
    gen = process("ky_gen").produces(queue)
    gen = gen.body(for_each(DenseDyn(n), lambda i: send(queue, task(ky_step, [i], [X[i]]))))
    worker = process("ky_worker").consumes(queue).body(consume(queue))
    keyed = connect([gen, replicate(worker, 2)], [queue]).named("keyed")
    return (
        keyed.schedule()
        .dispatch_threshold(1, lambda replica: replica, below="vector", above="cube")
        .streams(3)
        .stream_by(lambda replica: replica + 1)
        .issue(IssuePolicy.priority(lambda replica: 5 - replica))
    )


def _pipelines_module() -> ModuleOp:
    """Every pipeline of these tests in one module, kernels with their Ascend bodies."""
    ops = []
    for m in (
        megakernel_example.functional(),
        work_steal_example.functional(),
        module(_faulty(), _crossed(), _signals(), _closed(), _starved(), _keyed()),
    ):
        ops += [op.clone() for op in m.ops]
    for op in ops:
        if isinstance(op, wsp.KernelOp) and op.sym_name.data in BODIES:
            op.impls = DictionaryAttr({"ascend": StringAttr(BODIES[op.sym_name.data])})
    return ModuleOp(ops)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> AscendProgram:
    out = tmp_path_factory.mktemp("ascend_pipelines")
    prog = compile_module(
        _pipelines_module(), out_dir=out, host=True, program="megakernel", record=True
    )
    assert isinstance(prog, AscendProgram)
    return prog


def _megakernel_data(tiles: int) -> dict:
    x = np.random.default_rng(3).standard_normal((tiles, 64)).astype(np.float32)
    zeros = {k: np.zeros_like(x) for k in ("output", "tile_buf", "result_buf")}
    return {"input": x, **zeros, "num_tiles": tiles}


@pytest.mark.parametrize("workers", [1, 3])
def test_megakernel_equals_numpy_and_the_simulator(built, workers):
    data = _megakernel_data(9)
    prog = built.for_program("megakernel")
    prog.workers = workers
    prog.execute(**data)
    np.testing.assert_allclose(data["output"], data["input"] ** 2, rtol=1e-6)
    sim = megakernel_example.functional()
    sim_prog = _sim(sim, "megakernel")
    want = _megakernel_data(9)
    sim_prog.bind(**want).execute()
    for name in ("output", "tile_buf", "result_buf"):
        np.testing.assert_array_equal(data[name], want[name])
    # The receiver issues a message's tasks: each kernel once per tile, named by its index.
    graph = prog.graph()
    kernels = sorted(
        (graph.kernel_name(t), dict(graph.coords[t])["i"]) for t in graph.task_ids().tolist()
    )
    assert kernels == sorted(
        (k, i) for k in BODIES if k.endswith("_kernel") and k != "attn_kernel" for i in range(9)
    )


def _sim(mod: ModuleOp, name: str):
    from pto_wsp.lowering.cpu.backend import compile_cpu_sim

    return compile_cpu_sim(mod, workload=name, workers=3)


def test_work_queue_of_four_replicas(built):
    """seed 001 §9.4: a generator feeds a shared queue; four replicas issue what they take."""
    prog = built.for_program("work_steal")
    prog.workers = 4
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 8, 64, 64)).astype(np.float32)
    kv = np.zeros((2, 64, 64), np.float32)
    o = np.zeros_like(q)
    prog.execute(batch_size=2, Q=q, K=kv, V=kv, O=o)
    np.testing.assert_allclose(o, q + 1, rtol=1e-6)
    graph = prog.graph()
    tasks = graph.task_ids().tolist()
    assert len(tasks) == 16
    coords = [dict(graph.coords[t]) for t in tasks]
    assert sorted((c["b"], c["h"]) for c in coords) == [(b, h) for b in range(2) for h in range(8)]
    assert {c["replica"] for c in coords} <= {0, 1, 2, 3}
    # dispatch_by(replica), computed when a replica issues what it took: the replica is the
    # target, so each replica's tasks run on one worker (of the cube pool: attn is cube's).
    assert all(graph.target[t] == c["replica"] for t, c in zip(tasks, coords))
    workers = {row["id"]: row["worker"] for row in prog.schedule_of()}
    for r in {c["replica"] for c in coords}:
        assert len({workers[t] for t, c in zip(tasks, coords) if c["replica"] == r}) == 1


def test_keys_over_the_receiving_replica(built):
    """dispatch_threshold, stream_by and priority over replica: computed at receipt."""
    prog = built.for_program("keyed")
    x = np.zeros((8, 4), np.float32)
    prog.execute(n=8, X=x)
    np.testing.assert_array_equal(x, np.ones((8, 4)))
    graph = prog.graph()
    for t in graph.task_ids().tolist():
        replica = dict(graph.coords[t])["replica"]
        assert graph.pool[t] == (0 if replica == 0 else 1)  # below 1: vector, else cube
        assert graph.stream[t] == replica + 1
        assert f"priority({5 - replica})" in graph.node_text(t)
    # Its tasks may land in either pool: the device build makes the kernel for both.
    assert "X(KERNEL_KY_STEP, ky_step, Both," in built.tree.files["kernel_ids.h"]


def test_events_rendezvous(built):
    prog = built.for_program("signals")
    prog.execute()
    assert prog.stats().num_tasks == 0


def test_a_deadlock_names_the_processes_and_channels(built):
    with pytest.raises(Deadlock) as info:
        built.for_program("crossed").execute()
    assert info.value.processes == ["cr_a", "cr_b"]
    assert info.value.channels == ["cr_e1", "cr_e2"]
    assert "cr_a waits in synchronize on @cr_e1" in str(info.value)


def test_a_deadlock_with_replicas_and_tasks_in_flight(built):
    """The generator fills its channel and blocks; the replicas wait on a channel only they
    could send on: every live process is blocked, whatever the tasks do."""
    with pytest.raises(Deadlock) as info:
        built.for_program("starved").execute(n=4, X=np.zeros((4, 4), np.float32))
    assert info.value.blocked == [
        ("st_gen", "send", "st_full"),
        ("st_wait[0]", "recv", "st_empty"),
        ("st_wait[1]", "recv", "st_empty"),
    ]


def test_synchronize_on_an_event_nobody_records_is_channel_closed(built):
    with pytest.raises(ChannelClosed) as info:
        built.for_program("closed").execute()
    assert (info.value.process, info.value.channel) == ("cl_b", "cl_done")
    assert "synchronize after every process that records it finished" in str(info.value)


def test_a_kernel_fault_is_the_tasks_execution_error(built):
    prog = built.for_program("faulty")
    x = np.zeros((6, 4), np.float32)
    with pytest.raises(
        ExecutionError, match=r"kernel pf_step, at i = 2, replica = 0\): fault at 2"
    ):
        prog.execute(n=6, X=x)
    # The run after a failed one is whole again.
    x[...] = 0
    prog.execute(n=2, X=x)
    np.testing.assert_array_equal(x[:2], np.ones((2, 4)))


def test_runs_again_many_times_without_hanging(built):
    """Threads, waits and hand-overs: the same outputs run after run."""
    prog = built.for_program("megakernel")
    prog.workers = 2
    for _ in range(20):
        data = _megakernel_data(5)
        prog.execute(**data)
        np.testing.assert_allclose(data["output"], data["input"] ** 2, rtol=1e-6)
