"""No schedule directive is silently ignored: on AIE and on Ascend each one maps or gives a
warning naming it and the target (docs/targets/aie.md and ascend.md, "Schedule directives")."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.parser import Parser

from pto_wsp.dialects import aie, sched
from pto_wsp.lowering.aie import compile_module
from pto_wsp.lowering.aie.lower import _context
from pto_wsp.lowering.ascend.emit import emit_tree
from pto_wsp.passes.wsp_to_tg import lower_to_tg

ROOT = Path(__file__).resolve().parents[1]
KEY = "{key} {{\n    sched.yield %j : index\n  }}"
#: One use of each directive kind (and of a workload's streams and events, a key over task
#: data, an extension op), written into the schedule (or the body) of a 2-core column split.
DIRECTIVES = {
    "dispatch": "sched.dispatch round_robin(2)",
    "streams": "sched.streams 2",
    "stream_by": KEY.format(key='sched.stream_by key(%j = "j")'),
    "issue": KEY.format(key='sched.issue priority key(%j = "j")'),
    "timing": "sched.timing batched(2)",
    "dispatch_threshold": KEY.format(
        key='sched.dispatch_threshold 1 below(vector) above(cube) key(%j = "j")'
    ),
    "pipeline_depth": "sched.pipeline_depth 3 scope(global)",
    "pipeline_depth per_stream": "sched.pipeline_depth 3 scope(per_stream)",
    "task_window": "sched.task_window 4 overflow(stall)",
    "batch_deps": "sched.batch_deps 2",
    "key over task data": (
        'sched.issue priority key(%j = "j", %T = tensor("P") : memref<2xindex>) {\n'
        "    %p = memref.load %T[%j] : memref<2xindex>\n    sched.yield %p : index\n  }"
    ),
    "extension": '"npu.double_buffer"() {depth = 2 : i64} : () -> ()',
    "workload streams": "body: wsp.stream 1",
    "workload events": 'body: wsp.record "e"',
}
#: What each maps to (a check of the design), or the directive its warning names.
MAPS = {"pipeline_depth": lambda design: {f.depths[0] for f in _fifos(design)} == {3}}
WARNS = {
    "pipeline_depth per_stream": "the pipeline_depth directive",
    "key over task data": "the issue directive",
    "extension": "the schedule op 'npu.double_buffer'",
    "workload streams": "the stream_by directive",
    "workload events": "the events directive",
}

WORKLOAD = """\
wsp.kernel @k(a: in memref<4x4xi32>, c: out memref<4x4xi32>) unit(vector)
wsp.workload @w(%A: memref<4x8xi32>, %C: memref<4x8xi32>, %P: memref<2xindex>) {{
  %J = wsp.dense 2
  wsp.parallel_for %j in %J named("j") : !wsp.dense<2> {{
    %c4 = arith.constant 4 : index
    %jo = arith.muli %j, %c4 : index
    %a = wsp.view %A[0:4, %jo:+4] : memref<4x8xi32> -> memref<4x4xi32>
    %c = wsp.view %C[0:4, %jo:+4] : memref<4x8xi32> -> memref<4x4xi32>
    {body}
  }}
}}
sched.schedule @s for @w {{
  {spatial}
  {directive}
}}
"""
SPATIAL = """sched.spatial_map grid(2)
  sched.layout "A" (replicate, shard(0))
  sched.layout "C" (replicate, shard(0))"""
TASK = "wsp.task @k() resources(%a, %c : memref<4x4xi32>, memref<4x4xi32>)"
BODIES = {
    "body: wsp.stream 1": "wsp.stream 1 {\n      " + TASK + "\n    }",
    'body: wsp.record "e"': TASK + '\n    wsp.record "e"',
}


def _fifos(design):
    return [op for op in design.walk() if isinstance(op, aie.ObjectFifoCreateOp)]


def _workload(text: str, spatial: str = SPATIAL):
    body = BODIES.get(text, TASK)
    directive = "" if text in BODIES else text
    source = WORKLOAD.format(body=body, directive=directive, spatial=spatial)
    ctx = _context()
    ctx.allow_unregistered = True
    return Parser(ctx, source, "w.mlir").parse_module()


def test_every_directive_kind_is_listed():
    """The table below covers every op of the sched dialect."""
    ops = {op.name.removeprefix("sched.") for op in sched.SCHED.operations}
    ops -= {"schedule", "yield"}
    covered = {k.split()[0] for k in DIRECTIVES} | {"spatial_map", "layout"}
    assert ops <= covered


@pytest.mark.parametrize("kind", sorted(DIRECTIVES))
def test_aie_maps_or_warns(kind, capsys):
    design = compile_module(_workload(DIRECTIVES[kind]), device="npu1_1col")
    err = capsys.readouterr().err
    if kind in MAPS:
        assert MAPS[kind](design)
        assert "warning" not in err
        return
    named = WARNS.get(kind, f"the {kind} directive")
    assert f"warning: tg-to-aie: {named} has no effect on the aie target" in err, err


def test_aie_spatial_map_and_layout_map_silently(capsys):
    design = compile_module(_workload(""), device="npu1_1col")
    assert capsys.readouterr().err == ""
    assert {f.sym_name.data for f in _fifos(design)} >= {"A", "A_0", "A_1", "C", "C_0", "C_1"}
    assert {f.depths[0] for f in _fifos(design)} == {2}  # no pipeline_depth: 2


#: On Ascend, what each directive becomes in the orchestration source (the runtime config or
#: the task's creation), or the warning naming it.
ASCEND = {
    "dispatch": "c.dispatch = pto::wsp::Dispatch::RoundRobin;",
    "streams": "c.streams = 2;",
    "stream_by": "c.stream_keyed = true;",
    "issue": "c.ready = pto::wsp::ReadyPolicy::Priority;",
    "timing": "c.timing = pto::wsp::Timing::Batched;",
    "dispatch_threshold": "pto::wsp::pool_from_index(",
    "pipeline_depth": "c.pipeline_depth = 3;",
    "pipeline_depth per_stream": "c.depth_scope = pto::wsp::DepthScope::PerStream;",
    "task_window": "c.task_window = 4;",
    "batch_deps": "c.batch_deps = 2;",
    "key over task data": "c.ready = pto::wsp::ReadyPolicy::Priority;",
    "workload streams": "c.stream_keyed = true;",
    "workload events": "event_record",
    "spatial_map": "warning: config 'spatial_map'",
    "layout": "warning: config 'layouts'",
    "extension": "warning: the schedule op 'npu.double_buffer' has no effect on the ascend target",
}


@pytest.mark.parametrize("kind", sorted(ASCEND))
def test_ascend_maps_or_warns(kind):
    if kind in ("spatial_map", "layout"):
        module = _workload("")
    else:
        module = _workload(DIRECTIVES[kind], spatial="")
    lower_to_tg(_context(), module)
    tree = emit_tree(module, stub_kernels=True)
    want = ASCEND[kind]
    if want.startswith("warning: "):
        assert any(want.removeprefix("warning: ") in w for w in tree.warnings), tree.warnings
        assert "ascend target" in want or "ascend target" in " ".join(tree.warnings)
    else:
        assert want in tree.files["aicpu_orchestrate.cpp"]


def test_ascend_table_covers_every_directive_kind():
    assert set(DIRECTIVES) | {"spatial_map", "layout"} == set(ASCEND)


def test_aie_pipeline_warns_for_depth_and_dispatch(capsys):
    """A pipeline's objectfifo depths are its queues' capacities: pipeline_depth (and the
    megakernel's round_robin dispatch) warn."""
    text = (
        (ROOT / "examples" / "megakernel.mlir")
        .read_text()
        .replace(
            "sched.dispatch round_robin(1)",
            "sched.dispatch round_robin(1)\n  sched.pipeline_depth 3 scope(global)",
        )
    )
    design = compile_module(Parser(_context(), text, "mk.mlir").parse_module(), bind="num_tiles=4")
    err = capsys.readouterr().err
    assert "the pipeline_depth directive has no effect on the aie target: a pipeline" in err
    assert "the dispatch directive has no effect on the aie target" in err
    assert {f.depths[0] for f in _fifos(design) if f.sym_name.data.endswith("to_compute")} == {2}
