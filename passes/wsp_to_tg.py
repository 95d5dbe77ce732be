"""``wsp-to-tg``: lower each workload and its schedule to a task-generation program.

Each ``wsp.workload`` becomes a ``tg.program`` of the same name (docs/tg.md): its loops
become ``scf.for``, runtime conds ``scf.if``, views ``memref.subview``, tasks ``tg.task``;
structural order becomes ordering points (``tg.ordered`` + ``tg.order_point``) and the
schedule bound to the workload becomes per-task computations (target, stream, priority,
pool) and the program's ``config``. The program's size is that of the workload, whatever
the number of tasks it will create. docs/semantics.md states what each construct means;
this pass keeps it.

The lowering clones and translates, construct by construct (one ``_lower_<construct>``
method each), rather than rewriting in place: a task needs the names and values of the
loops around it and the axes it iterates, which an in-place rewrite would have destroyed
by the time it reaches the task.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    UnknownLoc,
    UnregisteredOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import csp, tg, wsp
from pto_wsp.passes import events_to_tg
from pto_wsp.passes.diagnostics import warn

# --------------------------------------------------------------------------- axes


@dataclass
class _Axis:
    """A lowered axis: its kind and the program values that bound its iterations."""

    kind: type[Attribute]
    size: SSAValue  # Dense/DenseDyn: extent; Ragged/Sparse: number of rows
    lengths: SSAValue | None = None  # Ragged
    indptr: SSAValue | None = None  # Sparse
    indices: SSAValue | None = None  # Sparse


def _expanded_arg_types(name: str, type_: Attribute) -> list[tuple[str, Attribute]]:
    """The program arguments standing for one workload argument (axes carry their data)."""
    index_buf = MemRefType(IndexType(), [DYNAMIC_INDEX])
    if isinstance(type_, wsp.DenseAxisType):
        return []
    if isinstance(type_, wsp.DenseDynAxisType):
        return [(name, IndexType())]
    if isinstance(type_, wsp.RaggedAxisType):
        return [(f"{name}_outer", IndexType()), (f"{name}_lengths", index_buf)]
    if isinstance(type_, wsp.SparseAxisType):
        return [
            (f"{name}_outer", IndexType()),
            (f"{name}_indptr", index_buf),
            (f"{name}_indices", index_buf),
        ]
    return [(name, type_)]


# --------------------------------------------------------------------------- schedule


@dataclass
class _Key:
    """A key region of a directive, cloned at each task with coordinates bound by name."""

    directive: Operation
    names: list[str]
    block: Block
    sources: list[str] = field(default_factory=list)
    warned: bool = False


@dataclass
class _Schedule:
    """What a schedule asks of each task, and the program's runtime configuration."""

    config: dict[str, Attribute] = field(default_factory=dict)
    target: tuple[str, object] | None = None  # (policy, detail)
    stream: _Key | None = None
    priority: _Key | None = None
    threshold: tuple[int, str, str, _Key] | None = None


def _key_of(op: Operation) -> _Key:
    names = op.properties.get("key_names")
    listed = [n.data for n in names.data] if names else []
    sources = op.properties.get("key_sources")
    kinds = [s.data for s in sources.data] if sources else ["coord"] * len(listed)
    return _Key(op, listed, op.regions[0].block, kinds)


def _read_schedule(schedule: Operation | None) -> _Schedule:
    """Turn a ``sched.schedule``'s directives into per-task keys and runtime config."""
    result = _Schedule()
    if schedule is None:
        return result
    extensions: list[str] = []
    for op in schedule.regions[0].block.ops:
        if not _read_directive(op, result):
            name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
            warn(
                op,
                f"wsp-to-tg does not know the schedule op '{name}'; it is kept in "
                "the program's config as an extension for the targets to honour or reject",
            )
            extensions.append(name)
    if extensions:
        result.config["extensions"] = ArrayAttr([StringAttr(n) for n in extensions])
    return result


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _prop_int(op: Operation, name: str) -> int | None:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _prop_str(op: Operation, name: str) -> str | None:
    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def _read_directive(op: Operation, out: _Schedule) -> bool:  # noqa: C901 - one case per directive
    """Record one directive; False if this pass does not know it."""
    config = out.config
    match op.name:
        case "sched.dispatch":
            policy = _prop_str(op, "policy") or ""
            config["dispatch"] = StringAttr(policy)
            count = _prop_int(op, "count")
            if count is not None:
                config["workers"] = _int(count)
            if policy in ("hash", "dispatch_by"):
                out.target = (policy, _key_of(op))
            elif policy in ("affinity", "range"):
                out.target = (policy, (_prop_str(op, "axis"), count))
            elif policy == "round_robin":
                out.target = (policy, count)
        case "sched.streams":
            config["streams"] = _int(_prop_int(op, "count") or 1)
        case "sched.stream_by":
            out.stream = _key_of(op)
        case "sched.issue":
            policy = _prop_str(op, "policy") or "fifo"
            config["ready"] = StringAttr(policy)
            if policy == "priority":
                out.priority = _key_of(op)
        case "sched.timing":
            config["timing"] = StringAttr(_prop_str(op, "policy") or "immediate")
            if (count := _prop_int(op, "count")) is not None:
                config["timing_n"] = _int(count)
        case "sched.spatial_map":
            config["spatial_map"] = op.properties["grid"]
        case "sched.layout":
            layouts = dict(config["layouts"].data) if "layouts" in config else {}
            layouts[_prop_str(op, "tensor") or ""] = op.properties["dims"]
            config["layouts"] = DictionaryAttr(layouts)
        case "sched.dispatch_threshold":
            threshold = _prop_int(op, "threshold") or 0
            below, above = _prop_str(op, "below") or "", _prop_str(op, "above") or ""
            out.threshold = (threshold, below, above, _key_of(op))
        case "sched.pipeline_depth":
            config["pipeline_depth"] = _int(_prop_int(op, "depth") or 1)
            config["depth_scope"] = StringAttr(_prop_str(op, "scope") or "global")
        case "sched.task_window":
            config["task_window"] = _int(_prop_int(op, "size") or 1)
            config["window_overflow"] = StringAttr(_prop_str(op, "overflow") or "stall")
        case "sched.batch_deps":
            config["batch_deps"] = _int(_prop_int(op, "count") or 1)
        case _:
            return False
    return True


#: The dialects whose ops a workload body may use to compute values (the program form runs them).
_HELPER_DIALECTS = ("arith.", "memref.", "scf.")

# --------------------------------------------------------------------------- environment


@dataclass
class _Env:
    """What the lowering of one block knows: value map, coordinates, loop extents, axes."""

    values: dict[SSAValue, SSAValue]
    axes: dict[SSAValue, _Axis]
    coords: list[tuple[str, SSAValue]] = field(default_factory=list)
    extents: dict[str, SSAValue] = field(default_factory=dict)
    calls: tuple[str, ...] = ()
    stream: int | None = None  # inside ``wsp.stream N``: its tasks issue on stream N

    def inner(self, coords: list[tuple[str, SSAValue]], extents: dict[str, SSAValue]) -> _Env:
        """The environment of a loop body: same maps, more coordinates."""
        return _Env(
            self.values,
            self.axes,
            self.coords + coords,
            self.extents | extents,
            self.calls,
            self.stream,
        )

    def get(self, value: SSAValue) -> SSAValue:
        return self.values.get(value, value)


class _Emitter:
    """Appends ops to a block and returns their results: the builder of the lowering.

    Every op it emits without a location of its own takes the location of the wsp/csp op
    being lowered (``_Emitter.location``, set by ``_Lowering._op``), so errors that later
    passes and targets report on tg ops point at the user's source.
    """

    location: LocationAttr | None = None

    def __init__(self, block: Block):
        self.block = block

    def op(self, op: Operation) -> Operation:
        if _Emitter.location is not None and isinstance(op.location, UnknownLoc):
            op.location = _Emitter.location
        self.block.add_op(op)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    def const(self, value: int) -> SSAValue:
        return self.value(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def load(self, buffer: SSAValue, index: SSAValue) -> SSAValue:
        loaded = self.value(memref.LoadOp.get(buffer, [index]))
        if isinstance(loaded.type, IndexType):
            return loaded
        return self.value(arith.IndexCastOp(loaded, IndexType()))

    def for_loop(self, lower: SSAValue, upper: SSAValue, name: str) -> tuple[SSAValue, _Emitter]:
        """Emit ``scf.for %i = lower to upper step 1``; return %i and the body's emitter."""
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = name
        self.op(scf.ForOp(lower, upper, self.const(1), [], Region(body)))
        return body.args[0], _Emitter(body)

    def close(self) -> None:
        """End a loop body or branch with its terminator."""
        self.op(scf.YieldOp())


# --------------------------------------------------------------------------- lowering


class _Lowering:
    """Lower the workloads of one module; one method per wsp construct."""

    def __init__(self, module: ModuleOp, schedules: dict[str, Operation], calls: str):
        self.module = module
        self.schedules = schedules
        self.nested = calls == "nested"
        self.sched = _Schedule()
        self.call_schedules: dict[str, _Schedule] = {}  # a call's schedule(@s), read once
        self.sending = 0  # inside csp.send bodies: tasks the receiver issues
        self.arguments: dict[str, SSAValue] = {}  # the program's arguments by name (keys read them)
        self.max_stream, self.barriers = -1, 0  # wsp.stream's highest N; barrier events made
        self.symbols = {
            op.sym_name.data: op
            for op in module.ops
            if isinstance(op, wsp.WorkloadOp | wsp.KernelOp)
        }

    # --- workloads -------------------------------------------------------------------------

    def program(self, workload: wsp.WorkloadOp) -> Operation:
        """The tg.program of one workload (with its schedule applied)."""
        self.sched = _read_schedule(self.schedules.get(workload.sym_name.data))
        names, types = self._signature(workload.arg_names, workload.function_type.inputs)
        body = Block(arg_types=types)
        for arg, name in zip(body.args, names):
            arg.name_hint = name
        self.arguments = dict(zip(names, body.args))
        self.max_stream, self.barriers = -1, 0
        emit = _Emitter(body)
        env = _Env({}, {}, calls=(workload.sym_name.data,))
        self._bind_args(workload.body.block.args, iter(body.args), env, emit)
        self._block(workload.body.block, emit, env)
        config = dict(self.sched.config)
        if self.max_stream >= 0:  # wsp.stream N: at least N + 1 streams
            declared = config["streams"].value.data if "streams" in config else 0
            config["streams"] = _int(max(declared, self.max_stream + 1))
        program = tg.ProgramOp(
            workload.sym_name.data,
            types,
            names,
            config=config or None,
            body=Region(body),
        )
        program.location = workload.location
        return program

    def _bind_args(self, old_args, new_args, env: _Env, emit: _Emitter) -> None:
        """Map workload arguments to program arguments; axes become _Axis records."""
        for arg in old_args:
            type_ = arg.type
            if isinstance(type_, wsp.DenseAxisType):
                env.axes[arg] = _Axis(wsp.DenseAxisType, emit.const(type_.size.data))
            elif isinstance(type_, wsp.DenseDynAxisType):
                env.axes[arg] = _Axis(wsp.DenseDynAxisType, next(new_args))
            elif isinstance(type_, wsp.RaggedAxisType):
                env.axes[arg] = _Axis(wsp.RaggedAxisType, next(new_args), lengths=next(new_args))
            elif isinstance(type_, wsp.SparseAxisType):
                size, indptr, indices = next(new_args), next(new_args), next(new_args)
                env.axes[arg] = _Axis(wsp.SparseAxisType, size, indptr=indptr, indices=indices)
            else:
                env.values[arg] = next(new_args)

    def _block(self, block: Block, emit: _Emitter, env: _Env) -> None:
        """Lower the ops of a combined block (no order among its workload statements)."""
        for op in block.ops:
            self._op(op, emit, env)

    def _op(self, op: Operation, emit: _Emitter, env: _Env) -> None:
        outer = _Emitter.location
        if not isinstance(op.location, UnknownLoc):
            _Emitter.location = op.location
        try:
            lower = self._LOWERINGS.get(type(op))
            if lower is not None:
                lower(self, op, emit, env)
            elif isinstance(op, wsp.YieldOp):
                return
            elif op.name.startswith(("wsp.", "csp.")):
                raise PassFailedException(f"wsp-to-tg cannot lower {op.name} here")
            else:  # a helper: arith, memref.load, ... computes values the tasks use
                if not op.name.startswith(_HELPER_DIALECTS):
                    name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
                    warn(
                        op,
                        f"wsp-to-tg does not know the op '{name}' in a workload body; it is "
                        "kept in the program for the targets to run or reject",
                    )
                emit.op(op.clone(value_mapper=env.values))
        finally:
            _Emitter.location = outer

    def pipeline(self, pipeline: csp.PipelineOp) -> Operation:
        """The tg.program of a pipeline: a queue per channel, a tg.process per process."""
        self.sched = _read_schedule(self.schedules.get(pipeline.sym_name.data))
        names, types = self._signature(pipeline.arg_names, pipeline.function_type.inputs)
        body = Block(arg_types=types)
        for arg, name in zip(body.args, names):
            arg.name_hint = name
        self.arguments = dict(zip(names, body.args))
        env = _Env({}, {}, calls=(pipeline.sym_name.data,))
        prologue = Block()
        self._bind_args(pipeline.body.block.args, iter(body.args), env, _Emitter(prologue))
        for op in pipeline.body.block.ops:
            if isinstance(op, csp.ChannelOp):
                queue = tg.QueueOp(op.sym_name.data, op.element_type, op.capacity.value.data)
                queue.location = op.location
                body.add_op(queue)
            elif isinstance(op, csp.ProcessOp):
                body.add_op(self._process(op, prologue, env))
        program = tg.ProgramOp(
            pipeline.sym_name.data,
            types,
            names,
            config=self.sched.config or None,
            body=Region(body),
        )
        program.location = pipeline.location
        return program

    def _process(self, op: csp.ProcessOp, prologue: Block, env: _Env) -> Operation:
        """A process: its replica index is the coordinate ``replica`` of the tasks it issues."""
        process = tg.ProcessOp(op.sym_name.data, op.replicas.value.data)
        process.location = op.location
        block = process.body.block
        block.erase_op(block.last_op)
        emit = _Emitter(block)
        # Values of axis arguments (Dense<N> constants) are emitted in each process.
        values = dict(env.values)
        for const in prologue.ops:
            copy = const.clone(value_mapper=values)
            emit.op(copy)
        axes = {
            k: _Axis(a.kind, values.get(a.size, a.size), a.lengths, a.indptr, a.indices)
            for k, a in env.axes.items()
        }
        inner = _Env(values, axes, [("replica", process.replica)], {}, env.calls)
        self._block(op.body.block, emit, inner)
        emit.op(tg.YieldOp())
        return process

    def _signature(self, arg_names, arg_types) -> tuple[list[str], list[Attribute]]:
        """Program argument names and types: axis arguments expand into their data."""
        names: list[str] = []
        types: list[Attribute] = []
        for name, type_ in zip(arg_names, arg_types):
            for new_name, new_type in _expanded_arg_types(name.data, type_):
                names.append(new_name)
                types.append(new_type)
        return names, types

    def _lower_send(self, op: csp.SendOp, emit: _Emitter, env: _Env) -> None:
        """A message: the tasks of the body, created with the sender's coordinates."""
        # The receiver issues a message's tasks, so they take its replica, not the sender's:
        # their replica coordinate (and keys over it) are left to the runtime at receipt.
        coords = [(n, v) for n, v in env.coords if n != "replica"]
        inner = _Env(env.values, env.axes, coords, env.extents, env.calls, env.stream)
        block = Block()
        self.sending += 1
        try:
            self._block(op.body.block, _Emitter(block), inner)
        finally:
            self.sending -= 1
        block.add_op(tg.YieldOp())
        emit.op(
            tg.SendOp(
                op.channel.root_reference.data,
                list(_visible_coords(coords).items()),
                Region(block),
                nonblocking=op.nonblocking is not None,
            )
        )

    def _lower_consume(self, op: csp.ConsumeOp, emit: _Emitter, env: _Env) -> None:
        """Per message: the receiver issues its tasks, then runs the body for it."""
        arg = op.body.block.args[0]
        consume = tg.ConsumeOp(op.channel.root_reference.data, arg.type, arg.name_hint or "m")
        block = consume.body.block
        block.erase_op(block.last_op)
        env.values[arg] = consume.message
        self._block(op.body.block, _Emitter(block), env)
        block.add_op(tg.YieldOp())
        emit.op(consume)

    def _lower_coord(self, op: csp.CoordOp, emit: _Emitter, env: _Env) -> None:
        env.values[op.result] = emit.value(tg.CoordOp(env.get(op.task), op.position.value.data))

    def _lower_record(self, op: csp.RecordOp, emit: _Emitter, env: _Env) -> None:
        emit.op(tg.RecordOp(op.event.root_reference.data))

    def _lower_synchronize(self, op: csp.SynchronizeOp, emit: _Emitter, env: _Env) -> None:
        emit.op(tg.SynchronizeOp(op.event.root_reference.data))

    # --- axes and views --------------------------------------------------------------------

    def _lower_dense(self, op: wsp.DenseOp, emit: _Emitter, env: _Env) -> None:
        env.axes[op.axis] = _Axis(wsp.DenseAxisType, emit.const(op.size.value.data))

    def _lower_dense_dyn(self, op: wsp.DenseDynOp, emit: _Emitter, env: _Env) -> None:
        env.axes[op.axis] = _Axis(wsp.DenseDynAxisType, env.get(op.size))

    def _lower_ragged(self, op: wsp.RaggedOp, emit: _Emitter, env: _Env) -> None:
        env.axes[op.axis] = _Axis(
            wsp.RaggedAxisType, env.get(op.outer), lengths=env.get(op.lengths)
        )

    def _lower_sparse(self, op: wsp.SparseOp, emit: _Emitter, env: _Env) -> None:
        env.axes[op.axis] = _Axis(
            wsp.SparseAxisType,
            env.get(op.outer),
            indptr=env.get(op.indptr),
            indices=env.get(op.indices),
        )

    def _lower_view(self, op: wsp.ViewOp, emit: _Emitter, env: _Env) -> None:
        """``wsp.view`` -> ``memref.subview`` with explicit offsets, sizes and unit strides."""
        source = env.get(op.source)
        src_type = source.type
        assert isinstance(src_type, MemRefType)
        shape = src_type.get_shape()
        offsets: list[SSAValue | int] = []
        sizes: list[SSAValue | int] = []
        dropped: list[int] = []
        for dim, (off, size) in enumerate(op.entries()):
            offsets.append(off if isinstance(off, int) else env.get(off))
            if size is None:
                dropped.append(dim)
                sizes.append(1)
            else:
                sizes.append(size if isinstance(size, int) else env.get(size))
        for dim in range(len(offsets), len(shape)):
            offsets.append(0)
            sizes.append(shape[dim] if shape[dim] >= 0 else self._dim(emit, source, dim))
        strides = [1] * len(shape)
        full = memref.SubviewOp.infer_result_type(src_type, offsets, sizes, strides)
        layout = full.layout
        assert isinstance(layout, StridedLayoutAttr)
        keep = [d for d in range(len(shape)) if d not in dropped]
        kept_strides = [layout.get_strides()[d] for d in keep]
        result_type = MemRefType(
            src_type.element_type,
            [full.get_shape()[d] for d in keep],
            StridedLayoutAttr(kept_strides, layout.get_offset()),
            src_type.memory_space,
        )
        subview = memref.SubviewOp.get(source, offsets, sizes, strides, result_type)
        env.values[op.result] = emit.value(subview)

    @staticmethod
    def _dim(emit: _Emitter, source: SSAValue, dim: int) -> SSAValue:
        return emit.value(memref.DimOp(source, emit.const(dim)))

    # --- loops -----------------------------------------------------------------------------

    def _iterate(
        self, axis: _Axis, names: list[str], emit: _Emitter
    ) -> tuple[list[SSAValue], dict[str, SSAValue], _Emitter]:
        """Emit the loop nest of one axis; return its indices, their extents, the body."""
        zero = emit.const(0)
        if axis.kind in (wsp.DenseAxisType, wsp.DenseDynAxisType):
            i, body = emit.for_loop(zero, axis.size, names[0])
            return [i], {names[0]: axis.size}, body
        row, outer = emit.for_loop(zero, axis.size, names[0])
        if axis.kind is wsp.RaggedAxisType:
            assert axis.lengths is not None
            length = outer.load(axis.lengths, row)
            j, inner = outer.for_loop(outer.const(0), length, names[1])
            return [row, j], {names[0]: axis.size, names[1]: length}, _Nest(inner, outer)
        col, inner, nnz = self._csr_row(axis, row, outer, names[1])
        return [row, col], {names[0]: axis.size, names[1]: nnz}, _Nest(inner, outer)

    def _csr_row(
        self, axis: _Axis, row: SSAValue, emit: _Emitter, name: str
    ) -> tuple[SSAValue, _Emitter, SSAValue]:
        """Walk one CSR row: ``for k in indptr[row] .. indptr[row+1]: e = indices[k]``."""
        assert axis.indptr is not None and axis.indices is not None
        lo = emit.load(axis.indptr, row)
        next_row = emit.value(arith.AddiOp(row, emit.const(1)))
        hi = emit.load(axis.indptr, next_row)
        nnz = emit.value(arith.SubiOp(hi, lo))
        k, body = emit.for_loop(lo, hi, f"{name}_k")
        col = body.load(axis.indices, k)
        col.name_hint = name
        return col, body, nnz

    def _loop(self, op: wsp.ParallelForOp | wsp.ForEachOp, emit: _Emitter, env: _Env) -> None:
        axis = env.axes[op.axis]
        names = [n.data for n in op.names]
        indices, extents, body = self._iterate(axis, names, emit)
        for old, new in zip(op.body.block.args, indices):
            env.values[old] = new
        self._block(op.body.block, body, env.inner(list(zip(names, indices)), extents))
        if isinstance(op, wsp.ForEachOp):
            body.op(tg.OrderPointOp())
        body.close()

    def _lower_parallel_for(self, op: wsp.ParallelForOp, emit: _Emitter, env: _Env) -> None:
        self._loop(op, emit, env)

    def _lower_for_each(self, op: wsp.ForEachOp, emit: _Emitter, env: _Env) -> None:
        """for_each: iteration i+1 after all of iteration i — an ordered scope."""
        scope = Block()
        self._loop(op, _Emitter(scope), env)
        scope.add_op(tg.YieldOp())
        emit.op(tg.OrderedOp(Region(scope)))

    def _lower_select(self, op: wsp.SelectOp, emit: _Emitter, env: _Env) -> None:
        axis = env.axes[op.sparse]
        name = op.names.data[0].data
        col, body, nnz = self._csr_row(axis, env.get(op.row), emit, name)
        env.values[op.body.block.args[0]] = col
        self._block(op.body.block, body, env.inner([(name, col)], {name: nnz}))
        body.close()

    # --- structure -------------------------------------------------------------------------

    def _lower_cond(self, op: wsp.CondOp, emit: _Emitter, env: _Env) -> None:
        """Only the taken branch creates tasks: fold a constant predicate, else scf.if."""
        pred = env.get(op.predicate)
        if isinstance(pred.owner, arith.ConstantOp):
            value = pred.owner.value
            taken = op.then_region if value.value.data else op.else_region
            self._block(taken.block, emit, env)
            return
        branches = []
        for region in (op.then_region, op.else_region):
            block = Block()
            branch = _Emitter(block)
            self._block(region.block, branch, env)
            branch.close()
            branches.append(Region(block))
        emit.op(scf.IfOp(pred, [], branches[0], branches[1]))

    def _lower_combine(self, op: wsp.CombineOp, emit: _Emitter, env: _Env) -> None:
        self._block(op.body.block, emit, env)

    def _lower_sequential(self, op: wsp.SequentialOp, emit: _Emitter, env: _Env) -> None:
        """Child k+1 after all of child k: an ordering point between consecutive children."""
        scope = Block()
        inner = _Emitter(scope)
        seen_child = False
        for child in op.body.block.ops:
            if child.has_trait(wsp.WorkloadExpr):
                if seen_child:
                    inner.op(tg.OrderPointOp())
                seen_child = True
            self._op(child, inner, env)
        scope.add_op(tg.YieldOp())
        emit.op(tg.OrderedOp(Region(scope)))

    # --- leaves ----------------------------------------------------------------------------

    def _lower_call(self, op: wsp.CallOp, emit: _Emitter, env: _Env) -> None:
        name = op.callee.root_reference.data
        callee = self.symbols.get(name)
        if not isinstance(callee, wsp.WorkloadOp):
            _lowered_callee(op, name)
        if name in env.calls:
            cycle = " -> ".join(f"@{c}" for c in (*env.calls, name))
            raise PassFailedException(f"recursive calls cannot be lowered: {cycle}")
        if self.nested:
            own = self.schedules.get(name)
            if op.schedule is not None and (
                own is None or own.properties["sym_name"] != op.schedule.root_reference
            ):
                warn(
                    op,
                    f"the call's schedule(@{op.schedule.root_reference.data}) is not applied: "
                    f"with calls=nested it runs the program of @{name}, lowered with that "
                    "workload's own schedule (calls=inline applies it)",
                )
            args = self._call_args(op, callee, env)
            emit.op(tg.CallOp(name, args))
            return
        inner = _Env(
            dict(env.values),
            dict(env.axes),
            env.coords,
            env.extents,
            (*env.calls, name),
            env.stream,
        )
        for param, arg in zip(callee.body.block.args, op.args):
            if isinstance(param.type, wsp.AXIS_TYPES):
                inner.axes[param] = env.axes[arg]
            else:
                inner.values[param] = env.get(arg)
        outer = self.sched
        if op.schedule is not None:
            self.sched = self._call_schedule(op, env.calls[0])
        try:
            self._block(callee.body.block, emit, inner)
        finally:
            self.sched = outer

    def _call_schedule(self, op: wsp.CallOp, program: str) -> _Schedule:
        """The schedule for the inlined body of a call with ``schedule(@s)``: the per-task
        directives @s has (dispatch target, stream, priority, pool) place the callee's tasks,
        the caller's the rest; @s's runtime configuration cannot change within the caller's
        program, and where it differs from the caller's, a warning says so."""
        assert op.schedule is not None
        name = op.schedule.root_reference.data
        sched = self.call_schedules.get(name)
        if sched is None:
            found = next(
                o
                for o in self.module.ops
                if o.name == "sched.schedule" and o.properties["sym_name"].data == name
            )
            sched = self.call_schedules[name] = _read_schedule(found)
        config = self.sched.config
        differ = [
            k
            for k, v in sched.config.items()
            if (k not in config or config[k] != v)
            and not (k == "dispatch" and sched.target is not None)  # per task: a target
        ]
        if differ:
            warn(
                op,
                f"schedule @{name} of this call sets {', '.join(differ)}, which hold for a "
                f"whole program: the tasks of @{op.callee.root_reference.data} take @{name}'s "
                f"dispatch, stream, priority and pool, and run with @{program}'s configuration",
            )
        keys = ("target", "stream", "priority", "threshold")
        return replace(
            self.sched, **{k: getattr(sched, k) for k in keys if getattr(sched, k) is not None}
        )

    def _call_args(self, op: wsp.CallOp, callee: wsp.WorkloadOp, env: _Env) -> list[SSAValue]:
        """The operands of a nested tg.call: axis arguments expand as in the signature."""
        args: list[SSAValue] = []
        for arg in op.args:
            if isinstance(arg.type, wsp.DenseAxisType):
                continue
            if isinstance(arg.type, wsp.AXIS_TYPES):
                axis = env.axes[arg]
                args += [v for v in (axis.size, axis.lengths, axis.indptr, axis.indices) if v]
            else:
                args.append(env.get(arg))
        return args

    def _lower_task(self, op: wsp.TaskOp, emit: _Emitter, env: _Env) -> None:
        """One tg.task: kernel, args, regions, coordinates and the schedule's per-task keys."""
        kernel = self.symbols.get(op.kernel.root_reference.data)
        assert isinstance(kernel, wsp.KernelOp)
        access = [a.data for a in kernel.access if a.data]
        coords = _visible_coords(env.coords)
        sched = self.sched
        inputs = _KeyInputs(coords, kernel, [env.get(p) for p in op.params], self.arguments)
        target = self._target(emit, env, inputs)
        stream = self._key(sched.stream, emit, inputs, "stream")
        if env.stream is not None:  # wsp.stream N around the task: it wins over stream_by
            stream = emit.const(env.stream)
        priority = self._key(sched.priority, emit, inputs, "priority")
        pool: str | SSAValue = "cube" if kernel.exec_unit.data == "cube" else "vector"
        if sched.threshold is not None:
            pool = self._pool(sched.threshold, emit, inputs) or pool
        emit.op(
            tg.TaskOp(
                op.kernel.root_reference.data,
                [env.get(p) for p in op.params],
                [env.get(r) for r in op.resources],
                access,
                list(coords.items()),
                pool=pool,
                target=target,
                stream=stream,
                priority=priority,
            )
        )

    # --- schedule keys ---------------------------------------------------------------------

    def _key(
        self, key: _Key | None, emit: _Emitter, inputs: _KeyInputs, what: str
    ) -> SSAValue | None:
        """Clone a key region at the task, its arguments bound to the task's data by name."""
        if key is None:
            return None
        values = [inputs.value(source, name) for source, name in zip(key.sources, key.names)]
        if any(v is None for v in values):
            missing = {n for n, v in zip(key.names, values) if v is None}
            # In a message only the replica is missing: the runtime computes the key when a
            # replica receives the task (nothing is lost, nothing to say).
            at_receipt = self.sending and missing == {"replica"}
            if not key.warned and not at_receipt:
                key.warned = True
                warn(key.directive, _unbound_key(key, inputs, what))
            return None
        for i, (arg, value) in enumerate(zip(key.block.args, values)):
            if value is not None and arg.type != value.type:
                values[i] = self._key_cast(key, arg, value, emit, inputs, what)
        mapping = dict(zip(key.block.args, values))
        result: SSAValue | None = None
        for op in key.block.ops:
            if op.name == "sched.yield":
                result = mapping.get(op.operands[0], op.operands[0])
                break
            emit.op(op.clone(value_mapper=mapping))
        return result

    @staticmethod
    def _key_cast(
        key: _Key, arg: SSAValue, value: SSAValue, emit: _Emitter, inputs: _KeyInputs, what: str
    ) -> SSAValue:
        """An integer parameter read by an index key argument: its value as an index (i1
        zero-extended: true is 1); any other difference is a located error."""
        if isinstance(arg.type, IndexType) and isinstance(value.type, IntegerType):
            if value.type.width.data == 1:
                value = emit.value(arith.ExtUIOp(value, i64))
            return emit.value(arith.IndexCastOp(value, IndexType()))
        message = (
            f"the {what} key reads {_key_input_name(key, arg.index)} as {arg.type}, "
            f"but task {inputs.task_name} passes {value.type}"
        )
        key.directive.emit_error(message, PassFailedException(message))
        raise AssertionError  # (emit_error raised)

    def _target(self, emit: _Emitter, env: _Env, inputs: _KeyInputs) -> SSAValue | None:
        """The per-task dispatch target the schedule's dispatch policy computes."""
        if self.sched.target is None:
            return None
        coords = inputs.coords
        policy, detail = self.sched.target
        if policy in ("hash", "dispatch_by"):
            assert isinstance(detail, _Key)
            key = self._key(detail, emit, inputs, "dispatch")
            if key is None or policy == "dispatch_by":
                return key
            # Knuth's multiplicative hash: spreads neighbouring keys over the workers.
            golden = emit.value(arith.MuliOp(key, emit.const(2654435761)))
            return emit.value(arith.RemUIOp(golden, emit.const(1 << 32)))
        if policy == "round_robin":
            assert isinstance(detail, int)
            return emit.value(arith.RemUIOp(emit.value(tg.SeqOp()), emit.const(detail)))
        assert isinstance(detail, tuple)
        axis, count = detail
        if axis not in coords:
            return None
        if policy == "affinity":
            return coords[axis]
        # range: contiguous blocks of the axis over `count` workers.
        scaled = emit.value(arith.MuliOp(coords[axis], emit.const(count)))
        return emit.value(arith.DivUIOp(scaled, env.extents[axis]))

    def _pool(
        self, threshold: tuple[int, str, str, _Key], emit: _Emitter, inputs: _KeyInputs
    ) -> SSAValue | None:
        """dispatch_threshold: pool index (0 vector, 1 cube) by the key against T."""
        value, below, above, key = threshold
        metric = self._key(key, emit, inputs, "dispatch_threshold")
        if metric is None:
            return None
        is_below = emit.value(arith.CmpiOp(metric, emit.const(value), "ult"))
        pools = {"vector": 0, "cube": 1}
        return emit.value(
            arith.SelectOp(is_below, emit.const(pools[below]), emit.const(pools[above]))
        )

    _LOWERINGS: dict[type[Operation], Callable[..., None]] = {}


class _Nest(_Emitter):
    """The body emitter of a two-level loop nest: closing it closes both loops."""

    def __init__(self, inner: _Emitter, outer: _Emitter):
        super().__init__(inner.block)
        self.outer = outer

    def close(self) -> None:
        super().close()
        self.outer.close()


@dataclass
class _KeyInputs:
    """What a key may read at a task: its coordinates, its kernel's scalar parameters by
    name, and the program's arguments (the workload's tensors) by name."""

    coords: dict[str, SSAValue]
    kernel: wsp.KernelOp
    params: list[SSAValue]
    arguments: dict[str, SSAValue]

    @property
    def task_name(self) -> str:
        return f"@{self.kernel.sym_name.data}"

    def value(self, source: str, name: str) -> SSAValue | None:
        if source == "coord":
            return self.coords.get(name)
        if source == "tensor":
            return self.arguments.get(name)
        scalars = [n.data for n, a in zip(self.kernel.arg_names, self.kernel.access) if not a.data]
        return self.params[scalars.index(name)] if name in scalars else None


def _key_input_name(key: _Key, i: int) -> str:
    source, name = key.sources[i], key.names[i]
    return {"coord": "coordinate", "param": "parameter", "tensor": "tensor"}[source] + f" {name!r}"


def _unbound_key(key: _Key, inputs: _KeyInputs, what: str) -> str:
    """Why a key cannot be computed at some task (the warning, said once per key)."""
    missing = [(s, n) for s, n in zip(key.sources, key.names) if inputs.value(s, n) is None]
    coords = [n for s, n in missing if s == "coord"]
    params = [n for s, n in missing if s == "param"]
    tensors = [n for s, n in missing if s == "tensor"]
    parts = []
    if coords:
        parts.append(
            f"the {what} key uses coordinate(s) {', '.join(coords)} that some tasks do not have"
        )
    if params:
        parts.append(
            f"the {what} key reads parameter(s) {', '.join(params)} that kernel "
            f"{inputs.task_name} does not take"
        )
    if tensors:
        parts.append(f"the {what} key reads tensor(s) {', '.join(tensors)} the program lacks")
    text = "; ".join(parts) + f"; those tasks get no {what} (the runtime decides)"
    if "replica" in coords:
        text += "; tasks sent in messages take their replica at receipt"
    return text


def _visible_coords(coords: list[tuple[str, SSAValue]]) -> dict[str, SSAValue]:
    """Coordinates by name; an inner loop's name shadows an outer one's."""
    return dict(coords)


_Lowering._LOWERINGS = {
    wsp.DenseOp: _Lowering._lower_dense,
    wsp.DenseDynOp: _Lowering._lower_dense_dyn,
    wsp.RaggedOp: _Lowering._lower_ragged,
    wsp.SparseOp: _Lowering._lower_sparse,
    wsp.ViewOp: _Lowering._lower_view,
    wsp.ParallelForOp: _Lowering._lower_parallel_for,
    wsp.ForEachOp: _Lowering._lower_for_each,
    wsp.SelectOp: _Lowering._lower_select,
    wsp.CondOp: _Lowering._lower_cond,
    wsp.CombineOp: _Lowering._lower_combine,
    wsp.SequentialOp: _Lowering._lower_sequential,
    wsp.CallOp: _Lowering._lower_call,
    wsp.TaskOp: _Lowering._lower_task,
    csp.SendOp: _Lowering._lower_send,
    csp.ConsumeOp: _Lowering._lower_consume,
    csp.CoordOp: _Lowering._lower_coord,
    csp.RecordOp: _Lowering._lower_record,
    csp.SynchronizeOp: _Lowering._lower_synchronize,
    **events_to_tg.LOWERINGS,
}


def _lowered_callee(op: wsp.CallOp, name: str) -> None:
    """Fail at a call whose callee wsp-to-tg lowered already (a process's call, met by
    csp-to-tg after wsp-to-tg), saying the order that lowers it."""
    message = (
        f"@{name} is no wsp.workload any more (wsp-to-tg lowered it): a process that calls a "
        "workload is lowered by csp-to-tg before wsp-to-tg (-p csp-to-tg,wsp-to-tg)"
    )
    op.emit_error(message, PassFailedException(message))


def lower_to_tg(ctx: Context, module: ModuleOp, schedule: str = "") -> None:
    """The shared lowering of pipelines and workloads to tg, in the order that lowers a
    process's calls: csp-to-tg first (it inlines the workloads a process calls), then
    wsp-to-tg; each only when the module has what it lowers."""
    if any(isinstance(o, csp.PipelineOp) for o in module.ops):
        CspToTgPass(schedule=schedule).apply(ctx, module)
    if any(isinstance(o, wsp.WorkloadOp) for o in module.ops):
        WspToTgPass(schedule=schedule).apply(ctx, module)


def _said_unknown(module: ModuleOp, choice: str, pass_name: str) -> None:
    """A ``schedule=NAME`` option that names no schedule of the module is said (a typo would
    leave each workload its only schedule, or none). Not when a lowering ran before (a
    tg.program exists): the schedule it applied is gone, and the option was for it."""
    if not choice or any(isinstance(o, tg.ProgramOp) for o in module.ops):
        return
    names = [o.properties["sym_name"].data for o in module.ops if o.name == "sched.schedule"]
    if choice not in names:
        print(
            f"warning: {pass_name}{{schedule={choice}}}: the module has no schedule @{choice} "
            f"(its schedules: {', '.join('@' + n for n in names) or 'none'})",
            file=sys.stderr,
        )


def _bound_schedules(module: ModuleOp, choice: str) -> dict[str, Operation]:
    """The schedule to apply to each workload; ``choice`` picks one where several exist."""
    by_workload: dict[str, list[Operation]] = {}
    for op in module.ops:
        if op.name == "sched.schedule":
            target = op.properties["workload"].root_reference.data
            by_workload.setdefault(target, []).append(op)
    chosen: dict[str, Operation] = {}
    for workload, schedules in by_workload.items():
        named = [s for s in schedules if s.properties["sym_name"].data == choice]
        if named:
            chosen[workload] = named[0]
        elif len(schedules) == 1:
            chosen[workload] = schedules[0]
        else:
            names = ", ".join("@" + s.properties["sym_name"].data for s in schedules)
            raise PassFailedException(
                f"workload @{workload} has several schedules ({names}); "
                "choose one with wsp-to-tg{schedule=NAME}"
            )
    return chosen


@dataclass(frozen=True)
class WspToTgPass(ModulePass):
    """Lower every ``wsp.workload`` and its schedule to a ``tg.program`` (docs/tg.md).

    Options: ``calls=inline`` (default) inlines cross-level calls, ``calls=nested`` keeps
    each as a ``tg.call`` of the callee's program; ``schedule=NAME`` picks the schedule of a
    workload that has several. The schedules applied are removed; kernels stay.
    """

    name = "wsp-to-tg"

    calls: str = "inline"
    schedule: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.calls not in ("inline", "nested"):
            raise PassFailedException(
                f"wsp-to-tg: calls must be inline or nested, got '{self.calls}'"
            )
        _said_unknown(op, self.schedule, self.name)
        schedules = _bound_schedules(op, self.schedule)
        lowering = _Lowering(op, schedules, self.calls)
        for workload in [o for o in op.ops if isinstance(o, wsp.WorkloadOp)]:
            program = lowering.program(workload)
            op.body.block.insert_op_before(program, workload)
        lowered = {o.sym_name.data for o in op.ops if isinstance(o, wsp.WorkloadOp)}
        for workload in [o for o in op.ops if isinstance(o, wsp.WorkloadOp)]:
            workload.detach()
            workload.erase()
        # A schedule whose workload is gone cannot stay; one that was not chosen is said.
        for schedule in [o for o in op.ops if o.name == "sched.schedule"]:
            target = schedule.properties["workload"].root_reference.data
            name = schedule.properties["sym_name"].data
            at_calls = name in lowering.call_schedules  # applied where a call names it
            chosen = schedules.get(target, schedule)
            if schedule is not chosen and target in lowered and not at_calls:
                warn(
                    schedule,
                    f"schedule @{name} is not "
                    f"applied: wsp-to-tg{{schedule={self.schedule}}} chose another; removed",
                )
            if target in lowered:
                schedule.detach()
                schedule.erase()


@dataclass(frozen=True)
class CspToTgPass(ModulePass):
    """Lower every ``csp.pipeline`` and its schedule to a ``tg.program`` of processes.

    Channels become ``tg.queue``s with their capacities (0 = rendezvous, ``!csp.signal`` =
    event), processes ``tg.process``es with their replica counts (the replica index is the
    tasks' ``replica`` coordinate), sends ``tg.send`` carrying the sender's coordinates,
    consumes ``tg.consume``; process bodies are lowered as workload bodies (wsp-to-tg).
    Options as wsp-to-tg's: ``calls``, ``schedule``.
    """

    name = "csp-to-tg"

    calls: str = "inline"
    schedule: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.calls not in ("inline", "nested"):
            raise PassFailedException(
                f"csp-to-tg: calls must be inline or nested, got '{self.calls}'"
            )
        pipelines = [o for o in op.ops if isinstance(o, csp.PipelineOp)]
        lowered = {p.sym_name.data for p in pipelines}
        _said_unknown(op, self.schedule, self.name)
        chosen = _bound_schedules(op, self.schedule)
        schedules = {k: v for k, v in chosen.items() if k in lowered}
        lowering = _Lowering(op, schedules, self.calls)
        for pipeline in pipelines:
            op.body.block.insert_op_before(lowering.pipeline(pipeline), pipeline)
            pipeline.detach()
            pipeline.erase()
        for schedule in [o for o in op.ops if o.name == "sched.schedule"]:
            if schedule.properties["workload"].root_reference.data in lowered:
                schedule.detach()
                schedule.erase()
