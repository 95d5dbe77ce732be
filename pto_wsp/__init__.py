"""pto-wsp: PTO Workload-Schedule Programming as MLIR dialects in xDSL.

The Python API (seed 001) is importable from here: axes (``Dense``, ``DenseDyn``,
``Ragged``, ``Sparse``), ``Tensor`` and dtypes, ``@kernel``, the workload primitives
(``parallel_for``, ``select``, ``cond``, ...), the decorator form (``@workload``, ``P``), CSP
(``Channel``, ``process``, ``connect``, ...), schedules (``DispatchPolicy``, ...), ``module``
and ``compile``. docs/python-api.md documents each. The dialects live in
``pto_wsp.dialects`` (wsp, csp, sched), the passes in ``pto_wsp.passes`` and the
command-line tools in ``pto_wsp.tools``.
"""

from pto_wsp.frontend import *  # noqa: F403  (the API is pto_wsp.frontend's __all__)
from pto_wsp.frontend import __all__ as _api
from pto_wsp.lowering.cpu import backend as _cpu_sim  # noqa: F401  (registers target cpu_sim)
from pto_wsp.runtime.errors import (
    ChannelClosed,
    ChannelError,
    Deadlock,
    ExecutionError,
    ResourceError,
)

__version__ = "0.1.0"
__all__ = [
    *_api,
    "ChannelClosed",
    "ChannelError",
    "Deadlock",
    "ExecutionError",
    "ResourceError",
    "__version__",
]
