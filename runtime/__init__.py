"""The CPU simulator: task-graph runtime, executors, cost model and traces.

Graph construction, independent of any IR (pure Python + numpy):

- ``regions``: ``TensorRegion``, a strided hyper-rectangle of a tensor's index space with its
  access (in / out / inout), and its exact overlap test;
- ``tensormap``: ``TensorMap``, the last writer and readers since of each region, giving a new
  access its read-after-write, write-after-write and write-after-read dependencies (exact-match
  fast path, bucketed overlap index, ``gc_before`` for the task window);
- ``graph``: ``GraphBuilder``, which takes tasks in creation order plus the ordering points of
  docs/tg.md and adds structural edges (through barrier nodes where several tasks precede an
  ordering point) and inferred data edges; ``build()`` gives a ``TaskGraph``, seed 004's
  TaskGraphStorage with numpy per-node arrays and CSR fanout.
"""
