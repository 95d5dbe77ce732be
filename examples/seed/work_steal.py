"""The work-stealing scheduler (seed 001 §9.4), in the seed's own spelling.

A generator process sends one attention task per (batch, head) on a shared queue; four
replicas of a worker process take them and run them (``consume(queue)`` issues each task it
receives). The dispatch key places a task on the worker of the replica that took it
(``t.replica``: the seed's ``t.process_id()``).

``python examples/seed/work_steal.py`` runs it on the CPU simulator and checks it against
numpy.
"""

import numpy as np

from pto_wsp import (
    Channel,
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    Tensor,
    connect,
    consume,
    cross,
    f32,
    for_each,
    kernel,
    process,
    replicate,
    send,
    sym,
    task,
)

HEADS, ROWS, SEQ, DIM = 8, 16, 32, 16


@kernel(cost=1000)
def attn_kernel(b, h, Q: In, K: In, V: In, O: Out):  # noqa: E741 (the seed's name)
    """O = softmax(Q K^T / sqrt(d)) V."""
    s = (Q @ K.T) / np.sqrt(Q.shape[-1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    O[...] = (p / p.sum(axis=1, keepdims=True)) @ V


batch = sym("batch")
Q = Tensor("Q", [None, HEADS, ROWS, DIM], f32)
K = Tensor("K", [None, SEQ, DIM], f32)
V = Tensor("V", [None, SEQ, DIM], f32)
O = Tensor("O", [None, HEADS, ROWS, DIM], f32)  # noqa: E741 (the seed's name)

queue = Channel("work_queue", capacity=1024)

generator = (
    process("generator")
    .produces(queue)
    .body(
        for_each(
            cross(DenseDyn(batch), Dense[HEADS]),
            lambda b, h: send(queue, task(attn_kernel, [b, h], [Q[b][h], K[b], V[b], O[b][h]])),
        )
    )
)
worker = process("worker").consumes(queue).body(consume(queue))

ws = connect([generator, replicate(worker, 4)], [queue]).named("work_steal")
schedule = ws.schedule().dispatch(DispatchPolicy.dispatch_by(lambda t: t.replica))


def inputs(batches, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "Q": rng.standard_normal((batches, HEADS, ROWS, DIM), dtype=np.float32),
        "K": rng.standard_normal((batches, SEQ, DIM), dtype=np.float32),
        "V": rng.standard_normal((batches, SEQ, DIM), dtype=np.float32),
        "O": np.zeros((batches, HEADS, ROWS, DIM), np.float32),
    }


def reference(data):
    s = np.einsum("bhrd,bsd->bhrs", data["Q"], data["K"]) / np.sqrt(DIM)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("bhrs,bsd->bhrd", p / p.sum(axis=-1, keepdims=True), data["V"])


def run(data, **options):
    program = schedule.compile(target="cpu_sim", **options)
    return program.bind(batch=len(data["Q"]), **data).execute()


if __name__ == "__main__":
    data = inputs(2)
    program = run(data)
    error = np.abs(data["O"] - reference(data)).max()
    print(f"work_steal: {program.stats().num_tasks} tasks, max error {error:.2e}")
