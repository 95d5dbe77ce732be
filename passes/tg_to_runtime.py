"""``tg-to-runtime-calls``: task-generation programs as upstream MLIR calling the runtime core.

Each ``tg.program`` becomes a ``func.func`` of the same name whose first argument is the
runtime context (an ``index``: the core's builder, by address) followed by the program's own
arguments. Control flow (``scf``, ``arith``, ``memref``) stays as it is; the tg ops become
calls of the core's C API (runtime/core/pto_wsp_core.h), declared as ``func.func private``:

| tg | calls |
|---|---|
| `tg.task` | `pto_tg_task(ctx, entry, values)`: the address of the task site's entry in the program's site table (a constant ``memref.global``, ``@__pto_sites_<program>``: what every task of the site shares) and of the site's slots in the function's task values (a ``memref.alloca`` made once: what cannot change stored at the entry, the rest before the call) |
| `tg.ordered` | `pto_tg_ordered_enter(ctx)`, its body, `pto_tg_ordered_exit(ctx)` |
| `tg.order_point` | `pto_tg_order_point(ctx)` |
| `tg.seq` | `pto_tg_seq(ctx) -> index` |
| `scf.for` with a `tg.task` in its body | `pto_tg_loop_tasks(ctx, lb, ub, step)` before it (the trip count checked against the memory) |
| `tg.event_record "e" [stream(N)]` | `pto_tg_event_record(ctx, event, all, N)` (`pto_tg_use_events(ctx)` first thing in a program using events) |
| `tg.event_wait "e" [stream(N)]` | `pto_tg_event_wait(ctx, event, all, N)` |
| `tg.event_query "e"` | `pto_tg_event_query(ctx, event) -> index`, compared with 0 |
| `tg.call` | the callee's body, inlined |

A read the program's shape puts after every write of its tensor, or of a tensor no task writes
(passes/tg_reads.py), has access 3 (lookup) or 4 (unwritten) in the site table: the core's
TensorMap records no reader for it. A region is stated in its root tensor's index space (what
the TensorMap decides overlap on):
the ``memref.subview`` chain from a program argument is folded into per-dimension offset,
size and stride values, as tg-materialize does. What native code must not do on bad data is
checked first, and calls ``pto_tg_check_failed(ctx, check)`` instead: a ``memref.load`` outside
its memref, an integer division or remainder by zero (or signed overflow), an ``scf.for`` step
that is not positive.

The tables the runtime needs beside the code are attributes of the function (upstream MLIR
keeps them): ``pto.kernels`` (kernel id -> name), ``pto.coords`` (site -> coordinate names),
``pto.arg_names``, ``pto.checks`` (check -> its location and what failed), ``pto.reads`` (the
arguments whose data the program loads) and ``pto.config`` (the program's runtime
configuration), ``pto.scalars`` (site -> one letter per task scalar: ``i`` integer, ``b``
i1, ``f`` float: its f64 bits) and ``pto.kept`` (site -> per region the root dimensions
its view keeps). Kernel declarations (``wsp.kernel``) are dropped; ``memref.global`` data is
kept. The output holds upstream dialects only (docs/native.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import tg, tg_events
from pto_wsp.dialects.tg_calls import call_cycle
from pto_wsp.passes.diagnostics import location_of
from pto_wsp.passes.tg_reads import LOOKUP, UNWRITTEN, reads_after_writes, top_level
from pto_wsp.passes.tg_runtime_checks import DIVISIONS, RuntimeChecks, Value, constant_of

NAME = "tg-to-runtime-calls"

#: The highest rank of a task's region (the core's PTO_CORE_MAX_RANK).
MAX_RANK = 8

#: The core's C API the lowered programs call: name -> number of index operands, results.
RUNTIME_API: dict[str, tuple[int, int]] = {
    # A task: its site's entry in the site table and its values (pto_wsp_core.h).
    "pto_tg_task": (3, 0),
    "pto_tg_ordered_enter": (1, 0),
    "pto_tg_order_point": (1, 0),
    "pto_tg_ordered_exit": (1, 0),
    "pto_tg_seq": (1, 1),
    "pto_tg_check_failed": (2, 0),
    "pto_tg_loop_tasks": (4, 0),
    "pto_tg_use_events": (1, 0),
    "pto_tg_event_record": (4, 0),
    "pto_tg_event_wait": (4, 0),
    "pto_tg_event_query": (2, 1),
    # Pipelines (a process's calls; the core blocks the process inside them).
    "pto_tg_send_begin": (1, 0),
    "pto_tg_send_coord": (2, 0),
    "pto_tg_send_end": (4, 0),
    "pto_tg_recv": (2, 1),
    "pto_tg_issue": (3, 0),
    "pto_tg_message_coord": (3, 1),
    "pto_tg_wait": (1, 0),
    "pto_tg_record": (2, 0),
    "pto_tg_synchronize": (2, 0),
}

#: Numbering shared with the core (task_abi.h, runtime/graph.py).
ACCESS = {"in": 0, "out": 1, "inout": 2}
#: The site table's access of a read passes/tg_reads.py marks (pto_wsp_core.h's
#: PTO_ACCESS_LOOKUP, PTO_ACCESS_UNWRITTEN).
READ_MARKS = {LOOKUP: 3, UNWRITTEN: 4}
POOLS = {"vector": 0, "cube": 1, "any": 255}
DOMAINS = {"host_cpu": 0, "aicore": 1, "aie_tile": 2}

#: The slots (int64) of a function's task values that sites may own: a site's values that
#: cannot change are then stored once, at the function's entry, not per task. Past it, sites
#: share slots and store each value per task (the array stays small on a process's stack).
OWN_VALUES = 1024

#: How deep tg.call may nest (a chain without a cycle) before the pass gives up.
MAX_CALL_DEPTH = 64

_UPSTREAM = ("arith.", "scf.", "memref.", "func.")


def _fail(op: Operation, message: str) -> NoReturn:
    """Raise the pass's error at ``op`` (pto-opt prints its location and the op)."""
    text = f"{NAME}: {message}"
    error = PassFailedException(text)
    error.location = location_of(op)  # (for callers that report without the op: the JIT)
    op.emit_error(text, error)
    raise AssertionError("unreachable: emit_error raises")


@dataclass
class _View:
    """A memref value as a region of a root program argument: per root dimension its offset,
    size and stride (ints where known), and the root dimensions that are its dimensions."""

    tensor: int
    offsets: list[Value]
    sizes: list[Value]
    strides: list[Value]
    kept: list[int]


@dataclass
class _Lowering(RuntimeChecks):
    """The lowering of one program into one func.func (its block is lowered in place)."""

    func: func.FuncOp
    kernels: list[str] = field(default_factory=list)
    coords: list[list[str]] = field(default_factory=list)
    scalars: list[str] = field(default_factory=list)
    kept: list[list[list[int]]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    views: dict[SSAValue, _View] = field(default_factory=dict)
    constants: dict[int, SSAValue] = field(default_factory=dict)
    #: A pipeline's queues by name (their ids), the process being lowered's replica index
    #: and the queues it sends on (or records) and receives from (or synchronizes).
    queues: dict[str, int] = field(default_factory=dict)
    replica: SSAValue | None = None
    sends: set[int] = field(default_factory=set)
    receives: set[int] = field(default_factory=set)
    #: The program's site table (``table_name``: pto_tg_task's entries, concatenated), the
    #: functions' references to it, and per function its site table address, task values
    #: and their address; per task values array the slots sites own and the shared ones.
    table_name: str = ""
    sites: list[int] = field(default_factory=list)
    refs: list[memref.GetGlobalOp] = field(default_factory=list)
    buffers: tuple[SSAValue, memref.AllocaOp, SSAValue] | None = None
    given: dict[memref.AllocaOp, list[int]] = field(default_factory=dict)
    #: Per task op with a read after every write of its tensor, its regions' marks.
    reads_after: dict[tg.TaskOp, list[str]] = field(default_factory=dict)

    @property
    def ctx(self) -> SSAValue:
        return self.func.body.block.args[0]

    # ------------------------------------------------------------------ emission helpers

    def emit(self, op: Operation, before: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(before))
        return op

    def value(self, v: Value, before: Operation) -> SSAValue:
        """``v`` as an SSA value: an int is an index constant, made once at the function's
        entry (which dominates every use)."""
        if not isinstance(v, int):
            return v
        known = self.constants.get(v)
        if known is None:
            constant = arith.ConstantOp.from_int_and_width(v, IndexType())
            block = self.func.body.block
            Rewriter.insert_op(constant, InsertPoint.at_start(block))
            known = self.constants[v] = constant.result
        return known

    def call(self, name: str, args: Sequence[Value], before: Operation) -> Operation:
        operands = [self.ctx, *(self.value(a, before) for a in args)]
        results = [IndexType()] * RUNTIME_API[name][1]
        return self.emit(func.CallOp(name, operands, results), before)

    def mul(self, a: Value, b: Value, before: Operation) -> Value:
        a, b = constant_of(a), constant_of(b)
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1 or b == 1:
            return b if a == 1 else a
        if a == 0 or b == 0:
            return 0
        va, vb = self.value(a, before), self.value(b, before)
        return self.emit(arith.MuliOp(va, vb), before).results[0]

    def add(self, a: Value, b: Value, before: Operation) -> Value:
        a, b = constant_of(a), constant_of(b)
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0 or b == 0:
            return b if a == 0 else a
        va, vb = self.value(a, before), self.value(b, before)
        return self.emit(arith.AddiOp(va, vb), before).results[0]

    # ------------------------------------------------------------------ views

    def view(self, value: SSAValue, user: Operation) -> _View:
        """The region of a root argument that ``value`` is (computed once, where it is made)."""
        known = self.views.get(value)
        if known is not None:
            return known
        block = self.func.body.block
        if isinstance(value, BlockArgument) and value.block is block and value.index > 0:
            view = self._root(value)
        elif isinstance(value.owner, memref.SubviewOp):
            view = self._subview(value.owner, user)
        else:
            what = value.owner.name if isinstance(value.owner, Operation) else "a block argument"
            _fail(
                user,
                f"a task region must be a program argument or a memref.subview of "
                f"one, not a value of {what}",
            )
        self.views[value] = view
        return view

    def _root(self, arg: BlockArgument) -> _View:
        type_ = arg.type
        assert isinstance(type_, MemRefType)
        sizes: list[Value] = []
        for d, extent in enumerate(type_.get_shape()):
            if extent != DYNAMIC_INDEX:
                sizes.append(extent)
                continue
            index = self.value(d, arg.owner.first_op)
            dim = memref.DimOp(arg, index)
            Rewriter.insert_op(dim, InsertPoint.after(index.owner))
            sizes.append(dim.result)
        rank = len(sizes)
        return _View(arg.index - 1, [0] * rank, sizes, [1] * rank, list(range(rank)))

    def _subview(self, op: memref.SubviewOp, user: Operation) -> _View:
        parent = self.view(op.source, user)

        def values(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Value]:
            dyn = iter(dynamic)
            return [next(dyn) if s == DYNAMIC_INDEX else s for s in static]

        offsets = values(op.static_offsets.get_values(), op.offsets)
        sizes = values(op.static_sizes.get_values(), op.sizes)
        strides = values(op.static_strides.get_values(), op.strides)
        result = op.result.type
        assert isinstance(result, MemRefType)
        keep = _rank_reduction_mask(list(op.static_sizes.get_values()), list(result.get_shape()))
        view = _View(
            parent.tensor, list(parent.offsets), list(parent.sizes), list(parent.strides), []
        )
        for i, dim in enumerate(parent.kept):
            step = self.mul(offsets[i], parent.strides[dim], op)
            view.offsets[dim] = self.add(parent.offsets[dim], step, op)
            view.sizes[dim] = sizes[i]
            view.strides[dim] = self.mul(parent.strides[dim], strides[i], op)
            if keep[i]:
                view.kept.append(dim)
        return view

    # ------------------------------------------------------------------ ops

    def block(self, block: Block) -> None:
        for op in list(block.ops):
            self.op(op)

    def op(self, op: Operation) -> None:
        # (seen before the body is lowered: its tasks are calls after)
        tasks = isinstance(op, scf.ForOp) and any(isinstance(o, tg.TaskOp) for o in op.body.ops)
        for region in op.regions:
            for block in region.blocks:
                self.block(block)
        if isinstance(op, tg.TaskOp):
            self.task(op)
        elif isinstance(op, tg.OrderedOp):
            self.call("pto_tg_ordered_enter", [], op)
            body = op.body.block
            if isinstance(body.last_op, tg.YieldOp):
                Rewriter.erase_op(body.last_op)
            Rewriter.inline_block(body, InsertPoint.before(op))
            self.call("pto_tg_ordered_exit", [], op)
            Rewriter.erase_op(op)
        elif isinstance(op, tg.OrderPointOp):
            self.call("pto_tg_order_point", [], op)
            Rewriter.erase_op(op)
        elif isinstance(op, tg.SeqOp):
            seq = self.call("pto_tg_seq", [], op)
            op.result.replace_all_uses_with(seq.results[0])
            Rewriter.erase_op(op)
        elif isinstance(op, tg_events.EVENT_OPS_TYPES):
            self.event(op)
        elif isinstance(op, memref.LoadOp):
            self.load(op)
        elif isinstance(op, DIVISIONS):
            self.divide(op)
        elif isinstance(op, scf.ForOp):
            self.loop(op, tasks)
        elif isinstance(op, tg.YieldOp):
            return  # (a tg.ordered's is dropped with it, the program's becomes func.return)
        elif isinstance(op, tg.SendOp | tg.ConsumeOp | tg.RecordOp | tg.SynchronizeOp):
            self.messaging(op)
        elif isinstance(op, tg.CoordOp):
            # (its message is the consume's block argument until the consume is lowered)
            position = op.position.value.data
            coord = self.call("pto_tg_message_coord", [op.message, position], op)
            op.result.replace_all_uses_with(coord.results[0])
            Rewriter.erase_op(op)
        elif isinstance(op, tg.QueueOp | tg.ProcessOp):
            _fail(op, f"{op.name} must be directly inside a tg.program")
        elif not op.name.startswith(_UPSTREAM):
            _fail(op, f"cannot lower {op.name} (only scf, arith, memref and tg program ops)")

    def queue(self, op: Operation, ref: Any) -> int:
        if self.replica is None:
            _fail(op, f"{op.name} outside a tg.process")
        return self.queues[ref.root_reference.data]

    def messaging(self, op: Operation) -> None:
        """The ops of a process that talk over queues: calls in which the core may block."""
        q = self.queue(op, op.queue)  # type: ignore[attr-defined]
        if isinstance(op, tg.RecordOp | tg.SynchronizeOp):
            record = isinstance(op, tg.RecordOp)
            (self.sends if record else self.receives).add(q)
            self.call("pto_tg_record" if record else "pto_tg_synchronize", [q], op)
            Rewriter.erase_op(op)
        elif isinstance(op, tg.SendOp):
            self.send(op, q)
        else:
            assert isinstance(op, tg.ConsumeOp)
            self.consume(op, q)

    def send(self, op: tg.SendOp, q: int) -> None:
        """The tasks of the body are captured as one message (their coordinates: a site)."""
        self.sends.add(q)
        site = len(self.coords)
        self.coords.append([n.data for n in op.coord_names])
        self.kept.append([])  # (a message's site names coordinates only)
        self.scalars.append("")
        self.call("pto_tg_send_begin", [], op)
        body = op.body.block
        if isinstance(body.last_op, tg.YieldOp):
            Rewriter.erase_op(body.last_op)
        Rewriter.inline_block(body, InsertPoint.before(op))
        for c in op.coords:
            self.call("pto_tg_send_coord", [c], op)
        self.call("pto_tg_send_end", [q, site, int(op.nonblocking is not None)], op)
        Rewriter.erase_op(op)

    def consume(self, op: tg.ConsumeOp, q: int) -> None:
        """A loop: receive (-1 when the queue is closed), issue the message's tasks, run the
        body, wait for the tasks issued."""
        assert self.replica is not None
        self.receives.add(q)
        recv = func.CallOp("pto_tg_recv", [self.ctx, self.value(q, op)], [IndexType()])
        more = arith.CmpiOp(recv.results[0], self.value(0, op), "sge")
        before = Block([recv, more, scf.ConditionOp(more, recv.results[0])])
        after = Block(arg_types=[IndexType()])
        message = after.args[0]
        message.name_hint = op.message.name_hint
        after.add_op(func.CallOp("pto_tg_issue", [self.ctx, message, self.replica], []))
        body = op.body.block
        if isinstance(body.last_op, tg.YieldOp):
            Rewriter.erase_op(body.last_op)
        Rewriter.inline_block(body, InsertPoint.at_end(after), [message])
        after.add_ops([func.CallOp("pto_tg_wait", [self.ctx], []), scf.YieldOp()])
        self.emit(scf.WhileOp([], [IndexType()], Region(before), Region(after)), op)
        Rewriter.erase_op(op)

    def task(self, op: tg.TaskOp) -> None:
        """One call: what every task of the site shares goes to the site table, the rest is
        stored in the function's task values (pto_wsp_core.h ``pto_tg_task``)."""
        kernel = op.kernel.root_reference.data
        if kernel not in self.kernels:
            self.kernels.append(kernel)
        site = len(self.coords)
        self.coords.append([n.data for n in op.coord_names])
        pool: Value = POOLS[op.pool.data if op.pool else "any"]
        if op.dynamic_pool is not None:
            pool = op.dynamic_pool
        place = [
            pool,
            op.target if op.target is not None else -1,
            op.stream if op.stream is not None else 0,
            op.priority if op.priority is not None else 0,
        ]
        views = [self.view(r, op) for r in op.resources]
        self.kept.append([list(v.kept) for v in views])
        self.scalars.append("".join(_scalar_kind(p, op) for p in op.params))
        given: list[Value] = []
        constants, varying = _split(place, given)
        entry = [site, self.kernels.index(kernel), DOMAINS[op.domain.data], *constants, varying]
        entry += [len(op.params), len(op.coords), len(views)]
        given += [self.scalar(p, op) for p in op.params]
        given += op.coords
        marks = self.reads_after.get(op) or [""] * len(views)
        codes = [READ_MARKS.get(m) or ACCESS[a.data] for m, a in zip(marks, op.access)]
        for view, code in zip(views, codes):
            rank = len(view.offsets)
            if rank > MAX_RANK:
                _fail(op, f"a region of rank {rank}: the runtime core takes ranks up to {MAX_RANK}")
            entry += [view.tensor, code, rank]
            given += [v for dim in zip(view.offsets, view.sizes, view.strides) for v in dim]
        table, values = self.store(given, op)
        at = self.add(table, 8 * len(self.sites), op)
        self.sites += entry
        self.call("pto_tg_task", [at, values], op)
        Rewriter.erase_op(op)

    def store(self, given: list[Value], op: tg.TaskOp) -> tuple[SSAValue, SSAValue]:
        """Store the values of ``op`` in its site's slots of the task values: in its own slots,
        what cannot change once, before the op holding it at the function's top level. The
        site table's address and the slots'."""
        table, values, address = self.task_buffers()
        slot, own = self.slot(values, len(given))
        block = self.func.body.block
        top = top_level(op, block)
        for i, value in enumerate(given):
            known = constant_of(value)
            once = own and (isinstance(known, int) or _defined_in(known, block))
            where = top if once else op
            index = self.value(slot + i, where)
            self.emit(memref.StoreOp.get(self.value(known, where), values.memref, [index]), where)
        return table, self.add(address, 8 * slot, op)  # type: ignore[return-value]

    def slot(self, values: memref.AllocaOp, n: int) -> tuple[int, bool]:
        """Where in ``values`` a site keeps its ``n`` values, and whether the slots are its own
        (within OWN_VALUES; past it, sites share the slots after)."""
        used = self.given.setdefault(values, [0, 0])
        if used[0] + n <= OWN_VALUES:
            used[0] += n
            return used[0] - n, True
        used[1] = max(used[1], n)
        return OWN_VALUES, False

    def task_buffers(self) -> tuple[SSAValue, memref.AllocaOp, SSAValue]:
        """This function's address of the program's site table, its task values (a stack
        array) and their address: made once at its entry, sized when the program is done."""
        if self.buffers is None:
            ref = memref.GetGlobalOp(self.table_name, MemRefType(IntegerType(64), [0]))
            values = memref.AllocaOp.get(IndexType(), shape=[0])
            table = memref.ExtractAlignedPointerAsIndexOp.get(ref)
            address = memref.ExtractAlignedPointerAsIndexOp.get(values)
            block = self.func.body.block
            Rewriter.insert_op([ref, values, table, address], InsertPoint.at_start(block))
            for op, hint in ((ref, "sites"), (values, "values"), (table, "sites_at")):
                op.results[0].name_hint = hint
            address.results[0].name_hint = "values_at"
            self.buffers = (table.aligned_pointer, values, address.aligned_pointer)
            self.refs.append(ref)
        return self.buffers

    def scalar(self, value: SSAValue, op: tg.TaskOp) -> SSAValue:
        """A task scalar as the index the core records: an integer cast, a float's f64 bits."""
        type_ = value.type
        if isinstance(type_, IndexType):
            return value
        if isinstance(type_, IntegerType):
            if type_.width.data == 1:  # (a bool: 0 or 1, not -1)
                value = self.emit(arith.ExtUIOp(value, IntegerType(64)), op).results[0]
            return self.emit(arith.IndexCastOp(value, IndexType()), op).results[0]
        if isinstance(type_, Float16Type | Float32Type):  # exact: the value keeps its rounding
            value = self.emit(arith.ExtFOp(value, Float64Type()), op).results[0]
        bits = self.emit(arith.BitcastOp(value, IntegerType(64)), op).results[0]
        return self.emit(arith.IndexCastOp(bits, IndexType()), op).results[0]

    def event(self, op: Operation) -> None:
        """A tg.event_* op as the core's call; events are numbered by name."""
        name = op.event.data  # type: ignore[attr-defined]
        if name not in self.events:
            self.events.append(name)
        event = self.events.index(name)
        if isinstance(op, tg_events.EventQueryOp):
            call = self.call("pto_tg_event_query", [event], op)
            zero = self.value(0, op)
            test = self.emit(arith.CmpiOp(call.results[0], zero, "ne"), op)
            op.result.replace_all_uses_with(test.results[0])
        else:
            stream = op.stream  # type: ignore[attr-defined]
            every = int(stream is None)
            number = 0 if stream is None else stream.value.data
            kind = "record" if isinstance(op, tg_events.EventRecordOp) else "wait"
            self.call(f"pto_tg_event_{kind}", [event, every, number], op)
        Rewriter.erase_op(op)

    def site_table(self) -> list[Operation]:
        """The program's site table (none without a task), its references and the task values
        arrays given their sizes."""
        if not self.refs:
            return []
        type_ = MemRefType(IntegerType(64), [len(self.sites)])
        for ref in self.refs:
            sized = memref.GetGlobalOp(self.table_name, type_)
            Rewriter.replace_op(ref, sized)
        for values, (own, shared) in self.given.items():
            count = OWN_VALUES + shared if shared else own
            Rewriter.replace_op(values, memref.AllocaOp.get(IndexType(), shape=[count]))
        data = DenseIntOrFPElementsAttr.from_list(
            TensorType(IntegerType(64), [len(self.sites)]), self.sites
        )
        return [memref.GlobalOp.get(StringAttr(self.table_name), type_, data, constant=UnitAttr())]

    def finish(self, program: tg.ProgramOp) -> None:
        """Drop the subviews only tasks used, write integer constants as MLIR reads them
        (signed: ``18446744073709551615 : index`` is -1), attach the runtime's tables."""
        for op in reversed(list(self.func.walk())):
            if isinstance(op, memref.SubviewOp) and not op.result.uses:
                Rewriter.erase_op(op)
            elif isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
                _signed(op)
        attrs = self.func.attributes
        attrs["pto.kernels"] = ArrayAttr([StringAttr(k) for k in self.kernels])
        attrs["pto.coords"] = ArrayAttr(
            [ArrayAttr([StringAttr(n) for n in names]) for names in self.coords]
        )
        attrs["pto.checks"] = ArrayAttr([StringAttr(s) for s in self.checks])
        attrs["pto.scalars"] = ArrayAttr([StringAttr(s) for s in self.scalars])
        attrs["pto.kept"] = ArrayAttr(
            [
                ArrayAttr([ArrayAttr([IntegerAttr(d, 64) for d in dims]) for dims in site])
                for site in self.kept
            ]
        )
        attrs["pto.reads"] = ArrayAttr([StringAttr(s) for s in sorted(self.reads)])
        if program.config is not None:
            attrs["pto.config"] = program.config
        attrs["llvm.emit_c_interface"] = UnitAttr()


def _signed(op: arith.ConstantOp) -> None:
    """An integer constant beyond the signed range of its width as its two's complement."""
    attr = op.value
    assert isinstance(attr, IntegerAttr)
    type_ = attr.type
    if isinstance(type_, IndexType):
        width = 64
    elif isinstance(type_, IntegerType) and type_.width.data > 1:
        width = type_.width.data
    else:
        return
    value = attr.value.data
    if value >= 1 << (width - 1):
        op.properties["value"] = IntegerAttr(value - (1 << width), type_)


def _defined_in(value: SSAValue, block: Block) -> bool:
    """Whether ``value`` is defined in ``block`` itself (an argument or an op of it)."""
    if isinstance(value, BlockArgument):
        return value.block is block
    return value.owner.parent_block() is block


def _split(values: Sequence[Value], given: list[Value]) -> tuple[list[int], int]:
    """The constants of ``values`` (0 where a value is not one) and which are not (bit j: the
    j-th, appended to ``given``): a site table's part and the task's."""
    constants, varying = [], 0
    for j, v in enumerate(values):
        known = constant_of(v)
        if isinstance(known, int):
            constants.append((known + (1 << 63)) % (1 << 64) - (1 << 63))  # (as int64)
        else:
            constants.append(0)
            varying |= 1 << j
            given.append(known)
    return constants, varying


def _scalar_kind(value: SSAValue, op: Operation) -> str:
    """How the host reads a task scalar back: ``i`` an integer, ``b`` an i1, ``f`` a float."""
    type_ = value.type
    if isinstance(type_, IntegerType) and type_.width.data == 1:
        return "b"
    if isinstance(type_, IndexType | IntegerType):
        return "i"
    if isinstance(type_, Float16Type | Float32Type | Float64Type):
        return "f"
    _fail(op, f"task scalars of type {type_} are not supported by the runtime core")


def _rank_reduction_mask(sizes: list[int], result: list[int]) -> list[bool]:
    """Which entries of a subview remain dims of its result (MLIR's greedy unit-dim rule)."""
    keep = []
    r = 0
    for size in sizes:
        kept = r < len(result) and size == result[r]
        keep.append(kept)
        r += kept
    return keep


def _expand_calls(module: ModuleOp, program: tg.ProgramOp, stack: tuple[str, ...]) -> tg.ProgramOp:
    """A copy of ``program`` with every ``tg.call`` replaced by the callee's body."""
    copy = program.clone()
    for call in [op for op in copy.walk() if isinstance(op, tg.CallOp)]:
        name = call.callee.root_reference.data
        if len(stack) >= MAX_CALL_DEPTH:  # no cycle (lower_program checked): a deep chain
            chain = " -> ".join(f"@{n}" for n in (*stack, name))
            _fail(call, f"tg.call nests more than {MAX_CALL_DEPTH} programs deep: {chain}")
        callee = next(
            (p for p in module.ops if isinstance(p, tg.ProgramOp) and p.sym_name.data == name),
            None,
        )
        if callee is None:
            _fail(call, f"tg.call of unknown program @{name}")
        body = _expand_calls(module, callee, (*stack, name)).body.block
        if isinstance(body.last_op, tg.YieldOp):
            Rewriter.erase_op(body.last_op)
        Rewriter.inline_block(body, InsertPoint.before(call), list(call.args))
        Rewriter.erase_op(call)
    return copy


def site_table_name(program: str) -> str:
    """The symbol of the site table of ``program`` (a ``memref.global`` beside its code)."""
    return f"__pto_sites_{program}"


def lower_program(module: ModuleOp, program: tg.ProgramOp) -> list[Operation]:
    """What ``program`` becomes: its site table (when it creates tasks), then the func.funcs
    calling the runtime core: one, or for a pipeline one per process and last the program's
    own (its tables, an empty body)."""
    name = program.sym_name.data
    if (found := call_cycle(program, module)) is not None:
        chain = " -> ".join(f"@{n}" for n in found[1])
        _fail(found[0], f"recursive tg.call cannot be inlined: {chain}")
    expanded = _expand_calls(module, program, (name,))
    if program.processes():
        return _lower_pipeline(program, expanded)
    body = expanded.body.block
    expanded.body.detach_block(body)
    body.insert_arg(IndexType(), 0).name_hint = "ctx"
    inputs = [IndexType(), *program.function_type.inputs.data]
    function = func.FuncOp(name, (inputs, []), Region([body]))
    function.attributes["pto.arg_names"] = ArrayAttr(list(program.arg_names.data))
    lowering = _Lowering(
        function, table_name=site_table_name(name), reads_after=reads_after_writes(body)
    )
    if any(isinstance(op, tg_events.EVENT_OPS_TYPES) for op in body.walk()):
        # (before the first task: the core tracks every task's stream from there)
        Rewriter.insert_op(
            func.CallOp("pto_tg_use_events", [body.args[0]], []), InsertPoint.at_start(body)
        )
    lowering.block(body)
    if isinstance(body.last_op, tg.YieldOp):
        Rewriter.erase_op(body.last_op)
    body.add_op(func.ReturnOp())
    lowering.finish(program)
    return [*lowering.site_table(), function]


def _lower_pipeline(program: tg.ProgramOp, expanded: tg.ProgramOp) -> list[func.FuncOp]:
    """Each tg.process becomes ``@<program>__<process>(ctx, arguments..., replica)``; the
    program's own function carries the tables, the queues and the processes (``pto.queues``:
    name, capacity, whether an event; ``pto.processes``: name, replicas, function, the queue
    ids it sends on and receives from). A pipeline program holds queues and processes only."""
    name = program.sym_name.data
    block = expanded.body.block
    queues = [q for q in block.ops if isinstance(q, tg.QueueOp)]
    names = ArrayAttr(list(program.arg_names.data))
    inputs = [IndexType(), *program.function_type.inputs.data]
    entry = Block([func.ReturnOp()], arg_types=inputs)
    for arg, hint in zip(entry.args, ["ctx", *(a.name_hint for a in block.args)]):
        arg.name_hint = hint
    main = func.FuncOp(name, (inputs, []), Region(entry))
    main.attributes["pto.arg_names"] = names
    lowering = _Lowering(
        main,
        queues={q.sym_name.data: i for i, q in enumerate(queues)},
        table_name=site_table_name(name),
    )
    functions, described = [], []
    for process in expanded.processes():
        function = _process_function(name, process, block, inputs)
        function.attributes["pto.arg_names"] = names
        lowering.func, lowering.replica = function, function.body.block.args[-1]
        lowering.views, lowering.constants, lowering.buffers = {}, {}, None
        lowering.sends, lowering.receives = set(), set()
        lowering.block(function.body.block)
        function.body.block.add_op(func.ReturnOp())
        functions.append(function)
        described.append(
            ArrayAttr(
                [
                    process.sym_name,
                    IntegerAttr(process.replicas.value.data, IndexType()),
                    StringAttr(function.sym_name.data),
                    ArrayAttr([IntegerAttr(q, IndexType()) for q in sorted(lowering.sends)]),
                    ArrayAttr([IntegerAttr(q, IndexType()) for q in sorted(lowering.receives)]),
                ]
            )
        )
    lowering.func = main
    lowering.finish(program)
    for function in functions:  # (finish dropped the main function's unused subviews only)
        for op in reversed(list(function.walk())):
            if isinstance(op, memref.SubviewOp) and not op.result.uses:
                Rewriter.erase_op(op)
        function.attributes["llvm.emit_c_interface"] = UnitAttr()
    main.attributes["pto.queues"] = ArrayAttr(
        [
            ArrayAttr(
                [
                    q.sym_name,
                    IntegerAttr(q.capacity.value.data, IndexType()),
                    IntegerAttr(int(q.is_event), IndexType()),
                ]
            )
            for q in queues
        ]
    )
    main.attributes["pto.processes"] = ArrayAttr(described)
    return [*lowering.site_table(), *functions, main]


def _process_function(
    program: str, process: tg.ProcessOp, block: Block, inputs: list
) -> func.FuncOp:
    """The function of one process: its body, cloned with the program's arguments and the
    replica index as the function's."""
    body = Block(arg_types=[*inputs, IndexType()])
    body.args[0].name_hint = "ctx"
    mapping: dict[SSAValue, SSAValue] = {}
    for old, new in zip(block.args, body.args[1:-1]):
        new.name_hint = old.name_hint
        mapping[old] = new
    mapping[process.replica] = body.args[-1]
    body.args[-1].name_hint = process.replica.name_hint or "replica"
    for op in process.body.block.ops:
        if not isinstance(op, tg.YieldOp):
            body.add_op(op.clone(mapping))
    return func.FuncOp(f"{program}__{process.sym_name.data}", (body.arg_types, []), Region([body]))


def _declarations() -> list[func.FuncOp]:
    return [
        func.FuncOp.external(name, [IndexType()] * n, [IndexType()] * r)
        for name, (n, r) in RUNTIME_API.items()
    ]


def runtime_module(module: ModuleOp, programs: Sequence[tg.ProgramOp]) -> ModuleOp:
    """A new module: the runtime API's declarations, the module's ``memref.global`` data and
    the func.func of each of ``programs`` (``module`` is left as it is)."""
    data = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    for op in data:
        if op.sym_name.data.startswith(site_table_name("")):
            _fail(op, f"@{op.sym_name.data}: a name the pass keeps for programs' site tables")
    data = [op.clone() for op in data]
    lowered = [f for p in programs for f in lower_program(module, p)]
    return ModuleOp([*_declarations(), *data, *lowered])


@dataclass(frozen=True)
class TgToRuntimeCallsPass(ModulePass):
    """Lower each ``tg.program`` to a ``func.func`` calling the runtime core's C API.

    The result holds upstream dialects only (func, scf, arith, memref): upstream MLIR parses
    it, lowers it to LLVM and JIT-compiles it (lowering/cpu/native.py). ``program=NAME``
    lowers only that program; a pipeline's processes become functions of their own.
    """

    name = NAME

    program: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for other in op.ops:
            if (
                not isinstance(other, tg.ProgramOp)
                and other.name != "wsp.kernel"
                and (not other.name.startswith(_UPSTREAM))
            ):
                _fail(other, f"cannot lower {other.name} (run wsp-to-tg and csp-to-tg first)")
        programs = [
            p
            for p in op.ops
            if isinstance(p, tg.ProgramOp) and (not self.program or p.sym_name.data == self.program)
        ]
        if self.program and not programs:
            raise PassFailedException(f"{NAME}: no program @{self.program}")
        result = runtime_module(op, programs)
        for old in list(op.ops):
            Rewriter.erase_op(old, safe_erase=False)
        for new in list(result.body.block.ops):
            new.detach()
            op.body.block.add_op(new)
