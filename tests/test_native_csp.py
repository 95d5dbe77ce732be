"""Pipelines on the native core (lowering/cpu/native_csp.py, runtime/core/csp.cpp).

Each pipeline runs on the reference engine (runtime/engine.py, cycles mode) and on the core;
the core must give the reference's outcome: the same task graph (nodes, coordinates,
placement fields, edges), the same worker, start and end of every task, issue order,
makespan, stalls by cause, stall spans — or the same error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from csp_pipeline import (
    inp,
    load,
    megakernel,
    out,
    store,
    tile_buf,
)
from xdsl.context import Context

from pto_wsp import (
    Channel,
    ChannelClosed,
    Deadlock,
    Dense,
    DenseDyn,
    DispatchPolicy,
    Event,
    In,
    IssuePolicy,
    Out,
    Tensor,
    TimingPolicy,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    module,
    process,
    record,
    replicate,
    send,
    sym,
    synchronize,
    task,
)
from pto_wsp.lowering.cpu.backend import compile_cpu_sim
from pto_wsp.lowering.cpu.native import NativeError, compile_native
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.tools.diagnostics import parse_located

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@kernel(cost=lambda b, h, q, o: 50 + 10 * h)
def work(b, h, q: In[f32[8]], o: Out[f32[8]]):
    o[...] = q * (h + 1)


Q = Tensor("Q", [None, 4, 8], f32)
O = Tensor("O", [None, 4, 8], f32)  # noqa: E741


def work_queue(replicas: int, capacity: int = 16):
    """A generator sends one task per (b, h) to ``replicas`` workers of one queue."""
    queue = Channel("work_queue", capacity=capacity)
    gen = (
        process("generator")
        .produces(queue)
        .body(
            for_each(
                DenseDyn(sym("batch")),
                lambda b: for_each(
                    Dense[4], lambda h: send(queue, task(work, [b, h], [Q[b, h], O[b, h]]))
                ),
            )
        )
    )
    worker = process("worker").consumes(queue).body(consume(queue))
    return connect([gen, replicate(worker, replicas)], [queue]).named("work_queue")


def events(deadlock: bool):
    e1, e2 = Event("e1"), Event("e2")
    a = process("a").consumes(e1).produces(e2)
    b = process("b").consumes(e2).produces(e1)
    if deadlock:  # each waits for the other's signal before giving its own
        a = a.body([synchronize(e1), record(e2)])
        b = b.body([synchronize(e2), record(e1)])
    else:
        a = a.body(
            [
                for_each(Dense[2], lambda i: task(load, [i], [inp[i], tile_buf[i]])),
                record(e2),
                synchronize(e1),
            ]
        )
        b = b.body([synchronize(e2), task(store, [0], [tile_buf[0], out[0]]), record(e1)])
    return connect([a, b], [e1, e2]).named("events")


def tensors(rows: int = 6) -> dict[str, np.ndarray]:
    x = np.arange(rows * 8, dtype=np.float32).reshape(rows, 8)
    named = ("input", "output", "tile_buf", "result_buf")
    return {n: x.copy() if n == "input" else np.zeros_like(x) for n in named} | {
        "Q": np.ones((4, 4, 8), np.float32),
        "O": np.zeros((4, 4, 8), np.float32),
    }


def reference_outcome(prog, bindings) -> dict:
    names = {a.name for a in prog.args}
    try:
        prog.bind(**{k: v for k, v in bindings.items() if k in names}).execute()
    except Exception as error:  # the outcome: compared
        return {"error": f"{type(error).__name__}: {error}"}
    sim = prog._last()
    graph = sim.graph.build()
    tasks = graph.task_ids().tolist()
    return {
        "error": None,
        "graph": graph.to_text(),
        "schedule": [(sim.worker[t], sim.start[t], sim.end[t], sim.issue_seq[t]) for t in tasks],
        "makespan": prog.stats().makespan_cycles,
        "stalls": dict(prog.stats().stalls),
        "spans": list(sim.stall_spans),
    }


def native_outcome(native, prog, bindings) -> dict:
    names = set(native.arg_names)
    try:
        run = native.run_pipeline(
            {k: v for k, v in bindings.items() if k in names}, prog.config, prog.kernels, prog.keys
        )
    except Exception as error:  # the outcome: compared
        return {"error": f"{type(error).__name__}: {error}"}
    tasks = run.graph.task_ids().tolist()
    return {
        "error": None,
        "graph": run.graph.to_text(),
        "schedule": [(run.worker[t], run.start[t], run.end[t], run.issue_seq[t]) for t in tasks],
        "makespan": run.makespan,
        "stalls": run.stalls,
        "spans": run.stall_spans,
    }


def native_of(m, name: str):
    WspToTgPass().apply(Context(), m)
    CspToTgPass().apply(Context(), m)
    return compile_native(m, name)


def same_outcome(target, bindings, **options) -> dict:
    """Run ``target`` (a pipeline or its schedule) on both; assert equal; the reference's."""
    prog = target.compile(target="cpu_sim", mode="cycles", fast=False, **options)
    want = reference_outcome(prog, bindings)
    got = native_outcome(native_of(module(target), prog.name), prog, bindings)
    assert got == want
    return want


def test_a_bounded_queue_is_backpressure():
    outcome = same_outcome(megakernel(1), {"num_tiles": 6, **tensors()}, workers=3)
    assert outcome["stalls"]["channel_full"] > 0
    # the storer names compute and store by the tile the loader sent (forwarded coordinates)
    assert "@store_kernel" not in outcome["graph"] and "at(i = 5, replica = 0)" in outcome["graph"]
    assert outcome["makespan"] == 100 + 6 * 500 + 100 * 0


def test_capacity_two_overlaps_the_stages():
    outcome = same_outcome(megakernel(2), {"num_tiles": 6, **tensors()}, workers=3)
    assert outcome["makespan"] == 100 + 6 * 500


def test_capacity_zero_is_a_rendezvous():
    outcome = same_outcome(megakernel(0), {"num_tiles": 6, **tensors()}, workers=3)
    assert outcome["error"] is None and len(outcome["schedule"]) == 18


def test_one_worker():
    target = megakernel().schedule().dispatch(DispatchPolicy.round_robin(1))
    outcome = same_outcome(target, {"num_tiles": 6, **tensors()})
    assert outcome["makespan"] == 6 * 600


def test_try_send_drops_what_the_queue_cannot_take():
    outcome = same_outcome(megakernel(1, nonblocking=True), {"num_tiles": 6, **tensors()})
    assert len(outcome["schedule"]) < 18


def test_replicas_consume_a_shared_queue_until_it_is_closed():
    outcome = same_outcome(work_queue(3), {"batch": 4, **tensors()}, workers=4)
    assert len(outcome["schedule"]) == 16


def test_keys_over_the_replica_place_received_tasks():
    target = work_queue(4).schedule().dispatch(DispatchPolicy.dispatch_by(lambda replica: replica))
    outcome = same_outcome(target, {"batch": 3, **tensors()}, workers=4)
    assert "target(3)" in outcome["graph"]


def test_dispatch_threshold_over_the_replica_picks_the_pool_at_receipt():
    target = work_queue(2).schedule().dispatch_threshold(1, lambda replica: replica)
    outcome = same_outcome(target, {"batch": 3, **tensors()}, vector_workers=1, cube_workers=1)
    assert "pool(cube)" in outcome["graph"] and "pool(vector)" in outcome["graph"]


def test_work_stealing_and_priorities():
    target = work_queue(2, capacity=2).schedule().dispatch(DispatchPolicy.work_steal())
    same_outcome(target, {"batch": 4, **tensors()}, workers=3)


def test_events_are_rendezvous_and_wait_for_the_recorders_tasks():
    outcome = same_outcome(events(deadlock=False), tensors(), workers=2)
    assert outcome["stalls"]["event"] > 0


def test_a_deadlock_names_each_blocked_process_and_its_channel():
    outcome = same_outcome(events(deadlock=True), tensors(), workers=2)
    assert outcome["error"].startswith("Deadlock: deadlock: 2 blocked process(es)")
    assert "a waits in synchronize on @e1" in outcome["error"]


def test_synchronize_on_an_event_nobody_records_is_channel_closed():
    ev = Event("done")
    a = process("a").produces(ev).body([record(ev)])
    b = process("b").consumes(ev).body(for_each(Dense[2], lambda i: synchronize(ev)))
    outcome = same_outcome(connect([a, b], [ev]).named("closed"), {})
    assert outcome["error"].startswith("ChannelClosed: process b: channel @done is closed")


def test_a_send_nobody_receives_is_channel_closed():
    ch = Channel("ch", capacity=0)
    a = (
        process("a")
        .produces(ch)
        .body(for_each(Dense[3], lambda i: send(ch, task(load, [i], [inp[i], tile_buf[i]]))))
    )
    b = process("b").consumes(ch).body([])
    outcome = same_outcome(connect([a, b], [ch]).named("unheard"), tensors())
    assert outcome["error"].startswith("ChannelClosed: process a: channel @ch is closed")


def test_the_errors_are_the_reference_errors_types():
    with pytest.raises(Deadlock):
        run_native(events(deadlock=True), tensors())
    ev = Event("done")
    a = process("a").produces(ev).body([record(ev)])
    b = process("b").consumes(ev).body(for_each(Dense[2], lambda i: synchronize(ev)))
    with pytest.raises(ChannelClosed):
        run_native(connect([a, b], [ev]).named("closed"), {})


def run_native(target, bindings, **options):
    prog = target.compile(target="cpu_sim", mode="cycles", fast=False, **options)
    native = native_of(module(target), prog.name)
    return native.run_pipeline(bindings, prog.config, prog.kernels, prog.keys)


DIVIDE = """
wsp.kernel @k(i: index, x: out memref<8xf32>) unit(vector) cost(10)
csp.pipeline @divide(%n: index, %d: index, %X: memref<?x8xf32>) {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @producer produces(@c) {
    %ax = wsp.dense_dyn %n
    wsp.for_each %i in %ax named("i") : !wsp.dense_dyn {
      %q = arith.divsi %i, %d : index
      %x = wsp.view %X[%q] : memref<?x8xf32> -> memref<8xf32>
      csp.send @c {
        wsp.task @k(%q : index) resources(%x : memref<8xf32>)
      }
    }
  }
  csp.process @consumer consumes(@c) replicas(2) {
    csp.consume @c as %t : !wsp.task {
    }
  }
}
"""


def test_an_error_in_a_process_names_the_process():
    m = parse_located(DIVIDE, "divide.mlir")
    native = native_of(m, "divide")
    prog = compile_cpu_sim(parse_located(DIVIDE, "divide.mlir"), workload="divide", mode="cycles")
    x = np.zeros((4, 8), np.float32)
    ok = native.run_pipeline({"n": 4, "d": 1, "X": x}, prog.config, prog.kernels)
    assert ok.graph.num_tasks == 4
    with pytest.raises(NativeError, match=r"@divide: process producer: divide.mlir:8:\d+: "
                       r"arith.divsi: division by zero"):  # fmt: skip
        native.run_pipeline({"n": 4, "d": 0, "X": x}, prog.config, prog.kernels)
    # a region outside its tensor fails where the task is created: in the receiving replica
    with pytest.raises(NativeError, match=r"@divide: process consumer\[0\]: task 2: its region"):
        native.run_pipeline({"n": 4, "d": 1, "X": np.zeros((2, 8), np.float32)}, prog.config,
                            prog.kernels)  # fmt: skip
    # the same program runs again afterwards (nothing of the failed runs is left behind)
    again = native.run_pipeline({"n": 3, "d": 1, "X": x}, prog.config, prog.kernels)
    assert again.graph.num_tasks == 3


def test_too_many_replicas_are_refused_before_any_stack_is_made(monkeypatch):
    from pto_wsp.lowering.cpu import native_csp

    monkeypatch.setattr(native_csp, "MAX_PROCESSES", 4)
    with pytest.raises(NativeError, match="@work_queue has 6 processes .replicas counted."):
        run_native(work_queue(5), {"batch": 1, **tensors()})


def test_a_failing_cost_function_is_the_tasks_execution_error():
    @kernel(cost=lambda i, t: 10 + 10 // (i - 2))
    def fragile(i, t: Out[f32[8]]): ...

    ch = Channel("ch", capacity=1)
    a = (
        process("a")
        .produces(ch)
        .body(for_each(Dense[4], lambda i: send(ch, task(fragile, [i], [out[i]]))))
    )
    b = process("b").consumes(ch).body(consume(ch))
    outcome = same_outcome(connect([a, b], [ch]).named("costly"), tensors())
    assert outcome["error"].startswith("ExecutionError: ")


SCHEDULES = {
    "streams": lambda s: s.streams(2),
    "stream_by": lambda s: s.streams(3).stream_by(lambda i: i % 3),
    "depth_global": lambda s: s.pipeline_depth(1),
    "depth_per_stream": lambda s: s.streams(2).pipeline_depth(1, "per_stream"),
    "depth_per_pool": lambda s: s.pipeline_depth(1, "per_pool"),
    "batched": lambda s: s.timing(TimingPolicy.batched(4)),
    "interleaved": lambda s: s.streams(2).timing(TimingPolicy.interleaved(3)),
    "rate_limit": lambda s: s.timing(TimingPolicy.rate_limit(5000)),
    "batch_deps": lambda s: s.batch_deps(4),
    "window": lambda s: s.task_window(2),
    "window_abort": lambda s: s.task_window(2, overflow="abort"),
    "priority": lambda s: s.issue(IssuePolicy.deadline(lambda i: 10 - i)),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_every_schedule_directive_holds_in_a_pipeline(name):
    target = SCHEDULES[name](megakernel().schedule())
    outcome = same_outcome(target, {"num_tiles": 6, **tensors()}, workers=3)
    if name == "window_abort":
        assert outcome["error"].startswith("ResourceError: task window full")
    else:
        assert outcome["error"] is None


@pytest.mark.parametrize("name", ["megakernel", "work_steal", "attention_module"])
def test_example_pipelines_equal_the_reference(name):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    pipeline = "megakernel" if name == "attention_module" else name
    prog = compile_cpu_sim(parse_located(text, f"{name}.mlir"), workload=pipeline, mode="cycles",
                           fast=False)  # fmt: skip
    bindings = {}
    for arg in prog.args:
        if arg.kind == "tensor":
            bindings[arg.name] = np.zeros([s or 3 for s in arg.shape], np.float32)
        else:
            bindings[arg.name] = 3
    want = reference_outcome(prog, bindings)
    got = native_outcome(native_of(parse_located(text, f"{name}.mlir"), pipeline), prog, bindings)
    assert want["error"] is None and got == want


def test_a_region_past_two_to_the_31_keeps_its_numbers():
    """Regions are stored in int32 while they fit; one past 2^31 widens them, and the cost
    function still gets every region's numbers (a truncated offset would be refused)."""
    rows = 2**31 + 4
    big = Tensor("big", [None, 8], f32)

    @kernel(cost=lambda i, x: 10 + i + x.shape[0])
    def reach(i, x: In[f32[8]]): ...

    ch = Channel("ch", capacity=1)
    a = (
        process("a")
        .produces(ch)
        .body(for_each(Dense[4], lambda i: send(ch, task(reach, [i], [big[i + rows - 6]]))))
    )
    b = process("b").consumes(ch).body(consume(ch))
    data = np.lib.stride_tricks.as_strided(np.arange(8, dtype=np.float32), (rows, 8), (4, 0))
    outcome = same_outcome(connect([a, b], [ch]).named("far"), {"big": data})
    assert outcome.get("error") is None
