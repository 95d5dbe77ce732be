"""Building wsp/csp/sched IR from a ``.pto`` syntax tree.

Statements become ops where they stand. The values they need — axes, views, index
arithmetic, tensor reads, message coordinates — are written inline in ``.pto``
(``%Q[%b][%h]``, ``DenseDyn(%n - 1)``, ``%seq_lens[%b] <= 2048``) and become helper ops,
placed by the rule of the Python API (docs/python-api.md, "Where helper ops go"), which is
the canonical form of examples/*.mlir:

- constants go to the top block being built (a workload or process body, a key region);
- other pure ops go to the outermost block where all their operands are defined, never out
  of a ``cond`` branch; ``memref.load`` stays in the block of its first use;
- ``combine``, ``sequential`` and ``send`` bodies hold no helper ops: those go before the
  grouping op;
- in a block a helper goes just before the op that first needs it, and a value computed
  once is reused wherever it dominates.

So a module in that form prints to ``.pto`` and reads back as the same IR.

What ``.pto`` leaves unsaid is filled in as docs/interop.md says: undeclared names become
arguments of their workload or pipeline, undeclared kernels are declared from their first
use with every resource ``inout``, a bare message stands for its first coordinate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    FileLineColLoc,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    f32,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from pto_wsp.dialects import csp, sched, wsp

from . import pto_ast as ast
from .pto_parser import PtoParser

#: ``.pto`` operators and the arith ops they build (index arithmetic; signed compares).
BINARY_OPS: dict[str, type[Operation]] = {
    "+": arith.AddiOp,
    "-": arith.SubiOp,
    "*": arith.MuliOp,
    "/": arith.DivUIOp,
    "mod": arith.RemUIOp,
}
COMPARE_OPS = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}

#: Scope kinds: helpers are never placed in a "group" or "closed" block; "branch" blocks
#: keep their helpers in; "root" is where constants go.
ROOT, LOOP, BRANCH, GROUP, CLOSED = "root", "loop", "branch", "group", "closed"


@dataclass
class _Scope:
    block: Block
    kind: str
    anchor: Operation | None = None
    values: dict[tuple, SSAValue] = field(default_factory=dict)
    names: dict[str, object] = field(default_factory=dict)


@dataclass
class _Message:
    """A consume's message: a task value whose coordinates ``%t[k]`` reads."""

    value: SSAValue


@dataclass
class _Channel:
    name: str


@dataclass
class _NamedTask:
    task: ast.Task
    used: bool = False


class _Uses:
    """How each name of a definition is used, to type the ones never declared."""

    def __init__(self) -> None:
        self.view_rank: dict[str, int] = {}
        self.load_rank: dict[str, int] = {}
        self.buffers: set[str] = set()
        #: Names used as a loop's axis (DenseDyn) or a select's (Sparse).
        self.axes: dict[str, Attribute] = {}

    def scan(self, node: object, resource: bool = False) -> None:
        if isinstance(node, ast.Loop | ast.Select) and isinstance(node.axis, ast.Name):
            kind = wsp.SparseAxisType if isinstance(node, ast.Select) else wsp.DenseDynAxisType
            self.axes.setdefault(node.axis.name, kind())
        if isinstance(node, ast.Subscript):
            table = self.view_rank if resource else self.load_rank
            name = node.base.name
            table[name] = max(table.get(name, 0), len(node.entries))
            for entry in node.entries:
                self.scan(entry.first)
                self.scan(entry.second)
            return
        if isinstance(node, ast.Name):
            if resource:
                self.view_rank.setdefault(node.name, 0)
            return
        if isinstance(node, ast.AxisLit):
            for i, arg in enumerate(node.args):
                if i > 0 and isinstance(arg, ast.Name):
                    self.buffers.add(arg.name)
                else:
                    self.scan(arg)
            return
        if isinstance(node, ast.Task | ast.Call):
            params = node.params if isinstance(node, ast.Task) else node.args
            for p in params:
                self.scan(p)
            for r in node.resources:
                self.scan(r, resource=True)
            return
        if isinstance(node, list):
            for item in node:
                self.scan(item)
            return
        if hasattr(node, "__dataclass_fields__"):
            for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
                self.scan(getattr(node, name))

    def tensor_type(self, name: str) -> Attribute | None:
        """The type an undeclared tensor gets, or None if the name is used as a scalar."""
        if name in self.buffers:
            return MemRefType(IndexType(), [DYNAMIC_INDEX])
        view = self.view_rank.get(name)
        load = self.load_rank.get(name)
        if view is None and load is None:
            return None
        rank = max(load or 0, (view + 1) if view is not None else 0)
        element = IndexType() if load is not None else f32
        return MemRefType(element, [DYNAMIC_INDEX] * rank)


class PtoBuilder:
    """Turns one ``ModuleDef`` into a ``builtin.module``."""

    def __init__(self, tree: ast.ModuleDef, parser: PtoParser):
        self.tree = tree
        self.p = parser
        self.kernels: dict[str, wsp.KernelOp] = {}
        self.guessed: list[wsp.KernelOp] = []
        self.workload_defs = {d.name: d for d in tree.definitions if isinstance(d, ast.WorkloadDef)}
        self.built: dict[str, Operation] = {}
        self.building: dict[str, wsp.WorkloadOp] = {}
        #: Workloads called while being built (recursion) -> the first such call.
        self.recursive_calls: dict[str, int] = {}
        self.scopes: list[_Scope] = []
        self.levels: dict[SSAValue, int] = {}
        self.on_unknown: Callable[[ast.Name, str], SSAValue] | None = None

    # ------------------------------------------------------------------ locations

    def loc(self, pos: int) -> FileLineColLoc:
        where = self.p.span(pos).get_location()
        return FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))

    def error(self, message: str, pos: int, end: int | None = None) -> Exception:
        return self.p.error(message, pos, end)

    # ------------------------------------------------------------------ module

    def build(self) -> ModuleOp:
        for d in self.tree.definitions:
            if isinstance(d, ast.KernelDef):
                op = d.op
                assert isinstance(op, wsp.KernelOp)
                name = op.sym_name.data
                if name in self.kernels:
                    raise self.error(f"kernel @{name} is declared twice", d.pos)
                op.location = self.loc(d.pos)
                self.kernels[name] = op
        ops: list[Operation] = []
        seen: dict[str, int] = {}
        for d in self.tree.definitions:
            if isinstance(d, ast.KernelDef):
                ops.append(d.op)  # type: ignore[arg-type]
                continue
            if d.name in seen:
                raise self.error(f"@{d.name} is defined twice", d.pos)
            seen[d.name] = d.pos
            if isinstance(d, ast.WorkloadDef):
                ops.append(self.workload(d.name))
            elif isinstance(d, ast.PipelineDef):
                ops.append(self.pipeline(d))
            else:
                ops.append(self.schedule(d))
        module = ModuleOp(
            [*self.guessed, *ops],
            attributes={
                "pto.version": StringAttr(self.tree.version),
                "pto.targets": ArrayAttr([StringAttr(t) for t in self.tree.targets]),
            },
            sym_name=StringAttr(self.tree.name),
        )
        return module

    # ------------------------------------------------------------------ definitions

    def _signature(self, params: list[ast.Param], what: str) -> tuple[list[Attribute], list[str]]:
        types: list[Attribute] = []
        names: list[str] = []
        for p in params:
            if isinstance(p.type, ast.ChannelTy):
                raise self.error(f"a {what} parameter cannot be a channel", p.pos)
            if p.name in names:
                raise self.error(f"parameter %{p.name} is declared twice", p.pos)
            types.append(p.type)
            names.append(p.name)
        return types, names

    def _implicit_args(self, block: Block, names: list[str], uses: _Uses):
        def make(name: ast.Name, role: str) -> SSAValue:
            type_ = uses.axes.get(name.name) or uses.tensor_type(name.name)
            if role == "resource" and type_ is None:
                type_ = MemRefType(f32, [DYNAMIC_INDEX])
            if type_ is None:
                type_ = IndexType()
            arg = block.insert_arg(type_, len(block.args))
            arg.name_hint = name.name
            names.append(name.name)
            self.levels[arg] = 0
            self.scopes[0].names[name.name] = arg
            return arg

        return make

    @staticmethod
    def _finish_signature(op: Operation, block: Block, names: list[str]) -> None:
        op.properties["function_type"] = FunctionType.from_lists([a.type for a in block.args], [])
        op.properties["arg_names"] = ArrayAttr([StringAttr(n) for n in names])

    def workload(self, name: str) -> Operation:
        """The workload called ``name``, built on first need (a call may come first)."""
        if name in self.built:
            return self.built[name]
        if name in self.building:  # a recursive call: the signature is the declared one
            return self.building[name]
        d = self.workload_defs[name]
        saved = (self.scopes, self.levels, self.on_unknown)
        types, names = self._signature(d.params, "workload")
        op = wsp.WorkloadOp(d.name, types, names, d.level)
        self.building[name] = op
        op.location = self.loc(d.pos)
        block = op.body.block
        self.scopes, self.levels = [_Scope(block, ROOT)], {}
        for arg, n in zip(block.args, names):
            self.scopes[0].names[n] = arg
            self.levels[arg] = 0
        uses = _Uses()
        uses.scan(d.body)
        self.on_unknown = self._implicit_args(block, names, uses)
        self.stmts(d.body)
        if name in self.recursive_calls and len(names) > len(d.params):
            raise self.error(
                f"@{name} calls itself, so it must declare all its parameters "
                f"(%{names[len(d.params)]} is not declared)",
                self.recursive_calls[name],
            )
        self._finish_signature(op, block, names)
        self.scopes, self.levels, self.on_unknown = saved
        del self.building[name]
        self.built[name] = op
        return op

    def pipeline(self, d: ast.PipelineDef) -> Operation:
        types, names = self._signature(d.params or [], "pipeline")
        op = csp.PipelineOp(d.name, types, names)
        op.location = self.loc(d.pos)
        block = op.body.block
        self.scopes, self.levels = [_Scope(block, CLOSED)], {}
        for arg, n in zip(block.args, names):
            self.scopes[0].names[n] = arg
            self.levels[arg] = 0
        uses = _Uses()
        uses.scan([p.body for p in d.processes])
        self.on_unknown = self._implicit_args(block, names, uses)
        for c in d.channels:
            if c.name in self.scopes[0].names:
                raise self.error(f"%{c.name} is declared twice", c.pos)
            self.scopes[0].names[c.name] = _Channel(c.name)
            channel = csp.ChannelOp(c.name, c.type.element, c.type.capacity)
            channel.location = self.loc(c.pos)
            self._insert(channel)
        for p in d.processes:
            for ref in (*p.consumes, *p.produces):
                if not isinstance(self.scopes[0].names.get(ref.name), _Channel):
                    raise self.error(f"%{ref.name} is not a channel of @{d.name}", ref.pos)
            process = csp.ProcessOp(
                p.name, [c.name for c in p.consumes], [c.name for c in p.produces], p.replicas
            )
            process.location = self.loc(p.pos)
            self._insert(process)
            self.scopes.append(_Scope(process.body.block, ROOT))
            self.stmts(p.body)
            self.scopes.pop()
        self._finish_signature(op, block, names)
        self.on_unknown = None
        return op

    # ------------------------------------------------------------------ schedules

    def schedule(self, d: ast.ScheduleDef) -> Operation:
        directives: list[Operation] = []
        for x in d.directives:
            op = self.directive(x)
            op.location = self.loc(x.pos)
            directives.append(op)
        op = sched.ScheduleOp(d.name, d.target, directives)
        op.location = self.loc(d.pos)
        return op

    def key(self, expr: ast.Expr) -> tuple[list[str], Region]:
        """A key region over the coordinates ``expr`` names, in order of first use."""
        block = Block()
        names: list[str] = []
        saved = (self.scopes, self.levels, self.on_unknown)
        self.scopes, self.levels = [_Scope(block, ROOT)], {}

        def coordinate(name: ast.Name, role: str) -> SSAValue:
            arg = block.insert_arg(IndexType(), len(block.args))
            arg.name_hint = name.name
            names.append(name.name)
            self.levels[arg] = 0
            self.scopes[0].names[name.name] = arg
            return arg

        self.on_unknown = coordinate
        value = self.scalar(expr)
        if not isinstance(value.type, IndexType):
            raise self.error("a key is an index expression", expr.pos)
        yield_op = sched.YieldOp(value)
        yield_op.location = self.loc(expr.pos)
        block.add_op(yield_op)
        self.scopes, self.levels, self.on_unknown = saved
        return names, Region(block)

    def directive(self, x: ast.Directive) -> Operation:
        name = x.name
        if name == "dispatch":
            policy = x.policy or ""
            if x.key is not None:
                names, region = self.key(x.key)
                return sched.DispatchOp(policy, key_names=names, key=region)
            axis = x.axis.name if x.axis is not None else None
            return sched.DispatchOp(policy, axis=axis, count=x.count)
        if name == "streams":
            return sched.StreamsOp(x.count or 0)
        if name == "batch_deps":
            return sched.BatchDepsOp(x.count or 0)
        if name == "stream_by":
            assert x.key is not None
            names, region = self.key(x.key)
            return sched.StreamByOp(names, region)
        if name == "issue":
            if x.key is not None:
                names, region = self.key(x.key)
                return sched.IssueOp(x.policy or "", names, region)
            return sched.IssueOp(x.policy or "")
        if name == "timing":
            return sched.TimingOp(x.policy or "", x.count)
        if name == "spatial_map":
            return sched.SpatialMapOp(x.grid)
        if name == "layout":
            assert x.tensor is not None
            return sched.LayoutOp(x.tensor.name, x.dims)
        if name == "dispatch_threshold":
            assert x.key is not None
            names, region = self.key(x.key)
            return sched.DispatchThresholdOp(
                x.count or 0, x.below or "", x.above or "", names, region
            )
        if name == "pipeline_depth":
            return sched.PipelineDepthOp(x.count or 0, x.policy or "global")
        if name == "task_window":
            return sched.TaskWindowOp(x.count or 0, x.policy or "stall")
        raise self.error(f"unknown schedule directive '{name}'", x.pos)

    # ------------------------------------------------------------------ placement

    @staticmethod
    def _point(block: Block, before: Operation | None) -> InsertPoint:
        if before is not None:
            return InsertPoint.before(before)
        last = block.last_op
        if last is not None and last.has_trait(IsTerminator):
            return InsertPoint.before(last)
        return InsertPoint.at_end(block)

    def _insert(self, op: Operation) -> None:
        """Insert a statement op at the end of the innermost block."""
        scope = self.scopes[-1]
        from xdsl.rewriter import Rewriter

        Rewriter.insert_op(op, self._point(scope.block, None))

    def _root(self) -> int:
        return max(i for i, s in enumerate(self.scopes) if s.kind == ROOT)

    def _level(self, operand_levels: list[int], fixed: bool = False) -> int:
        if fixed:
            level = len(self.scopes) - 1
        else:
            barrier = max((i for i, s in enumerate(self.scopes) if s.kind == BRANCH), default=0)
            level = max([self._root(), barrier, *operand_levels])
        while self.scopes[level].kind in (GROUP, CLOSED):
            level -= 1
        return level

    def _lookup(self, key: tuple) -> SSAValue | None:
        for scope in reversed(self.scopes):
            if key in scope.values:
                return scope.values[key]
        return None

    def _place(self, ops: list[Operation], key: tuple, pos: int, level: int) -> SSAValue:
        from xdsl.rewriter import Rewriter

        scope = self.scopes[level]
        for op in ops:
            op.location = self.loc(pos)
            Rewriter.insert_op(op, self._point(scope.block, scope.anchor))
        value = ops[-1].results[0]
        scope.values[key] = value
        self.levels[value] = level
        return value

    def _helper(
        self, key: tuple, build: Callable[[], list[Operation]], operands: list[SSAValue], pos: int
    ) -> SSAValue:
        found = self._lookup(key)
        if found is not None:
            return found
        level = self._level([self.levels.get(v, 0) for v in operands])
        return self._place(build(), key, pos, level)

    def _constant(self, value: int | bool, pos: int) -> SSAValue:
        type_: Attribute = i1 if isinstance(value, bool) else IndexType()
        key = ("const", int(value), str(type_))
        found = self._lookup(key)
        if found is not None:
            return found
        op = arith.ConstantOp(IntegerAttr(int(value), type_))
        return self._place([op], key, pos, self._root())

    # ------------------------------------------------------------------ names

    def _resolve(self, name: ast.Name, role: str) -> object:
        for scope in reversed(self.scopes):
            if name.name in scope.names:
                return scope.names[name.name]
        if self.on_unknown is None:
            raise self.error(f"unknown name %{name.name}", name.pos)
        return self.on_unknown(name, role)

    def _value_of(self, name: ast.Name, role: str) -> SSAValue:
        bound = self._resolve(name, role)
        if isinstance(bound, _Message):
            return self._coord(bound, 0, name.pos)
        if isinstance(bound, _Channel):
            raise self.error(f"%{name.name} is a channel, not a value", name.pos)
        if isinstance(bound, _NamedTask):
            raise self.error(f"%{name.name} is a task: it can only be sent or yielded", name.pos)
        assert isinstance(bound, SSAValue)
        return bound

    def _coord(self, message: _Message, position: int, pos: int) -> SSAValue:
        return self._helper(
            ("coord", message.value, position),
            lambda: [csp.CoordOp(message.value, position)],
            [message.value],
            pos,
        )

    # ------------------------------------------------------------------ values

    def scalar(self, e: ast.Expr) -> SSAValue:
        """The SSA value of an expression in a value position (index, i1 or an axis)."""
        if isinstance(e, ast.Int):
            return self._constant(e.value, e.pos)
        if isinstance(e, ast.Bool):
            return self._constant(e.value, e.pos)
        if isinstance(e, ast.Name):
            return self._value_of(e, "scalar")
        if isinstance(e, ast.AxisLit):
            return self.axis(e)
        if isinstance(e, ast.Subscript):
            return self._subscript_value(e)
        if isinstance(e, ast.BinOp):
            lhs, rhs = self.scalar(e.lhs), self.scalar(e.rhs)
            for side, v in ((e.lhs, lhs), (e.rhs, rhs)):
                if not isinstance(v.type, IndexType):
                    raise self.error(f"'{e.op}' takes index operands, got {v.type}", side.pos)
            if e.op in COMPARE_OPS:
                predicate = COMPARE_OPS[e.op]
                return self._helper(
                    ("cmpi", predicate, lhs, rhs),
                    lambda: [arith.CmpiOp(lhs, rhs, predicate)],
                    [lhs, rhs],
                    e.pos,
                )
            op_class = BINARY_OPS[e.op]
            return self._helper(
                (op_class.name, lhs, rhs),
                lambda: [op_class(lhs, rhs)],  # type: ignore[call-arg]
                [lhs, rhs],
                e.pos,
            )
        raise self.error("expected a value", e.pos)

    def _subscript_value(self, e: ast.Subscript) -> SSAValue:
        bound = self._resolve(e.base, "scalar")
        if isinstance(bound, _Message):
            entry = e.entries[0]
            if len(e.entries) != 1 or entry.kind != "index" or not isinstance(entry.first, ast.Int):
                raise self.error(
                    f"a message's coordinate is %{e.base.name}[k] with an integer k", e.pos
                )
            return self._coord(bound, entry.first.value, e.pos)
        if not isinstance(bound, SSAValue) or not isinstance(bound.type, MemRefType):
            raise self.error(f"%{e.base.name} is not a tensor: it cannot be indexed", e.pos)
        rank = len(bound.type.get_shape())
        if len(e.entries) != rank:
            raise self.error(
                f"reading an element of %{e.base.name} needs {rank} indices, got {len(e.entries)}",
                e.pos,
            )
        indices: list[SSAValue] = []
        for entry in e.entries:
            if entry.kind != "index":
                raise self.error("a slice is not a value (slices are for resources)", entry.pos)
            indices.append(self.scalar(entry.first))
        key = ("load", bound, *indices)
        found = self._lookup(key)
        if found is not None:
            return found
        op = memref.LoadOp.get(bound, indices)
        return self._place([op], key, e.pos, self._level([], fixed=True))

    def axis(self, e: ast.Expr) -> SSAValue:
        """An axis value: a parameter, or ``Dense[N]`` / ``DenseDyn(..)`` / ... built here."""
        if isinstance(e, ast.AxisLit):
            if e.kind == "dense":
                return self._helper(("dense", e.size), lambda: [wsp.DenseOp(e.size)], [], e.pos)
            args: list[SSAValue] = [self.scalar(e.args[0])]
            for buffer in e.args[1:]:
                args.append(
                    self.resource(buffer) if isinstance(buffer, ast.Name) else self.scalar(buffer)
                )
            makers = {"dense_dyn": wsp.DenseDynOp, "ragged": wsp.RaggedOp, "sparse": wsp.SparseOp}
            maker = makers[e.kind]
            return self._helper((e.kind, *args), lambda: [maker(*args)], args, e.pos)
        value = self.scalar(e)
        if not isinstance(value.type, wsp.AXIS_TYPES):
            raise self.error(f"expected an axis, got a value of type {value.type}", e.pos)
        return value

    def resource(self, e: ast.Expr) -> SSAValue:
        """A task resource: a whole tensor (``%buf``) or a view (``%Q[%b][0:64]``)."""
        if isinstance(e, ast.Name):
            value = self._value_of(e, "resource")
            if not isinstance(value.type, MemRefType):
                raise self.error(f"%{e.name} is not a tensor (it is {value.type})", e.pos)
            return value
        if not isinstance(e, ast.Subscript):
            raise self.error("a resource is a tensor %T or a view %T[...]", e.pos)
        source = self._value_of(e.base, "resource")
        if not isinstance(source.type, MemRefType):
            raise self.error(f"%{e.base.name} is not a tensor (it is {source.type})", e.pos)
        rank = len(source.type.get_shape())
        if len(e.entries) > rank:
            raise self.error(
                f"the view has {len(e.entries)} entries but %{e.base.name} has rank {rank}",
                e.entries[rank].pos,
            )
        offsets: list[int] = []
        sizes: list[int] = []
        dynamic: list[SSAValue] = []
        key: list[object] = ["view", source]

        def static(x: ast.Expr | None) -> int | None:
            if not isinstance(x, ast.Int) or x.paren:
                return None
            # Stored in an i64 array, where negative values are the dynamic markers.
            if x.value < 0:
                raise self.error(f"view offsets and sizes must be >= 0, got {x.value}", x.pos)
            if x.value >= 1 << 63:
                raise self.error(
                    f"integer constant out of range: {x.value} does not fit in 64 bits (signed)",
                    x.pos,
                )
            return x.value

        def operand(x: ast.Expr) -> int:
            value = self.scalar(x)
            if not isinstance(value.type, IndexType):
                raise self.error(f"a view entry is an index, got {value.type}", x.pos)
            dynamic.append(value)
            key.append(value)
            return wsp.VIEW_DYNAMIC

        for entry in e.entries:
            first = static(entry.first)
            if entry.kind == "slice":
                second = static(entry.second)
                if first is None or second is None:
                    raise self.error(
                        "a slice lo:hi has integer bounds; use off:+size for runtime ones",
                        entry.pos,
                    )
                if second < first:
                    raise self.error(f"slice end {second} is before its start {first}", entry.pos)
                offsets.append(first)
                sizes.append(second - first)
                key += [first, second - first]
                continue
            offsets.append(first if first is not None else operand(entry.first))
            if first is not None:
                key.append(first)
            if entry.kind == "index":
                sizes.append(wsp.VIEW_INDEX)
                key.append("i")
                continue
            assert entry.second is not None
            second = static(entry.second)
            sizes.append(second if second is not None else operand(entry.second))
            if second is not None:
                key.append(second)
        key.append(tuple(sizes))
        return self._helper(
            tuple(key),
            lambda: [wsp.ViewOp(source, offsets, sizes, list(dynamic))],
            [source, *dynamic],
            e.pos,
        )

    # ------------------------------------------------------------------ statements

    def stmts(self, body: list[ast.Stmt]) -> None:
        named: dict[str, _NamedTask] = {}
        claimed = {
            s.value.name if isinstance(s, ast.Send) else s.name.name
            for s in body
            if isinstance(s, ast.Yield)
            or (isinstance(s, ast.Send) and isinstance(s.value, ast.Name))
        }
        for s in body:
            if isinstance(s, ast.Task) and s.result is not None:
                name = s.result.name
                if name in named:
                    raise self.error(f"task %{name} is defined twice", s.pos)
                named[name] = _NamedTask(s)
                self.scopes[-1].names[name] = named[name]
                if name not in claimed:  # neither sent nor yielded: issued where it stands
                    named[name].used = True
                    self.task(s)
                continue
            self.stmt(s)

    def _named_task(self, name: ast.Name) -> ast.Task:
        bound = self._resolve(name, "task")
        if not isinstance(bound, _NamedTask):
            raise self.error(f"%{name.name} is not a task of this body", name.pos)
        if bound.used:
            raise self.error(f"task %{name.name} is sent or yielded twice", name.pos)
        bound.used = True
        return bound.task

    def _nested(self, op: Operation, blocks: list[tuple[Block, str]], bodies, bind=None) -> None:
        """Insert ``op`` and build each of its bodies in its own scope."""
        self._insert(op)
        outer = self.scopes[-1]
        outer.anchor = op
        for (block, kind), body in zip(blocks, bodies):
            scope = _Scope(block, kind)
            if bind is not None:
                bind(scope)
            self.scopes.append(scope)
            if callable(body):
                body()
            else:
                self.stmts(body)
            self.scopes.pop()
        outer.anchor = None

    def stmt(self, s: ast.Stmt) -> None:
        if isinstance(s, ast.Task):
            self.task(s)
        elif isinstance(s, ast.Yield):
            self.task(self._named_task(s.name))
        elif isinstance(s, ast.Loop):
            self.loop(s)
        elif isinstance(s, ast.Select):
            sparse = self.axis(s.axis)
            if not isinstance(sparse.type, wsp.SparseAxisType):
                raise self.error(f"select walks a Sparse axis, got {sparse.type}", s.axis.pos)
            row = self.scalar(s.row)
            op = wsp.SelectOp(sparse, row, s.index.name)
            op.location = self.loc(s.pos)
            block = op.body.block

            def bind(scope: _Scope) -> None:
                scope.names[s.index.name] = block.args[0]
                self.levels[block.args[0]] = len(self.scopes)

            self._nested(op, [(block, LOOP)], [s.body], bind)
        elif isinstance(s, ast.Cond):
            predicate = self.scalar(s.predicate)
            if predicate.type != i1:
                raise self.error(
                    f"a cond predicate is a comparison (i1), got {predicate.type}", s.predicate.pos
                )
            op = wsp.CondOp(predicate)
            op.location = self.loc(s.pos)
            blocks = [(op.then_region.block, BRANCH), (op.else_region.block, BRANCH)]
            self._nested(op, blocks, [s.then_body, s.else_body])
        elif isinstance(s, ast.Group):
            op = wsp.CombineOp() if s.kind == "combine" else wsp.SequentialOp()
            op.location = self.loc(s.pos)
            self._nested(op, [(op.body.block, GROUP)], [s.body])
        elif isinstance(s, ast.Call):
            self.call(s)
        elif isinstance(s, ast.Send):
            self._channel(s.channel)
            op = csp.SendOp(s.channel.name)
            op.location = self.loc(s.pos)

            def message() -> None:
                value = s.value
                if isinstance(value, ast.Name):
                    self.task(self._named_task(value))
                elif isinstance(value, ast.Group) and value.kind == "combine":
                    self.stmts(value.body)  # a message is already a combine of its tasks
                else:
                    self.stmts([value])

            self._nested(op, [(op.body.block, GROUP)], [message])
        elif isinstance(s, ast.Consume):
            self._channel(s.channel)
            op = csp.ConsumeOp(s.channel.name, wsp.TaskType(), s.var.name)
            op.location = self.loc(s.pos)
            block = op.body.block

            def bind_message(scope: _Scope) -> None:
                scope.names[s.var.name] = _Message(block.args[0])
                self.levels[block.args[0]] = len(self.scopes)

            self._nested(op, [(block, LOOP)], [s.body], bind_message)
        elif isinstance(s, ast.Event):
            self._channel(s.channel)
            maker = csp.RecordOp if s.kind == "record" else csp.SynchronizeOp
            op = maker(s.channel.name)
            op.location = self.loc(s.pos)
            self._insert(op)
        else:  # pragma: no cover - the parser makes no other statement
            raise self.error("unknown statement", s.pos)

    def _channel(self, name: ast.Name) -> None:
        bound = None
        for scope in reversed(self.scopes):
            if name.name in scope.names:
                bound = scope.names[name.name]
                break
        if not isinstance(bound, _Channel):
            raise self.error(f"%{name.name} is not a channel of this pipeline", name.pos)

    def loop(self, s: ast.Loop) -> None:
        axis = self.axis(s.axis)
        want = wsp.loop_index_count(axis.type)
        if len(s.indices) != want:
            raise self.error(
                f"a loop over {axis.type} binds {want} index(es) "
                f"({'%r, %j' if want == 2 else '%i'}), got {len(s.indices)}",
                s.pos,
            )
        maker = wsp.ParallelForOp if s.kind == "parallel_for" else wsp.ForEachOp
        op = maker(axis, [i.name for i in s.indices])
        op.location = self.loc(s.pos)
        block = op.body.block

        def bind(scope: _Scope) -> None:
            for arg, index in zip(block.args, s.indices):
                scope.names[index.name] = arg
                self.levels[arg] = len(self.scopes)

        self._nested(op, [(block, LOOP)], [s.body], bind)

    def task(self, s: ast.Task) -> None:
        params = [self.scalar(p) for p in s.params]
        resources = [self.resource(r) for r in s.resources]
        self._kernel(s, params, resources)
        op = wsp.TaskOp(s.kernel, params, resources)
        op.location = self.loc(s.pos)
        self._insert(op)

    def _kernel(self, s: ast.Task, params: list[SSAValue], resources: list[SSAValue]) -> None:
        """Declare the kernel from this first use when no ``@kernel`` declares it."""
        if s.kernel in self.kernels:
            return
        names: list[str] = []

        def unique(base: str) -> str:
            name, n = base, 1
            while name in names:
                name, n = f"{base}_{n}", n + 1
            names.append(name)
            return name

        for i, p in enumerate(s.params):
            unique(p.name if isinstance(p, ast.Name) else f"p{i}")
        for r in s.resources:
            unique(r.name if isinstance(r, ast.Name) else r.base.name)  # type: ignore[union-attr]
        types = [v.type for v in (*params, *resources)]
        access = [""] * len(params) + ["inout"] * len(resources)
        op = wsp.KernelOp(s.kernel, names, types, access)
        op.location = self.loc(s.kernel_pos)
        self.kernels[s.kernel] = op
        self.guessed.append(op)

    def call(self, s: ast.Call) -> None:
        if s.callee not in self.workload_defs:
            raise self.error(f"call of unknown workload @{s.callee}", s.callee_pos)
        callee = self.workload(s.callee)
        assert isinstance(callee, wsp.WorkloadOp)
        if s.callee in self.building:
            self.recursive_calls.setdefault(s.callee, s.pos)
        inputs = callee.function_type.inputs.data
        tensors = sum(isinstance(t, MemRefType) for t in inputs)
        if len(s.resources) != tensors or len(s.args) != len(inputs) - tensors:
            raise self.error(
                f"@{s.callee} takes {len(inputs) - tensors} argument(s) and {tensors} "
                f"resource(s), got {len(s.args)} and {len(s.resources)}",
                s.pos,
            )
        args, resources = iter(s.args), iter(s.resources)
        values = [
            self.resource(next(resources)) if isinstance(t, MemRefType) else self.scalar(next(args))
            for t in inputs
        ]
        op = wsp.CallOp(s.callee, values, s.schedule)
        op.location = self.loc(s.pos)
        self._insert(op)


def build(tree: ast.ModuleDef, parser: PtoParser) -> ModuleOp:
    """The module of a ``.pto`` syntax tree."""
    return PtoBuilder(tree, parser).build()
