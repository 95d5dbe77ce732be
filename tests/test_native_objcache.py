"""Compiled programs on disk (lowering/cpu/objcache.py): a fresh process loads a program
compiled by an earlier one without importing upstream MLIR and builds the same graph; a cache
file that is not whole is never loaded, the program is compiled again.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from pto_wsp.lowering.cpu import native, objcache
from pto_wsp.runtime import native_core

# A program no other test compiles (its shape): the in-process cache never has it.
PROGRAM = textwrap.dedent(
    """
    import json, sys
    from xdsl.context import Context
    from pto_wsp import DenseDyn, In, Out, Tensor, f32, kernel, module, parallel_for, sym, task
    from pto_wsp.lowering.cpu.native import compile_native
    from pto_wsp.passes.wsp_to_tg import WspToTgPass

    @kernel
    def smooth(b, x: In[f32[3, 48]], y: Out[f32[48]]): ...

    X = Tensor("X", [None, 48], f32)
    rows = parallel_for(
        DenseDyn(sym("n")), lambda b: task(smooth, [b], [X[b : b + 3], X[b + 3]])
    ).named("rows")
    m = module(rows)
    WspToTgPass().apply(Context(), m)
    program = compile_native(m, "rows")
    graph = program.build({"n": 7})
    print(json.dumps({
        "edges": [a.tolist() for a in graph.edges()],
        "kinds": graph.edge_kind.tolist(),
        "regions": [[r.key + (r.access,) for r in rs] for rs in graph.regions],
        "engine": type(program.engine).__name__,
        "mlir": "mlir" in sys.modules,
    }))
    """
)


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """An empty program cache beside the machine's core library (not built again)."""
    (tmp_path / "core").symlink_to(native_core.library().parent)
    monkeypatch.setenv("PTO_WSP_CACHE", str(tmp_path))
    native_core.library.cache_clear()
    objcache._environment.cache_clear()
    yield tmp_path / "programs"
    native_core.library.cache_clear()
    objcache._environment.cache_clear()


def run_fresh() -> dict:
    run = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def test_a_fresh_process_loads_the_program_compiled_before(cache):
    first = run_fresh()
    assert first["engine"] == "ExecutionEngine" and first["mlir"]
    assert len(list(cache.glob("*.so"))) == len(list(cache.glob("*.sha256"))) == 1
    again = run_fresh()
    assert again["engine"] == "Library" and not again["mlir"]
    assert {k: again[k] for k in ("edges", "kinds", "regions")} == {
        k: first[k] for k in ("edges", "kinds", "regions")
    }
    assert again["kinds"]  # the graph has data edges: a real program ran


@pytest.mark.parametrize("damage", ["truncated", "digest"])
def test_a_damaged_cache_file_is_compiled_again(cache, damage):
    text = "module {\n  func.func @f() attributes {llvm.emit_c_interface} {\n    return\n  }\n}"
    native._ENGINES.pop(text, None)
    native._engine(text)
    (lib,) = cache.glob("*.so")
    good = lib.read_bytes()
    if damage == "truncated":
        lib.write_bytes(good[: len(good) // 2])
    else:
        lib.with_suffix(".sha256").write_text("0" * 64)
    assert objcache.load(lib.stem) is None
    native._ENGINES.pop(text)
    engine = native._engine(text)
    assert type(engine).__name__ == "ExecutionEngine"  # compiled again, and stored whole
    engine.lookup("f")(None)
    objcache.load(lib.stem).lookup("f")(None)


def test_without_a_linker_the_program_still_compiles(cache, monkeypatch):
    monkeypatch.setenv("LD", str(cache / "no-such-ld"))
    text = "module {\n  func.func @g() attributes {llvm.emit_c_interface} {\n    return\n  }\n}"
    native._ENGINES.pop(text, None)
    native._engine(text).lookup("g")(None)
    assert not list(cache.glob("*.so"))


# A tile kernel no other test compiles (its shape), run through its native numerics.
TILE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from pto_wsp import In, Out, f32, kernel, module, parallel_for, task, Dense, Tensor
    from pto_wsp import tile as pl
    from pto_wsp.dialects import wsp
    from pto_wsp.lowering.cpu.tile import compile_tile

    @kernel
    def shift(x: In[f32[3, 40]], y: Out[f32[3, 40]]):
        pl.store(pl.exp(pl.load(x)), y)

    X, Y = Tensor("X", [2, 3, 40], f32), Tensor("Y", [2, 3, 40], f32)
    m = module(parallel_for(Dense(2), lambda b: task(shift, [], [X[b], Y[b]])).named("w"))
    (k,) = [op for op in m.ops if isinstance(op, wsp.KernelOp)]
    f = compile_tile(k.tile_function())
    x = np.linspace(-1, 1, 120, dtype=np.float32).reshape(3, 40)
    y = np.zeros_like(x)
    f(x, y)
    print(json.dumps({"ok": bool(np.allclose(y, np.exp(x), rtol=1e-6)),
                      "engine": type(f._engine).__name__, "mlir": "mlir" in sys.modules}))
    """
)


def test_a_fresh_process_loads_the_tile_kernel_compiled_before(cache):
    def fresh() -> dict:
        run = subprocess.run([sys.executable, "-c", TILE], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    first = fresh()
    assert first == {"ok": True, "engine": "ExecutionEngine", "mlir": True}
    again = fresh()
    assert again == {"ok": True, "engine": "Library", "mlir": False}


# --------------------------------------------------------------------------- lowered programs

# A workload no other test compiles (its shape), with a data edge per task and two schedules.
LOWERED = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from pto_wsp import (
        DenseDyn, In, Out, Tensor, compile, f32, kernel, module, parallel_for, sym, task
    )

    @kernel
    def blur(b, x: In[f32[2, 52]], y: Out[f32[52]]):
        y[...] = x.sum(axis=0)

    X = Tensor("X", [None, 52], f32)
    rows = parallel_for(
        DenseDyn(sym("n")), lambda b: task(blur, [b], [X[b : b + 2], X[b + 2]])
    ).named("rows")
    m = module(rows.schedule("one").streams(3), rows.schedule("two").streams(2))
    program = compile(m, mode="functional", schedule="two")
    x = np.arange(9 * 52, dtype=np.float32).reshape(9, 52)
    program.bind(n=7, X=x).execute()
    stats = program.stats()
    print(json.dumps({
        "x": x.tolist(), "edges": stats.edges_by_kind, "makespan": stats.makespan_cycles,
        "passes": "pto_wsp.passes.wsp_to_tg" in sys.modules,
        "tg": "pto_wsp.dialects.tg" in sys.modules, "mlir": "mlir" in sys.modules,
    }))
    """
)


def run_lowered() -> dict:
    run = subprocess.run([sys.executable, "-c", LOWERED], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_fresh_process_finds_the_lowered_program_and_runs_no_pass(cache):
    first = run_lowered()
    assert first["passes"] and first["tg"] and first["mlir"]
    assert len(list(cache.glob("*.json"))) == 1
    again = run_lowered()
    assert not again["passes"] and not again["tg"] and not again["mlir"]
    assert {k: again[k] for k in ("x", "edges", "makespan")} == {
        k: first[k] for k in ("x", "edges", "makespan")
    }
    assert first["edges"]["raw"] and first["x"][2][0] == 0 + 52  # the bodies ran in order


def lowered_parts():
    from pto_wsp import DenseDyn, In, Out, Tensor, f32, kernel, module, parallel_for, sym, task

    @kernel
    def shade(b, x: In[f32[2, 44]], y: Out[f32[44]]): ...

    X = Tensor("X", [None, 44], f32)

    def rows(reach: int):
        return parallel_for(
            DenseDyn(sym("n")), lambda b: task(shade, [b], [X[b : b + 2], X[b + reach]])
        ).named("rows")

    return module, rows


def test_the_key_changes_with_the_workload_the_options_and_the_compiler(monkeypatch):
    from pto_wsp.lowering.cpu.lowered import key

    module, rows = lowered_parts()

    def both(reach: int):
        w = rows(reach)
        return module(w.schedule("one").streams(3), w.schedule("two"))

    m = both(2)
    base = key(m, "rows", "one")
    assert key(both(2), "rows", "one") == base  # the same workload built again
    assert key(both(1), "rows", "one") != base
    assert key(m, "rows", "two") != base  # schedule=
    monkeypatch.setattr(objcache, "compiler", lambda: "another compiler")
    assert key(m, "rows", "one") != base


def test_the_compiler_digest_covers_its_source_files(monkeypatch, tmp_path):
    from types import SimpleNamespace

    (tmp_path / "wsp_to_tg.py").write_text("RULE = 1\n")
    spec = SimpleNamespace(submodule_search_locations=[str(tmp_path)])
    monkeypatch.setattr(objcache, "find_spec", lambda name: spec)
    objcache.compiler.cache_clear()
    try:
        before = objcache.compiler()
        (tmp_path / "wsp_to_tg.py").write_text("RULE = 2\n")
        objcache.compiler.cache_clear()
        assert objcache.compiler() != before
    finally:
        objcache.compiler.cache_clear()


def signed(data: object) -> str:
    """A table's file as objcache.store_table writes it."""
    text = json.dumps(data)
    return __import__("hashlib").sha256(text.encode()).hexdigest() + "\n" + text


@pytest.mark.parametrize("damage", ["cut", "foreign", "bad type", "no code"])
def test_a_damaged_or_stale_lowered_entry_is_lowered_again(cache, damage):
    from pto_wsp.lowering.cpu import lowered

    module, rows = lowered_parts()
    m = module(rows(3))
    first = lowered.lowered(m, "rows", "")
    (table,) = cache.glob("*.json")
    good = table.read_text()
    if damage == "cut":
        table.write_text(good[: len(good) // 2])
    elif damage == "foreign":  # whole, but not a table this code wrote
        table.write_text(signed({"native": {}}))
    elif damage == "bad type":
        data = json.loads(good.partition("\n")[2])
        data["native"]["arg_types"] = ["memref<"]
        table.write_text(signed(data))
    else:  # the table whole, its compiled program gone
        for lib in cache.glob("*.so"):
            lib.unlink()
        native._ENGINES.clear()
    again = lowered.lowered(m, "rows", "")
    assert again.native.text == first.native.text and again.args == first.args
    assert again.native.build({"n": 5}).edge_counts() == first.native.build({"n": 5}).edge_counts()
    assert objcache.load_table(table.stem) is not None  # stored whole again
