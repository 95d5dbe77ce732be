"""Schedule keys over task data on the Ascend host runtime: seed 001 §9.1's attention with
the seed's two schedule examples, built with the Python API, emitted, built with g++ and run.

A probe kernel records the order the tasks started in; the recorded graph gives each task's
target (the worker its dispatch key chose) and the run's statistics where tasks ran.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_wsp import (
    Dense,
    DispatchPolicy,
    IssuePolicy,
    Out,
    Tensor,
    i64,
    kernel,
    module,
    parallel_for,
    sequential,
    sym,
    task,
)
from pto_wsp.lowering.ascend import AscendProgram, compile_module
from pto_wsp.lowering.ascend.build import have_compiler

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

PROBE = r"""
#include <atomic>
#include <chrono>
#include <thread>

static std::atomic<int64_t> g_seq{0};

// out[0]: the order the task started in; out[1]: its sequence length. The gate (b < 0)
// runs long enough for every other task to be ready when it ends.
__aicore__ void probe(int64_t b, int64_t h, int64_t seq_len, pto::wsp::GmTensor<int64_t, 1> out) {
  out(0) = g_seq++;
  out(1) = seq_len;
  std::this_thread::sleep_for(std::chrono::microseconds(seq_len < 0 ? 20000 : 200));
}
"""

SEQ_LENS = np.array([32768, 512, 8192, 2048], dtype=np.int64)


@kernel(impls={"ascend": PROBE})
def probe(b, h, seq_len, out: Out[i64[2]]):
    out[...] = (0, seq_len)


seq_lens = Tensor("seq_lens", [None], i64)
log = Tensor("log", [None, 2], i64)
batch = sym("batch")
gate_len = sym("gate_len")


def attention(name: str):
    """A gate task, then the 4 x 2 attention tasks (all wait for the gate)."""
    body = parallel_for(
        Dense[4],
        lambda b: parallel_for(
            Dense[2], lambda h: task(probe, [b, h, seq_lens[b]], [log[b * 2 + h]])
        ),
    )
    return sequential(task(probe, [0, 0, 0 - gate_len], [log[8]]), body).named(name)


LONG_TO_ZERO = DispatchPolicy.dispatch_by(lambda t: 0 if t.param("seq_len") > 2048 else 1 + t.b % 3)


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, AscendProgram]:
    dispatch = attention("dispatch").schedule().dispatch(LONG_TO_ZERO)
    short_first = (
        attention("short_first")
        .schedule()
        .issue(IssuePolicy.priority(lambda t: t.param("seq_len")))
    )
    m = module(dispatch, short_first)
    out = tmp_path_factory.mktemp("ascend_keys")
    first = compile_module(m, out_dir=out, host=True, program="dispatch", record=True)
    assert isinstance(first, AscendProgram)
    return {"dispatch": first, "short_first": first.for_program("short_first")}


def run(program: AscendProgram, workers: int) -> np.ndarray:
    program.workers, program.record = workers, True
    out = np.full((9, 2), -1, dtype=np.int64)
    program.execute(seq_lens=SEQ_LENS, log=out, gate_len=1)
    return out


def test_long_sequences_go_to_a_dedicated_aicpu(programs):
    p = programs["dispatch"]
    out = run(p, workers=4)
    assert (out[:8, 1] == np.repeat(SEQ_LENS, 2)).all()
    graph = p.graph()
    targets = {}
    for i in graph.task_ids():
        coords = dict(graph.coords[i])
        if "b" in coords:
            targets[(coords["b"], coords["h"])] = int(graph.target[i])
    long = {b: SEQ_LENS[b] > 2048 for b in range(4)}
    assert targets == {(b, h): 0 if long[b] else 1 + b % 3 for b in range(4) for h in range(2)}
    # Each worker ran what the key placed there; the gate (no b: no key) went anywhere.
    ran = p.stats().tasks_per_worker
    keyed = [sum(1 for w in targets.values() if w == worker) for worker in range(len(ran))]
    extra = [r - k for r, k in zip(ran, keyed)]
    assert sorted(extra) == [0] * (len(ran) - 1) + [1], (ran, keyed)  # the gate: one worker


def test_short_sequences_issue_first(programs):
    p = programs["short_first"]
    out = run(p, workers=1)
    started = out[:8, 0] - out[8, 0]  # after the gate
    order = np.argsort(started)
    lengths = np.repeat(SEQ_LENS, 2)[order]
    assert (np.diff(lengths) >= 0).all(), lengths
