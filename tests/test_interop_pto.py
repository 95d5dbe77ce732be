"""The .pto bridge (pto_wsp.interop): every example round-trips, the seed 000 §8.2 example
reads, and the Python API of seed 000 §9 (parse, from_file, to_string, to_file, ParseError)."""

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from pto_wsp.interop.pto_parser import PtoParseError, default_context, from_file, parse
from pto_wsp.interop.pto_printer import PtoExportError, to_file, to_string

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
SEED_EXAMPLE = ROOT / "tests" / "lit" / "interop" / "attention_example.pto"
CTX = default_context()


def _mlir(path: Path) -> ModuleOp:
    module = Parser(CTX, path.read_text(), str(path)).parse_module()
    module.verify()
    return module


def _without_header(module: ModuleOp) -> ModuleOp:
    module = module.clone()
    module.sym_name = None
    for name in list(module.attributes):
        del module.attributes[name]
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_round_trips(path: Path):
    """Export, import: the example's own IR (helper ops where the canonical rule puts them);
    export again: the same text."""
    module = _mlir(path)
    text = to_string(module)
    again = parse(text, "example.pto", CTX)
    assert _without_header(again).is_structurally_equivalent(module), text
    assert to_string(again) == text


def test_seed_example_imports_exports_imports():
    first = from_file(SEED_EXAMPLE, CTX)
    second = parse(to_string(first), "again.pto", CTX)
    assert second.is_structurally_equivalent(first)
    assert first.sym_name is not None and first.sym_name.data == "attention_example"
    names = [op.sym_name.data for op in first.ops]  # type: ignore[attr-defined]
    kernels = ["attn_kernel", "load_kernel", "compute_kernel", "store_kernel"]
    assert names == [*kernels, "attention", "attention_sched", "megakernel"]


def test_guessed_kernels_are_inout():
    module = from_file(SEED_EXAMPLE, CTX)
    kernel = next(iter(module.ops))
    assert [a.data for a in kernel.access] == ["", "", "inout", "inout", "inout", "inout"]  # type: ignore[attr-defined]


def test_to_file_and_from_file(tmp_path: Path):
    module = _mlir(ROOT / "examples" / "moe.mlir")
    out = tmp_path / "moe.pto"
    to_file(module, out)
    assert out.read_text().startswith(
        "// PTO Module: module\n// Version: 9.0\n// Target: cpu_sim\n"
    )
    assert _without_header(from_file(out, CTX)).is_structurally_equivalent(module)


def test_parse_error_has_line_and_column():
    text = "// PTO Module: m\n// Version: 9.0\n// Target: cpu_sim\n@workload w() {\n  task k\n}\n"
    with pytest.raises(PtoParseError) as info:
        parse(text, "bad.pto", CTX)
    assert (info.value.line, info.value.column) == (5, 8)
    assert info.value.message == "expected the kernel's @name after 'task', got 'k'"


def test_export_error_names_the_op():
    text = "func.func @f() {\n  func.return\n}\n"
    module = Parser(CTX, text).parse_module()
    with pytest.raises(PtoExportError) as info:
        to_string(module)
    assert info.value.op is not None and info.value.op.name == "func.func"


def test_header_defaults_and_targets():
    text = "// PTO Module: m\n// Version: 2\n// Target: amd_aie | ascend_npu\n"
    module = parse(text, "m.pto", CTX)
    assert to_string(module) == text
    assert to_string(ModuleOp([])).splitlines()[:3] == [
        "// PTO Module: module",
        "// Version: 9.0",
        "// Target: cpu_sim",
    ]
