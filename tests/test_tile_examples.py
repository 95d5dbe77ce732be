"""examples/tile_kernels.py: RMSNorm with a residual, variable-length attention and the MoE
expert GEMM, written with tile kernels, run by the CPU simulator and checked against numpy."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tile_kernels.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("example_tile_kernels", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["rmsnorm", "attention", "moe"])
def test_tile_example_matches_numpy(example, name):
    getattr(example, f"run_{name}")(np.random.default_rng(1))


def test_attention_scores_keep_the_valid_keys(example):
    """The matmul of Q by the n valid columns of K^T has n valid columns (valid = [8, ?])."""
    from pto_wsp.frontend.program import print_module

    text = print_module(example.attention().module())
    assert "-> !pto.tile<8x40xf32, acc, valid = [8, ?]>" in text
    assert (
        "pto.store %" in text
        and "!pto.tile<8x40xf32, vec, valid = [8, ?]>, memref<8x40xf32>" in text
    )
