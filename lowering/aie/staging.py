"""How a spatial grid's tensors cross L3 (host) -> L2 (memtiles) -> L1 (cores) and back.

A read tensor reaches the cores as **streams**: the cores that read the same regions of it
in the same order share one objectfifo out of a memtile (a broadcast), one element per region
and step. A memtile receives the streams it serves from its column's shim in one objectfifo
whose element is one step of each, laid side by side, and ``aie.objectfifo.link`` distributes
it (destination offsets). A written tensor goes the other way: each core's block into a
memtile, a join (source offsets), one objectfifo to the shim.

Staging first tries one memtile for each tensor (the column with the channels left, nearest
the middle of the grid); when the device's books refuse that, every tensor is staged per
column as IRON's whole-array designs do: each column's memtile serves the streams of its own
column's cores (a stream broadcast across columns goes to the column with the fewest of that
tensor's streams), with its own shim transfer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from .analysis import MappingError, Region
from .design import Design, OutOfResources, Tile
from .patterns import element_bytes, fit_pattern

Cell = tuple[int, ...]


@dataclass(frozen=True)
class Stream:
    """The regions of one tensor that ``cells`` use, in the order they use them (one
    objectfifo element per region); ``key`` is the layout block they lie in (for names)."""

    key: tuple[int, ...]
    cells: tuple[Cell, ...]
    regions: tuple[Region, ...]


@dataclass
class Tensor:
    """A tensor the grid reads or writes: its shape, the element type its objectfifos carry
    next to the cores (``part``), its streams; ``label`` names its fifos (default: name).
    A **joined** input has ``parts`` (the tensors it carries side by side in each element,
    flat) and streams whose regions are, per step, one region of each part in order."""

    name: str
    shape: list[int]
    whole: MemRefType
    part: MemRefType
    streams: list[Stream]
    label: str = ""
    parts: list[Tensor] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.label = self.label or self.name


class Staging:
    """Builds the objectfifos, links and shim transfers of a grid's tensors in a Design."""

    def __init__(self, design: Design, placement: dict[Cell, Tile], depth: int, op: Operation):
        self.design = design
        self.placement = placement
        self.depth = depth
        self.op = op

    def stage(
        self, reads: list[Tensor], writes: list[Tensor]
    ) -> tuple[dict[str, dict[Cell, str]], dict[str, dict[Cell, str]]]:
        """The fifo each cell reads (writes) each tensor through: one memtile per tensor if
        the books allow it, else one per column."""
        saved = self.design.snapshot()
        try:
            return self._stage(reads, writes, per_column=False)
        except OutOfResources as error:
            self.design.restore(saved)
            first = error
        try:
            return self._stage(reads, writes, per_column=True)
        except OutOfResources as error:
            raise MappingError(
                f"the grid's tensors fit neither one memtile each ({first}) nor one memtile "
                f"per column ({error})",
                self.op,
            ) from None

    def _stage(self, reads: list[Tensor], writes: list[Tensor], per_column: bool):
        fifos_in = {}
        for t in reads:
            fifos = self._distribute(t, per_column)
            fifos_in.update({p.name: fifos for p in t.parts} or {t.name: fifos})
        fifos_out = {t.name: self._join(t, per_column) for t in writes}
        return fifos_in, fifos_out

    # --- columns ----------------------------------------------------------------------------

    def _columns(
        self, t: Tensor, per_column: bool, needs: Callable[[int], dict[int, tuple[int, int]]]
    ) -> dict[int, list[Stream]]:
        """The memtile column of each stream of ``t``; ``needs(n)``: the channels a memtile
        serving n streams takes (row -> (MM2S, S2MM))."""
        if not per_column:
            return {self._column(t, needs(len(t.streams))): t.streams}
        load: Counter[int] = Counter()
        groups: dict[int, list[Stream]] = {}
        for s in t.streams:
            cols = sorted({self.placement[c][0] for c in s.cells})
            col = min(cols, key=lambda c: (load[c], c))
            load[col] += 1
            groups.setdefault(col, []).append(s)
        return dict(sorted(groups.items()))

    def _column(self, t: Tensor, needs: dict[int, tuple[int, int]]) -> int:
        columns = sorted(self.placement[c][0] for s in t.streams for c in s.cells)
        col = self.design.pick_column(needs, columns[len(columns) // 2])
        if col is None:
            m = self.design.model
            raise OutOfResources(
                f"no column has the shim and memtile DMA channels left for {t.name} "
                f"({m.dma_channels(0)} per shim tile, {m.dma_channels(1)} per memtile, "
                f"{m.columns} column{'s' * (m.columns != 1)})",
                self.op,
            )
        return col

    # --- L3 -> L2 -> L1 ---------------------------------------------------------------------

    def _distribute(self, t: Tensor, per_column: bool) -> dict[Cell, str]:
        d = self.design
        by_cell: dict[Cell, str] = {}
        groups = self._columns(t, per_column, lambda n: {0: (1, 0), 1: (n, 1)})
        for col, streams in groups.items():
            shim, mem = (col, 0), (col, 1)
            fifo_in = d.fifo(
                f"{t.label}_col{col}" if per_column else t.label,
                shim,
                [mem],
                self.depth,
                self._share(t, len(streams)),
                self.op,
            )
            d.charge_link_buffer(mem, fifo_in)
            outs = []
            for s in streams:
                base = f"{t.label}_{'_'.join(map(str, s.key))}" if s.key else f"{t.label}_all"
                tiles = [self.placement[c] for c in s.cells]
                fifo = d.fifo(base, mem, tiles, self.depth, t.part, self.op)
                outs.append(fifo)
                by_cell.update(dict.fromkeys(s.cells, fifo))
            d.link([fifo_in], outs, [], self._offsets(t, len(outs)))
            if t.parts:
                self._joined_transfers(t, fifo_in, streams)
            else:
                d.transfer(t.name, fifo_in, self._pattern(t, streams), output=False)
        return by_cell

    def _joined_transfers(self, t: Tensor, fifo: str, streams: list[Stream]) -> None:
        """A joined element is filled by one transfer per step, stream and part, in memtile
        order, all queued on the one shim channel: the memtile's S2MM takes the words as
        they come, so consecutive transfers from different host tensors fill one element."""
        n = len(t.parts)
        for k in range(len(streams[0].regions) // n):
            for s in streams:
                for j, p in enumerate(t.parts):
                    box = [s.regions[k * n + j]]
                    pattern = fit_pattern(
                        f"the transfer of {p.name}", p.shape, element_bytes(p.whole), box, self.op
                    )
                    self.design.transfer(p.name, fifo, pattern, output=False)

    def _join(self, t: Tensor, per_column: bool) -> dict[Cell, str]:
        d = self.design
        by_cell: dict[Cell, str] = {}
        groups = self._columns(t, per_column, lambda n: {0: (0, 1), 1: (1, n)})
        for col, streams in groups.items():
            shim, mem = (col, 0), (col, 1)
            ins = []
            for s in streams:
                (cell,) = s.cells  # a written tensor is sharded across every axis
                name = f"{t.label}_{'_'.join(map(str, s.key))}"
                fifo = d.fifo(name, self.placement[cell], [mem], self.depth, t.part, self.op)
                ins.append(fifo)
                by_cell[cell] = fifo
            fifo_out = d.fifo(
                f"{t.label}_col{col}" if per_column else t.label,
                mem,
                [shim],
                self.depth,
                self._share(t, len(streams)),
                self.op,
            )
            d.link(ins, [fifo_out], self._offsets(t, len(ins)), [])
            d.transfer(t.name, fifo_out, self._pattern(t, streams), output=True)
        return by_cell

    def _share(self, t: Tensor, streams: int) -> MemRefType:
        """A memtile's element: one step of each of its streams, side by side (the tensor's
        shape when that is the whole tensor, else flat, as IRON's L2 buffers)."""
        n = streams * _elements(t.part.get_shape())
        if n == _elements(t.shape):
            return t.whole
        return MemRefType(t.whole.element_type, [n])

    def _offsets(self, t: Tensor, n: int) -> list[int]:
        size = _elements(t.part.get_shape())
        return [k * size for k in range(n)] if n > 1 else []

    def _pattern(self, t: Tensor, streams: list[Stream]):
        """The shim transfer: per step, each stream's region in memtile order."""
        boxes = [s.regions[k] for k in range(len(streams[0].regions)) for s in streams]
        return fit_pattern(
            f"the transfer of {t.name}", t.shape, element_bytes(t.whole), boxes, self.op
        )


def _elements(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
