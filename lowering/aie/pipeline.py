"""CSP pipelines on AIE: processes become cores, channels objectfifos (docs/targets/aie.md).

A ``tg.program`` of ``tg.queue``s and ``tg.process``es (``csp-to-tg``) maps as follows.

- Each process becomes a core; a process with ``replicas(n)`` becomes n cores. Cores are
  placed in program order on the compute tiles, column by column, bottom row first.
- A task queue becomes an objectfifo carrying the data its message produces: the task of a
  ``tg.send`` runs on the **sender's** core and writes its output region into the fifo
  (acquire Produce / kernel call / release); the receiver's ``tg.consume`` acquires the
  element (Consume), runs its body on it — every task there that reads that region gets the
  fifo element — and releases it. This is the dataflow reading of a pipeline: the message's
  task runs where its inputs are and its result travels, instead of the runtime reading in
  which the receiver issues the task; the data dependences, and so the results, are the same.
- Depth = the queue's capacity; capacity 0 (a rendezvous) becomes depth 1, the smallest
  objectfifo: the sender may finish one message before the receiver takes it.
- Events (``!csp.signal`` queues: ``tg.record`` / ``tg.synchronize``) become objectfifos of
  ``memref<1xi32>`` of depth 1 acquired and released around nothing.
- A queue between one process and a replicated one is dealt round-robin: one objectfifo per
  replica, message k to replica k mod n (the loop around the send or the consume is unrolled
  by n); several replicas sending to one receiver are joined in the same order.
- Tensors that no task of the program writes enter through shim objectfifos (one per core
  and tensor), tensors written but never received leave through them; the runtime sequence
  streams each one with a ``dma_memcpy_nd`` whose access pattern visits the task regions in
  the order the core uses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import lcm

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from pto_wsp.dialects import aie, tg, wsp
from pto_wsp.dialects.csp import SignalType

from .analysis import Env, Loop, MappingError, Region, evaluate, region_of, static_loop, tensor_name
from .codegen import VAR, CoreBuilder, Expr, add, const, div, mul, rem, unflatten
from .design import Design, Tile
from .patterns import element_bytes, fit_pattern

#: Depth of the shim objectfifos that move external tensors (double buffering).
SHIM_DEPTH = 2
#: Most task executions the mapping enumerates per core to derive access patterns.
MAX_TRACE = 1 << 16

_HELPERS = (
    memref.SubviewOp,
    tg.CoordOp,
    tg.SeqOp,
    tg.OrderPointOp,
    tg.YieldOp,
    scf.YieldOp,
)


@dataclass
class Proc:
    op: tg.ProcessOp
    name: str
    replicas: int
    tiles: list[Tile] = field(default_factory=list)
    #: Per-replica number of messages each of its consumes receives (by queue).
    counts: dict[str, int] = field(default_factory=dict)


@dataclass
class Chan:
    op: tg.QueueOp
    name: str
    event: bool
    depth: int
    sends: list[Operation] = field(default_factory=list)  # tg.send / tg.record
    receives: list[Operation] = field(default_factory=list)  # tg.consume / tg.synchronize
    producer: Proc | None = None
    consumer: Proc | None = None
    total: int | None = None
    payload: str | None = None  # the tensor its messages carry a region of
    type: MemRefType | None = None
    coords: list[Expr] = field(default_factory=list)  # of the global message number
    fifos: list[str] = field(default_factory=list)
    #: Region carried by each message (global number), from the sender's trace.
    regions: dict[int, Region] = field(default_factory=dict)

    def fifo_of(self, producer_replica: int, consumer_replica: int) -> str:
        """The objectfifo between a producer replica and a consumer replica."""
        if len(self.fifos) == 1:
            return self.fifos[0]
        assert self.producer is not None and self.consumer is not None
        return self.fifos[producer_replica if self.producer.replicas > 1 else consumer_replica]


class PipelineMapper:
    """Maps one pipeline ``tg.program`` onto a ``Design``."""

    def __init__(
        self, module_ops: dict[str, Operation], program: tg.ProgramOp, env: Env, design: Design
    ):
        self.symbols = module_ops
        self.program = program
        self.env = dict(env)
        self.design = design
        self.procs = [Proc(p, p.sym_name.data, p.replicas.value.data) for p in program.processes()]
        self.chans: dict[str, Chan] = {}
        for op in program.body.block.ops:
            if isinstance(op, tg.QueueOp):
                capacity = op.capacity.value.data
                name = op.sym_name.data
                event = isinstance(op.element_type, SignalType)
                self.chans[name] = Chan(op, name, event, max(1, capacity))
        # tensor -> (core, direction) -> regions in use order
        self.traces: dict[tuple[Tile, str, str], list[Region]] = {}
        self.types: dict[tuple[Tile, str, str], MemRefType] = {}
        self.shim: dict[tuple[Tile, str, str], str] = {}
        self.written: set[str] = set()
        self.read: set[str] = set()
        self.shapes: dict[str, list[int]] = {}
        self._sent: dict[tuple[str, int, str], int] = {}
        self._received: dict[str, dict[int, tuple[Region, tg.TaskOp]]] = {}

    # --- the whole mapping ------------------------------------------------------------------

    def run(self) -> list[str]:
        """Map the pipeline; return the names of the tensors the runtime sequence moves."""
        self._connect()
        self._count()
        self._place()
        self._payloads()
        self._coordinates()
        self._classify()
        for proc in self.procs:
            self._check_size(proc)
            for r in range(proc.replicas):
                self._trace(proc, r)
        self._check_payloads()
        self._create_fifos()
        for proc in self.procs:
            for r in range(proc.replicas):
                self._emit(proc, r)
        return self._transfers()

    # --- structure --------------------------------------------------------------------------

    def _connect(self) -> None:
        for proc in self.procs:
            for op in proc.op.body.walk():
                if isinstance(op, tg.SendOp) and op.nonblocking is not None:
                    raise MappingError(
                        f"tg.send @{op.queue.root_reference.data} nonblocking (try_send): an "
                        "objectfifo acquire blocks; the AIE target maps blocking sends only",
                        op,
                    )
                if isinstance(op, tg.SendOp | tg.RecordOp):
                    chan = self.chans[op.queue.root_reference.data]
                    self._side(chan, "producer", proc, op)
                    chan.sends.append(op)
                elif isinstance(op, tg.ConsumeOp | tg.SynchronizeOp):
                    chan = self.chans[op.queue.root_reference.data]
                    self._side(chan, "consumer", proc, op)
                    chan.receives.append(op)
        for chan in self.chans.values():
            if len(chan.sends) != 1 or len(chan.receives) != 1:
                what = "send" if len(chan.sends) != 1 else "receive"
                ops = chan.sends if what == "send" else chan.receives
                raise MappingError(
                    f"queue @{chan.name} has {len(ops)} {what} ops; on AIE a queue becomes one "
                    "objectfifo, written by one tg.send (or tg.record) and read by one "
                    "tg.consume (or tg.synchronize)",
                    (ops[1] if len(ops) > 1 else chan.op),
                )
            assert chan.producer and chan.consumer
            if chan.producer.replicas > 1 and chan.consumer.replicas > 1:
                raise MappingError(
                    f"queue @{chan.name} connects {chan.producer.replicas} replicas of "
                    f"@{chan.producer.name} to {chan.consumer.replicas} replicas of "
                    f"@{chan.consumer.name}; on AIE one side of a queue must be a single core",
                    chan.op,
                )
            if chan.producer is chan.consumer:
                raise MappingError(
                    f"process @{chan.producer.name} sends to itself on @{chan.name}", chan.op
                )

    def _side(self, chan: Chan, side: str, proc: Proc, op: Operation) -> None:
        other = getattr(chan, side)
        if other is not None and other is not proc:
            raise MappingError(
                f"queue @{chan.name} has two {side}s (@{other.name}, @{proc.name}); on AIE a "
                "queue becomes one objectfifo between two processes",
                op,
            )
        setattr(chan, side, proc)

    def _count(self) -> None:
        """Messages per queue: the sender's static loop counts (times its consumes')."""
        pending = list(self.procs)
        while pending:
            progress = False
            for proc in list(pending):
                sends: dict[str, int] = {}
                receives: dict[str, int] = {}
                if self._count_block(proc, proc.op.body.block, 1, sends, receives):
                    for name, n in sends.items():
                        self.chans[name].total = n * proc.replicas
                    pending.remove(proc)
                    progress = True
            if not progress:
                names = ", ".join("@" + p.name for p in pending)
                raise MappingError(
                    f"the processes {names} wait on each other's messages (a cycle of queues); "
                    "the AIE target maps acyclic pipelines",
                    pending[0].op,
                )

    def _count_block(
        self, proc: Proc, block: Block, mult: int, sends: dict[str, int], receives: dict[str, int]
    ) -> bool:
        for op in block.ops:
            if isinstance(op, tg.OrderedOp):
                if not self._count_block(proc, op.body.block, mult, sends, receives):
                    return False
            elif isinstance(op, scf.ForOp):
                loop = static_loop(op, self.env)
                if not self._count_block(proc, op.body.block, mult * loop.trips, sends, receives):
                    return False
            elif isinstance(op, tg.ConsumeOp | tg.SynchronizeOp):
                chan = self.chans[op.queue.root_reference.data]
                if chan.total is None:
                    return False
                if chan.total % proc.replicas:
                    raise MappingError(
                        f"@{chan.name} carries {chan.total} messages, which do not deal evenly "
                        f"to the {proc.replicas} replicas of @{proc.name}",
                        op,
                    )
                n = chan.total // proc.replicas
                if isinstance(op, tg.SynchronizeOp):
                    receives[chan.name] = receives.get(chan.name, 0) + mult
                    continue
                if chan.name in proc.counts:
                    raise MappingError(f"@{proc.name} consumes @{chan.name} twice", op)
                if mult != 1:
                    raise MappingError(
                        f"tg.consume @{chan.name} inside a loop of @{proc.name}: a consume "
                        "receives until the queue is closed; put it at the top of the process",
                        op,
                    )
                proc.counts[chan.name] = n
                if not self._count_block(proc, op.body.block, mult * n, sends, receives):
                    return False
            elif isinstance(op, tg.SendOp | tg.RecordOp):
                name = op.queue.root_reference.data
                sends[name] = sends.get(name, 0) + mult
            else:
                self._check_supported(op, proc)
        return True

    def _check_supported(self, op: Operation, proc: Proc) -> None:
        if isinstance(op, (*_HELPERS, tg.TaskOp)) or op.dialect_name() == "arith":
            return
        if isinstance(op, scf.IfOp):
            raise MappingError(
                f"a data-dependent condition (scf.if) in process @{proc.name}: an AIE core's "
                "sequence of objectfifo accesses must be static",
                op,
            )
        if isinstance(op, tg.CallOp):
            raise MappingError(
                "tg.call of a nested program: inline cross-level calls for AIE "
                "(wsp-to-tg{calls=inline})",
                op,
            )
        raise MappingError(f"{op.name} in process @{proc.name} has no AIE mapping", op)

    def _place(self) -> None:
        tiles = self.design.compute_tiles()
        needed = sum(p.replicas for p in self.procs)
        if needed > len(tiles):
            detail = ", ".join(f"@{p.name} x{p.replicas}" for p in self.procs)
            raise MappingError(
                f"pipeline @{self.program.sym_name.data} needs {needed} cores ({detail}), but "
                f"{self.design.describe()}",
                self.program,
            )
        k = 0
        for proc in self.procs:
            proc.tiles = tiles[k : k + proc.replicas]
            k += proc.replicas

    def _payloads(self) -> None:
        """Each task queue carries the region its message's task writes."""
        for chan in self.chans.values():
            send = chan.sends[0]
            if chan.event:
                chan.type = MemRefType(i32, [1])
                continue
            assert isinstance(send, tg.SendOp)
            tasks = [op for op in send.body.walk() if isinstance(op, tg.TaskOp)]
            if len(tasks) != 1:
                raise MappingError(
                    f"a message on @{chan.name} holds {len(tasks)} tasks; on AIE a message is "
                    "one task whose output travels through the objectfifo",
                    send,
                )
            task = tasks[0]
            outs = [
                (v, a.data)
                for v, a in zip(task.resources, task.access.data)
                if a.data in ("out", "inout")
            ]
            if len(outs) != 1 or outs[0][1] != "out":
                raise MappingError(
                    f"the task of a message on @{chan.name} (@{task.kernel.root_reference.data}) "
                    f"writes {len(outs)} regions{' (inout)' if outs and outs[0][1] == 'inout' else ''}; "
                    "an objectfifo carries exactly one output region",
                    task,
                )
            value = outs[0][0]
            chan.payload = tensor_name(value)
            chan.type = self._kernel_type(task, value)

    def _kernel_type(self, task: tg.TaskOp, value: SSAValue) -> MemRefType:
        """The declared kernel parameter type of resource ``value`` of ``task``."""
        kernel = self._kernel(task)
        index = list(task.resources).index(value)
        types = kernel.resource_types
        t = types[index]
        assert isinstance(t, MemRefType)
        if any(d < 0 for d in t.get_shape()):
            raise MappingError(
                f"kernel @{kernel.sym_name.data} takes {t}; an AIE kernel works on static tiles",
                task,
            )
        return MemRefType(t.element_type, t.get_shape())

    def _kernel(self, task: tg.TaskOp) -> wsp.KernelOp:
        kernel = self.symbols.get(task.kernel.root_reference.data)
        if not isinstance(kernel, wsp.KernelOp):
            raise MappingError(f"@{task.kernel.root_reference.data} is not a wsp.kernel", task)
        return kernel

    # --- coordinates ------------------------------------------------------------------------

    def _coordinates(self) -> None:
        """The coordinates of message G (global number, in the receiver's order) of each
        queue, as expressions of G: loop indices of the sender, inherited through consumes."""
        done: set[str] = set()
        while len(done) < len(self.chans):
            progress = False
            for chan in self.chans.values():
                if chan.event:
                    done.add(chan.name)
                if chan.name in done:
                    continue
                send = chan.sends[0]
                assert isinstance(send, tg.SendOp) and chan.producer is not None
                path = self._path(send, chan.producer)
                consume = next((p for p in path if isinstance(p, tg.ConsumeOp)), None)
                loops = [p for p in path if isinstance(p, Loop)]
                if consume is not None and path[0] is not consume:
                    raise MappingError(
                        f"tg.send @{chan.name} inside a loop around a consume: unsupported", send
                    )
                replicas = chan.producer.replicas
                trips = [lp.trips for lp in loops]
                inner = 1
                for t in trips:
                    inner *= t
                g = VAR
                r = rem(g, const(replicas))
                j = div(g, const(replicas))
                coords: list[Expr] = []
                if consume is not None:
                    source = self.chans[consume.queue.root_reference.data]
                    if source.name not in done:
                        continue
                    m = div(j, const(inner))
                    g_in = add(mul(m, const(replicas)), r)
                    coords = [c.substitute(g_in) for c in source.coords]
                    j = rem(j, const(inner)) if inner > 1 else const(0)
                indices = unflatten(j, trips) if trips else []
                by_iv = {
                    lp.op.body.block.args[0]: add(const(lp.lower), mul(const(lp.step), idx))
                    for lp, idx in zip(loops, indices)
                }
                for value in send.coords:
                    if value not in by_iv:
                        raise MappingError(
                            f"a coordinate of the messages on @{chan.name} is not an index of a "
                            "loop around the send",
                            send,
                        )
                    coords.append(by_iv[value])
                chan.coords = coords
                done.add(chan.name)
                progress = True
            if not progress and len(done) < len(self.chans):
                raise MappingError("message coordinates depend on each other in a cycle")

    def _path(self, op: Operation, proc: Proc) -> list[Loop | tg.ConsumeOp]:
        """The loops and consumes around ``op`` in its process, outermost first."""
        path: list[Loop | tg.ConsumeOp] = []
        parent = op.parent_op()
        while parent is not None and parent is not proc.op:
            if isinstance(parent, scf.ForOp):
                path.append(static_loop(parent, self.env))
            elif isinstance(parent, tg.ConsumeOp):
                path.append(parent)
            parent = parent.parent_op()
        return list(reversed(path))

    # --- tensors ----------------------------------------------------------------------------

    def _classify(self) -> None:
        for op in self.program.body.walk():
            if isinstance(op, tg.TaskOp):
                for value, access in zip(op.resources, op.access.data):
                    name = tensor_name(value)
                    if name is None:
                        raise MappingError("a task resource must be a view of a program tensor", op)
                    if access.data in ("out", "inout"):
                        self.written.add(name)
                    if access.data in ("in", "inout"):
                        self.read.add(name)

    # --- simulation: regions in use order ---------------------------------------------------

    def _check_size(self, proc: Proc) -> None:
        """Refuse a process that runs more than MAX_TRACE tasks before enumerating them."""
        tasks = self._tasks_in(proc, proc.op.body.block)
        if tasks > MAX_TRACE:
            first = next(op for op in proc.op.body.walk() if isinstance(op, tg.TaskOp))
            raise MappingError(
                f"process @{proc.name} runs {tasks:,} tasks, more than {MAX_TRACE:,}; the AIE "
                "mapping enumerates them to derive its transfers",
                first,
            )

    def _tasks_in(self, proc: Proc, block: Block) -> int:
        """The tasks ``block`` of ``proc`` runs: its loops' static trip counts (exact Python
        integers, however large the bound sizes) times the tasks of their bodies."""
        count = 0
        for op in block.ops:
            if isinstance(op, tg.TaskOp):
                count += 1
            elif isinstance(op, scf.ForOp):
                body = self._tasks_in(proc, op.body.block)
                count += static_loop(op, self.env).trips * body if body else 0
            elif isinstance(op, tg.ConsumeOp):
                count += proc.counts[op.queue.root_reference.data] * self._tasks_in(
                    proc, op.body.block
                )
            elif isinstance(op, tg.OrderedOp | tg.SendOp):
                count += self._tasks_in(proc, op.body.block)
        return count

    def _trace(self, proc: Proc, replica: int) -> None:
        env = dict(self.env)
        if proc.op.body.block.args:
            env[proc.op.body.block.args[0]] = replica
        tile = proc.tiles[replica]
        self._trace_block(proc, replica, tile, proc.op.body.block, env, None)

    def _trace_block(
        self,
        proc: Proc,
        replica: int,
        tile: Tile,
        block: Block,
        env: dict[SSAValue, int],
        message: tuple[Chan, int] | None,
        send: tuple[Chan, int] | None = None,
    ) -> None:
        for op in block.ops:
            if isinstance(op, tg.OrderedOp):
                self._trace_block(proc, replica, tile, op.body.block, env, message, send)
            elif isinstance(op, scf.ForOp):
                loop = static_loop(op, self.env)
                for value in loop.values():
                    env[op.body.block.args[0]] = value
                    self._trace_block(proc, replica, tile, op.body.block, env, message, send)
            elif isinstance(op, tg.ConsumeOp):
                chan = self.chans[op.queue.root_reference.data]
                coords = [c for c in op.body.walk() if isinstance(c, tg.CoordOp)]
                for m in range(proc.counts[chan.name]):
                    g = m * proc.replicas + replica
                    for c in coords:
                        k = c.position.value.data
                        if k >= len(chan.coords):
                            raise MappingError(
                                f"messages on @{chan.name} have {len(chan.coords)} coordinates; "
                                f"tg.coord reads coordinate {k}",
                                c,
                            )
                        env[c.result] = chan.coords[k].eval(g)
                    self._trace_block(proc, replica, tile, op.body.block, env, (chan, g), send)
            elif isinstance(op, tg.SendOp):
                chan = self.chans[op.queue.root_reference.data]
                count = self._sent.setdefault((proc.name, replica, chan.name), 0)
                self._sent[(proc.name, replica, chan.name)] = count + 1
                g = count * proc.replicas + replica
                self._trace_block(proc, replica, tile, op.body.block, env, message, (chan, g))
            elif isinstance(op, tg.TaskOp):
                self._trace_task(proc, tile, op, env, message, send)

    def _trace_task(
        self,
        proc: Proc,
        tile: Tile,
        task: tg.TaskOp,
        env: dict[SSAValue, int],
        message: tuple[Chan, int] | None,
        send: tuple[Chan, int] | None,
    ) -> None:
        for value, access in zip(task.resources, task.access.data):
            region = region_of(value, env, task)
            name = region.tensor
            mode = access.data
            if mode == "inout":
                raise MappingError(
                    f"@{task.kernel.root_reference.data} reads and writes {name} (inout): an "
                    "objectfifo element is either received or sent; give the kernel separate "
                    "in and out regions",
                    task,
                )
            if mode == "in":
                if message is not None and message[0].payload == name:
                    chan, g = message
                    self._check_element(chan, task, value)
                    self._received.setdefault(chan.name, {})[g] = (region, task)
                    continue
                if name in self.written:
                    raise MappingError(
                        f"process @{proc.name} reads {name}, which another task writes, but not "
                        "from a message it received: on AIE data moves between cores only "
                        "through queues",
                        task,
                    )
                key = (tile, name, "in")
            else:
                if send is not None and send[0].payload == name:
                    chan, g = send
                    chan.regions[g] = region
                    continue
                if name in self.read:
                    raise MappingError(
                        f"@{task.kernel.root_reference.data} in process @{proc.name} writes "
                        f"{name}, which another task reads, outside a message: on AIE data moves "
                        "between cores only through queues",
                        task,
                    )
                key = (tile, name, "out")
            self.traces.setdefault(key, []).append(region)
            t = self._kernel_type(task, value)
            if self.types.setdefault(key, t) != t:
                raise MappingError(
                    f"process @{proc.name} uses {name} as {self.types[key]} and as {t}; one "
                    "objectfifo carries one element type",
                    task,
                )

    def _check_element(self, chan: Chan, task: tg.TaskOp, value: SSAValue) -> None:
        """Both ends of an objectfifo see one element type (mlir-aie: the acquire's subview
        element must be the fifo's, ObjectFifoAcquireOp::verify)."""
        want = self._kernel_type(task, value)
        assert chan.consumer is not None
        if chan.type is not None and want != chan.type:
            raise MappingError(
                f"objectfifo @{chan.name} carries {chan.payload} as {chan.type}, but "
                f"@{task.kernel.root_reference.data} in @{chan.consumer.name} takes it as "
                f"{want}; both ends of an objectfifo must agree on the element type "
                "(ObjectFifoAcquireOp::verify)",
                task,
            )

    def _check_payloads(self) -> None:
        for chan in self.chans.values():
            if chan.event:
                continue
            got = self._received.get(chan.name, {})
            assert chan.consumer is not None
            if not got:
                raise MappingError(
                    f"no task of @{chan.consumer.name} reads {chan.payload}, the output of the "
                    f"messages on @{chan.name}: on AIE a queue carries the data its message's "
                    "task produces to the receiver",
                    chan.receives[0],
                )
            for g, (region, task) in sorted(got.items()):
                sent = chan.regions.get(g)
                if sent != region:
                    raise MappingError(
                        f"message {g} on @{chan.name} carries {_show(sent)}, but "
                        f"@{task.kernel.root_reference.data} in @{chan.consumer.name} reads "
                        f"{_show(region)} from it",
                        task,
                    )

    # --- fifos ------------------------------------------------------------------------------

    def _create_fifos(self) -> None:
        d = self.design
        for chan in self.chans.values():
            assert chan.producer and chan.consumer and chan.type is not None
            pairs: list[tuple[Tile, Tile]]
            if chan.producer.replicas > 1:
                pairs = [(t, chan.consumer.tiles[0]) for t in chan.producer.tiles]
            else:
                pairs = [(chan.producer.tiles[0], t) for t in chan.consumer.tiles]
            for k, (src, dst) in enumerate(pairs):
                base = chan.name if len(pairs) == 1 else f"{chan.name}_{k}"
                chan.fifos.append(d.fifo(base, src, [dst], chan.depth, chan.type, chan.sends[0]))
        for proc in self.procs:
            for r, tile in enumerate(proc.tiles):
                for t, name, direction in sorted(self.traces):
                    if t != tile:
                        continue
                    suffix = f"_{r}" if proc.replicas > 1 else ""
                    base = f"{name}_{proc.name}{suffix}"
                    type_ = self.types[(t, name, direction)]
                    col = d.pick_column({0: (1, 0) if direction == "in" else (0, 1)}, tile[0])
                    if col is None:
                        kind = (
                            "MM2S (host to array)" if direction == "in" else "S2MM (array to host)"
                        )
                        raise MappingError(
                            f"{name} for @{proc.name} needs a shim DMA channel, but every "
                            f"shim tile's {kind} channels are taken "
                            f"({d.model.dma_channels(0)} per shim tile, {d.model.columns} "
                            "shim tiles)",
                            self.program,
                        )
                    shim = (col, 0)
                    if direction == "in":
                        fifo = d.fifo(base, shim, [tile], SHIM_DEPTH, type_, self.program)
                    else:
                        fifo = d.fifo(base, tile, [shim], SHIM_DEPTH, type_, self.program)
                    self.shim[(tile, name, direction)] = fifo

    def _transfers(self) -> list[str]:
        shapes = self._shapes()
        for (tile, name, direction), fifo in self.shim.items():
            regions = self.traces[(tile, name, direction)]
            type_ = self.types[(tile, name, direction)]
            what = f"the transfer of {name} {'to' if direction == 'in' else 'from'} {fifo}"
            pattern = fit_pattern(what, shapes[name], element_bytes(type_), regions, self.program)
            self.design.transfer(name, fifo, pattern, direction == "out")
        names = [a.data for a in self.program.arg_names.data]
        return [n for n in names if n in shapes and any(k[1] == n for k in self.shim)]

    def _shapes(self) -> dict[str, list[int]]:
        """Each external tensor's shape, dynamic extents bound by the regions used."""
        shapes = self.shapes
        names = [a.data for a in self.program.arg_names.data]
        for (_, name, _), regions in self.traces.items():
            arg = self.program.body.block.args[names.index(name)]
            assert isinstance(arg.type, MemRefType)
            declared = list(arg.type.get_shape())
            shape = shapes.setdefault(name, [max(d, 0) for d in declared])
            for d, extent in enumerate(declared):
                reach = max(r.offsets[d] + r.sizes[d] for r in regions)
                if extent < 0:
                    shape[d] = max(shape[d], reach)
                elif reach > extent:
                    raise MappingError(f"a region of {name} reaches {reach} in dimension {d}")
        return shapes

    # --- code -------------------------------------------------------------------------------

    def _emit(self, proc: Proc, replica: int) -> None:
        tile = proc.tiles[replica]
        name = proc.name if proc.replicas == 1 else f"{proc.name}[{replica}]"
        block = self.design.core(tile, f"@{name}")
        b = CoreBuilder(block, self.design.form)
        ctx = _Ctx(proc, replica, tile, {})
        if proc.op.body.block.args:
            ctx.values[proc.op.body.block.args[0]] = b.index(replica)
        self._emit_block(b, ctx, proc.op.body.block)

    def _emit_block(self, b: CoreBuilder, ctx: _Ctx, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, tg.OrderedOp):
                self._emit_block(b, ctx, op.body.block)
            elif isinstance(op, scf.ForOp):
                self._emit_loop(b, ctx, op)
            elif isinstance(op, tg.ConsumeOp):
                self._emit_consume(b, ctx, op)
            elif isinstance(op, tg.SendOp):
                chan = self.chans[op.queue.root_reference.data]
                for task in [t for t in op.body.walk() if isinstance(t, tg.TaskOp)]:
                    self._emit_task(b, ctx, task, chan)
            elif isinstance(op, tg.TaskOp):
                self._emit_task(b, ctx, op, None)
            elif isinstance(op, tg.RecordOp | tg.SynchronizeOp):
                chan = self.chans[op.queue.root_reference.data]
                fifo = self._fifo(chan, ctx, sending=isinstance(op, tg.RecordOp))
                port = "Produce" if isinstance(op, tg.RecordOp) else "Consume"
                # nothing reads the signal's element: the acquire alone is the rendezvous
                b.add(aie.ObjectFifoAcquireOp(fifo, port, 1, MemRefType(i32, [1]), b.form))
                b.release(fifo, port)

    def _unroll(self, op: Operation, ctx: _Ctx, consumed: Chan | None) -> int:
        """How many copies of a loop body pick fifos statically: the replica counts of the
        queues it sends to (directly) and, for a consume, of the queue it receives from."""
        factor = 1
        if consumed is not None and consumed.producer and consumed.producer.replicas > 1:
            factor = lcm(factor, consumed.producer.replicas)
        for inner in op.regions[0].block.ops:
            for send in [inner] if isinstance(inner, tg.SendOp) else []:
                chan = self.chans[send.queue.root_reference.data]
                if chan.consumer and chan.consumer.replicas > 1:
                    factor = lcm(factor, chan.consumer.replicas)
            if isinstance(inner, tg.OrderedOp):
                factor = lcm(factor, self._unroll(inner, ctx, None))
        return factor

    def _emit_loop(self, b: CoreBuilder, ctx: _Ctx, op: scf.ForOp) -> None:
        loop = static_loop(op, self.env)
        factor = self._unroll(op, ctx, None)
        if loop.trips % factor:
            raise MappingError(
                f"a loop of {loop.trips} iterations sends to {factor} replicas round-robin; "
                f"the AIE mapping needs a multiple of {factor}",
                op,
            )
        if loop.trips == 0:
            return
        inner, iv = b.loop(loop.trips // factor, op.body.block.args[0].name_hint)
        for lane in range(factor):
            # index = lower + step * (iv * factor + lane), computed where it is used
            ctx.values[op.body.block.args[0]] = _Lazy(iv, factor, lane, loop.step, loop.lower)
            ctx.lanes[op] = lane
            self._emit_block(inner, ctx, op.body.block)
        inner.close()

    def _emit_consume(self, b: CoreBuilder, ctx: _Ctx, op: tg.ConsumeOp) -> None:
        chan = self.chans[op.queue.root_reference.data]
        count = ctx.proc.counts[chan.name]
        factor = self._unroll(op, ctx, chan)
        if count % factor:
            raise MappingError(
                f"@{ctx.proc.name} receives {count} messages on @{chan.name}, which do not deal "
                f"round-robin over {factor} objectfifos",
                op,
            )
        if count == 0:
            return
        assert chan.type is not None
        inner, m = b.loop(count // factor, "m")
        for lane in range(factor):
            index = _Lazy(m, factor, lane, 1, 0)
            ctx.lanes[op] = lane
            fifo = self._fifo(chan, ctx, sending=False, number=lane)
            element = inner.acquire(fifo, "Consume", chan.type)
            saved = ctx.message
            ctx.message = (chan, element, index)
            self._emit_block(inner, ctx, op.body.block)
            ctx.message = saved
            inner.release(fifo, "Consume")
        inner.close()

    def _fifo(self, chan: Chan, ctx: _Ctx, sending: bool, number: int = 0) -> str:
        """The objectfifo this core uses for ``chan``: its own replica's, or, facing a
        replicated side, the one the lane (message number mod replicas) selects."""
        assert chan.producer and chan.consumer
        if len(chan.fifos) == 1:
            return chan.fifos[0]
        if sending:
            if chan.producer.replicas > 1:
                return chan.fifos[ctx.replica]
            lane = self._send_lane(chan, ctx)
            return chan.fifos[lane % chan.consumer.replicas]
        if chan.consumer.replicas > 1:
            return chan.fifos[ctx.replica]
        return chan.fifos[number % chan.producer.replicas]

    def _send_lane(self, chan: Chan, ctx: _Ctx) -> int:
        send = chan.sends[0]
        parent = send.parent_op()
        while isinstance(parent, tg.OrderedOp):
            parent = parent.parent_op()
        if parent is None or parent not in ctx.lanes:
            raise MappingError(
                f"tg.send @{chan.name} to the {chan.consumer.replicas if chan.consumer else 0} "
                "replicas of its receiver must stand directly in a loop or a consume body",
                send,
            )
        return ctx.lanes[parent]

    def _emit_task(self, b: CoreBuilder, ctx: _Ctx, task: tg.TaskOp, send: Chan | None) -> None:
        kernel = self._kernel(task)
        decl = self.design.kernel(kernel, task)
        params = iter(task.params)
        resources = iter(zip(task.resources, task.access.data))
        args: list[SSAValue] = []
        releases: list[tuple[str, str]] = []
        for access in kernel.access.data:
            if not access.data:
                args.append(b.to_i32(self._value(b, ctx, next(params), task)))
                continue
            value, mode = next(resources)
            name = tensor_name(value)
            assert name is not None
            if mode.data == "in" and ctx.message and ctx.message[0].payload == name:
                args.append(ctx.message[1])
                continue
            if mode.data == "out" and send is not None and send.payload == name:
                fifo = self._fifo(send, ctx, sending=True)
                assert send.type is not None
                args.append(b.acquire(fifo, "Produce", send.type))
                releases.append((fifo, "Produce"))
                continue
            direction = "in" if mode.data == "in" else "out"
            fifo = self.shim[(ctx.tile, name, direction)]
            port = "Consume" if direction == "in" else "Produce"
            args.append(b.acquire(fifo, port, self.types[(ctx.tile, name, direction)]))
            releases.append((fifo, port))
        expected = decl.function_type.inputs.data
        for k, (arg, want) in enumerate(zip(args, expected)):
            if arg.type != want:
                raise MappingError(
                    f"argument {k} of @{kernel.sym_name.data} is {arg.type} on the core, but "
                    f"the kernel takes {want}",
                    task,
                )
        b.call(kernel.sym_name.data, args)
        for fifo, port in releases:
            b.release(fifo, port)

    def _value(self, b: CoreBuilder, ctx: _Ctx, value: SSAValue, use: Operation) -> SSAValue:
        """``value`` computed in the core: loop indices, message coordinates, constants and
        the arithmetic between them (cloned)."""
        if value in ctx.values:
            known = ctx.values[value]
            return known.build(b) if isinstance(known, _Lazy) else known
        owner = value.owner
        if isinstance(value, BlockArgument):
            result = b.index(evaluate(value, self.env))
        elif isinstance(owner, tg.CoordOp):
            if ctx.message is None:
                raise MappingError("tg.coord outside the consume of its message", owner)
            chan, _, index = ctx.message
            # the global message number: index * replicas + replica
            g = _Lazy(index.iv, index.factor * ctx.proc.replicas, 0, 1, 0)
            g.lane = index.lane * ctx.proc.replicas + ctx.replica
            result = chan.coords[owner.position.value.data].emit(b, g.build(b))
        elif isinstance(owner, arith.ConstantOp):
            result = b.add(owner.clone()).results[0]
        elif isinstance(owner, Operation) and owner.dialect_name() == "arith":
            operands = {v: self._value(b, ctx, v, use) for v in owner.operands}
            result = b.add(owner.clone(value_mapper=operands)).results[0]
        else:
            raise MappingError(
                f"a scalar kernel argument computed by {_op_name(owner)} has no AIE mapping",
                use,
            )
        return result


@dataclass
class _Lazy:
    """``lower + step * (iv * factor + lane)``: a loop index of an unrolled loop, emitted
    where it is used."""

    iv: SSAValue
    factor: int
    lane: int
    step: int
    lower: int

    def build(self, b: CoreBuilder) -> SSAValue:
        value = self.iv
        if self.factor != 1:
            value = b.add(arith.MuliOp(value, b.index(self.factor))).results[0]
        if self.lane:
            value = b.add(arith.AddiOp(value, b.index(self.lane))).results[0]
        if self.step != 1:
            value = b.add(arith.MuliOp(value, b.index(self.step))).results[0]
        if self.lower:
            value = b.add(arith.AddiOp(value, b.index(self.lower))).results[0]
        return value


@dataclass
class _Ctx:
    proc: Proc
    replica: int
    tile: Tile
    values: dict[SSAValue, SSAValue | _Lazy]
    message: tuple[Chan, SSAValue, _Lazy] | None = None  # queue, element, message index
    lanes: dict[Operation, int] = field(default_factory=dict)


def _show(region: Region | None) -> str:
    if region is None:
        return "nothing"
    parts = ", ".join(f"{o}:{o + s}" for o, s in zip(region.offsets, region.sizes))
    return f"{region.tensor}[{parts}]"


def _op_name(owner: object) -> str:
    return owner.name if isinstance(owner, Operation) else "a block argument"


__all__ = ["PipelineMapper"]
