"""The ``pto`` dialect: kernels as tile programs (seed 003, PyPTO's InCore IR, in MLIR form).

A tile is an on-chip buffer of a static 2-d (or 1-d) shape in one memory space of an AICore:
``!pto.tile<64x64xf32, vec>``. Ops load tiles from global memory (memrefs), compute on them
with value semantics (every op makes a new tile: memory planning assigns buffers later),
move them between memory spaces, store them back, and synchronize the core's pipes.
Control flow and scalar expressions are upstream's (``scf``, ``arith``); functions are
``func.func`` marked with ``#pto.func_type<...>``; InCore regions inside orchestration
code are ``pto.incore_scope`` ops, outlined by ``pto-outline-incore-scopes``.
docs/kernels.md is the reference: every op, the memory-space rules and their sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import (
    Attribute,
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
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from .parsing import INT64_MAX, parse_int64

# --------------------------------------------------------------------------- spaces and kinds

#: Memory spaces of an AICore (PyPTO's MemorySpace; pto-isa's TileType locations).
SPACES = ("vec", "mat", "left", "right", "acc", "bias")
#: Seed 003's MemRef names for the same buffers (Ascend's hardware names), read as aliases.
SPACE_ALIASES = {"UB": "vec", "L1": "mat", "L0A": "left", "L0B": "right", "L0C": "acc"}
#: Pipes of an AICore: scalar, vector, matrix (cube), the three transfer engines, fixpipe.
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL")
#: Event ids a set_flag/wait_flag pair may use (EVENT_ID0..7 on Ascend AICores).
EVENT_IDS = 8
FUNC_TYPES = ("opaque", "orchestration", "incore")
#: The discardable attribute of a ``func.func`` that holds its ``#pto.func_type``.
FUNC_TYPE_ATTR = "pto.func_type"
PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")

#: Spaces a tile may be loaded into from global memory and stored from (pto-isa TLOAD/TSTORE).
LOAD_SPACES = ("vec", "mat")
STORE_SPACES = ("vec", "mat", "acc")
#: Legal on-chip moves, source -> destinations (pto-isa TMOV: Vec->Vec, Mat->Left/Right/Bias,
#: Acc->Mat/Vec; PyPTO tile.move/extract use the same paths).
MOVES = {
    "vec": ("vec",),
    "mat": ("left", "right", "bias"),
    "acc": ("mat", "vec"),
}
#: Matmul element types: (left, right) -> accumulator (pto-isa TMATMUL on A2/A3).
MATMUL_TYPES = {
    ("f16", "f16"): "f32",
    ("bf16", "bf16"): "f32",
    ("f32", "f32"): "f32",
    ("i8", "i8"): "i32",
}

ELEMENT_TYPES = ("f16", "bf16", "f32", "i1", "i8", "i16", "i32", "i64")


def type_name(t: Attribute) -> str:
    """The short MLIR spelling of an element type (``f32``, ``i8``), '' for others."""
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, IntegerType) and t.signedness.data.name == "SIGNLESS":
        return f"i{t.width.data}"
    return ""


def is_float(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type | Float32Type)


# --------------------------------------------------------------------------- attributes and types


class _KeywordAttr(ParametrizedAttribute):
    """An attribute holding one keyword of a fixed set: ``#pto.pipe<MTE2>``."""

    value: StringAttr
    KEYWORDS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, value: str | StringAttr):
        super().__init__(StringAttr(value) if isinstance(value, str) else value)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parse_keyword(parser, cls.KEYWORDS, cls.name)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.value.data)

    def verify(self) -> None:
        if self.value.data not in self.KEYWORDS:
            raise VerifyException(
                f"#{self.name} is one of {', '.join(self.KEYWORDS)}, got '{self.value.data}'"
            )


def parse_keyword(parser: AttrParser, keywords: Sequence[str], what: str) -> str:
    """One of ``keywords``, else a located parse error listing them."""
    start = parser.pos
    word = parser.parse_optional_identifier()
    if word not in keywords:
        parser.raise_error(f"expected {what}: one of {', '.join(keywords)}", start, parser.pos)
    return word


@irdl_attr_definition
class PipeAttr(_KeywordAttr):
    """A pipe of an AICore (seed 003 PipeType): S, V, M, MTE1, MTE2, MTE3, FIX or ALL."""

    name = "pto.pipe"
    KEYWORDS = PIPES


@irdl_attr_definition
class FuncTypeAttr(_KeywordAttr):
    """What a ``func.func`` is (seed 003 FunctionType): opaque, orchestration or incore."""

    name = "pto.func_type"
    KEYWORDS = FUNC_TYPES


def _ints(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """A tile: static shape, element type, memory space, optional valid shape and view.

    ``!pto.tile<64x64xf32, vec, valid = [?, 64], strides = [128, 1], offset = 0>``. The valid
    shape (``?`` for a runtime size) bounds the elements that hold data; an empty one means
    the whole tile. Strides and offset (the seed's TileView) place it inside a larger buffer.
    """

    name = "pto.tile"

    shape: DenseArrayBase
    element_type: Attribute
    space: StringAttr
    valid: DenseArrayBase
    strides: DenseArrayBase
    offset: IntAttr

    def __init__(
        self,
        shape: Sequence[int],
        element_type: Attribute,
        space: str = "vec",
        valid: Sequence[int] = (),
        strides: Sequence[int] = (),
        offset: int = 0,
    ):
        if tuple(valid) == tuple(shape):
            valid = ()
        super().__init__(
            _ints(shape),
            element_type,
            StringAttr(space),
            _ints(valid),
            _ints(strides),
            IntAttr(offset),
        )

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.shape.get_values())

    @property
    def valid_dims(self) -> tuple[int, ...]:
        """The valid shape, ``DYNAMIC_INDEX`` for ``?``; the shape when none is given."""
        return tuple(self.valid.get_values()) or self.dims

    @property
    def dynamic_valid_count(self) -> int:
        return sum(1 for d in self.valid_dims if d == DYNAMIC_INDEX)

    @property
    def space_name(self) -> str:
        return self.space.data

    @property
    def rank(self) -> int:
        return len(self.dims)

    def with_(self, **changes) -> TileType:
        """This type with some of its constructor arguments changed."""
        args = dict(
            shape=self.dims,
            element_type=self.element_type,
            space=self.space_name,
            valid=self.valid_dims,
            strides=tuple(self.strides.get_values()),
            offset=self.offset.data,
        )
        args.update(changes)
        return TileType(**args)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            shape, element_type = parser.parse_ranked_shape()
            if DYNAMIC_INDEX in shape:
                parser.raise_error(
                    "a tile's shape is static (a runtime size goes in its valid shape)",
                    start,
                    parser.pos,
                )
            if any(d > INT64_MAX for d in shape):
                parser.raise_error(
                    "a tile size does not fit in 64 bits (signed)", start, parser.pos
                )
            parser.parse_punctuation(",")
            space = parse_keyword(parser, SPACES + tuple(SPACE_ALIASES), "a memory space")
            space = SPACE_ALIASES.get(space, space)
            extra = {"valid": [], "strides": [], "offset": 0}
            keys = list(extra)
            while parser.parse_optional_punctuation(",") is not None:
                at = parser.pos
                key = parser.parse_optional_identifier()
                if key not in keys:
                    parser.raise_error(
                        "expected valid, strides or offset: each at most once, in this order",
                        at,
                        parser.pos,
                    )
                keys = keys[keys.index(key) + 1 :]
                parser.parse_punctuation("=")
                if key == "offset":
                    extra[key] = parse_int64(parser)
                else:
                    one = (
                        parser.parse_shape_dimension
                        if key == "valid"
                        else partial(parse_int64, parser)
                    )
                    extra[key] = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
            if any(d > INT64_MAX for d in extra["valid"]):
                parser.raise_error(
                    "a tile size does not fit in 64 bits (signed)", start, parser.pos
                )
            valid = () if tuple(extra["valid"]) == tuple(shape) else extra["valid"]
            params = (
                _ints(shape),
                element_type,
                StringAttr(space),
                _ints(valid),
                _ints(extra["strides"]),
                IntAttr(extra["offset"]),
            )
            try:
                cls.new(params).verify()
            except VerifyException as error:
                parser.raise_error(str(error), start, parser.pos)
        return params

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("x".join(str(d) for d in self.dims) + "x")
            printer.print_attribute(self.element_type)
            printer.print_string(f", {self.space_name}")
            if self.valid.get_values():
                dims = ("?" if d == DYNAMIC_INDEX else str(d) for d in self.valid_dims)
                printer.print_string(f", valid = [{', '.join(dims)}]")
            if self.strides.get_values():
                printer.print_string(f", strides = {list(self.strides.get_values())}")
            if self.offset.data:
                printer.print_string(f", offset = {self.offset.data}")

    def verify(self) -> None:
        dims = self.dims
        if not dims or any(d <= 0 for d in dims):
            raise VerifyException(f"a tile's shape is one or more sizes > 0, got {list(dims)}")
        if type_name(self.element_type) not in ELEMENT_TYPES:
            raise VerifyException(
                f"a tile's element type is one of {', '.join(ELEMENT_TYPES)}, "
                f"got {self.element_type}"
            )
        if self.space_name not in SPACES:
            raise VerifyException(f"a tile's memory space is one of {', '.join(SPACES)}")
        valid = self.valid.get_values()
        if valid and len(valid) != len(dims):
            raise VerifyException(f"the valid shape has rank {len(valid)}, the tile {len(dims)}")
        for v, d in zip(valid, dims):
            if v != DYNAMIC_INDEX and not 0 <= v <= d:
                raise VerifyException(
                    f"valid shape {self._dims_text(valid)} exceeds the tile's shape {list(dims)}"
                )
        strides = self.strides.get_values()
        if strides and (len(strides) != len(dims) or any(s <= 0 for s in strides)):
            raise VerifyException(
                f"a tile's strides are {len(dims)} sizes > 0, got {list(strides)}"
            )
        if self.offset.data < 0:
            raise VerifyException(f"a tile's offset is >= 0, got {self.offset.data}")

    @staticmethod
    def _dims_text(dims: Sequence[int]) -> str:
        return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in dims) + "]"


# --------------------------------------------------------------------------- op helpers


def tile(value_or_type) -> TileType:
    t = getattr(value_or_type, "type", value_or_type)
    assert isinstance(t, TileType)
    return t


def need_space(what: str, t: TileType, spaces: Sequence[str]) -> None:
    if t.space_name not in spaces:
        raise VerifyException(
            f"{what} must be in {' or '.join(spaces)}, got a tile in {t.space_name}".replace(
                " or ", ", ", len(spaces) - 2
            )
        )


def need_rank2(what: str, t: TileType) -> None:
    if t.rank != 2:
        raise VerifyException(f"{what} must be a 2-d tile, got {list(t.dims)}")


def check_valid_operands(op: Operation, t: TileType, count: int) -> None:
    """The op gives one index operand per ``?`` of the valid shape of the tile it makes."""
    if count != t.dynamic_valid_count:
        raise VerifyException(
            f"{count} valid-shape operands for {t.dynamic_valid_count} '?' in the valid "
            f"shape of {t}"
        )


class _TileOp(IRDLOperation):
    """Base of the tile-producing compute ops: value semantics, no side effect."""

    traits = traits_def(Pure())


class _ConvertOp(_TileOp):
    """One tile in, one tile out, both types written: ``%r = pto.x %t : A -> B``."""

    input = operand_def(TileType)
    result = result_def(TileType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, result_type: TileType):
        super().__init__(operands=[input], result_types=[result_type])


# --------------------------------------------------------------------------- memory ops


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Read a tile from a global view (memref) at index offsets into vec or mat."""

    name = "pto.load"
    source = operand_def(MemRefType)
    offsets = var_operand_def(IndexType)
    valid_sizes = var_operand_def(IndexType)
    result = result_def(TileType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$source (`[` $offsets^ `]`)? (`valid` `(` $valid_sizes^ `)`)? attr-dict"
        " `:` type($source) `->` type($result)"
    )

    def __init__(self, source: SSAValue, result_type: TileType, offsets=(), valid_sizes=()):
        super().__init__(operands=[source, offsets, valid_sizes], result_types=[result_type])

    def verify_(self) -> None:
        t = tile(self.result)
        need_space("a loaded tile", t, LOAD_SPACES)
        check_view(self.source.type, t, len(self.offsets), "load")
        check_valid_operands(self, t, len(self.valid_sizes))


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Write a tile's valid region to a global view (memref) at index offsets."""

    name = "pto.store"
    value = operand_def(TileType)
    dest = operand_def(MemRefType)
    offsets = var_operand_def(IndexType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "$value `,` $dest (`[` $offsets^ `]`)? attr-dict `:` type($value) `,` type($dest)"
    )

    def __init__(self, value: SSAValue, dest: SSAValue, offsets=()):
        super().__init__(operands=[value, dest, offsets])

    def verify_(self) -> None:
        t = tile(self.value)
        need_space("a stored tile", t, STORE_SPACES)
        check_view(self.dest.type, t, len(self.offsets), "store")


def check_view(view: Attribute, t: TileType, offsets: int, verb: str) -> None:
    """A tile's trailing dimensions address a global view of the same element type."""
    assert isinstance(view, MemRefType)
    shape = view.get_shape()
    if view.element_type != t.element_type:
        raise VerifyException(
            f"{verb}: the view holds {view.element_type}, the tile {t.element_type}"
        )
    if offsets not in (0, len(shape)):
        raise VerifyException(f"{verb}: {offsets} offsets for a view of rank {len(shape)}")
    if t.rank > len(shape):
        raise VerifyException(f"{verb}: a tile of rank {t.rank} in a view of rank {len(shape)}")
    if offsets == 0:
        for v, d in zip(t.valid_dims, shape[len(shape) - t.rank :]):
            if d != DYNAMIC_INDEX and v != DYNAMIC_INDEX and v > d:
                raise VerifyException(
                    f"{verb}: the tile's valid shape {TileType._dims_text(t.valid_dims)} "
                    f"exceeds the view {view}"
                )


@irdl_op_definition
class MoveOp(_ConvertOp):
    """Copy a tile to another memory space, along the paths the hardware has."""

    name = "pto.move"

    def __init__(self, input: SSAValue, space: str):
        """The tile in ``space``, in a dense buffer of its own."""
        super().__init__(input, tile(input).with_(space=space, strides=(), offset=0))

    def verify_(self) -> None:
        src, dst = tile(self.input), tile(self.result)
        if src.dims != dst.dims or src.element_type != dst.element_type:
            raise VerifyException("a move keeps the shape and element type")
        if dst.space_name not in MOVES.get(src.space_name, ()):
            legal = ", ".join(f"{s} -> {d}" for s, ds in MOVES.items() for d in ds)
            raise VerifyException(
                f"no move from {src.space_name} to {dst.space_name} (legal: {legal})"
            )


@irdl_op_definition
class AllocOp(_TileOp):
    """A tile with undefined contents (PyPTO tile.create)."""

    name = "pto.alloc"
    valid_sizes = var_operand_def(IndexType)
    result = result_def(TileType)
    assembly_format = "(`valid` `(` $valid_sizes^ `)`)? attr-dict `:` type($result)"

    def __init__(self, result_type: TileType, valid_sizes=()):
        super().__init__(operands=[valid_sizes], result_types=[result_type])

    def verify_(self) -> None:
        check_valid_operands(self, tile(self.result), len(self.valid_sizes))


@irdl_op_definition
class FullOp(_TileOp):
    """A vec tile with every element equal to a scalar."""

    name = "pto.full"
    value = operand_def()
    valid_sizes = var_operand_def(IndexType)
    result = result_def(TileType)
    assembly_format = (
        "$value (`valid` `(` $valid_sizes^ `)`)? attr-dict `:` type($value) `->` type($result)"
    )

    def __init__(self, value: SSAValue, result_type: TileType, valid_sizes=()):
        super().__init__(operands=[value, valid_sizes], result_types=[result_type])

    def verify_(self) -> None:
        t = tile(self.result)
        need_space("the tile", t, ("vec",))
        check_scalar(self.value.type, t)
        check_valid_operands(self, t, len(self.valid_sizes))


def check_scalar(scalar: Attribute, t: TileType) -> None:
    if scalar != t.element_type:
        raise VerifyException(f"the scalar is {scalar}, the tile holds {t.element_type}")


@irdl_op_definition
class FillPadOp(_TileOp):
    """The tile with the elements past its valid shape set to a scalar; valid is then whole."""

    name = "pto.fillpad"
    input = operand_def(TileType)
    value = operand_def()
    result = result_def(TileType)
    assembly_format = (
        "$input `,` $value attr-dict `:` type($input) `,` type($value) `->` type($result)"
    )

    def __init__(self, input: SSAValue, value: SSAValue):
        t = tile(input)
        super().__init__(operands=[input, value], result_types=[t.with_(valid=t.dims)])

    def verify_(self) -> None:
        src, dst = tile(self.input), tile(self.result)
        need_space("the tile", src, ("vec",))
        check_scalar(self.value.type, src)
        if dst != src.with_(valid=src.dims):
            raise VerifyException(f"pto.fillpad gives {src.with_(valid=src.dims)}, not {dst}")


# --------------------------------------------------------------------------- elementwise


class _ElementwiseOp(_TileOp):
    """Operands and result share one vec tile type."""

    T: ClassVar = VarConstraint("T", base(TileType))
    #: Element types the op computes on: '' numbers (not i1 masks), 'float' floats only.
    DOMAIN: ClassVar[str] = ""

    def verify_(self) -> None:
        t = tile(self.result)
        need_space("the operands", t, ("vec",))
        name = type_name(t.element_type)
        if name == "i1" or (self.DOMAIN == "float" and not is_float(t.element_type)):
            kind = "floats" if self.DOMAIN == "float" else "numbers"
            raise VerifyException(f"{self.name} computes on {kind}, not {name}")


class BinaryOp(_ElementwiseOp):
    """``tile op tile``, element by element."""

    lhs = operand_def(_ElementwiseOp.T)
    rhs = operand_def(_ElementwiseOp.T)
    result = result_def(_ElementwiseOp.T)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


class ScalarBinaryOp(_ElementwiseOp):
    """``tile op scalar``, the scalar applied to every element."""

    input = operand_def(_ElementwiseOp.T)
    scalar = operand_def()
    result = result_def(_ElementwiseOp.T)
    assembly_format = "$input `,` $scalar attr-dict `:` type($result) `,` type($scalar)"

    def __init__(self, input: SSAValue, scalar: SSAValue):
        super().__init__(operands=[input, scalar], result_types=[input.type])

    def verify_(self) -> None:
        super().verify_()
        check_scalar(self.scalar.type, tile(self.result))


class UnaryOp(_ElementwiseOp):
    """``op(tile)``, element by element."""

    input = operand_def(_ElementwiseOp.T)
    result = result_def(_ElementwiseOp.T)
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


def _family(base_cls: type, docs: dict[str, str], floats: Sequence[str] = ()) -> list:
    """One op class ``pto.<name>`` per entry of ``docs`` (name -> docstring), subclasses of
    ``base_cls``; those named in ``floats`` compute on floats only."""
    ops = []
    for n, doc in docs.items():
        cls = type(
            "".join(p.capitalize() for p in n.split("_")) + "Op",
            (base_cls,),
            {"name": f"pto.{n}", "__doc__": doc, "__module__": __name__},
        )
        op = irdl_op_definition(cls)
        op.DOMAIN = "float" if n in floats else ""
        globals()[op.__name__] = op  # importable by name: pto.AddOp, pto.RowMaxOp
        ops.append(op)
    return ops


_BINARY = {
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * b",
    "div": "a / b",
    "max": "max(a, b)",
    "min": "min(a, b)",
}
BINARY_OPS = _family(BinaryOp, {n: f"Elementwise ``{f}``." for n, f in _BINARY.items()})
SCALAR_OPS = _family(
    ScalarBinaryOp,
    {
        f"{n}s": f"Elementwise ``{f.replace('b', 's')}``, ``s`` a scalar."
        for n, f in _BINARY.items()
    },
)
_UNARY = {
    "exp": "exp(x)",
    "log": "log(x)",
    "sqrt": "sqrt(x)",
    "rsqrt": "1 / sqrt(x)",
    "recip": "1 / x",
    "abs": "|x|",
    "neg": "-x",
    "relu": "max(x, 0)",
}
UNARY_OPS = _family(
    UnaryOp,
    {n: f"Elementwise ``{f}``." for n, f in _UNARY.items()},
    floats=("exp", "log", "sqrt", "rsqrt", "recip"),
)


@irdl_op_definition
class CastOp(_ConvertOp):
    """The tile converted to another element type (float<->int round to nearest even)."""

    name = "pto.cast"

    def __init__(self, input: SSAValue, element_type: Attribute):
        super().__init__(input, tile(input).with_(element_type=element_type))

    def verify_(self) -> None:
        src, dst = tile(self.input), tile(self.result)
        need_space("the tiles", src, ("vec",))
        if dst != src.with_(element_type=dst.element_type):
            raise VerifyException(
                "a cast keeps the shape, space and view: only the element type changes"
            )
        if "i1" in (type_name(src.element_type), type_name(dst.element_type)):
            raise VerifyException("a cast converts numbers: i1 masks come from pto.cmp")


class _CompareOp(_TileOp):
    """A predicate (eq, ne, lt, le, gt, ge) printed as a bare keyword before the operands."""

    predicate = prop_def(StringAttr)

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        mask = tile(lhs).with_(element_type=IntegerType(1))
        super().__init__(
            operands=[lhs, rhs],
            result_types=[mask],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        if self.predicate.data not in PREDICATES:
            raise VerifyException(f"the predicate is one of {', '.join(PREDICATES)}")
        src, mask = tile(self.operands[0]), tile(self.result)
        need_space("the operands", src, ("vec",))
        if mask != src.with_(element_type=IntegerType(1)):
            raise VerifyException(
                f"{self.name} gives an i1 mask of its operands' shape: "
                f"{src.with_(element_type=IntegerType(1))}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> _CompareOp:
        predicate = parse_keyword(parser, PREDICATES, "a predicate")
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        if len(operands) != 2 or len(types) != 2:
            parser.raise_error(f"{cls.name} takes two operands and their two types")
        values = parser.resolve_operands(operands, types, parser.pos)
        op = cls.create(
            operands=values,
            result_types=[result],
            properties={"predicate": StringAttr(predicate)},
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data} ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class CmpOp(_CompareOp):
    """An i1 mask: ``lhs predicate rhs`` element by element."""

    name = "pto.cmp"
    T: ClassVar = VarConstraint("T", base(TileType))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TileType)


@irdl_op_definition
class CmpsOp(_CompareOp):
    """An i1 mask: ``tile predicate scalar`` element by element."""

    name = "pto.cmps"
    input = operand_def(TileType)
    scalar = operand_def()
    result = result_def(TileType)

    def verify_(self) -> None:
        super().verify_()
        check_scalar(self.scalar.type, tile(self.input))


@irdl_op_definition
class SelOp(_TileOp):
    """Element by element, ``mask ? lhs : rhs``."""

    name = "pto.sel"
    T: ClassVar = VarConstraint("T", base(TileType))
    mask = operand_def(TileType)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    assembly_format = "$mask `,` $lhs `,` $rhs attr-dict `:` type($mask) `,` type($result)"

    def __init__(self, mask: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[mask, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        t = tile(self.result)
        need_space("the operands", t, ("vec",))
        if tile(self.mask) != t.with_(element_type=IntegerType(1)):
            raise VerifyException(
                f"the mask is an i1 tile of the operands' shape: {t.with_(element_type=IntegerType(1))}"
            )


# --------------------------------------------------------------------------- rows and columns


def _reduced(t: TileType, axis: int) -> TileType:
    """``t`` with dimension ``axis`` reduced to 1 (the valid shape's too)."""
    dims, valid = list(t.dims), list(t.valid_dims)
    dims[axis] = valid[axis] = 1
    return TileType(dims, t.element_type, t.space_name, valid)


class ReduceOp(_ConvertOp):
    """A row (R x C -> R x 1) or column (R x C -> 1 x C) reduction of a vec tile."""

    AXIS: ClassVar[int]

    def __init__(self, input: SSAValue):
        super().__init__(input, _reduced(tile(input), self.AXIS))

    def verify_(self) -> None:
        src = tile(self.input)
        need_space("the tile", src, ("vec",))
        need_rank2("the operand", src)
        if tile(self.result) != _reduced(src, self.AXIS):
            raise VerifyException(f"{self.name} of {src} gives {_reduced(src, self.AXIS)}")


def _axis_family(base_cls: type, docs: dict[str, str]) -> list:
    """``row_<name>`` and ``col_<name>`` ops; ``{row}`` in a docstring is 'row' or 'column'."""
    ops = []
    for axis, prefix, word in ((1, "row", "row"), (0, "col", "column")):
        named = {f"{prefix}_{n}": doc.format(row=word) for n, doc in docs.items()}
        for cls in _family(base_cls, named):
            cls.AXIS = axis
            ops.append(cls)
    return ops


REDUCE_OPS = _axis_family(ReduceOp, {n: f"The {n} of each {{row}}." for n in ("sum", "max", "min")})


class ExpandOp(_ConvertOp):
    """Broadcast a row vector (R x 1) or column vector (1 x C) to the R x C result."""

    AXIS: ClassVar[int]

    def verify_(self) -> None:
        dst = tile(self.result)
        need_space("the tile", dst, ("vec",))
        need_rank2("the result", dst)
        check_broadcast(self.name, tile(self.input), dst, self.AXIS)


def check_broadcast(name: str, vector: TileType, full: TileType, axis: int) -> None:
    if vector != _reduced(full, axis):
        raise VerifyException(f"{name} over {full} takes {_reduced(full, axis)}, got {vector}")


class ExpandBinaryOp(_TileOp):
    """``tile op broadcast(vector)``: each row (column) combined with its vector element."""

    AXIS: ClassVar[int]
    T: ClassVar = VarConstraint("T", base(TileType))
    input = operand_def(T)
    vector = operand_def(TileType)
    result = result_def(T)
    assembly_format = "$input `,` $vector attr-dict `:` type($input) `,` type($vector)"

    def __init__(self, input: SSAValue, vector: SSAValue):
        super().__init__(operands=[input, vector], result_types=[input.type])

    def verify_(self) -> None:
        t = tile(self.result)
        need_space("the tiles", t, ("vec",))
        need_rank2("the tile", t)
        check_broadcast(self.name, tile(self.vector), t, self.AXIS)


@irdl_op_definition
class RowExpandOp(ExpandOp):
    """Each row filled with its element of an R x 1 tile."""

    name = "pto.row_expand"
    AXIS: ClassVar[int] = 1


@irdl_op_definition
class ColExpandOp(ExpandOp):
    """Each column filled with its element of a 1 x C tile."""

    name = "pto.col_expand"
    AXIS: ClassVar[int] = 0


EXPAND_OPS = [RowExpandOp, ColExpandOp] + _axis_family(
    ExpandBinaryOp,
    {
        **{
            f"expand_{n}": f"``{f}`` with ``b`` each {{row}}'s element of the vector."
            for n, f in _BINARY.items()
        },
        "expand_exp_sub": "``exp(a - b)`` with ``b`` each {row}'s element of the vector.",
    },
)


# --------------------------------------------------------------------------- matmul, transpose


def accumulator_type(lhs: TileType, rhs: TileType) -> TileType:
    """The ``acc`` tile a matmul of ``lhs`` by ``rhs`` gives (M x N, its accumulator type)."""
    pair = (type_name(lhs.element_type), type_name(rhs.element_type))
    acc = MATMUL_TYPES.get(pair, pair[0])
    element = {"f32": Float32Type(), "i32": IntegerType(32)}.get(acc, lhs.element_type)
    # The valid rows of the left operand by the valid columns of the right one.
    valid = (lhs.valid_dims[0], rhs.valid_dims[-1])
    return TileType((lhs.dims[0], rhs.dims[-1]), element, "acc", valid)


class _MatmulOp(_TileOp):
    """``acc = left x right`` (M x K times K x N gives M x N) on the cube unit."""

    def verify_(self) -> None:
        a, b, c = tile(self.lhs), tile(self.rhs), tile(self.result)
        need_space("a matmul's left operand", a, ("left",))
        need_space("a matmul's right operand", b, ("right",))
        need_space("a matmul's result", c, ("acc",))
        for what, t in (("left operand", a), ("right operand", b), ("result", c)):
            need_rank2(f"a matmul's {what}", t)
        (m, k), (k2, n) = a.dims, b.dims
        if k != k2:
            raise VerifyException(f"matmul shapes: {m}x{k} times {k2}x{n}: K differs")
        if c.dims != (m, n):
            raise VerifyException(
                f"matmul shapes: {m}x{k} times {k2}x{n} gives {m}x{n}, got {list(c.dims)}"
            )
        pair = (type_name(a.element_type), type_name(b.element_type))
        if MATMUL_TYPES.get(pair) != type_name(c.element_type):
            combos = ", ".join(f"{x}x{y}->{z}" for (x, y), z in MATMUL_TYPES.items())
            raise VerifyException(
                f"matmul element types {pair[0]}x{pair[1]}->{type_name(c.element_type)} "
                f"are not one of {combos}"
            )


@irdl_op_definition
class MatmulOp(_MatmulOp):
    """``left x right`` into a new accumulator tile."""

    name = "pto.matmul"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        acc = accumulator_type(tile(lhs), tile(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[acc])


@irdl_op_definition
class MatmulAccOp(_MatmulOp):
    """``acc + left x right``."""

    name = "pto.matmul_acc"
    T: ClassVar = VarConstraint("T", base(TileType))
    acc = operand_def(T)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(T)
    assembly_format = (
        "$acc `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, acc: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[acc, lhs, rhs], result_types=[acc.type])


@irdl_op_definition
class MatmulBiasOp(_MatmulOp):
    """``left x right + bias``, the 1 x N bias added to every row."""

    name = "pto.matmul_bias"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    bias = operand_def(TileType)
    result = result_def(TileType)
    assembly_format = (
        "$lhs `,` $rhs `,` $bias attr-dict `:` type($lhs) `,` type($rhs) `,` type($bias)"
        " `->` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, bias: SSAValue):
        acc = accumulator_type(tile(lhs), tile(rhs))
        super().__init__(operands=[lhs, rhs, bias], result_types=[acc])

    def verify_(self) -> None:
        super().verify_()
        bias, c = tile(self.bias), tile(self.result)
        need_space("a matmul's bias", bias, ("bias",))
        want = (1, c.dims[1])
        if bias.dims != want or bias.element_type != c.element_type:
            raise VerifyException(
                f"the bias is 1x{c.dims[1]}x{c.element_type}, got {list(bias.dims)} of {bias.element_type}"
            )


def _transposed(t: TileType) -> TileType:
    return TileType(t.dims[::-1], t.element_type, t.space_name, t.valid_dims[::-1])


@irdl_op_definition
class TransposeOp(_ConvertOp):
    """The R x C tile as C x R."""

    name = "pto.transpose"

    def __init__(self, input: SSAValue):
        super().__init__(input, _transposed(tile(input)))

    def verify_(self) -> None:
        src, dst = tile(self.input), tile(self.result)
        need_space("the tiles", src, ("vec",))
        need_rank2("the operand", src)
        want = _transposed(src)
        if dst != want:
            raise VerifyException(f"the transpose of {src} is {want}, not {dst}")


# --------------------------------------------------------------------------- pipe synchronization


class _FlagOp(IRDLOperation):
    """``pto.set_flag MTE2 -> V, 0``: an event between two pipes (custom syntax)."""

    src_pipe = prop_def(PipeAttr)
    dst_pipe = prop_def(PipeAttr)
    event = prop_def(IntegerAttr)

    def __init__(self, src: str, dst: str, event: int):
        super().__init__(
            properties={
                "src_pipe": PipeAttr(src),
                "dst_pipe": PipeAttr(dst),
                "event": IntegerAttr(event, i64),
            }
        )

    def verify_(self) -> None:
        src, dst = self.src_pipe.value.data, self.dst_pipe.value.data
        if src == dst or "ALL" in (src, dst):
            raise VerifyException(
                f"a flag is between two different pipes other than ALL, got {src} -> {dst}"
            )
        if not 0 <= self.event.value.data < EVENT_IDS:
            raise VerifyException(f"event ids are 0..{EVENT_IDS - 1}, got {self.event.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> _FlagOp:
        src = parse_keyword(parser, PIPES, "a pipe")
        parser.parse_punctuation("->")
        dst = parse_keyword(parser, PIPES, "a pipe")
        parser.parse_punctuation(",")
        op = cls(src, dst, parse_int64(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(
            f" {self.src_pipe.value.data} -> {self.dst_pipe.value.data}, {self.event.value.data}"
        )
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """Signal the event when the source pipe has finished its work issued so far."""

    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """Stall the destination pipe until the event is signalled."""

    name = "pto.wait_flag"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``pto.barrier V``: wait until every instruction issued to the pipe has finished."""

    name = "pto.barrier"
    pipe = prop_def(PipeAttr)

    def __init__(self, pipe: str):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        op = cls(parse_keyword(parser, PIPES, "a pipe"))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pipe.value.data}")
        printer.print_op_attributes(self.attributes)


def computes_in_place(op: Operation, operand: SSAValue) -> bool:
    """Whether ``op`` may write its result over ``operand``'s buffer: each element is read
    and written at the same place (elementwise ops, a broadcast's full tile, an accumulator)."""
    elementwise = (BinaryOp, ScalarBinaryOp, UnaryOp, CastOp, FillPadOp, MoveOp, SelOp)
    if isinstance(op, elementwise + (CmpOp, CmpsOp)):
        return True
    if isinstance(op, ExpandBinaryOp):
        return operand is op.input
    return isinstance(op, MatmulAccOp) and operand is op.acc


# --------------------------------------------------------------------------- functions and scopes


def func_type(func: FuncOp) -> str:
    """``opaque``, ``orchestration`` or ``incore``: the ``#pto.func_type`` of ``func``."""
    attr = func.attributes.get(FUNC_TYPE_ATTR)
    if attr is None:
        return "opaque"
    if not isinstance(attr, FuncTypeAttr):
        # xDSL has no hook verifying a dialect's attributes on other ops: checked where read.
        raise VerifyException(
            f"@{func.sym_name.data}'s {FUNC_TYPE_ATTR} is a #pto.func_type<...>, got {attr}"
        )
    return attr.value.data


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a ``pto.incore_scope``: the values it gives to the code around it."""

    name = "pto.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(IncoreScopeOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class IncoreScopeOp(IRDLOperation):
    """Code of an orchestration function that runs on one AICore (seed 003 ScopeStmt InCore).

    Runs once, in place; ``pto-outline-incore-scopes`` makes it an InCore ``func.func``
    whose parameters are the values it uses from around it."""

    name = "pto.incore_scope"
    res = var_result_def()
    body = region_def("single_block")
    assembly_format = "(`->` `(` type($res)^ `)`)? $body attr-dict"

    def __init__(self, result_types: Sequence[Attribute], body: Region):
        super().__init__(result_types=[result_types], regions=[body])

    def verify_(self) -> None:
        parent = self.parent_op()
        while parent is not None and not isinstance(parent, FuncOp):
            if isinstance(parent, IncoreScopeOp):
                raise VerifyException("an InCore scope cannot hold another")
            parent = parent.parent_op()
        if parent is None:
            raise VerifyException("an InCore scope is part of a func.func")
        if func_type(parent) == "incore":
            raise VerifyException(
                f"an InCore scope is orchestration code's: @{parent.sym_name.data} is incore"
            )
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("an InCore scope's body ends with pto.yield")
        if last.values.types != self.res.types:
            raise VerifyException("pto.yield gives the scope's result types")


PTO = Dialect(
    "pto",
    [
        LoadOp,
        StoreOp,
        MoveOp,
        AllocOp,
        FullOp,
        FillPadOp,
        *BINARY_OPS,
        *SCALAR_OPS,
        *UNARY_OPS,
        CastOp,
        CmpOp,
        CmpsOp,
        SelOp,
        *REDUCE_OPS,
        *EXPAND_OPS,
        MatmulOp,
        MatmulAccOp,
        MatmulBiasOp,
        TransposeOp,
        SetFlagOp,
        WaitFlagOp,
        BarrierOp,
        IncoreScopeOp,
        YieldOp,
    ],
    [TileType, PipeAttr, FuncTypeAttr],
)
