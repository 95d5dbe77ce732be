"""Modules and compilation from Python: ``module(...)``, ``compile(...)``, backends by name."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

from pto_wsp import (
    TARGETS,
    CompileError,
    Dense,
    In,
    Out,
    Tensor,
    compile,
    f32,
    kernel,
    module,
    parallel_for,
    register_backend,
    task,
)
from pto_wsp.frontend import program


@kernel
def k(i, x: In[f32[4]], y: Out[f32[4]]):
    """y = x."""


X = Tensor("X", [8, 4], f32)
Y = Tensor("Y", [8, 4], f32)
w = parallel_for(Dense[8], lambda i: task(k, [i], [X[i], Y[i]])).named("w")


@pytest.fixture
def fake_backend():
    """A backend for cpu_sim that records what it was given; removed afterwards."""
    seen: list[tuple[ModuleOp, dict]] = []

    def backend(m: ModuleOp, **options):
        seen.append((m, options))
        return "program"

    from pto_wsp.lowering import targets

    previous = program._BACKENDS.get("cpu_sim")
    previous_info = targets._INFO.get("cpu_sim")
    register_backend("cpu_sim", backend)
    yield seen
    program._BACKENDS.pop("cpu_sim", None)
    if previous is not None:  # the real cpu_sim backend, registered by import pto_wsp
        program._BACKENDS["cpu_sim"] = previous
        targets._INFO["cpu_sim"] = previous_info


def test_compile_runs_the_registered_backend(fake_backend):
    assert w.compile(target="cpu_sim", workers=4) == "program"
    assert compile(w.schedule().streams(2), target="cpu_sim") == "program"
    m = w.module()
    assert compile(m, target="cpu_sim") == "program"
    assert fake_backend[0][1] == {"workers": 4}
    assert fake_backend[2][0] is m
    assert "sched.streams 2" in str(fake_backend[1][0])


def test_targets_and_registration():
    assert TARGETS == ("cpu_sim", "aie", "ascend")
    with pytest.raises(ValueError, match="unknown target"):
        register_backend("gpu", lambda m: m)


def test_module_of_several_items_keeps_their_order():
    v = parallel_for(Dense[2], lambda i: task(k, [i], [Y[i], X[i]])).named("v")
    m = module(w.schedule().streams(2), v)
    names = [op.name for op in m.body.block.ops]
    assert names == ["wsp.kernel", "wsp.workload", "sched.schedule", "wsp.workload"]
    with pytest.raises(CompileError, match="at least one"):
        module()
    with pytest.raises(CompileError, match="expected a workload"):
        module(X)


def test_str_is_the_printed_module():
    text = str(w)
    assert text.startswith("builtin.module {") and text.rstrip().endswith("}")
    assert str(w.schedule()) == str(w.schedule().module()) + "\n"
