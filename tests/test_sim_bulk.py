"""The batch path's compiled kernels (runtime/bulk_kernels.py) equal their numpy twins, and
small programs never load numba. The graphs themselves are compared with the per-task path in
tests/test_sim_batchgen.py and tests/test_sim_batchchain.py."""

from __future__ import annotations

import numpy as np
import pytest


def _compiled_and_numpy(fn, *args):
    """``fn(*args)`` with the compiled kernels and with their numpy twins."""
    from pto_wsp.runtime import bulk_kernels

    saved = bulk_kernels.COMPILED
    try:
        bulk_kernels.COMPILED = True
        a = fn(*args)
        bulk_kernels.COMPILED = False
        b = fn(*args)
    finally:
        bulk_kernels.COMPILED = saved
    return a, b


@pytest.mark.parametrize("seed", range(6))
def test_compiled_kernels_equal_their_numpy_twins(seed):
    from pto_wsp.runtime import bulk_kernels
    from pto_wsp.runtime.bulk import _Tiling

    if not bulk_kernels.load():
        pytest.skip("numba is not installed")

    rng = np.random.default_rng(seed)
    tid0, n = int(rng.integers(0, 50)), int(rng.integers(1, 40))
    e = int(rng.integers(0, 400))
    dst = rng.integers(tid0, tid0 + n, size=e)
    src = rng.integers(0, tid0 + n, size=e)
    kind = rng.integers(1, 4, size=e).astype(np.uint8)
    skip = int(src[0]) if e and seed % 2 else -1
    E = np.stack([src, dst, kind]).astype(np.int64)  # edges: rows src, dst, kind
    a, b = _compiled_and_numpy(bulk_kernels.merge_edges, E, tid0, n, skip)
    assert a.tolist() == b.tolist() and a.dtype == b.dtype == np.int64
    assert (a[0] != a[1]).all()  # never a self-edge
    if skip >= 0:  # with the structural edges from the frontier's node, first per task
        a, b = _compiled_and_numpy(bulk_kernels.merge_edges, E, tid0, n, skip, skip)
        assert a.tolist() == b.tolist()
        kept = (src != skip) & (src != dst)
        pairs = set(zip(src[kept].tolist(), dst[kept].tolist()))
        assert a.shape[1] == n + len(pairs) and (a[2] == 0).sum() == n
    # Ordered chains: the structural edges merged into the merged data edges.
    D = bulk_kernels.merge_edges(E, tid0, n, -1)
    length = int(rng.integers(1, n + 1))
    head = int(rng.integers(-1, tid0)) if tid0 else -1
    for data in (D, None):
        a, b = _compiled_and_numpy(bulk_kernels.chain_edges, data, tid0, n, length, head)
        assert a.tolist() == b.tolist() and a.dtype == b.dtype == np.int64
        pairs = list(zip(a[0].tolist(), a[1].tolist()))
        assert pairs == sorted(pairs, key=lambda p: (p[1], p[0])) and len(set(pairs)) == len(pairs)
        for i in range(n):  # each task's structural source, kind 0
            s0 = head if i % length == 0 else tid0 + i - 1
            if s0 >= 0:
                assert a[2][pairs.index((s0, tid0 + i))] == 0
        if data is not None:  # every data pair is there
            assert set(zip(D[0].tolist(), D[1].tolist())) <= set(pairs)
    nodes = tid0 + n
    a, b = _compiled_and_numpy(bulk_kernels.csr, E, nodes)
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist() and x.dtype == y.dtype
    # Cells of one tiling mapped into a nested one, some outside its box.
    fine, coarse = _Tiling(((1, 2), (1, 1), (0, 1))), _Tiling(((2, 4), (1, 1), (0, 1)))
    fine.fit(np.array([0, 0]), np.array([5, 7]), 1 << 20)
    coarse.fit(np.array([1, 0]), np.array([2, 2]), 1 << 20)
    for a_t, b_t in ((fine, coarse), (coarse, fine)):
        lin = rng.integers(0, a_t.writer.size, size=int(rng.integers(1, 30)))
        x, y = _compiled_and_numpy(bulk_kernels.map_cells, lin, a_t, b_t)
        assert x.tolist() == y.tolist()
        assert (x == -1).any() or a_t is coarse
    # Offsets -> cells of a tiling (one residue, or None).
    for w in (1, 3, 4):
        o = rng.integers(-5, 40, size=int(rng.integers(1, 20))) * (4 if w == 4 else 1) + 1
        x, y = _compiled_and_numpy(bulk_kernels.cells_of, o, w)
        assert (x is None) == (y is None)
        if x is not None:
            assert x[0].tolist() == y[0].tolist() and x[1:] == y[1:]


def _edges(src, dst, kind) -> list:
    return sorted(zip(src.tolist(), dst.tolist(), kind.tolist()))


@pytest.mark.parametrize("seed", range(8))
def test_nested_tiling_kernels_equal_their_numpy_twins(seed):
    """finer_pass / coarser_pass (a batch on one tiling against a nested one) against their
    twins on random state: the same edges (as a multiset: merge_edges orders them), the
    same state left behind."""
    from pto_wsp.runtime import bulk_kernels
    from pto_wsp.runtime.bulk import _Tiling

    if not bulk_kernels.load():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(100 + seed)
    fine, coarse = _Tiling(((1, 2), (1, 1), (0, 1))), _Tiling(((2, 4), (1, 1), (0, 1)))
    fine.fit([0, 0], [int(rng.integers(1, 6)), int(rng.integers(1, 8))], 1 << 20)
    coarse.fit([int(rng.integers(0, 2)), 0], [2, int(rng.integers(0, 3))], 1 << 20)
    for own, other in ((coarse, fine), (fine, coarse)):
        box = own.writer.size
        m = int(rng.integers(0, 30))
        g = np.sort(rng.integers(0, box, size=m))
        t = rng.integers(10, 60, size=m)
        pre = rng.random(m) < 0.6
        W = rng.random(m) < 0.5
        fw = pre & W
        kind_w = rng.integers(1, 3, size=m)
        kind_c = rng.integers(1, 3, size=m)
        # own_pass's accesses: rows g, t and (uint8) kind_w, kind_c, pre, fw, R, W.
        A = np.stack([g, t]).astype(np.int64)
        F = np.stack([kind_w, kind_c, pre, fw, ~W, W]).astype(np.uint8)
        written = np.zeros(box + 1, dtype=bool)
        written[g[W]] = True
        writer = np.where(
            rng.random(other.writer.size) < 0.5, rng.integers(0, 10, size=other.writer.size), -1
        )
        r_cell = rng.integers(0, other.writer.size, size=int(rng.integers(0, 12)))
        r_task = rng.integers(0, 10, size=len(r_cell))
        results, states = [], []
        for compiled in (True, False):
            other.writer, other.r_cell, other.r_task = writer.copy(), r_cell.copy(), r_task.copy()
            saved = bulk_kernels.COMPILED
            bulk_kernels.COMPILED = compiled
            try:
                if own is coarse:
                    out = bulk_kernels.finer_pass(A, F, written, other, own)
                    results.append((_edges(*out[0]), out[1].tolist(), out[2].tolist(), out[3]))
                else:
                    results.append(_edges(*bulk_kernels.coarser_pass(A, F, own, other)))
            finally:
                bulk_kernels.COMPILED = saved
            states.append(other.writer.tolist())
        assert results[0] == results[1]
        assert states[0] == states[1]


def test_small_batches_do_not_load_numba():
    """The compiled kernels are loaded only after LOAD_AFTER entries went through the numpy
    twins: a small program's process never imports numba (its import and cache load cost
    about 0.6 s)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from pto_wsp.runtime.graph import GraphBuilder\n"
        "from pto_wsp.runtime.bulk import BatchRegion\n"
        "g = GraphBuilder({'X': (64, 4)})\n"
        "for k in ('w', 'r'):\n"
        "    r = BatchRegion('X', (np.arange(64), 0), (1, 4), (1, 1), 'out' if k == 'w' else 'in',"
        " (1,), True)\n"
        "    g.add_tasks(64, [(k, None, (), (r,), (), 'vector', -1, 0, 0, 'host_cpu')])\n"
        "assert g.build().num_edges == 64\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_radix_order_is_lexsort():
    """own_pass's counting sorts (``_radix``: by p, then stably by g) give numpy's order."""
    from pto_wsp.runtime import bulk_kernels

    bulk_kernels.load()
    rng = np.random.default_rng(7)
    for _ in range(40):
        m, n, box = (int(x) for x in rng.integers(1, 50, 3))
        g, p = rng.integers(0, box, m), rng.integers(0, n, m)
        np.testing.assert_array_equal(bulk_kernels._radix(g, p, n, box), np.lexsort((p, g)))
