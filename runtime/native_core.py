"""The native runtime core (runtime/core): its one-time build, graphs, and scheduler.

The core is C++: the C API of ``runtime/core/pto_wsp_core.h`` over the rules it shares with
the Ascend host runtime (``runtime/ascend_host/src``: ``order.h``, the TensorMap and
``schedule_rules.h``). ``Core`` builds a task graph; ``Scheduler`` schedules a built graph as
the simulator's cycles mode does (docs/native.md); runtime/native_pipe.py runs pipelines. The core is compiled once per machine
with the system C++ compiler (``$CXX``, default g++) into a shared library cached under
``$PTO_WSP_CACHE`` (default: the temp directory's ``pto-wsp-cache``), keyed by a hash of its
sources, the compiler and the flags. ``library()`` builds it when the cache has none and
says so on stderr with the time it took; ``build()`` does it on purpose
(``python -m pto_wsp.runtime.native_core``). A machine without the compiler gets a
``NativeCoreError`` saying so.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from pto_wsp.errors import ErrorCode, PtoError
from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.runtime.kernels import ViewRegion

__all__ = [
    "MAX_RANK",
    "Core",
    "NativeCoreError",
    "Schedule",
    "Scheduler",
    "address_of",
    "build",
    "cache_root",
    "library",
]

_HERE = Path(__file__).resolve().parent
_SOURCES = [
    _HERE / "core" / "core.cpp",
    _HERE / "core" / "schedule.cpp",
    _HERE / "core" / "schedule_plain.cpp",
    _HERE / "core" / "stream.cpp",
    _HERE / "core" / "csp.cpp",
    _HERE / "core" / "bodies.cpp",
    _HERE / "ascend_host" / "src" / "tensormap.cpp",
]
_HEADERS = [
    _HERE / "core" / "pto_wsp_core.h",
    _HERE / "core" / "core_state.h",
    _HERE / "core" / "csp.h",
    _HERE / "core" / "csp_pipe.h",
    _HERE / "ascend_host" / "src" / "channel.h",
    _HERE / "core" / "scheduler.h",
    _HERE / "ascend_host" / "src" / "order.h",
    _HERE / "ascend_host" / "src" / "schedule_rules.h",
    _HERE / "ascend_host" / "src" / "tensormap.h",
    _HERE / "ascend_host" / "src" / "worker_pool.h",
]
#: The task ABI's generator (its header is written for the build).
_ABI = _HERE.parent / "lowering" / "ascend" / "abi.py"
#: The highest region rank (PTO_CORE_MAX_RANK of pto_wsp_core.h; tg-to-runtime-calls' too,
#: not imported from it: finding a compiled program imports no pass).
MAX_RANK = 8
_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-pthread"]
_ACCESS = ("in", "out", "inout")


class NativeCoreError(PtoError, RuntimeError):
    """The native core cannot be built (no compiler, or it failed), or a build with it failed."""

    code = ErrorCode.RESOURCE_NOT_AVAILABLE


def _cxx() -> str:
    return os.environ.get("CXX", "g++")


def cache_root() -> Path:
    """pto-wsp's cache of compiled code: ``$PTO_WSP_CACHE``, else the temp dir's pto-wsp-cache."""
    root = os.environ.get("PTO_WSP_CACHE")
    return Path(root) if root else Path(tempfile.gettempdir()) / "pto-wsp-cache"


def _task_abi() -> str:
    # The core's descriptors: only regions are used (the task ABI's TensorRegion and TaskIO).
    # Imported here: the Ascend backend is needed only to build the core, not to find it.
    from pto_wsp.lowering.ascend.abi import AbiLimits, task_abi_h

    return task_abi_h(AbiLimits(max_rank=MAX_RANK, max_args=1, max_io=1, max_coords=1))


def _key(compiler: str) -> str:
    h = hashlib.sha256()
    for part in [compiler, " ".join(_FLAGS), str(MAX_RANK)]:
        h.update(part.encode() + b"\0")
    for path in _SOURCES + _HEADERS + [_ABI]:
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def _compiler_id() -> str:
    try:
        run = subprocess.run([_cxx(), "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        raise NativeCoreError(
            f"the native runtime core needs a C++ compiler: cannot run {_cxx()!r} ({error}); "
            "install g++ or set $CXX"
        ) from None
    return run.stdout.splitlines()[0] if run.stdout else _cxx()


def build(quiet: bool = False) -> Path:
    """The core's shared library, compiled now unless the cache has it; return its path."""
    cache = cache_root() / "core"
    lib = cache / f"libpto_wsp_core-{_key(_compiler_id())}.so"
    if lib.exists():
        return lib
    cache.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=cache) as work:
        Path(work, "task_abi.h").write_text(_task_abi())
        tmp = Path(work, lib.name)
        includes = [f"-I{work}", f"-I{_HERE / 'core'}", f"-I{_HERE / 'ascend_host' / 'src'}"]
        cmd = [_cxx(), *_FLAGS, *includes, *map(str, _SOURCES), "-o", str(tmp)]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise NativeCoreError(
                f"building the native runtime core failed:\n{' '.join(cmd)}\n{run.stderr}"
            )
        os.replace(tmp, lib)  # atomic: a concurrent build leaves one complete library
    if not quiet:
        took = time.perf_counter() - start
        print(
            f"pto-wsp: built the native runtime core in {took:.1f} s (once per machine): {lib}",
            file=sys.stderr,
        )
    return lib


@cache
def library() -> Path:
    """The path of the core's shared library (built on first use, see ``build``)."""
    return build()


#: PtoGraph's arrays in its order, each with its element type.
_GRAPH_ARRAYS = {
    **dict.fromkeys(("kind", "pool", "domain"), np.dtype(np.uint8)),
    **dict.fromkeys(("kernel", "site", "fanin", "fanout_edges"), np.dtype(np.int32)),
    **dict.fromkeys(("target", "stream", "priority"), np.dtype(np.int64)),
    "fanout_begin": np.dtype(np.int32),
    "edge_kind": np.dtype(np.uint8),
    **dict.fromkeys(
        ("args_begin", "args", "coords_begin", "coords", "regions_begin", "regions"),
        np.dtype(np.int64),
    ),
    "regions32": np.dtype(np.int32),
}


#: The node columns the core leaves out (NULL) while every node has the default: the host
#: reads them as that value broadcast (no memory), the scheduler gets NULL back.
_DEFAULTS = {"target": -1, "stream": 0, "priority": 0}


def _sched_column(values: np.ndarray, name: str) -> np.ndarray | None:
    """A node column as the scheduler reads it: None (NULL) for the core's broadcast default."""
    uniform = len(values) > 0 and values.strides == (0,) and name in _DEFAULTS
    if uniform and values[0] == _DEFAULTS[name]:
        return None
    return np.ascontiguousarray(values, np.int64)


class _Graph(ctypes.Structure):
    # (addresses as plain ints: a POINTER field costs a cast per read)
    _fields_ = [
        *[(n, ctypes.c_int64) for n in ("num_nodes", "num_edges", "num_tasks")],
        *[(n, ctypes.c_void_p) for n in _GRAPH_ARRAYS],
    ]


@cache
def _api() -> ctypes.CDLL:
    # (every pointer a c_void_p, byref() results included: a ctypes pointer type costs tens
    # of microseconds the first time a process makes it)
    lib = ctypes.CDLL(str(library()))
    p, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    signatures = {
        "pto_core_new": (p, [i32, p, p]),
        "pto_core_free": (None, [p]),
        "pto_core_restart": (None, [p, i32, p, p]),
        "pto_core_again": (None, [p]),
        "pto_core_no_data_deps": (None, [p]),
        "pto_core_no_records": (None, [p]),
        "pto_core_max_nodes": (None, [p, i64]),
        "pto_core_max_edges": (None, [p, i64]),
        "pto_core_run": (i32, [p, p, p]),
        "pto_core_error": (ctypes.c_char_p, [p]),
        "pto_core_error_node": (i64, [p]),
        "pto_core_error_check": (i64, [p]),
        "pto_core_order_points": (i64, [p, p]),
        "pto_core_graph": (i32, [p, p, i32]),
        "pto_core_scheduler_new": (p, []),
        "pto_core_scheduler_free": (None, [p]),
        "pto_core_schedule": (i32, [p, p, p, p]),
        "pto_core_schedule_error": (ctypes.c_char_p, [p]),
        "pto_core_schedule_spans": (i64, [p, p, p, p]),
        "pto_core_schedule_collections": (i64, [p, p, p]),
        "pto_core_run_scheduled": (i32, [p, p, p, p, p, p, i64, p, i64, i64, p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


class _View:
    """Memory of the core as numpy's array interface (the array's base, keeping ``owner``).

    Not a ctypes array: ctypes makes a new type for each length (tens of microseconds, so a
    build of new sizes paid ~0.5 ms for its graph's arrays)."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, address: int, n: int, dtype: np.dtype, owner: Any) -> None:
        self.__array_interface__ = {
            "data": (address, False),
            "shape": (n,),
            "typestr": dtype.str,
            "version": 3,
        }
        self.owner = owner


def address_of(array: np.ndarray) -> int:
    """The address of a contiguous array's data (a tenth of ``array.ctypes.data``'s cost)."""
    try:
        return ctypes.addressof(_BYTE.from_buffer(array))
    except (TypeError, ValueError, BufferError):  # (read-only or empty)
        return array.ctypes.data


_BYTE = ctypes.c_byte
#: What holds a view of the core's memory when nobody else does: the Core's table, the
#: loop reading it and getrefcount's argument.
_UNHELD = 3


class _Memory:
    """A core's C object: freed when its Core and the last view of its arrays let go."""

    __slots__ = ("api", "ptr")

    def __init__(self, api: ctypes.CDLL, ptr: int) -> None:
        self.api, self.ptr = api, ptr

    def __del__(self) -> None:
        if self.ptr:
            self.api.pto_core_free(self.ptr)
            self.ptr = 0


class Core:
    """Graph builds on the native core: ``address`` goes to the compiled program as its
    context argument; ``graph()`` then reads the task graph it built. ``restart`` starts
    another build in the same memory, the numpy views of its arrays kept while they do not
    move (a graph built again makes no new views)."""

    def __init__(
        self, shapes: list[tuple[int, ...]], infer_data_deps: bool = True, records: bool = True
    ) -> None:
        """``shapes``: per tensor (program argument) its extents, -1 where unknown;
        ``infer_data_deps=False``: no data edges (structural and event edges only);
        ``records=False``: no task's scalars, coordinates or regions (see ``graph``)."""
        self._api = api = _api()
        self._tensors: tuple = ((), None)  # (shapes, pto_core_new's arguments for them)
        #: Per graph array: (address, length, its view) of the last build.
        self._views: dict[str, tuple[int, int, np.ndarray]] = {}
        self._g = _Graph()  # (pto_core_graph's answer)
        self._g_ref = ctypes.byref(self._g)
        self._fixed = b""  # (its bytes the last time)
        self._points = ctypes.POINTER(ctypes.c_int64)()  # (where the ordering points are)
        self._points_ref = ctypes.byref(self._points)
        memory = _Memory(api, api.pto_core_new(*self._arguments(shapes)))
        self._memory = memory
        self._ptr = self.address = memory.ptr
        self._start(shapes, infer_data_deps, records)

    def _arguments(self, shapes: list[tuple[int, ...]]) -> tuple:
        """pto_core_new's (number of tensors, ranks, extents), made once per shapes."""
        if self._tensors[0] == shapes:
            return self._tensors[1]
        if any(len(s) > MAX_RANK for s in shapes):
            raise NativeCoreError(f"the native core takes tensors of rank <= {MAX_RANK}")
        ranks = np.array([len(s) for s in shapes], dtype=np.int32)
        table = np.full((max(len(shapes), 1), MAX_RANK), -1, dtype=np.int64)
        for t, shape in enumerate(shapes):
            table[t, : len(shape)] = shape
        self._keep = (ranks, table)
        self._tensors = (list(shapes), (len(shapes), address_of(ranks), address_of(table)))
        return self._tensors[1]

    def _start(self, shapes: list[tuple[int, ...]], infer_data_deps: bool, records: bool) -> None:
        if not infer_data_deps:
            self._api.pto_core_no_data_deps(self._ptr)
        self._records = records
        if not records:
            self._api.pto_core_no_records(self._ptr)
        limits = max_nodes(), max_edges()
        self._api.pto_core_max_nodes(self._ptr, limits[0])
        self._api.pto_core_max_edges(self._ptr, limits[1])
        # (the last build's; _started None once it ran)
        self._started: tuple | None = (shapes, infer_data_deps, records)
        self._settings = (*self._started, limits)

    def restart(
        self, shapes: list[tuple[int, ...]], infer_data_deps: bool = True, records: bool = True
    ) -> bool:
        """Start another build on this core, in the memory of the last; False (nothing
        done) while a view of the last graph is held elsewhere: that graph stays as it is,
        and the next build needs a new Core."""
        settings = (shapes, infer_data_deps, records)
        if self._started == settings:
            return True  # (no build since the core started: nothing to start again)
        for _, _, v in self._views.values():  # (a loop: any() of a generator costs twice)
            if sys.getrefcount(v) > _UNHELD:
                return False
        if self._settings == (*settings, (max_nodes(), max_edges())):  # (built again: one call)
            self._api.pto_core_again(self._ptr)
            self._started = settings
        else:
            self._api.pto_core_restart(self._ptr, *self._arguments(shapes))
            self._start(shapes, infer_data_deps, records)
        return True

    def run(self, entry: int, args: Any, plan: Plan | None = None) -> bool:
        """Run the compiled program at ``entry`` (MLIR's packed interface) with the packed
        ``args`` on this core; its first error stops it: False (``error()`` says why).
        ``plan``: its schedule made beside the build when the core takes it
        (``plan.scheduled``; ``Scheduler.planned`` reads it)."""
        self._started = None
        if plan is None:
            return self._api.pto_core_run(self._ptr, entry, args) == 0
        return plan.run(self._ptr, entry, args)

    def error(self) -> tuple[str, int, int]:
        """Why the build failed ('' if it did not), its node and its failed check (-1: none)."""
        api = self._api
        return (
            api.pto_core_error(self._ptr).decode(),
            api.pto_core_error_node(self._ptr),
            api.pto_core_error_check(self._ptr),
        )

    def order_points(self) -> np.ndarray:
        """Per ordering point of the build, how many tasks preceded it."""
        n = self._api.pto_core_order_points(self._ptr, self._points_ref)
        return _copied(self._points, n)

    def _view(self, g: _Graph, name: str, n: int) -> np.ndarray:
        """The graph's array ``name`` (n entries) as a numpy array, without a copy: the last
        build's view while the array has not moved; the view keeps the core's memory."""
        address = getattr(g, name)
        kept = self._views.get(name)
        if kept is not None and kept[0] == address and kept[1] == n:
            return kept[2]
        dtype = _GRAPH_ARRAYS[name]
        if address is None and name in _DEFAULTS:  # (every node the default: not stored)
            view = np.broadcast_to(np.asarray(_DEFAULTS[name], dtype), (n,))
        elif n:
            view = np.asarray(_View(address, n, dtype, self._memory))
        else:
            view = np.zeros(0, dtype)
        self._views[name] = (address, n, view)
        return view

    def graph(
        self,
        kernels: list[str],
        sites: list[list[str]],
        tensors: list[str],
        scalars: Sequence[str] = (),
        kept: Sequence[Sequence[Sequence[int]]] = (),
        again: Callable[[], TaskGraph] | None = None,
    ) -> TaskGraph:
        """The task graph built, as runtime/graph.py's TaskGraph: ``kernels`` names kernel
        ids, ``sites`` gives each task site's coordinate names, ``tensors`` each tensor;
        per site, ``scalars`` how to read its scalars (``i`` int, ``b`` bool, ``f`` float
        bits) and ``kept`` per region the dimensions its view keeps (tg-to-runtime-calls'
        ``pto.scalars`` and ``pto.kept``; without them: ints, every dimension). A build
        without records takes its args, regions and coords from ``again()`` (the same
        graph built with them), called when one of them is first read."""
        g = self._g
        if self._api.pto_core_graph(self._ptr, self._g_ref, 0) != 0:
            raise NativeCoreError(self.error()[0])
        n, e = g.num_nodes, g.num_edges
        # (the same sizes and addresses as the last build: its views of the arrays of n,
        # n + 1 and e entries, without a test each)
        fixed = bytes(g)
        same = fixed == self._fixed and n
        self._fixed = fixed

        if self._records:
            view = self._view  # (its test of each array: their lengths are not in g)

            def per_node(begin, values, make, info=None) -> _PerNode:
                starts = view(g, begin, n + 1)
                return _PerNode(starts, view(g, values, int(starts[-1])), make, info)

            site = view(g, "site", n)
            fields = (
                per_node("args_begin", "args", _args(site, scalars), (site, scalars)),
                per_node(
                    "regions_begin",
                    "regions" if g.regions else "regions32",  # (int32 when every value fits)
                    _regions(tensors, site, kept),
                    (site, kept, tensors),
                ),
                per_node("coords_begin", "coords", _coords(site, sites)),
            )
        elif again is None:
            raise NativeCoreError("a build without records needs again() to read them")
        else:
            load = _Once(again)  # (one build for the three fields)
            fields = (
                _Unrecorded(n, "args", load),
                _Unrecorded(n, "regions", load),
                _Unrecorded(n, "coords", load),
            )
        if same:
            views = self._views
            columns = {name: views[name][2] for name in _NODE_ARRAYS}
        else:
            columns = {name: self._view(g, name, n) for name in _NODE_ARRAYS}
        columns["kernels"] = list(kernels)
        columns["args"], columns["regions"], columns["coords"] = fields
        return _CoreGraph.built(lambda: self._fanout(n, e), e, columns)

    def _fanout(self, n: int, e: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The build's fanout_begin, fanout_edges and edge_kind (the CSR made now, once)."""
        g = _Graph()
        if self._api.pto_core_graph(self._ptr, ctypes.byref(g), 1) != 0:
            raise NativeCoreError(self.error()[0])
        begin = self._view(g, "fanout_begin", n + 1) if n else np.zeros(1, np.int32)
        return begin, self._view(g, "fanout_edges", e), self._view(g, "edge_kind", e)


class _CoreGraph(TaskGraph):
    """A TaskGraph built on the core whose fanout (its CSR) the core makes when it is first
    read: a schedule made beside the build reads none of it (~7 ns a task less)."""

    _CSR = ("fanout_begin", "fanout_edges", "edge_kind")

    def __init__(self, **fields: Any) -> None:
        """A copy made by ``dataclasses.replace``: every field given, the CSR's too."""
        self._load, self._csr = None, tuple(fields.pop(name) for name in self._CSR)
        self._num_edges = len(self._csr[1])
        super().__init__(**dict.fromkeys(self._CSR), **fields)

    @classmethod
    def built(cls, fanout: Callable[[], tuple], num_edges: int, fields: dict) -> _CoreGraph:
        """The graph of a build: ``fields`` the TaskGraph's but the CSR, which ``fanout()``
        makes (``num_edges`` edges). (Its attributes set at once: the dataclass's __init__
        costs several times as much.)"""
        graph = cls.__new__(cls)
        fields["_load"], fields["_csr"], fields["_num_edges"] = fanout, None, num_edges
        fields["_pred"] = None
        graph.__dict__ = fields
        return graph

    def _fanout(self, i: int) -> np.ndarray:
        if self._csr is None:
            self._csr = self._load()
        return self._csr[i]

    # (TaskGraph's __init__ sets them: ignored)
    fanout_begin = property(lambda self: self._fanout(0), lambda self, _: None)
    fanout_edges = property(lambda self: self._fanout(1), lambda self, _: None)
    edge_kind = property(lambda self: self._fanout(2), lambda self, _: None)

    @property
    def num_edges(self) -> int:
        """Edges of every kind."""
        return self._num_edges


#: The graph's arrays of one entry per node, as TaskGraph names them.
_NODE_ARRAYS = ("kind", "kernel", "pool", "domain", "target", "stream", "priority", "fanin")


def _args(site: np.ndarray, scalars: Sequence[str]):
    """A node's scalars as the kernel takes them: ints, bools, floats (from their f64 bits)."""

    def make(values: np.ndarray, node: int) -> tuple:
        s = int(site[node])
        kinds = scalars[s] if 0 <= s < len(scalars) else ""
        if "f" not in kinds and "b" not in kinds:
            return tuple(values.tolist())
        floats = values.view(np.float64).tolist()
        return tuple(
            floats[i] if k == "f" else bool(v) if k == "b" else v
            for i, (k, v) in enumerate(zip(kinds, values.tolist()))
        )

    return make


@cache
def max_nodes() -> int:
    """The most nodes a build may make: about 1 kB each (the graph, then the schedule's
    arrays), in this machine's memory."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        memory = 16 << 30
    return max(1 << 20, memory // 1024)


#: The most edges a graph may have: fanout_begin is int32.
MAX_EDGES = (1 << 31) - 1


@cache
def max_edges() -> int:
    """The most edges a build may make: ~40 B each (the core's arrays and the copies a host
    makes of them), in this machine's memory, and never more than ``MAX_EDGES``."""
    return min(MAX_EDGES, max(1 << 24, max_nodes() * 1024 // 40))


def _regions(tensors: list[str], site: np.ndarray, kept: Sequence[Sequence[Sequence[int]]]):
    def make(values: np.ndarray, node: int) -> tuple[TensorRegion, ...]:
        out = []
        v = values.tolist()
        s = int(site[node])
        dims = kept[s] if 0 <= s < len(kept) else ()
        at = 0
        while at < len(v):
            tensor, access, rank = v[at : at + 3]
            at += 3
            offsets, sizes, strides = (
                tuple(v[at : at + rank]),
                tuple(v[at + rank : at + 2 * rank]),
                tuple(v[at + 2 * rank : at + 3 * rank]),
            )
            at += 3 * rank
            keep = tuple(dims[len(out)]) if len(out) < len(dims) else tuple(range(rank))
            out.append(
                ViewRegion.of(tensors[tensor], offsets, sizes, strides, _ACCESS[access], keep)
            )
        return tuple(out)

    return make


def _coords(site: np.ndarray, sites: list[list[str]]):
    def make(values: np.ndarray, node: int) -> tuple[tuple[str, int], ...]:
        s = int(site[node])
        return tuple(zip(sites[s], values.tolist())) if s >= 0 else ()

    return make


class _PerNode:
    """A per-node field (args, regions, coords) in CSR form, each node's tuple made when
    first asked for: a large graph's tuples cost more than its build."""

    def __init__(self, begin: np.ndarray, values: np.ndarray, make, info: Any = None) -> None:
        self._begin = begin
        self._values = values
        self._make = make
        self._n = len(begin) - 1
        #: What ``make`` reads besides the values: (site per node, per-site tables...), for
        #: readers that decode the CSR in bulk (runtime/run.py).
        self.info = info

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
        return self._make(self._values[self._begin[i] : self._begin[i + 1]], i)

    def __iter__(self):
        return (self[i] for i in range(self._n))

    def __eq__(self, other: object) -> bool:
        try:
            return list(self) == list(other)  # type: ignore[call-overload]
        except TypeError:
            return False


class _Once:
    """A function's result, computed on the first call (functools.cache costs ~1 us to
    make, on every build)."""

    __slots__ = ("_function", "_result")

    def __init__(self, function: Callable[[], Any]) -> None:
        self._function = function

    def __call__(self) -> Any:
        try:
            return self._result
        except AttributeError:
            self._result = self._function()
            return self._result


class _Unrecorded(_PerNode):
    """A per-node field a build did not record: ``load()`` (the graph built again with
    records) gives it when it is first read."""

    def __init__(self, n: int, name: str, load: Callable[[], TaskGraph]) -> None:
        self._n = n
        self._name = name
        self._load = load

    def __getattr__(self, attribute: str) -> Any:
        # (called for an attribute not set yet: the recorded field's, then set for good)
        if attribute not in ("_begin", "_values", "_make", "info"):
            raise AttributeError(attribute)
        field = getattr(self._load(), self._name)
        for name in ("_begin", "_values", "_make", "info"):
            setattr(self, name, getattr(field, name))
        return getattr(self, attribute)


class _SchedGraph(ctypes.Structure):
    _fields_ = [
        ("num_nodes", ctypes.c_int64),
        *[(n, ctypes.c_void_p) for n in ("kind", "pool")],
        *[(n, ctypes.c_void_p) for n in ("cost", "priority", "target", "stream", "fanout_begin")],
        *[(n, ctypes.c_void_p) for n in ("fanin", "fanout_edges", "kernel", "kernel_cost")],
        ("num_kernel_costs", ctypes.c_int64),
    ]


_CONFIG_INTS = (
    "ready_priority",
    "work_steal",
    "streams",
    "stream_keyed",
    "timing",
    "timing_n",
    "depth",
    "depth_scope",
    "batch_deps",
    "gen_cost",
    "task_window",
)


class _SchedConfig(ctypes.Structure):
    _fields_ = [
        ("workers", ctypes.c_int64),
        ("worker_pool", ctypes.c_void_p),
        *[(n, ctypes.c_int64) for n in _CONFIG_INTS],
        ("interval", ctypes.c_double),
        ("order_after", ctypes.c_void_p),
        ("window_abort", ctypes.c_int64),
        ("stop_at", ctypes.c_int64),
        ("general", ctypes.c_int64),
    ]


class _SchedOut(ctypes.Structure):
    _fields_ = [(n, ctypes.c_void_p) for n in ("ni", "nf", "order", "s", "r")]


#: The graph's arrays the scheduler reads (PtoSchedGraph's fields) and their types (None:
#: int64, NULL for a column the core left out: _sched_column).
_SCHED_COLUMNS = (
    ("kind", np.uint8),
    ("pool", np.uint8),
    ("priority", None),
    ("target", None),
    ("stream", None),
    ("fanout_begin", np.int32),
    ("fanin", np.int32),
    ("fanout_edges", np.int32),
    ("kernel", np.int32),
)


def _sched_config(config: Any) -> tuple[_SchedConfig, np.ndarray]:
    """PtoSchedConfig of a SimConfig (order_after, stop_at and general left to the run),
    and the workers' pools it points to."""
    workers = max(1, int(config.workers))
    pools = np.full(workers, 255, np.uint8)  # (workers beyond worker_pools serve any pool)
    given = config.pools()[: config.workers]
    pools[: len(given)] = given
    timing = _TIMING.get(config.timing, 2)
    interval = config.cycles_per_ms / config.timing_n if timing == 1 and config.timing_n else 0.0
    values = {
        "ready_priority": config.ready == "priority",
        "work_steal": config.dispatch == "work_steal",
        "streams": config.streams,
        "stream_keyed": bool(config.stream_keyed),
        "timing": timing,
        "timing_n": config.timing_n,
        "depth": config.pipeline_depth,
        "depth_scope": _SCOPE.get(config.depth_scope, 0),
        "batch_deps": config.batch_deps,
        "gen_cost": config.gen_cost,
        "task_window": config.task_window,
    }
    c = _SchedConfig(
        workers,
        address_of(pools),
        *[int(values[k]) for k in _CONFIG_INTS],
        float(interval),
        None,
        int(config.window_overflow == "abort"),
        -1,
        0,
    )
    return c, pools


_STREAM_WAIT = 1 << 16  # (PTO_STREAM_WAIT)
_TIMING = {"immediate": 0, "rate_limit": 1, "batched": 2, "interleaved": 3}
_SCOPE = {"global": 0, "per_stream": 1, "per_pool": 2}
#: The counters in ``Schedule.S`` before the tasks run per worker, the floats in ``R``
#: before the busy cycles per worker.
_NS, _NR = 21, 8
_NCREATED = 7  # (S: the nodes created)
_SPANN, _ORDN, _GCN = 12, 13, 17  # (S: stall spans, tasks dispatched, collections)
#: A schedule's spans (task, from, to) when it has none (and its collections: the first two).
_NO_SPANS = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
for _empty in _NO_SPANS:
    _empty.flags.writeable = False


class Schedule(NamedTuple):
    """A cycles-mode schedule (runtime/run.py reads it): ``NI`` (4, nodes) int rows (worker,
    issue number, stream, lane), ``NF`` (5, nodes) float rows (start, end, issued,
    dependencies met, created: left unset without a generator cost or a task window, when
    every node is created at 0). A plain schedule (``S[9]`` 1: timing immediate, no streams,
    pipeline_depth, task window, work stealing or batch_deps, one priority) issues each task
    as it is created and leaves issue numbers, streams, lanes, issue times and
    dependencies-met times unset (``Run`` makes them from the graph and the end times). ``S`` counters then tasks run per worker,
    ``R`` clock, stalls by cause, busy cycles per worker, ``order`` the dispatch order,
    ``spans`` (task or -1 for the generator, from, to) and the task window's TensorMap
    collections (after ``gc_at[i]`` nodes, the accesses of nodes before ``gc_old[i]``)."""

    NI: np.ndarray
    NF: np.ndarray
    S: np.ndarray
    R: np.ndarray
    order: np.ndarray
    spans: tuple[np.ndarray, np.ndarray, np.ndarray]
    gc_at: np.ndarray
    gc_old: np.ndarray


class Plan:
    """A plain schedule to make beside a build (``Scheduler.plan``, ``Core.run``): its
    outputs hold ``capacity`` nodes; ``scheduled`` says whether the core made it."""

    __slots__ = (
        "_call", "_args", "_flag", "_table", "key", "capacity", "outputs", "out", "scheduled"
    )  # fmt: skip

    def __init__(self, call, args: tuple, key: tuple, outputs: tuple, table: np.ndarray) -> None:
        """``outputs``: the views (NI, NF, order, S, R) of what the core writes and the
        structure of their addresses; ``table`` the kernel costs it reads (kept alive)."""
        self._flag = ctypes.c_int32()
        self._call, self._args = call, (*args, ctypes.byref(self._flag))
        self.key, self.capacity, self._table = key, key[0], table
        self.outputs, self.out = outputs
        self.scheduled = False

    def run(self, core: int, entry: int, args: Any) -> bool:
        """The build of ``entry`` on ``core`` with the schedule beside it: False if it failed."""
        ok = self._call(core, entry, args, *self._args) == 0
        self.scheduled = ok and self._flag.value == 1
        return ok


class Scheduler:
    """The core's virtual-time scheduler (cycles mode); its memory is kept from run to run."""

    #: The outputs' memory of the largest Scheduler freed: a new Scheduler of the process (a
    #: new Program's first execute) writes its rows there instead of in memory mapped for it
    #: (~25 us at 13k), and finds the pages the freed one touched.
    _kept: list[np.ndarray] = []

    def __init__(self, config: Any = None) -> None:
        """``config``: the SimConfig of the runs to come, made ready now (optional)."""
        self._api = _api()
        self._ptr = self._api.pto_core_scheduler_new()
        # Where a run's stall spans (task, from, to) and TensorMap collections (at, oldest)
        # are: the scheduler's arrays, copied after each run.
        types = (ctypes.c_int64, ctypes.c_double, ctypes.c_double, ctypes.c_int64, ctypes.c_int64)
        self._where = [ctypes.POINTER(t)() for t in types]
        self._where_refs = [ctypes.byref(p) for p in self._where]
        # The outputs (NI, NF, order: 80 B a node, then the counters S and R), kept for the
        # next run unless a schedule of an earlier run still views them.
        self._out = np.empty(0, np.int64)
        #: (a copy of the last SimConfig, its PtoSchedConfig, the pools that points to).
        self._kept_config: tuple | None = None
        #: (weak references to the graph's columns, their _SchedGraph) of the last run.
        self._kept_graph: tuple | None = None
        self._table = np.zeros(1, np.int64)  # kernel costs, the barriers' first
        self._given: Any = None  # (the kernel costs the table was made of)
        #: The last plan, and the references to the outputs while nobody else views them.
        self._plan: Plan | None = None
        self._plan_held = 0
        if config is not None:
            self._config(config, None, (), -1)

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._api.pto_core_scheduler_free(ptr)
            self._ptr = None
        out, kept = getattr(self, "_out", None), self._kept
        if out is not None and len(out) > max(map(len, kept), default=0):
            kept[:] = [out]

    def run(
        self,
        graph: TaskGraph,
        costs: np.ndarray | None,
        config: Any,
        order_points: Sequence[int] = (),
        stop_at: int = -1,
        general: bool = False,
        kernel_costs: np.ndarray | None = None,
    ) -> Schedule:
        """Schedule ``graph`` as the engine runs it with ``config`` (a SimConfig), each node
        costing ``costs[node]`` cycles (``costs`` None: its kernel's ``kernel_costs[kernel]``,
        a barrier 0); ``order_points`` lists how many tasks preceded each ordering point
        (batch_deps flushes there). With task_window's overflow=abort the run stops at the
        creation that finds the window full, and with ``stop_at`` before the creation of that
        task (by number): ``Schedule.stopped`` then says so. ``general``: the general loop
        even for a plain schedule (tests compare the two). NativeCoreError when it cannot."""
        n = graph.num_nodes
        if graph.num_edges > MAX_EDGES:
            raise NativeCoreError(f"a graph of {graph.num_edges} edges, more than {MAX_EDGES}")
        g = self._graph(graph)
        if costs is not None:
            costs = np.ascontiguousarray(costs, np.int64)
            if len(costs) != n:
                raise NativeCoreError(f"{len(costs)} costs for a graph of {n} nodes")
            g.cost, g.kernel_cost, g.num_kernel_costs = address_of(costs), None, 0
        else:
            table = self._kernel_costs(kernel_costs)
            g.cost, g.kernel_cost, g.num_kernel_costs = None, address_of(table), len(table)
        c = self._config(config, graph, order_points, stop_at, general)
        kept = self._plan
        if (  # (a plan of this size and config the core declined: its outputs, kept)
            kept is not None
            and kept.capacity == n > 0
            and kept.key[3] == id(c)
            and self._held(kept) == self._plan_held
        ):
            (NI, NF, order, S, R), out = kept.outputs, kept.out
        else:
            self._plan = None  # (its views of the outputs: this run reuses them)
            (NI, NF, order, S, R), out = self._outputs(n, max(n, 1), c.workers)
        api = self._api
        if api.pto_core_schedule(self._ptr, ctypes.byref(g), ctypes.byref(c), ctypes.byref(out)):
            raise NativeCoreError(api.pto_core_schedule_error(self._ptr).decode())
        spans = self._spans() if S[_SPANN] else _NO_SPANS
        collections = self._collections() if S[_GCN] else _NO_SPANS[:2]
        return Schedule(NI, NF, S, R, order[: S[_ORDN]], spans, *collections)

    def plan(
        self,
        config: Any,
        kernel_costs: np.ndarray,
        capacity: int,
        chunk: int = 64,
        interleave: bool = False,
    ) -> Plan:
        """A schedule with ``config`` of the graph the next build makes (``Core.run``),
        every node costing its kernel's ``kernel_costs[kernel]`` (a barrier 0), in outputs
        of ``capacity`` nodes: made beside the build when the schedule is plain (timing
        immediate, no streams, pipeline_depth, task window, work stealing, batch_deps,
        ready priority or generator cost), every kernel costs at least 1, the graph fits
        and the process may run on two CPUs; the build
        publishes its nodes to it ``chunk`` at a time (1-4,096). ``interleave`` (tests):
        the build starts only once the schedule runs. The last plan again while its
        outputs are viewed by nobody else and nothing changed (a Program's later executes)."""
        table = self._kernel_costs(kernel_costs)
        c = self._config(config, None, (), -1)
        key = (capacity, chunk, interleave, id(c), id(table))  # (both kept by the plan)
        kept = self._plan
        if kept is not None and kept.key == key and self._held(kept) == self._plan_held:
            kept.scheduled = False
            return kept
        self._plan = None
        outputs = self._outputs(capacity, capacity, c.workers)
        out = outputs[1]
        args = (
            self._ptr,
            ctypes.byref(c),
            address_of(table),
            len(table),
            ctypes.byref(out),
            capacity,
            chunk | (_STREAM_WAIT if interleave else 0),
        )
        # (the plan keeps what the core reads: the config and the outputs' addresses by
        # their byref, the table as well)
        self._plan = Plan(self._api.pto_core_run_scheduled, args, key, outputs, table)
        del outputs  # (counted as nobody else's: the plan's own references only)
        self._plan_held = self._held(self._plan)
        return self._plan

    def _held(self, plan: Plan) -> int:
        """References to the outputs' memory and to the plan's views of it: more than when
        the plan was made while a schedule made of them is held."""
        return sys.getrefcount(self._out) + sum(map(sys.getrefcount, plan.outputs))

    def planned(self, plan: Plan, n: int) -> Schedule:
        """The schedule ``plan`` made beside a build of ``n`` nodes (``plan.scheduled``)."""
        NI, NF, order, S, R = plan.outputs
        if S[_NCREATED] != n:  # (every node of the build scheduled, or none of it is read)
            raise NativeCoreError(
                f"internal: the schedule beside the build has {S[_NCREATED]} of {n} nodes"
            )
        if n != plan.capacity:
            NI, NF = NI[:, :n], NF[:, :n]
        return Schedule(NI, NF, S, R, order[: S[_ORDN]], _NO_SPANS, *_NO_SPANS[:2])

    def _graph(self, graph: TaskGraph) -> _SchedGraph:
        """The scheduler's view of ``graph`` (costs left to the caller): the last run's while
        it read the same arrays in place (a Program's graph built again in the same memory)."""
        columns = tuple(getattr(graph, name) for name, _ in _SCHED_COLUMNS)
        kept = self._kept_graph
        if kept is not None:
            for r, a in zip(kept[0], columns):
                if r() is not a:
                    break
            else:
                return kept[1]
        keep = [
            _sched_column(a, name) if dtype is None else np.ascontiguousarray(a, dtype)
            for a, (name, dtype) in zip(columns, _SCHED_COLUMNS)
        ]
        g = _SchedGraph(
            num_nodes=graph.num_nodes,
            **{
                name: None if a is None else address_of(a)
                for a, (name, _) in zip(keep, _SCHED_COLUMNS)
            },
        )
        # Kept only when every array is read in place (a copy would miss changes to it), and
        # by weak references: a view held here would keep the core from building again in
        # its memory. While they all lead to the caller's arrays, the addresses are theirs.
        in_place = all(a is None or a is b for a, b in zip(keep, columns))
        self._kept_graph = (tuple(map(weakref.ref, columns)), g) if in_place else None
        self._keep = None if in_place else keep  # (copies: alive while the scheduler reads)
        return g

    def _kernel_costs(self, kernel_costs: np.ndarray | None) -> np.ndarray:
        """The scheduler's table of kernel costs: the barriers' 0, then ``kernel_costs``
        (the last table for the last read-only array given: it cannot have changed)."""
        last = self._given
        if kernel_costs is last and last is not None and not last.flags.writeable:
            return self._table
        given = np.asarray(() if kernel_costs is None else kernel_costs, np.int64)
        table = self._table
        if len(table) != len(given) + 1 or table[1:].tobytes() != given.tobytes():
            table = self._table = np.zeros(len(given) + 1, np.int64)
            table[1:] = given
        self._given = kernel_costs if isinstance(kernel_costs, np.ndarray) else None
        return table

    def _config(
        self,
        config: Any,
        graph: TaskGraph | None,
        order_points: Sequence[int],
        stop_at: int,
        general: bool = False,
    ) -> _SchedConfig:
        """The scheduler's directives of ``config`` for ``graph``: made again only when
        ``config`` changed."""
        kept = self._kept_config
        if kept is None or kept[0] != config:
            kept = self._kept_config = (dataclasses.replace(config), *_sched_config(config))
        c = kept[1]
        c.stop_at, c.general = int(stop_at), int(general)
        c.order_after = None
        if config.batch_deps and graph is not None:
            n_tasks = graph.num_tasks
            after = np.zeros(n_tasks + 1, np.uint8)
            points = np.asarray(order_points, np.int64)
            after[points[(points > 0) & (points <= n_tasks)]] = 1
            self._after = after  # (alive while the scheduler reads it)
            c.order_after = address_of(after)
        return c

    def _outputs(self, n: int, n_order: int, workers: int) -> tuple:
        """The views NI (4, n), NF (5, n), order (n_order), S and R of the kept memory, and
        the structure of their addresses: a new block when a schedule still views the last
        (its Run is held) or the block is too small."""
        counters = 9 * n + n_order
        size = counters + _NS + _NR + 2 * workers
        # Held by self._out, getrefcount's argument and each view of an earlier schedule.
        if sys.getrefcount(self._out) > 2 or len(self._out) < size:
            self._out = self._memory(size)
        out = self._out
        at = address_of(out)
        floats = counters + _NS + workers
        views = (
            out[: 4 * n].reshape(4, n),
            out[4 * n : 9 * n].view(np.float64).reshape(5, n),
            out[9 * n : counters],
            out[counters:floats],
            out[floats:size].view(np.float64),
        )
        return views, _SchedOut(at, at + 32 * n, at + 72 * n, at + 8 * counters, at + 8 * floats)

    def _memory(self, size: int) -> np.ndarray:
        """Memory for outputs of ``size`` values: the kept block if it is large enough and
        nobody views it (held by the list and getrefcount's argument), else new."""
        kept = self._kept
        if kept and len(kept[0]) >= size and sys.getrefcount(kept[0]) == 2:
            return kept.pop()
        return np.empty(size, np.int64)

    def _spans(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        tid, t0, t1 = self._where[:3]
        k = self._api.pto_core_schedule_spans(self._ptr, *self._where_refs[:3])
        return _copied(tid, k), _copied(t0, k), _copied(t1, k)

    def _collections(self) -> tuple[np.ndarray, np.ndarray]:
        at, old = self._where[3:]
        k = self._api.pto_core_schedule_collections(self._ptr, *self._where_refs[3:])
        return _copied(at, k), _copied(old, k)


def _copied(pointer, n: int) -> np.ndarray:
    """A copy of the core's array at ``pointer`` (n entries; reused by the next run)."""
    dtype = _DTYPES[pointer._type_]
    if n == 0:
        return np.zeros(0, dtype)
    address = ctypes.cast(pointer, ctypes.c_void_p).value
    return np.asarray(_View(address, n, dtype, None)).copy()


#: numpy's types of the C types the core's arrays hold (numpy's own conversion of a ctypes
#: type takes microseconds, and its first one much more).
_DTYPES = {
    ctypes.c_int64: np.dtype(np.int64),
    ctypes.c_int32: np.dtype(np.int32),
    ctypes.c_uint8: np.dtype(np.uint8),
    ctypes.c_double: np.dtype(np.float64),
}


if __name__ == "__main__":
    print(build())
