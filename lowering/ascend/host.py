"""The host-built Ascend program: the emitted tree compiled with g++ and run through ctypes.

``AscendProgram`` has the Program API of seed 001 §7 (as the CPU simulator's): bind numpy
arrays and scalars by argument name, ``execute()`` (or ``execute_async()`` then
``synchronize()``), ``is_complete()``, ``elapsed_ms()``, ``stats()``; plus ``graph()``, the task
graph the run created (with ``record=True``), in runtime/graph.py's ``TaskGraph`` form so it
compares with ``tg-materialize``'s.

Why ctypes and not a subprocess: arrays are passed by pointer (no copies, no files), the
library is loaded once per process (it is cached by content hash, see build.py), and the
call releases the GIL, so ``execute_async`` is a plain thread. Kernel bodies are C++ the user
wrote, so a crash in one ends the process — the price of zero-copy.
"""

from __future__ import annotations

import ctypes
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pto_wsp import errors
from pto_wsp.errors import ResourceError
from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.lowering.taskgraph import EDGE_KINDS, TaskGraph

from .emit import EmittedTree, ProgramSig

__all__ = ["AscendProgram", "ExecutionError", "ProgramStats", "ResourceError", "Unbacked"]


class ExecutionError(errors.ExecutionError):
    """A task or the orchestration failed (seed 001 §10): the host runtime's message names the
    task (id, kernel, coords). The simulator's class, so one ``except`` serves both targets."""

    def __init__(self, message: str) -> None:
        RuntimeError.__init__(self, message)


@dataclass(frozen=True)
class Unbacked:
    """A tensor binding with a shape and no memory, for runs whose kernels are all empty stubs
    (benchmarks of the runtime itself: a LLaMA layer's tensors would take gigabytes). Each
    gets a distinct address no kernel may touch; refused when a kernel has a body."""

    shape: tuple[int, ...]


class _HostArg(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("elem_bytes", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("scalar", ctypes.c_int64),
        ("data", ctypes.c_void_p),
        ("shape", ctypes.c_int64 * 16),
    ]


class _HostOptions(ctypes.Structure):
    _fields_ = [
        ("workers", ctypes.c_int32),
        ("record", ctypes.c_int32),
        ("ring_capacity", ctypes.c_int64),
    ]


_STAT_FIELDS = (
    "num_nodes",
    "num_tasks",
    "num_barriers",
    "num_edges",
    "num_wired_edges",
    "num_workers",
    "num_streams",
    "window_stalls",
    "ring_stalls",
    "max_live",
    "build_ns",
    "total_ns",
)


class _HostStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in _STAT_FIELDS] + [
        ("pool_tasks", ctypes.c_int64 * 3),
        ("edge_kinds", ctypes.c_int64 * 4),
        ("build_cpu_ns", ctypes.c_int64),
        ("worker_cpu_ns", ctypes.c_int64),
    ]


@dataclass(frozen=True)
class ProgramStats:
    """What one execution did: seed 001 §7.1's ProgramStats with the CPU simulator's names
    (runtime/program.py Stats) where they mean the same, and the host runtime's own figures.
    Times are wall-clock milliseconds; also readable as a mapping (``stats["num_tasks"]``)."""

    num_tasks: int
    num_barriers: int
    num_nodes: int
    num_edges: int  # dependencies found: the edges of tg-materialize's graph
    edges_by_kind: dict[str, int]
    num_wired_edges: int  # of those, the ones whose predecessor was still running
    num_streams: int
    num_workers: int
    num_aicpus: int
    tasks_per_pool: dict[str, int]
    tasks_per_worker: list[int]
    window_stalls: int  # times the orchestrator waited for the task window
    ring_stalls: int  # times it waited for a descriptor slot
    max_in_flight: int  # most tasks created and not yet completed
    compile_time_ms: float  # emission + g++ (small when the build was cached)
    build_time_ms: float  # the orchestration: task generation + dependency inference
    execute_time_ms: float  # orchestration start to the last task's completion
    build_cpu_ms: float  # CPU time of the orchestrating thread
    worker_cpu_ms: float  # CPU time of the worker threads, summed

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return asdict(self)

    def summary(self) -> str:
        """A few readable lines."""
        kinds = ", ".join(f"{k} {v}" for k, v in self.edges_by_kind.items() if v)
        rate = self.num_tasks / self.execute_time_ms if self.execute_time_ms else 0.0
        return (
            f"{self.num_tasks} tasks, {self.num_edges} edges ({kinds}), "
            f"{self.num_barriers} barriers\n"
            f"{self.num_workers} host workers: "
            + ", ".join(f"w{w} {n}" for w, n in enumerate(self.tasks_per_worker))
            + f"\nbuild {self.build_time_ms:.2f} ms, execute {self.execute_time_ms:.2f} ms "
            f"({rate:,.0f} tasks/ms), compile {self.compile_time_ms:.0f} ms"
        )


@dataclass(frozen=True)
class _Shape:
    """A checked Unbacked binding."""

    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)


_LIBRARIES: dict[str, ctypes.CDLL] = {}
_LOAD_LOCK = threading.Lock()


#: How a ScalarArg field (task_abi.h) reads back from the 64-bit slot a recorded run gives.
_SLOT_READERS = {
    "i64": int,
    "i32": lambda bits: int(np.uint32(bits & 0xFFFFFFFF).view(np.int32)),
    "i1": lambda bits: bool(bits & 1),
    "f32": lambda bits: float(np.uint32(bits & 0xFFFFFFFF).view(np.float32)),
    "f64": lambda bits: float(np.int64(bits).view(np.float64)),
    "f16": lambda bits: float(np.uint16(bits & 0xFFFF).view(np.float16)),
}


def _scalars(tree: EmittedTree, kid: int, slots: list[int]) -> tuple:
    """A task's scalar args as Python numbers of its kernel's parameter types."""
    if not slots:
        return ()
    fields = tree.scalar_fields[tree.kernels[kid]]
    return tuple(_SLOT_READERS[f](bits) for f, bits in zip(fields, slots))


def load_library(path: Path) -> ctypes.CDLL:
    """Load a host library once per process, with its C API's signatures."""
    key = str(path)
    with _LOAD_LOCK:
        lib = _LIBRARIES.get(key)
        if lib is not None:
            return lib
        lib = ctypes.CDLL(key)
        lib.pto_wsp_run_create.restype = ctypes.c_void_p
        lib.pto_wsp_run_destroy.argtypes = [ctypes.c_void_p]
        lib.pto_wsp_run.restype = ctypes.c_int32
        lib.pto_wsp_run.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.POINTER(_HostArg),
            ctypes.c_int32,
            ctypes.POINTER(_HostOptions),
            ctypes.c_char_p,
            ctypes.c_int64,
        ]
        lib.pto_wsp_run_stats.argtypes = [ctypes.c_void_p, ctypes.POINTER(_HostStats)]
        lib.pto_wsp_run_array.restype = ctypes.c_int64
        lib.pto_wsp_run_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int32,
            ctypes.c_void_p,
            ctypes.c_int64,
        ]
        lib.pto_wsp_run_site_coord.restype = ctypes.c_char_p
        lib.pto_wsp_run_site_coord.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32]
        _LIBRARIES[key] = lib
        return lib


# MLIR element type -> numpy dtype of a bound array.
_DTYPES = {
    "f32": np.float32,
    "f64": np.float64,
    "f16": np.float16,
    "bf16": np.uint16,
    "index": np.int64,
    "i64": np.int64,
    "i32": np.int32,
    "i16": np.int16,
    "i8": np.int8,
    "ui64": np.uint64,
    "ui32": np.uint32,
    "ui16": np.uint16,
    "ui8": np.uint8,
    "i1": np.bool_,
}

# The recorded arrays of runtime.cpp's pto_wsp_run_array.
_ARRAYS = {
    "kind": (0, np.uint8),
    "kernel": (1, np.int32),
    "pool": (2, np.uint8),
    "domain": (3, np.uint8),
    "target": (4, np.int64),
    "stream": (5, np.int64),
    "priority": (6, np.int64),
    "edge_src": (7, np.int64),
    "edge_dst": (8, np.int64),
    "edge_kind": (9, np.uint8),
    "args_begin": (10, np.int64),
    "args": (11, np.int64),
    "coords_begin": (12, np.int64),
    "coords": (13, np.int64),
    "regions_begin": (14, np.int64),
    "regions": (15, np.int64),
    "site": (16, np.int32),
    "worker_tasks": (17, np.int64),
    "issue": (18, np.int64),
    "stream_key": (19, np.int64),
    "lane": (20, np.int64),
    "start": (21, np.int64),
    "worker": (22, np.int64),
}
#: Per-node schedule arrays (not part of the TaskGraph).
_SCHEDULE = ("issue", "stream_key", "lane", "start", "worker")
_ACCESS = ("in", "out", "inout")


@dataclass
class _Run:
    handle: int
    lib: ctypes.CDLL
    keep: list[Any] = field(default_factory=list)
    copies: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    def array(self, name: str) -> np.ndarray:
        which, dtype = _ARRAYS[name]
        n = self.lib.pto_wsp_run_array(self.handle, which, None, 0)
        out = np.empty(max(n, 0), dtype=dtype)
        if n > 0:
            self.lib.pto_wsp_run_array(self.handle, which, out.ctypes.data, n)
        return out

    def __del__(self) -> None:
        if self.handle:
            self.lib.pto_wsp_run_destroy(self.handle)
            self.handle = 0


class AscendProgram:
    """One entry program of a host-built Ascend tree (see the module doc)."""

    def __init__(
        self,
        tree: EmittedTree,
        tree_dir: Path,
        library: Path,
        program: ProgramSig,
        *,
        workers: int = 0,
        record: bool = False,
        ring_capacity: int = 0,
        compile_time_ms: float = 0.0,
    ) -> None:
        self.tree = tree
        self.tree_dir = tree_dir
        self.library = library
        self.program = program
        self.name = program.name
        self.workers = workers
        self.record = record
        self.ring_capacity = ring_capacity
        self.compile_time_ms = compile_time_ms
        self._lib = load_library(library)
        self._bindings: dict[str, Any] = {}
        self._thread: threading.Thread | None = None
        self._result: tuple[int, str] | None = None
        self._run: _Run | None = None
        self._last: _Run | None = None
        self._elapsed_ms = 0.0

    def __repr__(self) -> str:
        return f"<AscendProgram @{self.name} ({self.tree.soc}, host build {self.library.name})>"

    def for_program(self, name: str) -> AscendProgram:
        """Another entry program of the same tree and library (no new build)."""
        return AscendProgram(
            self.tree,
            self.tree_dir,
            self.library,
            self.tree.entry_program(name),
            workers=self.workers,
            record=self.record,
            ring_capacity=self.ring_capacity,
            compile_time_ms=self.compile_time_ms,
        )

    @property
    def arg_names(self) -> list[str]:
        return [a.name for a in self.program.args]

    # ------------------------------------------------------------------ binding

    def bind(self, **values: Any) -> AscendProgram:
        """Bind arguments by name: numpy arrays for memrefs (written in place; a
        non-contiguous array is copied in and out), ints for scalars. Checked now."""
        sigs = {a.name: a for a in self.program.args}
        for name, value in values.items():
            sig = sigs.get(name)
            if sig is None:
                raise ValueError(
                    f"@{self.name} has no argument {name!r} (arguments: {', '.join(sigs)})"
                )
            self._bindings[name] = self._check(sig, value)
        return self

    def _check(self, sig, value: Any) -> Any:
        if sig.kind == "scalar":
            if isinstance(value, bool | np.ndarray) or not isinstance(value, int | np.integer):
                raise ValueError(f"@{self.name}: argument {sig.name!r} is a scalar, got {value!r}")
            return int(value)
        dtype = np.dtype(_DTYPES.get(sig.elem, np.uint8))
        if isinstance(value, Unbacked):
            bodies = [k for k in self.tree.kernels if k not in self.tree.stubs]
            if bodies:
                raise ValueError(
                    f"@{self.name}: argument {sig.name!r} is Unbacked, but kernels "
                    f"{', '.join('@' + k for k in bodies)} have bodies that would read it"
                )
            value = _Shape(tuple(value.shape))
        if isinstance(value, list | tuple):
            value = np.asarray(value, dtype=dtype)
        if not isinstance(value, np.ndarray | _Shape):
            raise ValueError(f"@{self.name}: argument {sig.name!r} is a tensor: bind a numpy array")
        if value.ndim != len(sig.shape) or any(
            s is not None and s != n for s, n in zip(sig.shape, value.shape)
        ):
            want = "x".join("?" if s is None else str(s) for s in sig.shape)
            raise ValueError(
                f"@{self.name}: argument {sig.name!r} needs shape {want}, got {value.shape}"
            )
        if isinstance(value, np.ndarray) and value.dtype != dtype:
            raise ValueError(
                f"@{self.name}: argument {sig.name!r} needs dtype {dtype} ({sig.elem}), "
                f"got {value.dtype}"
            )
        return value

    def _args(self, run: _Run) -> ctypes.Array:
        args = (_HostArg * max(len(self.program.args), 1))()
        for i, sig in enumerate(self.program.args):
            if sig.name not in self._bindings:
                raise ValueError(
                    f"@{self.name} needs a value for {sig.name} (bind({sig.name}=...))"
                )
            value = self._bindings[sig.name]
            a = args[i]
            if sig.kind == "scalar":
                a.kind, a.scalar = 1, value
                continue
            if isinstance(value, _Shape):
                a.kind, a.rank, a.elem_bytes = 0, value.ndim, sig.elem_bytes
                a.data = (i + 1) << 40  # distinct, never dereferenced (stub kernels)
                for d, n in enumerate(value.shape):
                    a.shape[d] = n
                continue
            if value.flags.c_contiguous:
                array = value
            else:
                array = np.ascontiguousarray(value)
                if value.flags.writeable:
                    run.copies.append((value, array))
            run.keep.append(array)
            a.kind, a.rank, a.elem_bytes = 0, array.ndim, sig.elem_bytes
            a.data = array.ctypes.data
            for d, n in enumerate(array.shape):
                a.shape[d] = n
        return args

    # ------------------------------------------------------------------ execution

    def execute(self, **values: Any) -> AscendProgram:
        """Bind ``values``, run the program to completion; raise ExecutionError on failure.
        The run is on the calling thread (ctypes releases the GIL meanwhile): no thread to
        start and no switch to it and back, which a short run would feel (on one vCPU, ~10 us
        each way)."""
        self._launch(values, background=False)
        self._finish()
        return self

    def execute_async(self, **values: Any) -> AscendProgram:
        """Bind ``values`` and start the program in the background (``synchronize()`` waits)."""
        self._launch(values, background=True)
        return self

    def _launch(self, values: dict[str, Any], background: bool) -> None:
        if self._thread is not None:
            self.synchronize()
        self.bind(**values)
        run = _Run(self._lib.pto_wsp_run_create(), self._lib)
        args = self._args(run)
        options = _HostOptions(self.workers, 1 if self.record else 0, self.ring_capacity)
        error = ctypes.create_string_buffer(4096)
        run.keep += [args, options, error]
        self._run = run
        self._result = None
        start = time.perf_counter()

        def go() -> None:
            code = self._lib.pto_wsp_run(
                run.handle,
                self.name.encode(),
                args,
                len(self.program.args),
                ctypes.byref(options),
                error,
                len(error),
            )
            self._elapsed_ms = (time.perf_counter() - start) * 1e3
            self._result = (code, error.value.decode(errors="replace"))

        if not background:
            go()
            return
        self._thread = threading.Thread(target=go, name=f"pto-wsp-ascend-{self.name}")
        self._thread.start()

    def synchronize(self, timeout: float | None = None) -> AscendProgram:
        """Wait for the running execution; raise its error, if any, or ``Timeout`` when
        ``timeout`` seconds pass first (the run goes on)."""
        thread = self._thread
        if thread is None:
            return self
        thread.join(timeout)
        if thread.is_alive():
            raise errors.Timeout(f"@{self.name} is still running after {timeout} s")
        self._thread = None
        return self._finish()

    def is_running(self) -> bool:
        """Whether an ``execute_async()`` run is under way."""
        return self._thread is not None and self._thread.is_alive()

    def _finish(self) -> AscendProgram:
        """The finished run's results: copies back, errors raised."""
        run = self._run
        assert run is not None and self._result is not None
        for original, copy in run.copies:
            original[...] = copy
        run.keep.clear()
        run.copies.clear()
        self._last = run
        code, message = self._result
        if code == 2:
            raise ResourceError(f"@{self.name}: {message}")
        if code == 3:
            raise ValueError(f"@{self.name}: {message}")
        if code == 4:  # a pipeline: one line per blocked process, "name\top\tchannel"
            raise errors.Deadlock([tuple(line.split("\t")) for line in message.splitlines()])
        if code == 5:  # "process\tchannel\tmessage"
            process, channel, text = message.split("\t", 2)
            raise errors.ChannelClosed(process, channel, text)
        if code != 0:
            raise ExecutionError(f"@{self.name}: {message}")
        return self

    def is_complete(self) -> bool:
        """Whether the last execution has finished."""
        if self._thread is not None:
            return not self._thread.is_alive()
        return self._last is not None

    def elapsed_ms(self) -> float:
        """Wall time of the last execution (as seen from Python), in milliseconds."""
        return self._elapsed_ms

    # ------------------------------------------------------------------ results

    def _done(self) -> _Run:
        if self._thread is not None:
            self.synchronize()
        if self._last is None:
            raise RuntimeError(f"@{self.name} has not been executed yet")
        return self._last

    def stats(self) -> ProgramStats:
        """The last execution's statistics."""
        run = self._done()
        raw = _HostStats()
        self._lib.pto_wsp_run_stats(run.handle, ctypes.byref(raw))
        return ProgramStats(
            num_tasks=raw.num_tasks,
            num_barriers=raw.num_barriers,
            num_nodes=raw.num_nodes,
            num_edges=raw.num_edges,
            edges_by_kind=dict(zip(EDGE_KINDS, list(raw.edge_kinds))),
            num_wired_edges=raw.num_wired_edges,
            num_streams=raw.num_streams,
            num_workers=raw.num_workers,
            num_aicpus=1,
            tasks_per_pool=dict(zip(("vector", "cube", "any"), list(raw.pool_tasks))),
            tasks_per_worker=run.array("worker_tasks").tolist(),
            window_stalls=raw.window_stalls,
            ring_stalls=raw.ring_stalls,
            max_in_flight=raw.max_live,
            compile_time_ms=self.compile_time_ms,
            build_time_ms=raw.build_ns / 1e6,
            execute_time_ms=raw.total_ns / 1e6,
            build_cpu_ms=raw.build_cpu_ns / 1e6,
            worker_cpu_ms=raw.worker_cpu_ns / 1e6,
        )

    def schedule_of(self) -> list[dict[str, Any]]:
        """Per task of the last execution (needs ``record=True``), as the CPU simulator's
        ``schedule_of`` where the names mean the same: id (node), kernel, worker, and ``stream``
        (the stream key with ``streams n``, else the task's stream value); then the host's
        order: ``issue`` (issue number: the order batch_deps and timing released tasks in),
        ``lane`` (the stream lane with ``streams n``, else -1) and ``start`` (the order workers
        started tasks in, over the whole run; real threads, so only the orders the schedule
        forces are reproducible: within a lane, start order is issue order)."""
        run = self._done()
        if not self.record:
            raise RuntimeError(
                f"@{self.name}: schedule_of() needs the program built with record=True"
            )
        a = {name: run.array(name).tolist() for name in ("kind", "kernel", "stream") + _SCHEDULE}
        kernels = list(self.tree.kernels)
        out = []
        for i, kind in enumerate(a["kind"]):
            if kind != 0:
                continue
            key = a["stream_key"][i]
            out.append(
                {
                    "id": i,
                    "kernel": kernels[a["kernel"][i]],
                    "worker": a["worker"][i],
                    "stream": key if a["lane"][i] >= 0 else a["stream"][i],
                    "issue": a["issue"][i],
                    "lane": a["lane"][i],
                    "start": a["start"][i],
                }
            )
        return out

    def graph(self) -> TaskGraph:
        """The task graph the last execution created (needs ``record=True``), as a
        runtime/graph.py TaskGraph: kernels by name, regions by argument name."""
        run = self._done()
        if not self.record:
            raise RuntimeError(f"@{self.name}: graph() needs the program built with record=True")
        a = {name: run.array(name) for name in _ARRAYS if name not in _SCHEDULE}
        n = len(a["kind"])
        names = [arg.name for arg in self.program.args]
        regions_flat = a["regions"].tolist()
        rb = a["regions_begin"].tolist()
        regions: list[tuple[TensorRegion, ...]] = []
        for i in range(n):
            items = []
            pos = rb[i]
            while pos < rb[i + 1]:
                tensor, access, rank = regions_flat[pos : pos + 3]
                pos += 3
                offs = regions_flat[pos : pos + rank]
                sizes = regions_flat[pos + rank : pos + 2 * rank]
                strides = regions_flat[pos + 2 * rank : pos + 3 * rank]
                pos += 3 * rank
                label = names[tensor] if 0 <= tensor < len(names) else f"global{tensor}"
                items.append(TensorRegion(label, offs, sizes, strides, _ACCESS[access]))
            regions.append(tuple(items))
        ab, args_flat = a["args_begin"].tolist(), a["args"].tolist()
        kernel_ids = a["kernel"].tolist()
        cb, coords_flat = a["coords_begin"].tolist(), a["coords"].tolist()
        site_names: dict[int, list[str]] = {}
        coords = []
        for i, site in enumerate(a["site"].tolist()):
            values = coords_flat[cb[i] : cb[i + 1]]
            if site >= 0 and site not in site_names:
                site_names[site] = [
                    self._lib.pto_wsp_run_site_coord(run.handle, site, k).decode()
                    for k in range(len(values))
                ]
            coords.append(tuple(zip(site_names.get(site, []), values)))
        src, dst = a["edge_src"], a["edge_dst"].astype(np.int32)
        order = np.argsort(src, kind="stable")
        begin = np.zeros(n + 1, dtype=np.int64)
        if n:
            np.cumsum(np.bincount(src, minlength=n), out=begin[1:])
        fanin = np.bincount(dst, minlength=n).astype(np.int32) if n else np.zeros(0, np.int32)
        return TaskGraph(
            kind=a["kind"],
            kernel=a["kernel"],
            pool=a["pool"],
            domain=a["domain"],
            target=a["target"],
            stream=a["stream"],
            priority=a["priority"],
            fanin=fanin,
            fanout_begin=begin,
            fanout_edges=dst[order],
            edge_kind=a["edge_kind"][order],
            kernels=list(self.tree.kernels),
            args=[
                _scalars(self.tree, kernel_ids[i], args_flat[ab[i] : ab[i + 1]]) for i in range(n)
            ],
            regions=regions,
            coords=coords,
        )
