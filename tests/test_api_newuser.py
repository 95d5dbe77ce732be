"""What a new user met, first thing, with seed 001 open: each fixed and kept so.

A numpy array indexed by a loop index says to declare a Tensor; errors raised from Python
speak Python (``stub_kernels=True``) in one line, with no chained traceback holding the
module; the work-stealing example compiles without warnings; ``pto-run`` reads stdin and
``.pto`` files; the trace writers are exported and write files.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pto_wsp
from pto_wsp import (
    CompileError,
    Dense,
    InOut,
    Replicate,
    Tensor,
    compile,
    f32,
    kernel,
    parallel_for,
    task,
)
from pto_wsp.tools.pto_run import main as pto_run

REPO = Path(__file__).resolve().parents[1]


@kernel(cost=10)
def bump(i, x: InOut[f32[4]]):
    x[...] += i + 1


X = Tensor("X", [3, 4], f32)


def test_numpy_array_indexed_by_a_loop_index_says_declare_a_tensor():
    lens = np.array([1, 2, 3])
    with pytest.raises(CompileError) as info:
        parallel_for(Dense[3], lambda b: task(bump, [lens[b]], [X[b]]))
    error = info.value
    assert error.loc.filename == __file__  # the user's line, not numpy's
    assert "cannot index a numpy array" in str(error) and "Tensor(" in str(error)
    assert "\n" not in str(error)


def test_list_indexed_by_a_loop_index_says_declare_a_tensor():
    lens = [1, 2, 3]
    with pytest.raises(CompileError) as info:
        parallel_for(Dense[3], lambda b: task(bump, [lens[b]], [X[b]]))
    assert info.value.loc.filename == __file__
    assert "Python int" in str(info.value) and "Tensor(" in str(info.value)


def test_ascend_errors_use_python_spelling_in_one_line(tmp_path):
    w = parallel_for(Dense[3], lambda i: task(bump, [i], [X[i]])).named("w")
    with pytest.raises(CompileError) as info:
        compile(w, target="ascend", out_dir=tmp_path)  # bump has no Ascend body
    error = info.value
    message = str(error)
    assert "stub_kernels=True" in message and "stub-kernels" not in message
    assert '@kernel(impls={"ascend": "path/bump.cpp"})' in message
    assert "\n" not in message
    assert error.__cause__ is None and error.__suppress_context__  # no chained module text


@pytest.mark.parametrize("target", ["cpu_sim", "ascend"])
def test_several_schedules_say_the_compile_option(target, tmp_path):
    w = parallel_for(Dense[3], lambda i: task(bump, [i], [X[i]])).named("w")
    m = pto_wsp.module(w.schedule("a").streams(2), w.schedule("b").streams(3))
    options = {"stub_kernels": True, "out_dir": tmp_path} if target == "ascend" else {}
    with pytest.raises(CompileError) as info:
        compile(m, target=target, **options)
    assert 'choose one with schedule="NAME"' in str(info.value)
    assert "wsp-to-tg{" not in str(info.value)
    compile(m, target=target, schedule="b", **options)  # what it says works


def test_invalid_ir_error_holds_no_module_text():
    # A layout entry per tensor dimension: one for a 2-d tensor is invalid IR.
    w = parallel_for(Dense[3], lambda i: task(bump, [i], [X[i]])).named("w")
    schedule = w.schedule().spatial_map((3,)).layout(X, Replicate())
    with pytest.raises(CompileError) as info:
        schedule.module()
    error = info.value
    assert "\n" not in str(error) and "builtin.module" not in str(error)
    assert error.__cause__ is None and error.__suppress_context__


def test_work_steal_example_compiles_without_warnings(capfd, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "examples"))
    import work_steal

    for build in (work_steal.functional, work_steal.decorator):
        program = compile(build(), target="cpu_sim", mode="cycles")
        program.bind(batch_size=2).execute()
        assert program.stats().num_tasks == 16
    assert "warning" not in capfd.readouterr().err


def _mlir() -> str:
    return str(parallel_for(Dense[3], lambda i: task(bump, [i], [X[i]])).named("w").module())


def test_pto_run_reads_stdin(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_mlir().encode())))
    code = pto_run(["-", "--mode", "cycles", "--stats-json", str(tmp_path / "s.json")])
    assert code == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "s.json").read_text())["num_tasks"] == 3


def test_pto_run_locates_errors_on_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"wsp.kernel @k(\n")))
    assert pto_run(["-"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("<stdin>:2:1: error:") and "Traceback" not in err


def test_pto_run_reads_pto_files(capsys, tmp_path):
    path = tmp_path / "moe.pto"
    path.write_text(
        "// PTO Module: moe\n// Version: 9.0\n// Target: cpu_sim\n\n"
        "@workload moe() {\n"
        "  parallel_for %b in %batch {\n"
        "    select %e in %route[%b] {\n"
        "      task @expert(%b, %e) resources(%X[%b], %W[%e])\n"
        "    }\n  }\n}\n"
    )
    args = [str(path), "--mode", "cycles", "--bind", "X=zeros(3,4)", "--bind", "W=zeros(2,4)"]
    args += ["--bind", "batch=3", "--bind", "route_outer=3", "--bind", "route_indptr=[0,2,2,3]"]
    args += ["--bind", "route_indices=[1,0,1]", "--stats-json", str(tmp_path / "s.json")]
    code = pto_run(args)
    assert code == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "s.json").read_text())["num_tasks"] == 3


def test_pto_run_locates_pto_errors(capsys, tmp_path):
    path = tmp_path / "bad.pto"
    path.write_text(
        "// PTO Module: m\n// Version: 9.0\n// Target: cpu_sim\n@workload w() {\n}\n}\n"
    )
    assert pto_run([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:6:1: error:") and "Traceback" not in err


def test_trace_writers_are_exported_and_write_files(tmp_path):
    assert {"chrome_trace", "write_gantt"} <= set(pto_wsp.__all__)
    program = compile(parallel_for(Dense[3], lambda i: task(bump, [i], [X[i]])).named("w"))
    program.bind(X=np.zeros((3, 4), np.float32)).execute()
    trace = pto_wsp.chrome_trace(program, tmp_path / "t.json")
    written = json.loads((tmp_path / "t.json").read_text())
    assert written == json.loads(json.dumps(trace))
    assert len([e for e in written["traceEvents"] if e["ph"] == "X"]) == 3
    assert pto_wsp.chrome_trace(program) == trace  # no path: only the dict
    program.write_trace(tmp_path / "t2.json")
    assert json.loads((tmp_path / "t2.json").read_text()) == written
    pytest.importorskip("matplotlib")
    pto_wsp.write_gantt(program, tmp_path / "g.png")
    program.write_gantt(tmp_path / "g2.png")
    for name in ("g.png", "g2.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


CALL_WITH_SCHEDULE = """
wsp.kernel @k(i: index, j: index) unit(vector)
wsp.workload @main(%n: index) {
  %is = wsp.dense_dyn %n
  wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {
    wsp.call @leaf(%i : index) schedule(@by_j)
  }
}
wsp.workload @leaf(%i: index) level(npu) {
  %js = wsp.dense 4
  wsp.parallel_for %j in %js named("j") : !wsp.dense<4> {
    wsp.task @k(%i, %j : index, index) resources()
  }
}
sched.schedule @by_j for @leaf {
  sched.dispatch affinity("j")
}
sched.schedule @by_i for @main {
  sched.dispatch affinity("i")
}
"""


def test_a_calls_own_schedule_places_its_tasks():
    """The call's schedule(@by_j) places the callee's tasks (worker j), not the caller's
    affinity(i)."""
    from xdsl.parser import Parser

    from pto_wsp.tools.diagnostics import universe_context

    module = Parser(universe_context(), CALL_WITH_SCHEDULE).parse_module()
    program = compile(module, target="cpu_sim", mode="cycles", workers=4)
    program.bind(n=3).execute()
    tasks = program.schedule_of()
    assert len(tasks) == 12
    assert all(t["worker"] == t["coords"]["j"] for t in tasks)
