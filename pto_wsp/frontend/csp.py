"""CSP primitives (seed 001 §4, §6): channels of tasks, processes, pipelines, events.

``Channel("l2c", capacity=2)`` carries tasks; ``Event("done")`` is a channel of signals
with capacity 0 (a rendezvous). ``process(name).consumes(a).produces(b).body(w)`` declares
a process whose body is a workload (or a function building one with statements);
``connect(processes, channels)`` is the pipeline (``csp.pipeline``). Inside bodies,
``send(ch, w)`` sends the tasks of ``w`` as one message, ``consume(ch, lambda t: ...)``
runs its body for each message (the receiver issues the message's tasks), ``record(ev)``
and ``synchronize(ev)`` meet at an event.

The value ``t`` a consume body receives stands for the task that was sent: used as an
index it is the task's first coordinate (its outermost loop index in the sending process,
``csp.coord %t[0]``); ``t.coords[k]`` is its k-th coordinate.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pto_wsp.errors import CompileError, SourceLoc, user_location

from .expressions import Expr, check_identifier, is_int
from .workloads import (
    Workload,
    as_workloads,
    body_from,
    close_frame,
    collecting,
    open_frame,
    param_names,
    trace_body,
)


class Channel:
    """A bounded channel of tasks: ``Channel("l2c", capacity=2)`` (``csp.channel``).

    Its state (seed 001 §4.1: ``is_open``, ``size``, ``empty``, ``full``, ``close``) is the
    channel's in the run that its pipeline's ``start()`` began: a snapshot while it runs, the
    final state after; before any start, open and empty."""

    is_event = False

    def __init__(self, name: str, capacity: int = 1):
        check_identifier("Channel", name)
        if not is_int(capacity) or int(capacity) < 0:
            raise CompileError("Channel", f"capacity is an int >= 0, got {capacity!r}")
        self.name, self.capacity = name, int(capacity)
        self.loc = user_location()
        #: How many coordinates the tasks sent on it have (learned from its producer's body).
        self.arity: int | None = None
        #: The program the last ``Pipeline.start()`` holding this channel runs.
        self._program: Any = None

    def _state(self) -> tuple[bool, int]:
        if self._program is None:
            return True, 0
        return self._program.channel_state(self.name)

    def is_open(self) -> bool:
        """Whether a process may still send on it (it closes when its senders finish)."""
        return self._state()[0]

    def size(self) -> int:
        """How many messages it holds."""
        return self._state()[1]

    def empty(self) -> bool:
        """Whether it holds no message."""
        return self.size() == 0

    def full(self) -> bool:
        """Whether a send would block (always, for an Event: a rendezvous)."""
        return self.size() >= self.capacity

    def close(self) -> None:
        """Close it in the running pipeline: receivers drain it, then their ``consume`` ends;
        a later send is ``ChannelClosed``."""
        if self._program is None:
            raise RuntimeError(
                f"channel {self.name!r} is in no started pipeline: close() acts on a running "
                "one (Pipeline.start())"
            )
        self._program.close_channel(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Event(Channel):
    """An event: a channel of signals with capacity 0 (seed 001 §6.2, Event = Channel<Signal, 0>)."""

    is_event = True

    def __init__(self, name: str):
        super().__init__(name, 0)


def _channel(value: Any, construct: str, event: bool) -> Channel:
    if not isinstance(value, Channel):
        raise CompileError(construct, f"expected a Channel or Event, got {value!r}")
    if event and not value.is_event:
        raise CompileError(
            construct, f"{construct} takes an Event, but {value.name!r} is a Channel"
        )
    if not event and value.is_event:
        verb = "record(ev) / synchronize(ev)"
        raise CompileError(construct, f"{value.name!r} is an Event: use {verb} on events")
    return value


# --------------------------------------------------------------------------- messaging


class Send(Workload):
    """``send(ch, w)``: the tasks of ``w`` as one message on ``ch`` (``csp.send``);
    ``try_send(ch, w)`` the same, nonblocking."""

    construct = "send"

    def __init__(self, channel: Channel, body: list[Workload], nonblocking: bool = False):
        super().__init__()
        self.channel, self.body, self.nonblocking = channel, body, nonblocking

    def children(self) -> list[Workload]:
        return self.body


def send(channel: Any, w: Any) -> Workload:
    """Send the tasks of ``w`` on ``channel`` as one message; blocks while the channel is full."""
    return Send(*_message(channel, w, "send"))


def try_send(channel: Any, w: Any) -> Workload:
    """Send the tasks of ``w`` on ``channel`` if it can take them now (a receiver waits or its
    buffer has room); else drop them: they are never created. Never blocks (seed 001 §4.3)."""
    return Send(*_message(channel, w, "try_send"), nonblocking=True)


def _message(channel: Any, w: Any, construct: str) -> tuple[Channel, list[Workload]]:
    ch = _channel(channel, construct, event=False)
    body = as_workloads(w, construct)
    for item in _walk(body):
        if isinstance(item, Send | Consume | Record | Synchronize):
            raise CompileError(
                construct,
                f"a message holds tasks; it cannot contain the {item.construct} at {item.loc}",
            )
    return ch, body


class Coord(Expr):
    """The k-th coordinate of a received task (``csp.coord %t[k]``)."""

    nonneg = True

    def __init__(self, message: Message, position: int):
        super().__init__()
        self.message, self.position = message, position

    @property
    def key(self) -> tuple:
        return ("coord", id(self.message), self.position)

    def __repr__(self) -> str:
        return f"{self.message.name}.coords[{self.position}]"


class Coords:
    """``t.coords``: the coordinates of a received task, outermost loop index first."""

    def __init__(self, message: Message):
        self.message = message

    def __getitem__(self, k: int) -> Coord:
        if not is_int(k) or int(k) < 0:
            raise CompileError("coords", f"coordinates are indexed by an int >= 0, got {k!r}")
        return self.message.coord(int(k))

    def __len__(self) -> int:
        arity = self.message.consume.channel_arity()
        if arity is None:
            raise CompileError(
                "coords",
                f"how many coordinates the tasks on {self.message.consume.channel.name!r} have "
                "is not known here (declare the producing process first, or index t.coords[k])",
            )
        return arity

    def __iter__(self) -> Iterator[Coord]:
        return iter([self[k] for k in range(len(self))])


class Message(Expr):
    """The task a consume body received: as an index, its first coordinate."""

    nonneg = True

    def __init__(self, consume: Consume, name: str):
        super().__init__()
        self.consume, self.name = consume, name
        self._coords: dict[int, Coord] = {}

    def coord(self, k: int) -> Coord:
        """The k-th coordinate (the same object each time: the lowering reuses its value)."""
        if k not in self._coords:
            self._coords[k] = Coord(self, k)
        return self._coords[k]

    @property
    def coords(self) -> Coords:
        """All coordinates of the received task (``t.coords[k]``, or unpack them)."""
        return Coords(self)

    def as_value(self, construct: str) -> Coord:
        """Used as an index: the first coordinate."""
        return self.coord(0)

    @property
    def key(self) -> tuple:
        return ("coord", id(self), 0)

    def __repr__(self) -> str:
        return self.name


class Consume(Workload):
    """``consume(ch, lambda t: ...)``: for each message until ``ch`` closes (``csp.consume``)."""

    construct = "consume"

    def __init__(self, channel: Channel, name: str):
        super().__init__()
        self.channel = channel
        self.message = Message(self, name)
        self.body: list[Workload] = []

    def children(self) -> list[Workload]:
        return self.body

    def channel_arity(self) -> int | None:
        """How many coordinates the tasks on this channel have, if a send on it was seen."""
        return self.channel.arity

    def __enter__(self) -> Message:
        caller = sys._getframe(1)
        from .decorator import source_target_names

        names = source_target_names(caller, ast.With)
        if names and len(names) == 1:
            self.message.name = names[0]
        self._frame = open_frame()
        return self.message

    def __exit__(self, exc_type: Any, *_: Any) -> bool:
        close_frame(self._frame)
        if exc_type is None:
            self.body = body_from(None, self._frame, "consume", self.loc, allow_empty=True)
        return False


def consume(channel: Any, body: Callable[[Message], Any] | None = None) -> Workload:
    """For each message on ``channel`` until it closes: issue its tasks, then ``body(t)``.

    Without a body (``consume(ch)``) the received tasks are issued and nothing else runs;
    ``with consume(ch) as t:`` takes its body from the block.
    """
    ch = _channel(channel, "consume", event=False)
    if body is None:
        return Consume(ch, "t")
    (name,) = param_names(body, "consume", 1, "the received task")
    c = Consume(ch, name)
    c.body = trace_body(body, [c.message], "consume", c.loc)
    return c


class Record(Workload):
    """``record(ev)``: signal the event (``csp.record``)."""

    construct = "record"

    def __init__(self, event: Channel):
        super().__init__()
        self.channel = event


class Synchronize(Workload):
    """``synchronize(ev)``: wait for the event's record (``csp.synchronize``)."""

    construct = "synchronize"

    def __init__(self, event: Channel):
        super().__init__()
        self.channel = event


def record(event: Any) -> Workload:
    """Signal ``event``: blocks until a ``synchronize`` takes it (rendezvous)."""
    return Record(_channel(event, "record", event=True))


def synchronize(event: Any) -> Workload:
    """Wait until a ``record`` signals ``event``."""
    return Synchronize(_channel(event, "synchronize", event=True))


# --------------------------------------------------------------------------- processes


def _walk(workloads: Sequence[Workload]) -> Iterator[Workload]:
    for w in workloads:
        yield w
        if w.name is None:
            yield from _walk(w.children())


def _uses(body: list[Workload]) -> Iterator[tuple[Workload, Channel, str]]:
    """(construct, channel, the clause it must be listed in) for each channel use."""
    for w in _walk(body):
        if isinstance(w, Send | Record):
            yield w, w.channel, "produces"
        elif isinstance(w, Consume | Synchronize):
            yield w, w.channel, "consumes"


class Process:
    """A process of a pipeline (``csp.process``): ``replicas`` copies run its body concurrently."""

    def __init__(
        self,
        name: str,
        consumes: tuple[Channel, ...],
        produces: tuple[Channel, ...],
        body: list[Workload],
        loc: SourceLoc,
    ):
        self.name, self.consumes, self.produces, self.body = name, consumes, produces, body
        self.replicas, self.loc = 1, loc

    def __repr__(self) -> str:
        return f"process({self.name!r})"


class ProcessBuilder:
    """``process(name).consumes(...).produces(...).body(w)`` (seed 001 §4.2)."""

    def __init__(self, name: str, consumes: tuple[Channel, ...], produces: tuple[Channel, ...]):
        self.name, self._consumes, self._produces = name, consumes, produces
        self.loc = user_location()

    def consumes(self, *channels: Any) -> ProcessBuilder:
        """The channels (and events) this process receives from."""
        chs = tuple(self._check(c, "consumes") for c in channels)
        return ProcessBuilder(self.name, self._consumes + chs, self._produces)

    def produces(self, *channels: Any) -> ProcessBuilder:
        """The channels (and events) this process sends on."""
        chs = tuple(self._check(c, "produces") for c in channels)
        return ProcessBuilder(self.name, self._consumes, self._produces + chs)

    def body(self, w: Any) -> Process:
        """The process body: a workload, or a function building it with statements."""
        construct = f"process {self.name!r}"
        if callable(w) and not isinstance(w, Workload):
            with collecting() as frame:
                result = w()
            body = body_from(result, frame, construct, self.loc)
        else:
            body = as_workloads(w, construct)
        for use, channel, clause in _uses(body):
            listed = self._produces if clause == "produces" else self._consumes
            if not any(c is channel for c in listed):
                verb = {"send": "sends on", "record": "records"}.get(
                    use.construct, use.construct + "s"
                )
                raise CompileError(
                    use.construct,
                    f"process {self.name!r} {verb} {channel.name!r} but does not list it in "
                    f"{clause}(...)",
                    loc=use.loc,
                )
        for use in _walk(body):
            if isinstance(use, Send) and use.channel.arity is None:
                use.channel.arity = _depth_to(body, use)
        return Process(self.name, self._consumes, self._produces, body, self.loc)

    def _check(self, channel: Any, clause: str) -> Channel:
        if not isinstance(channel, Channel):
            raise CompileError(
                f"process {self.name!r}", f"{clause}(...) takes channels, got {channel!r}"
            )
        listed = self._consumes if clause == "consumes" else self._produces
        if any(c is channel for c in listed):
            raise CompileError(
                f"process {self.name!r}", f"{channel.name!r} is listed twice in {clause}"
            )
        return channel


def _depth_to(body: list[Workload], target: Workload) -> int:
    """How many coordinates the tasks of ``target`` (a send) get: the loop indices around it."""

    def search(items: list[Workload], depth: int) -> int | None:
        for w in items:
            if w is target:
                return depth
            if w.name is not None:
                continue
            inner = depth + len(getattr(w, "names", ()))
            if isinstance(w, Consume):
                inner = depth + (w.channel_arity() or 0)
            found = search(w.children(), inner)
            if found is not None:
                return found
        return None

    return search(body, 0) or 0


def process(name: str) -> ProcessBuilder:
    """Start declaring a process: ``process("loader").produces(l2c).body(...)``."""
    return ProcessBuilder(check_identifier("process", name), (), ())


def replicate(p: Any, count: int) -> Process:
    """``count`` copies of a process, running concurrently (seed 001 §4.6)."""
    if not isinstance(p, Process):
        raise CompileError("replicate", f"replicate takes a process, got {p!r}")
    if not is_int(count) or int(count) < 1:
        raise CompileError("replicate", f"the replica count is an int >= 1, got {count!r}")
    copy_ = copy.copy(p)
    copy_.replicas = int(count)
    return copy_


class Pipeline(Workload):
    """Processes connected by channels (``csp.pipeline``): a cpu-level workload."""

    construct = "connect"
    is_pipeline = True

    def __init__(self, processes: list[Process], channels: list[Channel]):
        super().__init__()
        self.processes, self.channels = processes, channels
        self._program: Any = None  # the program start() runs

    def start(self, program: Any = None, /, **bindings: Any) -> Any:
        """Run the pipeline in the background (seed 001 §4.5) with ``bindings`` (as
        ``Program.bind``): on ``program`` (compiled from this pipeline), else on its cpu_sim
        compile (made once). Returns the program; ``join()`` waits for it."""
        if self.is_running():
            raise RuntimeError(f"pipeline {self.name or ''} is running: join() it first")
        if program is None:
            program = self._program if self._program is not None else self.compile()
        elif not callable(getattr(program, "execute_async", None)):
            raise TypeError(f"start() takes a program compiled from this pipeline, got {program!r}")
        program.bind(**bindings).execute_async()
        self._program = program
        for channel in self.channels:
            channel._program = program
        return program

    def join(self, timeout: float | None = None) -> Any:
        """Wait for the run ``start()`` began; raise its error (``Timeout`` after ``timeout``
        seconds). Returns the program (``stats()``, ``trace()``)."""
        if self._program is None:
            raise RuntimeError(f"pipeline {self.name or ''} was not started: start() first")
        return self._program.synchronize(timeout)

    def is_running(self) -> bool:
        """Whether the run ``start()`` began is under way."""
        return self._program is not None and self._program.is_running()

    def children(self) -> list[Workload]:
        return [w for p in self.processes for w in p.body]

    def coordinates(self) -> list[str]:
        """Loop names of all processes, plus ``replica`` (the issuing replica's index)."""
        return list(dict.fromkeys([*super().coordinates(), "replica"]))


def connect(processes: Sequence[Any], channels: Sequence[Any]) -> Pipeline:
    """The pipeline of ``processes`` talking over ``channels`` (seed 001 §4.5)."""
    procs = list(processes)
    chans = list(channels)
    for p in procs:
        if not isinstance(p, Process):
            raise CompileError("connect", f"connect takes processes, got {p!r}")
    for c in chans:
        if not isinstance(c, Channel):
            raise CompileError("connect", f"connect takes channels, got {c!r}")
    names = [c.name for c in chans] + [p.name for p in procs]
    for n in names:
        if names.count(n) > 1:
            raise CompileError("connect", f"two channels or processes are named {n!r}")
    for p in procs:
        for c in p.consumes + p.produces:
            if not any(c is x for x in chans):
                raise CompileError(
                    "connect", f"process {p.name!r} uses {c.name!r}, which is not passed to connect"
                )
    for c in chans:
        for clause in ("produces", "consumes"):
            if not any(any(c is x for x in getattr(p, clause)) for p in procs):
                role = "producer" if clause == "produces" else "consumer"
                raise CompileError(
                    "connect", f"channel {c.name!r} has no {role}: no process {clause} it"
                )
    return Pipeline(procs, chans)
