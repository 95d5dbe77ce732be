"""Schedule keys over task data (seed 001 §5.2, §5.3): a key reads a task's scalar
parameters by name (``t.param("seq_len")``) and tensor data at its coordinates
(``seq_lens[t.b]``); Python ``if``s on them trace both ways into one ``arith.select``.

Seed 001 §9.1's attention (4 batches of 8 heads, seq_lens 512, 2048, 8192, 32768) runs with
the seed's two examples: long sequences dispatched to a dedicated AICPU, short sequences
issued first. The placements and the issue order are checked on both simulator engines.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_wsp import (
    CompileError,
    Dense,
    DenseDyn,
    DispatchPolicy,
    IssuePolicy,
    Out,
    Tensor,
    TimingPolicy,
    f32,
    i64,
    kernel,
    parallel_for,
    sym,
    task,
)
from pto_wsp.dialects import sched

SEQ_LENS = np.array([512, 2048, 8192, 32768], dtype=np.int64)


@kernel
def attention_kernel(batch, head, seq_len, out: Out[f32[4]]):
    out[...] = seq_len


seq_lens = Tensor("seq_lens", [None], i64)
OUT = Tensor("O", [None, 8, 4], f32)
batch_size = sym("batch_size")

attn = parallel_for(
    DenseDyn(batch_size),
    lambda b: parallel_for(
        Dense[8], lambda h: task(attention_kernel, [b, h, seq_lens[b]], [OUT[b, h]])
    ),
).named("attn")

# Seed 001 §5.2: long sequences to a dedicated AICPU (0), the others over 1..3 by batch.
LONG_TO_ZERO = DispatchPolicy.dispatch_by(lambda t: 0 if t.param("seq_len") > 2048 else 1 + t.b % 3)
# Seed 001 §5.3: short sequences first (lower key first).
SHORT_FIRST = IssuePolicy.priority(lambda t: t.param("seq_len"))


@pytest.fixture(autouse=True)
def _fast_path_for_small_graphs(monkeypatch):
    """Let the compiled scheduler take these small graphs when ``fast=True``."""



def run(schedule, fast: bool, **options):
    prog = schedule.compile(target="cpu_sim", fast=fast, **options)
    out = np.zeros((4, 8, 4), np.float32)
    prog.bind(seq_lens=SEQ_LENS, O=out, batch_size=4).execute()
    assert prog.fast_declined == (None if fast else "fast=False")
    np.testing.assert_array_equal(out, np.broadcast_to(SEQ_LENS[:, None, None], out.shape))
    return prog


def worker_of_batch(prog) -> dict[int, set[int]]:
    placed: dict[int, set[int]] = {}
    for entry in prog.schedule_of():
        placed.setdefault(dict(entry["coords"])["b"], set()).add(entry["worker"])
    return placed


def test_the_keys_read_parameters_and_tensors_in_the_ir():
    s = (
        attn.schedule()
        .dispatch(LONG_TO_ZERO)
        .issue(IssuePolicy.priority(lambda t: seq_lens[t.b] - t.h))
    )
    text = str(s)
    assert 'dispatch_by key(%b = "b", %seq_len = param("seq_len") : index)' in text
    assert "arith.select" in text
    reads = '%b = "b", %h = "h", %seq_lens = tensor("seq_lens") : memref<?xi64>'
    assert f"priority key({reads})" in text
    dispatch = s.module().ops.last.body.block.first_op
    assert isinstance(dispatch, sched.DispatchOp)
    assert dispatch.argument_sources == ["coord", "param"]


@pytest.mark.parametrize("fast", [True, False])
def test_long_sequences_go_to_a_dedicated_aicpu(fast):
    prog = run(attn.schedule().dispatch(LONG_TO_ZERO), fast, workers=4)
    assert worker_of_batch(prog) == {0: {1}, 1: {2}, 2: {0}, 3: {0}}


@pytest.mark.parametrize("fast", [True, False])
def test_short_sequences_issue_first(fast):
    # One worker, every task released at once: the issue order is the priority order.
    s = attn.schedule().issue(SHORT_FIRST).timing(TimingPolicy.batched(32))
    prog = run(s, fast, workers=1)
    starts = sorted(prog.schedule_of(), key=lambda e: e["start"])
    batches = [dict(e["coords"])["b"] for e in starts]
    assert batches == sorted(batches)  # 512 before 2048 before 8192 before 32768


@pytest.mark.parametrize("fast", [True, False])
def test_a_key_reading_a_tensor_at_the_task_coordinates(fast):
    # Longest first: the priority reads seq_lens[b] itself (the tensor, not the parameter).
    s = (
        attn.schedule()
        .issue(IssuePolicy.priority(lambda t: 40000 - seq_lens[t.b]))
        .timing(TimingPolicy.batched(32))
    )
    prog = run(s, fast, workers=1)
    starts = sorted(prog.schedule_of(), key=lambda e: e["start"])
    batches = [dict(e["coords"])["b"] for e in starts]
    assert batches == sorted(batches, reverse=True)


@pytest.mark.parametrize("fast", [True, False])
def test_stream_and_threshold_keys_over_parameters(fast):
    s = (
        attn.schedule()
        .streams(2)
        .stream_by(lambda t: 1 if t.param("seq_len") >= 8192 else 0)
        .dispatch_threshold(4096, lambda t: t.param("seq_len"), below="vector", above="cube")
    )
    prog = run(s, fast, workers=2)
    for e in prog.schedule_of():
        long = SEQ_LENS[dict(e["coords"])["b"]] >= 8192
        assert e["stream"] == int(long)
    graph = prog.graph()
    assert sorted({int(graph.pool[i]) for i in graph.task_ids()}) == [0, 1]  # vector, cube


def test_nested_ifs_trace_every_path():
    s = attn.schedule().dispatch(
        DispatchPolicy.hash(
            lambda t: (3 if t.h > 4 else 2) if t.param("seq_len") > 4096 else (1 if t.b else 0)
        )
    )
    key = s.module().ops.last.body.block.first_op.key.block
    assert [op.name for op in key.ops].count("arith.select") == 3


def test_param_needs_a_name():
    with pytest.raises(CompileError, match="param\\(\\) takes a parameter name, got 3"):
        attn.schedule().dispatch(DispatchPolicy.dispatch_by(lambda t: t.param(3)))


def test_a_parameter_no_kernel_takes_is_a_warning(capsys):
    s = attn.schedule().dispatch(DispatchPolicy.dispatch_by(lambda t: t.param("nope")))
    s.compile(target="cpu_sim")
    expected = "reads parameter(s) nope that kernel @attention_kernel does not take"
    assert expected in capsys.readouterr().err


def test_a_tensor_the_workload_does_not_take_is_an_error():
    other = Tensor("other", [None], i64)
    s = attn.schedule().dispatch(DispatchPolicy.dispatch_by(lambda t: other[t.b]))
    expected = "the key reads tensor 'other', which @attn does not take"
    with pytest.raises(CompileError, match=expected):
        s.module()


@kernel
def typed(b, n: i64, on: bool, out: Out[f32[4]]):
    out[...] = n


def test_integer_parameters_are_read_as_indices():
    # An i64 and a bool parameter: the key casts them (wsp-to-tg), on both engines.
    w = parallel_for(Dense[4], lambda b: task(typed, [b, 3 - b, b < 2], [OUT[b, 0]])).named(
        "typed_keys"
    )
    s = w.schedule().issue(IssuePolicy.priority(lambda t: t.param("n") * 2 + t.param("on")))
    s = s.timing(TimingPolicy.batched(4))
    for fast in (True, False):
        prog = s.compile(target="cpu_sim", fast=fast, workers=1)
        prog.bind(O=np.zeros((4, 8, 4), np.float32)).execute()
        starts = sorted(prog.schedule_of(), key=lambda e: e["start"])
        # keys: b=0: 3*2+1, b=1: 2*2+1, b=2: 1*2, b=3: 0: smallest first
        assert [e["coords"]["b"] for e in starts] == [3, 2, 1, 0]
