"""The megakernel CSP pipeline (seed 001 §9.3), built with the Python API: see megakernel.mlir.

A loader, a computer and a storer process connected by two channels of capacity 2. The
value a consume body receives stands for the task that was sent: used as an index it is
that task's first coordinate (the loader's loop index i). Schedule: one dispatch target.
``python examples/megakernel.py`` prints the IR.
"""

from pto_wsp import (
    Channel,
    DenseDyn,
    DispatchPolicy,
    In,
    Out,
    P,
    Tensor,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    module,
    process,
    send,
    sym,
    task,
)


@kernel(cost=100)
def load_kernel(i, src: In[f32[64]], tile: Out[f32[64]]):
    """tile = src."""
    tile[...] = src


@kernel(cost=400)
def compute_kernel(i, tile: In[f32[64]], result: Out[f32[64]]):
    """result = f(tile)."""
    result[...] = tile * tile


@kernel(cost=100)
def store_kernel(i, result: In[f32[64]], dst: Out[f32[64]]):
    """dst = result."""
    dst[...] = result


num_tiles = sym("num_tiles")
input_ = Tensor("input", [None, 64], f32)
output = Tensor("output", [None, 64], f32)
tile_buf = Tensor("tile_buf", [None, 64], f32)
result_buf = Tensor("result_buf", [None, 64], f32)


def _pipeline(loader, computer, storer, l2c, c2s):
    mega = connect([loader, computer, storer], [l2c, c2s]).named("megakernel")
    return mega.schedule().dispatch(DispatchPolicy.round_robin(1))


def functional():
    """Process bodies as workload expressions: for_each/send and consume lambdas."""
    l2c = Channel("load_to_compute", capacity=2)
    c2s = Channel("compute_to_store", capacity=2)
    loader = (
        process("loader")
        .produces(l2c)
        .body(
            for_each(
                DenseDyn(num_tiles),
                lambda i: send(l2c, task(load_kernel, [i], [input_[i], tile_buf[i]])),
            )
        )
    )
    computer = (
        process("computer")
        .consumes(l2c)
        .produces(c2s)
        .body(
            consume(
                l2c, lambda t: send(c2s, task(compute_kernel, [t], [tile_buf[t], result_buf[t]]))
            )
        )
    )
    storer = (
        process("storer")
        .consumes(c2s)
        .body(consume(c2s, lambda r: task(store_kernel, [r], [result_buf[r], output[r]])))
    )
    return module(_pipeline(loader, computer, storer, l2c, c2s))


def decorator():
    """Process bodies as functions of statements: P.seq loops and `with consume(...) as t`."""
    l2c = Channel("load_to_compute", capacity=2)
    c2s = Channel("compute_to_store", capacity=2)

    def loader_body():
        for i in P.seq(DenseDyn(num_tiles)):
            send(l2c, load_kernel[i](src=input_[i], tile=tile_buf[i]))

    def computer_body():
        with consume(l2c) as t:
            send(c2s, compute_kernel[t](tile=tile_buf[t], result=result_buf[t]))

    def storer_body():
        with consume(c2s) as r:
            store_kernel[r](result=result_buf[r], dst=output[r])

    loader = process("loader").produces(l2c).body(loader_body)
    computer = process("computer").consumes(l2c).produces(c2s).body(computer_body)
    storer = process("storer").consumes(c2s).body(storer_body)
    return module(_pipeline(loader, computer, storer, l2c, c2s))


if __name__ == "__main__":
    print(functional())
