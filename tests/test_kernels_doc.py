"""docs/kernels.md's complete example runs on the three targets, and the AIE kernel function
of its design, JIT-run on the CPU through upstream MLIR, gives numpy's RMSNorm."""

import re
from pathlib import Path

import numpy as np
import pytest
from aie_tile_support import kernel_functions, parse, run

from pto_wsp.lowering.ascend.build import have_compiler

DOC = Path(__file__).resolve().parents[1] / "docs" / "kernels.md"


@pytest.mark.skipif(not have_compiler(), reason="the Ascend host build needs g++")
def test_the_complete_example_runs_on_three_targets():
    block = next(
        b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "xdna1" in b
    )
    scope: dict = {}
    exec(compile(block, str(DOC), "exec"), scope)  # its asserts check each target
    fn = next(
        f
        for f in kernel_functions(parse(str(scope["design"]))).values()
        if f.sym_name.data == "rmsnorm"
    )
    assert not fn.is_declaration
    x, g = scope["x"], scope["g"]
    for b in range(x.shape[0]):
        y = np.zeros((16, 64), np.float32)
        run(fn, [x[b], g, y, np.float32(1e-6)])
        np.testing.assert_allclose(y, scope["ref"][b], rtol=1e-5, atol=1e-6)
