"""Our dialects as IRDL (MLIR's IR Definition Language), for upstream MLIR.

xDSL keeps the definition of every op (``OpDef``: operands, results, properties,
attributes, regions, with their constraints) and of every type and attribute
(``ParamAttrDef``) on the Python classes. This module walks those definitions and writes the
IRDL text upstream MLIR 22 loads (``mlir.dialects.irdl.load_dialects``, or
``mlir-opt --irdl-file=``):

- types and attributes with their parameters (``!wsp.dense<N>`` has one integer parameter;
  ``#tg.region`` five), parameters constrained;
- operands and results with their constraints (``irdl.is``, ``irdl.base``, ``irdl.any_of``,
  ``irdl.all_of``, ``irdl.parametric`` for our own types) and variadicity (single,
  ``optional``, ``variadic``);
- properties as attributes (dynamic dialects have no properties), with their constraints;
- regions, ``with size 1`` where the op needs a single block.

What IRDL of MLIR 22 cannot say is kept as comments in the text: optional attributes
(``irdl.attributes`` has no optional entries, so they are left out and not checked),
element constraints of arrays, and traits (IRDL ops have none: terminators, NoTerminator,
IsolatedFromAbove, symbol tables). docs/interop.md says what this means for verification.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    EmptyArrayAttrConstraint,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    UnrankedMemRefType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    MessageConstraint,
    OptionalDef,
    ParamAttrConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    SingleOf,
    VarConstraint,
    VariadicDef,
)
from xdsl.irdl.operations import OptRegionDef, SingleBlockRegionDef, VarRegionDef

#: Upstream names of the builtin types and attributes our definitions mention.
BUILTIN_NAMES: dict[type[Attribute], str] = {
    IndexType: "!builtin.index",
    MemRefType: "!builtin.memref",
    UnrankedMemRefType: "!builtin.unranked_memref",
    IntegerType: "!builtin.integer",
    StringAttr: "#builtin.string",
    IntegerAttr: "#builtin.integer",
    IntAttr: "#builtin.integer",
    FloatAttr: "#builtin.float",
    ArrayAttr: "#builtin.array",
    DictionaryAttr: "#builtin.dictionary",
    SymbolRefAttr: "#builtin.symbol_ref",
    DenseArrayBase: "#builtin.dense_array",
    DenseIntOrFPElementsAttr: "#builtin.dense_int_or_fp_elements",
    UnitAttr: "#builtin.unit",
}


def our_dialects() -> list[Dialect]:
    """The dialects pto-wsp defines (those of its xDSL plugin), in registration order."""
    from pto_wsp.universe import ALL_DIALECTS

    return [factory() for factory in ALL_DIALECTS.values()]


def our_dialect_names() -> set[str]:
    from pto_wsp.universe import ALL_DIALECTS

    return set(ALL_DIALECTS)


def _short(name: str) -> str:
    return name.split(".", 1)[1]


def upstream_attr_name(attr: type[Attribute]) -> str:
    """The name of one of our types or attributes in upstream MLIR: its own, unless an op of
    its dialect has that name too — IRDL gives a dialect's types and ops one symbol
    namespace — then with ``_type`` (``_attr``) appended: ``!wsp.dense_type``."""
    return _upstream_names().get(attr.name, attr.name)


def from_upstream_attr_name(name: str) -> str:
    """Our name of a type or attribute upstream calls ``name``."""
    return {v: k for k, v in _upstream_names().items()}.get(name, name)


def _upstream_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for dialect in our_dialects():
        ops = {op.name for op in dialect.operations}
        for attr in dialect.attributes:
            if attr.name in ops:
                suffix = "_type" if issubclass(attr, TypeAttribute) else "_attr"
                names[attr.name] = attr.name + suffix
    return names


class _Writer:
    """Writes the body of one ``irdl.operation``/``irdl.type``/``irdl.attribute``: constraint
    values (each written once) and the declarations using them."""

    def __init__(self, ours: set[str], attr_text: Callable[[Attribute], str]):
        self.ours = ours
        self.attr_text = attr_text
        self.lines: list[str] = []
        self.notes: list[str] = []
        self._count = 0

    def value(self, op_text: str) -> str:
        """A new constraint value. Never shared: an IRDL value is a constraint *variable*,
        and every use of it must see the same attribute (MLIR 22 binds it on first use)."""
        name = f"%{self._count}"
        self._count += 1
        self.lines.append(f"{name} = {op_text}")
        return name

    def _base(self, cls: type[Attribute], is_type: bool) -> str:
        name = getattr(cls, "name", "")
        dialect = name.split(".", 1)[0] if "." in name else ""
        if dialect in self.ours:
            return self.value(f"irdl.base @{dialect}::@{_short(upstream_attr_name(cls))}")
        if not is_type and issubclass(cls, TypeAttribute):
            # A type held by an attribute (function_type, element_type) is a TypeAttr.
            return self.value('irdl.base "#builtin.type"')
        if cls is FunctionType:
            return self.value('irdl.base "!builtin.function"')
        if cls in BUILTIN_NAMES:
            return self.value(f'irdl.base "{BUILTIN_NAMES[cls]}"')
        if is_type and cls is TypeAttribute:
            return self.value("irdl.any")
        if not is_type and cls in (TypeAttribute, Attribute, ParametrizedAttribute):
            return self.value('irdl.base "#builtin.type"' if cls is TypeAttribute else "irdl.any")
        self.notes.append(f"{cls.__name__} has no upstream name: any")
        return self.value("irdl.any")

    def constraint(self, c: AttrConstraint, is_type: bool) -> str:
        """The SSA name of a value that constrains an attribute (or type) like ``c``."""
        if isinstance(c, AnyAttr):
            return self.value("irdl.any")
        if isinstance(c, MessageConstraint):
            return self.constraint(c.constr, is_type)
        if isinstance(c, VarConstraint):
            return self.constraint(c.constraint, is_type)
        if isinstance(c, EqAttrConstraint):
            return self.value(f"irdl.is {self.attr_text(c.attr)}")
        if isinstance(c, BaseAttr):
            return self._base(c.attr, is_type)
        if isinstance(c, AnyOf) and any(self._builtin_base(x) for x in c.attr_constrs):
            # MLIR 22 aborts loading an irdl.any_of over bases named by string ("unknown IRDL
            # constraint", IRDLLoading.cpp): such a union is left unchecked.
            self.notes.append("a union of builtin types or attributes is not checked: any")
            return self.value("irdl.any")
        if isinstance(c, AnyOf | AllOf):
            parts = [
                self.constraint(x, is_type)
                for x in c.attr_constrs
                if not (isinstance(c, AllOf) and _is_any(x))
            ]
            if len(parts) == 1:
                return parts[0]
            kind = "any_of" if isinstance(c, AnyOf) else "all_of"
            return self.value(f"irdl.{kind}({', '.join(parts)})")
        if isinstance(c, ParamAttrConstraint):
            name = getattr(c.base_attr, "name", "")
            dialect = name.split(".", 1)[0] if "." in name else ""
            if dialect in self.ours and c.param_constrs:
                params = [self.constraint(p, False) for p in c.param_constrs]
                symbol = _short(upstream_attr_name(c.base_attr))
                return self.value(f"irdl.parametric @{dialect}::@{symbol}<{', '.join(params)}>")
            if c.base_attr is SymbolRefAttr and _flat(c):
                self.notes.append("flat symbol references: nested references are not rejected")
            return self._base(c.base_attr, is_type)
        if isinstance(c, ArrayOfConstraint):
            self.notes.append("array elements are not constrained (IRDL has no array-of)")
            return self.value('irdl.base "#builtin.array"')
        if isinstance(c, SymbolNameConstraint):
            return self.value('irdl.base "#builtin.string"')
        if isinstance(c, EmptyArrayAttrConstraint):
            return self.value('irdl.base "#builtin.array"')
        self.notes.append(f"{type(c).__name__} is not expressible in IRDL: any")
        return self.value("irdl.any")

    def _builtin_base(self, c: AttrConstraint) -> bool:
        """Whether ``c`` is written as an ``irdl.base`` named by string (not one of ours)."""
        base = c.attr if isinstance(c, BaseAttr) else getattr(c, "base_attr", None)
        if base is None:
            return False
        name = getattr(base, "name", "")
        return name.split(".", 1)[0] not in self.ours

    def range_constraint(self, c: RangeConstraint) -> str:
        if isinstance(c, RangeLengthConstraint):
            return self.range_constraint(c.constraint)
        if isinstance(c, RangeOf | SingleOf):
            return self.constraint(c.constr, True)
        self.notes.append(f"{type(c).__name__} is not expressible in IRDL: any")
        return self.value("irdl.any")


def _is_any(c: AttrConstraint) -> bool:
    return isinstance(c, AnyAttr)


def _flat(c: ParamAttrConstraint) -> bool:
    return any(isinstance(p, EmptyArrayAttrConstraint) for p in c.param_constrs)


def _definable(name: str) -> bool:
    short = _short(name)
    return bool(short) and all(c.islower() or c.isdigit() or c == "_" for c in short)


def _label(name: str) -> str:
    """An operand, result, region or parameter name as IRDL accepts it: lowercase letters,
    digits and underscores (``consumerTiles`` becomes ``consumer_tiles``). Only a label."""
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return "".join(c if c.isalnum() or c == "_" else "_" for c in out) or "x"


#: Slots an IRDL operation has for each variadic operand (or result) group of ours.
VARIADIC_SLOTS = 32


def needs_segments(defs: Sequence[tuple[str, object]]) -> bool:
    """Whether the upstream form of an op with these operand (result) definitions carries
    ``operandSegmentSizes`` (``resultSegmentSizes``): any variadic, or several optionals."""
    variadic = [x for _, x in defs if isinstance(x, VariadicDef)]
    return any(not isinstance(x, OptionalDef) for x in variadic) or len(variadic) > 1


def upstream_segments(defs: Sequence[tuple[str, object]], sizes: Sequence[int]) -> list[int]:
    """The upstream segment sizes of an op whose groups have ``sizes`` elements."""
    out: list[int] = []
    for (_, x), size in zip(defs, sizes, strict=True):
        if isinstance(x, VariadicDef) and not isinstance(x, OptionalDef):
            if size > VARIADIC_SLOTS:
                raise ValueError(f"more than {VARIADIC_SLOTS} values in one variadic group")
            out += [1] * size + [0] * (VARIADIC_SLOTS - size)
        else:
            out.append(size)
    return out


def our_segments(defs: Sequence[tuple[str, object]], sizes: Sequence[int]) -> list[int]:
    """The inverse of ``upstream_segments``."""
    out: list[int] = []
    it = iter(sizes)
    for _, x in defs:
        if isinstance(x, VariadicDef) and not isinstance(x, OptionalDef):
            out.append(sum(next(it) for _ in range(VARIADIC_SLOTS)))
        else:
            out.append(next(it))
    return out


def _variadicity(definition: object) -> str:
    if isinstance(definition, OptionalDef):
        return "optional "
    if isinstance(definition, VariadicDef):
        return "variadic "
    return ""


def _default_attr_text(attr: Attribute) -> str:
    from .upstream import upstream_attr_text

    return upstream_attr_text(attr)


def op_irdl(
    op: type[IRDLOperation], ours: set[str], attr_text: Callable[[Attribute], str]
) -> list[str]:
    """The lines of one ``irdl.operation``."""
    d = op.get_irdl_definition()
    w = _Writer(ours, attr_text)
    decls: list[str] = []
    required: list[str] = []
    for kind, defs in (("operands", d.operands), ("results", d.results)):
        items: list[str] = []
        for n, x in defs:
            if isinstance(x, VariadicDef) and not isinstance(x, OptionalDef):
                # Elements of one IRDL variadic share a constraint variable, so they would
                # all need the same type: one optional slot per element instead.
                items += [
                    f"{_label(n)}_{i}: optional {w.range_constraint(x.constr)}"
                    for i in range(VARIADIC_SLOTS)
                ]
            else:
                items.append(f"{_label(n)}: {_variadicity(x)}{w.range_constraint(x.constr)}")
        if items:
            decls.append(f"irdl.{kind}({', '.join(items)})")
        segments = f"{kind[:-1]}SegmentSizes"
        if needs_segments(defs) and segments not in d.properties:
            array = w.value('irdl.base "#builtin.dense_array"')
            required.append(f'"{segments}" = {array}')
    optional: list[str] = []
    for name, x in [*d.properties.items(), *d.attributes.items()]:
        value = w.constraint(x.constr, False)
        if isinstance(x, OptionalDef):
            optional.append(name)
        else:
            required.append(f'"{name}" = {value}')
    if required:
        decls.append(f"irdl.attributes {{{', '.join(required)}}}")
    regions: list[str] = []
    for name, r in d.regions:
        if isinstance(r, VarRegionDef | OptRegionDef):
            w.notes.append(
                f"region {name} is {'optional' if isinstance(r, OptionalDef) else 'variadic'}: declared as one region"
            )
        size = " with size 1" if isinstance(r, SingleBlockRegionDef) else ""
        value = f"%r{len(regions)}"
        w.lines.append(f"{value} = irdl.region{size}")
        regions.append(f"{_label(name)}: {value}")
    if regions:
        decls.append(f"irdl.regions({', '.join(regions)})")
    comments = []
    if optional:
        comments.append(
            f"// optional attributes (not checked: IRDL has no optional attributes): "
            f"{', '.join(optional)}"
        )
    traits = [_mlir_trait_name(t) for t in d.traits]
    if traits:
        comments.append(f"// traits (IRDL has none): {', '.join(traits)}")
    comments += [f"// {n}" for n in dict.fromkeys(w.notes)]
    body = ["  " + x for x in (*comments, *w.lines, *decls)]
    return [f"irdl.operation @{_short(d.name)} {{", *body, "}"]


def attr_irdl(
    attr: type[ParametrizedAttribute], ours: set[str], attr_text: Callable[[Attribute], str]
) -> list[str]:
    """The lines of one ``irdl.type`` or ``irdl.attribute``."""
    d = attr.get_irdl_definition()
    w = _Writer(ours, attr_text)
    params = [f"{_label(n)}: {w.constraint(p.constr, False)}" for n, p in d.parameters]
    kind = "type" if issubclass(attr, TypeAttribute) else "attribute"
    decls = [f"irdl.parameters({', '.join(params)})"] if params else []
    comments = [f"// {n}" for n in dict.fromkeys(w.notes)]
    upstream = upstream_attr_name(attr)
    if upstream != d.name:
        sigil = "!" if kind == "type" else "#"
        comments.insert(
            0, f"// {sigil}{d.name}, spelled {sigil}{upstream} upstream (an op is {d.name})"
        )
    body = ["  " + x for x in (*comments, *w.lines, *decls)]
    return [f"irdl.{kind} @{_short(upstream)} {{", *body, "}"]


def dialect_irdl(
    dialect: Dialect,
    ours: set[str] | None = None,
    attr_text: Callable[[Attribute], str] = _default_attr_text,
) -> str:
    """One ``irdl.dialect`` op: the dialect's types and attributes, then its ops."""
    ours = our_dialect_names() if ours is None else ours
    lines = [f"irdl.dialect @{dialect.name} {{"]
    for attr in dialect.attributes:
        if issubclass(attr, ParametrizedAttribute):
            lines += ["  " + x for x in attr_irdl(attr, ours, attr_text)]
    for op in dialect.operations:
        if not issubclass(op, IRDLOperation):
            continue
        if not _definable(op.name):
            lines.append(f"  // {op.name}: IRDL op names are [a-z0-9_]: it cannot be defined")
            continue
        lines += ["  " + x for x in op_irdl(op, ours, attr_text)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def irdl_text(dialects: Sequence[Dialect] | None = None) -> str:
    """The IRDL module of our dialects (all of them by default), as upstream MLIR reads it."""
    dialects = our_dialects() if dialects is None else list(dialects)
    ours = {d.name for d in dialects} | our_dialect_names()
    header = (
        "// The IRDL definition of pto-wsp's dialects (pto-opt --emit-irdl); see docs/interop.md.\n"
        "// Load it with mlir.dialects.irdl.load_dialects or mlir-opt --irdl-file=FILE.\n"
    )
    body = "\n".join(dialect_irdl(d, ours) for d in dialects)
    return header + "builtin.module {\n" + _indent(body) + "}\n"


def _indent(text: str) -> str:
    return "".join(("  " + line if line else line) + "\n" for line in text.splitlines())


def _mlir_trait_name(trait: object) -> str:
    """The MLIR name of an op trait: our ``IsolatedScopes`` is MLIR's ``IsolatedFromAbove``
    (the scope rule it adds is MLIR's dominance, which every region has there)."""
    from pto_wsp.dialects.traits import IsolatedScopes

    return "IsolatedFromAbove" if isinstance(trait, IsolatedScopes) else type(trait).__name__
