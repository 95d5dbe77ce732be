"""The CPU simulator's CSP pipelines: channels, replicas, events, deadlock (issue 5)."""

from __future__ import annotations

import numpy as np
import pytest
from csp_pipeline import compute, inp, load, megakernel, num_tiles, out, result_buf, store, tile_buf

from pto_wsp import (
    Channel,
    ChannelClosed,
    Deadlock,
    Dense,
    DenseDyn,
    DispatchPolicy,
    Event,
    In,
    Out,
    Tensor,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    process,
    record,
    replicate,
    send,
    sequential,
    sym,
    synchronize,
    task,
)


def sequential_stages():
    """The same three stages, one after the other, each a for_each over the tiles."""
    return sequential(
        for_each(DenseDyn(num_tiles), lambda i: task(load, [i], [inp[i], tile_buf[i]])),
        for_each(DenseDyn(num_tiles), lambda i: task(compute, [i], [tile_buf[i], result_buf[i]])),
        for_each(DenseDyn(num_tiles), lambda i: task(store, [i], [result_buf[i], out[i]])),
    ).named("stages")


def bind(prog, n=6):
    x = np.random.default_rng(3).standard_normal((n, 8)).astype(np.float32)
    arrays = {
        "input": x,
        "output": np.zeros_like(x),
        "tile_buf": np.zeros_like(x),
        "result_buf": np.zeros_like(x),
    }
    prog.bind(num_tiles=n, **arrays)
    return x, arrays


def test_megakernel_equals_numpy():
    prog = megakernel().compile(target="cpu_sim", workers=3)
    x, arrays = bind(prog)
    prog.execute()
    np.testing.assert_allclose(arrays["output"], x * x + 1, rtol=1e-6)
    stats = prog.stats()
    assert stats.num_tasks == 18
    assert stats.num_processes == 3
    # The receiver issues a message's tasks, which carry the tile index it was sent with.
    kernels = {(t["kernel"], t["coords"]["i"]) for t in prog.schedule_of()}
    assert kernels == {(k, i) for k in ("load", "compute", "store") for i in range(6)}


def test_the_seed_schedule_runs_everything_on_one_worker():
    prog = (
        megakernel()
        .schedule()
        .dispatch(DispatchPolicy.round_robin(1))
        .compile(target="cpu_sim", mode="cycles")
    )
    bind(prog)
    prog.execute()
    stats = prog.stats()
    assert stats.num_workers == 1 and stats.makespan_cycles == 6 * 600


def test_a_pipeline_finishes_sooner_than_the_stages_in_sequence():
    pipe = megakernel().compile(target="cpu_sim", mode="cycles", workers=3)
    bind(pipe)
    pipe.execute()
    seq = sequential_stages().compile(target="cpu_sim", mode="cycles", workers=3)
    bind(seq)
    seq.execute()
    assert seq.stats().makespan_cycles == 6 * (100 + 400 + 100)
    # The stages overlap: the storer, which issues compute and store of each tile, is the
    # bottleneck (500 cycles a tile) after the first load.
    assert pipe.stats().makespan_cycles == 100 + 6 * 500
    assert pipe.stats().makespan_cycles < seq.stats().makespan_cycles


def test_capacity_is_backpressure():
    prog = megakernel(capacity=1).compile(target="cpu_sim", mode="cycles", workers=3)
    bind(prog)
    prog.execute()
    assert prog.stats().stalls["channel_full"] > 0
    rendezvous = megakernel(capacity=0).compile(target="cpu_sim", workers=3)
    x, arrays = bind(rendezvous)
    rendezvous.execute()
    np.testing.assert_allclose(arrays["output"], x * x + 1, rtol=1e-6)


@kernel(cost=100)
def work(b, h, q: In[f32[8]], o: Out[f32[8]]):
    o[...] = q * (h + 1)


def _work_queue(name: str, replicas: int):
    """A generator sending one work task per (b, h) to ``replicas`` workers on one queue."""
    batch = sym("batch")
    Q = Tensor("Q", [None, 4, 8], f32)
    O = Tensor("O", [None, 4, 8], f32)  # noqa: E741
    queue = Channel("work_queue", capacity=16)
    gen = (
        process("generator")
        .produces(queue)
        .body(
            for_each(
                DenseDyn(batch),
                lambda b: for_each(
                    Dense[4], lambda h: send(queue, task(work, [b, h], [Q[b, h], O[b, h]]))
                ),
            )
        )
    )
    worker = process("worker").consumes(queue).body(consume(queue))
    return connect([gen, replicate(worker, replicas)], [queue]).named(name)


def test_replicated_workers_take_tasks_from_a_shared_queue():
    pipeline = _work_queue("work_steal", 4)
    s = pipeline.schedule().dispatch(DispatchPolicy.dispatch_by(lambda replica: replica))
    prog = s.compile(target="cpu_sim", workers=4)
    q = np.random.default_rng(1).standard_normal((3, 4, 8)).astype(np.float32)
    o = np.zeros_like(q)
    prog.bind(batch=3, Q=q, O=o).execute()
    np.testing.assert_allclose(o, q * np.arange(1, 5, dtype=np.float32)[None, :, None])
    rows = prog.schedule_of()
    # Each task runs on the worker of the replica that took it.
    assert all(t["worker"] == t["coords"]["replica"] for t in rows)
    assert prog.stats().tasks_per_worker == [3, 3, 3, 3]
    assert prog.stats().num_processes == 5


def _events_pipeline(deadlock: bool):
    e1, e2 = Event("e1"), Event("e2")
    a = process("a").consumes(e1).produces(e2)
    b = process("b").consumes(e2).produces(e1)
    if deadlock:
        # Each waits for the other's signal before giving its own.
        a = a.body([synchronize(e1), record(e2)])
        b = b.body([synchronize(e2), record(e1)])
    else:
        a = a.body([record(e2), synchronize(e1)])
        b = b.body([synchronize(e2), record(e1)])
    return connect([a, b], [e1, e2]).named("events")


def test_events_rendezvous():
    prog = _events_pipeline(deadlock=False).compile(target="cpu_sim")
    prog.execute()
    assert prog.stats().num_tasks == 0


def test_a_deadlocked_pipeline_raises_deadlock():
    prog = _events_pipeline(deadlock=True).compile(target="cpu_sim")
    with pytest.raises(Deadlock) as info:
        prog.execute()
    error = info.value
    assert error.processes == ["a", "b"]
    assert error.channels == ["e1", "e2"]
    assert "a waits in synchronize on @e1" in str(error)
    assert "b waits in synchronize on @e2" in str(error)


def test_synchronize_on_an_event_nobody_records_any_more_is_channel_closed():
    ev = Event("done")
    a = process("a").produces(ev).body([record(ev)])
    b = process("b").consumes(ev).body(for_each(Dense[2], lambda i: synchronize(ev)))
    prog = connect([a, b], [ev]).named("closed").compile(target="cpu_sim")
    with pytest.raises(ChannelClosed) as info:
        prog.execute()
    assert info.value.process == "b" and info.value.channel == "done"


def test_dispatch_threshold_over_replica_is_evaluated_at_receipt(capsys):
    """The sender cannot compute a pool keyed on the receiver's replica (csp-to-tg leaves it
    out, silently); the simulator computes it when the replica issues the message's tasks."""
    pipeline = _work_queue("pools_by_replica", 2)
    s = pipeline.schedule().dispatch_threshold(1, lambda replica: replica, below="vector")
    prog = s.compile(target="cpu_sim", vector_workers=1, cube_workers=1)
    assert "warning" not in capsys.readouterr().err  # nothing is lost: no warning
    q = np.ones((3, 4, 8), dtype=np.float32)
    o = np.zeros_like(q)
    prog.bind(batch=3, Q=q, O=o).execute()
    rows = prog.schedule_of()
    assert len(rows) == 12
    # replica 0 -> below the threshold -> vector worker 0; replica 1 -> cube worker 1.
    assert {(t["coords"]["replica"], t["worker"]) for t in rows} == {(0, 0), (1, 1)}


def test_gen_cost_on_a_pipeline_is_reported_as_ignored(capsys):
    """Processes cost no cycles: a generation cost is the main program's, and says so."""
    prog = megakernel().compile(target="cpu_sim", mode="cycles", workers=3, gen_cost=7)
    assert any("gen_cost=7" in w and "ignored" in w for w in prog.warnings)
    assert "gen_cost=7" in capsys.readouterr().err
    bind(prog)
    prog.execute()
    plain = megakernel().compile(target="cpu_sim", mode="cycles", workers=3)
    bind(plain)
    plain.execute()
    assert prog.stats().makespan_cycles == plain.stats().makespan_cycles
    assert not any("gen_cost" in w for w in plain.warnings)
