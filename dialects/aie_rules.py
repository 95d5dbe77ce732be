"""mlir-aie's buffer-descriptor rules, shared by the aiex verifier and the AIE lowering.

Each function returns the broken rule as a sentence (None when the transfer is legal), so the
verifier can raise it as a VerifyException and the lowering as a MappingError naming the
tensor. Sources (mlir-aie, lib/Dialect/AIEX/IR/AIEXDialect.cpp unless named otherwise):
``NpuDmaMemcpyNdOp::verify``, ``verifyStridesWraps``, ``NpuWriteBdOp::verify``,
``isContiguousTransfer``; AIEDialect.cpp ``DMABDOp::verify``; AIETargetModel.h
``getDmaBdMaxLen`` / ``getAddressGenGranularity``.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Address-generation granule of every AIE2 buffer descriptor (bits).
GRANULE_BITS = 32
#: Shim tile field widths: 20-bit steps, 10-bit wraps, 6-bit iteration count.
SHIM_STEP_BITS = 20
SHIM_WRAP_BITS = 10
ITERATION_BITS = 6
#: Longest buffer descriptor per tile kind, in 32-bit words (AIE2 getDmaBdMaxLen).
BD_MAX_WORDS = {"core": (1 << 14) - 1, "memtile": (1 << 17) - 1, "shim": (1 << 32) - 1}


def _granular(count: int, bits: int) -> bool:
    return count * bits % GRANULE_BITS == 0


def contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """A row-major scan of the inner three dimensions (outermost-first lists): upstream
    lowers it in linear mode, exempt from the wrap limits."""
    s, t = list(reversed(sizes)), list(reversed(strides))
    return t[0] == 1 and (s[1] <= 1 or t[1] == s[0]) and (s[2] <= 1 or t[2] == s[0] * s[1])


def dma_transfer_error(
    bits: int,
    elements: int | None,
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    shim: bool = True,
    strict: bool = False,
) -> str | None:
    """The first rule an ``aiex.npu.dma_memcpy_nd`` of ``bits``-wide elements breaks.

    Lists are outermost first, in elements; ``elements`` is the buffer's size when static.
    ``shim``: the transfer's shim tile is known (upstream checks sizes, strides and ranges
    only then). ``strict``: the limits the buffer descriptor's fields hold once written
    (``NpuWriteBdOp::verify``), not the verifier's one-past-the-end leniency.
    """
    if bits > GRANULE_BITS:
        return (
            f"elements are {bits}-bit; dma_memcpy_nd moves elements of at most "
            f"{GRANULE_BITS} bits (NpuDmaMemcpyNdOp::verify)"
        )
    if elements is not None and elements * bits < GRANULE_BITS:
        return f"the buffer holds fewer than {GRANULE_BITS} bits (NpuDmaMemcpyNdOp::verify)"
    offset = sum(o * t for o, t in zip(offsets, strides)) * bits
    if offset % GRANULE_BITS:
        return (
            f"the offset is {offset // 8} bytes, not a multiple of 4 "
            "(NpuDmaMemcpyNdOp::verify: offset must be 4-byte-aligned)"
        )
    if not shim:
        return None
    s, t = list(reversed(sizes)), list(reversed(strides))  # innermost first, as upstream
    if any(v <= 0 for v in s):
        return f"sizes {list(sizes)} must be positive (verifyStridesWraps)"
    if not _granular(s[0], bits):
        return (
            f"the innermost size is {s[0]} elements of {bits // 8} bytes = {s[0] * bits // 8} "
            "bytes, not a multiple of 4 (verifyStridesWraps: 4-byte granularity)"
        )
    for i in range(4):
        if s[i] > 1 and (t[i] < 0 if i == 3 else t[i] < 1):
            return f"stride {i} is {t[i]} where its size is {s[i]} (verifyStridesWraps)"
        if (i != 0 or t[i] != 1) and not _granular(t[i], bits):
            return (
                f"stride {i} is {t[i]} elements of {bits // 8} bytes = {t[i] * bits // 8} "
                "bytes, not a multiple of 4 (verifyStridesWraps: 4-byte granularity)"
            )
    step_max = (1 << SHIM_STEP_BITS) - (0 if strict else -1)  # in words, before the -1 bias
    for i in range(4):
        words = t[i] * bits // GRANULE_BITS
        if s[i] > 1 and words > step_max:
            return (
                f"stride {i} is {words} 32-bit words; a shim buffer descriptor steps at most "
                f"{step_max} (verifyStridesWraps: {SHIM_STEP_BITS}-bit step fields)"
            )
    iterations = (1 << ITERATION_BITS) + (0 if strict else 1)
    if s[3] > iterations:
        return (
            f"the repeat (outermost) size is {s[3]}; a shim buffer descriptor repeats at most "
            f"{iterations} times (verifyStridesWraps: {ITERATION_BITS}-bit iteration count)"
        )
    # Oversized wraps pass upstream's verifier when aie-decompose-large-dma-bd can split the
    # pattern (isDecomposableNdDmaPattern); a single written descriptor must hold them.
    if strict and not contiguous(sizes, strides):
        wrap_max = (1 << SHIM_WRAP_BITS) - 1
        for i, words in ((0, s[0] * bits // GRANULE_BITS), (1, s[1])):
            if words > wrap_max:
                return (
                    f"size {i} is {words}{' 32-bit words' * (i == 0)}; a shim buffer "
                    f"descriptor wraps at most {wrap_max} (verifyStridesWraps: "
                    f"{SHIM_WRAP_BITS}-bit wrap fields)"
                )
    return None


def bd_length_error(nbytes: int, kind: str) -> str | None:
    """The rule a buffer descriptor moving ``nbytes`` on a ``kind`` tile breaks (None: legal):
    whole 32-bit words (``DMABDOp::verify``), at most ``BD_MAX_WORDS[kind]``."""
    if nbytes % 4:
        return (
            f"an element of {nbytes} bytes is not a whole number of 32-bit words; a buffer "
            "descriptor moves multiples of 4 bytes (DMABDOp::verify: transfer length)"
        )
    if nbytes // 4 > BD_MAX_WORDS[kind]:
        return (
            f"an element of {nbytes // 4} 32-bit words is longer than a {kind} buffer "
            f"descriptor's {BD_MAX_WORDS[kind]} (DMABDOp::verify, getDmaBdMaxLen)"
        )
    return None
