"""Compiled kernels of the batch path (``runtime/bulk.py``, ``GraphBuilder.add_tasks`` and
``build()``), each with a numpy twin giving the same result.

numba compiles them on first use and caches the machine code beside this file (``cache=True``,
as runtime/fastsched.py), so only the first process on a machine pays the compilation; numba is
imported and the kernels loaded only after ``LOAD_AFTER`` entries went through the numpy
versions (``LOAD_AFTER_NUMBA`` when numba is imported already; ``LOAD_AFTER_COLD`` while
they are not in numba's cache on this machine: compiling them costs ~30 s), or on ``load()``:
short programs never pay for it. Until then, without numba, or
with ``COMPILED`` set to False (tests run both), the numpy versions run:

- ``merge_edges``: a batch's data edges, one per (source, destination) with the smallest kind,
  without self-edges and without edges from ``skip`` (the structural source), ordered by
  destination then source — a counting sort by destination and a small sort per destination
  instead of a stable sort of every edge;
- ``chain_edges``: a batch of ordered chains' structural edges merged into its data edges
  (both by destination then source) in one pass instead of a lexsort;
- ``csr``: the fanout CSR of all edges (rows by source, each row in the edges' order) and the
  fan-in, by counting sort instead of a stable argsort;
- ``map_cells``: the cells of one tiling (linear indices in its box) -> the linear indices in
  another tiling's box of the cells holding their first point (-1 outside that box), one loop
  instead of unravel, multiply, divide, bounds check and ravel passes;
- ``single_pass``: one region per task on a tensor's only tiling: the previous writers, the
  write-after-read edges from earlier readers, and the new state, in two loops;
- ``_replay_nb``: a recorded build's operations (the passes above, box growths, merges,
  chains, barriers) in one call, then the CSR (runtime/tape.py). It has no numpy twin: builds
  are recorded and replayed only with the compiled kernels loaded.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

#: Use the compiled kernels (when numba imports). Tests switch it off to run the numpy twins.
COMPILED = True

#: The kernels are loaded (numba imported, the kernels compiled or loaded from its cache: about
#: 0.6 s per process here, ~30 s the first time on a machine) once the numpy twins have been
#: given this many entries in all, about as much numpy time as the loading costs: a short
#: program never pays it, a long one at most about twice its break-even. ``load()`` loads them
#: at once (benchmarks, tests).
LOAD_AFTER = 1 << 23

#: The same once numba is imported (by the compiled scheduler, runtime/fastsched.py): loading
#: the kernels then costs ~65 ms, about what the numpy twins take for this many entries.
LOAD_AFTER_NUMBA = 1 << 20

#: The same while the kernels are not in numba's cache on this machine (``on_disk``, asked
#: once, when the limit above is first reached): loading them then means compiling them,
#: ~30 s here, about what the numpy twins take for this many entries. ``pto-run
#: --precompile`` (``pto_wsp.runtime.precompile()``) compiles them up front.
LOAD_AFTER_COLD = 1 << 29

_KERNELS = (
    "_merge_runs",
    "_merge_nb",
    "_chain_nb",
    "_csr_nb",
    "_map_nb",
    "_table_nb",
    "_merge_accesses",
    "_own_nb",
    "_own_merged",
    "_stable_by",
    "_radix",
    "_own_core",
    "_single_nb",
    "_cells_nb",
    "_lin_nb",
    "_range_nb",
    "_cell_map",
    "_by_cell",
    "_finer_nb",
    "_coarser_nb",
    "_table_if",
    "_cat_nb",
    "_refit_nb",
    "_replay_nb",
)
_loaded: bool | None = None  # None: not tried yet
_given = 0  # entries given to the numpy twins while not loaded
_cold: bool | None = None  # whether loading would compile (None: not asked yet)


def load() -> bool:
    """Compile (or load from numba's cache) the kernels now; False without numba."""
    global _loaded
    if _loaded is None:
        from pto_wsp.runtime.jitcache import jit_disabled

        if jit_disabled():  # numba would run the kernels as Python: the numpy versions run
            _loaded = False
            return False
        try:  # numba is a dependency; without it the numpy versions run.
            import numba
        except ImportError:  # pragma: no cover - exercised only without numba
            _loaded = False
            return False
        njit = numba.njit(cache=True, nogil=True)
        for name in _KERNELS:
            globals()[name] = njit(globals()[name])
        _warm()
        _loaded = True
    return _loaded


def on_disk() -> bool:
    """Whether numba's cache on this machine holds every kernel (loading them then takes a
    fraction of a second; else they are compiled, once per machine). Imports numba."""
    try:
        import numba
    except ImportError:  # pragma: no cover - exercised only without numba
        return False
    from pto_wsp.runtime.jitcache import on_disk as cached

    njit = numba.njit(cache=True, nogil=True)
    g = globals()
    return all(cached(g[n] if hasattr(g[n], "_cache") else njit(g[n])) for n in _KERNELS)


def _warm() -> None:
    """Call every kernel once with the argument types the batch path uses: numba compiles
    them (or loads them from its cache) now rather than inside a timed batch."""
    i = np.array([0, 0], dtype=np.int64)
    b = np.array([True, False])
    one = np.ones(1, dtype=np.int64)
    E = np.array([[0, 0], [1, 1], [1, 2]], dtype=np.int64)
    _merge_nb(E, 1, 1, -1, -1)
    _merge_nb(E * 0 + 1, 1, 1, -1, 0)  # self-edges only: the general path
    _merge_nb(E[:, ::-1].copy(), 1, 2, -1, -1)  # two runs
    _chain_nb(E, 1, i)
    _csr_nb(E, 2)
    _map_nb(i, one * 0, one, one, one * 0, one * 0, one, one, one * 0)
    _table_nb(one * 0, one, one, one * 0, one * 0, one, one, one * 0)
    _own_nb(i, i, b, b, i, 1, 0, i.copy(), i, i)
    _own_nb(np.array([1, 0]), i, b, b, i, 2, 0, i - 1, i, i)  # unsorted: the counting sorts
    _single_nb(one * 0, one, True, True, i.copy(), i, i)
    _cells_nb(i, 2)
    _lin_nb(i, 1, i, 0, i, 0, i, 0, 0)
    _range_nb(i)
    two = one * 2  # two cells on either side: writer and written fit the boxes
    box = (one * 0, two, one, one * 0, one * 0, two, one, one * 0)
    A = np.zeros((2, 2), np.int64)
    F = np.zeros((6, 2), np.uint8)
    _finer_nb(A, F, np.zeros(3, np.bool_), i.copy(), i, i, *box)
    _coarser_nb(A, F, i.copy(), i, i, *box, 1)
    _replay_nb(*_warm_tape())


def _use(size: int) -> bool:
    """Whether to run the compiled kernel on an input of ``size`` entries."""
    global _given, _cold
    if not COMPILED:
        return False
    if _loaded is None:
        _given += size
        limit = LOAD_AFTER_NUMBA if "numba" in sys.modules else LOAD_AFTER
        if _given < limit:
            return False
        if _cold is None:
            _cold = not on_disk()
        return (not _cold or _given >= LOAD_AFTER_COLD) and load()
    return _loaded


_EMPTY = np.zeros(0, dtype=np.int64)
_I64 = _EMPTY.dtype
_BIG = 1 << 62


# ----------------------------------------------------------------------------- merge_edges


def _merge_nb(E, tid0, n, skip, head):  # pragma: no cover - compiled
    src = E[0]
    dst = E[1]
    kind = E[2]
    e_all = len(src)
    # Already by destination then source, once each, nothing to drop: as it is. Else, when
    # the edges are a few runs by destination (a batch's parts, each in task order): merged
    # per destination (``_merge_runs``), without the counting sort below.
    ordered = True  # by (destination, source), nothing to drop; head aside
    starts = np.empty(9, np.int64)
    starts[0] = 0
    runs = 1
    aligned = True
    for e in range(e_all):
        s = src[e]
        d = dst[e]
        if s == skip or s == d:
            ordered = False
        if e:
            if d < dst[e - 1]:
                ordered = False
                starts[runs] = e
                runs += 1
                if runs > 8:
                    break
            elif d == dst[e - 1]:
                aligned = False
                if s <= src[e - 1]:
                    ordered = False
    if ordered and head < 0:
        return E
    if ordered:  # the structural edge first into each task, the rest as it is
        out = np.empty((3, e_all + n), np.int64)
        m = 0
        e = 0
        for i in range(n):
            d = i + tid0
            out[0, m] = head
            out[1, m] = d
            out[2, m] = 0
            m += 1
            while e < e_all and dst[e] == d:
                out[0, m] = src[e]
                out[1, m] = d
                out[2, m] = kind[e]
                m += 1
                e += 1
        if e == e_all:
            return out
    if runs <= 8 and e_all:
        starts[runs] = e_all
        # Aligned: every run is one edge into each task, in order.
        aligned = aligned and e_all == runs * n
        return _merge_runs(E, tid0, n, skip, head, starts[: runs + 1], aligned)
    cnt = np.zeros(n + 1, np.int64)
    for e in range(e_all):
        s = src[e]
        d = dst[e]
        if s == skip or s == d:
            continue
        cnt[d - tid0 + 1] += 1
    for i in range(n):
        cnt[i + 1] += cnt[i]
    total = cnt[n]
    key = np.empty(total, np.int64)
    cur = cnt[:n].copy()
    for e in range(e_all):
        s = src[e]
        d = dst[e]
        if s == skip or s == d:
            continue
        j = cur[d - tid0]
        key[j] = s * 4 + kind[e]
        cur[d - tid0] = j + 1
    # Sort each destination's keys, counting the distinct sources.
    m = n if head >= 0 else 0
    for i in range(n):
        a = cnt[i]
        b = cnt[i + 1]
        ordered = True
        for x in range(a + 1, b):
            if key[x] < key[x - 1]:
                ordered = False
                break
        if ordered:
            pass
        elif b - a > 32:
            key[a:b] = np.sort(key[a:b])
        else:
            for x in range(a + 1, b):  # insertion sort: a few edges per task
                v = key[x]
                y = x - 1
                while y >= a and key[y] > v:
                    key[y + 1] = key[y]
                    y -= 1
                key[y + 1] = v
        last = -1
        for x in range(a, b):
            s = key[x] >> 2
            if s != last:
                m += 1
                last = s
    out = np.empty((3, m), np.int64)
    m = 0
    for i in range(n):
        if head >= 0:  # the structural edge first
            out[0, m] = head
            out[1, m] = i + tid0
            out[2, m] = 0
            m += 1
        last = -1
        for x in range(cnt[i], cnt[i + 1]):
            s = key[x] >> 2
            if s != last:
                out[0, m] = s
                out[1, m] = i + tid0
                out[2, m] = key[x] & 3
                m += 1
                last = s
    return out


def _merge_runs(E, tid0, n, skip, head, starts, aligned):  # pragma: no cover - compiled
    src = E[0]
    dst = E[1]
    kind = E[2]
    e_all = len(src)
    runs = len(starts) - 1
    ptr = starts[:runs].copy()
    end = starts[1:]
    cap = e_all + (n if head >= 0 else 0)
    out = np.empty((3, cap), np.int64)
    buf = np.empty(e_all, np.int64)
    m = 0
    for i in range(n):
        d = i + tid0
        c = 0
        for r in range(runs if aligned else 0):
            x = ptr[r] + i
            s = src[x]
            if s != skip and s != d:
                v = s * 4 + kind[x]
                y = c - 1
                while y >= 0 and buf[y] > v:
                    buf[y + 1] = buf[y]
                    y -= 1
                buf[y + 1] = v
                c += 1
        for r in range(0 if aligned else runs):
            x = ptr[r]
            stop = end[r]
            while x < stop and dst[x] == d:
                s = src[x]
                if s != skip and s != d:
                    v = s * 4 + kind[x]
                    y = c - 1
                    while y >= 0 and buf[y] > v:  # insertion sort: a few edges per task
                        buf[y + 1] = buf[y]
                        y -= 1
                    buf[y + 1] = v
                    c += 1
                x += 1
            ptr[r] = x
        if head >= 0:  # the structural edge first
            out[0, m] = head
            out[1, m] = d
            out[2, m] = 0
            m += 1
        last = -1
        for x in range(c):
            s = buf[x] >> 2
            if s != last:
                out[0, m] = s
                out[1, m] = d
                out[2, m] = buf[x] & 3
                m += 1
                last = s
    if m == cap:
        return out
    res = np.empty((3, m), np.int64)
    res[:, :] = out[:, :m]
    return res


def _merge_np(E, tid0, n, skip, head=-1):
    src, dst, kind = E[0], E[1], E[2]
    keep = (src != skip) & (src != dst)
    src, dst, kind = src[keep], dst[keep], kind[keep]
    total = tid0 + n
    key = ((dst - tid0) * total + src) * 4 + kind
    key.sort(kind="stable")
    pair = key >> 2
    first = np.ones(len(key), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    key, pair = key[first], pair[first]
    out = np.stack([pair % total, pair // total + tid0, key & 3])
    if head >= 0:
        ids = np.arange(tid0, tid0 + n, dtype=np.int64)
        heads = np.stack([np.full(n, head, dtype=np.int64), ids, np.zeros(n, dtype=np.int64)])
        out = np.concatenate([heads, out], axis=1)
        out = out[:, np.argsort(out[1], kind="stable")]  # per task the structural edge first
    return np.ascontiguousarray(out, dtype=np.int64)


def merge_edges(E: np.ndarray, tid0: int, n: int, skip: int, head: int = -1) -> np.ndarray:
    """The edges (an int64 array of rows src, dst, kind) into tasks tid0..tid0+n-1, one per
    (source, destination) with the smallest kind, no self-edge, none from ``skip``; ordered by
    destination then source. ``head`` >= 0 (the frontier's node, equal to ``skip``): a
    structural edge from it into every task, first among each task's edges."""
    if _use(E.shape[1]):
        return _merge_nb(E, tid0, n, skip, head)
    return _merge_np(E, tid0, n, skip, head)


def _chain_nb(D, tid0, s0):  # pragma: no cover - compiled
    # One pass over the destinations in order: each task's structural source (s0[i]: head
    # for a chain's first task, -1 for none; else the task before it) goes in among its data
    # edges' sources, a data edge from that same source dropped.
    n = len(s0)
    m = D.shape[1]
    total = 0
    j = 0
    for i in range(n):
        if s0[i] >= 0:
            total += 1
        while j < m and D[1, j] == tid0 + i:
            if D[0, j] != s0[i]:
                total += 1
            j += 1
    out = np.empty((3, total), np.int64)
    o = 0
    j = 0
    for i in range(n):
        d = tid0 + i
        placed = s0[i] < 0
        while j < m and D[1, j] == d:
            s = D[0, j]
            if not placed and s >= s0[i]:
                out[0, o], out[1, o], out[2, o] = s0[i], d, 0
                o += 1
                placed = True
            if s != s0[i]:
                out[0, o], out[1, o], out[2, o] = s, d, D[2, j]
                o += 1
            j += 1
        if not placed:
            out[0, o], out[1, o], out[2, o] = s0[i], d, 0
            o += 1
    return out


def _chain_np(D, tid0, s0):
    dst = np.arange(tid0, tid0 + len(s0), dtype=np.int64)
    s, d, k = D[0], D[1], D[2]
    keep = s != s0[d - tid0]
    src, dst = s0[s0 >= 0], dst[s0 >= 0]
    kind = np.concatenate([np.zeros(len(src), np.int64), k[keep]])  # structural first
    src = np.concatenate([src, s[keep]])
    dst = np.concatenate([dst, d[keep]])
    order = np.lexsort((src, dst))
    return np.stack([src[order], dst[order], kind[order]]).astype(np.int64, copy=False)


def chain_sources(tid0: int, n: int, length: int | np.ndarray, head: int) -> np.ndarray:
    """Each task's structural source in a batch of ordered chains (``chain_edges``): the task
    before it, ``head`` for a chain's first task."""
    s0 = np.arange(tid0 - 1, tid0 + n - 1, dtype=np.int64)
    if length.__class__ is np.ndarray:  # chains of varying lengths (runtime/batch_order.py)
        s0[np.cumsum(length) - length] = head
    else:
        s0[::length] = head
    return s0


def chain_edges(
    D: np.ndarray | None,
    tid0: int,
    n: int,
    length: int | np.ndarray,
    head: int,
    s0: np.ndarray | None = None,
) -> np.ndarray:
    """The edges into a batch of ordered chains (tasks tid0..tid0+n-1, chains of ``length``,
    docs/batchgen.md "Ordered chains"): the structural ones — ``head`` (the frontier's node,
    -1 if none) -> each chain's first task, each other task -> the task before it — and the
    data edges ``D`` (rows src, dst, kind, by destination then source, one per pair, from
    ``merge_edges``) not joining a structurally joined pair; by destination then source.
    ``length`` may be an int64 array: the chains' lengths (each > 0, summing to n). ``s0``:
    ``chain_sources``'s result, if the caller has it."""
    if D is None:
        D = np.empty((3, 0), np.int64)
    if s0 is None:
        s0 = chain_sources(tid0, n, length, head)
    if _use(D.shape[1] + n):
        return _chain_nb(D, tid0, s0)
    return _chain_np(D, tid0, s0)


# ----------------------------------------------------------------------------- csr


def _csr_nb(E, n):  # pragma: no cover - compiled
    src = E[0]
    dst = E[1]
    ekind = E[2]
    e_all = len(src)
    begin = np.zeros(n + 1, np.int64)
    fanin = np.zeros(n, np.int32)
    for e in range(e_all):
        begin[src[e] + 1] += 1
        fanin[dst[e]] += 1
    for i in range(n):
        begin[i + 1] += begin[i]
    cur = begin[:n].copy()
    edges = np.empty(e_all, np.int32)
    kinds = np.empty(e_all, np.uint8)
    for e in range(e_all):
        s = src[e]
        j = cur[s]
        edges[j] = dst[e]
        kinds[j] = ekind[e]
        cur[s] = j + 1
    return begin, edges, kinds, fanin


def _csr_np(E, n):
    src, dst, ekind = E[0], E[1].astype(np.int32), E[2].astype(np.uint8)
    order = np.argsort(src, kind="stable")
    counts = np.bincount(src, minlength=n) if n else np.zeros(0, dtype=np.int64)
    begin = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=begin[1:])
    fanin = np.bincount(dst, minlength=n).astype(np.int32) if n else np.zeros(0, np.int32)
    return begin, dst[order], ekind[order], fanin


def csr(E: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(fanout_begin, fanout_edges int32, edge_kind uint8, fanin int32) of n nodes' edges
    (an int64 array of rows src, dst, kind); each row keeps the edges' order."""
    if _use(E.shape[1]):
        return _csr_nb(E, n)
    return _csr_np(E, n)


# ----------------------------------------------------------------------------- map_cells


def _map_nb(lin, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb):  # pragma: no cover - compiled
    rank = len(shape_a)
    m = len(lin)
    out = np.empty(m, np.int64)
    coord = np.empty(rank, np.int64)
    for i in range(m):
        x = lin[i]
        for d in range(rank - 1, -1, -1):
            coord[d] = x % shape_a[d] + lo_a[d]
            x //= shape_a[d]
        o = 0
        ok = True
        for d in range(rank):
            c = (coord[d] * wa[d] + ra[d] - rb[d]) // wb[d] - lo_b[d]
            if c < 0 or c >= shape_b[d]:
                ok = False
                break
            o = o * shape_b[d] + c
        out[i] = o if ok else -1
    return out


def _table_nb(lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb):  # pragma: no cover - compiled
    # The map of every cell of a's box, dimension by dimension (no division per cell): the
    # map of the leading d dimensions' cells, extended by dimension d in one tight loop.
    rank = len(shape_a)
    out = np.zeros(1, np.int64)
    for d in range(rank):
        stride = 1
        for e in range(d + 1, rank):
            stride *= shape_b[e]
        n = shape_a[d]
        tab = np.empty(n, np.int64)
        for c in range(n):
            v = ((c + lo_a[d]) * wa[d] + ra[d] - rb[d]) // wb[d] - lo_b[d]
            tab[c] = v * stride if 0 <= v < shape_b[d] else -1
        new = np.empty(len(out) * n, np.int64)
        k = 0
        for i in range(len(out)):
            o = out[i]
            if o < 0:
                for _ in range(n):
                    new[k] = -1
                    k += 1
            else:
                for c in range(n):
                    v = tab[c]
                    new[k] = o + v if v >= 0 else -1
                    k += 1
        out = new
    return out


def _map_np(lin, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb):
    rank = len(shape_a)
    if not rank:
        return np.zeros(len(lin), dtype=np.int64)
    coords = (
        np.array(np.unravel_index(lin, tuple(shape_a.tolist())), dtype=np.int64).reshape(rank, -1)
        + lo_a[:, None]
    )
    first = coords * wa[:, None] + ra[:, None]
    rel = (first - rb[:, None]) // wb[:, None] - lo_b[:, None]
    inside = ((rel >= 0) & (rel < shape_b[:, None])).all(axis=0)
    out = np.zeros(len(lin), dtype=np.int64)
    for d in range(rank):
        out = out * shape_b[d] + rel[d]
    out[~inside] = -1
    return out


def map_cells(lin: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """Cells of tiling ``a`` (linear indices in its box) -> linear indices in ``b``'s box of
    the cells holding their first points, -1 outside ``b``'s box (``bulk._Tiling``s)."""
    if not len(lin):
        return _EMPTY
    args = (a.lo, a.shape, a.widths, a.residues, b.lo, b.shape, b.widths, b.residues)
    if _use(len(lin)):
        if a.writer.size <= 4 * len(lin) + 4096:
            return _table_nb(*args)[lin]  # a's box is not much larger than the cells
        return _map_nb(lin.astype(np.int64, copy=False), *args)
    return _map_np(lin, *args)


# ----------------------------------------------------------------------------- own_pass


def _merge_accesses(g, p, R, W, ri, tid0):  # pragma: no cover - compiled
    # Merge the accesses of one task to one cell (sorted by cell, then task).
    m0 = len(g)
    mg = np.empty(m0, np.int64)
    mt = np.empty(m0, np.int64)
    mR = np.zeros(m0, np.bool_)
    mW = np.zeros(m0, np.bool_)
    mRpre = np.zeros(m0, np.bool_)
    m = 0
    i = 0
    while i < m0:
        j = i
        first_w = _BIG
        while j < m0 and g[j] == g[i] and p[j] == p[i]:
            if W[j] and ri[j] < first_w:
                first_w = ri[j]
            j += 1
        r = False
        w = False
        rpre = False
        for x in range(i, j):
            r = r or R[x]
            w = w or W[x]
            rpre = rpre or (R[x] and ri[x] <= first_w)
        mg[m] = g[i]
        mt[m] = p[i] + tid0
        mR[m] = r
        mW[m] = w
        mRpre[m] = rpre
        m += 1
        i = j
    return mg, mt, mR, mW, mRpre, m


def _own_nb(g, p, R, W, ri, n, tid0, writer, r_cell, r_task):  # pragma: no cover - compiled
    # Sorting and merging happen before the pass, in calls of their own: arrays rebound
    # inside one function make numba's loops several times slower.
    m0 = len(g)
    for i in range(1, m0):
        if g[i] < g[i - 1] or (g[i] == g[i - 1] and p[i] < p[i - 1]):
            if len(writer) <= 4 * m0 + 4096 and n <= 4 * m0 + 4096:
                order = _radix(g, p, n, len(writer))
            else:
                order = np.argsort(g * n + p, kind="mergesort")
            sg, sp, sR, sW, sri = g[order], p[order], R[order], W[order], ri[order]
            return _own_merged(sg, sp, sR, sW, sri, tid0, writer, r_cell, r_task)
    return _own_merged(g, p, R, W, ri, tid0, writer, r_cell, r_task)


def _radix(g, p, n, box):  # pragma: no cover - compiled
    # The stable order by (g, p): counting sorts by p, then by g (g < box, p < n).
    return _stable_by(g, _stable_by(p, np.arange(len(g)), n), box)


def _stable_by(keys, idx, size):  # pragma: no cover - compiled
    # The entries of idx stably ordered by keys[idx] (a counting sort; keys < size).
    cnt = np.zeros(size + 1, np.int64)
    for x in idx:
        cnt[keys[x] + 1] += 1
    for i in range(size):
        cnt[i + 1] += cnt[i]
    order = np.empty(len(idx), np.int64)
    for x in idx:
        order[cnt[keys[x]]] = x
        cnt[keys[x]] += 1
    return order


def _own_merged(g, p, R, W, ri, tid0, writer, r_cell, r_task):  # pragma: no cover - compiled
    m0 = len(g)
    for i in range(1, m0):
        if g[i] == g[i - 1] and p[i] == p[i - 1]:
            mg, mt, mR, mW, mRpre, m = _merge_accesses(g, p, R, W, ri, tid0)
            return _own_core(mg[:m], mt[:m], mR[:m], mW[:m], mRpre[:m], writer, r_cell, r_task)
    return _own_core(g, p + tid0, R, W, R, writer, r_cell, r_task)


def _own_core(mg, mt, mR, mW, mRpre, writer, r_cell, r_task):  # pragma: no cover - compiled
    m = len(mg)
    # Per access, written in place: kind_w, kind_c, pre, fw, R, W (the F returned).
    F = np.zeros((6, m), np.uint8)
    has_nw = np.zeros(m, np.bool_)
    cap = 3 * m + len(r_cell)
    es = np.empty(cap, np.int64)
    ed = np.empty(cap, np.int64)
    ek = np.empty(cap, np.uint8)
    e = 0
    box = len(writer)
    written = np.zeros(box + 1, np.bool_)
    # The first writer (access index) of each cell, when there are earlier readers to join.
    mark = np.full(box if len(r_cell) else 0, -1, np.int32)
    s = 0
    while s < m:
        end = s
        while end < m and mg[end] == mg[s]:
            end += 1
        c = mg[s]
        # Forward: the previous writer of the cell inside the batch, or the state before it.
        last = -1
        for x in range(s, end):
            kw = 1 if mRpre[x] else 2  # raw if the task reads first
            F[0, x] = kw
            F[1, x] = 1 if mR[x] else 2  # for coarser tilings' writers
            F[4, x] = mR[x]
            F[5, x] = mW[x]
            if last >= 0:
                es[e] = mt[last]
                ed[e] = mt[x]
                ek[e] = kw
                e += 1
            else:
                F[2, x] = 1  # before the cell's first write in the batch
                w0 = writer[c]
                if w0 >= 0:
                    es[e] = w0
                    ed[e] = mt[x]
                    ek[e] = kw
                    e += 1
                if mW[x]:
                    F[3, x] = 1  # the cell's first writer
                    if len(mark):
                        mark[c] = x
            if mW[x]:
                last = x
                written[c] = True
        # Backward: readers before the next writer.
        nxt = -1
        for x in range(end - 1, s - 1, -1):
            if nxt >= 0:
                has_nw[x] = True
                if mR[x] and not mW[x]:
                    es[e] = mt[x]
                    ed[e] = mt[nxt]
                    ek[e] = 3
                    e += 1
            if mW[x]:
                nxt = x
        s = end
    # Earlier readers of a cell the batch writes: write-after-read into its first writer.
    keep = 0
    for j in range(len(r_cell)):
        c = r_cell[j]
        x = mark[c]
        if x >= 0:
            es[e] = r_task[j]
            ed[e] = mt[x]
            ek[e] = 3
            e += 1
        if not written[c]:
            keep += 1
    # The new state of the tiling.
    newr = 0
    for x in range(m):
        if mW[x] and not has_nw[x]:
            writer[mg[x]] = mt[x]
        if mR[x] and not mW[x] and not has_nw[x]:
            newr += 1
    rc = np.empty(keep + newr, np.int64)
    rt = np.empty(keep + newr, np.int64)
    y = 0
    for j in range(len(r_cell)):
        if not written[r_cell[j]]:
            rc[y] = r_cell[j]
            rt[y] = r_task[j]
            y += 1
    for x in range(m):
        if mR[x] and not mW[x] and not has_nw[x]:
            rc[y] = mg[x]
            rt[y] = mt[x]
            y += 1
    E = np.empty((3, e), np.int64)
    A = np.empty((2, m), np.int64)
    for x in range(e):
        E[0, x] = es[x]
        E[1, x] = ed[x]
        E[2, x] = ek[x]
    for x in range(m):
        A[0, x] = mg[x]
        A[1, x] = mt[x]
    return E, A, F, written, rc, rt


def _own_np(g, p, R, W, ri, n, tid0, writer, r_cell, r_task):
    k = g * n + p
    if len(k) > 1 and (k[1:] < k[:-1]).any():
        order = np.argsort(k, kind="stable")
        k = k[order]
        g, p, R, W, ri = g[order], p[order], R[order], W[order], ri[order]
    first = np.ones(len(k), dtype=bool)
    first[1:] = k[1:] != k[:-1]
    # Rpre: the task reads the cell at or before its first write there (in its regions'
    # order): the previous writer is then a raw predecessor, else a waw one (a read after
    # its own write sees the task itself), except for coarser tilings' entries, which its
    # write leaves in place (there any read makes it raw).
    Rpre = R
    if not first.all():
        grp = np.cumsum(first) - 1
        starts = np.flatnonzero(first)
        wri = np.where(W, ri, np.iinfo(np.int64).max)
        first_w = np.minimum.reduceat(wri, starts)
        Rpre = np.bincount(grp, weights=R & (ri <= first_w[grp]), minlength=len(starts))
        Rpre = Rpre.astype(bool)
        R = np.bincount(grp, weights=R).astype(bool)
        W = np.bincount(grp, weights=W).astype(bool)
        g, p = g[first], p[first]
    m = len(g)
    seg = np.ones(m, dtype=bool)
    seg[1:] = g[1:] != g[:-1]
    if seg.all():
        # Each cell is touched by one task of the batch: no order inside it.
        pw = nw = np.zeros(m, dtype=np.int64)
        has_pw = has_nw = np.zeros(m, dtype=bool)
    else:
        idx = np.arange(m)
        starts = np.flatnonzero(seg)
        seg_id = np.cumsum(seg) - 1
        seg_start = starts[seg_id]
        seg_end = np.append(starts[1:], m)[seg_id]
        acc = np.maximum.accumulate(np.where(W, idx, -1))
        pw = np.empty(m, dtype=np.int64)
        pw[0] = -1
        pw[1:] = acc[:-1]
        has_pw = pw >= seg_start
        big = m + 1
        nxt = np.minimum.accumulate(np.where(W, idx, big)[::-1])[::-1]
        nw = np.empty(m, dtype=np.int64)
        nw[-1] = big
        nw[:-1] = nxt[1:]
        has_nw = nw < seg_end
    kind_w = np.where(Rpre, 1, 2).astype(np.uint8)  # raw if the task reads first
    kind_c = np.where(R, 1, 2).astype(np.uint8)  # for coarser tilings' writers
    t = p + tid0
    src, dst, kind = [], [], []

    def emit(s, d, k) -> None:
        if len(s):
            src.append(np.asarray(s, dtype=np.int64))
            dst.append(np.asarray(d, dtype=np.int64))
            kind.append(np.broadcast_to(np.asarray(k, dtype=np.uint8), (len(s),)))

    # In-batch: the previous writer of the cell, and readers before the next writer.
    emit(t[pw[has_pw]], t[has_pw], kind_w[has_pw])
    rd = R & ~W & has_nw
    emit(t[rd], t[nw[rd]], 3)
    # The state before the batch, seen by accesses before the cell's first write.
    pre = ~has_pw
    w0 = writer[g[pre]]
    ok = w0 >= 0
    emit(w0[ok], t[pre][ok], kind_w[pre][ok])
    fw = pre & W  # first writer of each written cell
    ia, ib = _join(g[fw], r_cell)
    emit(r_task[ib], t[fw][ia], 3)
    # The cells the batch writes, as a mask over the box (index -1: outside it).
    written = np.zeros(writer.size + 1, dtype=bool)
    written[g[W]] = True
    # The new state of the tiling.
    lastw = W & ~has_nw
    writer[g[lastw]] = t[lastw]
    keep = ~written[r_cell]
    newr = R & ~W & ~has_nw
    rc = np.concatenate([r_cell[keep], g[newr]])
    rt = np.concatenate([r_task[keep], t[newr]])
    if src:
        E = _pack(np.concatenate(src), np.concatenate(dst), np.concatenate(kind))
    else:
        E = np.zeros((3, 0), np.int64)
    F = np.stack([kind_w, kind_c, pre, fw, R, W]).astype(np.uint8)
    return E, np.stack([g, t]), F, written, rc, rt


def own_pass(
    g: np.ndarray,
    p: np.ndarray,
    R: np.ndarray,
    W: np.ndarray,
    ri: np.ndarray,
    n: int,
    tid0: int,
    writer: np.ndarray,
    r_cell: np.ndarray,
    r_task: np.ndarray,
) -> tuple:
    """The batch rule on the batch's own tiling. Its accesses (cell g, task position p, reads
    R, writes W, region index ri; sorted here by cell then task, stably); ``writer`` (last writer per
    cell of the box) is updated in place. Returns the edges (rows src, dst, kind), the
    accesses merged per (cell, task) as rows of A (g, task id t) and of F (uint8: kind_w,
    kind_c, pre: before the cell's first write in the batch, fw: its first writer, R, W),
    ``written`` (a mask over the box, one more entry for index -1) and the readers since
    (r_cell, r_task)."""
    if _use(len(g)):
        return _own_nb(
            g.astype(np.int64, copy=False),
            p.astype(np.int64, copy=False),
            R.astype(np.bool_, copy=False),
            W.astype(np.bool_, copy=False),
            ri.astype(np.int64, copy=False),
            n,
            tid0,
            writer,
            r_cell,
            r_task,
        )
    return _own_np(g, p, R, W, ri, n, tid0, writer, r_cell, r_task)


def _join(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All index pairs (i, j) with a[i] == b[j]."""
    if not len(a) or not len(b):
        return _EMPTY, _EMPTY
    order = np.argsort(b, kind="stable")
    sb = b[order]
    lo = np.searchsorted(sb, a, "left")
    hi = np.searchsorted(sb, a, "right")
    cnt = hi - lo
    total = int(cnt.sum())
    ia = np.repeat(np.arange(len(a)), cnt)
    start = np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
    ib = order[start + np.arange(total)]
    return ia, ib


# ----------------------------------------------------------------------------- nested tilings


def _cell_map(x, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb, coord):  # pragma: no cover
    # One cell of tiling a (linear in its box) -> the cell of b holding its first point.
    rank = len(shape_a)
    for d in range(rank - 1, -1, -1):
        coord[d] = x % shape_a[d] + lo_a[d]
        x //= shape_a[d]
    o = 0
    for d in range(rank):
        c = (coord[d] * wa[d] + ra[d] - rb[d]) // wb[d] - lo_b[d]
        if c < 0 or c >= shape_b[d]:
            return -1
        o = o * shape_b[d] + c
    return o


def _by_cell(g, sel, box):  # pragma: no cover - compiled
    # The selected accesses grouped by cell: begin (box + 1) and access indices.
    begin = np.zeros(box + 1, np.int64)
    for x in range(len(g)):
        if sel[x]:
            begin[g[x] + 1] += 1
    for c in range(box):
        begin[c + 1] += begin[c]
    cur = begin[:box].copy()
    idx = np.empty(begin[box], np.int64)
    for x in range(len(g)):
        if sel[x]:
            idx[cur[g[x]]] = x
            cur[g[x]] += 1
    return begin, idx


def _finer_nb(  # pragma: no cover - compiled
    A, F, written, writer, r_cell, r_task, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb
):
    g = A[0]
    t = A[1]
    kind_w = F[0]
    box = len(written) - 1
    # The map of every cell of the finer tiling's box (the loops below visit them all).
    table = _table_nb(lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb)
    bp, ip = _by_cell(g, F[2], box)  # accesses before our cell's first write
    bf, jf = _by_cell(g, F[3], box)  # our cell's first writer
    live = 0
    for j in range(len(writer)):
        if writer[j] >= 0:
            live += 1
    # The finer tiling's cells -> ours (-1: outside our box), writers then readers.
    wmap = np.empty(len(writer), np.int64)
    rmap = np.empty(len(r_cell), np.int64)
    cap = 0
    for j in range(len(writer)):
        o = -1
        if writer[j] >= 0:
            o = table[j]
            if o >= 0:
                cap += bp[o + 1] - bp[o]
        wmap[j] = o
    for j in range(len(r_cell)):
        o = table[r_cell[j]]
        rmap[j] = o
        if o >= 0:
            cap += bf[o + 1] - bf[o]
    E = np.empty((3, cap), np.int64)
    e = 0
    # Its writers, seen by our accesses before our cell's first write; gone where we write.
    for j in range(len(writer)):
        o = wmap[j]
        if o < 0:
            continue
        for y in range(bp[o], bp[o + 1]):
            x = ip[y]
            E[0, e] = writer[j]
            E[1, e] = t[x]
            E[2, e] = kind_w[x]
            e += 1
        if written[o]:
            writer[j] = -1
            live -= 1
    # Its readers, before our cell's first writer; gone where we write.
    keep = 0
    for j in range(len(r_cell)):
        o = rmap[j]
        if o >= 0:
            for y in range(bf[o], bf[o + 1]):
                E[0, e] = r_task[j]
                E[1, e] = t[jf[y]]
                E[2, e] = 3
                e += 1
            if written[o]:
                continue
        keep += 1
    rc = np.empty(keep, np.int64)
    rt = np.empty(keep, np.int64)
    y = 0
    for j in range(len(r_cell)):
        o = rmap[j]
        if o < 0 or not written[o]:
            rc[y] = r_cell[j]
            rt[y] = r_task[j]
            y += 1
    return E, rc, rt, live > 0 or keep > 0


def _finer_np(A, F, written, writer, r_cell, r_task, *box):
    g, t = A[0], A[1]
    kind_w, pre, fw = F[0], F[2].astype(bool), F[3].astype(bool)
    live = np.flatnonzero(writer >= 0)
    glin = _map_np(live, *box) if len(live) else _EMPTY
    src, dst, kind = [], [], []
    ia, ib = _join(g[pre], glin)
    src.append(writer[live[ib]])
    dst.append(t[pre][ia])
    kind.append(kind_w[pre][ia])
    rlin = _map_np(r_cell, *box) if len(r_cell) else _EMPTY
    ia, ib = _join(g[fw], rlin)
    src.append(r_task[ib])
    dst.append(t[fw][ia])
    kind.append(np.full(len(ia), 3))
    writer[live[written[glin]]] = -1
    keep = ~written[rlin]
    rc, rt = r_cell[keep], r_task[keep]
    alive = bool(len(rc)) or bool((writer >= 0).any())
    cat = np.concatenate
    return _pack(cat(src), cat(dst), cat(kind)), rc, rt, alive


def finer_pass(A, F, written, other: Any, own: Any) -> tuple:
    """A finer tiling ``other`` (its cells inside ours) against the batch on ``own`` (its
    accesses A, F from ``own_pass``): edges from its writers to our accesses before our
    cell's first write (kind_w) and from its readers to our cell's first writer (war); its
    cells we write leave it (``other.writer`` updated in place). Returns (edges as rows src,
    dst, kind, r_cell, r_task, still live)."""
    args = (other.lo, other.shape, other.widths, other.residues)
    args += (own.lo, own.shape, own.widths, own.residues)
    state = (other.writer, other.r_cell, other.r_task)
    if _use(A.shape[1] + len(other.writer)):
        return _finer_nb(A, F, written, *state, *args)
    return _finer_np(A, F, written, *state, *args)


def _table_if(cond, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb):  # pragma: no cover
    # The table when ``cond`` (else empty), assigned once by the caller: an array variable
    # rebound in a numba function slows its loops.
    if cond:
        return _table_nb(lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb)
    return np.zeros(0, np.int64)


def _coarser_nb(  # pragma: no cover - compiled
    A, F, writer, r_cell, r_task, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb, box_a
):
    g = A[0]
    t = A[1]
    kind_c = F[1]
    W = F[5]
    m = len(g)
    coord = np.empty(len(shape_a), np.int64)
    # A table over our box when it is not much larger than the accesses, else a map per cell.
    table = _table_if(box_a <= 4 * m + 4096, lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb)
    box = len(writer)
    ones = np.ones(len(r_cell), np.bool_)
    br, ir = _by_cell(r_cell, ones, box)
    olin = np.empty(m, np.int64)
    cap = 0
    for x in range(m):
        if len(table):
            o = table[g[x]]
        else:
            o = _cell_map(g[x], lo_a, shape_a, wa, ra, lo_b, shape_b, wb, rb, coord)
        olin[x] = o
        if o >= 0:
            if writer[o] >= 0:
                cap += 1
            if W[x]:
                cap += br[o + 1] - br[o]
    E = np.empty((3, cap), np.int64)
    e = 0
    for x in range(m):
        o = olin[x]
        if o < 0:
            continue
        w = writer[o]
        if w >= 0:
            E[0, e] = w
            E[1, e] = t[x]
            E[2, e] = kind_c[x]
            e += 1
        if W[x]:
            for y in range(br[o], br[o + 1]):
                E[0, e] = r_task[ir[y]]
                E[1, e] = t[x]
                E[2, e] = 3
                e += 1
    return E


def _coarser_np(A, F, writer, r_cell, r_task, *box):
    g, t = A[0], A[1]
    kind_c, W = F[1], F[5].astype(bool)
    m = len(g)
    olin = _map_np(g, *box) if m else _EMPTY
    inside = olin >= 0
    wr = np.full(m, -1, dtype=np.int64)
    wr[inside] = writer[olin[inside]]
    ok = wr >= 0
    sel = W & inside
    ia, ib = _join(olin[sel], r_cell)
    src = np.concatenate([wr[ok], r_task[ib]])
    dst = np.concatenate([t[ok], t[sel][ia]])
    kind = np.concatenate([kind_c[ok], np.full(len(ia), 3)])
    return _pack(src, dst, kind)


def coarser_pass(A, F, own: Any, other: Any) -> np.ndarray:
    """A coarser tiling ``other`` (a cell of it contains ours) against the batch's accesses on
    ``own`` (A, F from ``own_pass``): edges (rows src, dst, kind) from the writer of the
    containing cell (kind_c) and, into our writes, from its readers (war). ``other`` is left
    unchanged."""
    args = (own.lo, own.shape, own.widths, own.residues)
    args += (other.lo, other.shape, other.widths, other.residues)
    state = (other.writer, other.r_cell, other.r_task)
    if _use(A.shape[1] + len(other.r_cell)):
        return _coarser_nb(A, F, *state, *args, len(own.writer))
    return _coarser_np(A, F, *state, *args)


# ----------------------------------------------------------------------------- single_pass


def _single_nb(g, t, reads, writes, writer, r_cell, r_task):  # pragma: no cover - compiled
    m = len(g)
    # Several readers of one cell need no order among them; a written cell touched twice
    # does (the general pass).
    owner = np.full(len(writer) if writes else 0, -1, np.int64)
    if writes:
        for i in range(m):
            if owner[g[i]] >= 0:
                return False, np.zeros((3, 0), np.int64), r_cell, r_task
            owner[g[i]] = t[i]
    e = 0
    for i in range(m):
        if writer[g[i]] >= 0:
            e += 1
    keep = 0
    if writes:
        for j in range(len(r_cell)):
            if owner[r_cell[j]] >= 0:
                e += 1
            else:
                keep += 1
    E = np.empty((3, e), np.int64)
    e = 0
    k = 1 if reads else 2
    for i in range(m):
        w0 = writer[g[i]]
        if w0 >= 0:
            E[0, e] = w0
            E[1, e] = t[i]
            E[2, e] = k
            e += 1
    if not writes:
        rc_all = np.empty(len(r_cell) + m, np.int64)
        rt_all = np.empty(len(r_cell) + m, np.int64)
        rc_all[: len(r_cell)] = r_cell
        rt_all[: len(r_cell)] = r_task
        rc_all[len(r_cell) :] = g
        rt_all[len(r_cell) :] = t
        return True, E, rc_all, rt_all
    rc = np.empty(keep, np.int64)
    rt = np.empty(keep, np.int64)
    y = 0
    for j in range(len(r_cell)):
        d = owner[r_cell[j]]
        if d >= 0:
            E[0, e] = r_task[j]
            E[1, e] = d
            E[2, e] = 3
            e += 1
        else:
            rc[y] = r_cell[j]
            rt[y] = r_task[j]
            y += 1
    for i in range(m):
        writer[g[i]] = t[i]
    return True, E, rc, rt


def _single_np(g, t, reads, writes, writer, r_cell, r_task):
    m = len(g)
    if writes:
        owner = np.full(writer.size, -1, dtype=np.int64)
        owner[g] = t
        if m > 1 and np.count_nonzero(owner >= 0) != m:
            return False, np.zeros((3, 0), np.int64), r_cell, r_task
    w0 = writer[g]
    ok = w0 >= 0
    src, dst, kind = [w0[ok]], [t[ok]], [np.full(int(ok.sum()), 1 if reads else 2)]
    if writes:
        d = owner[r_cell]
        hit = d >= 0
        if hit.any():
            src.append(r_task[hit])
            dst.append(d[hit])
            kind.append(np.full(int(hit.sum()), 3))
            r_cell, r_task = r_cell[~hit], r_task[~hit]
        writer[g] = t
    else:
        r_cell = np.concatenate([r_cell, g])
        r_task = np.concatenate([r_task, t])
    cat = np.concatenate
    return True, _pack(cat(src), cat(dst), cat(kind)), r_cell, r_task


def _pack(src, dst, kind) -> np.ndarray:
    """Edges as one int64 array of rows src, dst, kind."""
    return np.stack([src, dst, kind]).astype(np.int64, copy=False)


def single_pass(
    g: np.ndarray,
    t: np.ndarray,
    reads: bool,
    writes: bool,
    writer: np.ndarray,
    r_cell: np.ndarray,
    r_task: np.ndarray,
) -> tuple:
    """One access per task (cells g, task ids t) on a tensor's only tiling: (done, edges as
    rows src, dst, kind, r_cell, r_task), ``writer`` updated in place; done is False (and
    nothing changed) when two tasks write or update one cell (the general pass decides)."""
    if _use(len(g)):
        return _single_nb(g, t, reads, writes, writer, r_cell, r_task)
    return _single_np(g, t, reads, writes, writer, r_cell, r_task)


# ----------------------------------------------------------------------------- cells


def _cells_nb(o, w):  # pragma: no cover - compiled
    m = len(o)
    q = np.empty(m, np.int64)
    rm = o[0] % w
    lo = o[0] // w
    hi = lo
    if w & (w - 1) == 0:  # a power of two: shifts and masks (floor semantics) for divisions
        k = 0
        while (1 << k) < w:
            k += 1
        mask = w - 1
        for i in range(m):
            x = o[i]
            if x & mask != rm:
                return q, -1, 0, 0
            c = x >> k
            q[i] = c
            if c < lo:
                lo = c
            elif c > hi:
                hi = c
        return q, rm, lo, hi
    for i in range(m):
        x = o[i]
        c = x // w
        if x - c * w != rm:
            return q, -1, 0, 0
        q[i] = c
        if c < lo:
            lo = c
        elif c > hi:
            hi = c
    return q, rm, lo, hi


def _range_nb(o):  # pragma: no cover - compiled
    lo = o[0]
    hi = lo
    for i in range(len(o)):
        c = o[i]
        if c < lo:
            lo = c
        elif c > hi:
            hi = c
    return lo, hi


def cells_of(o: np.ndarray, w: int) -> tuple[np.ndarray, int, int, int] | None:
    """Offsets (a non-empty int array) on a tiling of width ``w``: (cells, residue, lowest
    cell, highest cell), or None when the offsets have several residues modulo ``w``."""
    dt = o.dtype
    if (dt is _I64 or dt == _I64) and (_loaded and COMPILED or _use(len(o))):
        if not o.flags.c_contiguous:
            o = np.ascontiguousarray(o)
        if w == 1:
            lo, hi = _range_nb(o)
            return o, 0, lo, hi
        q, rm, lo, hi = _cells_nb(o, w)
        return None if rm < 0 else (q, rm, lo, hi)
    if w == 1:
        return o, 0, int(o.min()), int(o.max())
    q, rm0 = np.divmod(o, w)
    rm = int(rm0[0])
    if (rm0 != rm).any():
        return None
    return q, rm, int(q.min()), int(q.max())


def _lin_nb(a, ka, b, kb, c, kc, d, kd, const):  # pragma: no cover - compiled
    out = np.empty(len(a), np.int64)
    for i in range(len(a)):
        out[i] = a[i] * ka + b[i] * kb + c[i] * kc + d[i] * kd + const
    return out


def lin_of(arrays: list, strides: list, const: int) -> np.ndarray | None:
    """``sum(arrays[k] * strides[k]) + const`` for up to four int64 arrays of one length in
    one compiled pass; None when the kernels are not loaded or the arrays do not fit."""
    k = len(arrays)
    if not (_loaded and COMPILED) or k > 4:
        return None
    for a in arrays:
        dt = a.dtype  # (numba's arrays have dtype objects of their own: compare too)
        if (dt is not _I64 and dt != _I64) or not a.flags.c_contiguous:
            return None
    # Padded to four terms with the first array times 0 (the caller's lists left as they are).
    a = [*arrays, *[arrays[0]] * (4 - k)]
    s = [*strides, *[0] * (4 - k)]
    return _lin_nb(a[0], s[0], a[1], s[1], a[2], s[2], a[3], s[3], const)


# ----------------------------------------------------------------------------- replay

# A build replayed (runtime/tape.py): the operations, one row each of ``ops`` (int64, 10
# columns: the code, then its operands). Arrays are spans (offset, length) of one int64 buffer
# ``ibuf`` (cells, task positions and ids, region indices, structural sources, barrier
# predecessors) or one bool buffer ``bbuf`` (reads, writes); a tiling's box, its rank-long rows
# lo, shape, widths and residues, from ``boxes`` at ``box_at[b]``.
OP_NEW = 0  # slot, size: a tiling's state, its first box (no writer, no reader)
OP_REFIT = 1  # slot, old box, new box: the box grew (fit), the state moved into it
OP_SINGLE = 2  # slot, g, m, t, reads, writes: single_pass
OP_OWN = 3  # slot, g, m, p, R|W (2m in bbuf), ri, n, tid0: own_pass
OP_FINER = 4  # other slot, own slot, other box, own box: finer_pass after the last OP_OWN
OP_COARSER = 5  # other slot, own slot, own box, other box: coarser_pass after the last OP_OWN
OP_END = 6  # tid0, n, skip, s0 span (-1: no chains), head: a batch's edges, as add_tasks
OP_BARRIER = 7  # node, preds span, kind: a barrier node's edges


def _cat_nb(parts):  # pragma: no cover - compiled
    total = 0
    for E in parts:
        total += E.shape[1]
    out = np.empty((3, total), np.int64)
    c = 0
    for E in parts:
        k = E.shape[1]
        out[:, c : c + k] = E
        c += k
    return out


def _refit_nb(writer, r_cell, lo_a, shape_a, lo_b, shape_b, size_b):  # pragma: no cover
    # A tiling's state from box a into box b (which holds it): as _Tiling.fit.
    rank = len(shape_a)
    one = np.ones(rank, np.int64)
    zero = np.zeros(rank, np.int64)
    table = _table_nb(lo_a, shape_a, one, zero, lo_b, shape_b, one, zero)
    new = np.full(size_b, -1, np.int64)
    for j in range(len(writer)):
        new[table[j]] = writer[j]
    rc = np.empty(len(r_cell), np.int64)
    for j in range(len(r_cell)):
        rc[j] = table[r_cell[j]]
    return new, rc


def _replay_nb(ops, ibuf, bbuf, boxes, box_at, nslots, n_nodes):  # pragma: no cover - compiled
    # Every operation of a recorded build in order, on fresh state: the batches' data edges
    # (the passes of runtime/bulk.py), their merge and structural edges (add_tasks), the
    # barriers'; then the CSR of all of them. ok is False if a single pass found a cell
    # touched twice (the recording had found none: the inputs changed).
    empty = np.zeros(0, np.int64)
    writers = [empty for _ in range(nslots)]
    rcs = [empty for _ in range(nslots)]
    rts = [empty for _ in range(nslots)]
    parts = [np.zeros((3, 0), np.int64) for _ in range(0)]
    segs = [np.zeros((3, 0), np.int64) for _ in range(0)]
    A = np.zeros((2, 0), np.int64)
    F = np.zeros((6, 0), np.uint8)
    written = np.zeros(0, np.bool_)
    ok = True
    for k in range(ops.shape[0]):
        op = ops[k, 0]
        if op == OP_NEW:
            s = ops[k, 1]
            writers[s] = np.full(ops[k, 2], -1, np.int64)
            rcs[s] = empty
            rts[s] = empty
        elif op == OP_REFIT:
            s = ops[k, 1]
            a = box_at[ops[k, 2]]
            b = box_at[ops[k, 3]]
            r = (box_at[ops[k, 2] + 1] - a) // 4
            shape_b = boxes[b + r : b + 2 * r]
            size_b = 1
            for d in range(r):
                size_b *= shape_b[d]
            writers[s], rcs[s] = _refit_nb(
                writers[s],
                rcs[s],
                boxes[a : a + r],
                boxes[a + r : a + 2 * r],
                boxes[b : b + r],
                shape_b,
                size_b,
            )
        elif op == OP_SINGLE:
            s = ops[k, 1]
            g0 = ops[k, 2]
            m = ops[k, 3]
            t0 = ops[k, 4]
            done, E, rc, rt = _single_nb(
                ibuf[g0 : g0 + m],
                ibuf[t0 : t0 + m],
                ops[k, 5] != 0,
                ops[k, 6] != 0,
                writers[s],
                rcs[s],
                rts[s],
            )
            if not done:
                ok = False
                break
            rcs[s] = rc
            rts[s] = rt
            if E.shape[1]:
                parts.append(E)
        elif op == OP_OWN:
            s = ops[k, 1]
            g0 = ops[k, 2]
            m = ops[k, 3]
            p0 = ops[k, 4]
            b0 = ops[k, 5]
            r0 = ops[k, 6]
            E, A, F, written, rc, rt = _own_nb(
                ibuf[g0 : g0 + m],
                ibuf[p0 : p0 + m],
                bbuf[b0 : b0 + m],
                bbuf[b0 + m : b0 + 2 * m],
                ibuf[r0 : r0 + m],
                ops[k, 7],
                ops[k, 8],
                writers[s],
                rcs[s],
                rts[s],
            )
            rcs[s] = rc
            rts[s] = rt
            if E.shape[1]:
                parts.append(E)
        elif op == OP_FINER or op == OP_COARSER:
            o = ops[k, 1]
            s = ops[k, 2]
            a = box_at[ops[k, 3]]
            b = box_at[ops[k, 4]]
            r = (box_at[ops[k, 3] + 1] - a) // 4
            # Boxes a and b: lo, shape, widths, residues each.
            lo_a, sh_a = boxes[a : a + r], boxes[a + r : a + 2 * r]
            w_a, r_a = boxes[a + 2 * r : a + 3 * r], boxes[a + 3 * r : a + 4 * r]
            lo_b, sh_b = boxes[b : b + r], boxes[b + r : b + 2 * r]
            w_b, r_b = boxes[b + 2 * r : b + 3 * r], boxes[b + 3 * r : b + 4 * r]
            if op == OP_FINER:
                E, rc, rt, _alive = _finer_nb(
                    A, F, written, writers[o], rcs[o], rts[o],
                    lo_a, sh_a, w_a, r_a, lo_b, sh_b, w_b, r_b,
                )  # fmt: skip
                rcs[o] = rc
                rts[o] = rt
            else:
                E = _coarser_nb(
                    A, F, writers[o], rcs[o], rts[o],
                    lo_a, sh_a, w_a, r_a, lo_b, sh_b, w_b, r_b, len(writers[s]),
                )  # fmt: skip
            if E.shape[1]:
                parts.append(E)
        elif op == OP_END:
            tid0 = ops[k, 1]
            n = ops[k, 2]
            skip = ops[k, 3]
            s0 = ops[k, 4]
            head = ops[k, 5]
            had = len(parts) > 0
            if had:
                E = parts[0] if len(parts) == 1 else _cat_nb(parts)
                D = _merge_nb(E, tid0, n, skip, skip)
                while len(parts):  # (numba's list.clear() leaks its arrays: no clear())
                    parts.pop()
            else:
                D = np.zeros((3, 0), np.int64)
            if s0 >= 0:
                D = _chain_nb(D, tid0, ibuf[s0 : s0 + n])
            elif head >= 0 and not had:
                D = np.empty((3, n), np.int64)
                for i in range(n):
                    D[0, i] = head
                    D[1, i] = tid0 + i
                    D[2, i] = 0
            if D.shape[1]:
                segs.append(D)
        else:  # OP_BARRIER
            node = ops[k, 1]
            q0 = ops[k, 2]
            m = ops[k, 3]
            D = np.empty((3, m), np.int64)
            for i in range(m):
                D[0, i] = ibuf[q0 + i]
                D[1, i] = node
                D[2, i] = ops[k, 4]
            segs.append(D)
    E = _cat_nb(segs)
    begin, edges, kinds, fanin = _csr_nb(E, n_nodes)
    return ok, begin, edges, kinds, fanin


def _warm_tape() -> tuple:
    """A tiny tape of every operation (``_warm``): two one-dimensional tilings, one nested in
    the other."""
    ops = np.zeros((8, 10), np.int64)
    ops[0, :3] = (OP_NEW, 0, 2)
    ops[1, :4] = (OP_REFIT, 0, 0, 1)
    ops[2, :7] = (OP_SINGLE, 0, 0, 1, 0, 1, 1)
    ops[3, :3] = (OP_NEW, 1, 1)
    ops[4, :9] = (OP_OWN, 1, 0, 1, 0, 0, 0, 1, 1)
    ops[5, :5] = (OP_FINER, 0, 1, 1, 2)
    ops[6, :6] = (OP_END, 1, 1, -1, -1, -1)
    ops[7, :5] = (OP_BARRIER, 2, 0, 1, 0)
    ibuf = np.zeros(2, np.int64)
    bbuf = np.array([True, True])
    # boxes: 0 (lo 0, shape 2, width 1), 1 (lo 0, shape 3, width 1), 2 (lo 0, shape 1, width 4)
    boxes = np.array([0, 2, 1, 0, 0, 3, 1, 0, 0, 1, 4, 0], np.int64)
    box_at = np.array([0, 4, 8, 12], np.int64)
    return ops, ibuf, bbuf, boxes, box_at, 2, 3
