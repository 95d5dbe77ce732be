"""tg-to-runtime-calls' checks: what native code must not do on bad data is tested first,
and the runtime told instead (``pto_tg_check_failed(ctx, check)``; the function's
``pto.checks`` says what each check means): a ``memref.load`` outside its memref, an integer
division or remainder by zero (signed: the most negative value by -1), an ``scf.for`` step that
is not positive. A loop creating a task per iteration first tells the core its bounds."""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from pto_wsp.passes.diagnostics import location_of
from pto_wsp.passes.tg_reads import view_root

Value = int | SSAValue

#: Integer divisions and remainders: by zero (signed: the most negative value by -1), native
#: code would trap.
SIGNED_DIVISIONS = (arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp)
DIVISIONS = (arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp, *SIGNED_DIVISIONS)


class RuntimeChecks:
    """The checks of tg_to_runtime's lowering of one program (its base: they use its
    ``func``, ``checks``, ``reads``, ``ctx``, ``emit``, ``value`` and ``call``)."""

    def check(self, op: Operation, what: str) -> Value:
        """A new check of ``op`` (its location and ``what`` fails), by number."""
        where = location_of(op)
        self.checks.append(f"{where + ': ' if where else ''}{what}")
        return len(self.checks) - 1

    def load(self, op: memref.LoadOp) -> None:
        """``memref.load`` reads only inside the memref: otherwise the runtime is told."""
        if not op.indices:
            return
        root = view_root(op.memref)
        names = self.func.attributes["pto.arg_names"]
        assert isinstance(names, ArrayAttr)
        name = "a value"
        if isinstance(root.owner, memref.GetGlobalOp):
            name = f"@{root.owner.name_.root_reference.data}"
        elif isinstance(root, BlockArgument) and root.block is self.func.body.block:
            name = names.data[root.index - 1].data
            self.reads.add(name)
        check = self.check(op, f"memref.load of {name}: an index is out of the bound data")
        ok: SSAValue | None = None
        for d, index in enumerate(op.indices):
            extent = self.emit(memref.DimOp(op.memref, self.value(d, op)), op).result
            inside = self.emit(arith.CmpiOp(index, extent, "ult"), op).result
            ok = inside if ok is None else self.emit(arith.AndIOp(ok, inside), op).results[0]
        assert ok is not None
        type_ = op.res.type
        zero = (
            arith.ConstantOp(IntegerAttr(0, type_))
            if isinstance(type_, IntegerType | IndexType)
            else arith.ConstantOp.from_float_and_width(0.0, type_)  # type: ignore[arg-type]
        )
        failed = self.failed(check, op)
        guarded = scf.IfOp(
            ok, [type_], Region(Block()), Region(Block([failed, zero, scf.YieldOp(zero)]))
        )
        Rewriter.insert_op(guarded, InsertPoint.before(op))
        op.res.replace_all_uses_with(guarded.results[0])
        op.detach()
        guarded.true_region.block.add_ops([op, scf.YieldOp(op.res)])

    def divide(self, op: Operation) -> None:
        """An integer division or remainder that may trap (by zero; signed: the most negative
        value by -1): the runtime is told, and the division is made by one instead."""
        dividend, divisor = op.operands
        known = constant_of(divisor)
        signed = isinstance(op, SIGNED_DIVISIONS)
        if isinstance(known, int) and known != 0 and (known != -1 or not signed):
            return
        type_ = divisor.type
        width = 64 if isinstance(type_, IndexType) else type_.width.data  # type: ignore[attr-defined]

        def constant(v: int) -> SSAValue:
            return self.emit(arith.ConstantOp(IntegerAttr(v, type_)), op).result

        def equal(a: SSAValue, v: int) -> SSAValue:
            return self.emit(arith.CmpiOp(a, constant(v), "eq"), op).result

        bad = self.guard(equal(divisor, 0), op, f"{op.name}: division by zero")
        if signed:
            overflow = self.emit(
                arith.AndIOp(equal(dividend, -(1 << (width - 1))), equal(divisor, -1)), op
            ).results[0]
            self.guard(overflow, op, f"{op.name}: overflow (the most negative value by -1)")
            bad = self.emit(arith.OrIOp(bad, overflow), op).results[0]
        op.operands[1] = self.emit(arith.SelectOp(bad, constant(1), divisor), op).results[0]

    def loop(self, op: scf.ForOp, tasks: bool) -> None:
        """An ``scf.for`` whose step may not be positive (MLIR leaves it undefined; zero would
        never end): the runtime is told, and the loop runs no iteration. A loop creating a
        task per iteration first tells the core its bounds: a trip count beyond what memory
        holds is an error before the first iteration, not after millions."""
        step = constant_of(op.step)
        if not (isinstance(step, int) and step > 0):
            self._step_check(op)
        if tasks and isinstance(op.lb.type, IndexType):
            self.call("pto_tg_loop_tasks", [op.lb, op.ub, op.step], op)

    def _step_check(self, op: scf.ForOp) -> None:
        bad = self.emit(arith.CmpiOp(op.step, self.value(0, op), "sle"), op).result
        self.guard(bad, op, "scf.for: the step is not positive")
        op.operands[1] = self.emit(arith.SelectOp(bad, op.lb, op.ub), op).results[0]
        op.operands[2] = self.emit(arith.SelectOp(bad, self.value(1, op), op.step), op).results[0]

    def guard(self, bad: SSAValue, op: Operation, what: str) -> SSAValue:
        """Before ``op``: when ``bad`` holds, tell the runtime that check ``what`` failed."""
        call = self.failed(self.check(op, what), op)
        self.emit(scf.IfOp(bad, [], Region(Block([call, scf.YieldOp()]))), op)
        return bad

    def failed(self, check: Value, op: Operation) -> Operation:
        """The call telling the runtime that ``check`` failed (not inserted)."""
        return func.CallOp("pto_tg_check_failed", [self.ctx, self.value(check, op)], [])


def constant_of(v: Value) -> Value:
    """An index constant's value, else the value."""
    if isinstance(v, SSAValue) and isinstance(v.owner, arith.ConstantOp):
        attr = v.owner.value
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
            return attr.value.data
    return v
