"""One execution of a main program on the native core: its graph, schedule and bodies.

``Program.execute()`` builds the task graph with the compiled program (lowering/cpu/native.py),
schedules it in virtual time with the core's scheduler (runtime/native_core.py) and wraps the
result in a ``Run``: the per-node arrays (worker, start, end, issue number, stream, lane, ...),
the statistics, the stall spans and the dispatch order, read as the engine's ``Simulator`` is
read after a run (``Program.stats()``, ``trace()``, ``schedule_of()`` and ``graph()`` take
either). In the functional mode ``run_bodies`` then calls the kernels' numpy bodies on views of
the bound arrays in the core's dispatch order — the order the engine calls them in.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from pto_wsp.errors import ExecutionError
from pto_wsp.lowering.taskgraph import POOL_ANY, POOL_CUBE, POOL_VECTOR, TaskGraph
from pto_wsp.runtime.kernels import BODY_ERRORS, cached_spec, numpy_view, returned
from pto_wsp.runtime.native_bodies import NativeBodies
from pto_wsp.runtime.native_core import Schedule

__all__ = ["Run", "forget_collected"]

# Rows of the scheduler's per-node arrays (native_core.Schedule).
_WORKER, _ISEQ, _SOF, _LANE = 0, 1, 2, 3
_START, _END, _ISSUED_T, _DEPS_T, _CREATED_T = 0, 1, 2, 3, 4
# Its counters (S) and floats (R).
_STEALS, _LIVE, _CREATED, _COMPLETED, _PLAIN, _SPANN, _WFULL, _NS = 3, 4, 5, 6, 9, 12, 20, 21
_NR = 8
#: The stalls the scheduler sums (R[3:8]), in its order.
_STALL_ORDER = ("dependencies", "stream_order", "pipeline_depth", "issue", "window")
#: Bodies between two progress calls.
_CHUNK = 8192


def forget_collected(graph: TaskGraph, gc_at: np.ndarray, gc_old: np.ndarray) -> TaskGraph:
    """``graph`` without the data edges a task window's TensorMap no longer gives: after
    ``gc_at[g]`` nodes it has forgotten every access of the nodes before ``gc_old[g]`` (all
    done by then), so a node created later gets no data edge from them (edges that would not
    have counted: their source was done). Structural edges stay."""
    if not len(gc_at):
        return graph
    src, dst = graph.edges()
    kind = np.asarray(graph.edge_kind)
    last = np.searchsorted(gc_at, dst, side="right") - 1
    oldest = np.where(last >= 0, gc_old[np.maximum(last, 0)], -1)
    keep = (kind == 0) | (src >= oldest)
    if keep.all():
        return graph
    n = graph.num_nodes
    src, dst = src[keep], dst[keep]
    begin = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=begin[1:])
    return dataclasses.replace(
        graph,
        fanin=np.bincount(dst, minlength=n).astype(np.int32),
        fanout_begin=begin,
        fanout_edges=dst.astype(np.int32),  # (still in CSR order: rows ascending)
        edge_kind=kind[keep].astype(np.uint8),
    )


def node_costs(kernel_costs: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Each node's cost from its kernel's (``kernel_costs`` by kernel id; a barrier, kernel
    -1, costs 0)."""
    return np.append(kernel_costs, 0)[kernel]  # (kernel -1 reads the appended 0)


class Run:
    """A main program's execution on the core, read as a ``Simulator`` is after a run:
    per node ``worker``, ``start``, ``end``, ``issue_seq``, ``stream_of``, ``lane``,
    ``created_t``, ``issued_t``, ``deps_t``, ``cost`` (lists made on first use; ``*_array``
    the numpy arrays), ``busy``, ``tasks_run``, ``steals``, ``stalls``, ``stall_spans``;
    ``order`` is the dispatch order and ``task_graph`` the graph built."""

    processes: tuple = ()

    def __init__(
        self,
        *,
        config: Any,
        graph: TaskGraph,
        schedule: Schedule,
        costs: np.ndarray | None,
        kernels: Mapping[str, Any],
        kernel_costs: np.ndarray | None = None,
        arrays: Mapping[str, np.ndarray],
    ) -> None:
        self.cfg = config
        self.task_graph = graph
        self.graph = graph
        self.kernels = kernels
        self.arrays = arrays  # (read only)
        self.n_workers = max(1, int(config.workers))
        self._NI, self._NF = schedule.NI, schedule.NF
        if not schedule.S[_PLAIN]:  # (a plain schedule's: made from the graph when read)
            NI, NF = schedule.NI, schedule.NF
            self.issue_seq_array = NI[_ISEQ]
            self.stream_of_array = NI[_SOF]
            self.lane_array = NI[_LANE]
            self.issued_t_array = NF[_ISSUED_T]
            self.deps_t_array = NF[_DEPS_T]
            self.start_array = NF[_START]
        if costs is not None:
            self.cost_array = costs
        self._kernel_costs = kernel_costs
        self.order = schedule.order
        self._S = schedule.S
        self._R = schedule.R
        self._spans = schedule.spans
        self._lists: dict[str, list] = {}
        self._specs: list[Any] = []
        #: Wall time per phase (Stats.phases_ms), set by the Program.
        self.phases_ms: dict[str, float] = {}

    # (the schedule's rows, read when asked: a run read for its statistics alone reads few)
    worker_array = property(lambda self: self._NI[_WORKER])
    end_array = property(lambda self: self._NF[_END])

    @functools.cached_property
    def worker_pool(self) -> list[int]:
        """Each worker's pool."""
        pools = list(self.cfg.pools()[: self.n_workers])
        return pools + [POOL_ANY] * (self.n_workers - len(pools))

    @functools.cached_property
    def pool_workers(self) -> dict[int, list[int]]:
        """Per pool, the workers serving it (a pool nobody serves: every worker)."""
        W = self.n_workers
        out = {
            pool: [w for w, p in enumerate(self.worker_pool) if p in (pool, POOL_ANY)]
            or list(range(W))
            for pool in (POOL_VECTOR, POOL_CUBE)
        }
        out[POOL_ANY] = list(range(W))
        return out

    steals = property(lambda self: int(self._S[_STEALS]))
    live = property(lambda self: int(self._S[_LIVE]))
    created = property(lambda self: int(self._S[_CREATED]))
    completed = property(lambda self: int(self._S[_COMPLETED]))
    #: Whether the run stopped at a creation that found the task window full (overflow=abort).
    window_full = property(lambda self: bool(self._S[_WFULL]))

    @functools.cached_property
    def busy(self) -> list[float]:
        return self._R[_NR:].tolist()

    @functools.cached_property
    def tasks_run(self) -> list[int]:
        return self._S[_NS:].tolist()

    @functools.cached_property
    def stalls(self) -> dict[str, float]:
        return dict(zip(_STALL_ORDER, self._R[3:_NR].tolist()))

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

    # A plain schedule (no streams, timing immediate: native_core.Schedule) issues each task
    # as it is created, so the scheduler does not write these: issue numbers count the tasks,
    # a task's stream is its own, every lane 0, a task is issued when it is created and a
    # node's dependencies are met when it is created or its last predecessor ends.
    @functools.cached_property
    def start_array(self) -> np.ndarray:
        # (a plain schedule's: a task starts its cost before its end, a barrier at -1)
        tasks = self.task_graph.kind == 0
        return np.where(tasks, self.end_array - self.cost_array, -1.0)

    @functools.cached_property
    def cost_array(self) -> np.ndarray:
        return node_costs(self._kernel_costs, self.task_graph.kernel)

    @functools.cached_property
    def issue_seq_array(self) -> np.ndarray:
        tasks = self.task_graph.kind == 0
        return np.where(tasks, np.cumsum(tasks) - 1, -1)

    @functools.cached_property
    def stream_of_array(self) -> np.ndarray:
        return np.where(self.task_graph.kind == 0, self.task_graph.stream, 0).astype(np.int64)

    @functools.cached_property
    def lane_array(self) -> np.ndarray:
        return np.zeros(len(self.end_array), np.int64)

    @functools.cached_property
    def issued_t_array(self) -> np.ndarray:
        return np.where(self.task_graph.kind == 0, self.created_t_array, -1.0)

    @functools.cached_property
    def deps_t_array(self) -> np.ndarray:
        # (a node's dependencies are met when it is created, or when its last predecessor
        # ends if that is later)
        deps = self.created_t_array.copy()
        sources, destinations = self.task_graph.edges()
        np.maximum.at(deps, destinations, self.end_array[sources])
        return deps

    @property
    def created_t_array(self) -> np.ndarray:
        if not (self.cfg.gen_cost or self.cfg.task_window):  # all created at 0 (left unset)
            return np.zeros(len(self.end_array))
        return self._NF[_CREATED_T]

    @functools.cached_property
    def stall_spans(self) -> list[tuple[str, str, float, float]]:
        tids, t0, t1 = (a.tolist() for a in self._spans)
        return [
            ("window", "generator", a, b) if g < 0 else ("pipeline_depth", f"task {g}", a, b)
            for g, a, b in zip(tids, t0, t1)
        ]

    def _scope(self, tid: int) -> int:
        """The pipeline_depth scope of a task (the engine's ``_scope``)."""
        scope = self.cfg.depth_scope
        if scope == "per_stream":
            return self.lane[tid] if self.cfg.streams else self.stream_of[tid]
        if scope == "per_pool":
            return int(self.task_graph.pool[tid])
        return 0

    # ------------------------------------------------------------------ bodies

    def _spec(self, kid: int) -> Any:
        return cached_spec(self._specs, self.kernels, self.task_graph.kernels, kid)

    def _run_body(self, tid: int, views: dict | None = None) -> None:
        """Run one task's body as the engine does when the task starts (threads.py calls
        this too); ``views`` keeps the views made, by region, for later tasks and runs."""
        tg = self.task_graph
        spec = self._spec(int(tg.kernel[tid]))
        body = spec.runnable
        if body is None:
            return
        arrays = self.arrays
        try:
            if views is None:
                v = [view(arrays[r.tensor], r) for r in tg.regions[tid]]
            else:
                v = [_kept_view(views, arrays, r) for r in tg.regions[tid]]
            result = body(*spec.arguments(tg.args[tid], v))
        except BODY_ERRORS as error:
            raise self._error(tid, spec, error) from error
        if result is not None:
            failed = returned(tid, spec, tg.coords[tid], result, v)
            if failed is not None:
                raise failed

    def _error(self, tid: int, spec: Any, error: BaseException) -> ExecutionError:
        """The ExecutionError of a failing body (or of a tensor it needs that is not bound)."""
        tg = self.task_graph
        for r in tg.regions[tid]:
            if self.arrays.get(r.tensor) is None:
                failed = ExecutionError(
                    tid,
                    spec.name,
                    tg.coords[tid],
                    f"tensor '{r.tensor}' is not bound (the functional mode runs "
                    f"@{spec.name}'s body on it: bind({r.tensor}=array))",
                )
                failed.__suppress_context__ = True
                return failed
        return ExecutionError(tid, spec.name, tg.coords[tid], error)

    def run_bodies(
        self, progress: Any = None, views: dict | None = None, runnable: list | None = None
    ) -> None:
        """The functional mode: every started task's body in dispatch order, with the
        engine's views and errors; ``progress(created, ran)`` every 8192 bodies. ``views``
        (the Program's, emptied when a binding changes) keeps each region's view for the
        tasks and runs after: a program run again makes no views. ``runnable``: per kernel
        id its body (None: nothing to call), if the caller has them. Tile kernels' compiled
        bodies are called by the core (runtime/native_bodies.py), the others from here."""
        tg = self.task_graph
        if runnable is None:
            runnable = [self._spec(k).runnable for k in range(len(tg.kernels))]
        some = any(body is not None for body in runnable)
        if not some and progress is None:
            return  # (no body to run, no one to tell)
        if views is not None:
            _check_views(views, self.arrays)
        core_graph = some and getattr(tg.regions, "info", None) is not None
        native = NativeBodies.plan(tg, runnable, self.arrays) if core_graph else None
        made: list = []

        def bulk(tids: list) -> None:  # (decoding the graph in bulk: made when first needed)
            if not made:
                made.append(self._bulk_calls(views if views is not None else {}))
            made[0](tids)

        order = np.ascontiguousarray(self.order, np.int64)
        n = len(order)
        for a in range(0, n, _CHUNK):
            b = min(a + _CHUNK, n)
            if native is not None:
                i = native.run(order, a, b)
                while i < b:  # a task the core leaves to Python
                    bulk([int(order[i])])
                    i = native.run(order, i + 1, b)
            elif core_graph:
                bulk(order[a:b].tolist())
            elif some:  # the engine's graph
                kernel = tg.kernel
                for tid in order[a:b].tolist():
                    if runnable[kernel[tid]] is not None:
                        self._run_body(tid, views)
            if progress is not None:
                progress(self.created, b)

    def _bulk_calls(self, views: dict) -> Any:
        """For a graph the native core built: a function running the bodies of a list of
        tasks, decoding their scalars and regions from the graph's CSR arrays in bulk (no
        region objects; a view made once per region and kept in ``views``). None for another
        graph (the engine's)."""
        tg = self.task_graph
        rinfo, ainfo = getattr(tg.regions, "info", None), getattr(tg.args, "info", None)
        if rinfo is None or ainfo is None:
            return None
        site_of, kept, tensors = rinfo
        kinds = ainfo[1]
        values = tg.regions._values
        # A task's regions as bytes: the key of its views (one slice and one look-up a task).
        rbytes, rb = values.tobytes(), (tg.regions._begin * values.itemsize).tolist()
        ab, av = tg.args._begin.tolist(), tg.args._values.tolist()
        floats = any("f" in k for k in kinds)
        fv = tg.args._values.view(np.float64).tolist() if floats else None
        site, kernel = site_of.tolist(), tg.kernel.tolist()
        specs = [self._spec(k) for k in range(len(tg.kernels))]
        bodies = [sp.runnable for sp in specs]
        simple = [sp._layout == sorted(sp._layout) for sp in specs]
        plain = [not ("f" in k or "b" in k) for k in kinds]
        bases = _Bases(self.arrays, tensors)
        sites = int(site_of.max()) + 1 if len(site_of) else 0
        # (the regions' width in the key too: a build's values are int32 or int64)
        by_site = [views.setdefault((_SITE, s, values.itemsize), {}) for s in range(sites)]

        def made(tid: int, s: int, key: bytes) -> list:
            """The views of a task's regions, each made once per region (``views``)."""
            out = []
            size = values.itemsize
            raw = values[rb[tid] // size : rb[tid + 1] // size].tolist()  # (rb: in bytes)
            r = i = 0
            while r < len(raw):
                end = r + 3 + 3 * raw[r + 2]
                region = (s, i, *raw[r:end])
                v = views.get(region)
                if v is None:
                    v = views[region] = _raw_view(bases, raw[r:end], kept[s][i])
                out.append(v)
                r, i = end, i + 1
            by_site[s][key] = out
            return out

        def region_views(tid: int, s: int) -> list:
            key = rbytes[rb[tid] : rb[tid + 1]]
            return by_site[s].get(key) or made(tid, s, key)

        def call(tids: list) -> None:
            for tid in tids:
                kid = kernel[tid]
                body = bodies[kid]
                if body is None:
                    continue
                s = site[tid]
                a0, a1 = ab[tid], ab[tid + 1]
                if plain[s]:
                    args = av[a0:a1]
                else:
                    args = [
                        fv[a0 + j] if k == "f" else bool(av[a0 + j]) if k == "b" else av[a0 + j]
                        for j, k in enumerate(kinds[s])
                    ]
                try:
                    vs = region_views(tid, s)
                    if simple[kid]:
                        result = body(*args, *vs)
                    else:
                        result = body(*specs[kid].arguments(args, vs))
                except BODY_ERRORS as error:
                    raise self._error(tid, specs[kid], error) from error
                if result is not None:
                    failed = returned(tid, specs[kid], tg.coords[tid], result, vs)
                    if failed is not None:
                        raise failed

        return call


def _check_views(views: dict, arrays: Mapping[str, np.ndarray]) -> None:
    """Empty ``views`` unless every array they were made of is the one bound, unmoved."""
    where = {name: (id(a), *_geometry(a)) for name, a in arrays.items()}
    if views.get(_ARRAYS) != where:
        views.clear()
        views[_ARRAYS] = where


#: The key under which ``views`` remembers the arrays its views are of.
_ARRAYS = "arrays"
#: With a site's number and the regions' item size, the key of its tasks' views by their
#: regions' bytes.
_SITE = "site"


_ACCESS_IN = 0


def _raw_view(bases: _Bases, raw: list, kept: Any) -> Any:
    """``numpy_view`` of a region as the core encodes it (tensor, access, rank, offsets,
    sizes, strides) keeping the dimensions ``kept``; KeyError for a tensor not bound."""
    rank = raw[2]
    index: list[Any] = []
    for d in range(rank):
        o = raw[3 + d]
        if d in kept:
            n, st = raw[3 + rank + d], raw[3 + 2 * rank + d]
            index.append(slice(o, o + (n - 1) * st + 1 if n else o, st))
        else:
            index.append(o)
    return bases.of(raw[0], raw[1] == _ACCESS_IN)[tuple(index)]


class _Bases:
    """Per tensor the bound array, and for ``in`` regions a read-only view of it: views of
    that are read-only from birth (setting the flag on each view costs ~0.6 us)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], tensors: list) -> None:
        self.arrays, self.tensors = arrays, tensors
        self.made: dict[tuple[int, bool], Any] = {}

    def of(self, tensor: int, read_only: bool) -> Any:
        base = self.made.get((tensor, read_only))
        if base is None:
            base = self.arrays[self.tensors[tensor]]
            if read_only and base.__class__ is np.ndarray:
                base = base.view()
                base.flags.writeable = False
            self.made[tensor, read_only] = base
        return base


def _geometry(array: np.ndarray) -> tuple:
    return array.shape, array.strides, array.__array_interface__["data"][0]


def _kept_view(views: dict, arrays: Mapping[str, np.ndarray], r: Any) -> np.ndarray:
    key = (r.tensor, r.offsets, r.sizes, r.strides, r.kept, r.access)
    v = views.get(key)
    if v is None:
        v = views[key] = view(arrays[r.tensor], r)
    return v


def view(array: np.ndarray, r: Any) -> np.ndarray:
    """``kernels.numpy_view(array, r)``, faster where the kept dimensions are the trailing
    ones, whole: plain indexing (the same view: same shape, same memory)."""
    kept = getattr(r, "kept", None)
    if kept and r.unit:
        k0 = kept[0]
        off = r.offsets
        nd = len(off)
        if kept[-1] == nd - 1 and len(kept) == nd - k0 and array.ndim == nd:
            shape = array.shape
            sizes = r.sizes
            for d in kept:
                if off[d] or sizes[d] != shape[d]:
                    break
            else:
                v = array[off[:k0]] if k0 else array[()]
                if r.access == "in":
                    v = v.view()
                    v.flags.writeable = False
                return v
    return numpy_view(array, r)
