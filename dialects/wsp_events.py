"""Streams and events of ordinary workloads (seed 001 §6), ops of the ``wsp`` dialect.

``wsp.stream 1 { w }`` issues w's tasks on stream 1; ``wsp.record "e" stream(1)`` records
event e at stream 1's current position (without ``stream``: after every task created so far);
``wsp.wait "e" stream(1)`` makes stream 1's later tasks wait for e (``stream_wait``; without
``stream``, every later task: ``synchronize``); ``wsp.barrier events("a", "b") streams(0)``
makes every later task wait for the listed events and for every task issued on the listed
streams so far (neither: for every task created so far); ``%p = wsp.query "e"`` is whether
e has been recorded earlier in creation order. docs/semantics.md "Streams and events" gives
the order rules. Events are named in a workload: they are not channels (a pipeline's events
are ``csp.record`` / ``csp.synchronize`` on ``!csp.signal`` channels).

The ops are defined here (wsp.py is large) and listed in the ``WSP`` dialect.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, IntegerType, StringAttr, i1, i64
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import wsp
from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region


def parse_stream(parser: Parser) -> int | None:
    """An optional ``stream(N)`` clause."""
    if not parser.parse_optional_keyword("stream"):
        return None
    with parser.in_parens():
        return parse_int64(parser, " (a stream index)")


def print_stream(printer: Printer, stream: IntegerAttr | None) -> None:
    if stream is not None:
        printer.print_string(f" stream({stream.value.data})")


def check_stream(what: str, stream: int) -> None:
    if stream < 0:
        raise VerifyException(f"{what}: a stream index is >= 0, got {stream}")


def recorded_events(root: Operation, record_name: str) -> set[str]:
    """The names of the events the ``record_name`` ops under ``root`` record."""
    return {op.event.data for op in root.walk() if op.name == record_name}


def check_recorded(op: Operation, root: Operation | None, record_name: str, where: str) -> None:
    """An event waited on or queried is recorded somewhere in the same workload/program."""
    if root is None:
        return
    name = op.event.data  # type: ignore[attr-defined]
    if name not in recorded_events(root, record_name):
        raise VerifyException(f"event '{name}' is never recorded in {where}")


def _workload(op: Operation) -> wsp.WorkloadOp | None:
    found = wsp.enclosing(op, wsp.WorkloadOp)
    return found if isinstance(found, wsp.WorkloadOp) else None


def _not_in_pipeline(op: Operation) -> None:
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ("csp.process", "csp.pipeline"):
            raise VerifyException(
                f"{op.name} is for ordinary workloads; in a pipeline an event is a channel of "
                "!csp.signal (csp.record / csp.synchronize)"
            )
        parent = parent.parent_op()


def _where(op: Operation) -> str:
    w = _workload(op)
    return f"@{w.sym_name.data}" if w is not None else "this workload"


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@irdl_op_definition
class StreamOp(IRDLOperation):
    """``wsp.stream 1 { w }``: the tasks of w issue on stream 1 (seed 001 §6.1 ``issue``)."""

    name = "wsp.stream"

    stream = prop_def(IntegerAttr[IntegerType])
    body = region_def("single_block")

    traits = traits_def(wsp.WorkloadExpr())

    def __init__(self, stream: int, body: Region | None = None):
        body = body or Region(Block())
        wsp._ensure_yield(body)
        super().__init__(properties={"stream": _int(stream)}, regions=[body])

    def verify_(self) -> None:
        _not_in_pipeline(self)
        check_stream("wsp.stream", self.stream.value.data)

    @classmethod
    def parse(cls, parser: Parser) -> StreamOp:
        stream = parse_int64(parser, " (a stream index)")
        op = cls(stream, parse_single_block_region(parser))
        op.attributes |= wsp._parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.stream.value.data} ")
        wsp._print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


class _EventOp(IRDLOperation):
    """Shared shape of record and wait: an event name and an optional stream."""

    event = prop_def(StringAttr)
    stream = opt_prop_def(IntegerAttr[IntegerType])

    traits = traits_def(wsp.WorkloadExpr())

    def __init__(self, event: str, stream: int | None = None):
        props: dict[str, Attribute] = {"event": StringAttr(event)}
        if stream is not None:
            props["stream"] = _int(stream)
        super().__init__(properties=props)

    def verify_(self) -> None:
        _not_in_pipeline(self)
        if self.stream is not None:
            check_stream(self.name, self.stream.value.data)

    @classmethod
    def parse(cls, parser: Parser):
        event = parser.parse_str_literal(" (the event name)")
        op = cls(event, parse_stream(parser))
        op.attributes |= wsp._parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.event.data)
        print_stream(printer, self.stream)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class RecordOp(_EventOp):
    """``wsp.record "e" [stream(N)]``: event e stands for every task issued on stream N so far
    (without a stream: every task created so far)."""

    name = "wsp.record"


@irdl_op_definition
class WaitOp(_EventOp):
    """``wsp.wait "e" [stream(N)]``: stream N's later tasks (without a stream: every later
    task) start after e's tasks have completed (``stream_wait`` / ``synchronize``)."""

    name = "wsp.wait"

    def verify_(self) -> None:
        super().verify_()
        check_recorded(self, _workload(self), RecordOp.name, _where(self))


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``wsp.barrier [events("a", ...)] [streams(0, ...)]``: every later task starts after the
    listed events and every task issued so far on the listed streams; with neither, after
    every task created so far."""

    name = "wsp.barrier"

    events = prop_def(ArrayAttr[StringAttr])
    streams = prop_def(ArrayAttr[IntegerAttr[IntegerType]])

    traits = traits_def(wsp.WorkloadExpr())

    def __init__(self, events: Sequence[str] = (), streams: Sequence[int] = ()):
        super().__init__(
            properties={
                "events": ArrayAttr([StringAttr(e) for e in events]),
                "streams": ArrayAttr([_int(s) for s in streams]),
            }
        )

    @property
    def event_names(self) -> list[str]:
        return [e.data for e in self.events]

    @property
    def stream_list(self) -> list[int]:
        return [s.value.data for s in self.streams]

    def verify_(self) -> None:
        _not_in_pipeline(self)
        for what, items in (("an event", self.event_names), ("a stream", self.stream_list)):
            if len(set(items)) != len(items):
                raise VerifyException(f"wsp.barrier names {what} twice")
        for s in self.stream_list:
            check_stream("wsp.barrier", s)
        root = _workload(self)
        if root is not None:
            known = recorded_events(root, RecordOp.name)
            for e in self.event_names:
                if e not in known:
                    raise VerifyException(f"event '{e}' is never recorded in {_where(self)}")

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        events: list[str] = []
        streams: list[int] = []
        if parser.parse_optional_keyword("events"):
            events = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_str_literal
            )
        if parser.parse_optional_keyword("streams"):
            streams = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parse_int64(parser, " (a stream index)")
            )
        op = cls(events, streams)
        op.attributes |= wsp._parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        if self.events.data:
            printer.print_string(" events(")
            printer.print_list(self.event_names, printer.print_string_literal)
            printer.print_string(")")
        if self.streams.data:
            printer.print_string(f" streams({', '.join(str(s) for s in self.stream_list)})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class QueryOp(IRDLOperation):
    """``%p = wsp.query "e"``: whether e has been recorded earlier in the program's creation
    order (decided when the tasks are generated, never by their progress)."""

    name = "wsp.query"

    event = prop_def(StringAttr)
    result = result_def(i1)

    def __init__(self, event: str):
        super().__init__(properties={"event": StringAttr(event)}, result_types=[i1])

    def verify_(self) -> None:
        _not_in_pipeline(self)
        check_recorded(self, _workload(self), RecordOp.name, _where(self))

    @classmethod
    def parse(cls, parser: Parser) -> QueryOp:
        op = cls(parser.parse_str_literal(" (the event name)"))
        op.attributes |= wsp._parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.event.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)


EVENT_OPS = [StreamOp, RecordOp, WaitOp, BarrierOp, QueryOp]
