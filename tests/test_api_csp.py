"""CSP from Python: channels, events, processes, messages and the coordinates they carry."""

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
    Event,
    In,
    Out,
    P,
    Tensor,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    parallel_for,
    process,
    record,
    replicate,
    send,
    sequential,
    sym,
    synchronize,
    task,
)
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


A = Tensor("A", [None, 8, 64], f32)
B = Tensor("B", [None, 8, 64], f32)
n = sym("n")


def test_events_record_and_synchronize():
    ch, done = Channel("work", capacity=2), Event("done")
    producer = (
        process("producer")
        .produces(ch, done)
        .body(
            sequential(
                for_each(DenseDyn(n), lambda b: send(ch, task(k, [b, 0], [A[b, 0], B[b, 0]]))),
                record(done),
            )
        )
    )
    waiter = process("waiter").consumes(ch, done).body([consume(ch), synchronize(done)])
    text = roundtrip(connect([producer, waiter], [ch, done]).named("p").module())
    assert "csp.channel @work : !wsp.task capacity(2)" in text
    assert "csp.channel @done : !csp.signal capacity(0)" in text
    assert "csp.process @producer produces(@work, @done) {" in text
    assert "csp.record @done" in text and "csp.synchronize @done" in text
    assert "csp.pipeline @p(%A: memref<?x8x64xf32>, %B: memref<?x8x64xf32>, %n: index)" in text


def test_message_coordinates():
    ch = Channel("c")
    gen = (
        process("gen")
        .produces(ch)
        .body(
            parallel_for(
                DenseDyn(n),
                lambda b: parallel_for(
                    Dense[8], lambda h: send(ch, task(k, [b, h], [A[b, h], B[b, h]]))
                ),
            )
        )
    )

    def use(t):
        b, h = t.coords  # the sender's two loop indices
        return task(k, [t, h], [B[b, h], A[t, t.coords[1]]])

    user = process("user").consumes(ch).body(consume(ch, use))
    text = roundtrip(connect([gen, user], [ch]).named("p").module())
    assert text.count("csp.coord %t[0]") == 1  # t, b and coords[0] are one value
    assert text.count("csp.coord %t[1]") == 1
    user_body = text[text.index("csp.process @user") :]
    assert user_body.count("wsp.view") == 2


def test_coords_of_an_unknown_sender_need_an_index():
    ch = Channel("c")

    def unpack(t):
        b, h = t.coords
        return task(k, [b, h], [A[b, h], B[b, h]])

    with pytest.raises(CompileError, match="not known here"):
        consume(ch, unpack)
    c = consume(ch, lambda t: task(k, [t.coords[0], t.coords[1]], [A[t, 0], B[t, 0]]))
    assert c.body


def test_message_of_several_tasks():
    ch = Channel("c")
    gen = (
        process("gen")
        .produces(ch)
        .body(
            for_each(
                DenseDyn(n),
                lambda b: send(
                    ch, [task(k, [b, 0], [A[b, 0], B[b, 0]]), task(k, [b, 1], [A[b, 1], B[b, 1]])]
                ),
            )
        )
    )
    sink = process("sink").consumes(ch).body(consume(ch))
    text = roundtrip(connect([gen, sink], [ch]).named("p").module())
    assert text.count("wsp.task @k") == 2
    assert "csp.consume @c as %t : !wsp.task {" in text


def test_replicate_and_statement_bodies():
    ch = Channel("c", capacity=8)

    def gen_body():
        for b in P.seq(DenseDyn(n)):
            send(ch, k[b, 0](x=A[b, 0], y=B[b, 0]))

    def worker_body():
        with consume(ch) as job:
            k[job, 1](x=B[job, 0], y=A[job, 1])

    gen = process("gen").produces(ch).body(gen_body)
    worker = replicate(process("worker").consumes(ch).body(worker_body), 4)
    text = roundtrip(connect([gen, worker], [ch]).named("p").module())
    assert "csp.process @worker consumes(@c) replicas(4) {" in text
    assert "csp.consume @c as %job : !wsp.task {" in text
    assert "csp.coord %job[0]" in text


def test_a_message_holds_only_tasks():
    ch, other = Channel("c"), Channel("d")
    with pytest.raises(CompileError, match="cannot contain the send"):
        send(ch, send(other, task(k, [0, 0], [A[0, 0], B[0, 0]])))


def test_connect_checks_its_channels_and_names():
    ch, stray = Channel("c"), Channel("stray")
    gen = process("gen").produces(ch).body(send(ch, task(k, [0, 0], [A[0, 0], B[0, 0]])))
    sink = process("sink").consumes(ch).body(consume(ch))
    with pytest.raises(CompileError, match="not passed to connect"):
        connect([gen, sink], [])
    with pytest.raises(CompileError, match="'stray' has no producer"):
        connect([gen, sink], [ch, stray])
    with pytest.raises(CompileError, match="named 'c'"):
        connect([gen, sink, process("c").consumes(ch).body(consume(ch))], [ch])
    with pytest.raises(CompileError, match="replica count"):
        replicate(sink, 0)
    with pytest.raises(CompileError, match="capacity"):
        Channel("bad", capacity=-1)


def test_a_pipeline_is_not_a_child():
    ch = Channel("c")
    gen = process("gen").produces(ch).body(send(ch, task(k, [0, 0], [A[0, 0], B[0, 0]])))
    pipe = connect([gen, process("sink").consumes(ch).body(consume(ch))], [ch])
    with pytest.raises(CompileError, match="cannot be part of another workload"):
        sequential(pipe)
