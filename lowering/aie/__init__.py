"""The AMD AIE backend (seed 004 §4): ``tg`` programs to mlir-aie designs.

- ``tg-to-aie`` (``TgToAiePass``): the entry ``tg.program`` of a module becomes one
  ``aie.device``: a CSP pipeline (``pipeline.py``) or a spatially mapped data-parallel
  program (``spatial.py``); placement and resource books in ``design.py``, shim DMA access
  patterns in ``patterns.py``, static evaluation of the program in ``analysis.py``.
- target ``aie`` (``AieTarget``): ``pto-opt FILE -t 'aie{device=npu1_1col bind="n=4"}'``.
- ``compile_module(module, device=...)``: the same from Python, returning the module;
  ``pto_wsp.compile(x, target="aie", device=...)`` returns its text (importing this package
  registers the backend).

docs/targets/aie.md explains the mapping.
"""

from pto_wsp.lowering.targets import register_backend

from .analysis import MappingError
from .lower import (
    DEFAULT_DEVICE,
    INFO,
    AieTarget,
    TgToAiePass,
    compile_aie,
    compile_module,
    lower_program,
    module_text,
)

register_backend("aie", compile_aie, info=INFO)

__all__ = [
    "DEFAULT_DEVICE",
    "AieTarget",
    "MappingError",
    "TgToAiePass",
    "compile_aie",
    "compile_module",
    "lower_program",
    "module_text",
]
