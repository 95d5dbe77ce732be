"""Handing our IR to upstream MLIR (the ``mlir`` extra: MLIR 22's Python bindings).

``to_upstream(module)`` loads our dialects into an upstream ``mlir.ir.Context`` from their
IRDL (``pto_wsp.interop.irdl``) and has upstream MLIR parse and verify the module in
generic form. ``round_trip(module)`` also prints upstream's result and reads it back with
xDSL; ``check(module)`` says whether that gives the module back. From the command line:

    pto-opt examples/moe.mlir -p wsp-to-tg | python3 -m pto_wsp.interop.upstream

The generic form upstream reads differs from xDSL's in three documented ways
(docs/interop.md), all undone on the way back:

- properties of our ops are printed as attributes (IRDL dialects have no properties);
- parameters of our types and attributes are printed as upstream's generic parameters
  (``!wsp.dense<8 : i64>``, ``#tg.region<"Q", array<i64: 0>, ...>``);
- IRDL ops have no traits, so an op loaded from IRDL can be neither a terminator nor hold
  a block without one: our terminators (``wsp.yield``...) are spelled
  ``"unregistered.wsp.yield"`` (an op of no loaded dialect, which MLIR lets end a block),
  and the blocks of our ops that need no terminator (``sched.schedule``) get an
  ``"unregistered.pto.end"`` op at their end.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    UnregisteredOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import BaseAttr, IRDLOperation, VariadicDef
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.exceptions import ParseError

from .irdl import (
    from_upstream_attr_name,
    irdl_text,
    needs_segments,
    our_dialect_names,
    our_segments,
    upstream_attr_name,
    upstream_segments,
)

#: The op-name prefix that makes one of our ops an unregistered op for upstream.
UNREGISTERED = "unregistered."
#: Closes a block of ours that has no terminator (sched.schedule's).
END_MARKER = "unregistered.pto.end"


class UpstreamError(Exception):
    """Upstream MLIR rejected the IR, or gave back something else."""


def available() -> bool:
    """Whether the ``mlir`` extra (upstream MLIR's Python bindings) is installed."""
    try:
        import mlir.ir  # noqa: F401
        from mlir.dialects import irdl  # noqa: F401
    except ImportError:
        return False
    return True


def _ours(name: str) -> bool:
    return name.split(".", 1)[0] in our_dialect_names()


# --------------------------------------------------------------------------- printing


class UpstreamPrinter(Printer):
    """xDSL's generic printer, with our ops' properties as attributes and our types and
    attributes in upstream's generic parameter syntax."""

    def __init__(self, stream: Any = None):
        super().__init__(stream=stream, print_generic_format=True)
        self._op_names: list[str] = []

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, ParametrizedAttribute) and _ours(attribute.name):
            sigil = "!" if isinstance(attribute, TypeAttribute) else "#"
            self.print_string(f"{sigil}{upstream_attr_name(type(attribute))}")
            if attribute.parameters:
                self.print_string("<")
                self.print_list(attribute.parameters, self._print_parameter)
                self.print_string(">")
            return
        super().print_attribute(attribute)

    def _print_parameter(self, parameter: Attribute) -> None:
        if isinstance(parameter, IntAttr):  # an xDSL-only attribute: upstream has i64s
            parameter = IntegerAttr(parameter.data, i64)
        self.print_attribute(parameter)

    def print_op(self, op: Operation) -> None:
        # xDSL drops an unregistered op's name attribute while printing its body.
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        self._op_names.append(name)
        try:
            super().print_op(op)
        finally:
            self._op_names.pop()

    def print_op_with_default_format(self, op: Operation) -> None:
        as_attributes = _ours(self._op_names[-1].removeprefix(UNREGISTERED))
        saved = self.print_properties_as_attributes
        self.print_properties_as_attributes = as_attributes
        try:
            super().print_op_with_default_format(op)
        finally:
            self.print_properties_as_attributes = saved


def upstream_attr_text(attribute: Attribute) -> str:
    """An attribute or type as upstream MLIR reads it."""
    stream = io.StringIO()
    UpstreamPrinter(stream).print_attribute(attribute)
    return stream.getvalue()


def _prepare(module: ModuleOp) -> ModuleOp:
    """A copy of ``module`` with our terminators unregistered and our terminator-free blocks
    closed by END_MARKER (see the module docstring)."""
    module = module.clone()
    for op in list(module.walk()):
        if isinstance(op, UnregisteredOp) or not _ours(op.name):
            continue
        if op.has_trait(NoTerminator):
            for region in op.regions:
                for block in region.blocks:
                    block.add_op(UnregisteredOp.with_name(END_MARKER).create())
        if isinstance(op, IRDLOperation) and not op.has_trait(IsTerminator):
            _set_segments(op, upstream_segments)
        if op.has_trait(IsTerminator):
            stand_in = UnregisteredOp.with_name(UNREGISTERED + op.name).create(
                operands=list(op.operands),
                result_types=[r.type for r in op.results],
                attributes=op.attributes | op.properties,
            )
            stand_in.location = op.location
            block = op.parent_block()
            assert block is not None
            block.insert_op_before(stand_in, op)
            for old, new in zip(op.results, stand_in.results):
                old.replace_by(new)
            op.detach()
            op.erase()
    return module


def _group_sizes(op: IRDLOperation, kind: str) -> list[int] | None:
    """The number of values of each operand (result) group of ``op``, or None when the
    upstream form needs no segment sizes for them."""
    definition = op.get_irdl_definition()
    defs = definition.operands if kind == "operand" else definition.results
    if not needs_segments(defs):
        return None
    values = op.operands if kind == "operand" else op.results
    attribute = op.properties.get(f"{kind}SegmentSizes")
    if isinstance(attribute, DenseArrayBase):
        return [int(v) for v in attribute.get_values()]
    fixed = sum(1 for _, x in defs if not isinstance(x, VariadicDef))
    return [1 if not isinstance(x, VariadicDef) else len(values) - fixed for _, x in defs]


def _set_segments(op: IRDLOperation, convert: Any) -> None:
    """Rewrite the segment sizes of ``op`` with ``convert`` (ours <-> upstream)."""
    definition = op.get_irdl_definition()
    for kind in ("operand", "result"):
        defs = definition.operands if kind == "operand" else definition.results
        name = f"{kind}SegmentSizes"
        if convert is upstream_segments:
            sizes = _group_sizes(op, kind)
            if sizes is None:
                continue
            value = DenseArrayBase.from_list(i32, convert(defs, sizes))
            if name in definition.properties:
                op.properties[name] = value
            else:
                op.attributes[name] = value
            continue
        if not needs_segments(defs):
            continue
        found = op.properties.get(name) or op.attributes.get(name)
        if not isinstance(found, DenseArrayBase):
            raise UpstreamError(f"{op.name} comes back from upstream without {name}")
        sizes = convert(defs, [int(v) for v in found.get_values()])
        if name in definition.properties:
            op.properties[name] = DenseArrayBase.from_list(i32, sizes)
        else:
            op.attributes.pop(name, None)


def upstream_text(module: ModuleOp) -> str:
    """``module`` in the generic form upstream MLIR parses with our IRDL loaded."""
    stream = io.StringIO()
    UpstreamPrinter(stream).print_op(_prepare(module))
    return stream.getvalue() + "\n"


# --------------------------------------------------------------------------- upstream


@cache
def _context() -> Any:
    """An upstream context that knows our dialects (loaded once per process)."""
    import mlir.ir as ir
    from mlir.dialects import irdl

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True  # for the stand-ins of our terminators only
    with ctx:
        definitions = ir.Module.parse(irdl_text())
        irdl.load_dialects(definitions)
    ctx._pto_irdl = definitions  # keep the definitions alive with the context
    return ctx


def to_upstream(module: ModuleOp) -> Any:
    """Upstream MLIR's own ``mlir.ir.Module`` of ``module``: parsed and verified upstream."""
    import mlir.ir as ir

    text = upstream_text(module)
    try:
        parsed = ir.Module.parse(text, _context())
        parsed.operation.verify()
    except ir.MLIRError as error:
        raise UpstreamError(f"upstream MLIR rejects the IR: {error}") from None
    return parsed


def _from_upstream_text(text: str, ctx: Context) -> ModuleOp:
    # Stand-ins take back their names; the end markers are parsed (as unregistered ops)
    # and erased, which keeps a block they were alone in.
    marker = f'"{END_MARKER}"'
    text = text.replace(marker, "\0").replace(f'"{UNREGISTERED}', '"').replace("\0", marker)
    saved = ctx.allow_unregistered
    ctx.allow_unregistered = True
    try:
        module = _GenericParametersParser(ctx, text, "<upstream>").parse_module()
    finally:
        ctx.allow_unregistered = saved
    for op in list(module.walk()):
        if isinstance(op, UnregisteredOp) and op.op_name.data == END_MARKER:
            op.detach()
            op.erase()
    for op in module.walk():
        if isinstance(op, IRDLOperation) and _ours(op.name) and not op.has_trait(IsTerminator):
            _set_segments(op, our_segments)
    return module


class _GenericParametersParser(Parser):
    """xDSL's parser, reading our types and attributes in upstream's generic parameter
    syntax (``!wsp.dense<8 : i64>``) as upstream prints them."""

    def _parse_dialect_type_or_attribute_body(
        self, attr_name: str, is_type: bool, is_opaque: bool, starting_opaque_pos: Any
    ):
        attr_name = from_upstream_attr_name(attr_name)
        if not _ours(attr_name):
            return super()._parse_dialect_type_or_attribute_body(
                attr_name, is_type, is_opaque, starting_opaque_pos
            )
        attr_def = self.ctx.get_optional_type(attr_name) if is_type else None
        attr_def = attr_def or self.ctx.get_optional_attr(attr_name)
        if attr_def is None or not issubclass(attr_def, ParametrizedAttribute):
            self.raise_error(f"'{attr_name}' is not registered")
        definition = attr_def.get_irdl_definition()
        values: list[Attribute] = []
        if self.parse_optional_punctuation("<") is not None:
            values = self.parse_comma_separated_list(self.Delimiter.NONE, self.parse_attribute)
            self.parse_punctuation(">")
        params = []
        for (_, param), value in zip(definition.parameters, values, strict=False):
            constraint = param.constr
            if (
                isinstance(constraint, BaseAttr)
                and constraint.attr is IntAttr
                and isinstance(value, IntegerAttr)
            ):
                value = IntAttr(value.value.data)
            params.append(value)
        return attr_def.new(params)


def round_trip(module: ModuleOp, ctx: Context) -> tuple[ModuleOp, str]:
    """Upstream parses and verifies ``module``, prints it generically, xDSL reads it back.

    Returns the module read back and upstream's text."""
    parsed = to_upstream(module)
    text = parsed.operation.get_asm(print_generic_op_form=True)
    try:
        back = _from_upstream_text(text, ctx)
        back.verify()
    except (ParseError, Exception) as error:
        raise UpstreamError(f"xDSL cannot read back upstream's output: {error}") from None
    return back, text


def _generic(module: Operation) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def check(module: ModuleOp, ctx: Context) -> str:
    """Send ``module`` through upstream MLIR and back; raise ``UpstreamError`` unless the
    IR comes back the same. Returns upstream's generic text."""
    back, text = round_trip(module, ctx)
    if not back.is_structurally_equivalent(module):
        diff = difflib.unified_diff(
            _generic(module).splitlines(),
            _generic(back).splitlines(),
            "ours",
            "upstream",
            lineterm="",
        )
        raise UpstreamError("upstream MLIR gives back different IR:\n" + "\n".join(diff))
    return text


def run_upstream_passes(module: ModuleOp, ctx: Context, pipeline: str = "cse") -> ModuleOp:
    """Run upstream MLIR passes (by default cse) on ``module`` and read the result back:
    upstream works on the standard-dialect parts (scf, arith, memref, func) and leaves our
    ops, whose effects it does not know, in place.

    Upstream does not know which of our ops are IsolatedFromAbove (IRDL ops have no
    traits): ``canonicalize`` hoists constants out of a ``tg.program`` into the module,
    which xDSL then rejects — an ``UpstreamError`` says so."""
    import mlir.ir as ir
    from mlir.passmanager import PassManager

    parsed = to_upstream(module)
    try:
        with _context():
            PassManager.parse(f"builtin.module({pipeline})").run(parsed.operation)
        parsed.operation.verify()
    except ir.MLIRError as error:
        raise UpstreamError(f"upstream passes failed: {error}") from None
    back = _from_upstream_text(parsed.operation.get_asm(print_generic_op_form=True), ctx)
    try:
        back.verify()
    except Exception as error:
        raise UpstreamError(
            f"upstream passes '{pipeline}' broke a rule of our dialects (upstream does not "
            f"know their traits, e.g. IsolatedFromAbove): {error}"
        ) from None
    return back


def ops_of(module: Any) -> list[str]:
    """The names of the ops of an upstream module, in walk order (for tests)."""
    names: list[str] = []

    def visit(op: Any) -> Any:
        import mlir.ir as ir

        names.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """``python3 -m pto_wsp.interop.upstream [FILE]``: check MLIR text against upstream."""
    arg_parser = argparse.ArgumentParser(
        prog="python3 -m pto_wsp.interop.upstream",
        description="Parse IR of pto-wsp (text pto-opt prints, generic or not), hand it to "
        "upstream MLIR with our dialects loaded from IRDL (parse + verify), read upstream's "
        "output back and check it is the same IR.",
    )
    arg_parser.add_argument("input", nargs="?", default="-", help="input file (default stdin)")
    arg_parser.add_argument(
        "--print", action="store_true", help="print upstream MLIR's generic form of the IR"
    )
    arg_parser.add_argument(
        "--passes",
        metavar="PIPELINE",
        help="run these upstream MLIR passes (e.g. cse) and print the result as pto-opt would",
    )
    arg_parser.add_argument("--emit-irdl", action="store_true", help="print the IRDL and exit")
    args = arg_parser.parse_args(argv)
    if args.emit_irdl:
        sys.stdout.write(irdl_text())
        return 0
    if not available():
        print(
            "upstream: error: upstream MLIR's Python bindings do not import (reinstall pto-wsp)",
            file=sys.stderr,
        )
        return 2
    from .pto_parser import default_context

    name = "<stdin>" if args.input == "-" else args.input
    text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    ctx = default_context()
    try:
        module = Parser(ctx, text, name).parse_module()
        module.verify()
    except Exception as error:
        print(f"upstream: error: {name}: cannot read the input: {error}", file=sys.stderr)
        return 1
    try:
        if args.passes:
            result = run_upstream_passes(module, ctx, args.passes)
            Printer(stream=sys.stdout).print_op(result)
            print()
            return 0
        upstream = check(module, ctx)
    except UpstreamError as error:
        print(f"upstream: error: {name}: {error}", file=sys.stderr)
        return 1
    if args.print:
        sys.stdout.write(upstream)
    else:
        print(f"upstream: {name}: parsed, verified and read back the same by MLIR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
