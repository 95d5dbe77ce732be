"""Building core bodies: constants, loops, objectfifo accesses, kernel calls, and the small
index expressions (message coordinates) a core computes from its loop counters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, MemRefType, i32
from xdsl.ir import Block, Operation, SSAValue

from pto_wsp.dialects import aie


class _Constants:
    """The constants of a core, hoisted to the top of its entry block, one per value."""

    def __init__(self, entry: Block):
        self.entry = entry
        self.values: dict[tuple[int, str], SSAValue] = {}
        self.last: Operation | None = None

    def get(self, value: int, kind: str) -> SSAValue:
        key = (value, kind)
        if key not in self.values:
            op = arith.ConstantOp.from_int_and_width(value, IndexType() if kind == "index" else i32)
            name = f"c{value}" if value >= 0 else f"cm{-value}"
            op.result.name_hint = name if kind == "index" else f"{name}_i32"
            if self.last is not None:
                self.entry.insert_op_after(op, self.last)
            elif self.entry.first_op is not None:
                self.entry.insert_op_before(op, self.entry.first_op)
            else:
                self.entry.add_op(op)
            self.last = op
            self.values[key] = op.result
        return self.values[key]


class CoreBuilder:
    """Appends ops to one block of a core body (an insertion point that can move into loops)."""

    def __init__(self, block: Block, form: aie.AcquireForm, root: _Constants | None = None):
        self.block = block
        self.form = form
        self._root = root or _Constants(block)

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def index(self, value: int) -> SSAValue:
        return self._const(value, "index")

    def i32(self, value: int) -> SSAValue:
        return self._const(value, "i32")

    def _const(self, value: int, kind: str) -> SSAValue:
        return self._root.get(value, kind)

    def loop(self, trips: int, name: str | None = None) -> tuple[CoreBuilder, SSAValue]:
        """``scf.for %iv = 0 to trips step 1``: a builder for its body and the index."""
        body = Block(arg_types=[IndexType()])
        if name:
            body.args[0].name_hint = name
        self.add(scf.ForOp(self.index(0), self.index(trips), self.index(1), [], body))
        return CoreBuilder(body, self.form, self._root), body.args[0]

    def close(self) -> None:
        """End a loop body built with ``loop``."""
        self.add(scf.YieldOp())

    def acquire(self, fifo: str, port: str, type_: MemRefType) -> SSAValue:
        ops, value = aie.acquire_element(fifo, port, type_, self.form)
        for op in ops:
            self.add(op)
        return value

    def release(self, fifo: str, port: str) -> None:
        self.add(aie.ObjectFifoReleaseOp(fifo, port, 1))

    def call(self, kernel: str, args: list[SSAValue]) -> None:
        self.add(func.CallOp(kernel, args, []))

    def to_i32(self, value: SSAValue) -> SSAValue:
        if isinstance(value.type, IndexType):
            return self.add(arith.IndexCastOp(value, i32)).results[0]
        return value


# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    """An index expression of one variable (a message number): built folded, evaluated in
    Python for the static analysis, and emitted as arith ops in a core."""

    kind: str  # const, var, add, mul, div, rem
    value: int = 0
    args: tuple[Expr, ...] = ()

    def eval(self, x: int) -> int:
        match self.kind:
            case "const":
                return self.value
            case "var":
                return x
            case "add":
                return self.args[0].eval(x) + self.args[1].eval(x)
            case "mul":
                return self.args[0].eval(x) * self.args[1].eval(x)
            case "div":
                return self.args[0].eval(x) // self.args[1].eval(x)
            case _:
                return self.args[0].eval(x) % self.args[1].eval(x)

    def substitute(self, x: Expr) -> Expr:
        """This expression with its variable replaced by ``x``."""
        match self.kind:
            case "const":
                return self
            case "var":
                return x
            case _:
                a, b = (e.substitute(x) for e in self.args)
                return _BUILD[self.kind](a, b)

    def emit(self, b: CoreBuilder, x: SSAValue) -> SSAValue:
        match self.kind:
            case "const":
                return b.index(self.value)
            case "var":
                return x
        lhs, rhs = (e.emit(b, x) for e in self.args)
        kind = {"add": arith.AddiOp, "mul": arith.MuliOp, "div": arith.DivUIOp}.get(
            self.kind, arith.RemUIOp
        )
        return b.add(kind(lhs, rhs)).results[0]


VAR = Expr("var")


def const(value: int) -> Expr:
    return Expr("const", value)


def add(a: Expr, b: Expr) -> Expr:
    if a.kind == "const" and b.kind == "const":
        return const(a.value + b.value)
    if b.kind == "const" and b.value == 0:
        return a
    if a.kind == "const" and a.value == 0:
        return b
    return Expr("add", args=(a, b))


def mul(a: Expr, b: Expr) -> Expr:
    if a.kind == "const" and b.kind == "const":
        return const(a.value * b.value)
    if a.kind == "const":
        a, b = b, a
    if b.kind == "const" and b.value == 1:
        return a
    if b.kind == "const" and b.value == 0:
        return const(0)
    return Expr("mul", args=(a, b))


def div(a: Expr, b: Expr) -> Expr:
    if b.kind == "const" and b.value == 1:
        return a
    if a.kind == "const" and b.kind == "const":
        return const(a.value // b.value)
    return Expr("div", args=(a, b))


def rem(a: Expr, b: Expr) -> Expr:
    if b.kind == "const" and b.value == 1:
        return const(0)
    if a.kind == "const" and b.kind == "const":
        return const(a.value % b.value)
    return Expr("rem", args=(a, b))


_BUILD: dict[str, Callable[[Expr, Expr], Expr]] = {"add": add, "mul": mul, "div": div, "rem": rem}


def unflatten(j: Expr, trips: list[int]) -> list[Expr]:
    """The loop indices (outermost first) of the j-th iteration of a nest of ``trips``."""
    out = []
    for k, t in enumerate(trips):
        inner = 1
        for u in trips[k + 1 :]:
            inner *= u
        index = div(j, const(inner))
        out.append(rem(index, const(t)) if k > 0 else index)
    return out
