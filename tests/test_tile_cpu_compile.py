"""How a tile kernel is compiled for the CPU (docs/kernels.md "CPU numerics"): compiled for
size, static matmuls in functions of their own, transfers of contiguous and strided views,
the disk cache written in the background."""

import numpy as np
import pytest

from pto_wsp import In, Out, f32, index, kernel
from pto_wsp import tile as pl
from pto_wsp.frontend.tile import trace
from pto_wsp.lowering.cpu import objcache, tile
from pto_wsp.lowering.cpu.tile import compile_tile
from pto_wsp.lowering.cpu.tile_text import upstream_text

RNG = np.random.default_rng(5)


def traced(k):
    return trace(k.fn, f"{k.name}_tile", k.params, f"@kernel {k.name}", k.loc)


@kernel
def gemm(a: In[f32[8, 16]], b: In[f32[16, 8]], c: Out[f32[8, 8]]):
    pl.store(pl.matmul(pl.load(a), pl.load(b)), c)


@kernel
def gemm_n(n: index, a: In[f32[8, 16]], b: In[f32[16, 8]], c: Out[f32[8, 8]]):
    pl.store(pl.matmul(pl.load(a, valid=(8, n)), pl.load(b, valid=(n, 8))), c)


def test_kernel_compiled_for_size_static_matmul_in_a_function_of_its_own():
    text, _ = upstream_text(traced(gemm))
    kernel_head = text.splitlines()[0]
    assert kernel_head.startswith("func.func @gemm_tile(")
    assert 'passthrough = ["optsize"]' in kernel_head
    assert "func.call @gemm_tile__matmul0(" in text
    (callee,) = [line for line in text.splitlines() if "func.func private" in line]
    assert callee.startswith("func.func private @gemm_tile__matmul0(")
    assert 'passthrough = ["noinline"]' in callee
    # A matmul of runtime sizes stays in the kernel: it would be compiled at full speed with
    # runtime checks for every size, the cost this avoids.
    dynamic, _ = upstream_text(traced(gemm_n))
    assert "__matmul" not in dynamic and "linalg.generic" in dynamic


@pytest.mark.parametrize("k", [gemm, gemm_n], ids=["static", "runtime-sizes"])
def test_matmul_either_way_equals_numpy(k):
    a, b = RNG.standard_normal((8, 16), np.float32), RNG.standard_normal((16, 8), np.float32)
    c = np.zeros((8, 8), np.float32)
    f = compile_tile(traced(k))
    if k is gemm:
        f(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    else:
        f(5, a, b, c)
        np.testing.assert_allclose(c, a[:, :5] @ b[:5], rtol=1e-5, atol=1e-5)


@kernel
def scale(n: index, x: In[f32[4, 8]], y: Out[f32[4, 8]], z: Out[f32[4, 8]]):
    pl.store(pl.load(x) * 2.0, y)
    pl.store(pl.load(x, valid=(4, n)) * 3.0, z)


@pytest.mark.parametrize("view", ["rows", "every-other-column", "transposed"], ids=lambda v: v)
def test_transfers_of_contiguous_rows_and_of_any_strides(view):
    """A view whose rows are contiguous is copied as such (vectorized); any other stride
    takes the general copy: both give the same elements, loaded and stored."""

    def as_view(a):
        if view == "rows":
            return a
        if view == "every-other-column":
            wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
            wide[:, ::2] = a
            return wide[:, ::2]
        return np.ascontiguousarray(a.T).T

    f = compile_tile(traced(scale))
    x = as_view(RNG.standard_normal((4, 8), np.float32))
    y, z = as_view(np.zeros((4, 8), np.float32)), as_view(np.full((4, 8), -1, np.float32))
    f(5, x, y, z)
    np.testing.assert_array_equal(y, x * np.float32(2))
    np.testing.assert_array_equal(z[:, :5], x[:, :5] * np.float32(3))
    np.testing.assert_array_equal(z[:, 5:], -1)


@kernel
def small(x: In[f32[16, 16]], y: Out[f32[16, 16]]):
    t = pl.load(x)
    pl.store(t * 2.0 + t, y)


@kernel
def large(x: In[f32[128, 128]], y: Out[f32[128, 128]]):
    t = pl.load(x)
    pl.store(pl.exp(t) * t + t, y)


def test_tiles_on_the_stack_within_the_budget_the_rest_on_the_heap():
    """No allocator call per task for small tiles; a kernel's tiles past 128 KiB go to the
    heap (and are freed), with the same numerics."""
    text, _ = upstream_text(traced(small))
    assert "memref.alloca()" in text and "memref.alloc()" not in text
    assert "memref.dealloc" not in text
    text, _ = upstream_text(traced(large))  # four 64 KiB tiles: two fit
    assert text.count("memref.alloca()") == 2
    assert text.count("memref.alloc()") == text.count("memref.dealloc") == 2
    x = RNG.standard_normal((128, 128), np.float32)
    y = np.zeros_like(x)
    compile_tile(traced(large))(x, y)
    np.testing.assert_allclose(y, np.exp(x) * x + x, rtol=1e-5, atol=1e-6)


@kernel
def cached_once(x: In[f32[2, 24]], y: Out[f32[2, 24]]):
    pl.store(pl.sqrt(pl.abs(pl.load(x))), y)


def test_the_disk_cache_is_written_meanwhile_and_flushed(tmp_path, monkeypatch):
    monkeypatch.setenv("PTO_WSP_CACHE", str(tmp_path))
    text, _ = upstream_text(traced(cached_once))
    tile._ENGINES.pop(text, None)  # compiled now, whatever the process compiled before
    f = compile_tile(traced(cached_once))
    x = RNG.standard_normal((2, 24), np.float32)
    y = np.zeros_like(x)
    f(x, y)  # callable before its library is written
    tile.flush()
    (lib,) = (tmp_path / "programs").glob("*.so")
    assert objcache.load(lib.stem) is not None
    np.testing.assert_array_equal(y, np.sqrt(np.abs(x)))
