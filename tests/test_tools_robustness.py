"""The tools on bad sizes, paths, signals and kernels: one clear error line, never a traceback,
a hang or a half-written output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_wsp.lowering.ascend import emit as ascend_emit
from pto_wsp.lowering.ascend.errors import AscendEmitError
from pto_wsp.tools import pto_opt

ROOT = Path(__file__).resolve().parents[1]
ASCEND_INPUT = ROOT / "tests" / "lit" / "ascend" / "emit.mlir"
ASCEND = ["-p", "wsp-to-tg", "-t", "ascend{stub-kernels=true}"]


def opt(capsys, *args: str) -> tuple[int, str]:
    """pto-opt in-process: (exit code, stderr); a traceback fails the test."""
    code = pto_opt.main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return code, err


# --------------------------------------------------------------------------- -t ascend -o DIR


def test_ascend_output_directory_that_is_a_file(capsys, tmp_path):
    (tmp_path / "out").write_text("mine")
    code, err = opt(capsys, ASCEND_INPUT, *ASCEND, "-o", tmp_path / "out")
    assert code == 1
    assert f"error: cannot write the output directory '{tmp_path / 'out'}': it is a file" in err
    assert (tmp_path / "out").read_text() == "mine"


def test_ascend_output_directory_under_a_file(capsys, tmp_path):
    (tmp_path / "f").write_text("mine")
    code, err = opt(capsys, ASCEND_INPUT, *ASCEND, "-o", tmp_path / "f" / "out")
    assert code == 1
    assert f"'{tmp_path / 'f'}' is a file, not a directory" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_ascend_output_directory_unwritable(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    code, err = opt(capsys, ASCEND_INPUT, *ASCEND, "-o", locked / "out")
    assert code == 1
    assert "cannot write the output directory" in err and "Permission denied" in err


def test_a_write_failing_midway_leaves_the_directory_as_it_was(capsys, tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert opt(capsys, ASCEND_INPUT, *ASCEND, "-o", out)[0] == 0
    (out / "build.o").write_text("a build's file")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    written = []

    def write_text(self, text, *args, **kwargs):
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        written.append(self)
        return original(self, text, *args, **kwargs)

    original = Path.write_text
    monkeypatch.setattr(Path, "write_text", write_text)
    code, err = opt(capsys, ASCEND_INPUT, *ASCEND, "-o", out)
    assert code == 1 and "No space left on device" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left


def test_a_new_emission_replaces_kernels_and_keeps_other_files(tmp_path):
    out = tmp_path / "out"
    tree = ascend_emit.EmittedTree({"a.h": "1", "kernels/old.cpp": "old"}, {}, [], "910b")
    tree.write(out)
    (out / "build.o").write_text("a build's file")
    stamp = (out / "a.h").stat().st_mtime_ns
    ascend_emit.EmittedTree({"a.h": "1", "kernels/new.cpp": "new"}, {}, [], "910b").write(out)
    assert sorted(p.name for p in (out / "kernels").iterdir()) == ["new.cpp"]
    assert (out / "build.o").read_text() == "a build's file"
    assert (out / "a.h").stat().st_mtime_ns == stamp  # unchanged: not rewritten (make)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_ascend_tree_is_written_through_a_symbolic_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    ascend_emit.EmittedTree({"a.h": "1"}, {}, [], "910b").write(tmp_path / "link")
    assert (tmp_path / "link").is_symlink()
    assert (tmp_path / "real" / "a.h").read_text() == "1"


def test_the_api_names_the_directory_too(tmp_path):
    (tmp_path / "out").write_text("")
    with pytest.raises(AscendEmitError, match="cannot write the output directory"):
        ascend_emit.EmittedTree({"a.h": "1"}, {}, [], "910b").write(tmp_path / "out")


# --------------------------------------------------------------------------- pto-opt -o FILE

RAGGED = """\
wsp.kernel @k(r: index, j: index) unit(vector)
wsp.workload @w(%n: index, %lengths: memref<?xindex>) {
  %rows = wsp.ragged %n, %lengths : memref<?xindex>
  wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {
    wsp.task @k(%r, %j : index, index) resources()
  }
}
"""


def test_output_through_a_symbolic_link_writes_its_target(capsys, tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text(RAGGED)
    (tmp_path / "real.mlir").write_text("old")
    (tmp_path / "link.mlir").symlink_to("real.mlir")
    assert opt(capsys, source, "-o", tmp_path / "link.mlir")[0] == 0
    assert (tmp_path / "link.mlir").is_symlink()
    assert "wsp.workload @w" in (tmp_path / "real.mlir").read_text()


@pytest.mark.parametrize(
    ("signum", "code", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_stops_pto_opt_in_one_line_and_removes_its_temporary_file(
    tmp_path, signum, code, word
):
    """A long run (a 40,000-task graph) stopped once its output file is open."""
    source = tmp_path / "in.mlir"
    source.write_text(RAGGED)
    process = subprocess.Popen(
        [sys.executable, "-m", "pto_wsp.tools.pto_opt", str(source), "-o", str(tmp_path / "o"),
         "-p", 'wsp-to-tg,tg-materialize{bind="n=1,lengths=[40000]"}'],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".pto-opt-*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # into the pass
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert err == f"pto-opt: {word}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"]
