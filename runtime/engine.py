"""The simulator engine: a deterministic virtual-time scheduler of task graphs.

The engine is the *builder* a compiled task-generation program drives (``add_task``,
``enter_ordered``, ``order_point``, ``exit_ordered``, ``num_tasks``: GraphBuilder's
interface, lowering/cpu/pygen.py), and at the same time the runtime that executes what it
builds: generation and execution interleave in virtual time, which is what lets a full task
window stall the generator, and pipelines' processes block on channels.

A task goes through these states (docs/simulator.md):

1. **created** by the generator (or a process): the GraphBuilder gives it an id and its
   incoming edges — structural order from ordering points, data order from the TensorMap;
2. **issued** when the schedule's ``batch_deps`` and ``timing`` release it (immediate,
   batched(n), interleaved(n), rate_limit(n));
3. **ready** when its predecessors have completed and, when the schedule declares streams,
   every earlier-issued task of its stream has started;
4. **started** on a worker chosen by the dispatch policy (a target computed by the program:
   round_robin, affinity, hash, range, dispatch_by; the shared pool queue otherwise;
   work_steal queues per worker with stealing), the best ready task first (issue order, or
   ``issue priority``), when the ``pipeline_depth`` gate of its scope is open;
5. **completed** ``cost`` cycles later; its successors lose one blocker.

Each condition is one count in ``blockers[i]``: a task is ready when it reaches zero. The
functional mode runs the kernel's body when the task starts; the cycles mode does not touch
data. Nothing depends on wall-clock time or hashing order: the same input gives the same
schedule, trace and statistics.
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pto_wsp.errors import ExecutionError, ResourceError
from pto_wsp.lowering.taskgraph import KIND_BARRIER, POOL_ANY, POOL_CUBE, POOL_VECTOR
from pto_wsp.runtime.csp import PipelineMixin, _merge_coords, _Process, _Queue
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.kernels import (
    BODY_ERRORS,
    KernelSpec,
    cached_spec,
    numpy_view,
    returned,
)

__all__ = ["SimConfig", "Simulator", "STALL_CAUSES"]

#: Stall causes reported by ``stats()["stalls"]`` (cycles summed over what waited).
STALL_CAUSES = (
    "dependencies",
    "stream_order",
    "pipeline_depth",
    "issue",
    "window",
    "channel_full",
    "channel_empty",
    "event",
)

_COMPLETE = 0
_ISSUE = 1

_POOL_OF_NAME = {"vector": POOL_VECTOR, "cube": POOL_CUBE, "any": POOL_ANY}
_SERVES = {
    POOL_ANY: (POOL_VECTOR, POOL_CUBE, POOL_ANY),
    POOL_VECTOR: (POOL_VECTOR, POOL_ANY),
    POOL_CUBE: (POOL_CUBE, POOL_ANY),
}


@dataclass
class SimConfig:
    """The runtime configuration: the program's ``config`` (docs/tg.md) plus compile options."""

    workers: int = 4
    #: Pool of each worker ("any", "vector" or "cube"); default: every worker serves any pool.
    worker_pools: tuple[str, ...] = ()
    dispatch: str = ""
    streams: int = 0
    stream_keyed: bool = False
    ready: str = "fifo"
    timing: str = "immediate"
    timing_n: int = 0
    task_window: int = 0
    window_overflow: str = "stall"
    pipeline_depth: int = 0
    depth_scope: str = "global"
    batch_deps: int = 0
    functional: bool = True
    #: Cycles the generator spends per task it creates (0: generation is instantaneous).
    gen_cost: int = 0
    #: Virtual cycles per millisecond (rate_limit(n) is n tasks per ms): 1 GHz.
    cycles_per_ms: float = 1e6
    #: Infer data edges with the TensorMap (False: structural order only; for tests).
    infer_data_deps: bool = True
    #: Functional mode: run the bodies on this many threads after the simulation (0: inline).
    threads: int = 0
    #: Run main programs on the native core (runtime/run.py); the result is the same as this
    #: engine's. False: this engine.
    fast: bool = True

    def pools(self) -> list[int]:
        names = list(self.worker_pools) or ["any"] * self.workers
        return [_POOL_OF_NAME[p] for p in names]


class Simulator(PipelineMixin):
    """Builds and runs one execution of a task-generation program (see the module doc)."""

    def __init__(
        self,
        config: SimConfig,
        kernels: Mapping[str, KernelSpec],
        arrays: Mapping[str, np.ndarray] | None = None,
        shapes: Mapping[str, Sequence[int]] | None = None,
        keys: Any = None,
    ) -> None:
        self.cfg = config
        self.graph = GraphBuilder(shapes, infer_data_deps=config.infer_data_deps)
        self.kernels = kernels
        self.arrays = dict(arrays or {})
        self.keys = keys  # placement keys for tasks received in messages
        self._specs: list[KernelSpec | None] = []
        n_workers = max(1, config.workers)
        self.n_workers = n_workers
        self.worker_pool = config.pools()[:n_workers]
        while len(self.worker_pool) < n_workers:
            self.worker_pool.append(POOL_ANY)
        # Workers that can run a task of each pool, ascending (targets index these lists).
        self.pool_workers = {
            p: [w for w in range(n_workers) if p in _SERVES[self.worker_pool[w]]]
            for p in (POOL_VECTOR, POOL_CUBE, POOL_ANY)
        }
        for p, ws in self.pool_workers.items():
            if not ws:
                self.pool_workers[p] = list(range(n_workers))
        self.priority_ready = config.ready == "priority"
        self.work_steal = config.dispatch == "work_steal"
        # Per node (tasks and barriers), indexed by node id.
        self.blockers: list[int] = []
        self.deps_left: list[int] = []
        self.fanout: list[list[int] | None] = []
        self.done: list[bool] = []
        self.cost: list[int] = []
        self.worker: list[int] = []
        self.start: list[float] = []
        self.end: list[float] = []
        self.issue_seq: list[int] = []
        self.created_t: list[float] = []
        self.issued_t: list[float] = []
        self.deps_t: list[float] = []
        self.stream_of: list[int] = []
        self.lane: list[int] = []
        self.owner: list[_Process | None] = []
        # Workers.
        self.local: list[list] = [[] for _ in range(n_workers)]
        self.shared: dict[int, list] = {POOL_VECTOR: [], POOL_CUBE: [], POOL_ANY: []}
        # Ready tasks in the local and shared heaps (no idle worker has anything to try at 0).
        self.queued = 0
        self.idle: list[int] = list(range(n_workers))
        self.is_idle = [True] * n_workers
        self.busy = [0.0] * n_workers
        self.tasks_run = [0] * n_workers
        self.steals = 0
        self._rr = 0
        self._last_completer = -1
        # Streams and gates.
        self.stream_q: dict[int, deque] = {}
        self.inflight: dict[int, int] = {}
        self.gated: dict[int, list[int]] = {}
        self.gated_since: dict[int, float] = {}
        # Issue buffers.
        self.bd_buf: list[int] = []
        self.timing_buf: list[int] = []
        self.next_issue_t = 0.0
        self.issued = 0
        # Time and events.
        self.now = 0.0
        self.gen_t = 0.0
        self.events: list = []
        self._eseq = 0
        self.live = 0
        self.created = 0
        self.completed = 0
        self._oldest = 0
        self._since_gc = 0
        self.stalls = dict.fromkeys(STALL_CAUSES, 0.0)
        self.stall_spans: list[tuple[str, str, float, float]] = []
        # Pipelines.
        self.capture: list | None = None
        self.current: _Process | None = None
        self.runnable: deque = deque()
        self.processes: list[_Process] = []
        self.queues: dict[str, _Queue] = {}
        self._window_waiters: list[_Process] = []
        #: Called as progress(created, completed) every 8192 tasks (pto-run's display).
        self.progress: Callable[[int, int], None] | None = None

    # ================================================================== builder interface

    @property
    def num_tasks(self) -> int:
        """Tasks created so far (``tg.seq``), counting those of a message being built."""
        return self.graph.num_tasks + (len(self.capture) if self.capture is not None else 0)

    def reserve(self, n: int) -> None:
        """(``GraphBuilder.reserve``: the engine runs a program of any size, with progress.)"""

    def enter_ordered(self) -> None:
        self.graph.enter_ordered()

    def order_point(self) -> None:
        self.graph.order_point()
        if self.bd_buf:  # batch_deps flushes on barriers
            self._flush_batch()
            self._dispatch_idle()

    def exit_ordered(self) -> None:
        self.graph.exit_ordered()

    # Streams and events (docs/semantics.md): edges of the graph, nothing of the scheduler.
    def use_events(self) -> None:
        self.graph.use_events()

    def event_record(self, event: str, stream: int | None = None) -> None:
        graph = self.graph
        n0, e0 = len(graph._kind), len(graph._src)
        graph.event_record(event, stream)
        self._register(n0, e0)  # the barrier node it may have made

    def event_wait(self, event: str, stream: int | None = None) -> None:
        self.graph.event_wait(event, stream)

    def event_query(self, event: str) -> bool:
        return self.graph.event_query(event)

    def add_task(
        self,
        kernel: str,
        args: Sequence = (),
        regions: Sequence = (),
        coords: Sequence = (),
        pool: Any = POOL_ANY,
        target: int = -1,
        stream: int = 0,
        priority: int = 0,
        domain: Any = 0,
        deps: Sequence[int] = (),
    ) -> int:
        """Create a task (see the module doc); inside a send, add it to the message instead."""
        if self.capture is not None:
            self.capture.append((kernel, args, regions, coords, pool, target, stream, priority))
            return -1
        proc = self.current
        if proc is None:
            self._generator_wait()
        elif proc.message_coords:
            coords = _merge_coords(proc.message_coords, coords)
        graph = self.graph
        n0 = len(graph._kind)
        e0 = len(graph._src)
        tid = graph.add_task(
            kernel, args, regions, coords, pool, target, stream, priority, domain, deps
        )
        self._register(n0, e0)
        return tid

    # ================================================================== creation

    def _generator_wait(self) -> None:
        """Before the main program creates a task: catch up with time; stall on a full window."""
        if self.events and self.events[0][0] <= self.gen_t:
            self._advance(self.gen_t)
        self.now = self.gen_t
        window = self.cfg.task_window
        if window and self.live >= window:
            if self.cfg.window_overflow == "abort":
                raise ResourceError(
                    f"task window full: {self.live} tasks in flight (task_window({window}, "
                    f"overflow=abort)) when creating task #{self.created}; use overflow=stall "
                    "or a larger window"
                )
            self._flush_all()
            t0 = self.gen_t
            while self.live >= window:
                if not self.events:
                    raise RuntimeError("internal: task window full with nothing running")
                self._step()
            self.gen_t = self.now
            if self.gen_t > t0:
                self.stalls["window"] += self.gen_t - t0
                self.stall_spans.append(("window", "generator", t0, self.gen_t))

    def window_full(self) -> bool:
        """Whether a process must wait before creating a task (pipelines)."""
        window = self.cfg.task_window
        if not window or self.live < window:
            return False
        if self.cfg.window_overflow == "abort":
            raise ResourceError(
                f"task window full: {self.live} tasks in flight (task_window({window}, "
                f"overflow=abort)) when creating task #{self.created}; use overflow=stall "
                "or a larger window"
            )
        return True

    def _spec(self, kid: int) -> KernelSpec:
        return cached_spec(self._specs, self.kernels, self.graph.kernels, kid)

    def _register(self, n0: int, e0: int) -> None:
        """Take the nodes and edges the GraphBuilder just created into the runtime state."""
        graph = self.graph
        n1 = len(graph._kind)
        now = self.now
        owner = self.current
        for _ in range(n0, n1):
            self.blockers.append(0)
            self.deps_left.append(0)
            self.fanout.append([])
            self.done.append(False)
            self.cost.append(0)
            self.worker.append(-1)
            self.start.append(-1.0)
            self.end.append(-1.0)
            self.issue_seq.append(-1)
            self.created_t.append(now)
            self.issued_t.append(-1.0)
            self.deps_t.append(now)
            self.stream_of.append(0)
            self.lane.append(0)
            self.owner.append(owner)
        done = self.done
        fanout = self.fanout
        deps_left = self.deps_left
        src = graph._src
        dst = graph._dst
        for e in range(e0, len(src)):
            s = src[e]
            if not done[s]:
                d = dst[e]
                deps_left[d] += 1
                fanout[s].append(d)
        kinds = graph._kind
        barriers = []
        for nid in range(n0, n1):
            if kinds[nid] == KIND_BARRIER:
                self.blockers[nid] = deps_left[nid]
                if deps_left[nid] == 0:
                    barriers.append(nid)
                continue
            spec = self._spec(graph._kernel[nid])
            self.cost[nid] = spec.task_cycles(
                nid, graph._coords[nid], graph._args[nid], graph._regions[nid]
            )
            self.blockers[nid] = deps_left[nid] + 1  # + not issued yet
            self.live += 1
            self.created += 1
            if owner is not None:
                owner.outstanding += 1
        for b in barriers:
            self._complete_node(b)
        for nid in range(n0, n1):
            if kinds[nid] != KIND_BARRIER:
                self._release(nid)
        self._dispatch_idle()
        if any(kinds[nid] != KIND_BARRIER for nid in range(n0, n1)):
            self.gen_t += self.cfg.gen_cost  # the generator's time per task: a barrier is free
        if self.progress is not None and self.created % 8192 < n1 - n0:
            self.progress(self.created, self.completed)
        window = self.cfg.task_window
        if window:
            self._since_gc += n1 - n0
            if self._since_gc >= max(window, 1024):
                self._gc()

    def _gc(self) -> None:
        """Drop TensorMap entries of tasks older than the oldest one still live."""
        self._since_gc = 0
        done = self.done
        i = self._oldest
        n = len(done)
        while i < n and done[i]:
            i += 1
        self._oldest = i
        self.graph.tensormap.gc_before(i)

    # ================================================================== issue (timing)

    def _release(self, tid: int) -> None:
        if self.cfg.batch_deps:
            self.bd_buf.append(tid)
            if len(self.bd_buf) >= self.cfg.batch_deps:
                self._flush_batch()
            return
        self._time_release(tid)

    def _flush_batch(self) -> None:
        buf, self.bd_buf = self.bd_buf, []
        for tid in buf:
            self._time_release(tid)

    def _time_release(self, tid: int) -> None:
        timing = self.cfg.timing
        if timing == "immediate" or not self.cfg.timing_n:
            self._issue(tid)
        elif timing == "rate_limit":
            interval = self.cfg.cycles_per_ms / self.cfg.timing_n
            t = max(self.now, self.next_issue_t)
            self.next_issue_t = t + interval
            if t <= self.now:
                self._issue(tid)
            else:
                self._push_event(t, _ISSUE, -1, tid)
        else:
            self.timing_buf.append(tid)
            if len(self.timing_buf) >= self.cfg.timing_n:
                self._flush_timing()

    def _flush_timing(self) -> None:
        buf, self.timing_buf = self.timing_buf, []
        if self.cfg.timing == "interleaved" and len(buf) > 1:
            # Round-robin across streams; each stream keeps creation order.
            by_stream: dict[int, deque] = {}
            for tid in buf:
                by_stream.setdefault(self._stream_key(tid), deque()).append(tid)
            order = []
            queues = [by_stream[s] for s in sorted(by_stream)]
            while queues:
                for q in queues:
                    order.append(q.popleft())
                queues = [q for q in queues if q]
            buf = order
        for tid in buf:
            self._issue(tid)

    def _flush_all(self) -> None:
        if self.bd_buf:
            self._flush_batch()
        if self.timing_buf:
            self._flush_timing()
        self._dispatch_idle()

    def _stream_key(self, tid: int) -> int:
        streams = self.cfg.streams or 1
        if self.cfg.stream_keyed:
            return self.graph._stream[tid] % streams
        return self.issued % streams

    def _placed_worker(self, tid: int) -> int:
        """The worker a task's target names (-1 when the runtime places it)."""
        target = self.graph._target[tid]
        if target < 0:
            return -1
        pool = self.graph._pool[tid]
        candidates = self.pool_workers.get(pool, self.pool_workers[POOL_ANY])
        return candidates[target % len(candidates)]

    def _issue(self, tid: int) -> None:
        self.issue_seq[tid] = self.issued
        self.issued_t[tid] = self.now
        if self.now > self.created_t[tid]:
            self.stalls["issue"] += self.now - self.created_t[tid]
        if self.cfg.streams:
            s = self._stream_key(tid)
            self.stream_of[tid] = s
            # Streams are per worker (seed 001: issue orders tasks within each dispatcher);
            # tasks the runtime places share the stream's global lane.
            lane = s + self.cfg.streams * (self._placed_worker(tid) + 1)
            self.lane[tid] = lane
            q = self.stream_q.get(lane)
            if q is None:
                q = self.stream_q[lane] = deque()
            if q:
                self.blockers[tid] += 1
            q.append(tid)
        else:
            self.stream_of[tid] = self.graph._stream[tid]
        self.issued += 1
        self._dec(tid)

    # ================================================================== readiness

    def _dec(self, tid: int) -> None:
        b = self.blockers[tid] - 1
        self.blockers[tid] = b
        if b == 0:
            self._ready(tid)

    def _key(self, tid: int) -> tuple:
        prio = self.graph._priority[tid] if self.priority_ready else 0
        return (prio, self.issue_seq[tid], tid)

    def _ready(self, tid: int) -> None:
        now = self.now
        deps_t = self.deps_t[tid]
        issued_t = self.issued_t[tid]
        if deps_t > issued_t:
            self.stalls["dependencies"] += deps_t - issued_t
        base = deps_t if deps_t > issued_t else issued_t
        if now > base:
            self.stalls["stream_order"] += now - base
        self._enqueue(tid)

    def _enqueue(self, tid: int) -> None:
        """Put a ready task in the queue its placement says (``_dispatch_idle`` starts it)."""
        graph = self.graph
        target = graph._target[tid]
        pool = graph._pool[tid]
        if pool not in self.pool_workers:
            pool = POOL_ANY
        key = self._key(tid)
        self.queued += 1
        if target >= 0:
            candidates = self.pool_workers[pool]
            heapq.heappush(self.local[candidates[target % len(candidates)]], key)
        elif self.work_steal:
            w = self._last_completer
            candidates = self.pool_workers[pool]
            if w < 0 or w not in candidates:
                w = candidates[self._rr % len(candidates)]
                self._rr += 1
            heapq.heappush(self.local[w], key)
        else:
            heapq.heappush(self.shared[pool], key)

    def _dispatch_idle(self) -> None:
        """Let every idle worker, lowest id first, start what it may: after each batch of
        changes (an issue, a flush, an event), never in the middle of one, so every task
        that became ready at the same instant competes by the issue policy."""
        progress = True
        local, shared, steal = self.local, self.shared, self.work_steal
        while progress and self.idle and self.queued:
            progress = False
            # Whether a shared heap holds a task (else a worker whose own heap is empty and
            # which may not steal has nothing to pick: _dispatch would return False).
            # (a bool, not the first non-empty heap: a heap emptied by a worker's gating
            # later in this pass must not hide the others' tasks)
            any_shared = any(shared.values())
            for w in list(self.idle):
                if not (local[w] or any_shared or steal):
                    continue
                if self.is_idle[w] and self._dispatch(w):
                    progress = True
                    any_shared = any(shared.values())

    # ================================================================== dispatch

    def _scope(self, tid: int) -> int:
        scope = self.cfg.depth_scope
        if scope == "per_stream":
            return self.lane[tid] if self.cfg.streams else self.stream_of[tid]
        if scope == "per_pool":
            return self.graph._pool[tid]
        return 0

    def _pick(self, w: int) -> tuple | None:
        """Pop the best ready task worker ``w`` may take (local, shared pools, then steal)."""
        best_heap = None
        best = None
        local = self.local[w]
        if local:
            best_heap, best = local, local[0]
        for p in _SERVES[self.worker_pool[w]]:
            h = self.shared[p]
            if h and (best is None or h[0] < best):
                best_heap, best = h, h[0]
        if best_heap is not None:
            self.queued -= 1
            return heapq.heappop(best_heap)
        if self.work_steal:
            serves = _SERVES[self.worker_pool[w]]
            victim, size = -1, 0
            for v in range(self.n_workers):
                h = self.local[v]
                if v != w and len(h) > size and self.graph._pool[h[0][2]] in serves:
                    victim, size = v, len(h)
            if victim >= 0:
                self.steals += 1
                self.queued -= 1
                return heapq.heappop(self.local[victim])
        return None

    def _dispatch(self, w: int) -> bool:
        """Start the best task worker ``w`` (idle) may run now; False if there is none."""
        depth = self.cfg.pipeline_depth
        while True:
            item = self._pick(w)
            if item is None:
                return False
            tid = item[2]
            if depth:
                scope = self._scope(tid)
                if self.inflight.get(scope, 0) >= depth:
                    self.gated.setdefault(scope, []).append(tid)
                    self.gated_since[tid] = self.now
                    continue
                self.inflight[scope] = self.inflight.get(scope, 0) + 1
            self._start(w, tid)
            return True

    def _start(self, w: int, tid: int) -> None:
        now = self.now
        self.is_idle[w] = False
        self.idle.remove(w)
        self.worker[tid] = w
        self.start[tid] = now
        if self.cfg.streams:
            q = self.stream_q[self.lane[tid]]
            q.popleft()
            if q:
                self._dec(q[0])
        if self.cfg.functional:
            self._run_body(tid)
        cost = self.cost[tid]
        self.busy[w] += cost
        self.tasks_run[w] += 1
        self._push_event(now + cost, _COMPLETE, w, tid)

    def _run_body(self, tid: int) -> None:
        graph = self.graph
        spec = self._spec(graph._kernel[tid])
        body = spec.runnable
        if body is None:
            return
        regions = graph._regions[tid]
        try:
            views = []
            for r in regions:
                array = self.arrays.get(r.tensor)
                if array is None:
                    raise ExecutionError(
                        tid,
                        spec.name,
                        graph._coords[tid],
                        f"tensor '{r.tensor}' is not bound (the functional mode runs "
                        f"@{spec.name}'s body on it: bind({r.tensor}=array))",
                    )
                views.append(numpy_view(array, r))
            result = body(*spec.arguments(graph._args[tid], views))
        except ExecutionError:
            raise
        except BODY_ERRORS as error:
            raise ExecutionError(tid, spec.name, graph._coords[tid], error) from error
        if result is not None:
            error = returned(tid, spec, graph._coords[tid], result, views)
            if error is not None:
                raise error

    # ================================================================== completion

    def _push_event(self, t: float, kind: int, a: int, b: int) -> None:
        self._eseq += 1
        heapq.heappush(self.events, (t, self._eseq, kind, a, b))

    def _step(self) -> None:
        """Handle the next event."""
        events = self.events
        t = events[0][0]
        self.now = t
        # Every event of this instant first, then the workers choose.
        while events and events[0][0] == t:
            _, _, kind, a, b = heapq.heappop(events)
            if kind == _COMPLETE:
                self._complete_task(a, b)
            else:
                self._issue(b)
        self._dispatch_idle()

    def _advance(self, t: float) -> None:
        events = self.events
        while events and events[0][0] <= t:
            self._step()
        if t > self.now:
            self.now = t

    def _complete_task(self, w: int, tid: int) -> None:
        now = self.now
        self.end[tid] = now
        self.is_idle[w] = True
        insort(self.idle, w)
        self.live -= 1
        self.completed += 1
        if self.cfg.pipeline_depth:
            scope = self._scope(tid)
            self.inflight[scope] -= 1
            gated = self.gated.pop(scope, None)
            if gated:
                for g in gated:
                    since = self.gated_since.pop(g)
                    self.stalls["pipeline_depth"] += now - since
                    self.stall_spans.append(("pipeline_depth", f"task {g}", since, now))
                for g in gated:
                    self._enqueue(g)
        self._last_completer = w
        self._complete_node(tid)
        self._last_completer = -1
        owner = self.owner[tid]
        if owner is not None:
            owner.outstanding -= 1
            if owner.outstanding == 0 and owner.waiting[0] == "wait":
                self._resume(owner, None)
        if self._window_waiters and self.live < self.cfg.task_window:
            waiters, self._window_waiters = self._window_waiters, []
            for proc in waiters:
                self._resume(proc, None)

    def _complete_node(self, nid: int) -> None:
        """Mark a node done and release its successors (barriers complete at once)."""
        work = [nid]
        now = self.now
        done = self.done
        kinds = self.graph._kind
        while work:
            n = work.pop()
            done[n] = True
            if self.end[n] < 0:
                self.end[n] = now
            succs = self.fanout[n]
            self.fanout[n] = None
            for s in succs:
                left = self.deps_left[s] - 1
                self.deps_left[s] = left
                if left == 0:
                    self.deps_t[s] = now
                if kinds[s] == KIND_BARRIER:
                    self.blockers[s] -= 1
                    if self.blockers[s] == 0:
                        work.append(s)
                else:
                    self._dec(s)

    # ================================================================== running

    def run_main(self, function: Callable[..., None], args: Sequence[Any]) -> None:
        """Run a (non-pipeline) task-generation program to the end of its last task."""
        function(self, *args)
        self._flush_all()
        self.now = max(self.now, self.gen_t)
        self._drain()

    def _drain(self) -> None:
        while self.events:
            self._step()
        if self.completed != self.created:
            raise RuntimeError(
                f"internal: {self.created - self.completed} task(s) never ran "
                "(a dependency cycle or a lost release)"
            )
