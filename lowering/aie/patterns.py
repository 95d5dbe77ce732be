"""Shim DMA access patterns: a sequence of tensor boxes as one ``aiex.npu.dma_memcpy_nd``.

A core reads (or writes) its external tensor regions one objectfifo element at a time, in
the order its loops visit them. The shim DMA must stream exactly those elements in that
order: the boxes' base offsets must form a nest of at most a few affine loops, and together
with the box's own dimensions fit the four dimensions (sizes, strides, outermost first, in
elements) a shim buffer descriptor has, with a unit innermost stride.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, i32
from xdsl.ir import Operation

from pto_wsp.dialects import aie_rules

from .analysis import MappingError, Region

#: Bytes of the widest element a shim transfer moves (mlir-aie: NpuDmaMemcpyNdOp::verify).
WORD_BYTES = aie_rules.GRANULE_BITS // 8


def host_type(type_: MemRefType) -> MemRefType:
    """The runtime sequence's view of a tensor: as declared, or, for elements wider than
    32 bits, the same bytes as 32-bit words (the innermost dimension widened)."""
    nbytes = element_bytes(type_)
    if nbytes <= WORD_BYTES:
        return type_
    shape = list(type_.get_shape())
    return MemRefType(i32, [*shape[:-1], shape[-1] * (nbytes // WORD_BYTES)])


def element_bytes(t: MemRefType) -> int:
    width = t.element_type.bitwidth if hasattr(t.element_type, "bitwidth") else 32
    return max(1, width // 8)


@dataclass(frozen=True)
class Pattern:
    """Four offsets, sizes and strides (outermost first), as ``dma_memcpy_nd`` takes them."""

    offsets: tuple[int, int, int, int]
    sizes: tuple[int, int, int, int]
    strides: tuple[int, int, int, int]

    @property
    def elements(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n


def row_major_strides(shape: Sequence[int]) -> list[int]:
    strides, running = [], 1
    for extent in reversed(shape):
        strides.append(running)
        running *= extent
    return list(reversed(strides))


def fit_sequence(bases: Sequence[int]) -> list[tuple[int, int]]:
    """Loops (count, stride), outermost first, whose nest visits ``bases`` in order
    (relative to ``bases[0]``); None-free: raises ValueError when no such nest exists."""
    n = len(bases)
    if n <= 1:
        return []
    step = bases[1] - bases[0]
    run = 1
    while run < n and bases[run] - bases[run - 1] == step:
        run += 1
    if n % run:
        raise ValueError("not a regular nest")
    starts = list(bases[::run])
    for k, start in enumerate(starts):
        for i in range(run):
            if bases[k * run + i] != start + i * step:
                raise ValueError("not a regular nest")
    return [*fit_sequence(starts), (run, step)]


def _merge(dims: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop unit dimensions and merge an outer dimension into the next inner one where
    they are contiguous (outer stride == inner size * inner stride)."""
    out: list[tuple[int, int]] = []
    for size, stride in dims:
        if size == 1:
            continue
        out.append((size, stride))
    merged: list[tuple[int, int]] = []
    for size, stride in reversed(out):  # innermost first
        if merged and stride == merged[-1][0] * merged[-1][1]:
            inner_size, inner_stride = merged.pop()
            merged.append((inner_size * size, inner_stride))
        else:
            merged.append((size, stride))
    return list(reversed(merged))


def fit_pattern(
    what: str,
    shape: Sequence[int],
    element_bytes: int,
    boxes: Sequence[Region],
    op: Operation | None = None,
) -> Pattern:
    """The shim DMA pattern that streams ``boxes`` of a tensor of ``shape`` in order.

    ``what`` names the transfer in errors, located at ``op``. Raises MappingError when the
    boxes do not form an affine nest, or the nest breaks a buffer descriptor's rule.
    """
    strides = row_major_strides(shape)
    box = boxes[0]
    if any(b.sizes != box.sizes for b in boxes):
        raise MappingError(f"{what}: the regions do not all have the same shape", op)
    bases = [sum(o * s for o, s in zip(b.offsets, strides)) for b in boxes]
    try:
        loops = fit_sequence(bases)
    except ValueError:
        raise MappingError(
            f"{what}: the regions, in the order the core uses them, are not an affine nest "
            "of loops; a shim DMA walks affine patterns",
            op,
        ) from None
    inner = [(size, stride) for size, stride in zip(box.sizes, strides)]
    return pattern_from_dims(what, [*loops, *inner], element_bytes, bases[0], op)


def pattern_from_dims(
    what: str,
    dims: Sequence[tuple[int, int]],
    element_bytes: int,
    base: int = 0,
    op: Operation | None = None,
) -> Pattern:
    """The pattern of a nest of (size, stride) dimensions, outermost first, from ``base``:
    unit dimensions dropped, contiguous ones merged, elements wider than 32 bits moved as
    32-bit words (``host_type``), checked against mlir-aie's rules (dialects/aie_rules.py)."""
    merged = _merge(list(dims)) or [(1, 1)]
    if merged[-1][1] != 1:
        raise MappingError(
            f"{what}: the innermost stride of the transfer is {merged[-1][1]}; a shim DMA "
            "moves contiguous runs (unit innermost stride)",
            op,
        )
    if len(merged) > 4:
        raise MappingError(
            f"{what}: the transfer needs {len(merged)} dimensions "
            f"(sizes {[d[0] for d in merged]}); a shim buffer descriptor has 4",
            op,
        )
    if element_bytes > WORD_BYTES:
        words = element_bytes // WORD_BYTES
        merged = [(n, t * words) for n, t in merged[:-1]] + [(merged[-1][0] * words, 1)]
        base, element_bytes = base * words, WORD_BYTES
    padded = [(1, 0)] * (4 - len(merged)) + merged
    pattern = Pattern(
        (0, 0, 0, base),
        tuple(d[0] for d in padded),  # type: ignore[arg-type]
        tuple(d[1] for d in padded),  # type: ignore[arg-type]
    )
    error = aie_rules.dma_transfer_error(
        element_bytes * 8, None, pattern.offsets, pattern.sizes, pattern.strides, strict=True
    )
    if error:
        raise MappingError(f"{what}: {error}", op)
    return pattern
