"""Mixture of experts with sparse routing (seed 001 §9.2), built with the Python API: see moe.mlir.

Token b is routed to the experts stored in row b of a CSR matrix (indptr, indices);
select walks exactly that row. Schedule: work stealing, eight streams, one per expert
(e mod 8). ``python examples/moe.py`` prints the IR.
"""

from pto_wsp import (
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    P,
    Sparse,
    Tensor,
    f32,
    index,
    kernel,
    module,
    parallel_for,
    select,
    sym,
    task,
    workload,
)


@kernel(cost=2048, exec_unit="cube")
def expert_kernel(b, e, tokens: In[f32[128]], weights: In[f32[128, 128]], out: Out[f32[128]]):
    """One expert applied to one token."""
    out[...] = weights @ tokens


tokens = Tensor("tokens", [None, 128], f32)
expert_weights = Tensor("expert_weights", [8, 128, 128], f32)
expert_out = Tensor("expert_out", [None, 8, 128], f32)
batch_size = sym("batch_size")
indptr = Tensor("indptr", [None], index)
indices = Tensor("indices", [None], index)
routing = Sparse(batch_size, indptr, indices)


def _schedule(w):
    return w.schedule().dispatch(DispatchPolicy.work_steal()).streams(8).stream_by(lambda e: e % 8)


def functional():
    """parallel_for over the tokens, select over each token's row."""
    moe = parallel_for(
        DenseDyn(batch_size),
        lambda b: select(
            routing[b],
            lambda e: task(expert_kernel, [b, e], [tokens[b], expert_weights[e], expert_out[b, e]]),
        ),
    ).named("moe")
    return module(_schedule(moe))


def decorator():
    """P over the tokens, P.sel over each token's row."""

    @workload
    def moe():
        for b in P(DenseDyn(batch_size)):
            for e in P.sel(routing[b]):
                expert_kernel[b, e](
                    tokens=tokens[b], weights=expert_weights[e], out=expert_out[b, e]
                )

    return module(_schedule(moe))


if __name__ == "__main__":
    print(functional())
