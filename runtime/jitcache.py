"""Whether numba's on-disk cache already holds a compiled function for this machine.

The simulator's compiled code (``runtime/fastsched.py``'s scheduler, ``runtime/bulk_kernels.py``'s
kernels) is compiled by numba once per machine and cached beside its source (``cache=True``;
``NUMBA_CACHE_DIR`` moves it). Loading it from that cache costs well under a second; compiling it
costs minutes (docs/simulator.md "Fast path"). The policies that decide when a process loads the
compiled code price the two differently, so they ask ``on_disk`` which one a load would be.

numba has no public query for this. ``on_disk`` reads the cache's index the way numba's own
``Cache.load_overload`` does (numba is pinned in pyproject.toml; tests/test_jitcache.py checks
the answer against real compilations), without loading anything: the index must exist, be of
this numba version and of this source file's current stamp, and hold an entry compiled for this
machine (codegen magic tuple) from this function's bytecode. Any surprise answers False: the
caller then prices a compilation, which only makes it more careful.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["cache_dir", "jit_disabled", "on_disk", "precompile"]


def jit_disabled() -> bool:
    """Whether numba's JIT is switched off (``NUMBA_DISABLE_JIT``): numba then imports but
    compiles nothing, its functions running as plain Python — far slower than the numpy and
    general-engine paths, so the simulator does not load them."""
    return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")


def on_disk(dispatcher: Any) -> bool:
    """Whether ``dispatcher`` (a ``numba.njit(cache=True)`` function) has machine code in
    numba's cache that this process could load instead of compiling (for any signature)."""
    try:
        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        if not index:
            return False
        codegen = dispatcher.targetctx.codegen()
        magic = codegen.magic_tuple()
        for sig, key_magic, hashes in index:
            if key_magic == magic and hashes == cache._index_key(sig, codegen)[2]:
                return True
    except Exception:  # numba internals changed or the cache is unreadable: assume not
        return False
    return False


def cache_dir(dispatcher: Any) -> str | None:
    """The directory numba caches ``dispatcher``'s machine code in (None if unknown)."""
    try:
        return str(dispatcher._cache.cache_path)
    except Exception:
        return None


def precompile() -> list[tuple[str, bool, float, str | None]]:
    """Compile the simulator's compiled code now, or load it from numba's cache: the
    scheduler of the fast path (runtime/fastsched.py) and the batch path's kernels
    (runtime/bulk_kernels.py). Once per machine this compiles (minutes); afterwards it loads
    (under a second per process), and every run can take the fast path from its first.
    Returns, per part, (name, whether it was in the cache, seconds, cache directory).
    Raises RuntimeError when numba is not installed."""
    import time

    from pto_wsp.runtime import bulk_kernels, fastsched

    if not fastsched.available():
        raise RuntimeError(f"{fastsched.no_numba()}: the simulator runs without compiled code")
    out = []
    for name, cached, load, where in (
        ("scheduler", fastsched.on_disk, fastsched.load, lambda: fastsched.schedule),
        ("batch kernels", bulk_kernels.on_disk, bulk_kernels.load, lambda: bulk_kernels._replay_nb),
    ):
        was = cached()
        start = time.perf_counter()
        if not load():  # pragma: no cover - numba imported above
            raise RuntimeError(f"the {name} could not be compiled")
        out.append((name, was, time.perf_counter() - start, cache_dir(where())))
    return out
