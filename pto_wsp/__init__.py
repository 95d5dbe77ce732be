"""pto-wsp: PTO Workload-Schedule Programming as MLIR dialects in xDSL.

The Python API (seed 001) is importable from here: axes (``Dense``, ``DenseDyn``,
``Ragged``, ``Sparse``), ``Tensor`` and dtypes, ``@kernel``, the workload primitives
(``parallel_for``, ``select``, ``cond``, ...), the decorator form (``@workload``, ``P``), CSP
(``Channel``, ``process``, ``connect``, ...), schedules (``DispatchPolicy``, ...), ``module``
and ``compile``, the runtime errors, and a run's pictures (``chrome_trace``, ``write_gantt``).
docs/python-api.md documents each. The dialects live in ``pto_wsp.dialects``, the passes in
``pto_wsp.passes`` and the command-line tools in ``pto_wsp.tools``.

The API is loaded on first use (PEP 562): the command-line tools import this package for its
dialects and passes only, and should not pay for the frontend and the backends at startup.
"""

from typing import Any

__version__ = "0.1.0"

#: Errors exported next to the frontend's API (CompileError comes with the frontend).
_ERRORS = (
    "ChannelClosed",
    "ChannelError",
    "Deadlock",
    "ErrorCode",
    "ExecutionError",
    "PtoError",
    "ResourceError",
    "Timeout",
)
#: Pictures of a simulator run (runtime/trace.py), exported next to the API.
_TRACES = ("chrome_trace", "write_gantt")

_api: dict[str, Any] | None = None


def _load() -> dict[str, Any]:
    """Import the frontend and the runtime errors; cache their public names (a backend is
    imported when its target is first used, lowering/targets.py)."""
    global _api
    if _api is None:
        import importlib

        # import_module, not "from pto_wsp import x": that form asks this module's
        # __getattr__ for the submodule first, which would come back here.
        graph = importlib.import_module("pto_wsp.runtime.graph")
        # The import makes tens of thousands of objects (xDSL's op and attribute classes), all
        # kept: with the collector paused they go to its oldest generation unvisited, and the
        # full pass the first compile would otherwise pay (40-60 ms) does not come.
        with graph.gc_paused():
            frontend = importlib.import_module("pto_wsp.frontend")
            errors = importlib.import_module("pto_wsp.errors")
            traces = importlib.import_module("pto_wsp.runtime.trace")
        names = {name: getattr(frontend, name) for name in frontend.__all__}
        names.update({name: getattr(errors, name) for name in _ERRORS})
        names.update({name: getattr(traces, name) for name in _TRACES})
        names["__all__"] = [*frontend.__all__, *_ERRORS, *_TRACES, "__version__"]
        _api = names
    return _api


_SUBPACKAGES = (
    "errors",
    "frontend",
    "dialects",
    "passes",
    "lowering",
    "runtime",
    "tools",
    "interop",
    "tile",
)


def __getattr__(name: str) -> Any:
    if (name.startswith("__") and name != "__all__") or name in _SUBPACKAGES:
        raise AttributeError(name)
    api = _load()
    if name not in api:
        raise AttributeError(f"module 'pto_wsp' has no attribute {name!r}")
    globals()[name] = api[name]
    return api[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_load()["__all__"]))
