"""The attention module of seed 000 §8.2, built with the Python API: see attention_module.mlir.

One module holding a workload whose axes are arguments (bound to a DenseDyn batch and a
Dense<8> head axis), its schedule, and the megakernel CSP pipeline.
``python examples/attention_module.py`` prints the IR.
"""

from pto_wsp import (
    Channel,
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    P,
    Tensor,
    TimingPolicy,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    module,
    parallel_for,
    process,
    send,
    sym,
    task,
    workload,
)


@kernel(cost=1024, exec_unit="cube")
def attn_kernel(
    b,
    h,
    Q: In[f32[64, 64]],
    K: In[f32[64, 64]],
    V: In[f32[64, 64]],
    O: Out[f32[64, 64]],  # noqa: E741 (the seed's name)
):
    """Attention for one (batch, head)."""


@kernel(cost=100)
def load_kernel(i, input: In[f32[64]], buf: Out[f32[64]]):
    """buf = input."""


@kernel(cost=300)
def compute_kernel(i, buf: In[f32[64]], out: Out[f32[64]]):
    """out = f(buf)."""


@kernel(cost=100)
def store_kernel(i, out: In[f32[64]], final: Out[f32[64]]):
    """final = out."""


Q = Tensor("Q", [None, 8, 64, 64], f32)
K = Tensor("K", [None, 64, 64], f32)
V = Tensor("V", [None, 64, 64], f32)
O = Tensor("O", [None, 8, 64, 64], f32)  # noqa: E741 (the seed's name)
num_tiles = sym("num_tiles")
input_ = Tensor("input", [None, 64], f32)
buf = Tensor("buf", [None, 64], f32)
out = Tensor("out", [None, 64], f32)
final = Tensor("final", [None, 64], f32)
batch, heads = DenseDyn(sym("batch")), Dense[8]


def _schedule(w):
    return (
        w.schedule()
        .dispatch(DispatchPolicy.affinity("b"))
        .streams(2)
        .stream_by(lambda h: h % 2)
        .timing(TimingPolicy.immediate())
    )


def functional():
    """A @workload returning nested parallel_for; process bodies as expressions."""

    @workload
    def attention(batch, heads, Q, K, V, O):  # noqa: E741 (the seed's name)
        return parallel_for(
            batch,
            lambda b: parallel_for(
                heads, lambda h: task(attn_kernel, [b, h], [Q[b, h], K[b], V[b], O[b, h]])
            ),
        )

    l2c, c2s = Channel("l2c", capacity=2), Channel("c2s", capacity=2)
    loader = (
        process("loader")
        .produces(l2c)
        .body(
            for_each(
                DenseDyn(num_tiles),
                lambda i: send(l2c, task(load_kernel, [i], [input_[i], buf[i]])),
            )
        )
    )
    computer = (
        process("computer")
        .consumes(l2c)
        .produces(c2s)
        .body(
            consume(
                l2c, lambda tile: send(c2s, task(compute_kernel, [tile], [buf[tile], out[tile]]))
            )
        )
    )
    storer = (
        process("storer")
        .consumes(c2s)
        .body(
            consume(c2s, lambda result: task(store_kernel, [result], [out[result], final[result]]))
        )
    )
    mega = connect([loader, computer, storer], [l2c, c2s]).named("megakernel")
    return module(_schedule(attention(batch, heads, Q, K, V, O)), mega)


def decorator():
    """A @workload with a P loop over its axis arguments; process bodies as statements."""

    @workload
    def attention(batch, heads, Q, K, V, O):  # noqa: E741 (the seed's name)
        for b, h in P(batch, heads):
            attn_kernel[b, h](Q=Q[b, h], K=K[b], V=V[b], O=O[b, h])

    l2c, c2s = Channel("l2c", capacity=2), Channel("c2s", capacity=2)

    def loader_body():
        for i in P.seq(DenseDyn(num_tiles)):
            send(l2c, load_kernel[i](input=input_[i], buf=buf[i]))

    def computer_body():
        with consume(l2c) as tile:
            send(c2s, compute_kernel[tile](buf=buf[tile], out=out[tile]))

    def storer_body():
        with consume(c2s) as result:
            store_kernel[result](out=out[result], final=final[result])

    loader = process("loader").produces(l2c).body(loader_body)
    computer = process("computer").consumes(l2c).produces(c2s).body(computer_body)
    storer = process("storer").consumes(c2s).body(storer_body)
    mega = connect([loader, computer, storer], [l2c, c2s]).named("megakernel")
    return module(_schedule(attention(batch, heads, Q, K, V, O)), mega)


if __name__ == "__main__":
    print(functional())
