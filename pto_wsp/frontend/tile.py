"""Tile kernels from Python: ``from pto_wsp import tile as pl`` (docs/kernels.md).

A ``@kernel`` whose body refers to this module (``pl.load``, ``pl.add``, ...) is a tile
kernel: its body is traced once per kernel instance into an InCore ``func.func`` of the
``pto`` dialect, named ``@<instance>_tile``, and the kernel's ``wsp.kernel`` names it
(``{tile = @..._tile}``). Inside the body, tensor parameters are ``TensorParam``s (only
``pl.load``/``pl.store`` use them), scalar parameters are ``ScalarParam``s (scalar operands of
tile ops, valid sizes, offsets), and every ``pl.*`` op gives a ``Tile``. Python control flow
over static values unrolls; ``pl.range`` traces a loop (``scf.for``) instead, its body once.
Every traced op carries the Python line of its ``pl.*`` call as its location.

After tracing, ``pto-infer-spaces`` places the tiles (matmul operands into mat/left/right, acc
results read by vector ops into vec) and every op is verified: a wrong shape, element type or
space is a ``CompileError`` at the line of the body that wrote the op.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import pto
from pto_wsp.errors import CompileError, SourceLoc, user_location
from pto_wsp.passes.diagnostics import source_of
from pto_wsp.passes.pto_infer_spaces import SpaceError, infer_spaces

from .tensors import DType

_STATE = threading.local()


class Tile:
    """A tile inside a tile kernel's body: ``a + b``, ``a * 2.0``, ``-a``, ``a.T`` are tile ops."""

    def __init__(self, value: SSAValue):
        self.value = value

    @property
    def type(self) -> pto.TileType:
        return pto.tile(self.value)

    @property
    def shape(self) -> tuple[int, ...]:
        """The tile's static shape."""
        return self.type.dims

    @property
    def dtype(self) -> str:
        """The element type's name: ``f32``, ``i8``, ``i1`` (a mask)."""
        return pto.type_name(self.type.element_type)

    @property
    def space(self) -> str:
        """The memory space: ``vec``, ``mat``, ``left``, ``right``, ``acc``, ``bias``."""
        return self.type.space_name

    @property
    def T(self) -> Tile:  # noqa: N802 (numpy's spelling)
        return transpose(self)

    def __add__(self, other: Any) -> Tile:
        return add(self, other)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Tile:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Tile:
        return sub(other, self)

    def __mul__(self, other: Any) -> Tile:
        return mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Tile:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Tile:
        return div(other, self)

    def __neg__(self) -> Tile:
        return neg(self)

    def __matmul__(self, other: Tile) -> Tile:
        return matmul(self, other)

    def __repr__(self) -> str:
        return f"Tile({self.type})"


class TensorParam:
    """A tensor parameter inside a tile kernel's body: read with ``pl.load``, written with ``pl.store``."""

    def __init__(self, name: str, access: str, value: SSAValue):
        self.name, self.access, self.value = name, access, value

    @property
    def shape(self) -> tuple[int, ...]:
        """The parameter's static shape (-1 for a runtime extent)."""
        assert isinstance(self.value.type, MemRefType)
        return tuple(self.value.type.get_shape())

    def __repr__(self) -> str:
        return f"TensorParam({self.name}: {self.access} {self.value.type})"


class ScalarParam:
    """A scalar inside a tile kernel's body (a scalar parameter, a ``pl.range`` index, or
    integer arithmetic on them): a scalar operand, a valid size, an offset."""

    def __init__(self, name: str, value: SSAValue):
        self.name, self.value = name, value

    def _arith(self, kind: str, other: Any, reflected: bool = False) -> ScalarParam:
        if not isinstance(self.value.type, IndexType | IntegerType):
            raise CompileError(
                f"pl.{kind}", f"arithmetic on scalars is on indices and integers; "
                f"{self.name} is {self.value.type}",
            )  # fmt: skip
        if isinstance(other, ScalarParam):
            if other.value.type != self.value.type:
                raise CompileError(
                    f"pl.{kind}", f"{self.name} is {self.value.type}, {other.name} is "
                    f"{other.value.type}",
                )  # fmt: skip
            rhs, text = other.value, other.name
        elif isinstance(other, int) and not isinstance(other, bool):
            rhs, text = _integer(other, self.value.type, kind), str(other)
        else:
            return NotImplemented
        a, b = (rhs, self.value) if reflected else (self.value, rhs)
        cls = _SCALAR_OPS[kind]
        name = (
            f"({text} {_SYMBOLS[kind]} {self.name})"
            if reflected
            else (f"({self.name} {_SYMBOLS[kind]} {text})")
        )
        return ScalarParam(name, _emit(kind, lambda: cls(a, b)).results[0])

    def __add__(self, other: Any) -> ScalarParam:
        return self._arith("add", other)

    def __radd__(self, other: Any) -> ScalarParam:
        return self._arith("add", other, reflected=True)

    def __sub__(self, other: Any) -> ScalarParam:
        return self._arith("sub", other)

    def __rsub__(self, other: Any) -> ScalarParam:
        return self._arith("sub", other, reflected=True)

    def __mul__(self, other: Any) -> ScalarParam:
        return self._arith("mul", other)

    def __rmul__(self, other: Any) -> ScalarParam:
        return self._arith("mul", other, reflected=True)

    def __floordiv__(self, other: Any) -> ScalarParam:
        return self._arith("floordiv", other)

    def __rfloordiv__(self, other: Any) -> ScalarParam:
        return self._arith("floordiv", other, reflected=True)

    def _compare(self, kind: str, other: Any) -> ScalarParam:
        """An i1 scalar: ``self <kind> other`` (signed for integers, ordered for floats),
        a ``pl.cond`` predicate."""
        type_ = self.value.type
        if isinstance(other, ScalarParam):
            if other.value.type != type_:
                raise CompileError(
                    "pl.cond", f"{self.name} is {type_}, {other.name} is {other.value.type}"
                )
            rhs, text = other.value, other.name
        elif isinstance(other, int | float) and not isinstance(other, bool):
            rhs, text = _scalar(other, type_, "cond"), str(other)
        else:
            return NotImplemented
        a, floats = self.value, pto.is_float(type_)

        def make() -> Operation:
            if floats:
                return arith.CmpfOp(a, rhs, "o" + kind)
            return arith.CmpiOp(a, rhs, "s" + kind)

        name = f"({self.name} {_COMPARE[kind]} {text})"
        return ScalarParam(name, _emit("cond", make).results[0])

    def __lt__(self, other: Any) -> ScalarParam:
        return self._compare("lt", other)

    def __le__(self, other: Any) -> ScalarParam:
        return self._compare("le", other)

    def __gt__(self, other: Any) -> ScalarParam:
        return self._compare("gt", other)

    def __ge__(self, other: Any) -> ScalarParam:
        return self._compare("ge", other)

    def __bool__(self) -> bool:
        raise CompileError(
            "pl.cond", f"{self.name} is known when the kernel runs, not when it is traced: "
            "Python's if, and, or, not cannot test it; branch with pl.cond(pred, "
            "true_fn, false_fn, *operands)",
        )  # fmt: skip

    def __repr__(self) -> str:
        return f"ScalarParam({self.name}: {self.value.type})"


_SCALAR_OPS = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "floordiv": arith.FloorDivSIOp,
}
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _integer(x: int, type_: Attribute, what: str) -> SSAValue:
    return _emit(what, lambda: arith.ConstantOp(IntegerAttr(x, type_))).results[0]


class _Tracer:
    """The body being traced: its block, the blocks of the ``pl.range`` loops being traced
    (innermost last) and where each op was written."""

    def __init__(self, function: str, loc: SourceLoc):
        self.function, self.loc = function, loc
        self.block = Block()
        #: The open ``pl.range`` loops and ``pl.cond`` branches (a branch is its block),
        #: innermost last.
        self.scopes: list[_Loop | Block] = []
        self.written: dict[Operation, str] = {}
        #: Where a ``pl.range`` loop was left early (break, return): no op may follow.
        self.left: SourceLoc | None = None

    def add(self, op: Operation) -> None:
        """Add ``op`` at the end of the innermost open body (a loop's: before its
        terminator, a placeholder until the body ends)."""
        top = self.scopes[-1] if self.scopes else self.block
        if isinstance(top, _Loop):
            assert top.block.last_op is not None
            top.block.insert_op_before(op, top.block.last_op)
        else:
            top.add_op(op)

    def loop(self) -> _Loop | None:
        """The innermost scope when it is a ``pl.range`` loop."""
        top = self.scopes[-1] if self.scopes else None
        return top if isinstance(top, _Loop) else None


def _tracer(what: str) -> _Tracer:
    tracer = getattr(_STATE, "tracer", None)
    if tracer is None:
        raise CompileError(
            f"pl.{what}", "tile ops are written inside a @kernel's body, which is traced "
            "when a workload using the kernel is built",
        )  # fmt: skip
    return tracer


def _emit(what: str, make: Callable[[], Operation], verify: bool = True) -> Operation:
    """Build an op and add it to the body; a rule it breaks is an error at the user's line.

    Rules about spaces that ``pto-infer-spaces`` establishes (matmul operands in left/right,
    vector ops on acc tiles) are checked after it runs."""
    tracer = _tracer(what)
    if tracer.left is not None:
        raise CompileError(
            "pl.range", "the loop was left early (break or return); a traced loop runs its "
            "body to the end, once", loc=tracer.left,
        )  # fmt: skip
    loop = tracer.loop()
    if loop is not None and loop.yielded is not None:
        raise CompileError(f"pl.{what}", "pl.yield_ ends the loop body: write ops before it")
    try:
        op = make()
    except (VerifyException, IndexError, ValueError) as error:
        raise CompileError(f"pl.{what}", _line(error)) from None
    _check_scope(tracer, op, what)
    tracer.add(op)
    tracer.written[op] = what
    where = user_location()
    op.location = FileLineColLoc(StringAttr(where.filename), IntAttr(where.lineno), IntAttr(0))
    if verify and not _placed_later(op):
        try:
            op.verify()
        except VerifyException as error:
            raise CompileError(f"pl.{what}", _line(error)) from None
    return op


def _check_scope(tracer: _Tracer, op: Operation, what: str) -> None:
    """An operand made inside a ``pl.range`` body or a ``pl.cond`` branch that has ended is
    an error: only the values carried with ``init_values`` and given to ``pl.yield_`` leave a
    loop, and what a branch returns leaves ``pl.cond``."""
    open_blocks = {tracer.block, *(s.block if isinstance(s, _Loop) else s for s in tracer.scopes)}
    for value in op.operands:
        block = value.owner if isinstance(value.owner, Block) else value.owner.parent_block()
        if block not in open_blocks:
            raise CompileError(
                f"pl.{what}", "an operand was made inside a pl.range loop or a pl.cond branch "
                "that has ended: carry it out of a loop with init_values=(...) and pl.yield_, "
                "out of a branch by returning it",
            )  # fmt: skip


def _placed_later(op: Operation) -> bool:
    if isinstance(op, pto.MatmulOp | pto.MatmulAccOp | pto.MatmulBiasOp):
        return True
    return any(isinstance(v.type, pto.TileType) and v.type.space_name != "vec" for v in op.operands)


def _line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _tile(x: Any, what: str) -> SSAValue:
    if not isinstance(x, Tile):
        raise CompileError(f"pl.{what}", f"expected a tile (the result of a pl op), got {x!r}")
    return x.value


def _scalar(x: Any, element: Attribute, what: str) -> SSAValue:
    """A Python number as a constant of ``element``, or a scalar parameter's value."""
    if isinstance(x, ScalarParam):
        return x.value
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise CompileError(
            f"pl.{what}", f"expected a tile, a number or a scalar parameter, got {x!r}"
        )
    if pto.is_float(element):
        attr: Attribute = FloatAttr(float(x), element)
    elif isinstance(x, float) and not x.is_integer():
        raise CompileError(f"pl.{what}", f"{x} is not an integer, the tile holds {element}")
    else:
        attr = IntegerAttr(int(x), element)
    return _emit(what, lambda: arith.ConstantOp(attr)).results[0]


def _index(x: Any, what: str) -> SSAValue:
    """An offset or valid size: an int or an index scalar parameter."""
    if isinstance(x, ScalarParam):
        if not isinstance(x.value.type, IndexType):
            raise CompileError(f"pl.{what}", f"{x.name} is {x.value.type}, not an index")
        return x.value
    if isinstance(x, bool) or not isinstance(x, int):
        raise CompileError(
            f"pl.{what}", f"an offset or size is an int or index parameter, got {x!r}"
        )
    return _emit(what, lambda: arith.ConstantOp(IntegerAttr(x, IndexType()))).results[0]


def _valid(shape: Sequence[int], valid: Sequence[Any] | None, what: str):
    """The valid dims of a tile (``?`` per scalar parameter) and the operands for the ``?``."""
    if valid is None:
        return tuple(shape), []
    if len(valid) != len(shape):
        raise CompileError(f"pl.{what}", f"valid has {len(valid)} sizes for a {len(shape)}-d tile")
    dims, operands = [], []
    for v in valid:
        if isinstance(v, ScalarParam):
            dims.append(pto.DYNAMIC_INDEX)
            operands.append(_index(v, what))
        else:
            dims.append(v)
    return tuple(dims), operands


def _dtype(dtype: Any, what: str) -> Attribute:
    if isinstance(dtype, DType):
        return dtype.mlir
    from . import tensors

    found = getattr(tensors, str(dtype), None)
    if not isinstance(found, DType):
        raise CompileError(f"pl.{what}", f"unknown element type {dtype!r}")
    return found.mlir


# --------------------------------------------------------------------------- memory


def load(
    param: TensorParam,
    offsets: Sequence[Any] | None = None,
    *,
    shape: Sequence[int] | None = None,
    valid: Sequence[Any] | None = None,
    space: str = "vec",
) -> Tile:
    """Read an In/InOut parameter (or a ``shape`` window of it at ``offsets``) into a tile."""
    if not isinstance(param, TensorParam):
        raise CompileError("pl.load", f"pl.load reads a tensor parameter, got {param!r}")
    if param.access not in ("in", "inout"):
        raise CompileError(
            "pl.load",
            f"pl.load reads an In or InOut parameter; {param.name} is {param.access.title()}",
        )
    dims = tuple(shape) if shape is not None else param.shape
    if any(d < 0 for d in dims):
        raise CompileError(
            "pl.load", f"{param.name} has a runtime extent: give the tile's shape (shape=...)"
        )
    valid_dims, sizes = _valid(dims, valid, "load")
    at = [_index(o, "load") for o in offsets or ()]
    assert isinstance(param.value.type, MemRefType)
    element = param.value.type.element_type
    t = pto.TileType(dims, element, space, valid_dims)
    return Tile(_emit("load", lambda: pto.LoadOp(param.value, t, at, sizes)).results[0])


def store(tile: Tile, param: TensorParam, offsets: Sequence[Any] | None = None) -> None:
    """Write a tile's valid part to an Out/InOut parameter (at ``offsets``)."""
    value = _tile(tile, "store")
    if not isinstance(param, TensorParam):
        raise CompileError("pl.store", f"pl.store writes a tensor parameter, got {param!r}")
    if param.access not in ("out", "inout"):
        raise CompileError(
            "pl.store", f"pl.store writes an Out or InOut parameter; {param.name} is In"
        )
    at = [_index(o, "store") for o in offsets or ()]
    _emit("store", lambda: pto.StoreOp(value, param.value, at))


def full(shape: Sequence[int], value: Any, dtype: Any = "f32", *, valid=None) -> Tile:
    """A vec tile of ``shape`` with every element ``value`` (a number or scalar parameter)."""
    element = _dtype(dtype, "full")
    scalar = _scalar(value, element, "full")
    valid_dims, sizes = _valid(tuple(shape), valid, "full")
    t = pto.TileType(tuple(shape), element, "vec", valid_dims)
    return Tile(_emit("full", lambda: pto.FullOp(scalar, t, sizes)).results[0])


def fillpad(tile: Tile, value: Any) -> Tile:
    """The tile with the elements past its valid shape set to ``value``; valid whole."""
    t = _tile(tile, "fillpad")
    s = _scalar(value, pto.tile(t).element_type, "fillpad")
    return Tile(_emit("fillpad", lambda: pto.FillPadOp(t, s)).results[0])


def move(tile: Tile, space: str) -> Tile:
    """The tile copied to another memory space (``pto-infer-spaces`` inserts the usual ones)."""
    t = _tile(tile, "move")
    return Tile(_emit("move", lambda: pto.MoveOp(t, space)).results[0])


# --------------------------------------------------------------------------- elementwise

_COMMUTES = ("add", "mul", "max", "min")


def _binary(kind: str, a: Any, b: Any) -> Tile:
    if not isinstance(a, Tile) and isinstance(b, Tile):
        if kind in _COMMUTES:
            return _binary(kind, b, a)
        if kind == "sub":
            return _binary("add", neg(b), a)
        return _binary("mul", recip(b), a)
    x = _tile(a, kind)
    if isinstance(b, Tile):
        cls = getattr(pto, f"{kind.capitalize()}Op")
        return Tile(_emit(kind, lambda: cls(x, b.value)).results[0])
    s = _scalar(b, pto.tile(x).element_type, kind)
    cls = getattr(pto, f"{kind.capitalize()}sOp")
    return Tile(_emit(kind, lambda: cls(x, s)).results[0])


def add(a: Any, b: Any) -> Tile:
    """``a + b``: tiles, or a tile and a number / scalar parameter."""
    return _binary("add", a, b)


def sub(a: Any, b: Any) -> Tile:
    """``a - b``."""
    return _binary("sub", a, b)


def mul(a: Any, b: Any) -> Tile:
    """``a * b``."""
    return _binary("mul", a, b)


def div(a: Any, b: Any) -> Tile:
    """``a / b`` (integers: truncated toward zero)."""
    return _binary("div", a, b)


def max(a: Any, b: Any) -> Tile:  # noqa: A001 (the op's name)
    """Elementwise maximum."""
    return _binary("max", a, b)


def min(a: Any, b: Any) -> Tile:  # noqa: A001
    """Elementwise minimum."""
    return _binary("min", a, b)


def _unary(kind: str, a: Any) -> Tile:
    """The one-operand op ``kind`` (``row_sum`` is ``pto.RowSumOp``) applied to ``a``."""
    x = _tile(a, kind)
    cls = getattr(pto, "".join(p.capitalize() for p in kind.split("_")) + "Op")
    return Tile(_emit(kind, lambda: cls(x)).results[0])


def exp(a: Tile) -> Tile:
    """``exp(a)`` (floats)."""
    return _unary("exp", a)


def log(a: Tile) -> Tile:
    """Natural logarithm (floats)."""
    return _unary("log", a)


def sqrt(a: Tile) -> Tile:
    """Square root (floats)."""
    return _unary("sqrt", a)


def rsqrt(a: Tile) -> Tile:
    """``1 / sqrt(a)`` (floats)."""
    return _unary("rsqrt", a)


def recip(a: Tile) -> Tile:
    """``1 / a`` (floats)."""
    return _unary("recip", a)


def abs(a: Tile) -> Tile:  # noqa: A001
    """Absolute value."""
    return _unary("abs", a)


def neg(a: Tile) -> Tile:
    """``-a``."""
    return _unary("neg", a)


def relu(a: Tile) -> Tile:
    """``max(a, 0)``."""
    return _unary("relu", a)


def cast(a: Tile, dtype: Any) -> Tile:
    """The tile as another element type (float to int rounds to nearest even)."""
    x = _tile(a, "cast")
    element = _dtype(dtype, "cast")
    return Tile(_emit("cast", lambda: pto.CastOp(x, element)).results[0])


def cmp(a: Tile, b: Any, predicate: str) -> Tile:
    """An i1 mask ``a <predicate> b`` (``eq ne lt le gt ge``); ``b`` a tile or a scalar."""
    x = _tile(a, "cmp")
    if isinstance(b, Tile):
        return Tile(_emit("cmp", lambda: pto.CmpOp(predicate, x, b.value)).results[0])
    s = _scalar(b, pto.tile(x).element_type, "cmp")
    return Tile(_emit("cmp", lambda: pto.CmpsOp(predicate, x, s)).results[0])


def sel(mask: Tile, a: Tile, b: Tile) -> Tile:
    """Element by element ``mask ? a : b``."""
    m, x, y = _tile(mask, "sel"), _tile(a, "sel"), _tile(b, "sel")
    return Tile(_emit("sel", lambda: pto.SelOp(m, x, y)).results[0])


# --------------------------------------------------------------------------- rows and columns


def row_sum(a: Tile) -> Tile:
    """R x C -> R x 1: the sum of each row."""
    return _unary("row_sum", a)


def row_max(a: Tile) -> Tile:
    """R x C -> R x 1: the maximum of each row."""
    return _unary("row_max", a)


def row_min(a: Tile) -> Tile:
    """R x C -> R x 1: the minimum of each row."""
    return _unary("row_min", a)


def col_sum(a: Tile) -> Tile:
    """R x C -> 1 x C: the sum of each column."""
    return _unary("col_sum", a)


def col_max(a: Tile) -> Tile:
    """R x C -> 1 x C: the maximum of each column."""
    return _unary("col_max", a)


def col_min(a: Tile) -> Tile:
    """R x C -> 1 x C: the minimum of each column."""
    return _unary("col_min", a)


def transpose(a: Tile) -> Tile:
    """R x C -> C x R."""
    return _unary("transpose", a)


def _expand(axis: int, v: Tile, n: int) -> Tile:
    kind = "row_expand" if axis == 1 else "col_expand"
    x = _tile(v, kind)
    t = pto.tile(x)
    dims, valid = list(t.dims), list(t.valid_dims)
    if len(dims) == 2:
        dims[axis] = valid[axis] = n
    result = t.with_(shape=tuple(dims), valid=tuple(valid))
    cls = pto.RowExpandOp if axis == 1 else pto.ColExpandOp
    return Tile(_emit(kind, lambda: cls(x, result)).results[0])


def row_expand(v: Tile, cols: int) -> Tile:
    """An R x 1 tile broadcast to R x ``cols``."""
    return _expand(1, v, cols)


def col_expand(v: Tile, rows: int) -> Tile:
    """A 1 x C tile broadcast to ``rows`` x C."""
    return _expand(0, v, rows)


def _expand_binary(kind: str, a: Tile, v: Tile) -> Tile:
    x, y = _tile(a, kind), _tile(v, kind)
    cls = getattr(pto, "".join(p.capitalize() for p in kind.split("_")) + "Op")
    return Tile(_emit(kind, lambda: cls(x, y)).results[0])


def _expand_family(prefix: str, noun: str) -> dict[str, Callable[[Tile, Tile], Tile]]:
    made = {}
    for op, formula in (
        ("add", "a + v"), ("sub", "a - v"), ("mul", "a * v"), ("div", "a / v"),
        ("max", "max(a, v)"), ("min", "min(a, v)"), ("exp_sub", "exp(a - v)"),
    ):  # fmt: skip
        name = f"{prefix}_expand_{op}"

        def f(a: Tile, v: Tile, _name: str = name) -> Tile:
            return _expand_binary(_name, a, v)

        f.__name__ = f.__qualname__ = name
        f.__doc__ = f"``{formula}`` with ``v`` the {noun} vector, broadcast."
        f.__module__ = __name__
        made[name] = f
    return made


globals().update(_expand_family("row", "R x 1 row"))
globals().update(_expand_family("col", "1 x C column"))


# --------------------------------------------------------------------------- matmul


def matmul(a: Tile, b: Tile) -> Tile:
    """``a x b`` (M x K times K x N) into an acc tile; tiles as loaded are accepted."""
    x, y = _tile(a, "matmul"), _tile(b, "matmul")
    return Tile(_emit("matmul", lambda: pto.MatmulOp(x, y)).results[0])


def matmul_acc(c: Tile, a: Tile, b: Tile) -> Tile:
    """``c + a x b``, ``c`` an acc tile (a previous matmul's result)."""
    z, x, y = _tile(c, "matmul_acc"), _tile(a, "matmul_acc"), _tile(b, "matmul_acc")
    return Tile(_emit("matmul_acc", lambda: pto.MatmulAccOp(z, x, y)).results[0])


def matmul_bias(a: Tile, b: Tile, bias: Tile) -> Tile:
    """``a x b + bias``, a 1 x N bias row added to every row."""
    x, y, z = _tile(a, "matmul_bias"), _tile(b, "matmul_bias"), _tile(bias, "matmul_bias")
    return Tile(_emit("matmul_bias", lambda: pto.MatmulBiasOp(x, y, z)).results[0])


# --------------------------------------------------------------------------- loops


class _Loop:
    """A ``pl.range`` loop being traced: its ``scf.for`` and what ``pl.yield_`` gave."""

    def __init__(self, op: scf.ForOp):
        self.op = op
        self.block = op.body.block
        self.yielded: list[SSAValue] | None = None
        self.yield_loc: FileLineColLoc | None = None


def range(*bounds: Any, init_values: Sequence[Tile] | None = None) -> Iterator[Any]:  # noqa: A001
    """A traced loop: ``for i in pl.range(lo, hi, step)`` becomes one ``scf.for`` whose body
    is traced once, ``i`` its index; with ``init_values=(t, ...)`` it carries those tiles:
    ``for i, (t, ...) in pl.range(..., init_values=(t, ...))``, the body ending in
    ``t, ... = pl.yield_(new_t, ...)``, which gives the loop's results to the names."""
    if not 1 <= len(bounds) <= 3:
        raise CompileError("pl.range", f"pl.range takes 1 to 3 bounds, got {len(bounds)}")
    lo, hi, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    values = [_index(b, "range") for b in (lo, hi, step)]
    inits = [_tile(t, "range") for t in init_values or ()]
    # The placeholder terminator keeps the body verifiable while it is traced.
    body = Block([scf.YieldOp(*inits)], arg_types=[IndexType(), *(v.type for v in inits)])
    op = _emit("range", lambda: scf.ForOp(*values, inits, body), verify=False)
    loop = _Loop(op)
    tracer = _tracer("range")
    tracer.scopes.append(loop)
    index = ScalarParam("i", body.args[0])
    finished = False
    try:
        yield index if init_values is None else (index, tuple(Tile(a) for a in body.args[1:]))
        finished = True
    finally:
        tracer.scopes.remove(loop)
        if not finished and tracer.left is None:
            tracer.left = source_of(op)
    if inits and loop.yielded is None:
        raise CompileError(
            "pl.range", f"the loop carries {len(inits)} tile(s) (init_values): end its body "
            "with pl.yield_(...) of their new values", loc=source_of(op),
        )  # fmt: skip
    end = scf.YieldOp(*(loop.yielded or ()))
    end.location = loop.yield_loc or op.location
    assert body.last_op is not None
    body.insert_op_before(end, body.last_op)
    body.erase_op(body.last_op)


def yield_(*tiles: Tile) -> Any:
    """The carried tiles' values for the next iteration of the enclosing ``pl.range`` loop;
    returns the loop's results (one tile, or a tuple), which hold them after the loop."""
    tracer = _tracer("yield_")
    loop = tracer.loop()
    if loop is None:
        where = "a pl.cond branch returns its tiles" if tracer.scopes else ""
        raise CompileError(
            "pl.yield_",
            "pl.yield_ ends the body of a pl.range loop" + (f"; {where}" if where else ""),
        )
    if loop.yielded is not None:
        raise CompileError("pl.yield_", "pl.yield_ is written once per loop body")
    carried = list(loop.op.res)
    if len(tiles) != len(carried):
        raise CompileError(
            "pl.yield_", f"the loop carries {len(carried)} tile(s) (init_values), "
            f"pl.yield_ got {len(tiles)}",
        )  # fmt: skip
    values = [_tile(t, "yield_") for t in tiles]
    for k, (value, result) in enumerate(zip(values, carried)):
        if value.type != result.type:
            raise CompileError(
                "pl.yield_", f"tile {k} is {value.type}, the loop carries {result.type} "
                "(init_values): the same shape, type and space",
            )  # fmt: skip
    where = user_location()
    loop.yield_loc = FileLineColLoc(StringAttr(where.filename), IntAttr(where.lineno), IntAttr(0))
    loop.yielded = values
    results = tuple(Tile(r) for r in carried)
    return results[0] if len(results) == 1 else results


# --------------------------------------------------------------------------- branches


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *operands: Any):
    """A traced branch: ``pl.cond(i < n, f, g, t, ...)`` becomes one ``scf.if`` running
    ``f(t, ...)`` or ``g(t, ...)`` when the kernel runs; each returns its tiles (none, one,
    or a tuple: the same number, shapes, element types and spaces in both), which
    ``pl.cond`` returns. ``pred`` is a comparison of scalars (``<``, ``<=``, ``>``, ``>=``
    on scalar parameters and ``pl.range`` indices); a Python bool picks its branch now (the
    other is not traced)."""
    if isinstance(pred, bool):
        return (true_fn if pred else false_fn)(*operands)
    if not isinstance(pred, ScalarParam) or pred.value.type != i1:
        raise CompileError(
            "pl.cond", f"the predicate is a comparison of scalars (i < n, ...) or a bool, "
            f"got {pred!r}",
        )  # fmt: skip
    tracer = _tracer("cond")
    where = user_location()
    branches: list[tuple[Block, list[SSAValue]]] = []
    for fn in (true_fn, false_fn):
        block = Block()
        tracer.scopes.append(block)
        try:
            out = fn(*operands)
        finally:
            tracer.scopes.remove(block)
        tiles = () if out is None else out if isinstance(out, tuple) else (out,)
        branches.append((block, [_tile(t, "cond") for t in tiles]))
    (_, taken), (_, other) = branches
    if [v.type for v in taken] != [v.type for v in other]:
        raise CompileError(
            "pl.cond", "the branches return "
            f"{[str(v.type) for v in taken]} and {[str(v.type) for v in other]}: the same "
            "number of tiles of the same shape, element type and space",
        )  # fmt: skip
    loc = FileLineColLoc(StringAttr(where.filename), IntAttr(where.lineno), IntAttr(0))
    for block, values in branches:
        end = scf.YieldOp(*values)
        end.location = loc
        block.add_op(end)
    types = [v.type for v in taken]
    regions = [Region(block) for block, _ in branches]
    op = _emit("cond", lambda: scf.IfOp(pred.value, types, *regions), verify=False)
    results = tuple(Tile(r) for r in op.results)
    return None if not results else results[0] if len(results) == 1 else results


# --------------------------------------------------------------------------- tracing


def trace(
    fn: Callable[..., Any],
    name: str,
    params: Sequence[Any],
    construct: str,
    loc: SourceLoc,
) -> func.FuncOp:
    """``fn`` traced over ``params`` (frontend KernelParams, typed) into the InCore
    ``func.func @name``, its tiles placed by ``pto-infer-spaces`` and verified."""
    tracer = _Tracer(name, loc)
    block = tracer.block
    args: list[Any] = []
    for p in params:
        arg = block.insert_arg(p.type, len(block.args))
        arg.name_hint = p.name
        args.append(TensorParam(p.name, p.access, arg) if p.is_tensor else ScalarParam(p.name, arg))
    previous = getattr(_STATE, "tracer", None)
    _STATE.tracer = tracer
    try:
        fn(*args)
    finally:
        _STATE.tracer = previous
    if tracer.left is not None:
        raise CompileError(
            "pl.range", "the loop was left early (break or return); a traced loop runs its "
            "body to the end, once", loc=tracer.left,
        )  # fmt: skip
    block.add_op(func.ReturnOp())
    function = func.FuncOp(name, ([p.type for p in params], []), Region(block))
    function.attributes[pto.FUNC_TYPE_ATTR] = pto.FuncTypeAttr("incore")
    try:
        infer_spaces(function)
    except SpaceError as error:
        where = source_of(error.op) if error.op else None
        what = tracer.written.get(error.op, "") if error.op else ""
        raise CompileError(
            f"pl.{what}" if what else construct, _line(error), loc=where or loc
        ) from None
    for op in function.body.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:
            what = tracer.written.get(op, "")
            raise CompileError(
                f"pl.{what}" if what else construct, _line(error), loc=source_of(op) or loc
            ) from None
    return function
