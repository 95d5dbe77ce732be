"""wsp-canonicalize and wsp-inline-calls applied from Python: structure, options, errors.

The property test builds random nests of combine / sequential / constant cond / task and
checks that canonicalization keeps the multiset of tasks and the "must run after" relation
(docs/semantics.md, "Order"): X runs before Y iff some sequential has X in an earlier child
and Y in a later one.
"""

from __future__ import annotations

import re
from collections import Counter
from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, IntegerAttr, ModuleOp, i1
from xdsl.dialects.memref import MemRef
from xdsl.ir import Block, Operation, Region
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, PassFailedException

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.wsp import (
    WSP,
    CallOp,
    CombineOp,
    CondOp,
    DenseOp,
    KernelOp,
    ParallelForOp,
    SequentialOp,
    TaskOp,
    ViewOp,
    WorkloadOp,
)
from pto_wsp.passes.wsp_canonicalize import (
    COMBINED_BODIES,
    FlattenNestedSequential,
    WspCanonicalizePass,
    constant_int,
    may_create_tasks,
)
from pto_wsp.passes.wsp_inline_calls import WspInlineCallsPass


def make_ctx() -> Context:
    ctx = Context()
    for dialect in (Builtin, Arith, MemRef, WSP, CSP, SCHED):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str) -> ModuleOp:
    module = Parser(make_ctx(), text).parse_module()
    module.verify()
    return module


def text(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def canonicalize(module: ModuleOp) -> ModuleOp:
    WspCanonicalizePass().apply(make_ctx(), module)
    module.verify()
    return module


def inline(module: ModuleOp, **options: bool) -> ModuleOp:
    WspInlineCallsPass(**options).apply(make_ctx(), module)
    module.verify()
    return module


def workload(module: ModuleOp, name: str) -> WorkloadOp:
    for op in module.ops:
        if isinstance(op, WorkloadOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def count(op: Operation, kind: type[Operation]) -> int:
    return sum(isinstance(o, kind) for o in op.walk())


def body_ops(op: Operation) -> list[str]:
    """The names of the ops directly in ``op``'s first block, terminator left out."""
    return [o.name for o in op.regions[0].block.ops if o.name != "wsp.yield"]


def kernels(op: Operation) -> list[str]:
    """Kernel names of the tasks under ``op``, in program order."""
    return [o.kernel.root_reference.data for o in op.walk() if isinstance(o, TaskOp)]


KERNELS = "\n".join(f"wsp.kernel @{k}() unit(vector)" for k in "abcd")

# --------------------------------------------------------------------------- order model


def tasks_and_order(ops: list[Operation]) -> tuple[Counter[str], set[tuple[str, str]]]:
    """Tasks created by a combined list of ops, and the pairs (X, Y) with X before Y.

    A cond must have a constant predicate: only its taken branch creates tasks.
    """
    tasks: Counter[str] = Counter()
    order: set[tuple[str, str]] = set()
    for op in ops:
        sub_tasks, sub_order = _tasks_and_order_of(op)
        tasks += sub_tasks
        order |= sub_order
    return tasks, order


def _tasks_and_order_of(op: Operation) -> tuple[Counter[str], set[tuple[str, str]]]:
    if isinstance(op, TaskOp):
        return Counter([op.kernel.root_reference.data]), set()
    if isinstance(op, CombineOp):
        return tasks_and_order(list(op.body.block.ops))
    if isinstance(op, CondOp):
        value = constant_int(op.predicate)
        assert value is not None, "the model only knows constant conds"
        taken = op.then_region if value else op.else_region
        return tasks_and_order(list(taken.block.ops))
    if isinstance(op, SequentialOp):
        children = [_tasks_and_order_of(c) for c in op.body.block.ops if may_create_tasks(c)]
        tasks: Counter[str] = Counter()
        order: set[tuple[str, str]] = set()
        for k, (sub_tasks, sub_order) in enumerate(children):
            tasks += sub_tasks
            order |= sub_order
            for later_tasks, _ in children[k + 1 :]:
                order |= {(x, y) for x in sub_tasks for y in later_tasks}
        return tasks, order
    return Counter(), set()


# --------------------------------------------------------------------------- canonicalize


def test_fold_constant_cond_keeps_taken_branch_and_drops_constant() -> None:
    module = parse(
        KERNELS
        + """
        wsp.workload @w() {
          %t = arith.constant true
          %f = arith.constant false
          wsp.cond %t { wsp.task @a() resources() } else { wsp.task @b() resources() }
          wsp.cond %f { wsp.task @c() resources() } else { wsp.task @d() resources() }
        }
        """
    )
    w = workload(canonicalize(module), "w")
    assert count(w, CondOp) == 0
    assert count(w, arith.ConstantOp) == 0
    assert kernels(w) == ["a", "d"]


def test_fold_cond_in_sequential_wraps_several_children_in_combine() -> None:
    module = parse(
        KERNELS
        + """
        wsp.workload @w() {
          %t = arith.constant true
          wsp.sequential {
            wsp.task @a() resources()
            wsp.cond %t { wsp.task @b() resources()  wsp.task @c() resources() }
            wsp.task @d() resources()
          }
        }
        """
    )
    w = workload(canonicalize(module), "w")
    (seq,) = [o for o in w.body.block.ops if isinstance(o, SequentialOp)]
    assert body_ops(seq) == ["wsp.task", "wsp.combine", "wsp.task"]
    assert kernels(seq) == ["a", "b", "c", "d"]


def test_runtime_cond_is_kept() -> None:
    module = parse(
        KERNELS + "wsp.workload @w(%p: i1) { wsp.cond %p { wsp.task @a() resources() } }"
    )
    before = text(module)
    assert text(canonicalize(module)) == before


def test_empty_loops_and_groups_are_erased_with_their_dead_axes_and_views() -> None:
    module = parse(
        """
        wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
        wsp.workload @w(%O: memref<8x4xf32>, %p: i1) {
          %c0 = arith.constant 0 : index
          %z = wsp.dense 0
          %dz = wsp.dense_dyn %c0
          %v = wsp.view %O[%c0] : memref<8x4xf32> -> memref<4xf32>
          wsp.parallel_for %i in %z : !wsp.dense<0> {
            wsp.task @k(%c0 : index) resources(%v : memref<4xf32>)
          }
          wsp.for_each %i in %dz : !wsp.dense_dyn {
            wsp.task @k(%i : index) resources(%v : memref<4xf32>)
          }
          wsp.combine {}
          wsp.sequential {}
          wsp.cond %p {} else {}
        }
        """
    )
    w = workload(canonicalize(module), "w")
    assert body_ops(w) == []


def test_combine_of_two_in_sequential_stays_single_child_goes() -> None:
    module = parse(
        KERNELS
        + """
        wsp.workload @w() {
          wsp.sequential {
            wsp.combine { wsp.task @a() resources()  wsp.task @b() resources() }
            wsp.combine { wsp.task @c() resources() }
            wsp.sequential { wsp.task @d() resources()  wsp.task @d() resources() }
          }
          wsp.combine { wsp.combine { wsp.task @a() resources() } }
        }
        """
    )
    w = workload(canonicalize(module), "w")
    assert body_ops(w) == ["wsp.sequential", "wsp.task"]
    seq = w.body.block.first_op
    assert isinstance(seq, SequentialOp)
    assert body_ops(seq) == ["wsp.combine", "wsp.task", "wsp.task", "wsp.task"]
    assert kernels(seq) == ["a", "b", "c", "d", "d"]


def test_single_pattern_only_does_its_rewrite() -> None:
    """FlattenNestedSequential alone leaves combines and single-child sequentials alone."""
    module = parse(
        KERNELS
        + """
        wsp.workload @w() {
          wsp.combine { wsp.task @a() resources() }
          wsp.sequential {
            wsp.task @a() resources()
            wsp.sequential { wsp.task @b() resources()  wsp.task @c() resources() }
          }
        }
        """
    )
    applier = GreedyRewritePatternApplier([FlattenNestedSequential()])
    PatternRewriteWalker(applier).rewrite_module(module)
    module.verify()
    w = workload(module, "w")
    assert body_ops(w) == ["wsp.combine", "wsp.sequential"]
    assert count(w, SequentialOp) == 1
    assert kernels(w) == ["a", "a", "b", "c"]


def test_canonicalize_is_idempotent_on_examples_shape() -> None:
    module = parse(
        KERNELS
        + """
        wsp.workload @w(%n: index) {
          %d = wsp.dense_dyn %n
          wsp.parallel_for %i in %d : !wsp.dense_dyn {
            wsp.sequential {
              wsp.combine { wsp.task @a() resources()  wsp.task @b() resources() }
              wsp.task @c() resources()
            }
          }
        }
        """
    )
    once = text(canonicalize(module))
    assert text(canonicalize(module)) == once
    assert count(module, ParallelForOp) == 1


# --------------------------------------------------------------------------- property

# A small grammar: ("task",) | ("combine", [t]) | ("seq", [t]) | ("cond", bool, [t], [t]).
trees = st.recursive(
    st.just(("task",)),
    lambda kids: st.one_of(
        st.tuples(st.just("combine"), st.lists(kids, max_size=4)),
        st.tuples(st.just("seq"), st.lists(kids, max_size=4)),
        st.tuples(
            st.just("cond"), st.booleans(), st.lists(kids, max_size=3), st.lists(kids, max_size=3)
        ),
    ),
    max_leaves=24,
)


class _Builder:
    """Builds a module from grammar trees; every task gets its own kernel @t<n>."""

    def __init__(self) -> None:
        self.n_tasks = 0
        self.true = arith.ConstantOp(IntegerAttr(1, i1))
        self.false = arith.ConstantOp(IntegerAttr(0, i1))

    def ops(self, nodes: list[tuple]) -> list[Operation]:
        return [self.op(node) for node in nodes]

    def op(self, node: tuple) -> Operation:
        kind = node[0]
        if kind == "task":
            self.n_tasks += 1
            return TaskOp(f"t{self.n_tasks - 1}", [], [])
        if kind == "combine":
            return CombineOp(Region(Block(self.ops(node[1]))))
        if kind == "seq":
            return SequentialOp(Region(Block(self.ops(node[1]))))
        pred = self.true if node[1] else self.false
        return CondOp(pred, Region(Block(self.ops(node[2]))), Region(Block(self.ops(node[3]))))

    def module(self, nodes: list[tuple]) -> ModuleOp:
        body = self.ops(nodes)
        w = WorkloadOp("w", [], [])
        w.body.block.insert_ops_before([self.true, self.false, *body], w.body.block.first_op)
        ks = [KernelOp(f"t{i}", [], [], []) for i in range(self.n_tasks)]
        return ModuleOp([*ks, w])


def _assert_canonical(w: WorkloadOp) -> None:
    for op in w.walk():
        parent = op.parent_op()
        if isinstance(op, CondOp):
            raise AssertionError("a constant cond survived")
        if isinstance(op, CombineOp | SequentialOp):
            children = [c for c in op.body.block.ops if may_create_tasks(c)]
            assert children, f"empty {op.name} survived"
            if isinstance(op, CombineOp):
                assert isinstance(parent, SequentialOp), "combine not flattened into its block"
                assert len(children) > 1, "single-child combine in a sequential survived"
            else:
                assert not isinstance(parent, SequentialOp), "nested sequential survived"
                assert len(children) > 1, "single-child sequential survived"
                assert parent is not None and parent.name in COMBINED_BODIES


@settings(max_examples=300, deadline=None)
@given(st.lists(trees, max_size=4))
def test_canonicalize_keeps_tasks_and_order(nodes: list[tuple]) -> None:
    module = _Builder().module(nodes)
    module.verify()
    before = tasks_and_order(list(workload(module, "w").body.block.ops))
    canonicalize(module)
    w = workload(module, "w")
    after = tasks_and_order(list(w.body.block.ops))
    assert after[0] == before[0]
    assert after[1] == before[1]
    _assert_canonical(w)
    assert count(w, arith.ConstantOp) == 0
    once = text(module)
    assert text(canonicalize(module)) == once


# --------------------------------------------------------------------------- inline calls

CALLS = """
wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
wsp.kernel @m() unit(vector)
wsp.workload @main(%n: index, %O: memref<8x4xf32>) {
  %d = wsp.dense 8
  wsp.parallel_for %b in %d : !wsp.dense<8> {
    wsp.call @mid(%b, %O : index, memref<8x4xf32>)
  }
  wsp.sequential {
    wsp.call @leaf(%n, %O : index, memref<8x4xf32>)
    wsp.call @leaf(%n, %O : index, memref<8x4xf32>) schedule(@s)
  }
}
wsp.workload @mid(%i: index, %T: memref<8x4xf32>) level(npu) {
  wsp.task @m() resources()
  wsp.call @leaf(%i, %T : index, memref<8x4xf32>)
}
wsp.workload @leaf(%i: index, %T: memref<8x4xf32>) level(npu) {
  %v = wsp.view %T[%i] : memref<8x4xf32> -> memref<4xf32>
  wsp.task @k(%i : index) resources(%v : memref<4xf32>)
}
sched.schedule @s for @leaf {
}
"""


def test_inline_binds_arguments_and_inlines_transitively() -> None:
    module = inline(parse(CALLS))
    main = workload(module, "main")
    loop = next(o for o in main.walk() if isinstance(o, ParallelForOp))
    assert body_ops(loop) == ["wsp.task", "wsp.view", "wsp.task"]
    view = next(o for o in loop.walk() if isinstance(o, ViewOp))
    assert view.source == main.body.block.args[1]
    assert view.dynamic[0] == loop.body.block.args[0]
    # The scheduled call stays; the other one is spliced (one child) into the sequential.
    seq = next(o for o in main.walk() if isinstance(o, SequentialOp))
    assert body_ops(seq) == ["wsp.view", "wsp.task", "wsp.call"]
    assert count(main, CallOp) == 1
    assert count(workload(module, "mid"), CallOp) == 0


def test_inline_scheduled_option_and_dead_callees() -> None:
    module = inline(parse(CALLS), inline_scheduled=True, remove_dead_callees=True)
    names = [o.sym_name.data for o in module.ops if isinstance(o, WorkloadOp)]
    # @leaf stays: the schedule @s still names it.
    assert names == ["main", "leaf"]
    assert count(workload(module, "main"), CallOp) == 0


def test_remove_dead_callees_keeps_uncalled_entry_points() -> None:
    module = parse(
        """
        wsp.kernel @m() unit(vector)
        wsp.workload @entry() { wsp.call @f() }
        wsp.workload @other() {}
        wsp.workload @f() level(npu) { wsp.task @m() resources() }
        """
    )
    inline(module, remove_dead_callees=True)
    assert [o.sym_name.data for o in module.ops if isinstance(o, WorkloadOp)] == [
        "entry",
        "other",
    ]


def test_inline_into_sequential_wraps_body_of_several_children() -> None:
    module = parse(
        KERNELS
        + """
        wsp.workload @main() {
          wsp.sequential { wsp.call @two()  wsp.task @c() resources() }
        }
        wsp.workload @two() level(npu) { wsp.task @a() resources()  wsp.task @b() resources() }
        """
    )
    seq = next(o for o in inline(module).walk() if isinstance(o, SequentialOp))
    assert body_ops(seq) == ["wsp.combine", "wsp.task"]
    tasks, order = tasks_and_order([seq])
    assert tasks == Counter("abc")
    assert order == {("a", "c"), ("b", "c")}


def test_options_parse_from_pipeline_text() -> None:
    available = {"wsp-inline-calls": lambda: WspInlineCallsPass}
    spec = "wsp-inline-calls{inline-scheduled=true remove-dead-callees=true}"
    (p,) = PassPipeline.parse_spec(available, spec).passes
    assert p == WspInlineCallsPass(inline_scheduled=True, remove_dead_callees=True)
    with pytest.raises(ValueError, match="bogus"):
        PassPipeline.parse_spec(available, "wsp-inline-calls{bogus=true}")


def _chain(names: list[str], close: bool) -> str:
    lines = []
    for k, name in enumerate(names):
        nxt = names[k + 1] if k + 1 < len(names) else (names[0] if close else None)
        call = f"wsp.call @{nxt}()" if nxt else ""
        lines.append(f"wsp.workload @{name}() {{ {call} }}")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("names", "cycle"),
    [
        (["a"], "@a -> @a"),
        (["a", "b"], "@a -> @b -> @a"),
        (["x", "y", "z"], "@x -> @y -> @z -> @x"),
    ],
)
def test_recursion_names_the_cycle(names: list[str], cycle: str) -> None:
    module = parse("wsp.workload @main() { wsp.call @" + names[0] + "() }\n" + _chain(names, True))
    # The message ends with the cycle; pytest also matches the notes (the IR) after it.
    expected = re.escape(f"recursive calls cannot be inlined: {cycle}") + "\n"
    with pytest.raises(PassFailedException, match=expected):
        WspInlineCallsPass().apply(make_ctx(), module)


def test_long_cycle_is_no_recursion_error() -> None:
    """Longer than Python's recursion limit: the search must not recurse."""
    names = [f"w{i}" for i in range(1100)]
    module = parse(_chain(names, True))
    with pytest.raises(DiagnosticException, match=r"@w0 -> @w1 -> .* -> @w1099 -> @w0\n"):
        WspInlineCallsPass().apply(make_ctx(), module)


def test_long_chain_inlines_completely() -> None:
    names = [f"w{i}" for i in range(100)]
    module = parse("wsp.kernel @m() unit(vector)\n" + _chain(names, False))
    leaf = workload(module, "w99")
    leaf.body.block.insert_op_before(TaskOp("m", [], []), leaf.body.block.first_op)
    inline(module, remove_dead_callees=True)
    (w0,) = [o for o in module.ops if isinstance(o, WorkloadOp)]
    assert body_ops(w0) == ["wsp.task"]


def test_unknown_callee_fails_the_pass() -> None:
    module = ModuleOp([WorkloadOp("main", [], [])])
    main = workload(module, "main")
    main.body.block.insert_op_before(CallOp("missing", []), main.body.block.first_op)
    with pytest.raises(PassFailedException, match="unknown workload @missing"):
        WspInlineCallsPass().apply(make_ctx(), module)


def test_dense_left_unused_by_inlining_is_not_erased_by_inline_pass() -> None:
    """Cleaning up is wsp-canonicalize's job: wsp-inline-calls does no dead-code elimination."""
    module = parse(
        """
        wsp.workload @main() { wsp.call @f() }
        wsp.workload @f() level(npu) { %d = wsp.dense 4 }
        """
    )
    inline(module)
    assert count(workload(module, "main"), DenseOp) == 1
    canonicalize(module)
    assert count(workload(module, "main"), DenseOp) == 0
