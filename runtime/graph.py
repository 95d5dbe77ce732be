"""Graph construction: the materializer's engine, and the static task graph it produces.

``GraphBuilder`` receives the tasks a task-generation program creates, in creation order, and
the program's ordering points (docs/tg.md "Structural order as ordering points"); it adds the
structural edges those imply and the data edges a ``TensorMap`` infers from the tasks' regions.
``build()`` returns a ``TaskGraph``: seed 004 §6.2's TaskGraphStorage, with per-node fields in
numpy arrays and fanout edges in CSR form (``fanout_begin``, ``fanout_edges``).

Node ids are creation order, shared by tasks and barrier nodes; every edge goes from a smaller
id to a larger one, so id order is a topological order.

Structural order (the barrier rule). An ordered scope (``enter_ordered``/``exit_ordered``,
``tg.ordered``) keeps a *frontier*: the nodes every task created in it from now on must follow,
and a *group*: the tasks created since its last ordering point, at any depth (a nested scope
contributes only its sinks, below). At ``order_point()`` a non-empty group becomes the frontier;
an empty group leaves the frontier as it was, so order flows across empty iterations. A new task
depends on the innermost scope's frontier: directly on its node when it has one, and through a
barrier node when it has several, created once on the first such task (fanin N, then one edge
per later task: N + M edges for sequential(N tasks, M tasks)). A barrier is never created for
an ordering point that no task follows. A scope starts with its parent's frontier (tasks in a
nested scope also follow the parent's earlier groups). When a scope exits, it adds to its
parent's group its last group if non-empty, else its own frontier — every other task of the
scope precedes one of those nodes, so they stand for all of it. So ``for_each`` over 8
one-task iterations has exactly 7 edges, and a ``for_each`` nested in a ``sequential`` hands
on only its last iteration.

Data order. For each region of a new task, read-after-write, write-after-write and
write-after-read edges from the TensorMap (``runtime/tensormap.py``). Edges are kept once per
(source, destination) pair — the first reason found, structural before data — and never from
a task to itself.

Tensors declared read-only (``read_only``: no task writes them, simgen finds them) take no
part: their regions give no edge and are not recorded; writing one raises.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.lowering.taskgraph import (
    DOMAINS,
    EDGE_RAW,
    EDGE_STRUCTURAL,
    EDGE_WAR,
    EDGE_WAW,
    KIND_BARRIER,
    KIND_TASK,
    POOL_ANY,
    POOLS,
    TaskGraph,
)
from pto_wsp.runtime.memory import retain_freed_memory
from pto_wsp.runtime.tensormap import TensorMap

__all__ = ["GraphBuilder", "gc_paused"]


class gc_paused:  # noqa: N801 (used as a function: `with gc_paused():`)
    """Pause Python's cyclic garbage collector for a bulk build (reference counting still frees).

    A build allocates a few objects per task and keeps them all, none in a reference cycle, so
    the collector's periodic passes over the growing heap find nothing and cost about half the
    build time at 10^5 tasks. Materializers wrap ``add_task`` loops and ``build()`` in this.
    On exit, what the block kept goes to the collector's oldest generation without a pass
    (``_promote_young_objects``). (A class: a generator's context manager costs ~1.5 us
    more, on every execute of a Program.)
    """

    __slots__ = ("_enabled",)

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            _promote_young_objects()
            gc.enable()


def _promote_young_objects() -> None:
    """Move every object the collector tracks into its oldest generation, without a pass.

    What a paused build or run kept (its graph: a few tuples, regions and lists per task) is
    long-lived, but all of it sits in the youngest generation: the first collection after
    ``gc.enable()`` would visit every object — 55 ms after an 8,000-task pipeline run of
    ~200 ms. ``gc.freeze()`` then ``gc.unfreeze()`` moves them all to the oldest generation
    (two list splices), where only full collections visit them, as they would any object that
    survived two collections; garbage among them (and a user's young objects) is collected
    there. Not done while the process keeps objects frozen itself (``gc.freeze()``):
    unfreezing would undo that."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


class _Scope:
    """One ordered scope: its frontier (a list shared with the nested scopes that inherited
    it, so a barrier made for one is seen by all) and its current group, as node ids."""

    __slots__ = ("frontier", "group", "own")

    def __init__(self, frontier: list[int]) -> None:
        self.frontier = frontier
        self.group: list[int] = []
        # Whether the frontier comes from one of this scope's own ordering points.
        self.own = False


class _StreamEvents:
    """Events of an ordinary workload (docs/semantics.md "Streams and events"): per stream
    (None: every stream) the tasks created since its last record and that record's node; per
    event the node(s) it stands for; the nodes every later task (or every later task of a
    stream) waits for."""

    __slots__ = ("since", "mark", "events", "wait_all", "wait_on")

    def __init__(self) -> None:
        self.since: dict[int | None, list[int]] = {None: []}
        self.mark: dict[int | None, list[int]] = {}
        self.events: dict[str, list[int]] = {}
        self.wait_all: list[int] = []
        self.wait_on: dict[int, list[int]] = {}


def _join(into: list[int], nodes: list[int]) -> None:
    into.extend(n for n in nodes if n not in into)


class GraphBuilder:
    """Builds a ``TaskGraph`` from tasks in creation order and ordering points.

    ``shapes`` (tensor id -> shape) refines the TensorMap's overlap index (see
    ``TensorMap``); ``infer_data_deps=False`` keeps only structural and explicit edges.
    """

    def __init__(
        self,
        shapes: Mapping[str | int, Iterable[int]] | None = None,
        *,
        infer_data_deps: bool = True,
    ) -> None:
        retain_freed_memory()
        self.tensormap = TensorMap(shapes)
        self.infer_data_deps = infer_data_deps
        self._kernel_ids: dict[str, int] = {}
        self.kernels: list[str] = []
        # Per-node fields, appended per node: plain lists are the cheapest growable arrays.
        self._kind: list[int] = []
        self._kernel: list[int] = []
        self._pool: list[int] = []
        self._domain: list[int] = []
        self._target: list[int] = []
        self._stream: list[int] = []
        self._priority: list[int] = []
        self._args: list[tuple] = []
        self._regions: list[tuple[TensorRegion, ...]] = []
        self._coords: list[tuple[tuple[str, int], ...]] = []
        # Edges as parallel lists, grouped by destination in increasing order.
        self._src: list[int] = []
        self._dst: list[int] = []
        self._ekind: list[int] = []
        self._root = _Scope([])
        self._scopes: list[_Scope] = [self._root]
        self._main = (self._root, self._scopes)
        self._num_tasks = 0
        # Tensors no task writes (``read_only``): their accesses take no part in inference.
        self._read_only: frozenset = frozenset()
        self._sync: _StreamEvents | None = None  # streams and events (event_record ...)

    # ------------------------------------------------------------------ nodes

    @property
    def num_nodes(self) -> int:
        """Nodes created so far (tasks and barriers)."""
        return len(self._kind)

    @property
    def num_tasks(self) -> int:
        """Tasks created so far (``tg.seq``): barriers do not count."""
        return self._num_tasks

    def read_only(self, tensors: Iterable[str | int]) -> frozenset:
        """Declare tensors that no task will write (the code generator finds them: simgen);
        return the builder's read-only set.

        A tensor no task writes gives no edge (no writer: no read-after-write; no later write:
        no write-after-read), so its accesses are left out of dependency inference: no task
        records them in the TensorMap. The graph is the same. A tensor that already has a
        writer here (an earlier task wrote it: its readers need their edges) is not added.
        A task writing a tensor of the set raises ``ValueError`` before it is
        created (it could have needed edges from the reads left out). Declarations add up
        over calls.
        """
        tensors = tuple(tensors)
        ro = set(self._read_only)
        for t in tensors:
            if t not in ro and not self._written(t):
                ro.add(t)
        self._read_only = frozenset(ro)
        return self._read_only

    def _written(self, tensor: str | int) -> bool:
        """Whether a task recorded so far writes ``tensor`` (a live writer in the TensorMap)."""
        st = self.tensormap._tensors.get(tensor)
        return st is not None and any(e.writer >= 0 for e in st.exact.values())

    def reserve(self, n: int) -> None:
        """A loop is about to create at least ``n`` tasks (the generated code says so before
        it runs): a builder with a limit (tg-materialize's) refuses them now."""

    def kernel_id(self, kernel: str) -> int:
        """The kernel table index of ``kernel``, added on first use."""
        return self._kid(kernel)

    def _kid(self, kernel: str) -> int:
        kid = self._kernel_ids.get(kernel)
        if kid is None:
            kid = self._kernel_ids[kernel] = len(self.kernels)
            self.kernels.append(kernel)
        return kid

    def _barrier(self, preds: list[int]) -> int:
        bid = len(self._kind)
        self._kind.append(KIND_BARRIER)
        self._kernel.append(-1)
        self._pool.append(POOL_ANY)
        self._domain.append(0)
        self._target.append(-1)
        self._stream.append(0)
        self._priority.append(0)
        self._args.append(())
        self._regions.append(())
        self._coords.append(())
        self._src.extend(preds)
        self._dst.extend([bid] * len(preds))
        self._ekind.extend([EDGE_STRUCTURAL] * len(preds))
        return bid

    @staticmethod
    def _check_dep(p: int, tid: int) -> int:
        if not 0 <= p < tid:
            raise ValueError(f"task {tid}: explicit dependency {p} is not an earlier node")
        return p

    def add_task(
        self,
        kernel: str,
        args: Sequence = (),
        regions: Sequence[TensorRegion] = (),
        coords: Sequence[tuple[str, int]] | Mapping[str, int] = (),
        pool: int | str = POOL_ANY,
        target: int = -1,
        stream: int = 0,
        priority: int = 0,
        domain: int | str = 0,
        deps: Iterable[int] = (),
    ) -> int:
        """Create a task and its incoming edges; return its node id.

        ``kernel`` is the kernel's name (ids are given in order of first use), ``args`` its
        scalar arguments, ``regions`` the regions it reads and writes (each with its access),
        ``coords`` its coordinates as (name, value) pairs or a mapping, ``pool`` vector / cube /
        any (a name or seed 004's number), ``target`` the worker or core (-1: the runtime
        decides), ``stream``, ``priority``, ``domain`` (host_cpu / aicore / aie_tile) and
        ``deps`` explicit predecessors (node ids) added to the inferred ones.
        """
        if not (
            -_WIDE <= target < _WIDE and -_WIDE <= stream < _WIDE and -_WIDE <= priority < _WIDE
        ):
            for what, value in zip(_WIDE_FIELDS, (target, stream, priority)):
                if not -_WIDE <= value < _WIDE:
                    who = f"task {self.num_nodes} (kernel {kernel!r} at {dict(coords)})"
                    raise ValueError(_too_wide(who, what, value))
        ro = self._read_only
        if ro and regions:
            for r in regions:
                if r.writes and r.tensor in ro:
                    where = f"task {self.num_nodes} (kernel {kernel!r})"
                    raise ValueError(
                        f"{where}: {r.access} access to tensor {r.tensor!r}, which was "
                        "declared read-only (GraphBuilder.read_only: no task writes it, so its "
                        "reads take no part in dependency inference)"
                    )
        sync = self._sync
        if sync is not None:
            deps = (*deps, *self._waits(sync, stream))
        scope = self._scopes[-1]
        frontier = scope.frontier
        if len(frontier) > 1:
            # First task after an ordering point with several tasks before it: one barrier,
            # shared by every later task of the scope (and of nested scopes holding the list).
            frontier[:] = [self._barrier(list(frontier))]
        tid = len(self._kind)
        kid = self._kernel_ids.get(kernel)
        if kid is None:
            kid = self._kid(kernel)
        if pool.__class__ is str:
            pool = POOLS[pool]
        if domain.__class__ is str:
            domain = DOMAINS[domain]
        if coords.__class__ is dict:
            coords = tuple(coords.items())
        self._kind.append(KIND_TASK)
        self._kernel.append(kid)
        self._pool.append(pool)
        self._domain.append(domain)
        self._target.append(target)
        self._stream.append(stream)
        self._priority.append(priority)
        self._args.append(tuple(args))
        self._regions.append(tuple(regions))
        self._coords.append(coords)
        self._num_tasks += 1
        if scope is not self._root:
            scope.group.append(tid)
        if sync is not None:
            sync.since[None].append(tid)
            sync.since.setdefault(stream, []).append(tid)

        src = self._src
        dst = self._dst
        ekind = self._ekind
        if self.infer_data_deps and regions:
            raw: list[int] = []
            waw: list[int] = []
            war: list[int] = []
            access = self.tensormap.access
            if ro:
                for r in regions:
                    if r.tensor not in ro:
                        access(r, tid, raw, waw, war)
            else:
                for r in regions:
                    access(r, tid, raw, waw, war)
            if frontier or raw or waw or war or deps:
                # Keep the first reason per predecessor; drop self-edges.
                seen = {tid: None}
                for p in frontier:
                    seen[p] = EDGE_STRUCTURAL
                for p in deps:
                    seen.setdefault(self._check_dep(p, tid), EDGE_STRUCTURAL)
                for p in raw:
                    seen.setdefault(p, EDGE_RAW)
                for p in waw:
                    seen.setdefault(p, EDGE_WAW)
                for p in war:
                    seen.setdefault(p, EDGE_WAR)
                del seen[tid]
                src.extend(seen)
                dst.extend([tid] * len(seen))
                ekind.extend(seen.values())
        elif deps:
            seen = {tid: None}
            for p in frontier:
                seen[p] = EDGE_STRUCTURAL
            for p in deps:
                seen.setdefault(self._check_dep(p, tid), EDGE_STRUCTURAL)
            del seen[tid]
            src.extend(seen)
            dst.extend([tid] * len(seen))
            ekind.extend(seen.values())
        elif frontier:
            src.append(frontier[0])
            dst.append(tid)
            ekind.append(EDGE_STRUCTURAL)
        return tid

    # ------------------------------------------------------------------ structural order

    def enter_ordered(self) -> None:
        """Open an ordered scope (``tg.ordered``) nested in the current one."""
        self._scopes.append(_Scope(self._scopes[-1].frontier))

    def order_point(self) -> None:
        """An ordering point (``tg.order_point``) of the innermost ordered scope: every task
        created after it in the scope runs after every task created before it in the scope."""
        scope = self._scopes[-1]
        if scope is self._root:
            raise RuntimeError("order_point() outside an ordered scope")
        if scope.group:
            scope.frontier = scope.group
            scope.group = []
            scope.own = True

    def exit_ordered(self) -> None:
        """Close the innermost ordered scope; its sinks join the enclosing scope's group."""
        if len(self._scopes) == 1:
            raise RuntimeError("exit_ordered() without enter_ordered()")
        scope = self._scopes.pop()
        parent = self._scopes[-1]
        if parent is self._root:
            return
        if scope.group:
            parent.group.extend(scope.group)
        elif scope.own:
            parent.group.extend(scope.frontier)

    def new_context(self) -> tuple[_Scope, list[_Scope]]:
        """A fresh stack of ordered scopes, for one more generator of tasks (a pipeline
        process): structural order holds among the tasks each generator creates."""
        root = _Scope([])
        return (root, [root])

    def use_context(self, context: tuple[_Scope, list[_Scope]] | None) -> None:
        """Create the next tasks in ``context`` (from ``new_context``); None: the builder's own."""
        if context is None:
            context = self._main
        self._root, self._scopes = context

    @contextlib.contextmanager
    def ordered(self) -> Iterator[None]:
        """``with builder.ordered(): ...`` is enter_ordered() ... exit_ordered()."""
        self.enter_ordered()
        try:
            yield
        finally:
            self.exit_ordered()

    # ------------------------------------------------------------------ streams and events

    def event_record(self, event: str, stream: int | None = None) -> None:
        """``tg.event_record``: ``event`` stands for every task created so far on ``stream``
        (None: every task created so far); its last record on a stream is its meaning."""
        sync = self._events_state()
        nodes = sync.since.get(stream, []) + sync.mark.get(stream, [])
        if len(nodes) > 1:  # one barrier node stands for them (N + M edges, not N x M)
            nodes = [self._barrier(nodes)]
        sync.mark[stream], sync.since[stream] = nodes, []
        sync.events[event] = nodes

    def event_wait(self, event: str, stream: int | None = None) -> None:
        """``tg.event_wait``: every task created later on ``stream`` (None: every later task)
        runs after ``event``'s tasks; an event not recorded yet has none to wait for."""
        sync = self._events_state()
        target = sync.wait_all if stream is None else sync.wait_on.setdefault(stream, [])
        _join(target, sync.events.get(event, []))

    def event_query(self, event: str) -> bool:
        """``tg.event_query``: whether ``event`` has been recorded so far."""
        return event in self._events_state().events

    def use_events(self) -> None:
        """Track the tasks' streams for events (before the first task of a program that
        records events); such a build is task by task: neither recorded nor replayed."""
        if self._sync is not None:
            return
        if self.num_nodes:
            raise RuntimeError("use_events() after the first task")
        self._sync = _StreamEvents()

    def _events_state(self) -> _StreamEvents:
        if self._sync is None:
            raise RuntimeError("events of a builder without use_events()")
        return self._sync

    def _waits(self, sync: _StreamEvents, stream: int) -> list[int]:
        """The nodes a new task of ``stream`` waits for (several: through one barrier)."""
        for waits in (sync.wait_all, sync.wait_on.get(stream)):
            if waits is not None and len(waits) > 1:
                waits[:] = [self._barrier(list(waits))]
        return sync.wait_all + sync.wait_on.get(stream, [])

    # ------------------------------------------------------------------ result

    def build(self) -> TaskGraph:
        """The static task graph of everything created so far (the builder stays usable)."""
        if len(self._scopes) != 1:
            raise RuntimeError(f"build() inside {len(self._scopes) - 1} open ordered scope(s)")
        n = len(self._kind)
        src = np.array(self._src, dtype=np.int64)
        dst = np.array(self._dst, dtype=np.int32)
        ekind = np.array(self._ekind, dtype=np.uint8)
        # Edges were appended grouped by increasing destination: a stable sort by source gives
        # every fanout row in increasing order.
        order = np.argsort(src, kind="stable")
        counts = np.bincount(src, minlength=n) if n else np.zeros(0, dtype=np.int64)
        begin = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=begin[1:])
        fanin = np.bincount(dst, minlength=n).astype(np.int32) if n else np.zeros(0, np.int32)
        return TaskGraph(
            kind=np.array(self._kind, dtype=np.uint8),
            kernel=np.array(self._kernel, dtype=np.int32),
            pool=np.array(self._pool, dtype=np.uint8),
            domain=np.array(self._domain, dtype=np.uint8),
            target=np.array(self._target, dtype=np.int64),
            stream=np.array(self._stream, dtype=np.int64),
            priority=np.array(self._priority, dtype=np.int64),
            fanin=fanin,
            fanout_begin=begin,
            fanout_edges=dst[order],
            edge_kind=ekind[order],
            kernels=list(self.kernels),
            args=list(self._args),
            regions=list(self._regions),
            coords=list(self._coords),
        )


_WIDE_FIELDS = ("target", "stream", "issue priority")
_WIDE = 1 << 63


def _too_wide(who: str, field: str, value: int) -> str:
    return (
        f"{who}: its {field} is {value}, which does not fit in 64 bits (index values are "
        "64-bit; the schedule's key computed it)"
    )
