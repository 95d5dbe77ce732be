"""seed 001 §9's four examples in the seed's spelling (examples/seed/): bare In/Out kernels,
float parameters, a numpy CSR routing table, keys reading task parameters. Each runs on the CPU
simulator and equals numpy; the placements and issue orders its schedule asks for hold."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

SEED = Path(__file__).resolve().parents[1] / "examples" / "seed"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"seed_{name}", SEED / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def attention():
    return load("attention")


def test_attention_seed_schedule(attention):
    """§9.1: the same batch on one worker, stream = batch % 2."""
    data = attention.inputs([5, 20, 9, 32])
    program = attention.run(attention.seed_schedule, data, workers=4)
    np.testing.assert_allclose(data["O"], attention.reference(data), rtol=1e-5, atol=1e-5)
    tasks = program.schedule_of()
    assert len(tasks) == 32
    for b in range(4):
        assert len({t["worker"] for t in tasks if t["coords"]["b"] == b}) == 1
    assert all(t["stream"] == t["coords"]["b"] % 2 for t in tasks)


def test_attention_seq_len_dispatch_and_short_sequences_first(attention):
    """§5.2: sequences over 8192 on worker 0, the others on worker 1; §5.3: short first."""
    lens = [512, 2048, 8192, 32768, 100]
    data = attention.inputs(lens)
    program = attention.run(attention.seq_len_schedule, data, workers=2)
    np.testing.assert_allclose(data["O"], attention.reference(data), rtol=1e-5, atol=1e-5)
    tasks = program.schedule_of()
    for t in tasks:
        assert t["worker"] == (0 if lens[t["coords"]["b"]] > 8192 else 1)
    on_one = sorted(
        (t["start"], t["id"], lens[t["coords"]["b"]]) for t in tasks if t["worker"] == 1
    )
    started = [n for _, _, n in on_one]
    # The first task created starts at once, alone; every later choice takes the shortest.
    assert started[0] == 512 and started[1:] == sorted(started[1:]) and started[1] == 100


def test_moe_routes_by_the_csr_table_and_streams_by_expert():
    moe = load("moe")
    data = moe.inputs()
    program = moe.run(data, workers=4)
    np.testing.assert_allclose(data["expert_out"], moe.reference(data), rtol=1e-5, atol=1e-5)
    tasks = program.schedule_of()
    routed = {(b, int(e)) for b in range(4) for e in moe.indices[moe.indptr[b] : moe.indptr[b + 1]]}
    assert {(t["coords"]["b"], t["coords"]["e"]) for t in tasks} == routed
    assert all(t["stream"] == t["coords"]["e"] % 8 for t in tasks)


def test_megakernel_pipeline():
    mega = load("megakernel")
    data = mega.inputs(12)
    program = mega.run(data)
    np.testing.assert_array_equal(data["output"], mega.reference(data))
    assert program.stats().num_tasks == 36 and program.stats().num_workers == 1


def test_work_stealing_workers_run_what_they_took():
    ws = load("work_steal")
    data = ws.inputs(3)
    program = ws.run(data)
    np.testing.assert_allclose(data["O"], ws.reference(data), rtol=1e-5, atol=1e-5)
    tasks = program.schedule_of()
    assert len(tasks) == 24
    assert all(t["worker"] == t["coords"]["replica"] for t in tasks)
    assert len({t["worker"] for t in tasks}) > 1


@pytest.mark.parametrize("name", ["attention", "moe", "megakernel", "work_steal"])
def test_each_example_runs_as_a_script(name):
    run = subprocess.run(
        [sys.executable, str(SEED / f"{name}.py")], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert "max error" in run.stdout and not run.stderr
