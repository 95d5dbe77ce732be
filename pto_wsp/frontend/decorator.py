"""The decorator form: workload bodies written as Python statements with the ``P`` namespace.

Inside a ``@workload`` function (or a process body function):

```python
for b, h in P(batch, heads):          # parallel_for over each axis, nested
    attn[b, h](Q=Q[b, h], O=O[b, h])  # a task of kernel attn
for i in P.seq(tiles): ...            # for_each
for e in P.sel(routing[b]): ...       # select over one CSR row
with P.when(seq_lens[b] <= 2048): ... # cond
with P.otherwise(): ...               # its else branch
```

Each ``for`` runs its body once, with placeholder indices named like the ``for`` targets
(read from the source of the ``for`` statement); the workloads the body creates become the
loop's body. Both forms build the same description, hence the same IR.
"""

from __future__ import annotations

import ast
import linecache
import sys
from types import FrameType
from typing import Any

from pto_wsp.errors import CompileError, SourceLoc

from .axes import Axis, cross
from .workloads import (
    _FRAMES,
    Cond,
    Select,
    body_from,
    check_row,
    close_frame,
    index_count,
    loop_nest,
    open_frame,
    predicate,
)

_TREES: dict[str, tuple[tuple[str, ...], ast.AST | None]] = {}


def _tree(frame: FrameType) -> ast.AST | None:
    """The parsed source of the file a frame runs (cached while the file is unchanged)."""
    filename = frame.f_code.co_filename
    lines = tuple(linecache.getlines(filename, frame.f_globals))
    cached = _TREES.get(filename)
    if cached is not None and cached[0] == lines:
        return cached[1]
    try:
        tree: ast.AST | None = ast.parse("".join(lines)) if lines else None
    except SyntaxError:
        tree = None
    _TREES[filename] = (lines, tree)
    return tree


def _flat_names(target: ast.AST) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        names: list[str] = []
        for elt in target.elts:
            inner = _flat_names(elt)
            if inner is None:
                return None
            names += inner
        return names
    return None


def source_target_names(frame: FrameType, statement: type[ast.stmt]) -> list[str] | None:
    """The names a ``for`` (or ``with ... as``) statement at the frame's line binds."""
    tree = _tree(frame)
    if tree is None:
        return None
    line = frame.f_lineno
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, statement):
            continue
        header_end = (
            node.iter.end_lineno
            if isinstance(node, ast.For)
            else node.items[-1].context_expr.end_lineno
        )
        if node.lineno <= line <= (header_end or node.lineno):
            if best is None or node.lineno >= best.lineno:
                best = node
    if isinstance(best, ast.For):
        return _flat_names(best.target)
    if isinstance(best, ast.With):
        targets = [item.optional_vars for item in best.items if item.optional_vars is not None]
        return _flat_names(targets[0]) if len(targets) == 1 else None
    return None


def _require_body(construct: str) -> None:
    if not _FRAMES:
        raise CompileError(
            construct,
            "P loops and blocks build a workload body: use them inside a @workload function "
            "or a process body function",
        )


class _LoopStatement:
    """``for ... in P(...)`` / ``P.seq(...)`` / ``P.sel(row)``: one loop (nest) of a body."""

    def __init__(self, kind: str, construct: str, axes: tuple[Any, ...]):
        self.kind, self.construct, self.axes = kind, construct, axes

    def __iter__(self):
        caller = sys._getframe(1)  # the frame running the `for` statement
        loc = SourceLoc(caller.f_code.co_filename, caller.f_lineno)
        _require_body(self.construct)
        if self.kind == "select":
            count = 1
        else:
            count = sum(index_count(a, self.construct) for a in self.axes)
        names = source_target_names(caller, ast.For) or [f"i{k}" for k in range(count)]
        if len(names) != count:
            raise CompileError(
                self.construct,
                f"`for {', '.join(names)} in {self.construct}(...)` names {len(names)} index(es), "
                f"but the loop binds {count}",
                loc=loc,
            )
        if self.kind == "select":
            outer = inner = Select(self.axes[0], names[0])
            indices = [outer.index]
        else:
            axis = self.axes[0] if len(self.axes) == 1 else cross(*self.axes)
            outer, inner, indices = loop_nest(self.kind, axis, names)
        outer.loc = loc
        frame = open_frame()
        try:
            yield indices[0] if len(indices) == 1 else tuple(indices)
        except GeneratorExit:  # `break` out of the body: keep what it built
            close_frame(frame)
            inner.body = body_from(None, frame, self.construct, loc, allow_empty=True)
            return
        close_frame(frame)
        inner.body = body_from(None, frame, self.construct, loc)


class _When:
    """``with P.when(pred):``: a ``cond`` whose then-branch is the block."""

    def __init__(self, pred: Any, loc: SourceLoc):
        self.pred, self.loc = predicate(pred, "P.when"), loc

    def __enter__(self) -> None:
        _require_body("P.when")
        self._frame = open_frame()

    def __exit__(self, exc_type: Any, *_: Any) -> bool:
        close_frame(self._frame)
        if exc_type is None:
            body = body_from(None, self._frame, "P.when", self.loc)
            cond = Cond(self.pred, body, [])
            cond.loc, cond.from_when = self.loc, True
        return False


class _Otherwise:
    """``with P.otherwise():``: the else-branch of the ``P.when`` block just before it."""

    def __init__(self, loc: SourceLoc):
        self.loc = loc

    def __enter__(self) -> None:
        _require_body("P.otherwise")
        statements = _FRAMES[-1].statements
        last = statements[-1] if statements else None
        if not isinstance(last, Cond) or not last.from_when or last.else_body:
            raise CompileError(
                "P.otherwise",
                "P.otherwise() must directly follow a `with P.when(...)` block",
                loc=self.loc,
            )
        self._cond = last
        self._frame = open_frame()

    def __exit__(self, exc_type: Any, *_: Any) -> bool:
        close_frame(self._frame)
        if exc_type is None:
            self._cond.else_body = body_from(None, self._frame, "P.otherwise", self.loc)
        return False


def _loc() -> SourceLoc:
    caller = sys._getframe(2)
    return SourceLoc(caller.f_code.co_filename, caller.f_lineno)


class _P:
    """Loop and block constructors of the decorator form (``P(...)``, ``P.seq``, ``P.sel``, ...)."""

    def __call__(self, *axes: Axis) -> _LoopStatement:
        """``for b, h in P(batch, heads):``: nested ``parallel_for`` loops (independent)."""
        return self._loops("parallel_for", "P", axes)

    def grid(self, *axes: Axis) -> _LoopStatement:
        """The same as ``P(...)``."""
        return self._loops("parallel_for", "P.grid", axes)

    def seq(self, *axes: Axis) -> _LoopStatement:
        """``for i in P.seq(tiles):``: nested ``for_each`` loops (iteration i+1 after i)."""
        return self._loops("for_each", "P.seq", axes)

    def sel(self, row: Any) -> _LoopStatement:
        """``for e in P.sel(routing[b]):``: ``select`` over one row of a Sparse axis."""
        return _LoopStatement("select", "P.sel", (check_row(row, "P.sel"),))

    def when(self, pred: Any) -> _When:
        """``with P.when(pred):``: the block's tasks exist only if pred holds."""
        return _When(pred, _loc())

    def otherwise(self) -> _Otherwise:
        """``with P.otherwise():``: the else branch of the preceding ``P.when`` block."""
        return _Otherwise(_loc())

    @staticmethod
    def _loops(kind: str, construct: str, axes: tuple[Any, ...]) -> _LoopStatement:
        if not axes:
            raise CompileError(construct, f"{construct}(...) needs at least one axis")
        return _LoopStatement(kind, construct, axes)


P = _P()
