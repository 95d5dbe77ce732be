"""The CPU simulator: task-graph runtime, executors, cost model and traces.

Graph construction, independent of any IR (pure Python + numpy):

- ``regions``: ``TensorRegion(tensor, offsets, sizes, strides=None, access="in")``, a strided
  hyper-rectangle of a tensor's index space with its access (in / out / inout);
  ``overlaps``/``contains`` are exact (per-dimension progression intersection by CRT).
- ``tensormap``: ``TensorMap(shapes=None)``, the last writer and the readers since, per region
  of each tensor. ``access(region, task, raw, waw, war)`` appends a new access's
  read-after-write, write-after-write and write-after-read dependencies and records it;
  ``lookup(region)``; ``gc_before(task)`` for the task window. Exact-match fast path, tiling
  grids and an interval index for overlaps (no scan of a tensor's entries).
- ``graph``: ``GraphBuilder(shapes=None, infer_data_deps=True)``. ``add_task(kernel, args,
  regions, coords, pool, target, stream, priority, domain, deps) -> node id`` in creation
  order; ``enter_ordered()`` / ``order_point()`` / ``exit_ordered()`` (or ``with ordered():``)
  are docs/tg.md's ordering points — structural edges directly from a single preceding task,
  through one barrier node from several; data edges from the TensorMap. ``build()`` gives a
  ``TaskGraph``: seed 004's TaskGraphStorage with numpy per-node arrays (kind, kernel, pool,
  domain, target, stream, priority, fanin), CSR fanout (``fanout_begin``, ``fanout_edges``,
  ``edge_kind``), the kernel table, args, regions and coords per node, and ``successors``,
  ``predecessors``, ``reachable``, ``to_dot``, ``to_text`` (``tg.node`` lines).
  ``gc_paused()`` wraps a large build (docs/PERFORMANCE.md).
- ``memory``: ``retain_freed_memory()`` (called by every ``GraphBuilder``): glibc keeps freed
  large blocks for reuse instead of unmapping them (``PTO_WSP_MALLOC=system`` opts out).

Execution (docs/simulator.md):

- ``engine``: ``Simulator(config, kernels, arrays, shapes)``, the virtual-time scheduler that is
  also the builder a compiled program drives; ``SimConfig`` (workers, pools, the schedule's
  runtime config); pipelines' processes, queues and deadlock detection.
- ``native_core``: the native runtime core (C++, runtime/core/, built once per machine with the
  system compiler): ``Core`` builds a task graph from a program compiled by upstream MLIR,
  ``Scheduler`` schedules it in virtual time, exactly as the engine runs it.
- ``run``: ``Run``, a main program's execution on the core (graph, schedule, bodies in
  dispatch order).
- ``kernels``: ``KernelSpec`` (signature, cost model, CPU body), ``ViewRegion``, ``numpy_view``.
- ``program``: ``Program`` (bind / execute / execute_async / synchronize / stats ...), ``Stats``.
- ``trace``: ``chrome_trace`` (Perfetto JSON) and ``write_gantt`` (PNG).
- ``errors``: ``ExecutionError``, ``ResourceError``, ``ChannelClosed``, ``Deadlock``.
- ``threads``: the functional mode's bodies on a thread pool (``threads=N``).
- ``precompile()``: build the native core now (``pto-run --precompile``), the one one-time
  build; returns the library's path.
"""

from pathlib import Path

__all__ = ["precompile"]


def precompile() -> Path:
    """Build the native runtime core now (once per machine); return its shared library."""
    from pto_wsp.runtime.native_core import library

    return library()
