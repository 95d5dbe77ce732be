"""How ``wsp-to-tg`` lowers streams and events of ordinary workloads (docs/semantics.md
"Streams and events"): ``wsp.stream N`` gives its tasks ``stream(N)``; ``wsp.record`` and
``wsp.wait`` become ``tg.event_record`` and ``tg.event_wait``; ``wsp.query`` becomes
``tg.event_query``; ``wsp.barrier`` waits for its events, and for each listed stream (or,
with none listed, for every task so far) records a fresh event and waits for it.

The functions take the lowering (passes/wsp_to_tg.py ``_Lowering``), the op, the emitter and
the environment, like its ``_lower_<construct>`` methods.
"""

from __future__ import annotations

from typing import Any

from pto_wsp.dialects import tg_events, wsp_events


def lower_stream(lowering: Any, op: wsp_events.StreamOp, emit: Any, env: Any) -> None:
    """The body's tasks issue on the stream: the environment carries it to them."""
    stream = op.stream.value.data
    lowering.max_stream = max(lowering.max_stream, stream)
    outer = env.stream
    env.stream = stream
    try:
        lowering._block(op.body.block, emit, env)
    finally:
        env.stream = outer


def lower_record(lowering: Any, op: wsp_events.RecordOp, emit: Any, env: Any) -> None:
    emit.op(tg_events.EventRecordOp(op.event.data, _stream(op)))


def lower_wait(lowering: Any, op: wsp_events.WaitOp, emit: Any, env: Any) -> None:
    emit.op(tg_events.EventWaitOp(op.event.data, _stream(op)))


def lower_query(lowering: Any, op: wsp_events.QueryOp, emit: Any, env: Any) -> None:
    env.values[op.result] = emit.value(tg_events.EventQueryOp(op.event.data))


def lower_barrier(lowering: Any, op: wsp_events.BarrierOp, emit: Any, env: Any) -> None:
    """Every later task waits: for the events, for the streams' tasks so far, or for all."""
    for event in op.event_names:
        emit.op(tg_events.EventWaitOp(event))
    streams: list[int | None] = list(op.stream_list)
    if not op.event_names and not streams:
        streams = [None]
    for stream in streams:
        name = f"barrier.{lowering.barriers}" + ("" if stream is None else f".s{stream}")
        lowering.barriers += 1
        emit.op(tg_events.EventRecordOp(name, stream))
        emit.op(tg_events.EventWaitOp(name))


def _stream(op: Any) -> int | None:
    return None if op.stream is None else op.stream.value.data


LOWERINGS = {
    wsp_events.StreamOp: lower_stream,
    wsp_events.RecordOp: lower_record,
    wsp_events.WaitOp: lower_wait,
    wsp_events.QueryOp: lower_query,
    wsp_events.BarrierOp: lower_barrier,
}
