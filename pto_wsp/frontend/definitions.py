"""Named workloads: ``@workload`` functions, their bindings, and cross-level calls (``call``).

``@workload`` defines a named workload (a ``wsp.workload`` symbol). The function's
parameters are the workload's first arguments, typed by the values it is bound to
(``attention(Q, K)``): tensors and views become memref arguments, axes axis arguments,
index values index arguments. Tensors and ``sym`` values the body uses without declaring
them follow, in creation order. Used inside another workload, a bound workload is a
``wsp.call`` (``call(f, *args)`` says so explicitly); ``@workload(level="npu")`` makes an
InCore workload for cross-level calls (seed 000 §4.8).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import IndexType

from pto_wsp.dialects.wsp import LEVELS
from pto_wsp.errors import CompileError, user_location

from .axes import Axis, AxisParam
from .expressions import Expr, Param, check_identifier, is_int
from .tensors import ParamTensor, Tensor, View
from .workloads import Workload, claim, param_names, trace_body


class Bound(Workload):
    """A ``@workload`` function bound to argument values: a ``wsp.workload`` symbol."""

    construct = "workload"

    def __init__(self, definition: WorkloadDef, args: list[Any]):
        super().__init__()
        self.definition, self.args = definition, args
        self.name = definition.fn_name
        self.level = definition.level

    @property
    def params(self) -> list[tuple[str, Any]]:
        """``(name, placeholder)`` for each parameter: what the function body receives."""
        return self._trace()[0]

    @property
    def body(self) -> list[Workload]:
        """The workloads of the function body."""
        return self._trace()[1]

    def children(self) -> list[Workload]:
        return self.body

    def _trace(self) -> tuple[list[tuple[str, Any]], list[Workload]]:
        """The placeholders and body: the function runs once per argument-type signature."""
        traced = self.__dict__.get("_traced")
        if traced is not None:
            return traced
        d = self.definition
        if len(self.args) != len(d.param_names):
            raise CompileError(
                f"@workload {d.fn_name}",
                f"workload {d.fn_name} takes {len(d.param_names)} argument(s) "
                f"({', '.join(d.param_names)}), got {len(self.args)}: bind them by calling "
                f"{d.fn_name}(...)",
                loc=self.loc,
            )
        params = [(n, placeholder(n, a, d.fn_name)) for n, a in zip(d.param_names, self.args)]
        signature = tuple(str(param_type(p)) for _, p in params)
        if signature not in d.traces:
            body = trace_body(d.fn, [p for _, p in params], f"@workload {d.fn_name}", d.loc)
            d.traces[signature] = (params, body)
        self._traced = d.traces[signature]
        return self._traced


def param_type(value: Any):
    """The IR type of a parameter placeholder."""
    if isinstance(value, Tensor):
        return value.type
    if isinstance(value, Axis):
        return value.type
    return IndexType()


def placeholder(name: str, value: Any, fn_name: str) -> Any:
    """What a ``@workload`` function receives for a parameter bound to ``value``."""
    if isinstance(value, Tensor | View):
        shape = [None if d < 0 else d for d in value.type.get_shape()]
        dtype = value.tensor.dtype if isinstance(value, View) else value.dtype
        return ParamTensor(name, shape, dtype)
    if isinstance(value, Axis):
        return AxisParam(name, value.type)
    if (isinstance(value, Expr) and not value.is_bool) or is_int(value):
        return Param(name)
    raise CompileError(
        f"@workload {fn_name}",
        f"parameter {name!r} is bound to {value!r}: workload arguments are tensors, views, "
        "axes and index values",
    )


class WorkloadDef(Bound):
    """A ``@workload`` function: call it with argument values to bind its parameters."""

    def __init__(self, fn: Callable[..., Any], name: str, level: str):
        self.fn, self.fn_name, self.level = fn, name, level
        self.loc = user_location()
        self.traces: dict[tuple, tuple[list[tuple[str, Any]], list[Workload]]] = {}
        self.param_names = param_names(fn, f"@workload {name}", _arity(fn), "its arguments")
        self.definition, self.args = self, []
        self.name: str | None = name
        self._frame = None  # a definition is never a statement of a body

    def __call__(self, *args: Any) -> Bound:
        """This workload with its parameters bound to ``args`` (tensors, views, axes, indices)."""
        return Bound(self, list(args))


def _arity(fn: Callable[..., Any]) -> int:
    params = inspect.signature(fn).parameters.values()
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def workload(
    fn: Callable[..., Any] | None = None, *, level: str = "cpu", name: str | None = None
) -> Any:
    """Define a named workload: ``@workload`` or ``@workload(level="npu")``.

    The function's parameters are the workload's first arguments; its body returns a
    workload (functional form) or builds it with statements (``for b in P(...)``).
    """

    def define(f: Callable[..., Any]) -> WorkloadDef:
        symbol = check_identifier("@workload", name or f.__name__)
        if level not in LEVELS:
            raise CompileError(
                f"@workload {symbol}", f"level must be one of {', '.join(LEVELS)}, got {level!r}"
            )
        return WorkloadDef(f, symbol, level)

    return define if fn is None else define(fn)


class Call(Workload):
    """``call(w, *args)``: a cross-level call of a named workload (``wsp.call``)."""

    construct = "call"

    def __init__(self, target: Workload, args: list[Any]):
        super().__init__()
        self.target, self.args = target, args


def call(target: Any, *args: Any) -> Workload:
    """Call a named workload: ``call(attn_incore, b, h, Q)`` for a ``@workload(level="npu")``."""
    if isinstance(target, WorkloadDef):
        bound = target(*args)
        claim(bound)
        bound.loc = user_location()
        return Call(bound, list(args))
    if isinstance(target, Workload) and target.name is not None and not target.is_pipeline:
        if args:
            raise CompileError(
                "call", f"workload {target.name} is already bound: call it with no arguments"
            )
        claim(target)
        return Call(target, list(target.args) if isinstance(target, Bound) else [])
    raise CompileError(
        "call", f"call takes a @workload function or a named workload, got {target!r}"
    )
