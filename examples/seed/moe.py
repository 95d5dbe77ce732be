"""MoE with sparse routing (seed 001 §9.2), in the seed's own spelling.

The routing table is a numpy CSR array pair bound at build time (``Sparse(4, indptr,
indices)``): token b goes to the experts ``indices[indptr[b]:indptr[b + 1]]``. For each routed
(b, e), one task of the generic ``expert_kernel`` computes ``expert_out[b][e] = gate *
tokens[b] @ expert_weights[e]`` (``gate``: a float parameter). Schedule: work stealing, eight
streams by the task's ``expert`` parameter.

``python examples/seed/moe.py`` runs it on the CPU simulator and checks it against numpy.
"""

import numpy as np

from pto_wsp import (
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    Sparse,
    Tensor,
    f32,
    kernel,
    parallel_for,
    select,
    sym,
    task,
)

TOKENS, EXPERTS, DIM = 4, 8, 16

# Routing results (CSR): 4 tokens, 2-3 experts each.
indptr = np.array([0, 2, 5, 7, 10])
indices = np.array([1, 3, 0, 2, 4, 1, 5, 0, 3, 7])
routing = Sparse(TOKENS, indptr, indices)


@kernel(cost=256)
def expert_kernel(batch, expert, gate: float, x: In, w: In, y: Out):
    """y = gate * x @ w."""
    y[...] = gate * (x @ w)


batch_size = sym("batch_size")
tokens = Tensor("tokens", [TOKENS, DIM], f32)
expert_weights = Tensor("expert_weights", [EXPERTS, DIM, DIM], f32)
expert_out = Tensor("expert_out", [TOKENS, EXPERTS, DIM], f32)

moe = parallel_for(
    DenseDyn(batch_size),
    lambda b: select(
        routing[b],
        lambda e: task(
            expert_kernel, [b, e, 0.5], [tokens[b], expert_weights[e], expert_out[b][e]]
        ),
    ),
).named("moe")

schedule = (
    moe.schedule()
    .dispatch(DispatchPolicy.work_steal())
    .streams(8)
    .stream_by(lambda t: t.param("expert"))
)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "tokens": rng.standard_normal((TOKENS, DIM), dtype=np.float32),
        "expert_weights": rng.standard_normal((EXPERTS, DIM, DIM), dtype=np.float32),
        "expert_out": np.zeros((TOKENS, EXPERTS, DIM), np.float32),
    }


def reference(data):
    """Routed (token, expert) pairs computed, the others left zero."""
    out = np.zeros_like(data["expert_out"])
    for b in range(TOKENS):
        for e in indices[indptr[b] : indptr[b + 1]]:
            out[b, e] = 0.5 * (data["tokens"][b] @ data["expert_weights"][e])
    return out


def run(data, **options):
    program = schedule.compile(target="cpu_sim", **options)
    return program.bind(batch_size=TOKENS, **data).execute()


if __name__ == "__main__":
    data = inputs()
    program = run(data, workers=4)
    error = np.abs(data["expert_out"] - reference(data)).max()
    print(f"moe: {program.stats().num_tasks} tasks, max error {error:.2e}")
