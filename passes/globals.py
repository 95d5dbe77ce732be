"""Constant ``memref.global`` arrays: data bound when the IR was built.

The Python API turns axis data given as numpy arrays or int lists (``Ragged(3, lengths)``,
``Sparse(None, indptr, indices)``) into ``memref.global`` constants that the workload reads
with ``memref.get_global`` (docs/python-api.md "Axes"). Every target reads their values here:
the CPU code generator as arrays, the Ascend emitter as C++ constant arrays, the AIE mapping
as compile-time values.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, IntegerType, MemRefType
from xdsl.traits import SymbolTable


def global_of(op: memref.GetGlobalOp) -> memref.GlobalOp | None:
    """The ``memref.global`` ``op`` names: in the nearest symbol table holding it (a
    ``tg.program`` is a symbol table of its queues; the globals are the module's)."""
    anchor = op.parent_op()
    while anchor is not None:
        if anchor.has_trait(SymbolTable):
            found = SymbolTable.lookup_symbol(anchor, op.name_)
            if found is not None:
                return found if isinstance(found, memref.GlobalOp) else None
        anchor = anchor.parent_op()
    return None


def constant_array(op: memref.GetGlobalOp) -> np.ndarray | None:
    """The values of the global ``op`` reads, as a read-only int64 array of its shape; None
    unless it is a ``constant`` global of integers (or index) with an initial value."""
    glob = global_of(op)
    if (
        glob is None
        or glob.constant is None
        or not isinstance(glob.initial_value, DenseIntOrFPElementsAttr)
        or not isinstance(glob.type, MemRefType)
        or not isinstance(glob.type.element_type, IntegerType | IndexType)
    ):
        return None
    shape = tuple(glob.type.get_shape())
    values = np.array(glob.initial_value.get_values(), dtype=np.int64)
    if values.size == 1:
        values = np.full(shape, values[0], dtype=np.int64)  # a splat: dense<7>
    data = values.reshape(shape)
    data.flags.writeable = False
    return data
