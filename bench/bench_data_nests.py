"""Graph build of data-dependent loop nests (ragged, sparse, gathered), next to the graph-build
anchor and to the per-task code, in one run.

    python3 bench/bench_data_nests.py [--repeat 3] [--only moe,ragged,ragged-acc,attention,ragged-k,ragged-chain]
    python3 bench/bench_data_nests.py --inventory [examples,tests]

``--inventory`` prints instead what the code generator makes of every loop nest holding tasks
(``simgen.NESTS``: batch, chains, per task and why) in examples/*.mlir (the IR of
examples/*.py) and, with ``tests``, in the programs tests/test_sim_*.py compile (each file run
with pytest in this process, counted per file; docs/batchgen.md "Inventory").

Each workload is a ``tg.program`` (examples/moe.mlir and examples/attention.mlir lowered with
wsp-to-tg, or the ragged programs below) of about 50k tasks, compiled for the simulator and run
on a ``GraphBuilder`` plus ``build()`` — task generation and dependency inference, as
bench_graph_build.py times it — three ways: ``per-task`` (compiled with ``batch=False``: task
by task, as these nests ran before lowering/cpu/simgen.py batched them; tensors no task writes
are left out of the inference either way), ``first run`` (batched, batch sites off: every build
generates its arrays), ``run again`` (sites kept, keyed on the loaded data; each batch's
edges inferred by its own compiled passes: ``tape.REPLAY`` off) and ``replayed`` (sites kept,
and the builder replays the build it recorded the time before in one compiled call:
docs/batchgen.md "Replaying a build", what a Program run again does). The bound tensors are
zero-strided (their data is never read by a build); the index
tensors (CSR rows, lengths) are random with a fixed seed.

- ``moe``: examples/moe.mlir, 12,500 tokens routed to 0-8 of 8 experts (a CSR ``select``);
- ``ragged``: 3,200 rows of 0-31 tiles (``scf.for %t = 0 to lens[b]``), each tile its own
  output;
- ``ragged-acc``: the same, every tile of a row accumulating into one output (read-after-write
  chains along each row);
- ``attention``: examples/attention.mlir, 6,250 x 8 (batch, head) tasks reading
  ``K[b, 0:seq_lens[b]]`` — a region whose size varies per task;
- ``ragged-k``: ``ragged`` whose K read is ``K[b, 0:lens[b]]`` (sizes varying per task);
- ``ragged-chain``: a ``for_each`` per row over its loaded length ``0 to lens[b]`` (the same
  3,200 rows: one ordered chain per row, each step after the one before it), every step
  reading the K block ``route[t]`` names (a gather) and accumulating into the row's output.

The anchor is the graph-build one (issue 5): 5,000 tasks/ms, what pto-isa-lh, a C runtime of
this design, reports for building a graph with TensorMap dependency inference. Regions whose
size varies per task do not fit runtime/bulk.py's array rule (one tiling per tensor); in the
last two workloads they are reads of tensors no task writes, which take no part in the
inference (``GraphBuilder.read_only``), so those nests are batches too.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import time
from pathlib import Path

import numpy as np

from pto_wsp.dialects.tg import ProgramOp
from pto_wsp.lowering.cpu import simgen
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime import bulk_kernels, tape
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.tools.diagnostics import universe_context

ANCHOR = 5000.0
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

RAGGED = """
wsp.kernel @tile(b: index, t: index, q: in memref<64x64xf32>, k: in memref<2048x64xf32>, \
o: out memref<64x64xf32>) unit(cube) cost(100)
tg.program @ragged(%Q: memref<?x2048x64xf32>, %K: memref<?x2048x64xf32>, \
%O: memref<?x2048x64xf32>, %lens: memref<?xindex>, %B: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %B step %c1 {
    %n = memref.load %lens[%b] : memref<?xindex>
    %kv = memref.subview %K[%b, 0, 0] [1, 2048, 64] [1, 1, 1] : memref<?x2048x64xf32> to \
memref<2048x64xf32, strided<[64, 1], offset: ?>>
    scf.for %t = %c0 to %n step %c1 {
      %r = arith.muli %t, %c64 : index
      %q = memref.subview %Q[%b, %r, 0] [1, 64, 64] [1, 1, 1] : memref<?x2048x64xf32> to \
memref<64x64xf32, strided<[64, 1], offset: ?>>
      %o = memref.subview %O[%b, %r, 0] [1, 64, 64] [1, 1, 1] : memref<?x2048x64xf32> to \
memref<64x64xf32, strided<[64, 1], offset: ?>>
      tg.task @tile(%b, %t : index, index) resources(%q, %kv, %o : memref<64x64xf32, \
strided<[64, 1], offset: ?>>, memref<2048x64xf32, strided<[64, 1], offset: ?>>, \
memref<64x64xf32, strided<[64, 1], offset: ?>>) access(in, in, out) at(b = %b, t = %t) pool(cube)
    }
  }
}
"""
RAGGED_ACC = RAGGED.replace("%O[%b, %r, 0]", "%O[%b, 0, 0]").replace(
    "access(in, in, out)", "access(in, in, inout)"
)
# A for_each per row over its loaded length (tg.ordered inside the row loop: one chain per
# row, each step after the one before it), every step reading the K block a routing table
# gives and accumulating into the row's output.
RAGGED_CHAIN = """
wsp.kernel @step(b: index, t: index, q: in memref<64x64xf32>, k: in memref<64x64xf32>, \
o: inout memref<64x64xf32>) unit(cube) cost(100)
tg.program @chain(%Q: memref<?x2048x64xf32>, %K: memref<?x64x64xf32>, \
%O: memref<?x64x64xf32>, %lens: memref<?xindex>, %route: memref<?xindex>, %B: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %B step %c1 {
    %n = memref.load %lens[%b] : memref<?xindex>
    %o = memref.subview %O[%b, 0, 0] [1, 64, 64] [1, 1, 1] : memref<?x64x64xf32> to \
memref<64x64xf32, strided<[64, 1], offset: ?>>
    tg.ordered {
      scf.for %t = %c0 to %n step %c1 {
        %e = memref.load %route[%t] : memref<?xindex>
        %r = arith.muli %t, %c64 : index
        %q = memref.subview %Q[%b, %r, 0] [1, 64, 64] [1, 1, 1] : memref<?x2048x64xf32> to \
memref<64x64xf32, strided<[64, 1], offset: ?>>
        %k = memref.subview %K[%e, 0, 0] [1, 64, 64] [1, 1, 1] : memref<?x64x64xf32> to \
memref<64x64xf32, strided<[64, 1], offset: ?>>
        tg.task @step(%b, %t : index, index) resources(%q, %k, %o : memref<64x64xf32, \
strided<[64, 1], offset: ?>>, memref<64x64xf32, strided<[64, 1], offset: ?>>, \
memref<64x64xf32, strided<[64, 1], offset: ?>>) access(in, in, inout) at(b = %b, t = %t) \
pool(cube)
        tg.order_point
      }
    }
  }
}
"""
RAGGED_K = (
    RAGGED.replace("k: in memref<2048x64xf32>", "k: in memref<?x64xf32>")
    .replace("[1, 2048, 64] [1, 1, 1]", "[1, %n, 64] [1, 1, 1]")
    .replace("memref<2048x64xf32, strided", "memref<?x64xf32, strided")
)


def program(text: str):
    ctx = universe_context()
    from xdsl.parser import Parser

    module = Parser(ctx, text).parse_module()
    with contextlib.redirect_stderr(io.StringIO()):  # (warnings of unused schedules)
        WspToTgPass().apply(ctx, module)
        CspToTgPass().apply(ctx, module)
    (prog,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return module, prog


def measure(
    text: str, bindings: dict, batch: bool, entries: int, repeat: int, replay: bool = False
):
    """Best wall time of ``repeat`` builds, and the graph (``replay``: builds replayed)."""
    module, prog = program(text)
    compiled = compile_sim_program(prog, module, batch=batch).compiled
    saved, saved_replay = simgen.SITE_ENTRIES, tape.REPLAY
    simgen.SITE_ENTRIES = entries
    tape.REPLAY = replay
    best, graph = float("inf"), None
    try:
        for _ in range(repeat):
            args = compiled.bind(bindings)
            shapes = {a.name: a.shape for a in args if hasattr(a, "shape")}
            start = time.perf_counter()
            builder = GraphBuilder(shapes)
            compiled.function(builder, *args)
            graph = builder.build()
            best = min(best, time.perf_counter() - start)
    finally:
        simgen.SITE_ENTRIES, tape.REPLAY = saved, saved_replay
    return best, graph


def workloads() -> dict[str, tuple[str, dict]]:
    rng = np.random.default_rng(0)
    zero = np.zeros((), np.float32)
    B = 12500
    per_row = rng.integers(0, 9, B)
    moe = dict(
        tokens=np.broadcast_to(zero, (B, 128)),
        expert_weights=np.broadcast_to(zero, (8, 128, 128)),
        expert_out=np.broadcast_to(zero, (B, 8, 128)),
        batch_size=B,
        indptr=np.concatenate([[0], np.cumsum(per_row)]),
        indices=np.concatenate([rng.choice(8, k, replace=False) for k in per_row]),
    )
    nb = 3200
    ragged = dict(
        Q=np.broadcast_to(zero, (nb, 2048, 64)),
        K=np.broadcast_to(zero, (nb, 2048, 64)),
        O=np.broadcast_to(zero, (nb, 2048, 64)),
        lens=rng.integers(0, 32, nb),
        B=nb,
    )
    chain = dict(
        Q=np.broadcast_to(zero, (nb, 2048, 64)),
        K=np.broadcast_to(zero, (16, 64, 64)),
        O=np.broadcast_to(zero, (nb, 64, 64)),
        lens=ragged["lens"],
        route=np.random.default_rng(1).integers(0, 16, 32),  # (the draws above unchanged)
        B=nb,
    )
    na = 6250
    attention = dict(
        Q=np.broadcast_to(zero, (na, 8, 64, 64)),
        K=np.broadcast_to(zero, (na, 32768, 64)),
        V=np.broadcast_to(zero, (na, 32768, 64)),
        O=np.broadcast_to(zero, (na, 8, 64, 64)),
        seq_lens=rng.integers(1, 4096, na),
        batch_size=na,
    )
    return {
        "moe": ((EXAMPLES / "moe.mlir").read_text(), moe),
        "ragged": (RAGGED, ragged),
        "ragged-acc": (RAGGED_ACC, ragged),
        "attention": ((EXAMPLES / "attention.mlir").read_text(), attention),
        "ragged-k": (RAGGED_K, ragged),
        "ragged-chain": (RAGGED_CHAIN, chain),
    }


def inventory(parts: list[str]) -> None:
    """What the code generator makes of each loop nest (see the module doc)."""
    from collections import Counter

    from xdsl.parser import Parser

    simgen.NESTS = []
    if "examples" in parts:
        for path in sorted(EXAMPLES.glob("*.mlir")):
            ctx = universe_context()
            module = Parser(ctx, path.read_text()).parse_module()
            with contextlib.redirect_stderr(io.StringIO()):
                WspToTgPass().apply(ctx, module)
                CspToTgPass().apply(ctx, module)
            for op in module.ops:
                if isinstance(op, ProgramOp):
                    simgen.NESTS.clear()
                    compile_sim_program(op, module)
                    for prog, _, kernels, what in simgen.NESTS:
                        print(f"{path.name:22s} {prog:22s} {kernels:38s} {what}", flush=True)
    if "tests" in parts:
        import pytest

        tests = Path(__file__).resolve().parent.parent / "tests"
        for path in sorted(tests.glob("test_sim_*.py")):
            simgen.NESTS.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                pytest.main(["-q", "-x", "-p", "no:cacheprovider", str(path)])
            seen = Counter(what for _, _, _, what in simgen.NESTS)
            for what, count in sorted(seen.items()):
                print(f"{path.name:30s} {count:6d} x {what}", flush=True)
    simgen.NESTS = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="moe,ragged,ragged-acc,attention,ragged-k,ragged-chain")
    parser.add_argument("--inventory", default=None, help="examples,tests")
    args = parser.parse_args()
    if args.inventory is not None:
        inventory(args.inventory.split(","))
        return
    start = time.perf_counter()
    bulk_kernels.load()
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; best of {args.repeat}; "
        f"batch kernels loaded in {(time.perf_counter() - start) * 1e3:.0f} ms (not counted)",
        flush=True,
    )
    table = workloads()
    for name in args.only.split(","):
        text, bindings = table[name]
        parts = []
        graphs = []
        for label, batch, entries, replay in (
            ("per-task", False, 0, False),
            ("first run", True, 0, False),
            ("run again", True, simgen.SITE_ENTRIES, False),
            ("replayed", True, simgen.SITE_ENTRIES, True),
        ):
            seconds, graph = measure(text, bindings, batch, entries, args.repeat, replay)
            graphs.append(graph)
            rate = graph.num_tasks / (seconds * 1e3)
            parts.append(f"{label} {rate:9,.1f} tasks/ms ({rate / ANCHOR:6.1%})")
        same = all(
            g.num_edges == graphs[0].num_edges
            and (g.fanout_edges == graphs[0].fanout_edges).all()
            and (g.kernel == graphs[0].kernel).all()
            for g in graphs[1:]
        )
        print(
            f"{name:12s} {graphs[0].num_tasks:>7,} tasks {graphs[0].num_edges:>7,} edges | "
            + " | ".join(parts)
            + f" | anchor {ANCHOR:,.0f} | {'same graph' if same else 'GRAPHS DIFFER'}",
            flush=True,
        )
        if not same:
            raise SystemExit(f"{name}: the batched graph differs from the per-task one")


if __name__ == "__main__":
    main()
