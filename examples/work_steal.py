"""Work stealing with CSP (seed 001 §9.4), built with the Python API: see work_steal.mlir.

A generator sends one attention task per (b, h) into a shared queue; four replicas of a
worker consume it. A received task is issued by the worker that took it, so the dispatch
key ``replica`` places each task on the worker that stole it.
``python examples/work_steal.py`` prints the IR.
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
    connect,
    consume,
    cross,
    f32,
    for_each,
    kernel,
    module,
    process,
    replicate,
    send,
    sym,
    task,
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


batch_size = sym("batch_size")
Q = Tensor("Q", [None, 8, 64, 64], f32)
K = Tensor("K", [None, 64, 64], f32)
V = Tensor("V", [None, 64, 64], f32)
O = Tensor("O", [None, 8, 64, 64], f32)  # noqa: E741 (the seed's name)


def functional():
    """for_each over cross(batch, heads) sends; consume(queue) with no body issues."""
    queue = Channel("work_queue", capacity=1024)
    generator = (
        process("generator")
        .produces(queue)
        .body(
            for_each(
                cross(DenseDyn(batch_size), Dense[8]),
                lambda b, h: send(queue, task(attn_kernel, [b, h], [Q[b, h], K[b], V[b], O[b, h]])),
            )
        )
    )
    worker = process("worker").consumes(queue).body(consume(queue))
    ws = connect([generator, replicate(worker, 4)], [queue]).named("work_steal")
    return module(ws.schedule().dispatch(DispatchPolicy.dispatch_by(lambda replica: replica)))


def decorator():
    """A P.seq loop nest of sends; the key reads the coordinate as an attribute."""
    queue = Channel("work_queue", capacity=1024)

    def generator_body():
        for b, h in P.seq(DenseDyn(batch_size), Dense[8]):
            send(queue, attn_kernel[b, h](Q=Q[b, h], K=K[b], V=V[b], O=O[b, h]))

    def worker_body():
        consume(queue)

    generator = process("generator").produces(queue).body(generator_body)
    worker = process("worker").consumes(queue).body(worker_body)
    ws = connect([generator, replicate(worker, 4)], [queue]).named("work_steal")
    return module(ws.schedule().dispatch(DispatchPolicy.dispatch_by(lambda t: t.replica)))


if __name__ == "__main__":
    print(functional())
