"""One conformance table: every case of conformance_cases.py on every implementation.

The reference is runtime/engine.py (``fast=False``). Each other implementation that supports
a case must give the reference's outcome, field by field, for the fields it can report:

- ``program``: ``Program.execute()`` end to end on the native path (the program compiled by
  upstream MLIR builds the graph on the native core, the core's scheduler runs it, the
  functional mode's bodies run in its dispatch order), every field — edges by kind, pools
  and targets, the worker of each task, issue order, start order per worker, issue order per
  stream, makespan, stalls by cause, stall spans, the error, and in functional mode the
  results;
  A plain-shaped schedule (``plain_shaped``) is scheduled again with the core's general loop
  forced, and every output of the two loops must be equal (``assert_loops_agree``);
- ``native``: the native graph builder (lowering/cpu/native.py) alone, the graph — edges by
  kind, pools, targets, streams, every node's text;
- ``ascend``: the Ascend host runtime (emitted, built with g++ once for every case, run on
  real threads), what real threads make reproducible — edges by kind, pools, targets, issue
  order, issue order per stream, the worker of each targeted task, the error's type. Of a
  pipeline, whose processes are threads: the task set (every node's text but its id and
  edges, the replica that took a message masked), the order of each kernel's tasks (the
  order messages left their channels and a process created its tasks), the error and the
  outputs (against the reference run in functional mode).

A case an implementation does not run is skipped with the reason from the case's ``gaps``
(``"impl"``: the whole case; ``"impl.field"``: one field). Another implementation joins
the table with a name in ``IMPLEMENTATIONS``, its fields in ``FIELDS`` and
a ``run_*`` function returning those fields in the reference's terms.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from conformance_cases import CASES, IMPLEMENTATIONS, REAL_TIME, Case
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from pto_wsp import Pipeline, module
from pto_wsp.lowering.cpu.backend import compile_cpu_sim
from pto_wsp.lowering.taskgraph import EDGE_KINDS, TaskGraph
from pto_wsp.runtime.native_core import Scheduler
from pto_wsp.runtime.run import Run
from pto_wsp.tools.diagnostics import parse_located

BY_NAME = {case.name: case for case in CASES}

#: The fields each implementation reports (the reference reports them all).
FIELDS = {
    "program": (
        "error",
        "edges",
        "pools",
        "targets",
        "placement",
        "issue",
        "per_worker",
        "per_stream",
        "per_lane",
        "makespan",
        "stalls",
        "spans",
        "results",
    ),
    "native": ("edges", "pools", "targets", "streams", "text"),
    # Not compared: start order per worker, makespan, stalls (REAL_TIME); the worker of an
    # untargeted task (whichever thread was free).
    "ascend": (
        "error",
        "edges",
        "pools",
        "targets",
        "text",
        "issue",
        "per_stream",
        "per_lane",
        "placed",
        "results",  # of the cases whose kernels all have Ascend bodies (else stubs run)
    ),
}
#: The Ascend host runtime's fields of a pipeline. Not compared: node ids, hence edges, issue
#: and start orders — the processes are threads, so how their task creations interleave is
#: timing; so is which replica takes a message of a shared queue.
ASCEND_PIPELINE_FIELDS = ("error", "tasks", "order", "results")

_NODE_ID = re.compile(r"^tg\.node \d+ ")
_EDGES = re.compile(r" fanin\([^)]*\) fanout\([^)]*\)$")
_REPLICA = re.compile(r"replica = \d+")
_COORDS = re.compile(r"^tg\.node \d+ task @(\w+) .* at\(([^)]*)\)")


def task_set(graph: TaskGraph) -> list[str]:
    """Every node's text without its id and edges, and with the replica masked, sorted."""
    lines = graph.to_text().splitlines()
    masked = (_REPLICA.sub("replica = ?", _EDGES.sub("", _NODE_ID.sub("", x))) for x in lines)
    return sorted(masked)


def task_order(graph: TaskGraph) -> dict[str, list[str]]:
    """Per kernel, its tasks' coordinates (but replica) in creation order."""
    out: dict[str, list[str]] = defaultdict(list)
    for line in graph.to_text().splitlines():
        found = _COORDS.match(line)
        if found:
            coords = [c for c in found[2].split(", ") if not c.startswith("replica")]
            out[found[1]].append(", ".join(coords))
    return dict(out)


def edges_by_kind(graph: TaskGraph) -> dict[str, list[tuple[int, int]]]:
    src, dst = graph.edges()
    kinds = np.asarray(graph.edge_kind)
    out: dict[str, list[tuple[int, int]]] = {k: [] for k in EDGE_KINDS}
    for u, v, k in zip(src.tolist(), dst.tolist(), kinds.tolist()):
        out[EDGE_KINDS[k]].append((u, v))
    return {k: sorted(v) for k, v in out.items()}


def graph_fields(graph: TaskGraph) -> dict[str, Any]:
    tasks = graph.task_ids().tolist()
    return {
        "edges": edges_by_kind(graph),
        "pools": [int(graph.pool[t]) for t in tasks],
        "targets": [int(graph.target[t]) for t in tasks],
        "streams": [int(graph.stream[t]) for t in tasks],
        # Every node: kernel, scalars, regions, coordinates, placement fields, fan-in/out.
        "text": graph.to_text(),
        "tasks": task_set(graph),
        "order": task_order(graph),
    }


def _error(error: BaseException | None, with_message: bool = True) -> str | None:
    if error is None:
        return None
    return f"{type(error).__name__}: {error}" if with_message else type(error).__name__


def parse_text(case: Case) -> ModuleOp:
    return parse_located(case.workload, f"{case.name}.mlir")


def run_sim(case: Case, fast: bool) -> dict[str, Any]:
    """The outcome of ``case`` on the simulator, every field."""
    if isinstance(case.workload, str):
        options = {**case.options, "workload": case.entry}
        prog = compile_cpu_sim(parse_text(case), fast=fast, **options)
    else:
        prog = case.target().compile(target="cpu_sim", fast=fast, **case.options)
    names = {a.name for a in prog.args}
    values = {k: v for k, v in case.bindings().items() if k in names}
    error = None
    try:
        prog.bind(**values).execute()
    except Exception as e:  # the outcome of the case: compared, not raised
        error = e
    out: dict[str, Any] = {"error": _error(error), "declined": prog.fast_declined}
    if error is not None:
        return out
    graph = prog.graph()
    sim = prog._last()
    if fast:  # (the run itself: a plain schedule's loops are compared)
        out["last"] = sim
    tasks = graph.task_ids().tolist()
    per_worker: dict[int, list] = defaultdict(list)
    per_stream: dict[int, list] = defaultdict(list)
    per_lane: dict[int, list] = defaultdict(list)
    for t in tasks:
        per_worker[sim.worker[t]].append((sim.start[t], sim.issue_seq[t], t))
        per_stream[sim.stream_of[t]].append((sim.issue_seq[t], t))
        if prog.config.streams:  # lanes: a stream's tasks on one worker (or unplaced)
            per_lane[sim.lane[t]].append((sim.start[t], sim.issue_seq[t], t))
    stats = prog.stats()
    out |= graph_fields(graph)
    out |= {
        "placement": [sim.worker[t] for t in tasks],
        "worker_of": {t: sim.worker[t] for t in tasks},
        "issue": sorted(tasks, key=lambda t: sim.issue_seq[t]),
        "per_worker": {w: [t for *_, t in sorted(v)] for w, v in per_worker.items()},
        "per_stream": {s: [t for _, t in sorted(v)] for s, v in per_stream.items()},
        "per_lane": {s: [t for *_, t in sorted(v)] for s, v in per_lane.items()},
        "makespan": stats.makespan_cycles,
        "stalls": dict(stats.stalls),
        "spans": list(sim.stall_spans),
        "results": {k: np.asarray(v).tolist() for k, v in values.items()}
        if prog.mode == "functional"
        else None,
    }
    return out


def plain_shaped(config: Any, graph: TaskGraph) -> bool:
    """Whether the core schedules ``graph`` with its plain loop (schedule_plain.cpp)."""
    tasks = graph.kind == 0
    return (
        (config.timing == "immediate" or not config.timing_n)
        and not (config.streams or config.pipeline_depth or config.task_window)
        and not config.batch_deps
        and config.dispatch != "work_steal"
        and (config.ready != "priority" or len(np.unique(graph.priority[tasks])) <= 1)
    )


#: The counter (``Schedule.S``) saying the plain loop ran.
PLAIN_RAN = 9
#: The per-node arrays of a ``Run`` (all of them but ``cost``, the input).
RUN_ARRAYS = (
    "worker_array", "issue_seq_array", "stream_of_array", "lane_array", "start_array",
    "end_array", "issued_t_array", "deps_t_array", "created_t_array", "order",
)  # fmt: skip


def assert_loops_agree(run: Run) -> None:
    """``run`` (a plain schedule: the core's plain loop) has every output of the core's
    general loop on the same graph, costs and config, to the bit."""
    graph, costs, config = run.task_graph, run.cost_array, run.cfg
    general = Run(
        config=config,
        graph=graph,
        schedule=Scheduler().run(graph, costs, config, general=True),
        costs=costs,
        kernels={},
        arrays={},
    )
    for name in RUN_ARRAYS:
        assert np.array_equal(getattr(run, name), getattr(general, name)), name
    plain, counters = run._S.tolist(), general._S.tolist()
    assert plain[PLAIN_RAN] == 1 and counters[PLAIN_RAN] == 0
    assert (
        plain[:PLAIN_RAN] + plain[PLAIN_RAN + 1 :]
        == counters[:PLAIN_RAN] + counters[PLAIN_RAN + 1 :]
    )
    assert run._R.tolist() == general._R.tolist()  # clock, stalls, busy cycles per worker
    assert run.stall_spans == general.stall_spans


#: Cases the core schedules with its plain loop: several worker counts, pools, targets,
#: barriers, the generator's cost, equal and different costs.
PLAIN = (
    "plain", "plain_functional", "data_order", "structural", "one_worker",
    "zero_cost", "free_barriers", "large", "pools", "round_robin", "hash",
    "issue_fifo", "immediate", "dispatch_threshold", "regions_0",
)  # fmt: skip

_REFERENCE: dict[str, dict[str, Any]] = {}


def reference(case: Case) -> dict[str, Any]:
    if case.name not in _REFERENCE:
        _REFERENCE[case.name] = run_sim(case, fast=False)
    return _REFERENCE[case.name]


def reference_results(case: Case) -> Any:
    """The reference's outputs of ``case``; of a cycles-mode case, those of its run in
    functional mode (the mode changes timing only, never results)."""
    if case.options.get("mode", "functional") == "functional":
        return reference(case)["results"]
    key = case.name + ":functional"
    if key not in _REFERENCE:
        functional = replace(case, options={**case.options, "mode": "functional"})
        _REFERENCE[key] = run_sim(functional, fast=False)
    return _REFERENCE[key]["results"]


def run_native(case: Case) -> dict[str, Any]:
    from pto_wsp.lowering.cpu.native import compile_native
    from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass

    m = parse_text(case) if isinstance(case.workload, str) else module(case.target())
    WspToTgPass().apply(Context(), m)
    CspToTgPass().apply(Context(), m)
    program = compile_native(m, case.entry)
    values = {k: v for k, v in case.bindings().items() if k in set(program.arg_names)}
    if program.is_pipeline:  # its graph is made as it runs (on the core, in virtual time)
        prog = case.target().compile(target="cpu_sim", **case.options)
        return graph_fields(
            program.run_pipeline(values, prog.config, prog.kernels, prog.keys).graph
        )
    return graph_fields(program.build(values))


def ascend_cases() -> list[Case]:
    return [c for c in CASES if "ascend" not in c.gaps]


@pytest.fixture(scope="module")
def ascend(tmp_path_factory):
    """One host build holding every case the Ascend host runtime runs."""
    from pto_wsp.lowering.ascend import compile_module, lower_to_tg
    from pto_wsp.lowering.ascend.build import have_compiler

    if not have_compiler():
        pytest.skip("the Ascend host build needs g++")
    cases = ascend_cases()
    # Not lowered here: compile_module takes the pipelines' keys from their schedules.
    built = module(*[c.target() for c in cases if not isinstance(c.workload, str)])
    ops = [op.clone() for op in built.ops]
    for text in dict.fromkeys(c.workload for c in cases if isinstance(c.workload, str)):
        ops += [op.clone() for op in lower_to_tg(parse_located(text, "case.mlir")).ops]
    out = tmp_path_factory.mktemp("conformance_ascend")
    return compile_module(
        ModuleOp(ops),
        out_dir=out,
        host=True,
        program=cases[0].entry,
        stub_kernels=True,
        record=True,
    )


def workers_of(case: Case) -> int:
    options = case.options
    return options.get("workers") or options["vector_workers"] + options["cube_workers"]


def run_ascend(program, case: Case) -> dict[str, Any]:
    p = program.for_program(case.entry)
    p.workers, p.record = workers_of(case), True
    names = set(p.arg_names)
    error = None
    values = {k: v for k, v in case.bindings().items() if k in names}
    try:
        p.execute(**values)
    except Exception as e:  # the outcome of the case
        error = e
    out: dict[str, Any] = {"error": _error(error, with_message=False)}
    if error is not None:
        return out
    graph = p.graph()
    out |= graph_fields(graph)
    targeted = {t for t in graph.task_ids().tolist() if graph.target[t] >= 0}
    schedule = sorted(p.schedule_of(), key=lambda t: t["issue"])
    per_stream: dict[int, list] = defaultdict(list)
    per_lane: dict[int, list] = defaultdict(list)
    for t in schedule:
        per_stream[t["stream"]].append(t["id"])
        if t["lane"] >= 0:
            per_lane[t["lane"]].append((t["start"], t["id"]))
    out |= {
        "issue": [t["id"] for t in schedule],
        "per_stream": dict(per_stream),
        # Within a lane, tasks start in issue order: the one start order real threads keep.
        "per_lane": {lane: [t for _, t in sorted(v)] for lane, v in per_lane.items()},
        "placed": {t["id"]: t["worker"] for t in schedule if t["id"] in targeted},
        "results": {k: np.asarray(v).tolist() for k, v in values.items()} if case.bodies else None,
    }
    return out


TABLE = [(case.name, impl) for case in CASES for impl in IMPLEMENTATIONS]


def _compared(impl: str, name: str, case: Case) -> bool:
    """Whether ``impl`` reports field ``name`` of ``case`` (Ascend results need real bodies)."""
    stubs = impl == "ascend" and name == "results" and not case.bodies
    return f"{impl}.{name}" not in case.gaps and not stubs


def fields_of(impl: str, case: Case) -> tuple[str, ...]:
    """The fields ``impl`` reports of ``case``."""
    if impl == "ascend" and isinstance(case.workload, Pipeline):
        return ASCEND_PIPELINE_FIELDS
    return FIELDS[impl]


def _compare(impl: str, got: dict[str, Any], want: dict[str, Any], case: Case) -> None:
    for name in fields_of(impl, case):
        if name not in got and want.get("error"):
            continue  # a failed run reports its error only
        if not _compared(impl, name, case):
            continue
        expected = want.get(name)
        if name == "placed":  # the targeted tasks' workers
            expected = {t: want["worker_of"][t] for t in got["placed"]}
        if name == "results" and impl == "ascend":
            expected = reference_results(case)
        if impl == "ascend" and name == "error" and expected:
            expected = expected.split(":")[0]
        assert got[name] == expected, f"{impl} differs from the reference in {name}"


@pytest.mark.parametrize("case, impl", TABLE, ids=[f"{c}-{i}" for c, i in TABLE])
def test_conformance(case, impl, request):
    case = BY_NAME[case]
    want = reference(case)
    if impl in case.gaps:
        pytest.skip(f"{impl}: {case.gaps[impl]}")
    if impl == "program":
        got = run_sim(case, fast=True)
        assert got["declined"] is None, got["declined"]
        last = got.get("last")
        if type(last) is Run and plain_shaped(last.cfg, last.task_graph):  # (not a pipeline)
            assert_loops_agree(last)
        else:
            assert case.name not in PLAIN
    elif impl == "native":
        got = run_native(case)
    else:
        got = run_ascend(request.getfixturevalue("ascend"), case)
    _compare(impl, got, want, case)


def _stalled(cause: str):
    return lambda o: o["stalls"][cause] > 0


def _edges(*kinds: str):
    return lambda o: all(o["edges"][k] for k in kinds)


#: What the reference's outcome of a case shows, so that the case exercises what it names.
SHOWS = {
    "data_order": _edges("raw", "war", "waw", "structural"),
    "structural": lambda o: o["edges"]["structural"] and not o["edges"]["raw"],
    "axis_data": lambda o: len(o["issue"]) == 9 + 6,
    "events": lambda o: o["edges"]["structural"] and len(set(o["streams"])) == 3,
    "round_robin": lambda o: min(o["targets"]) >= 0,
    "affinity": lambda o: min(o["targets"]) >= 0,
    "hash": lambda o: min(o["targets"]) >= 0,
    "range": lambda o: min(o["targets"]) >= 0,
    "dispatch_by": lambda o: min(o["targets"]) >= 0,
    "streams": _stalled("stream_order"),
    "stream_by": _stalled("stream_order"),
    "batched": _stalled("issue"),
    "interleaved": lambda o: o["stalls"]["issue"] > 0 and len(o["per_stream"]) == 3,
    "rate_limit": _stalled("issue"),
    "depth_global": _stalled("pipeline_depth"),
    "depth_per_stream": _stalled("pipeline_depth"),
    "depth_per_pool": _stalled("pipeline_depth"),
    "window_stall": _stalled("window"),
    "gen_cost": _stalled("window"),
    "batch_deps": _stalled("issue"),
    "dispatch_threshold": lambda o: o["pools"][:4] == [0] * 4 and set(o["pools"][4:6]) == {1},
    "pipeline": _stalled("channel_full"),
    "pipeline_try_send": lambda o: len(o["issue"]) < 2 * 6,
    "pipeline_forwarding": lambda o: o["stalls"]["channel_full"] > 0 and len(o["issue"]) == 18,
    "pipeline_replicas": lambda o: o["text"].count("replica = 2") == 3,
    "pipeline_keys": lambda o: sorted(set(o["targets"])) == [0, 1, 2],
    "pipeline_events": lambda o: o["stalls"]["event"] > 0,
    "steal_streams": _stalled("stream_order"),
    "interleaved_unkeyed": _stalled("issue"),
    # Iteration 0 queries before the first record (else branch), later ones after it.
    "ev_query": lambda o: np.nonzero(np.array(o["results"]["Z"])[:, 0])[0].tolist() == [1, 2, 3, 8],
    "ev_barriers": lambda o: o["text"].count(" barrier ") == 3,
    "free_barriers": lambda o: o["text"].count(" barrier ") == 2,
    "large": lambda o: len(o["issue"]) == 320,
    "batch_path": _edges("raw", "war", "waw"),
    # Collected every max(window, 1024) nodes: the edges to done tasks are gone (2 n without).
    "window_collect": lambda o: o["stalls"]["window"] > 0 and len(o["edges"]["raw"]) < 800,
    # A vector and a cube task issued together while the depth gate is full: each idle worker
    # of their pools takes its task and gates it at that instant.
    "gated_pools": lambda o: ("pipeline_depth", "task 6", 21.0, 30.0) in o["spans"],
    **{f"regions_{seed}": _edges(*EDGE_KINDS) for seed in (0, 2, 4, 6)},
    # The second loop's reads find their writers: read-after-write edges into its tasks.
    **{
        f"regions_after_{seed}": lambda o: any(d >= 200 for _, d in o["edges"]["raw"])
        for seed in (1, 3)
    },
}


def test_every_case_runs_on_the_reference_and_shows_what_it_names():
    for case in CASES:
        outcome = reference(case)
        if case.name == "window_abort":
            assert outcome["error"].startswith("ResourceError: task window full")
            continue
        assert outcome["error"] is None, (case.name, outcome["error"])
        assert outcome["issue"], case.name
        assert SHOWS.get(case.name, lambda o: True)(outcome), case.name


def test_gaps_name_known_implementations():
    assert REAL_TIME
    for case in CASES:
        for gap in case.gaps:
            impl, _, field = gap.partition(".")
            known = FIELDS[impl] + (ASCEND_PIPELINE_FIELDS if impl == "ascend" else ())
            assert impl in IMPLEMENTATIONS and (not field or field in known), gap
        assert isinstance(case.target(), object) and case.name
    assert any(isinstance(c.target(), Pipeline) for c in CASES)
