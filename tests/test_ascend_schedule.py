"""The schedule on the Ascend host runtime: what each lowered directive does at run time.

One module, one g++ build: a probe kernel records, per task, the order it started in and how
many tasks were running at that moment, so priority issue, the task window, pipeline depth,
dispatch_threshold pools and batched dependency release can be checked on real threads. Also:
a kernel that throws (ExecutionError names the task), a constant array (memref.global), and
nested ``tg.call``s (transformer layer, calls=nested) whose graph equals tg-materialize's.
What the schedule decides (edges, pools, targets, issue order, lanes, placed workers, errors)
is compared with the reference engine in the conformance table (test_conformance.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conformance_cases import REGIONS, random_spec
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from pto_wsp.dialects import tg
from pto_wsp.lowering.ascend import (
    AscendProgram,
    ExecutionError,
    compile_module,
    lower_to_tg,
)
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.runtime.materialize import materialize
from pto_wsp.tools.diagnostics import parse_located as parse

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

PROBE = r"""
#include <atomic>
#include <chrono>
#include <thread>

static std::atomic<int64_t> g_seq{0};
static std::atomic<int64_t> g_running{0};

// out[0]: the order the task started in; out[1]: tasks running at that moment (itself too).
__aicore__ void probe(int64_t i, pto::wsp::GmTensor<int64_t, 1> out) {
  const int64_t running = ++g_running;
  out(0) = g_seq++;
  out(1) = running;
  // The gate task of @prio (i >= 1000) runs long enough for every later task to be waiting.
  std::this_thread::sleep_for(std::chrono::microseconds(i >= 1000 ? 20000 : 300));
  --g_running;
}
"""

BOOM = r"""
#include <stdexcept>

__aicore__ void boom(int64_t i, pto::wsp::GmTensor<int64_t, 1> out) {
  if (i == 3) throw std::runtime_error("boom at 3");
  out(0) = i;
}
"""

MARK = r"""
__aicore__ void mark(int64_t i, pto::wsp::GmTensor<int64_t, 1> out) {
  out(0) = i;
  out(1) = 1;
}
"""


def quoted(source: str) -> str:
    return source.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def loop(name: str, schedule: str, kernel: str = "probe") -> str:
    """A workload creating one task per i < n, each writing row i of log."""
    return f"""
wsp.workload @{name}(%log: memref<?x2xi64>, %n: index) {{
  %is = wsp.dense_dyn %n
  wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {{
    %o = wsp.view %log[%i] : memref<?x2xi64> -> memref<2xi64>
    wsp.task @{kernel}(%i : index) resources(%o : memref<2xi64>)
  }}
}}
sched.schedule @{name}_sched for @{name} {{
{schedule}
}}
"""


SOURCE = (
    f"""
wsp.kernel @probe(i: index, out: out memref<2xi64>) unit(vector) attributes {{impls = {{ascend = "{quoted(PROBE)}"}}}}
wsp.kernel @boom(i: index, out: out memref<2xi64>) unit(vector) attributes {{impls = {{ascend = "{quoted(BOOM)}"}}}}
wsp.kernel @mark(i: index, out: out memref<2xi64>) unit(vector) attributes {{impls = {{ascend = "{quoted(MARK)}"}}}}
"memref.global"() <{{sym_name = "rows", type = memref<3xindex>, initial_value = dense<[2, 0, 1]> : tensor<3xindex>, sym_visibility = "private", constant}}> : () -> ()

// A gate task, then n tasks that all wait for it: with one worker, they are all ready when
// it ends and run by priority (lower first): 100 - i, so from the last i down.
wsp.workload @prio(%log: memref<?x2xi64>, %n: index) {{
  %is = wsp.dense_dyn %n
  %g = wsp.view %log[%n] : memref<?x2xi64> -> memref<2xi64>
  %c1000 = arith.constant 1000 : index
  %gate = arith.addi %n, %c1000 : index
  wsp.sequential {{
    wsp.task @probe(%gate : index) resources(%g : memref<2xi64>)
    wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {{
      %o = wsp.view %log[%i] : memref<?x2xi64> -> memref<2xi64>
      wsp.task @probe(%i : index) resources(%o : memref<2xi64>)
    }}
  }}
}}
sched.schedule @prio_sched for @prio {{
  sched.issue priority key(%i = "i") {{
    %c100 = arith.constant 100 : index
    %p = arith.subi %c100, %i : index
    sched.yield %p : index
  }}
}}

wsp.workload @glob(%log: memref<?x2xi64>) {{
  %rows = memref.get_global @rows : memref<3xindex>
  %bs = wsp.dense 3
  wsp.parallel_for %b in %bs named("b") : !wsp.dense<3> {{
    %r = memref.load %rows[%b] : memref<3xindex>
    %o = wsp.view %log[%r] : memref<?x2xi64> -> memref<2xi64>
    wsp.task @probe(%r : index) resources(%o : memref<2xi64>)
  }}
}}
"""
    + loop("window", "  sched.task_window 2 overflow(stall)")
    + loop("depth", "  sched.pipeline_depth 1 scope(global)")
    + loop(
        "thresh",
        """  sched.dispatch_threshold 4 below(vector) above(cube) key(%i = "i") {
    sched.yield %i : index
  }""",
    )
    + loop("batched", "  sched.batch_deps 3\n  sched.timing batched(2)")
    + loop("fails", "  sched.dispatch work_steal", kernel="boom")
    + loop("marks", "  sched.dispatch work_steal", kernel="mark")
)


@pytest.fixture(scope="module")
def lowered() -> ModuleOp:
    """The probes, and the transformer layer with its calls kept (tg.call), as tg programs."""
    probes = lower_to_tg(parse(SOURCE + REGIONS, "schedule.mlir"))
    path = REPO / "examples" / "transformer_layer.mlir"
    layer = parse(path.read_text(), str(path))
    WspToTgPass(calls="nested").apply(Context(), layer)
    ops = [op.clone() for op in probes.ops] + [op.clone() for op in layer.ops]
    return ModuleOp(ops)


@pytest.fixture(scope="module")
def program(lowered, tmp_path_factory) -> AscendProgram:
    out = tmp_path_factory.mktemp("ascend_schedule")
    first = compile_module(lowered, out_dir=out, host=True, program="prio", stub_kernels=True)
    assert isinstance(first, AscendProgram)
    return first


def run(program: AscendProgram, name: str, n: int, workers: int = 2, record: bool = False):
    p = program.for_program(name)
    p.workers, p.record = workers, record
    log = np.full((n + 1, 2), -1, dtype=np.int64)
    p.execute(log=log, n=n)
    return p, log


def test_priority_issue_order(program):
    n = 8
    p, log = run(program, "prio", n, workers=1)
    order = log[:n, 0] - log[n, 0]  # after the gate task
    assert order.tolist() == list(range(n, 0, -1))


@pytest.mark.parametrize("workers", [1, 2])
def test_task_window_stalls_the_orchestrator(program, workers):
    """One worker: its kept thread, not woken at the start, is woken by the first stall."""
    p, log = run(program, "window", 12, workers=workers)
    assert (log[:12, 0] >= 0).all()
    stats = p.stats()
    assert stats.max_in_flight <= 2
    assert stats.window_stalls > 0
    assert log[:12, 1].max() <= 2


def test_pipeline_depth_bounds_running_tasks(program):
    p, log = run(program, "depth", 12, workers=4)
    assert (log[:12, 0] >= 0).all()
    assert log[:12, 1].max() == 1  # never two probes at once, with four workers


def test_dispatch_threshold_picks_the_pool(program):
    p, log = run(program, "thresh", 10, workers=3)
    assert p.stats().tasks_per_pool == {"vector": 4, "cube": 6, "any": 0}
    assert "X(KERNEL_PROBE, probe, Both, 1, 1)" in p.tree.files["kernel_ids.h"]


def test_batched_release_runs_everything(program):
    p, log = run(program, "batched", 7, workers=2)
    assert sorted(log[:7, 0] - log[:7, 0].min()) == list(range(7))


@pytest.mark.parametrize("seed", range(1, 12, 2))
def test_random_regions_on_a_small_ring_give_the_materialized_graph(program, lowered, seed):
    """The smallest descriptor ring (64 slots), reused several times over. (With the default
    ring, random regions are cases of the conformance table.)"""
    n = 80
    spec = random_spec(np.random.default_rng(seed), n)
    p = program.for_program("regions")
    p.record, p.workers, p.ring_capacity = True, 3, 64
    X = np.zeros((64, 64), np.float32)
    p.execute(X=X, spec=spec, n=n)
    op = next(
        o for o in lowered.ops if isinstance(o, tg.ProgramOp) and o.sym_name.data == "regions"
    )
    expected = materialize(lowered, op, {"X": X, "spec": spec, "n": n})
    graph = p.graph()
    assert graph.edge_set() == expected.edge_set()
    assert graph.to_text() == expected.to_text()
    assert graph.edge_counts() == expected.edge_counts()


@pytest.mark.parametrize("workers", [1, 3])
def test_descriptor_ring_wraps(program, workers):
    """Far more tasks than ring slots: slots are reused only once their task is done."""
    p = program.for_program("batched")
    p.workers, p.ring_capacity = workers, 64
    n = 1000
    log = np.full((n + 1, 2), -1, dtype=np.int64)
    p.execute(log=log, n=n)
    assert sorted((log[:n, 0] - log[:n, 0].min()).tolist()) == list(range(n))
    assert p.stats().num_tasks == n


@pytest.mark.parametrize("workers", [1, 3])
def test_workers_holding_during_the_build_are_woken(program, monkeypatch, workers):
    """Idle workers sleep between looks while the build runs (PTO_WSP_HOST_HOLD_US); an
    orchestrator waiting for a ring slot, and the end of the build, wake them: with a
    one-minute hold the run ends, with every task run once in order."""
    monkeypatch.setenv("PTO_WSP_HOST_HOLD_US", "60000000")
    p = program.for_program("marks")
    p.workers, p.ring_capacity = workers, 64
    n = 5000
    log = np.zeros((n, 2), dtype=np.int64)
    p.execute(log=log, n=n)
    assert (log[:, 0] == np.arange(n)).all() and (log[:, 1] == 1).all()
    stats = p.stats()
    # (No timing assertion: a missed wake-up shows as this test taking a minute per stall.)
    assert stats.ring_stalls > 0


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("n", [1000, 9000])
def test_workers_woken_late(program, n, workers):
    """The kept threads are woken once the build has 1,024 tasks (9,000: then they run beside
    the build, and the ring of 4,096 slots wraps) or never (1,000: every worker's tasks run on
    the orchestrating thread after the build). Every task runs once, each on a worker of its
    pool."""
    p = program.for_program("marks")
    p.workers, p.record = workers, True
    for _ in range(3):
        log = np.full((n, 2), -1, dtype=np.int64)
        p.execute(log=log, n=n)
        assert (log[:, 0] == np.arange(n)).all() and (log[:, 1] == 1).all()
        assert p.stats().num_tasks == sum(p.stats().tasks_per_worker) == n
        # marks are vector tasks: with two workers, worker 0 (vector) runs them all.
        assert {row["worker"] for row in p.schedule_of()} == {0}


@pytest.mark.parametrize("join_us", ["0", "60000000"])
def test_other_workers_join_after_the_build(program, monkeypatch, join_us):
    """A run the orchestrating thread executes alone after the build wakes the other workers
    once it has lasted PTO_WSP_HOST_JOIN_US (0: after its first task; a minute: never here):
    either way every task runs once, and pipeline_depth 1 still holds on three workers."""
    monkeypatch.setenv("PTO_WSP_HOST_JOIN_US", join_us)
    p, log = run(program, "marks", 1000, workers=3)
    assert (log[:1000, 0] == np.arange(1000)).all() and (log[:1000, 1] == 1).all()
    assert sum(p.stats().tasks_per_worker) == 1000
    p, log = run(program, "depth", 12, workers=3)
    assert sorted(log[:12, 0] - log[:12, 0].min()) == list(range(12))
    assert log[:12, 1].max() == 1


def test_kernel_error_names_the_task(program):
    with pytest.raises(ExecutionError, match=r"task 3 \(kernel boom, at i = 3\): boom at 3"):
        run(program, "fails", 6, workers=2)


def test_constant_array(program):
    p = program.for_program("glob")
    log = np.full((3, 2), -1, dtype=np.int64)
    p.execute(log=log)
    assert (log[:, 0] >= 0).all()
    assert p.stats().num_tasks == 3


def test_nested_calls(program, lowered):
    """tg.call of another program: its tasks join the caller's graph, as materialized."""
    p = program.for_program("transformer_layer")
    p.record = True
    n = 3
    arrays = {
        "x": np.ones((n, 512), np.float32),
        "x_norm": np.zeros((n, 512), np.float32),
        "attn": np.zeros((n, 8, 64), np.float32),
        "h": np.zeros((n, 512), np.float32),
        "y": np.zeros((n, 512), np.float32),
    }
    p.execute(**arrays, n=n)
    op = next(
        o
        for o in lowered.ops
        if isinstance(o, tg.ProgramOp) and o.sym_name.data == "transformer_layer"
    )
    expected = materialize(lowered, op, {**arrays, "n": n})
    assert p.graph().to_text() == expected.to_text()
    assert p.stats().num_tasks == n * (1 + 8 + 1 + 1)
    assert "attention_orchestrate(_b, " in p.tree.files["aicpu_orchestrate.cpp"]
