"""The cases of the conformance table (tests/test_conformance.py): program + schedule + bindings.

Each case is run on the reference (runtime/engine.py, ``fast=False``) and compared with every
other implementation that supports it. ``GAPS`` marks, per case, the implementations that do
not, and why — the list the one native core has to empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pto_wsp import (
    Channel,
    Dense,
    DenseDyn,
    DispatchPolicy,
    Event,
    In,
    InOut,
    IssuePolicy,
    Out,
    Pipeline,
    Ragged,
    Sparse,
    Stream,
    Tensor,
    TimingPolicy,
    barrier,
    combine,
    cond,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    parallel_for,
    process,
    query,
    record,
    replicate,
    select,
    send,
    sequential,
    stream_wait,
    sym,
    synchronize,
    task,
    try_send,
)

#: The implementations compared with the reference.
IMPLEMENTATIONS = ("program", "native", "ascend")


#: Ascend bodies of the pipelines' kernels: the host runtime's outputs are compared too.
PRODUCE = """
__aicore__ void cf_produce(int64_t i, pto::wsp::GmTensor<const float, 1> x,
                           pto::wsp::GmTensor<float, 1> h) {
  (void)i;
  for (int j = 0; j < 4; ++j) h(j) = x(j) * 2.0f;
}
"""
CONSUME = """
__aicore__ void cf_consume(int64_t i, pto::wsp::GmTensor<const float, 1> h,
                           pto::wsp::GmTensor<float, 1> y) {
  (void)i;
  for (int j = 0; j < 4; ++j) y(j) = h(j) + 1.0f;
}
"""
ACCUMULATE = """
__aicore__ void cf_accumulate(int64_t i, pto::wsp::GmTensor<const float, 1> y,
                              pto::wsp::GmTensor<float, 1> a) {
  (void)i;
  for (int j = 0; j < 4; ++j) a(j) = a(j) + y(j);
}
"""


@kernel(cost=lambda i: 10 + 7 * (i % 3), impls={"ascend": PRODUCE})
def cf_produce(i, x: In[f32[4]], h: Out[f32[4]]):
    h[...] = x * 2


@kernel(cost=lambda i: 20 + 5 * (i % 4), impls={"ascend": CONSUME})
def cf_consume(i, h: In[f32[4]], y: Out[f32[4]]):
    y[...] = h + 1


@kernel(cost=15, exec_unit="cube", impls={"ascend": ACCUMULATE})
def cf_accumulate(i, y: In[f32[4]], a: InOut[f32[4]]):
    a += y


@kernel(cost=lambda i: 6 * (i % 2) + 1)
def cf_overwrite(i, y: In[f32[4]], x: Out[f32[4]]):
    x[...] = y - 1


@kernel(cost=9)
def cf_fill(i, z: Out[f32[4]]):
    z[...] = i


@kernel(cost=lambda i: 6 * (i % 2))
def cf_touch(i, y: In[f32[4]], z: Out[f32[4]]):
    z[...] = y


@kernel(cost=0)
def cf_free(i, x: In[f32[4]], h: Out[f32[4]]):
    h[...] = x


#: The Ascend body of cf_add: these cases compare the results on the host runtime too.
ADD = r"""
__aicore__ void cf_add(int64_t i, pto::wsp::GmTensor<float, 1> x) {
  for (int j = 0; j < 4; ++j) x(j) = x(j) + static_cast<float>(i + 1);
}
"""


@kernel(cost=10, impls={"ascend": ADD})
def cf_add(i, x: InOut[f32[4]]):
    x += i + 1


@kernel(cost=lambda r, j: 4 + j)
def cf_gather(r, j, x: In[f32[4]], y: InOut[f32[4]]):
    y += x * (j + 1)


X = Tensor("X", [None, 4], f32)
H = Tensor("H", [None, 4], f32)
Y = Tensor("Y", [None, 4], f32)
Z = Tensor("Z", [None, 4], f32)
A = Tensor("A", [1, 4], f32)
n = sym("n")

#: Rows of every [None, 4] tensor the cases bind (n is at most this).
ROWS = 16


def _stages(group=combine):
    """Three stages: produce (X -> H), consume (H -> Y), a for_each chain accumulating Y into
    A on the cube pool: read-after-write between the stages, a write chain on A."""
    return group(
        parallel_for(DenseDyn(n), lambda i: task(cf_produce, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_consume, [i], [H[i], Y[i]])),
        for_each(DenseDyn(n), lambda i: task(cf_accumulate, [i], [Y[i], A[0]])),
    )


def _four(group=combine):
    """The three stages and a fourth copying Y to Z, whose even tasks cost nothing (they
    complete at the instant they start, during generation)."""
    return group(
        parallel_for(DenseDyn(n), lambda i: task(cf_produce, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_consume, [i], [H[i], Y[i]])),
        for_each(DenseDyn(n), lambda i: task(cf_accumulate, [i], [Y[i], A[0]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_touch, [i], [Y[i], Z[i]])),
    )


def _free_barriers():
    """Cost-0 tasks before the ordering points: a barrier whose predecessors are all done
    when it is made completes at once."""
    return sequential(
        parallel_for(DenseDyn(n), lambda i: task(cf_free, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_consume, [i], [H[i], Y[i]])),
        for_each(DenseDyn(n), lambda i: task(cf_free, [i], [Y[i], Z[i]])),
    )


def _data_order():
    """Every kind of data edge: RAW (H, Y), WAR (X overwritten after produce read it), WAW
    (Z[i // 2] written twice, A's chain)."""
    return combine(
        _stages(),
        parallel_for(DenseDyn(n), lambda i: task(cf_overwrite, [i], [Y[i], X[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_fill, [i], [Z[i // 2]])),
    )


def _structural():
    """Order without data: a for_each over disjoint rows, then sequential stages."""
    return sequential(
        for_each(DenseDyn(n), lambda i: task(cf_fill, [i], [Z[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_produce, [i], [X[i], H[i]])),
        parallel_for(DenseDyn(n), lambda i: task(cf_fill, [i], [Y[i]])),
    )


s0, s1, s2 = Stream(0), Stream(1), Stream(2)
ev, fv = Event("cf_e"), Event("cf_f")


def _t(i: int):
    return task(cf_fill, [i], [Z[i]])


def _events():
    """Records, waits, synchronize and barriers between streams (docs/semantics.md)."""
    return combine(
        s0.issue(_t(0)),
        s0.record(ev),
        s0.issue(_t(1)),
        s1.issue(_t(2)),
        stream_wait(s1, ev),
        s1.issue(_t(3)),
        s1.record(fv),
        s2.issue(_t(4)),
        barrier(ev, fv),
        s2.issue(_t(5)),
        record(ev),
        synchronize(ev),
        _t(6),
        barrier(),
        _t(7),
    )


LENGTHS = np.array([3, 0, 2, 4])
INDPTR = np.array([0, 2, 3, 3, 6])
INDICES = np.array([1, 3, 0, 2, 4, 7])


def _a(i: int):
    """Task i adds i + 1 to row i of Z (rows are disjoint: no data order)."""
    return task(cf_add, [i], [Z[i]])


#: One workload per rule of streams and events (docs/semantics.md "Streams and events").
EVENT_RULES = {
    "ev_stream_wait": lambda: combine(
        s0.issue(_a(0)),
        s0.record(ev),
        s0.issue(_a(1)),
        s1.issue(_a(2)),
        stream_wait(s1, ev),
        s1.issue(_a(3)),
        s2.issue(_a(4)),
    ),
    "ev_synchronize": lambda: combine(
        s0.issue(_a(0)),
        s0.record(ev),
        s1.issue(_a(1)),
        synchronize(ev),
        s1.issue(_a(2)),
        s2.issue(_a(3)),
    ),
    "ev_stream_sync": lambda: combine(
        s0.issue(_a(0), _a(1)), s1.issue(_a(2)), s0.synchronize(), _a(3), s1.issue(_a(4))
    ),
    "ev_record_all": lambda: combine(
        s0.issue(_a(0)), s1.issue(_a(1)), record(ev), s2.issue(_a(2)), synchronize(ev), _a(3)
    ),
    "ev_barriers": lambda: combine(
        s0.issue(_a(0)),
        s0.record(ev),
        s1.issue(_a(1)),
        s1.record(fv),
        s2.issue(_a(2)),
        barrier(ev, fv),
        s2.issue(_a(3)),
        barrier(),
        _a(4),
    ),
    "ev_rerecord": lambda: combine(
        s0.issue(_a(0)),
        s0.record(ev),
        s0.issue(_a(1)),
        s1.issue(_a(2)),
        stream_wait(s1, ev),
        s0.record(ev),
        s1.issue(_a(3)),
        stream_wait(s2, ev),
        s2.issue(_a(4)),
    ),
    "ev_query": lambda: for_each(
        DenseDyn(n),
        lambda i: combine(
            cond(query(ev), task(cf_add, [i], [Z[i]]), task(cf_add, [i + 8], [Z[i + 8]])),
            record(ev),
        ),
    ),
}


#: Random regions of one 2-D tensor (offsets, sizes, strides from a table), read, written or
#: both, with ordering points between some tasks: the C++ TensorMap and ordering scopes must
#: find exactly the edges of runtime/graph.py (tilings past the grids, strided overlaps,
#: contained regions dropped, barriers).
REGIONS = """
wsp.kernel @rd(x: in memref<?x?xf32>) unit(vector)
wsp.kernel @wr(x: out memref<?x?xf32>) unit(cube)
wsp.kernel @rw(x: inout memref<?x?xf32>) unit(vector)
tg.program @regions(%X: memref<64x64xf32>, %spec: memref<?x8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  tg.ordered {
    scf.for %t = %c0 to %n step %c1 {
      %o0 = memref.load %spec[%t, %c0] : memref<?x8xindex>
      %o1 = memref.load %spec[%t, %c1] : memref<?x8xindex>
      %s0 = memref.load %spec[%t, %c2] : memref<?x8xindex>
      %s1 = memref.load %spec[%t, %c3] : memref<?x8xindex>
      %t0 = memref.load %spec[%t, %c4] : memref<?x8xindex>
      %t1 = memref.load %spec[%t, %c5] : memref<?x8xindex>
      %k = memref.load %spec[%t, %c6] : memref<?x8xindex>
      %p = memref.load %spec[%t, %c7] : memref<?x8xindex>
      %v = memref.subview %X[%o0, %o1] [%s0, %s1] [%t0, %t1] : memref<64x64xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
      %is_rd = arith.cmpi eq, %k, %c0 : index
      %is_wr = arith.cmpi eq, %k, %c1 : index
      scf.if %is_rd {
        tg.task @rd() resources(%v : memref<?x?xf32, strided<[?, ?], offset: ?>>) access(in) at(t = %t) pool(vector)
      } else {
        scf.if %is_wr {
          tg.task @wr() resources(%v : memref<?x?xf32, strided<[?, ?], offset: ?>>) access(out) at(t = %t) pool(cube)
        } else {
          tg.task @rw() resources(%v : memref<?x?xf32, strided<[?, ?], offset: ?>>) access(inout) at(t = %t) pool(vector)
        }
      }
      %point = arith.cmpi ne, %p, %c0 : index
      scf.if %point {
        tg.order_point
      }
    }
  }
}
"""


#: REGIONS, then a second loop reading random regions of X and W: every read after the last
#: task that writes X (tg-to-runtime-calls marks it a lookup: the core looks its writers up
#: and records nothing) and of W, which no task writes (the core leaves it out of the map);
#: 80 regions read once each, then 60 read twice in a row each (the core answers the second
#: from its memo of the site's last read, which stops comparing a region new each time and
#: compares again every 64th read).
REGIONS_AFTER = (
    REGIONS.replace("@regions(", "@regions_after(")
    .replace("@rd(", "@rd_a(")
    .replace("@wr(", "@wr_a(")
    .replace("@rw(", "@rw_a(")
    .replace(
        "%n: index)", "%n: index, %W: memref<64x64xf32>, %reads: memref<?x8xindex>, %m: index)"
    )
    .replace(
        "wsp.kernel @rw_a(",
        "wsp.kernel @rd2(x: in memref<?x?xf32>, w: in memref<?x?xf32>) unit(vector)\n"
        "wsp.kernel @rw_a(",
    )
    .rstrip()
    .removesuffix("}")
    + """  scf.for %t = %c0 to %m step %c1 {
    %o0 = memref.load %reads[%t, %c0] : memref<?x8xindex>
    %o1 = memref.load %reads[%t, %c1] : memref<?x8xindex>
    %s0 = memref.load %reads[%t, %c2] : memref<?x8xindex>
    %s1 = memref.load %reads[%t, %c3] : memref<?x8xindex>
    %t0 = memref.load %reads[%t, %c4] : memref<?x8xindex>
    %t1 = memref.load %reads[%t, %c5] : memref<?x8xindex>
    %v = memref.subview %X[%o0, %o1] [%s0, %s1] [%t0, %t1] : memref<64x64xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    %w = memref.subview %W[%o0, %o1] [%s0, %s1] [%t0, %t1] : memref<64x64xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    tg.task @rd2() resources(%v, %w : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) access(in, in) at(t = %t) pool(vector)
  }
}
"""
)


def random_spec(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random in-bounds regions of a 64x64 tensor: offsets, sizes, strides, kind, point."""
    spec = np.zeros((n, 8), dtype=np.int64)
    for t in range(n):
        for d in range(2):
            stride = int(rng.choice([1, 1, 1, 2, 3, 4]))
            size = int(rng.choice([1, 2, 4, 8, 16, int(rng.integers(1, 20))]))
            size = min(size, 64 // stride)
            offset = int(rng.integers(0, 64 - (size - 1) * stride))
            if rng.random() < 0.5:  # aligned to the tile, as most workloads cut tensors
                offset -= offset % (size * stride) if size * stride <= offset else 0
            spec[t, d], spec[t, 2 + d], spec[t, 4 + d] = offset, size, stride
        spec[t, 6] = rng.choice([0, 0, 1, 2])
        spec[t, 7] = rng.random() < 0.1
    return spec


def tile_writes(rng: np.random.Generator) -> np.ndarray:
    """Writes of most 8x8 tiles of a 64x64 tensor (random_spec's columns): its one tiling."""
    tiles = [(i, j) for i in range(8) for j in range(8) if rng.random() < 0.8]
    spec = np.zeros((len(tiles), 8), dtype=np.int64)
    for t, (i, j) in enumerate(tiles):
        spec[t] = [8 * i, 8 * j, 8, 8, 1, 1, 1, 0]
    return spec


def cell_reads(rng: np.random.Generator, n: int) -> np.ndarray:
    """n reads of 8x8 tiles' parts, runs of them in one tile (the core's memo of the tile's
    span answers them), some one past the tile, strided, empty or in the next tile."""
    spec = np.zeros((n, 8), dtype=np.int64)
    tile = (0, 0)
    for t in range(n):
        if rng.random() < 0.3:
            tile = tuple(int(k) for k in rng.integers(0, 8, 2))
        kind = rng.random()
        for d in range(2):
            offset = int(rng.integers(0, 8))
            size, stride = int(rng.integers(1, 9 - offset)), 1
            if kind < 0.06 and d == 1:
                size = 0
            elif kind < 0.12 and d == 1 and offset < 6:
                size, stride = int(rng.integers(1, (9 - offset) // 2 + 1)), 2
            elif kind < 0.2 and d == 0 and 8 * tile[d] + offset + size < 64:
                size += 1  # one past the tile
            spec[t, d], spec[t, 2 + d], spec[t, 4 + d] = 8 * tile[d] + offset, size, stride
    return spec


def _axis_data():
    """Build-time Ragged lengths and Sparse CSR rows (select)."""
    tokens = Ragged(None, LENGTHS)
    routing = Sparse(None, INDPTR, INDICES)
    return combine(
        parallel_for(tokens, lambda r, j: task(cf_gather, [r, j], [X[j], Y[r]])),
        parallel_for(
            Dense[4],
            lambda b: select(routing[b], lambda e: task(cf_gather, [b, e], [X[e], Z[b]])),
        ),
    )


def _pipeline(name: str, capacity: int = 2, nonblocking: bool = False):
    """A producer sends n tasks over a channel of capacity 2; a consumer runs one per message."""
    ch = Channel(f"{name}_ch", capacity=capacity)
    put = try_send if nonblocking else send
    producer = (
        process(f"{name}_producer")
        .produces(ch)
        .body(for_each(DenseDyn(n), lambda i: put(ch, task(cf_produce, [i], [X[i], H[i]]))))
    )
    consumer = (
        process(f"{name}_consumer")
        .consumes(ch)
        .body(consume(ch, lambda t: task(cf_consume, [t], [H[t], Y[t]])))
    )
    return connect([producer, consumer], [ch]).named(name)


def _forwarding(name: str):
    """Three stages over rendezvous channels: the middle stage forwards the index it received,
    the last names its tasks by it and accumulates on the cube pool."""
    a, b = Channel(f"{name}_a", capacity=0), Channel(f"{name}_b", capacity=1)
    first = (
        process(f"{name}_first")
        .produces(a)
        .body(for_each(DenseDyn(n), lambda i: send(a, task(cf_produce, [i], [X[i], H[i]]))))
    )
    middle = (
        process(f"{name}_middle")
        .consumes(a)
        .produces(b)
        .body(consume(a, lambda t: send(b, task(cf_consume, [t], [H[t], Y[t]]))))
    )
    last = (
        process(f"{name}_last")
        .consumes(b)
        .body(consume(b, lambda t: task(cf_accumulate, [t], [Y[t], A[0]])))
    )
    return connect([first, middle, last], [a, b]).named(name)


def _replicas(name: str):
    """A shared work queue consumed by three replicas (each issues the tasks it takes)."""
    queue = Channel(f"{name}_q", capacity=2)
    gen = (
        process(f"{name}_gen")
        .produces(queue)
        .body(for_each(DenseDyn(n), lambda i: send(queue, task(cf_produce, [i], [X[i], H[i]]))))
    )
    worker = process(f"{name}_worker").consumes(queue).body(consume(queue))
    return connect([gen, replicate(worker, 3)], [queue]).named(name)


def _signals(name: str):
    """Events: the first process's tasks end before the second's start (record waits for them)."""
    ready, done = Event(f"{name}_ready"), Event(f"{name}_done")
    a = (
        process(f"{name}_a")
        .consumes(done)
        .produces(ready)
        .body(
            [
                for_each(DenseDyn(n), lambda i: task(cf_produce, [i], [X[i], H[i]])),
                record(ready),
                synchronize(done),
            ]
        )
    )
    b = (
        process(f"{name}_b")
        .consumes(ready)
        .produces(done)
        .body(
            [
                synchronize(ready),
                for_each(DenseDyn(n), lambda i: task(cf_consume, [i], [H[i], Y[i]])),
                record(done),
            ]
        )
    )
    return connect([a, b], [ready, done]).named(name)


def _by_i(i):
    return i


def _mod3(i):
    return i % 3


def _mod7(i):
    return i % 7


def _prio(i):
    return 100 - i % 5


@dataclass
class Case:
    """One row of the table: what to build, how to schedule it, how to run it."""

    name: str
    #: The workload of the case (named ``name`` when the case is built), or .mlir text.
    workload: Any
    #: Schedule -> schedule: the directives of the case.
    schedule: Any = None
    #: Simulator options (workers or vector_workers/cube_workers, mode, gen_cost).
    options: dict[str, Any] = field(default_factory=lambda: {"workers": 3})
    n: int | None = 6
    #: Whether every kernel has an Ascend body (the host runtime's results are compared too).
    bodies: bool = False
    #: For .mlir text: the program to run, and the values bound (instead of the tensors below).
    program: str = ""
    data: dict[str, Any] | None = None
    #: Implementation -> why it does not run this case; "implementation.field" -> why that
    #: field is not compared (the gaps of the native core).
    gaps: dict[str, str] = field(default_factory=dict)

    @property
    def entry(self) -> str:
        """The name of the program the case runs."""
        return self.program or self.name

    def target(self) -> Any:
        """The workload (or pipeline) with its schedule, named after the case; or the text."""
        if isinstance(self.workload, str):
            return self.workload
        named = (
            self.workload if isinstance(self.workload, Pipeline) else self.workload.named(self.name)
        )
        if self.schedule is None:
            return named
        return self.schedule(named.schedule())

    def bindings(self) -> dict[str, Any]:
        """Scalars and zeroed tensors (the same values for every implementation)."""
        if self.data is not None:
            return dict(self.data)
        rows = max(ROWS, self.n or 0)
        values: dict[str, Any] = {
            name: np.zeros((rows, 4), np.float32) for name in ("X", "H", "Y", "Z")
        }
        values["X"][...] = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        values["A"] = np.zeros((1, 4), np.float32)
        if self.n is not None:
            values["n"] = self.n
        return values


#: The Ascend host runtime's threads are real: what it reports of time is wall time.
REAL_TIME = "real threads: start order per worker, makespan and stalls are wall-clock"
#: The simulator's split of workers matching the host runtime's for 3 workers (2 vector, 1 cube).
POOLED = {"vector_workers": 2, "cube_workers": 1}
#: The same, with a cost of task generation: timing and batch_deps then hold tasks back.
PACED = {**POOLED, "gen_cost": 5}
#: try_send on threads: whether the channel has room when a message is offered is timing.
DROPS = {
    f"ascend.{field}": "try_send drops the messages a channel cannot take at once: on threads "
    "which ones is timing"
    for field in ("tasks", "order")
}
CYCLES = {"workers": 2, "mode": "cycles"}
#: A task window's TensorMap collection: the reference forgets completed tasks' accesses every
#: max(window, 1024) nodes, the host runtime as they complete (on real threads), so the data
#: edges to already completed tasks differ.
WINDOW_EDGES = {
    f"ascend.{field}": "the TensorMap forgets completed tasks' accesses at other times (real time)"
    for field in ("edges", "text")
}


def _regions_after(name: str, writes: np.ndarray, reads: np.ndarray) -> Case:
    """The regions_after program: ``writes`` of X then ``reads`` of it into W."""
    return Case(
        name,
        REGIONS_AFTER,
        options={"workers": 3, "mode": "cycles"},
        n=None,
        program="regions_after",
        data={
            "X": np.zeros((64, 64), np.float32),
            "W": np.zeros((64, 64), np.float32),
            "spec": writes,
            "n": len(writes),
            "reads": reads,
            "m": len(reads),
        },
    )

CASES = [
    Case("plain", _stages()),
    Case("plain_functional", _stages(), options={"workers": 3, "mode": "functional"}),
    Case("data_order", _data_order(), n=8),
    Case("structural", _structural()),
    Case("axis_data", _axis_data(), n=None),
    Case(
        "events",
        _events(),
        n=None,
        options={"workers": 2},
    ),
    Case("one_worker", _stages(), options={"workers": 1}),
    *(
        Case(
            name,
            rule(),
            n=4 if name == "ev_query" else None,
            options={"workers": 4},
            bodies=True,
        )
        for name, rule in EVENT_RULES.items()
    ),
    # The generator's time is per task: a record (a barrier node) costs it nothing.
    Case(
        "ev_paced",
        EVENT_RULES["ev_rerecord"](),
        options={"workers": 4, "gen_cost": 7},
    ),
    Case("zero_cost", _four(sequential), options={"workers": 2, "mode": "cycles"}),
    Case("free_barriers", _free_barriers(), n=4, options={"workers": 4}),
    Case("large", _four(), n=80, options={"workers": 4}),
    Case(
        "batch_path",
        _data_order(),
        lambda s: (
            s.streams(2)
            .stream_by(_mod3)
            .issue(IssuePolicy.priority(_prio))
            .timing(TimingPolicy.batched(3))
        ),
        PACED,
        n=16,
    ),
    Case(
        "window_collect",
        _stages(),
        lambda s: s.task_window(3),
        {"workers": 2, "mode": "cycles"},
        n=400,
        gaps={
            **WINDOW_EDGES,
            **{
                f"native.{field}": "the graph builder has no task window: it keeps every edge"
                for field in ("edges", "text")
            },
        },
    ),
    Case(
        "gated_pools",
        _four(),
        lambda s: (
            s.dispatch_threshold(4, _mod7, below="vector", above="cube")
            .pipeline_depth(1)
            .batch_deps(2)
        ),
        {**POOLED, "gen_cost": 3},
        n=16,
    ),
    Case("pools", _stages(), options=POOLED),
    Case("round_robin", _stages(), lambda s: s.dispatch(DispatchPolicy.round_robin(3)), POOLED),
    Case("work_steal", _stages(), lambda s: s.dispatch(DispatchPolicy.work_steal()), POOLED),
    Case("affinity", _stages(), lambda s: s.dispatch(DispatchPolicy.affinity("i")), POOLED),
    Case("hash", _stages(), lambda s: s.dispatch(DispatchPolicy.hash(_by_i)), POOLED),
    Case("range", _stages(), lambda s: s.dispatch(DispatchPolicy.range("i", 2)), POOLED),
    Case("dispatch_by", _stages(), lambda s: s.dispatch(DispatchPolicy.dispatch_by(_mod3)), POOLED),
    Case("streams", _stages(), lambda s: s.streams(3), POOLED),
    Case(
        "steal_streams",
        _stages(),
        lambda s: s.dispatch(DispatchPolicy.work_steal()).streams(2).stream_by(_mod3),
        POOLED,
    ),
    Case("stream_by", _stages(), lambda s: s.streams(2).stream_by(_mod3), POOLED),
    Case("issue_fifo", _stages(), lambda s: s.issue(IssuePolicy.fifo()), POOLED),
    Case("priority", _stages(), lambda s: s.issue(IssuePolicy.priority(_prio)), POOLED),
    Case(
        "deadline",
        _stages(),
        lambda s: s.issue(IssuePolicy.deadline(_prio)),
        POOLED,
    ),
    Case("immediate", _stages(), lambda s: s.timing(TimingPolicy.immediate()), PACED),
    Case("batched", _stages(), lambda s: s.timing(TimingPolicy.batched(3)), PACED),
    Case(
        "interleaved",
        _stages(),
        lambda s: s.streams(3).stream_by(_mod3).timing(TimingPolicy.interleaved(2)),
        PACED,
    ),
    Case(
        "interleaved_unkeyed",
        _stages(),
        lambda s: s.streams(2).timing(TimingPolicy.interleaved(4)),
        PACED,
    ),
    Case("rate_limit", _stages(), lambda s: s.timing(TimingPolicy.rate_limit(50000)), POOLED),
    Case("depth_global", _stages(), lambda s: s.pipeline_depth(1, "global"), POOLED),
    Case(
        "depth_per_stream",
        _stages(),
        lambda s: s.streams(2).stream_by(_mod3).pipeline_depth(1, "per_stream"),
        POOLED,
    ),
    Case("depth_per_pool", _stages(), lambda s: s.pipeline_depth(1, "per_pool"), POOLED),
    Case("window_stall", _stages(), lambda s: s.task_window(3), POOLED, gaps=WINDOW_EDGES),
    Case(
        "window_abort_unfilled",
        _stages(),
        lambda s: s.task_window(64, overflow="abort"),
        POOLED,
    ),
    Case(
        "window_abort",
        _stages(sequential),
        lambda s: s.task_window(3, overflow="abort"),
        POOLED,
        gaps={"native": "the graph builder has no task window (it builds the whole graph)"},
    ),
    Case("batch_deps", _stages(), lambda s: s.batch_deps(4), PACED),
    Case(
        "dispatch_threshold",
        _stages(),
        lambda s: s.dispatch_threshold(4, _by_i, below="vector", above="cube"),
        POOLED,
    ),
    Case(
        "mixed",
        _data_order(),
        lambda s: (
            s.dispatch(DispatchPolicy.round_robin(2))
            .streams(2)
            .stream_by(_mod3)
            .issue(IssuePolicy.priority(_prio))
            .timing(TimingPolicy.batched(2))
            .pipeline_depth(2, "per_stream")
            .batch_deps(3)
        ),
        POOLED,
        n=8,
    ),
    Case(
        "gen_cost",
        _stages(),
        lambda s: s.task_window(4),
        PACED,
        gaps=WINDOW_EDGES,
    ),
    *(
        Case(
            f"regions_{seed}",
            REGIONS,
            options={"workers": 3, "mode": "cycles"},
            n=None,
            program="regions",
            data={
                "X": np.zeros((64, 64), np.float32),
                "spec": random_spec(np.random.default_rng(seed), 300),
                "n": 300,
            },
        )
        for seed in (0, 2, 4, 6)
    ),
    *(
        _regions_after(
            f"regions_after_{seed}",
            random_spec(np.random.default_rng(seed), 200),
            # 80 reads each once (the core's memo of a site's last read misses, then stops
            # comparing), then 60 each twice (the memo, compared again, answers the second)
            np.concatenate(
                [
                    random_spec(np.random.default_rng(seed + 1), 80),
                    np.repeat(random_spec(np.random.default_rng(seed + 2), 60), 2, axis=0),
                ]
            ),
        )
        for seed in (1, 3)
    ),
    *(
        _regions_after(
            f"cells_after_{seed}",
            tile_writes(np.random.default_rng(seed)),
            cell_reads(np.random.default_rng(seed + 1), 300),
        )
        for seed in (5, 7)
    ),
    Case(
        "pipeline",
        _pipeline("pipeline"),
        n=4,
        options={"workers": 2},
        bodies=True,
    ),
    Case(
        "pipeline_try_send",
        _pipeline("pipeline_try_send", capacity=1, nonblocking=True),
        options=CYCLES,
        gaps=DROPS,
    ),
    Case(
        "pipeline_forwarding",
        _forwarding("pipeline_forwarding"),
        options={**POOLED, "mode": "cycles"},
        bodies=True,
    ),
    Case(
        "pipeline_replicas",
        _replicas("pipeline_replicas"),
        n=9,
        options={"workers": 4, "mode": "cycles"},
        bodies=True,
    ),
    Case(
        "pipeline_keys",
        _replicas("pipeline_keys"),
        lambda s: s.dispatch(DispatchPolicy.dispatch_by(lambda replica: replica)),
        n=9,
        options={"workers": 3, "mode": "cycles"},
        gaps={
            "ascend.tasks": "each task's target is the replica that took its message: which "
            "one is timing on threads"
        },
        bodies=True,
    ),
    Case("pipeline_events", _signals("pipeline_events"), options=CYCLES, bodies=True),
]
