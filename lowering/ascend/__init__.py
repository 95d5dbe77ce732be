"""The Ascend NPU backend (seed 004 §3, §6.5): tg programs -> AICPU orchestration C++, AICore
kernel wrappers and dispatch, the POD task ABI and build files; and a host build of that tree
(runtime/ascend_host) that runs on x86, so every emitted program is executed in the tests.

- ``emit_tree(module, soc=..., ...)`` -> ``EmittedTree`` (files as text; ``.write(dir)``);
- ``compile_module(module, out_dir=..., host=True, soc="910b")`` -> ``AscendProgram``
  (bind numpy arrays, execute, synchronize, stats, graph) or the tree without ``host``;
- ``AscendTarget``: ``pto-opt FILE -p wsp-to-tg -t ascend -o DIR``.

``register()`` makes it the ``ascend`` backend of ``pto_wsp.compile`` (``compile(w,
target="ascend", host=True, out_dir=..., soc="910b")``).
docs/targets/ascend.md describes the emitted tree and what is verified without CANN.
"""

from pto_wsp.lowering.targets import register_backend

from .backend import INFO, backend, compile_module, lower_to_tg
from .build import BuildError
from .emit import EmittedTree, emit_tree
from .errors import AscendEmitError
from .host import AscendProgram, ExecutionError, ProgramStats, ResourceError, Unbacked
from .target import AscendTarget

__all__ = [
    "AscendEmitError",
    "AscendProgram",
    "AscendTarget",
    "BuildError",
    "EmittedTree",
    "ExecutionError",
    "ProgramStats",
    "ResourceError",
    "Unbacked",
    "compile_module",
    "emit_tree",
    "lower_to_tg",
    "register",
]


def register() -> None:
    """Make ``pto_wsp.compile(..., target="ascend", **options)`` run ``compile_module``."""
    register_backend("ascend", backend, info=INFO)
