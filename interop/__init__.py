"""Bridges to the outside: the ``.pto`` assembly of seed 000 §8, and upstream MLIR.

- ``pto_wsp.interop.pto_parser.parse`` / ``from_file``: ``.pto`` text to a module;
- ``pto_wsp.interop.pto_printer.to_string`` / ``print_module`` / ``to_file``: back;
- ``pto_wsp.interop.irdl``: our dialects as IRDL, for upstream MLIR;
- ``pto_wsp.interop.upstream``: hand our IR to upstream MLIR (the ``mlir`` extra).

docs/interop.md says how the two bridges work and what they cannot carry.
"""
