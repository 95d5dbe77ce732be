"""CSP pipelines in aicpu_orchestrate.cpp: a function per ``tg.process``, run on threads.

A pipeline program (``tg.queue``s and ``tg.process``es, from ``csp-to-tg``) becomes the
program's function, which declares the queues (name, capacity, event) and the processes
(name, replicas, the queues each sends on and receives from) to a ``pto::wsp::Pipeline``
(pto_wsp/pipeline.h) and runs them, and one function per process over the builder API and a
``pto::wsp::Process``: ``tg.send`` is ``_p.send(q, {coordinate names}, {values}, [=](Builder&
_b) { the body's tasks })`` (the receiver runs the closure: it issues the tasks), ``tg.consume``
a loop over ``_p.recv(q, message)`` ending each iteration with ``_p.wait()`` (its tasks
completed), ``tg.coord`` ``message.coord(k)``, ``tg.record`` / ``tg.synchronize`` the
process's calls of those names. The rules the runtime follows are docs/semantics.md's.
"""

from __future__ import annotations

import json

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from pto_wsp.dialects import csp, sched, tg

from .abi import identifier
from .orchestrate import _POOLS, ProgramEmitter, program_cname

_MESSAGING = (tg.SendOp, tg.ConsumeOp, tg.RecordOp, tg.SynchronizeOp)


class ProcessEmitter(ProgramEmitter):
    """Emits the function of one process of a pipeline program."""

    def __init__(self, parent: ProgramEmitter, process: tg.ProcessOp, queues: dict[str, int]):
        super().__init__(parent.program, parent.module, parent.kernels, parent.out)
        self.process = process
        self.queues = queues
        self.sends: set[int] = set()
        self.receives: set[int] = set()

    def cname(self) -> str:
        return f"{identifier(self.program.sym_name.data)}__{identifier(self.process.sym_name.data)}"

    def emit(self) -> None:
        params, _ = self.parameters()
        replica = self.names.define(self.process.replica) if self.process.replica.uses else ""
        signature = (
            f"static void {self.cname()}(pto::wsp::Builder& _b, pto::wsp::Process& _p"
            + "".join(f", {p}" for p in params)
            + f", int64_t {replica or '/*replica*/'})"
        )
        self.liveness()
        self.block(self.process.body.block)
        self.function(f"// tg.process @{self.process.sym_name.data}\n" + signature)

    def pure(self, op: Operation) -> bool:
        return isinstance(op, tg.CoordOp) or super().pure(op)

    def queue(self, op: Operation) -> int:
        return self.queues[op.queue.root_reference.data]  # type: ignore[attr-defined]

    def op(self, op: Operation) -> None:
        if isinstance(op, tg.SendOp):
            self.send(op)
        elif isinstance(op, tg.ConsumeOp):
            self.consume(op)
        elif isinstance(op, tg.RecordOp):
            self.sends.add(self.queue(op))
            self.line(f"_p.record({self.queue(op)});")
        elif isinstance(op, tg.SynchronizeOp):
            self.receives.add(self.queue(op))
            self.line(f"_p.synchronize({self.queue(op)});")
        elif isinstance(op, tg.CoordOp):
            if self.used(op):
                self.define(op.result, f"{self.names[op.message]}.coord({op.position.value.data})")
        else:
            super().op(op)

    def send(self, op: tg.SendOp) -> None:
        """The body's tasks as a closure the receiver runs (views and values by copy)."""
        q = self.queue(op)
        self.sends.add(q)
        names = ", ".join(json.dumps(n.data) for n in op.coord_names)
        values = ", ".join(self.names[c] for c in op.coords)
        call = "(void)_p.try_send" if op.nonblocking is not None else "_p.send"
        self.line(f"{call}({q}, {{{names}}}, {{{values}}}, [=](pto::wsp::Builder& _b) {{")
        self.indent += 1
        self.block(op.body.block)
        self.indent -= 1
        self.line("});")

    def consume(self, op: tg.ConsumeOp) -> None:
        q = self.queue(op)
        self.receives.add(q)
        message = self.names.define(op.message)
        self.line(f"for (pto::wsp::Received {message}; _p.recv({q}, {message});) {{")
        self.indent += 1
        self.block(op.body.block)
        self.line("_p.wait();")
        self.indent -= 1
        self.line("}")


def receipt_keys(module: ModuleOp, schedule: str = "") -> dict[str, Operation]:
    """Per pipeline of ``module`` (before the lowering to tg): the schedule whose keys its
    receivers compute, ``schedule`` where it has several. csp-to-tg leaves a message task's
    keys over ``replica`` out (the sender cannot know the receiver's), so they come from
    here, as the CPU simulator's PlacementKeys take them."""
    pipelines = {op.sym_name.data for op in module.ops if isinstance(op, csp.PipelineOp)}
    bound: dict[str, list[Operation]] = {}
    for op in module.ops:
        if op.name == "sched.schedule":
            target = op.properties["workload"].root_reference.data
            if target in pipelines:
                bound.setdefault(target, []).append(op)
    chosen = {}
    for name, schedules in bound.items():
        named = [s for s in schedules if s.properties["sym_name"].data == schedule]
        if named or len(schedules) == 1:
            chosen[name] = (named or schedules)[0].clone()
    return chosen


def _key_function(main: ProgramEmitter, op: Operation, cname: str) -> str:
    """A key region as ``bool cname(const Coords&, int64_t&)``: false when the task lacks a
    coordinate it reads."""
    names = [n.data for n in op.properties["key_names"].data]
    block = op.regions[0].block
    emitter = ProgramEmitter(main.program, main.module, main.kernels, main.out)
    emitter.names.taken |= {"_c", "_v"}
    ops = list(block.ops)
    emitter.live = {r for o in ops for r in o.results}
    for arg, name in zip(block.args, names):
        local = emitter.names.define(arg)
        emitter.line(f"int64_t {local};")
        emitter.line(f"if (!_c.get({json.dumps(name)}, {local})) return false;")
    for o in ops[:-1]:
        emitter.value_op(o)
    emitter.line(f"_v = {emitter.names[ops[-1].operands[0]]};")
    emitter.line("return true;")
    head = f"static bool {cname}(const pto::wsp::Coords& _c, int64_t& _v)"
    return head + " {\n" + "\n".join(emitter.lines) + "\n}\n"


def _receipt_keys(main: ProgramEmitter, schedule: Operation) -> str | None:
    """The ReceiptKeys of a pipeline's schedule (its key functions first), or None."""
    base = identifier(main.program.sym_name.data)
    dispatch, axis, functions = "None", "nullptr", []
    keys = {"dispatch": "nullptr", "stream": "nullptr", "priority": "nullptr"}
    threshold = ("nullptr", 0, "Any", "Any")

    def key(op: Operation, what: str) -> str:
        cname = f"{base}_{what}_key"
        functions.append(_key_function(main, op, cname))
        return cname

    for op in schedule.regions[0].block.ops:
        policy = op.properties.get("policy")
        policy = policy.data if isinstance(policy, StringAttr) else ""
        if op.name == "sched.dispatch" and policy == "affinity":
            dispatch, axis = "Affinity", json.dumps(op.properties["axis"].data)
        elif op.name == "sched.dispatch" and policy in ("hash", "dispatch_by"):
            dispatch = "Hash" if policy == "hash" else "DispatchBy"
            keys["dispatch"] = key(op, "dispatch")
        elif op.name == "sched.stream_by":
            keys["stream"] = key(op, "stream")
        elif op.name == "sched.issue" and policy == "priority":
            keys["priority"] = key(op, "priority")
        elif isinstance(op, sched.DispatchThresholdOp):
            pools = (_POOLS[op.below.data], _POOLS[op.above.data])
            threshold = (key(op, "threshold"), op.threshold.value.data, *pools)
    if dispatch == "None" and not functions:
        return None
    fields = [
        f"pto::wsp::ReceiptDispatch::{dispatch}",
        axis,
        keys["dispatch"],
        keys["stream"],
        keys["priority"],
        threshold[0],
        str(threshold[1]),
        f"pto::wsp::ExecPool::{threshold[2]}",
        f"pto::wsp::ExecPool::{threshold[3]}",
    ]
    main.out.functions += functions
    main.out.functions.append(
        "// The schedule's keys of the messages' tasks, computed by the process receiving them.\n"
        f"static const pto::wsp::ReceiptKeys {base}_keys = {{{', '.join(fields)}}};\n"
    )
    return f"&{base}_keys"


def _coords_bound(program: tg.ProgramOp) -> int:
    """The most coordinates a task of the pipeline may carry: every name its tasks and
    messages use, and ``replica``."""
    names = {"replica"}
    for op in program.walk():
        if isinstance(op, tg.TaskOp | tg.SendOp):
            names.update(n.data for n in op.coord_names)
    return len(names)


def emit_pipeline(main: ProgramEmitter) -> None:
    """The functions of a pipeline program: one per process, and the program's, which runs
    them (``main`` has named nothing yet)."""
    program = main.program
    # (The verifier keeps a pipeline program to queues and processes.)
    queues = [op for op in program.body.block.ops if isinstance(op, tg.QueueOp)]
    index = {q.sym_name.data: i for i, q in enumerate(queues)}
    params, _ = main.parameters()
    names = [main.names[a] for a in program.body.block.args]
    rows = []
    for process in program.processes():
        emitter = ProcessEmitter(main, process, index)
        emitter.emit()
        sends = ", ".join(str(q) for q in sorted(emitter.sends))
        receives = ", ".join(str(q) for q in sorted(emitter.receives))
        args = "".join(f", {n}" for n in names)
        rows += [
            f"_pl.process({json.dumps(process.sym_name.data)}, {process.replicas.value.data}, "
            f"{{{sends}}}, {{{receives}}},",
            "            [&](pto::wsp::Builder& _pb, pto::wsp::Process& _p, int64_t _r) "
            f"{{ {emitter.cname()}(_pb, _p{args}, _r); }});",
        ]
    main.out.pipeline_coords = max(main.out.pipeline_coords, _coords_bound(program))
    schedule = main.out.receipt_keys.get(program.sym_name.data)
    keys = _receipt_keys(main, schedule) if schedule is not None else None
    config = program.config.data if program.config is not None else {}
    dispatch = getattr(config.get("dispatch"), "data", "")
    if schedule is None and dispatch in ("affinity", "hash", "dispatch_by"):
        main.out.warnings.append(
            f"tg.program @{program.sym_name.data}: the pipeline's schedule is not given (the "
            "module was lowered to tg first), so its keys over replica are not computed at "
            "receipt: give the target the csp module"
        )
    signature = (
        f"void {program_cname(program)}(pto::wsp::Builder& _b"
        + "".join(f", {p}" for p in params)
        + ")"
    )
    main.out.prototypes.append(signature + ";")
    table = ", ".join(
        f"{{{json.dumps(q.sym_name.data)}, {q.capacity.value.data}, "
        f"{'true' if q.is_event else 'false'}}}"
        for q in queues
    )
    main.lines = [
        f"  static const pto::wsp::QueueInfo kQueues[] = {{{table}}};" if queues else "",
        f"  pto::wsp::Pipeline _pl(_b, {'kQueues' if queues else 'nullptr'}, {len(queues)}"
        + (f", {keys});" if keys else ");"),
        *("  " + r for r in rows),
        "  _pl.run();",
    ]
    main.lines = [line for line in main.lines if line]
    main.function(f"// tg.program @{program.sym_name.data}: a pipeline\n" + signature)
