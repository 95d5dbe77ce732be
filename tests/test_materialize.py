"""tg-materialize: exact task counts and edges for known workloads (issue 4's numbers).

Each workload is written in the wsp dialect, lowered with wsp-to-tg and materialized with
bound values; the graph must hold exactly the tasks and edges the semantics say.
"""

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.tg import TG, GraphOp, ProgramOp
from pto_wsp.dialects.wsp import WSP
from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.passes.wsp_to_tg import WspToTgPass
from pto_wsp.runtime.materialize import TgMaterializePass, materialize, parse_bindings

KERNELS = """
wsp.kernel @r(i: index, x: in memref<8xf32>) unit(vector)
wsp.kernel @w(i: index, x: out memref<8xf32>) unit(vector)
wsp.kernel @rw(i: index, j: index, x: inout memref<8xf32>) unit(vector)
wsp.kernel @e(b: index, e: index, x: in memref<8xf32>, y: out memref<8xf32>) unit(cube)
"""


def context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    return ctx


def graph_of(workload: str, **bindings) -> TaskGraph:
    ctx = context()
    module = Parser(ctx, KERNELS + workload).parse_module()
    WspToTgPass().apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return materialize(module, program, bindings)


def tasks_by_kernel(graph: TaskGraph, kernel: str) -> list[int]:
    return [int(i) for i in graph.task_ids() if graph.kernel_name(int(i)) == kernel]


def coords(graph: TaskGraph, i: int) -> dict[str, int]:
    return dict(graph.coords[i])


def test_moe_over_a_given_csr_creates_exactly_nnz_tasks_with_the_right_pairs():
    indptr = np.array([0, 2, 5, 7, 10])
    indices = np.array([1, 3, 0, 2, 4, 1, 5, 0, 3, 7])
    graph = graph_of(
        """
        wsp.workload @moe(%n: index, %indptr: memref<?xindex>, %indices: memref<?xindex>, %X: memref<?x8xf32>, %Y: memref<?x8x8xf32>) {
          %batch = wsp.dense_dyn %n
          %route = wsp.sparse %n, %indptr, %indices : memref<?xindex>, memref<?xindex>
          wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
            wsp.select %e in %route[%b] named("e") : !wsp.sparse {
              %x = wsp.view %X[%b] : memref<?x8xf32> -> memref<8xf32>
              %y = wsp.view %Y[%b, %e] : memref<?x8x8xf32> -> memref<8xf32>
              wsp.task @e(%b, %e : index, index) resources(%x, %y : memref<8xf32>, memref<8xf32>)
            }
          }
        }
        """,
        n=4,
        indptr=indptr,
        indices=indices,
    )
    pairs = [(coords(graph, i)["b"], coords(graph, i)["e"]) for i in graph.task_ids()]
    expected = [(b, int(e)) for b in range(4) for e in indices[indptr[b] : indptr[b + 1]]]
    assert pairs == expected
    assert graph.num_tasks == 10
    assert graph.num_edges == 0  # reads of X[b] and writes of distinct Y[b, e]: no order


def test_for_each_over_8_has_exactly_7_structural_edges():
    graph = graph_of(
        """
        wsp.workload @chain(%X: memref<8x8xf32>) {
          %ax = wsp.dense 8
          wsp.for_each %i in %ax named("i") : !wsp.dense<8> {
            %x = wsp.view %X[%i] : memref<8x8xf32> -> memref<8xf32>
            wsp.task @w(%i : index) resources(%x : memref<8xf32>)
          }
        }
        """
    )
    assert graph.num_tasks == 8
    assert graph.num_barriers == 0
    assert sorted(graph.edge_set()) == [(i, i + 1) for i in range(7)]


def test_sequential_orders_every_task_of_b_after_every_task_of_a():
    graph = graph_of(
        """
        wsp.workload @seq(%n: index, %X: memref<?x8xf32>, %Y: memref<?x8xf32>) {
          %ax = wsp.dense_dyn %n
          wsp.sequential {
            wsp.parallel_for %i in %ax named("i") : !wsp.dense_dyn {
              %x = wsp.view %X[%i] : memref<?x8xf32> -> memref<8xf32>
              wsp.task @w(%i : index) resources(%x : memref<8xf32>)
            }
            wsp.parallel_for %i in %ax named("i") : !wsp.dense_dyn {
              %y = wsp.view %Y[%i] : memref<?x8xf32> -> memref<8xf32>
              wsp.task @w(%i : index) resources(%y : memref<8xf32>)
            }
          }
        }
        """,
        n=5,
    )
    first, second = graph.task_ids()[:5], graph.task_ids()[5:]
    assert all(graph.reachable(int(a), int(b)) for a in first for b in second)
    assert not any(graph.reachable(int(b), int(a)) for a in first for b in second)
    assert graph.num_barriers == 1 and graph.num_edges == 10  # N + M through one barrier


DATA = """
wsp.workload @data(%n: index, %O: memref<?x8xf32>) {{
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {{
    %o = wsp.view %O[%b] : memref<?x8xf32> -> memref<8xf32>
    wsp.task @{first}(%b : index) resources(%o : memref<8xf32>)
  }}
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {{
    %o = wsp.view %O[%b] : memref<?x8xf32> -> memref<8xf32>
    wsp.task @{second}(%b : index) resources(%o : memref<8xf32>)
  }}
}}
"""


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        ("w", "r", "read-after-write"),
        ("r", "w", "write-after-read"),
        ("w", "w", "write-after-write"),
    ],
)
def test_data_edges_per_b_and_none_across_b(first: str, second: str, kind: str):
    graph = graph_of(DATA.format(first=first, second=second), n=4)
    # Tasks 0..3 touch O[0..3], tasks 4..7 touch O[0..3] again: one edge per b, no other.
    assert sorted(graph.edge_set()) == [(b, b + 4) for b in range(4)], kind


def test_reads_alone_are_not_ordered():
    graph = graph_of(DATA.format(first="r", second="r"), n=4)
    assert graph.num_edges == 0


def test_ragged_with_lengths_3_0_2_creates_5_tasks():
    graph = graph_of(
        """
        wsp.workload @rag(%n: index, %lengths: memref<?xi64>, %X: memref<8xf32>) {
          %ax = wsp.ragged %n, %lengths : memref<?xi64>
          wsp.parallel_for %r, %j in %ax named("r", "j") : !wsp.ragged {
            wsp.task @rw(%r, %j : index, index) resources(%X : memref<8xf32>)
          }
        }
        """,
        n=3,
        lengths=np.array([3, 0, 2]),
    )
    assert graph.num_tasks == 5
    assert [(coords(graph, i)["r"], coords(graph, i)["j"]) for i in graph.task_ids()] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (2, 0),
        (2, 1),
    ]
    # All five write X: a chain of write-after-write edges.
    assert sorted(graph.edge_set()) == [(i, i + 1) for i in range(4)]


def test_runtime_cond_creates_only_the_taken_branch():
    graph = graph_of(
        """
        wsp.workload @tiered(%n: index, %lens: memref<?xindex>, %X: memref<?x8xf32>) {
          %ax = wsp.dense_dyn %n
          wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
            %len = memref.load %lens[%b] : memref<?xindex>
            %c = arith.constant 100 : index
            %short = arith.cmpi ule, %len, %c : index
            %x = wsp.view %X[%b] : memref<?x8xf32> -> memref<8xf32>
            wsp.cond %short {
              wsp.task @r(%b : index) resources(%x : memref<8xf32>)
            } else {
              wsp.task @w(%b : index) resources(%x : memref<8xf32>)
            }
          }
        }
        """,
        n=4,
        lens=np.array([10, 200, 100, 101]),
    )
    assert [graph.kernel_name(int(i)) for i in graph.task_ids()] == ["r", "w", "r", "w"]


def test_pass_replaces_programs_by_graphs():
    ctx = context()
    text = KERNELS + DATA.format(first="w", second="r")
    module = Parser(ctx, text).parse_module()
    WspToTgPass().apply(ctx, module)
    TgMaterializePass(bind="n=2").apply(ctx, module)
    module.verify()
    (graph,) = [op for op in module.ops if isinstance(op, GraphOp)]
    assert len(graph.nodes()) == 4


def test_missing_binding_is_a_clear_error():
    ctx = context()
    module = Parser(ctx, KERNELS + DATA.format(first="w", second="r")).parse_module()
    WspToTgPass().apply(ctx, module)
    with pytest.raises(PassFailedException, match=r'needs a value for n \(bind="n=\.\.\."\)'):
        TgMaterializePass().apply(ctx, module)


def test_bindings_syntax():
    parsed = parse_bindings("n=4, lens=[3, 0, 2]")
    assert parsed["n"] == 4 and parsed["lens"].tolist() == [3, 0, 2]
    with pytest.raises(PassFailedException, match="expected name=value"):
        parse_bindings("n")
    with pytest.raises(PassFailedException, match="is not an integer"):
        parse_bindings("n=x")
