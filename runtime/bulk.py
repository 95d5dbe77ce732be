"""Vectorised dependency inference: batches of tasks as arrays (``GraphBuilder.add_tasks``).

``BulkDeps`` (below) is what the GraphBuilder uses: per tensor touched by batches, per tiling
(sizes, strides, offsets modulo the tile width) a box of cells with the last writer of each
and the (cell, task) pairs read since; a batch's accesses are merged per (task, cell), sorted
by cell then task, and the TensorMap's rules are applied with running maxima/minima along each
cell's accesses (the previous writer, the next writer), joins against the earlier readers, and
for tilings nested with the batch's — finer (their cells inside ours: seen until our cell's
first write, which removes them, as the TensorMap removes contained entries) or coarser (a cell
containing ours: seen by every access, never removed) — the same per cell. ``plan`` refuses
what this does not cover exactly (several tilings of one tensor in one batch, tilings that
only partly overlap, strided nesting, sizes varying per task, entries in the TensorMap's
interval index); the builder then creates the batch task by task. What depends on the groups
alone (``classify``: the accesses per tensor, their tiling, cells and box; the cells
linearised per box) is kept on a ``Groups``' memo; the checks against the state run each
time. ``iter_batch`` gives a batch's tasks as ``add_task`` arguments, in creation order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import prod
from typing import Any

import numpy as np

from pto_wsp.runtime.bulk_kernels import (
    _EMPTY,
    OP_COARSER,
    OP_FINER,
    OP_NEW,
    OP_OWN,
    OP_REFIT,
    OP_SINGLE,
    cells_of,
    coarser_pass,
    finer_pass,
    lin_of,
    own_pass,
    single_pass,
)

# runtime/graph.py's edge kinds (graph.py imports this module).
EDGE_RAW, EDGE_WAW, EDGE_WAR = 1, 2, 3

__all__ = ["BatchRegion", "BulkDeps", "Groups", "iter_batch"]


class Groups(list):
    """A batch's groups as kept by a batch site of the generated code (``simgen``), which
    hands the same object to ``add_tasks`` every time its key matches: ``memo`` holds what
    is derived from the groups alone (their accesses classified per tensor, the per-node
    field arrays, the lazy per-task fields), computed on first use. Nothing may modify a
    group's arrays."""

    __slots__ = ("memo",)

    def __init__(self, groups=()) -> None:
        super().__init__(groups)
        self.memo: dict = {}


class BatchRegion:
    """The regions one ``tg.task`` op of a batch creates: per root dimension an offset, size
    and stride, each an int (the same for every task of the op) or an int array (one per task),
    plus the access and the kept dimensions (``ViewRegion``)."""

    __slots__ = ("tensor", "offsets", "sizes", "strides", "access", "kept", "unit")

    def __init__(self, tensor, offsets, sizes, strides, access, kept, unit=None) -> None:
        self.tensor = tensor
        self.offsets = tuple(offsets)
        self.sizes = tuple(sizes)
        self.strides = tuple(strides)
        self.access = access
        self.kept = tuple(kept)
        self.unit = unit


def _column(value: Any, m: int) -> list:
    """``value`` (an int or an array of m) as a list of m Python values."""
    if value.__class__ is np.ndarray:
        return value.tolist()
    return [value] * m


def _rows(columns: list[list], m: int) -> list[tuple]:
    if not columns:
        return [()] * m
    return list(zip(*columns))


def group_count(group: Sequence, n: int) -> int:
    """How many tasks a group of a batch of ``n`` creates."""
    pos = group[1]
    return n if pos is None else len(pos)


def group_fields(group: Sequence, n: int) -> tuple[list, list, list]:
    """The per-task (args, regions, coords) of one group, as lists of tuples."""
    from pto_wsp.runtime.kernels import ViewRegion

    _kernel, _pos, params, regions, coords = group[:5]
    m = group_count(group, n)
    args = _rows([_column(p, m) for p in params], m)
    cols = []
    for r in regions:
        if r.__class__ is not BatchRegion:
            cols.append([r] * m)
            continue
        offs = _rows([_column(x, m) for x in r.offsets], m)
        sizes = _rows([_column(x, m) for x in r.sizes], m)
        strides = _rows([_column(x, m) for x in r.strides], m)
        of = ViewRegion.of
        t, a, kept, unit = r.tensor, r.access, r.kept, r.unit
        cols.append([of(t, o, s, st, a, kept, unit) for o, s, st in zip(offs, sizes, strides)])
    regs = _rows(cols, m)
    names = [name for name, _ in coords]
    vals = _rows([_column(v, m) for _, v in coords], m)
    coord_rows = [tuple(zip(names, v)) for v in vals]
    return args, regs, coord_rows


def iter_batch(n: int, groups: Sequence[Sequence]) -> Iterator[tuple]:
    """The tasks of a batch as ``add_task`` argument tuples (kernel, args, regions, coords,
    pool, target, stream, priority, domain), in creation order."""
    rows: list = [None] * n
    for group in groups:
        kernel, pos = group[0], group[1]
        m = group_count(group, n)
        args, regs, coords = group_fields(group, n)
        rest = [_column(x, m) for x in group[5:10]]
        where = range(n) if pos is None else pos.tolist()
        for j, p in enumerate(where):
            rows[p] = (
                kernel,
                args[j],
                regs[j],
                coords[j],
                rest[0][j],
                rest[1][j],
                rest[2][j],
                rest[3][j],
                rest[4][j],
            )
    return iter(rows)


class _TensorPlan:
    """A batch's accesses to one tensor, all on one tiling (``key``): per access (key,
    positions, count, per-dimension cells, access, region index, lowest and highest cells),
    the batch's box of cells (lo, hi, size), and the accesses' cells linearised in a tiling
    box, kept per box (``lin``)."""

    __slots__ = ("key", "rank", "accesses", "lo", "hi", "size", "lin", "pos")

    def __init__(self, key: tuple, accesses: list) -> None:
        self.key = key
        self.rank = len(key[0])
        self.accesses = accesses
        first = accesses[0]
        lo, hi = list(first[6]), list(first[7])
        for a in accesses[1:]:
            for d, (x, y) in enumerate(zip(a[6], a[7])):
                if x < lo[d]:
                    lo[d] = x
                if y > hi[d]:
                    hi[d] = y
        self.lo, self.hi = lo, hi
        size = 1.0
        for x, y in zip(lo, hi):
            size *= y - x + 1
        self.size = size
        self.lin: dict[tuple, list] = {}
        self.pos: list | None = None


_MISSING = object()
#: Per tiling key: its widths and residues as arrays, whether unit-strided, and a zero box
#: origin (shared by every _Tiling of that key, never modified).
_KEY_ARRAYS: dict[tuple, tuple] = {}


def classify(n: int, groups: Sequence[Sequence], skip: frozenset = frozenset()) -> dict | None:
    """A batch's accesses per tensor (a tuple of ``_TensorPlan``, one per tiling), from its
    groups alone; None when the array rule cannot take them (sizes or strides varying per
    task, offsets off one tiling, a tensor's accesses on several tilings that are not nested
    or whose cells meet: ``_disjoint_tilings``). Accesses to the tensors of ``skip``
    (declared read-only: ``GraphBuilder.read_only``) are left out — whatever their geometry —
    and a region writing one raises ``ValueError``."""
    per: dict[Any, list] = {}
    # Per (offset array, tile width): its cells, their range, and whether one residue.
    seen: dict[tuple[int, int], tuple] = {}
    ndarray = np.ndarray
    for group in groups:
        pos = group[1]
        m = n if pos is None else len(pos)
        if not m:
            continue
        ri = -1
        for r in group[3]:
            ri += 1
            tensor = r.tensor
            if skip and tensor in skip:
                if r.access != "in":
                    raise ValueError(read_only_error(f"kernel {group[0]!r}", r))
                continue
            sizes, strides = r.sizes, r.strides
            for v in sizes:
                if v.__class__ is ndarray:
                    sizes = _uniform(sizes)
                    if sizes is None:
                        return None
                    break
            for v in strides:
                if v.__class__ is ndarray:
                    strides = _uniform(strides)
                    if strides is None:
                        return None
                    break
            if 0 in sizes:
                continue  # an empty region: no access (TensorMap.access)
            if min(strides, default=1) < 1:
                return None
            rank = len(sizes)
            if len(r.offsets) != rank or len(strides) != rank:
                return None
            res, cells, lo, hi = [0] * rank, [0] * rank, [0] * rank, [0] * rank
            d = 0
            for o in r.offsets:
                w = sizes[d] * strides[d]
                if o.__class__ is ndarray:
                    hit = seen.get((id(o), w))
                    if hit is None:
                        hit = seen[(id(o), w)] = cells_of(o, w)
                        if hit is None:
                            return None
                    cells[d], res[d], lo[d], hi[d] = hit
                else:
                    q, res[d] = divmod(o, w)
                    cells[d] = lo[d] = hi[d] = q
                d += 1
            key = (tuple(sizes), tuple(strides), tuple(res))
            acc = (key, pos, m, cells, r.access, ri, lo, hi)
            accs = per.get(tensor)
            if accs is None:
                per[tensor] = [acc]
            else:
                accs.append(acc)
    out = {}
    for tensor, accesses in per.items():
        key = accesses[0][0]
        if all(a[0] == key for a in accesses):
            out[tensor] = (_TensorPlan(key, accesses),)
            continue
        by_key: dict[tuple, list] = {}
        for a in accesses:
            by_key.setdefault(a[0], []).append(a)
        plans = tuple(_TensorPlan(k, acc) for k, acc in by_key.items())
        if not _disjoint_tilings(plans):
            return None
        out[tensor] = plans
    return out


def _disjoint_tilings(plans: tuple[_TensorPlan, ...]) -> bool:
    """Whether a batch's accesses to one tensor on several tilings can be taken one tiling
    after the other: every two tilings nested (one's cells inside the other's), and no cell
    of the finer one inside a cell the coarser one's accesses touch. Then no task of the
    batch overlaps a task on another tiling, and the order between them does not matter."""
    cells = [_access_cells(tp) for tp in plans]
    for i, a in enumerate(plans):
        for j in range(i + 1, len(plans)):
            b = plans[j]
            rel = _relation(a.key, b.key)
            if rel is None:
                return False
            fine, coarse = (j, i) if rel == "finer" else (i, j)
            (fs, _, fr), (cs, _, cr) = plans[fine].key, plans[coarse].key
            # The coarse cell holding each fine cell (unit strides: _relation's condition).
            inside = [
                (c * w + r - r2) // w2 for c, w, r, w2, r2 in zip(cells[fine], fs, fr, cs, cr)
            ]
            if _meet(inside, cells[coarse]):
                return False
    return True


def _access_cells(tp: _TensorPlan) -> list[np.ndarray]:
    """The cells (per dimension, one entry per access of every task) of a plan's accesses."""
    out = []
    for d in range(tp.rank):
        parts = [np.broadcast_to(np.asarray(a[3][d], dtype=np.int64), (a[2],)) for a in tp.accesses]
        out.append(np.concatenate(parts))
    return out


def _meet(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    """Whether two sets of cell coordinates (per dimension arrays) share a cell."""
    if not len(a[0]) or not len(b[0]):
        return False
    lin_a = np.zeros(len(a[0]), dtype=np.int64)
    lin_b = np.zeros(len(b[0]), dtype=np.int64)
    size = 1
    for x, y in zip(a, b):
        lo = min(int(x.min()), int(y.min()))
        extent = max(int(x.max()), int(y.max())) - lo + 1
        size *= extent
        if size >= 1 << 62:
            return True  # too wide to linearise: assume they meet (the per-task path decides)
        lin_a = lin_a * extent + (x - lo)
        lin_b = lin_b * extent + (y - lo)
    return bool(np.isin(lin_a, lin_b, assume_unique=False).any())


def read_only_error(who: str, region: Any) -> str:
    """The error of a region writing a tensor declared read-only (``GraphBuilder.read_only``)."""
    return (
        f"{who}: {region.access} access to tensor {region.tensor!r}, which was declared "
        "read-only (GraphBuilder.read_only: no task writes it, so its reads take no part in "
        "dependency inference)"
    )


def _cells_box(cells: list, rank: int) -> tuple[list, list]:
    return (
        [min(c[d] for c in cells) for d in range(rank)],
        [max(c[d] for c in cells) for d in range(rank)],
    )


class _Tiling:
    """One tiling of a tensor in array form: the last writer of each cell of a box of cells,
    and the (cell, task) pairs read since those writes, in creation order."""

    __slots__ = (
        "key",
        "widths",
        "residues",
        "unit",
        "lo",
        "shape",
        "writer",
        "r_cell",
        "r_task",
        "_lo",
        "_hi",
        "_shape",
        "box",
        "slot",
        "bid",
    )

    def __init__(self, key: tuple) -> None:
        self.key = key
        arrays = _KEY_ARRAYS.get(key)
        if arrays is None:
            if len(_KEY_ARRAYS) >= 4096:
                _KEY_ARRAYS.clear()
            sizes, strides, residues = key
            widths = np.array([a * b for a, b in zip(sizes, strides)], dtype=np.int64)
            arrays = _KEY_ARRAYS[key] = (
                widths,
                np.array(residues, dtype=np.int64),
                all(s == 1 for s in strides),
                np.zeros(len(sizes), dtype=np.int64),
            )
        # Shared per key and never modified (fit replaces lo and shape).
        self.widths, self.residues, self.unit, self.lo = arrays
        self.shape = self.lo
        self.writer = self.r_cell = self.r_task = _EMPTY
        self._lo: list[int] = []
        self._hi: list[int] = []
        self._shape: list[int] = []
        self.box: tuple = ()  # lo and shape: the key of cells linearised in this box
        self.slot = -1  # its state's number and its box's, in a recorded build (``BulkDeps.rec``)
        self.bid = -1

    @property
    def live(self) -> bool:
        return bool(len(self.r_cell)) or bool((self.writer >= 0).any())

    def fit(self, lo: np.ndarray | list, hi: np.ndarray | list, limit: int) -> bool:
        """Grow the box to hold cells lo..hi (inclusive, arrays or lists); False if it would
        exceed ``limit``."""
        lo_l = lo if lo.__class__ is list else lo.tolist()
        hi_l = hi if hi.__class__ is list else hi.tolist()
        if not self.writer.size:
            shape = [b - a + 1 for a, b in zip(lo_l, hi_l)]
            size = prod(shape)
            if size > limit:
                return False
            self.writer = np.full(size, -1, dtype=np.int64)
            self.lo = np.array(lo_l, dtype=np.int64)
            self.shape = np.array(shape, dtype=np.int64)
            self._lo, self._hi, self._shape = list(lo_l), list(hi_l), shape
            self.box = (*lo_l, *shape)
            return True
        if (lo_l == self._lo and hi_l == self._hi) or all(
            a >= b and c <= d for a, b, c, d in zip(lo_l, self._lo, hi_l, self._hi)
        ):
            return True  # already inside
        new_lo = [min(a, b) for a, b in zip(lo_l, self._lo)]
        new_hi = [max(a, b) for a, b in zip(hi_l, self._hi)]
        new_shape = [b - a + 1 for a, b in zip(new_lo, new_hi)]
        if prod(float(x) for x in new_shape) > limit:
            return False
        lo_a, shape_a = np.array(new_lo, dtype=np.int64), np.array(new_shape, dtype=np.int64)
        writer = np.full(prod(new_shape), -1, dtype=np.int64)
        old = self.coords(np.arange(self.writer.size))
        writer[self._lin(old, lo_a, shape_a)] = self.writer
        self.r_cell = self._lin(self.coords(self.r_cell), lo_a, shape_a)
        self.lo, self.shape, self.writer = lo_a, shape_a, writer
        self._lo, self._hi, self._shape = new_lo, new_hi, new_shape
        self.box = (*new_lo, *new_shape)
        return True

    @staticmethod
    def _lin(coords: np.ndarray, lo: np.ndarray, shape: np.ndarray) -> np.ndarray:
        """Row-major linear index of cell coordinates (rank, m) in a box."""
        lin = np.zeros(coords.shape[1], dtype=np.int64)
        for d in range(len(shape)):
            lin = lin * shape[d] + (coords[d] - lo[d])
        return lin

    def lin(self, coords: np.ndarray) -> np.ndarray:
        return self._lin(coords, self.lo, self.shape)

    def inside(self, coords: np.ndarray) -> np.ndarray:
        """Which cell coordinates (rank, m) lie in the box."""
        rel = coords - self.lo[:, None]
        return ((rel >= 0) & (rel < self.shape[:, None])).all(axis=0)

    def coords(self, lin: np.ndarray) -> np.ndarray:
        if not len(self.shape):
            return np.zeros((0, len(lin)), dtype=np.int64)
        return (
            np.array(np.unravel_index(lin, tuple(self.shape.tolist())), dtype=np.int64).reshape(
                len(self.shape), -1
            )
            + self.lo[:, None]
        )

    def convert(self, coords: np.ndarray, other: _Tiling) -> np.ndarray:
        """Cell coordinates of this tiling -> the cells of ``other`` holding their first
        point (for nested tilings: the containing cell)."""
        first = coords * self.widths[:, None] + self.residues[:, None]
        return (first - other.residues[:, None]) // other.widths[:, None]


def _cells_lin(t: _Tiling, cells: list, m: int) -> np.ndarray:
    """Linear indices in ``t``'s box of per-dimension cell indices (ints or arrays of m)."""
    shape, lo = t._shape, t._lo
    arrays, ks = [], []
    const = 0
    stride = 1
    for d in range(len(cells) - 1, -1, -1):
        c = cells[d]
        const -= lo[d] * stride
        if c.__class__ is np.ndarray:
            arrays.append(c)
            ks.append(stride)
        else:
            const += int(c) * stride
        stride *= shape[d]
    if not arrays:
        return np.full(m, const, dtype=np.int64)
    lin = lin_of(arrays, ks, const)
    if lin is not None:
        return lin
    for c, k in zip(arrays, ks):
        c = c.astype(np.int64, copy=False)
        term = c * k if k != 1 else c
        lin = term if lin is None else lin + term
    return lin + const if const else lin.astype(np.int64, copy=True)


#: A tiling's box of cells holds at most this many cells (else the batch takes the per-task
#: path).
MAX_CELLS = 1 << 24


class BulkDeps:
    """Data-dependency state in array form for the tensors that batches have touched, and the
    batch rule: exactly the edges the TensorMap would give, task by task (module doc of
    runtime/graph.py, "Batches")."""

    def __init__(self, rec: list | None = None) -> None:
        self.tensors: dict[Any, dict[tuple, _Tiling]] = {}
        self.ranks: dict[Any, int] = {}
        # The build's recording (runtime/tape.py): the passes in order with their inputs, the
        # tilings' boxes. None: not recorded (or given up: a tensor moved to or from the
        # TensorMap, which a replay does not do).
        self.rec = rec
        self.boxes: list[tuple] = []
        self.nslots = 0

    # --------------------------------------------------------------- planning

    def plan(
        self, n: int, groups: Sequence[Sequence], tensormap: Any, skip: frozenset = frozenset()
    ) -> dict | None:
        """Classify a batch's accesses per tensor; None when the array rule is not exact for
        it (the caller takes the per-task path). The classification depends on the groups
        alone (kept in ``Groups.memo``, per set of ``skip``ped tensors: those declared
        read-only, which take no part); the checks against the tensors' state run each time."""
        memo = getattr(groups, "memo", None)
        if memo is None:
            per = classify(n, groups, skip)
        else:
            mkey = ("per", skip) if skip else "per"
            per = memo.get(mkey, _MISSING)
            if per is _MISSING:
                per = memo[mkey] = classify(n, groups, skip)
        if per is None:
            return None
        tensors = self.tensors
        states = tensormap._tensors
        for tensor, tps in per.items():
            for tp in tps:
                if not self._fits(tensor, tp, tensors, states, tensormap):
                    return None
        return per

    def _fits(self, tensor, tp: _TensorPlan, tensors: dict, states: dict, tensormap) -> bool:
        """Whether the array rule is exact for a plan's accesses, given the tensor's state."""
        st = states.get(tensor)
        tilings = tensors.get(tensor)
        if st is None and tilings is None:
            return tp.size <= MAX_CELLS
        key, rank = tp.key, tp.rank
        if self.ranks.get(tensor, rank) != rank:
            return False
        if st is None:
            # Array state alone (the common case): the union of two boxes, then the tilings.
            mine = tilings.get(key)
            if mine is None or not mine.writer.size:
                size = tp.size
            else:
                size = 1.0
                for a, b, c, d in zip(tp.lo, tp.hi, mine._lo, mine._hi):
                    size *= (b if b > d else d) - (a if a < c else c) + 1
            if size > MAX_CELLS:
                return False
            if mine is None or len(tilings) > 1:
                for other in tilings:
                    if other != key and _relation(key, other) is None:
                        return False
            return True
        boxes = [(tp.lo, tp.hi)]
        mine = None if tilings is None else tilings.get(key)
        if mine is not None and mine.writer.size:
            boxes.append((mine._lo, mine._hi))
        if key in st.grids and st.grids[key].cells:
            boxes.append(_cells_box(list(st.grids[key].cells), rank))
        if len(boxes) == 1:
            size = tp.size
        else:
            size = 1.0
            for d in range(rank):
                size *= max(b[1][d] for b in boxes) - min(b[0][d] for b in boxes) + 1
        if size > MAX_CELLS:
            return False
        if st.exact:
            if st.levels or st.rank != rank:
                return False  # regions outside the grids: the per-task path decides
            for grid in st.grids.values():
                if grid.cells and _box(list(grid.cells)) > MAX_CELLS:
                    return False
        for other in self._existing(tensor, tensormap):
            if other != key and _relation(key, other) is None:
                return False
        return True

    def _existing(self, tensor, tensormap) -> list[tuple]:
        keys = list(self.tensors.get(tensor, {}))
        st = tensormap._tensors.get(tensor)
        if st is not None and st.exact:
            keys += [k for k in st.grids if k not in keys]
        return keys

    # --------------------------------------------------------------- state moves

    def adopt(self, tensor, tensormap) -> None:
        """Move a tensor's TensorMap entries (all in tiling grids) into array form."""
        st = tensormap._tensors.get(tensor)
        if st is None or not st.exact:
            tensormap._tensors.pop(tensor, None)
            return
        self.rec = None
        tilings = self.tensors.setdefault(tensor, {})
        self.ranks[tensor] = st.rank
        for gkey, grid in st.grids.items():
            if not grid.cells:
                continue
            t = tilings.get(gkey)
            if t is None:
                t = tilings[gkey] = _Tiling(gkey)
            cells = np.array(list(grid.cells), dtype=np.int64).reshape(-1, len(gkey[0])).T
            if not t.fit(cells.min(axis=1), cells.max(axis=1), MAX_CELLS):
                raise RuntimeError("internal: adopted tiling too large")
            lin = t.lin(cells)
            entries = list(grid.cells.values())
            t.writer[lin] = [e.writer for e in entries]
            rc = [c for c, e in zip(lin.tolist(), entries) for _ in e.readers]
            rt = [r for e in entries for r in e.readers]
            order = np.argsort(np.array(rt, dtype=np.int64), kind="stable")
            t.r_cell = np.concatenate([t.r_cell, np.array(rc, dtype=np.int64)[order]])
            t.r_task = np.concatenate([t.r_task, np.array(rt, dtype=np.int64)[order]])
        del tensormap._tensors[tensor]

    def release(self, tensor, tensormap) -> None:
        """Move a tensor's array state into TensorMap entries (a per-task access arrived)."""
        from pto_wsp.runtime.regions import TensorRegion
        from pto_wsp.runtime.tensormap import _Entry

        self.rec = None
        tilings = self.tensors.pop(tensor, {})
        rank = self.ranks.pop(tensor, None)
        live = [t for t in tilings.values() if t.live]
        if not live:
            return
        st = tensormap._state(tensor)
        st.rank = rank
        alone = len(live) == 1
        for t in live:
            sizes, strides, residues = t.key
            order = np.argsort(t.r_cell, kind="stable")
            rc, rt = t.r_cell[order], t.r_task[order]
            cells = np.union1d(np.flatnonzero(t.writer >= 0), rc)
            lo = np.searchsorted(rc, cells, "left")
            hi = np.searchsorted(rc, cells, "right")
            coords = t.coords(cells)
            offsets = (coords * t.widths[:, None] + t.residues[:, None]).T.tolist()
            writers = t.writer[cells].tolist()
            rt_list = rt.tolist()
            for off, w, a, b in zip(offsets, writers, lo.tolist(), hi.tolist()):
                region = TensorRegion(tensor, off, sizes, strides)
                e = _Entry(region)
                e.writer = w
                e.readers = rt_list[a:b]
                e.alone = alone
                gkey, widths, grid = st.classify(region)
                st.insert(e, gkey, widths, grid)

    # --------------------------------------------------------------- the batch rule

    def apply(self, tid0: int, n: int, plan: dict, tensormap: Any) -> list[np.ndarray]:
        """Record the batch's accesses; return its data edges as int64 arrays of rows src,
        dst, kind."""
        out = []
        states = tensormap._tensors
        for tensor, tps in plan.items():
            if tensor in states:
                self.adopt(tensor, tensormap)
            for tp in tps:  # several tilings: disjoint (classify), one after the other
                out.extend(self._tensor(tensor, tid0, n, tp))
        return out

    def _fit(self, t: _Tiling, lo: np.ndarray | list, hi: np.ndarray | list) -> None:
        """``t.fit`` (its box grown to hold cells lo..hi), recorded when the build is."""
        new, box = not t.writer.size, t.box
        if not t.fit(lo, hi, MAX_CELLS):
            raise RuntimeError("internal: tiling box too large")
        rec = self.rec
        if rec is not None and (new or t.box != box):
            old, t.bid = t.bid, len(self.boxes)
            self.boxes.append((t.lo, t.shape, t.widths, t.residues))
            if new:
                rec.append((OP_NEW, t.slot, t.writer.size))
            else:
                rec.append((OP_REFIT, t.slot, old, t.bid))

    @staticmethod
    def _lins(tp: _TensorPlan, own: _Tiling) -> list:
        """The plan's accesses' cells linearised in ``own``'s box (kept per box), and their
        concatenation (made when first asked for: the last entry)."""
        bkey = own.box
        lins = tp.lin.get(bkey)
        if lins is None:
            if len(tp.lin) >= 4:
                tp.lin.clear()
            lins = [_cells_lin(own, a[3], a[2]) for a in tp.accesses]
            lins.append(None)
            tp.lin[bkey] = lins  # complete before another thread can see it
        return lins

    def _single(self, own: _Tiling, tid0: int, n: int, tp: _TensorPlan) -> list[tuple] | None:
        """One region per task on the tensor's only tiling, each cell touched by one task:
        no order inside the batch. None if some cell is touched twice (the general pass)."""
        _key, pos, m, cells, mode, _ri, lo, hi = tp.accesses[0]
        self._fit(own, lo, hi)
        g = self._lins(tp, own)[0]
        if pos is None:
            t = np.arange(tid0, tid0 + n, dtype=np.int64)
        else:
            t = pos + tid0 if pos.dtype == np.int64 else pos.astype(np.int64) + tid0
        done, E, own.r_cell, own.r_task = single_pass(
            g, t, mode != "out", mode != "in", own.writer, own.r_cell, own.r_task
        )
        if not done:
            return None
        if self.rec is not None:
            self.rec.append((OP_SINGLE, own.slot, g, t, mode != "out", mode != "in"))
        return [E] if E.shape[1] else []

    def _tensor(self, tensor, tid0: int, n: int, tp: _TensorPlan) -> list[tuple]:
        key, rank, accesses = tp.key, tp.rank, tp.accesses
        self.ranks[tensor] = rank
        tilings = self.tensors.get(tensor)
        if tilings is None:
            tilings = self.tensors[tensor] = {}
        own = tilings.get(key)
        if own is None:
            own = tilings[key] = _Tiling(key)
            own.slot = self.nslots
            self.nslots += 1
        if len(tilings) > 1:
            for okey in [k for k, o in tilings.items() if o is not own and not o.live]:
                del tilings[okey]  # nothing left there: no constraint on later tilings
        if len(accesses) == 1 and len(tilings) == 1:
            fast = self._single(own, tid0, n, tp)
            if fast is not None:
                return fast
        # The accesses: local task position, cell (linear in our box), reads, writes.
        self._fit(own, tp.lo, tp.hi)
        if tp.pos is None and len(accesses) == 1:
            _key, pos, m, _cells, access, ri, _lo, _hi = accesses[0]
            tp.pos = [
                np.arange(n, dtype=np.int64) if pos is None else pos.astype(np.int64),
                np.full(m, access != "out"),
                np.full(m, access != "in"),
                np.full(m, ri, dtype=np.int64),
            ]
        elif tp.pos is None:
            ps, rs, ws, ris = [], [], [], []
            for _key, pos, m, _cells, access, ri, _lo, _hi in accesses:
                ps.append(np.arange(n, dtype=np.int64) if pos is None else pos.astype(np.int64))
                rs.append(np.full(m, access != "out"))
                ws.append(np.full(m, access != "in"))
                ris.append(np.full(m, ri))
            cat = np.concatenate
            tp.pos = [cat(ps), cat(rs), cat(ws), cat(ris)]
        p, R, W, ri = tp.pos
        lins = self._lins(tp, own)
        g = lins[-1]
        if g is None:
            g = lins[-1] = lins[0] if len(lins) == 2 else np.concatenate(lins[:-1])
        if not len(p):
            return []
        # The rule on our tiling (bulk_kernels.own_pass; it sorts by (cell, task)).
        E, A, F, written, own.r_cell, own.r_task = own_pass(
            g, p, R, W, ri, n, tid0, own.writer, own.r_cell, own.r_task
        )
        rec = self.rec
        if rec is not None:
            rec.append((OP_OWN, own.slot, g, p, R, W, ri, n, tid0))
        parts = [E] if E.shape[1] else []
        for okey, other in list(tilings.items()):
            if other is own or not other.live:
                continue
            if _relation(key, okey) == "finer":
                # Cells of ``other`` inside ours: seen until our cell's first write, then gone.
                E, other.r_cell, other.r_task, alive = finer_pass(A, F, written, other, own)
                if rec is not None:
                    rec.append((OP_FINER, other.slot, own.slot, other.bid, own.bid))
                if not alive:
                    del tilings[okey]
            else:
                # A cell of ``other`` contains ours: seen by every access, never removed.
                E = coarser_pass(A, F, own, other)
                if rec is not None:
                    rec.append((OP_COARSER, other.slot, own.slot, own.bid, other.bid))
            if E.shape[1]:
                parts.append(E)
        return parts


def _uniform(values: tuple) -> tuple | None:
    """Sizes or strides as ints: an array must hold one value (else None)."""
    if not any(v.__class__ is np.ndarray for v in values):
        return values
    out = []
    for v in values:
        if v.__class__ is np.ndarray:
            if len(v) and (v != v[0]).any():
                return None
            v = int(v[0]) if len(v) else 0
        out.append(v)
    return tuple(out)


def _box(cells: list[tuple[int, ...]]) -> float:
    size = 1.0
    for d in range(len(cells[0])):
        size *= max(c[d] for c in cells) - min(c[d] for c in cells) + 1
    return size


_RELATIONS: dict[tuple, str | None] = {}


def _relation(key: tuple, other: tuple) -> str | None:
    """How tiling ``other`` sits against tiling ``key``: "finer" (each of its cells inside one
    of ours), "coarser" (each of ours inside one of its), or None (neither, or strided)."""
    pair = (key, other)
    rel = _RELATIONS.get(pair, _MISSING)
    if rel is _MISSING:
        if len(_RELATIONS) > 4096:
            _RELATIONS.clear()
        rel = _RELATIONS[pair] = _relation_of(key, other)
    return rel


def _relation_of(key: tuple, other: tuple) -> str | None:
    (s1, st1, r1), (s2, st2, r2) = key, other
    if len(s1) != len(s2) or any(x != 1 for x in st1) or any(x != 1 for x in st2):
        return None
    finer = all(
        b <= a and a % b == 0 and (ra - rb) % b == 0 for a, b, ra, rb in zip(s1, s2, r1, r2)
    )
    if finer:
        return "finer"
    coarser = all(
        a <= b and b % a == 0 and (rb - ra) % a == 0 for a, b, ra, rb in zip(s1, s2, r1, r2)
    )
    return "coarser" if coarser else None
