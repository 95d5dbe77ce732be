"""Three stages in sequence (seed 001 §3.6), built with the Python API: see three_stage.mlir.

Load every batch entry, then compute every entry, then store every entry: sequential
makes each stage wait for all tasks of the previous one. ``python examples/three_stage.py``
prints the IR.
"""

from pto_wsp import (
    DenseDyn,
    In,
    InOut,
    Out,
    P,
    Tensor,
    f32,
    kernel,
    module,
    parallel_for,
    sequential,
    sym,
    task,
    workload,
)


@kernel(cost=50)
def load_kernel(b, src: In[f32[256]], dst: Out[f32[256]]):
    """dst = src."""
    dst[...] = src


@kernel(cost=200)
def compute_kernel(b, x: InOut[f32[256]]):
    """x = 2 x."""
    x *= 2


@kernel(cost=50)
def store_kernel(b, src: In[f32[256]], dst: Out[f32[256]]):
    """dst = src."""
    dst[...] = src


input_ = Tensor("input", [None, 256], f32)
work = Tensor("work", [None, 256], f32)
output = Tensor("output", [None, 256], f32)
batch_size = sym("batch_size")
batch = DenseDyn(batch_size)


def functional():
    """sequential() of three parallel_for stages."""
    three_stage = sequential(
        parallel_for(batch, lambda b: task(load_kernel, [b], [input_[b], work[b]])),
        parallel_for(batch, lambda b: task(compute_kernel, [b], [work[b]])),
        parallel_for(batch, lambda b: task(store_kernel, [b], [work[b], output[b]])),
    ).named("three_stage")
    return module(three_stage)


def decorator():
    """`with sequential():` holding three P loops."""

    @workload
    def three_stage():
        with sequential():
            for b in P(batch):
                load_kernel[b](src=input_[b], dst=work[b])
            for b in P(batch):
                compute_kernel[b](x=work[b])
            for b in P(batch):
                store_kernel[b](src=work[b], dst=output[b])

    return module(three_stage)


if __name__ == "__main__":
    print(functional())
