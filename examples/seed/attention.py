"""Attention with variable lengths (seed 001 §9.1), in the seed's own spelling.

A generic kernel (bare ``In``/``Out``) with the seed's scalar parameters ``batch``, ``head``,
``seq_len`` and a float ``scale``; for every batch b and head h one task reading Q[b][h] and
the first seq_lens[b] rows of K[b] and V[b], writing O[b][h]. Two schedules:

- ``seed_schedule``: §9.1's — same batch on the same worker, two streams by ``batch % 2``
  (a key reading the task's parameter), immediate issue;
- ``seq_len_schedule``: §5.2's and §5.3's examples — sequences longer than 8192 dispatched to
  worker 0, the others to worker 1; short sequences issued first.

``python examples/seed/attention.py`` runs both on the CPU simulator and checks them against
numpy.
"""

import numpy as np

from pto_wsp import (
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
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

HEADS, ROWS, DIM = 8, 16, 16


@kernel(cost=lambda seq_len: 64 + seq_len)
def attention_kernel(batch, head, seq_len, scale: float, Q: In, K: In, V: In, O: Out):  # noqa: E741
    """O = softmax(scale Q K^T) V over the sequence's seq_len keys."""
    s = scale * (Q @ K.T)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    O[...] = (p / p.sum(axis=1, keepdims=True)) @ V


batch_size = sym("batch_size")
seq_lens = Tensor("seq_lens", [None], i64)
Q = Tensor("Q", [None, HEADS, ROWS, DIM], f32)
K = Tensor("K", [None, None, DIM], f32)
V = Tensor("V", [None, None, DIM], f32)
O = Tensor("O", [None, HEADS, ROWS, DIM], f32)  # noqa: E741 (the seed's name)

attn = parallel_for(
    DenseDyn(batch_size),
    lambda b: parallel_for(
        Dense[HEADS],
        lambda h: task(
            attention_kernel,
            [b, h, seq_lens[b], 1 / np.sqrt(DIM)],
            [Q[b][h], K[b, 0 : seq_lens[b]], V[b, 0 : seq_lens[b]], O[b][h]],
        ),
    ),
).named("attention")

seed_schedule = (
    attn.schedule("seed_schedule")
    .dispatch(DispatchPolicy.affinity("b"))  # same batch -> same worker
    .streams(2)
    .stream_by(lambda t: t.param("batch") % 2)
    .timing(TimingPolicy.immediate())
)

seq_len_schedule = (
    attn.schedule("seq_len_schedule")
    .dispatch(DispatchPolicy.dispatch_by(lambda t: 0 if t.param("seq_len") > 8192 else 1))
    .issue(IssuePolicy.priority(lambda t: t.param("seq_len")))  # short sequences first
)


def inputs(lens, seed=0):
    """Random Q, K, V for sequences of ``lens`` and a zero O."""
    rng = np.random.default_rng(seed)
    batch, longest = len(lens), max(lens)
    return {
        "Q": rng.standard_normal((batch, HEADS, ROWS, DIM), dtype=np.float32),
        "K": rng.standard_normal((batch, longest, DIM), dtype=np.float32),
        "V": rng.standard_normal((batch, longest, DIM), dtype=np.float32),
        "O": np.zeros((batch, HEADS, ROWS, DIM), np.float32),
        "seq_lens": np.asarray(lens, np.int64),
    }


def reference(data):
    """The same attention in plain numpy."""
    out = np.zeros_like(data["O"])
    for b, n in enumerate(data["seq_lens"]):
        k, v = data["K"][b, :n], data["V"][b, :n]
        for h in range(HEADS):
            s = (data["Q"][b, h] @ k.T) / np.sqrt(DIM)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            out[b, h] = (p / p.sum(axis=1, keepdims=True)) @ v
    return out


def run(schedule, data, **options):
    """Compile ``schedule`` for the CPU simulator and run it on ``data`` (O written in place)."""
    program = schedule.compile(target="cpu_sim", **options)
    return program.bind(batch_size=len(data["seq_lens"]), **data).execute()


if __name__ == "__main__":
    for schedule in (seed_schedule, seq_len_schedule):
        data = inputs([512, 2048, 8192, 32768])
        program = run(schedule, data, workers=2)
        error = np.abs(data["O"] - reference(data)).max()
        print(f"{schedule.name}: {program.stats().num_tasks} tasks, max error {error:.2e}")
