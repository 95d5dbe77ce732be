"""Axes: the iteration spaces loops run over (seed 001 §2.1).

``Dense[8]`` (or ``Dense(8)``) has a static size; ``DenseDyn(n)`` a runtime one;
``Ragged(outer, lengths)`` has ``lengths[r]`` elements in row ``r``; ``Sparse(outer, indptr,
indices)`` is a CSR matrix whose row ``r`` (``sparse[r]``) holds the column indices
``indices[indptr[r]:indptr[r+1]]``. Sizes are ints (bound now) or ``sym``/index expressions
(bound at execution); arrays are integer ``Tensor``s (bound at execution) or numpy int
arrays / int lists (bound now: they become ``memref.global`` constants).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute

from pto_wsp.dialects.wsp import (
    DenseAxisType,
    DenseDynAxisType,
    RaggedAxisType,
    SparseAxisType,
    loop_index_count,
)
from pto_wsp.errors import CompileError, user_location

from .expressions import Const, Expr, Sym, as_index, is_int
from .tensors import DType, Tensor, i8, i16, i32, i64, index, memref_type, u8, u16, u32, u64


class Axis:
    """An iteration space; ``index_count`` indices per iteration (2 for Ragged and Sparse)."""

    def __init__(self) -> None:
        self.loc = user_location()

    @property
    def type(self) -> Attribute:
        """The ``!wsp.*`` axis type."""
        raise NotImplementedError

    @property
    def index_count(self) -> int:
        """How many indices a loop over this axis binds."""
        return loop_index_count(self.type)

    @property
    def key(self) -> tuple:
        """A structural key: equal keys are the same axis (the lowering builds it once)."""
        raise NotImplementedError


class _DenseMeta(type):
    def __getitem__(cls, size: int) -> Dense:
        return cls(size)


class Dense(Axis, metaclass=_DenseMeta):
    """A static axis ``Dense[8]`` (also ``Dense(8)``): indices 0 .. 7."""

    def __init__(self, size: int):
        super().__init__()
        if not is_int(size) or int(size) < 0:
            raise CompileError("Dense", f"the size of a Dense axis is an int >= 0, got {size!r}")
        self.size = int(size)

    @property
    def type(self) -> Attribute:
        return DenseAxisType(self.size)

    @property
    def key(self) -> tuple:
        return ("dense", self.size)

    def __repr__(self) -> str:
        return f"Dense[{self.size}]"


class DenseDyn(Axis):
    """A dense axis of runtime size ``DenseDyn(n)``; ``n`` is an int, a ``sym`` or an expression."""

    def __init__(self, size: Any):
        super().__init__()
        self.size = as_index(size, "DenseDyn", "a size")

    @property
    def type(self) -> Attribute:
        return DenseDynAxisType()

    @property
    def key(self) -> tuple:
        return ("dense_dyn", self.size.key)

    def __repr__(self) -> str:
        return f"DenseDyn({self.size!r})"


class ConstArray:
    """An integer array bound when the program is built: a ``memref.global`` constant."""

    def __init__(self, values: list[int], dtype: DType, role: str):
        self.values, self.dtype, self.role = values, dtype, role

    @property
    def type(self) -> MemRefType:
        """The memref type of the global."""
        return memref_type(self.dtype, [len(self.values)])

    @property
    def key(self) -> tuple:
        return ("global", id(self))


_NUMPY_DTYPES = {
    np.dtype(np.int8): i8,
    np.dtype(np.int16): i16,
    np.dtype(np.int32): i32,
    np.dtype(np.int64): i64,
    np.dtype(np.uint8): u8,
    np.dtype(np.uint16): u16,
    np.dtype(np.uint32): u32,
    np.dtype(np.uint64): u64,
}


def as_array(value: Any, construct: str, role: str) -> Tensor | ConstArray:
    """A 1-d integer array: a Tensor or ``sym`` (runtime data) or numpy / list data (bound now)."""
    if isinstance(value, Sym):  # a runtime array named like the symbol: memref<?xindex>
        array = Tensor(value.name, [None], index)
        array.order = value.order
        return array
    if isinstance(value, Tensor):
        if value.rank != 1 or not value.dtype.is_integer:
            raise CompileError(
                construct, f"{role} must be a 1-d integer or index tensor, got {value.type}"
            )
        return value
    array = np.asarray(value)
    if array.ndim != 1 or array.dtype not in _NUMPY_DTYPES:
        raise CompileError(
            construct,
            f"{role} must be a 1-d integer Tensor, numpy array or list, got {value!r}",
        )
    return ConstArray([int(v) for v in array], _NUMPY_DTYPES[array.dtype], role)


def _outer(value: Any, construct: str, array: Tensor | ConstArray, extra: int) -> Expr:
    """The number of rows; it defaults to the length of a bound array (minus ``extra``)."""
    if value is None:
        if isinstance(array, ConstArray):
            return Const(len(array.values) - extra)
        raise CompileError(construct, "the number of rows is needed when the arrays are tensors")
    return as_index(value, construct, "the number of rows")


class Ragged(Axis):
    """A ragged axis ``Ragged(outer, lengths)``: row ``r`` has ``lengths[r]`` elements.

    A loop over it binds two indices, ``(row, j)`` with ``j < lengths[row]``.
    """

    def __init__(self, outer: Any, lengths: Any):
        super().__init__()
        self.lengths = as_array(lengths, "Ragged", "lengths")
        self.outer = _outer(outer, "Ragged", self.lengths, 0)

    @property
    def type(self) -> Attribute:
        return RaggedAxisType()

    @property
    def key(self) -> tuple:
        return ("ragged", self.outer.key, self.lengths.key)

    def __repr__(self) -> str:
        return f"Ragged({self.outer!r}, ...)"


class Sparse(Axis):
    """A CSR sparse axis ``Sparse(outer, indptr, indices)``; ``sparse[r]`` is row ``r``.

    ``select(sparse[r], fn)`` calls ``fn(e)`` for each column index ``e`` of row ``r``; a loop
    over the whole axis binds ``(row, j)``.
    """

    def __init__(self, outer: Any, indptr: Any, indices: Any):
        super().__init__()
        self.indptr = as_array(indptr, "Sparse", "indptr")
        self.indices = as_array(indices, "Sparse", "indices")
        self.outer = _outer(outer, "Sparse", self.indptr, 1)

    @property
    def type(self) -> Attribute:
        return SparseAxisType()

    @property
    def key(self) -> tuple:
        return ("sparse", self.outer.key, self.indptr.key, self.indices.key)

    def __getitem__(self, row: Any) -> SparseRow:
        return SparseRow(self, as_index(row, "Sparse row", "a row index"))

    def __repr__(self) -> str:
        return f"Sparse({self.outer!r}, ...)"


class SparseRow:
    """One row ``sparse[r]`` of a CSR axis: what ``select`` walks."""

    def __init__(self, sparse: Sparse, row: Expr):
        self.sparse, self.row = sparse, row

    def __repr__(self) -> str:
        return f"{self.sparse!r}[{self.row!r}]"


class AxisParam(Axis):
    """An axis parameter of a ``@workload`` function (its type comes from the caller)."""

    def __init__(self, name: str, axis_type: Attribute):
        super().__init__()
        self.name, self._type = name, axis_type

    @property
    def type(self) -> Attribute:
        return self._type

    @property
    def key(self) -> tuple:
        return ("arg", self.name)

    def __repr__(self) -> str:
        return self.name


class Cross:
    """``cross(a, b, ...)``: the cartesian product; a loop over it nests one loop per axis."""

    def __init__(self, axes: tuple[Axis, ...]):
        self.axes = axes

    @property
    def index_count(self) -> int:
        """Indices of all axes together."""
        return sum(a.index_count for a in self.axes)


def cross(*axes: Axis) -> Cross:
    """The cartesian product of axes: ``for_each(cross(batch, heads), lambda b, h: ...)``."""
    flat: list[Axis] = []
    for axis in axes:
        if isinstance(axis, Cross):
            flat += axis.axes
        elif isinstance(axis, Axis):
            flat.append(axis)
        else:
            raise CompileError("cross", f"cross takes axes, got {axis!r}")
    if not flat:
        raise CompileError("cross", "cross needs at least one axis")
    return Cross(tuple(flat))
