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

Lookup. Two paths:

* *exact match*: the entries are a dict keyed by geometry. While every live entry of a tensor
  is either identical to or disjoint from every other (the tensor's ``disjoint`` flag, kept
  up to date on insertion), the entry with the same key is the only overlapping one: O(1).
* *overlap*: otherwise, or when the geometry is new, an interval index is searched. Each region
  is mapped to the interval [lo, hi] that its points occupy on a line: the row-major
  linearisation of the index space when the tensor's shape is known (``declare``), else the
  leading dimension. Linearisation is monotone in every coordinate, so overlapping regions
  have intersecting intervals; the exact test (``TensorRegion.overlaps``) then filters the
  candidates. Intervals live in a multi-level bucket grid: level L has buckets of width 8**L
  and holds the entries whose span is at most 8**L, each in at most two buckets. A query scans,
  on each occupied level, the buckets its interval covers (or the level's occupied buckets if
  those are fewer). A workload whose tasks touch rows or tiles finds only its neighbours, so
  building is near-linear in the number of tasks; regions that cut across the line (column
  tiles of a row-major matrix) degrade towards a scan of the tensor's entries.

``gc_before(t)`` forgets every access by a task older than ``t`` (task_window support: tasks
that have left the window are complete, so nothing needs to wait for them).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from operator import mul

from pto_wsp.runtime.regions import TensorRegion

__all__ = ["TensorMap"]


class _Entry:
    """The last writer of one region geometry and the readers since that write."""

    __slots__ = ("region", "writer", "readers", "lo", "hi", "level", "b0", "b1")

    def __init__(self, region: TensorRegion, lo: int, hi: int) -> None:
        self.region = region
        self.writer = -1
        self.readers: list[int] = []
        self.lo = lo
        self.hi = hi
        span = hi - lo
        # The smallest level whose bucket width 8**L is >= span: the entry spans <= 2 buckets.
        self.level = ((span - 1).bit_length() + 2) // 3 if span > 0 else 0
        shift = 3 * self.level
        self.b0 = lo >> shift
        self.b1 = hi >> shift


class _TensorState:
    """One tensor's entries: by geometry key, and in the bucket grid by their interval."""

    __slots__ = ("exact", "levels", "disjoint", "mults", "rank")

    def __init__(self, mults: tuple[int, ...] | None) -> None:
        self.rank = -1 if mults is None else len(mults)
        self.exact: dict[tuple, _Entry] = {}
        # level -> bucket index -> {key: entry}
        self.levels: dict[int, dict[int, dict[tuple, _Entry]]] = {}
        # True while every pair of live entries is identical-or-disjoint (see module doc).
        self.disjoint = True
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
        ext = sum((n - 1) * s * m for n, s, m in zip(region.sizes, region.strides, mults))
        return lo, lo + ext

    def insert(self, entry: _Entry) -> None:
        key = entry.region.key
        self.exact[key] = entry
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
        key = entry.region.key
        del self.exact[key]
        level = self.levels[entry.level]
        for b in (entry.b0, entry.b1) if entry.b1 != entry.b0 else (entry.b0,):
            bucket = level[b]
            del bucket[key]
            if not bucket:
                del level[b]
        if not level:
            del self.levels[entry.level]
        if not self.exact:
            self.disjoint = True

    def overlapping(self, region: TensorRegion, lo: int, hi: int) -> list[_Entry]:
        """The entries whose region overlaps ``region`` (whose interval is [lo, hi])."""
        found: dict[tuple, _Entry] = {}
        for lv, level in self.levels.items():
            shift = 3 * lv
            q0 = lo >> shift
            q1 = hi >> shift
            if q1 - q0 < len(level):
                for b in range(q0, q1 + 1):
                    bucket = level.get(b)
                    if bucket is not None:
                        found.update(bucket)
            else:
                for b, bucket in level.items():
                    if q0 <= b <= q1:
                        found.update(bucket)
        # Interval intersection is necessary, the exact test decides.
        return [
            e for e in found.values() if e.lo <= hi and lo <= e.hi and e.region.overlaps(region)
        ]


class TensorMap:
    """The last writers and the readers since, per region of each tensor; see the module doc.

    ``shapes`` maps tensor ids to their shapes; a known shape makes the overlap index use the
    row-major linearisation of the whole index space instead of the leading dimension alone
    (tiles of a [B, H, S, D] tensor cut per (b, h) then never share a bucket).
    """

    __slots__ = ("_tensors", "_shapes")

    def __init__(self, shapes: Mapping[str | int, Iterable[int]] | None = None) -> None:
        self._tensors: dict[str | int, _TensorState] = {}
        self._shapes: dict[str | int, tuple[int, ...]] = {}
        for tensor, shape in (shapes or {}).items():
            self.declare(tensor, shape)

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

    def _candidates(self, st: _TensorState, region: TensorRegion) -> list[_Entry]:
        entry = st.exact.get(region.key)
        if entry is not None and st.disjoint:
            return [entry]
        lo, hi = st.interval(region)
        return st.overlapping(region, lo, hi)

    def lookup(self, region: TensorRegion) -> tuple[list[int], list[int]]:
        """The last writers of regions overlapping ``region``, and the readers since those
        writes; each list ascending and without repeats. Records nothing."""
        st = self._tensors.get(region.tensor)
        if st is None or region.is_empty:
            return [], []
        writers: set[int] = set()
        readers: set[int] = set()
        for e in self._candidates(st, region):
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
        if entry is not None and st.disjoint:
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
        lo, hi = st.interval(region)
        cands = st.overlapping(region, lo, hi) if st.exact else []
        if region.writes:
            dst = raw if region.reads else waw
            for c in cands:
                if c.writer >= 0:
                    dst.append(c.writer)
                if c.readers:
                    war.extend(c.readers)
            partial = False
            for c in cands:
                if c is not entry:
                    if region.contains(c.region):
                        st.remove(c)
                    else:
                        partial = True
            if entry is None:
                entry = _Entry(region, lo, hi)
                st.insert(entry)
            if partial:
                st.disjoint = False
            entry.writer = task
            entry.readers = []
        else:
            for c in cands:
                if c.writer >= 0:
                    raw.append(c.writer)
            if entry is None:
                entry = _Entry(region, lo, hi)
                st.insert(entry)
                if cands:
                    st.disjoint = False
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
