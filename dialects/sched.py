"""The ``sched`` dialect: schedules — how a workload's tasks run, never what they compute.

Seeds 000 §6, §7.2, §10 and 001 §5; seed 004 §6.4 for the extended primitives. A schedule
(``sched.schedule @s for @w``) is a symbol bound to a ``wsp.workload`` or a ``csp.pipeline``;
its body is a list of directives, at most one of each kind: dispatch (task -> executor),
streams / stream_by / issue (task -> stream, order within an executor), timing, spatial_map
and layout (placement on a grid of cores), dispatch_threshold (task -> vector or cube pool),
pipeline_depth, task_window and batch_deps (runtime limits). Ops of other dialects may stand
among the directives: that is the extension mechanism of seed 000 §10.

Task-dependent choices are *keys*: a small isolated region over named task coordinates (the
names of the workload's loops, plus ``replica`` in a pipeline) that yields one index, e.g.
``key(%b = "b") { ... sched.yield %v : index }``. Passes lower keys into the task-generation
program; nothing calls them per task from Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import ImplicitBuilder
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FlatSymbolRefAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    OpTrait,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region
from pto_wsp.dialects.traits import IsolatedScopes
from pto_wsp.dialects.wsp import EXEC_UNITS, resolve_symbol

DISPATCH_POLICIES = ("round_robin", "affinity", "hash", "range", "work_steal", "dispatch_by")
ISSUE_POLICIES = ("fifo", "priority")
TIMING_POLICIES = ("immediate", "batched", "interleaved", "rate_limit")
PIPELINE_SCOPES = ("global", "per_stream", "per_pool")
OVERFLOW_POLICIES = ("stall", "abort")
POOLS = EXEC_UNITS

#: What each dispatch policy takes: (axis name, count, key region).
DISPATCH_ARGS: dict[str, tuple[bool, bool, bool]] = {
    "round_robin": (False, True, False),
    "affinity": (True, False, False),
    "hash": (False, False, True),
    "range": (True, True, False),
    "work_steal": (False, False, False),
    "dispatch_by": (False, False, True),
}

#: Ops whose loop names are task coordinates, and the coordinate every pipeline task has.
LOOP_OPS = ("wsp.parallel_for", "wsp.for_each", "wsp.select")
REPLICA_COORDINATE = "replica"
TARGET_OPS = ("wsp.workload", "csp.pipeline")

#: ``sched.layout`` entry of a replicated tensor dimension (others are grid axes).
REPLICATE = -1

#: A key given to a builder: a ready region, or a function building one (see ``key_region``).
KeyBody = Region | Callable[..., SSAValue | Operation]

# --------------------------------------------------------------------------- helpers


class ScheduleDirective(OpTrait):
    """Marks the core directives; a schedule holds at most one of each (extensions excepted)."""


def _parse_attrs(parser: Parser) -> dict[str, Attribute]:
    """A trailing ``attributes {...}`` dictionary, if any."""
    attrs = parser.parse_optional_attr_dict_with_keyword()
    return dict(attrs.data) if attrs is not None else {}


def _one_of(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise VerifyException(f"{what} must be one of {', '.join(allowed)}, got '{value}'")


def _positive(what: str, value: int) -> None:
    if value <= 0:
        raise VerifyException(f"{what} must be > 0, got {value}")


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _parse_keyword_arg(parser: Parser, keyword: str) -> str:
    """``keyword(ident)``, e.g. ``scope(per_stream)``."""
    parser.parse_keyword(keyword)
    with parser.in_parens():
        return parser.parse_identifier(f" in {keyword}(...)")


def task_coordinates(target: Operation) -> list[str]:
    """The task coordinates of a workload or pipeline: its loop names (+ ``replica``), in order."""
    names: list[str] = []
    for op in target.walk():
        loop_names = op.properties.get("names") if op.name in LOOP_OPS else None
        if isinstance(loop_names, ArrayAttr):
            names += [n.data for n in loop_names if isinstance(n, StringAttr)]
    if target.name == "csp.pipeline":
        names.append(REPLICA_COORDINATE)
    return list(dict.fromkeys(names))


def _bound_target(op: Operation) -> tuple[ScheduleOp, Operation] | None:
    """The schedule around a directive and the workload or pipeline it is bound to."""
    schedule = op.parent_op()
    if not isinstance(schedule, ScheduleOp):
        return None
    target = schedule.target()
    return None if target is None else (schedule, target)


def _check_coordinates(op: Operation, names: Sequence[str]) -> None:
    """Each name must be a task coordinate of the workload the schedule is bound to."""
    bound = _bound_target(op)
    if bound is None:
        return
    schedule, _ = bound
    known = task_coordinates(bound[1])
    for name in names:
        if name not in known:
            raise VerifyException(
                f"unknown task coordinate '{name}' (coordinates of "
                f"@{schedule.workload.root_reference.data}: {', '.join(known) or 'none'})"
            )


def _find_sibling(op: Operation, kind: type[Operation]) -> Operation | None:
    block = op.parent_block()
    return None if block is None else next((o for o in block.ops if isinstance(o, kind)), None)


def _schedule_name(op: Operation) -> str:
    schedule = op.parent_op()
    return f"@{schedule.sym_name.data}" if isinstance(schedule, ScheduleOp) else "(none)"


# --------------------------------------------------------------------------- keys


#: What a key argument stands for: a task coordinate (by loop name), a scalar parameter of
#: the task's kernel (by parameter name) or a tensor argument of the workload (by name).
KEY_SOURCES = ("coord", "param", "tensor")


def key_region(
    names: Sequence[str],
    body: Callable[..., SSAValue | Operation] | None = None,
    types: Sequence[Attribute] | None = None,
) -> Region:
    """A key region over the named task coordinates; ``body(*coords)`` builds ops, returns the key.

    Ops created inside ``body`` are inserted into the key block. Without ``body`` the key is
    the single coordinate itself. ``types`` gives the arguments' types (default: index).
    """
    block = Block(arg_types=list(types) if types is not None else [IndexType()] * len(names))
    for arg, name in zip(block.args, names):
        arg.name_hint = name
    if body is None and len(names) != 1:
        raise ValueError("a key without a body needs exactly one coordinate")
    with ImplicitBuilder(block):
        YieldOp(block.args[0] if body is None else body(*block.args))
    return Region(block)


def _key_props(
    names: Sequence[str], key: Region | None, sources: Sequence[str] = ()
) -> dict[str, Attribute]:
    if key is None or not key.blocks:
        return {}
    props: dict[str, Attribute] = {"key_names": ArrayAttr([StringAttr(n) for n in names])}
    # Absent when every argument is a coordinate: the common key prints as before.
    if any(s != "coord" for s in sources):
        props["key_sources"] = ArrayAttr([StringAttr(s) for s in sources])
    return props


def _parse_optional_key(parser: Parser) -> tuple[list[str], list[str], Region | None]:
    """``key(%b = "b", %n = param("n") : index, %L = tensor("L") : memref<?xindex>) {..}``."""
    if not parser.parse_optional_keyword("key"):
        return [], [], None

    def one() -> tuple[Parser.Argument, str, str]:
        unresolved = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        source = "coord"
        for kind in ("param", "tensor"):
            if parser.parse_optional_keyword(kind):
                source = kind
                break
        if source == "coord":
            return (
                unresolved.resolve(IndexType()),
                parser.parse_str_literal(" (the coordinate name)"),
                source,
            )
        with parser.in_parens():
            name = parser.parse_str_literal(f" (the {source} name)")
        parser.parse_punctuation(":")
        return unresolved.resolve(parser.parse_type()), name, source

    triples = parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    region = parse_single_block_region(parser, [arg for arg, _, _ in triples])
    return [n for _, n, _ in triples], [s for _, _, s in triples], region


class _KeyedOp(IRDLOperation):
    """Shared shape of directives with an optional key region (empty when unused)."""

    key_names = opt_prop_def(ArrayAttr[StringAttr])
    key_sources = opt_prop_def(ArrayAttr[StringAttr])
    key = region_def()

    @property
    def coordinate_names(self) -> list[str]:
        """The name of each key argument, in order (a coordinate, parameter or tensor name)."""
        return [n.data for n in self.key_names] if self.key_names is not None else []

    @property
    def argument_sources(self) -> list[str]:
        """What each key argument stands for (``KEY_SOURCES``), in order."""
        if self.key_sources is None:
            return ["coord"] * len(self.coordinate_names)
        return [s.data for s in self.key_sources]

    def _print_key(self, printer: Printer) -> None:
        if not self.key.blocks:
            return
        printer.print_string(" key(")

        def arg(item: tuple[SSAValue, str, str]) -> None:
            value, name, source = item
            printer.print_ssa_value(value)
            printer.print_string(" = ")
            if source == "coord":
                printer.print_string_literal(name)
                return
            printer.print_string(f"{source}(")
            printer.print_string_literal(name)
            printer.print_string(") : ")
            printer.print_attribute(value.type)

        printer.print_list(
            zip(self.key.block.args, self.coordinate_names, self.argument_sources), arg
        )
        printer.print_string(") ")
        printer.print_region(self.key, print_entry_block_args=False)

    def _verify_key(self, what: str, needed: bool) -> None:
        names = self.coordinate_names
        if not self.key.blocks:
            if needed:
                raise VerifyException(f"{what} needs a key region")
            if names:
                raise VerifyException(f"{self.name} has key names but no key region")
            return
        if not needed:
            raise VerifyException(f"{what} takes no key region")
        if len(self.key.blocks) != 1:
            raise VerifyException(f"the key region of {self.name} must have exactly one block")
        args = self.key.block.args
        if len(names) != len(args):
            raise VerifyException(
                f"the key of {self.name} has {len(args)} argument(s) but {len(names)} name(s)"
            )
        sources = self.argument_sources
        if len(sources) != len(names):
            raise VerifyException(
                f"the key of {self.name} has {len(names)} name(s) but {len(sources)} source(s)"
            )
        for i, (a, source) in enumerate(zip(args, sources)):
            _verify_key_arg(self.name, i, a.type, source)
        named = list(zip(sources, names))
        for i, item in enumerate(named):
            if item in named[:i]:
                noun = {"coord": "coordinate", "param": "parameter", "tensor": "tensor"}[item[0]]
                raise VerifyException(f"the key of {self.name} names a {noun} twice")
        last = self.key.block.last_op
        if not isinstance(last, YieldOp):
            found = last.name if last is not None else "nothing"
            raise VerifyException(
                f"the key region of {self.name} must end with sched.yield, got {found}"
            )
        _check_coordinates(self, [n for s, n in named if s == "coord"])
        _check_tensors(self, [(n, a.type) for (s, n), a in zip(named, args) if s == "tensor"])


def _verify_key_arg(op: str, i: int, type_: Attribute, source: str) -> None:
    """A coordinate is an index, a parameter a scalar, a tensor a memref."""
    _one_of(f"the source of key argument #{i} of {op}", source, KEY_SOURCES)
    if source == "coord" and not isinstance(type_, IndexType):
        raise VerifyException(f"key argument #{i} of {op} must be index, got {type_}")
    if source == "param" and not isinstance(type_, IndexType | IntegerType | AnyFloat):
        raise VerifyException(
            f"key argument #{i} of {op} (a parameter) must be a scalar, got {type_}"
        )
    if source == "tensor" and not isinstance(type_, MemRefType):
        raise VerifyException(f"key argument #{i} of {op} (a tensor) must be a memref, got {type_}")


def _check_tensors(op: Operation, tensors: Sequence[tuple[str, Attribute]]) -> None:
    """Each tensor a key reads must be an argument of the bound workload, of the same type."""
    bound = _bound_target(op)
    if bound is None or not tensors:
        return
    schedule, target = bound
    args = _tensor_args(target)
    where = f"@{schedule.workload.root_reference.data}"
    for name, type_ in tensors:
        if name not in args:
            raise VerifyException(f"the key reads tensor '{name}', which {where} does not take")
        if args[name] != type_:
            raise VerifyException(
                f"the key reads tensor '{name}' as {type_}, but {where} takes it as {args[name]}"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``sched.yield %v : index``: returns the value of a key region."""

    name = "sched.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), _KeyedOp | None):
            raise VerifyException("sched.yield must terminate a key region")
        if len(self.values) != 1 or not isinstance(self.values[0].type, IndexType):
            types = ", ".join(str(v.type) for v in self.values) or "nothing"
            raise VerifyException(f"a key yields exactly one index, got {types}")


# --------------------------------------------------------------------------- schedule


@irdl_op_definition
class ScheduleOp(IRDLOperation):
    """``sched.schedule @s for @w { directives }``: how the tasks of ``@w`` run.

    ``@w`` is a ``wsp.workload`` or a ``csp.pipeline``. The body holds at most one directive
    of each kind; ops of other dialects may stand among them (extensions, seed 000 §10).
    """

    name = "sched.schedule"

    sym_name = prop_def(StringAttr)
    workload = prop_def(FlatSymbolRefAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), NoTerminator())

    def __init__(
        self,
        name: str,
        workload: str | SymbolRefAttr,
        directives: Sequence[Operation] = (),
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block())
        if not body.blocks:
            body.add_block(Block())
        body.block.add_ops(directives)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "workload": SymbolRefAttr(workload) if isinstance(workload, str) else workload,
            },
            regions=[body],
        )

    def target(self) -> Operation | None:
        """The workload or pipeline this schedule is bound to, if it resolves."""
        target = resolve_symbol(self, self.workload)
        return target if target is not None and target.name in TARGET_OPS else None

    def directives(self) -> list[Operation]:
        """The body's ops in order: core directives and extension ops."""
        return list(self.body.block.ops)

    def directive(self, kind: type[Operation]) -> Operation | None:
        """The directive of the given op class, if the schedule has one."""
        return next((op for op in self.body.block.ops if isinstance(op, kind)), None)

    def verify_(self) -> None:
        name = self.sym_name.data
        if self.target() is None:
            raise VerifyException(
                f"schedule @{name} is bound to unknown workload "
                f"@{self.workload.root_reference.data}"
            )
        if self.body.block.args:
            raise VerifyException(f"the body of schedule @{name} takes no arguments")
        seen: set[str] = set()
        for op in self.body.block.ops:
            # Unregistered ops claim every trait by default; they are extensions here.
            if not op.has_trait(ScheduleDirective, value_if_unregistered=False):
                continue
            # One layout per tensor: a schedule lays out several tensors.
            key = f"{op.name} for '{op.tensor.data}'" if isinstance(op, LayoutOp) else op.name
            if key in seen:
                which = f" for tensor '{op.tensor.data}'" if isinstance(op, LayoutOp) else ""
                raise VerifyException(
                    f"schedule @{name} has more than one {op.name} directive{which}"
                )
            seen.add(key)

    @classmethod
    def parse(cls, parser: Parser) -> ScheduleOp:
        name = parser.parse_symbol_name().data
        parser.parse_keyword("for")
        workload = parser.parse_symbol_name().data
        attrs = _parse_attrs(parser)
        op = cls(name, workload, body=parse_single_block_region(parser))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" for ")
        printer.print_symbol_name(self.workload.root_reference.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


DIRECTIVE_TRAITS = (ScheduleDirective(), HasParent(ScheduleOp))

# --------------------------------------------------------------------------- dispatch and issue


@irdl_op_definition
class DispatchOp(_KeyedOp):
    """``sched.dispatch round_robin(4)``: which executor (AICPU) handles each task.

    Policies: ``round_robin(n)``, ``affinity("axis")`` (same coordinate -> same executor),
    ``hash key(...) {..}``, ``range("axis", n)`` (contiguous blocks of the axis),
    ``work_steal`` and ``dispatch_by key(...) {..}`` (the key is the executor index).
    """

    name = "sched.dispatch"

    policy = prop_def(StringAttr)
    axis = opt_prop_def(StringAttr)
    count = opt_prop_def(IntegerAttr[IntegerType])

    traits = traits_def(*DIRECTIVE_TRAITS, IsolatedScopes())

    def __init__(
        self,
        policy: str,
        axis: str | None = None,
        count: int | None = None,
        key_names: Sequence[str] = (),
        key: Region | None = None,
        key_sources: Sequence[str] = (),
    ):
        props: dict[str, Attribute] = {"policy": StringAttr(policy)}
        if axis is not None:
            props["axis"] = StringAttr(axis)
        if count is not None:
            props["count"] = _int(count)
        props |= _key_props(key_names, key, key_sources)
        super().__init__(properties=props, regions=[key or Region()])

    @classmethod
    def round_robin(cls, n: int) -> DispatchOp:
        """Task i goes to executor i mod n."""
        return cls("round_robin", count=n)

    @classmethod
    def affinity(cls, axis: str) -> DispatchOp:
        """Tasks with the same value of coordinate ``axis`` go to the same executor."""
        return cls("affinity", axis=axis)

    @classmethod
    def hash(cls, names: Sequence[str], key: KeyBody, sources: Sequence[str] = ()) -> DispatchOp:
        """Tasks go to the executor chosen by a hash of the key."""
        return cls("hash", key_names=names, key=_as_key(names, key), key_sources=sources)

    @classmethod
    def range(cls, axis: str, n: int) -> DispatchOp:
        """Coordinate ``axis`` is split into ``n`` contiguous blocks, one per executor."""
        return cls("range", axis=axis, count=n)

    @classmethod
    def work_steal(cls) -> DispatchOp:
        """Idle executors steal ready tasks from busy ones."""
        return cls("work_steal")

    @classmethod
    def dispatch_by(
        cls, names: Sequence[str], key: KeyBody, sources: Sequence[str] = ()
    ) -> DispatchOp:
        """The key is the executor index."""
        return cls("dispatch_by", key_names=names, key=_as_key(names, key), key_sources=sources)

    def verify_(self) -> None:
        policy = self.policy.data
        _one_of("dispatch policy", policy, DISPATCH_POLICIES)
        takes_axis, takes_count, takes_key = DISPATCH_ARGS[policy]
        for article, noun, present, takes in (
            ("an", "axis name", self.axis is not None, takes_axis),
            ("a", "count", self.count is not None, takes_count),
        ):
            if present and not takes:
                raise VerifyException(f"dispatch policy {policy} takes no {noun}")
            if takes and not present:
                raise VerifyException(f"dispatch policy {policy} needs {article} {noun}")
        if self.count is not None:
            _positive(f"{policy} count", self.count.value.data)
        self._verify_key(f"dispatch policy {policy}", takes_key)
        if self.axis is not None:
            _check_coordinates(self, [self.axis.data])

    @classmethod
    def parse(cls, parser: Parser) -> DispatchOp:
        policy = parser.parse_identifier(" (a dispatch policy)")
        axis, count = None, None
        if parser.parse_optional_punctuation("(") is not None:
            axis = parser.parse_optional_str_literal()
            if axis is None or parser.parse_optional_punctuation(",") is not None:
                count = parse_int64(parser)
            parser.parse_punctuation(")")
        names, sources, key = _parse_optional_key(parser)
        op = cls(policy, axis, count, names, key, sources)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.policy.data}")
        if self.axis is not None or self.count is not None:
            printer.print_string("(")
            if self.axis is not None:
                printer.print_string_literal(self.axis.data)
            if self.axis is not None and self.count is not None:
                printer.print_string(", ")
            if self.count is not None:
                printer.print_string(str(self.count.value.data))
            printer.print_string(")")
        self._print_key(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _as_key(names: Sequence[str], key: KeyBody) -> Region:
    return key if isinstance(key, Region) else key_region(names, key)


class _CountOp(IRDLOperation):
    """Shared shape of ``sched.streams N`` and ``sched.batch_deps N``: one positive count."""

    count = prop_def(IntegerAttr[IntegerType])

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, count: int):
        super().__init__(properties={"count": _int(count)})

    def verify_(self) -> None:
        _positive(f"{self.name} count", self.count.value.data)

    @classmethod
    def parse(cls, parser: Parser):
        op = cls(parse_int64(parser))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.count.value.data}")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class StreamsOp(_CountOp):
    """``sched.streams 4``: each executor issues into this many streams."""

    name = "sched.streams"


@irdl_op_definition
class StreamByOp(_KeyedOp):
    """``sched.stream_by key(%b = "b") { .. }``: the stream of each task (key mod streams)."""

    name = "sched.stream_by"

    traits = traits_def(*DIRECTIVE_TRAITS, IsolatedScopes())

    def __init__(self, key_names: Sequence[str], key: KeyBody, key_sources: Sequence[str] = ()):
        region = _as_key(key_names, key)
        super().__init__(properties=_key_props(key_names, region, key_sources), regions=[region])

    def verify_(self) -> None:
        self._verify_key("sched.stream_by", True)
        if _find_sibling(self, StreamsOp) is None and isinstance(self.parent_op(), ScheduleOp):
            raise VerifyException(
                f"sched.stream_by needs a sched.streams directive in schedule "
                f"{_schedule_name(self)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> StreamByOp:
        pos = parser.pos
        names, sources, key = _parse_optional_key(parser)
        if key is None:
            parser.raise_error("sched.stream_by expects key(...) { ... }", pos, parser.pos)
        op = cls(names, key, sources)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        self._print_key(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class IssueOp(_KeyedOp):
    """``sched.issue fifo`` | ``sched.issue priority key(..) {..}``: order within an executor.

    With ``priority``, ready tasks with a lower key issue first.
    """

    name = "sched.issue"

    policy = prop_def(StringAttr)

    traits = traits_def(*DIRECTIVE_TRAITS, IsolatedScopes())

    def __init__(
        self,
        policy: str,
        key_names: Sequence[str] = (),
        key: Region | None = None,
        key_sources: Sequence[str] = (),
    ):
        super().__init__(
            properties={"policy": StringAttr(policy)} | _key_props(key_names, key, key_sources),
            regions=[key or Region()],
        )

    @classmethod
    def fifo(cls) -> IssueOp:
        """Tasks issue in the order they become ready."""
        return cls("fifo")

    @classmethod
    def priority(cls, names: Sequence[str], key: KeyBody, sources: Sequence[str] = ()) -> IssueOp:
        """Ready tasks with a lower key issue first."""
        return cls("priority", names, _as_key(names, key), sources)

    def verify_(self) -> None:
        policy = self.policy.data
        _one_of("issue policy", policy, ISSUE_POLICIES)
        self._verify_key(f"issue policy {policy}", policy == "priority")

    @classmethod
    def parse(cls, parser: Parser) -> IssueOp:
        policy = parser.parse_identifier(" (fifo or priority)")
        names, sources, key = _parse_optional_key(parser)
        op = cls(policy, names, key, sources)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.policy.data}")
        self._print_key(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class TimingOp(IRDLOperation):
    """``sched.timing immediate | batched(n) | interleaved(n) | rate_limit(n)``: when tasks issue.

    ``batched``: n tasks at a time; ``interleaved``: round-robin over n streams;
    ``rate_limit``: at most n tasks per millisecond.
    """

    name = "sched.timing"

    policy = prop_def(StringAttr)
    count = opt_prop_def(IntegerAttr[IntegerType])

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, policy: str, count: int | None = None):
        props: dict[str, Attribute] = {"policy": StringAttr(policy)}
        if count is not None:
            props["count"] = _int(count)
        super().__init__(properties=props)

    def verify_(self) -> None:
        policy = self.policy.data
        _one_of("timing policy", policy, TIMING_POLICIES)
        if policy == "immediate":
            if self.count is not None:
                raise VerifyException("timing policy immediate takes no count")
            return
        if self.count is None:
            raise VerifyException(f"timing policy {policy} needs a count")
        _positive(f"{policy} count", self.count.value.data)

    @classmethod
    def parse(cls, parser: Parser) -> TimingOp:
        policy = parser.parse_identifier(" (a timing policy)")
        count = None
        if parser.parse_optional_punctuation("(") is not None:
            count = parse_int64(parser)
            parser.parse_punctuation(")")
        op = cls(policy, count)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.policy.data}")
        if self.count is not None:
            printer.print_string(f"({self.count.value.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


# --------------------------------------------------------------------------- placement


@irdl_op_definition
class SpatialMapOp(IRDLOperation):
    """``sched.spatial_map grid(4, 4)``: tasks are placed on a grid of cores of this shape."""

    name = "sched.spatial_map"

    grid = prop_def(DenseArrayBase)

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, grid: Sequence[int]):
        super().__init__(properties={"grid": DenseArrayBase.from_list(i64, grid)})

    @property
    def shape(self) -> tuple[int, ...]:
        """The grid's extent along each axis."""
        return tuple(self.grid.get_values())

    def verify_(self) -> None:
        if not self.shape:
            raise VerifyException("a spatial grid needs at least one dimension")
        for i, d in enumerate(self.shape):
            _positive(f"spatial grid dimension {i}", d)

    @classmethod
    def parse(cls, parser: Parser) -> SpatialMapOp:
        parser.parse_keyword("grid")
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_int64(parser)
        )
        op = cls(dims)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" grid({', '.join(str(d) for d in self.shape)})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class LayoutOp(IRDLOperation):
    """``sched.layout "Q" (shard(0), replicate)``: how a tensor is distributed over the grid.

    One entry per tensor dimension: ``shard(g)`` splits that dimension across grid axis ``g``,
    ``replicate`` keeps it whole (every grid cell sees all of it). Stored in ``dims``: the grid
    axis per tensor dimension, ``-1`` for replicate.
    """

    name = "sched.layout"

    tensor = prop_def(StringAttr)
    dims = prop_def(DenseArrayBase)

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, tensor: str, dims: Sequence[int | None]):
        values = [REPLICATE if d is None else d for d in dims]
        super().__init__(
            properties={
                "tensor": StringAttr(tensor),
                "dims": DenseArrayBase.from_list(i64, values),
            }
        )

    @property
    def entries(self) -> list[int | None]:
        """The grid axis each tensor dimension is sharded across, None where replicated."""
        return [None if d == REPLICATE else d for d in self.dims.get_values()]

    def verify_(self) -> None:
        tensor = self.tensor.data
        for g in self.entries:
            if g is not None and g < 0:
                raise VerifyException(f"layout of '{tensor}': grid axis {g} is negative")
        sharded = [g for g in self.entries if g is not None]
        for g in sharded:
            if sharded.count(g) > 1:
                raise VerifyException(f"layout of '{tensor}' shards grid axis {g} twice")
        if not isinstance(self.parent_op(), ScheduleOp):
            return
        grid = _find_sibling(self, SpatialMapOp)
        if not isinstance(grid, SpatialMapOp):
            raise VerifyException(
                f"sched.layout needs a sched.spatial_map directive in schedule "
                f"{_schedule_name(self)}"
            )
        for g in sharded:
            if g >= len(grid.shape):
                raise VerifyException(
                    f"layout of '{tensor}': shard({g}) names a grid axis, but the spatial "
                    f"grid has rank {len(grid.shape)}"
                )
        self._verify_tensor()

    def _verify_tensor(self) -> None:
        bound = _bound_target(self)
        if bound is None:
            return
        schedule, target = bound
        tensor, tensors = self.tensor.data, _tensor_args(target)
        if tensor not in tensors:
            raise VerifyException(
                f"layout tensor '{tensor}' is not a tensor argument of "
                f"@{schedule.workload.root_reference.data} "
                f"(tensor arguments: {', '.join(tensors) or 'none'})"
            )
        rank = len(tensors[tensor].get_shape())
        if len(self.entries) != rank:
            raise VerifyException(
                f"layout of '{tensor}' has {len(self.entries)} entries but the tensor "
                f"has rank {rank}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LayoutOp:
        tensor = parser.parse_str_literal(" (the tensor's argument name)")

        def entry() -> int | None:
            if parser.parse_optional_keyword("replicate"):
                return None
            pos = parser.pos
            if not parser.parse_optional_keyword("shard"):
                parser.raise_error("expected shard(g) or replicate", pos)
            with parser.in_parens():
                g = parse_int64(parser)
            if g < 0:
                parser.raise_error(f"shard({g}): grid axis must be >= 0", pos, parser.pos)
            return g

        op = cls(tensor, parser.parse_comma_separated_list(parser.Delimiter.PAREN, entry))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor.data)
        entries = ["replicate" if g is None else f"shard({g})" for g in self.entries]
        printer.print_string(f" ({', '.join(entries)})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _tensor_args(target: Operation) -> dict[str, MemRefType]:
    """The memref arguments of a workload (or pipeline) by name."""
    names = target.properties.get("arg_names")
    ftype = target.properties.get("function_type")
    if not isinstance(names, ArrayAttr) or not isinstance(ftype, FunctionType):
        return {}
    return {
        n.data: t
        for n, t in zip(names.data, ftype.inputs.data)
        if isinstance(n, StringAttr) and isinstance(t, MemRefType)
    }


# --------------------------------------------------------------------------- pools and limits


@irdl_op_definition
class DispatchThresholdOp(_KeyedOp):
    """``sched.dispatch_threshold T below(vector) above(cube) key(..) {..}``: pool by a metric.

    Tasks whose key is below ``T`` go to the ``below`` pool, the others to the ``above`` pool.
    """

    name = "sched.dispatch_threshold"

    threshold = prop_def(IntegerAttr[IntegerType])
    below = prop_def(StringAttr)
    above = prop_def(StringAttr)

    traits = traits_def(*DIRECTIVE_TRAITS, IsolatedScopes())

    def __init__(
        self,
        threshold: int,
        below: str,
        above: str,
        key_names: Sequence[str],
        key: KeyBody,
        key_sources: Sequence[str] = (),
    ):
        region = _as_key(key_names, key)
        super().__init__(
            properties={
                "threshold": _int(threshold),
                "below": StringAttr(below),
                "above": StringAttr(above),
            }
            | _key_props(key_names, region, key_sources),
            regions=[region],
        )

    def verify_(self) -> None:
        if self.threshold.value.data < 0:
            raise VerifyException(
                f"dispatch_threshold must be >= 0, got {self.threshold.value.data}"
            )
        _one_of("the below pool", self.below.data, POOLS)
        _one_of("the above pool", self.above.data, POOLS)
        self._verify_key("sched.dispatch_threshold", True)

    @classmethod
    def parse(cls, parser: Parser) -> DispatchThresholdOp:
        start = parser.pos
        threshold = parse_int64(parser)
        below = _parse_keyword_arg(parser, "below")
        above = _parse_keyword_arg(parser, "above")
        end = parser.pos
        names, sources, key = _parse_optional_key(parser)
        if key is None:
            parser.raise_error("sched.dispatch_threshold expects key(...) { ... }", start, end)
        op = cls(threshold, below, above, names, key, sources)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(
            f" {self.threshold.value.data} below({self.below.data}) above({self.above.data})"
        )
        self._print_key(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class PipelineDepthOp(IRDLOperation):
    """``sched.pipeline_depth 2 scope(per_stream)``: at most D tasks in flight per scope."""

    name = "sched.pipeline_depth"

    depth = prop_def(IntegerAttr[IntegerType])
    scope = prop_def(StringAttr)

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, depth: int, scope: str = "global"):
        super().__init__(properties={"depth": _int(depth), "scope": StringAttr(scope)})

    def verify_(self) -> None:
        _positive("pipeline depth", self.depth.value.data)
        _one_of("pipeline_depth scope", self.scope.data, PIPELINE_SCOPES)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineDepthOp:
        depth = parse_int64(parser)
        op = cls(depth, _parse_keyword_arg(parser, "scope"))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.depth.value.data} scope({self.scope.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class TaskWindowOp(IRDLOperation):
    """``sched.task_window 8192 overflow(stall)``: at most S tasks alive; what to do beyond."""

    name = "sched.task_window"

    size = prop_def(IntegerAttr[IntegerType])
    overflow = prop_def(StringAttr)

    traits = traits_def(*DIRECTIVE_TRAITS)

    def __init__(self, size: int, overflow: str = "stall"):
        super().__init__(properties={"size": _int(size), "overflow": StringAttr(overflow)})

    def verify_(self) -> None:
        _positive("task window size", self.size.value.data)
        _one_of("task_window overflow", self.overflow.data, OVERFLOW_POLICIES)

    @classmethod
    def parse(cls, parser: Parser) -> TaskWindowOp:
        size = parse_int64(parser)
        op = cls(size, _parse_keyword_arg(parser, "overflow"))
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.size.value.data} overflow({self.overflow.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class BatchDepsOp(_CountOp):
    """``sched.batch_deps 64``: resolve the dependencies of N new tasks at a time."""

    name = "sched.batch_deps"


SCHED = Dialect(
    "sched",
    [
        YieldOp,
        ScheduleOp,
        DispatchOp,
        StreamsOp,
        StreamByOp,
        IssueOp,
        TimingOp,
        SpatialMapOp,
        LayoutOp,
        DispatchThresholdOp,
        PipelineDepthOp,
        TaskWindowOp,
        BatchDepsOp,
    ],
)
