"""Workload primitives (seed 001 §3): descriptions of which tasks a program creates.

``parallel_for``, ``for_each``, ``select``, ``cond``, ``combine``, ``sequential``, ``task``,
``cross`` (in axes.py) and ``call`` build a tree of Python objects; ``.module()`` lowers it
to the ``wsp`` dialect (lowering.py). Loop bodies are functions of the loop indices, called
once, right away, with placeholder indices named like the function's parameters
(``lambda b: ...`` makes ``named("b")``).

A body either returns its workload (``lambda b: task(...)``; a list is an implicit
combine) or, returning nothing, consists of the workloads it created and did not hand to
another primitive: its statements, in order. That second rule is what makes the decorator
form (``@workload`` functions with ``for b in P(...)``) work: every primitive records
itself in the innermost open body, and handing it to another primitive takes it out again.

Named workloads (``@workload``, ``.named``) and ``call`` are in definitions.py.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType

from pto_wsp.errors import CompileError, SourceLoc, user_location

from .axes import Axis, Cross, SparseRow
from .expressions import Const, Expr, Index, check_identifier
from .kernels import Kernel
from .tensors import Tensor, View

# --------------------------------------------------------------------------- bodies


class _Frame:
    """An open body: the workloads created in it and not (yet) handed to a primitive."""

    def __init__(self) -> None:
        self.statements: list[Workload] = []


_FRAMES: list[_Frame] = []


def _record(w: Workload) -> None:
    w._frame = _FRAMES[-1] if _FRAMES else None
    if w._frame is not None:
        w._frame.statements.append(w)


def claim(w: Workload) -> Workload:
    """``w`` is handed to a primitive: it is no longer a statement of the body it was made in."""
    frame, w._frame = w._frame, None
    if frame is not None:
        frame.statements[:] = [s for s in frame.statements if s is not w]
    return w


@contextmanager
def collecting() -> Iterator[_Frame]:
    """Open a body: primitives created inside become its statements."""
    frame = _Frame()
    depth = len(_FRAMES)
    _FRAMES.append(frame)
    try:
        yield frame
    finally:
        del _FRAMES[depth:]  # also drops frames an exception left open inside


def open_frame() -> _Frame:
    """Open a body that a later ``close_frame`` closes (for-loop and with-block bodies)."""
    frame = _Frame()
    _FRAMES.append(frame)
    return frame


def close_frame(frame: _Frame) -> None:
    """Close ``frame`` (and any body left open inside it), if it is still open.

    A ``for ... in P(...)`` generator abandoned by an exception is closed by the garbage
    collector, maybe while another body is being built: by then its frame was dropped with
    the body around it, and nothing must be closed.
    """
    for depth in range(len(_FRAMES) - 1, -1, -1):
        if _FRAMES[depth] is frame:
            del _FRAMES[depth:]
            return


def body_from(
    result: Any, frame: _Frame, construct: str, loc: SourceLoc, allow_empty: bool = False
) -> list[Workload]:
    """The body a function produced: its returned workload(s), or else its statements."""
    if result is None:
        statements = list(frame.statements)
        for w in statements:
            claim(w)
        if not statements and not allow_empty:
            raise CompileError(
                construct, "the body returns no workload (and creates none)", loc=loc
            )
        return statements
    if isinstance(result, Workload):
        workloads = [result]
    elif (
        isinstance(result, list | tuple) and result and all(isinstance(w, Workload) for w in result)
    ):
        workloads = list(result)
    else:
        raise CompileError(construct, f"the body returned {result!r}, not a workload", loc=loc)
    for w in workloads:
        check_child(w, construct)
        claim(w)
    if frame.statements:
        lost = frame.statements[0]
        raise CompileError(
            construct,
            f"the {lost.construct} built at {lost.loc} is neither returned nor used; "
            "return a list (or combine(...)) to keep several",
            loc=loc,
        )
    return workloads


def trace_body(
    fn: Callable[..., Any], args: Sequence[Any], construct: str, loc: SourceLoc
) -> list[Workload]:
    """Call a body function once with placeholder arguments; its workloads."""
    with collecting() as frame:
        result = fn(*args)
    return body_from(result, frame, construct, loc)


def param_names(fn: Any, construct: str, count: int, what: str) -> list[str]:
    """The names of a body function's parameters: they name the indices it receives."""
    if not callable(fn):
        raise CompileError(construct, f"the body must be a function of {what}, got {fn!r}")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # no signature (a builtin): the names are generic
        return [f"i{k}" for k in range(count)]
    names = [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(names) != count:
        raise CompileError(
            construct,
            f"the body takes {len(names)} parameter(s) ({', '.join(names) or 'none'}) but "
            f"{construct} binds {count} ({what})",
        )
    for name in names:
        check_identifier(construct, name)
    return names


def check_child(w: Any, construct: str) -> None:
    """Workloads nest; pipelines and unbound parametrized workloads do not."""
    if not isinstance(w, Workload):
        raise CompileError(construct, f"expected a workload, got {w!r}")
    if getattr(w, "is_pipeline", False):
        raise CompileError(
            construct, f"the pipeline built at {w.loc} cannot be part of another workload"
        )


# --------------------------------------------------------------------------- base


class Workload:
    """A workload expression (seed 001 §2.5): what tasks exist; ``.schedule()`` says how they run."""

    construct = "workload"
    is_pipeline = False

    def __init__(self) -> None:
        self.loc = user_location()
        self.name: str | None = None
        self._frame: _Frame | None = None
        _record(self)

    def named(self, name: str) -> Workload:
        """This workload as a named symbol (``wsp.workload @name``); used inside another, a call."""
        check_identifier("named", name)
        named = copy.copy(self)
        named.name = name
        named._frame = None
        if self._frame is not None:  # keep its place among the statements of its body
            statements = self._frame.statements
            statements[:] = [named if s is self else s for s in statements]
            named._frame, self._frame = self._frame, None
        return named

    def children(self) -> list[Workload]:
        """The nested workload expressions (not those of called workloads)."""
        return []

    def loops(self) -> Iterator[tuple[list[str], Any]]:
        """Each loop inside (not inside calls): its index names and its axis."""
        for child in self.children():
            if child.name is None:
                yield from child.loops()

    def coordinates(self) -> list[str]:
        """The task coordinates: the names of the loops inside, outermost first."""
        names: list[str] = []
        for loop_names, _ in self.loops():
            names += loop_names
        return list(dict.fromkeys(names))

    def schedule(self, name: str | None = None):
        """A schedule for this workload (seed 001 §5): chain ``.dispatch(...)``, ``.streams(n)``..."""
        from .schedules import Schedule

        return Schedule(self, name)

    def module(self):
        """The xDSL module: kernels, this workload (and the workloads it calls)."""
        from .program import build_module

        return build_module([self])

    def compile(self, target: str = "cpu_sim", **options: Any):
        """Compile for a target (``cpu_sim``, ``aie``, ``ascend``)."""
        from .program import compile

        return compile(self, target=target, **options)

    def enumerate(self, **bindings: Any) -> list:
        """The tasks this workload creates for ``bindings`` (seed 001 §2.5), in creation
        order: ``TaskInfo(id, kernel, coords, params)``. Symbols and index data need values;
        tensors do not (no body runs)."""
        from .enumeration import task_graph, tasks_of

        return tasks_of(task_graph(self, bindings, {}))

    def dependencies(self, **bindings: Any) -> dict[str, list[tuple[int, int]]]:
        """The edges between the tasks of ``enumerate(**bindings)``, by kind: ``structural``
        (for_each, sequential, ordering), ``raw``, ``waw``, ``war`` (inferred from regions)."""
        from .enumeration import edges_by_kind, task_graph

        return edges_by_kind(task_graph(self, bindings, {}))

    def text(self, debuginfo: bool = False) -> str:
        """The module's text, as pto-opt prints it (``debuginfo``: with each op's location,
        as ``pto-opt --print-debuginfo``)."""
        from .program import print_module

        return print_module(self.module(), debuginfo)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        name = f" {self.name}" if self.name else ""
        return f"<{self.construct}{name} at {self.loc}>"


# --------------------------------------------------------------------------- loops


class Loop(Workload):
    """``parallel_for`` / ``for_each`` over one axis; its body sees the loop's indices."""

    def __init__(self, kind: str, axis: Axis, names: list[str]):
        super().__init__()
        self.construct, self.kind, self.axis, self.names = kind, kind, axis, names
        self.indices = [Index(self, k, n) for k, n in enumerate(names)]
        self.body: list[Workload] = []

    def children(self) -> list[Workload]:
        return self.body

    def loops(self) -> Iterator[tuple[list[str], Any]]:
        yield self.names, self.axis
        yield from super().loops()


def loop_nest(kind: str, axis: Any, names: list[str]) -> tuple[Loop, Loop, list[Index]]:
    """The loops of ``kind`` over ``axis`` (one per axis of a cross): outer, inner, indices."""
    axes = axis.axes if isinstance(axis, Cross) else (axis,)
    for a in axes:
        if isinstance(a, SparseRow):
            raise CompileError(kind, f"{a!r} is one row of a Sparse axis: use select(row, fn)")
        if not isinstance(a, Axis):
            raise CompileError(kind, f"{kind} iterates an axis (Dense, DenseDyn, ...), got {a!r}")
    loops: list[Loop] = []
    rest = list(names)
    for a in axes:
        loop = Loop(kind, a, rest[: a.index_count])
        rest = rest[a.index_count :]
        if loops:
            claim(loop)
            loops[-1].body = [loop]
        loops.append(loop)
    return loops[0], loops[-1], [i for loop in loops for i in loop.indices]


def index_count(axis: Any, construct: str) -> int:
    """How many indices a loop over ``axis`` (or a cross) binds."""
    if isinstance(axis, Axis | Cross):
        return axis.index_count
    if isinstance(axis, SparseRow):
        raise CompileError(construct, f"{axis!r} is one row of a Sparse axis: use select(row, fn)")
    raise CompileError(
        construct, f"{construct} iterates an axis (Dense, DenseDyn, ...), got {axis!r}"
    )


def _loop(kind: str, axis: Any, body: Callable[..., Any]) -> Loop:
    count = index_count(axis, kind)
    names = param_names(body, kind, count, "the loop indices")
    outer, inner, indices = loop_nest(kind, axis, names)
    inner.body = trace_body(body, indices, kind, outer.loc)
    return outer


def parallel_for(axis: Any, body: Callable[..., Any]) -> Workload:
    """Independent iterations: ``parallel_for(batch, lambda b: ...)`` (Ragged/Sparse: ``(r, j)``)."""
    return _loop("parallel_for", axis, body)


def for_each(axis: Any, body: Callable[..., Any]) -> Workload:
    """Ordered iterations: every task of iteration i+1 runs after all tasks of iteration i."""
    return _loop("for_each", axis, body)


class Select(Workload):
    """``select(sparse[b], lambda e: ...)``: the body for each column index stored in one CSR row."""

    construct = "select"

    def __init__(self, row: SparseRow, name: str):
        super().__init__()
        self.row, self.names = row, [name]
        self.index = Index(self, 0, name)
        self.body: list[Workload] = []

    def children(self) -> list[Workload]:
        return self.body

    def loops(self) -> Iterator[tuple[list[str], Any]]:
        yield self.names, self.row
        yield from super().loops()


def check_row(row: Any, construct: str) -> SparseRow:
    """``row`` must be one row ``sparse[b]`` of a Sparse axis."""
    if not isinstance(row, SparseRow):
        raise CompileError(
            construct, f"select takes one row of a Sparse axis (sparse[b]), got {row!r}"
        )
    return row


def select(row: Any, body: Callable[..., Any]) -> Workload:
    """For each column index ``e`` stored in row ``sparse[b]``: ``body(e)`` (MoE routing)."""
    check_row(row, "select")
    (name,) = param_names(body, "select", 1, "the column index")
    sel = Select(row, name)
    sel.body = trace_body(body, [sel.index], "select", sel.loc)
    return sel


# --------------------------------------------------------------------------- structure


def as_workloads(value: Any, construct: str) -> list[Workload]:
    """A branch or child: a workload, or a list of them (an implicit combine)."""
    items = list(value) if isinstance(value, list | tuple) else [value]
    for w in items:
        check_child(w, construct)
        claim(w)
    return items


def predicate(value: Any, construct: str) -> Expr:
    """A static (Python bool) or runtime (i1 expression) predicate."""
    if isinstance(value, bool | np.bool_):
        return Const(bool(value))
    if isinstance(value, Expr) and not isinstance(value, View) and value.is_bool:
        return value
    raise CompileError(
        construct,
        f"the predicate is a Python bool or a runtime comparison (seq_lens[b] <= 2048), "
        f"got {value!r}",
    )


class Cond(Workload):
    """``cond(pred, then_w, else_w)``: only the taken branch's tasks exist."""

    construct = "cond"

    def __init__(self, pred: Expr, then_body: list[Workload], else_body: list[Workload]):
        super().__init__()
        self.pred, self.then_body, self.else_body = pred, then_body, else_body
        self.from_when = False

    def children(self) -> list[Workload]:
        return self.then_body + self.else_body


def cond(pred: Any, then_w: Any, else_w: Any = None) -> Workload:
    """``then_w`` if ``pred`` holds, else ``else_w``; pred is a bool or a runtime comparison."""
    p = predicate(pred, "cond")
    then_body = as_workloads(then_w, "cond")
    else_body = [] if else_w is None else as_workloads(else_w, "cond")
    return Cond(p, then_body, else_body)


class Group(Workload):
    """``combine`` (no order) or ``sequential`` (child k+1 after child k); also a ``with`` block."""

    def __init__(self, kind: str, children: list[Workload]):
        super().__init__()
        self.construct, self.kind, self.items = kind, kind, children
        self._open: _Frame | None = None

    def children(self) -> list[Workload]:
        return self.items

    def __enter__(self) -> Group:
        if self.items:
            raise CompileError(self.kind, f"`with {self.kind}():` takes no workloads")
        self._open = open_frame()
        return self

    def __exit__(self, exc_type: Any, *_: Any) -> bool:
        assert self._open is not None
        close_frame(self._open)
        if exc_type is None:
            self.items = body_from(None, self._open, self.kind, self.loc)
        return False


def _group(kind: str, workloads: Sequence[Any]) -> Group:
    items = (
        list(workloads[0])
        if len(workloads) == 1 and isinstance(workloads[0], list)
        else list(workloads)
    )
    return Group(kind, as_workloads(items, kind) if items else [])


def combine(*workloads: Any) -> Workload:
    """All of the workloads, in no order (data dependencies still order tasks)."""
    return _group("combine", workloads)


def sequential(*workloads: Any) -> Workload:
    """The workloads in order: every task of one runs after every task of the previous one."""
    return _group("sequential", workloads)


# --------------------------------------------------------------------------- leaves


def _check_resource(kernel: Kernel, position: int, value: Any) -> Tensor | View:
    param = kernel.tensor_params[position]
    construct = "task"
    if not isinstance(value, Tensor | View):
        raise CompileError(
            construct,
            f"resource {param.name!r} of @{kernel.name} is a view or tensor (Q[b][h]), got {value!r}",
        )
    expected, actual = param.type, value.type
    if expected is None:  # a generic kernel: the views' types make its instance
        return value
    assert isinstance(expected, MemRefType)
    e_shape, a_shape = expected.get_shape(), actual.get_shape()
    if len(e_shape) != len(a_shape):
        raise CompileError(
            construct,
            f"resource {param.name!r} of @{kernel.name} has rank {len(e_shape)} ({expected}), "
            f"but {value!r} has rank {len(a_shape)} ({actual})",
        )
    fits = expected.element_type == actual.element_type and all(
        e == a or e < 0 or a < 0 for e, a in zip(e_shape, a_shape)
    )
    if not fits:
        raise CompileError(
            construct,
            f"resource {param.name!r} of @{kernel.name} must be {expected}, "
            f"but {value!r} is {actual}",
        )
    return value


class Task(Workload):
    """One kernel invocation: ``params`` -> scalar parameters, ``resources`` -> tensor parameters."""

    construct = "task"

    def __init__(self, kernel: Kernel, params: list[Expr], resources: list[Tensor | View]):
        super().__init__()
        self.kernel, self.params, self.resources = kernel, params, resources


def task(kernel: Any, params: Any = (), resources: Any = ()) -> Workload:
    """``task(attn, [b, h], [Q[b][h], O[b][h]])``: one task of a ``@kernel``."""
    if not isinstance(kernel, Kernel):
        raise CompileError("task", f"task takes a @kernel, got {kernel!r}")
    params = list(params) if isinstance(params, list | tuple) else [params]
    resources = list(resources) if isinstance(resources, list | tuple) else [resources]
    scalars, tensors = kernel.scalar_params, kernel.tensor_params
    if len(params) != len(scalars):
        raise CompileError(
            "task",
            f"kernel @{kernel.name} takes {len(scalars)} scalar parameter(s) "
            f"({', '.join(p.name for p in scalars) or 'none'}), got {len(params)}",
        )
    if len(resources) != len(tensors):
        raise CompileError(
            "task",
            f"kernel @{kernel.name} takes {len(tensors)} resource(s) "
            f"({', '.join(p.name for p in tensors) or 'none'}), got {len(resources)}",
        )
    values = [s.scalar(p, kernel.name) for p, s in zip(params, scalars)]
    checked = [_check_resource(kernel, i, r) for i, r in enumerate(resources)]
    return Task(kernel, values, checked)
