"""Dispatch policies in batched nests (docs/batchgen.md): ``round_robin`` computes each
task's target from ``tg.seq`` (the tasks created so far), ``range`` divides by the axis
extent (a symbol) — both once kept nests on the per-task code. test_sim_properties'
workload under every dispatch policy (its parallel nests and its for_each chain), built with
batches and without from the same bound arguments: the same graph, targets included.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_sim_batchgen import _run, assert_same_graph
from test_sim_batchragged import _without_fallbacks
from test_sim_properties import DISPATCH, WORKLOAD

from pto_wsp.lowering.cpu import backend, simgen
from pto_wsp.runtime import graph as graph_module
from pto_wsp.runtime.program import Program


@pytest.mark.parametrize("index", range(len(DISPATCH.elements)))
@pytest.mark.parametrize("size", [0, 1, 7])
def test_every_dispatch_policy_gives_the_per_task_graph(monkeypatch, index, size):
    monkeypatch.setattr(graph_module, "BATCH_MIN", 1)
    plain = {}
    compile_orig = backend.compile_sim_program

    def compile_both(program, module=None, batch=None):
        code = compile_orig(program, module, batch=True)
        plain[id(code)] = compile_orig(program, module, batch=False)
        return code

    runs = []
    run_orig = Program._run

    def run(self, *a, **k):
        args, _arrays, shapes = self._arguments()
        runs.append((self.code, args, shapes))
        return run_orig(self, *a, **k)

    monkeypatch.setattr(backend, "compile_sim_program", compile_both)
    monkeypatch.setattr(Program, "_run", run)
    schedule = WORKLOAD.schedule()
    dispatch = DISPATCH.elements[index]
    if dispatch is not None:
        schedule = schedule.dispatch(dispatch)
    prog = schedule.compile(target="cpu_sim", workers=3)
    arrays = {name: np.zeros((max(size, 1), 4), np.float32) for name in "XHY"}
    prog.bind(n=size, A=np.zeros((1, 4), np.float32), **arrays)
    before = simgen.FALLBACKS
    prog.execute()
    (code, args, shapes), *_ = runs
    assert "_b.add_task(" not in _without_fallbacks(code.source)  # every nest batched
    g1 = _run(code.compiled.function, args, shapes)
    g0 = _run(plain[id(code)].compiled.function, args, shapes)
    assert_same_graph(g1, g0)
    assert simgen.FALLBACKS == before
