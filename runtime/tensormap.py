"""TensorMap: who last wrote, and who has read since, each region of each tensor (seed 004 §6.2.3).

Dependency inference asks, for every region a new task touches, which earlier tasks touched an
overlapping region of the same tensor: the last writers (read-after-write, write-after-write)
and the readers since those writes (write-after-read). A TensorMap answers that and then records
the new access.

State. Per tensor, one *entry* per distinct region geometry: the region, its last writer (or -1)
and the readers since that write, in creation order. A write replaces the entry's writer and
clears its readers, and drops every other entry whose region it contains: the new writer is
ordered after all of them (it took their writer and readers as dependencies), so anything that
later overlaps them also overlaps the new write and is ordered through it. Entries that a write
only partly covers stay; they may give later tasks an edge that is also implied transitively,
never a missing one.

Lookup, in three steps from cheapest:

* *exact match*: entries are a dict keyed by geometry, and each carries an ``alone`` flag, true
  while no other live entry overlaps it (cleared on both sides when an overlapping entry is
  added; removals never make it wrong). The same region again, alone: O(1), no geometry.
* *tiling grids*: entries are grouped by tiling — same sizes and strides, offsets equal modulo
  the tile width ``size * stride`` per dimension. Two regions of one tiling are identical or
  disjoint, so a tiling is a dict from tile index (``offset // width`` per dimension) to its
  entry, and the entries of a tiling that a query overlaps are found by arithmetic: the tile
  indices its bounding box covers per dimension, looked up cell by cell (or, when the box has
  more cells than the tiling has entries, by scanning those entries). A query skips its own
  tiling, where only its own entry can overlap it. With unit strides on both sides a cell hit
  is an overlap; otherwise ``TensorRegion.overlaps`` decides. Cost per query: a few dict
  lookups per tiling of the tensor, plus the overlaps found — independent of the number of
  entries for workloads that cut tensors into tiles, rows or (b, h) slices, whatever the
  dimension they cut.
* *interval index*: a tensor keeps at most ``MAX_GRIDS`` tilings; regions of further tilings
  (ragged sizes, sliding windows) go to an interval index. A region maps to the interval
  [lo, hi] its points occupy on a line: the row-major linearisation of the index space when
  the tensor's shape is known (``declare``), else its range on the leading dimension; this
  map is monotone in every coordinate, so overlapping regions have intersecting intervals.
  Intervals live in a multi-level bucket grid: level L has buckets of width 8**L and holds the
  entries whose span is at most 8**L, each in at most two buckets; a query scans, on each
  occupied level, the buckets its interval covers (or the level's occupied buckets if fewer),
  then filters with the exact test. Regions that cut across the line (column tiles of a
  row-major matrix) degrade it towards a scan of those entries.

``gc_before(t)`` forgets every access by a task older than ``t`` (task_window support: tasks
that have left the window are complete, so nothing needs to wait for them).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from itertools import product
from operator import add, floordiv, mod, mul, sub

from pto_wsp.lowering.regions import TensorRegion

__all__ = ["TensorMap"]


# A tensor indexes regions of at most this many distinct tilings in grids; the rest share the
# interval index.
MAX_GRIDS = 16


class _Entry:
    """The last writer of one region geometry and the readers since that write, and where the
    index keeps it: a cell of a grid (``gkey``: the grid's key, not the grid, so that entries
    and grids make no reference cycle and a dropped TensorMap is freed at once), or the
    interval index (``gkey`` None)."""

    __slots__ = (
        "region",
        "writer",
        "readers",
        "alone",
        "gkey",
        "cell",
        "lo",
        "hi",
        "level",
        "b0",
        "b1",
    )

    def __init__(self, region: TensorRegion) -> None:
        self.region = region
        self.writer = -1
        self.readers: list[int] = []
        # True while no other live entry overlaps this one (see the module doc).
        self.alone = True
        self.gkey: tuple | None = None
        self.cell: tuple[int, ...] = ()

    def place_on_line(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.hi = hi
        span = hi - lo
        # The smallest level whose bucket width 8**L is >= span: the entry spans <= 2 buckets.
        self.level = ((span - 1).bit_length() + 2) // 3 if span > 0 else 0
        shift = 3 * self.level
        self.b0 = lo >> shift
        self.b1 = hi >> shift


class _Grid:
    """A tiling: regions with the same sizes and strides whose offsets agree modulo the tile
    width ``size * stride`` per dimension. Its regions are identical or disjoint, one per cell
    (the tile index per dimension), so the cells a query's bounding box covers are found by
    arithmetic."""

    __slots__ = ("widths", "residues", "res1", "unit", "cells")

    def __init__(self, region: TensorRegion, widths: tuple[int, ...], residues: tuple[int, ...]):
        self.widths = widths
        self.residues = residues
        self.res1 = tuple(r + 1 for r in residues)
        self.unit = region.unit
        self.cells: dict[tuple[int, ...], _Entry] = {}

    def find(self, region: TensorRegion, found: list[_Entry]) -> None:
        """Append to ``found`` this grid's entries that overlap ``region``."""
        cells = self.cells
        res = self.residues
        widths = self.widths
        offsets = region.offsets
        k0 = tuple(map(floordiv, map(sub, offsets, res), widths))
        if region.unit:
            # last = offset + size - 1, folded into the residue: no per-region lasts tuple.
            k1 = tuple(map(floordiv, map(sub, map(add, offsets, region.sizes), self.res1), widths))
        else:
            k1 = tuple(map(floordiv, map(sub, region.lasts, res), widths))
        # With unit strides on both sides a cell met by the bounding box is a true overlap.
        exact = self.unit and region.unit
        if k0 == k1:
            e = cells.get(k0)
            if e is not None and (exact or e.region.overlaps(region)):
                found.append(e)
            return
        count = 1
        for a, b in zip(k0, k1):
            count *= b - a + 1
        if count <= len(cells):
            get = cells.get
            for cell in product(*[range(a, b + 1) for a, b in zip(k0, k1)]):
                e = get(cell)
                if e is not None and (exact or e.region.overlaps(region)):
                    found.append(e)
        else:
            overlaps = region.overlaps
            found.extend(e for e in cells.values() if overlaps(e.region))


class _TensorState:
    """One tensor's entries: by geometry key, and indexed by tiling grids and an interval
    index."""

    __slots__ = ("exact", "grids", "levels", "mults", "rank")

    def __init__(self, mults: tuple[int, ...] | None) -> None:
        self.rank = -1 if mults is None else len(mults)
        self.exact: dict[tuple, _Entry] = {}
        self.grids: dict[tuple, _Grid] = {}
        # The interval index: level -> bucket index -> {key: entry}.
        self.levels: dict[int, dict[int, dict[tuple, _Entry]]] = {}
        self.mults = mults

    def interval(self, region: TensorRegion) -> tuple[int, int]:
        """The interval of the line (see module doc) that the region's points occupy."""
        offs = region.offsets
        if not offs:
            return 0, 0
        mults = self.mults
        if mults is None:
            return region.bounds(0)
        lo = sum(map(mul, offs, mults))
        return lo, sum(map(mul, region.lasts, mults))

    def classify(self, region: TensorRegion) -> tuple[tuple, tuple[int, ...], _Grid | None]:
        """The region's tiling: its grid key, its tile widths and its grid if one exists."""
        widths = tuple(map(mul, region.sizes, region.strides))
        gkey = (region.sizes, region.strides, tuple(map(mod, region.offsets, widths)))
        return gkey, widths, self.grids.get(gkey)

    def insert(
        self, entry: _Entry, gkey: tuple, widths: tuple[int, ...], grid: _Grid | None
    ) -> None:
        """Add a new entry, classified by ``classify``."""
        region = entry.region
        key = region.key
        self.exact[key] = entry
        if grid is None and len(self.grids) < MAX_GRIDS:
            grid = self.grids[gkey] = _Grid(region, widths, gkey[2])
        if grid is not None:
            entry.gkey = gkey
            entry.cell = cell = tuple(map(floordiv, region.offsets, widths))
            grid.cells[cell] = entry
            return
        entry.place_on_line(*self.interval(region))
        level = self.levels.get(entry.level)
        if level is None:
            level = self.levels[entry.level] = {}
        bucket = level.get(entry.b0)
        if bucket is None:
            bucket = level[entry.b0] = {}
        bucket[key] = entry
        if entry.b1 != entry.b0:
            bucket = level.get(entry.b1)
            if bucket is None:
                bucket = level[entry.b1] = {}
            bucket[key] = entry

    def remove(self, entry: _Entry) -> None:
        region = entry.region
        key = region.key
        del self.exact[key]
        gkey = entry.gkey
        if gkey is not None:
            grid = self.grids[gkey]
            del grid.cells[entry.cell]
            if not grid.cells:
                del self.grids[gkey]  # free the slot for another tiling
            return
        level = self.levels[entry.level]
        for b in (entry.b0, entry.b1) if entry.b1 != entry.b0 else (entry.b0,):
            bucket = level[b]
            del bucket[key]
            if not bucket:
                del level[b]
        if not level:
            del self.levels[entry.level]

    def overlapping(self, region: TensorRegion, own: _Grid | None) -> list[_Entry]:
        """The entries whose region overlaps ``region`` (non-empty), except those of grid
        ``own``: the region's own tiling, where only an identical region can overlap it."""
        found: list[_Entry] = []
        for grid in self.grids.values():
            if grid is not own:
                grid.find(region, found)
        if self.levels:
            lo, hi = self.interval(region)
            on_line: dict[tuple, _Entry] = {}
            for lv, level in self.levels.items():
                shift = 3 * lv
                q0 = lo >> shift
                q1 = hi >> shift
                if q1 - q0 < len(level):
                    for b in range(q0, q1 + 1):
                        bucket = level.get(b)
                        if bucket is not None:
                            on_line.update(bucket)
                else:
                    for b, bucket in level.items():
                        if q0 <= b <= q1:
                            on_line.update(bucket)
            # Interval intersection is necessary, the exact test decides.
            found.extend(
                e
                for e in on_line.values()
                if e.lo <= hi and lo <= e.hi and e.region.overlaps(region)
            )
        return found


class TensorMap:
    """The last writers and the readers since, per region of each tensor; see the module doc.

    ``shapes`` maps tensor ids to their shapes (optional). Only the interval index uses them:
    with a shape it places regions by the row-major linearisation of the whole index space
    instead of their leading dimension alone (tiles of a [B, H, S, D] tensor cut per (b, h)
    then never share a bucket).

    API: ``access(region, task, raw, waw, war)`` — the dependencies of a new access, then
    record it (the builder's call); ``lookup(region)`` — the overlapping last writers and
    readers, recording nothing; ``record(region, task)``; ``gc_before(task)``; ``entries``.
    """

    __slots__ = ("_tensors", "_shapes")

    def __init__(self, shapes: Mapping[str | int, Iterable[int]] | None = None) -> None:
        self._tensors: dict[str | int, _TensorState] = {}
        # (declare's checks cannot fail on a fresh map: its work in one comprehension)
        self._shapes: dict[str | int, tuple[int, ...]] = {
            tensor: tuple(map(int, shape)) for tensor, shape in (shapes or {}).items()
        }

    def declare(self, tensor: str | int, shape: Iterable[int]) -> None:
        """Give the shape of ``tensor`` (before its first access) for a finer overlap index."""
        shape = tuple(int(n) for n in shape)
        if tensor in self._tensors and self._tensors[tensor].exact:
            raise ValueError(f"tensor {tensor!r} declared after it was accessed")
        self._shapes[tensor] = shape
        self._tensors.pop(tensor, None)

    def _state(self, tensor: str | int) -> _TensorState:
        st = self._tensors.get(tensor)
        if st is None:
            shape = self._shapes.get(tensor)
            mults = None
            if shape is not None:
                m = [1] * len(shape)
                for d in range(len(shape) - 2, -1, -1):
                    m[d] = m[d + 1] * max(shape[d + 1], 1)
                mults = tuple(m)
            st = self._tensors[tensor] = _TensorState(mults)
        return st

    def _candidates(
        self, st: _TensorState, region: TensorRegion, entry: _Entry | None
    ) -> tuple[list[_Entry], tuple, tuple[int, ...], _Grid | None]:
        """The entries overlapping ``region`` (whose entry, if any, is ``entry``), and the
        region's classification."""
        gkey, widths, grid = st.classify(region)
        cands = st.overlapping(region, grid) if st.exact else []
        if entry is not None and entry.gkey is not None:
            # Its own grid was skipped (an entry of the interval index was found there).
            cands.append(entry)
        return cands, gkey, widths, grid

    def lookup(self, region: TensorRegion) -> tuple[list[int], list[int]]:
        """The last writers of regions overlapping ``region``, and the readers since those
        writes; each list ascending and without repeats. Records nothing."""
        st = self._tensors.get(region.tensor)
        if st is None or region.is_empty:
            return [], []
        writers: set[int] = set()
        readers: set[int] = set()
        entry = st.exact.get(region.key)
        cands = [entry] if entry is not None and entry.alone else None
        if cands is None:
            cands = self._candidates(st, region, entry)[0]
        for e in cands:
            if e.writer >= 0:
                writers.add(e.writer)
            readers.update(e.readers)
        return sorted(writers), sorted(readers)

    def access(
        self,
        region: TensorRegion,
        task: int,
        raw: list[int],
        waw: list[int],
        war: list[int],
    ) -> None:
        """Record that ``task`` accesses ``region`` (by its access), appending its dependencies
        to ``raw`` (read-after-write), ``waw`` and ``war``: the tasks it must run after.

        Task ids must not decrease from one call to the next. The lists may contain ``task``
        itself (a task touching one region twice) and repeats; callers filter.
        """
        if 0 in region.sizes:
            return
        st = self._tensors.get(region.tensor)
        if st is None:
            st = self._state(region.tensor)
        key = region.key
        entry = st.exact.get(key)
        if entry is not None and entry.alone:
            # Fast path: the same region again, and nothing else on this tensor overlaps it.
            if region.writes:
                if entry.writer >= 0:
                    (raw if region.reads else waw).append(entry.writer)
                war.extend(entry.readers)
                entry.writer = task
                entry.readers = []
            else:
                if entry.writer >= 0:
                    raw.append(entry.writer)
                readers = entry.readers
                if not readers or readers[-1] != task:
                    readers.append(task)
            return

        if st.rank != len(key[1]):
            if st.rank >= 0:
                raise ValueError(
                    f"tensor {region.tensor!r}: a region of rank {len(key[1])} after rank {st.rank}"
                )
            st.rank = len(key[1])
        cands, gkey, widths, grid = self._candidates(st, region, entry)
        if region.writes:
            dst = raw if region.reads else waw
            for c in cands:
                if c.writer >= 0:
                    dst.append(c.writer)
                if c.readers:
                    war.extend(c.readers)
            kept = False
            for c in cands:
                if c is not entry:
                    if region.contains(c.region):
                        st.remove(c)
                    else:
                        c.alone = False
                        kept = True
            if entry is None:
                entry = _Entry(region)
                st.insert(entry, gkey, widths, grid)
            if kept:
                entry.alone = False
            entry.writer = task
            entry.readers = []
        else:
            for c in cands:
                if c.writer >= 0:
                    raw.append(c.writer)
            if entry is None:
                entry = _Entry(region)
                st.insert(entry, gkey, widths, grid)
                if cands:
                    entry.alone = False
                    for c in cands:
                        c.alone = False
            readers = entry.readers
            if not readers or readers[-1] != task:
                readers.append(task)

    def record(self, region: TensorRegion, task: int) -> None:
        """Record an access of ``task`` without collecting its dependencies."""
        self.access(region, task, [], [], [])

    def gc_before(self, task: int) -> int:
        """Forget every access by a task older than ``task``; return how many entries went.

        Cost O(live entries): a runtime calls it once per window's worth of tasks, not per task.
        """
        dropped = 0
        for st in self._tensors.values():
            dead = []
            for e in st.exact.values():
                if 0 <= e.writer < task:
                    e.writer = -1
                if e.readers and e.readers[0] < task:
                    # Readers are appended in creation order.
                    e.readers = e.readers[bisect_left(e.readers, task) :]
                if e.writer < 0 and not e.readers:
                    dead.append(e)
            for e in dead:
                st.remove(e)
            dropped += len(dead)
        return dropped

    def __len__(self) -> int:
        """The number of live entries (distinct region geometries with a writer or readers)."""
        return sum(len(st.exact) for st in self._tensors.values())

    def entries(self, tensor: str | int) -> list[tuple[TensorRegion, int, list[int]]]:
        """The live entries of ``tensor`` as (region, last writer or -1, readers since)."""
        st = self._tensors.get(tensor)
        if st is None:
            return []
        return [(e.region, e.writer, list(e.readers)) for e in st.exact.values()]
