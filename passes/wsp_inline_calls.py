"""``wsp-inline-calls``: replace each ``wsp.call`` by the body of the workload it calls.

Seed 000 §4.8: a call runs another workload with its arguments bound. Inlining clones the
callee's body at the call site with the callee's arguments replaced by the call's operands,
so later passes see one workload expression instead of a symbol to resolve.

Options:

- ``inline-scheduled`` (default false): a call carrying ``schedule(@s)`` runs its callee
  under that schedule instead of the callee's own. Once inlined, the tasks are part of
  the caller and are scheduled by the caller's schedule: the override would be lost
  silently, so such calls are kept unless this option asks for it.
- ``remove-dead-callees`` (default false): afterwards, erase the workloads that were called
  and are no longer referenced by any symbol (a call, a ``sched.schedule``, ...). Workloads
  nobody called are the program's entry points and always stay.

A call cycle (recursion) cannot be inlined: the pass fails naming the cycle.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects.wsp import CallOp, CombineOp, WorkloadOp, enclosing
from pto_wsp.passes.wsp_canonicalize import can_splice


def _is_inlined(call: CallOp, inline_scheduled: bool) -> bool:
    """Whether the pass inlines ``call`` under the given option."""
    return call.schedule is None or inline_scheduled


class Symbols:
    """Symbol lookup from an op outward, nearest symbol table first (as ``resolve_symbol``).

    Each table's names are read once into a dict: resolving every call by scanning the
    module would be quadratic in the number of workloads. Valid while no symbol is added
    or removed, which holds while calls are inlined (bodies define no symbols).
    """

    def __init__(self) -> None:
        self._tables: dict[Operation, dict[str, Operation]] = {}

    def lookup(self, op: Operation, name: str) -> Operation | None:
        """The symbol ``name`` as seen from ``op``."""
        anchor = op.parent_op()
        while anchor is not None:
            if anchor.has_trait(SymbolTable) and anchor.regions and anchor.regions[0].blocks:
                table = self._tables.get(anchor)
                if table is None:
                    table = self._tables[anchor] = _table_of(anchor)
                if name in table:
                    return table[name]
            anchor = anchor.parent_op()
        return None

    def callee(self, call: CallOp) -> WorkloadOp:
        """The workload ``call`` calls; fails the pass if there is none."""
        name = call.callee.root_reference.data
        callee = self.lookup(call, name)
        if not isinstance(callee, WorkloadOp):
            message = f"wsp-inline-calls: call refers to unknown workload @{name}"
            call.emit_error(message, PassFailedException(message))
        return callee


def _table_of(table_op: Operation) -> dict[str, Operation]:
    table: dict[str, Operation] = {}
    for op in table_op.regions[0].block.ops:
        sym = op.get_trait(SymbolOpInterface)
        if sym is not None:
            table.setdefault(sym.get_sym_attr_name(op).data, op)
    return table


# --------------------------------------------------------------------------- recursion


def check_no_recursion(module: ModuleOp, inline_scheduled: bool, symbols: Symbols) -> None:
    """Fail if the calls to inline form a cycle, naming it (``@a -> @b -> @a``).

    Inlining a cycle would never end. The search is iterative so a long chain of calls
    cannot overflow Python's stack. Calls kept (scheduled ones, by default) break cycles.
    """
    workloads = [op for op in module.walk() if isinstance(op, WorkloadOp)]
    edges: dict[WorkloadOp, list[tuple[CallOp, WorkloadOp]]] = {w: [] for w in workloads}
    for call in module.walk():
        if not isinstance(call, CallOp) or not _is_inlined(call, inline_scheduled):
            continue
        # Resolved here, before any rewrite, so an unknown callee fails the pass up front.
        callee = symbols.callee(call)
        caller = enclosing(call, WorkloadOp)
        if isinstance(caller, WorkloadOp):
            edges[caller].append((call, callee))
    done: set[WorkloadOp] = set()
    for root in workloads:
        if root in done:
            continue
        # Depth-first, keeping the path (and each node's next edge) on an explicit stack.
        path: list[WorkloadOp] = [root]
        on_path: set[WorkloadOp] = {root}
        next_edge: list[int] = [0]
        while path:
            node = path[-1]
            if next_edge[-1] == len(edges[node]):
                done.add(node)
                on_path.discard(node)
                path.pop()
                next_edge.pop()
                continue
            call, callee = edges[node][next_edge[-1]]
            next_edge[-1] += 1
            if callee in on_path:
                _fail_cycle(call, path[path.index(callee) :] + [callee])
            if callee not in done:
                path.append(callee)
                on_path.add(callee)
                next_edge.append(0)


def _fail_cycle(call: CallOp, cycle: list[WorkloadOp]) -> None:
    chain = " -> ".join(f"@{w.sym_name.data}" for w in cycle)
    message = f"wsp-inline-calls: recursive calls cannot be inlined: {chain}"
    # emit_error attaches the IR to the exception and lets tools point at the call.
    call.emit_error(message, PassFailedException(message))


# --------------------------------------------------------------------------- pattern


@dataclass(frozen=True)
class InlineCall(RewritePattern):
    """Replace a ``wsp.call`` by a clone of its callee's body, arguments bound to operands.

    The callee's body block is combined; at a call site in a sequential body its
    children are wrapped in a ``wsp.combine`` so inlining does not order them.
    """

    symbols: Symbols
    inline_scheduled: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        if not _is_inlined(op, self.inline_scheduled):
            return
        body = self.symbols.callee(op).body.block
        mapper: dict[SSAValue, SSAValue] = dict(zip(body.args, op.args, strict=True))
        clones = [
            inner.clone(mapper)
            for inner in body.ops
            if not inner.has_trait(IsTerminator, value_if_unregistered=False)
        ]
        if can_splice(op, body):
            # The walker revisits the IR after this rewrite, so calls in the clones inline too.
            rewriter.insert(clones, InsertPoint.before(op))
            rewriter.erase(op)
            return
        group = CombineOp(Region(Block(clones)))
        rewriter.replace(op, group)


# --------------------------------------------------------------------------- dead callees


def _symbol_refs(attr: Attribute) -> Iterator[str]:
    """The root names of all symbol references inside ``attr``."""
    stack = [attr]
    while stack:
        current = stack.pop()
        if isinstance(current, SymbolRefAttr):
            yield current.root_reference.data
        elif isinstance(current, ArrayAttr):
            stack.extend(current.data)
        elif isinstance(current, DictionaryAttr):
            stack.extend(current.data.values())
        elif isinstance(current, ParametrizedAttribute):
            stack.extend(current.parameters)


def _referenced_names(module: ModuleOp) -> set[str]:
    """Every symbol name referenced from a property or attribute of an op in ``module``."""
    names: set[str] = set()
    for op in module.walk():
        for attr in (*op.properties.values(), *op.attributes.values()):
            names.update(_symbol_refs(attr))
    return names


def remove_dead_callees(module: ModuleOp, callees: set[str]) -> None:
    """Erase the workloads named in ``callees`` that nothing references any more.

    Any symbol reference counts, so a workload named by a kept call or by a
    ``sched.schedule`` (its ``workload`` property) stays. Repeated to a fixpoint: erasing a
    workload drops the references its body held, which can leave another callee dead.
    """
    while True:
        used = _referenced_names(module)
        dead = [
            op
            for op in module.walk()
            if isinstance(op, WorkloadOp)
            and op.sym_name.data in callees
            and op.sym_name.data not in used
        ]
        if not dead:
            return
        for workload in dead:
            Rewriter.erase_op(workload)


# --------------------------------------------------------------------------- pass


@dataclass(frozen=True)
class WspInlineCallsPass(ModulePass):
    """Inline every ``wsp.call`` (transitively), except calls with a schedule override.

    ``wsp-inline-calls{inline-scheduled=true remove-dead-callees=true}``.
    """

    name = "wsp-inline-calls"

    inline_scheduled: bool = False
    """Inline calls carrying ``schedule(@s)`` too, dropping the override."""

    remove_dead_callees: bool = False
    """Erase called workloads that are no longer referenced once the calls are inlined."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = Symbols()
        check_no_recursion(op, self.inline_scheduled, symbols)
        callees = {
            call.callee.root_reference.data for call in op.walk() if isinstance(call, CallOp)
        }
        # No dead-code elimination: this pass inlines; cleaning up is wsp-canonicalize's job.
        applier = GreedyRewritePatternApplier(
            [InlineCall(symbols, self.inline_scheduled)], dce_enabled=False
        )
        PatternRewriteWalker(applier).rewrite_module(op)
        if self.remove_dead_callees:
            remove_dead_callees(op, callees)
