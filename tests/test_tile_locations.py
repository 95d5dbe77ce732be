"""Traced tile ops carry the Python line of their ``pl.*`` call, so an error a pass or a
target finds later (memory planning's overflow, an AIE refusal) names the kernel's line,
not the line calling ``compile`` (the Ascend target's overflow: test_ascend_tile.py)."""

import inspect

import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import FileLineColLoc

import pto_wsp as pw
from pto_wsp import Dense, In, Out, Replicate, Shard, Tensor, f32, index, kernel, parallel_for
from pto_wsp import tile as pl
from pto_wsp.errors import CompileError


@kernel
def dynamic_rows(x: In[f32[16, 16]], y: Out[f32[16, 16]], n: index):
    t = pl.load(x, valid=(n, 16))
    pl.store(pl.transpose(t), y)


@kernel
def looped(x: In[f32[64, 16]], y: Out[f32[64, 16]]):
    for i in pl.range(0, 64, 16):
        pl.store(pl.relu(pl.load(x, [i, 0], shape=(16, 16))), y, [i, 0])


def _line(k, text: str) -> int:
    lines, start = inspect.getsourcelines(k.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _workload(k, shape, *scalars):
    X, Y = Tensor("X", [2, *shape], f32), Tensor("Y", [2, *shape], f32)
    inst = k[scalars] if scalars else k
    return parallel_for(Dense[2], lambda i: inst(X[i], Y[i])).named("w"), X, Y


def test_traced_ops_carry_the_line_of_their_call():
    w, _, _ = _workload(looped, (64, 16))
    f = next(op for op in pw.module(w).walk() if isinstance(op, func.FuncOp) and op.body.blocks)
    lines = {op.name: op.location for op in f.walk() if op.name != "func.func"}
    for name, text in [
        ("scf.for", "pl.range("),
        ("pto.load", "pl.load("),
        ("pto.relu", "pl.relu("),
        ("pto.store", "pl.store("),
    ]:
        loc = lines[name]
        assert isinstance(loc, FileLineColLoc), name
        assert loc.filename.data == __file__
        assert loc.line.data == _line(looped, text), name
    assert any(isinstance(op, scf.YieldOp) for op in f.walk())


def test_text_with_debuginfo_shows_the_lines_and_pto_opt_reads_them_back(tmp_path):
    """``w.text(debuginfo=True)`` prints each traced op's line; ``pto-opt --print-debuginfo``
    reads the locations back and prints the same text."""
    import subprocess
    import sys

    w, _, _ = _workload(looped, (64, 16))
    text = w.text(debuginfo=True)
    assert f'loc("{__file__}":{_line(looped, "pl.relu(")}:0)' in text
    assert "loc(" not in w.text() and str(w) == w.text()
    path = tmp_path / "traced.mlir"
    path.write_text(text)
    args = [sys.executable, "-m", "pto_wsp.tools.pto_opt", "--print-debuginfo", str(path)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    traced = [line for line in text.splitlines() if "bench" not in line and __file__ in line]
    assert traced and all(line in out.splitlines() for line in traced)


def test_an_aie_refusal_is_an_error_at_the_kernels_line():
    w, X, Y = _workload(dynamic_rows, (16, 16), 8)
    rows = (Shard(0), Replicate(), Replicate())
    s = w.schedule().spatial_map((2,)).layout(X, *rows).layout(Y, *rows)
    with pytest.raises(CompileError, match="dynamic valid shape") as info:
        pw.compile(s, target="xdna1")
    assert info.value.loc.filename == __file__
    assert info.value.loc.lineno == _line(dynamic_rows, "pl.transpose(")
