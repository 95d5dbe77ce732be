"""Events of task-generation programs, ops of the ``tg`` dialect (docs/tg.md "Events").

``tg.event_record "e" [stream(N)]`` makes event e stand for every task created so far on
stream N (without a stream: every task created so far); ``tg.event_wait "e" [stream(N)]``
makes every task created later on stream N (without a stream: every later task) wait for
e's tasks; ``%p = tg.event_query "e"`` is whether e has been recorded so far. They lower
``wsp.record`` / ``wsp.wait`` / ``wsp.barrier`` / ``wsp.query`` (streams and events of
ordinary workloads, seed 001 §6); a pipeline's events are queues (``tg.record``).

The ops are defined here (tg.py is large) and listed in the ``TG`` dialect.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr, i1, i64
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import tg
from pto_wsp.dialects.wsp import _parse_attrs, enclosing
from pto_wsp.dialects.wsp_events import check_recorded, check_stream, parse_stream, print_stream


def _program(op: Operation) -> Operation | None:
    """The tg.program around op; events stand in its main body, not in a pipeline's process."""
    tg._inside_program(op)
    if isinstance(enclosing(op, tg.ProcessOp), tg.ProcessOp):
        raise VerifyException(f"{op.name} stands in a program's body, not in a tg.process")
    return enclosing(op, tg.ProgramOp)


def _where(program: Operation | None) -> str:
    return f"@{program.sym_name.data}" if isinstance(program, tg.ProgramOp) else "the program"


class _EventOp(IRDLOperation):
    """Shared shape of record and wait: an event name and an optional stream."""

    event = prop_def(StringAttr)
    stream = opt_prop_def(IntegerAttr[IntegerType])

    def __init__(self, event: str, stream: int | None = None):
        props: dict[str, Attribute] = {"event": StringAttr(event)}
        if stream is not None:
            props["stream"] = IntegerAttr(stream, i64)
        super().__init__(properties=props)

    def verify_(self) -> None:
        _program(self)
        if self.stream is not None:
            check_stream(self.name, self.stream.value.data)

    @classmethod
    def parse(cls, parser: Parser):
        event = parser.parse_str_literal(" (the event name)")
        op = cls(event, parse_stream(parser))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.event.data)
        print_stream(printer, self.stream)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class EventRecordOp(_EventOp):
    """``tg.event_record "e" [stream(N)]``: e stands for the tasks created so far (on N)."""

    name = "tg.event_record"


@irdl_op_definition
class EventWaitOp(_EventOp):
    """``tg.event_wait "e" [stream(N)]``: later tasks (on N) wait for e's tasks."""

    name = "tg.event_wait"

    def verify_(self) -> None:
        super().verify_()
        program = _program(self)
        check_recorded(self, program, EventRecordOp.name, _where(program))


@irdl_op_definition
class EventQueryOp(IRDLOperation):
    """``%p = tg.event_query "e"``: whether e has been recorded so far (at generation)."""

    name = "tg.event_query"

    event = prop_def(StringAttr)
    result = result_def(i1)

    def __init__(self, event: str):
        super().__init__(properties={"event": StringAttr(event)}, result_types=[i1])

    def verify_(self) -> None:
        program = _program(self)
        check_recorded(self, program, EventRecordOp.name, _where(program))

    @classmethod
    def parse(cls, parser: Parser) -> EventQueryOp:
        op = cls(parser.parse_str_literal(" (the event name)"))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.event.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)


EVENT_OPS = [EventRecordOp, EventWaitOp, EventQueryOp]
EVENT_OPS_TYPES = (EventRecordOp, EventWaitOp, EventQueryOp)


def uses_events(program: tg.ProgramOp, module: ModuleOp | None) -> bool:
    """Whether ``program`` or a program it calls records, waits for or queries events (its
    builder then tracks streams from the first task: ``use_events``)."""
    todo, seen = [program], set()
    while todo:
        p = todo.pop()
        seen.add(p.sym_name.data)
        for op in p.walk():
            if isinstance(op, EVENT_OPS_TYPES):
                return True
            if isinstance(op, tg.CallOp) and module is not None:
                name = op.callee.root_reference.data
                if name not in seen:
                    todo += [
                        o
                        for o in module.ops
                        if isinstance(o, tg.ProgramOp) and o.sym_name.data == name
                    ]
    return False
