"""Streams and ``timing = interleaved(n)`` on the Ascend host runtime (real threads).

The simulator's rules (docs/simulator.md): with ``streams n`` a task's stream key is its
``stream_by`` value mod n (else its issue number mod n), its lane the key plus n times its
placed worker + 1, and it may start only after every earlier-issued task of its lane started;
``timing interleaved(n)`` issues tasks n at a time, round-robin across stream keys. Threads
are real, so the tests check only what the rules force: within each lane, start order is
issue order; the issue order equals the CPU simulator's; results equal numpy. (Every stream
and timing directive's issue order, stream keys and lanes are compared with the reference
engine in the conformance table, test_conformance.py.)

Each workload is a gate task (slow) that writes row n of ``log``, then tasks ``a`` i < n that
read it (ready only when the gate ends) and tasks ``b`` i < n that read an untouched row
(ready at once): ``b`` tasks are issued after every ``a`` task, so in a lane they must wait
for the ``a`` tasks before them — without lane order they would start first.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from pto_wsp.lowering.ascend import AscendProgram, compile_module, lower_to_tg
from pto_wsp.lowering.ascend.build import have_compiler
from pto_wsp.lowering.cpu.backend import compile_cpu_sim
from pto_wsp.tools.diagnostics import parse_located as parse

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the host build needs g++")

PROBE = r"""
#include <chrono>
#include <thread>

// out(1) = src(1) + i (the result numpy checks); the gate (i >= 1000) runs long enough for
// every later task to be issued and the ready ones queued before it ends.
__aicore__ void probe(int64_t i, pto::wsp::GmTensor<const int64_t, 1> src,
                      pto::wsp::GmTensor<int64_t, 1> out) {
  out(0) = i;
  out(1) = src(1) + i;
  std::this_thread::sleep_for(std::chrono::microseconds(i >= 1000 ? 15000 : 100));
}
"""


def quoted(source: str) -> str:
    return source.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


KEY_I = """  sched.stream_by key(%i = "i") {
    sched.yield %i : index
  }"""


def workload(name: str, schedule: str) -> str:
    """Gate (i = 0 of its own loop), then a_i (read the gate's row), then b_i (read row
    n + 1, never written)."""
    return f"""
wsp.workload @{name}(%log: memref<?x2xi64>, %n: index) {{
  %is = wsp.dense_dyn %n
  %g = wsp.view %log[%n] : memref<?x2xi64> -> memref<2xi64>
  %c1 = arith.constant 1 : index
  %n1 = arith.addi %n, %c1 : index
  %z = wsp.view %log[%n1] : memref<?x2xi64> -> memref<2xi64>
  %c1000 = arith.constant 1000 : index
  %gate = arith.addi %n, %c1000 : index
  %one = wsp.dense 1
  wsp.sequential {{
    wsp.parallel_for %k in %one named("i") : !wsp.dense<1> {{
      %gk = arith.addi %gate, %k : index
      wsp.task @probe(%gk : index) resources(%z, %g : memref<2xi64>, memref<2xi64>)
    }}
    wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {{
      %o = wsp.view %log[%i] : memref<?x2xi64> -> memref<2xi64>
      wsp.task @probe(%i : index) resources(%g, %o : memref<2xi64>, memref<2xi64>)
    }}
  }}
  wsp.parallel_for %j in %is named("i") : !wsp.dense_dyn {{
    %c2 = arith.constant 2 : index
    %r0 = arith.addi %n, %c2 : index
    %r = arith.addi %r0, %j : index
    %o = wsp.view %log[%r] : memref<?x2xi64> -> memref<2xi64>
    %c100 = arith.constant 100 : index
    %v = arith.addi %j, %c100 : index
    wsp.task @probe(%v : index) resources(%z, %o : memref<2xi64>, memref<2xi64>)
  }}
}}
sched.schedule @{name}_sched for @{name} {{
{schedule}
}}
"""


CASES = {
    # name: schedule
    "keyed": "  sched.streams 2\n" + KEY_I,
    "unkeyed": "  sched.streams 3",
    "placed": "  sched.dispatch round_robin(3)\n  sched.streams 2\n" + KEY_I,
    "one_stream": "  sched.streams 1",
    "interleaved": "  sched.streams 3\n" + KEY_I + "\n  sched.timing interleaved(5)",
    "window": "  sched.streams 2\n"
    + KEY_I
    + "\n  sched.task_window 3 overflow(stall)\n  sched.timing interleaved(2)",
    "big_interleave": "  sched.streams 2\n" + KEY_I + "\n  sched.timing interleaved(100)",
    "plain": "  sched.timing interleaved(3)",  # no streams: no lanes, creation order
}

SOURCE = (
    "wsp.kernel @probe(i: index, src: in memref<2xi64>, out: out memref<2xi64>) unit(vector) "
    f'attributes {{impls = {{ascend = "{quoted(PROBE)}"}}}}\n'
    + "".join(workload(name, schedule) for name, schedule in CASES.items())
)


@pytest.fixture(scope="module")
def module() -> ModuleOp:
    return parse(SOURCE, "streams.mlir")


@pytest.fixture(scope="module")
def program(module, tmp_path_factory) -> AscendProgram:
    out = tmp_path_factory.mktemp("ascend_streams")
    first = compile_module(lower_to_tg(module), out_dir=out, host=True, program="keyed")
    assert isinstance(first, AscendProgram)
    return first


def expected(n: int) -> np.ndarray:
    """log[:, 1] as numpy computes it: the gate row n + 1000, a_i = gate + i, b_i = j + 100."""
    log = np.zeros((2 * n + 2, 2), dtype=np.int64)
    gate = n + 1000
    log[n] = (gate, gate)
    for i in range(n):
        log[i] = (i, gate + i)
        log[n + 2 + i] = (i + 100, i + 100)
    return log


def run_host(program: AscendProgram, name: str, n: int, workers: int, ring: int = 0):
    p = program.for_program(name)
    p.workers, p.record, p.ring_capacity = workers, True, ring
    log = np.zeros((2 * n + 2, 2), dtype=np.int64)
    p.execute(log=log, n=n)
    return p, log


def sim_schedule(module: ModuleOp, name: str, n: int):
    """The CPU simulator's issue numbers and stream keys per node, and its log."""

    def probe(i, src, out):
        out[0] = i
        out[1] = src[1] + i

    prog = compile_cpu_sim(module, workload=name, kernels={"probe": probe}, workers=3)
    log = np.zeros((2 * n + 2, 2), dtype=np.int64)
    prog.bind(log=log, n=n).execute()
    sim = prog._last()
    return list(sim.issue_seq), list(sim.stream_of), log


def check_lanes(schedule: list[dict]) -> int:
    """Within each lane, start order is issue order; returns the number of lanes."""
    lanes: dict[int, list[dict]] = {}
    for t in schedule:
        assert t["lane"] >= 0 and t["issue"] >= 0 and t["start"] >= 0, t
        lanes.setdefault(t["lane"], []).append(t)
    for lane, tasks in lanes.items():
        by_issue = [t["id"] for t in sorted(tasks, key=lambda t: t["issue"])]
        by_start = [t["id"] for t in sorted(tasks, key=lambda t: t["start"])]
        assert by_start == by_issue, f"lane {lane}: started {by_start}, issued {by_issue}"
    return len(lanes)


def test_lanes_wait_for_earlier_tasks(program):
    """With one stream and one lane (no placement), every b task waits for every a task (issued
    earlier, ready only after the gate): all start after them, in issue order."""
    n = 8
    p, _ = run_host(program, "one_stream", n, workers=3)
    sched = p.schedule_of()
    assert check_lanes(sched) == 1
    by_start = [t["id"] for t in sorted(sched, key=lambda t: t["start"])]
    assert by_start == sorted(by_start)  # creation order is issue order here


def test_lanes_per_worker(program):
    """round_robin(3) places tasks on workers: each (key, worker) is its own lane. Of three
    workers two serve the vector pool (the probe's), so targets land on workers 0 and 1."""
    p, _ = run_host(program, "placed", 9, workers=3)
    sched = p.schedule_of()
    assert check_lanes(sched) == 4  # 2 keys x 2 workers
    for t in sched:
        assert t["lane"] == t["stream"] + 2 * (t["worker"] + 1)


def test_interleaved_deals_keys_round_robin(program):
    """interleaved(5), keys i mod 3: the first five tasks, gate (no stream_by coordinate: key
    0) and a_0..a_3 (keys 0 1 2 0), are dealt key 0's first (gate), key 1's (a_1), key 2's
    (a_2), key 0's second (a_0), key 0's third (a_3)."""
    p, _ = run_host(program, "interleaved", 8, workers=2)
    sched = sorted(p.schedule_of(), key=lambda t: t["issue"])
    assert [t["id"] for t in sched[:5]] == [0, 2, 3, 1, 4]
    assert [t["stream"] for t in sched[:5]] == [0, 1, 2, 0, 0]


def test_window_and_ring_with_lanes_do_not_deadlock(program, module):
    """A task window (stalls flush the timing buffer) and a small descriptor ring that wraps
    many times (a ring stall flushes only what the awaited task needs), with lanes."""
    n = 40
    p, log = run_host(program, "window", n, workers=2)
    assert (log == expected(n)).all()
    check_lanes(p.schedule_of())
    assert p.stats().max_in_flight <= 3
    for name in ("interleaved", "big_interleave"):
        p, log = run_host(program, name, n, workers=3, ring=64)
        assert (log == expected(n)).all()
        assert p.stats().ring_stalls > 0
        check_lanes(p.schedule_of())
    # interleaved(5) < the ring: its issue order is still the simulator's.
    p, _ = run_host(program, "interleaved", n, workers=3, ring=64)
    issue, _, _ = sim_schedule(module, "interleaved", n)
    assert all(t["issue"] == issue[t["id"]] for t in p.schedule_of())


def test_without_streams(program, module):
    """No streams: no lanes; interleaved issues in creation order (the simulator's keys are
    all 0); issue and start numbers are still recorded."""
    n = 6
    p, log = run_host(program, "plain", n, workers=2)
    assert (log == expected(n)).all()
    sched = p.schedule_of()
    assert all(t["lane"] == -1 and t["stream"] == 0 for t in sched)
    assert [t["issue"] for t in sched] == list(range(2 * n + 1))
    assert sorted(t["start"] for t in sched) == list(range(2 * n + 1))
    issue, _, _ = sim_schedule(module, "plain", n)
    assert [t["issue"] for t in sched] == [issue[t["id"]] for t in sched]


def test_emitted_config():
    """The config says whether tasks carry a stream_by key; interleaved is not warned about."""
    tree = compile_module(lower_to_tg(parse(SOURCE, "streams.mlir")), program="keyed")
    text = tree.files["aicpu_orchestrate.cpp"]
    keyed = text[text.index("keyed_config()") : text.index("unkeyed_config()")]
    assert "c.streams = 2;" in keyed and "c.stream_keyed = true;" in keyed
    unkeyed = text[text.index("unkeyed_config()") :]
    unkeyed = unkeyed[: unkeyed.index("return c;")]
    assert "c.streams = 3;" in unkeyed and "stream_keyed" not in unkeyed
    assert not [w for w in tree.warnings if "interleaved" in w]
