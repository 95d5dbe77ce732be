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

from .analysis import MappingError, Region

#: Hardware field limits of a shim buffer descriptor (AIE2): the innermost wrap in 32-bit
#: words and the next one are 10-bit fields, the outermost (iteration) count is 6 bits.
D0_WRAP_MAX = 1023
D1_WRAP_MAX = 1023
ITERATION_MAX = 64


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
    what: str, shape: Sequence[int], element_bytes: int, boxes: Sequence[Region]
) -> Pattern:
    """The shim DMA pattern that streams ``boxes`` of a tensor of ``shape`` in order.

    ``what`` names the transfer in errors. Raises MappingError when the boxes do not form an
    affine nest, or the nest needs more than four dimensions, a non-unit innermost stride,
    or sizes beyond the buffer descriptor's fields.
    """
    strides = row_major_strides(shape)
    box = boxes[0]
    if any(b.sizes != box.sizes for b in boxes):
        raise MappingError(f"{what}: the regions do not all have the same shape")
    bases = [sum(o * s for o, s in zip(b.offsets, strides)) for b in boxes]
    try:
        loops = fit_sequence(bases)
    except ValueError:
        raise MappingError(
            f"{what}: the regions, in the order the core uses them, are not an affine nest "
            "of loops; a shim DMA walks affine patterns"
        ) from None
    inner = [(size, stride) for size, stride in zip(box.sizes, strides)]
    return pattern_from_dims(what, [*loops, *inner], element_bytes, bases[0])


def pattern_from_dims(
    what: str, dims: Sequence[tuple[int, int]], element_bytes: int, base: int = 0
) -> Pattern:
    """The pattern of a nest of (size, stride) dimensions, outermost first, from ``base``:
    unit dimensions dropped, contiguous ones merged, checked against the hardware."""
    merged = _merge(list(dims)) or [(1, 1)]
    if merged[-1][1] != 1:
        raise MappingError(
            f"{what}: the innermost stride of the transfer is {merged[-1][1]}; a shim DMA "
            "moves contiguous runs (unit innermost stride)"
        )
    if len(merged) > 4:
        raise MappingError(
            f"{what}: the transfer needs {len(merged)} dimensions "
            f"(sizes {[d[0] for d in merged]}); a shim buffer descriptor has 4"
        )
    if len(merged) > 1:
        limits = [
            ("innermost size", merged[-1][0], merged[-1][0] * element_bytes // 4, D0_WRAP_MAX),
            ("second size", merged[-2][0], merged[-2][0], D1_WRAP_MAX),
        ]
        if len(merged) == 4:
            limits.append(("iteration count", merged[0][0], merged[0][0], ITERATION_MAX))
        for label, size, field, limit in limits:
            if field > limit:
                raise MappingError(
                    f"{what}: the transfer's {label} {size} exceeds the shim buffer "
                    f"descriptor's limit ({limit})"
                )
    padded = [(1, 0)] * (4 - len(merged)) + merged
    return Pattern(
        (0, 0, 0, base),
        tuple(d[0] for d in padded),  # type: ignore[arg-type]
        tuple(d[1] for d in padded),  # type: ignore[arg-type]
    )
