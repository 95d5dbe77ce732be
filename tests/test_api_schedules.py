"""Schedules from Python: every directive, key functions traced once into key regions.

Keys are functions of named task coordinates: by parameter name (``lambda b, h: ...``) or,
with one parameter that is no coordinate, by attribute (``lambda t: t.b``).
"""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from pto_wsp import (
    Channel,
    CompileError,
    Dense,
    DenseDyn,
    DispatchPolicy,
    In,
    IssuePolicy,
    Out,
    Replicate,
    Shard,
    Tensor,
    TimingPolicy,
    connect,
    consume,
    f32,
    kernel,
    parallel_for,
    process,
    replicate,
    send,
    sym,
    task,
    workload,
)
from pto_wsp.dialects import sched
from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.wsp import WSP


def roundtrip(m: ModuleOp) -> str:
    """Verify, print, parse and compare: the text of the module."""
    m.verify()
    text = str(m)
    ctx = Context()
    for dialect in (Builtin, arith.Arith, memref.MemRef, WSP, CSP, SCHED):
        ctx.load_dialect(dialect)
    assert Parser(ctx, text).parse_module().is_structurally_equivalent(m), text
    return text


@kernel(cost=10)
def k(b, h, x: In[f32[64]], y: Out[f32[64]]):
    """y = x."""


Q = Tensor("Q", [None, 8, 64], f32)
O = Tensor("O", [None, 8, 64], f32)  # noqa: E741 (the seed's name)
n = sym("n")
batch = DenseDyn(n)
heads = Dense[8]
attn = parallel_for(
    batch, lambda b: parallel_for(heads, lambda h: task(k, [b, h], [Q[b, h], O[b, h]]))
).named("attn")


def schedule_op(s) -> sched.ScheduleOp:
    m = s.module()
    roundtrip(m)
    op = m.body.block.last_op
    assert isinstance(op, sched.ScheduleOp)
    return op


def test_every_directive():
    s = (
        attn.schedule()
        .dispatch(DispatchPolicy.round_robin(4))
        .streams(2)
        .stream_by(lambda h: h % 2)
        .issue(IssuePolicy.priority(lambda b, h: b * 8 + h))
        .timing(TimingPolicy.batched(16))
        .spatial_map((2, 4))
        .layout(Q, Shard(0), Shard(1), Replicate())
        .dispatch_threshold(4, lambda h: h, below="vector", above="cube")
        .pipeline_depth(2, scope="per_stream")
        .task_window(8192, overflow="abort")
        .batch_deps(64)
    )
    text = roundtrip(s.module())
    for line in (
        "sched.schedule @attn_sched for @attn {",
        "sched.dispatch round_robin(4)",
        "sched.streams 2",
        'sched.stream_by key(%h = "h") {',
        'sched.issue priority key(%b = "b", %h = "h") {',
        "sched.timing batched(16)",
        "sched.spatial_map grid(2, 4)",
        'sched.layout "Q" (shard(0), shard(1), replicate)',
        'sched.dispatch_threshold 4 below(vector) above(cube) key(%h = "h") {',
        "sched.pipeline_depth 2 scope(per_stream)",
        "sched.task_window 8192 overflow(abort)",
        "sched.batch_deps 64",
    ):
        assert line in text, line
    assert len(schedule_op(s).directives()) == 11


@pytest.mark.parametrize(
    "policy, line",
    [
        (DispatchPolicy.round_robin(3), "sched.dispatch round_robin(3)"),
        (DispatchPolicy.affinity("b"), 'sched.dispatch affinity("b")'),
        (DispatchPolicy.affinity(heads), 'sched.dispatch affinity("h")'),
        (DispatchPolicy.range(batch, 4), 'sched.dispatch range("b", 4)'),
        (DispatchPolicy.work_steal(), "sched.dispatch work_steal"),
        (DispatchPolicy.hash(lambda b: b), 'sched.dispatch hash key(%b = "b") {'),
        (DispatchPolicy.dispatch_by(lambda t: t.h % 4), 'sched.dispatch dispatch_by key(%h = "h")'),
    ],
)
def test_dispatch_policies(policy, line):
    assert line in roundtrip(attn.schedule().dispatch(policy).module())


@pytest.mark.parametrize(
    "policy, line",
    [
        (TimingPolicy.immediate(), "sched.timing immediate"),
        (TimingPolicy.interleaved(4), "sched.timing interleaved(4)"),
        (TimingPolicy.rate_limit(100), "sched.timing rate_limit(100)"),
        (IssuePolicy.fifo(), "sched.issue fifo"),
    ],
)
def test_timing_and_issue_policies(policy, line):
    s = attn.schedule()
    s = s.issue(policy) if line.startswith("sched.issue") else s.timing(policy)
    assert line in roundtrip(s.module())


def test_key_functions_are_traced_once():
    calls = []

    def key(b, h):
        calls.append((b, h))
        return (b + h) % 3

    s = attn.schedule().streams(3).stream_by(key)
    assert len(calls) == 1
    s.module()
    s.module()
    assert len(calls) == 1  # building modules reuses the traced key


def test_key_by_attribute_takes_the_coordinates_it_reads():
    op = schedule_op(attn.schedule().streams(2).stream_by(lambda t: t.h * 2 + t.b))
    stream_by = op.directive(sched.StreamByOp)
    assert isinstance(stream_by, sched.StreamByOp)
    assert stream_by.coordinate_names == ["h", "b"]
    names = [o.name for o in stream_by.key.block.ops]
    assert names == ["arith.constant", "arith.muli", "arith.addi", "sched.yield"]


def test_key_returning_a_constant():
    op = schedule_op(attn.schedule().dispatch(DispatchPolicy.dispatch_by(lambda: 0)))
    dispatch = op.directive(sched.DispatchOp)
    assert isinstance(dispatch, sched.DispatchOp)
    assert dispatch.coordinate_names == [] and len(dispatch.key.block.args) == 0


def test_key_must_be_an_index():
    with pytest.raises(CompileError, match="expected a key"):
        attn.schedule().streams(2).stream_by(lambda b: b < 2)


def test_schedules_are_values():
    base = attn.schedule().streams(2)
    a = base.stream_by(lambda b: b % 2)
    b = base.timing(TimingPolicy.immediate())
    assert len(base.directives) == 1 and len(a.directives) == 2 and len(b.directives) == 2
    assert "stream_by" not in str(b)


def test_schedule_name():
    op = schedule_op(attn.schedule("fast").streams(4))
    assert op.sym_name.data == "fast" and op.workload.root_reference.data == "attn"


def test_layout_names_a_workload_parameter():
    @workload
    def w(q, out):
        return parallel_for(
            batch, lambda b: parallel_for(heads, lambda h: task(k, [b, h], [q[b, h], out[b, h]]))
        )

    s = w(Q, O).schedule().spatial_map(4).layout(O, Shard(0), Replicate(), Replicate())
    assert 'sched.layout "out" (shard(0), replicate, replicate)' in roundtrip(s.module())


def test_affinity_axis_must_name_one_loop():
    with pytest.raises(CompileError, match="no loop iterates it"):
        attn.schedule().dispatch(DispatchPolicy.affinity(Dense[3]))


def test_pipeline_keys_see_the_replica_coordinate():
    queue = Channel("q", capacity=4)
    gen = (
        process("gen")
        .produces(queue)
        .body(parallel_for(heads, lambda h: send(queue, task(k, [0, h], [Q[0, h], O[0, h]]))))
    )
    worker = process("worker").consumes(queue).body(consume(queue))
    pipe = connect([gen, replicate(worker, 3)], [queue]).named("pipe")
    s = pipe.schedule().dispatch(DispatchPolicy.dispatch_by(lambda replica, h: replica + h))
    text = roundtrip(s.module())
    assert 'sched.dispatch dispatch_by key(%replica = "replica", %h = "h")' in text
    assert "csp.process @worker consumes(@q) replicas(3)" in text


def test_counts_are_checked():
    with pytest.raises(CompileError, match="int > 0"):
        attn.schedule().streams(0)
    with pytest.raises(CompileError, match="scope is one of"):
        attn.schedule().pipeline_depth(2, scope="everywhere")
    with pytest.raises(CompileError, match="pools are"):
        attn.schedule().dispatch_threshold(1, lambda b: b, below="gpu")
    with pytest.raises(CompileError, match="takes a DispatchPolicy"):
        attn.schedule().dispatch(TimingPolicy.immediate())


def test_one_layout_per_tensor():
    """A schedule holds a layout for each tensor (the sched verifier's rule), not just one."""
    from pto_wsp import Dense, Replicate, Shard, Tensor, f32, kernel, parallel_for, task

    a = Tensor("A", (4, 4), f32)
    b = Tensor("B", (4, 4), f32)

    @kernel
    def copy(i: int, x: In[f32[4]], y: Out[f32[4]]):
        y[:] = x

    w = parallel_for(Dense[4], lambda i: task(copy, [i], [a[i], b[i]]))
    sched = w.schedule().spatial_map((2, 2))
    both = sched.layout(a, Shard(0), Replicate()).layout(b, Shard(1), Replicate())
    text = str(both)
    assert 'sched.layout "A" (shard(0), replicate)' in text
    assert 'sched.layout "B" (shard(1), replicate)' in text
    with pytest.raises(CompileError, match="already has a layout of A"):
        sched.layout(a, Shard(0), Replicate()).layout(a, Shard(1), Replicate())
