"""The native path builds the reference's graph: every example program, the workloads of
test_materialize.py and test_sim_functional.py, built by the program upstream MLIR compiled
(lowering/cpu/native.py) and by the reference's task-by-task Python (lowering/cpu/simgen.py on
runtime/graph.py's GraphBuilder): the same nodes in the same order with the same fields (args,
regions with their views' kept dimensions, coordinates, placement), the same edges and kinds.
"""

from __future__ import annotations

import contextlib
import inspect
import io
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.parser import Parser

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.tg import TG, ProgramOp
from pto_wsp.dialects.wsp import WSP
from pto_wsp.lowering.cpu.native import WHOLE, compile_native
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.program import Program

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    return ctx


def _snapshot(g: TaskGraph) -> tuple:
    """Everything a TaskGraph says, in plain Python values."""
    src, dst = g.edges()
    nodes = []
    for i in range(g.num_nodes):
        regions = tuple(
            (r.tensor, tuple(r.offsets), tuple(r.sizes), tuple(r.strides), r.access,
             tuple(getattr(r, "kept", ())))
            for r in g.regions[i]
        )  # fmt: skip
        nodes.append(
            (int(g.kind[i]), g.kernel_name(i), tuple(g.args[i]), regions,
             tuple((k, int(v)) for k, v in g.coords[i]), int(g.pool[i]), int(g.domain[i]),
             int(g.target[i]), int(g.stream[i]), int(g.priority[i]), int(g.fanin[i]))
        )  # fmt: skip
    edges = sorted(zip(src.tolist(), dst.tolist(), g.edge_kind.tolist()))
    return nodes, edges


def assert_same_graph(native: TaskGraph, reference: TaskGraph) -> None:
    a, b = _snapshot(native), _snapshot(reference)
    assert len(a[0]) == len(b[0]), "node counts differ"
    for i, (x, y) in enumerate(zip(a[0], b[0])):
        assert x == y, f"node {i}: {x} != {y}"
    assert a[1] == b[1], f"edges differ: {sorted(set(a[1]) ^ set(b[1]))[:10]}"
    assert native.to_text() == reference.to_text()


def _reference(program: ProgramOp, module, bindings: dict, infer: bool = True) -> TaskGraph:
    plain = compile_sim_program(program, module).compiled
    args = plain.bind(bindings)
    shapes = {
        a.name: [s if s is not None else WHOLE for s in a.shape]
        for a in args
        if hasattr(a, "shape") and hasattr(a, "name")
    }
    builder = GraphBuilder(shapes, infer_data_deps=infer)
    plain.function(builder, *args)
    return builder.build()


def compare_program(module, program: ProgramOp, bindings: dict) -> TaskGraph:
    """The native graph of ``program``, after checking it equals the reference's."""
    native = compile_native(module, program).build(bindings)
    assert_same_graph(native, _reference(program, module, bindings))
    return native


def test_every_example_program_gives_the_reference_graph():
    size = 5
    count = 0
    for path in sorted(EXAMPLES.glob("*.mlir")):
        ctx = _context()
        module = Parser(ctx, path.read_text()).parse_module()
        with contextlib.redirect_stderr(io.StringIO()):
            WspToTgPass().apply(ctx, module)
            CspToTgPass().apply(ctx, module)
        for program in [op for op in module.ops if isinstance(op, ProgramOp)]:
            if program.processes():
                continue
            per_row = [(2 * i + 1) % 4 for i in range(size)]  # 1, 3, 2, 0, ...
            indptr = np.concatenate([[0], np.cumsum(per_row)])
            bindings = {
                "seq_lens": np.array(per_row),
                "lengths": np.array(per_row),
                "indptr": indptr,
                "indices": np.arange(indptr[-1]) * 3 % 8,
            }
            for name, type_ in zip(program.arg_names, program.function_type.inputs.data):
                if isinstance(type_, builtin.IndexType):
                    bindings.setdefault(name.data, size)
            compare_program(module, program, bindings)
            count += 1
    assert count >= 8


def _parametrized_calls(fn):
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        return [{}]
    names = marks[0].args[0]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    return [dict(zip(names, v if len(names) > 1 else (v,))) for v in marks[0].args[1]]


def _run_module_tests(module) -> int:
    count = 0
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("test_") or fn.__module__ != module.__name__:
            continue
        params = inspect.signature(fn).parameters
        for kwargs in _parametrized_calls(fn):
            if set(params) - set(kwargs):
                continue  # needs a fixture
            fn(**kwargs)
            count += 1
    return count


def test_materialize_workloads_give_the_reference_graph(monkeypatch):
    """test_materialize.py's workloads (and its own checks, on the native graph)."""
    import test_materialize

    seen = []

    def materialize(module, program, bindings):
        seen.append(program.sym_name.data)
        return compare_program(module, program, bindings)

    monkeypatch.setattr(test_materialize, "materialize", materialize)
    assert _run_module_tests(test_materialize) > 5
    assert len(seen) > 5


def test_functional_workloads_give_the_reference_graph(monkeypatch):
    """test_sim_functional.py's workloads: every main program a test runs, its native graph
    against the reference's from the same bindings."""
    import test_sim_functional

    runs = []
    run_orig = Program._run

    def run(self, *a, **k):
        out = run_orig(self, *a, **k)
        # (a task window forgets done tasks' accesses: such a run's graph lacks those edges)
        if self.native is not None and self.config.fast and not self.config.task_window:
            args, _, shapes = self._arguments()
            builder = GraphBuilder(shapes, infer_data_deps=self.config.infer_data_deps)
            self.code.compiled.function(builder, *args)
            runs.append((out.task_graph, builder.build()))
        return out

    monkeypatch.setattr(Program, "_run", run)
    assert _run_module_tests(test_sim_functional) > 5
    assert len(runs) > 5
    for native, reference in runs:
        assert_same_graph(native, reference)
