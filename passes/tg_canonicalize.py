"""``tg-canonicalize``: drop what creates no task and orders nothing in a task program.

Patterns (each keeps the tasks a program creates and the order among them):
- ``DropDeadOrderPoint``: an ordering point directly in a ``tg.ordered`` body with nothing
  before it or nothing after it in that body orders nothing; of two in a row, one suffices;
- ``InlineUnorderedScope``: a ``tg.ordered`` without ordering points adds no order;
- ``EraseEmptyLoop``: an ``scf.for`` with no results whose body is empty, or whose constant
  bounds give no iteration; an empty ``scf.if`` without results; an empty ``tg.ordered``.
Dead pure ops left behind are erased by the greedy driver, as in MLIR's canonicalizer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from pto_wsp.dialects import tg


def _body_ops(op: Operation) -> list[Operation]:
    """The ops of ``op``'s single body block, terminator excluded."""
    return [o for o in op.regions[0].block.ops if not o.has_trait(IsTerminator)]


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _has_order_point(op: Operation) -> bool:
    """Whether an ordering point of ``op``'s own scope lies in it (nested scopes excluded)."""
    for child in op.regions[0].block.ops:
        if isinstance(child, tg.OrderPointOp):
            return True
        if isinstance(child, tg.OrderedOp):
            continue
        if any(_walk_has_point(region) for region in child.regions):
            return True
    return False


def _walk_has_point(region) -> bool:
    for block in region.blocks:
        for op in block.ops:
            if isinstance(op, tg.OrderPointOp):
                return True
            if isinstance(op, tg.OrderedOp):
                continue
            if any(_walk_has_point(r) for r in op.regions):
                return True
    return False


def _creates_work(op: Operation) -> bool:
    """Whether ``op`` may create a task or take part in ordering (conservative)."""
    if isinstance(op, tg.TaskOp | tg.CallOp | tg.OrderPointOp | tg.SendOp | tg.ConsumeOp):
        return True
    if isinstance(op, tg.RecordOp | tg.SynchronizeOp):
        return True
    return any(_creates_work(o) for r in op.regions for b in r.blocks for o in b.ops)


class DropDeadOrderPoint(RewritePattern):
    """An ordering point with no work before or after it in its ordered body is dead."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.OrderPointOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.parent_op(), tg.OrderedOp):
            return  # inside a loop: it orders the iterations
        ops = _body_ops(op.parent_op())
        index = ops.index(op)
        before, after = ops[:index], ops[index + 1 :]
        previous_point = before and isinstance(before[-1], tg.OrderPointOp)
        if (
            previous_point
            or not any(map(_creates_work, before))
            or not any(map(_creates_work, after))
        ):
            rewriter.erase(op)


class InlineUnorderedScope(RewritePattern):
    """A ``tg.ordered`` with no ordering point of its own is just its body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.OrderedOp, rewriter: PatternRewriter) -> None:
        if _has_order_point(op):
            return
        block = op.body.block
        if (last := block.last_op) is not None and last.has_trait(IsTerminator):
            rewriter.erase(last)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.erase(op)


class EraseEmptyLoop(RewritePattern):
    """Loops, branches and scopes that run nothing are erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp | scf.IfOp, rewriter: PatternRewriter) -> None:
        if op.results:
            return
        if isinstance(op, scf.ForOp):
            lb, ub = _constant(op.lb), _constant(op.ub)
            never = lb is not None and ub is not None and lb >= ub
            if never or not any(map(_creates_work, _body_ops(op))):
                rewriter.erase(op)
            return
        branches = [op.true_region, op.false_region]
        if not any(_creates_work(o) for r in branches for b in r.blocks for o in b.ops):
            rewriter.erase(op)


class EraseEmptyScope(RewritePattern):
    """A ``tg.ordered`` that creates nothing is erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.OrderedOp, rewriter: PatternRewriter) -> None:
        if not any(map(_creates_work, _body_ops(op))):
            rewriter.erase(op)


@dataclass(frozen=True)
class TgCanonicalizePass(ModulePass):
    """Remove dead ordering points, unordered scopes and loops that create no task."""

    name = "tg-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [DropDeadOrderPoint(), InlineUnorderedScope(), EraseEmptyLoop(), EraseEmptyScope()],
                dce_enabled=True,
            )
        ).rewrite_module(op)
