"""Pipelines on the simulator: processes, channels, events and deadlock detection.

``PipelineMixin`` is the part of ``Simulator`` (runtime/engine.py) that runs a pipeline's
processes: each replica is a Python generator compiled from a ``tg.process``
(lowering/cpu/simgen.py) that yields a request where it may block — ``("send", q, message)``,
``("recv", q)``, ``("wait",)`` (for the tasks it issued), ``("window",)`` — and the scheduler
resumes it when the request can proceed, at the virtual time of the event that allowed it.
Channels are bounded FIFO queues of messages (capacity 0: rendezvous); a channel closes when
every process that sends on it has finished. A nonblocking send (``try_send``) never blocks: a
message the channel cannot take at once is dropped. docs/simulator.md "Pipelines" states the rules.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pto_wsp.errors import ChannelClosed, Deadlock

__all__ = ["Message", "PipelineMixin"]


@dataclass
class _Process:
    """One replica of a pipeline process: a generator the scheduler resumes."""

    name: str
    gen: Any
    context: Any
    waiting: tuple[str, str] = ("", "")  # (operation, channel) while blocked
    blocked_since: float = 0
    outstanding: int = 0
    done: bool = False
    message_coords: tuple = ()  # of the message being handled (consume)


@dataclass
class _Queue:
    """A channel: bounded buffer of messages, blocked senders and receivers."""

    name: str
    capacity: int
    is_event: bool
    senders: set[str] = field(default_factory=set)  # process names that send or record
    receivers: set[str] = field(default_factory=set)
    buffer: deque = field(default_factory=deque)
    blocked_senders: deque = field(default_factory=deque)  # (process, message)
    blocked_receivers: deque = field(default_factory=deque)
    closed: bool = False
    live_senders: int = 0
    live_receivers: int = 0
    dropped: int = 0  # messages try_send dropped


def _merge_coords(outer: tuple, inner: tuple) -> tuple:
    """``outer`` coordinates, then ``inner``'s; a name in both keeps ``inner``'s value."""
    if not inner:
        return outer
    if not outer:
        return inner
    names = [n for n, _ in inner]  # (a few names: a list beats a set here)
    kept = [c for c in outer if c[0] not in names]
    return (*kept, *inner) if kept else inner


class Message:
    """A message of a task channel: the tasks of a send, with the sender's coordinates."""

    __slots__ = ("coords", "tasks")

    def __init__(self, coords: tuple, tasks: list) -> None:
        self.coords = coords
        self.tasks = tasks

    def coord(self, k: int) -> int:
        return self.coords[k][1]


class PipelineMixin:
    """Process scheduling for ``Simulator`` (which provides the task side)."""

    #: Channels the host closed (``Channel.close()`` from another thread), applied at the
    #: next step; the Program gives each pipeline run a list of its own.
    closing: list[str] | tuple = ()

    def add_queue(self, name: str, capacity: int, is_event: bool) -> None:
        self.queues[name] = _Queue(name, capacity, is_event)

    def add_process(self, name: str, gen: Any, sends: set[str], receives: set[str]) -> None:
        proc = _Process(name, gen, self.graph.new_context())
        self.processes.append(proc)
        for q in sends:
            self.queues[q].senders.add(name)
            self.queues[q].live_senders += 1
        for q in receives:
            self.queues[q].receivers.add(name)
            self.queues[q].live_receivers += 1
        proc.sends = sends  # type: ignore[attr-defined]
        proc.receives = receives  # type: ignore[attr-defined]
        self.runnable.append((proc, None))

    def begin_send(self) -> None:
        self.capture = []

    def end_send(self, coords: tuple) -> Message:
        """The message of the tasks captured since ``begin_send``. Inside a consume
        iteration, its coordinates start with those of the message being handled (a stage
        forwards the tile index it received)."""
        tasks, self.capture = self.capture or [], None
        proc = self.current
        if proc is not None and proc.message_coords:
            coords = _merge_coords(proc.message_coords, coords)
        return Message(coords, tasks)

    def issue_message(self, message: Message, replica: int) -> None:
        """The receiving process issues a message's tasks (with its replica coordinate);
        the tasks it creates for this message inherit the message's coordinates."""
        proc = self.current
        if proc is not None:
            proc.message_coords = message.coords
        keys = self.keys
        for kernel, args, regions, coords, pool, target, stream, priority in message.tasks:
            coords = (*_merge_coords(message.coords, coords), ("replica", replica))
            if keys is not None:
                pool, target, stream, priority = keys.place(coords, pool, target, stream, priority)
            self.add_task(kernel, args, regions, coords, pool, target, stream, priority)

    def run_pipeline(self) -> None:
        """Run the processes to completion, interleaved with the tasks they issue."""
        while True:
            if self.closing:
                self._close_requested()
            while self.runnable:
                proc, value = self.runnable.popleft()
                self._run_process(proc, value)
            if self.events:
                self._step()
                continue
            self._flush_all()
            if self.runnable or self.events:
                continue
            blocked = [p for p in self.processes if not p.done]
            if not blocked:
                break
            raise Deadlock([(p.name, p.waiting[0], p.waiting[1]) for p in blocked])
        self._drain()

    def _run_process(self, proc: _Process, value: Any) -> None:
        """Resume a process until it blocks or finishes."""
        self.current = proc
        self.graph.use_context(proc.context)
        try:
            while True:
                try:
                    request = proc.gen.send(value)
                except StopIteration:
                    self._finish(proc)
                    return
                op = request[0]
                if op == "send":
                    if not self._send(proc, request[1], request[2]):
                        return
                    value = None
                elif op == "try_send":
                    value = self._try_send(proc, request[1], request[2])
                elif op == "recv":
                    if not self.queues[request[1]].is_event:
                        proc.message_coords = ()  # the previous message is handled
                    ok, value = self._recv(proc, request[1])
                    if not ok:
                        return
                elif op == "wait":
                    if proc.outstanding:
                        self._block(proc, "wait", "")
                        return
                    value = None
                elif op == "window":
                    # The process found the window full (it re-checks when resumed).
                    self._block(proc, "window", "")
                    self._window_waiters.append(proc)
                    return
                else:
                    raise RuntimeError(f"internal: unknown process request {op!r}")
        finally:
            self.current = None
            self.graph.use_context(None)

    def _block(self, proc: _Process, op: str, channel: str) -> None:
        proc.waiting = (op, channel)
        proc.blocked_since = self.now

    def _resume(self, proc: _Process, value: Any) -> None:
        op = proc.waiting[0]
        waited = self.now - proc.blocked_since
        if waited > 0:
            cause = {
                "send": "channel_full",
                "recv": "channel_empty",
                "record": "event",
                "synchronize": "event",
                "window": "window",
            }.get(op)
            if cause is not None:
                self.stalls[cause] += waited
                self.stall_spans.append((cause, proc.name, proc.blocked_since, self.now))
        proc.waiting = ("", "")
        self.runnable.append((proc, value))

    def _send(self, proc: _Process, qname: str, message: Any) -> bool:
        q = self.queues[qname]
        op = "record" if q.is_event else "send"
        if q.closed:
            raise ChannelClosed(proc.name, qname, f"{op} after Channel.close()")
        if q.live_receivers == 0:
            raise ChannelClosed(
                proc.name,
                qname,
                f"{op} after every process that receives it has finished",
            )
        if q.blocked_receivers:
            receiver = q.blocked_receivers.popleft()
            self._resume(receiver, message)
            return True
        if len(q.buffer) < q.capacity:
            q.buffer.append(message)
            return True
        q.blocked_senders.append((proc, message))
        self._block(proc, op, qname)
        return False

    def _try_send(self, proc: _Process, qname: str, message: Any) -> bool:
        """A nonblocking send (``try_send``): delivered when a receiver waits or the buffer
        has room, else dropped (its tasks are never created); whether it was delivered."""
        q = self.queues[qname]
        if q.closed or q.live_receivers == 0 or q.blocked_receivers or len(q.buffer) < q.capacity:
            return self._send(proc, qname, message)  # (delivered, or ChannelClosed as send)
        q.dropped += 1
        return False

    def _recv(self, proc: _Process, qname: str) -> tuple[bool, Any]:
        q = self.queues[qname]
        op = "synchronize" if q.is_event else "recv"
        if q.buffer:
            message = q.buffer.popleft()
            if q.blocked_senders:
                sender, pending = q.blocked_senders.popleft()
                q.buffer.append(pending)
                self._resume(sender, None)
            return True, message
        if q.blocked_senders:
            sender, message = q.blocked_senders.popleft()
            self._resume(sender, None)
            return True, message
        if q.closed:
            if q.is_event:
                raise ChannelClosed(
                    proc.name, qname, "synchronize after every process that records it finished"
                )
            return True, None
        q.blocked_receivers.append(proc)
        self._block(proc, op, qname)
        return False, None

    def _close_requested(self) -> None:
        """Close the channels the host asked to: blocked receivers of an empty channel end
        their consume (an event's are ChannelClosed), a blocked sender is ChannelClosed."""
        while self.closing:
            q = self.queues[self.closing.pop()]
            q.closed = True
            if q.blocked_senders:
                sender, _ = q.blocked_senders[0]
                op = "record" if q.is_event else "send"
                raise ChannelClosed(sender.name, q.name, f"{op} after Channel.close()")
            while q.blocked_receivers and not q.buffer:
                receiver = q.blocked_receivers.popleft()
                if q.is_event:
                    raise ChannelClosed(receiver.name, q.name, "synchronize after Channel.close()")
                self._resume(receiver, None)

    def _finish(self, proc: _Process) -> None:
        proc.done = True
        for qname in proc.sends:  # type: ignore[attr-defined]
            q = self.queues[qname]
            q.live_senders -= 1
            if q.live_senders == 0:
                q.closed = True
                while q.blocked_receivers:
                    receiver = q.blocked_receivers.popleft()
                    if q.is_event:
                        raise ChannelClosed(
                            receiver.name,
                            qname,
                            "synchronize after every process that records it finished",
                        )
                    self._resume(receiver, None)
        for qname in proc.receives:  # type: ignore[attr-defined]
            q = self.queues[qname]
            q.live_receivers -= 1
            if q.live_receivers == 0 and q.blocked_senders:
                sender, _ = q.blocked_senders[0]
                raise ChannelClosed(
                    sender.name, qname, "send after every process that receives it has finished"
                )
