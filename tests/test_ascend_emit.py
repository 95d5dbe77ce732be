"""The Ascend emitter without a build: golden emitted files (unified diff on failure), the
X-macro kernel list, the lowered config, build files, and a located diagnostic for each
construct the target cannot emit.

Regenerate the goldens after an intended change with ``PTO_WSP_UPDATE_GOLDEN=1 pytest
tests/test_ascend_emit.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr

from pto_wsp.dialects import wsp
from pto_wsp.lowering.ascend import AscendEmitError, compile_module, emit_tree, lower_to_tg
from pto_wsp.lowering.ascend.emit import EmittedTree
from pto_wsp.lowering.ascend.pipeline import receipt_keys
from pto_wsp.tools.diagnostics import parse_located as parse

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GOLDEN = REPO / "tests" / "lit" / "ascend" / "Inputs" / "golden"
KERNELS = REPO / "tests" / "lit" / "ascend" / "Inputs" / "kernels"


def example(name: str) -> ModuleOp:
    path = EXAMPLES / f"{name}.mlir"
    return lower_to_tg(parse(path.read_text(), str(path)))


def with_bodies(module: ModuleOp) -> ModuleOp:
    for op in module.walk():
        if isinstance(op, wsp.KernelOp):
            op.impls = DictionaryAttr({"ascend": StringAttr(f"{op.sym_name.data}.cpp")})
    return module


# ------------------------------------------------------------------ golden files


@pytest.mark.parametrize("name", ["attention", "scan"])
def test_golden_tree(name: str):
    """Every generated file of the example, byte for byte (bodies: stubs)."""
    tree = emit_tree(example(name), stub_kernels=True)
    folder = GOLDEN / name
    files = tree.generated()
    if os.environ.get("PTO_WSP_UPDATE_GOLDEN"):
        if folder.exists():
            shutil.rmtree(folder)
        for rel, text in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
    expected = {
        p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file()
    }
    assert sorted(files) == sorted(expected), "the set of emitted files changed"
    diffs = []
    for rel in sorted(files):
        if files[rel] != expected[rel]:
            diffs += difflib.unified_diff(
                expected[rel].splitlines(keepends=True),
                files[rel].splitlines(keepends=True),
                f"golden/{name}/{rel}",
                f"emitted/{rel}",
            )
    assert not diffs, "emitted files differ from the goldens:\n" + "".join(diffs)


def test_tree_carries_the_runtime():
    tree = emit_tree(example("scan"), stub_kernels=True)
    runtime = sorted(p for p in tree.files if p.startswith("ascend_host/"))
    assert "ascend_host/include/pto_wsp/aicore.h" in runtime
    for part in ("runtime.cpp", "builder.cpp", "executor.cpp", "builder_impl.h", "ready_queue.h"):
        assert f"ascend_host/src/{part}" in runtime
    assert tree.digest() == emit_tree(example("scan"), stub_kernels=True).digest()


# ------------------------------------------------------------------ kernels


def test_kernel_list_is_the_one_source_of_ids():
    tree = emit_tree(example("tiered"), stub_kernels=True)
    ids = tree.files["kernel_ids.h"]
    assert "X(KERNEL_ATTN_2K, attn_2k, Cube, 2, 1)" in ids
    assert ids.index("attn_2k") < ids.index("attn_8k") < ids.index("attn_32k")
    assert "KERNEL_LIST(DISPATCH_CASE)" in tree.files["aicore_dispatch.cpp"]
    assert tree.kernels == ["attn_2k", "attn_8k", "attn_32k"]
    wrapper = tree.files["kernels/attn_8k.cpp"]
    assert 'extern "C" __global__ __aicore__ void attn_8k_wrapper(GM_ADDR task_gm)' in wrapper
    assert "pto::wsp::gm_tensor<float, 2>(task->io[0].region)" in wrapper
    header = tree.files["kernels/attn_8k.h"]
    assert "__aicore__ void attn_8k(int64_t b, int64_t len, pto::wsp::GmTensor<float, 2> X);" in (
        header
    )


def test_kernel_on_both_pools_is_built_for_both_cores():
    """dispatch_threshold gives a dynamic pool: the kernel must exist on AIV and AIC."""
    module = parse(
        """
wsp.kernel @k(b: index, x: in memref<4xf32>) unit(vector)
wsp.workload @w(%x: memref<?x4xf32>, %n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    %v = wsp.view %x[%b] : memref<?x4xf32> -> memref<4xf32>
    wsp.task @k(%b : index) resources(%v : memref<4xf32>)
  }
}
sched.schedule @s for @w {
  sched.dispatch_threshold 2 below(vector) above(cube) key(%b = "b") {
    sched.yield %b : index
  }
}
"""
    )
    tree = emit_tree(lower_to_tg(module), stub_kernels=True)
    assert "X(KERNEL_K, k, Both, 1, 1)" in tree.files["kernel_ids.h"]
    assert "pto::wsp::pool_from_index(" in tree.files["aicpu_orchestrate.cpp"]
    device = tree.files["Makefile.device"]
    aiv, aic = device.split("AIC_SRCS =")[0], device.split("AIC_SRCS =")[1]
    assert "kernels/k.cpp" in aiv.split("AIV_SRCS =")[1] and "kernels/k.cpp" in aic


def test_bodies_from_files_and_inline(tmp_path):
    module = example("three_stage")
    inline = "__aicore__ void compute_kernel(int64_t b, pto::wsp::GmTensor<float, 1> x) {}\n"
    for op in module.walk():
        if isinstance(op, wsp.KernelOp):
            name = op.sym_name.data
            where = inline if name == "compute_kernel" else f"{name}.cpp"
            op.impls = DictionaryAttr({"ascend": StringAttr(where)})
    tree = emit_tree(module, kernel_dirs=[KERNELS])
    load = tree.files["kernels/load_kernel_body.cpp"]
    assert f'#line 1 "{KERNELS / "load_kernel.cpp"}"' in load
    assert (KERNELS / "load_kernel.cpp").read_text() in load
    assert (
        '#line 1 "inline body of @compute_kernel"' in tree.files["kernels/compute_kernel_body.cpp"]
    )
    # A relative path is found next to the file that declares the kernel.
    (tmp_path / "store_kernel.cpp").write_text("// found\n")
    decl = tmp_path / "k.mlir"
    decl.write_text(
        'wsp.kernel @store_kernel(b: index) unit(vector) attributes {impls = {ascend = "store_kernel.cpp"}}\n'
        "wsp.workload @w() {\n  %c = arith.constant 0 : index\n"
        "  wsp.task @store_kernel(%c : index) resources()\n}\n"
    )
    tree = emit_tree(lower_to_tg(parse(decl.read_text(), str(decl))))
    assert "// found" in tree.files["kernels/store_kernel_body.cpp"]


# ------------------------------------------------------------------ schedule and build files


def test_config_is_lowered_to_a_runtime_config():
    module = parse(
        """
wsp.kernel @k(b: index) unit(vector)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}
sched.schedule @s for @w {
  sched.dispatch round_robin(3)
  sched.issue priority key(%b = "b") {
    sched.yield %b : index
  }
  sched.timing batched(16)
  sched.pipeline_depth 2 scope(per_stream)
  sched.task_window 64 overflow(abort)
  sched.batch_deps 8
}
"""
    )
    text = emit_tree(lower_to_tg(module), stub_kernels=True).files["aicpu_orchestrate.cpp"]
    for line in (
        "c.dispatch = pto::wsp::Dispatch::RoundRobin;",
        "c.workers = 3;",
        "c.ready = pto::wsp::ReadyPolicy::Priority;",
        "c.timing = pto::wsp::Timing::Batched;",
        "c.timing_n = 16;",
        "c.pipeline_depth = 2;",
        "c.depth_scope = pto::wsp::DepthScope::PerStream;",
        "c.task_window = 64;",
        "c.window_overflow = pto::wsp::Overflow::Abort;",
        "c.batch_deps = 8;",
        " = _b.num_tasks();",
    ):
        assert line in text
    assert (
        "_b.alloc_task(KERNEL_K, pto::wsp::ExecDomain::HostCPU, pto::wsp::ExecPool::Vector" in text
    )


@pytest.mark.parametrize(
    ("soc", "version", "arch"),
    [("910b", "Ascend910B1", "dav-c220"), ("910c", "Ascend910_9391", "dav-c220"),
     ("950", "Ascend950", "dav-c310")],
)  # fmt: skip
def test_device_makefile_names_the_toolchain(soc, version, arch):
    tree = emit_tree(example("scan"), stub_kernels=True, soc=soc)
    device = tree.files["Makefile.device"]
    assert f"SOC_VERSION ?= {version}" in device
    assert f"--cce-aicore-arch={arch}-vec -DPTO_WSP_AIV" in device
    assert f"--cce-aicore-arch={arch}-cube -DPTO_WSP_AIC" in device
    assert "UNTESTED" in device
    assert f"(soc {soc})" in tree.files["aicpu_orchestrate.cpp"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_host_makefile_commands(tmp_path):
    """Makefile.host builds every translation unit with the flags the Python build uses."""
    tree = emit_tree(example("scan"), stub_kernels=True)
    tree.write(tmp_path)
    run = subprocess.run(
        ["make", "-n", "-f", "Makefile.host"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    for src in ("aicpu_orchestrate", "aicore_dispatch", "kernels/scan_step", "kernels/scan_step_body",
                "ascend_host/src/runtime", "ascend_host/src/tensormap"):  # fmt: skip
        assert f"-c {src}.cpp -o {src}.o" in run.stdout
    assert "-std=c++17 -O3 -Wall -Werror" in run.stdout and "-DPTO_WSP_HOST" in run.stdout
    assert "-shared -o libpto_wsp_host.so" in run.stdout


def test_compile_without_host_returns_the_tree(tmp_path):
    tree = compile_module(
        with_bodies(example("three_stage")), out_dir=tmp_path, kernel_dirs=[KERNELS]
    )
    assert isinstance(tree, EmittedTree)
    assert tree.dir == tmp_path
    assert (tmp_path / "aicpu_orchestrate.cpp").read_text() == tree.files["aicpu_orchestrate.cpp"]


def test_frontend_compile_uses_the_ascend_backend(tmp_path):
    import pto_wsp
    from pto_wsp.errors import CompileError
    from pto_wsp.frontend.program import _BACKENDS
    from pto_wsp.lowering.ascend import register

    before = dict(_BACKENDS)
    register()
    try:
        check_frontend_compile(pto_wsp, CompileError, tmp_path)
    finally:
        _BACKENDS.clear()
        _BACKENDS.update(before)


def check_frontend_compile(pto_wsp, CompileError, tmp_path):
    module = parse((EXAMPLES / "scan.mlir").read_text())
    tree = pto_wsp.compile(module, target="ascend", out_dir=tmp_path, stub_kernels=True)
    assert isinstance(tree, EmittedTree) and "scan" in tree.programs
    with pytest.raises(CompileError, match="has no Ascend body") as error:
        pto_wsp.compile(module, target="ascend")
    assert error.value.loc.filename == __file__
    # An option compile_module does not take: named, with the ones it does (not Python's
    # "unexpected keyword argument").
    with pytest.raises(CompileError, match=r"unknown option\(s\) for target 'ascend': colour "):
        pto_wsp.compile(module, target="ascend", colour="red")


# ------------------------------------------------------------------ diagnostics


def emit_error(text: str, **options) -> AscendEmitError:
    module = parse(text, "input.mlir")
    with pytest.raises(AscendEmitError) as info:
        emit_tree(lower_to_tg(module), **options)
    return info.value


def test_pipeline_keys_need_the_pipelines_schedule():
    """A pipeline lowered to tg before the target lost the keys its receivers compute: said."""
    source = parse((EXAMPLES / "work_steal.mlir").read_text())
    tree = emit_tree(lower_to_tg(source), stub_kernels=True)
    assert any("keys over replica are not computed at receipt" in w for w in tree.warnings)
    keys = receipt_keys(source)
    tree = emit_tree(lower_to_tg(source), stub_kernels=True, receipt_keys=keys)
    assert not any("receipt" in w for w in tree.warnings)
    assert "&work_steal_keys);" in tree.files["aicpu_orchestrate.cpp"]


def test_missing_body_is_a_located_diagnostic():
    error = emit_error(
        "wsp.kernel @k() unit(vector)\nwsp.workload @w() {\n  wsp.task @k() resources()\n}\n"
    )
    assert error.where == "input.mlir:1:1"
    assert "kernel @k has no Ascend body" in error.message
    assert error.located().startswith("input.mlir:1:1: error: kernel @k has no Ascend body")


def test_body_file_not_found():
    error = emit_error(
        'wsp.kernel @k() unit(vector) attributes {impls = {ascend = "nowhere/k.cpp"}}\n'
        "wsp.workload @w() {\n  wsp.task @k() resources()\n}\n"
    )
    assert "Ascend body 'nowhere/k.cpp' not found" in error.message


def test_float_program_argument():
    """A kernel's f32 scalar travels in the task ABI; a program argument of that type does
    not (the orchestration's arguments are memrefs and integers)."""
    error = emit_error(
        "wsp.kernel @k(x: f32) unit(vector)\n"
        "wsp.workload @w(%x: f32) {\n  wsp.task @k(%x : f32) resources()\n}\n",
        stub_kernels=True,
    )
    assert "argument 'x' has type f32; the ascend target takes memrefs" in error.message


def test_program_constructs_the_target_cannot_emit():
    cases = {
        "loop-carried values": """
wsp.kernel @k(i: index) unit(vector)
tg.program @p(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    tg.task @k(%a : index) resources() pool(vector)
    scf.yield %i : index
  }
}
""",
        "a memref.load of f32": """
wsp.kernel @k(i: index) unit(vector)
tg.program @p(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %i = arith.fptosi %v : f32 to i64
  %j = arith.index_cast %i : i64 to index
  tg.task @k(%j : index) resources() pool(vector)
}
""",
    }
    for what, text in cases.items():
        error = emit_error(text, stub_kernels=True)
        assert f"the ascend target cannot emit {what}" in error.message, error.message
        assert error.where.startswith("input.mlir:")


def test_module_without_programs_and_bad_options():
    with pytest.raises(AscendEmitError, match="and the module has none"):
        emit_tree(parse("wsp.kernel @k() unit(vector)\n"))
    with pytest.raises(AscendEmitError, match="unknown soc '310p'"):
        emit_tree(example("scan"), soc="310p", stub_kernels=True)
    with pytest.raises(AscendEmitError, match="no tg.program @nope"):
        emit_tree(example("scan"), program="nope", stub_kernels=True)


# ------------------------------------------------------------------ reads after the last write

READS = """
wsp.kernel @fill(t: out memref<4xf32>) unit(vector)
wsp.kernel @use(a: in memref<4xf32>, w: in memref<4xf32>, b: out memref<4xf32>) unit(vector)
tg.program @p(%A: memref<4xf32>, %W: memref<4xf32>, %B: memref<4xf32>) {
  tg.task @fill() resources(%A : memref<4xf32>) access(out) pool(vector)
  tg.task @use() resources(%A, %W, %B : memref<4xf32>, memref<4xf32>, memref<4xf32>) access(in, in, out) pool(vector)
}
"""


def test_reads_after_the_last_write_are_not_recorded():
    """A read after every write of its tensor is only looked up, a read of a tensor no task
    writes not at all (passes/tg_reads.py); a program another calls keeps recorded reads: its
    reads depend on where it is called."""
    text = emit_tree(parse(READS), stub_kernels=True).files["aicpu_orchestrate.cpp"]
    assert "_t.add_input_lookup(" in text and "_t.add_input_unwritten(" in text
    assert "_t.add_input(" not in text
    called = (
        READS
        + """
tg.program @q(%A: memref<4xf32>, %W: memref<4xf32>, %B: memref<4xf32>) {
  tg.call @p(%A, %W, %B : memref<4xf32>, memref<4xf32>, memref<4xf32>)
}
"""
    )
    text = emit_tree(parse(called), stub_kernels=True).files["aicpu_orchestrate.cpp"]
    assert text.count("_t.add_input(") == 2 and "_t.add_input_" not in text
