"""examples/tile_kernels.py: RMSNorm with a residual, variable-length attention and the MoE
expert GEMM, written with tile kernels, run on the three targets and checked against numpy:
the CPU simulator; the Ascend target's host build (one g++ build for the three workloads),
whose outputs also equal the simulator's; and on AIE: RMSNorm (inputs joined) and the MoE GEMM
(a fixed capacity per expert) as designs that verify and, emulated, match numpy; each kernel's
emitted function JIT-run on the CPU; what still does not map, a located error."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from aie_tile_support import run as run_aie_kernel

import pto_wsp as pw
from pto_wsp.dialects import wsp
from pto_wsp.errors import CompileError
from pto_wsp.lowering.aie.design import kernel_arg_type
from pto_wsp.lowering.aie.kernels import kernel_function
from pto_wsp.lowering.ascend.build import have_compiler

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tile_kernels.py"
NAMES = ["norm", "attention", "moe_gemm"]


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("example_tile_kernels", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def simulated(example):
    """Each example run by the CPU simulator (checked against numpy), its data kept."""
    return {
        name: example.run(name, pw.compile(make(), target="cpu_sim"), np.random.default_rng(1))
        for name, (make, _, _) in example.EXAMPLES.items()
    }


@pytest.fixture(scope="module")
def ascend(example):
    """One module of the three workloads, emitted for Ascend and built once with g++ -Wall
    -Werror; the target plans each tile function's memory and inserts its flags itself."""
    if not have_compiler():
        pytest.skip("the host build needs g++")
    workloads = [make() for make, _, _ in example.EXAMPLES.values()]
    return pw.compile(pw.module(*workloads), target="ascend", host=True, program="norm")


@pytest.mark.parametrize("name", NAMES)
def test_simulator_matches_numpy(simulated, name):
    assert name in simulated  # the fixture ran it and checked it


@pytest.mark.parametrize("name", NAMES)
def test_ascend_matches_numpy_and_the_simulator(example, ascend, simulated, name):
    """The same inputs: outputs equal numpy's within the example's tolerances and the
    simulator's within f32 rounding (different summation orders)."""
    got = example.run(name, ascend.for_program(name), np.random.default_rng(1))
    for key, value in simulated[name].items():
        if isinstance(value, np.ndarray) and value.dtype == np.float32:
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-5, err_msg=key)


def test_ascend_bodies_are_planned_and_synchronized(ascend):
    """No stubs: every body is emitted from its tile function, its tiles placed in one buffer
    per space, flags between pipes (the matmul of the scores kernel: MTE1 -> M)."""
    assert ascend.tree.stubs == ()
    scores = ascend.tree.files["kernels/scores_body.cpp"]
    for text in (
        "uint8_t acc_buffer[",
        "uint8_t vec_buffer[",
        "TMATMUL(",
        "TWAIT_FLAG(PIPE_MTE1, PIPE_M",
    ):
        assert text in scores


def test_attention_scores_keep_the_valid_keys(example):
    """The matmul of Q by the n valid columns of K^T has n valid columns (valid = [8, ?])."""
    from pto_wsp.frontend.program import print_module

    text = print_module(example.attention().module())
    assert "-> !pto.tile<8x40xf32, acc, valid = [8, ?]>" in text
    assert (
        "pto.store %" in text
        and "!pto.tile<8x40xf32, vec, valid = [8, ?]>, memref<8x40xf32>" in text
    )


# --------------------------------------------------------------------------- AIE


def aie_kernel(workload, name: str):
    """The AIE kernel function (a body, no object file) of kernel @name of ``workload``."""
    module = workload.module()
    kernel = next(
        op for op in module.walk() if isinstance(op, wsp.KernelOp) and op.sym_name.data == name
    )
    inputs = [
        kernel_arg_type(name, n.data, t, kernel)
        for n, t in zip(kernel.arg_names, kernel.function_type.inputs)
    ]
    fn, _ = kernel_function(kernel, kernel.tile_function(), inputs)
    fn.verify()
    return fn


def test_aie_rmsnorm_kernel_matches_numpy(example):
    fn = aie_kernel(example.rmsnorm(), "add_rmsnorm")
    d = example.rmsnorm_data(np.random.default_rng(2))
    for x, r in zip(d["X"], d["R"]):
        h, y = np.zeros_like(x), np.zeros_like(x)
        run_aie_kernel(fn, [x, r, d["G"], h, y, np.float32(1e-6)])
        s = x + r
        np.testing.assert_allclose(h, s, rtol=1e-6)
        ref = s / np.sqrt((s * s).mean(axis=1, keepdims=True) + 1e-6) * d["G"]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_aie_expert_gemm_kernel_matches_numpy(example):
    fn = aie_kernel(example.moe(), "expert_gemm")
    d = example.moe_data(np.random.default_rng(3))
    for b, experts in enumerate(example.ROUTES):
        for e in experts:
            y = np.zeros((16, 32), np.float32)
            run_aie_kernel(fn, [d["tokens"][b], d["weights"][e], y])
            np.testing.assert_allclose(y, d["tokens"][b] @ d["weights"][e], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 5, 17, 40])
def test_aie_attention_kernels_loop_to_the_valid_length_and_match_numpy(example, n):
    """The tiles are padded to MAX_LEN; the loops run to n (an i32 argument): softmax over
    the first n scores, P's tail left as it was (zero), O = P V over the first n keys."""
    scores = aie_kernel(example.attention(), "scores")
    weighted = aie_kernel(example.attention(), "weighted")
    d = example.attention_data(np.random.default_rng(6))
    q, kt, v = d["Q"][0, 0], d["KT"][0], d["V"][0]
    p = np.zeros((example.ROWS, example.MAX_LEN), np.float32)
    o = np.zeros((example.ROWS, example.DIM), np.float32)
    run_aie_kernel(scores, [np.int32(n), q, kt, p])
    run_aie_kernel(weighted, [np.int32(n), p, v, o])
    s = q @ kt[:, :n] / np.sqrt(example.DIM)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(p[:, :n], e / e.sum(axis=-1, keepdims=True), rtol=1e-5)
    assert not p[:, n:].any()
    np.testing.assert_allclose(o, p[:, :n] @ v[:n], rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def aie_designs(example):
    """The AIE designs of the examples that map, verified against mlir-aie's rules."""
    return {name: example.aie_design(name) for name in ("norm", "moe_gemm")}


def test_aie_rmsnorm_joins_x_and_r_and_matches_numpy(example, aie_designs):
    """Three inputs, two channels: X and R arrive joined, G on its own; one core per block."""
    text = str(aie_designs["norm"])
    assert "aie.objectfifo.link [@X_R] -> [@X_R_0, @X_R_1, @X_R_2, @X_R_3]" in text
    assert text.count("aie.core(") == example.AIE_BLOCKS
    example.run_aie("norm", np.random.default_rng(4), [aie_designs["norm"]])


def test_aie_moe_runs_a_fixed_capacity_per_expert_and_matches_numpy(example, aie_designs):
    """Slots of 2 blocks per expert (the most ROUTES gives one): 8 cores, expert e in column
    e; the host dispatches the routed blocks into slots and combines the results."""
    assert example.capacity() == 2
    text = str(aie_designs["moe_gemm"])
    assert text.count("aie.core(") == 8
    for e in range(4):
        assert f"@weights_col{e}" in text
    example.run_aie("moe_gemm", np.random.default_rng(5), [aie_designs["moe_gemm"]])


def test_aie_attention_lengths_are_runtime_parameters_and_match_numpy(example):
    """Two designs (scores, weighted) of 12 cores; each core reads its length from slot 0
    of its rtp buffer, which the runtime sequence writes first; emulated, O equals numpy."""
    lens = [5, 40, 17]
    designs = example.attention_designs(lens)
    for design in designs:
        text = str(design)
        assert text.count("aie.core(") == 12
        assert 'aie.buffer(%tile_c0r2) {sym_name = "rtp_c0r2"} : memref<16xi32>' in text
        assert "memref.load %rtp_c0r2[" in text
        sequence = text[text.index("aie.runtime_sequence") :]
        assert sequence.index("aiex.npu.rtp_write") < sequence.index("aiex.npu.dma_memcpy_nd")
        assert sequence.count("aiex.npu.rtp_write") == 12
    data = example.run_aie("attention", np.random.default_rng(6), designs)
    assert not data["P"][0, :, :, lens[0] :].any()  # P's padding is never written


def test_aie_what_does_not_map_is_a_located_error(example):
    """Attention as written: its tensors are as long as the batch; its lengths unbound (the
    runtime sequence has no values to write); MoE routed by CSR arrays read at run time (the
    workload itself, not the capacity form)."""
    grid = example.attention().schedule().spatial_map((2,))
    with pytest.raises(CompileError, match=r"tensor Q has dynamic shape .*needs static tensors"):
        pw.compile(grid, target="xdna1", bind={"batch": 3})
    with pytest.raises(
        CompileError, match=r"read lens\[0\] at run time: .*bind the values of lens"
    ):
        pw.compile(example.attention_aie("scores"), target="xdna1")
    moe = example.moe().schedule().spatial_map((2,))
    with pytest.raises(CompileError, match=r"loop bound: a value loaded from memory \(data-dep"):
        pw.compile(moe, target="xdna1", bind={"blocks": 5})
