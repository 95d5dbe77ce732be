"""The aie / aiex dialects (dialects/aie.py): building designs in Python, the device models,
the acquire switch, and custom / generic round trips of built modules."""

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func
from xdsl.dialects.builtin import MemRefType, ModuleOp, i32
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects import aie, aiex


def _ctx() -> Context:
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, aie.AIE, aiex.AIEX):
        ctx.load_dialect(d)
    return ctx


def _text(op, generic: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(op)
    return out.getvalue()


def _design(form: aie.AcquireForm = aie.AcquireForm.SUBVIEW) -> ModuleOp:
    t = MemRefType(i32, [16])
    device = aie.DeviceOp("npu1_1col")
    block = device.body.block
    shim, core_tile = aie.TileOp(0, 0), aie.TileOp(0, 2)
    fifo_in = aie.ObjectFifoCreateOp("in", shim, [core_tile], 2, t)
    fifo_out = aie.ObjectFifoCreateOp("out", core_tile, [shim], 2, t)
    kernel = func.FuncOp.external("k", [t, t], [])
    kernel.attributes["link_with"] = builtin.StringAttr("k.o")
    body = Block()
    ops_in, a = aie.acquire_element("in", "Consume", t, form)
    ops_out, b = aie.acquire_element("out", "Produce", t, form)
    body.add_ops(
        [
            *ops_in,
            *ops_out,
            func.CallOp("k", [a, b], []),
            aie.ObjectFifoReleaseOp("in", "Consume"),
            aie.ObjectFifoReleaseOp("out", "Produce"),
            aie.EndOp(),
        ]
    )
    core = aie.CoreOp(core_tile, Region(body))
    seq = aie.RuntimeSequenceOp([t, t])
    x, y = seq.body.block.args
    seq.body.block.add_ops(
        [
            aiex.NpuDmaMemcpyNdOp(y, [0] * 4, [1, 1, 1, 16], [0, 0, 0, 1], "out", 1, True),
            aiex.NpuDmaMemcpyNdOp(x, [0] * 4, [1, 1, 1, 16], [0, 0, 0, 1], "in", 0),
            aiex.NpuDmaWaitOp("out"),
        ]
    )
    for op in (shim, core_tile, fifo_in, fifo_out, kernel, core, seq):
        block.insert_op_before(op, block.last_op)
    return ModuleOp([device])


@pytest.mark.parametrize("form", list(aie.AcquireForm))
def test_built_design_verifies_and_round_trips(form: aie.AcquireForm) -> None:
    module = _design(form)
    module.verify()
    text = _text(module)
    assert "aie.device(npu1_1col) {" in text
    assert "aie.end\n    }" in text  # the core's aie.end is explicit
    if form is aie.AcquireForm.SUBVIEW:
        assert "aie.objectfifo.subview.access" in text
    else:
        assert "subview" not in text
        assert "aie.objectfifo.acquire @in(Consume, 1) : memref<16xi32>" in text
    for generic in (False, True):
        again = Parser(_ctx(), _text(module, generic)).parse_module()
        again.verify()
        assert _text(again) == text


def test_device_models() -> None:
    assert aie.DEVICES["npu1"].columns == 4
    assert aie.DEVICES["npu2"].columns == 8 and aie.DEVICES["npu2"].value == 8
    assert [aie.DEVICES[f"npu2_{n}col"].columns for n in range(1, 8)] == list(range(1, 8))
    npu = aie.DEVICES["npu1_1col"]
    assert [npu.kind(r) for r in range(6)] == ["shim", "memtile"] + ["core"] * 4
    assert (npu.first_core_row, npu.core_rows) == (2, 4)
    assert [npu.dma_channels(r) for r in (0, 1, 2)] == [2, 6, 2]
    ve = aie.DEVICES["xcve2802"]
    assert (ve.kind(2), ve.first_core_row) == ("memtile", 3)


def test_unknown_device_value_is_a_verifier_error() -> None:
    module = _design()
    device = module.body.block.first_op
    assert isinstance(device, aie.DeviceOp)
    device.device = aie._i32(42)
    with pytest.raises(VerifyException, match="unknown device 42"):
        module.verify()


# ------------------------------------------------------------------ the mlir-aie coverage tool

_GOOD = """// RUN: aie-opt %s | FileCheck %s
aie.device(NPUDEVICE) {
  %t = aie.tile(1, 2)
  %m = aie.mem(%t) {
    aie.end
  }
}
// -----
aie.device(npu1) {
  %t = aie.tile(0, 2)
  aie.frobnicate(%t)
}
"""
_RUN_LIT = "// RUN: %run_on_npu1% sed 's/NPUDEVICE/npu1/g' -i aie_arch.mlir\n"
_REJECTED = "// RUN: not aie-opt %s\naie.device(npu1) {\n}\n"
_EXPECTED = "aie.device(npu1) {\n  %t = aie.tile(9, 2) // expected-error {{column}}\n}\n"
_FOREIGN = (
    "aie.device(npu1) {\n  %c = aie.core(%t) {\n    %v = aievec.ups %x : vector<16xi16>\n  }\n}\n"
)
_LLVM_ONLY = "llvm.func @f() {\n  llvm.return\n}\n"


def _checkout(tmp_path):
    test = tmp_path / "test"
    (test / "npu-xrt" / "t").mkdir(parents=True)
    (test / "npu-xrt" / "t" / "aie.mlir").write_text(_GOOD)
    (test / "npu-xrt" / "t" / "run.lit").write_text(_RUN_LIT)
    for name, text in (
        ("bad.mlir", _REJECTED),
        ("err.mlir", _EXPECTED),
        ("vec.mlir", _FOREIGN),
        ("llvm.mlir", _LLVM_ONLY),
    ):
        (test / name).write_text(text)
    return tmp_path


def test_coverage_counts_valid_chunks_and_groups_failures(tmp_path, capsys):
    from pto_wsp.tools import aie_coverage

    assert aie_coverage.main([str(_checkout(tmp_path))]) == 0
    out = capsys.readouterr().out
    # Two valid chunks: the first passes on the device run.lit substitutes (npu1 has column 1;
    # npu1_1col would reject the tile), the second uses an op nobody defines.
    assert out.splitlines()[0] == "valid inputs passing: 1 / 2 (50.0%)"
    assert "1  the file's RUN line expects failure (not ...)" in out
    assert "1  expected-error" in out
    assert "1  uses aievec" in out
    assert "1  no aie/aiex op" in out
    assert "1  unknown op\n        1  aie.frobnicate" in out
    # The negative chunk (a column beyond npu1's four) fails here too.
    assert out.splitlines()[-1].endswith("reject too (for any reason): 1 / 1")


def test_coverage_without_a_test_tree_is_one_line_error(tmp_path, capsys):
    from pto_wsp.tools import aie_coverage

    assert aie_coverage.main([str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"aie_coverage: {tmp_path}/test is not a directory"
