"""Variable-length attention (seed 001 §9.1), built with the Python API: see attention.mlir.

For every batch b and head h, one attention task reading Q[b][h], the first seq_lens[b]
rows of K[b] and V[b], writing O[b][h]. Schedule: same batch -> same worker, two streams
chosen by b mod 2, immediate issue. ``python examples/attention.py`` prints the IR.
"""

from pto_wsp import (
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    P,
    Tensor,
    TimingPolicy,
    f32,
    index,
    kernel,
    module,
    parallel_for,
    sym,
    task,
    workload,
)


@kernel(cost=4096, exec_unit="cube")
def attention_kernel(
    b,
    h,
    seq_len,
    Q: In[f32[64, 64]],
    K: In[f32[None, 64]],
    V: In[f32[None, 64]],
    O: Out[f32[64, 64]],  # noqa: E741 (the seed's name)
):
    """softmax(Q K^T) V for one (batch, head) on numpy views."""
    import numpy as np

    s = Q @ K.T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    O[...] = (p / p.sum(axis=1, keepdims=True)) @ V


# Declaration order is argument order: Q, K, V, O, seq_lens, batch_size.
Q = Tensor("Q", [None, 8, 64, 64], f32)
K = Tensor("K", [None, 32768, 64], f32)
V = Tensor("V", [None, 32768, 64], f32)
O = Tensor("O", [None, 8, 64, 64], f32)  # noqa: E741 (the seed's name)
seq_lens = Tensor("seq_lens", [None], index)
batch_size = sym("batch_size")


def _schedule(w):
    return (
        w.schedule()
        .dispatch(DispatchPolicy.affinity("b"))
        .streams(2)
        .stream_by(lambda b: b % 2)
        .timing(TimingPolicy.immediate())
    )


def functional():
    """The functional form: nested parallel_for lambdas."""
    attention = parallel_for(
        DenseDyn(batch_size),
        lambda b: parallel_for(
            Dense[8],
            lambda h: task(
                attention_kernel,
                [b, h, seq_lens[b]],
                [Q[b][h], K[b, 0 : seq_lens[b]], V[b, 0 : seq_lens[b]], O[b][h]],
            ),
        ),
    ).named("attention")
    return module(_schedule(attention))


def decorator():
    """The decorator form: a @workload function with a P loop and a kernel call."""

    @workload
    def attention():
        for b, h in P(DenseDyn(batch_size), Dense[8]):
            n = seq_lens[b]
            attention_kernel[b, h, n](Q=Q[b, h], K=K[b, 0:n], V=V[b, 0:n], O=O[b, h])

    return module(_schedule(attention))


if __name__ == "__main__":
    print(functional())
