"""Tiered kernels with nested cond (seed 001 §3.4), built with the Python API: see tiered.mlir.

Each batch entry picks the attention kernel for its sequence length at run time:
<= 2048, <= 8192, else the 32k kernel. The predicates read seq_lens[b], so they are
runtime comparisons (signed: seq_lens holds index values of unknown sign).
``python examples/tiered.py`` prints the IR.
"""

from pto_wsp import (
    DenseDyn,
    InOut,
    P,
    Tensor,
    cond,
    f32,
    index,
    kernel,
    module,
    parallel_for,
    sym,
    task,
    workload,
)


@kernel(cost=1000, exec_unit="cube")
def attn_2k(b, len, X: InOut[f32[2048, 64]]):
    """Attention for sequences up to 2048 tokens."""


@kernel(cost=4000, exec_unit="cube")
def attn_8k(b, len, X: InOut[f32[8192, 64]]):
    """Attention for sequences up to 8192 tokens."""


@kernel(cost=16000, exec_unit="cube")
def attn_32k(b, len, X: InOut[f32[32768, 64]]):
    """Attention for sequences up to 32768 tokens."""


X = Tensor("X", [None, 32768, 64], f32)
seq_lens = Tensor("seq_lens", [None], index)
batch_size = sym("batch_size")


def functional():
    """cond(pred, then, cond(pred, then, else)) per batch entry."""
    tiered = parallel_for(
        DenseDyn(batch_size),
        lambda b: cond(
            seq_lens[b] <= 2048,
            task(attn_2k, [b, seq_lens[b]], [X[b, 0:2048]]),
            cond(
                seq_lens[b] <= 8192,
                task(attn_8k, [b, seq_lens[b]], [X[b, 0:8192]]),
                task(attn_32k, [b, seq_lens[b]], [X[b]]),
            ),
        ),
    ).named("tiered")
    return module(tiered)


def decorator():
    """`with P.when(...)` / `with P.otherwise()` blocks, nested."""

    @workload
    def tiered():
        for b in P(DenseDyn(batch_size)):
            n = seq_lens[b]
            with P.when(n <= 2048):
                attn_2k[b, n](X=X[b, 0:2048])
            with P.otherwise():
                with P.when(n <= 8192):
                    attn_8k[b, n](X=X[b, 0:8192])
                with P.otherwise():
                    attn_32k[b, n](X=X[b])

    return module(tiered)


if __name__ == "__main__":
    print(functional())
