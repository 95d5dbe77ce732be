"""When the simulator's compiled code is loaded: numba's cache on this machine asked first
(runtime/jitcache.py), a compilation priced as one (fastsched.FAST_MIN_TASKS_COLD,
bulk_kernels.LOAD_AFTER_COLD), ``precompile()`` and ``pto-run --precompile``."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from pto_wsp import Dense, In, Out, Tensor, f32, kernel, parallel_for, task
from pto_wsp.runtime import bulk_kernels, fastsched, jitcache
from pto_wsp.runtime.fastsched import FastRun
from pto_wsp.tools import pto_run

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def test_precompile_leaves_everything_in_numbas_cache():
    """After precompile() (compiled or loaded), numba's cache holds the scheduler and every
    batch kernel: what on_disk reads from numba's index agrees with numba itself."""
    parts = jitcache.precompile()
    assert [p[0] for p in parts] == ["scheduler", "batch kernels"]
    assert all(seconds >= 0 and where for _, _, seconds, where in parts)
    assert fastsched.loaded() and fastsched.on_disk() and bulk_kernels.on_disk()
    assert jitcache.on_disk(fastsched.schedule) and jitcache.on_disk(bulk_kernels._replay_nb)
    # Loaded from the cache, numba counts a hit, not a compilation, for what is on disk.
    assert jitcache.cache_dir(fastsched.schedule)


def test_an_empty_cache_holds_nothing(tmp_path):
    """With numba's cache elsewhere (a new machine, as far as numba knows), neither part is
    on disk — asked without compiling anything."""
    code = (
        "import time\n"
        "from pto_wsp.runtime import bulk_kernels, fastsched\n"
        "t = time.perf_counter()\n"
        "print(fastsched.on_disk(), bulk_kernels.on_disk(), fastsched.loaded())\n"
        "assert time.perf_counter() - t < 5, 'compiled?'\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False", "False"]


def test_on_disk_of_something_else_is_false():
    assert not jitcache.on_disk(object())
    assert not jitcache.on_disk(lambda: 0)
    assert jitcache.cache_dir(object()) is None


def test_a_compilation_is_priced_as_one(monkeypatch):
    """Not in numba's cache, loading the scheduler means compiling it: the general engine
    runs until the process's runs reach FAST_MIN_TASKS_COLD tasks; in the cache, the
    price is FAST_MIN_TASKS."""
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 10)
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS_COLD", 100)
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    cold = [True]
    monkeypatch.setattr(fastsched, "on_disk", lambda: not cold[0])
    assert fastsched.load_price() == 100
    assert [fastsched.worth_loading(40) for _ in range(3)] == [False, False, True]
    assert fastsched._small_tasks == 80
    assert "FAST_MIN_TASKS_COLD (100)" in fastsched.decline_note(40)
    assert "--precompile" in fastsched.decline_note(40)
    cold[0] = False
    assert fastsched.load_price() == 10 and fastsched.worth_loading(10)
    # A price below FAST_MIN_TASKS is never taken: loading never costs less than that.
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS_COLD", 1)
    cold[0] = True
    assert fastsched.load_price() == 10


def test_small_runs_on_a_new_machine_are_not_told_to_precompile(monkeypatch):
    """Below FAST_MIN_TASKS the general engine runs whether or not the scheduler is on
    disk: the note names FAST_MIN_TASKS, not --precompile."""
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    monkeypatch.setattr(fastsched, "on_disk", lambda: False)
    assert not fastsched.worth_loading(100)
    note = fastsched.decline_note(100)
    assert f"fewer than fastsched.FAST_MIN_TASKS ({fastsched.FAST_MIN_TASKS})" in note
    assert "precompile" not in note


@kernel(cost=3)
def copy_row(i, x: In[f32[4]], y: Out[f32[4]]):
    y[...] = x


def _rows(n: int):
    X = Tensor("X", [n, 4], f32)
    Y = Tensor("Y", [n, 4], f32)
    return parallel_for(Dense(n), lambda i: task(copy_row, [i], [X[i], Y[i]]))


def test_a_program_on_a_new_machine_takes_the_general_engine(monkeypatch):
    """The scheduler neither in memory nor on disk: a run of fewer than FAST_MIN_TASKS_COLD
    tasks takes the general engine (no compilation inside the run) and says why; the
    results are the fast path's."""
    n = 64
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 8)
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    monkeypatch.setattr(fastsched, "loaded", lambda: False)
    monkeypatch.setattr(fastsched, "on_disk", lambda: False)
    prog = _rows(n).compile(target="cpu_sim", mode="functional", workers=2)
    x = np.arange(4 * n, dtype=np.float32).reshape(n, 4)
    y = np.zeros_like(x)
    prog.bind(X=x, Y=y).execute()
    assert not isinstance(prog._last(), FastRun)
    assert "--precompile" in prog.fast_declined and "FAST_MIN_TASKS_COLD" in prog.fast_declined
    np.testing.assert_array_equal(y, x)
    general = prog.schedule_of()
    # On disk (or in memory): the fast path, loading first — its own phase of the run.
    monkeypatch.setattr(fastsched, "on_disk", lambda: True)
    monkeypatch.setattr(fastsched, "load", lambda: True)  # (in memory here already)
    y[...] = 0
    prog.execute()
    assert isinstance(prog._last(), FastRun) and prog.fast_declined is None
    assert list(prog.stats().phases_ms) == ["build", "load", "schedule", "bodies"]
    np.testing.assert_array_equal(y, x)
    assert prog.schedule_of() == general


def test_batch_kernels_wait_longer_when_loading_would_compile(monkeypatch):
    """The batch path's kernels: LOAD_AFTER(_NUMBA) entries when they are in numba's cache,
    LOAD_AFTER_COLD when loading them would compile them (asked once)."""
    asked = []

    def cold() -> bool:
        asked.append(1)
        return False

    monkeypatch.setattr(bulk_kernels, "_loaded", None)
    monkeypatch.setattr(bulk_kernels, "_given", 0)
    monkeypatch.setattr(bulk_kernels, "_cold", None)
    monkeypatch.setattr(bulk_kernels, "on_disk", cold)
    monkeypatch.setattr(bulk_kernels, "LOAD_AFTER", 10)
    monkeypatch.setattr(bulk_kernels, "LOAD_AFTER_NUMBA", 10)
    monkeypatch.setattr(bulk_kernels, "LOAD_AFTER_COLD", 100)
    loads = []
    monkeypatch.setattr(bulk_kernels, "load", lambda: loads.append(1) or True)
    assert not bulk_kernels._use(5)  # under LOAD_AFTER: not even asked
    assert not asked
    assert [bulk_kernels._use(30) for _ in range(3)] == [False, False, False]  # 35, 65, 95
    assert len(asked) == 1 and not loads
    assert bulk_kernels._use(10) and loads == [1]  # 105 >= LOAD_AFTER_COLD
    # In the cache: loaded at LOAD_AFTER.
    monkeypatch.setattr(bulk_kernels, "_given", 0)
    monkeypatch.setattr(bulk_kernels, "_cold", None)
    monkeypatch.setattr(bulk_kernels, "on_disk", lambda: True)
    assert bulk_kernels._use(10) and loads == [1, 1]


def test_pto_run_precompile(capsys):
    """``pto-run --precompile`` alone: compiles or loads, says which and where, exit 0."""
    jitcache.precompile()  # compiled on this machine by now
    assert pto_run.main(["--precompile"]) == 0
    out = capsys.readouterr().out
    assert "compiling" not in out
    assert "scheduler: loaded from numba's cache in" in out
    assert "batch kernels: loaded from numba's cache in" in out
    assert pto_run.main(["--precompile", "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_pto_run_needs_a_file_or_precompile(capsys):
    with pytest.raises(SystemExit) as info:
        pto_run.main([])
    assert info.value.code == 2
    assert "required: file" in capsys.readouterr().err


def test_pto_run_notes_a_large_run_on_a_new_machine(monkeypatch, capsys):
    """A run of FAST_MIN_TASKS tasks or more that took the general engine because the
    scheduler is not compiled on this machine: pto-run says so and how to compile it."""
    monkeypatch.setattr(fastsched, "FAST_MIN_TASKS", 4096)
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    monkeypatch.setattr(fastsched, "loaded", lambda: False)
    monkeypatch.setattr(fastsched, "on_disk", lambda: False)
    path = os.path.join(EXAMPLES, "transformer_layer.mlir")
    args = [path, "--mode", "cycles", "--bind", "n=400"]
    assert pto_run.main(args) == 0
    out, err = capsys.readouterr()
    assert "4400 tasks" in out
    assert "note: this run took the general engine" in err and "--precompile" in err
    assert "runs of 4,096 tasks or more take it" in err
    # Small runs (the examples' usual sizes): no note.
    monkeypatch.setattr(fastsched, "_small_tasks", 0)
    assert pto_run.main([path, "--mode", "cycles", "--bind", "n=2"]) == 0
    assert "note" not in capsys.readouterr().err


def test_small_runs_never_import_numba():
    """A process whose runs all take the general engine (fewer than FAST_MIN_TASKS tasks)
    never imports numba (~0.3 s): not for a Program's runs in either mode, not for pto-run
    on an example."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from pto_wsp import DenseDyn, In, Out, Tensor, f32, kernel, parallel_for, task\n"
        "@kernel(cost=3)\n"
        "def copy_row(i, x: In[f32[4]], y: Out[f32[4]]):\n"
        "    y[...] = x\n"
        "X, Y = Tensor('X', [None, 4], f32), Tensor('Y', [None, 4], f32)\n"
        "w = parallel_for(DenseDyn(16), lambda i: task(copy_row, [i], [X[i], Y[i]]))\n"
        "x = np.ones((16, 4), np.float32); y = np.zeros_like(x)\n"
        "for mode in ('functional', 'cycles'):\n"
        "    p = w.compile(target='cpu_sim', mode=mode, workers=2)\n"
        "    p.bind(X=x, Y=y).execute()\n"
        "    assert 'FAST_MIN_TASKS' in p.fast_declined, p.fast_declined\n"
        "assert (y == 1).all()\n"
        "from pto_wsp.tools import pto_run\n"
        f"assert pto_run.main([{os.path.join(EXAMPLES, 'three_stage.mlir')!r}, '--quiet',"
        " '--mode', 'cycles', '--bind', 'batch_size=4']) == 0\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pto_run_precompiles_then_runs(capsys):
    """``--precompile FILE``: the compiled code first, then the run, which takes the fast
    path whatever its size (the scheduler is in memory)."""
    path = os.path.join(EXAMPLES, "transformer_layer.mlir")
    assert pto_run.main(["--precompile", path, "--mode", "cycles", "--bind", "n=2"]) == 0
    out = capsys.readouterr().out
    assert out.index("scheduler: ") < out.index("22 tasks")
    assert "(build " in out and "schedule " in out  # the fast path's phases


def test_pto_run_precompile_without_numba(monkeypatch, capsys):
    """Without numba there is nothing to compile: one error line, exit 1."""
    monkeypatch.setattr(fastsched, "available", lambda: False)
    monkeypatch.setattr(fastsched, "on_disk", lambda: False)
    monkeypatch.setattr(bulk_kernels, "on_disk", lambda: False)
    assert pto_run.main(["--precompile"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        "pto-run: error: --precompile: numba is not installed: the simulator runs without "
        "compiled code"
    )


def test_numba_that_does_not_compile_leaves_the_general_engine(tmp_path):
    """numba installed with its JIT disabled (NUMBA_DISABLE_JIT=1): nothing is loaded (the
    scheduler and the batch kernels would run as Python, far slower than the general engine
    and the numpy versions), a run past FAST_MIN_TASKS takes the general engine saying why,
    and pto-run --precompile is one error line."""
    code = (
        "import numpy as np\n"
        "from pto_wsp import Dense, In, Out, Tensor, f32, kernel, parallel_for, task\n"
        "from pto_wsp.runtime import fastsched\n"
        "fastsched.FAST_MIN_TASKS = 8\n"
        "@kernel(cost=3)\n"
        "def copy_row(i, x: In[f32[4]], y: Out[f32[4]]):\n"
        "    y[...] = x\n"
        "X, Y = Tensor('X', [64, 4], f32), Tensor('Y', [64, 4], f32)\n"
        "w = parallel_for(Dense(64), lambda i: task(copy_row, [i], [X[i], Y[i]]))\n"
        "x = np.ones((64, 4), np.float32); y = np.zeros_like(x)\n"
        "p = w.compile(target='cpu_sim', workers=2)\n"
        "p.bind(X=x, Y=y).execute()\n"
        "assert (y == 1).all() and not fastsched.loaded() and not fastsched.load()\n"
        "from pto_wsp.runtime import bulk_kernels\n"
        "assert not bulk_kernels.load()\n"
        "print(p.fast_declined)\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "numba's JIT is disabled (NUMBA_DISABLE_JIT)"
    run = subprocess.run(
        [sys.executable, "-m", "pto_wsp.tools.pto_run", "--precompile", "--quiet"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1 and run.stderr == (
        "pto-run: error: --precompile: numba's JIT is disabled (NUMBA_DISABLE_JIT): the "
        "simulator runs without compiled code\n"
    )
