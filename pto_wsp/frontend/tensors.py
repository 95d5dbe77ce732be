"""Tensors, their element types, and views (the regions tasks read and write).

``Tensor("Q", [None, 8, 64, 64], f32)`` is a workload argument of type
``memref<?x8x64x64xf32>``. Indexing it — ``Q[b][h]``, ``Q[b, h]``, ``X[i, 0:64]``,
``K[b, 0:seq_lens[b]]`` — gives a ``View``: a ``wsp.view`` when used as a task resource,
and a ``memref.load`` when a view of a single element is used as a value (``seq_lens[b]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
)
from xdsl.ir import Attribute, Operation, SSAValue

from pto_wsp.dialects.wsp import VIEW_DYNAMIC, VIEW_INDEX, view_result_type
from pto_wsp.errors import CompileError

from .expressions import (
    FIXED,
    BinOp,
    Const,
    Expr,
    as_index,
    binop,
    check_identifier,
    is_int,
    next_order,
)


class DType:
    """An element type: ``f32``; ``f32[64, 64]`` is a tensor type (for kernel signatures)."""

    def __init__(self, name: str, mlir: Attribute, kind: str):
        self.name, self.mlir, self.kind = name, mlir, kind

    @property
    def is_integer(self) -> bool:
        """Integer or index elements: such tensors can be read as indices."""
        return self.kind in ("int", "uint", "index")

    def __getitem__(self, shape: Any) -> TensorSpec:
        dims = shape if isinstance(shape, tuple) else (shape,)
        return TensorSpec(self, normalize_shape("tensor type", dims))

    def __repr__(self) -> str:
        return self.name


f16 = DType("f16", Float16Type(), "float")
bf16 = DType("bf16", BFloat16Type(), "float")
f32 = DType("f32", Float32Type(), "float")
f64 = DType("f64", Float64Type(), "float")
i8 = DType("i8", IntegerType(8), "int")
i16 = DType("i16", IntegerType(16), "int")
i32 = DType("i32", IntegerType(32), "int")
i64 = DType("i64", IntegerType(64), "int")
u8 = DType("u8", IntegerType(8, Signedness.UNSIGNED), "uint")
u16 = DType("u16", IntegerType(16, Signedness.UNSIGNED), "uint")
u32 = DType("u32", IntegerType(32, Signedness.UNSIGNED), "uint")
u64 = DType("u64", IntegerType(64, Signedness.UNSIGNED), "uint")
index = DType("index", IndexType(), "index")
#: Only a kernel's scalar parameter type (a bool); no tensor holds i1 elements.
i1 = DType("i1", IntegerType(1), "bool")

DTYPES = (f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, index)


def normalize_shape(construct: str, dims: Sequence[Any]) -> tuple[int | None, ...]:
    """A shape: ints >= 0 are static extents; ``None`` (or a ``sym``) is a runtime extent."""
    out: list[int | None] = []
    for d in dims:
        if d is None or (isinstance(d, Expr) and not isinstance(d, Const)):
            out.append(None)
        elif is_int(d) and int(d) >= 0:
            out.append(int(d))
        else:
            raise CompileError(
                construct, f"a dimension is an int >= 0, or None for a runtime size; got {d!r}"
            )
    return tuple(out)


def memref_type(dtype: DType, shape: Sequence[int | None]) -> MemRefType:
    """``memref<?x8xf32>`` for dtype f32 and shape (None, 8)."""
    return MemRefType(dtype.mlir, [DYNAMIC_INDEX if d is None else d for d in shape])


class TensorSpec:
    """A tensor type without a name: the type of a kernel's tensor parameter (``f32[64, 64]``)."""

    def __init__(self, dtype: DType, shape: tuple[int | None, ...]):
        self.dtype, self.shape = dtype, shape

    @property
    def type(self) -> MemRefType:
        """The memref type."""
        return memref_type(self.dtype, self.shape)

    def __repr__(self) -> str:
        return f"{self.dtype}[{', '.join('None' if d is None else str(d) for d in self.shape)}]"


class Tensor:
    """A tensor argument of a workload: ``Tensor("Q", [None, 8, 64, 64], f32)``.

    Arguments a workload uses without declaring them are ordered by creation: declare
    tensors (and ``sym`` values) in the order the signature should have.
    """

    is_parameter = False

    def __init__(self, name: str, shape: Sequence[Any], dtype: DType = f32):
        check_identifier("Tensor", name)
        if not isinstance(dtype, DType):
            raise CompileError("Tensor", f"dtype must be one of pto_wsp.f32, ..., got {dtype!r}")
        self.name, self.dtype = name, dtype
        self.shape = normalize_shape("Tensor", list(shape))
        self.order = next_order()

    @property
    def type(self) -> MemRefType:
        """The memref type of the argument."""
        return memref_type(self.dtype, self.shape)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def key(self) -> tuple:
        """Arguments are identified by name within a workload."""
        return ("tensor", self.name)

    def __getitem__(self, key: Any) -> View:
        return View(self, []).__getitem__(key)

    def __repr__(self) -> str:
        return self.name


class ParamTensor(Tensor):
    """A tensor parameter of a ``@workload`` function: bound to the caller's tensor or view."""

    is_parameter = True

    def __init__(self, name: str, shape: Sequence[int | None], dtype: DType):
        super().__init__(name, [d for d in shape], dtype)


Entry = tuple[int | Expr, int | Expr | None]


class View(Expr):
    """A region of a tensor (``wsp.view``); a single element read as a value (``memref.load``).

    Entries address leading dimensions: an index selects one element and drops the
    dimension, a slice ``lo:hi`` keeps it; the remaining dimensions are taken whole.
    """

    def __init__(self, tensor: Tensor, entries: list[Entry]):
        super().__init__()
        self.tensor, self.entries = tensor, entries
        self._load: Load | None = None

    # ------------------------------------------------------------------ indexing

    def __getitem__(self, key: Any) -> View:
        items = key if isinstance(key, tuple) else (key,)
        return View(self.tensor, _apply(self.tensor, list(self.entries), items, self))

    def __iter__(self):
        raise TypeError(f"a view of {self.tensor.name} is not iterable")

    # ------------------------------------------------------------------ as a region

    @property
    def offsets_sizes(self) -> tuple[list[int], list[int], list[Expr]]:
        """``static_offsets``, ``static_sizes`` and the dynamic operands of the ``wsp.view``."""
        offsets, sizes, dynamic = [], [], []
        for off, size in self.entries:
            if isinstance(off, Expr):
                offsets.append(VIEW_DYNAMIC)
                dynamic.append(off)
            else:
                offsets.append(off)
            if size is None:
                sizes.append(VIEW_INDEX)
            elif isinstance(size, Expr):
                sizes.append(VIEW_DYNAMIC)
                dynamic.append(size)
            else:
                sizes.append(size)
        return offsets, sizes, dynamic

    @property
    def type(self) -> MemRefType:
        """The memref type of the region."""
        offsets, sizes, _ = self.offsets_sizes
        return view_result_type(self.tensor.type, offsets, sizes)

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The region's shape (None for a runtime extent)."""
        return tuple(None if d < 0 else d for d in self.type.get_shape())

    @property
    def is_element(self) -> bool:
        """Whether every dimension is indexed: the view is one element."""
        return len(self.entries) == self.tensor.rank and all(s is None for _, s in self.entries)

    @property
    def key(self) -> tuple:
        def part(v: int | Expr | None) -> object:
            return v.key if isinstance(v, Expr) else v

        return ("view", self.tensor.key, tuple((part(o), part(s)) for o, s in self.entries))

    # ------------------------------------------------------------------ as a value

    def as_value(self, construct: str) -> Load:
        """The element this view names, read with ``memref.load`` (used as an index)."""
        if not self.is_element:
            raise CompileError(
                construct,
                f"{self!r} is a region of {self.tensor.name} (shape {list(self.shape)}), "
                "not a value: index every dimension to read one element",
            )
        if not self.tensor.dtype.is_integer:
            raise CompileError(
                construct,
                f"{self!r} holds {self.tensor.dtype} values; only integer and index tensors "
                "can be read as indices",
            )
        if self._load is None:
            self._load = Load(self)
        return self._load

    @property
    def nonneg(self) -> bool:  # type: ignore[override]
        return self.tensor.dtype.kind == "uint"

    def __repr__(self) -> str:
        def entry(off: int | Expr, size: int | Expr | None) -> str:
            if size is None:
                return repr(off)
            if is_int(off) and is_int(size):
                return f"{off}:{off + size}"
            return f"{off!r}:+{size!r}"

        return f"{self.tensor.name}[{', '.join(entry(o, s) for o, s in self.entries)}]"


class Load(Expr):
    """The value of one tensor element, ``memref.load`` (cast to index for integer tensors)."""

    placement = FIXED

    def __init__(self, view: View):
        super().__init__()
        self.view = view
        self.nonneg = view.tensor.dtype.kind == "uint"
        self.indices = [as_index(off, "tensor read") for off, _ in view.entries]

    def operands(self) -> tuple[Expr, ...]:
        return tuple(self.indices)

    @property
    def key(self) -> tuple:
        return ("load", self.view.tensor.key, tuple(i.key for i in self.indices))

    def build_from(self, source: SSAValue, indices: Sequence[SSAValue]) -> list[Operation]:
        """The load (and the cast to index for integer element types)."""
        load = memref.LoadOp.get(source, list(indices))
        if isinstance(load.res.type, IndexType):
            return [load]
        return [load, arith.IndexCastOp(load.res, IndexType())]

    def __repr__(self) -> str:
        return repr(self.view)


# --------------------------------------------------------------------------- view arithmetic


def _add(a: int | Expr, b: int | Expr) -> int | Expr:
    if is_int(a) and a == 0:
        return b
    if is_int(b) and b == 0:
        return a
    result = binop("add", a, b)
    return result.value if isinstance(result, Const) else result


def _sub(a: int | Expr, b: int | Expr) -> int | Expr:
    if is_int(b) and b == 0:
        return a
    # lo + c - lo = c: the size of X[i*4 : i*4 + 4] stays static.
    if isinstance(a, BinOp) and a.op == "add" and isinstance(b, Expr) and a.lhs.key == b.key:
        return a.rhs.value if isinstance(a.rhs, Const) else a.rhs
    result = binop("sub", a, b)
    return result.value if isinstance(result, Const) else result


def _scalar(value: Any, what: str, view: View) -> int | Expr:
    """An entry value: a Python int stays static, anything else is an index expression."""
    if is_int(value):
        if int(value) < 0:
            raise CompileError(
                "view",
                f"{what} {value} of {view.tensor.name} is negative: views address from the "
                "start of a dimension (no Python negative indexing)",
            )
        return int(value)
    expr = as_index(value, "view", what)
    return expr.value if isinstance(expr, Const) else expr


def _is_full(item: Any) -> bool:
    return isinstance(item, slice) and item.start is None and item.stop is None


def _fresh_entry(item: Any, extent: int | None, dim: int, view: View) -> Entry:
    """The entry for a dimension the view did not address yet."""
    if not isinstance(item, slice):
        return _scalar(item, f"index of dimension {dim}", view), None
    if item.step is not None:
        raise CompileError("view", f"slices of {view.tensor.name} take no step, got {item}")
    lo = 0 if item.start is None else _scalar(item.start, f"slice start of dimension {dim}", view)
    if item.stop is None:
        if extent is None:
            raise CompileError(
                "view",
                f"the slice {item} of {view.tensor.name} needs an end: dimension {dim} "
                "has a runtime size",
            )
        hi: int | Expr = extent
    else:
        hi = _scalar(item.stop, f"slice end of dimension {dim}", view)
    if is_int(lo) and is_int(hi) and hi < lo:
        raise CompileError("view", f"slice {lo}:{hi} of {view.tensor.name} ends before it starts")
    return lo, _sub(hi, lo)


def _narrow(entry: Entry, item: Any, dim: int, view: View) -> Entry:
    """Index or slice again a dimension the view already sliced: offsets add up."""
    off, size = entry
    assert size is not None
    if not isinstance(item, slice):
        i = _scalar(item, f"index of dimension {dim}", view)
        if is_int(i) and is_int(size) and i >= size:
            raise CompileError(
                "view", f"index {i} is beyond the slice of size {size} of {view.tensor.name}"
            )
        return _add(off, i), None
    if _is_full(item):
        return entry
    lo, sub = _fresh_entry(
        item if item.stop is not None else slice(item.start, size), None, dim, view
    )
    assert sub is not None
    return _add(off, lo), sub


def _apply(tensor: Tensor, entries: list[Entry], items: Sequence[Any], view: View) -> list[Entry]:
    """The entries of ``view[items]``: items address the view's dimensions in order."""
    sliced = [j for j, (_, size) in enumerate(entries) if size is not None]
    dims: list[tuple[str, int]] = [("entry", j) for j in sliced]
    dims += [("dim", d) for d in range(len(entries), tensor.rank)]
    if len(items) > len(dims):
        raise CompileError(
            "view",
            f"{len(items)} indices for {view!r} of {tensor.name}, which has "
            f"{len(dims)} dimension(s) left",
        )
    pending_full: list[int] = []
    for item, (kind, where) in zip(items, dims):
        if kind == "entry":
            entries[where] = _narrow(entries[where], item, where, view)
            continue
        if _is_full(item):
            pending_full.append(where)  # taken whole unless a later dimension is addressed
            continue
        for d in pending_full:
            extent = tensor.shape[d]
            if extent is None:
                raise CompileError(
                    "view",
                    f"dimension {d} of {tensor.name} has a runtime size: it cannot be taken "
                    "whole (':') before a later dimension is indexed",
                )
            entries.append((0, extent))
        pending_full = []
        entries.append(_fresh_entry(item, tensor.shape[where], where, view))
    _check_bounds(tensor, entries)
    return entries


def _check_bounds(tensor: Tensor, entries: list[Entry]) -> None:
    for dim, (off, size) in enumerate(entries):
        extent = tensor.shape[dim]
        if is_int(size) and size < 0:
            raise CompileError("view", f"dimension {dim} of {tensor.name}: size {size} < 0")
        if extent is None:
            continue
        lo = off if is_int(off) else 0
        end = lo + (1 if size is None else size if is_int(size) else 0)
        if end > extent:
            raise CompileError(
                "view",
                f"dimension {dim} of {tensor.name} has size {extent}, the view reaches {end}",
            )
