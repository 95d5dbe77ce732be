"""The sched dialect from Python: build a schedule with every directive, verify, round-trip."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Builtin,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    f32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.sched import (
    SCHED,
    BatchDepsOp,
    DispatchOp,
    DispatchThresholdOp,
    IssueOp,
    LayoutOp,
    PipelineDepthOp,
    ScheduleOp,
    SpatialMapOp,
    StreamByOp,
    StreamsOp,
    TaskWindowOp,
    TimingOp,
    YieldOp,
    key_region,
    task_coordinates,
)
from pto_wsp.dialects.wsp import WSP, DenseDynOp, ForEachOp, ParallelForOp, WorkloadOp


def _ctx() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, WSP, SCHED):
        ctx.load_dialect(dialect)
    return ctx


def _print(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def _parse(text: str) -> ModuleOp:
    return Parser(_ctx(), text).parse_module()


def _attention() -> WorkloadOp:
    """``@attention(%batch, %heads, %Q)``: parallel_for b { for_each h { } }."""
    q_type = MemRefType(f32, [DYNAMIC_INDEX, 8, 64])
    workload = WorkloadOp("attention", [IndexType(), IndexType(), q_type], ["batch", "heads", "Q"])
    block = workload.body.block
    assert block.last_op is not None
    batch = DenseDynOp(block.args[0])
    heads = DenseDynOp(block.args[1])
    outer = ParallelForOp(batch, ["b"])
    outer.body.block.insert_op_before(ForEachOp(heads, ["h"]), outer.body.block.last_op)
    block.insert_ops_before([batch, heads, outer], block.last_op)
    return workload


def _mod(b: SSAValue, n: int) -> Operation:
    return arith.RemUIOp(b, arith.ConstantOp(IntegerAttr(n, IndexType())))


def _full_schedule() -> ScheduleOp:
    """A schedule holding one directive of every kind, keys built with arith ops."""
    return ScheduleOp(
        "attn_sched",
        "attention",
        [
            DispatchOp.affinity("b"),
            StreamsOp(2),
            StreamByOp(["b"], lambda b: _mod(b, 2)),
            IssueOp.priority(["b", "h"], lambda b, h: arith.AddiOp(b, h)),
            TimingOp("batched", 16),
            SpatialMapOp([4, 4]),
            LayoutOp("Q", [0, None, 1]),
            DispatchThresholdOp(4096, "vector", "cube", ["h"], lambda h: arith.MuliOp(h, h)),
            PipelineDepthOp(2, "per_stream"),
            TaskWindowOp(8192, "stall"),
            BatchDepsOp(64),
        ],
    )


def _module(*schedules: ScheduleOp) -> ModuleOp:
    return ModuleOp([_attention(), *schedules])


def test_every_directive_builds_verifies_and_round_trips():
    module = _module(_full_schedule())
    module.verify()
    text = _print(module)
    reparsed = _parse(text)
    reparsed.verify()
    assert _print(reparsed) == text
    assert reparsed.is_structurally_equivalent(module)
    assert 'sched.stream_by key(%b = "b") {' in text
    assert 'sched.issue priority key(%b = "b", %h = "h") {' in text
    assert 'sched.layout "Q" (shard(0), replicate, shard(1))' in text
    assert "sched.dispatch_threshold 4096 below(vector) above(cube) key(%h = " in text


def test_dispatch_policies_from_classmethods():
    policies = [
        (DispatchOp.round_robin(4), "sched.dispatch round_robin(4)"),
        (DispatchOp.affinity("b"), 'sched.dispatch affinity("b")'),
        (DispatchOp.hash(["b", "h"], lambda b, h: arith.XOrIOp(b, h)), "sched.dispatch hash key("),
        (DispatchOp.range("h", 8), 'sched.dispatch range("h", 8)'),
        (DispatchOp.work_steal(), "sched.dispatch work_steal"),
        (DispatchOp.dispatch_by(["b"], key_region(["b"])), "sched.dispatch dispatch_by key("),
    ]
    for i, (op, expected) in enumerate(policies):
        module = _module(ScheduleOp(f"s{i}", "attention", [op]))
        module.verify()
        text = _print(module)
        assert expected in text
        assert _print(_parse(text)) == text


def test_other_policies_round_trip():
    schedule = ScheduleOp(
        "other",
        "attention",
        [IssueOp.fifo(), TimingOp("immediate"), PipelineDepthOp(1), TaskWindowOp(4, "abort")],
    )
    module = _module(schedule)
    module.verify()
    text = _print(module)
    assert "sched.issue fifo\n" in text
    assert "sched.timing immediate\n" in text
    assert "sched.pipeline_depth 1 scope(global)" in text
    assert "sched.task_window 4 overflow(abort)" in text
    assert _print(_parse(text)) == text


def test_key_names_are_explicit_not_ssa_names():
    """A key whose SSA names differ from its coordinate names keeps both."""
    text = """\
builtin.module {
  wsp.workload @w(%n: index) {
    %ax = wsp.dense_dyn %n
    wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
    }
  }
  sched.schedule @s for @w {
    sched.dispatch hash key(%zz = "b") {
      sched.yield %zz : index
    }
  }
}
"""
    module = _parse(text)
    module.verify()
    dispatch = next(op for op in module.walk() if isinstance(op, DispatchOp))
    assert dispatch.coordinate_names == ["b"]
    assert _print(module) == text.rstrip()


def test_accessors():
    schedule = _full_schedule()
    module = _module(schedule)
    assert schedule.target() is module.body.block.first_op
    assert isinstance(schedule.directive(StreamsOp), StreamsOp)
    assert schedule.directive(YieldOp) is None
    assert len(schedule.directives()) == 11
    layout = schedule.directive(LayoutOp)
    assert isinstance(layout, LayoutOp) and layout.entries == [0, None, 1]
    grid = schedule.directive(SpatialMapOp)
    assert isinstance(grid, SpatialMapOp) and grid.shape == (4, 4)
    assert task_coordinates(_attention()) == ["b", "h"]


def test_key_region_without_body_is_the_coordinate():
    region = key_region(["h"])
    yield_op = region.block.last_op
    assert isinstance(yield_op, YieldOp) and yield_op.values[0] is region.block.args[0]
    with pytest.raises(ValueError, match="exactly one coordinate"):
        key_region(["b", "h"])


@pytest.mark.parametrize(
    ("directives", "message"),
    [
        ([DispatchOp.round_robin(2), DispatchOp.work_steal()], "more than one sched.dispatch"),
        ([DispatchOp.round_robin(0)], "round_robin count must be > 0, got 0"),
        (
            [DispatchOp.affinity("x")],
            r"unknown task coordinate 'x' \(coordinates of @attention: b, h\)",
        ),
        ([StreamByOp(["b"], key_region(["b"]))], "needs a sched.streams directive"),
        ([LayoutOp("Q", [0, None, None])], "needs a sched.spatial_map directive"),
        ([SpatialMapOp([2]), LayoutOp("Q", [0, 0, None])], "shards grid axis 0 twice"),
        ([SpatialMapOp([2]), LayoutOp("Q", [0, None])], "has 2 entries but the tensor has rank 3"),
        ([TimingOp("batched")], "timing policy batched needs a count"),
        ([PipelineDepthOp(2, "per_core")], "scope must be one of global, per_stream, per_pool"),
    ],
)
def test_verifier_rejects(directives: list[Operation], message: str):
    module = _module(ScheduleOp("bad", "attention", directives))
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_unknown_workload():
    module = ModuleOp([ScheduleOp("s", "missing")])
    with pytest.raises(VerifyException, match="schedule @s is bound to unknown workload @missing"):
        module.verify()
