"""runtime/memory.py: freed large blocks stay in the heap (no fresh pages on the next build)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's allocator, Linux only"
)

# Touches a freshly allocated 8 MiB array twice (freed in between) and prints the page faults
# of the second touch, after a GraphBuilder (which sets the allocator up) was made.
_PROBE = textwrap.dedent(
    """
    import resource, numpy as np
    from pto_wsp.runtime.graph import GraphBuilder
    from pto_wsp.runtime.memory import retain_freed_memory
    GraphBuilder()
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(2):
        before = faults()
        a = np.ones(1 << 20)
        del a
    print(retain_freed_memory(), faults() - before)
    """
)


def _probe(**env: str) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[0], int(out[1])


def test_freed_blocks_are_reused_without_page_faults():
    took, faults = _probe(PTO_WSP_MALLOC="")
    if took != "True":
        pytest.skip("not glibc")
    # 8 MiB is 2,048 pages: with the thresholds raised the second array reuses the first's.
    assert faults < 64
    # PTO_WSP_MALLOC=system leaves glibc's own behaviour: the block comes back from fresh pages.
    took, system_faults = _probe(PTO_WSP_MALLOC="system")
    assert took == "False"
    assert system_faults > 2 * faults + 64
