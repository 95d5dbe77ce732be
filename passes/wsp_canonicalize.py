"""``wsp-canonicalize``: simplify workload expressions without changing the tasks or their order.

Seed 000 §13 (rewriter, constant folding). Every pattern keeps the multiset of tasks a
workload creates and the structural order among them (docs/semantics.md): the statements
of one block are combined, ``wsp.sequential`` orders its children. Moving the ops of a
group into its parent block is therefore only done when the parent block gives them the
same order they had — see :func:`can_splice`.

Dead pure ops (axis constructors, views, constants) left behind by a rewrite are erased by
the greedy driver's trivial dead-code elimination, like MLIR's canonicalizer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
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
from xdsl.transforms.dead_code_elimination import result_only_effects

from pto_wsp.dialects.wsp import (
    CombineOp,
    CondOp,
    DenseAxisType,
    DenseDynOp,
    ForEachOp,
    ParallelForOp,
    RaggedOp,
    SelectOp,
    SequentialOp,
    SparseOp,
    WorkloadExpr,
)

#: Ops whose body blocks are combined: their statements have no order among them.
#: csp ops are named, not imported, so this pass does not depend on the csp dialect.
COMBINED_BODIES = frozenset(
    {
        "wsp.workload",
        "wsp.parallel_for",
        "wsp.for_each",
        "wsp.select",
        "wsp.cond",
        "wsp.combine",
        "csp.process",
        "csp.send",
        "csp.consume",
    }
)

# --------------------------------------------------------------------------- helpers


def may_create_tasks(op: Operation) -> bool:
    """Whether ``op`` counts as a child workload of its block, not a helper computing values.

    An op of another dialect whose effects are unknown may be a workload expression
    (extension ops, seed 000 §10), so it counts as a child: treating it as a helper could
    let a splice put it in an order it did not have.
    """
    if op.has_trait(IsTerminator, value_if_unregistered=False):
        return False
    return op.has_trait(WorkloadExpr) or not result_only_effects(op)


def child_count(block: Block) -> int:
    """How many child workloads ``block`` holds."""
    return sum(1 for op in block.ops if may_create_tasks(op))


def is_empty(block: Block) -> bool:
    """Whether ``block`` holds no op besides its terminator."""
    return all(op.has_trait(IsTerminator, value_if_unregistered=False) for op in block.ops)


def can_splice(op: Operation, block: Block) -> bool:
    """Whether the ops of ``block`` (a combined body) can replace ``op`` in ``op``'s block.

    In a combined block the spliced children stay unordered, as they were. In a
    sequential body they would become ordered, which is harmless only for at most one
    child. Under an op this pass does not know, nothing is assumed.
    """
    parent = op.parent_op()
    if isinstance(parent, SequentialOp):
        return child_count(block) <= 1
    return parent is not None and parent.name in COMBINED_BODIES


def splice(rewriter: PatternRewriter, op: Operation, block: Block) -> None:
    """Move the non-terminator ops of ``block`` (helpers too) before ``op``, then erase ``op``.

    The ops keep their relative order, so every helper still dominates its uses; values
    from ``op``'s block that they use are defined before ``op``, hence before them.
    """
    terminator = block.last_op
    if terminator is not None and terminator.has_trait(IsTerminator, value_if_unregistered=False):
        rewriter.erase(terminator)
    rewriter.inline_block(block, InsertPoint.before(op))
    rewriter.erase(op)


def constant_int(value: SSAValue) -> int | None:
    """The value of an integer ``arith.constant``, if ``value`` is one."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def is_empty_axis(axis: SSAValue) -> bool:
    """Whether ``axis`` is statically known to have no index at all."""
    if isinstance(axis.type, DenseAxisType):
        return axis.type.size.data == 0
    owner = axis.owner
    if isinstance(owner, DenseDynOp):
        return constant_int(owner.size) == 0
    # Zero rows: no (row, j) pair whatever the lengths or CSR arrays hold.
    if isinstance(owner, RaggedOp | SparseOp):
        return constant_int(owner.outer) == 0
    return False


# --------------------------------------------------------------------------- patterns


class FoldConstantCond(RewritePattern):
    """Replace a ``wsp.cond`` on a constant predicate by its taken branch (seed 000 §13.2)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp, rewriter: PatternRewriter) -> None:
        value = constant_int(op.predicate)
        if value is None:
            return
        taken = op.then_region if value != 0 else op.else_region
        if can_splice(op, taken.block):
            splice(rewriter, op, taken.block)
            return
        # Several children in a sequential body: a combine keeps them unordered.
        body = rewriter.move_region_contents_to_new_regions(taken)
        rewriter.replace(op, CombineOp(body))


class EraseEmptyLoop(RewritePattern):
    """Erase a loop over an axis known to be empty, or whose body holds nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ParallelForOp | ForEachOp | SelectOp, rewriter: PatternRewriter
    ) -> None:
        empty_axis = not isinstance(op, SelectOp) and is_empty_axis(op.axis)
        if empty_axis or is_empty(op.body.block):
            rewriter.erase(op)


class EraseEmptyGroup(RewritePattern):
    """Erase a ``wsp.combine`` or ``wsp.sequential`` with nothing in it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CombineOp | SequentialOp, rewriter: PatternRewriter) -> None:
        if is_empty(op.body.block):
            rewriter.erase(op)


class EraseEmptyCond(RewritePattern):
    """Erase a ``wsp.cond`` whose branches are both empty: either way it creates no task."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp, rewriter: PatternRewriter) -> None:
        if is_empty(op.then_region.block) and is_empty(op.else_region.block):
            rewriter.erase(op)


class FlattenNestedCombine(RewritePattern):
    """Inline a ``wsp.combine`` into a combined parent block, which already is a combine."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CombineOp, rewriter: PatternRewriter) -> None:
        parent = op.parent_op()
        if parent is not None and parent.name in COMBINED_BODIES:
            splice(rewriter, op, op.body.block)


class FlattenNestedSequential(RewritePattern):
    """``sequential { a; sequential { b; c }; d }`` -> ``sequential { a; b; c; d }``.

    Sequencing is associative: every task of a is still before b's, b's before c's, ...
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SequentialOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.parent_op(), SequentialOp):
            splice(rewriter, op, op.body.block)


class UnwrapSingleChildGroup(RewritePattern):
    """Replace a ``wsp.sequential``, or a ``wsp.combine`` in a sequential, by its only child.

    One child has nothing to be ordered or unordered with. A combine with several
    children in a sequential must stay: splicing it would order its children.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CombineOp | SequentialOp, rewriter: PatternRewriter) -> None:
        if child_count(op.body.block) <= 1 and can_splice(op, op.body.block):
            splice(rewriter, op, op.body.block)


# --------------------------------------------------------------------------- pass


@dataclass(frozen=True)
class WspCanonicalizePass(ModulePass):
    """Fold constant conds, erase empty loops and groups, flatten nested combine/sequential.

    Runs the patterns greedily to a fixpoint; the driver's dead-code elimination erases
    pure ops (axes, views, constants) that no longer have uses.
    """

    name = "wsp-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            FoldConstantCond(),
            EraseEmptyLoop(),
            EraseEmptyGroup(),
            EraseEmptyCond(),
            FlattenNestedCombine(),
            FlattenNestedSequential(),
            UnwrapSingleChildGroup(),
        ]
        # dce_enabled is xDSL's default, spelled out because the pass relies on it: before
        # trying the patterns on an op, the applier erases it if it is trivially dead (no
        # result used, no effect), and the walker then revisits the ops that fed it.
        applier = GreedyRewritePatternApplier(patterns, dce_enabled=True)
        PatternRewriteWalker(applier).rewrite_module(op)
