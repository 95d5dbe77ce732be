"""A prefix scan with for_each (seed 001 §3.2), built with the Python API: see scan.mlir.

Step i reads out[i-1] and in[i] and writes out[i]; for_each orders the chain. Step 0
copies in[0]. ``python examples/scan.py`` prints the IR.
"""

from pto_wsp import (
    DenseDyn,
    In,
    Out,
    P,
    Tensor,
    f32,
    for_each,
    kernel,
    module,
    sequential,
    sym,
    task,
    workload,
)


@kernel(cost=10)
def scan_first(x: In[f32[64]], y: Out[f32[64]]):
    """y = x."""
    y[...] = x


@kernel(cost=10)
def scan_step(i, prev: In[f32[64]], x: In[f32[64]], y: Out[f32[64]]):
    """y = prev + x."""
    y[...] = prev + x


in_ = Tensor("in", [None, 64], f32)
out = Tensor("out", [None, 64], f32)
n = sym("n")


def functional():
    """sequential(first step, for_each over the rest)."""
    scan = sequential(
        task(scan_first, [], [in_[0], out[0]]),
        for_each(
            DenseDyn(n - 1),
            lambda j: task(scan_step, [j + 1], [out[j], in_[j + 1], out[j + 1]]),
        ),
    ).named("scan")
    return module(scan)


def decorator():
    """`with sequential():` holding the first step and a P.seq loop."""

    @workload
    def scan():
        with sequential():
            scan_first(x=in_[0], y=out[0])
            for j in P.seq(DenseDyn(n - 1)):
                scan_step[j + 1](prev=out[j], x=in_[j + 1], y=out[j + 1])

    return module(scan)


if __name__ == "__main__":
    print(functional())
