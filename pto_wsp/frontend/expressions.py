"""Index expressions: runtime values built lazily from loop indices, symbols and tensor reads.

An ``Expr`` is a description, not IR: ``b + 1``, ``seq_lens[b] <= 2048`` or ``t % 2`` build
small trees that the lowering (``lowering.py``) turns into ``arith`` / ``memref.load`` ops at
the place the IR needs them. Each node knows its own op (``build``); leaves (loop indices,
symbols, key coordinates, ...) are bound by the lowering.

Arithmetic semantics (index type): ``+ - *`` are ``arith.addi/subi/muli``. ``//`` is
``arith.floordivsi`` (Python's floor division) unless both operands are provably
non-negative, then ``arith.divui``; ``%`` is ``arith.remsi`` (C's truncated remainder: it
differs from Python's ``%`` only for a negative dividend or divisor) unless both operands
are provably non-negative, then ``arith.remui``. Comparisons are signed (``slt``...) unless
both sides are provably non-negative, then unsigned (``ult``...). Provably non-negative:
integer constants >= 0, loop indices, task coordinates, symbols (``sym`` values are sizes),
reads of unsigned tensors, and sums, products, quotients and remainders of those.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1
from xdsl.ir import Operation, SSAValue

from pto_wsp.errors import CompileError, user_location

_ORDER = itertools.count()


def next_order() -> int:
    """A fresh creation number: free arguments of a workload are ordered by it."""
    return next(_ORDER)


def is_int(value: object) -> bool:
    """A Python or numpy integer (not a bool)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


#: Where the lowering may place a node's op: with the constants at the top of the region
#: ("root"), as early as its operands allow ("pure"), or where it is used ("fixed": memory
#: reads and divisions by a runtime value, which must not run where the program would not).
ROOT, PURE, FIXED = "root", "pure", "fixed"

_UNSIGNED = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}
_SIGNED = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_SYMBOLS = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "floordiv": "//",
    "mod": "%",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "and": "&",
    "or": "|",
    "xor": "^",
}


#: While a schedule key is traced, the function deciding a Python ``if`` on a runtime value.
BRANCH_HOOK: list[Any] = []


class Expr:
    """A runtime index (or i1 predicate) value, built lazily; lowered to arith/memref ops."""

    is_bool = False
    nonneg = False
    placement = PURE

    def __init__(self) -> None:
        self.loc = user_location()

    # ------------------------------------------------------------------ structure

    def operands(self) -> tuple[Expr, ...]:
        """The sub-expressions whose values this node's op uses, in operand order."""
        return ()

    @property
    def key(self) -> tuple:
        """A structural key: equal keys compute equal values (the lowering reuses them)."""
        raise NotImplementedError

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        """The ops computing this value from its operands' values; the last one's result."""
        raise NotImplementedError(f"{type(self).__name__} is bound by the lowering")

    # ------------------------------------------------------------------ operators

    def __add__(self, other: Any) -> Expr:
        return binop("add", self, other)

    def __radd__(self, other: Any) -> Expr:
        return binop("add", other, self)

    def __sub__(self, other: Any) -> Expr:
        return binop("sub", self, other)

    def __rsub__(self, other: Any) -> Expr:
        return binop("sub", other, self)

    def __mul__(self, other: Any) -> Expr:
        return binop("mul", self, other)

    def __rmul__(self, other: Any) -> Expr:
        return binop("mul", other, self)

    def __floordiv__(self, other: Any) -> Expr:
        return binop("floordiv", self, other)

    def __rfloordiv__(self, other: Any) -> Expr:
        return binop("floordiv", other, self)

    def __mod__(self, other: Any) -> Expr:
        return binop("mod", self, other)

    def __rmod__(self, other: Any) -> Expr:
        return binop("mod", other, self)

    def __lt__(self, other: Any) -> Expr:
        return compare("lt", self, other)

    def __le__(self, other: Any) -> Expr:
        return compare("le", self, other)

    def __gt__(self, other: Any) -> Expr:
        return compare("gt", self, other)

    def __ge__(self, other: Any) -> Expr:
        return compare("ge", self, other)

    def __eq__(self, other: Any) -> Expr:  # type: ignore[override]
        return compare("eq", self, other)

    def __ne__(self, other: Any) -> Expr:  # type: ignore[override]
        return compare("ne", self, other)

    def __and__(self, other: Any) -> Expr:
        return logic("and", self, other)

    def __rand__(self, other: Any) -> Expr:
        return logic("and", other, self)

    def __or__(self, other: Any) -> Expr:
        return logic("or", self, other)

    def __ror__(self, other: Any) -> Expr:
        return logic("or", other, self)

    def __xor__(self, other: Any) -> Expr:
        return logic("xor", self, other)

    def __invert__(self) -> Expr:
        return logic("xor", self, Const(True))

    def __neg__(self) -> Expr:
        return binop("sub", 0, self)

    # Identity hashing: ``==`` builds a comparison, so Exprs never serve as dict keys by value.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        if BRANCH_HOOK:
            # Tracing a schedule key: each outcome is traced in turn (schedules.trace_key).
            return BRANCH_HOOK[-1](self)
        raise CompileError(
            "condition",
            f"the runtime value {self!r} cannot be a Python bool (if/while/and/or/not/"
            "chained comparisons); use cond(pred, ...) or `with P.when(pred):`, and & | ~",
        )

    def __index__(self) -> int:
        raise CompileError(
            "index",
            f"the runtime value {self!r} cannot be used as a Python int "
            "(e.g. to index a Python list); it is only known when the program runs: data "
            'read per task must be a Tensor argument (Tensor("lens", [n], i64))',
        )

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        # numpy asks for this when indexing with a non-int (numpy hides a failing
        # __index__ behind its own IndexError); `lens[b]` on an ndarray lands here.
        raise CompileError(
            "index",
            f"the runtime value {self!r} cannot index a numpy array (or become one): numpy "
            'data read per task must be a Tensor argument (Tensor("lens", [n], i64), '
            "bound with bind(lens=...)), or an axis built from it (Ragged, Sparse)",
        )

    def __repr__(self) -> str:
        return "<expr>"


class Const(Expr):
    """An integer (index) or boolean (i1) constant."""

    placement = ROOT

    def __init__(self, value: int | bool):
        super().__init__()
        self.value = bool(value) if isinstance(value, bool | np.bool_) else int(value)
        self.is_bool = isinstance(self.value, bool)
        self.nonneg = not self.is_bool and self.value >= 0

    @property
    def key(self) -> tuple:
        return ("const", self.is_bool, int(self.value))

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        type_ = i1 if self.is_bool else IndexType()
        op = arith.ConstantOp(IntegerAttr(int(self.value), type_))
        # MLIR's own naming: %c2, %c_neg1, %true.
        v = self.value
        op.result.name_hint = (
            str(v).lower() if self.is_bool else f"c{v}" if v >= 0 else f"c_neg{-v}"
        )
        return [op]

    def __repr__(self) -> str:
        return str(self.value)


class Arg(Expr):
    """A named value the lowering binds: a symbol, a workload parameter, a key coordinate."""

    kind = "value"

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    @property
    def key(self) -> tuple:
        return ("arg", self.name)

    def __repr__(self) -> str:
        return self.name


class Sym(Arg):
    """A symbolic runtime size ``sym("batch")``: an index argument bound at execution."""

    kind = "symbol"
    nonneg = True

    def __init__(self, name: str):
        super().__init__(name)
        check_identifier("sym", name)
        self.order = next_order()


def sym(name: str) -> Sym:
    """A symbolic runtime value (a size, >= 0): becomes an ``index`` argument of the workload."""
    return Sym(name)


class Param(Arg):
    """An index parameter of a ``@workload`` function (bound by its caller)."""

    kind = "parameter"


class Index(Expr):
    """The index a loop (or select) binds: a block argument of its body, named like the loop."""

    nonneg = True

    def __init__(self, owner: object, position: int, name: str):
        super().__init__()
        self.owner, self.position, self.name = owner, position, name

    @property
    def key(self) -> tuple:
        return ("idx", id(self.owner), self.position)

    def __repr__(self) -> str:
        return self.name


class BinOp(Expr):
    """``lhs op rhs`` on index values: add, sub, mul, floordiv, mod."""

    def __init__(self, op: str, lhs: Expr, rhs: Expr):
        super().__init__()
        self.op, self.lhs, self.rhs = op, lhs, rhs
        self.nonneg = op != "sub" and lhs.nonneg and rhs.nonneg
        divides = op in ("floordiv", "mod")
        self.placement = FIXED if divides and not isinstance(rhs, Const) else PURE

    def operands(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    @property
    def key(self) -> tuple:
        return (self.op, self.lhs.key, self.rhs.key)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        lhs, rhs = values
        unsigned = self.lhs.nonneg and self.rhs.nonneg
        cls = {
            "add": arith.AddiOp,
            "sub": arith.SubiOp,
            "mul": arith.MuliOp,
            "floordiv": arith.DivUIOp if unsigned else arith.FloorDivSIOp,
            "mod": arith.RemUIOp if unsigned else arith.RemSIOp,
        }[self.op]
        return [cls(lhs, rhs)]

    def __repr__(self) -> str:
        return f"({self.lhs!r} {_SYMBOLS[self.op]} {self.rhs!r})"


class Compare(Expr):
    """``lhs < rhs`` etc. on index values: an i1 predicate (``arith.cmpi``)."""

    is_bool = True

    def __init__(self, op: str, lhs: Expr, rhs: Expr):
        super().__init__()
        self.op, self.lhs, self.rhs = op, lhs, rhs

    def operands(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    @property
    def key(self) -> tuple:
        return ("cmp", self.op, self.lhs.key, self.rhs.key)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        table = _UNSIGNED if self.lhs.nonneg and self.rhs.nonneg else _SIGNED
        return [arith.CmpiOp(values[0], values[1], table[self.op])]

    def __repr__(self) -> str:
        return f"({self.lhs!r} {_SYMBOLS[self.op]} {self.rhs!r})"


class Logic(Expr):
    """``p & q``, ``p | q``, ``p ^ q`` (and ``~p``) on i1 predicates."""

    is_bool = True

    def __init__(self, op: str, lhs: Expr, rhs: Expr):
        super().__init__()
        self.op, self.lhs, self.rhs = op, lhs, rhs

    def operands(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    @property
    def key(self) -> tuple:
        return (self.op, self.lhs.key, self.rhs.key)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        cls = {"and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp}[self.op]
        return [cls(values[0], values[1])]

    def __repr__(self) -> str:
        return f"({self.lhs!r} {_SYMBOLS[self.op]} {self.rhs!r})"


# --------------------------------------------------------------------------- construction


def as_expr(value: Any, construct: str, what: str = "an index") -> Expr:
    """``value`` as an Expr: Python ints and bools become constants; anything else is an error."""
    if isinstance(value, Expr):
        as_value = getattr(value, "as_value", None)
        return as_value(construct) if as_value is not None else value
    if isinstance(value, bool | np.bool_) or is_int(value):
        return Const(value)
    raise CompileError(
        construct, f"expected {what} (an int, a loop index or an index expression), got {value!r}"
    )


def as_index(value: Any, construct: str, what: str = "an index") -> Expr:
    """``value`` as an index-typed Expr (not a predicate)."""
    expr = as_expr(value, construct, what)
    if expr.is_bool:
        raise CompileError(construct, f"expected {what}, got the predicate {expr!r}")
    return expr


def binop(op: str, lhs: Any, rhs: Any) -> Expr:
    """``lhs op rhs`` on index values; folds when both are constants."""
    construct = f"'{_SYMBOLS[op]}'"
    a, b = as_index(lhs, construct), as_index(rhs, construct)
    if op in ("floordiv", "mod") and isinstance(b, Const) and b.value == 0:
        raise CompileError(construct, f"division by zero in {a!r} {_SYMBOLS[op]} 0")
    if isinstance(a, Const) and isinstance(b, Const):
        x, y = a.value, b.value
        folded = {"add": x + y, "sub": x - y, "mul": x * y}.get(op)
        if folded is None:
            folded = x // y if op == "floordiv" else x % y
        return Const(folded)
    return BinOp(op, a, b)


def compare(op: str, lhs: Any, rhs: Any) -> Expr:
    """``lhs op rhs`` on index values: an i1 predicate."""
    construct = f"'{_SYMBOLS[op]}'"
    return Compare(op, as_index(lhs, construct), as_index(rhs, construct))


def logic(op: str, lhs: Any, rhs: Any) -> Expr:
    """A boolean combination of predicates."""
    construct = f"'{_SYMBOLS[op]}'"
    a, b = as_expr(lhs, construct, "a predicate"), as_expr(rhs, construct, "a predicate")
    for side in (a, b):
        if not side.is_bool:
            raise CompileError(construct, f"expected predicates on both sides, got {side!r}")
    return Logic(op, a, b)


def check_identifier(construct: str, name: object) -> str:
    """Names become IR identifiers (argument and coordinate names): letters, digits, '_'."""
    if (
        not isinstance(name, str)
        or not name
        or not (name[0].isalpha() or name[0] == "_")
        or not all(c.isalnum() or c == "_" for c in name)
    ):
        raise CompileError(construct, f"the name {name!r} is not an identifier")
    return name
