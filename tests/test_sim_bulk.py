"""The vectorised dependency inference (runtime/bulk.py) gives GraphBuilder's edges exactly."""

from __future__ import annotations

import numpy as np
import pytest

from pto_wsp.runtime.bulk import TileGraphBuilder
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.regions import TensorRegion

TILES = 12


def _random_stage(rng, n):
    """n tasks: each writes or updates tiles no other task of the stage touches, and reads
    tiles no task of the stage writes (a conflict-free stage)."""
    accesses = []
    perm = {t: rng.permutation(TILES) for t in ("A", "B", "C")}
    used = dict.fromkeys(perm, 0)
    for tensor in rng.choice(["A", "B", "C"], size=rng.integers(1, 4), replace=False):
        mode = rng.choice(["in", "out", "inout"])
        k = int(rng.integers(1, 3))
        if mode == "in":
            accesses.append((tensor, mode, k))
        else:
            if used[tensor] + n * k > TILES:
                continue
            tiles = perm[tensor][used[tensor] : used[tensor] + n * k].reshape(n, k)
            used[tensor] += n * k
            accesses.append((tensor, mode, tiles))
    written = {t: set(perm[t][: used[t]].tolist()) for t in perm}
    resolved = []
    for tensor, mode, tiles in accesses:
        if mode == "in":
            free = [x for x in range(TILES) if x not in written[tensor]]
            if not free:
                continue
            tiles = rng.choice(free, size=(n, tiles))
        resolved.append((tensor, mode, tiles))
    return resolved


@pytest.mark.parametrize("seed", range(20))
def test_bulk_edges_equal_graph_builder_edges(seed):
    rng = np.random.default_rng(seed)
    bulk = TileGraphBuilder(dict.fromkeys(("A", "B", "C"), TILES))
    reference = GraphBuilder()
    for _ in range(6):
        n = int(rng.integers(1, 4))
        stage = _random_stage(rng, n)
        bulk.add_stage(n, stage)
        for j in range(n):
            regions = [
                TensorRegion(tensor, (int(tile),), (1,), None, mode)
                for tensor, mode, tiles in stage
                for tile in np.asarray(tiles)[j]
            ]
            reference.add_task("k", (), regions)
    graph = reference.build()
    src, dst = graph.edges()
    expected = set(zip(src.tolist(), dst.tolist(), graph.edge_kind.tolist()))
    s, d, k = bulk.edges()
    assert set(zip(s.tolist(), d.tolist(), k.tolist())) == expected
    assert len(s) == len(expected)


def test_conflicting_stages_are_refused():
    bulk = TileGraphBuilder({"A": 4})
    with pytest.raises(ValueError, match="write the same tile"):
        bulk.add_stage(2, [("A", "out", np.array([[0], [0]]))])
    with pytest.raises(ValueError, match="reads a tile of 'A' another writes"):
        bulk.add_stage(2, [("A", "out", np.array([[0], [1]])), ("A", "in", np.array([[2], [0]]))])


# --------------------------------------------------------------- runtime/bulk_kernels.py


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
    a, b = _compiled_and_numpy(bulk_kernels.merge_edges, src, dst, kind, tid0, n, skip)
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert (a[0] != a[1]).all()  # never a self-edge
    nodes = tid0 + n
    a, b = _compiled_and_numpy(bulk_kernels.csr, src, dst, kind, nodes)
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
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
