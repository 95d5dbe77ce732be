"""Joined inputs on AIE and the design emulator: a kernel reading more tensors than a compute
tile has input DMA channels gets the first ones joined in one objectfifo (tests/lit/aie-tile/
joined.mlir checks the IR); the design, emulated (shim transfers, memtile links, cores, the
kernels compiled by upstream MLIR), computes numpy's result. What cannot be joined keeps the
channel error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from aie_tile_support import Param, parse, workload
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.lowering.aie import MappingError, compile_module
from pto_wsp.lowering.aie.emulate import emulate
from pto_wsp.lowering.aie.lower import parse_bind

ROOT = Path(__file__).resolve().parents[1]
JOINED = ROOT / "tests" / "lit" / "aie-tile" / "Inputs" / "joined.mlir"


@pytest.fixture(scope="module")
def joined():
    design = compile_module(parse(JOINED.read_text()), device="npu1_1col")
    design.verify()
    return design


def test_three_inputs_on_two_channels_are_joined(joined):
    text = str(joined)
    assert "aie.objectfifo.link [@T_a_T_b] -> [@T_a_T_b_0, @T_a_T_b_1]([] [0, 1024])" in text
    assert text.count("memref.reinterpret_cast") == 4  # two parts, two cores


def test_the_joined_design_emulated_computes_numpy(joined):
    """d = (a + b) * c (c broadcast over rows), over two invocations of the sequence."""
    rng = np.random.default_rng(5)
    for _ in range(2):
        a, b = rng.standard_normal((2, 32, 32), dtype=np.float32)
        c = rng.standard_normal((1, 32), dtype=np.float32)
        d = np.zeros_like(a)
        emulate(joined, {"T_a": a, "T_b": b, "T_c": c, "T_d": d}, runs=2)
        np.testing.assert_allclose(d, (a + b) * c, rtol=1e-6)


COPY = """
  %ta = pto.load %a : memref<16x32xf32> -> !pto.tile<16x32xf32, vec>
  pto.store %ta, %d : !pto.tile<16x32xf32, vec>, memref<16x32xf32>
"""


def test_inputs_of_different_element_types_keep_the_channel_error():
    """a (f32), b (i32), c (i16): no two share an element type, so nothing is joined and the
    compute tile's two S2MM channels are the limit, named."""
    params = [
        Param("a", "f32", "in", (16, 32)),
        Param("b", "i32", "in", (16, 32)),
        Param("c", "i16", "in", (16, 32)),
        Param("d", "f32", "out", (16, 32)),
    ]
    with pytest.raises(PassFailedException, match=r"receives 3 objectfifos .* 2 S2MM DMA"):
        compile_module(parse(workload(params, COPY)), device="npu1")


def test_emulate_refuses_kernels_that_link_object_files():
    design = compile_module(
        parse((ROOT / "tests/lit/aie/Inputs/matmul_k.mlir").read_text()), device="npu1"
    )
    arrays = {n: np.zeros((64, 64), np.float32) for n in "ABC"}
    with pytest.raises(MappingError, match=r"@zero links an object file; it cannot run here"):
        emulate(design, arrays)


def test_bind_takes_a_tensors_runtime_parameters_as_a_list():
    """``lens=5:40:17`` binds a tensor's values (``5:`` a list of one); malformed lists are
    refused naming the form."""
    assert parse_bind("n=4,lens=5:40:17,one=5:") == {"n": 4, "lens": [5, 40, 17], "one": [5]}
    for bad in ("x=5::6", "x=:", "x=a"):
        with pytest.raises(MappingError, match=r"expected name=integer or name=i:j:\.\.\."):
            parse_bind(bad)
