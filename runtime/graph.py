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

Batches. ``add_tasks(n, groups)`` creates the n tasks of a regular loop nest at once
(lowering/cpu/simgen.py emits it; docs/batchgen.md): per ``tg.task`` op a group whose fields
are ints or arrays. Structural edges follow the barrier rule for one group of the scope (every
task of the batch follows the current frontier). Data edges are inferred in array form
(``runtime/bulk.py`` ``BulkDeps``) when that is exact: per tensor, every access of the batch on
one tiling, and the tensor's earlier entries on tilings nested with it; the tensor's state then
lives in arrays (last writer per cell, readers since) until a task-by-task access to it moves
it back into the TensorMap. The per-cell passes, the edge merge and ``build()``'s CSR run in
``runtime/bulk_kernels.py`` (numba, loaded once enough work went through their numpy twins).
Tensors declared read-only (``read_only``: no task writes them, simgen finds them) take
no part: their regions give no edge and are neither planned nor recorded, whatever their
sizes; writing one raises. Anything else — and batches of fewer than ``BATCH_MIN`` tasks, and
subclasses that do not set ``batches = True`` — takes the per-task path, one ``add_task`` per
task. A batch of ordered chains (``for_each`` over t with one task per iteration, in parallel
loops or bare: ``add_tasks(..., chains=...)``) has its structural edges and scope state from
``runtime/batch_order.py``. Either way the graph is the same: same ids, fields and edges with
the same kinds. A batch's nodes are kept as arrays (segments, edges as one int64 array of
rows src, dst, kind); the built TaskGraph makes a task's args, regions and coords when first
asked for. Groups handed over again by a batch site of the generated code (a
``bulk.Groups``, docs/batchgen.md "Batch sites") keep what is derived from them alone: the
accesses' classification, the per-node arrays and the lazy per-task fields; a build made of
such batches alone is recorded, and the next builder handed the same calls replays it in one
compiled call (``runtime/tape.py``; any other call: it catches up and builds for real).
(The TensorMap's ``gc_before`` and
``lookup`` do not see tensors in array form: the simulator's engine, which uses them, creates
tasks one by one.)
"""

from __future__ import annotations

import contextlib
import gc
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pto_wsp.runtime import batch_order
from pto_wsp.runtime.memory import retain_freed_memory
from pto_wsp.runtime.regions import TensorRegion
from pto_wsp.runtime.tensormap import TensorMap

__all__ = [
    "DOMAINS",
    "EDGE_KINDS",
    "EDGE_RAW",
    "EDGE_STRUCTURAL",
    "EDGE_WAR",
    "EDGE_WAW",
    "KIND_BARRIER",
    "KIND_TASK",
    "POOLS",
    "POOL_ANY",
    "POOL_CUBE",
    "POOL_VECTOR",
    "BATCH_MIN",
    "GraphBuilder",
    "TaskGraph",
    "gc_paused",
]

# Node kinds.
KIND_TASK = 0
KIND_BARRIER = 1

# Execution pools and domains, numbered as seed 004 §6.2.1's ExecPool and ExecDomain.
POOL_VECTOR = 0
POOL_CUBE = 1
POOL_ANY = 255
POOLS = {"vector": POOL_VECTOR, "cube": POOL_CUBE, "any": POOL_ANY}
DOMAINS = {"host_cpu": 0, "aicore": 1, "aie_tile": 2}

# Why an edge exists.
EDGE_STRUCTURAL = 0
EDGE_RAW = 1
EDGE_WAW = 2
EDGE_WAR = 3
EDGE_KINDS = ("structural", "raw", "waw", "war")

_POOL_NAMES = {v: k for k, v in POOLS.items()}
_DOMAIN_NAMES = {v: k for k, v in DOMAINS.items()}


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk build (reference counting still frees).

    A build allocates a few objects per task and keeps them all, none in a reference cycle, so
    the collector's periodic passes over the growing heap find nothing and cost about half the
    build time at 10^5 tasks. Materializers wrap ``add_task`` loops and ``build()`` in this.
    On exit, what the block kept goes to the collector's oldest generation without a pass
    (``_promote_young_objects``).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
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
    it, so a barrier made for one is seen by all) and its current group. Both hold node ids
    and, for a batch's tasks, one ``range`` (expanded where a barrier is made)."""

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
        # Batches (``add_tasks``): the nodes before the lists above, sealed in segments, and
        # the array-form dependency state of the tensors batches touched.
        self._base = 0
        self._segs: list[_Segment] = []
        self._bulk: BulkDeps | None = None
        # Tensors no task writes (``read_only``): their accesses take no part in inference.
        self._read_only: frozenset = frozenset()
        # A build recorded or replayed (runtime/tape.py): the calls received (None: this
        # build cannot be taped), the operations recorded (from the first batch on), the tape
        # being replayed and the index of its next call.
        self._events: list | None = []
        self._rec: list | None = None
        self._replay: tape.Tape | None = None
        self._at = self._at0 = 0  # (the first: where the replay began)
        self._kernels0: list | None = None  # the kernel table when a replay began
        self._scopes0: list = []  # and the ordered scopes then
        self._rec_k0: tuple = ()  # the kernel table when the recording began
        self._sync: _StreamEvents | None = None  # streams and events (event_record ...)

    # ------------------------------------------------------------------ nodes

    @property
    def num_nodes(self) -> int:
        """Nodes created so far (tasks and barriers)."""
        return self._base + len(self._kind)

    @property
    def num_tasks(self) -> int:
        """Tasks created so far (``tg.seq``): barriers do not count."""
        return self._num_tasks

    def read_only(self, tensors: Iterable[str | int]) -> frozenset:
        """Declare tensors that no task will write (the code generator finds them: simgen);
        return the builder's read-only set.

        A tensor no task writes gives no edge (no writer: no read-after-write; no later write:
        no write-after-read), so its accesses are left out of dependency inference: a batch's
        regions of it take no part in ``BulkDeps.plan`` (whatever their sizes) and no task
        records them in the TensorMap. The graph is the same. A tensor that already has a
        writer here (an earlier task wrote it: its readers need their edges) is not added.
        A task or batch writing a tensor of the set raises ``ValueError`` before it is
        created (it could have needed edges from the reads left out). Declarations add up
        over calls.
        """
        if self._replay is not None:
            self._catch_up()
        tensors = tuple(tensors)
        ro = set(self._read_only)
        for t in tensors:
            if t not in ro and not self._written(t):
                ro.add(t)
        self._read_only = frozenset(ro)
        if self._events is not None:
            self._events.append(("ro", tuple(tensors)))
        return self._read_only

    def _written(self, tensor: str | int) -> bool:
        """Whether a task recorded so far writes ``tensor`` (a live writer in the TensorMap or
        the batches' array state)."""
        st = self.tensormap._tensors.get(tensor)
        if st is not None and any(e.writer >= 0 for e in st.exact.values()):
            return True
        tilings = None if self._bulk is None else self._bulk.tensors.get(tensor)
        return bool(tilings) and any(bool((t.writer >= 0).any()) for t in tilings.values())

    def kernel_id(self, kernel: str) -> int:
        """The kernel table index of ``kernel``, added on first use."""
        if self._replay is not None:
            self._catch_up()
        if self._events is not None:
            self._events.append(("kid", kernel))
        return self._kid(kernel)

    def _kid(self, kernel: str) -> int:
        kid = self._kernel_ids.get(kernel)
        if kid is None:
            kid = self._kernel_ids[kernel] = len(self.kernels)
            self.kernels.append(kernel)
        return kid

    def _barrier(self, preds: list[int]) -> int:
        bid = self._base + len(self._kind)
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
        if self._events is not None:
            self._untaped()  # a task by itself: not replayed
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
                    raise ValueError(read_only_error(where, r))
        sync = self._sync
        if sync is not None:
            deps = (*deps, *self._waits(sync, stream))
        scope = self._scopes[-1]
        frontier = scope.frontier
        if len(frontier) > 1 or (frontier and frontier[0].__class__ is range):
            # First task after an ordering point with several tasks before it: one barrier,
            # shared by every later task of the scope (and of nested scopes holding the list).
            nodes = _expand(frontier)
            frontier[:] = [self._barrier(nodes)] if len(nodes) > 1 else nodes
        tid = self._base + len(self._kind)
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
            bulk = self._bulk
            if bulk is not None and bulk.tensors:
                for r in regions:
                    if r.tensor in bulk.tensors:
                        bulk.release(r.tensor, self.tensormap)
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

    def add_tasks(
        self, n: int, groups: Sequence[Sequence], chains: tuple[int, int, bool] | None = None
    ) -> range:
        """Create the ``n`` tasks of a batch (a regular loop nest's, in creation order) and
        their incoming edges; return their node ids. See the module doc, "Batches".

        Each group is the tasks of one ``tg.task`` op: ``(kernel, positions, params, regions,
        coords, pool, target, stream, priority, domain)`` where ``positions`` are the tasks'
        places in the batch (an int array, or None: the group is the whole batch in order),
        every value is an int (or name) shared by the group's tasks or an array with one entry
        per task, ``regions`` are ``BatchRegion``s or regions shared by every task, and
        ``coords`` are (name, value) pairs. ``chains`` (count, length, scoped): the batch is
        ordered chains, structured as ``runtime/batch_order.py`` says.
        """
        if self._sync is not None:
            raise RuntimeError("a batch of tasks in a build with events (use add_task)")
        n = int(n)
        if n <= 0:
            return range(0)
        if self._replay is not None or (self._events is not None and not self._base):
            ids = self._taped_batch(n, groups, chains)
            if ids is not None:
                return ids
        plan = None
        cls = type(self)
        exact = n >= BATCH_MIN and (cls is GraphBuilder or getattr(cls, "batches", False) is True)
        if exact and self.infer_data_deps:
            if self._bulk is None:
                self._bulk = BulkDeps(self._rec)
            plan = self._bulk.plan(n, groups, self.tensormap, self._read_only)
            exact = plan is not None
        if not exact:
            # The per-task path. Subclasses take it unless they (or a base) set
            # ``batches = True``: a batch's nodes are not in the per-node lists (``_kind``,
            # ``_args``, ...) that a subclass may read; they are in the built TaskGraph.
            if chains is not None:
                batch_order.per_task(self, *chains, groups)
                end = self._base + len(self._kind)
                return range(end - n, end)
            tids = [self.add_task(*row) for row in iter_batch(n, groups)]
            return range(tids[0], tids[0] + n)
        scope = self._scopes[-1]
        frontier = scope.frontier
        self._seal()
        if len(frontier) > 1 or (frontier and frontier[0].__class__ is range):
            preds = _expand_array(frontier)
            frontier[:] = [self._barrier_segment(preds)] if len(preds) > 1 else preds.tolist()
        tid0 = self._base
        memo = getattr(groups, "memo", None)
        fields = None if memo is None else memo.get("nodes")
        if fields is None:
            fields = _node_fields(n, groups)
            if memo is not None:
                memo["nodes"] = fields
        names, at, pool, domain, target, stream, priority, kinds, lazy = fields
        # Kernel ids in order of first use, as task by task: groups by their first task.
        kernel_id = self._kid
        kids = tuple([kernel_id(k) for k in names])
        kept = None if memo is None else memo.setdefault("kernel", {})
        kernel = None if kept is None else kept.get(kids)
        if kernel is None:
            if len(kids) == 1:
                kernel = kids[0]  # one int for the segment (build() expands it)
            else:
                kernel = np.empty(n, dtype=np.int32)
                for k, where in zip(kids, at):
                    kernel[where] = k
            if kept is not None:
                if len(kept) >= 4:  # builders numbering the kernels differently: a few kept
                    kept.clear()
                kept[kids] = kernel
        self._num_tasks += n
        if chains is not None:
            batch_order.scope_after(self, scope, chains, tid0, n)
        elif scope is not self._root:
            scope.group.append(range(tid0, tid0 + n))  # a run of nodes (``_expand``)
        parts = self._bulk.apply(tid0, n, plan, self.tensormap) if plan else []
        # Edges as int64 arrays of rows src, dst, kind (one array per part: fewer arrays to
        # make, pass and concatenate).
        edges = None
        if parts:
            # One edge per (source, destination), the smallest kind (raw, waw, war: the
            # per-task path's first reason), never a self-edge; by destination then source.
            # The structural edge from the frontier's node comes out of the merge too, first
            # among each task's edges.
            E = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
            skip = frontier[0] if frontier and chains is None else -1
            edges = merge_edges(E, tid0, n, skip, skip)
        rec = self._rec
        s0 = None
        if chains is not None:
            head = frontier[0] if frontier else -1
            s0 = chain_sources(tid0, n, chains[1], head)
            edges = chain_edges(edges, tid0, n, chains[1], head, s0)
        elif frontier and edges is None:
            # No data edges: the structural ones alone.
            edges = np.empty((3, n), dtype=np.int64)
            edges[0] = frontier[0]
            edges[1] = np.arange(tid0, tid0 + n)
            edges[2] = 0
        if edges is None:
            edges = _NO_EDGES
        self._segs.append(
            _Segment(tid0, n, kinds, kernel, pool, domain, target, stream, priority, lazy, edges)
        )
        self._base += n
        if rec is not None:
            head = frontier[0] if frontier and chains is None else -1
            rec.append((OP_END, tid0, n, skip if parts else -1, s0, head))
            self._events.append(("b", groups, n, chains, tid0, tid0 + n))
        return range(tid0, tid0 + n)

    # ------------------------------------------------------------------ recorded builds

    def _taped_batch(self, n: int, groups: Any, chains: Any) -> range | None:
        """A batch while the build may be replayed or recorded (runtime/tape.py): its ids when
        it is the replayed tape's next call; else None (the caller creates it), after catching
        up with a replay, or deciding on the first batch whether to replay, record or neither."""
        tp = self._replay
        if tp is None:
            # The first batch of a build that received nothing else yet.
            cls = type(self)
            memo = getattr(groups, "memo", None)
            if (
                memo is None
                or not (cls is GraphBuilder or getattr(cls, "batches", False) is True)
                or not self.infer_data_deps
                or not tape.usable()
            ):
                self._untaped()
                return None
            tp = memo.get("tape")
            if (
                tp is None
                or self._kernels0 is not None  # caught up with a replay before: record
                or tp.cls is not cls
                or tuple(self.kernels) != tp.kernels0
                or not tape.same_prefix(self._events, tp.events)
            ):
                self._rec = []
                self._rec_k0 = tuple(self.kernels)
                return None
            self._replay = tp
            self._at = self._at0 = len(self._events)
            self._kernels0 = list(self.kernels)
            self._scopes0 = list(self._scopes)
        at = self._at
        ev = tp.events[at] if at < len(tp.events) else None
        if (
            ev is not None
            and ev[0] == "b"
            and ev[1] is groups
            and ev[2] == n
            and tape.same_chains(ev[3], chains)
        ):
            self._at = at + 1
            self._num_tasks += n
            self._base = ev[5]
            return range(ev[4], ev[5])
        self._catch_up()
        return None

    def _step(self, event: tuple) -> bool:
        """A scope call while replaying: True when it is the tape's next (nothing else to do);
        else the builder catches up and the caller applies it."""
        at = self._at
        events = self._replay.events
        if at < len(events) and events[at] == event:
            self._at = at + 1
            # The depth of ordered scopes (build() checks it); their state is not needed.
            if event == tape.ENTER:
                self._scopes.append(_Scope([]))
            elif event == tape.EXIT:
                self._scopes.pop()
            return True
        self._catch_up()
        return False

    def _catch_up(self) -> None:
        """Stop replaying: apply the calls replayed so far for real, in order (the base class's
        effect: a subclass saw them already), and go on recording."""
        tp, at = self._replay, self._at
        self._replay = None
        # The state when the replay began (after the calls before the first batch).
        self._base = self._num_tasks = 0
        self._set_kernels(self._kernels0)
        self._scopes[:] = self._scopes0
        self._events = list(tp.events[: self._at0])
        for ev in tp.events[self._at0 : at]:
            if ev[0] == "b":
                GraphBuilder.add_tasks(self, ev[2], ev[1], ev[3])
            elif ev == tape.ENTER:
                GraphBuilder.enter_ordered(self)
            elif ev == tape.POINT:
                GraphBuilder.order_point(self)
            else:  # only batches and scope calls are replayed
                GraphBuilder.exit_ordered(self)

    def _untaped(self) -> None:
        """This build will be neither replayed nor recorded."""
        if self._replay is not None:
            self._catch_up()
        self._events = self._rec = None
        if self._bulk is not None:
            self._bulk.rec = None

    def _set_kernels(self, names: Sequence[str]) -> None:
        """The kernel table as ``names`` (a replay's, or the one before it began)."""
        self.kernels = list(names)
        self._kernel_ids = {k: i for i, k in enumerate(self.kernels)}

    def _record(self, graph: TaskGraph) -> None:
        """Keep the build just made as a tape in its first batch's groups (runtime/tape.py)."""
        first = next(ev for ev in self._events if ev[0] == "b")
        first[1].memo["tape"] = tape.Tape(
            cls=type(self),
            events=list(self._events),
            ops=list(self._rec),
            boxes=list(self._bulk.boxes) if self._bulk is not None else [],
            nslots=self._bulk.nslots if self._bulk is not None else 0,
            n_nodes=graph.num_nodes,
            n_edges=len(graph.fanout_edges),
            kernels0=self._rec_k0,
            kernels=tuple(self.kernels),
            fields=tuple(
                getattr(graph, f).copy()
                for f in ("kind", "kernel", "pool", "domain", "target", "stream", "priority")
            ),
            # (only base, n and fields are read: _NodeSeq; the edges are not kept)
            segs=[
                _Segment(s.base, s.n, 0, 0, 0, 0, 0, 0, 0, s.fields, _NO_EDGES) for s in self._segs
            ],
        )

    def _build_replay(self) -> TaskGraph:
        """build() of a replayed tape (runtime/tape.py)."""
        tp = self._replay
        begin, edges, kinds, fanin = tp.run()
        self._set_kernels(tp.kernels)
        f = tp.fields
        return TaskGraph(
            kind=f[0].copy(),
            kernel=f[1].copy(),
            pool=f[2].copy(),
            domain=f[3].copy(),
            target=f[4].copy(),
            stream=f[5].copy(),
            priority=f[6].copy(),
            fanin=fanin,
            fanout_begin=begin,
            fanout_edges=edges,
            edge_kind=kinds,
            kernels=list(tp.kernels),
            args=_NodeSeq(tp.segs, 0),
            regions=_NodeSeq(tp.segs, 1),
            coords=_NodeSeq(tp.segs, 2),
        )

    def _barrier_segment(self, preds: np.ndarray) -> int:
        """``_barrier`` for the batch path (the per-node lists are sealed): the barrier node
        and its edges as a segment of arrays (its one-node fields shared: build() copies)."""
        bid = self._base
        m = len(preds)
        edges = np.empty((3, m), dtype=np.int64)
        edges[0] = preds
        edges[1] = bid
        edges[2] = EDGE_STRUCTURAL
        fields = ([()], [()], [()])
        self._segs.append(_Segment(bid, 1, *_BARRIER_FIELDS, fields, edges))
        if self._rec is not None:
            self._rec.append((OP_BARRIER, bid, preds, EDGE_STRUCTURAL))
        self._base += 1
        return bid

    def _seal(self) -> None:
        """Move the nodes and edges of the per-node lists into a segment."""
        if not self._kind:
            return
        fields = (self._args, self._regions, self._coords)
        self._segs.append(
            _Segment(
                self._base,
                len(self._kind),
                np.array(self._kind, dtype=np.uint8),
                np.array(self._kernel, dtype=np.int32),
                np.array(self._pool, dtype=np.int64),
                np.array(self._domain, dtype=np.int64),
                np.array(self._target, dtype=np.int64),
                np.array(self._stream, dtype=np.int64),
                np.array(self._priority, dtype=np.int64),
                fields,
                np.array([self._src, self._dst, self._ekind], dtype=np.int64).reshape(3, -1),
            )
        )
        self._base += len(self._kind)
        for name in ("_kind", "_kernel", "_pool", "_domain", "_target", "_stream", "_priority"):
            setattr(self, name, [])
        self._args, self._regions, self._coords = [], [], []
        self._src, self._dst, self._ekind = [], [], []

    # ------------------------------------------------------------------ structural order

    def enter_ordered(self) -> None:
        """Open an ordered scope (``tg.ordered``) nested in the current one."""
        if self._replay is not None and self._step(tape.ENTER):
            return
        if self._events is not None:
            self._events.append(tape.ENTER)
        self._scopes.append(_Scope(self._scopes[-1].frontier))

    def order_point(self) -> None:
        """An ordering point (``tg.order_point``) of the innermost ordered scope: every task
        created after it in the scope runs after every task created before it in the scope."""
        if self._replay is not None and self._step(tape.POINT):
            return
        scope = self._scopes[-1]
        if scope is self._root:
            raise RuntimeError("order_point() outside an ordered scope")
        if self._events is not None:
            self._events.append(tape.POINT)
        if scope.group:
            scope.frontier = scope.group
            scope.group = []
            scope.own = True

    def exit_ordered(self) -> None:
        """Close the innermost ordered scope; its sinks join the enclosing scope's group."""
        if self._replay is not None and self._step(tape.EXIT):
            return
        if len(self._scopes) == 1:
            raise RuntimeError("exit_ordered() without enter_ordered()")
        if self._events is not None:
            self._events.append(tape.EXIT)
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
        if self._events is not None:
            self._untaped()  # a pipeline's processes interleave: not replayed
        root = _Scope([])
        return (root, [root])

    def use_context(self, context: tuple[_Scope, list[_Scope]] | None) -> None:
        """Create the next tasks in ``context`` (from ``new_context``); None: the builder's own."""
        if self._events is not None:
            self._untaped()
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
        self._untaped()
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
        if self._replay is not None:
            if self._at == len(self._replay.events):
                return self._build_replay()
            self._catch_up()
        if self._segs:
            graph = self._build_segments()
            if self._rec is not None and (self._bulk is None or self._bulk.rec is self._rec):
                self._record(graph)
            return graph
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

    def _build_segments(self) -> TaskGraph:
        self._seal()
        segs = self._segs
        n = self._base
        cat = np.concatenate
        E = segs[0].edges if len(segs) == 1 else cat([s.edges for s in segs], axis=1)
        begin, edges, kinds, fanin = csr(E, n)
        return TaskGraph(
            kind=_fill(segs, n, "kind", np.uint8),
            kernel=_fill(segs, n, "kernel", np.int32),
            pool=_fill(segs, n, "pool", np.uint8),
            domain=_fill(segs, n, "domain", np.uint8),
            target=_fill(segs, n, "target", np.int64),
            stream=_fill(segs, n, "stream", np.int64),
            priority=_fill(segs, n, "priority", np.int64),
            fanin=fanin,
            fanout_begin=begin,
            fanout_edges=edges,
            edge_kind=kinds,
            kernels=list(self.kernels),
            args=_NodeSeq(segs, 0),
            regions=_NodeSeq(segs, 1),
            coords=_NodeSeq(segs, 2),
        )


def _fill(segs: list[_Segment], n: int, field: str, dtype: type) -> np.ndarray:
    """One per-node field of all segments (each an array of its nodes or one int for all of
    them) as one array of ``dtype``."""
    out = np.empty(n, dtype)
    for s in segs:
        out[s.base : s.base + s.n] = getattr(s, field)
    return out


def _expand(nodes: list) -> list[int]:
    """A frontier or group as node ids: batches add their tasks as one ``range``."""
    out: list[int] = []
    for x in nodes:
        if x.__class__ is range:
            out.extend(x)
        else:
            out.append(x)
    return out


def _expand_array(nodes: list) -> np.ndarray:
    """``_expand`` as an int64 array."""
    parts, ints = [], []
    for x in nodes:
        if x.__class__ is range:
            if ints:
                parts.append(np.array(ints, dtype=np.int64))
                ints = []
            parts.append(np.arange(x.start, x.stop, dtype=np.int64))
        else:
            ints.append(x)
    if ints:
        parts.append(np.array(ints, dtype=np.int64))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _first(positions: np.ndarray) -> int:
    return int(positions[0]) if len(positions) else 1 << 62


_WIDE_FIELDS = ("target", "stream", "issue priority")
_WIDE = 1 << 63


def _too_wide(who: str, field: str, value: int) -> str:
    return (
        f"{who}: its {field} is {value}, which does not fit in 64 bits (index values are "
        "64-bit; the schedule's key computed it)"
    )


def _node_fields(n: int, groups: Sequence[Sequence]) -> tuple:
    """A batch's per-node fields that depend on its groups alone: the kernels in order of
    first use with each one's tasks (a slice or positions), the pool, domain, target, stream,
    priority and kind arrays, and the lazy per-task fields (``Groups.memo`` keeps them; no
    one modifies them: ``build()`` concatenates). A shared target, stream or priority beyond
    int64 (a schedule key's arithmetic on Python ints) is a ValueError naming the kernel."""
    for group in groups:
        for what, value in zip(_WIDE_FIELDS, group[6:9]):
            if value.__class__ is not np.ndarray and not -_WIDE <= value < _WIDE:
                raise ValueError(_too_wide(f"kernel {group[0]!r}", what, value))
    if len(groups) == 1 and groups[0][1] is None:
        # One group, the whole batch: each field one int (``_fill`` expands them in build()).
        group = groups[0]
        p, d = group[5], group[9]
        p = POOLS[p] if p.__class__ is str else p
        d = DOMAINS[d] if d.__class__ is str else d
        ints = (p, d, group[6], group[7], group[8])
        if all(x.__class__ is int for x in ints) and 0 <= p < 256 and 0 <= d < 256:
            return [group[0]], [slice(None)], *ints, 0, _BatchFields(n, groups)
    names, at = [], []
    pool = np.empty(n, dtype=np.int64)
    domain = np.empty(n, dtype=np.int64)
    target = np.empty(n, dtype=np.int64)
    stream = np.empty(n, dtype=np.int64)
    priority = np.empty(n, dtype=np.int64)
    for group in sorted(groups, key=lambda g: 0 if g[1] is None else _first(g[1])):
        if group[1] is not None and not len(group[1]):
            continue
        where = slice(None) if group[1] is None else group[1]
        names.append(group[0])
        at.append(where)
        p = group[5]
        pool[where] = POOLS[p] if p.__class__ is str else p
        target[where] = group[6]
        stream[where] = group[7]
        priority[where] = group[8]
        d = group[9]
        domain[where] = DOMAINS[d] if d.__class__ is str else d
    kinds = np.zeros(n, dtype=np.uint8)
    return names, at, pool, domain, target, stream, priority, kinds, _BatchFields(n, groups)


#: A barrier node's fields as one-node arrays (kind, kernel, pool, domain, target, stream,
#: priority), shared by every barrier segment and never modified.
_BARRIER_FIELDS = (
    np.full(1, KIND_BARRIER, dtype=np.uint8),
    np.full(1, -1, dtype=np.int32),
    np.full(1, POOL_ANY, dtype=np.int64),
    np.zeros(1, dtype=np.int64),
    np.full(1, -1, dtype=np.int64),
    np.zeros(1, dtype=np.int64),
    np.zeros(1, dtype=np.int64),
)

#: No edges, as a segment's edge array (never modified: build() concatenates).
_NO_EDGES = np.zeros((3, 0), dtype=np.int64)


#: Batches of fewer tasks take the per-task path (numpy's fixed costs exceed the gain).
BATCH_MIN = 16


@dataclass
class _Segment:
    """Consecutive nodes: per-node fields (each an array, or one int for all the nodes: a
    batch of one group), the per-node (args, regions, coords) as three lists or a batch's
    ``_BatchFields``, and the edges into these nodes (an int64 array of rows src, dst, kind)."""

    base: int
    n: int
    kind: np.ndarray | int
    kernel: np.ndarray | int
    pool: np.ndarray | int
    domain: np.ndarray | int
    target: np.ndarray | int
    stream: np.ndarray | int
    priority: np.ndarray | int
    fields: Any
    edges: np.ndarray


class _BatchFields:
    """A batch's per-task args, regions and coords, made only when first asked for."""

    __slots__ = ("n", "groups", "_lists")

    def __init__(self, n: int, groups: Sequence[Sequence]) -> None:
        self.n = n
        self.groups = groups
        self._lists: list[list | None] = [None, None, None]

    def __getitem__(self, k: int) -> list:
        lst = self._lists[k]
        if lst is None:
            # One pass per group makes all three fields (group_fields builds them together).
            lists: list[list] = [[None] * self.n for _ in range(3)]
            for group in self.groups:
                pos = group[1]
                for j, values in enumerate(group_fields(group, self.n)):
                    if pos is None:
                        lists[j] = values
                    else:
                        target = lists[j]
                        for p, v in zip(pos.tolist(), values):
                            target[p] = v
            self._lists = lists
            lst = lists[k]
        return lst


class _NodeSeq(SequenceABC):
    """A per-node field (args, regions or coords) over segments, built lazily per batch."""

    def __init__(self, segs: list[_Segment], k: int) -> None:
        self._segs = segs
        self._k = k
        self._starts = [s.base for s in segs]
        self._n = segs[-1].base + segs[-1].n if segs else 0

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        seg = self._segs[bisect_right(self._starts, i) - 1]
        return seg.fields[self._k][i - seg.base]

    def __iter__(self):
        for seg in self._segs:
            yield from seg.fields[self._k]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SequenceABC) and list(self) == list(other)


@dataclass
class TaskGraph:
    """A materialized task graph (seed 004 TaskGraphStorage): per-node arrays, CSR fanout.

    Node ``i``'s successors are ``fanout_edges[fanout_begin[i]:fanout_begin[i + 1]]``
    (ascending) and ``edge_kind`` says why each edge exists (``EDGE_KINDS``); ``fanin[i]`` is
    its number of predecessors. ``kind`` is ``KIND_TASK`` or ``KIND_BARRIER``; ``kernel``
    indexes ``kernels`` (-1 for a barrier); ``target`` -1 means the runtime decides.
    ``args``, ``regions`` and ``coords`` are per-node tuples (empty for barriers).
    """

    kind: np.ndarray
    kernel: np.ndarray
    pool: np.ndarray
    domain: np.ndarray
    target: np.ndarray
    stream: np.ndarray
    priority: np.ndarray
    fanin: np.ndarray
    fanout_begin: np.ndarray
    fanout_edges: np.ndarray
    edge_kind: np.ndarray
    kernels: list[str]
    args: list[tuple]
    regions: list[tuple[TensorRegion, ...]]
    coords: list[tuple[tuple[str, int], ...]]
    _pred: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def num_nodes(self) -> int:
        """Tasks and barrier nodes."""
        return len(self.kind)

    @property
    def num_tasks(self) -> int:
        """Kernel tasks (barrier nodes excluded)."""
        return int(np.count_nonzero(self.kind == KIND_TASK))

    @property
    def num_barriers(self) -> int:
        """Barrier nodes."""
        return self.num_nodes - self.num_tasks

    @property
    def num_edges(self) -> int:
        """Edges of every kind."""
        return len(self.fanout_edges)

    def edge_counts(self) -> dict[str, int]:
        """How many edges of each kind (structural, raw, waw, war)."""
        counts = np.bincount(self.edge_kind, minlength=len(EDGE_KINDS))
        return {name: int(counts[i]) for i, name in enumerate(EDGE_KINDS)}

    def task_ids(self) -> np.ndarray:
        """The ids of the kernel tasks, ascending."""
        return np.flatnonzero(self.kind == KIND_TASK)

    def kernel_name(self, i: int) -> str | None:
        """The kernel of node ``i`` (None for a barrier)."""
        k = int(self.kernel[i])
        return self.kernels[k] if k >= 0 else None

    def successors(self, i: int) -> np.ndarray:
        """The nodes that wait for node ``i``, ascending."""
        return self.fanout_edges[self.fanout_begin[i] : self.fanout_begin[i + 1]]

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """All edges as (sources, destinations) arrays, sorted by source then destination."""
        src = np.repeat(np.arange(self.num_nodes), np.diff(self.fanout_begin))
        return src, self.fanout_edges

    def edge_set(self) -> set[tuple[int, int]]:
        """All edges as a set of (source, destination) pairs (for tests and small graphs)."""
        src, dst = self.edges()
        return set(zip(src.tolist(), dst.tolist()))

    def predecessors(self, i: int) -> np.ndarray:
        """The nodes node ``i`` waits for, ascending."""
        if self._pred is None:
            src, dst = self.edges()
            order = np.argsort(dst, kind="stable")
            begin = np.zeros(self.num_nodes + 1, dtype=np.int64)
            np.cumsum(np.bincount(dst, minlength=self.num_nodes), out=begin[1:])
            self._pred = (begin, src[order])
        begin, flat = self._pred
        return flat[begin[i] : begin[i + 1]]

    def reachable(self, a: int, b: int) -> bool:
        """Whether a path of edges leads from node ``a`` to node ``b`` (a node reaches itself)."""
        if a == b:
            return True
        if b < a:
            return False  # ids are a topological order
        seen = np.zeros(b + 1, dtype=bool)
        stack = [a]
        begin, edges = self.fanout_begin, self.fanout_edges
        while stack:
            n = stack.pop()
            for s in edges[begin[n] : begin[n + 1]].tolist():
                if s == b:
                    return True
                if s < b and not seen[s]:
                    seen[s] = True
                    stack.append(s)
        return False

    def _label(self, i: int) -> str:
        if self.kind[i] == KIND_BARRIER:
            return f"{i}: barrier"
        at = ", ".join(f"{k}={v}" for k, v in self.coords[i])
        return f"{i}: {self.kernel_name(i)}({at})"

    def to_dot(self, name: str = "tg") -> str:
        """The graph in Graphviz DOT: barriers as points, data edges solid and labelled by
        kind, structural edges dashed."""
        lines = [f'digraph "{name}" {{', "  node [shape=box, fontname=monospace];"]
        for i in range(self.num_nodes):
            if self.kind[i] == KIND_BARRIER:
                lines.append(f'  n{i} [shape=diamond, label="{i}"];')
            else:
                lines.append(f'  n{i} [label="{self._label(i)}"];')
        src, dst = self.edges()
        for s, d, k in zip(src.tolist(), dst.tolist(), self.edge_kind.tolist()):
            if k == EDGE_STRUCTURAL:
                lines.append(f"  n{s} -> n{d} [style=dashed];")
            else:
                lines.append(f'  n{s} -> n{d} [label="{EDGE_KINDS[k]}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def node_text(self, i: int) -> str:
        """Node ``i`` in the static form's ``tg.node`` syntax (docs/tg.md "Static form")."""
        fanout = ", ".join(str(s) for s in self.successors(i).tolist())
        if self.kind[i] == KIND_BARRIER:
            return f"tg.node {i} barrier fanin({int(self.fanin[i])}) fanout({fanout})"
        args = ", ".join(str(a) for a in self.args[i])
        regions = ", ".join(
            f"%{r.tensor}{list(r.offsets)}{list(r.sizes)}{list(r.strides)} {r.access}"
            for r in self.regions[i]
        )
        at = ", ".join(f"{k} = {v}" for k, v in self.coords[i])
        pool = _POOL_NAMES.get(int(self.pool[i]), str(int(self.pool[i])))
        parts = [
            f"tg.node {i} task @{self.kernel_name(i)} args({args}) regions({regions}) at({at})",
            f"domain({_DOMAIN_NAMES.get(int(self.domain[i]), int(self.domain[i]))})",
            f"pool({pool}) target({int(self.target[i])}) stream({int(self.stream[i])})",
            f"priority({int(self.priority[i])}) fanin({int(self.fanin[i])}) fanout({fanout})",
        ]
        return " ".join(parts)

    def to_text(self) -> str:
        """Every node in ``tg.node`` syntax, one per line."""
        return "".join(self.node_text(i) + "\n" for i in range(self.num_nodes))


from pto_wsp.runtime import tape  # noqa: E402
from pto_wsp.runtime.bulk import (  # noqa: E402
    BulkDeps,
    group_fields,
    iter_batch,
    read_only_error,
)
from pto_wsp.runtime.bulk_kernels import (  # noqa: E402
    OP_BARRIER,
    OP_END,
    chain_edges,
    chain_sources,
    csr,
    merge_edges,
)
