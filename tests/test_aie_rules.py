"""mlir-aie's rules in the AIE lowering (docs/targets/aie.md "mlir-aie's rules"): each rule
either shapes the design the lowering emits or stops it with a located error naming the
tensor and the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import MemRefType, i32
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import aie, aie_rules, aiex
from pto_wsp.lowering.aie import MappingError, compile_module
from pto_wsp.lowering.aie.analysis import Region
from pto_wsp.lowering.aie.lower import _context
from pto_wsp.lowering.aie.patterns import fit_pattern

ROOT = Path(__file__).resolve().parents[1]

COLUMNS = """\
wsp.kernel @k(a: in memref<{R}x{B}x{T}>, c: out memref<{R}x{B}x{T}>) unit(vector)
wsp.workload @w(%A: memref<{R}x{N}x{T}>, %C: memref<{R}x{N}x{T}>) {{
  %J = wsp.dense {G}
  wsp.parallel_for %j in %J named("j") : !wsp.dense<{G}> {{
    %cb = arith.constant {B} : index
    %jo = arith.muli %j, %cb : index
    %a = wsp.view %A[0:{R}, %jo:+{B}] : memref<{R}x{N}x{T}> -> memref<{R}x{B}x{T}>
    %c = wsp.view %C[0:{R}, %jo:+{B}] : memref<{R}x{N}x{T}> -> memref<{R}x{B}x{T}>
    wsp.task @k() resources(%a, %c : memref<{R}x{B}x{T}>, memref<{R}x{B}x{T}>)
  }}
}}
sched.schedule @s for @w {{
  sched.spatial_map grid({G})
  sched.layout "A" (replicate, shard(0))
  sched.layout "C" (replicate, shard(0))
}}
"""


def column_shards(rows: int, cols: int, grid: int, type_: str):
    """A workload copying A into C on a 1-D grid of cores, each owning a column block."""
    text = COLUMNS.format(R=rows, N=cols, B=cols // grid, G=grid, T=type_)
    return Parser(_context(), text, "shards.mlir").parse_module()


def lower(module, device="npu1_1col"):
    design = compile_module(module, device=device)
    design.verify()  # our aie/aiex verifiers know the same rules
    return design


def transfers(design) -> dict[str, aiex.NpuDmaMemcpyNdOp]:
    return {
        op.memref.name_hint: op for op in design.walk() if isinstance(op, aiex.NpuDmaMemcpyNdOp)
    }


def test_64_bit_tensors_move_as_twice_as_many_32_bit_words():
    """NpuDmaMemcpyNdOp::verify: at most 32-bit elements; the cores still see f64."""
    design = lower(column_shards(8, 8, 2, "f64"))
    seq = next(op for op in design.walk() if isinstance(op, aie.RuntimeSequenceOp))
    assert [a.type for a in seq.body.block.args] == [MemRefType(i32, [8, 16])] * 2
    a = transfers(design)["A"]
    # Two column blocks of 8 rows x 4 f64 = 8 words per row, row stride 16 words.
    assert list(a.static_sizes.get_values()) == [1, 2, 8, 8]
    assert list(a.static_strides.get_values()) == [0, 8, 16, 1]
    fifos = {
        op.sym_name.data: op.element_type
        for op in design.walk()
        if isinstance(op, aie.ObjectFifoCreateOp)
    }
    assert str(fifos["A_0"]) == "memref<8x4xf64>"


def test_i8_column_blocks_of_whole_words_map():
    design = lower(column_shards(8, 8, 2, "i8"))
    a = transfers(design)["A"]
    assert list(a.static_sizes.get_values()) == [1, 2, 8, 4]
    assert list(a.static_strides.get_values()) == [0, 4, 8, 1]


@pytest.mark.parametrize(
    ("type_", "cols", "grid", "rule"),
    [
        # 8 rows of 6-byte column blocks: the runs the shim moves are 6 bytes.
        ("i8", 12, 2, "the innermost size is 6 elements of 1 bytes = 6 bytes, not a multiple of 4"),
        ("i16", 6, 2, "the innermost size is 3 elements of 2 bytes = 6 bytes, not a multiple of 4"),
    ],
)
def test_sub_word_column_blocks_are_refused_naming_tensor_and_rule(type_, cols, grid, rule):
    with pytest.raises(PassFailedException) as info:
        lower(column_shards(8, cols, grid, type_))
    message = str(info.value)
    assert info.value.op.name == "tg.program"  # located at the workload (lit: rules.mlir)
    assert "the transfer of A" in message and rule in message
    assert "(verifyStridesWraps: 4-byte granularity)" in message


@pytest.mark.parametrize("block", [3, 9])
def test_objectfifo_elements_of_6_and_18_bytes_break_the_bd_length_rule(block):
    """DMABDOp::verify: a buffer descriptor moves whole 32-bit words. One row of i16 split in
    two: the row reaches the memtile, its halves (6 or 18 bytes) cannot go on."""
    with pytest.raises(PassFailedException) as info:
        lower(column_shards(1, 2 * block, 2, "i16"))
    message = str(info.value)
    assert info.value.op.name == "tg.program"
    assert f"objectfifo @A_0 of memref<1x{block}xi16>: an element of {2 * block} bytes" in message
    assert "(DMABDOp::verify: transfer length)" in message


def test_bd_length_rule_and_its_limits():
    assert aie_rules.bd_length_error(6, "core") is not None
    assert aie_rules.bd_length_error(18, "memtile") is not None
    assert aie_rules.bd_length_error(16, "core") is None
    assert aie_rules.bd_length_error(4 * ((1 << 14) - 1), "core") is None
    assert "longer than a core" in aie_rules.bd_length_error(4 << 14, "core")
    assert aie_rules.bd_length_error(4 << 14, "memtile") is None


def test_strides_beyond_2_20_words_are_refused():
    """verifyStridesWraps / NpuWriteBdOp::verify: 20-bit step fields (strides <= 2^20 words
    once written)."""
    fit_pattern("T", [4, 1 << 20], 4, [Region("T", (0, 0), (4, 4))])  # the limit itself
    with pytest.raises(
        MappingError,
        match=r"stride 1 is 1048577 32-bit words; a shim buffer "
        r"descriptor steps at most 1048576 \(verifyStridesWraps: 20-bit",
    ):
        fit_pattern("the transfer of T", [4, (1 << 20) + 1], 4, [Region("T", (0, 0), (4, 4))])


def _repeat(n: int):
    """2x2 boxes at rows 4k, columns 0 and 4 of a 4n x 16 tensor: four dimensions, n the
    outermost (the repeat count)."""
    boxes = [Region("T", (4 * k, 4 * m), (2, 2)) for k in range(n) for m in range(2)]
    return fit_pattern("T", [4 * n, 16], 4, boxes)


def test_repeat_count_at_most_64():
    """verifyStridesWraps / NpuWriteBdOp::verify: a 6-bit iteration count."""
    assert _repeat(64).sizes == (64, 2, 2, 2)
    with pytest.raises(MappingError, match=r"repeats at most 64 times \(verifyStridesWraps"):
        _repeat(65)


def test_objectfifo_ends_agree_on_the_element_type():
    """ObjectFifoAcquireOp::verify: the consumer takes the element as the producer wrote it."""
    text = (
        (ROOT / "examples" / "megakernel.mlir")
        .read_text()
        .replace(
            "@compute_kernel(i: index, tile: in memref<64xf32>",
            "@compute_kernel(i: index, tile: in memref<8x8xf32>",
        )
    )
    module = Parser(_context(), text, "mk.mlir").parse_module()
    with pytest.raises(
        PassFailedException,
        match=r"objectfifo @load_to_compute carries "
        r"tile_buf as memref<64xf32>, but @compute_kernel in @computer takes it "
        r"as memref<8x8xf32>.*\(ObjectFifoAcquireOp::verify\)",
    ):
        compile_module(module, bind={"num_tiles": 4})
