"""The C allocator's settings for the batch path's large, short-lived arrays.

A graph build or a simulator run allocates numpy arrays of megabytes (edge rows, per-node
fields, CSR) and frees them when it returns. glibc's malloc serves such blocks with fresh
``mmap`` pages and gives them back to the system on ``free``, so every build touches fresh
memory: one page fault per 4 KiB, ~2-3 µs each on the VMs we measure on — at 51k tasks about a
third of a graph build's time (docs/PERFORMANCE.md "Graph build"). ``retain_freed_memory()``
raises glibc's mmap and trim thresholds once per process, so freed blocks stay in the heap and
the next build reuses them without faulting. The cost: the process keeps its peak heap after a
large build instead of returning it.

``PTO_WSP_MALLOC=system`` in the environment leaves the allocator as it is. Elsewhere than on
glibc (musl, macOS, Windows) nothing is changed.
"""

from __future__ import annotations

import ctypes
import os

# mallopt parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

#: Blocks up to this size come from the heap, never from their own mmap.
MMAP_THRESHOLD = 128 << 20
#: Free memory at the heap's top is returned to the system only beyond this.
TRIM_THRESHOLD = 512 << 20

_state: bool | None = None


def retain_freed_memory() -> bool:
    """Set the thresholds (first call of the process; later calls return the first answer).
    True when glibc took them."""
    global _state
    if _state is None:
        _state = _set_thresholds()
    return _state


def _set_thresholds() -> bool:
    if os.environ.get("PTO_WSP_MALLOC", "").lower() == "system":
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        # gnu_get_libc_version exists on glibc only: musl has a mallopt that does nothing.
        libc.gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError, TypeError):  # (TypeError: no CDLL(None) on Windows)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    return mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
