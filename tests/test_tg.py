"""The tg dialect from Python: build programs and graphs with the op constructors, verify,
print, parse, print again, and check the verifier's rules that only Python can reach."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import AddiOp, Arith, ConstantOp
from xdsl.dialects.builtin import (
    Builtin,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    f32,
    i64,
)
from xdsl.dialects.memref import MemRef, SubviewOp
from xdsl.dialects.scf import Scf
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_wsp.dialects.csp import CSP, SignalType
from pto_wsp.dialects.tg import (
    TG,
    ConsumeOp,
    CoordOp,
    GraphOp,
    NodeOp,
    OrderedOp,
    OrderPointOp,
    ProcessOp,
    ProgramOp,
    QueueOp,
    RecordOp,
    RegionAttr,
    SendOp,
    SeqOp,
    SynchronizeOp,
    TaskOp,
    verify_config,
)
from pto_wsp.dialects.wsp import WSP, KernelOp, TaskType
from pto_wsp.universe import ALL_DIALECTS

TILE = MemRefType(f32, [16])

PROGRAM = """\
builtin.module {
  wsp.kernel @scale(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
  tg.program @scan(%X: memref<4x16xf32>, %Y: memref<16xf32>, %i: index) config {streams = 2 : i64} {
    tg.ordered {
      %x = memref.subview %X[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to \
memref<16xf32, strided<[1], offset: ?>>
      %n = tg.seq
      tg.task @scale(%i : index) resources(%x, %Y : memref<16xf32, strided<[1], offset: ?>>, \
memref<16xf32>) access(in, out) at(i = %i) domain(aicore) pool(cube) stream(%n)
      tg.order_point
      tg.task @scale(%i : index) resources(%x, %Y : memref<16xf32, strided<[1], offset: ?>>, \
memref<16xf32>) access(in, out) at(i = %i) pool(%i)
    }
  }
}"""

GRAPH = """\
builtin.module {
  wsp.kernel @scale(i: index, x: in memref<16xf32>, y: out memref<16xf32>) unit(vector)
  tg.graph @scan(%X: memref<4x16xf32>, %Y: memref<16xf32>) {
    tg.node 0 task @scale args(0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0][16][1] out) \
at(i = 0) domain(aicore) pool(cube) stream(0) fanin(0) fanout(2)
    tg.node 1 task @scale args(1) regions(%X[1, 0][1, 16][1, 1] in, %Y[0][16][1] out) \
at(i = 1) pool(any) fanin(0) fanout(2)
    tg.node 2 barrier fanin(2) fanout(3)
    tg.node 3 task @scale args(2) regions(%X[2, 0][1, 16][1, 1] in, %Y[0][16][1] out) \
at(i = 2) pool(vector) target(1) priority(-1) fanin(1) fanout()
  }
}"""

PIPELINE = """\
builtin.module {
  tg.program @pipe() {
    tg.queue @q : !wsp.task capacity(2)
    tg.queue @ev : !csp.signal capacity(0)
    tg.process @producer {
      tg.send @q {
      }
      tg.record @ev
    }
    tg.process @consumer replicas(3) as %r {
      tg.consume @q as %m : !wsp.task {
        %k = tg.coord %m[0]
        %s = arith.addi %k, %r : index
      }
      tg.synchronize @ev
    }
  }
}"""


def _fill(block: Block, *ops: Operation) -> None:
    """Put ``ops`` at the end of ``block``, before its ``tg.yield``."""
    assert block.last_op is not None
    block.insert_ops_before(ops, block.last_op)


def _print(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Arith, MemRef, Scf, WSP, CSP, TG):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def _round_trip(module: ModuleOp, expected: str) -> None:
    module.verify()
    text = _print(module)
    assert text == expected
    reparsed = _parse(text)
    reparsed.verify()
    assert _print(reparsed) == text


def _kernel() -> KernelOp:
    return KernelOp("scale", ["i", "x", "y"], [IndexType(), TILE, TILE], ["", "in", "out"])


def build_program() -> ModuleOp:
    """An ordered scope of two tasks around an ordering point, with static and dynamic pools."""
    args = [MemRefType(f32, [4, 16]), TILE, IndexType()]
    program = ProgramOp("scan", args, ["X", "Y", "i"], {"streams": IntegerAttr(2, i64)})
    X, Y, i = program.body.block.args
    offsets, sizes, strides = [i, 0], [1, 16], [1, 1]
    view_type = SubviewOp.infer_result_type(X.type, offsets, sizes, strides, reduce_rank=True)
    view = SubviewOp.get(X, offsets, sizes, strides, view_type)
    view.result.name_hint = "x"
    seq = SeqOp()
    seq.result.name_hint = "n"
    first = TaskOp("scale", [i], [view, Y], ["in", "out"], [("i", i)], "cube", "aicore", stream=seq)
    second = TaskOp("scale", [i], [view, Y], ["in", "out"], [("i", i)], pool=i)
    ordered = OrderedOp()
    _fill(ordered.body.block, view, seq, first, OrderPointOp(), second)
    _fill(program.body.block, ordered)
    return ModuleOp([_kernel(), program])


def build_graph() -> ModuleOp:
    """Two tasks, a barrier, one task after it."""
    graph = GraphOp("scan", [MemRefType(f32, [4, 16]), TILE], ["X", "Y"])

    def regions(row: int) -> list[RegionAttr]:
        return [
            RegionAttr("X", [row, 0], [1, 16], [1, 1], "in"),
            RegionAttr("Y", [0], [16], [1], "out"),
        ]

    first = NodeOp(0, "task", "scale", [0], regions(0), [("i", 0)], "cube", stream=0, fanout=[2])
    first.domain = StringAttr("aicore")
    _fill(
        graph.body.block,
        first,
        NodeOp(1, "task", "scale", [1], regions(1), [("i", 1)], "any", fanout=[2]),
        NodeOp(2, "barrier", fanin=2, fanout=[3]),
        NodeOp(3, "task", "scale", [2], regions(2), [("i", 2)], "vector", 1, None, -1, 1),
    )
    return ModuleOp([_kernel(), graph])


def build_pipeline() -> ModuleOp:
    """Two processes over a task queue and an event."""
    program = ProgramOp("pipe", [], [])
    producer = ProcessOp("producer")
    _fill(producer.body.block, SendOp("q"), RecordOp("ev"))
    consumer = ProcessOp("consumer", replicas=3)
    consumer.replica.name_hint = "r"
    consume = ConsumeOp("q")
    coord = CoordOp(consume.message, 0)
    coord.result.name_hint = "k"
    add = AddiOp(coord, consumer.replica)
    add.result.name_hint = "s"
    _fill(consume.body.block, coord, add)
    _fill(consumer.body.block, consume, SynchronizeOp("ev"))
    _fill(
        program.body.block,
        QueueOp("q", TaskType(), 2),
        QueueOp("ev", SignalType()),
        producer,
        consumer,
    )
    return ModuleOp([program])


def test_tg_is_registered():
    assert ALL_DIALECTS["tg"]() is TG


def test_program_builds_verifies_and_round_trips():
    _round_trip(build_program(), PROGRAM)


def test_graph_builds_verifies_and_round_trips():
    _round_trip(build_graph(), GRAPH)


def test_pipeline_builds_verifies_and_round_trips():
    _round_trip(build_pipeline(), PIPELINE)


def test_unused_replica_index_is_left_out():
    module = build_pipeline()
    program = next(op for op in module.ops if isinstance(op, ProgramOp))
    consume = next(iter(program.processes()[1].body.block.ops))
    assert isinstance(consume, ConsumeOp)
    add = consume.body.block.last_op.prev_op  # type: ignore[union-attr]
    assert isinstance(add, AddiOp)
    consume.body.block.erase_op(add)
    _round_trip(
        module,
        PIPELINE.replace(" as %r", "").replace("        %s = arith.addi %k, %r : index\n", ""),
    )


def test_accessors():
    module = build_graph()
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    assert [n.id for n in graph.nodes()] == [0, 1, 2, 3]
    assert graph.nodes()[2].successors_ids() == [3]
    assert set(graph.tensors()) == {"X", "Y"}
    assert graph.arg("Y") is graph.body.block.args[1]
    region = graph.nodes()[0].tensor_regions.data[0]
    assert region.values() == ([0, 0], [1, 16], [1, 1])
    pipeline = next(op for op in build_pipeline().ops if isinstance(op, ProgramOp))
    ev = pipeline.queue("ev")
    assert ev is not None and ev.is_event and ev.capacity.value.data == 0
    assert pipeline.queue("missing") is None
    assert QueueOp("q", TaskType()).capacity.value.data == 1


def test_task_constructor_operand_segments():
    module = build_program()
    program = next(op for op in module.ops if isinstance(op, ProgramOp))
    ordered = next(iter(program.body.block.ops))
    assert isinstance(ordered, OrderedOp)
    first, second = (op for op in ordered.body.block.ops if isinstance(op, TaskOp))
    assert first.pool == StringAttr("cube") and first.dynamic_pool is None
    assert first.stream is not None and first.target is None and first.priority is None
    assert second.pool is None and second.dynamic_pool is not None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"colour": StringAttr("red")}, "unknown config key 'colour'"),
        ({"streams": IntegerAttr(0, i64)}, "config streams must be > 0, got 0"),
        ({"dispatch": StringAttr("random")}, "config dispatch must be one of"),
        ({"timing": StringAttr("batched")}, "config timing 'batched' needs timing_n"),
    ],
)
def test_config_rules(config, message):
    with pytest.raises(VerifyException, match=message):
        verify_config(DictionaryAttr(config), [])


def test_graph_fanin_mismatch_is_rejected():
    graph = GraphOp("g", [], [])
    _fill(graph.body.block, NodeOp(0, "barrier", fanout=[1]), NodeOp(1, "barrier"))
    with pytest.raises(VerifyException, match=r"node 1 has fanin\(0\) but 1 node\(s\) list it"):
        ModuleOp([graph]).verify()


def test_graph_cycle_is_rejected():
    graph = GraphOp("g", [], [])
    _fill(
        graph.body.block,
        NodeOp(0, "barrier", fanin=1, fanout=[1]),
        NodeOp(1, "barrier", fanin=1, fanout=[0]),
    )
    with pytest.raises(VerifyException, match="has a cycle through node 0"):
        ModuleOp([graph]).verify()


def test_task_without_kernel_is_rejected():
    program = ProgramOp("p", [], [])
    c = ConstantOp.from_int_and_width(0, IndexType())
    _fill(program.body.block, c, TaskOp("missing", [], [], [], pool=c))
    with pytest.raises(VerifyException, match="tg.task refers to unknown kernel @missing"):
        ModuleOp([program]).verify()
