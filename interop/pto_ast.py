"""The syntax tree of a ``.pto`` file (seed 000 §8), as the parser reads it.

Every node keeps ``pos``, the offset of its first character in the source, so the builder
can report errors and give ops their ``file:line:col`` location. Names keep their sigil
(``%b``, ``@attention``) off: ``Name.name`` is ``b``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Attribute

# --------------------------------------------------------------------------- types


@dataclass
class ChannelTy:
    """``Channel[Task, 2]``: a channel's element type and capacity (not an MLIR type)."""

    element: Attribute
    capacity: int


PtoType = Attribute | ChannelTy

# --------------------------------------------------------------------------- expressions


@dataclass
class Expr:
    pos: int


@dataclass
class Name(Expr):
    """``%x``: a parameter, loop index, message, channel or (undeclared) implicit argument."""

    name: str


@dataclass
class Int(Expr):
    """An integer literal; ``paren`` when written ``(4)`` (a runtime view entry)."""

    value: int
    paren: bool = False


@dataclass
class Bool(Expr):
    value: bool


@dataclass
class BinOp(Expr):
    """``a + b``, ``a mod b``, ``a <= b``..."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass
class Entry:
    """One bracket of a subscript: ``[e]`` (index), ``[lo:hi]`` or ``[off:+size]`` (slices)."""

    pos: int
    kind: str  # "index" | "slice" | "sized"
    first: Expr
    second: Expr | None = None


@dataclass
class Subscript(Expr):
    """``%Q[%b][%h]``: a view (resource), a load (scalar) or a coordinate (message)."""

    base: Name
    entries: list[Entry]


@dataclass
class AxisLit(Expr):
    """``Dense[8]``, ``DenseDyn(%n)``, ``Ragged(%n, %lengths)``, ``Sparse(%n, %ptr, %idx)``."""

    kind: str  # "dense" | "dense_dyn" | "ragged" | "sparse"
    size: int = 0
    args: list[Expr] = field(default_factory=list)


# --------------------------------------------------------------------------- statements


@dataclass
class Stmt:
    pos: int


@dataclass
class Loop(Stmt):
    """``parallel_for %b in axis { ... }`` / ``for_each``; two indices over Ragged/Sparse."""

    kind: str  # "parallel_for" | "for_each"
    indices: list[Name]
    axis: Expr
    body: list[Stmt]


@dataclass
class Select(Stmt):
    """``select %e in sparse[%row] { ... }``."""

    index: Name
    axis: Expr
    row: Expr
    body: list[Stmt]


@dataclass
class Cond(Stmt):
    predicate: Expr
    then_body: list[Stmt]
    else_body: list[Stmt]


@dataclass
class Group(Stmt):
    """``combine { ... }`` / ``sequential { ... }``."""

    kind: str
    body: list[Stmt]


@dataclass
class Task(Stmt):
    """``[%t =] task @k(params) resources(resources)``."""

    result: Name | None
    kernel: str
    kernel_pos: int
    params: list[Expr]
    resources: list[Expr]


@dataclass
class Yield(Stmt):
    """``yield %t``: issue the named task here."""

    name: Name


@dataclass
class Call(Stmt):
    """``call @w [with @s](args) resources(tensors)`` (seed 000 §4.8)."""

    callee: str
    callee_pos: int
    schedule: str | None
    args: list[Expr]
    resources: list[Expr]


@dataclass
class Send(Stmt):
    """``send %ch, stmt`` (or ``send %ch, %t`` for a named task)."""

    channel: Name
    value: Stmt | Name


@dataclass
class Consume(Stmt):
    channel: Name
    var: Name
    body: list[Stmt]


@dataclass
class Event(Stmt):
    """``record %ev`` / ``synchronize %ev``."""

    kind: str
    channel: Name


# --------------------------------------------------------------------------- definitions


@dataclass
class Param:
    pos: int
    name: str
    type: PtoType


@dataclass
class KernelDef:
    """``@kernel name(...) unit(..) cost(..)``: the wsp.kernel syntax after ``@kernel``."""

    pos: int
    op: Attribute | object  # a parsed wsp.kernel op


@dataclass
class WorkloadDef:
    pos: int
    name: str
    level: str
    params: list[Param]
    body: list[Stmt]


@dataclass
class Directive:
    """One schedule statement: ``name = value``; ``args`` hold its parts."""

    pos: int
    name: str
    policy: str | None = None
    count: int | None = None
    axis: Name | None = None
    key: Expr | None = None
    grid: list[int] = field(default_factory=list)
    tensor: Name | None = None
    dims: list[int | None] = field(default_factory=list)
    below: str | None = None
    above: str | None = None


@dataclass
class ScheduleDef:
    pos: int
    name: str
    target: str
    target_pos: int
    directives: list[Directive]


@dataclass
class ChannelDecl:
    pos: int
    name: str
    type: ChannelTy


@dataclass
class ProcessDef:
    pos: int
    name: str
    consumes: list[Name]
    produces: list[Name]
    replicas: int
    body: list[Stmt]


@dataclass
class PipelineDef:
    pos: int
    name: str
    params: list[Param] | None
    channels: list[ChannelDecl]
    processes: list[ProcessDef]


Definition = KernelDef | WorkloadDef | ScheduleDef | PipelineDef


@dataclass
class ModuleDef:
    name: str
    version: str
    targets: list[str]
    definitions: list[Definition]
