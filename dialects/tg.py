"""The ``tg`` dialect: the task graph, the one lowered form all three targets consume.

Seed 004 §6 (two-phase compile: shared lowering, then backend emission); docs/tg.md is the
spec. ``tg`` has two forms:

- the **program form** (``tg.program``): a task-generation program, ordinary
  ``scf``/``arith``/``memref`` control flow that creates tasks (``tg.task``), with ordering
  points (``tg.ordered``/``tg.order_point``) for structural order, the runtime configuration
  lowered from the schedule (``config``), and for pipelines processes (``tg.process``) talking
  over bounded queues (``tg.queue``). Its size is O(source program), never O(tasks).
- the **static form** (``tg.graph``): the materialized graph (seed 004 §6.2
  ``TaskGraphStorage``), one ``tg.node`` per task or barrier with its fanin count and fanout
  ids, and the regions of its tensors (``#tg.region``) with static offsets, sizes and strides.

Kernels stay ``wsp.kernel`` symbols of the module; queue messages are ``!wsp.task`` and events
``!csp.signal``, as in ``csp``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region
from pto_wsp.dialects.traits import IsolatedScopes

from .csp import BoundedQueueOp
from .sched import (
    DISPATCH_POLICIES,
    ISSUE_POLICIES,
    OVERFLOW_POLICIES,
    PIPELINE_SCOPES,
    TIMING_POLICIES,
)
from .wsp import (
    ACCESS_MODES,
    KernelOp,
    TaskType,
    _check_identifier,
    _match_args,
    _parse_attrs,
    _parse_signature,
    _parse_typed_group,
    _print_body,
    _print_typed_group,
    _verify_arg_names,
    enclosing,
    resolve_symbol,
)

#: Where a task's kernel runs (seed 004 ``ExecDomain``).
DOMAINS = ("host_cpu", "aicore", "aie_tile")
#: The pool of units a task goes to (seed 004 ``ExecPool``); a dynamic pool is 0 or 1.
POOLS = ("vector", "cube", "any")
#: What a ``tg.node`` stands for.
NODE_KINDS = ("task", "barrier")

# --------------------------------------------------------------------------- config

#: Timing policies that take a count (``timing_n``).
_TIMING_WITH_N = ("batched", "interleaved", "rate_limit")

#: config key -> (kind of value, allowed names for an enum).
CONFIG_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dispatch": ("enum", DISPATCH_POLICIES),
    "workers": ("count", ()),
    "streams": ("count", ()),
    "ready": ("enum", ISSUE_POLICIES),
    "timing": ("enum", TIMING_POLICIES),
    "timing_n": ("count", ()),
    "task_window": ("count", ()),
    "window_overflow": ("enum", OVERFLOW_POLICIES),
    "pipeline_depth": ("count", ()),
    "depth_scope": ("enum", PIPELINE_SCOPES),
    "batch_deps": ("count", ()),
    "spatial_map": ("grid", ()),
    "layouts": ("layouts", ()),
    "extensions": ("names", ()),
}

#: A key that qualifies another one needs it.
_COMPANIONS = {
    "timing_n": "timing",
    "window_overflow": "task_window",
    "depth_scope": "pipeline_depth",
}


def _i64_array(value: Attribute) -> list[int] | None:
    """The values of an ``array<i64: ...>``, or None for any other attribute."""
    if isinstance(value, DenseArrayBase) and value.elt_type == i64:
        return list(value.get_values())  # pyright: ignore[reportUnknownArgumentType]
    return None


def _verify_config_value(key: str, kind: str, allowed: tuple[str, ...], value: Attribute) -> None:
    if kind == "enum":
        if not isinstance(value, StringAttr):
            raise VerifyException(f"config key '{key}' must be a string, got {value}")
        _one_of(f"config {key}", value.data, allowed)
    elif kind == "count":
        if not isinstance(value, IntegerAttr) or value.type != i64:
            raise VerifyException(f"config key '{key}' must be an i64, got {value}")
        if value.value.data <= 0:
            raise VerifyException(f"config {key} must be > 0, got {value.value.data}")
    elif kind == "grid":
        grid = _i64_array(value)
        if grid is None:
            raise VerifyException(f"config key '{key}' must be an array<i64: ...>, got {value}")
        if any(d <= 0 for d in grid):
            raise VerifyException(f"config {key} dimensions must be > 0, got {grid}")
    elif kind == "names":
        if not isinstance(value, ArrayAttr) or not all(isinstance(n, StringAttr) for n in value):
            raise VerifyException(f"config key '{key}' must be an array of op names, got {value}")


def verify_config(config: DictionaryAttr, tensors: Sequence[str]) -> None:
    """Check a program's or graph's ``config`` against the table of docs/tg.md.

    ``tensors`` are the names of the memref arguments, which ``layouts`` may name.
    """
    for key, value in config.data.items():
        if key not in CONFIG_KEYS:
            raise VerifyException(f"unknown config key '{key}' (keys: {', '.join(CONFIG_KEYS)})")
        kind, allowed = CONFIG_KEYS[key]
        if kind == "layouts":
            _verify_layouts(value, tensors)
        else:
            _verify_config_value(key, kind, allowed, value)
    for companion, main in _COMPANIONS.items():
        if companion in config.data and main not in config.data:
            raise VerifyException(f"config key '{companion}' needs '{main}'")
    timing = config.data.get("timing")
    if isinstance(timing, StringAttr):
        if timing.data in _TIMING_WITH_N and "timing_n" not in config.data:
            raise VerifyException(f"config timing '{timing.data}' needs timing_n")
        if timing.data not in _TIMING_WITH_N and "timing_n" in config.data:
            raise VerifyException(f"config timing '{timing.data}' takes no timing_n")


def _verify_layouts(value: Attribute, tensors: Sequence[str]) -> None:
    if not isinstance(value, DictionaryAttr):
        raise VerifyException(
            f"config key 'layouts' must be a dictionary tensor -> array<i64: ...>, got {value}"
        )
    for tensor, axes in value.data.items():
        if tensor not in tensors:
            raise VerifyException(
                f"config layouts names '{tensor}', which is not a memref argument"
            )
        dims = _i64_array(axes)
        if dims is None:
            raise VerifyException(f"config layout of '{tensor}' must be an array<i64: ...>")
        if any(d < -1 for d in dims):
            raise VerifyException(
                f"config layout of '{tensor}': grid axes are >= 0 (-1 = replicate), got {dims}"
            )


# --------------------------------------------------------------------------- helpers


def _symbol_ref(ref: str | StringAttr | SymbolRefAttr) -> SymbolRefAttr:
    if isinstance(ref, SymbolRefAttr):
        return ref
    return SymbolRefAttr(ref.data if isinstance(ref, StringAttr) else ref)


def _ref_name(ref: SymbolRefAttr) -> str:
    return ref.root_reference.data


def _ensure_yield(region: Region) -> None:
    """Give a parsed single-block region its implicit ``tg.yield`` terminator."""
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(YieldOp())


def _one_of(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise VerifyException(f"{what} must be one of {', '.join(allowed)}, got '{value}'")


def _print_clause(printer: Printer, keyword: str, value: SSAValue | Attribute | str | None) -> None:
    """`` keyword(value)``; nothing for None. Integer attributes print as their value."""
    if value is None:
        return
    printer.print_string(f" {keyword}(")
    if isinstance(value, SSAValue):
        printer.print_ssa_value(value)
    elif isinstance(value, IntegerAttr):
        printer.print_string(str(value.value.data))
    else:
        printer.print_string(value.data if isinstance(value, StringAttr) else str(value))
    printer.print_string(")")


def _inside_program(op: Operation) -> None:
    if not isinstance(enclosing(op, ProgramOp), ProgramOp):
        raise VerifyException(f"{op.name} must be inside a tg.program")


def _verify_coords(what: str, names: ArrayAttr[StringAttr], count: int) -> None:
    """Coordinates: one identifier per value, each name once."""
    if len(names) != count:
        raise VerifyException(f"{what} has {len(names)} coordinate name(s) but {count} value(s)")
    seen: set[str] = set()
    for name in names:
        _check_identifier("coordinate name", name.data)
        if name.data in seen:
            raise VerifyException(f"{what}: coordinate '{name.data}' appears twice")
        seen.add(name.data)


def _parse_coords(parser: Parser, value: str) -> tuple[list[str], list]:
    """``at(b = %b, h = 0)``, if present: names and values (operands or integers)."""
    names: list[str] = []
    values: list = []
    if not parser.parse_optional_keyword("at"):
        return names, values

    def one() -> None:
        names.append(parser.parse_identifier(" (a coordinate name)"))
        parser.parse_punctuation("=")
        if value == "operand":
            values.append(parser.parse_operand(IndexType()))
        else:
            values.append(parse_int64(parser))

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return names, values


def _print_coords(printer: Printer, names: ArrayAttr[StringAttr], values: Sequence) -> None:
    if not names.data:
        return

    def one(item: tuple[StringAttr, SSAValue | int]) -> None:
        printer.print_string(f"{item[0].data} = ")
        if isinstance(item[1], int):
            printer.print_string(str(item[1]))
        else:
            printer.print_ssa_value(item[1])

    printer.print_string(" at(")
    printer.print_list(zip(names.data, values), one)
    printer.print_string(")")


def _parse_optional_clause(parser: Parser, keyword: str, parse):
    """``keyword(x)`` if present, with ``x`` read by ``parse``."""
    if not parser.parse_optional_keyword(keyword):
        return None
    with parser.in_parens():
        return parse()


def _parse_int_list(parser: AttrParser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parse_int64(parser))


# --------------------------------------------------------------------------- terminator


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates every tg region; implicit in the custom syntax."""

    name = "tg.yield"

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict"


# --------------------------------------------------------------------------- definitions


class _DefinitionOp(IRDLOperation):
    """Shared shape of program and graph: a symbol with named arguments and a config."""

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    arg_names = prop_def(ArrayAttr[StringAttr])
    config = opt_prop_def(DictionaryAttr)
    body = region_def("single_block")

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        arg_names: Sequence[str],
        config: DictionaryAttr | dict[str, Attribute] | None = None,
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=arg_types)
            for arg, hint in zip(block.args, arg_names):
                arg.name_hint = hint
            body = Region(block)
        _ensure_yield(body)
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(list(arg_types), []),
            "arg_names": ArrayAttr([StringAttr(n) for n in arg_names]),
        }
        if config is not None:
            props["config"] = (
                config if isinstance(config, DictionaryAttr) else DictionaryAttr(config)
            )
        super().__init__(properties=props, regions=[body])

    def arg(self, name: str) -> SSAValue:
        """The block argument called ``name``."""
        names = [n.data for n in self.arg_names]
        return self.body.block.args[names.index(name)]

    def tensors(self) -> dict[str, MemRefType]:
        """The memref arguments by name."""
        return {
            n.data: t
            for n, t in zip(self.arg_names, self.function_type.inputs)
            if isinstance(t, MemRefType)
        }

    def _verify_definition(self, kind: str) -> None:
        _verify_arg_names(kind, self.arg_names, self.function_type.inputs.data)
        if self.function_type.outputs.data:
            raise VerifyException(f"a {kind} has no results")
        block_types = tuple(a.type for a in self.body.block.args)
        if block_types != tuple(self.function_type.inputs.data):
            raise VerifyException(f"entry block arguments must match the {kind} signature")
        if self.config is not None:
            verify_config(self.config, list(self.tensors()))

    @classmethod
    def parse(cls, parser: Parser):
        name = parser.parse_symbol_name().data
        names, types, _, args = _parse_signature(parser, with_access=False)
        config = None
        if parser.parse_optional_keyword("config"):
            pos = parser.pos
            config = parser.parse_attribute()
            if not isinstance(config, DictionaryAttr):
                parser.raise_error(
                    "config must be a dictionary {key = value, ...}", pos, parser.pos
                )
        attrs = _parse_attrs(parser)
        body = parse_single_block_region(parser, args)
        op = cls(name, types, names, config, body)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for arg, hint in zip(self.body.block.args, self.arg_names.data):
            arg.name_hint = hint.data
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        if self.config is not None:
            printer.print_string(" config ")
            printer.print_attr_dict(self.config.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


@irdl_op_definition
class ProgramOp(_DefinitionOp):
    """``tg.program @p(%a: T, ...) [config {...}] { body }``: a task-generation program.

    Arguments keep their names, as a ``wsp.workload``'s. The body is ``scf``/``arith``/
    ``memref`` code with tg ops; a program that declares queues and processes is a pipeline
    and holds only those. The program is a symbol table of its queues and processes.
    """

    name = "tg.program"

    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedScopes())

    def queue(self, name: str) -> QueueOp | None:
        """The queue called ``name``, if any."""
        return next(
            (
                op
                for op in self.body.block.ops
                if isinstance(op, QueueOp) and op.sym_name.data == name
            ),
            None,
        )

    def processes(self) -> list[ProcessOp]:
        """The processes, in order."""
        return [op for op in self.body.block.ops if isinstance(op, ProcessOp)]

    def verify_(self) -> None:
        self._verify_definition("program")
        for op in self.body.walk():
            if isinstance(op, memref.SubviewOp):
                _verify_subview(op)
        ops = list(self.body.block.ops)
        if not any(isinstance(op, QueueOp | ProcessOp) for op in ops):
            return
        name = self.sym_name.data
        for op in ops:
            if not isinstance(op, QueueOp | ProcessOp | YieldOp):
                raise VerifyException(
                    f"tg.program @{name} is a pipeline (it has queues or processes): "
                    f"it holds only tg.queue and tg.process ops, got {op.name}"
                )
        senders: set[str] = set()
        receivers: set[str] = set()
        for op in self.body.walk():
            if isinstance(op, SendOp | RecordOp):
                senders.add(_ref_name(op.queue))
            elif isinstance(op, ConsumeOp | SynchronizeOp):
                receivers.add(_ref_name(op.queue))
        for queue in ops:
            if not isinstance(queue, QueueOp):
                continue
            q = queue.sym_name.data
            if q not in senders:
                raise VerifyException(f"queue @{q} of @{name} has no sender (tg.send or tg.record)")
            if q not in receivers:
                raise VerifyException(
                    f"queue @{q} of @{name} has no receiver (tg.consume or tg.synchronize)"
                )


def _verify_subview(op: memref.SubviewOp) -> None:
    """One offset, size and stride per dimension of the view's source (xDSL's memref.subview
    does not check; the code generators read them by dimension)."""
    source = op.source.type
    if not isinstance(source, MemRefType):
        return
    rank = len(source.get_shape())
    hint = op.result.name_hint
    view = f"memref.subview %{hint}" if hint else "a memref.subview"
    for what, static in (
        ("offset", op.static_offsets),
        ("size", op.static_sizes),
        ("stride", op.static_strides),
    ):
        given = len(static.get_values())
        if given != rank:
            raise VerifyException(
                f"{view} of a rank-{rank} memref needs {rank} {what}s, got {given}"
            )


# --------------------------------------------------------------------------- program ops


@irdl_op_definition
class TaskOp(IRDLOperation):
    """``tg.task @k(%b : index) resources(%q : T) access(inout) at(b = %b) pool(cube)``: a task.

    Creates one task of kernel ``@k`` (a ``wsp.kernel``) each time it runs: ``params`` bind the
    kernel's scalar parameters, ``resources`` (``memref.subview`` views) its tensor parameters
    with the kernel's ``access``; ``at`` names its coordinates. ``pool`` is static or a dynamic
    index (0 = vector, 1 = cube); ``target``, ``stream`` and ``priority`` are optional indices
    (absent: the runtime decides).
    """

    name = "tg.task"

    kernel = prop_def(FlatSymbolRefAttr)
    access = prop_def(ArrayAttr[StringAttr])
    coord_names = prop_def(ArrayAttr[StringAttr])
    domain = prop_def(StringAttr)
    pool = opt_prop_def(StringAttr)
    params = var_operand_def()
    resources = var_operand_def(MemRefType)
    coords = var_operand_def(IndexType)
    dynamic_pool = opt_operand_def(IndexType)
    target = opt_operand_def(IndexType)
    stream = opt_operand_def(IndexType)
    priority = opt_operand_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        kernel: str | SymbolRefAttr,
        params: Sequence[SSAValue | Operation],
        resources: Sequence[SSAValue | Operation],
        access: Sequence[str],
        coords: Sequence[tuple[str, SSAValue | Operation]] = (),
        pool: str | SSAValue | Operation = "any",
        domain: str = "host_cpu",
        target: SSAValue | Operation | None = None,
        stream: SSAValue | Operation | None = None,
        priority: SSAValue | Operation | None = None,
    ):
        props: dict[str, Attribute] = {
            "kernel": _symbol_ref(kernel),
            "access": ArrayAttr([StringAttr(a) for a in access]),
            "coord_names": ArrayAttr([StringAttr(n) for n, _ in coords]),
            "domain": StringAttr(domain),
        }
        if isinstance(pool, str):
            props["pool"] = StringAttr(pool)
        dynamic = [] if isinstance(pool, str) else [pool]
        optional = [[v] if v is not None else [] for v in (target, stream, priority)]
        super().__init__(
            operands=[params, resources, [v for _, v in coords], dynamic, *optional],
            properties=props,
        )

    def verify_(self) -> None:
        _inside_program(self)
        name = _ref_name(self.kernel)
        _verify_coords(f"tg.task @{name}", self.coord_names, len(self.coords))
        _one_of("domain", self.domain.data, DOMAINS)
        if self.pool is not None and self.dynamic_pool is not None:
            raise VerifyException("tg.task has a static pool and a dynamic pool; give one")
        if self.pool is None and self.dynamic_pool is None:
            raise VerifyException("tg.task needs a pool (vector, cube, any or an index)")
        if self.pool is not None:
            _one_of("pool", self.pool.data, POOLS)
        kernel = resolve_symbol(self, self.kernel)
        if not isinstance(kernel, KernelOp):
            raise VerifyException(f"tg.task refers to unknown kernel @{name}")
        _match_args(f"kernel @{name}", "parameter", kernel.param_types, self.params)
        _match_args(f"kernel @{name}", "resource", kernel.resource_types, self.resources)
        access = [a.data for a in self.access]
        expected = [a.data for a in kernel.access if a.data]
        if len(access) != len(self.resources):
            raise VerifyException(
                f"tg.task @{name} needs one access mode per resource: "
                f"{len(self.resources)} resource(s), {len(access)} access mode(s)"
            )
        if access != expected:
            raise VerifyException(
                f"tg.task access ({', '.join(access)}) must be kernel @{name}'s "
                f"({', '.join(expected)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> TaskOp:
        kernel = parser.parse_symbol_name().data
        params = _parse_typed_group(parser)
        parser.parse_keyword("resources")
        resources = _parse_typed_group(parser)
        access: list[str] = []
        if parser.parse_optional_keyword("access"):
            access = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_identifier(" (in, out or inout)")
            )
        names, coords = _parse_coords(parser, "operand")
        domain = _parse_optional_clause(parser, "domain", parser.parse_identifier) or "host_cpu"
        parser.parse_keyword("pool", " (vector, cube, any or an index: pool(%p))")
        with parser.in_parens():
            pool = parser.parse_optional_operand(IndexType()) or parser.parse_identifier(
                " (vector, cube, any or an index)"
            )
        target, stream, priority = (
            _parse_optional_clause(parser, kw, lambda: parser.parse_operand(IndexType()))
            for kw in ("target", "stream", "priority")
        )
        op = cls(
            kernel, params, resources, access, list(zip(names, coords)), pool, domain,
            target, stream, priority,
        )  # fmt: skip
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.kernel))
        _print_typed_group(printer, self.params)
        printer.print_string(" resources")
        _print_typed_group(printer, self.resources)
        if self.access.data:
            printer.print_string(f" access({', '.join(a.data for a in self.access)})")
        _print_coords(printer, self.coord_names, self.coords)
        _print_clause(printer, "domain", None if self.domain.data == "host_cpu" else self.domain)
        _print_clause(printer, "pool", self.dynamic_pool or self.pool)
        for keyword in ("target", "stream", "priority"):
            _print_clause(printer, keyword, getattr(self, keyword))
        printer.print_op_attributes(self.attributes, print_keyword=True)


class _BodyOp(IRDLOperation):
    """Shared shape of the ops that are one block of program code and nothing else."""

    body = region_def("single_block")

    def __init__(self, body: Region | None = None):
        body = body or Region(Block())
        _ensure_yield(body)
        super().__init__(regions=[body])

    @classmethod
    def parse(cls, parser: Parser):
        body = parse_single_block_region(parser)
        op = cls(body)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class OrderedOp(_BodyOp):
    """``tg.ordered { body }``: an ordered scope; its ``tg.order_point``s order its tasks."""

    name = "tg.ordered"

    def verify_(self) -> None:
        _inside_program(self)


@irdl_op_definition
class OrderPointOp(IRDLOperation):
    """``tg.order_point``: tasks created after it run after those created before, in its scope.

    The scope is the innermost enclosing ``tg.ordered`` (at any depth, e.g. in an ``scf.for``
    inside it).
    """

    name = "tg.order_point"

    assembly_format = "attr-dict"

    def verify_(self) -> None:
        if not isinstance(enclosing(self, OrderedOp), OrderedOp):
            raise VerifyException("tg.order_point must be inside a tg.ordered")


@irdl_op_definition
class SeqOp(IRDLOperation):
    """``%n = tg.seq``: how many tasks the program has created so far (round-robin dispatch)."""

    name = "tg.seq"

    result = result_def(IndexType)

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        _inside_program(self)


@irdl_op_definition
class CallOp(IRDLOperation):
    """``tg.call @p(%a : T)``: run another ``tg.program``; its tasks join the caller's scopes."""

    name = "tg.call"

    callee = prop_def(FlatSymbolRefAttr)
    args = var_operand_def()

    assembly_format = "$callee `(` ($args^ `:` type($args))? `)` attr-dict-with-keyword"

    def __init__(self, callee: str | SymbolRefAttr, args: Sequence[SSAValue | Operation]):
        super().__init__(operands=[args], properties={"callee": _symbol_ref(callee)})

    def verify_(self) -> None:
        _inside_program(self)
        name = _ref_name(self.callee)
        callee = resolve_symbol(self, self.callee)
        if not isinstance(callee, ProgramOp):
            raise VerifyException(f"tg.call refers to unknown program @{name}")
        _match_args(f"program @{name}", "argument", callee.function_type.inputs.data, self.args)


# --------------------------------------------------------------------------- pipelines


@irdl_op_definition
class QueueOp(BoundedQueueOp):
    """``tg.queue @q : !wsp.task capacity(2)``: a bounded queue of messages (a csp channel).

    Capacity 0 is a rendezvous; a queue of ``!csp.signal`` is an event (capacity 0).
    """

    name = "tg.queue"

    sym_name = prop_def(SymbolNameConstraint())
    element_type = prop_def(TypeAttribute)
    capacity = prop_def(IntegerAttr[I64])

    traits = traits_def(SymbolOpInterface())

    assembly_format = (
        "$sym_name `:` $element_type `capacity` `(` $capacity `)` attr-dict-with-keyword"
    )

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), ProgramOp):
            raise VerifyException(
                f"tg.queue @{self.sym_name.data} must be directly inside a tg.program"
            )
        self.verify_payload("queue", "tasks")


@irdl_op_definition
class ProcessOp(IRDLOperation):
    """``tg.process @p replicas(4) as %r { body }``: a concurrent process of a pipeline program.

    ``replicas`` copies run concurrently; the body's one block argument is the replica index
    (the tasks' ``replica`` coordinate; ``as %r`` may be left out when unused).
    """

    name = "tg.process"

    sym_name = prop_def(StringAttr)
    replicas = prop_def(IntegerAttr[IntegerType])
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface())

    def __init__(self, name: str, replicas: int = 1, body: Region | None = None):
        if body is None:
            block = Block(arg_types=[IndexType()])
            block.args[0].name_hint = "replica"
            body = Region(block)
        _ensure_yield(body)
        super().__init__(
            properties={"sym_name": StringAttr(name), "replicas": IntegerAttr(replicas, i64)},
            regions=[body],
        )

    @property
    def replica(self) -> SSAValue:
        """The block argument: which replica runs the body."""
        return self.body.block.args[0]

    def verify_(self) -> None:
        name = self.sym_name.data
        if not isinstance(self.parent_op(), ProgramOp):
            raise VerifyException(f"tg.process @{name} must be directly inside a tg.program")
        if self.replicas.value.data < 1:
            raise VerifyException(
                f"process @{name} replicas must be >= 1, got {self.replicas.value.data}"
            )
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException(
                f"process @{name} binds one index block argument (its replica), "
                f"got ({', '.join(str(a.type) for a in args)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ProcessOp:
        name = parser.parse_symbol_name().data
        replicas = _parse_optional_clause(parser, "replicas", lambda: parse_int64(parser))
        arg = None
        if parser.parse_optional_keyword("as"):
            arg = parser.parse_argument(expect_type=False).resolve(IndexType())
        attrs = _parse_attrs(parser)
        body = parse_single_block_region(parser, [arg] if arg is not None else None)
        _ensure_yield(body)
        if not body.block.args:  # ``as %r`` left out: the replica index is unused
            body.block.insert_arg(IndexType(), 0).name_hint = "replica"
        op = cls(name, 1 if replicas is None else replicas, body)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        _print_clause(printer, "replicas", None if self.replicas.value.data == 1 else self.replicas)
        if self.body.block.args and self.body.block.args[0].uses:
            printer.print_string(" as ")
            printer.print_ssa_value(self.body.block.args[0])
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


#: The ops that talk over queues; a message (a send's body) holds none of them.
_MESSAGING_OPS = ("tg.send", "tg.consume", "tg.record", "tg.synchronize")


def _verify_queue_use(op: Operation, queue: SymbolRefAttr, event: bool) -> QueueOp:
    """Check that a messaging op is in a process and names a queue of its program."""
    q = _ref_name(queue)
    process = enclosing(op, ProcessOp)
    if not isinstance(process, ProcessOp):
        raise VerifyException(f"{op.name} @{q} must be inside a tg.process")
    program = process.parent_op()
    if not isinstance(program, ProgramOp):
        raise VerifyException(f"{op.name} @{q}: its process is not inside a tg.program")
    target = program.queue(q)
    if target is None:
        raise VerifyException(
            f"{op.name} refers to @{q}, which is not a tg.queue of program @{program.sym_name.data}"
        )
    if event and not target.is_event:
        raise VerifyException(
            f"{op.name} needs an event (a !csp.signal queue), but @{q} carries {target.element_type}"
        )
    if not event and target.is_event:
        raise VerifyException(
            f"{op.name} @{q}: @{q} is an event (!csp.signal); use tg.record / tg.synchronize"
        )
    return target


@irdl_op_definition
class SendOp(IRDLOperation):
    """``tg.send @q at(i = %i) { body }``: the tasks of body become one message pushed on ``@q``.

    The tasks are not issued here: the receiving process issues them. ``at`` are the message's
    coordinates (the sender's loop indices, read with ``tg.coord``). Blocks while ``@q`` is full;
    ``nonblocking`` (csp.send's): never blocks, dropping the message when ``@q`` cannot take it.
    """

    name = "tg.send"

    queue = prop_def(FlatSymbolRefAttr)
    coord_names = prop_def(ArrayAttr[StringAttr])
    nonblocking = opt_prop_def(UnitAttr)
    coords = var_operand_def(IndexType)
    body = region_def("single_block")

    def __init__(
        self,
        queue: str | SymbolRefAttr,
        coords: Sequence[tuple[str, SSAValue | Operation]] = (),
        body: Region | None = None,
        nonblocking: bool = False,
    ):
        body = body or Region(Block())
        _ensure_yield(body)
        properties: dict[str, Attribute] = {
            "queue": _symbol_ref(queue),
            "coord_names": ArrayAttr([StringAttr(n) for n, _ in coords]),
        }
        if nonblocking:
            properties["nonblocking"] = UnitAttr()
        super().__init__(operands=[[v for _, v in coords]], properties=properties, regions=[body])

    def verify_(self) -> None:
        q = _ref_name(self.queue)
        _verify_coords(f"tg.send @{q}", self.coord_names, len(self.coords))
        _verify_queue_use(self, self.queue, event=False)
        for op in self.body.walk():
            if op.name in _MESSAGING_OPS:
                raise VerifyException(
                    f"tg.send @{q}: a message holds tasks, its body must not contain {op.name}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> SendOp:
        queue = parser.parse_symbol_name().data
        names, coords = _parse_coords(parser, "operand")
        nonblocking = parser.parse_optional_keyword("nonblocking") is not None
        attrs = _parse_attrs(parser)
        body = parse_single_block_region(parser)
        op = cls(queue, list(zip(names, coords)), body, nonblocking)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.queue))
        _print_coords(printer, self.coord_names, self.coords)
        if self.nonblocking is not None:
            printer.print_string(" nonblocking")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


@irdl_op_definition
class ConsumeOp(IRDLOperation):
    """``tg.consume @q as %m : !wsp.task { body }``: per message until ``@q`` is closed.

    This process issues each received message's tasks, then runs body with ``%m`` standing for
    the message.
    """

    name = "tg.consume"

    queue = prop_def(FlatSymbolRefAttr)
    body = region_def("single_block")

    def __init__(
        self,
        queue: str | SymbolRefAttr,
        element_type: Attribute | None = None,
        name: str = "m",
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=[element_type or TaskType()])
            block.args[0].name_hint = name
            body = Region(block)
        _ensure_yield(body)
        super().__init__(properties={"queue": _symbol_ref(queue)}, regions=[body])

    @property
    def message(self) -> SSAValue:
        """The block argument standing for the received message."""
        return self.body.block.args[0]

    def verify_(self) -> None:
        q = _ref_name(self.queue)
        if len(self.body.block.args) != 1:
            raise VerifyException(
                f"tg.consume @{q} binds one block argument, got {len(self.body.block.args)}"
            )
        queue = _verify_queue_use(self, self.queue, event=False)
        if self.message.type != queue.element_type:
            raise VerifyException(
                f"tg.consume @{q} binds {self.message.type}, but @{q} carries {queue.element_type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConsumeOp:
        queue = parser.parse_symbol_name().data
        parser.parse_keyword("as")
        arg = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(":")
        arg_type = parser.parse_type()
        attrs = _parse_attrs(parser)
        op = cls(queue, body=parse_single_block_region(parser, [arg.resolve(arg_type)]))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_ref_name(self.queue))
        printer.print_string(" as ")
        printer.print_ssa_value(self.message)
        printer.print_string(" : ")
        printer.print_attribute(self.message.type)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


@irdl_op_definition
class CoordOp(IRDLOperation):
    """``%i = tg.coord %m[k]``: the k-th coordinate of a received message."""

    name = "tg.coord"

    message = operand_def(TaskType)
    position = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure())

    assembly_format = "$message `[` $position `]` attr-dict"

    def __init__(self, message: SSAValue | Operation, position: int):
        super().__init__(
            operands=[message],
            properties={"position": IntegerAttr(position, i64)},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        if self.position.value.data < 0:
            raise VerifyException(f"tg.coord position must be >= 0, got {self.position.value.data}")


class _EventOp(IRDLOperation):
    """Shared shape of record and synchronize: one event queue."""

    queue = prop_def(FlatSymbolRefAttr)

    assembly_format = "$queue attr-dict-with-keyword"

    def __init__(self, queue: str | SymbolRefAttr):
        super().__init__(properties={"queue": _symbol_ref(queue)})

    def verify_(self) -> None:
        _verify_queue_use(self, self.queue, event=True)


@irdl_op_definition
class RecordOp(_EventOp):
    """``tg.record @ev``: signal the event; blocks until a ``tg.synchronize @ev`` takes it."""

    name = "tg.record"


@irdl_op_definition
class SynchronizeOp(_EventOp):
    """``tg.synchronize @ev``: wait until a ``tg.record @ev`` signals the event."""

    name = "tg.synchronize"


# --------------------------------------------------------------------------- static form


@irdl_attr_definition
class RegionAttr(ParametrizedAttribute):
    """``#tg.region<Q[0, 0][1, 64][1, 1] inout>``: a static region of a graph's tensor argument.

    Offsets, sizes and strides are in the tensor's index space (one per dimension), so the
    overlap of two regions can be decided exactly; ``access`` is in, out or inout.
    """

    name = "tg.region"

    tensor: StringAttr
    offsets: DenseArrayBase[IntegerType]
    sizes: DenseArrayBase[IntegerType]
    strides: DenseArrayBase[IntegerType]
    access: StringAttr

    def __init__(
        self,
        tensor: str,
        offsets: Sequence[int],
        sizes: Sequence[int],
        strides: Sequence[int],
        access: str,
    ):
        super().__init__(
            StringAttr(tensor),
            *(DenseArrayBase.from_list(i64, list(v)) for v in (offsets, sizes, strides)),
            StringAttr(access),
        )

    def values(self) -> tuple[list[int], list[int], list[int]]:
        """Offsets, sizes and strides as lists."""
        return tuple(list(a.get_values()) for a in (self.offsets, self.sizes, self.strides))  # type: ignore[return-value]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            tensor = parser.parse_identifier_or_str_literal(" (the tensor argument's name)")
            return cls(tensor, *_parse_region_body(parser)).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.tensor.data)
            _print_region_body(printer, self)


def _parse_region_body(parser: AttrParser) -> tuple[list[int], list[int], list[int], str]:
    """``[offsets][sizes][strides] access``."""
    lists = [
        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_int64(parser))
        for _ in range(3)
    ]
    return lists[0], lists[1], lists[2], parser.parse_identifier(" (in, out or inout)")


def _print_region_body(printer: Printer, region: RegionAttr) -> None:
    for values in region.values():
        printer.print_string(f"[{', '.join(map(str, values))}]")
    printer.print_string(f" {region.access.data}")


def _i64s(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@irdl_op_definition
class NodeOp(IRDLOperation):
    """``tg.node 3 task @k args(0) regions(%Q[..][..][..] in) pool(cube) fanin(1) fanout(4)``.

    One task of the materialized graph (or a ``barrier`` standing for an ordering point):
    its id, kernel, scalar args, tensor regions, coordinates, placement (pool, target, stream,
    priority; absent = runtime decides), how many nodes precede it (fanin) and which follow
    it (fanout).
    """

    name = "tg.node"

    node_id = prop_def(IntegerAttr[IntegerType], prop_name="id")
    kind = prop_def(StringAttr)
    kernel = opt_prop_def(FlatSymbolRefAttr)
    args = prop_def(ArrayAttr[IntegerAttr | FloatAttr])
    tensor_regions = prop_def(ArrayAttr[RegionAttr], prop_name="regions")
    coord_names = prop_def(ArrayAttr[StringAttr])
    coord_values = prop_def(DenseArrayBase[IntegerType])
    domain = prop_def(StringAttr)
    pool = opt_prop_def(StringAttr)
    target = opt_prop_def(IntegerAttr[IntegerType])
    stream = opt_prop_def(IntegerAttr[IntegerType])
    priority = opt_prop_def(IntegerAttr[IntegerType])
    fanin = prop_def(IntegerAttr[IntegerType])
    fanout = prop_def(DenseArrayBase[IntegerType])

    def __init__(
        self,
        node_id: int,
        kind: str = "task",
        kernel: str | SymbolRefAttr | None = None,
        args: Sequence[int | IntegerAttr | FloatAttr] = (),
        regions: Sequence[RegionAttr] = (),
        coords: Sequence[tuple[str, int]] = (),
        pool: str | None = None,
        target: int | None = None,
        stream: int | None = None,
        priority: int | None = None,
        fanin: int = 0,
        fanout: Sequence[int] = (),
        domain: str = "host_cpu",
    ):
        props: dict[str, Attribute] = {
            "id": IntegerAttr(node_id, i64),
            "kind": StringAttr(kind),
            "args": ArrayAttr(
                [IntegerAttr(a, IndexType()) if isinstance(a, int) else a for a in args]
            ),
            "regions": ArrayAttr(regions),
            "coord_names": ArrayAttr([StringAttr(n) for n, _ in coords]),
            "coord_values": _i64s([v for _, v in coords]),
            "domain": StringAttr(domain),
            "fanin": IntegerAttr(fanin, i64),
            "fanout": _i64s(fanout),
        }
        if kernel is not None:
            props["kernel"] = _symbol_ref(kernel)
        if pool is not None:
            props["pool"] = StringAttr(pool)
        for key, value in (("target", target), ("stream", stream), ("priority", priority)):
            if value is not None:
                props[key] = IntegerAttr(value, i64)
        super().__init__(properties=props)

    @property
    def id(self) -> int:
        """The node's id."""
        return self.node_id.value.data

    def successors_ids(self) -> list[int]:
        """The fanout ids."""
        return list(self.fanout.get_values())  # type: ignore[arg-type]

    def verify_(self) -> None:
        graph = self.parent_op()
        if not isinstance(graph, GraphOp):
            raise VerifyException("tg.node must be directly inside a tg.graph")
        node = self.id
        if node < 0:
            raise VerifyException(f"node id must be >= 0, got {node}")
        what = f"node {node}"
        _one_of(f"{what}: kind", self.kind.data, NODE_KINDS)
        if self.fanin.value.data < 0:
            raise VerifyException(f"{what}: fanin must be >= 0, got {self.fanin.value.data}")
        fanout = self.successors_ids()
        if node in fanout:
            raise VerifyException(f"{what} lists itself in its fanout")
        if len(set(fanout)) != len(fanout):
            raise VerifyException(f"{what} lists a successor twice in its fanout {fanout}")
        _verify_coords(what, self.coord_names, len(self.coord_values))
        if self.kind.data == "barrier":
            self._verify_barrier(what)
        else:
            self._verify_task(what, graph)

    def _verify_barrier(self, what: str) -> None:
        keys = ("kernel", "pool", "target", "stream", "priority")
        carried = [key for key in keys if self.properties.get(key) is not None]
        lists = (
            ("args", self.args),
            ("regions", self.tensor_regions),
            ("coordinates", self.coord_names),
        )
        carried += [key for key, values in lists if len(values)]
        if self.domain.data != "host_cpu":
            carried.append("domain")
        if carried:
            raise VerifyException(
                f"barrier {what} carries no kernel, args, regions, coordinates or placement, "
                f"got {', '.join(carried)}"
            )

    def _verify_task(self, what: str, graph: GraphOp) -> None:
        if self.kernel is None:
            raise VerifyException(f"task {what} needs a kernel")
        if self.pool is None:
            raise VerifyException(f"task {what} needs a pool (vector, cube or any)")
        _one_of("pool", self.pool.data, POOLS)
        _one_of("domain", self.domain.data, DOMAINS)
        for key, value in (("target", self.target), ("stream", self.stream)):
            if value is not None and value.value.data < 0:
                raise VerifyException(f"{what}: {key} must be >= 0, got {value.value.data}")
        name = _ref_name(self.kernel)
        kernel = resolve_symbol(self, self.kernel)
        if not isinstance(kernel, KernelOp):
            raise VerifyException(f"{what} refers to unknown kernel @{name}")
        if len(self.args) != len(kernel.param_types):
            raise VerifyException(
                f"kernel @{name} takes {len(kernel.param_types)} parameter(s), "
                f"{what} has {len(self.args)} arg(s)"
            )
        for i, (arg, expected) in enumerate(zip(self.args, kernel.param_types)):
            if arg.type != expected:
                raise VerifyException(
                    f"{what} arg #{i}: kernel @{name} takes {expected}, got {_print_arg(arg)}"
                )
        resources = kernel.resource_types
        if len(self.tensor_regions) != len(resources):
            raise VerifyException(
                f"kernel @{name} takes {len(resources)} resource(s), "
                f"{what} has {len(self.tensor_regions)} region(s)"
            )
        tensors = graph.tensors()
        modes = [a.data for a in kernel.access if a.data]
        for i, (region, expected, mode) in enumerate(zip(self.tensor_regions, resources, modes)):
            _verify_region(f"{what} region #{i}", region, tensors, graph.sym_name.data)
            tensor = tensors[region.tensor.data]
            assert isinstance(expected, MemRefType)
            if tensor.element_type != expected.element_type:
                raise VerifyException(
                    f"{what} region #{i}: kernel @{name} takes {expected.element_type}, "
                    f"tensor {region.tensor.data} holds {tensor.element_type}"
                )
            if region.access.data != mode:
                raise VerifyException(
                    f"{what} region #{i} access must be kernel @{name}'s '{mode}', "
                    f"got '{region.access.data}'"
                )

    @classmethod
    def parse(cls, parser: Parser) -> NodeOp:
        node = parse_int64(parser)
        kind = parser.parse_identifier(" (task or barrier)")
        kernel = parser.parse_optional_symbol_name()
        args: list[IntegerAttr | FloatAttr] = []
        if parser.parse_optional_keyword("args"):
            args = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: _parse_arg(parser)
            )
        regions: list[RegionAttr] = []
        if parser.parse_optional_keyword("regions"):
            regions = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: _parse_node_region(parser)
            )
        names, values = _parse_coords(parser, "integer")
        domain = _parse_optional_clause(parser, "domain", parser.parse_identifier) or "host_cpu"
        pool = _parse_optional_clause(parser, "pool", parser.parse_identifier)
        integer = lambda: parse_int64(parser)  # noqa: E731
        target, stream, priority, fanin = (
            _parse_optional_clause(parser, kw, integer)
            for kw in ("target", "stream", "priority", "fanin")
        )
        fanout = _parse_int_list(parser) if parser.parse_optional_keyword("fanout") else []
        op = cls(
            node, kind, kernel, args, regions, list(zip(names, values)), pool,
            target, stream, priority, fanin or 0, fanout, domain,
        )  # fmt: skip
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.id} {self.kind.data}")
        if self.kernel is not None:
            printer.print_string(" ")
            printer.print_symbol_name(_ref_name(self.kernel))
        if self.args.data:
            printer.print_string(f" args({', '.join(map(_print_arg, self.args))})")
        if self.tensor_regions.data:
            printer.print_string(" regions(")
            printer.print_list(self.tensor_regions.data, lambda r: _print_node_region(printer, r))
            printer.print_string(")")
        _print_coords(printer, self.coord_names, list(self.coord_values.get_values()))
        _print_clause(printer, "domain", None if self.domain.data == "host_cpu" else self.domain)
        for keyword in ("pool", "target", "stream", "priority", "fanin"):
            _print_clause(printer, keyword, getattr(self, keyword))
        printer.print_string(f" fanout({', '.join(map(str, self.successors_ids()))})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _parse_arg(parser: Parser) -> IntegerAttr | FloatAttr:
    """A task's scalar: ``3`` (index), ``true``/``false`` (i1) or ``2.5 : f32``, ``7 : i32``."""
    for word, bit in (("true", 1), ("false", 0)):
        if parser.parse_optional_keyword(word):
            return IntegerAttr(bit, IntegerType(1))
    start = parser.pos
    value = parser.parse_number(context_msg=" (a task's scalar arg: 3, true, 2.5 : f32)")
    type_ = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
    if isinstance(type_, AnyFloat):
        largest = float(np.finfo(f"f{type_.bitwidth // 8}").max)
        if not abs(value) <= largest:  # also inf and nan
            parser.raise_error(f"{value} : {type_} is not a finite {type_}", start, parser.pos)
        return FloatAttr(float(value), type_)
    if isinstance(value, float) or not isinstance(type_, IntegerType | IndexType):
        parser.raise_error(f"a task's scalar arg cannot be {value} : {type_}", start, parser.pos)
    try:
        return IntegerAttr(value, type_)
    except Exception as error:  # the value does not fit the type
        parser.raise_error(f"{value} : {type_}: {error}", start, parser.pos)


def _print_arg(arg: Attribute) -> str:
    """``3`` (index), ``true`` (i1), ``2.5 : f32``: how a task's scalar arg prints."""
    assert isinstance(arg, IntegerAttr | FloatAttr)
    if isinstance(arg.type, IndexType):
        return str(arg.value.data)
    if arg.type == IntegerType(1):
        return "true" if arg.value.data else "false"
    if isinstance(arg, FloatAttr):
        # The shortest text that reads back as the same value of the type (0.1, not
        # 0.10000000149011612, for an f32).
        text = str(np.dtype(f"f{arg.type.bitwidth // 8}").type(arg.value.data))
        if "." not in text:  # a float literal has a point: 1.0e+300, not 1e+300
            mantissa, e, exponent = text.partition("e")
            text = f"{mantissa}.0{e}{exponent}"
        return f"{text} : {arg.type}"
    return f"{arg.value.data} : {arg.type}"


def _parse_node_region(parser: Parser) -> RegionAttr:
    """``%Q[offsets][sizes][strides] access``: a region of the graph argument ``%Q``."""
    tensor = parser.parse_unresolved_operand(
        "expected the tensor argument as an SSA name, e.g. %X"
    ).operand_name
    return RegionAttr(tensor, *_parse_region_body(parser))


def _print_node_region(printer: Printer, region: RegionAttr) -> None:
    printer.print_string(f"%{region.tensor.data}")
    _print_region_body(printer, region)


def _verify_region(
    what: str, region: RegionAttr, tensors: dict[str, MemRefType], graph: str
) -> None:
    """A region names a memref argument, has its rank, and stays inside its static extents."""
    name = region.tensor.data
    tensor = tensors.get(name)
    if tensor is None:
        raise VerifyException(f"{what} names '{name}', which is not a memref argument of @{graph}")
    shape = tensor.get_shape()
    offsets, sizes, strides = region.values()
    if not len(offsets) == len(sizes) == len(strides) == len(shape):
        raise VerifyException(
            f"{what}: {name} has rank {len(shape)}, the region has "
            f"{len(offsets)} offsets, {len(sizes)} sizes and {len(strides)} strides"
        )
    if region.access.data not in ACCESS_MODES:
        raise VerifyException(
            f"{what}: access must be in, out or inout, got '{region.access.data}'"
        )
    for dim, (off, size, stride, extent) in enumerate(zip(offsets, sizes, strides, shape)):
        if off < 0 or size < 0 or stride < 1:
            raise VerifyException(
                f"{what} dim {dim}: offsets and sizes are >= 0 and strides >= 1, "
                f"got offset {off}, size {size}, stride {stride}"
            )
        if extent >= 0 and size > 0 and off + (size - 1) * stride >= extent:
            raise VerifyException(
                f"{what} dim {dim} reaches {off + (size - 1) * stride}, "
                f"beyond dimension size {extent} of {name}"
            )


@irdl_op_definition
class GraphOp(_DefinitionOp):
    """``tg.graph @g(%Q: memref<..>, ...) [config {...}] { tg.node ... }``: a materialized graph.

    Seed 004 §6.2 ``TaskGraphStorage``: every task (and barrier) as a ``tg.node`` with flat
    fanout edges. The arguments are the tensors (and scalars) it was materialized for.
    """

    name = "tg.graph"

    traits = traits_def(SymbolOpInterface(), IsolatedScopes())

    def nodes(self) -> list[NodeOp]:
        """The nodes, in order."""
        return [op for op in self.body.block.ops if isinstance(op, NodeOp)]

    def verify_(self) -> None:
        self._verify_definition("graph")
        name = self.sym_name.data
        fanin: dict[int, int] = {}
        for op in self.body.block.ops:
            if isinstance(op, YieldOp):
                continue
            if not isinstance(op, NodeOp):
                raise VerifyException(f"tg.graph @{name} holds only tg.node ops, got {op.name}")
            if op.id in fanin:
                raise VerifyException(f"tg.graph @{name}: node id {op.id} is used twice")
            fanin[op.id] = 0
        nodes = self.nodes()
        for node in nodes:
            for succ in node.successors_ids():
                if succ not in fanin:
                    raise VerifyException(
                        f"node {node.id} lists {succ} in its fanout, which is not a node of @{name}"
                    )
                fanin[succ] += 1
        for node in nodes:
            if node.fanin.value.data != fanin[node.id]:
                raise VerifyException(
                    f"node {node.id} has fanin({node.fanin.value.data}) but "
                    f"{fanin[node.id]} node(s) list it in their fanout"
                )
        _verify_acyclic(name, nodes, fanin)


def _verify_acyclic(graph: str, nodes: list[NodeOp], fanin: dict[int, int]) -> None:
    """Kahn's algorithm: every node is reached once all its predecessors are."""
    successors = {node.id: node.successors_ids() for node in nodes}
    waiting = dict(fanin)
    ready = [n for n, count in waiting.items() if count == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for succ in successors[node]:
            waiting[succ] -= 1
            if waiting[succ] == 0:
                ready.append(succ)
    if done != len(nodes):
        stuck = min(n for n, count in waiting.items() if count > 0)
        raise VerifyException(f"tg.graph @{graph} has a cycle through node {stuck}")


# Events of task-generation programs: their own module (it imports this one).
from pto_wsp.dialects.tg_events import EVENT_OPS  # noqa: E402

TG = Dialect(
    "tg",
    [
        *EVENT_OPS,
        YieldOp,
        ProgramOp,
        TaskOp,
        OrderedOp,
        OrderPointOp,
        SeqOp,
        CallOp,
        QueueOp,
        ProcessOp,
        SendOp,
        ConsumeOp,
        CoordOp,
        RecordOp,
        SynchronizeOp,
        GraphOp,
        NodeOp,
    ],
    [RegionAttr],
)
