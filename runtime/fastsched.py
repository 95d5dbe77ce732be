"""The simulator's fast path: the virtual-time scheduler of a built graph, compiled with numba.

``Simulator`` (runtime/engine.py) is at once the builder a task-generation program drives and
the scheduler that runs what it builds, one Python call chain per task. For a *main program*
(not a pipeline) the tasks and their order do not depend on the schedule — only when each is
created does (k * gen_cost, later when a task window stalls the generator) — so the whole
graph can be built first (``RecordingBuilder``, a GraphBuilder on the batch path;
``OrderRecordingBuilder`` also remembers where the ordering points were, for batch_deps) and
the scheduling replayed afterwards over the graph's arrays by
``schedule`` — a numba port of the engine's state machine (one function per engine method, no
reference counting, nothing allocated per task) that reproduces the engine exactly: the same start, end and worker for every task, the
same issue numbers, streams, lanes, steals, stalls (summed in the same order) and stall spans,
and the order the functional mode calls the bodies in (dispatch order).

What the port keeps of the engine, step for step (docs/simulator.md "Fast path"):

- registrations in creation order, each a task and the barrier created just before it, at
  the generator's time (k * gen_cost; each node's creation time kept); before each one the
  events due at that time are handled; after each one, idle workers dispatch (so at t = 0 the
  first ready tasks created start first, whatever their priority); zero-predecessor barriers
  complete at once; an edge whose source is already done when its destination is created
  does not count;
- task_window (stall): before a registration with the window full, the buffers flushed and
  the events stepped until a task completes (the window stall and its span); every
  max(window, 1024) nodes the engine's TensorMap forgets the accesses of the done tasks
  before the oldest live one — recorded, and those data edges (which never counted) taken
  out of the graph afterwards (``_collected``), so the edges are the engine's too;
- batch_deps buffers flushed when full and at the recorded ordering points; timing immediate,
  batched(n), interleaved(n) (round-robin across stream keys), rate_limit(n) (issue events);
- streams as lanes per placed worker; pipeline_depth gates per scope (global, per_stream,
  per_pool) with their stall spans; dispatch targets, shared pool heaps, work_steal queues
  with the last completer and stealing from the longest queue; ready keys
  (priority, issue number), encoded into one int64 after a range check.

Anything else — pipelines, task_window with overflow=abort (the engine stops while
generating, after some bodies ran), pools other than vector/cube/any,
costs that are not integers in [0, 2^53), priorities whose range does not fit the key — makes
``schedule_graph`` decline (return None) and the general engine runs the program.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from pto_wsp.errors import ExecutionError
from pto_wsp.runtime.bulk_kernels import csr
from pto_wsp.runtime.graph import KIND_BARRIER, POOL_ANY, POOL_CUBE, POOL_VECTOR, GraphBuilder
from pto_wsp.runtime.kernels import BODY_ERRORS

__all__ = [
    "FastRun",
    "KernelCosts",
    "OrderRecordingBuilder",
    "RecordingBuilder",
    "Workspace",
    "FAST_MIN_TASKS",
    "FAST_MIN_TASKS_COLD",
    "available",
    "decline_note",
    "decline_reason",
    "load",
    "load_price",
    "loaded",
    "on_disk",
    "schedule_graph",
    "worth_loading",
]

# numba is a dependency, imported only when the scheduler is first needed (``_compiled``):
# a process whose runs all take the general engine (small programs) never pays its import
# (~0.3 s). Until then the functions below are plain Python, registered with their options.
numba: Any = None
_LAZY: list[tuple[str, dict[str, Any]]] = []


def _lazy(**options: Any) -> Any:
    def register(function: Any) -> Any:
        _LAZY.append((function.__name__, options))
        return function

    return register


_njit = _lazy(cache=True, nogil=True)
# The state machine allocates nothing: without reference counting its calls are cheap.
_bare = _lazy(cache=True, nogil=True, _nrt=False)
# The per-task steps, inlined into their callers: numba passes every array as ~7 scalar
# arguments, so a call taking 30 arrays cost more than the step itself.
_inl = _lazy(cache=True, nogil=True, _nrt=False, inline="always")


def _compiled() -> bool:
    """Import numba and make the scheduler's functions numba's (once, all together, before
    any is compiled: the callers then find their callees compiled and inlined); False
    without numba."""
    global numba
    if numba is None:
        if not available():
            return False
        import numba as nb

        g = globals()
        for name, options in _LAZY:
            g[name] = nb.njit(**options)(g[name])
        numba = nb
    return True


@functools.cache
def available() -> bool:
    """Whether the compiled scheduler can run (numba is installed, not imported here, and
    its JIT not disabled)."""
    import importlib.util

    from pto_wsp.runtime.jitcache import jit_disabled

    if jit_disabled():
        return False
    return numba is not None or importlib.util.find_spec("numba") is not None


def no_numba() -> str:
    """Why ``available()`` is False."""
    from pto_wsp.runtime.jitcache import jit_disabled

    if jit_disabled():
        return "numba's JIT is disabled (NUMBA_DISABLE_JIT)"
    return "numba is not installed"


#: Below this many tasks a program takes the general engine unless this process has the
#: compiled scheduler in memory already: loading it (importing numba, then the scheduler from
#: numba's cache) costs about 0.5 s, what the general engine (13-20 us a task) takes for about
#: 24,000-37,000 tasks (bench/bench_sim_exec.py prints both; docs/PERFORMANCE.md). The run is
#: the same either way (docs/simulator.md "Fast path").
FAST_MIN_TASKS = 1 << 15

#: The same while the scheduler is not in numba's cache on this machine (``on_disk``): then
#: loading it means compiling it, one to two minutes here, about what the general engine takes
#: for this many tasks (55-84 s at 13-20 us each). A process pays the general engine until its runs
#: add up to that, at most about twice the cheaper choice; ``pto-run --precompile`` (or
#: ``pto_wsp.runtime.precompile()``) compiles it up front, once per machine.
FAST_MIN_TASKS_COLD = 1 << 22


_in_memory = False
_on_disk = False
_asked = -1e9  # when on_disk last read numba's index (perf_counter seconds)
#: Tasks this process ran on the general engine for want of the compiled scheduler.
_small_tasks = 0


def on_disk() -> bool:
    """Whether numba's cache on this machine holds the compiled scheduler (loading it then
    takes under a second; else it is compiled, once per machine). Once true, remembered;
    false, asked again after 10 s (another process may have compiled it meanwhile)."""
    global _on_disk, _asked
    if not _on_disk and _compiled():
        now = time.perf_counter()
        if now - _asked >= 10.0:
            from pto_wsp.runtime.jitcache import on_disk as cached

            _on_disk, _asked = cached(schedule), now
    return _on_disk


def load_price() -> int:
    """How many general-engine tasks loading the compiled scheduler is worth now:
    ``FAST_MIN_TASKS`` when it is in numba's cache, ``FAST_MIN_TASKS_COLD`` when it would be
    compiled (never less than ``FAST_MIN_TASKS``)."""
    if on_disk():
        return FAST_MIN_TASKS
    return max(FAST_MIN_TASKS, FAST_MIN_TASKS_COLD)


def worth_loading(n_tasks: int) -> bool:
    """Whether a run of ``n_tasks`` (the scheduler not in memory) should load the compiled
    scheduler: a graph of ``load_price()`` tasks or more, or one that brings the tasks of the
    process's earlier runs on the general engine to that many (a Program run again and
    again, each run small: the general engine's cost adds up, loading is paid once). Else
    it counts them."""
    global _small_tasks
    total = _small_tasks + n_tasks
    # (the price, which asks numba's cache, only past FAST_MIN_TASKS, its least: small
    # programs never import numba)
    if total >= FAST_MIN_TASKS and total >= load_price():
        return True
    _small_tasks = total
    return False


def decline_note(n_tasks: int) -> str:
    """Why a run of ``n_tasks`` that ``worth_loading`` turned down (and counted) took the
    general engine."""
    if _small_tasks >= FAST_MIN_TASKS and not on_disk():
        return (
            f"{n_tasks} tasks: the compiled scheduler is not compiled on this machine yet and "
            f"compiling it (~1-2 min, once) costs more than the general engine for fewer than "
            f"fastsched.FAST_MIN_TASKS_COLD ({FAST_MIN_TASKS_COLD}) tasks with this process's "
            "earlier runs; `pto-run --precompile` or pto_wsp.runtime.precompile() compiles it"
        )
    return (
        f"{n_tasks} tasks, fewer than fastsched.FAST_MIN_TASKS ({FAST_MIN_TASKS}) with this "
        "process's earlier small runs: the general engine is cheaper than loading the "
        "compiled scheduler"
    )


def loaded() -> bool:
    """Whether this process has the compiled scheduler in memory (compiled or loaded)."""
    global _in_memory
    if not _in_memory:  # (asking the dispatcher costs ~15 us: once it said yes, remember)
        _in_memory = numba is not None and bool(getattr(schedule, "signatures", ()))
    return _in_memory


def load() -> bool:
    """Compile or load the compiled scheduler now (a one-task run); False without numba."""
    if not _compiled():
        return False
    if not loaded():
        builder = RecordingBuilder()
        builder.add_task("k")
        graph = builder.build()
        from pto_wsp.runtime.engine import SimConfig

        schedule_graph(builder, graph, np.ones(1, np.int64), SimConfig(functional=False), {}, {})
    return loaded()


class RecordingBuilder(GraphBuilder):
    """The GraphBuilder of the fast path. It takes GraphBuilder's batch path (``add_tasks``):
    everything after the build reads the TaskGraph, not the node lists. ``order_points``
    lists, per ordering point, how many tasks preceded it (batch_deps flushes its buffer
    there); only ``OrderRecordingBuilder`` fills it."""

    batches = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order_points: list[int] = []


class OrderRecordingBuilder(RecordingBuilder):
    """A RecordingBuilder that records its ordering points (for batch_deps)."""

    def order_point(self) -> None:
        super().order_point()
        self.order_points.append(self.num_tasks)

    def add_tasks(self, n: int, groups: Any, chains: Any = None) -> range:
        # A batch of ordered chains stands for add_task + order_point per task
        # (runtime/batch_order.py): an ordering point after each of its tasks. (Taken task
        # by task, order_point records them itself; twice is the same.)
        before = self.num_tasks
        ids = super().add_tasks(n, groups, chains)
        if chains is not None:
            self.order_points.extend(range(before + 1, self.num_tasks + 1))
        return ids


def decline_reason(config: Any, is_pipeline: bool) -> str | None:
    """Why the fast path cannot run this program with ``config`` (None: it can, as far as
    the configuration tells; the graph may still make ``schedule_graph`` decline)."""
    if not available():
        return no_numba()
    if not getattr(config, "fast", True):
        return "fast=False"
    if is_pipeline:
        return "a pipeline (processes interleave with the scheduler)"
    return None


# ----------------------------------------------------------------------------- constants

# Per-node int fields (NI rows).
_BLK, _DEPS, _WORKER, _ISEQ, _SOF, _LANE, _GNEXT, _SNEXT = range(8)
# Per-node static fields (NS rows).
_KIND, _TARGET, _PIDX, _GSTREAM, _PRIO, _COST, _SDENSE = range(7)
# Per-node float fields (NF rows).
_START, _END, _ISSUED_T, _DEPS_T, _GSINCE, _CREATED_T = range(6)
# Int scalars (S).
(
    _ISSUED,
    _RR,
    _LASTC,
    _STEALS,
    _LIVE,
    _CREATED,
    _COMPLETED,
    _NCREATED,
    _ESEQ,
    _EVN,
    _BDN,
    _TBN,
    _SPANN,
    _ORDN,
    _NIDLE,
    _OLDEST,
    _SINCE_GC,
    _GCN,
    _GROWN,
    _GROWN_WAIT,
    _WFULL,  # task creations that found the task window full
    _NS,  # (S's length before the tasks run per worker)
) = range(22)
# Float scalars (T).
_NOW, _NEXT_ISSUE, _GEN = range(3)  # _GEN: the generator's time
_NR = 8  # (R: the float scalars, the five stalls, then busy cycles per worker)
# Config (C).
(
    _W,
    _PRIO_READY,
    _WORK_STEAL,
    _STREAMS,
    _STREAM_KEYED,
    _TIMING,
    _TIMING_N,
    _DEPTH,
    _SCOPE,
    _BATCH,
    _PMIN,
    _NKEY,
    _GEN_COST,
    _WINDOW,
) = range(14)
# Stall causes, indices of engine.STALL_CAUSES.
_ST_DEPS, _ST_STREAM, _ST_DEPTH, _ST_ISSUE, _ST_WINDOW = range(5)

_T_IMMEDIATE, _T_RATE, _T_BATCHED, _T_INTERLEAVED = range(4)
_S_GLOBAL, _S_STREAM, _S_POOL = range(3)
_EV_COMPLETE, _EV_ISSUE = 0, 1

_POOL_INDEX = {POOL_VECTOR: 0, POOL_CUBE: 1, POOL_ANY: 2}
# Pools (indices) a worker of each pool index serves (engine._SERVES).
_SERVES_IDX = {0: (0, 2), 1: (1, 2), 2: (0, 1, 2)}


# ----------------------------------------------------------------------------- the port
# Each function is the engine method of the same name (runtime/engine.py), on arrays.


# fmt: off
@_inl
def hpush(hst, hoff, hsize, h, key):
    base = hoff[h]
    i = hsize[0, h]
    hsize[0, h] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        pk = hst[0, base + parent]
        if key < pk:
            hst[0, base + i] = pk
            i = parent
        else:
            break
    hst[0, base + i] = key


@_inl
def hpop(hst, hoff, hsize, h):
    base = hoff[h]
    top = hst[0, base]
    n = hsize[0, h] - 1
    hsize[0, h] = n
    if n > 0:
        key = hst[0, base + n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and hst[0, base + c + 1] < hst[0, base + c]:
                c += 1
            if hst[0, base + c] < key:
                hst[0, base + i] = hst[0, base + c]
                i = c
            else:
                break
        hst[0, base + i] = key
    return top


# A ready queue is a FIFO ring (row 1 of hst) of keys pushed in ascending order, plus a heap
# (row 0) for the keys that came out of order; hsize rows: heap size, ring head, ring count,
# the ring's last key, the capacity. Its minimum is the smaller of the two heads.
@_inl
def qpush(hst, hoff, hsize, h, key):
    c = hsize[2, h]
    if c == 0 or key > hsize[3, h]:
        pos = hsize[1, h] + c
        if pos >= hsize[4, h]:
            pos -= hsize[4, h]
        hst[1, hoff[h] + pos] = key
        hsize[2, h] = c + 1
        hsize[3, h] = key
    else:
        hpush(hst, hoff, hsize, h, key)


@_inl
def qsize(hsize, h):
    return hsize[0, h] + hsize[2, h]


@_inl
def qtop(hst, hoff, hsize, h):
    if hsize[2, h] > 0:
        f = hst[1, hoff[h] + hsize[1, h]]
        if hsize[0, h] > 0:
            t = hst[0, hoff[h]]
            if t < f:
                return t
        return f
    return hst[0, hoff[h]]


@_inl
def qpop(hst, hoff, hsize, h):
    if hsize[2, h] > 0:
        f = hst[1, hoff[h] + hsize[1, h]]
        if hsize[0, h] == 0 or f < hst[0, hoff[h]]:
            head = hsize[1, h] + 1
            if head >= hsize[4, h]:
                head = 0
            hsize[1, h] = head
            hsize[2, h] -= 1
            return f
    return hpop(hst, hoff, hsize, h)


@_bare
def epush(evt, evs, ekind, ea, eb, S, t, kind, a, b):
    seq = S[_ESEQ] + 1
    S[_ESEQ] = seq
    ekind[seq] = kind
    ea[seq] = a
    eb[seq] = b
    i = S[_EVN]
    S[_EVN] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        pt = evt[parent]
        if t < pt or (t == pt and seq < evs[parent]):
            evt[i] = pt
            evs[i] = evs[parent]
            i = parent
        else:
            break
    evt[i] = t
    evs[i] = seq


@_bare
def epop(evt, evs, S):
    seq = evs[0]
    n = S[_EVN] - 1
    S[_EVN] = n
    if n > 0:
        t = evt[n]
        s = evs[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n:
                t1 = evt[c + 1]
                t0 = evt[c]
                if t1 < t0 or (t1 == t0 and evs[c + 1] < evs[c]):
                    c += 1
            tc = evt[c]
            if tc < t or (tc == t and evs[c] < s):
                evt[i] = tc
                evs[i] = evs[c]
                i = c
            else:
                break
        evt[i] = t
        evs[i] = s
    return seq


@_bare
def stream_key(NS, C, S, tid):
    streams = C[_STREAMS]
    if streams == 0:
        streams = 1
    if C[_STREAM_KEYED]:
        return NS[_GSTREAM, tid] % streams
    return S[_ISSUED] % streams


@_bare
def scope_of(NS, NI, C, tid):
    sc = C[_SCOPE]
    if sc == _S_STREAM:
        if C[_STREAMS]:
            return NI[_LANE, tid]
        return NS[_SDENSE, tid]
    if sc == _S_POOL:
        return NS[_PIDX, tid]
    return 0


@_inl
def enqueue(NS, NI, C, S, cand, ncand, incand, tid_of, hst, hoff, hsize, tid):
    target = NS[_TARGET, tid]
    p = NS[_PIDX, tid]
    iseq = NI[_ISEQ, tid]
    tid_of[iseq] = tid
    if C[_PRIO_READY]:
        key = (NS[_PRIO, tid] - C[_PMIN]) * C[_NKEY] + iseq
    else:
        key = iseq
    W = C[_W]
    if target >= 0:
        h = cand[p, target % ncand[p]]
    elif C[_WORK_STEAL]:
        w = S[_LASTC]
        if w < 0 or not incand[p, w]:
            w = cand[p, S[_RR] % ncand[p]]
            S[_RR] += 1
        h = w
    else:
        h = W + p
    qpush(hst, hoff, hsize, h, key)


@_inl
def ready(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, tid):
    now = T[_NOW]
    deps_t = NF[_DEPS_T, tid]
    issued_t = NF[_ISSUED_T, tid]
    if deps_t > issued_t:
        stalls[_ST_DEPS] += deps_t - issued_t
    base = deps_t if deps_t > issued_t else issued_t
    if now > base:
        stalls[_ST_STREAM] += now - base
    enqueue(NS, NI, C, S, cand, ncand, incand, tid_of, hst, hoff, hsize, tid)


@_inl
def dec(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, tid):
    b = NI[_BLK, tid] - 1
    NI[_BLK, tid] = b
    if b == 0:
        ready(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, tid)


@_inl
def issue(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, lhead,
    ltail, tid,
):
    now = T[_NOW]
    NI[_ISEQ, tid] = S[_ISSUED]
    NF[_ISSUED_T, tid] = now
    created = NF[_CREATED_T, tid] if C[_GEN_COST] or C[_WINDOW] else 0.0
    if now > created:
        stalls[_ST_ISSUE] += now - created
    streams = C[_STREAMS]
    if streams:
        s = stream_key(NS, C, S, tid)
        NI[_SOF, tid] = s
        target = NS[_TARGET, tid]
        if target < 0:
            placed = -1
        else:
            p = NS[_PIDX, tid]
            placed = cand[p, target % ncand[p]]
        lane = s + streams * (placed + 1)
        NI[_LANE, tid] = lane
        NI[_SNEXT, tid] = -1
        if lhead[lane] >= 0:
            NI[_BLK, tid] += 1
            NI[_SNEXT, ltail[lane]] = tid
        else:
            lhead[lane] = tid
        ltail[lane] = tid
    else:
        NI[_SOF, tid] = NS[_GSTREAM, tid]
    S[_ISSUED] += 1
    dec(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, tid)


@_inl
def pick(NS, C, S, serves, tid_of, hst, hoff, hsize, w):
    W = C[_W]
    best = -1
    bkey = 0
    if qsize(hsize, w) > 0:
        best = w
        bkey = qtop(hst, hoff, hsize, w)
    for p in range(3):
        if serves[w, p]:
            h = W + p
            if qsize(hsize, h) > 0:
                k = qtop(hst, hoff, hsize, h)
                if best < 0 or k < bkey:
                    best = h
                    bkey = k
    nkey = C[_NKEY]
    if best >= 0:
        key = qpop(hst, hoff, hsize, best)
        return tid_of[key % nkey] if C[_PRIO_READY] else tid_of[key]
    if C[_WORK_STEAL]:
        victim = -1
        size = 0
        for v in range(W):
            if v != w and qsize(hsize, v) > size:
                k = qtop(hst, hoff, hsize, v)
                top = tid_of[k % nkey] if C[_PRIO_READY] else tid_of[k]
                if serves[w, NS[_PIDX, top]]:
                    victim = v
                    size = qsize(hsize, v)
        if victim >= 0:
            S[_STEALS] += 1
            key = qpop(hst, hoff, hsize, victim)
            return tid_of[key % nkey] if C[_PRIO_READY] else tid_of[key]
    return -1


@_inl
def dispatch(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
    lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb, w,
):
    depth = C[_DEPTH]
    while True:
        tid = pick(NS, C, S, serves, tid_of, hst, hoff, hsize, w)
        if tid < 0:
            return False
        if depth:
            sc = scope_of(NS, NI, C, tid)
            if infl[sc] >= depth:
                NI[_GNEXT, tid] = -1
                if ghead[sc] >= 0:
                    NI[_GNEXT, gtail[sc]] = tid
                else:
                    ghead[sc] = tid
                gtail[sc] = tid
                NF[_GSINCE, tid] = T[_NOW]
                continue
            infl[sc] += 1
        # start
        now = T[_NOW]
        is_idle[w] = False
        S[_NIDLE] -= 1
        NI[_WORKER, tid] = w
        NF[_START, tid] = now
        if C[_STREAMS]:
            lane = NI[_LANE, tid]
            nxt = NI[_SNEXT, lhead[lane]]
            lhead[lane] = nxt
            if nxt < 0:
                ltail[lane] = -1
            else:
                dec(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                    hsize, nxt)
        order[S[_ORDN]] = tid
        S[_ORDN] += 1
        cost = NS[_COST, tid]
        busy[w] += cost
        trun[w] += 1
        epush(evt, evs, ekind, ea, eb, S, now + cost, _EV_COMPLETE, w, tid)
        return True


@_inl
def dispatch_idle(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
    lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb,
):
    W = C[_W]
    progress = True
    while progress and S[_NIDLE] > 0:
        progress = False
        for w in range(W):
            if is_idle[w] and dispatch(
                NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order,
                evt, evs, ekind, ea, eb, w,
            ):
                progress = True


@_bare
def dispatch_some(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
    lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb,
):
    # dispatch_idle where it is seldom needed: a call (only when a worker is idle) instead of
    # one more inlined copy (each copy costs compile time).
    if S[_NIDLE] > 0:
        dispatch_idle(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                      hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun,
                      order, evt, evs, ekind, ea, eb)


@_inl
def complete_node(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, sbegin,
    succ, stack, predone, nid,
):
    now = T[_NOW]
    ncreated = S[_NCREATED]
    stack[0] = nid
    sp = 1
    while sp > 0:
        sp -= 1
        n = stack[sp]
        if NF[_END, n] < 0:
            NF[_END, n] = now
        for e in range(sbegin[n], sbegin[n + 1]):
            s = succ[e]
            if s >= ncreated:  # created later: this edge will not count
                predone[s] += 1
                continue
            left = NI[_DEPS, s] - 1
            NI[_DEPS, s] = left
            if left == 0:
                NF[_DEPS_T, s] = now
            if NS[_KIND, s] == KIND_BARRIER:
                NI[_BLK, s] -= 1
                if NI[_BLK, s] == 0:
                    stack[sp] = s
                    sp += 1
            else:
                dec(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                    hsize, s)


@_inl
def complete_task(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, sbegin,
    succ, stack, predone, infl, ghead, gtail, is_idle, sp_tid, sp_t0, sp_t1, w, tid,
):
    now = T[_NOW]
    NF[_END, tid] = now
    is_idle[w] = True
    S[_NIDLE] += 1
    S[_LIVE] -= 1
    S[_COMPLETED] += 1
    if C[_DEPTH]:
        sc = scope_of(NS, NI, C, tid)
        infl[sc] -= 1
        g = ghead[sc]
        if g >= 0:
            ghead[sc] = -1
            gtail[sc] = -1
            first = g
            while g >= 0:
                since = NF[_GSINCE, g]
                stalls[_ST_DEPTH] += now - since
                k = S[_SPANN]
                sp_tid[k] = g
                sp_t0[k] = since
                sp_t1[k] = now
                S[_SPANN] = k + 1
                g = NI[_GNEXT, g]
            g = first
            while g >= 0:
                nxt = NI[_GNEXT, g]
                enqueue(NS, NI, C, S, cand, ncand, incand, tid_of, hst, hoff, hsize, g)
                g = nxt
    S[_LASTC] = w
    complete_node(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                  hsize, sbegin, succ, stack, predone, tid)
    S[_LASTC] = -1


@_bare
def flush_timing(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, lhead,
    ltail, tb, scratch, kbuf,
):
    n = S[_TBN]
    S[_TBN] = 0
    for i in range(n):
        scratch[0, i] = tb[i]
    if C[_TIMING] == _T_INTERLEAVED and n > 1:
        # Round-robin across stream keys (ascending), each keeping creation order: group
        # by key (keys are in [0, streams)), then deal the r-th of every group in turn.
        nk = C[_STREAMS] if C[_STREAMS] > 0 else 1
        for j in range(nk + 1):
            kbuf[j] = 0
        most = 0
        for i in range(n):
            key = stream_key(NS, C, S, scratch[0, i])
            scratch[1, i] = key
            kbuf[key + 1] += 1
            if kbuf[key + 1] > most:
                most = kbuf[key + 1]
        for j in range(nk):  # group starts, then fill pointers in kbuf[nk + 1 + j]
            kbuf[j + 1] += kbuf[j]
            kbuf[nk + 1 + j] = kbuf[j]
        for i in range(n):
            key = scratch[1, i]
            scratch[2, kbuf[nk + 1 + key]] = scratch[0, i]
            kbuf[nk + 1 + key] += 1
        k = 0
        for r in range(most):
            for j in range(nk):
                if kbuf[j] + r < kbuf[j + 1]:
                    scratch[0, k] = scratch[2, kbuf[j] + r]
                    k += 1
    for i in range(n):
        issue(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize,
              lhead, ltail, scratch[0, i])


@_inl
def time_release(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, lhead,
    ltail, tb, scratch, kbuf, evt, evs, ekind, ea, eb, interval, tid,
):
    timing = C[_TIMING]
    if timing == _T_IMMEDIATE or C[_TIMING_N] == 0:
        issue(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize,
              lhead, ltail, tid)
    elif timing == _T_RATE:
        now = T[_NOW]
        nxt = T[_NEXT_ISSUE]
        t = nxt if now < nxt else now
        T[_NEXT_ISSUE] = t + interval
        if t <= now:
            issue(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                  hsize, lhead, ltail, tid)
        else:
            epush(evt, evs, ekind, ea, eb, S, t, _EV_ISSUE, -1, tid)
    else:
        k = S[_TBN]
        tb[k] = tid
        S[_TBN] = k + 1
        if k + 1 >= C[_TIMING_N]:
            flush_timing(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst,
                         hoff, hsize, lhead, ltail, tb, scratch, kbuf)


@_bare
def flush_batch(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize, lhead,
    ltail, tb, scratch, kbuf, evt, evs, ekind, ea, eb, interval, bd,
):
    n = S[_BDN]
    S[_BDN] = 0
    for i in range(n):
        time_release(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                     hsize, lhead, ltail, tb, scratch, kbuf, evt, evs, ekind, ea, eb, interval,
                     bd[i])


@_bare
def step(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
    lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb,
    sbegin, succ, stack, predone, sp_tid, sp_t0, sp_t1,
):
    # _step: every event of the next instant, then the idle workers choose. A call (the
    # generator's waits) rather than one more inlined copy; the drain inlines its own.
    t = evt[0]
    T[_NOW] = t
    while S[_EVN] > 0 and evt[0] == t:
        seq = epop(evt, evs, S)
        if ekind[seq] == _EV_COMPLETE:
            complete_task(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                          hsize, sbegin, succ, stack, predone, infl, ghead, gtail, is_idle,
                          sp_tid, sp_t0, sp_t1, ea[seq], eb[seq])
        else:
            issue(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff, hsize,
                  lhead, ltail, eb[seq])
    dispatch_some(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff,
                  hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt,
                  evs, ekind, ea, eb)


@_bare
def run(
    NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
    lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb, bd,
    tb, scratch, kbuf, stack, predone, sp_tid, sp_t0, sp_t1, fanin, sbegin, succ, task_ids,
    op_after, interval, k0, gc_at, gc_old,
):
    # The state machine from task k0 on (k0 = n_tasks + 1: the drain); returns where to
    # resume when the stall spans need more room (schedule grows them), -1 when done, -2 when
    # the task window is full with nothing running.
    n_tasks = task_ids.shape[0]
    depth = C[_DEPTH]
    window = C[_WINDOW]
    spans = depth or window
    batch = C[_BATCH]

    prev = task_ids[k0 - 1] + 1 if 0 < k0 <= n_tasks else 0
    for k in range(k0, n_tasks + 1):
        if k < n_tasks:
            # _generator_wait: the events due at the generator's time first
            gt = T[_GEN]
            while S[_EVN] > 0 and evt[0] <= gt:
                if spans and sp_tid.shape[0] - S[_SPANN] <= n_tasks:
                    S[_GROWN] += 1
                    return k  # the caller grows the span arrays and resumes here
                step(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                     hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order,
                     evt, evs, ekind, ea, eb, sbegin, succ, stack, predone, sp_tid, sp_t0,
                     sp_t1)
            if T[_NOW] < gt:  # (later only when resuming inside a window wait)
                T[_NOW] = gt
            if window and S[_LIVE] >= window:
                # the window is full: _flush_all, then the generator waits for completions
                S[_WFULL] += 1
                if S[_BDN] > 0:
                    flush_batch(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of,
                                hst, hoff, hsize, lhead, ltail, tb, scratch, kbuf, evt, evs,
                                ekind, ea, eb, interval, bd)
                if S[_TBN] > 0:
                    flush_timing(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of,
                                 hst, hoff, hsize, lhead, ltail, tb, scratch, kbuf)
                dispatch_some(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves,
                              tid_of, hst, hoff, hsize, lhead, ltail, infl, ghead, gtail,
                              is_idle, busy, trun, order, evt, evs, ekind, ea, eb)
                while S[_LIVE] >= window:
                    if S[_EVN] == 0:
                        return -2
                    if sp_tid.shape[0] - S[_SPANN] <= n_tasks:
                        S[_GROWN] += 1
                        S[_GROWN_WAIT] += 1
                        return k  # (resumes here: the buffers are empty, gt unchanged)
                    step(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                         hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun,
                         order, evt, evs, ekind, ea, eb, sbegin, succ, stack, predone, sp_tid,
                         sp_t0, sp_t1)
                if T[_NOW] > gt:
                    stalls[_ST_WINDOW] += T[_NOW] - gt
                    sk = S[_SPANN]
                    sp_tid[sk] = -1  # the generator
                    sp_t0[sk] = gt
                    sp_t1[sk] = T[_NOW]
                    S[_SPANN] = sk + 1
                gt = T[_NOW]
                T[_GEN] = gt
            # _register: the task and the barrier created with it
            tid = task_ids[k]
            first = prev
            S[_NCREATED] = tid + 1
            for d in range(prev, tid + 1):
                # predecessors already done when d is created do not count; the node's
                # other fields start here (no pass over the whole workspace first)
                NI[_DEPS, d] = fanin[d] - predone[d]
                NI[_WORKER, d] = -1
                NI[_ISEQ, d] = -1
                NI[_SOF, d] = 0
                NI[_LANE, d] = 0
                NF[_START, d] = -1.0
                NF[_END, d] = -1.0
                NF[_ISSUED_T, d] = -1.0
                NF[_DEPS_T, d] = gt
                if C[_GEN_COST] or window:  # (else every creation time is 0: not written)
                    NF[_CREATED_T, d] = gt
            for d in range(prev, tid):  # barriers
                NI[_BLK, d] = NI[_DEPS, d]
            NI[_BLK, tid] = NI[_DEPS, tid] + 1
            S[_LIVE] += 1
            S[_CREATED] += 1
            for d in range(prev, tid):
                if NI[_DEPS, d] == 0:
                    complete_node(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of,
                                  hst, hoff, hsize, sbegin, succ, stack, predone, d)
            prev = tid + 1
            # _release
            if batch:
                bk = S[_BDN]
                bd[bk] = tid
                S[_BDN] = bk + 1
                if bk + 1 >= batch:
                    flush_batch(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of,
                                hst, hoff, hsize, lhead, ltail, tb, scratch, kbuf, evt, evs,
                                ekind, ea, eb, interval, bd)
            else:
                time_release(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst,
                             hoff, hsize, lhead, ltail, tb, scratch, kbuf, evt, evs, ekind, ea,
                             eb, interval, tid)
            if S[_NIDLE] > 0:  # (no call while every worker is busy)
                dispatch_some(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves,
                              tid_of, hst, hoff, hsize, lhead, ltail, infl, ghead, gtail,
                              is_idle, busy, trun, order, evt, evs, ekind, ea, eb)
            T[_GEN] = gt + C[_GEN_COST]  # gen_cost: the generator's time per task
            if window:  # _gc: the TensorMap forgets the tasks before the oldest live one
                S[_SINCE_GC] += tid + 1 - first
                if S[_SINCE_GC] >= (window if window > 1024 else 1024):
                    S[_SINCE_GC] = 0
                    i = S[_OLDEST]
                    while i <= tid and NF[_END, i] >= 0.0:
                        i += 1
                    S[_OLDEST] = i
                    g = S[_GCN]
                    gc_at[g] = tid + 1
                    gc_old[g] = i
                    S[_GCN] = g + 1
        # ordering points after k + 1 tasks (before the first task: nothing buffered)
        if k < n_tasks and op_after[k + 1] and S[_BDN] > 0:
            flush_batch(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst,
                        hoff, hsize, lhead, ltail, tb, scratch, kbuf, evt, evs, ekind, ea, eb,
                        interval, bd)
            dispatch_some(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of,
                          hst, hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy,
                          trun, order, evt, evs, ekind, ea, eb)
    # end of generation: _flush_all, then _drain
    if k0 <= n_tasks and S[_BDN] > 0:
        flush_batch(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                    hsize, lhead, ltail, tb, scratch, kbuf, evt, evs, ekind, ea, eb, interval,
                    bd)
    if k0 <= n_tasks and S[_TBN] > 0:
        flush_timing(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                     hsize, lhead, ltail, tb, scratch, kbuf)
    if k0 <= n_tasks:
        dispatch_some(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                      hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun,
                      order, evt, evs, ekind, ea, eb)
    if T[_NOW] < T[_GEN]:
        T[_NOW] = T[_GEN]
    while S[_EVN] > 0:
        if spans and sp_tid.shape[0] - S[_SPANN] <= n_tasks:
            S[_GROWN] += 1
            return n_tasks + 1
        t = evt[0]
        T[_NOW] = t
        while S[_EVN] > 0 and evt[0] == t:
            seq = epop(evt, evs, S)
            if ekind[seq] == _EV_COMPLETE:
                complete_task(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of,
                              hst, hoff, hsize, sbegin, succ, stack, predone, infl, ghead, gtail,
                              is_idle, sp_tid, sp_t0, sp_t1, ea[seq], eb[seq])
            else:
                issue(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, tid_of, hst, hoff,
                      hsize, lhead, ltail, eb[seq])
        dispatch_idle(NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst,
                      hoff, hsize, lhead, ltail, infl, ghead, gtail, is_idle, busy, trun,
                      order, evt, evs, ekind, ea, eb)
    return -1


@_njit
def schedule(
    NS, fanin, sbegin, succ, task_ids, op_after, C, interval, cand, ncand, incand,
    serves, hoff, hcap_total, n_scopes, n_lanes, span_cap, NI, NF, tid_of, hst, order, ekind,
    ea, eb, stack, predone,
):
    # NI (8, n), NF (6, n), tid_of, hst, order, ekind/ea/eb (2 n_tasks + 2), stack and
    # predone (n) come from the caller's Workspace (memory reused from run to run): NI and
    # NF rows are initialized when their node is registered (run), the rest here or where
    # they are written. C is a tuple: its values stay in registers (an array's
    # would be reloaded after every store to an int64 array).
    n_tasks = task_ids.shape[0]
    W = C[_W]
    predone[:] = 0
    # The results the caller reads in two arrays (each returned array costs its boxing):
    # S = the int scalars, then tasks run per worker; R = the float scalars T, the five
    # stalls, then busy cycles per worker.
    S = np.zeros(_NS + W, np.int64)
    S[_LASTC] = -1
    S[_NIDLE] = W
    trun = S[_NS:]
    R = np.zeros(_NR + W, np.float64)
    T = R[:3]
    stalls = R[3:_NR]
    busy = R[_NR:]
    hsize = np.zeros((5, W + 3), np.int64)
    for h in range(W + 3):
        hsize[4, h] = (hoff[h + 1] if h + 1 < W + 3 else hcap_total) - hoff[h]
    lhead = np.full(max(n_lanes, 1), -1, np.int64)
    ltail = np.full(max(n_lanes, 1), -1, np.int64)
    infl = np.zeros(max(n_scopes, 1), np.int64)
    ghead = np.full(max(n_scopes, 1), -1, np.int64)
    gtail = np.full(max(n_scopes, 1), -1, np.int64)
    is_idle = np.ones(W, np.bool_)
    ecap = 2 * n_tasks + 2
    evt = np.empty(ecap, np.float64)
    evs = np.empty(ecap, np.int64)
    # Buffers written before they are read (np.empty: untouched pages cost nothing), sized
    # for the features the configuration uses.
    nbd = n_tasks if C[_BATCH] else 1
    ntb = n_tasks if C[_TIMING] >= _T_BATCHED and C[_TIMING_N] > 0 else 1
    bd = np.empty(max(nbd, 1), np.int64)
    tb = np.empty(max(ntb, 1), np.int64)
    scratch = np.empty((3, max(ntb, 1)), np.int64)
    kbuf = np.zeros(2 * max(C[_STREAMS], 1) + 2, np.int64)
    sp_tid = np.zeros(span_cap, np.int64)
    sp_t0 = np.zeros(span_cap, np.float64)
    sp_t1 = np.zeros(span_cap, np.float64)
    # The TensorMap collections of a task window: after how many nodes, and the oldest live
    # node then (at most one per 1024 nodes).
    ngc = NS.shape[1] // 1024 + 2 if C[_WINDOW] else 1
    gc_at = np.zeros(ngc, np.int64)
    gc_old = np.zeros(ngc, np.int64)
    k = 0
    while True:
        k = run(
            NS, NI, NF, C, S, T, stalls, cand, ncand, incand, serves, tid_of, hst, hoff, hsize,
            lhead, ltail, infl, ghead, gtail, is_idle, busy, trun, order, evt, evs, ekind, ea, eb, bd,
            tb, scratch, kbuf, stack, predone, sp_tid, sp_t0, sp_t1, fanin, sbegin, succ, task_ids,
            op_after, interval, k, gc_at, gc_old,
        )
        if k == -2:
            raise RuntimeError("internal: task window full with nothing running")
        if k < 0:
            break
        cap = 2 * sp_tid.shape[0] + n_tasks  # room for the spans of the next events
        sp_tid = np.concatenate((sp_tid, np.zeros(cap, np.int64)))
        sp_t0 = np.concatenate((sp_t0, np.zeros(cap, np.float64)))
        sp_t1 = np.concatenate((sp_t1, np.zeros(cap, np.float64)))
    # (NI, NF and order: the caller's; the span arrays and the collections may be new)
    return S, R, sp_tid, sp_t0, sp_t1, gc_at, gc_old
# fmt: on


@_bare
def prepare(
    NS,
    kind,
    pool,
    kernel,
    table,
    prio,
    target,
    stream,
    codes,
    cand,
    ncand,
    incand,
    work_steal,
    prio_ready,
    task_ids,
    caps,
    hoff,
    found,
):
    # The per-node static rows of NS from the graph's fields (a node's cost: table[its
    # kernel], the last entry for kernel -1, the barriers), the task ids (kind 0) in
    # task_ids, each ready queue's capacity in caps (a task sits in one queue at a time:
    # its target worker's, its pool's, or with work_steal any of its pool's workers'), and
    # hoff each queue's offset in the heap storage, found = (task count, lowest and highest
    # task priority, total capacity); 1 when a pool is not vector/cube/any or a cost is not
    # in [0, 2^53).
    n = kind.shape[0]
    W = cand.shape[1]
    nt = 0
    pmin = 0
    pmax = 0
    for i in range(n):
        k = kind[i]
        NS[_KIND, i] = k
        raw = pool[i]
        if raw == codes[0]:
            q = 0
        elif raw == codes[1]:
            q = 1
        elif raw == codes[2]:
            q = 2
        else:
            return 1
        NS[_PIDX, i] = q
        c = table[kernel[i]]
        if c < 0 or c >= 9007199254740992:
            return 1
        NS[_COST, i] = c
        pr = prio[i]
        if prio_ready:  # (the row is read only for priority keys)
            NS[_PRIO, i] = pr
        t = target[i]
        NS[_TARGET, i] = t
        NS[_GSTREAM, i] = stream[i]
        # (the _SDENSE row is read only with per_stream depth and no streams: written then)
        if k == 0:
            task_ids[nt] = i
            if nt == 0 or pr < pmin:
                pmin = pr
            if nt == 0 or pr > pmax:
                pmax = pr
            nt += 1
            if t >= 0:
                caps[cand[q, t % ncand[q]]] += 1
            elif work_steal:
                for w in range(W):
                    if incand[q, w]:
                        caps[w] += 1
            else:
                caps[W + q] += 1
    found[0] = nt
    found[1] = pmin
    found[2] = pmax
    total = 0
    for h in range(caps.shape[0]):
        hoff[h] = total
        total += caps[h]
    found[3] = total
    return 0


@_bare
def rows_ascending(begin, succ):
    # Whether every CSR row of succ is strictly ascending.
    for r in range(begin.shape[0] - 1):
        for e in range(begin[r] + 1, begin[r + 1]):
            if succ[e] <= succ[e - 1]:
                return False
    return True


# ----------------------------------------------------------------------------- Python side

_SPAN_CAUSE = "pipeline_depth"
#: The causes of the stalls ``schedule`` sums (R[3:8]), in its order (_ST_*).
_STALL_ORDER = ("dependencies", "stream_order", "pipeline_depth", "issue", "window")


def span_capacity(n_tasks: int) -> int:
    """The first capacity of the stall-span arrays (pipeline_depth and window stalls). A
    step of the compiled loop records at most ``n_tasks`` spans, so the loop stops while
    fewer than ``n_tasks + 1`` entries are free — where it is: before a step of the
    generator's wait, of a window wait or of the drain — and ``schedule`` grows the arrays
    (to 3x their size + n_tasks) and resumes there. (A module-level function: the tests
    shrink it to force growths, tests/test_fastsched_spans.py.)"""
    return 2 * n_tasks + 16


def schedule_graph(
    builder: RecordingBuilder,
    graph: Any,
    costs: np.ndarray,
    config: Any,
    kernels: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
    workspace: Workspace | None = None,
) -> FastRun | None:
    """Schedule the built ``graph`` as ``Simulator.run_main`` would have; None when the
    graph needs what the port does not do (the caller then runs the general engine).

    ``costs`` holds each node's cycles (0 for barriers), or is a ``KernelCosts`` (a cost per
    kernel, and the tasks whose kernel has a cost function); ``builder`` is the RecordingBuilder
    the program ran on (its ordering points); the per-node arrays live in ``workspace``
    (a fresh one when None): the returned FastRun reads them until the workspace is used
    again."""
    if not _compiled():
        return None
    space = workspace if workspace is not None else Workspace()
    n = graph.num_nodes
    # The per-node static fields, written straight into their rows (no astype copies).
    NS = space.take("NS", (7, n), np.int64)
    pool = graph.pool
    if pool.dtype != np.uint8 and n and (int(pool.min()) < 0 or int(pool.max()) > 255):
        return None
    if isinstance(costs, tuple):  # a KernelCosts (also another copy's: the A/B harnesses)
        table, fixed = costs[0], costs[1]
        kernel = graph.kernel.astype(np.int32, copy=False)
        if table.dtype != np.int64 or len(table) != len(graph.kernels) + 1:
            return None
        if fixed is not None and len(fixed):
            values = costs[2]
            if values.dtype != np.int64 or int(values.min()) < 0 or int(values.max()) >= 1 << 53:
                return None
    else:  # one cost per node
        table, fixed = np.asarray(costs), None
        kernel = np.arange(n, dtype=np.int32)
        if table.dtype != np.int64 or len(table) != n:
            return None
    W, worker_pool, serves, cand, ncand, incand, pool_workers = _workers(
        max(1, config.workers), tuple(config.pools())
    )
    work_steal = config.dispatch == "work_steal"
    prio_ready = config.ready == "priority"
    # The static rows, the task ids and the ready queues' capacities in one compiled pass.
    caps = np.zeros(W + 3, np.int64)
    hoff = np.empty(W + 3, np.int64)
    found = np.empty(4, np.int64)
    task_buf = space.take("task_ids", max(n, 1))
    graph_kind = graph.kind.astype(np.uint8, copy=False)
    bad = prepare(
        NS, graph_kind, pool.astype(np.uint8, copy=False), kernel, table, graph.priority.astype(np.int64, copy=False),
        graph.target.astype(np.int64, copy=False), graph.stream.astype(np.int64, copy=False), _CODES,
        cand, ncand, incand, work_steal, prio_ready, task_buf, caps, hoff, found,
    )  # fmt: skip
    if bad:
        return None  # a pool not vector/cube/any, or a cost not in [0, 2^53)
    if fixed is not None and len(fixed):
        NS[_COST, fixed] = costs[2]  # (the tasks of kernels with a cost function)
    n_tasks = int(found[0])
    task_ids = task_buf[:n_tasks]
    if n and graph_kind[-1] != 0:
        return None  # a barrier no task follows: not something add_task creates
    costs = NS[_COST]
    nkey = max(n_tasks, 1)
    pmin = 0
    if prio_ready and n_tasks:
        pmin, pmax = int(found[1]), int(found[2])
        if (pmax - pmin + 1) * nkey >= 1 << 62:
            return None
    total = int(found[3])
    if total > 1 << 28:
        return None
    # Streams, scopes, timing.
    streams = int(config.streams)
    n_lanes = streams * (W + 1) if streams else 1
    gstream = NS[_GSTREAM]
    scope = {"per_stream": 1, "per_pool": 2}.get(config.depth_scope, 0)
    sdense = NS[_SDENSE]
    n_scopes = 1
    if scope == 1:
        if streams:
            n_scopes = n_lanes
        elif n:
            uniq, inverse = np.unique(gstream, return_inverse=True)
            sdense[:] = inverse.reshape(-1)
            n_scopes = len(uniq)
    elif scope == 2:
        n_scopes = 3
    timing = {"immediate": 0, "rate_limit": 1, "interleaved": 3}.get(config.timing, 2)
    timing_n = int(config.timing_n)
    interval = config.cycles_per_ms / config.timing_n if timing == 1 and timing_n else 0.0
    depth = int(config.pipeline_depth)
    op_after = np.zeros(n_tasks + 1, np.bool_)
    if config.batch_deps:
        if not isinstance(builder, OrderRecordingBuilder):
            raise TypeError(
                "batch_deps needs the ordering points: build on an OrderRecordingBuilder"
            )
        points = [p for p in builder.order_points if 0 < p <= n_tasks]
        op_after[points] = True
    # Successors in CSR rows (ascending); fanin counts every node's predecessors. In the
    # dtypes a TaskGraph has (row starts int64, successors and fanin int32: read only here),
    # copied into the workspace where they are not.
    begin = _copy(space, "begin", graph.fanout_begin)
    succ = _copy(space, "succ", graph.fanout_edges, np.int32)
    # the engine releases successors in creation order: rows ascending
    if len(succ) > 1 and not rows_ascending(begin, succ):
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(begin))
        succ = succ[np.lexsort((succ, rows))]
    fanin = _copy(space, "fanin", graph.fanin, np.int32)
    C = tuple(
        [
            W,
            int(prio_ready),
            int(work_steal),
            streams,
            int(bool(config.stream_keyed)),
            timing,
            timing_n,
            depth,
            scope,
            int(config.batch_deps),
            pmin,
            nkey,
            int(config.gen_cost),
            int(config.task_window),
        ]
    )
    span_cap = span_capacity(n_tasks) if depth or config.task_window else 0
    m = max(n, 1)
    ecap = 2 * n_tasks + 2
    NI = space.take("NI", (8, n), np.int64)
    NF = space.take("NF", (6, n), np.float64)
    order = space.take("order", max(n_tasks, 1))
    S, R, sp_tid, sp_t0, sp_t1, gc_at, gc_old = schedule(
        NS, fanin, begin, succ, task_ids, op_after, C, float(interval), cand, ncand,
        incand, serves, hoff, total, n_scopes, n_lanes, span_cap, NI, NF,
        space.take("tid_of", max(n_tasks, 1)), space.take("hst", (2, max(total, 1))),
        order, space.take("ekind", ecap), space.take("ea", ecap),
        space.take("eb", ecap), space.take("stack", m), space.take("predone", m),
    )  # fmt: skip
    ngc = int(S[_GCN])
    if ngc:
        graph = _collected(graph, gc_at[:ngc], gc_old[:ngc])
    if S[_COMPLETED] != S[_CREATED]:
        raise RuntimeError(
            f"internal: {S[_CREATED] - S[_COMPLETED]} task(s) never ran "
            "(a dependency cycle or a lost release)"
        )
    return FastRun(
        config=config,
        builder=builder,
        graph=graph,
        kernels=kernels,
        arrays=arrays,
        n_workers=W,
        worker_pool=list(worker_pool),
        pool_workers={p: list(ws) for p, ws in pool_workers.items()},
        NI=NI,
        NF=NF,
        S=S,
        R=R,
        order=order[: S[_ORDN]],
        spans=(sp_tid, sp_t0, sp_t1),
        costs=costs,
        workspace=space,
    )


_CODES = np.array([POOL_VECTOR, POOL_CUBE, POOL_ANY], np.int64)


def _collected(graph: Any, gc_at: np.ndarray, gc_old: np.ndarray) -> Any:
    """``graph`` without the data edges the engine's TensorMap no longer gives: with a task
    window it forgets, after ``gc_at[g]`` nodes, every access by a node before ``gc_old[g]``
    (all done then), so a node created after that gets no data edge from them (edges that
    would not have counted: their source was done). Structural edges stay."""
    src, dst = graph.edges()
    kind = graph.edge_kind
    last = np.searchsorted(gc_at, dst, side="right") - 1
    oldest = np.where(last >= 0, gc_old[np.maximum(last, 0)], -1)
    keep = (kind == 0) | (src >= oldest)
    if keep.all():
        return graph
    E = np.stack([src[keep], dst[keep], kind[keep]]).astype(np.int64)
    begin, edges, kinds, fanin = csr(E, graph.num_nodes)  # (build()'s own CSR)
    return dataclasses.replace(
        graph, fanin=fanin, fanout_begin=begin, fanout_edges=edges, edge_kind=kinds
    )


@functools.lru_cache(maxsize=64)
def _workers(W: int, pools: tuple[int, ...]) -> tuple:
    """The workers' pools (Simulator.__init__) and, per pool index, which workers serve it:
    ``serves`` (W, 3), the candidates ``cand`` (3, W) with their counts ``ncand`` and
    membership ``incand``, and ``pool_workers`` {pool: [workers]} (kept per configuration:
    the scheduler only reads the arrays; FastRun gets copies of the lists)."""
    worker_pool = list(pools[:W])
    while len(worker_pool) < W:
        worker_pool.append(POOL_ANY)
    serves = np.zeros((W, 3), np.bool_)
    for w, p in enumerate(worker_pool):
        for q in _SERVES_IDX[_POOL_INDEX[p]]:
            serves[w, q] = True
    cand = np.zeros((3, W), np.int64)
    ncand = np.zeros(3, np.int64)
    incand = np.zeros((3, W), np.bool_)
    for q in range(3):
        ws = [w for w in range(W) if serves[w, q]] or list(range(W))
        cand[q, : len(ws)] = ws
        ncand[q] = len(ws)
        incand[q, ws] = True
    pool_workers = {raw: cand[index, : ncand[index]].tolist() for raw, index in _POOL_INDEX.items()}
    return W, worker_pool, serves, cand, ncand, incand, pool_workers


def _copy(space: Workspace, name: str, values: np.ndarray, dtype: Any = np.int64) -> np.ndarray:
    """``values`` as ``dtype``: the array itself when it is a writeable contiguous array of
    that dtype (the compiled functions' argument type: just built, its memory is warm), else
    a copy in the workspace's buffer ``name``."""
    flags = values.flags
    if values.dtype == dtype and flags.c_contiguous and flags.writeable and values.ndim == 1:
        return values
    out = space.take(name, len(values), dtype)
    out[:] = values
    return out


class KernelCosts(NamedTuple):
    """The cycles of a graph's nodes, per kernel: node i costs ``table[kernel[i]]`` (the last
    entry, 0, for kernel -1: the barriers), except the tasks ``ids`` (of kernels with a cost
    function, when not None) which cost ``values``."""

    table: np.ndarray
    ids: np.ndarray | None = None
    values: np.ndarray | None = None


class Workspace:
    """The memory of the compiled scheduler's per-node arrays, kept from one run to the next.

    Fresh memory costs a page fault per 4 KiB page on first touch — ~2 us each on a VM,
    0.05-0.1 us per task, as much as the scheduling itself — so a Program keeps two
    workspaces and alternates (the last run's FastRun keeps reading its own while the next
    run writes the other). ``take`` hands out an uninitialized array of the shape asked for,
    in a buffer that only grows (the array handed out last per name is kept: asked again
    for the same shape and dtype, the same array object, no slicing)."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}
        self._last: dict[str, tuple] = {}

    def take(self, name: str, shape: int | tuple[int, int], dtype: Any = np.int64) -> np.ndarray:
        last = self._last.get(name)
        if last is not None and last[0] == shape and last[1] is dtype:
            return last[2]
        pair = shape.__class__ is tuple
        size = int(shape[0] * shape[1] if pair else shape)
        buf = self._buffers.get(name)
        if buf is None or buf.size < size or buf.dtype != dtype:
            buf = self._buffers[name] = np.empty(size + size // 4, dtype)
        out = buf[:size].reshape(shape) if pair else buf[:size]
        self._last[name] = (shape, dtype, out)
        return out


class FastRun:
    """The result of a fast-path run, read as a ``Simulator`` is after ``run_main``:
    ``graph`` (the builder), per-node ``worker``, ``start``, ``end``, ``issue_seq``,
    ``stream_of``, ``lane``, ``created_t``, ``issued_t``, ``deps_t``, ``cost`` (lists, made on
    first use; ``*_array`` attributes hold the numpy arrays), ``busy``, ``tasks_run``,
    ``steals``, ``stalls``, ``stall_spans``; ``order`` is the dispatch order (task ids) and
    ``task_graph`` the built TaskGraph."""

    fast = True

    def __init__(
        self,
        *,
        config: Any,
        builder: RecordingBuilder,
        graph: Any,
        kernels: Mapping[str, Any],
        arrays: Mapping[str, np.ndarray],
        n_workers: int,
        worker_pool: list[int],
        pool_workers: dict[int, list[int]],
        NI: np.ndarray,
        NF: np.ndarray,
        S: np.ndarray,
        R: np.ndarray,
        order: np.ndarray,
        spans: tuple[np.ndarray, np.ndarray, np.ndarray],
        costs: np.ndarray,
        workspace: Workspace | None = None,
    ) -> None:
        self.workspace = workspace
        #: Wall time per phase (Stats.phases_ms), set by the Program.
        self.phases_ms: dict[str, float] = {}

        self.cfg = config
        self.graph = builder
        self.task_graph = graph
        self.kernels = kernels
        self.arrays = dict(arrays)
        self.n_workers = n_workers
        self.worker_pool = worker_pool
        self.pool_workers = pool_workers
        self.worker_array = NI[_WORKER]
        self.start_array = NF[_START]
        self.end_array = NF[_END]
        self.issue_seq_array = NI[_ISEQ]
        self.stream_of_array = NI[_SOF]
        self.lane_array = NI[_LANE]
        self.issued_t_array = NF[_ISSUED_T]
        self.deps_t_array = NF[_DEPS_T]
        self._created_t = NF[_CREATED_T]  # (written only with a gen_cost: created_t_array)
        self.cost_array = costs
        self.order = order
        # The scalars and per-worker results (S: ints, then tasks run per worker; R: floats,
        # stalls, then busy cycles per worker) are read into lists and dicts on first use.
        self._S = S
        self._R = R
        self.live = 0
        self._spans = spans
        self._spans_list: list | None = None
        self._lists: dict[str, list] = {}
        self._specs: list[Any] = []
        self.processes: list = []
        self.progress = None

    priority_ready = property(lambda self: self.cfg.ready == "priority")
    work_steal = property(lambda self: self.cfg.dispatch == "work_steal")
    steals = property(lambda self: int(self._S[_STEALS]))
    created = property(lambda self: int(self._S[_CREATED]))
    completed = property(lambda self: int(self._S[_COMPLETED]))
    #: Whether a task's creation found the task window full (the generator waited, perhaps
    #: for no time): with ``overflow=abort`` the engine raises there.
    window_filled = property(lambda self: bool(self._S[_WFULL]))
    gen_t = property(lambda self: float(self.created * self.cfg.gen_cost))

    @functools.cached_property
    def busy(self) -> list[float]:
        return self._R[_NR:].tolist()

    @functools.cached_property
    def tasks_run(self) -> list[int]:
        return self._S[_NS:].tolist()

    @functools.cached_property
    def stalls(self) -> dict[str, float]:
        from pto_wsp.runtime.engine import STALL_CAUSES

        stalls = dict.fromkeys(STALL_CAUSES, 0.0)
        for cause, value in zip(_STALL_ORDER, self._R[3:_NR].tolist()):
            stalls[cause] = value
        return stalls

    @property
    def span_growths(self) -> tuple[int, int]:
        """How often the stall-span arrays grew during the run, and how many of those
        growths stopped the compiled loop inside a task-window wait."""
        return int(self._S[_GROWN]), int(self._S[_GROWN_WAIT])

    def _list(self, name: str) -> list:
        out = self._lists.get(name)
        if out is None:
            out = self._lists[name] = getattr(self, name + "_array").tolist()
        return out

    worker = property(lambda self: self._list("worker"))
    start = property(lambda self: self._list("start"))
    end = property(lambda self: self._list("end"))
    issue_seq = property(lambda self: self._list("issue_seq"))
    stream_of = property(lambda self: self._list("stream_of"))
    lane = property(lambda self: self._list("lane"))
    issued_t = property(lambda self: self._list("issued_t"))
    deps_t = property(lambda self: self._list("deps_t"))
    cost = property(lambda self: self._list("cost"))

    created_t = property(lambda self: self._list("created_t"))

    @property
    def created_t_array(self) -> np.ndarray:
        if not (self.cfg.gen_cost or self.cfg.task_window):  # all created at 0 (row not written)
            return np.zeros(len(self.end_array))
        return self._created_t

    @property
    def stall_spans(self) -> list[tuple[str, str, float, float]]:
        if self._spans_list is None:
            nspan = int(self._S[_SPANN])
            tids, t0, t1 = (a[:nspan].tolist() for a in self._spans)
            self._spans_list = [
                ("window", "generator", a, b) if g < 0 else (_SPAN_CAUSE, f"task {g}", a, b)
                for g, a, b in zip(tids, t0, t1)
            ]
        return self._spans_list

    def _scope(self, tid: int) -> int:
        """The pipeline_depth scope of a task (the engine's ``_scope``)."""
        scope = self.cfg.depth_scope
        if scope == "per_stream":
            return self.lane[tid] if self.cfg.streams else self.stream_of[tid]
        if scope == "per_pool":
            return int(self.task_graph.pool[tid])
        return 0

    def _spec(self, kid: int) -> Any:
        from pto_wsp.runtime.kernels import cached_spec

        return cached_spec(self._specs, self.kernels, self.task_graph.kernels, kid)

    def _run_body(self, tid: int) -> None:
        """Run one task's body as ``Simulator._run_body`` does (threads.py calls this)."""
        from pto_wsp.runtime.kernels import numpy_view

        tg = self.task_graph
        spec = self._spec(int(tg.kernel[tid]))
        body = spec.body
        if body is None:
            return
        try:
            views = [numpy_view(self.arrays[r.tensor], r) for r in tg.regions[tid]]
            result = body(*spec.arguments(tg.args[tid], views))
        except BODY_ERRORS as error:
            raise self._error(tid, spec, error) from error
        if result is not None:
            self._returned(tid, spec, result, views)

    def _returned(self, tid: int, spec: Any, result: Any, views: Any) -> None:
        """Raise the ExecutionError of a body that returned a value instead of writing it."""
        from pto_wsp.runtime.kernels import returned

        error = returned(tid, spec, self.task_graph.coords[tid], result, views)
        if error is not None:
            raise error

    def _error(self, tid: int, spec: Any, error: Exception) -> Exception:
        """The ExecutionError of a failing body (or of a tensor it needs that is not bound)."""
        from pto_wsp.errors import ExecutionError

        tg = self.task_graph
        for r in tg.regions[tid]:
            if self.arrays.get(r.tensor) is None:
                error = ExecutionError(
                    tid,
                    spec.name,
                    tg.coords[tid],
                    f"tensor '{r.tensor}' is not bound (the functional mode runs "
                    f"@{spec.name}'s body on it: bind({r.tensor}=array))",
                )
                error.__suppress_context__ = True
                return error
        return ExecutionError(tid, spec.name, tg.coords[tid], error)

    def run_bodies(self, progress: Any = None, rows: dict | None = None) -> None:
        """The functional mode: call the bodies in dispatch order (the engine calls each when
        its task starts), with the engine's views and errors; ``progress(created, ran)`` every
        8192 bodies.

        Where a batch's views were made in bulk (``_batch_inputs``) and the kernel takes its
        scalars before its tensors, a stretch of the dispatch order running one kernel is one
        ``map(body, *columns)`` drained in C: no per-task tuple, no Python loop; the rest is
        called task by task. ``rows``: the row views of the bound tensors kept from earlier
        runs (the Program's; see ``_bulk_views``), else made for this run."""
        tg = self.task_graph
        arrays = self.arrays
        specs = [self._spec(k) for k in range(len(tg.kernels))]
        bodies = [s.body for s in specs]
        simple = [s._layout == sorted(s._layout) for s in specs]
        prepared = _kept_inputs(tg, arrays, simple, {} if rows is None else rows)
        if prepared is None:
            args, views, cover = list(tg.args), [None] * tg.num_nodes, None
        else:
            args, views, cover = prepared
        order = self.order
        chunk = 8192 if progress is not None else max(len(order), 1)
        stretches = _kept_stretches(order, tg.kernel, bodies, cover, chunk, rows)
        for a, b, columns in stretches:
            if columns is not None:
                self._run_columns(bodies[int(tg.kernel[order[a]])], columns, order, a)
            else:
                self._run_tasks(order[a:b].tolist(), bodies, specs, simple, args, views)
            if progress is not None and (b % chunk == 0 or b == len(order)):
                progress(self.created, b)

    def _run_columns(self, body: Any, columns: list, order: np.ndarray, a: int) -> None:
        """``body`` over the stretch of the dispatch order from ``a`` whose arguments are
        ``columns`` (one list per parameter, in that order); a raising body is named."""
        first = iter(columns[0])
        count = len(columns[0])
        tg = self.task_graph
        try:
            # Only the values a body returned reach Python: none from well-behaved bodies.
            for result in filter(_is_value, map(body, first, *columns[1:])):
                j = count - operator.length_hint(first) - 1
                t = int(order[a + j])
                views = [c[j] for c in columns[len(columns) - len(tg.regions[t]) :]]
                self._returned(t, self._spec(int(tg.kernel[t])), result, views)
        except ExecutionError:
            raise
        except BODY_ERRORS as error:
            t = int(order[a + count - operator.length_hint(first) - 1])
            raise self._error(t, self._spec(int(tg.kernel[t])), error) from error

    def _run_tasks(
        self, tids: list, bodies: list, specs: list, simple: list, args: list, views: list
    ) -> None:
        """The bodies of ``tids`` one by one (views made per task where none was made)."""
        kernel = self.task_graph.kernel
        regions = self.task_graph.regions
        arrays = self.arrays
        for tid in tids:
            kid = int(kernel[tid])
            body = bodies[kid]
            if body is None:
                continue
            try:
                v = views[tid]
                if v is None:
                    v = [_view(arrays[r.tensor], r) for r in regions[tid]]
                if simple[kid]:
                    result = body(*args[tid], *v)
                else:
                    result = body(*specs[kid].arguments(args[tid], v))
            except BODY_ERRORS as error:
                raise self._error(tid, specs[kid], error) from error
            if result is not None:
                self._returned(tid, specs[kid], result, v)


#: Whether a body returned something (``filter`` keeps those: a C-level test per task).
_is_value = functools.partial(operator.is_not, None)


def _kept_stretches(
    order: np.ndarray, kernel: np.ndarray, bodies: list, cover: Any, chunk: int, shared: Any
) -> Any:
    """``_stretches``, kept in ``shared`` for the next run when it gives the same result: the
    same kept inputs (``_kept_inputs``: the same ``cover`` object), bodies and chunk, and the
    same dispatch order and kernel per node (compared)."""
    if shared is None or cover is None:
        return _stretches(order, kernel, bodies, cover, chunk)
    kept = shared.get(_STRETCHES)
    if (
        kept is not None
        and kept[0] is cover
        and kept[1] == chunk
        and kept[2] == bodies
        and np.array_equal(kept[3], order)
        and np.array_equal(kept[4], kernel)
    ):
        return kept[5]
    stretches = list(_stretches(order, kernel, bodies, cover, chunk))
    shared[_STRETCHES] = (cover, chunk, list(bodies), order.copy(), kernel.copy(), stretches)
    return stretches


def _stretches(order: np.ndarray, kernel: np.ndarray, bodies: list, cover: Any, chunk: int) -> Any:
    """The dispatch order cut into stretches ``(a, b, columns)``: ``columns`` (the arguments
    of ``order[a:b]``, one list per parameter) where one kernel with a body runs every task
    of the stretch and bulk columns cover them all, else None (task by task). Stretches also
    end at multiples of ``chunk``."""
    n = len(order)
    if n == 0:
        return
    if cover is None:
        for a in range(0, n, chunk):
            yield a, min(a + chunk, n), None
        return
    kpos, kcols = cover
    korder = kernel[order]
    pos = kpos[order]
    covered = pos >= 0
    cut = np.flatnonzero((korder[1:] != korder[:-1]) | (covered[1:] != covered[:-1])) + 1
    cuts = np.union1d(cut, np.arange(chunk, n, chunk)).tolist()
    bounds = [0, *cuts, n]
    for a, b in zip(bounds[:-1], bounds[1:]):
        kid = int(korder[a])
        if not covered[a] or bodies[kid] is None:
            yield a, b, None
            continue
        cols = kcols[kid]
        p = pos[a:b]
        lo = int(p[0])
        if int(p[-1]) - lo == b - a - 1 and (b - a == 1 or bool((np.diff(p) == 1).all())):
            yield a, b, [c[lo : lo + b - a] for c in cols]
        else:
            get = operator.itemgetter(*p.tolist())
            yield a, b, ([get(c) for c in cols] if b - a > 1 else [(get(c),) for c in cols])


def _kept_inputs(
    tg: Any, arrays: Mapping[str, np.ndarray], simple: list[bool], shared: dict
) -> tuple[list, list, Any] | None:
    """``_batch_inputs``, kept in ``shared`` (the Program's, cleared on bind) for the next
    run when it gives the same result: every node in batches whose groups are the same
    objects (a batch site's kept arguments, docs/batchgen.md), the same kernels and layouts,
    and every bound array the same object with the same shape, strides and address. (The
    results are only read: by ``_stretches`` and the bodies' calls.)"""
    segs = getattr(tg.args, "_segs", None)
    if segs is None:
        return _batch_inputs(tg, arrays, simple, shared)
    from pto_wsp.runtime.graph import _BatchFields

    groups = []
    for seg in segs:
        if seg.fields.__class__ is not _BatchFields:
            return _batch_inputs(tg, arrays, simple, shared)
        groups.append((seg.base, seg.n, seg.fields.groups))
    where = [(name, a, *_geometry(a)) for name, a in arrays.items()]
    kept = shared.get(_INPUTS)
    if (
        kept is not None
        and kept[1] == tg.kernels
        and kept[2] == simple
        and len(kept[0]) == len(groups)
        and all(a[0] == b[0] and a[1] == b[1] and a[2] is b[2] for a, b in zip(kept[0], groups))
        and len(kept[3]) == len(where)
        and all(a[0] == b[0] and a[1] is b[1] and a[2:] == b[2:] for a, b in zip(kept[3], where))
    ):
        return kept[4]
    prepared = _batch_inputs(tg, arrays, simple, shared)
    shared[_INPUTS] = (groups, list(tg.kernels), list(simple), where, prepared)
    return prepared


#: ``_kept_inputs``' and ``_kept_stretches``' entries in the Program's row views (whose own
#: keys are (tensor, dimension, read-only) triples).
_INPUTS = "batch inputs"
_STRETCHES = "stretches"


def _batch_inputs(
    tg: Any, arrays: Mapping[str, np.ndarray], simple: list[bool], shared: dict
) -> tuple[list, list, Any] | None:
    """Per node, the args and (where they can be made in bulk) the views of the tasks that
    GraphBuilder's batch path created, straight from the batch's arrays instead of one region
    object per task: a region keeping whole trailing dimensions of a C-contiguous array is
    ``array.reshape(-1, *trailing)[flat index]`` — the view ``numpy_view`` gives, made once
    per row (``shared`` keeps them, see ``_bulk_views``) and shared by every task whose
    region is that row. Views that are not made here (None) are made per task when the task
    starts (so an unbound tensor or an index out of range fails at the same task as in the
    engine).

    The third result ``(kpos, kcols)`` covers the tasks of ``simple`` kernels (scalars before
    tensors) whose views are all made here: ``kcols[kid]`` holds kernel kid's arguments as
    columns (one list per parameter, its covered tasks in creation order), ``kpos[node]`` a
    task's place in them (-1: not covered; its args and views are then in the first two).
    None: the TaskGraph is not made of segments (the caller takes every task's fields one by
    one)."""
    try:
        from pto_wsp.runtime.bulk import BatchRegion, _column, _rows, group_count
        from pto_wsp.runtime.graph import _BatchFields

        segs = tg.args._segs
    except (ImportError, AttributeError):
        return None
    n = tg.num_nodes
    args: list = [()] * n
    views: list = [None] * n
    kpos = np.full(n, -1, np.int64)
    kcols: dict[int, list[list]] = {}
    kids = {name: k for k, name in enumerate(tg.kernels)}
    for seg in segs:
        fields = seg.fields
        if not isinstance(fields, _BatchFields):
            args[seg.base : seg.base + seg.n] = fields[0]
            continue
        for group in fields.groups:
            params, regions = group[2], group[3]
            pos = group[1]
            m = group_count(group, fields.n)
            ids = np.arange(seg.base, seg.base + m) if pos is None else np.asarray(pos) + seg.base
            pcols = [_column(p, m) for p in params]
            columns = []
            for r in regions:
                column = _bulk_views(r, m, arrays, BatchRegion, shared)
                if column is None:
                    break
                columns.append(column)
            else:
                kid = kids[group[0]]
                if simple[kid] and (pcols or columns):
                    # (every task of a kernel has its arity: the tg.task verifier's rule)
                    cols = kcols.get(kid)
                    if cols is None:
                        cols = kcols[kid] = [[] for _ in range(len(pcols) + len(columns))]
                    kpos[ids] = np.arange(len(cols[0]), len(cols[0]) + m)
                    for c, values in zip(cols, (*pcols, *columns)):
                        c.extend(values)
                    continue
                _put(views, ids, _rows(columns, m))
            _put(args, ids, _rows(pcols, m))
    return args, views, ((kpos, kcols) if kcols else None)


def _put(out: list, ids: np.ndarray, rows: list) -> None:
    """``out[ids[j]] = rows[j]``."""
    if not len(rows):
        return
    lo = int(ids[0])
    if int(ids[-1]) == lo + len(rows) - 1 and bool((np.diff(ids) == 1).all()):
        out[lo : lo + len(rows)] = rows
    else:
        for i, row in zip(ids.tolist(), rows):
            out[i] = row


def _bulk_views(
    r: Any, m: int, arrays: Mapping[str, np.ndarray], batch_cls: type, shared: dict
) -> list | None:
    """The m views of one region column of a batch group, or None (made per task). A
    tensor's row views, once made for a group using at least half of its rows, are kept in
    ``shared`` — under (tensor, first kept dimension, read-only), with the array they view,
    its shape, strides and address — and reused by every later group and run while the bound
    array is that one: a Program run again makes no views. Readers' rows (an ``in`` region)
    are read-only views of their own."""
    array = arrays.get(r.tensor)
    if array is None:
        return None
    if r.__class__ is not batch_cls:  # one region shared by the group's tasks
        if not hasattr(r, "kept"):
            return None
        try:
            return [_view(array, r)] * m
        except Exception:
            return None
    kept = r.kept
    nd = array.ndim
    if not kept or len(r.offsets) != nd:
        return None
    k0 = kept[0]
    if kept != tuple(range(k0, nd)) or not all(
        s.__class__ is int and s == 1 for s in (r.strides[d] for d in kept)
    ):
        return _window_views(r, m, array)
    shape = array.shape
    for d in kept:
        o, size = r.offsets[d], r.sizes[d]
        if o.__class__ is not int or o != 0 or size.__class__ is not int or size != shape[d]:
            return _window_views(r, m, array)
    if k0 == 0:
        return [_read_only(array[()], r.access)] * m
    if not array.flags.c_contiguous:
        return _window_views(r, m, array)
    index = []
    for d in range(k0):
        o = np.broadcast_to(np.asarray(r.offsets[d], dtype=np.int64), (m,))
        if m and (int(o.min()) < 0 or int(o.max()) >= shape[d]):
            return None  # out of range or wrapping: numpy's own indexing, per task
        index.append(o)
    if not m:
        return []
    lead = _read_only(array.reshape((-1, *shape[k0:])), r.access)
    flat = np.ravel_multi_index(tuple(index), shape[:k0])
    lo = int(flat[0])
    run = int(flat[-1]) == lo + m - 1 and (m == 1 or bool((np.diff(flat) == 1).all()))
    # Readers get read-only rows of their own (a writer's row views stay writeable).
    key = (r.tensor, k0, r.access == "in")
    kept_rows = shared.get(key)
    where = _geometry(array)
    rows = None
    if kept_rows is not None and kept_rows[0] is array and kept_rows[1] == where:
        rows = kept_rows[2]
    elif len(lead) <= 2 * m:
        rows = list(lead)  # each row's view once (iterating makes them)
        shared[key] = (array, where, rows)
    if rows is not None:
        if run:
            return rows[lo : lo + m]
        return [rows[i] for i in flat.tolist()]
    if run:
        return list(lead[lo : lo + m])
    return [lead[i] for i in flat.tolist()]


def _window_views(r: Any, m: int, array: np.ndarray) -> list | None:
    """The m views of a batch region column that is not whole rows (tiles, column blocks,
    strided windows): the view of each task is the element of one strided array whose first
    axis walks the array's memory element by element and whose other axes are the region's
    kept dimensions (shape: their sizes; strides: the array's times the region's); task j's
    view is that array at the element offset of its region's origin. Same shape, strides and
    memory as ``numpy_view``. None (made per task, with numpy's own clipping, wrapping and
    errors) unless every task's window lies inside the array with sizes and strides the same
    for every task, at least one element per kept dimension, and non-negative strides that
    are whole elements."""
    if not m:
        return []
    shape, strides, item = array.shape, array.strides, array.itemsize
    kept = r.kept
    lin = np.zeros(m, np.int64)
    for d, o in enumerate(r.offsets):
        step = strides[d]
        if step < 0 or step % item:
            return None
        last = 0  # the window's last index past its origin along d
        if d in kept:
            n, s = r.sizes[d], r.strides[d]
            if n.__class__ is not int or s.__class__ is not int or n < 1 or s < 1:
                return None
            last = (n - 1) * s
        if o.__class__ is np.ndarray:
            if o.shape != (m,) or int(o.min()) < 0 or int(o.max()) + last >= shape[d]:
                return None
            lin += o * (step // item)
        else:
            try:
                o = operator.index(o)
            except TypeError:
                return None
            if o < 0 or o + last >= shape[d]:
                return None
            lin += o * (step // item)
    tile = tuple(r.sizes[d] for d in kept)
    tile_strides = tuple(strides[d] * r.strides[d] for d in kept)
    span = int(lin.max()) + 1
    walk = np.lib.stride_tricks.as_strided(
        array,
        (span, *tile),
        (item, *tile_strides),
        writeable=array.flags.writeable and r.access != "in",
    )
    return list(map(walk.__getitem__, lin.tolist()))


def _read_only(view: np.ndarray, access: str) -> np.ndarray:
    """``view`` as the tasks of an ``access`` region get it: read-only for "in"."""
    if access == "in":
        view = view.view()  # (a new view object: the array itself stays writeable)
        view.flags.writeable = False
    return view


def _geometry(array: np.ndarray) -> tuple:
    """What views of ``array`` depend on besides the object: shape, strides, address."""
    return array.shape, array.strides, array.__array_interface__["data"][0]


def _view(array: np.ndarray, r: Any) -> np.ndarray:
    """``kernels.numpy_view(array, r)``, faster: the same view (same shape, same memory)."""
    kept = getattr(r, "kept", None)
    if kept is None:
        from pto_wsp.runtime.kernels import numpy_view

        return numpy_view(array, r)
    off = r.offsets
    sizes = r.sizes
    if kept and r.unit:
        k0 = kept[0]
        nd = len(off)
        if kept[-1] == nd - 1 and len(kept) == nd - k0:
            # The kept dimensions are the trailing ones: whole extents are plain indexing.
            shape = array.shape
            for d in kept:
                if off[d] or sizes[d] != shape[d]:
                    break
            else:
                view = array[off[:k0]] if k0 else array[()]
                if r.access == "in":
                    view.flags.writeable = False
                return view
    index: list[Any] = []
    strides = r.strides
    for d, o in enumerate(off):
        if d in kept:
            n = sizes[d]
            s = strides[d]
            index.append(slice(o, o + (n - 1) * s + 1 if n else o, s))
        else:
            index.append(o)
    view = array[tuple(index)]
    if r.access == "in" and view.__class__ is np.ndarray:
        view.flags.writeable = False
    return view
