"""Streams and events on the Ascend host runtime: the workloads of test_api_streams.py (one
per order rule), emitted, built with g++ and run; the graph each run builds (order::Events in
order.h) is the simulator's (runtime/graph.py), node for node and edge for edge, and the
bodies' results are numpy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_api_streams import (
    X,
    barrier,
    combine,
    e,
    f,
    k,
    query,
    record,
    s0,
    s1,
    s2,
    stream_wait,
    synchronize,
    t,
)

from pto_wsp import DenseDyn, cond, for_each, module, sym, task
from pto_wsp.lowering.ascend import AscendProgram, compile_module
from pto_wsp.lowering.ascend.build import have_compiler

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

n = sym("n")

WORKLOADS = {
    "stream_wait": combine(
        s0.issue(t(0)),
        s0.record(e),
        s0.issue(t(1)),
        s1.issue(t(2)),
        stream_wait(s1, e),
        s1.issue(t(3)),
        s2.issue(t(4)),
    ),
    "synchronize": combine(
        s0.issue(t(0)),
        s0.record(e),
        s1.issue(t(1)),
        synchronize(e),
        s1.issue(t(2)),
        s2.issue(t(3)),
    ),
    "stream_sync": combine(
        s0.issue(t(0), t(1)), s1.issue(t(2)), s0.synchronize(), t(3), s1.issue(t(4))
    ),
    "record_all": combine(
        s0.issue(t(0)), s1.issue(t(1)), record(e), s2.issue(t(2)), synchronize(e), t(3)
    ),
    "barriers": combine(
        s0.issue(t(0)),
        s0.record(e),
        s1.issue(t(1)),
        s1.record(f),
        s2.issue(t(2)),
        barrier(e, f),
        s2.issue(t(3)),
        barrier(),
        t(4),
    ),
    "rerecord": combine(
        s0.issue(t(0)),
        s0.record(e),
        s0.issue(t(1)),
        s1.issue(t(2)),
        stream_wait(s1, e),
        s0.record(e),
        s1.issue(t(3)),
        stream_wait(s2, e),
        s2.issue(t(4)),
    ),
    "query": for_each(
        DenseDyn(n),
        lambda i: combine(
            cond(query(e), task(k, [i], [X[i]]), task(k, [i + 8], [X[i + 8]])), record(e)
        ),
    ),
}


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> AscendProgram:
    m = module(*[w.named(name) for name, w in WORKLOADS.items()])
    out = tmp_path_factory.mktemp("ascend_events")
    first = compile_module(m, out_dir=out, host=True, program="stream_wait", record=True)
    assert isinstance(first, AscendProgram)
    return first


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_the_graph_is_the_simulators(program, name):
    p = program.for_program(name)
    p.record = True
    bindings = {"n": 4} if name == "query" else {}
    x = np.zeros((16, 4), np.float32)
    p.execute(X=x, **bindings)
    sim = WORKLOADS[name].named(name).compile(target="cpu_sim", fast=False)
    y = np.zeros((16, 4), np.float32)
    sim.bind(X=y, **bindings).execute()
    assert p.graph().to_text() == sim.graph().to_text()
    np.testing.assert_array_equal(x, y)
