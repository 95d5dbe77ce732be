"""The TensorMap alone: the LLaMA layer's region accesses replayed through the C++ map.

    python3 bench/bench_tensormap.py [--sizes 13k,100k] [--repeat 20]

The layer of bench_program.py is built once per size by a Program (cycles mode); its graph's
regions, in task order, are then fed to runtime/ascend_host/src/tensormap.cpp compiled alone
with a small harness (as the native core calls it: ``access<R>`` with the rank known, the map
kept from one run to the next), with nothing else between two accesses. Printed: accesses a
task, CPU ns an access and a task (best of ``--repeat`` runs of the thread's CPU time), and the
dependencies the map returned (read-after-write, write-after-write and write-after-read tasks,
before the builder drops duplicates): the part of a build's time that is the TensorMap's,
without the core's calls, node records and their cache traffic around it. Figures to read.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_graph_build as bgb  # noqa: E402
import bench_program as bp  # noqa: E402

from pto_wsp.lowering.ascend.abi import AbiLimits, task_abi_h  # noqa: E402
from pto_wsp.lowering.ascend.build import CXX, cache_dir  # noqa: E402
from pto_wsp.lowering.ascend.emit import RUNTIME_DIR  # noqa: E402

MAX_RANK = 8
ACCESS = {"in": 0, "out": 1, "inout": 2}
HARNESS = r"""
#include <string.h>
#include <time.h>
#include <vector>
#include "tensormap.h"
using namespace pto::wsp;
using namespace pto::wsp::host;

static double cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// The best CPU seconds of `reps` runs over the n accesses (packed: task, tensor << 16 |
// access << 8 | rank, then offset, size and stride per dimension, int32: read as little
// memory as the core's calls do); deps: the dependencies of one run.
extern "C" double tm_replay(const int32_t* packed, long n, int ntensors, const int* ranks,
                            const int64_t* shapes, int reps, long* deps) {
  std::vector<uint32_t> raw, waw, war;
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    TensorMap* m = TensorMap::take();
    for (int t = 0; t < ntensors; ++t) m->declare(t + 1, ranks[t], shapes + t * 8);
    long found = 0;
    const int32_t* row = packed;
    const double start = cpu();
    for (long i = 0; i < n; ++i) {
      const uint32_t task = static_cast<uint32_t>(row[0]);
      TensorRegion r;
      r.tensor = static_cast<uint16_t>(row[1] >> 16);
      r.base = r.tensor + 1;
      r.rank = static_cast<uint8_t>(row[1]);
      const uint8_t a = static_cast<uint8_t>(row[1] >> 8);
      for (int d = 0; d < r.rank; ++d) {
        r.offsets[d] = row[2 + 3 * d];
        r.sizes[d] = row[3 + 3 * d];
        r.strides[d] = row[4 + 3 * d];
      }
      row += 2 + 3 * r.rank;
      switch (r.rank) {
#define CASE(R) \
  case R:       \
    m->access<R>(r, a, task, raw, waw, war); \
    break;
        CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        default:
          m->access(r, a, task, raw, waw, war);
      }
      if (i + 1 == n || static_cast<uint32_t>(row[0]) != task) {
        found += static_cast<long>(raw.size() + waw.size() + war.size());
        raw.clear();
        waw.clear();
        war.clear();
      }
    }
    const double took = cpu() - start;
    if (took < best) best = took;
    *deps = found;
    TensorMap::give(m);
  }
  return best;
}
"""


def harness() -> ctypes.CDLL:
    """The map and the harness as a shared library (cached by their sources)."""
    src = (RUNTIME_DIR / "src" / "tensormap.cpp").read_text()
    hdr = (RUNTIME_DIR / "src" / "tensormap.h").read_text()
    abi = task_abi_h(AbiLimits(MAX_RANK, 1, 1, 1))
    flags = ["-std=c++17", "-O2", "-fPIC", "-shared", "-I."]
    key = hashlib.sha256("\0".join([src, hdr, abi, HARNESS, CXX, *flags]).encode())
    out = cache_dir() / f"tensormap-bench-{key.hexdigest()[:24]}.so"
    if not out.exists():
        with tempfile.TemporaryDirectory() as work:
            for name, text in [
                ("task_abi.h", abi),
                ("tensormap.h", hdr),
                ("tensormap.cpp", src),
                ("harness.cpp", HARNESS),
            ]:
                with open(os.path.join(work, name), "w") as f:
                    f.write(text)
            tmp = os.path.join(work, "bench.so")
            cmd = [CXX, *flags, "tensormap.cpp", "harness.cpp", "-o", tmp]
            subprocess.run(cmd, cwd=work, check=True)
            os.replace(tmp, out)
    lib = ctypes.CDLL(str(out))
    lib.tm_replay.restype = ctypes.c_double
    lib.tm_replay.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int, ctypes.c_void_p]
    lib.tm_replay.argtypes += [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_long)]
    return lib


def accesses(size: str) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, int]:
    """The layer's accesses at `size` (packed as tm_replay reads them) and their count, its
    tensors' ranks and shapes, its node count."""
    B, nt = bp.SIZES[size]
    values = bp.tensors(B, nt)
    prog = bgb.llama_workload("data").compile(target="cpu_sim", mode="cycles", workers=4)
    prog.bind(B=B, NT=nt, **values)
    prog.execute()
    graph = prog.graph()
    index: dict[str, int] = {}
    packed: list[int] = []
    count = 0
    for node in range(graph.num_nodes):
        for r in graph.regions[node]:
            tensor = index.setdefault(r.tensor, len(index))
            packed += [node, tensor << 16 | ACCESS[r.access] << 8 | len(r.offsets)]
            for d in zip(r.offsets, r.sizes, r.strides):
                packed += d
            count += 1
    assert max(packed) < 2**31, "the layer's values fit int32"
    shapes = np.ones((len(index), MAX_RANK), np.int64)
    ranks = np.zeros(len(index), np.int32)
    for name, t in index.items():
        shape = values[name].shape
        shapes[t, : len(shape)] = shape
        ranks[t] = len(shape)
    return np.array(packed, np.int32), count, ranks, shapes, graph.num_nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="13k,100k")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    lib = harness()
    print("size   tasks  accesses  a task  ns an access  ns a task  dependencies")
    for size in args.sizes.split(","):
        packed, n, ranks, shapes, nodes = accesses(size)
        deps = ctypes.c_long()
        best = lib.tm_replay(
            packed.ctypes.data,
            n,
            len(ranks),
            ranks.ctypes.data,
            shapes.ctypes.data,
            args.repeat,
            ctypes.byref(deps),
        )
        print(
            f"{size:>4} {nodes:>7,} {n:>9,} {n / nodes:>7.2f} "
            f"{best * 1e9 / n:>13.1f} {best * 1e9 / nodes:>10.1f} {deps.value:>13,}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}; CPU time of the replaying thread, best run")


if __name__ == "__main__":
    main()
