"""Kernels: ``@kernel`` declares one ``wsp.kernel`` from a Python function (seed 001 §8).

Tensor parameters are annotated ``In[f32[64, 64]]``, ``Out[...]`` or ``InOut[...]`` (their
access mode and memref type), or bare ``In``/``Out``/``InOut``: the kernel is then generic, and
each distinct list of resource types its tasks pass makes one instance (one ``wsp.kernel``).
Scalar parameters are ``index`` (no annotation, or ``int``), ``float`` (f64), ``bool`` (i1) or an
explicit ``f16``/``f32``/``f64``/``i32``/``i64``/``i1``. ``cost=`` is the cost in cycles: an int,
or a function of the kernel's parameters by name (scalars are index values, tensors have
``.shape``) traced once into each instance's cost region. ``exec_unit="vector" | "cube"``. A
body written with ``pto_wsp.tile`` ops is a tile kernel, traced into a tile function
(frontend/tile.py); any other body, working on numpy views and Python numbers, is the kernel's
CPU-simulator implementation (``kernel.fn``).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from pto_wsp.dialects.wsp import EXEC_UNITS, SCALAR_TYPES
from pto_wsp.errors import CompileError, user_location

from .expressions import ROOT, Arg, Const, Expr, as_expr, as_index, check_identifier, is_int
from .tensors import DType, TensorSpec

#: Python annotations of scalar parameters and the type each gives (``int`` stays index).
_PY_SCALARS: dict[Any, Attribute] = {int: IndexType(), float: Float64Type(), bool: i1}


class _Access:
    """``In``, ``Out``, ``InOut``: ``In[f32[64, 64]]`` annotates a tensor parameter."""

    def __init__(self, mode: str, label: str):
        self.mode, self.label = mode, label

    def __getitem__(self, spec: Any) -> AccessSpec:
        if not isinstance(spec, TensorSpec):
            raise CompileError(
                "kernel", f"{self.label}[...] takes a tensor type such as f32[64, 64], got {spec!r}"
            )
        return AccessSpec(self.mode, spec)

    def __repr__(self) -> str:
        return self.label


class AccessSpec:
    """An annotated tensor parameter: access mode and tensor type."""

    def __init__(self, mode: str, spec: TensorSpec):
        self.mode, self.spec = mode, spec


In = _Access("in", "In")
Out = _Access("out", "Out")
InOut = _Access("inout", "InOut")


class KernelParam:
    """One kernel parameter: name, access mode ('' for scalars) and type (None: generic tensor)."""

    def __init__(self, name: str, access: str, type_: Attribute | None):
        self.name, self.access, self.type = name, access, type_

    @property
    def is_tensor(self) -> bool:
        """Whether it is a tensor (memref) parameter."""
        return bool(self.access)

    def scalar(self, value: Any, kernel: str) -> Expr:
        """``value`` as this scalar parameter's value: index, i1, a typed constant or a cast."""
        what = f"scalar parameter {self.name!r} of @{kernel}"
        type_ = self.type
        if isinstance(type_, IndexType):
            if isinstance(value, float | np.floating):
                raise CompileError(
                    "task",
                    f"{what} is an index (unannotated or int), got {value!r}: annotate it "
                    f"'{self.name}: float' (or f32, ...) to pass a number",
                )
            return as_index(value, "task", what)
        if type_ == i1:
            if isinstance(value, bool | np.bool_) or (isinstance(value, Expr) and value.is_bool):
                return as_expr(value, "task", what)
            raise CompileError(
                "task", f"{what} is a bool (i1): True, False or a predicate, got {value!r}"
            )
        if isinstance(type_, AnyFloat):
            real = isinstance(value, float | np.floating) or is_int(value)
            if not real:
                raise CompileError("task", f"{what} is a number ({type_}), got {value!r}")
            largest = float(np.finfo(f"f{type_.bitwidth // 8}").max)
            if np.isfinite(float(value)) and abs(float(value)) > largest:
                raise CompileError("task", f"{what} is an {type_}: {value} does not fit")
            return TypedConst(float(value), type_)
        assert isinstance(type_, IntegerType)
        if is_int(value):
            bound = 1 << (type_.width.data - 1)
            if not -bound <= int(value) < bound:
                raise CompileError("task", f"{what} is an {type_}: {value} does not fit")
            return TypedConst(int(value), type_)
        return IndexCast(as_index(value, "task", what), type_)


class TypedConst(Expr):
    """A constant of a scalar parameter's type: ``arith.constant 2.5 : f32``."""

    placement = ROOT

    def __init__(self, value: int | float, type_: Attribute):
        super().__init__()
        self.value, self.type = value, type_

    @property
    def key(self) -> tuple:
        return ("typed", str(self.type), self.value)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        if isinstance(self.type, AnyFloat):
            return [arith.ConstantOp(FloatAttr(float(self.value), self.type))]
        return [arith.ConstantOp(IntegerAttr(int(self.value), self.type))]

    def __repr__(self) -> str:
        return f"{self.value}:{self.type}"


class IndexCast(Expr):
    """An index value passed to an integer scalar parameter (``arith.index_cast``)."""

    def __init__(self, value: Expr, type_: Attribute):
        super().__init__()
        self.value, self.type = value, type_

    def operands(self) -> tuple[Expr, ...]:
        return (self.value,)

    @property
    def key(self) -> tuple:
        return ("index_cast", str(self.type), self.value.key)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        return [arith.IndexCastOp(values[0], self.type)]

    def __repr__(self) -> str:
        return f"{self.value!r}:{self.type}"


class Kernel:
    """A kernel declared with ``@kernel``: ``k[b, h](Q=q, O=o)`` (or ``task(k, ...)``) is a task."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        params: list[KernelParam],
        exec_unit: str,
        cost: Any,
        impls: dict[str, str] | None,
    ):
        self.fn, self.name, self.params = fn, name, params
        self.exec_unit, self.impls = exec_unit, impls
        self.loc = user_location()
        #: Whether the body is written with ``pto_wsp.tile`` ops (traced, not run on numpy).
        self.is_tile = is_tile_body(fn)
        self._cost = cost
        #: The traced cost (None for a generic kernel: each instance traces its own).
        self.cost = None if self.generic else self.traced_cost(params)

    @property
    def generic(self) -> bool:
        """Whether a tensor parameter is a bare ``In``/``Out``/``InOut`` (no type)."""
        return any(p.is_tensor and p.type is None for p in self.params)

    def instance(self, resources: Sequence[Attribute]) -> list[KernelParam]:
        """The parameters of the instance whose tensor parameters have these types."""
        types = iter(resources)
        return [
            KernelParam(p.name, p.access, next(types)) if p.is_tensor else p for p in self.params
        ]

    def traced_cost(self, params: list[KernelParam]) -> int | Expr | None:
        """The cost over these (typed) parameters: an int, None, or the traced function."""
        return _trace_cost(self._cost, params, f"@kernel {self.name}", self.name)

    @property
    def scalar_params(self) -> list[KernelParam]:
        """The scalar parameters, in order (``task`` params go to them)."""
        return [p for p in self.params if not p.is_tensor]

    @property
    def tensor_params(self) -> list[KernelParam]:
        """The tensor parameters, in order (``task`` resources go to them)."""
        return [p for p in self.params if p.is_tensor]

    def __getitem__(self, params: Any) -> _KernelCall:
        values = list(params) if isinstance(params, tuple) else [params]
        return _KernelCall(self, values)

    def __call__(self, *resources: Any, **named: Any):
        """A task with no scalar parameters: ``copy(x=X[i], y=Y[i])``."""
        return _KernelCall(self, [])(*resources, **named)

    def __repr__(self) -> str:
        return f"@{self.name}"


class _KernelCall:
    """``kernel[params]``: call it with the resources to make a task."""

    def __init__(self, kernel: Kernel, params: list[Any]):
        self.kernel, self.params = kernel, params

    def __call__(self, *resources: Any, **named: Any):
        from .workloads import task

        names = [p.name for p in self.kernel.tensor_params]
        scalars = [p.name for p in self.kernel.scalar_params][len(self.params) :]
        unknown = [n for n in named if n not in names and n not in scalars]
        if unknown:
            raise CompileError(
                f"{self.kernel.name}[...](...)",
                f"kernel @{self.kernel.name} has no tensor parameter {unknown[0]!r} "
                f"(tensor parameters: {', '.join(names) or 'none'}"
                + (f"; scalar parameters: {', '.join(scalars)})" if scalars else ")"),
            )
        params = list(self.params)
        for name in scalars:
            if name not in named:
                raise CompileError(
                    f"{self.kernel.name}[...](...)",
                    f"missing value for scalar parameter {name!r} of kernel @{self.kernel.name}",
                )
            params.append(named.pop(name))
        given: list[Any] = list(resources)
        for name in names[len(given) :]:
            if name not in named:
                raise CompileError(
                    f"{self.kernel.name}[...](...)",
                    f"missing resource for tensor parameter {name!r} of kernel @{self.kernel.name}",
                )
            given.append(named[name])
        clash = [n for n in names[: len(resources)] if n in named]
        if clash:
            raise CompileError(
                f"{self.kernel.name}[...](...)",
                f"resource {clash[0]!r} of kernel @{self.kernel.name} is given twice",
            )
        return task(self.kernel, params, given)


class KernelArg(Arg):
    """A kernel parameter inside its cost function."""

    kind = "kernel parameter"


class Dim(Expr):
    """A runtime extent of a kernel's tensor parameter (``memref.dim``), in a cost function."""

    def __init__(self, name: str, dim: int):
        super().__init__()
        self.name, self.dim = name, dim

    @property
    def key(self) -> tuple:
        return ("dim", self.name, self.dim)

    def __repr__(self) -> str:
        return f"{self.name}.shape[{self.dim}]"


class _TensorArg:
    """A kernel's tensor parameter inside its cost function: only its ``shape`` is known."""

    def __init__(self, name: str, type_: MemRefType):
        self.name = name
        self.shape = tuple(
            Dim(name, d) if extent < 0 else extent for d, extent in enumerate(type_.get_shape())
        )


def _params(fn: Callable[..., Any], construct: str) -> list[KernelParam]:
    try:
        annotations = inspect.get_annotations(fn, eval_str=True)
    except Exception as error:  # an annotation that does not evaluate
        raise CompileError(
            construct, f"cannot evaluate the annotations of {fn.__name__}: {error}"
        ) from error
    params: list[KernelParam] = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise CompileError(construct, f"kernel {fn.__name__} cannot take *{p.name}")
        check_identifier(construct, p.name)
        note = annotations.get(p.name)
        if isinstance(note, AccessSpec):
            params.append(KernelParam(p.name, note.mode, note.spec.type))
        elif isinstance(note, _Access):
            params.append(KernelParam(p.name, note.mode, None))
        elif note is None or note in _PY_SCALARS:
            params.append(KernelParam(p.name, "", _PY_SCALARS.get(note, IndexType())))
        elif isinstance(note, DType) and note.mlir in SCALAR_TYPES:
            params.append(KernelParam(p.name, "", note.mlir))
        else:
            raise CompileError(
                construct,
                f"parameter {p.name!r} of {fn.__name__}: annotate tensors In/Out/InOut or "
                "In/Out/InOut[dtype[shape]]; scalars are index (no annotation or int), float, "
                f"bool or one of f16, f32, f64, i32, i64, i1; got {note!r}",
            )
    return params


def _trace_cost(
    cost: Any, params: list[KernelParam], construct: str, name: str
) -> int | Expr | None:
    """An int cost, or the cost function traced once over the kernel's parameters."""
    if cost is None or (is_int(cost) and int(cost) >= 0):
        return None if cost is None else int(cost)
    if not callable(cost):
        raise CompileError(construct, f"cost of @{name} is cycles (an int >= 0) or a function")
    by_name = {p.name: p for p in params}
    args: list[Any] = []
    for p in inspect.signature(cost).parameters.values():
        if p.name not in by_name:
            raise CompileError(
                construct,
                f"the cost function of @{name} takes {p.name!r}, which is not a parameter "
                f"of the kernel (parameters: {', '.join(by_name)})",
            )
        param = by_name[p.name]
        is_memref = isinstance(param.type, MemRefType)
        if not is_memref and not isinstance(param.type, IndexType):
            raise CompileError(
                construct,
                f"the cost function of @{name} takes {p.name!r}, a {param.type} parameter: a "
                "cost is index arithmetic over index parameters and tensor shapes",
            )
        args.append(_TensorArg(p.name, param.type) if is_memref else KernelArg(p.name))
    value = as_index(cost(*args), construct, "a cost (cycles)")
    if isinstance(value, Const):
        if value.value < 0:
            raise CompileError(construct, f"the cost of @{name} is negative: {value.value}")
        return value.value
    return value


def kernel(
    fn: Callable[..., Any] | None = None,
    *,
    cost: Any = None,
    exec_unit: str = "vector",
    name: str | None = None,
    impls: dict[str, str] | None = None,
) -> Any:
    """Declare a kernel from a Python function: ``@kernel`` or ``@kernel(cost=..., exec_unit=...)``."""

    def declare(f: Callable[..., Any]) -> Kernel:
        if not callable(f) or not hasattr(f, "__name__"):
            raise CompileError("kernel", f"@kernel declares a Python function, got {f!r}")
        kernel_name = check_identifier("kernel", name or f.__name__)
        construct = f"@kernel {kernel_name}"
        if exec_unit not in EXEC_UNITS:
            raise CompileError(
                construct, f"exec_unit must be one of {', '.join(EXEC_UNITS)}, got {exec_unit!r}"
            )
        if cost is not None and not callable(cost) and not (is_int(cost) and int(cost) >= 0):
            raise CompileError(
                construct, f"cost of @{kernel_name} is cycles (an int >= 0) or a function"
            )
        return Kernel(f, kernel_name, _params(f, construct), exec_unit, cost, impls)

    return declare if fn is None else declare(fn)


#: The tile API's modules: its public name and its implementation (frontend/tile.py, imported
#: only by a program that uses it: it loads the pto dialect).
_TILE_MODULES = ("pto_wsp.tile", "pto_wsp.frontend.tile")


def is_tile_body(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is a tile kernel's body: a global name it (or a function nested in it)
    uses is the tile API's module or one of its functions. The body is not called to decide."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    g = getattr(fn, "__globals__", {})
    return any(_is_tile_api(g.get(n)) for n in _global_names(code))


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _is_tile_api(value: Any) -> bool:
    if inspect.ismodule(value):
        return value.__name__ in _TILE_MODULES
    return callable(value) and getattr(value, "__module__", None) == _TILE_MODULES[1]
