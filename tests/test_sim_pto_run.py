"""``pto-run``: every example runs; traces, Gantt charts and stats files are written; bad
input is one error line, never a traceback (issue 5, item 4)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pto_wsp.tools.pto_run import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

MOE = ["--bind", "batch_size=4", "--bind", "indptr=[0,2,5,7,10]"]
MOE += ["--bind", "indices=[1,3,0,2,4,1,5,0,3,7]"]

# The bindings each example needs in cycles mode (tensors need none there).
CYCLES = {
    "attention": ["--bind", "batch_size=2", "--bind", "seq_lens=[100,2000]"],
    "attention_module": ["--workload", "attention", "--bind", "batch=2"],
    "megakernel": ["--bind", "num_tiles=5"],
    "moe": MOE,
    "scan": ["--bind", "n=6"],
    "three_stage": ["--bind", "batch_size=4"],
    "tiered": ["--bind", "batch_size=3", "--bind", "seq_lens=[100,5000,20000]"],
    "transformer_layer": ["--bind", "n=2"],
    "work_steal": ["--bind", "batch_size=2"],
}


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(CYCLES))
def test_every_mlir_example_runs_in_cycles_mode(capsys, name):
    code, out, err = run(capsys, EXAMPLES / f"{name}.mlir", "--mode", "cycles", *CYCLES[name])
    assert code == 0, err
    assert "makespan" in out and "Traceback" not in err


@pytest.mark.parametrize("name", sorted(CYCLES))
def test_every_python_example_runs(capsys, name):
    args = [EXAMPLES / f"{name}.py", "--mode", "cycles", *CYCLES[name]]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert "makespan" in out


def test_functional_run_of_a_python_example_writes_outputs(capsys, tmp_path):
    x = np.arange(4 * 256, dtype=np.float32).reshape(4, 256)
    np.save(tmp_path / "x.npy", x)
    stats, trace, gantt = tmp_path / "s.json", tmp_path / "t.json", tmp_path / "g.png"
    code, out, err = run(
        capsys,
        EXAMPLES / "three_stage.py",
        "--bind",
        "batch_size=4",
        "--bind",
        f"input=@{tmp_path / 'x.npy'}",
        "--bind",
        "work=zeros(4,256)",
        "--bind",
        "output=zeros(4,256)",
        "--save",
        f"output={tmp_path / 'y.npy'}",
        "--workers",
        "2",
        "--stats-json",
        stats,
        "--trace",
        trace,
        "--gantt",
        gantt,
    )
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), 2 * x)
    data = json.loads(stats.read_text())
    assert data["num_tasks"] == 12 and data["num_workers"] == 2 and data["mode"] == "functional"
    events = json.loads(trace.read_text())["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert len(slices) == 12
    assert {e["tid"] for e in slices} == {0, 1}
    assert any(e["name"] == "compute_kernel(b=3)" for e in slices)
    assert gantt.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_outputs_are_written_at_the_paths_given(capsys, tmp_path):
    """No extension is added: ``--gantt g`` is a PNG named g, ``--save out=y.bin`` an .npy
    file named y.bin."""
    args = [EXAMPLES / "scan.py", "--bind", "n=3", "--bind", "in=rand(3,64)"]
    args += ["--bind", "out=zeros(3,64)", "--save", f"out={tmp_path / 'y.bin'}"]
    code, out, err = run(capsys, *args, "--gantt", tmp_path / "g")
    assert code == 0, err
    assert f"gantt: {tmp_path / 'g'}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g", "y.bin"]
    assert (tmp_path / "g").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.load(tmp_path / "y.bin").shape == (3, 64)


@pytest.mark.parametrize("outlined", [True, False])
def test_gantt_draws_one_bar_per_task_on_its_worker(tmp_path, monkeypatch, outlined):
    """The Gantt chart: every task a rectangle from its start to its end on its worker's row,
    in its kernel's colour, all in one collection (one artist however many tasks: a chart of
    55,000 tasks took a minute as one bar artist each); outlined up to ``_OUTLINED`` tasks."""
    import matplotlib.figure
    from matplotlib.collections import PolyCollection

    from pto_wsp.runtime import trace

    monkeypatch.setattr(trace, "_OUTLINED", 100 if outlined else 4)
    figures = []
    save = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(
        matplotlib.figure.Figure,
        "savefig",
        lambda fig, *a, **k: (figures.append(fig), save(fig, *a, **k)),
    )
    import runpy

    import pto_wsp

    example = runpy.run_path(str(EXAMPLES / "three_stage.py"), run_name="example")
    prog = pto_wsp.compile(example["functional"](), target="cpu_sim", mode="cycles", workers=3)
    prog.bind(batch_size=5).execute()
    trace.write_gantt(prog, str(tmp_path / "g.png"))
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (ax,) = [a for a in figures[0].axes if a.collections]
    (bars,) = ax.collections
    assert isinstance(bars, PolyCollection)
    tasks = prog.schedule_of()
    assert len(bars.get_paths()) == len(tasks) == 15
    kernels = sorted({t["kernel"] for t in tasks})
    for path, color, t in zip(bars.get_paths(), bars.get_facecolors(), tasks):
        (x0, y0), (x1, y1) = path.vertices.min(axis=0), path.vertices.max(axis=0)
        assert (x0, x1) == (t["start"], t["end"]) and (y0 + y1) / 2 == t["worker"]
        expected = matplotlib.colormaps["tab10"](kernels.index(t["kernel"]))
        assert tuple(color) == pytest.approx(expected)
    assert (bars.get_linewidths()[0] > 0) == outlined
    assert len(ax.texts) == len(tasks)  # coordinates as labels: at most 64 tasks


def test_trace_shows_streams_and_stalls(capsys, tmp_path):
    trace = tmp_path / "t.json"
    code, _, err = run(
        capsys,
        EXAMPLES / "megakernel.mlir",
        "--mode",
        "cycles",
        "--bind",
        "num_tiles=6",
        "--trace",
        trace,
    )
    assert code == 0, err
    events = json.loads(trace.read_text())["traceEvents"]
    stalls = [e for e in events if e["ph"] == "b"]
    assert stalls and all(":" in e["name"] for e in stalls)
    code, _, err = run(
        capsys,
        EXAMPLES / "attention.mlir",
        "--mode",
        "cycles",
        *CYCLES["attention"],
        "--trace",
        trace,
    )
    names = {
        e["args"]["name"]
        for e in json.loads(trace.read_text())["traceEvents"]
        if e["ph"] == "M" and "name" in e["args"]
    }
    assert "stream 0 (worker 0)" in names and "stream 1 (worker 1)" in names


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.mlir"], "pto-run: error: cannot open input file 'missing.mlir'"),
        ([EXAMPLES / "moe.mlir", "--bind", "x"], "pto-run: error: bad binding 'x'"),
        ([EXAMPLES / "moe.mlir", "--bind", "x=@nope.npy"], "pto-run: error: cannot load x"),
        ([EXAMPLES / "moe.mlir", "--bind", "x=foo"], "is not an integer"),
        (
            [EXAMPLES / "moe.mlir", "--bind", "indptr=[0,1.5]"],
            "pto-run: error: indptr=[0,1.5]: a list binds integers (lengths, CSR arrays), in rows",
        ),
        ([EXAMPLES / "moe.mlir", "--bind", "indptr=[[0,1],[2]]"], "indptr=[[0,1],[2]]: setting"),
        (
            [EXAMPLES / "moe.mlir", "--bind", "indptr=[0,99999999999999999999999]"],
            "indptr=[0,99999999999999999999999]: Python int too large",
        ),
        (  # the API's hint, as pto-run spells it
            [EXAMPLES / "moe.mlir", "--mode", "cycles"],
            "pto-run: error: @moe needs a value for batch_size (--bind batch_size=...)",
        ),
        (
            [EXAMPLES / "scan.py", "--bind", "n=2"],
            "tensor 'in' is not bound (the functional mode runs @scan_first's body on it: "
            "--bind in=@file.npy)",
        ),
        ([EXAMPLES / "moe.mlir", "--bind", "nope=1"], "@moe has no argument 'nope'"),
        (
            [EXAMPLES / "attention_module.mlir"],
            f"pto-run: error: {EXAMPLES / 'attention_module.mlir'}: the module has several "
            "workloads or pipelines (@attention, @megakernel); choose one with --workload NAME",
        ),
        (
            [EXAMPLES / "scan.mlir", "--workers", "0", "--bind", "n=3"],
            f"pto-run: error: {EXAMPLES / 'scan.mlir'}: workers must be",
        ),
        (  # a schedule that is not there: an error, not another schedule (or none) run
            [EXAMPLES / "scan.mlir", "--schedule", "nope", "--bind", "n=3"],
            f"pto-run: error: {EXAMPLES / 'scan.mlir'}: no schedule @nope (the module's "
            "schedules: none)",
        ),
        (
            [EXAMPLES / "moe.mlir", "--schedule", "moe_schedule", *MOE],
            "no schedule @moe_schedule (the module's schedules: @moe_sched)",
        ),
        (
            [EXAMPLES / "scan.mlir", "--workload", "nope", "--bind", "n=3"],
            f"pto-run: error: {EXAMPLES / 'scan.mlir'}: no workload or pipeline @nope",
        ),
        (  # 10^13 tasks: refused before the loop runs
            [EXAMPLES / "scan.mlir", "--mode", "cycles", "--bind", "n=10000000000000"],
            "pto-run: error: out of memory (@scan: a loop of 9999999999999 tasks, more than",
        ),
    ],
)
def test_bad_input_is_one_error_line(capsys, args, message):
    code, _, err = run(capsys, *args)
    assert code == 1
    assert message in err
    assert "Traceback" not in err
    assert "pto_run.py" not in err  # (the API names its caller's line: not pto-run's own)


def test_an_empty_module_has_nothing_to_run(capsys, tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("// nothing here\n")
    code, _, err = run(capsys, empty)
    assert code == 1
    assert err == f"pto-run: error: {empty}: the module has no workload or pipeline to run\n"


def test_a_named_schedule_runs(capsys):
    args = [EXAMPLES / "moe.mlir", "--mode", "cycles", "--schedule", "moe_sched", *MOE]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert "tasks" in out


def test_parse_errors_point_at_the_input(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("wsp.kernel @k(x: in memref<4xf32>) unit(vector) cost(1)\nwsp.bogus\n")
    code, _, err = run(capsys, bad)
    assert code == 1
    assert f"{bad}:2:1: error:" in err


def test_a_value_of_another_region_is_a_parse_error_not_a_name_error(capsys, tmp_path):
    """The megakernel with the loader's loop index renamed: its uses of %i would name the
    computer's coordinate (xDSL's parser resolves them there, pto-wsp's does not). An error
    at the first use, not a NameError of the generated code."""
    text = (EXAMPLES / "megakernel.mlir").read_text()
    assert text.count("wsp.for_each %i in %tiles") == 1
    bad = tmp_path / "mega.mlir"
    bad.write_text(text.replace("wsp.for_each %i in %tiles", "wsp.for_each %zz in %tiles"))
    code, out, err = run(capsys, bad, "--mode", "cycles", "--bind", "num_tiles=3")
    line = 1 + text[: text.index("%src = wsp.view %input[%i]")].count("\n")
    assert code == 1 and "Traceback" not in err and "NameError" not in err
    assert f"{bad}:{line}:" in err and "use of undeclared SSA value %i" in err


def test_a_division_by_zero_in_a_schedule_key_is_one_error_line(capsys, tmp_path):
    text = (EXAMPLES / "three_stage.mlir").read_text()
    bad = tmp_path / "zero.mlir"
    bad.write_text(
        text
        + """
sched.schedule @zero for @three_stage {
  sched.dispatch dispatch_by key(%b = "b") {
    %c0 = arith.constant 0 : index
    %w = arith.remui %b, %c0 : index
    sched.yield %w : index
  }
}
"""
    )
    for fast in ("cycles", "functional"):
        args = ["--schedule", "zero", "--mode", fast, "--bind", "batch_size=3"]
        code, _, err = run(capsys, bad, *args)
        assert code == 1 and "Traceback" not in err
        assert "@three_stage: " in err and "zero.mlir:32:10: arith.remui: division by zero" in err


@pytest.mark.parametrize("cost", ["9223372036854775807", "9007199254740992"])
def test_a_kernel_cost_past_the_virtual_clock_is_one_error_line(capsys, tmp_path, cost):
    # (virtual time is a float64: a constant cost of 2^53 or more is refused at compile)
    text = (EXAMPLES / "three_stage.mlir").read_text()
    bad = tmp_path / "cost.mlir"
    bad.write_text(text.replace("cost(200)", f"cost({cost})", 1))
    code, _, err = run(capsys, bad, "--bind", "batch_size=2")
    assert code == 1 and "Traceback" not in err and "internal error" not in err
    assert f"kernel @compute_kernel: cost {cost} is not in [0, 2^53)" in err


def test_a_failing_kernel_is_reported(capsys, tmp_path):
    script = tmp_path / "boom.py"
    script.write_text(
        "from pto_wsp import *\n"
        "@kernel\n"
        "def k(i, y: Out[f32[4]]):\n"
        "    raise RuntimeError('boom')\n"
        "Y = Tensor('Y', [3, 4], f32)\n"
        "w = parallel_for(Dense[3], lambda i: task(k, [i], [Y[i]])).named('w')\n"
    )
    code, _, err = run(capsys, script, "--bind", "Y=zeros(3,4)")
    assert code == 1
    assert "pto-run: error: task 0 (kernel @k, i=0) failed: RuntimeError: boom" in err


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import pto_wsp\nx = undefined_name\n", "{f}:2: NameError: name 'undefined_name'"),
        ("def f(:\n", "{f}:1:7: SyntaxError: invalid syntax"),
        (  # the program's entry function fails, inside a helper of its own
            "def helper():\n    return 1 / 0\ndef functional():\n    return helper()\n",
            "{f}:2: ZeroDivisionError: division by zero",
        ),
        (  # pto-wsp's own error, which names its place already
            "from pto_wsp import *\nX = Tensor('X', [None, 4], f32)\n@kernel\n"
            "def k(i, x: In[f32[5]]): pass\n"
            "w = parallel_for(Dense[2], lambda i: task(k, [i], [X[i]])).named('w')\n",
            "{f}:5: task: resource 'x' of @k must be memref<5xf32>",
        ),
        (  # what the entry gives is not something to run
            "def functional():\n    return 42\n",
            "{f}: functional() is int 42, not a module, workload or schedule to run",
        ),
        (  # the program ends itself (any code: pto-run's exit code stays 1)
            "import sys\nsys.exit(3)\n",
            "{f}: the program exited (sys.exit(3)) before giving what to run",
        ),
        ("import sys\nsys.exit(0)\n", "{f}: the program exited (sys.exit(0))"),
    ],
)
def test_a_failing_python_program_is_one_error_line_at_its_place(capsys, tmp_path, source, message):
    script = tmp_path / "prog.py"
    script.write_text(source)
    code, _, err = run(capsys, script)
    assert code == 1 and "Traceback" not in err
    assert err.strip().count("\n") == 0
    assert f"pto-run: error: {message.format(f=script)}" in err


def test_console_script_is_installed():
    result = subprocess.run(
        [sys.executable, "-m", "pto_wsp.tools.pto_run", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and "--stats-json" in result.stdout


def _run_on_terminal(*args: str) -> tuple[int, str, str]:
    """Run pto-run with its standard error on a pseudo-terminal (where progress shows)."""
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pto_wsp.tools.pto_run", *args],
            stderr=slave,
            stdout=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal's other side is closed: all read
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = re.sub(r"\r\n", "\n", b"".join(chunks).decode())
    return proc.returncode, proc.stdout, err


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_progress_line_on_a_terminal_for_long_runs():
    example = str(EXAMPLES / "three_stage.mlir")
    code, out, err = _run_on_terminal(example, "--mode", "cycles", "--bind", "batch_size=3000")
    assert code == 0, err
    assert "9000 tasks" in out
    # One line rewritten in place (carriage returns), ended by a newline before the summary.
    updates = [u for u in err.split("\r") if u.strip()]
    assert updates, err
    for update in updates:
        assert re.fullmatch(r"pto-run: [\d,]+ tasks created, [\d,]+ completed\n?", update), err
    assert err.endswith("\n") and "Traceback" not in err
    # --quiet: no progress, even on a terminal.
    code, out, err = _run_on_terminal(
        example, "--mode", "cycles", "--bind", "batch_size=3000", "--quiet"
    )
    assert code == 0 and "tasks created" not in err


@pytest.mark.parametrize(
    ("text", "size"),
    [("0", 0), ("1073741824", 1 << 30), ("1536M", 1536 << 20), ("8G", 8 << 30),
     ("1.5g", 3 << 29), ("2048MiB", 2 << 30), ("1048576k", 1 << 30), ("1T", 1 << 40)],
)  # fmt: skip
def test_max_memory_sizes(text, size):
    from pto_wsp.tools.pto_run import _memory_size

    assert _memory_size(text) == size


@pytest.mark.parametrize(
    ("text", "message"),
    [("abc", "is not a size"), ("-1", "is not a size"), ("5X", "is not a size"),
     ("", "is not a size"), ("1.5.2G", "is not a size"), ("512M", "is less than 1G"),
     ("1", "is less than 1G"), ("99999999999T", "is beyond this platform's address range"),
     ("8388608T", "is beyond this platform's address range")],
)  # fmt: skip
def test_a_bad_max_memory_is_a_usage_error(capsys, text, message):
    with pytest.raises(SystemExit) as exit_info:
        main([str(EXAMPLES / "scan.mlir"), "--max-memory", text])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_memory_limit_is_lifted_after_a_run(capsys):
    resource = pytest.importorskip("resource")
    before = resource.getrlimit(resource.RLIMIT_AS)
    code, out, _ = run(capsys, EXAMPLES / "scan.mlir", "--mode", "cycles", "--bind", "n=4")
    assert code == 0 and "tasks" in out
    assert resource.getrlimit(resource.RLIMIT_AS) == before


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the limit is Linux's")
def test_a_run_beyond_its_memory_is_one_error_line():
    import resource

    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        pytest.skip("an address-space limit is already set")
    # 6 * 10^7 tasks: their arrays (a few GB) would fit this machine, not the budget.
    result = subprocess.run(
        [sys.executable, "-m", "pto_wsp.tools.pto_run", str(EXAMPLES / "three_stage.py"),
         "--mode", "cycles", "--bind", "batch_size=20000000", "--max-memory", "1G"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("pto-run: error: out of memory"), result.stderr
    assert errors[0].endswith(
        "(the run may take 1 GiB: --max-memory); are the bound sizes what you meant?"
    ), result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


@pytest.mark.parametrize("flag", ["--stats-json", "--trace", "--gantt", "--save"])
def test_an_output_that_cannot_be_written_fails_before_the_run(capsys, tmp_path, flag):
    missing = tmp_path / "no" / "such" / "out.json"
    value = f"out={missing}" if flag == "--save" else str(missing)
    args = [EXAMPLES / "scan.py", "--bind", "n=3", "--bind", "in=rand(3,64)"]
    args += ["--bind", "out=zeros(3,64)", flag, value]
    code, out, err = run(capsys, *args)
    assert code == 1
    assert err == f"pto-run: error: cannot write {missing}: No such directory '{missing.parent}'\n"
    assert out == ""  # nothing ran: not even compiled
    code, out, err = run(capsys, *args[:-1], f"out={tmp_path}" if flag == "--save" else tmp_path)
    assert code == 1 and err == f"pto-run: error: cannot write {tmp_path}: Is a directory\n"


def test_saving_an_unbound_name_fails_before_the_run(capsys, tmp_path):
    args = [EXAMPLES / "scan.mlir", "--mode", "cycles", "--bind", "n=3"]
    code, out, err = run(capsys, *args, "--save", f"out={tmp_path / 'o.npy'}")
    assert code == 1 and out == ""
    assert err == "pto-run: error: --save out: out is not bound\n"


@pytest.mark.parametrize("name", sorted(CYCLES))
def test_a_lowered_module_runs_as_its_source(name):
    """pto-opt's output (wsp-to-tg, csp-to-tg) runs as it is: the same schedule, task by task,
    as the module it was lowered from."""
    import contextlib
    import io

    from xdsl.context import Context

    from pto_wsp.lowering.cpu.backend import compile_cpu_sim
    from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
    from pto_wsp.tools.diagnostics import parse_located
    from pto_wsp.tools.pto_run import parse_binding

    args, binds, options = iter(CYCLES[name]), {}, {}
    for flag in args:
        value = next(args)
        if flag == "--workload":
            options["workload"] = value
        else:
            binds.update([parse_binding(value)])
    source = parse_located((EXAMPLES / f"{name}.mlir").read_text(), f"{name}.mlir")
    lowered = source.clone()
    with contextlib.redirect_stderr(io.StringIO()):  # (the examples' warnings)
        WspToTgPass().apply(Context(), lowered)
        CspToTgPass().apply(Context(), lowered)
    if name == "transformer_layer":  # its callees stay programs of their own
        options["workload"] = name
    runs = []
    for module in (source, lowered):
        with contextlib.redirect_stderr(io.StringIO()):
            prog = compile_cpu_sim(module, mode="cycles", **options)
        prog.bind(**binds).execute()
        runs.append((prog.stats().makespan_cycles, prog.schedule_of()))
    assert runs[0] == runs[1]


def test_pto_run_takes_pto_opt_output(capsys, tmp_path):
    from pto_wsp.tools.pto_opt import main as pto_opt

    lowered = tmp_path / "scan_tg.mlir"
    assert pto_opt([str(EXAMPLES / "scan.mlir"), "-p", "wsp-to-tg", "-o", str(lowered)]) == 0
    code, out, err = run(capsys, lowered, "--mode", "cycles", "--bind", "n=3")
    assert code == 0, err
    assert "3 tasks" in out and "makespan 30 cycles" in out
    # A materialized graph is one run's graph, not a program: said so.
    graph = tmp_path / "scan_graph.mlir"
    passes = 'wsp-to-tg,tg-materialize{bind="n=3"}'
    assert pto_opt([str(EXAMPLES / "scan.mlir"), "-p", passes, "-o", str(graph)]) == 0
    code, out, err = run(capsys, graph, "--mode", "cycles")
    assert code == 1
    assert "the module has only materialized task graphs (tg.graph @scan" in err


def _attention_with_priority(tmp_path, body: str) -> Path:
    """examples/attention.mlir with an issue priority key of ``body`` (over b, yielding %p)."""
    text = (
        (EXAMPLES / "attention.mlir")
        .read_text()
        .replace(
            "  sched.timing immediate\n}",
            f'  sched.issue priority key(%b = "b") {{\n{body}\n    sched.yield %p : index\n  }}\n'
            "  sched.timing immediate\n}",
        )
    )
    path = tmp_path / "attention_priority.mlir"
    path.write_text(text)
    return path


ATTENTION = ["--bind", "batch_size=3", "--bind", "seq_lens=[5,9,1]"]
BEYOND_64_BITS = """    %m = arith.constant 9223372036854775807 : index
    %p = arith.addi %m, %m : index"""


def test_a_key_beyond_64_bits_wraps_natively_and_is_an_error_on_the_reference(capsys, tmp_path):
    """A schedule key whose arithmetic leaves 64 bits: the native path computes it as MLIR
    defines ``arith.addi`` (two's complement: 2^64 - 2 is -2, the run equals one with -2);
    the reference engine, computing with Python ints, says which task's key does not fit."""
    from pto_wsp.lowering.cpu.backend import compile_cpu_sim
    from pto_wsp.tools.pto_run import _load_module

    runs = []
    for key in (BEYOND_64_BITS, "    %p = arith.constant -2 : index"):
        path = _attention_with_priority(tmp_path, key)
        stats = tmp_path / "stats.json"
        code, _, err = run(capsys, path, "--mode", "cycles", *ATTENTION, "--stats-json", stats)
        assert code == 0, err
        runs.append({k: v for k, v in json.loads(stats.read_text()).items() if "_ms" not in k})
    assert runs[0] == runs[1]
    path = _attention_with_priority(tmp_path, BEYOND_64_BITS)
    program = compile_cpu_sim(_load_module(str(path)), mode="cycles", fast=False)
    program.bind(batch_size=3, seq_lens=[5, 9, 1])
    with pytest.raises(ValueError, match="task 0 .kernel 'attention_kernel' at") as error:
        program.execute()
    expected = "its issue priority is 18446744073709551614, which does not fit in 64 bits"
    assert expected in str(error.value)


def test_an_index_literal_is_a_64_bit_pattern(capsys, tmp_path):
    """``18446744073709551615 : index`` is -1, as MLIR reads it: the run equals the one with
    -1; a literal beyond 64 bits is a parse error at its place."""
    runs = []
    for literal in ("18446744073709551615", "-1"):
        path = _attention_with_priority(tmp_path, f"    %p = arith.constant {literal} : index")
        stats = tmp_path / f"{literal}.json"
        code, _, err = run(capsys, path, "--mode", "cycles", *ATTENTION, "--stats-json", stats)
        assert code == 0, err
        runs.append(json.loads(stats.read_text()))
    for run_stats in runs:
        run_stats.pop("compile_time_ms", None), run_stats.pop("execute_time_ms", None)
        run_stats.pop("phases_ms", None)
    assert runs[0] == runs[1]
    path = _attention_with_priority(
        tmp_path, "    %p = arith.constant 18446744073709551616 : index"
    )
    code, _, err = run(capsys, path, "--mode", "cycles", *ATTENTION)
    assert code == 1 and "Traceback" not in err
    assert ":32:25: error: integer constant out of range for attribute" in err, err


def test_a_bug_is_an_internal_error_line_exit_2(capsys, monkeypatch):
    """An unexpected exception (a bug in pto-wsp, not in the input) is one `internal error`
    line and exit 2, as pto-opt says it; PTO_WSP_TRACEBACK=1 lets it through."""
    from pto_wsp.runtime import program as program_module

    def broken(self, progress=None):
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.setattr(program_module.Program, "execute", broken)
    monkeypatch.delenv("PTO_WSP_TRACEBACK", raising=False)
    code, _, err = run(capsys, EXAMPLES / "scan.mlir", "--mode", "cycles", "--bind", "n=3")
    assert code == 2 and "Traceback" not in err
    assert err.startswith(
        "pto-run: internal error: OverflowError: Python int too large to convert to C long\n"
    )
    assert "PTO_WSP_TRACEBACK=1" in err
    monkeypatch.setenv("PTO_WSP_TRACEBACK", "1")
    with pytest.raises(OverflowError):
        main([str(EXAMPLES / "scan.mlir"), "--mode", "cycles", "--bind", "n=3"])


def test_precompile_builds_the_native_core(capsys):
    """``pto-run --precompile`` (alone) and ``pto_wsp.runtime.precompile()``: the one one-time
    build, the native core's shared library."""
    from pto_wsp.runtime import precompile

    code, out, err = run(capsys, "--precompile")
    assert code == 0, err
    assert out.startswith("pto-run: the native runtime core is ready (")
    path = precompile()
    assert path.exists() and str(path) in out
