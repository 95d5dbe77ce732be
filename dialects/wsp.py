"""The ``wsp`` dialect: workloads — what kernel tasks a program creates.

Seeds 000 §3-4 and 001 §2-3. A workload is a symbol (``wsp.workload``) whose body is a
workload expression: loops over axes (``wsp.parallel_for``, ``wsp.for_each``), sparse
selection (``wsp.select``), conditionals (``wsp.cond``), composition (``wsp.combine``,
``wsp.sequential``), leaves (``wsp.task``) and cross-level calls (``wsp.call``).

Axes are SSA values of the types ``!wsp.dense<N>``, ``!wsp.dense_dyn``, ``!wsp.ragged`` and
``!wsp.sparse``; runtime data (sizes, lengths, CSR arrays) are ordinary index/memref values,
so one compiled program runs for any binding. Resources are ``wsp.view``s of memref tensors,
so every task knows the exact region it reads or writes.

The statements of one block are combined (no order among them); ``wsp.sequential`` orders
its children. docs/semantics.md states the order semantics.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnregisteredOp,
    i1,
    i64,
)
from xdsl.dialects.func import FuncOp
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
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsTerminator,
    OpTrait,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.parsing import parse_int64, parse_single_block_region, parse_typed_argument
from pto_wsp.dialects.traits import IsolatedScopes, check_scopes

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class DenseAxisType(ParametrizedAttribute, TypeAttribute):
    """A static dense axis ``Dense<N>``: indices 0 .. N-1."""

    name = "wsp.dense"

    size: IntAttr

    def __init__(self, size: int | IntAttr):
        super().__init__(IntAttr(size) if isinstance(size, int) else size)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IntAttr(parse_int64(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self.size.data))

    def verify(self) -> None:
        if self.size.data < 0:
            raise VerifyException(f"!wsp.dense size must be >= 0, got {self.size.data}")


class _NoParameters(ParametrizedAttribute):
    """A type without parameters: ``!wsp.x<...>`` is a parse error, not a crash."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        pos = parser.pos
        if parser.parse_optional_punctuation("<") is not None:
            parser.raise_error(f"!{cls.name} takes no parameters", pos, parser.pos)
        return ()


@irdl_attr_definition
class DenseDynAxisType(_NoParameters, TypeAttribute):
    """A dense axis whose size is a runtime index (``DenseDyn(n)``)."""

    name = "wsp.dense_dyn"


@irdl_attr_definition
class RaggedAxisType(_NoParameters, TypeAttribute):
    """A ragged axis: ``outer`` rows, row ``r`` has ``lengths[r]`` elements."""

    name = "wsp.ragged"


@irdl_attr_definition
class SparseAxisType(_NoParameters, TypeAttribute):
    """A sparse axis in CSR form: ``outer`` rows, row ``r`` holds indices[indptr[r]:indptr[r+1]]."""

    name = "wsp.sparse"


@irdl_attr_definition
class TaskType(_NoParameters, TypeAttribute):
    """A handle to a workload sent through a channel: a CSP message (seed 001 §4)."""

    name = "wsp.task"


AXIS_TYPES = (DenseAxisType, DenseDynAxisType, RaggedAxisType, SparseAxisType)
AxisType = DenseAxisType | DenseDynAxisType | RaggedAxisType | SparseAxisType

LEVELS = ("cpu", "npu")
ACCESS_MODES = ("in", "out", "inout")
EXEC_UNITS = ("vector", "cube")
#: The types a kernel's scalar parameter may have (every target passes these by value).
SCALAR_TYPES = (
    IndexType(),
    IntegerType(1),
    IntegerType(32),
    IntegerType(64),
    Float16Type(),
    Float32Type(),
    Float64Type(),
)


def loop_index_count(axis_type: Attribute) -> int:
    """How many indices one iteration of a loop over this axis binds (Ragged/Sparse: row, j)."""
    return 2 if isinstance(axis_type, RaggedAxisType | SparseAxisType) else 1


# --------------------------------------------------------------------------- helpers


class WorkloadExpr(OpTrait):
    """Marks the ops that are workload expressions (children of combine/sequential)."""


#: Per symbol table block, its symbols by name (first definition wins), built on a lookup that
#: misses and checked on every hit, so IR changes never return a stale op (see resolve_symbol).
_SYMBOLS: weakref.WeakKeyDictionary[Block, dict[str, Operation]] = weakref.WeakKeyDictionary()


def _symbol_name(op: Operation) -> str | None:
    sym = op.get_trait(SymbolOpInterface)
    if sym is None:
        return None
    attr = sym.get_sym_attr_name(op)
    return attr.data if attr is not None else None


def _lookup_in(block: Block, name: str) -> Operation | None:
    """``name`` among ``block``'s ops: O(1) through the cache when it is current."""
    table = _SYMBOLS.get(block)
    if table is not None:
        found = table.get(name)
        if found is not None and found.parent is block and _symbol_name(found) == name:
            return found
    # A miss, or the IR changed: index the block again (first definition of a name wins).
    table = {}
    for candidate in block.ops:
        sym_name = _symbol_name(candidate)
        if sym_name is not None:
            table.setdefault(sym_name, candidate)
    _SYMBOLS[block] = table
    return table.get(name)


def resolve_symbol(op: Operation, ref: SymbolRefAttr | StringAttr | str) -> Operation | None:
    """Find a symbol from ``op`` outward: nearest symbol table first, then each enclosing one.

    Pipelines are symbol tables (of their channels) nested in the module, so a task in a
    process must still find its kernel in the module. Each table's names are indexed once
    (verifying N tasks against K symbols costs O(N + K), not O(N K)); a hit is checked
    against the IR (same block, same name), a miss indexes the block again.
    """
    name = (
        ref.root_reference.data
        if isinstance(ref, SymbolRefAttr)
        else str(ref.data if isinstance(ref, StringAttr) else ref)
    )
    anchor = op.parent_op()
    while anchor is not None:
        if anchor.has_trait(SymbolTable) and anchor.regions and anchor.regions[0].blocks:
            found = _lookup_in(anchor.regions[0].block, name)
            if found is not None:
                return found
        anchor = anchor.parent_op()
    return None


def enclosing(op: Operation, kind: type[Operation]) -> Operation | None:
    """The nearest ancestor of ``op`` of the given op class."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    return parent


def _ensure_yield(region: Region) -> None:
    """Give a parsed single-block region its implicit ``wsp.yield`` terminator."""
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(YieldOp())


def _print_body(printer: Printer, region: Region) -> None:
    printer.print_region(
        region, print_entry_block_args=False, print_empty_block=False, print_block_terminators=False
    )


def _parse_attrs(parser: Parser) -> dict[str, Attribute]:
    """A trailing ``attributes {...}`` dictionary, if any."""
    attrs = parser.parse_optional_attr_dict_with_keyword()
    return dict(attrs.data) if attrs is not None else {}


def _parse_names(parser: Parser) -> list[str]:
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_str_literal)


def _print_names(printer: Printer, names: ArrayAttr[StringAttr]) -> None:
    printer.print_string("(")
    printer.print_list(names.data, lambda n: printer.print_string_literal(n.data))
    printer.print_string(")")


def _check_identifier(kind: str, name: str) -> None:
    # ASCII only, as MLIR's identifiers and .pto's names: names become block-argument
    # names, which xDSL takes only from [A-Za-z0-9_$.-].
    if (
        not name
        or not name.isascii()
        or not (name[0].isalpha() or name[0] == "_")
        or not all(c.isalnum() or c == "_" for c in name)
    ):
        raise VerifyException(
            f"{kind} '{name}' is not an identifier (an ASCII letter or '_', then letters, "
            "digits or '_')"
        )


def _shapes_compatible(expected: Attribute, actual: Attribute) -> bool:
    """memref types agree in element type and rank, and in every dimension both know."""
    if not isinstance(expected, MemRefType) or not isinstance(actual, MemRefType):
        return expected == actual
    if expected.element_type != actual.element_type:
        return False
    e_shape, a_shape = expected.get_shape(), actual.get_shape()
    if len(e_shape) != len(a_shape):
        return False
    return all(e == a or e < 0 or a < 0 for e, a in zip(e_shape, a_shape))


# --------------------------------------------------------------------------- terminator


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates a wsp region; yields one index from a kernel's cost region, nothing elsewhere."""

    name = "wsp.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, KernelOp):
            if len(self.values) != 1 or not isinstance(self.values[0].type, IndexType):
                raise VerifyException("a kernel's cost region must yield exactly one index")
        elif self.values:
            raise VerifyException("wsp.yield in a workload region yields no values")


# --------------------------------------------------------------------------- axes


@irdl_op_definition
class DenseOp(IRDLOperation):
    """``%a = wsp.dense 8``: the static axis Dense<8>."""

    name = "wsp.dense"

    size = prop_def(IntegerAttr[IntegerType])
    axis = result_def(DenseAxisType)

    traits = traits_def(Pure())

    def __init__(self, size: int):
        super().__init__(
            properties={"size": IntegerAttr(size, i64)}, result_types=[DenseAxisType(size)]
        )

    def verify_(self) -> None:
        if self.size.value.data < 0:
            raise VerifyException(f"axis size must be >= 0, got {self.size.value.data}")
        if self.axis.type != DenseAxisType(self.size.value.data):
            raise VerifyException("result type must be !wsp.dense<size>")

    @classmethod
    def parse(cls, parser: Parser) -> DenseOp:
        op = cls(parse_int64(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.size.value.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class DenseDynOp(IRDLOperation):
    """``%a = wsp.dense_dyn %n``: a dense axis of runtime size ``%n``."""

    name = "wsp.dense_dyn"

    size = operand_def(IndexType)
    axis = result_def(DenseDynAxisType)

    traits = traits_def(Pure())

    assembly_format = "$size attr-dict"

    def __init__(self, size: SSAValue | Operation):
        super().__init__(operands=[size], result_types=[DenseDynAxisType()])


@irdl_op_definition
class RaggedOp(IRDLOperation):
    """``%a = wsp.ragged %outer, %lengths : memref<?xi64>``: row r has lengths[r] elements."""

    name = "wsp.ragged"

    outer = operand_def(IndexType)
    lengths = operand_def(MemRefType)
    axis = result_def(RaggedAxisType)

    traits = traits_def(Pure())

    assembly_format = "$outer `,` $lengths attr-dict `:` type($lengths)"

    def __init__(self, outer: SSAValue | Operation, lengths: SSAValue | Operation):
        super().__init__(operands=[outer, lengths], result_types=[RaggedAxisType()])

    def verify_(self) -> None:
        _check_index_buffer("lengths", self.lengths.type)


@irdl_op_definition
class SparseOp(IRDLOperation):
    """``%s = wsp.sparse %outer, %indptr, %indices : T1, T2``: a CSR sparse axis."""

    name = "wsp.sparse"

    outer = operand_def(IndexType)
    indptr = operand_def(MemRefType)
    indices = operand_def(MemRefType)
    axis = result_def(SparseAxisType)

    traits = traits_def(Pure())

    assembly_format = (
        "$outer `,` $indptr `,` $indices attr-dict `:` type($indptr) `,` type($indices)"
    )

    def __init__(
        self,
        outer: SSAValue | Operation,
        indptr: SSAValue | Operation,
        indices: SSAValue | Operation,
    ):
        super().__init__(operands=[outer, indptr, indices], result_types=[SparseAxisType()])

    def verify_(self) -> None:
        _check_index_buffer("indptr", self.indptr.type)
        _check_index_buffer("indices", self.indices.type)


def _check_index_buffer(what: str, type_: Attribute) -> None:
    assert isinstance(type_, MemRefType)
    elem = type_.element_type
    if len(type_.get_shape()) != 1 or not isinstance(elem, IndexType | IntegerType):
        raise VerifyException(f"{what} must be a 1-d memref of integers or index, got {type_}")


# --------------------------------------------------------------------------- views

#: ``static_sizes`` entry of an index entry (``Q[%b]``): selects one element, drops the dim.
VIEW_INDEX = -1
#: ``static_offsets``/``static_sizes`` entry whose value is the next dynamic operand.
VIEW_DYNAMIC = -2


@irdl_op_definition
class ViewOp(IRDLOperation):
    """``%v = wsp.view %Q[%b, %h, 0:64, %o:+%n] : memref<..> -> memref<..>``: a task resource.

    Entries address the leading dimensions; the rest are taken whole. ``%i`` (or an integer)
    selects one element and drops the dimension; ``lo:hi`` is a static slice;
    ``off:+size`` a slice whose offset and/or size are runtime indices.
    """

    name = "wsp.view"

    source = operand_def(MemRefType)
    dynamic = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    result = result_def(MemRefType)

    traits = traits_def(Pure())

    def __init__(
        self,
        source: SSAValue,
        static_offsets: Sequence[int],
        static_sizes: Sequence[int],
        dynamic: Sequence[SSAValue],
        result_type: Attribute | None = None,
    ):
        offsets = DenseArrayBase.from_list(i64, static_offsets)
        sizes = DenseArrayBase.from_list(i64, static_sizes)
        if result_type is None:
            result_type = view_result_type(source.type, static_offsets, static_sizes)
        super().__init__(
            operands=[source, dynamic],
            properties={"static_offsets": offsets, "static_sizes": sizes},
            result_types=[result_type],
        )

    def entries(self) -> list[tuple[int | SSAValue, int | SSAValue | None]]:
        """(offset, size) per entry; size None for an index entry."""
        dyn = iter(self.dynamic)
        out: list[tuple[int | SSAValue, int | SSAValue | None]] = []
        for off, size in zip(
            self.static_offsets.get_values(), self.static_sizes.get_values(), strict=True
        ):
            o: int | SSAValue = next(dyn) if off == VIEW_DYNAMIC else off
            s: int | SSAValue | None
            s = None if size == VIEW_INDEX else next(dyn) if size == VIEW_DYNAMIC else size
            out.append((o, s))
        return out

    def verify_(self) -> None:
        offsets = self.static_offsets.get_values()
        sizes = self.static_sizes.get_values()
        src = self.source.type
        assert isinstance(src, MemRefType)
        shape = src.get_shape()
        if len(offsets) != len(sizes):
            raise VerifyException("static_offsets and static_sizes must have equal length")
        if len(offsets) > len(shape):
            raise VerifyException(
                f"view has {len(offsets)} entries but the tensor has rank {len(shape)}"
            )
        expected_dyn = sum(o == VIEW_DYNAMIC for o in offsets) + sum(
            s == VIEW_DYNAMIC for s in sizes
        )
        if expected_dyn != len(self.dynamic):
            raise VerifyException(
                f"expected {expected_dyn} dynamic operands, got {len(self.dynamic)}"
            )
        for dim, (off, size) in enumerate(zip(offsets, sizes)):
            _check_view_entry(dim, off, size, shape[dim])
        expected = view_result_type(src, offsets, sizes)
        if self.result.type != expected:
            raise VerifyException(f"view result type must be {expected}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        source = parser.parse_unresolved_operand()
        entries = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: _parse_view_entry(parser)
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        res_type = parser.parse_type()
        offsets, sizes, dynamic = [], [], []
        for off, size in entries:
            offsets.append(off if isinstance(off, int) else VIEW_DYNAMIC)
            sizes.append(
                VIEW_INDEX if size is None else size if isinstance(size, int) else VIEW_DYNAMIC
            )
            dynamic += [v for v in (off, size) if isinstance(v, UnresolvedOperand)]
        resolved = [parser.resolve_operand(v, IndexType()) for v in dynamic]
        op = cls(parser.resolve_operand(source, src_type), offsets, sizes, resolved, res_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string("[")
        printer.print_list(self.entries(), lambda e: _print_view_entry(printer, *e))
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


def view_result_type(source: Attribute, offsets: Sequence[int], sizes: Sequence[int]) -> MemRefType:
    """The memref type of a view: slice entries keep a dim, index entries drop it."""
    assert isinstance(source, MemRefType)
    shape = list(source.get_shape())
    kept = [s if s >= 0 else DYNAMIC_INDEX for s in sizes if s != VIEW_INDEX] + shape[len(sizes) :]
    return MemRefType(source.element_type, kept)


def _check_view_entry(dim: int, off: int, size: int, extent: int) -> None:
    if off != VIEW_DYNAMIC and off < 0:
        raise VerifyException(f"view entry {dim}: offset {off} is negative")
    if size not in (VIEW_INDEX, VIEW_DYNAMIC) and size < 0:
        raise VerifyException(f"view entry {dim}: size {size} is negative")
    if extent < 0:
        return
    # A runtime offset is >= 0, so a static size alone can already overrun the dimension.
    lo = 0 if off == VIEW_DYNAMIC else off
    end = lo + (1 if size == VIEW_INDEX else 0 if size == VIEW_DYNAMIC else size)
    if end > extent:
        raise VerifyException(f"view entry {dim} reaches {end}, beyond dimension size {extent}")


def _parse_view_scalar(parser: Parser) -> int | UnresolvedOperand:
    operand = parser.parse_optional_unresolved_operand()
    if operand is not None:
        return operand
    pos = parser.pos
    value = parse_int64(parser, " in a view entry")
    if value < 0:  # would be read as the VIEW_INDEX / VIEW_DYNAMIC markers
        parser.raise_error(f"view offsets and sizes must be >= 0, got {value}", pos, parser.pos)
    return value


def _parse_view_entry(
    parser: Parser,
) -> tuple[int | UnresolvedOperand, int | UnresolvedOperand | None]:
    first = _parse_view_scalar(parser)
    if parser.parse_optional_punctuation(":") is None:
        return first, None
    if parser.parse_optional_punctuation("+") is not None:
        return first, _parse_view_scalar(parser)
    pos = parser.pos
    hi = parse_int64(parser, " (slice end; use off:+size for runtime sizes)")
    if not isinstance(first, int):
        parser.raise_error("a slice lo:hi needs a static lo; use %off:+size", pos, parser.pos)
    if hi < first:
        parser.raise_error(f"slice end {hi} is before its start {first}", pos, parser.pos)
    return first, hi - first


def _print_view_entry(printer: Printer, off: int | SSAValue, size: int | SSAValue | None) -> None:
    def scalar(v: int | SSAValue) -> None:
        if isinstance(v, int):
            printer.print_string(str(v))
        else:
            printer.print_ssa_value(v)

    scalar(off)
    if size is None:
        return
    if isinstance(off, int) and isinstance(size, int):
        printer.print_string(f":{off + size}")
        return
    printer.print_string(":+")
    scalar(size)


# --------------------------------------------------------------------------- definitions


def _parse_signature(
    parser: Parser, with_access: bool
) -> tuple[list[str], list[Attribute], list[str], list[Parser.Argument]]:
    """Parse ``(%a: T, ...)`` (workloads) or ``(a: in T, ...)`` (kernels)."""
    names: list[str] = []
    types: list[Attribute] = []
    access: list[str] = []
    args: list[Parser.Argument] = []

    def one() -> None:
        if with_access:
            names.append(parser.parse_identifier(" for a kernel parameter name"))
            parser.parse_punctuation(":")
            mode = next((m for m in ACCESS_MODES if parser.parse_optional_keyword(m)), "")
            access.append(mode)
            types.append(parser.parse_type())
            return
        arg = parse_typed_argument(parser)
        text = arg.name.text[1:]
        names.append(text if not text.isdigit() else f"arg{len(names)}")
        types.append(arg.type)
        args.append(arg)

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return names, types, access, args


@irdl_op_definition
class WorkloadOp(IRDLOperation):
    """``wsp.workload @name(%arg: T, ...) [level(npu)] { body }``: a workload definition.

    Arguments are axes, tensors (memrefs) and scalars; their names are kept so schedules and
    bindings can refer to them. ``level`` is ``cpu`` (orchestration) or ``npu`` (InCore).
    """

    name = "wsp.workload"

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    arg_names = prop_def(ArrayAttr[StringAttr])
    level = prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedScopes())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        arg_names: Sequence[str],
        level: str = "cpu",
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=arg_types)
            for arg, hint in zip(block.args, arg_names):
                arg.name_hint = hint
            block.add_op(YieldOp())
            body = Region(block)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(list(arg_types), []),
                "arg_names": ArrayAttr([StringAttr(n) for n in arg_names]),
                "level": StringAttr(level),
            },
            regions=[body],
        )

    def arg_index(self, name: str) -> int | None:
        """The position of the argument called ``name``."""
        names = [n.data for n in self.arg_names]
        return names.index(name) if name in names else None

    def verify_(self) -> None:
        _verify_level(self.level.data)
        _verify_arg_names("workload", self.arg_names, self.function_type.inputs.data)
        if self.function_type.outputs.data:
            raise VerifyException("a workload has no results")
        block_types = tuple(a.type for a in self.body.block.args)
        if block_types != tuple(self.function_type.inputs.data):
            raise VerifyException("entry block arguments must match the workload signature")
        if self.level.data == "npu":
            _verify_npu_body(self)

    @classmethod
    def parse(cls, parser: Parser) -> WorkloadOp:
        name = parser.parse_symbol_name().data
        names, types, _, args = _parse_signature(parser, with_access=False)
        level = "cpu"
        if parser.parse_optional_keyword("level"):
            with parser.in_parens():
                level = parser.parse_identifier(" (cpu or npu)")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parse_single_block_region(parser, args)
        _ensure_yield(body)
        op = cls(name, types, names, level, body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for arg, hint in zip(self.body.block.args, self.arg_names.data):
            arg.name_hint = hint.data
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        if self.level.data != "cpu":
            printer.print_string(f" level({self.level.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


def _verify_level(level: str) -> None:
    if level not in LEVELS:
        raise VerifyException(f"level must be one of {', '.join(LEVELS)}, got '{level}'")


def _verify_arg_names(kind: str, names: ArrayAttr[StringAttr], types: Sequence[Attribute]) -> None:
    if len(names) != len(types):
        raise VerifyException(f"{kind} has {len(types)} arguments but {len(names)} names")
    seen: set[str] = set()
    for n in names:
        _check_identifier(f"{kind} argument name", n.data)
        if n.data in seen:
            raise VerifyException(f"{kind} argument name '{n.data}' is used twice")
        seen.add(n.data)


def _verify_npu_body(workload: WorkloadOp) -> None:
    """Seed 000 WorkloadLevel: InCore (npu) code holds no CSP and calls no cpu workload."""
    for op in workload.walk():
        # An unregistered op's own ``name`` is builtin.unregistered; its real name is op_name.
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        if name.startswith("csp."):
            raise VerifyException(
                f"npu-level workload @{workload.sym_name.data} must not contain CSP op {name}"
            )
        if isinstance(op, CallOp):
            callee = resolve_symbol(op, op.callee)
            if isinstance(callee, WorkloadOp) and callee.level.data != "npu":
                raise VerifyException(
                    f"npu-level workload @{workload.sym_name.data} must not call "
                    f"{callee.level.data}-level workload @{callee.sym_name.data}"
                )
            if callee is not None and not isinstance(callee, WorkloadOp):
                raise VerifyException(
                    f"npu-level workload @{workload.sym_name.data} must not call "
                    f"{callee.name} @{op.callee.root_reference.data}"
                )


@irdl_op_definition
class KernelOp(IRDLOperation):
    """``wsp.kernel @k(b: index, Q: in memref<..>, O: out memref<..>) unit(vector) cost(64)``.

    Declares a kernel once: its signature, the access of each tensor parameter, the execution
    unit and an optional cost in cycles — a constant, or a ``cost { ... wsp.yield %c : index }``
    region whose block arguments are the kernel's parameters. ``impls`` tells each target
    where the body is (``{cpu_sim = "pkg.mod:fn", aie = "k.o", ascend = "k.cpp"}``).
    """

    name = "wsp.kernel"

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    arg_names = prop_def(ArrayAttr[StringAttr])
    access = prop_def(ArrayAttr[StringAttr])
    exec_unit = prop_def(StringAttr)
    cost = opt_prop_def(IntegerAttr[IntegerType])
    impls = opt_prop_def(DictionaryAttr)
    instance_of = opt_prop_def(StringAttr)
    #: The kernel's tile function (``{tile = @f}``): an InCore ``func.func`` of the module
    #: taking the kernel's parameters; every target uses it as the kernel's body.
    tile = opt_prop_def(SymbolRefAttr)
    cost_region = region_def()

    traits = traits_def(SymbolOpInterface(), IsolatedScopes())

    def __init__(
        self,
        name: str,
        arg_names: Sequence[str],
        arg_types: Sequence[Attribute],
        access: Sequence[str],
        exec_unit: str = "vector",
        cost: int | None = None,
        cost_region: Region | None = None,
        impls: dict[str, str] | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(list(arg_types), []),
            "arg_names": ArrayAttr([StringAttr(n) for n in arg_names]),
            "access": ArrayAttr([StringAttr(a) for a in access]),
            "exec_unit": StringAttr(exec_unit),
        }
        if cost is not None:
            props["cost"] = IntegerAttr(cost, i64)
        if impls:
            props["impls"] = DictionaryAttr({k: StringAttr(v) for k, v in impls.items()})
        super().__init__(properties=props, regions=[cost_region or Region()])

    @property
    def param_types(self) -> list[Attribute]:
        """Types of the scalar parameters, in order."""
        return [t for t, a in zip(self.function_type.inputs, self.access) if not a.data]

    @property
    def resource_types(self) -> list[Attribute]:
        """Types of the tensor parameters, in order."""
        return [t for t, a in zip(self.function_type.inputs, self.access) if a.data]

    def verify_(self) -> None:
        types = self.function_type.inputs.data
        _verify_arg_names("kernel", self.arg_names, types)
        if len(self.access) != len(types):
            raise VerifyException("kernel needs one access entry per parameter")
        for name, type_, acc in zip(self.arg_names, types, self.access):
            _verify_kernel_param(name.data, type_, acc.data)
        if self.exec_unit.data not in EXEC_UNITS:
            raise VerifyException(
                f"exec unit must be one of {', '.join(EXEC_UNITS)}, got '{self.exec_unit.data}'"
            )
        if self.cost is not None and self.cost.value.data < 0:
            raise VerifyException(f"kernel cost must be >= 0, got {self.cost.value.data}")
        if self.cost is not None and self.cost_region.blocks:
            raise VerifyException("a kernel has a constant cost or a cost region, not both")
        if len(self.cost_region.blocks) > 1:
            raise VerifyException("a kernel's cost region must have a single block")
        if self.impls is not None:
            _verify_impls(self.impls)
        if self.cost_region.blocks:
            args = tuple(a.type for a in self.cost_region.block.args)
            if args != tuple(types):
                raise VerifyException("cost region arguments must match the kernel parameters")
        if self.tile is not None:
            self._verify_tile()

    def _verify_tile(self) -> None:
        """The tile function exists, is InCore, takes the kernel's parameters and uses only
        values defined before their use (xDSL's func.func does not check it)."""
        # (here: a module without tile functions does not load the pto dialect)
        from pto_wsp.dialects.pto import func_type

        name = self.tile.string_value()
        module = self.parent_op()
        if module is None:
            return  # (a detached kernel: checked once it stands in a module)
        function = SymbolTable.lookup_symbol(module, self.tile)
        if not isinstance(function, FuncOp):
            raise VerifyException(
                f"kernel's tile function @{name} is not a func.func of the module"
            )
        if func_type(function) != "incore":
            raise VerifyException(
                f"kernel's tile function @{name} must be InCore "
                f"(attributes {{pto.func_type = #pto.func_type<incore>}})"
            )
        inputs = function.function_type.inputs.data
        if inputs != self.function_type.inputs.data or function.function_type.outputs.data:
            raise VerifyException(
                f"kernel's tile function @{name} must take the kernel's parameters "
                f"({', '.join(map(str, self.function_type.inputs.data))}) and return nothing, "
                f"got {function.function_type}"
            )
        check_scopes(function)

    def tile_function(self) -> FuncOp | None:
        """The kernel's tile function (``{tile = @f}``), or None for an opaque kernel."""
        if self.tile is None or self.parent_op() is None:
            return None
        function = SymbolTable.lookup_symbol(self.parent_op(), self.tile)
        return function if isinstance(function, FuncOp) else None

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name = parser.parse_symbol_name().data
        names, types, access, _ = _parse_signature(parser, with_access=True)
        unit = "vector"
        if parser.parse_optional_keyword("unit"):
            with parser.in_parens():
                unit = parser.parse_identifier(" (vector or cube)")
        cost, region = None, None
        if parser.parse_optional_keyword("cost"):
            if parser.parse_optional_punctuation("(") is not None:
                cost = parse_int64(parser)
                parser.parse_punctuation(")")
            else:
                pos = parser.pos
                region = parse_single_block_region(parser)
                if not region.blocks:  # would silently mean "no cost"
                    parser.raise_error("a cost region must yield the cost", pos, parser.pos)
        attrs_pos = parser.pos
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, names, types, access, unit, cost, region)
        if attrs is not None:
            impls = attrs.data.get("impls")
            if impls is not None and not isinstance(impls, DictionaryAttr):
                parser.raise_error(
                    'impls must be a dictionary {target = "where"}', attrs_pos, parser.pos
                )
            if impls is not None:
                op.impls = impls
            source = attrs.data.get("instance_of")
            if source is not None and not isinstance(source, StringAttr):
                parser.raise_error(
                    'instance_of is the generic kernel\'s name, a string ("scale")',
                    attrs_pos,
                    parser.pos,
                )
            if source is not None:
                op.instance_of = source
            tile = attrs.data.get("tile")
            if tile is not None and not isinstance(tile, SymbolRefAttr):
                parser.raise_error(
                    "tile is the kernel's tile function, a symbol (@f)", attrs_pos, parser.pos
                )
            if tile is not None:
                op.tile = tile
            keep = {
                k: v for k, v in attrs.data.items() if k not in ("impls", "instance_of", "tile")
            }
            op.attributes |= keep
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")

        def param(item: tuple[StringAttr, Attribute, StringAttr]) -> None:
            name, type_, acc = item
            printer.print_string(f"{name.data}: " + (f"{acc.data} " if acc.data else ""))
            printer.print_attribute(type_)

        printer.print_list(zip(self.arg_names, self.function_type.inputs, self.access), param)
        printer.print_string(f") unit({self.exec_unit.data})")
        if self.cost is not None:
            printer.print_string(f" cost({self.cost.value.data})")
        if self.cost_region.blocks:
            printer.print_string(" cost ")
            printer.print_region(self.cost_region, print_entry_block_args=True)
        extra = dict(self.attributes)
        if self.impls is not None:
            extra["impls"] = self.impls
        if self.instance_of is not None:
            extra["instance_of"] = self.instance_of
        if self.tile is not None:
            extra["tile"] = self.tile
        printer.print_op_attributes(extra, print_keyword=True)


#: Targets a kernel's ``impls`` may name a body for.
KERNEL_TARGETS = ("cpu_sim", "aie", "ascend")


def _verify_impls(impls: DictionaryAttr) -> None:
    for target, where in impls.data.items():
        if target not in KERNEL_TARGETS:
            raise VerifyException(
                f"impls names unknown target '{target}' (targets: {', '.join(KERNEL_TARGETS)})"
            )
        if not isinstance(where, StringAttr):
            raise VerifyException(f"impls entry '{target}' must be a string, got {where}")


def _verify_kernel_param(name: str, type_: Attribute, access: str) -> None:
    if isinstance(type_, MemRefType):
        if access not in ACCESS_MODES:
            raise VerifyException(
                f"tensor parameter '{name}' needs an access mode (in, out or inout)"
            )
    elif access:
        raise VerifyException(f"scalar parameter '{name}' cannot have access mode '{access}'")
    elif type_ not in SCALAR_TYPES:
        raise VerifyException(
            f"scalar parameter '{name}' must be one of "
            f"{', '.join(map(str, SCALAR_TYPES))}, got {type_}"
        )


# --------------------------------------------------------------------------- loops


class _LoopOp(IRDLOperation):
    """Shared shape of parallel_for and for_each: an axis and a body binding named indices."""

    axis = operand_def()
    names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(
        self, axis: SSAValue | Operation, names: Sequence[str], body: Region | None = None
    ):
        axis_val = SSAValue.get(axis)
        if body is None:
            block = Block(arg_types=[IndexType()] * loop_index_count(axis_val.type))
            for arg, hint in zip(block.args, names):
                arg.name_hint = hint
            block.add_op(YieldOp())
            body = Region(block)
        super().__init__(
            operands=[axis_val],
            properties={"names": ArrayAttr([StringAttr(n) for n in names])},
            regions=[body],
        )

    @property
    def indices(self) -> tuple[SSAValue, ...]:
        """The loop's index block arguments."""
        return self.body.block.args

    def verify_(self) -> None:
        if not isinstance(self.axis.type, AXIS_TYPES):
            raise VerifyException(f"{self.name} iterates an axis, got {self.axis.type}")
        _verify_indices(
            self.name,
            str(self.axis.type),
            loop_index_count(self.axis.type),
            self.body.block,
            self.names,
        )

    @classmethod
    def parse(cls, parser: Parser):
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_keyword("in")
        axis = parser.parse_unresolved_operand()
        names = [a.name.text[1:] for a in indices]
        if parser.parse_optional_keyword("named"):
            names = _parse_names(parser)
        parser.parse_punctuation(":")
        axis_type = parser.parse_type()
        body = parse_single_block_region(parser, [a.resolve(IndexType()) for a in indices])
        _ensure_yield(body)
        op = cls(parser.resolve_operand(axis, axis_type), names, body)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.body.block.args, printer.print_ssa_value)
        printer.print_string(" in ")
        printer.print_ssa_value(self.axis)
        printer.print_string(" named")
        _print_names(printer, self.names)
        printer.print_string(" : ")
        printer.print_attribute(self.axis.type)
        printer.print_string(" ")
        _print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _verify_indices(op_name: str, what: str, want: int, block: Block, names: ArrayAttr) -> None:
    if len(block.args) != want:
        raise VerifyException(
            f"{op_name} over {what} binds {want} index argument(s), got {len(block.args)}"
        )
    for arg in block.args:
        if not isinstance(arg.type, IndexType):
            raise VerifyException(f"{op_name} index arguments must be index, got {arg.type}")
    if len(names) != want:
        raise VerifyException(f"{op_name} needs {want} index name(s), got {len(names)}")
    for n in names:
        _check_identifier("index name", n.data)


@irdl_op_definition
class ParallelForOp(_LoopOp):
    """``wsp.parallel_for %b in %axis named("b") : !wsp.dense<4> { ... }``: independent iterations.

    Over a Ragged or Sparse axis the body binds two indices, row and j.
    """

    name = "wsp.parallel_for"


@irdl_op_definition
class ForEachOp(_LoopOp):
    """``wsp.for_each %i in %axis named("i") : T { ... }``: iteration i+1 after all of iteration i."""

    name = "wsp.for_each"


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``wsp.select %e in %sparse[%row] named("e") : !wsp.sparse { ... }``: one CSR row.

    The body runs for each column index ``e`` stored in row ``%row`` (no order among them).
    """

    name = "wsp.select"

    sparse = operand_def()
    row = operand_def(IndexType)
    names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(
        self,
        sparse: SSAValue | Operation,
        row: SSAValue | Operation,
        name: str,
        body: Region | None = None,
    ):
        if body is None:
            block = Block(arg_types=[IndexType()])
            block.args[0].name_hint = name
            block.add_op(YieldOp())
            body = Region(block)
        super().__init__(
            operands=[sparse, row],
            properties={"names": ArrayAttr([StringAttr(name)])},
            regions=[body],
        )

    def verify_(self) -> None:
        if not isinstance(self.sparse.type, SparseAxisType):
            raise VerifyException(f"wsp.select takes a Sparse axis, got {self.sparse.type}")
        _verify_indices(self.name, "one CSR row", 1, self.body.block, self.names)

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        index = parser.parse_argument(expect_type=False)
        parser.parse_keyword("in")
        sparse = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        row = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        names = [index.name.text[1:]]
        if parser.parse_optional_keyword("named"):
            names = _parse_names(parser)
        parser.parse_punctuation(":")
        sparse_type = parser.parse_type()
        body = parse_single_block_region(parser, [index.resolve(IndexType())])
        _ensure_yield(body)
        op = cls(
            parser.resolve_operand(sparse, sparse_type),
            parser.resolve_operand(row, IndexType()),
            index.name.text[1:],
            body,
        )
        # ``named()`` may list no name or several: the verifier says so, at the op.
        op.names = ArrayAttr([StringAttr(n) for n in names])
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.body.block.args[0])
        printer.print_string(" in ")
        printer.print_ssa_value(self.sparse)
        printer.print_string("[")
        printer.print_ssa_value(self.row)
        printer.print_string("] named")
        _print_names(printer, self.names)
        printer.print_string(" : ")
        printer.print_attribute(self.sparse.type)
        printer.print_string(" ")
        _print_body(printer, self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)


# --------------------------------------------------------------------------- structure


@irdl_op_definition
class CondOp(IRDLOperation):
    """``wsp.cond %p { then } else { else }``: only the taken branch creates tasks."""

    name = "wsp.cond"

    predicate = operand_def(i1)
    then_region = region_def("single_block")
    else_region = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(
        self,
        predicate: SSAValue | Operation,
        then_region: Region | None = None,
        else_region: Region | None = None,
    ):
        regions = [then_region or Region(Block()), else_region or Region(Block())]
        for region in regions:
            _ensure_yield(region)
        super().__init__(operands=[predicate], regions=regions)

    @classmethod
    def parse(cls, parser: Parser) -> CondOp:
        pred = parser.parse_operand(i1)
        then_region = parse_single_block_region(parser)
        else_region = None
        if parser.parse_optional_keyword("else"):
            else_region = parse_single_block_region(parser)
        op = cls(pred, then_region, else_region)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.predicate)
        printer.print_string(" ")
        _print_body(printer, self.then_region)
        if len(self.else_region.block.ops) > 1:
            printer.print_string(" else ")
            _print_body(printer, self.else_region)
        printer.print_op_attributes(self.attributes, print_keyword=True)


class _GroupOp(IRDLOperation):
    """Shared shape of combine and sequential: one block of child workloads."""

    body = region_def("single_block")

    traits = traits_def(WorkloadExpr())

    def __init__(self, body: Region | None = None):
        body = body or Region(Block())
        _ensure_yield(body)
        super().__init__(regions=[body])

    def children(self) -> list[Operation]:
        """The child workload expressions, in order."""
        return [op for op in self.body.block.ops if op.has_trait(WorkloadExpr)]

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
class CombineOp(_GroupOp):
    """``wsp.combine { w1 w2 ... }``: all children run; no order among them."""

    name = "wsp.combine"


@irdl_op_definition
class SequentialOp(_GroupOp):
    """``wsp.sequential { w1 w2 ... }``: child k+1 runs after all tasks of child k."""

    name = "wsp.sequential"


# --------------------------------------------------------------------------- leaves


def _parse_typed_group(parser: Parser) -> list[SSAValue]:
    """``(%a, %b : T1, T2)`` or ``()``."""
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    pos = parser.pos
    operands = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(operands, types, pos)


def _print_typed_group(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    if values:
        printer.print_list(values, printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


@irdl_op_definition
class TaskOp(IRDLOperation):
    """``wsp.task @k(%b : index) resources(%q, %o : T1, T2)``: one kernel invocation.

    ``params`` go to the kernel's scalar parameters in order, ``resources`` (views) to its
    tensor parameters in order; the kernel's access modes say which are read and written.
    """

    name = "wsp.task"

    kernel = prop_def(FlatSymbolRefAttr)
    params = var_operand_def()
    resources = var_operand_def(MemRefType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(WorkloadExpr())

    def __init__(
        self,
        kernel: str | SymbolRefAttr,
        params: Sequence[SSAValue | Operation],
        resources: Sequence[SSAValue | Operation],
    ):
        ref = SymbolRefAttr(kernel) if isinstance(kernel, str) else kernel
        super().__init__(operands=[params, resources], properties={"kernel": ref})

    def verify_(self) -> None:
        kernel = resolve_symbol(self, self.kernel)
        name = self.kernel.root_reference.data
        if not isinstance(kernel, KernelOp):
            raise VerifyException(f"task refers to unknown kernel @{name}")
        _match_args(f"kernel @{name}", "parameter", kernel.param_types, self.params)
        _match_args(f"kernel @{name}", "resource", kernel.resource_types, self.resources)

    @classmethod
    def parse(cls, parser: Parser) -> TaskOp:
        kernel = parser.parse_symbol_name().data
        params = _parse_typed_group(parser)
        parser.parse_keyword("resources")
        resources = _parse_typed_group(parser)
        op = cls(kernel, params, resources)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.kernel.root_reference.data)
        _print_typed_group(printer, self.params)
        printer.print_string(" resources")
        _print_typed_group(printer, self.resources)
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _match_args(
    callee: str, what: str, expected: Sequence[Attribute], actual: Sequence[SSAValue]
) -> None:
    if len(expected) != len(actual):
        raise VerifyException(f"{callee} takes {len(expected)} {what}(s), got {len(actual)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not _shapes_compatible(e, a.type):
            raise VerifyException(f"{what} #{i} of {callee} must be {e}, got {a.type}")


@irdl_op_definition
class CallOp(IRDLOperation):
    """``wsp.call @callee(%b, %q : index, memref<..>) [schedule(@s)]``: a cross-level call.

    Runs another workload (typically an npu-level InCore workload from a cpu-level one) with
    its arguments bound; ``schedule`` overrides the callee's schedule.
    """

    name = "wsp.call"

    callee = prop_def(FlatSymbolRefAttr)
    schedule = opt_prop_def(FlatSymbolRefAttr)
    args = var_operand_def()

    traits = traits_def(WorkloadExpr())

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        schedule: str | SymbolRefAttr | None = None,
    ):
        props: dict[str, Attribute] = {
            "callee": SymbolRefAttr(callee) if isinstance(callee, str) else callee
        }
        if schedule is not None:
            props["schedule"] = SymbolRefAttr(schedule) if isinstance(schedule, str) else schedule
        super().__init__(operands=[args], properties=props)

    def verify_(self) -> None:
        name = self.callee.root_reference.data
        callee = resolve_symbol(self, self.callee)
        if not isinstance(callee, WorkloadOp):
            raise VerifyException(f"call refers to unknown workload @{name}")
        _match_args(f"workload @{name}", "argument", callee.function_type.inputs.data, self.args)
        if self.schedule is None:
            return
        sched_name = self.schedule.root_reference.data
        sched = resolve_symbol(self, self.schedule)
        if sched is None or sched.name != "sched.schedule":
            raise VerifyException(f"call refers to unknown schedule @{sched_name}")
        target = sched.properties.get("workload")
        if not isinstance(target, SymbolRefAttr) or target.root_reference.data != name:
            raise VerifyException(f"schedule @{sched_name} is not a schedule for @{name}")

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_symbol_name().data
        args = _parse_typed_group(parser)
        schedule = None
        if parser.parse_optional_keyword("schedule"):
            with parser.in_parens():
                schedule = parser.parse_symbol_name().data
        op = cls(callee, args, schedule)
        op.attributes |= _parse_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.root_reference.data)
        _print_typed_group(printer, self.args)
        if self.schedule is not None:
            printer.print_string(" schedule(")
            printer.print_symbol_name(self.schedule.root_reference.data)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)


# Streams and events of ordinary workloads: their own module (it imports this one).
from pto_wsp.dialects.wsp_events import EVENT_OPS  # noqa: E402

WSP = Dialect(
    "wsp",
    [
        *EVENT_OPS,
        YieldOp,
        DenseOp,
        DenseDynOp,
        RaggedOp,
        SparseOp,
        ViewOp,
        WorkloadOp,
        KernelOp,
        ParallelForOp,
        ForEachOp,
        SelectOp,
        CondOp,
        CombineOp,
        SequentialOp,
        TaskOp,
        CallOp,
    ],
    [DenseAxisType, DenseDynAxisType, RaggedAxisType, SparseAxisType, TaskType],
)
