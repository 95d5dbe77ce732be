"""A transformer layer as the combine of four workloads (seed 001 §3.5): see transformer_layer.mlir.

RMS norm, attention, residual add and feed-forward are each a ``@workload`` function,
called from the layer; attention calls the npu-level ``attn_incore`` per (b, h): a
cross-level call. A workload's parameters are its arguments; binding the layer to tensors
(``transformer_layer(x, ...)``) types them. ``python examples/transformer_layer.py``
prints the IR.
"""

from pto_wsp import (
    Dense,
    DenseDyn,
    In,
    Out,
    P,
    Tensor,
    call,
    combine,
    f32,
    kernel,
    module,
    parallel_for,
    sym,
    task,
    workload,
)


@kernel(cost=64)
def rms_norm_kernel(b, x: In[f32[512]], y: Out[f32[512]]):
    """y = x / rms(x)."""


@kernel(cost=512, exec_unit="cube")
def attn_tile(b, h, x: In[f32[512]], y: Out[f32[64]]):
    """One head of attention for one token."""


@kernel(cost=32)
def add_kernel(b, x: In[f32[512]], r: In[f32[8, 64]], y: Out[f32[512]]):
    """y = x + r (heads concatenated)."""


@kernel(cost=2048, exec_unit="cube")
def ffn_kernel(b, x: In[f32[512]], y: Out[f32[512]]):
    """The feed-forward network of one token."""


x = Tensor("x", [None, 512], f32)
x_norm = Tensor("x_norm", [None, 512], f32)
attn = Tensor("attn", [None, 8, 64], f32)
h = Tensor("h", [None, 512], f32)
y = Tensor("y", [None, 512], f32)
n = sym("n")


def functional():
    """Each workload returns its combinator expression; the layer combines four calls."""

    @workload
    def rms_norm(x, x_norm, n):
        return parallel_for(DenseDyn(n), lambda b: task(rms_norm_kernel, [b], [x[b], x_norm[b]]))

    @workload(level="npu")
    def attn_incore(b, h, x, attn):
        return task(attn_tile, [b, h], [x[b], attn[b, h]])

    @workload
    def attention(x_norm, attn, n):
        return parallel_for(
            DenseDyn(n),
            lambda b: parallel_for(Dense[8], lambda h: call(attn_incore, b, h, x_norm, attn)),
        )

    @workload
    def residual_add(x, attn, h_out, n):
        return parallel_for(DenseDyn(n), lambda b: task(add_kernel, [b], [x[b], attn[b], h_out[b]]))

    @workload
    def ffn(h_in, y, n):
        return parallel_for(DenseDyn(n), lambda b: task(ffn_kernel, [b], [h_in[b], y[b]]))

    @workload
    def transformer_layer(x, x_norm, attn, h, y, n):
        return combine(
            call(rms_norm, x, x_norm, n),
            call(attention, x_norm, attn, n),
            call(residual_add, x, attn, h, n),
            call(ffn, h, y, n),
        )

    return module(transformer_layer(x, x_norm, attn, h, y, n))


def decorator():
    """Statement bodies: P loops, kernel calls, and workload calls as statements."""

    @workload
    def rms_norm(x, x_norm, n):
        for b in P(DenseDyn(n)):
            rms_norm_kernel[b](x=x[b], y=x_norm[b])

    @workload(level="npu")
    def attn_incore(b, h, x, attn):
        attn_tile[b, h](x=x[b], y=attn[b, h])

    @workload
    def attention(x_norm, attn, n):
        for b, h in P(DenseDyn(n), Dense[8]):
            attn_incore(b, h, x_norm, attn)

    @workload
    def residual_add(x, attn, h_out, n):
        for b in P(DenseDyn(n)):
            add_kernel[b](x=x[b], r=attn[b], y=h_out[b])

    @workload
    def ffn(h_in, y, n):
        for b in P(DenseDyn(n)):
            ffn_kernel[b](x=h_in[b], y=y[b])

    @workload
    def transformer_layer(x, x_norm, attn, h, y, n):
        with combine():
            rms_norm(x, x_norm, n)
            attention(x_norm, attn, n)
            residual_add(x, attn, h, n)
            ffn(h, y, n)

    return module(transformer_layer(x, x_norm, attn, h, y, n))


if __name__ == "__main__":
    print(functional())
