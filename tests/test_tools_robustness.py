"""The tools on bad sizes, paths, signals and kernels: one clear error line, never a traceback,
a hang or a half-written output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pto_wsp import Dense, ExecutionError, Out, Tensor, f32, kernel, parallel_for, task
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


def test_ascend_output_directory_unwritable(capsys, tmp_path):
    if os.geteuid() == 0:  # root writes anywhere but in /proc
        if not Path("/proc/self").is_dir():
            pytest.skip("needs a folder root cannot write")
        out, reason = Path("/proc/pto-wsp-out"), "No such file or directory"
    else:
        (tmp_path / "locked").mkdir(mode=0o555)
        out, reason = tmp_path / "locked" / "out", "Permission denied"
    code, err = opt(capsys, ASCEND_INPUT, *ASCEND, "-o", out)
    assert code == 1
    assert f"pto-opt: error: cannot write the output directory '{out}': {reason}" in err


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


# --------------------------------------------------------------------------- kernels


def _workload(body):
    Y = Tensor("Y", [3, 4], f32)
    k = kernel(body)
    return parallel_for(Dense[3], lambda i: task(k, [i], [Y[i]])).named("w")


@pytest.mark.parametrize(("fast", "threads"), [(False, 1), (True, 1), (True, 2)])
def test_a_body_calling_sys_exit_fails_its_task(monkeypatch, fast, threads):


    def k(i, y: Out[f32[4]]):
        if i == 1:
            sys.exit(3)

    prog = _workload(k).compile(target="cpu_sim", fast=fast, threads=threads)
    with pytest.raises(ExecutionError, match=r"^task 1 \(kernel @k, i=1\) failed: SystemExit: 3$"):
        prog.bind(Y=np.zeros((3, 4), np.float32)).execute()
    assert prog.fast_declined == (None if fast else "fast=False")


def test_ctrl_c_in_a_body_still_interrupts():
    def k(i, y: Out[f32[4]]):
        raise KeyboardInterrupt

    prog = _workload(k).compile(target="cpu_sim", fast=False)
    with pytest.raises(KeyboardInterrupt):
        prog.bind(Y=np.zeros((3, 4), np.float32)).execute()


def test_an_output_tensor_bound_as_a_list_is_refused():
    def k(i, y: Out[f32[4]]):
        y[...] = i

    prog = _workload(k).compile(target="cpu_sim")
    with pytest.raises(
        ValueError, match=r"^Y is a tensor \(memref<3x4xf32>\): bind a numpy array, not a list"
    ):
        prog.bind(Y=[[0.0] * 4] * 3)


KERNEL_MLIR = """\
wsp.kernel @k(i: index, y: out memref<4xf32>) unit(vector) attributes {{impls = {{cpu_sim = "{module}:k"}}}}
wsp.workload @w(%y: memref<3x4xf32>) {{
  %d = wsp.dense 3
  wsp.parallel_for %i in %d named("i") : !wsp.dense<3> {{
    %v = wsp.view %y[%i] : memref<3x4xf32> -> memref<4xf32>
    wsp.task @k(%i : index) resources(%v : memref<4xf32>)
  }}
}}
"""


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("raise RuntimeError('no device')\n", "importing module '{m}' raised RuntimeError: no device"),
        ("def k(:\n", "module '{m}' does not parse ({f}:1: invalid syntax)"),
        ("import sys\nsys.exit(4)\n", "importing module '{m}' raised SystemExit: 4"),
        ("import sys\ndef k(i, y):\n    sys.exit(5)\n", "task 0 (kernel @k, i=0) failed: SystemExit: 5"),
    ],
)  # fmt: skip
def test_pto_run_names_a_kernel_module_that_fails(capsys, tmp_path, monkeypatch, source, message):
    from pto_wsp.tools import pto_run

    module = f"failing_kernels_{abs(hash(source))}"
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL_MLIR.format(module=module))
    code = pto_run.main([str(path), "--bind", "y=zeros(3,4)", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1, err
    expected = message.format(m=module, f=tmp_path / f"{module}.py")
    assert err.startswith("pto-run: error: ") and expected in err, err
    assert "internal error" not in err and len(err.splitlines()) == 1, err


# --------------------------------------------------------------------------- a process's call

PROCESS_CALLS = ROOT / "tests" / "lit" / "passes" / "csp-to-tg" / "process_calls_workload.mlir"


def test_pto_run_runs_a_process_that_calls_a_workload(capsys):
    from pto_wsp.tools import pto_run

    code = pto_run.main([str(PROCESS_CALLS), "--mode", "cycles", "--workload", "p"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "16 tasks" in captured.out  # 8 loads (the called workload's) and 8 computes


def test_the_passes_in_the_other_order_name_the_call():
    from xdsl.context import Context
    from xdsl.utils.exceptions import PassFailedException

    from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
    from pto_wsp.tools.diagnostics import parse_located

    module = parse_located(PROCESS_CALLS.read_text(), "calls.mlir")
    WspToTgPass().apply(Context(), module)
    with pytest.raises(PassFailedException, match=r"^@load_tile is no wsp.workload any more"):
        CspToTgPass().apply(Context(), module)


# --------------------------------------------------------------------------- huge sizes


@pytest.mark.skipif(not Path("/proc/meminfo").exists(), reason="the available memory is Linux's")
def test_pto_run_refuses_a_loop_nest_beyond_memory_before_making_it(capsys):
    """10^11 tasks are refused before the loop runs (the core is told its trip count): the
    machine's memory holds far fewer nodes."""
    from pto_wsp.tools import pto_run

    scan = ROOT / "examples" / "scan.mlir"
    code = pto_run.main([str(scan), "--mode", "cycles", "--bind", "n=100000000000", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(
        "pto-run: error: out of memory (@scan: a loop of 99999999999 tasks, more than the "
    ), err
    assert "nodes this machine's memory holds)" in err


def test_pto_run_refuses_a_pipeline_of_more_processes_than_it_runs(capsys, tmp_path):
    """2^31 - 1 replicas of a process were a generator each, made before the run: minutes of
    silence. Found by pto-fuzz."""
    from pto_wsp.tools import pto_run

    text = (ROOT / "examples" / "work_steal.mlir").read_text()
    path = tmp_path / "many.mlir"
    path.write_text(text.replace("replicas(4)", "replicas(2147483647)"))
    code = pto_run.main([str(path), "--mode", "cycles", "--bind", "batch_size=2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "many.mlir:25:3: tg.process @worker has 2,147,483,647 replicas" in err, err
    assert "the simulator runs at most 65,536" in err


def test_a_loop_of_no_task_is_not_walked(capsys, tmp_path):
    """A Ragged row of 2^31 elements whose body makes no task ran 2^31 empty iterations
    (a hang to pto-fuzz); a loop that does nothing is not emitted."""
    from pto_wsp.tools import pto_run

    path = tmp_path / "empty.mlir"
    path.write_text(
        "wsp.kernel @k(r: index, j: index) unit(vector)\n"
        "wsp.workload @w(%n: index, %lengths: memref<?xindex>) {\n"
        "  %rows = wsp.ragged %n, %lengths : memref<?xindex>\n"
        '  wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {\n  }\n}\n'
    )
    args = ["--mode", "cycles", "--quiet", "--bind", "n=1", "--bind", "lengths=[2147483648]"]
    assert pto_run.main([str(path), *args]) == 0, capsys.readouterr().err


def test_progress_in_a_log_is_a_line_every_few_seconds(capsys):
    """Off a terminal (a log, CI) a long run says every 10 s how far it got."""
    from pto_wsp.tools.pto_run import _Progress

    now = [100.0]
    progress = _Progress(terminal=False, every=10.0, clock=lambda: now[0])
    for t, created in ((105.0, 8192), (110.5, 16384), (115.0, 24576), (121.0, 32768)):
        now[0] = t
        progress(created, created - 3)
    progress.finish()
    assert capsys.readouterr().err.splitlines() == [
        "pto-run: 16,384 tasks created, 16,381 completed after 10 s",
        "pto-run: 32,768 tasks created, 32,765 completed after 21 s",
    ]
