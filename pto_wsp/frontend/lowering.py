"""Lowering of workload descriptions to IR: ``wsp``/``csp`` ops plus ``arith``/``memref`` helpers.

Workload ops go where the description says (a loop's body, a branch, a combine...). Helper
ops — views, axes, index arithmetic, predicates, tensor reads, ``csp.coord`` — are created
when an op needs them, and placed by one rule (the canonical form of examples/*.mlir):

- constants (and ``memref.get_global``) go to the outermost block of the region being built
  (the workload body, a process body, a key region);
- other pure ops go to the outermost block where all their operands are defined, but never
  out of a ``cond`` branch (so a branch's views and predicates stay in the branch);
- ``memref.load`` and divisions by a runtime value stay in the block of the op that uses them
  (they may not run where the program would not run them);
- grouping bodies (``combine``, ``sequential``, ``csp.send``) hold no helper ops: those go in
  the enclosing block, before the grouping op;
- in a block, a helper op is inserted just before the op being built (its first user), and
  a value computed once is reused wherever its block dominates.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import ArrayAttr, FunctionType, IndexType, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from pto_wsp.dialects import csp as csp_ops
from pto_wsp.dialects import wsp as wsp_ops
from pto_wsp.errors import CompileError, SourceLoc

from .axes import Axis, AxisParam, ConstArray, Dense, DenseDyn, Ragged, Sparse
from .csp import Consume, Coord, Record, Send, Synchronize
from .definitions import Bound, Call
from .expressions import FIXED, ROOT, Arg, Const, Expr, Index, Param, Sym, as_expr
from .kernels import Dim
from .tensors import Load, Tensor, View
from .workloads import Cond, Group, Loop, Select, Task, Workload

if TYPE_CHECKING:
    from .program import ModuleBuilder

#: Scopes whose block a pure op never leaves: cond branches.
_BARRIER = "branch"


class ArgTable:
    """The arguments of a workload or pipeline: parameters, then free values by creation order."""

    def __init__(self, block: Block, param_names: list[str], construct: str):
        self.block, self.construct = block, construct
        self.names = list(param_names)
        self.param_count = len(param_names)
        self.by_name: dict[str, SSAValue] = dict(zip(param_names, block.args))
        self.free: list[tuple[int, Any]] = []  # (creation order, the Python object)

    def resolve(self, obj: Any, type_: Attribute) -> SSAValue:
        """The argument for ``obj`` (a tensor, sym, ...): added on first use, shared by name."""
        name = obj.name
        existing = self.by_name.get(name)
        if existing is not None:
            if existing.type != type_:
                raise CompileError(
                    self.construct,
                    f"two different arguments are named {name!r}: {existing.type} and {type_}",
                    loc=getattr(obj, "loc", None),
                )
            return existing
        order = getattr(obj, "order", 0)
        rank = bisect.bisect([o for o, _ in self.free], order)
        self.free.insert(rank, (order, obj))
        position = self.param_count + rank
        arg = self.block.insert_arg(type_, position)
        arg.name_hint = name
        self.names.insert(position, name)
        self.by_name[name] = arg
        return arg

    @property
    def free_values(self) -> list[Any]:
        """The free values in argument order: a caller passes its own value for each."""
        return [obj for _, obj in self.free]

    def finish(self, op: Operation) -> None:
        """Write the final signature into the workload or pipeline op."""
        op.properties["function_type"] = FunctionType.from_lists(
            [a.type for a in self.block.args], []
        )
        op.properties["arg_names"] = ArrayAttr([StringAttr(n) for n in self.names])
        for arg, name in zip(self.block.args, self.names):
            arg.name_hint = name


class _Scope:
    """A block helper values may be placed in, and the op being built in it (the anchor)."""

    def __init__(self, block: Block, kind: str):
        self.block, self.kind = block, kind
        self.anchor: Operation | None = None
        self.values: dict[tuple, SSAValue] = {}


class Lowerer:
    """Builds the body of one region: a workload, a process, a key or a cost region."""

    def __init__(
        self,
        module: ModuleBuilder,
        block: Block,
        args: ArgTable | None,
        symbol: str,
        level: str = "cpu",
    ):
        self.module, self.args, self.symbol, self.level = module, args, symbol, level
        self.scopes = [_Scope(block, "root")]
        #: Where the construct being built was written: errors about its values point there.
        self.using: SourceLoc | None = None
        self.block = block
        self.builder = Builder(InsertPoint.at_end(block))

    # ------------------------------------------------------------------ placement

    def bind(self, key: tuple, value: SSAValue) -> None:
        """Make ``key`` (an index, a parameter, ...) mean ``value`` in the innermost scope."""
        self.scopes[-1].values[key] = value

    def _lookup(self, key: tuple) -> tuple[SSAValue, int] | None:
        for level in range(len(self.scopes) - 1, -1, -1):
            found = self.scopes[level].values.get(key)
            if found is not None:
                return found, level
        return None

    @staticmethod
    def _point(block: Block, before: Operation | None) -> InsertPoint:
        if before is not None:
            return InsertPoint.before(before)
        last = block.last_op
        if last is not None and last.has_trait(IsTerminator):
            return InsertPoint.before(last)
        return InsertPoint.at_end(block)

    def _place(self, ops: list[Operation], level: int, key: tuple) -> tuple[SSAValue, int]:
        scope = self.scopes[level]
        for op in ops:
            self.builder.insert(op, self._point(scope.block, scope.anchor))
        value = ops[-1].results[0]
        scope.values[key] = value
        return value, level

    def _level(self, placement: str, operand_levels: list[int]) -> int:
        if placement == ROOT:
            return 0
        if placement == FIXED:
            return len(self.scopes) - 1
        barrier = max((i for i, s in enumerate(self.scopes) if s.kind == _BARRIER), default=0)
        return max([barrier, *operand_levels])

    # ------------------------------------------------------------------ values

    def value(self, expr: Any) -> SSAValue:
        """The SSA value of an index expression or predicate, built where it belongs."""
        return self._value(as_expr(expr, "value"))[0]

    def _value(self, e: Expr) -> tuple[SSAValue, int]:
        if isinstance(e, Load):
            self.tensor(e.view.tensor)  # it checks the tensor is the one of that name
        found = self._lookup(e.key)
        if found is not None:
            return found
        if isinstance(e, Arg | Index):
            return self._named(e)
        if hasattr(e, "build_here"):  # evaluated where it is used (streams.query): not hoisted
            op = e.build_here()
            self._append(op)
            return op.results[0], len(self.scopes) - 1
        if isinstance(e, Coord):
            message = self._lookup(("message", id(e.message)))
            if message is None:
                raise CompileError(
                    "consume", f"{e!r} is used outside the consume body of {e.message!r}", loc=e.loc
                )
            level = self._level(e.placement, [message[1]])
            return self._place([csp_ops.CoordOp(message[0], e.position)], level, e.key)
        if isinstance(e, Load):
            source = self.tensor(e.view.tensor)
            indices = [self._value(i)[0] for i in e.indices]
            return self._place(e.build_from(source, indices), len(self.scopes) - 1, e.key)
        if isinstance(e, Dim):
            found = self._lookup(("tensor", e.name))
            assert found is not None, f"{e.name} is bound in a cost region"
            dim, _ = self._value(Const(e.dim))
            return self._place([memref.DimOp(found[0], dim)], 0, e.key)
        operands = [self._value(o) for o in e.operands()]
        level = self._level(e.placement, [lvl for _, lvl in operands])
        return self._place(e.build([v for v, _ in operands]), level, e.key)

    def _named(self, e: Arg | Index) -> tuple[SSAValue, int]:
        """An index, symbol or parameter that is not bound here."""
        if isinstance(e, Sym | Param) and self.args is not None:
            value = self.args.resolve(e, IndexType())
            self.scopes[0].values[e.key] = value
            return value, 0
        if isinstance(e, Index):
            raise CompileError(
                "loop index",
                f"the index {e.name!r} of the loop at {e.loc} is used outside its loop",
                loc=self.using,
            )
        raise CompileError(
            getattr(e, "kind", "value"), f"{e.name!r} is not available here", loc=self.using
        )

    def tensor(self, t: Tensor) -> SSAValue:
        """The memref argument of a tensor (a parameter, or added as a free argument)."""
        found = self._lookup(t.key)
        if found is not None:
            if found[0].type != t.type:
                raise CompileError(
                    self.symbol,
                    f"two different tensors are named {t.name!r}: {found[0].type} and {t.type}",
                )
            return found[0]
        if self.args is None:
            raise CompileError(self.symbol, f"tensor {t.name!r} cannot be used here")
        value = self.args.resolve(t, t.type)
        self.scopes[0].values[t.key] = value
        return value

    def region(self, r: Tensor | View) -> SSAValue:
        """A task resource: a whole tensor, or a ``wsp.view`` of it."""
        if isinstance(r, Tensor):
            return self.tensor(r)
        source = self.tensor(r.tensor)  # first: it checks the tensor is the one of that name
        found = self._lookup(r.key)
        if found is not None:
            return found[0]
        offsets, sizes, dynamic = r.offsets_sizes
        operands = [self._value(as_expr(d, "view")) for d in dynamic]
        level = self._level("pure", [lvl for _, lvl in operands])
        op = wsp_ops.ViewOp(source, offsets, sizes, [v for v, _ in operands])
        op.result.name_hint = r.tensor.name.lower()
        return self._place([op], level, r.key)[0]

    def array(self, a: Tensor | ConstArray) -> SSAValue:
        """A 1-d integer array: a tensor argument, or a global constant bound at build time."""
        if isinstance(a, Tensor):
            return self.tensor(a)
        found = self._lookup(a.key)
        if found is not None:
            return found[0]
        name = self.module.global_for(a, self.symbol)
        return self._place([memref.GetGlobalOp(name, a.type)], 0, a.key)[0]

    def axis(self, a: Axis) -> SSAValue:
        """The SSA value of an axis (``wsp.dense`` ...)."""
        found = self._lookup(a.key)
        if found is not None:
            return found[0]
        if isinstance(a, AxisParam):
            if self.args is None:
                raise CompileError(self.symbol, f"axis {a.name!r} cannot be used here")
            value = self.args.resolve(a, a.type)
            self.scopes[0].values[a.key] = value
            return value
        if isinstance(a, Dense):
            return self._place([wsp_ops.DenseOp(a.size)], 0, a.key)[0]
        if isinstance(a, DenseDyn):
            size, level = self._value(a.size)
            return self._place([wsp_ops.DenseDynOp(size)], self._level("pure", [level]), a.key)[0]
        outer, level = self._value(a.outer)
        if isinstance(a, Ragged):
            op: Operation = wsp_ops.RaggedOp(outer, self.array(a.lengths))
        else:
            assert isinstance(a, Sparse)
            op = wsp_ops.SparseOp(outer, self.array(a.indptr), self.array(a.indices))
        return self._place([op], self._level("pure", [level]), a.key)[0]

    def operand(self, value: Any) -> SSAValue:
        """A call argument: a tensor, view, axis or index value."""
        if isinstance(value, Tensor):
            return self.tensor(value)
        if isinstance(value, View):
            return self.region(value)
        if isinstance(value, Axis):
            return self.axis(value)
        return self.value(value)

    # ------------------------------------------------------------------ workload ops

    def _append(self, op: Operation) -> None:
        self.builder.insert(op, self._point(self.block, None))

    def _nested(self, op: Operation, block: Block, kind: str | None, fill: Any) -> None:
        """Build ``op``'s region ``block`` (a new scope of ``kind``, or a grouping body)."""
        scope = self.scopes[-1]
        owns = self.block is scope.block
        if owns:
            scope.anchor = op
        saved = self.block
        self.block = block
        if kind is not None:
            self.scopes.append(_Scope(block, kind))
        try:
            fill()
        finally:
            if kind is not None:
                self.scopes.pop()
            self.block = saved
            if owns:
                scope.anchor = None

    def emit_all(self, workloads: list[Workload]) -> None:
        """Emit workloads, in order, into the current block."""
        for w in workloads:
            self.emit(w)

    def emit(self, w: Workload, inline: bool = False) -> None:
        """Emit one workload expression; a named one (not ``inline``) becomes a ``wsp.call``."""
        self.using = w.loc
        if isinstance(w, Call) or (w.name is not None and not inline):
            self._call(w)
        elif isinstance(w, Task):
            params = [self.value(p) for p in w.params]
            resources = [self.region(r) for r in w.resources]
            symbol = self.module.use_kernel(w.kernel, [r.type for r in resources])
            self._append(wsp_ops.TaskOp(symbol, params, resources))
        elif isinstance(w, Loop):
            self._loop(w)
        elif isinstance(w, Select):
            sparse, row = self.axis(w.row.sparse), self.value(w.row.row)
            op = wsp_ops.SelectOp(sparse, row, w.names[0])
            self._append(op)
            self._nested(op, op.body.block, "loop", lambda: self._indices(op, [w.index], w.body))
        elif isinstance(w, Cond):
            op = wsp_ops.CondOp(self.value(w.pred))
            self._append(op)
            self._nested(op, op.then_region.block, _BARRIER, lambda: self.emit_all(w.then_body))
            self._nested(op, op.else_region.block, _BARRIER, lambda: self.emit_all(w.else_body))
        elif isinstance(w, Group):
            group = wsp_ops.CombineOp() if w.kind == "combine" else wsp_ops.SequentialOp()
            self._append(group)
            self._nested(group, group.body.block, None, lambda: self.emit_all(w.items))
        elif hasattr(w, "lower_into"):  # streams and events (streams.py) build themselves
            w.lower_into(self)
        else:
            self._csp(w)

    def _loop(self, w: Loop) -> None:
        axis = self.axis(w.axis)
        cls = wsp_ops.ParallelForOp if w.kind == "parallel_for" else wsp_ops.ForEachOp
        op = cls(axis, w.names)
        self._append(op)
        self._nested(op, op.body.block, "loop", lambda: self._indices(op, w.indices, w.body))

    def _indices(self, op: Operation, indices: list[Index], body: list[Workload]) -> None:
        for index, arg in zip(indices, op.regions[0].block.args):
            self.bind(index.key, arg)
        self.emit_all(body)

    def _csp(self, w: Workload) -> None:
        if isinstance(w, Send):
            op: Operation = csp_ops.SendOp(w.channel.name, nonblocking=w.nonblocking)
            self._append(op)
            self._nested(op, op.regions[0].block, None, lambda: self.emit_all(w.body))
        elif isinstance(w, Consume):
            consume = csp_ops.ConsumeOp(w.channel.name, name=w.message.name)
            self._append(consume)

            def fill() -> None:
                self.bind(("message", id(w.message)), consume.message)
                self.emit_all(w.body)

            self._nested(consume, consume.body.block, "loop", fill)
        elif isinstance(w, Record | Synchronize) and not self._in_process():
            # Outside a pipeline an event marks tasks (wsp.record / wsp.wait), not a rendezvous.
            from .streams import EventRecord, EventWait

            event = EventRecord if isinstance(w, Record) else EventWait
            event(w.channel.name, None).lower_into(self)
        elif isinstance(w, Record):
            self._append(csp_ops.RecordOp(w.channel.name))
        elif isinstance(w, Synchronize):
            self._append(csp_ops.SynchronizeOp(w.channel.name))
        else:
            raise CompileError(w.construct, f"cannot build {w!r} here", loc=w.loc)

    def _in_process(self) -> bool:
        return isinstance(self.scopes[0].block.parent_op(), csp_ops.ProcessOp)

    def _call(self, w: Workload) -> None:
        target, args = (w.target, w.args) if isinstance(w, Call) else (w, getattr(w, "args", []))
        name, free = self.module.symbol(target)
        values = [self.operand(a) for a in args]
        if isinstance(target, Bound) and target.level == "cpu" and self.level == "npu":
            raise CompileError(
                "call",
                f"npu-level workload {self.symbol} cannot call the cpu-level workload {name}",
                loc=w.loc,
            )
        values += [self.operand(v) for v in free]
        self._append(wsp_ops.CallOp(name, values))
