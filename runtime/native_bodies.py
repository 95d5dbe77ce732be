"""The functional mode's native kernel bodies: tile kernels called by the runtime core.

A tile kernel's body is a ``TileFunction`` (lowering/cpu/tile.py): code compiled by upstream
MLIR with an entry for the core, ``core_entry``, taking one array of 64-bit words (per
parameter a tensor's data address, sizes and strides, or a scalar). ``NativeBodies`` hands
the core (``pto_core_run_bodies``, runtime/core/bodies.cpp) the graph's arrays, per kernel that
entry and its parameters, and per bound tensor its address, element type and strides; the
core then walks the dispatch order and calls each native body itself. It stops at a task whose
body is Python's — or whose call it cannot make as the Python path would, which then runs it
and gives its error — and ``Run.run_bodies`` runs that one and lets the core go on.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.runtime import native_core

__all__ = ["NativeBodies"]

_SKIP, _NATIVE, _HOST = 0, 1, 2
_TENSOR, _INTEGER, _FLOATING = 0, 1, 2
_I64 = ctypes.POINTER(ctypes.c_int64)


class _Bodies(ctypes.Structure):
    _fields_ = [
        ("kernel", ctypes.POINTER(ctypes.c_int32)),
        ("site", ctypes.POINTER(ctypes.c_int32)),
        *[(n, _I64) for n in ("args_begin", "args", "regions_begin", "regions")],
        ("regions32", ctypes.POINTER(ctypes.c_int32)),
        ("num_sites", ctypes.c_int64),
        ("kinds_begin", _I64),
        ("kinds", ctypes.POINTER(ctypes.c_uint8)),
        ("kept_begin", _I64),
        ("kept", _I64),
        ("num_kernels", ctypes.c_int64),
        ("max_words", ctypes.c_int64),
        ("mode", ctypes.POINTER(ctypes.c_uint8)),
        ("entry", ctypes.POINTER(ctypes.c_void_p)),
        ("sig_begin", _I64),
        ("sig", _I64),
        ("num_tensors", ctypes.c_int64),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        *[(n, _I64) for n in ("dtype", "rank", "itemsize", "shape", "stride")],
    ]


@cache
def _api() -> ctypes.CDLL:
    lib = native_core._api()
    lib.pto_core_run_bodies.restype = ctypes.c_int64
    lib.pto_core_run_bodies.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
    return lib


def _native(body: Any) -> bool:
    """Whether ``body`` is a compiled tile kernel with the core's entry."""
    return bool(getattr(body, "core_entry", 0)) and hasattr(body, "params")


class NativeBodies:
    """A run's native bodies: ``run(order, start, stop)`` calls them in the core."""

    def __init__(self, bodies: _Bodies, keep: list[Any]) -> None:
        self._bodies = bodies
        self._keep = keep  # the arrays the structure points into
        self._run = _api().pto_core_run_bodies
        self._address = ctypes.addressof(bodies)

    @classmethod
    def plan(
        cls, graph: TaskGraph, runnable: Sequence[Any], arrays: Mapping[str, np.ndarray]
    ) -> NativeBodies | None:
        """The native bodies of ``graph`` (a graph the core built) whose kernels' bodies are
        ``runnable`` (None: no body) over the bound ``arrays``; None when none is native."""
        if not any(_native(b) for b in runnable):
            return None
        site_of, kept, tensors = graph.regions.info
        kinds = graph.args.info[1]
        dtypes: dict[np.dtype, int] = {}
        keep: list[Any] = []

        def ptr(values: Any, dtype: Any) -> Any:
            array = np.ascontiguousarray(values, dtype=dtype)
            keep.append(array)
            return array.ctypes.data_as(ctypes.POINTER(np.ctypeslib.as_ctypes_type(array.dtype)))

        b = _Bodies()
        b.kernel, b.site = ptr(graph.kernel, np.int32), ptr(site_of, np.int32)
        b.args_begin, b.args = ptr(graph.args._begin, np.int64), ptr(graph.args._values, np.int64)
        b.regions_begin = ptr(graph.regions._begin, np.int64)
        values = graph.regions._values  # (int32 when every value of the build fits)
        if values.dtype == np.int32:
            b.regions32 = ptr(values, np.int32)
        else:
            b.regions = ptr(values, np.int64)
        b.num_sites = n = max(len(kinds), len(kept))
        site_kinds = [kinds[s] if s < len(kinds) else "" for s in range(n)]
        b.kinds_begin = ptr(_begin(map(len, site_kinds)), np.int64)
        b.kinds = ptr(np.frombuffer("".join(site_kinds).encode() or b"\0", np.uint8), np.uint8)
        masks = [
            [sum(1 << d for d in dims) for dims in kept[s]] if s < len(kept) else []
            for s in range(n)
        ]
        b.kept_begin = ptr(_begin(map(len, masks)), np.int64)
        b.kept = ptr([m for site in masks for m in site] or [0], np.int64)
        cls._kernels(b, runnable, dtypes, ptr)
        cls._tensors(b, [arrays.get(name) for name in tensors], dtypes, ptr)
        return cls(b, keep)

    @staticmethod
    def _kernels(b: _Bodies, runnable: Sequence[Any], dtypes: dict, ptr: Any) -> None:
        """Per kernel its mode, entry and signature (see pto_wsp_core.h's PtoBodies)."""
        modes, entries, begin, sig, most = [], [], [0], [], 0
        for body in runnable:
            native = _native(body)
            modes.append(_SKIP if body is None else _NATIVE if native else _HOST)
            entries.append(body.core_entry if native else 0)
            words = 0
            for p in body.params if native else ():
                if p.rank < 0:
                    floating = p.ctype in (ctypes.c_float, ctypes.c_double)
                    sig.append(_FLOATING if floating else _INTEGER)
                    words += 1
                else:
                    code = dtypes.setdefault(np.dtype(p.dtype), len(dtypes))
                    sig += [_TENSOR, code, p.rank, *p.shape]
                    words += 1 + 2 * p.rank
            most = max(most, words)
            begin.append(len(sig))
        b.num_kernels, b.max_words = len(runnable), most
        b.mode = ptr(modes, np.uint8)
        b.entry = ctypes.cast(ptr(entries, np.uint64), ctypes.POINTER(ctypes.c_void_p))
        b.sig_begin, b.sig = ptr(begin, np.int64), ptr(sig or [0], np.int64)

    @staticmethod
    def _tensors(b: _Bodies, bound: list[Any], dtypes: dict, ptr: Any) -> None:
        """Per tensor its address (0: not bound as an array the core can index), element type
        code, rank, item size, extents and strides in elements."""
        rows = max(len(bound), 1)
        data = np.zeros(rows, np.uint64)
        dtype, rank, itemsize = (
            np.full(rows, -1, np.int64),
            np.zeros(rows, np.int64),
            np.ones(rows, np.int64),
        )
        shape = np.zeros((rows, native_core.MAX_RANK), np.int64)
        stride = np.zeros((rows, native_core.MAX_RANK), np.int64)
        for t, array in enumerate(bound):
            if not isinstance(array, np.ndarray) or array.ndim > native_core.MAX_RANK:
                continue
            size = array.itemsize
            if size == 0 or any(s % size for s in array.strides):
                continue
            data[t] = array.__array_interface__["data"][0]
            dtype[t] = dtypes.setdefault(array.dtype, len(dtypes))
            rank[t], itemsize[t] = array.ndim, size
            shape[t, : array.ndim] = array.shape
            stride[t, : array.ndim] = [s // size for s in array.strides]
        b.num_tensors = len(bound)
        b.data = ctypes.cast(ptr(data, np.uint64), ctypes.POINTER(ctypes.c_void_p))
        b.dtype, b.rank, b.itemsize = (
            ptr(dtype, np.int64),
            ptr(rank, np.int64),
            ptr(itemsize, np.int64),
        )
        b.shape, b.stride = ptr(shape, np.int64), ptr(stride, np.int64)

    def run(self, order: np.ndarray, start: int, stop: int) -> int:
        """Run the native bodies of ``order[start:stop]`` (an int64 array) in the core; the
        index of the first task it left to the caller, ``stop`` when none."""
        return self._run(self._address, order.ctypes.data, start, stop)


def _begin(lengths: Any) -> np.ndarray:
    sizes = np.fromiter(lengths, np.int64)
    out = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=out[1:])
    return out
