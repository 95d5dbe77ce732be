"""The ``csp`` dialect: pipelines — workloads made of processes talking over channels.

Seeds 000 §5 and 001 §4, §6. A pipeline (``csp.pipeline``) is a cpu-level workload: a symbol
with arguments, like ``wsp.workload``, whose body declares channels (``csp.channel``) and
processes (``csp.process``). It runs all its processes (``replicas`` copies of each)
concurrently and finishes when every process has finished.

Channels carry workloads, not raw data. ``csp.send @ch { w }`` packages the tasks of the
workload expression ``w`` as one message; each task keeps its coordinates — the indices of
the ``wsp`` loops around the send inside its process, outermost first, where an enclosing
``csp.consume`` contributes the coordinates of the message it received (so a forwarded tile
keeps its tile index). A send blocks while the channel holds ``capacity`` messages
(backpressure); capacity 0 is a rendezvous: the send completes when a consumer takes it.

The process that receives a message issues its tasks, so a channel of tasks with several
consumers is a work queue whose tasks run on whichever consumer took them (seed 001 §9.4).
``csp.consume @ch as %t : !wsp.task { body }`` receives messages until the channel is closed
— every producer process (all replicas) has finished — and for each one issues its tasks,
then runs ``body`` with ``%t`` standing for the received task; ``csp.coord %t[k]`` is its
k-th coordinate. A message may go to any of the consumers of its channel, never to two.

Events are channels of ``!csp.signal`` with capacity 0 (seed 001 §6.2, Event =
Channel<Signal, 0>): ``csp.record @ev`` sends a signal and blocks until a
``csp.synchronize @ev`` takes it; ``csp.synchronize @ev`` blocks until a record arrives.

A process body is declarative (``wsp`` expressions and the ops above, no ``scf`` loops or
``cf`` branches) and runs as one thread of control: it creates tasks, sends, receives and
signals in program order. The tasks it creates run under the ``wsp`` rules (structural
order of ``for_each``/``sequential``, data order between overlapping regions); channels and
events add the order of CSP. Process bodies may use the pipeline's arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    FlatSymbolRefAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region
from pto_wsp.dialects.traits import IsolatedScopes

from .wsp import (
    TaskType,
    WorkloadExpr,
    YieldOp,
    _ensure_yield,
    _parse_attrs,
    _parse_signature,
    _print_body,
    _verify_arg_names,
    enclosing,
)

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class SignalType(ParametrizedAttribute, TypeAttribute):
    """The message of an event: an empty marker (seed 001 §6.2 ``Signal``)."""

    name = "csp.signal"


# --------------------------------------------------------------------------- helpers


def _symbol_ref(ref: str | StringAttr | SymbolRefAttr) -> SymbolRefAttr:
    if isinstance(ref, SymbolRefAttr):
        return ref
    return SymbolRefAttr(ref.data if isinstance(ref, StringAttr) else ref)


def _ref_name(ref: SymbolRefAttr) -> str:
    return ref.root_reference.data


def _parse_symbol_list(parser: Parser) -> list[str]:
    """``(@a, @b)``."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_symbol_name().data
    )


def _print_symbol_list(printer: Printer, keyword: str, refs: ArrayAttr[SymbolRefAttr]) -> None:
    if not refs.data:
        return
    printer.print_string(f" {keyword}(")
    printer.print_list(refs.data, lambda r: printer.print_symbol_name(_ref_name(r)))
    printer.print_string(")")


def _parse_channel_ref(parser: Parser) -> str:
    return parser.parse_symbol_name().data


def _verify_channel_use(
    op: Operation, channel: SymbolRefAttr, verb: str, clause: str, signal: bool
) -> ChannelOp:
    """Check that a messaging op names a channel of its pipeline listed in its process's ``clause``.

    ``verb`` names what the op does in messages ("sends on"); ``signal`` says whether the op
    needs an event (record/synchronize) or a channel of workloads (send/consume). Returns the
    channel.
    """
    ch = _ref_name(channel)
    process = enclosing(op, ProcessOp)
    if not isinstance(process, ProcessOp):
        raise VerifyException(f"{op.name} @{ch} must be inside a csp.process")
    proc = process.sym_name.data
    pipeline = process.parent_op()
    if not isinstance(pipeline, PipelineOp):
        raise VerifyException(f"{op.name} @{ch}: process @{proc} is not inside a csp.pipeline")
    target = pipeline.channel(ch)
    if target is None:
        where = pipeline.sym_name.data
        raise VerifyException(
            f"{op.name} refers to @{ch}, which is not a channel of pipeline @{where}"
        )
    listed = process.produces if clause == "produces" else process.consumes
    if channel not in listed.data:
        raise VerifyException(f"process @{proc} {verb} @{ch} but does not list it in {clause}(...)")
    is_event = target.is_event
    if signal and not is_event:
        raise VerifyException(
            f"{op.name} needs an event (a !csp.signal channel), "
            f"but @{ch} carries {target.element_type}"
        )
    if not signal and is_event:
        raise VerifyException(
            f"{op.name} @{ch}: @{ch} is an event (!csp.signal); "
            "use csp.record / csp.synchronize on events"
        )
    return target


# --------------------------------------------------------------------------- definitions


@irdl_op_definition
class PipelineOp(IRDLOperation):
    """``csp.pipeline @name(%arg: T, ...) { channels and processes }``: a CSP workload.

    Arguments are like a ``wsp.workload``'s (axes sizes, tensors, scalars) and keep their
    names; every process body may use them. The pipeline is a symbol table of its channels
    and processes.
    """

    name = "csp.pipeline"

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    arg_names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedScopes())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        arg_names: Sequence[str],
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=arg_types)
            for arg, hint in zip(block.args, arg_names):
                arg.name_hint = hint
            block.add_op(YieldOp())
            body = Region(block)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(list(arg_types), []),
                "arg_names": ArrayAttr([StringAttr(n) for n in arg_names]),
            },
            regions=[body],
        )

    def arg(self, name: str) -> SSAValue:
        """The block argument called ``name``."""
        names = [n.data for n in self.arg_names]
        return self.body.block.args[names.index(name)]

    def channels(self) -> list[ChannelOp]:
        """The channels, in order."""
        return [op for op in self.body.block.ops if isinstance(op, ChannelOp)]

    def processes(self) -> list[ProcessOp]:
        """The processes, in order."""
        return [op for op in self.body.block.ops if isinstance(op, ProcessOp)]

    def channel(self, name: str) -> ChannelOp | None:
        """The channel called ``name``, if any."""
        return next((c for c in self.channels() if c.sym_name.data == name), None)

    def verify_(self) -> None:
        name = self.sym_name.data
        _verify_arg_names("pipeline", self.arg_names, self.function_type.inputs.data)
        if self.function_type.outputs.data:
            raise VerifyException("a pipeline has no results")
        block_types = tuple(a.type for a in self.body.block.args)
        if block_types != tuple(self.function_type.inputs.data):
            raise VerifyException("entry block arguments must match the pipeline signature")
        for op in self.body.block.ops:
            if not isinstance(op, ChannelOp | ProcessOp | YieldOp):
                raise VerifyException(
                    f"csp.pipeline @{name} holds only csp.channel and csp.process ops, "
                    f"got {op.name}"
                )
        processes = self.processes()
        for channel in self.channels():
            ref = SymbolRefAttr(channel.sym_name)
            ch = channel.sym_name.data
            if not any(ref in p.produces.data for p in processes):
                raise VerifyException(
                    f"channel @{ch} has no producer: no csp.process of @{name} lists it in produces"
                )
            if not any(ref in p.consumes.data for p in processes):
                raise VerifyException(
                    f"channel @{ch} has no consumer: no csp.process of @{name} lists it in consumes"
                )

    @classmethod
    def parse(cls, parser: Parser) -> PipelineOp:
        name = parser.parse_symbol_name().data
        names, types, _, args = _parse_signature(parser, with_access=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parse_single_block_region(parser, args)
        _ensure_yield(body)
        op = cls(name, types, names, body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for arg, hint in zip(self.body.block.args, self.arg_names.data):
            arg.name_hint = hint.data
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


class BoundedQueueOp(IRDLOperation):
    """What ``csp.channel`` and ``tg.queue`` share: a named bounded queue of messages.

    Subclasses declare ``sym_name``, ``element_type`` and ``capacity``. A queue carries tasks
    (``!wsp.task``) or signals (``!csp.signal``, an event: capacity 0).
    """

    def __init__(self, name: str, element_type: Attribute, capacity: int | None = None):
        if capacity is None:
            capacity = 0 if isinstance(element_type, SignalType) else 1
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "element_type": element_type,
                "capacity": IntegerAttr(capacity, i64),
            }
        )

    @property
    def is_event(self) -> bool:
        """Whether this queue is an event (carries ``!csp.signal``)."""
        return isinstance(self.element_type, SignalType)

    def verify_payload(self, noun: str, tasks: str) -> None:
        """The element type and capacity rules; ``noun`` and ``tasks`` word the errors."""
        name = self.sym_name.data
        if not isinstance(self.element_type, TaskType | SignalType):
            raise VerifyException(
                f"{noun} @{name} carries {tasks} (!wsp.task) or signals (!csp.signal), "
                f"not {self.element_type}"
            )
        capacity = self.capacity.value.data
        if capacity < 0:
            raise VerifyException(f"{noun} @{name} capacity must be >= 0, got {capacity}")
        if self.is_event and capacity != 0:
            raise VerifyException(
                f"{noun} @{name} of !csp.signal is an event and must have capacity 0, "
                f"got {capacity}"
            )


@irdl_op_definition
class ChannelOp(BoundedQueueOp):
    """``csp.channel @name : !wsp.task capacity(2)``: a bounded channel of a pipeline.

    It holds at most ``capacity`` messages; capacity 0 is a rendezvous. A channel of
    ``!csp.signal`` is an event and must have capacity 0.
    """

    name = "csp.channel"

    sym_name = prop_def(StringAttr)
    element_type = prop_def(TypeAttribute)
    capacity = prop_def(IntegerAttr[IntegerType])

    traits = traits_def(SymbolOpInterface())

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), PipelineOp):
            raise VerifyException(
                f"csp.channel @{self.sym_name.data} must be directly inside a csp.pipeline"
            )
        self.verify_payload("channel", "workloads")

    @classmethod
    def parse(cls, parser: Parser) -> ChannelOp:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation(":")
        element_type = parser.parse_type()
        parser.parse_keyword("capacity")
        with parser.in_parens():
            capacity = parse_int64(parser)
        op = cls(name, element_type, capacity)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.element_type)
        printer.print_string(f" capacity({self.capacity.value.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


#: Imperative control flow a process body must not use (seed 001 §4.2).
_IMPERATIVE_OPS = ("scf.for", "scf.while", "scf.parallel")


@irdl_op_definition
class ProcessOp(IRDLOperation):
    """``csp.process @p consumes(@a) produces(@b) replicas(4) { body }``: a pipeline process.

    ``consumes``/``produces`` list the channels it receives from / sends to; ``replicas``
    copies run concurrently (seed 001 §4.6). The body is declarative.
    """

    name = "csp.process"

    sym_name = prop_def(StringAttr)
    consumes = prop_def(ArrayAttr[FlatSymbolRefAttr])
    produces = prop_def(ArrayAttr[FlatSymbolRefAttr])
    replicas = prop_def(IntegerAttr[IntegerType])
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface())

    def __init__(
        self,
        name: str,
        consumes: Sequence[str | SymbolRefAttr] = (),
        produces: Sequence[str | SymbolRefAttr] = (),
        replicas: int = 1,
        body: Region | None = None,
    ):
        body = body or Region(Block())
        _ensure_yield(body)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "consumes": ArrayAttr([_symbol_ref(c) for c in consumes]),
                "produces": ArrayAttr([_symbol_ref(c) for c in produces]),
                "replicas": IntegerAttr(replicas, i64),
            },
            regions=[body],
        )

    def verify_(self) -> None:
        name = self.sym_name.data
        pipeline = self.parent_op()
        if not isinstance(pipeline, PipelineOp):
            raise VerifyException(f"csp.process @{name} must be directly inside a csp.pipeline")
        if self.replicas.value.data < 1:
            raise VerifyException(
                f"process @{name} replicas must be >= 1, got {self.replicas.value.data}"
            )
        for clause, refs in (("consumes", self.consumes), ("produces", self.produces)):
            seen: set[str] = set()
            for ref in refs.data:
                ch = _ref_name(ref)
                if pipeline.channel(ch) is None:
                    raise VerifyException(
                        f"process @{name} {clause} @{ch}, which is not a channel of "
                        f"pipeline @{pipeline.sym_name.data}"
                    )
                if ch in seen:
                    raise VerifyException(f"process @{name} lists @{ch} twice in {clause}")
                seen.add(ch)
        for op in self.body.walk():
            if op.name in _IMPERATIVE_OPS or op.name.startswith("cf."):
                raise VerifyException(
                    f"process @{name} contains {op.name}: process bodies are declarative: "
                    "use wsp.for_each / csp.consume"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ProcessOp:
        name = parser.parse_symbol_name().data
        consumes: list[str] = []
        produces: list[str] = []
        replicas = 1
        if parser.parse_optional_keyword("consumes"):
            consumes = _parse_symbol_list(parser)
        if parser.parse_optional_keyword("produces"):
            produces = _parse_symbol_list(parser)
        if parser.parse_optional_keyword("replicas"):
            with parser.in_parens():
                replicas = parse_int64(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parse_single_block_region(parser)
        op = cls(name, consumes, produces, replicas, body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        _print_symbol_list(printer, "consumes", self.consumes)
        _print_symbol_list(printer, "produces", self.produces)
        if self.replicas.value.data != 1:
            printer.print_string(f" replicas({self.replicas.value.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


# --------------------------------------------------------------------------- messaging

#: The ops that talk over channels; a message (a send's body) holds none of them.
_MESSAGING_OPS = ("csp.send", "csp.consume", "csp.record", "csp.synchronize")


@irdl_op_definition
class SendOp(IRDLOperation):
    """``csp.send @ch { w }``: send the tasks of ``w`` as one message; blocks while ``@ch`` is full.

    The receiving process issues the tasks, which keep the sender's loop coordinates.
    ``csp.send @ch nonblocking { w }`` (seed 001 §4.3 ``try_send``) never blocks: when ``@ch``
    cannot take the message at once (no receiver waits and its buffer is full), the message is
    dropped and its tasks are never created.
    """

    name = "csp.send"

    channel = prop_def(FlatSymbolRefAttr)
    nonblocking = opt_prop_def(UnitAttr)
    body = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(
        self, channel: str | SymbolRefAttr, body: Region | None = None, nonblocking: bool = False
    ):
        body = body or Region(Block())
        _ensure_yield(body)
        properties: dict[str, Attribute] = {"channel": _symbol_ref(channel)}
        if nonblocking:
            properties["nonblocking"] = UnitAttr()
        super().__init__(properties=properties, regions=[body])

    def verify_(self) -> None:
        _verify_channel_use(self, self.channel, "sends on", "produces", signal=False)
        for op in self.body.walk():
            if op.name in _MESSAGING_OPS:
                raise VerifyException(
                    f"csp.send @{_ref_name(self.channel)}: a message holds tasks, "
                    f"its body must not contain {op.name}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> SendOp:
        channel = _parse_channel_ref(parser)
        nonblocking = parser.parse_optional_keyword("nonblocking") is not None
        body = parse_single_block_region(parser)
        op = cls(channel, body, nonblocking)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.channel))
        printer.print_string(" nonblocking " if self.nonblocking is not None else " ")
        _print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ConsumeOp(IRDLOperation):
    """``csp.consume @ch as %t : !wsp.task { body }``: per message until ``@ch`` is closed.

    Each received message's tasks are issued by this process, then ``body`` runs with the
    block argument ``%t`` standing for the received task.
    """

    name = "csp.consume"

    channel = prop_def(FlatSymbolRefAttr)
    body = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(
        self,
        channel: str | SymbolRefAttr,
        element_type: Attribute | None = None,
        name: str = "t",
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=[element_type or TaskType()])
            block.args[0].name_hint = name
            body = Region(block)
        _ensure_yield(body)
        super().__init__(properties={"channel": _symbol_ref(channel)}, regions=[body])

    @property
    def message(self) -> SSAValue:
        """The block argument standing for the received message."""
        return self.body.block.args[0]

    def verify_(self) -> None:
        ch = _ref_name(self.channel)
        if len(self.body.block.args) != 1:
            raise VerifyException(
                f"csp.consume @{ch} binds one block argument, got {len(self.body.block.args)}"
            )
        channel = _verify_channel_use(self, self.channel, "consumes", "consumes", signal=False)
        if self.message.type != channel.element_type:
            raise VerifyException(
                f"csp.consume @{ch} binds {self.message.type}, "
                f"but @{ch} carries {channel.element_type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConsumeOp:
        channel = _parse_channel_ref(parser)
        parser.parse_keyword("as")
        arg = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(":")
        arg_type = parser.parse_type()
        body = parse_single_block_region(parser, [arg.resolve(arg_type)])
        op = cls(channel, body=body)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.channel))
        printer.print_string(" as ")
        printer.print_ssa_value(self.message)
        printer.print_string(" : ")
        printer.print_attribute(self.message.type)
        printer.print_string(" ")
        _print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class CoordOp(IRDLOperation):
    """``%i = csp.coord %t[k]``: the k-th coordinate of a received task, outermost loop first."""

    name = "csp.coord"

    task = operand_def(TaskType)
    position = prop_def(IntegerAttr[IntegerType])
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, task: SSAValue | Operation, position: int):
        super().__init__(
            operands=[task],
            properties={"position": IntegerAttr(position, i64)},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        if self.position.value.data < 0:
            raise VerifyException(
                f"csp.coord position must be >= 0, got {self.position.value.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CoordOp:
        task = parser.parse_unresolved_operand()
        with parser.in_square_brackets():
            position = parse_int64(parser)
        op = cls(parser.resolve_operand(task, TaskType()), position)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.task)
        printer.print_string(f"[{self.position.value.data}]")
        printer.print_op_attributes(self.attributes)


class _EventOp(IRDLOperation):
    """Shared shape of record and synchronize: one event symbol."""

    event = prop_def(FlatSymbolRefAttr)

    traits = traits_def(WorkloadExpr())

    def __init__(self, event: str | SymbolRefAttr):
        super().__init__(properties={"event": _symbol_ref(event)})

    @classmethod
    def parse(cls, parser: Parser):
        op = cls(_parse_channel_ref(parser))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.event))
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class RecordOp(_EventOp):
    """``csp.record @ev``: signal the event; blocks until a ``csp.synchronize @ev`` takes it."""

    name = "csp.record"

    def verify_(self) -> None:
        _verify_channel_use(self, self.event, "records", "produces", signal=True)


@irdl_op_definition
class SynchronizeOp(_EventOp):
    """``csp.synchronize @ev``: wait until a ``csp.record @ev`` signals the event."""

    name = "csp.synchronize"

    def verify_(self) -> None:
        _verify_channel_use(self, self.event, "synchronizes on", "consumes", signal=True)


CSP = Dialect(
    "csp",
    [
        PipelineOp,
        ChannelOp,
        ProcessOp,
        SendOp,
        ConsumeOp,
        CoordOp,
        RecordOp,
        SynchronizeOp,
    ],
    [SignalType],
)
