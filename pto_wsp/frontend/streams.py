"""Streams and events in ordinary workloads (seed 001 §6; docs/semantics.md "Streams and events").

``Stream(1).issue(w)`` issues w's tasks on stream 1; ``s.record(e)`` records event e after the
tasks issued on s so far (``record(e)`` outside a pipeline: after every task so far);
``stream_wait(s, e)`` / ``s.wait(e)`` makes s's later tasks wait for e; ``synchronize(e)``
makes every later task wait for e; ``s.synchronize()`` for every task issued on s so far;
``barrier(e1, e2)`` for the events (``barrier()``: for every task so far); ``query(e)`` is a
predicate for ``cond``: whether e has been recorded earlier in creation order. Inside a
pipeline's process, ``record`` and ``synchronize`` are the rendezvous of csp events instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.ir import Operation

from pto_wsp.dialects import wsp_events as ops
from pto_wsp.errors import CompileError

from .csp import Channel, _channel
from .expressions import Expr, is_int
from .workloads import Workload, as_workloads

if TYPE_CHECKING:
    from .lowering import Lowerer


def _event(event: Any, construct: str) -> str:
    """The name of an Event (or of the event a name gives)."""
    if isinstance(event, str):
        return event
    return _channel(event, construct, event=True).name


class Stream:
    """A stream of an ordinary workload: an ordered sequence of task issues (seed 001 §6.1)."""

    def __init__(self, index: int):
        if not is_int(index) or int(index) < 0:
            raise CompileError("Stream", f"a stream is an int >= 0, got {index!r}")
        self.index = int(index)

    def id(self) -> int:
        """The stream's index (seed 001 ``StreamId``)."""
        return self.index

    def issue(self, *workloads: Any) -> Workload:
        """The tasks of ``workloads`` issue on this stream (``wsp.stream N``)."""
        items = (
            list(workloads[0])
            if len(workloads) == 1 and isinstance(workloads[0], list)
            else workloads
        )
        if not items:
            raise CompileError("stream", f"{self!r}.issue() takes at least one workload")
        return StreamIssue(self.index, as_workloads(list(items), "stream"))

    def record(self, event: Any) -> Workload:
        """Record ``event`` after the tasks issued on this stream so far."""
        return EventRecord(_event(event, "record"), self.index)

    def wait(self, event: Any) -> Workload:
        """This stream's later tasks wait for ``event`` (``stream_wait``)."""
        return EventWait(_event(event, "stream_wait"), self.index)

    def synchronize(self) -> Workload:
        """Every later task waits for the tasks issued on this stream so far."""
        return Barrier([], [self.index])

    def __repr__(self) -> str:
        return f"Stream({self.index})"


def _stream(stream: Any, construct: str) -> int:
    if isinstance(stream, Stream):
        return stream.index
    raise CompileError(construct, f"expected a Stream, got {stream!r}")


def stream_wait(stream: Any, event: Any) -> Workload:
    """The later tasks of ``stream`` wait for ``event`` (seed 001 §6.3)."""
    return EventWait(_event(event, "stream_wait"), _stream(stream, "stream_wait"))


def barrier(*events: Any) -> Workload:
    """Every later task waits for ``events`` (none given: for every task created so far)."""
    items = list(events[0]) if len(events) == 1 and isinstance(events[0], list) else events
    names = [_event(e, "barrier") for e in items]
    if len(set(names)) != len(names):
        raise CompileError("barrier", f"barrier names an event twice: {', '.join(names)}")
    return Barrier(names, [])


def query(event: Any) -> Expr:
    """Whether ``event`` has been recorded earlier in the program (a predicate for ``cond``)."""
    return EventQuery(_event(event, "query"))


def record_outside_pipeline(event: Channel) -> Workload:
    """``record(ev)`` in an ordinary workload: ``wsp.record`` after every task so far."""
    return EventRecord(event.name, None)


class StreamIssue(Workload):
    """``Stream(n).issue(w)``: ``wsp.stream n { w }``."""

    construct = "stream"

    def __init__(self, stream: int, items: Sequence[Workload]):
        super().__init__()
        self.stream, self.items = stream, list(items)

    def children(self) -> list[Workload]:
        return self.items

    def lower_into(self, lowerer: Lowerer) -> None:
        op = ops.StreamOp(self.stream)
        lowerer._append(op)
        lowerer._nested(op, op.body.block, None, lambda: lowerer.emit_all(self.items))


class EventRecord(Workload):
    """``s.record(e)`` / ``record(e)``: ``wsp.record "e" [stream(n)]``."""

    construct = "record"

    def __init__(self, event: str, stream: int | None):
        super().__init__()
        self.event, self.stream = event, stream

    def lower_into(self, lowerer: Lowerer) -> None:
        lowerer._append(ops.RecordOp(self.event, self.stream))


class EventWait(Workload):
    """``stream_wait(s, e)`` / ``synchronize(e)``: ``wsp.wait "e" [stream(n)]``."""

    construct = "synchronize"

    def __init__(self, event: str, stream: int | None):
        super().__init__()
        self.event, self.stream = event, stream

    def lower_into(self, lowerer: Lowerer) -> None:
        lowerer._append(ops.WaitOp(self.event, self.stream))


class Barrier(Workload):
    """``barrier(...)`` / ``s.synchronize()``: ``wsp.barrier``."""

    construct = "barrier"

    def __init__(self, events: list[str], streams: list[int]):
        super().__init__()
        self.events, self.streams = events, streams

    def lower_into(self, lowerer: Lowerer) -> None:
        lowerer._append(ops.BarrierOp(self.events, self.streams))


class EventQuery(Expr):
    """``query(e)``: ``wsp.query "e"``, an i1 evaluated where it is used (creation order)."""

    is_bool = True

    def __init__(self, event: str):
        super().__init__()
        self.event = event

    @property
    def key(self) -> tuple:
        # Each query is its own value: the same event queried later may have been recorded.
        return ("query", id(self))

    def build_here(self) -> Operation:
        """The op, placed by the lowering where the query is used (its place is its value)."""
        return ops.QueryOp(self.event)

    def __repr__(self) -> str:
        return f"query({self.event!r})"
