"""The megakernel pipeline (seed 001 §9.3), in the seed's own spelling.

A loader, a computer and a storer connected by two channels of capacity 2. The loader sends
one load task per tile; the computer, for each message, sends a compute task (a float
parameter ``alpha``) on; the storer runs the store task. The value a consume body receives
stands for the task that was sent: as an index it is the loader's tile index. Each tile has
its own slot in the buffers: stages run concurrently, so tile i+1's load may run before tile
i's compute. Schedule: one worker.

``python examples/seed/megakernel.py`` runs it on the CPU simulator and checks it against
numpy.
"""

import numpy as np

from pto_wsp import (
    Channel,
    DenseDyn,
    DispatchPolicy,
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
)

TILE = 64


@kernel(cost=100)
def load_kernel(i, src: In, tile: Out):
    tile[...] = src


@kernel(cost=400)
def compute_kernel(i, alpha: float, tile: In, result: Out):
    result[...] = alpha * tile * tile


@kernel(cost=100)
def store_kernel(i, result: In, dst: Out):
    dst[...] = result


num_tiles = sym("num_tiles")
input_ = Tensor("input", [None, TILE], f32)
output = Tensor("output", [None, TILE], f32)
tile_buf = Tensor("tile_buf", [None, TILE], f32)
result_buf = Tensor("result_buf", [None, TILE], f32)

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
            l2c,
            lambda t: send(c2s, task(compute_kernel, [t, 0.5], [tile_buf[t], result_buf[t]])),
        )
    )
)
storer = (
    process("storer")
    .consumes(c2s)
    .body(consume(c2s, lambda r: task(store_kernel, [r], [result_buf[r], output[r]])))
)

mega = connect([loader, computer, storer], [l2c, c2s]).named("megakernel")
schedule = mega.schedule().dispatch(DispatchPolicy.round_robin(1))  # one worker


def inputs(tiles, seed=0):
    rng = np.random.default_rng(seed)
    data = {"input": rng.standard_normal((tiles, TILE), dtype=np.float32)}
    for name in ("output", "tile_buf", "result_buf"):
        data[name] = np.zeros((tiles, TILE), np.float32)
    return data


def reference(data):
    return 0.5 * data["input"] * data["input"]


def run(data, **options):
    program = schedule.compile(target="cpu_sim", **options)
    return program.bind(num_tiles=len(data["input"]), **data).execute()


if __name__ == "__main__":
    data = inputs(16)
    program = run(data)
    error = np.abs(data["output"] - reference(data)).max()
    print(f"megakernel: {program.stats().num_tasks} tasks, max error {error:.2e}")
