"""Kernels: ``@kernel`` declares one ``wsp.kernel`` from a Python function (seed 001 §8).

Tensor parameters are annotated ``In[f32[64, 64]]``, ``Out[...]`` or ``InOut[...]`` (their
access mode and memref type); the other parameters are ``index`` scalars. ``cost=`` is the
cost in cycles: an int, or a function of the kernel's parameters by name (scalars are index
values, tensors have ``.shape``) traced once into the kernel's cost region.
``exec_unit="vector" | "cube"``. The function body, working on numpy views, is the kernel's
CPU-simulator implementation (``kernel.fn``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Attribute

from pto_wsp.dialects.wsp import EXEC_UNITS
from pto_wsp.errors import CompileError, user_location

from .expressions import Arg, Const, Expr, as_index, check_identifier, is_int
from .tensors import TensorSpec


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
    """One kernel parameter: name, access mode ('' for scalars) and type."""

    def __init__(self, name: str, access: str, type_: Attribute):
        self.name, self.access, self.type = name, access, type_

    @property
    def is_tensor(self) -> bool:
        """Whether it is a tensor (memref) parameter."""
        return bool(self.access)


class Kernel:
    """A kernel declared with ``@kernel``: ``k[b, h](Q=q, O=o)`` (or ``task(k, ...)``) is a task."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        params: list[KernelParam],
        exec_unit: str,
        cost: int | Expr | None,
        impls: dict[str, str] | None,
    ):
        self.fn, self.name, self.params = fn, name, params
        self.exec_unit, self.cost, self.impls = exec_unit, cost, impls
        self.loc = user_location()

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
        unknown = [n for n in named if n not in names]
        if unknown:
            raise CompileError(
                f"{self.kernel.name}[...](...)",
                f"kernel @{self.kernel.name} has no tensor parameter {unknown[0]!r} "
                f"(tensor parameters: {', '.join(names) or 'none'})",
            )
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
        return task(self.kernel, self.params, given)


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
            raise CompileError(
                construct,
                f"parameter {p.name!r} of {fn.__name__}: give its type, e.g. {note.label}[f32[64, 64]]",
            )
        elif note is None or note is int:
            params.append(KernelParam(p.name, "", IndexType()))
        else:
            raise CompileError(
                construct,
                f"parameter {p.name!r} of {fn.__name__}: annotate tensors In/Out/InOut[dtype[shape]]; "
                f"scalars are index (no annotation or int), got {note!r}",
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
        params = _params(f, construct)
        traced = _trace_cost(cost, params, construct, kernel_name)
        return Kernel(f, kernel_name, params, exec_unit, traced, impls)

    return declare if fn is None else declare(fn)
