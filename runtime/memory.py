"""The C allocator's settings for the batch path's large, short-lived arrays, and the memory
the machine has available (``available``, ``too_many``: sizes refused before a run makes them).

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

import contextlib
import ctypes
import os
from collections.abc import Iterator
from contextvars import ContextVar

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


#: The least memory a task takes in the simulator's graph (its per-task fields, one edge): a
#: loop nest of more tasks than the available memory holds at this rate cannot run here.
TASK_BYTES = 64

#: What ``too_many`` prices a task at, and calls what holds the tasks (``pricing``).
_pricing: ContextVar[tuple[int, str]] = ContextVar("pricing", default=(TASK_BYTES, "a loop nest"))


def available() -> int | None:
    """The memory the machine has available now (Linux: MemAvailable plus SwapFree), else
    None."""
    fields = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in ("MemAvailable", "SwapFree"):
                    fields[name] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    if "MemAvailable" not in fields:
        return None
    return fields["MemAvailable"] + fields.get("SwapFree", 0)


def too_many(count: int) -> str | None:
    """Why ``count`` tasks cannot be held by the memory available now, at the price of a task
    (``pricing``); None when they may be, or when the available memory is unknown."""
    per_task, what = _pricing.get()
    room = available()
    if room is None or count * per_task <= room:
        return None
    return (
        f"{what} of {count:,} tasks, more than the {room / 2**30:.3g} GiB this machine has "
        f"available could hold at {per_task:,} bytes a task"
    )


@contextlib.contextmanager
def pricing(per_task: int, what: str) -> Iterator[None]:
    """Within the block, ``too_many`` prices a task at ``per_task`` bytes and names what holds
    them ``what``: tg-materialize's static graph takes far more a task than the simulator."""
    token = _pricing.set((per_task, what))
    try:
        yield
    finally:
        _pricing.reset(token)
