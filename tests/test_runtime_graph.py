"""Graph construction core: region overlap, TensorMap dependencies, GraphBuilder order, TaskGraph."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pto_wsp.lowering.regions import TensorRegion, progressions_intersect
from pto_wsp.lowering.taskgraph import (
    EDGE_RAW,
    EDGE_STRUCTURAL,
    EDGE_WAR,
    EDGE_WAW,
    KIND_BARRIER,
    POOL_CUBE,
    TaskGraph,
)
from pto_wsp.runtime import tensormap
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.tensormap import TensorMap

# --------------------------------------------------------------------------- helpers


def R(tensor, offsets, sizes, strides=None, access="in"):
    return TensorRegion(tensor, offsets, sizes, strides, access)


def elements(r: TensorRegion) -> set[tuple[int, ...]]:
    """Brute force: every index point of the region."""
    axes = [range(o, o + n * s, s) for o, n, s in zip(r.offsets, r.sizes, r.strides)]
    return set(itertools.product(*axes))


def check_csr(g: TaskGraph) -> None:
    """The CSR arrays, fanin and predecessors agree; edges go forward; no repeats."""
    src, dst = g.edges()
    assert len(src) == len(dst) == g.num_edges == g.fanout_begin[-1]
    assert np.all(src < dst), "edges go from smaller to larger ids"
    assert len(g.edge_set()) == g.num_edges, "no duplicate edges"
    assert np.array_equal(g.fanin, np.bincount(dst, minlength=g.num_nodes))
    for i in range(g.num_nodes):
        row = g.successors(i)
        assert np.all(np.diff(row) > 0)
        assert len(g.predecessors(i)) == g.fanin[i]
        for p in g.predecessors(i).tolist():
            assert i in g.successors(p).tolist()


# --------------------------------------------------------------------------- regions

region_dims = st.tuples(
    st.integers(0, 12), st.integers(0, 5), st.integers(1, 5)
)  # offset, size, stride


@st.composite
def region_pairs(draw):
    rank = draw(st.integers(1, 3))
    a = [draw(region_dims) for _ in range(rank)]
    b = [draw(region_dims) for _ in range(rank)]
    mk = lambda dims: R("T", [d[0] for d in dims], [d[1] for d in dims], [d[2] for d in dims])  # noqa: E731
    return mk(a), mk(b)


@given(region_pairs())
@settings(max_examples=500)
def test_overlap_equals_brute_force(pair):
    a, b = pair
    expected = bool(elements(a) & elements(b))
    assert a.overlaps(b) == expected
    assert b.overlaps(a) == expected


@given(region_pairs())
@settings(max_examples=300)
def test_contains_equals_brute_force(pair):
    a, b = pair
    assert a.contains(b) == (elements(b) <= elements(a))


@given(
    st.integers(-50, 200),
    st.integers(0, 40),
    st.integers(1, 40),
    st.integers(-50, 200),
    st.integers(0, 40),
    st.integers(1, 40),
)
@settings(max_examples=1000)
def test_progressions_intersect_equals_brute_force(o1, n1, s1, o2, n2, s2):
    a = {o1 + k * s1 for k in range(n1)}
    b = {o2 + k * s2 for k in range(n2)}
    assert progressions_intersect(o1, n1, s1, o2, n2, s2) == bool(a & b)


def test_overlap_large_strides_without_enumeration():
    # 10**12 elements per progression: only an exact arithmetic test can answer.
    n = 10**12
    assert not progressions_intersect(0, n, 6, 3, n, 10)  # even vs odd
    assert progressions_intersect(0, n, 6, 4, n, 10)  # 24 = 0 + 4*6 = 4 + 2*10
    assert not progressions_intersect(0, 3, 6, 4, 1, 10)  # 0, 6, 12 vs 4


def test_region_basics():
    even = R("A", [0, 0], [4, 8], [1, 2])
    odd = R("A", [0, 1], [4, 8], [1, 2])
    assert not even.overlaps(odd)
    assert even.overlaps(R("A", [3, 14], [1, 1]))
    assert not even.overlaps(R("B", [0, 0], [4, 8], [1, 2])), "different tensors"
    empty = R("A", [0, 0], [0, 8])
    assert empty.is_empty and not empty.overlaps(even) and not empty.overlaps(empty)
    assert R("A", [0, 0], [4, 16]).contains(even)
    assert even.key == even.with_access("out").key and even != even.with_access("out")
    assert even.num_elements == 32 and even.bounds(1) == (0, 14)
    with pytest.raises(ValueError, match="stride 0"):
        R("A", [0], [1], [0])
    with pytest.raises(ValueError, match="access"):
        R("A", [0], [1], None, "rw")
    with pytest.raises(ValueError, match="ranks"):
        R("A", [0, 0], [1])
    with pytest.raises(ValueError, match="different ranks"):
        R("A", [0], [1]).overlaps(R("A", [0, 0], [1, 1]))


# --------------------------------------------------------------------------- TensorMap


def deps(tm: TensorMap, region: TensorRegion, task: int) -> tuple[list, list, list]:
    raw, waw, war = [], [], []
    tm.access(region, task, raw, waw, war)
    return sorted(set(raw)), sorted(set(waw)), sorted(set(war))


@pytest.mark.parametrize("shapes", [None, {"O": (4, 8)}])
def test_tensormap_raw_war_waw(shapes):
    tm = TensorMap(shapes)
    # Tasks 0-3 write O[b]; 4-7 read O[b]; 8-11 write O[b] again.
    for b in range(4):
        assert deps(tm, R("O", [b, 0], [1, 8], access="out"), b) == ([], [], [])
    for b in range(4):
        assert deps(tm, R("O", [b, 0], [1, 8], access="in"), 4 + b) == ([b], [], [])
    for b in range(4):
        assert deps(tm, R("O", [b, 0], [1, 8], access="out"), 8 + b) == ([], [b], [4 + b])
    assert tm.lookup(R("O", [1, 0], [1, 8])) == ([9], [])
    assert tm.lookup(R("O", [0, 0], [2, 8])) == ([8, 9], [])
    # inout: reads (RAW) and writes (WAR on the readers since).
    deps(tm, R("O", [2, 0], [1, 8]), 12)
    assert deps(tm, R("O", [2, 0], [1, 8], access="inout"), 13) == ([10], [], [12])
    assert len(tm) == 4


def test_tensormap_overlap_path():
    tm = TensorMap({"X": (8, 8)})
    for i in range(8):
        tm.record(R("X", [i, 0], [1, 8], access="out"), i)
    # A block read sees exactly the rows it covers.
    assert deps(tm, R("X", [2, 0], [3, 8]), 8) == ([2, 3, 4], [], [])
    # A column read sees every row.
    assert deps(tm, R("X", [0, 5], [8, 1]), 9) == (list(range(8)), [], [])
    # A write of the whole tensor: WAW on every row, WAR on both readers, and it replaces all.
    assert deps(tm, R("X", [0, 0], [8, 8], access="out"), 10) == ([], list(range(8)), [8, 9])
    assert len(tm) == 1
    assert deps(tm, R("X", [7, 7], [1, 1]), 11) == ([10], [], [])
    # A partial write keeps the bigger entry: a later reader of the rest still sees task 10.
    tm.record(R("X", [0, 0], [1, 8], access="out"), 12)
    assert deps(tm, R("X", [0, 0], [2, 8]), 13) == ([10, 12], [], [])
    assert deps(tm, R("X", [5, 0], [1, 8]), 14) == ([10], [], [])


def test_tensormap_strided_and_empty():
    tm = TensorMap()
    tm.record(R("A", [0], [8], [2], "out"), 0)  # even elements
    assert deps(tm, R("A", [1], [8], [2]), 1) == ([], [], [])  # odd: independent
    assert deps(tm, R("A", [4], [1]), 2) == ([0], [], [])
    assert deps(tm, R("A", [0], [0], None, "out"), 3) == ([], [], [])  # empty: nothing
    assert deps(tm, R("B", [0], [8], [2], "out"), 4) == ([], [], [])  # other tensor
    with pytest.raises(ValueError, match="rank"):
        tm.record(R("A", [0, 0], [1, 1]), 5)


def test_tensormap_gc_before():
    tm = TensorMap()
    for t in range(10):
        tm.record(R("A", [t], [1], access="out"), t)
    tm.record(R("A", [7], [1]), 10)
    tm.record(R("A", [2], [1]), 11)
    assert tm.gc_before(5) == 4  # rows 0, 1, 3, 4 forgotten; row 2 still has reader 11
    assert len(tm) == 6
    assert tm.lookup(R("A", [0], [10])) == ([5, 6, 7, 8, 9], [10, 11])
    assert tm.lookup(R("A", [3], [1])) == ([], [])
    assert tm.gc_before(11) == 5
    assert tm.entries("A") == [(R("A", [2], [1], access="out"), -1, [11])]
    assert tm.gc_before(100) == 1 and len(tm) == 0
    # An emptied tensor is exact-match friendly again.
    tm.record(R("A", [0], [4], access="out"), 200)
    assert deps(tm, R("A", [0], [4]), 201) == ([200], [], [])


@pytest.mark.parametrize("max_grids", [16, 0])
def test_overlap_index_does_not_scan(monkeypatch, max_grids):
    """Counted, not timed: with N row entries, each query tests O(1) candidates exactly."""
    monkeypatch.setattr(tensormap, "MAX_GRIDS", max_grids)
    calls = [0]
    real = TensorRegion.overlaps

    def counting(self, other):
        calls[0] += 1
        return real(self, other)

    monkeypatch.setattr(TensorRegion, "overlaps", counting)
    n = 3000
    tm = TensorMap({"X": (n, 64)})
    # Strided rows (even columns), so that grid hits also need the exact test.
    for i in range(n):
        tm.record(R("X", [i, 0], [1, 32], [1, 2], "out"), i)
    for i in range(n):
        assert deps(tm, R("X", [i, 0], [1, 32], [1, 2]), n + i) == ([i], [], [])
    for i in range(0, n, 10):
        # A block of 10 rows, all columns: the rows it covers and nothing else.
        assert deps(tm, R("X", [i, 0], [10, 64]), 2 * n + i)[0] == list(range(i, i + 10))
    assert calls[0] <= 4 * n  # a scan would make 300 * n


@dataclass
class Access:
    task: int
    region: TensorRegion


access_st = st.builds(
    lambda t, o0, n0, s0, o1, n1, s1, acc: (
        t,
        R(t, [o0, o1], [n0, n1], [s0, s1], acc),
    ),
    st.sampled_from(["P", "Q"]),
    st.integers(0, 6),
    st.integers(0, 4),
    st.integers(1, 3),
    st.integers(0, 6),
    st.integers(0, 4),
    st.integers(1, 3),
    st.sampled_from(["in", "out", "inout"]),
)


@given(st.lists(st.lists(access_st, min_size=1, max_size=3), min_size=1, max_size=14))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_data_edges_sound_and_precise(tasks):
    """Against brute force: every conflicting pair is ordered (possibly transitively), every
    data edge joins a conflicting pair, and the overlap index does not change the edges."""
    graphs = []
    # Every index path: tiling grids, grids and the interval index, the interval index alone;
    # a line that is row-major (shapes known) or the leading dimension.
    for max_grids in (tensormap.MAX_GRIDS, 2, 0):
        for shapes in (None, {"P": (16, 16), "Q": (11, 7)}):
            saved, tensormap.MAX_GRIDS = tensormap.MAX_GRIDS, max_grids
            try:
                b = GraphBuilder(shapes)
                for regions in tasks:
                    b.add_task("k", regions=[r for _, r in regions])
            finally:
                tensormap.MAX_GRIDS = saved
            graphs.append(b.build())
    g = graphs[0]
    for other in graphs[1:]:
        assert g.edge_set() == other.edge_set()
    check_csr(g)

    def conflict(i, j):
        for _, a in tasks[i]:
            for _, c in tasks[j]:
                if (a.writes or c.writes) and a.tensor == c.tensor and elements(a) & elements(c):
                    return True
        return False

    for i, j in itertools.combinations(range(len(tasks)), 2):
        if conflict(i, j):
            assert g.reachable(i, j), (i, j)
    for s, d in g.edge_set():
        assert conflict(s, d), (s, d)


# --------------------------------------------------------------------------- structural order


def for_each(b: GraphBuilder, n: int, body) -> None:
    """docs/tg.md's lowering of wsp.for_each: tg.ordered { for i { body(i); order_point } }."""
    with b.ordered():
        for i in range(n):
            body(i)
            b.order_point()


def sequential(b: GraphBuilder, *children) -> None:
    """docs/tg.md's lowering of wsp.sequential: tg.ordered { A; order_point; B; ... }."""
    with b.ordered():
        for k, child in enumerate(children):
            if k:
                b.order_point()
            child()


def tasks(b: GraphBuilder, kernel: str, n: int) -> list[int]:
    return [b.add_task(kernel, coords={"i": i}) for i in range(n)]


def test_for_each_of_single_tasks_is_a_chain_of_7_edges():
    b = GraphBuilder()
    for_each(b, 8, lambda i: b.add_task("k", coords={"i": i}))
    g = b.build()
    assert (g.num_tasks, g.num_barriers, g.num_edges) == (8, 0, 7)
    assert g.edge_set() == {(i, i + 1) for i in range(7)}
    assert g.edge_counts() == {"structural": 7, "raw": 0, "waw": 0, "war": 0}


@pytest.mark.parametrize(("n", "m"), [(1, 1), (1, 5), (5, 1), (4, 6)])
def test_sequential_n_then_m_has_n_plus_m_edges(n, m):
    b = GraphBuilder()
    A, B = [], []
    sequential(b, lambda: A.extend(tasks(b, "A", n)), lambda: B.extend(tasks(b, "B", m)))
    g = b.build()
    check_csr(g)
    assert g.num_tasks == n + m
    if n == 1:
        assert (g.num_barriers, g.num_edges) == (0, m)  # directly from the single task
    else:
        assert (g.num_barriers, g.num_edges) == (1, n + m)
        barrier = int(np.flatnonzero(g.kind == KIND_BARRIER)[0])
        assert g.fanin[barrier] == n and len(g.successors(barrier)) == m
    for a in A:
        for c in B:
            assert g.reachable(a, c)
    for a, c in itertools.combinations(A, 2):
        assert not g.reachable(a, c)


def test_for_each_of_parallel_iterations_uses_barriers():
    b = GraphBuilder()
    for_each(b, 3, lambda i: tasks(b, f"it{i}", 4))
    g = b.build()
    # Two barriers (none after the last iteration: nothing follows it), 4 + 4 edges each.
    assert (g.num_tasks, g.num_barriers, g.num_edges) == (12, 2, 16)
    ids = g.task_ids()
    for a in ids[:4]:
        for c in ids[4:]:
            assert g.reachable(int(a), int(c))


def test_nested_for_each_inside_sequential():
    b = GraphBuilder()
    A = []
    B = []
    sequential(
        b,
        lambda: tasks(b, "pre", 2),
        lambda: for_each(b, 3, lambda i: A.append(b.add_task("loop", coords={"i": i}))),
        lambda: B.extend(tasks(b, "post", 3)),
    )
    g = b.build()
    check_csr(g)
    # pre(2) -> barrier (2) -> loop0 (1); loop chain (2); only the last iteration stands
    # for the loop at the next ordering point: loop2 -> post (3). No second barrier.
    assert (g.num_tasks, g.num_barriers, g.num_edges) == (8, 1, 2 + 1 + 2 + 3)
    for t in [0, 1, *A]:
        for c in B:
            assert g.reachable(t, c)
    for x, y in itertools.combinations(B, 2):
        assert not g.reachable(x, y)


def test_parallel_chains_stay_independent():
    # parallel_for b { for_each i { task } } inside a sequential with a final task.
    b = GraphBuilder()
    chains = {}

    def par():
        for j in range(3):
            chains[j] = []
            for_each(b, 4, lambda i, j=j: chains[j].append(b.add_task("k", coords={"b": j})))

    last = []
    sequential(b, par, lambda: last.append(b.add_task("end")))
    g = b.build()
    assert (g.num_tasks, g.num_barriers) == (13, 1)
    assert g.num_edges == 3 * 3 + 3 + 1  # chains, their ends into the barrier, barrier -> end
    for j, k in itertools.permutations(range(3), 2):
        for x in chains[j]:
            for y in chains[k]:
                assert not g.reachable(x, y)
    assert all(g.reachable(x, last[0]) for c in chains.values() for x in c)


def test_empty_iterations_and_groups_keep_the_chain():
    b = GraphBuilder()
    made = []
    for_each(b, 6, lambda i: made.append(b.add_task("k")) if i in (0, 3, 5) else None)
    g = b.build()
    assert g.edge_set() == {(made[0], made[1]), (made[1], made[2])}
    # An empty child between two sequential children, and an empty first child.
    b = GraphBuilder()
    sequential(b, lambda: None, lambda: tasks(b, "A", 2), lambda: None, lambda: tasks(b, "B", 2))
    g = b.build()
    assert (g.num_barriers, g.num_edges) == (1, 4)
    # An ordered scope whose iterations are all empty contributes nothing.
    b = GraphBuilder()
    sequential(
        b,
        lambda: tasks(b, "A", 1),
        lambda: for_each(b, 4, lambda i: None),
        lambda: tasks(b, "B", 2),
    )
    g = b.build()
    assert g.edge_set() == {(0, 1), (0, 2)}


def test_scope_errors():
    b = GraphBuilder()
    with pytest.raises(RuntimeError, match="outside"):
        b.order_point()
    with pytest.raises(RuntimeError, match="without"):
        b.exit_ordered()
    b.enter_ordered()
    with pytest.raises(RuntimeError, match="open ordered"):
        b.build()
    with pytest.raises(ValueError, match="earlier node"):
        b.add_task("k", deps=[5])


# A random structured program: ("task",) | ("seq", [children]) | ("for_each", [iterations])
# | ("par", [children]). Its structural order, from docs/semantics.md: x before y iff their
# lowest common construct is seq or for_each and x's child comes before y's.
def programs():
    leaf = st.just(("task",))
    return st.recursive(
        leaf,
        lambda kids: st.tuples(
            st.sampled_from(["seq", "for_each", "par"]), st.lists(kids, min_size=0, max_size=4)
        ),
        max_leaves=24,
    )


def emit(b: GraphBuilder, prog, path, paths) -> None:
    if prog[0] == "task":
        paths[b.add_task("k")] = path
    elif prog[0] == "par":
        for k, child in enumerate(prog[1]):
            emit(b, child, (*path, ("par", k)), paths)
    elif prog[0] == "seq":
        sequential(
            b,
            *[
                (lambda k=k, c=c: emit(b, c, (*path, (f"seq{id(prog)}", k)), paths))
                for k, c in enumerate(prog[1])
            ],
        )
    else:
        for_each(
            b, len(prog[1]), lambda k: emit(b, prog[1][k], (*path, (f"fe{id(prog)}", k)), paths)
        )


def ordered(px, py) -> bool:
    for (cx, kx), (cy, ky) in zip(px, py):
        if cx != cy:
            return False
        if kx != ky:
            return cx != "par" and kx < ky
    return False


@given(programs())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_structural_order_is_exactly_the_semantics(prog):
    b = GraphBuilder()
    paths: dict[int, tuple] = {}
    emit(b, prog, (), paths)
    g = b.build()
    check_csr(g)
    assert sorted(paths) == g.task_ids().tolist()
    for x, y in itertools.combinations(sorted(paths), 2):
        assert g.reachable(x, y) == ordered(paths[x], paths[y]), (x, y)
    # Barriers only where they save edges: fanin >= 2 and at least one successor.
    for i in np.flatnonzero(g.kind == KIND_BARRIER).tolist():
        assert g.fanin[i] >= 2 and len(g.successors(i)) >= 1


# --------------------------------------------------------------------------- data + structure


def test_raw_edge_per_b_none_across_b():
    B = 4
    b = GraphBuilder({"O": (B, 16)})
    writers = [b.add_task("w", regions=[R("O", [i, 0], [1, 16], access="out")]) for i in range(B)]
    readers = [b.add_task("r", regions=[R("O", [i, 0], [1, 16])]) for i in range(B)]
    g = b.build()
    assert g.edge_set() == {(writers[i], readers[i]) for i in range(B)}
    assert g.edge_counts()["raw"] == B
    # WAR and WAW likewise.
    again = [b.add_task("w2", regions=[R("O", [i, 0], [1, 16], access="out")]) for i in range(B)]
    g = b.build()
    assert g.edge_counts() == {"structural": 0, "raw": B, "waw": B, "war": B}
    for i in range(B):
        assert set(g.predecessors(again[i]).tolist()) == {writers[i], readers[i]}


def test_no_duplicate_or_self_edges():
    b = GraphBuilder()
    w = b.add_task("w", regions=[R("A", [0], [4], access="out"), R("B", [0], [4], access="out")])
    with b.ordered():
        b.add_task("x")
        b.order_point()
        # Structural and two data reasons for the same predecessor: one edge, structural.
        t = b.add_task(
            "r",
            regions=[R("A", [0], [4]), R("B", [0], [4]), R("A", [0], [4], access="out")],
            deps=[w],
        )
    g = b.build()
    check_csr(g)
    assert g.predecessors(t).tolist() == [w, 1]
    assert g.edge_kind.tolist() == [EDGE_STRUCTURAL, EDGE_STRUCTURAL]
    # A task writing what it reads has no edge to itself.
    u = b.add_task("rw", regions=[R("C", [0], [2]), R("C", [0], [2], access="out")])
    assert b.build().fanin[u] == 0


def test_task_fields_and_text():
    b = GraphBuilder()
    t = b.add_task(
        "attn",
        args=(0, 1, 512),
        regions=[R("Q", [0, 1, 0, 0], [1, 1, 64, 64], access="inout")],
        coords={"b": 0, "h": 1},
        pool="cube",
        target=3,
        stream=1,
        priority=7,
        domain="aicore",
    )
    u = b.add_task("attn", coords=(("b", 1), ("h", 0)), pool=POOL_CUBE)
    v = b.add_task("other", regions=[R("Q", [0, 0, 0, 0], [1, 2, 64, 64])])
    g = b.build()
    assert (g.kernel.tolist(), g.kernels) == ([0, 0, 1], ["attn", "other"])
    assert g.pool.tolist() == [1, 1, 255] and g.target.tolist() == [3, -1, -1]
    assert g.stream[t] == 1 and g.priority[t] == 7 and g.domain[t] == 1
    assert g.coords[u] == (("b", 1), ("h", 0)) and g.args[t] == (0, 1, 512)
    assert g.kernel_name(v) == "other" and b.num_tasks == 3
    assert g.edge_set() == {(t, v)} and g.edge_kind.tolist() == [EDGE_RAW]
    assert g.node_text(t) == (
        "tg.node 0 task @attn args(0, 1, 512) regions(%Q[0, 1, 0, 0][1, 1, 64, 64][1, 1, 1, 1] "
        "inout) at(b = 0, h = 1) domain(aicore) pool(cube) target(3) stream(1) priority(7) "
        "fanin(0) fanout(2)"
    )
    assert g.to_text().count("\n") == 3
    dot = g.to_dot()
    assert dot.startswith('digraph "tg" {') and 'n0 -> n2 [label="raw"];' in dot
    assert '"0: attn(b=0, h=1)"' in dot


def test_barrier_text_and_dot():
    b = GraphBuilder()
    sequential(b, lambda: tasks(b, "A", 2), lambda: tasks(b, "B", 2))
    g = b.build()
    assert g.node_text(2) == "tg.node 2 barrier fanin(2) fanout(3, 4)"
    assert "n2 [shape=diamond" in g.to_dot() and "n2 -> n3 [style=dashed];" in g.to_dot()
    assert g.reachable(0, 4) and not g.reachable(4, 0) and not g.reachable(0, 1)


def test_without_data_inference():
    b = GraphBuilder(infer_data_deps=False)
    b.add_task("w", regions=[R("A", [0], [4], access="out")])
    b.add_task("r", regions=[R("A", [0], [4])], deps=[0])
    b.add_task("r", regions=[R("A", [0], [4])])
    g = b.build()
    assert g.edge_set() == {(0, 1)}
    assert GraphBuilder().build().num_nodes == 0


def test_llama_like_stages_exact_counts():
    """Per-(b, h) tasks in three stages chained by RAW on their tiles, no structure."""
    B, H = 2, 4
    b = GraphBuilder({"Q": (B, H, 8), "S": (B, H, 8), "O": (B, H, 8), "Y": (B, 8)})
    for i in range(B):
        for h in range(H):
            b.add_task(
                "qk",
                regions=[R("Q", [i, h, 0], [1, 1, 8]), R("S", [i, h, 0], [1, 1, 8], access="out")],
            )
    for i in range(B):
        for h in range(H):
            b.add_task(
                "pv",
                regions=[R("S", [i, h, 0], [1, 1, 8]), R("O", [i, h, 0], [1, 1, 8], access="out")],
            )
    for i in range(B):
        # The projection reads all heads of row b.
        b.add_task(
            "proj", regions=[R("O", [i, 0, 0], [1, H, 8]), R("Y", [i, 0], [1, 8], access="out")]
        )
    g = b.build()
    assert g.num_tasks == 2 * B * H + B
    assert g.edge_counts() == {"structural": 0, "raw": B * H + B * H, "waw": 0, "war": 0}
    for i in range(B):
        proj = 2 * B * H + i
        assert g.predecessors(proj).tolist() == [B * H + i * H + h for h in range(H)]
    assert EDGE_WAW != EDGE_WAR


def test_a_dropped_builder_leaves_no_cyclic_garbage():
    """TensorMap entries name their grid by key: a builder (and its TensorMap) dropped after
    a run is freed by reference counting, not left for the cyclic collector."""
    import gc

    GraphBuilder()  # the process's first one sets the allocator up (ctypes objects)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        b = GraphBuilder({"A": (8, 8)})
        for i in range(8):
            b.add_task("w", (), (R("A", (i, 0), (1, 8), access="out"),))
            b.add_task("r", (), (R("A", (i, 0), (1, 4), access="in"),))
        b.add_task("all", (), (R("A", (0, 0), (8, 8), access="inout"),))
        assert b.build().num_edges == 8 + 8 + 8
        del b
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
