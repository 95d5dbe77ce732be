"""The kernel registry of the simulator (seed 004 §2.5): per kernel, its signature, cost
model and CPU body.

A ``KernelSpec`` is independent of the IR: the cpu_sim backend fills one per ``wsp.kernel``
(``lowering/cpu/backend.py``). ``body`` is the Python function the functional mode runs; it
is called with the kernel's parameters in declaration order — scalars as Python numbers (int,
float or bool by the parameter's type), tensors as numpy views of the bound arrays (writes go
to the arrays in place). ``cost`` is cycles: an
int, or a function of the same parameters where tensors are ``Dims`` (``.shape``,
``.dim(d)``) — the cycles mode never touches data.
"""

from __future__ import annotations

import dis
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pto_wsp.errors import ExecutionError
from pto_wsp.lowering.regions import TensorRegion

__all__ = [
    "BODY_ERRORS",
    "Dims",
    "KernelSpec",
    "ViewRegion",
    "cached_spec",
    "does_nothing",
    "guard",
    "numpy_view",
    "returned",
]

#: What a kernel body (or cost function) may raise that fails its task with an
#: ExecutionError: any Exception, and SystemExit, since a body calling ``sys.exit()`` ends
#: its task, not the program that runs the simulation. KeyboardInterrupt still interrupts.
BODY_ERRORS = (Exception, SystemExit)

#: Cycle counts are below this (the schedulers keep time in float64: exact below 2^53).
MAX_CYCLES = 1 << 53


class ViewRegion(TensorRegion):
    """A task's region that also knows which dimensions of the root tensor remain dimensions
    of the kernel's view (``kept``): ``Q[b, h]`` keeps the last two of Q's four."""

    __slots__ = ("kept",)

    def __init__(self, tensor, offsets, sizes, strides, access, kept: tuple[int, ...]) -> None:
        super().__init__(tensor, offsets, sizes, strides, access)
        self.kept = kept

    @classmethod
    def of(cls, tensor, offsets, sizes, strides, access: str, kept, unit=None) -> ViewRegion:
        """The region of a view the generated code computed (already well-formed): no checks,
        as the per-task path of a simulation creates a few of these per task."""
        r = cls.__new__(cls)
        r.tensor = tensor
        r.offsets = offsets
        r.sizes = sizes
        r.strides = strides
        r.access = access
        r.key = (tensor, offsets, sizes, strides)
        r.reads = access != "out"
        r.writes = access != "in"
        r.unit = all(s == 1 for s in strides) if unit is None else unit
        r._lasts = None
        r.kept = kept
        return r

    @property
    def view_shape(self) -> tuple[int, ...]:
        """The shape of the kernel's view."""
        return tuple(self.sizes[d] for d in self.kept)


def numpy_view(array: np.ndarray, region: TensorRegion) -> np.ndarray:
    """The numpy view of ``array`` a task gets for ``region`` (a view, never a copy); read-only
    for an ``in`` region, so a body writing its input raises instead of corrupting it."""
    kept = getattr(region, "kept", None)
    if kept is None:
        kept = range(len(region.sizes))
    kept_set = set(kept)
    index: list[Any] = []
    for d, (o, n, s) in enumerate(zip(region.offsets, region.sizes, region.strides)):
        if d in kept_set:
            index.append(slice(o, o + (n - 1) * s + 1 if n else o, s))
        else:
            index.append(o)
    return guard(array[tuple(index)], region.access)


def guard(view: Any, access: str) -> Any:
    """``view``, made read-only when the task only reads it (``access`` "in")."""
    if access == "in" and view.__class__ is np.ndarray:
        view.flags.writeable = False
    return view


class Dims:
    """A tensor parameter inside a cost function: only its extents are known."""

    __slots__ = ("shape",)

    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)

    def dim(self, d: int) -> int:
        return self.shape[d]


@dataclass
class KernelSpec:
    """One kernel: name, parameters (``access`` '' for scalars), unit, cost and body."""

    name: str
    param_names: list[str]
    access: list[str]
    exec_unit: str = "vector"
    cost: int | Callable[..., int] = 1
    body: Callable[..., Any] | None = None
    #: Where the body came from (``@kernel``, ``impls``, ``kernels=``), for messages.
    origin: str = ""
    #: The cost is the cost model's cycles for the kernel's tile function (no ``cost=``).
    derived_cost: bool = False
    _layout: list[bool] = field(default_factory=list, repr=False)
    _runnable: tuple = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._layout = [bool(a) for a in self.access]

    @property
    def runnable(self) -> Callable[..., Any] | None:
        """The body the functional mode calls: None when there is none or it does nothing."""
        body = self.body
        code = getattr(body, "__code__", None)
        if self._runnable[:2] != (body, code):
            empty = body is None or does_nothing(body, len(self.param_names))
            self._runnable = (body, code, None if empty else body)
        return self._runnable[2]

    @property
    def tensor_names(self) -> list[str]:
        return [n for n, a in zip(self.param_names, self.access) if a]

    def arguments(self, args: Sequence[int], tensors: Sequence[Any]) -> list[Any]:
        """The kernel's parameters in declaration order from a task's scalars and tensors."""
        scalars = iter(args)
        views = iter(tensors)
        return [next(views) if is_tensor else next(scalars) for is_tensor in self._layout]

    def cycles(self, args: Sequence[int], regions: Sequence[TensorRegion]) -> int:
        """The cost of one task in cycles."""
        cost = self.cost
        if cost.__class__ is int:
            return cost
        dims = [Dims(getattr(r, "view_shape", r.sizes)) for r in regions]
        return int(cost(*self.arguments(args, dims)))

    def task_cycles(
        self, tid: int, coords: Sequence, args: Sequence[int], regions: Sequence[TensorRegion]
    ) -> int:
        """``cycles``, a failing cost function — or one giving no cycle count in [0, 2^53):
        virtual times are exact doubles — reported as the task's ``ExecutionError``."""
        try:
            cycles = self.cycles(args, regions)
        except BODY_ERRORS as error:
            cause = f"its cost function raised {type(error).__name__}: {error}"
            raise ExecutionError(tid, self.name, coords, cause) from error
        if not 0 <= cycles < MAX_CYCLES:
            cause = (
                f"its cost function returned {cycles}: a cost is a number of cycles in [0, 2^53)"
            )
            raise ExecutionError(tid, self.name, coords, cause)
        return cycles


def _empty() -> None:
    pass


def _instructions(code: types.CodeType) -> list[tuple[str, Any]]:
    return [(i.opname, i.argval) for i in dis.get_instructions(code)]


#: The bytecode of a function whose body is ``pass``, ``...``, a docstring or ``return None``:
#: this Python compiles each of them to the same instructions.
_EMPTY = _instructions(_empty.__code__)


def does_nothing(body: Any, arity: int) -> bool:
    """Whether calling ``body`` with ``arity`` positional arguments does nothing but return
    None: a plain function (not a generator or coroutine, whose call makes an object) whose
    bytecode is the empty function's and whose signature takes them. Decided from its code,
    never by calling it."""
    if not isinstance(body, types.FunctionType):
        return False
    if "__signature__" in body.__dict__:  # (inspect reads it: the code alone does not decide)
        return _does_nothing(body, arity)
    # Each compile makes new KernelSpecs of the same functions: decided once per code,
    # arity and defaults (all that the bytecode and inspect.signature read), not per Program.
    key = (body.__code__, arity, len(body.__defaults__ or ()), tuple(body.__kwdefaults__ or ()))
    found = _DECIDED.get(key)
    if found is None:
        if len(_DECIDED) >= 1024:
            _DECIDED.clear()
        found = _DECIDED[key] = _does_nothing(body, arity)
    return found


#: does_nothing by (code, arity, number of defaults, keyword defaults).
_DECIDED: dict[tuple, bool] = {}


def _does_nothing(body: types.FunctionType, arity: int) -> bool:
    if _instructions(body.__code__) != _EMPTY:
        return False
    try:
        inspect.signature(body, follow_wrapped=False).bind(*[None] * arity)
    except TypeError:  # a call would raise: that is something a body does
        return False
    return True


def returned(
    tid: int, spec: KernelSpec, coords: Sequence, value: Any, views: Sequence
) -> ExecutionError | None:
    """The error of a body that returned ``value``: None when it returned nothing or one of its
    own views (``return np.add(a, b, out=c)``), else an ExecutionError naming the task."""
    if value is None or any(value is v for v in views):
        return None
    outs = [n for n, a in zip(spec.param_names, spec.access) if a in ("out", "inout")]
    hint = f"{outs[0] if len(outs) == 1 else 'out'}[...] = value"
    return ExecutionError(
        tid,
        spec.name,
        coords,
        f"the body returned a value ({type(value).__name__}) instead of writing its results: "
        f"a kernel's results are what it writes into its Out parameters ({hint})",
    )


def cached_spec(
    specs: list[KernelSpec | None],
    kernels: Mapping[str, KernelSpec],
    names: Sequence[str],
    kid: int,
) -> KernelSpec:
    """The KernelSpec of kernel id ``kid`` (``names[kid]`` in ``kernels``; a kernel without
    one gets a body-less spec), remembered in ``specs``."""
    while len(specs) <= kid:
        specs.append(None)
    spec = specs[kid]
    if spec is None:
        name = names[kid]
        spec = kernels.get(name)
        if spec is None:
            spec = KernelSpec(name, [], [], origin="unknown")
        specs[kid] = spec
    return spec
