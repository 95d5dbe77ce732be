"""The IRDL exporter (pto_wsp.interop.irdl): every op, type and attribute of every dialect
of ours is defined, with real constraints, and upstream MLIR loads it when the `mlir`
extra is installed."""

import re

import pytest

from pto_wsp.interop.irdl import (
    VARIADIC_SLOTS,
    dialect_irdl,
    irdl_text,
    our_dialects,
    upstream_attr_name,
)

CORE = ("wsp", "csp", "sched", "tg")
TEXT = irdl_text()


def _dialect(name: str):
    return next(d for d in our_dialects() if d.name == name)


def _definition(kind: str, dialect: str, name: str) -> str:
    """The text of one irdl.operation/type/attribute of a dialect."""
    text = dialect_irdl(_dialect(dialect))
    match = re.search(rf"^  irdl\.{kind} @{name} \{{\n(.*?)^  \}}", text, re.M | re.S)
    assert match, f"no irdl.{kind} @{name} in\n{text}"
    return match.group(1)


def test_core_dialects_are_ours():
    assert set(CORE) <= {d.name for d in our_dialects()}


@pytest.mark.parametrize("dialect", [d.name for d in our_dialects()])
def test_every_op_type_and_attribute_is_defined(dialect: str):
    d = _dialect(dialect)
    text = dialect_irdl(d)
    for op in d.operations:
        short = op.name.split(".", 1)[1]
        defined = f"irdl.operation @{short} {{" in text
        explained = f"// {op.name}: IRDL op names are [a-z0-9_]: it cannot be defined" in text
        assert defined or (explained and dialect not in CORE), op.name
    for attr in d.attributes:
        short = upstream_attr_name(attr).split(".", 1)[1]
        assert re.search(rf"irdl\.(type|attribute) @{short} \{{", text), attr.name


@pytest.mark.parametrize("dialect", CORE)
def test_constraints_are_not_all_any(dialect: str):
    """Counted per declared operand, result, attribute and parameter (a variadic group's
    slots count once): most have a constraint other than irdl.any."""
    text = dialect_irdl(_dialect(dialect))
    kinds: dict[str, int] = {}
    for block in re.findall(r"irdl\.\w+ @\w+ \{\n(.*?)^  \}", text, re.M | re.S):
        values = dict(re.findall(r"(%\d+) = irdl\.(\w+)", block))
        declared = {}
        for name, value in re.findall(r'"?(\w+)"?(?::| =) (?:optional |variadic )?(%\d+)', block):
            declared[re.sub(r"_\d+$", "", name)] = values[value]
        for kind in declared.values():
            kinds[kind] = kinds.get(kind, 0) + 1
    constrained = sum(n for kind, n in kinds.items() if kind != "any")
    assert constrained > 3 * kinds.get("any", 0), (dialect, kinds)


def test_operands_results_and_variadics():
    view = _definition("operation", "wsp", "view")
    assert re.search(r'(%\d+) = irdl.base "!builtin.memref"', view)
    assert "irdl.operands(source: %" in view
    # A variadic group: one optional slot per element (each its own constraint variable).
    assert f"dynamic_{VARIADIC_SLOTS - 1}: optional %" in view
    assert '"operandSegmentSizes" = %' in view
    assert "irdl.results(result: %" in view
    cond = _definition("operation", "wsp", "cond")
    assert "irdl.is i1" in cond
    tg_task = _definition("operation", "tg", "task")
    assert "target: optional %" in tg_task and "coords_0: optional %" in tg_task


def test_properties_are_attributes_with_constraints():
    channel = _definition("operation", "csp", "channel")
    assert re.search(r'"capacity" = %\d+', channel)
    assert '"#builtin.integer"' in channel and '"#builtin.type"' in channel
    kernel = _definition("operation", "wsp", "kernel")
    assert (
        "// optional attributes (not checked: IRDL has no optional attributes): cost, impls"
        in kernel
    )
    assert '"access" = %' in kernel


def test_regions_and_traits():
    workload = _definition("operation", "wsp", "workload")
    assert "irdl.region with size 1" in workload and "irdl.regions(body: %r0)" in workload
    assert "// traits (IRDL has none): SymbolOpInterface, IsolatedFromAbove" in workload
    cond = _definition("operation", "wsp", "cond")
    assert "irdl.regions(then_region: %r0, else_region: %r1)" in cond


def test_types_and_attributes_with_parameters():
    dense = _definition("type", "wsp", "dense_type")
    assert "irdl.parameters(size: %0)" in dense
    assert "// !wsp.dense, spelled !wsp.dense_type upstream (an op is wsp.dense)" in dense
    region = _definition("attribute", "tg", "region")
    assert "irdl.parameters(tensor: %0, offsets: %1, sizes: %2, strides: %3, access: %4)" in region
    # Our own types are referenced by symbol.
    assert "irdl.base @wsp::@dense_dyn_type" in _definition("operation", "wsp", "dense_dyn")
    assert "irdl.base @wsp::@task_type" in _definition("operation", "csp", "coord")


def test_pto_opt_emit_irdl(capsys):
    from pto_wsp.tools.pto_opt import main

    assert main(["--emit-irdl"]) == 0
    assert capsys.readouterr().out == TEXT


def test_upstream_loads_the_irdl():
    import mlir.ir as ir
    from mlir.dialects import irdl

    ctx = ir.Context()
    with ctx:
        module = ir.Module.parse(TEXT)
        module.operation.verify()
        irdl.load_dialects(module)
        ir.Type.parse("!wsp.dense_type<8 : i64>")
        with pytest.raises(ir.MLIRError):
            ir.Type.parse('!wsp.dense_type<"eight">')
