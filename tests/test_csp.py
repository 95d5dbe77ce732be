"""The csp dialect from Python: build pipelines with the op constructors, verify, round-trip."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, Builtin, IndexType, MemRefType, ModuleOp, f32
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.csp import (
    CSP,
    ChannelOp,
    ConsumeOp,
    CoordOp,
    PipelineOp,
    ProcessOp,
    RecordOp,
    SendOp,
    SignalType,
    SynchronizeOp,
)
from pto_wsp.dialects.wsp import (
    VIEW_DYNAMIC,
    VIEW_INDEX,
    WSP,
    DenseDynOp,
    ForEachOp,
    KernelOp,
    SequentialOp,
    TaskOp,
    TaskType,
    ViewOp,
)

MEGAKERNEL = """\
builtin.module {
  wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, dst: out memref<64xf32>) unit(vector)
  wsp.kernel @compute_kernel(i: index, buf: inout memref<64xf32>) unit(vector)
  csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %buf: memref<64xf32>) {
    csp.channel @l2c : !wsp.task capacity(2)
    csp.channel @sync : !csp.signal capacity(0)
    csp.process @loader produces(@l2c) {
      %ax = wsp.dense_dyn %num_tiles
      wsp.for_each %i in %ax named("i") : !wsp.dense_dyn {
        %v = wsp.view %input[%i] : memref<?x64xf32> -> memref<64xf32>
        csp.send @l2c {
          wsp.task @load_kernel(%i : index) resources(%v, %buf : memref<64xf32>, memref<64xf32>)
        }
      }
    }
    csp.process @computer consumes(@l2c) produces(@sync) replicas(4) {
      csp.consume @l2c as %tile : !wsp.task {
        %ti = csp.coord %tile[0]
        wsp.task @compute_kernel(%ti : index) resources(%buf : memref<64xf32>)
      }
      csp.record @sync
    }
    csp.process @waiter consumes(@sync) {
      csp.synchronize @sync
    }
  }
}"""


def _fill(block: Block, *ops: Operation) -> None:
    """Put ``ops`` at the end of ``block``, before its ``wsp.yield``."""
    assert block.last_op is not None
    block.insert_ops_before(ops, block.last_op)


def _print(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Arith, WSP, CSP):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def _kernels() -> list[Operation]:
    tile = MemRefType(f32, [64])
    return [
        KernelOp("load_kernel", ["i", "src", "dst"], [IndexType(), tile, tile], ["", "in", "out"]),
        KernelOp("compute_kernel", ["i", "buf"], [IndexType(), tile], ["", "inout"]),
    ]


def _loader(pipeline: PipelineOp) -> ProcessOp:
    loader = ProcessOp("loader", produces=["l2c"])
    axis = DenseDynOp(pipeline.arg("num_tiles"))
    axis.axis.name_hint = "ax"
    loop = ForEachOp(axis, ["i"])
    (i,) = loop.indices
    view = ViewOp(pipeline.arg("input"), [VIEW_DYNAMIC], [VIEW_INDEX], [i])
    view.result.name_hint = "v"
    send = SendOp("l2c")
    _fill(send.body.block, TaskOp("load_kernel", [i], [view, pipeline.arg("buf")]))
    _fill(loop.body.block, view, send)
    _fill(loader.body.block, axis, loop)
    return loader


def _computer(pipeline: PipelineOp) -> ProcessOp:
    computer = ProcessOp("computer", consumes=["l2c"], produces=["sync"], replicas=4)
    consume = ConsumeOp("l2c", name="tile")
    coord = CoordOp(consume.message, 0)
    coord.result.name_hint = "ti"
    _fill(consume.body.block, coord, TaskOp("compute_kernel", [coord], [pipeline.arg("buf")]))
    _fill(computer.body.block, consume, RecordOp("sync"))
    return computer


def build_megakernel() -> ModuleOp:
    """The megakernel pipeline of seed 001 §9.3, with an event, built from the constructors."""
    args = [IndexType(), MemRefType(f32, [DYNAMIC_INDEX, 64]), MemRefType(f32, [64])]
    pipeline = PipelineOp("megakernel", args, ["num_tiles", "input", "buf"])
    waiter = ProcessOp("waiter", consumes=["sync"])
    _fill(waiter.body.block, SynchronizeOp("sync"))
    _fill(
        pipeline.body.block,
        ChannelOp("l2c", TaskType(), 2),
        ChannelOp("sync", SignalType()),
        _loader(pipeline),
        _computer(pipeline),
        waiter,
    )
    return ModuleOp([*_kernels(), pipeline])


def test_megakernel_builds_verifies_and_round_trips():
    module = build_megakernel()
    module.verify()
    text = _print(module)
    assert text == MEGAKERNEL
    reparsed = _parse(text)
    reparsed.verify()
    assert _print(reparsed) == text


def test_megakernel_accessors():
    module = build_megakernel()
    pipeline = next(op for op in module.ops if isinstance(op, PipelineOp))
    assert [c.sym_name.data for c in pipeline.channels()] == ["l2c", "sync"]
    assert [p.sym_name.data for p in pipeline.processes()] == ["loader", "computer", "waiter"]
    sync = pipeline.channel("sync")
    assert sync is not None and sync.is_event and sync.capacity.value.data == 0
    assert pipeline.channel("missing") is None


def test_channel_default_capacity():
    assert ChannelOp("c", TaskType()).capacity.value.data == 1
    assert ChannelOp("e", SignalType()).capacity.value.data == 0


def test_send_is_a_workload_expression_child():
    pipeline = PipelineOp("p", [], [])
    producer = ProcessOp("a", produces=["c"])
    seq = SequentialOp()
    send = SendOp("c")
    _fill(seq.body.block, send)
    _fill(producer.body.block, seq)
    consumer = ProcessOp("b", consumes=["c"])
    _fill(pipeline.body.block, ChannelOp("c", TaskType(), 0), producer, consumer)
    ModuleOp([pipeline]).verify()
    assert seq.children() == [send]


def test_channel_without_consumer_is_rejected():
    pipeline = PipelineOp("p", [], [])
    _fill(pipeline.body.block, ChannelOp("c", TaskType()), ProcessOp("a", produces=["c"]))
    with pytest.raises(VerifyException, match="channel @c has no consumer"):
        ModuleOp([pipeline]).verify()


def test_send_outside_produces_is_rejected():
    pipeline = PipelineOp("p", [], [])
    consumer = ProcessOp("b", consumes=["c"])
    _fill(consumer.body.block, SendOp("c"))
    _fill(pipeline.body.block, ChannelOp("c", TaskType()), ProcessOp("a", produces=["c"]), consumer)
    with pytest.raises(VerifyException, match=r"process @b sends on @c but does not list it"):
        ModuleOp([pipeline]).verify()
