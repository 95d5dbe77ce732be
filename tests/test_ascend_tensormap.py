"""The host runtime's C++ TensorMap against runtime/tensormap.py, access by access.

The C++ map (runtime/ascend_host/src/tensormap.cpp) is built alone with a small C harness and
fed random access sequences — several tilings of one tensor (more than its grids hold, so
some regions go to the scanned list), strided regions, whole-tensor and random boxes, tensors
with and without a declared shape (dense and hashed grids), readers past the inline ones, and
``gc_before`` as a task window would call it. Every access must return the same
read-after-write, write-after-write and write-after-read tasks as the Python map (as sorted
lists: the same multiset), and both must hold the same number of entries after each step.
"""

from __future__ import annotations

import ctypes
import hashlib
import random
import subprocess

import pytest

from pto_wsp.lowering.ascend.abi import AbiLimits, task_abi_h
from pto_wsp.lowering.ascend.build import CXX, cache_dir, have_compiler
from pto_wsp.lowering.ascend.emit import RUNTIME_DIR
from pto_wsp.lowering.regions import TensorRegion
from pto_wsp.runtime.tensormap import TensorMap

pytestmark = pytest.mark.skipif(not have_compiler(), reason="the harness needs g++")

MAX_RANK = 3
HARNESS = r"""
#include <string.h>
#include <vector>
#include "tensormap.h"
using namespace pto::wsp;
using namespace pto::wsp::host;
extern "C" {
void* tm_create() { return new TensorMap(); }
void tm_destroy(void* m) { delete static_cast<TensorMap*>(m); }
void tm_reset(void* m) { static_cast<TensorMap*>(m)->reset(); }
void tm_declare(void* m, uint64_t base, int rank, const int64_t* shape) {
  static_cast<TensorMap*>(m)->declare(base, rank, shape);
}
// out: raw, waw, war concatenated; counts[3]. Returns 0, or -1 if out is too small.
int tm_access(void* m, uint64_t base, int tensor, int rank, const int64_t* off,
              const int64_t* size, const int64_t* stride, int access, uint32_t task,
              uint32_t* out, int cap, int* counts) {
  TensorRegion r;
  memset(&r, 0, sizeof r);
  r.base = base;
  r.rank = static_cast<uint8_t>(rank);
  r.tensor = static_cast<uint16_t>(tensor);
  for (int d = 0; d < rank; ++d) {
    r.offsets[d] = off[d];
    r.sizes[d] = size[d];
    r.strides[d] = stride[d];
  }
  std::vector<uint32_t> raw, waw, war;
  static_cast<TensorMap*>(m)->access(r, static_cast<uint8_t>(access), task, raw, waw, war);
  counts[0] = static_cast<int>(raw.size());
  counts[1] = static_cast<int>(waw.size());
  counts[2] = static_cast<int>(war.size());
  if (static_cast<int>(raw.size() + waw.size() + war.size()) > cap) return -1;
  int k = 0;
  for (uint32_t t : raw) out[k++] = t;
  for (uint32_t t : waw) out[k++] = t;
  for (uint32_t t : war) out[k++] = t;
  return 0;
}
void tm_gc(void* m, uint32_t task) { static_cast<TensorMap*>(m)->gc_before(task); }
long tm_size(void* m) { return static_cast<long>(static_cast<TensorMap*>(m)->size()); }
}
"""
ACCESS = {"in": 0, "out": 1, "inout": 2}


@pytest.fixture(scope="module")
def lib(tmp_path_factory) -> ctypes.CDLL:
    src = (RUNTIME_DIR / "src" / "tensormap.cpp").read_text()
    hdr = (RUNTIME_DIR / "src" / "tensormap.h").read_text()
    abi = task_abi_h(AbiLimits(MAX_RANK, 1, 1, 1))
    key = hashlib.sha256("\0".join([src, hdr, abi, HARNESS, CXX]).encode()).hexdigest()[:24]
    out = cache_dir() / f"tensormap-harness-{key}.so"
    if not out.exists():
        work = tmp_path_factory.mktemp("tm")
        (work / "task_abi.h").write_text(abi)
        (work / "tensormap.h").write_text(hdr)
        (work / "tensormap.cpp").write_text(src)
        (work / "harness.cpp").write_text(HARNESS)
        tmp = work / "harness.so"
        cmd = [CXX, "-std=c++17", "-O1", "-Wall", "-Werror", "-fPIC", "-shared", "-I."]
        cmd += ["tensormap.cpp", "harness.cpp", "-o", str(tmp)]
        subprocess.run(cmd, cwd=work, check=True, capture_output=True)
        tmp.replace(out)
    lib = ctypes.CDLL(str(out))
    lib.tm_create.restype = ctypes.c_void_p
    lib.tm_destroy.argtypes = [ctypes.c_void_p]
    lib.tm_reset.argtypes = [ctypes.c_void_p]
    lib.tm_declare.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_void_p]
    lib.tm_gc.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.tm_size.argtypes = [ctypes.c_void_p]
    lib.tm_size.restype = ctypes.c_long
    return lib


class Both:
    """The C++ and the Python map side by side."""

    def __init__(self, lib: ctypes.CDLL, shapes: dict[int, tuple[int, ...]], declared: set[int]):
        self.lib = lib
        self.cxx = ctypes.c_void_p(lib.tm_create())
        self.out = (ctypes.c_uint32 * 65536)()
        self.counts = (ctypes.c_int * 3)()
        self.declare(shapes, declared)

    def declare(self, shapes: dict[int, tuple[int, ...]], declared: set[int]) -> None:
        self.py = TensorMap({t: s for t, s in shapes.items() if t in declared})
        for t in declared:
            shape = (ctypes.c_int64 * MAX_RANK)(*shapes[t])
            self.lib.tm_declare(self.cxx, self.base(t), len(shapes[t]), shape)

    def restart(self, shapes: dict[int, tuple[int, ...]], declared: set[int]) -> None:
        """The next run on the same C++ map (reset, its memory kept), a fresh Python map."""
        self.lib.tm_reset(self.cxx)
        assert self.lib.tm_size(self.cxx) == 0
        self.declare(shapes, declared)

    @staticmethod
    def base(tensor: int) -> int:
        return (tensor + 1) << 32

    def access(self, tensor: int, off, size, stride, access: str, task: int) -> None:
        rank = len(off)
        arr = ctypes.c_int64 * MAX_RANK
        rc = self.lib.tm_access(
            self.cxx,
            ctypes.c_uint64(self.base(tensor)),
            tensor,
            rank,
            arr(*off),
            arr(*size),
            arr(*stride),
            ACCESS[access],
            ctypes.c_uint32(task),
            self.out,
            len(self.out),
            self.counts,
        )
        assert rc == 0
        got, k = [], 0
        for n in self.counts:
            got.append(sorted(self.out[k : k + n]))
            k += n
        raw: list[int] = []
        waw: list[int] = []
        war: list[int] = []
        region = TensorRegion(tensor, tuple(off), tuple(size), tuple(stride), access)
        self.py.access(region, task, raw, waw, war)
        want = [sorted(raw), sorted(waw), sorted(war)]
        where = f"task {task}: {access} tensor {tensor} off {off} size {size} stride {stride}"
        assert got == want, where
        assert self.lib.tm_size(self.cxx) == len(self.py), where

    def gc(self, task: int) -> None:
        self.lib.tm_gc(self.cxx, task)
        self.py.gc_before(task)
        assert self.lib.tm_size(self.cxx) == len(self.py), f"gc_before({task})"

    def close(self) -> None:
        self.lib.tm_destroy(self.cxx)


def random_region(rng: random.Random, shape: tuple[int, ...], tilings: list[tuple]) -> tuple:
    """A region of ``shape``: mostly a tile of one of ``tilings``, else a strided or a random
    box, a whole tensor, or a single element."""
    kind = rng.random()
    if kind < 0.6:
        sizes, strides = rng.choice(tilings)
        off = []
        for n, s, st in zip(shape, sizes, strides):
            width = s * st
            cells = max(1, (n - (s - 1) * st + width - 1) // width)
            k = rng.randrange(cells)
            off.append(min(k * width, n - 1 - (s - 1) * st))
        return tuple(off), tuple(sizes), tuple(strides)
    if kind < 0.7:
        return (0,) * len(shape), tuple(shape), (1,) * len(shape)
    if kind < 0.8:
        return tuple(rng.randrange(n) for n in shape), (1,) * len(shape), (1,) * len(shape)
    off, size, stride = [], [], []
    for n in shape:
        st = rng.choice([1, 1, 1, 2, 3])
        s = rng.randint(1, max(1, (n - 1) // st + 1))
        o = rng.randrange(0, n - (s - 1) * st)
        off.append(o)
        size.append(s)
        stride.append(st)
    return tuple(off), tuple(size), tuple(stride)


@pytest.mark.parametrize("seed", range(6))
def test_same_dependencies_as_the_python_tensormap(lib, seed):
    rng = random.Random(seed)
    shapes = {0: (12, 16), 1: (6, 4, 8), 2: (40,), 3: (9, 10)}
    declared = {0, 1} if seed % 2 == 0 else {0, 2}
    tilings = {
        0: [((2, 4), (1, 1)), ((4, 16), (1, 1)), ((12, 2), (1, 1)), ((1, 4), (1, 2))],
        1: [((1, 4, 8), (1, 1, 1)), ((1, 1, 8), (1, 1, 1)), ((2, 2, 2), (1, 1, 2))],
        2: [((5,), (1,)), ((8,), (1,)), ((4,), (2,)), ((40,), (1,))],
        3: [((3, 10), (1, 1)), ((1, 5), (1, 2))],
    }
    both = Both(lib, shapes, declared)
    window = rng.choice([0, 0, 5, 17])
    try:
        task = 0
        for _ in range(700 if seed < 4 else 250):
            for _ in range(rng.randint(1, 3)):
                tensor = rng.choice(list(shapes))
                off, size, stride = random_region(rng, shapes[tensor], tilings[tensor])
                access = rng.choice(["in", "in", "out", "inout"])
                both.access(tensor, off, size, stride, access, task)
            task += 1
            if window and task % window == 0:
                both.gc(task - window)
    finally:
        both.close()


def test_many_tilings_and_many_readers(lib):
    """More tilings of one tensor than it has grids (the rest are scanned), and one region
    read by hundreds of tasks (readers spill past the inline ones), then written."""
    shapes = {0: (64, 64)}
    for declared in (set(), {0}):
        both = Both(lib, shapes, declared)
        try:
            task = 0
            for h in range(1, 25):
                for k in range(0, 64 - h + 1, 7):
                    both.access(0, (k, h), (h, 3), (1, 1), "out", task)
                    task += 1
            for _ in range(300):
                both.access(0, (0, 0), (8, 8), (1, 1), "in", task)
                task += 1
            both.access(0, (0, 0), (64, 64), (1, 1), "inout", task)
            task += 1
            both.access(0, (0, 0), (8, 8), (1, 1), "in", task)
        finally:
            both.close()


def test_a_reset_map_is_a_fresh_one(lib):
    """Runs share a kept TensorMap (TensorMap::take / give): after reset(), with other shapes
    and tilings (kept cells and members arrays reused, larger or smaller), the same edges."""
    rng = random.Random(7)
    both = Both(lib, {0: (12, 16), 1: (40,)}, {0, 1})
    try:
        for rows, declared in [(12, {0, 1}), (28, {0}), (8, {0, 1}), (28, {1})]:
            shapes = {0: (rows, 16), 1: (40,)}
            tilings = {
                0: [((2, 4), (1, 1)), ((4, 16), (1, 1)), ((rows, 2), (1, 1))],
                1: [((5,), (1,)), ((8,), (1,)), ((4,), (2,))],
            }
            both.restart(shapes, declared)
            for task in range(150):
                for _ in range(rng.randint(1, 3)):
                    tensor = rng.choice([0, 1])
                    off, size, stride = random_region(rng, shapes[tensor], tilings[tensor])
                    access = rng.choice(["in", "in", "out", "inout"])
                    both.access(tensor, off, size, stride, access, task)
    finally:
        both.close()


def test_tiles_of_every_width(lib):
    """Tiles of widths 1, a power of two, odd, odd times a power of two, past 2^32, and of
    grids spanning 2^63 (the one case the map divides by the width), at their cells' starts
    and off them by a little or by half a tile: the same edges as the Python map."""
    rng = random.Random(11)
    shapes = {0: (48, 60), 1: (3 * 2**32,), 2: (40, 7), 3: (3 * 2**61,)}
    tilings = {
        0: [(4, 6), (12, 5), (1, 60), (16, 20)],
        1: [(2**32,), (2**31 * 3,), (1,)],
        2: [(5, 7), (8, 1), (40, 7)],
        3: [(2**62,), (2**61,), (2**61 + 1,)],
    }
    both = Both(lib, shapes, set(shapes))
    try:
        for task in range(800):
            tensor = rng.choice(list(shapes))
            shape = shapes[tensor]
            size = rng.choice(tilings[tensor])
            off = []
            for n, s in zip(shape, size):
                k = rng.randrange(max(1, n // s))
                shift = rng.choice([0, 0, 0, 1, s // 2, -1])
                off.append(min(max(k * s + shift, 0), n - s))
            stride = (1,) * len(shape)
            access = rng.choice(["in", "in", "out", "inout"])
            both.access(tensor, tuple(off), size, stride, access, task)
    finally:
        both.close()


def test_boxes_over_a_full_grid(lib):
    """Reads and writes of boxes spanning several cells along some dimensions and one along
    others (a row of cells inside, a column, a block, the whole) of a grid whose every cell
    holds a tile: its cells walked, not its entries scanned."""
    shapes = {0: (4, 12, 16)}
    both = Both(lib, shapes, {0})
    try:
        task = 0
        for b in range(4):
            for r in range(0, 12, 2):
                for c in range(0, 16, 4):
                    both.access(0, (b, r, c), (1, 2, 4), (1, 1, 1), "out", task)
                    task += 1
        boxes = [
            ((1, 2, 4), (2, 6, 4)),
            ((0, 0, 0), (4, 12, 16)),
            ((3, 4, 0), (1, 4, 16)),
            ((0, 3, 5), (3, 3, 5)),
            ((2, 0, 8), (2, 12, 1)),
        ]
        for access in ("in", "inout", "in"):
            for off, size in boxes:
                both.access(0, off, size, (1, 1, 1), access, task)
                task += 1
    finally:
        both.close()
