"""A prototype of vectorised dependency inference for regular stages of tasks.

DESIGN.md: per-task Python costs ~0.5 µs at best, and the per-task graph build
(``GraphBuilder`` + ``TensorMap``) costs tens of µs; the way to the 5,000 tasks/ms anchor is
to handle a regular loop's tasks as arrays. This module is that idea for the dependency
inference, on its own (not yet fed by the code generator): a *stage* is n tasks created in
order (a loop), each accessing a fixed number of tiles of fine, regular grids — one grid per
tensor, every region a union of its tiles (``Q[b, h]`` of a [B, H, S, D] tensor cut in row
tiles is the nt tiles (b, h, 0..nt-1)). Per tensor the builder keeps, as numpy arrays, the
last writer of each tile and the (tile, task) pairs read since; a stage's edges are a few
array gathers and one ``np.isin``:

- read-after-write: the last writer of every tile a task reads;
- write-after-write: the last writer of every tile a task writes (without reading);
- write-after-read: the readers since the last write of every tile a task writes;

exactly the TensorMap's rules when regions are unions of grid tiles. A stage whose tasks
conflict among themselves (two tasks writing one tile, or one writing what another reads)
needs creation order inside the stage: ``add_stage`` raises ``ValueError`` and the caller
keeps the per-task path. Edges are kept once per (source, destination), the first reason in
the order raw, waw, war (GraphBuilder's), never from a task to itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from pto_wsp.runtime.graph import EDGE_RAW, EDGE_WAR, EDGE_WAW

__all__ = ["TileGraphBuilder"]


class _Grid:
    __slots__ = ("last_writer", "read_tiles", "read_tasks")

    def __init__(self, tiles: int) -> None:
        self.last_writer = np.full(tiles, -1, dtype=np.int64)
        self.read_tiles: list[np.ndarray] = []
        self.read_tasks: list[np.ndarray] = []


class TileGraphBuilder:
    """Stages of tasks over tile grids, their data edges computed with numpy (module doc)."""

    def __init__(self, grids: Mapping[str, int]) -> None:
        self.grids = {tensor: _Grid(int(tiles)) for tensor, tiles in grids.items()}
        self.num_tasks = 0
        self._src: list[np.ndarray] = []
        self._dst: list[np.ndarray] = []
        self._kind: list[np.ndarray] = []

    def add_stage(self, n: int, accesses: Sequence[tuple[str, str, np.ndarray]]) -> np.ndarray:
        """Create ``n`` tasks; ``accesses`` are (tensor, in|out|inout, tiles) with ``tiles``
        an (n, k) integer array: the k tiles task j of the stage touches. Returns the ids."""
        ids = np.arange(self.num_tasks, self.num_tasks + n, dtype=np.int64)
        flat = [
            (tensor, mode, np.asarray(t, dtype=np.int64).reshape(n, -1))
            for tensor, mode, t in accesses
        ]
        self._check_stage(ids, flat)
        src, dst, kind = [], [], []
        for tensor, mode, tiles in flat:
            grid = self.grids[tensor]
            k = tiles.shape[1]
            t_flat = tiles.ravel()
            who = np.repeat(ids, k)
            writer = grid.last_writer[t_flat]
            has = writer >= 0
            reads, writes = mode != "out", mode != "in"
            if has.any():
                src.append(writer[has])
                dst.append(who[has])
                kind.append(np.full(int(has.sum()), EDGE_RAW if reads else EDGE_WAW, np.uint8))
            if writes:
                if grid.read_tiles:
                    r_tiles = np.concatenate(grid.read_tiles)
                    r_tasks = np.concatenate(grid.read_tasks)
                    hit = np.isin(r_tiles, t_flat)
                    if hit.any():
                        owner = np.full(grid.last_writer.shape, -1, dtype=np.int64)
                        owner[t_flat] = who
                        src.append(r_tasks[hit])
                        dst.append(owner[r_tiles[hit]])
                        kind.append(np.full(int(hit.sum()), EDGE_WAR, np.uint8))
                        grid.read_tiles = [r_tiles[~hit]]
                        grid.read_tasks = [r_tasks[~hit]]
                grid.last_writer[t_flat] = who
            else:
                grid.read_tiles.append(t_flat)
                grid.read_tasks.append(who)
        if src:
            s = np.concatenate(src)
            d = np.concatenate(dst)
            kd = np.concatenate(kind)
            keep = s != d
            s, d, kd = s[keep], d[keep], kd[keep]
            # One edge per pair, the first reason (smallest kind) kept.
            order = np.lexsort((kd, s, d))
            s, d, kd = s[order], d[order], kd[order]
            first = np.ones(len(s), dtype=bool)
            first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
            self._src.append(s[first])
            self._dst.append(d[first])
            self._kind.append(kd[first])
        self.num_tasks += n
        return ids

    def _check_stage(self, ids: np.ndarray, flat: list) -> None:
        """Refuse stages whose tasks would need an order among themselves."""
        for tensor in {t for t, _, _ in flat}:
            written = [
                (tiles, np.repeat(ids, tiles.shape[1]))
                for t, m, tiles in flat
                if t == tensor and m != "in"
            ]
            if not written:
                continue
            w_tiles = np.concatenate([t.ravel() for t, _ in written])
            w_tasks = np.concatenate([w for _, w in written])
            key = w_tiles * (int(ids[-1]) + 1) + w_tasks
            pairs = np.unique(key)
            if len(np.unique(pairs // (int(ids[-1]) + 1))) != len(pairs):
                raise ValueError(f"tasks of one stage write the same tile of {tensor!r}")
            owner = np.full(self.grids[tensor].last_writer.shape, -1, dtype=np.int64)
            owner[w_tiles] = w_tasks
            for t, m, tiles in flat:
                if t != tensor or m == "out":
                    continue
                who = owner[tiles.ravel()]
                if ((who >= 0) & (who != np.repeat(ids, tiles.shape[1]))).any():
                    raise ValueError(
                        f"a task of one stage reads a tile of {tensor!r} another writes"
                    )

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All edges as (sources, destinations, kinds)."""
        if not self._src:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0, dtype=np.uint8)
        return np.concatenate(self._src), np.concatenate(self._dst), np.concatenate(self._kind)
