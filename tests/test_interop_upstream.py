"""Upstream MLIR parses and verifies our IR: every example, every lowered
output, every chunk of the dialects' round-trip lit tests; it rejects what breaks a
constraint; upstream cse runs on lowered programs."""

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from pto_wsp.interop import upstream
from pto_wsp.interop.pto_parser import default_context

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
ROUNDTRIPS = sorted(
    p
    for d in ("wsp", "csp", "sched", "tg")
    for p in (ROOT / "tests" / "lit" / d).glob("roundtrip*.mlir")
)
CTX = default_context()


def _parse(text: str, name: str = "<test>") -> ModuleOp:
    module = Parser(CTX, text, name).parse_module()
    module.verify()
    return module


def _lowered(path: Path, pipeline: str = "wsp-to-tg,csp-to-tg") -> ModuleOp:
    from pto_wsp.universe import ALL_PASSES

    module = _parse(path.read_text(), str(path))
    for name in pipeline.split(","):
        ALL_PASSES[name]()().apply(CTX, module)
        module.verify()
    return module


#: The stages of lowering whose output upstream must take (tg programs at every stage).
STAGES = ["wsp-to-tg", "csp-to-tg", "wsp-inline-calls,wsp-to-tg,csp-to-tg,tg-canonicalize"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_goes_through_upstream(path: Path):
    upstream.check(_parse(path.read_text(), str(path)), CTX)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_lowered_example_goes_through_upstream(path: Path, stage: str):
    module = _lowered(path, stage)
    upstream.check(module, CTX)
    names = upstream.ops_of(upstream.to_upstream(module))
    if "csp-to-tg" in stage and "wsp-to-tg" in stage:
        assert "tg.program" in names
        assert not any(n.startswith(("csp.", "sched.")) or n == "wsp.workload" for n in names)


@pytest.mark.parametrize("path", ROUNDTRIPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_dialect_round_trip_tests_go_through_upstream(path: Path):
    for chunk in path.read_text().split("// -----"):
        upstream.check(_parse(chunk, str(path)), CTX)


def test_upstream_text_forms():
    module = _parse((ROOT / "examples" / "moe.mlir").read_text())
    text = upstream.upstream_text(module)
    assert '"unregistered.wsp.yield"() : () -> ()' in text
    assert "!wsp.sparse_type" in text and "<{" not in text.split('"wsp.workload"')[1][:200]
    schedule = upstream.upstream_text(
        _parse("sched.schedule @s for @w {\n}\nwsp.workload @w() {\n}")
    )
    assert '"unregistered.pto.end"() : () -> ()' in schedule


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a required attribute missing
        ('%0 = "wsp.dense"() : () -> !wsp.dense_type<8 : i64>', "size"),
        # an operand that is not a memref
        (
            '%c = "arith.constant"() <{value = 0 : index}> : () -> index\n'
            '%v = "wsp.view"(%c) {static_offsets = array<i64>, static_sizes = array<i64>}'
            " : (index) -> memref<4xf32>",
            "memref",
        ),
        # a result of the wrong type
        (
            '%c = "arith.constant"() <{value = 0 : index}> : () -> index\n'
            '%a = "wsp.dense_dyn"(%c) : (index) -> !wsp.ragged_type',
            "dense_dyn_type",
        ),
        # a type parameter that is not an integer
        ('%0 = "wsp.dense"() {size = 8 : i64} : () -> !wsp.dense_type<"eight">', ""),
        # a region that must hold one block
        (
            '"wsp.combine"() ({\n^a:\n  "unregistered.wsp.yield"() : () -> ()\n^b:\n'
            '  "unregistered.wsp.yield"() : () -> ()\n}) : () -> ()',
            "region",
        ),
    ],
)
def test_upstream_rejects_what_breaks_a_constraint(text: str, message: str):
    import mlir.ir as ir

    with pytest.raises(ir.MLIRError) as info:
        ir.Module.parse(text, upstream._context())
    assert message in str(info.value)


@pytest.mark.filterwarnings("ignore")
def test_upstream_cse_on_a_lowered_program():
    module = _lowered(ROOT / "examples" / "transformer_layer.mlir")
    before = sum(op.name == "arith.constant" for op in module.walk())
    after_module = upstream.run_upstream_passes(module, CTX, "cse")
    after = sum(op.name == "arith.constant" for op in after_module.walk())
    assert after < before


def test_canonicalize_breaking_isolation_is_reported():
    module = _lowered(ROOT / "examples" / "scan.mlir")
    with pytest.raises(upstream.UpstreamError, match="IsolatedFromAbove"):
        upstream.run_upstream_passes(module, CTX, "canonicalize")


def test_command_line(tmp_path: Path, capsys):
    path = tmp_path / "scan.mlir"
    path.write_text((ROOT / "examples" / "scan.mlir").read_text())
    assert upstream.main([str(path)]) == 0
    assert "parsed, verified and read back the same by MLIR" in capsys.readouterr().out
    path.write_text("wsp.workload @w() {\n  wsp.frob\n}\n")
    assert upstream.main([str(path)]) == 1
    assert "cannot read the input" in capsys.readouterr().err
