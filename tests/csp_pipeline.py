"""The three-stage CSP pipeline (load -> compute -> store) the simulator and native-core tests share."""

from __future__ import annotations

from pto_wsp import (
    Channel,
    DenseDyn,
    In,
    Out,
    Tensor,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    process,
    send,
    sym,
    task,
    try_send,
)


@kernel(cost=100)
def load(i, src: In[f32[8]], tile: Out[f32[8]]):
    tile[...] = src


@kernel(cost=400)
def compute(i, tile: In[f32[8]], result: Out[f32[8]]):
    result[...] = tile * tile


@kernel(cost=100)
def store(i, result: In[f32[8]], dst: Out[f32[8]]):
    dst[...] = result + 1


num_tiles = sym("num_tiles")
inp = Tensor("input", [None, 8], f32)
out = Tensor("output", [None, 8], f32)
tile_buf = Tensor("tile_buf", [None, 8], f32)
result_buf = Tensor("result_buf", [None, 8], f32)


def megakernel(capacity: int = 2, nonblocking: bool = False):
    """Loader -> computer -> storer; the storer names its tasks by the tile the loader sent."""
    l2c = Channel("load_to_compute", capacity=capacity)
    c2s = Channel("compute_to_store", capacity=capacity)
    put = try_send if nonblocking else send
    loader = (
        process("loader")
        .produces(l2c)
        .body(
            for_each(
                DenseDyn(num_tiles), lambda i: put(l2c, task(load, [i], [inp[i], tile_buf[i]]))
            )
        )
    )
    computer = (
        process("computer")
        .consumes(l2c)
        .produces(c2s)
        .body(consume(l2c, lambda t: send(c2s, task(compute, [t], [tile_buf[t], result_buf[t]]))))
    )
    storer = (
        process("storer")
        .consumes(c2s)
        .body(consume(c2s, lambda r: task(store, [r], [result_buf[r], out[r]])))
    )
    return connect([loader, computer, storer], [l2c, c2s]).named("megakernel")
