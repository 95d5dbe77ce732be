"""The native path builds the same task graph as the Python reference (tg-materialize).

Every example program (and random programs from hypothesis) is lowered with
tg-to-runtime-calls, JIT-compiled by upstream MLIR against the native core and run; its
graph must equal runtime/graph.py's: the same nodes (kind, kernel, args, regions,
coordinates, placement) and the same edges with the same kinds. Bad bindings and bad data
are one clear error.
"""

import shutil
import subprocess
import weakref
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp
from xdsl.parser import Parser

from pto_wsp.dialects import tg
from pto_wsp.interop.pto_parser import default_context
from pto_wsp.lowering.cpu.native import _ENGINES, NativeError, compile_native
from pto_wsp.lowering.cpu.simgen import compile_sim_program
from pto_wsp.lowering.taskgraph import TaskGraph
from pto_wsp.passes import tg_to_runtime
from pto_wsp.passes.wsp_to_tg import CspToTgPass, WspToTgPass
from pto_wsp.runtime import native_core
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.materialize import materialize
from pto_wsp.runtime.native_core import library

ROOT = Path(__file__).parent.parent
CTX = default_context()

#: Data the example programs read (lengths, CSR arrays), for 4 rows.
DATA = {
    "seq_lens": np.array([3, 1, 2, 5]),
    "indptr": np.array([0, 2, 3, 6, 8]),
    "indices": np.array([1, 3, 0, 2, 4, 7, 0, 5]),
}


def parse(text: str, name: str = "<test>") -> ModuleOp:
    return Parser(CTX, text, name).parse_module()


def lowered(path: Path) -> ModuleOp:
    module = parse(path.read_text(), str(path))
    WspToTgPass().apply(CTX, module)
    CspToTgPass().apply(CTX, module)
    return module


def plain_programs() -> list[tuple[str, str]]:
    """(example file, program) for every task-generation program of the examples."""
    found = []
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        for op in lowered(path).ops:
            if isinstance(op, tg.ProgramOp) and not op.processes():
                found.append((path.name, op.sym_name.data))
    return found


def bindings_for(program: tg.ProgramOp, bind_tensors: bool) -> dict:
    """Index scalars 4 (2 for coordinates b and h), the data arrays above, and (with
    ``bind_tensors``) zero arrays for small tensors, whose extents then count."""
    values: dict = {}
    for name, type_ in zip(program.arg_names.data, program.function_type.inputs.data):
        name = name.data
        if isinstance(type_, IndexType):
            values[name] = 2 if name in ("b", "h") else 4
        elif name in DATA:
            values[name] = DATA[name]
        elif bind_tensors and isinstance(type_, MemRefType):
            shape = [s if s >= 0 else 4 for s in type_.get_shape()]
            if np.prod(shape) <= 1 << 20:
                values[name] = np.zeros(shape, np.float32)
    return values


def assert_same_graph(native: TaskGraph, reference: TaskGraph) -> None:
    assert native.num_nodes == reference.num_nodes
    for name in ("kind", "pool", "domain", "target", "stream", "priority", "fanin"):
        assert getattr(native, name).tolist() == getattr(reference, name).tolist(), name
    n = native.num_nodes
    assert [native.kernel_name(i) for i in range(n)] == [reference.kernel_name(i) for i in range(n)]
    assert list(native.args) == [tuple(a) for a in reference.args]
    assert list(native.coords) == [tuple(c) for c in reference.coords]
    assert list(native.regions) == [tuple(r) for r in reference.regions]
    assert edges_by_kind(native) == edges_by_kind(reference)


def edges_by_kind(graph: TaskGraph) -> set[tuple[int, int, int]]:
    src, dst = graph.edges()
    return set(zip(src.tolist(), dst.tolist(), graph.edge_kind.tolist()))


@pytest.mark.parametrize("records", [True, False], ids=["records", "built-again"])
@pytest.mark.parametrize("bind_tensors", [False, True], ids=["unbound", "bound"])
@pytest.mark.parametrize("example, name", plain_programs())
def test_every_example_program_builds_the_reference_graph(example, name, bind_tensors, records):
    """(``records=False``: the build stores no scalars, coordinates or regions; the graph
    reads them from a build again.)"""
    module = lowered(ROOT / "examples" / example)
    program = next(p for p in module.ops if isinstance(p, tg.ProgramOp) and p.sym_name.data == name)
    values = bindings_for(program, bind_tensors)
    native = compile_native(module, program).build(values, records=records)
    reference = materialize(module, program, values)
    assert native.num_tasks > 0
    assert_same_graph(native, reference)


@pytest.mark.parametrize("own, size", [(0, 23), (30, 53)])
def test_sites_past_the_slots_they_may_own_share_slots(monkeypatch, own, size):
    """The 4 sites of @transformer_layer store 14, 19, 23 and 14 values a task: with room for
    30 of their own, the first and the last own theirs and the other two share slots after
    (with none, all four share): the same graph either way."""
    monkeypatch.setattr(tg_to_runtime, "OWN_VALUES", own)
    module = lowered(ROOT / "examples" / "transformer_layer.mlir")
    program = next(
        p
        for p in module.ops
        if isinstance(p, tg.ProgramOp) and p.sym_name.data == "transformer_layer"
    )
    values = bindings_for(program, True)
    native = compile_native(module, program)
    assert f"%values = memref.alloca() : memref<{size}xindex>" in native.text
    assert_same_graph(native.build(values), materialize(module, program, values))


def test_compiled_programs_are_kept_per_process():
    module = lowered(ROOT / "examples" / "scan.mlir")
    first = compile_native(module, "scan")
    count = len(_ENGINES)
    again = compile_native(module, "scan")
    assert again.engine is first.engine and len(_ENGINES) == count
    assert again.build({"n": 5}).num_tasks == first.build({"n": 5}).num_tasks == 5


def test_the_same_program_builds_again_with_other_bindings():
    module = lowered(ROOT / "examples" / "attention.mlir")
    program = compile_native(module, "attention")
    small = program.build({"batch_size": 1, "seq_lens": [7]})
    large = program.build({"batch_size": 4, "seq_lens": DATA["seq_lens"]})
    assert (small.num_tasks, large.num_tasks) == (8, 32)
    assert small.args[0] == (0, 0, 7)


def test_the_example_of_docs_native_runs(capsys):
    import re

    doc = (ROOT / "docs" / "native.md").read_text()
    build, schedule, pipeline = re.findall(r"```python\n(.*?)```", doc, re.S)
    names: dict = {}
    exec(compile(build, "docs/native.md", "exec"), names)
    assert capsys.readouterr().out == "4 {'structural': 0, 'raw': 5, 'waw': 0, 'war': 0}\n"
    exec(compile(schedule, "docs/native.md", "exec"), names)  # on the graph built above
    assert capsys.readouterr().out == "40.0 [0, 1, 2, 3]\n"
    exec(compile(pipeline, "docs/native.md", "exec"), {})
    assert capsys.readouterr().out == "8 2000.0 1000.0\n"


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_the_core_library_exports_its_c_api_alone():
    # Its TensorMap is built for the core's ABI: exported, it would stand in for the Ascend
    # host runtime's in a process that loads both (the dynamic linker's interposition).
    run = subprocess.run(
        ["nm", "-DC", "--defined-only", str(library())], capture_output=True, text=True, check=True
    )
    ours = [line.split()[-1] for line in run.stdout.splitlines() if "pto" in line]
    assert ours and all(name.startswith(("pto_tg_", "pto_core_")) for name in ours), ours


def test_memref_global_data_and_calls_build_the_reference_graph():
    text = (ROOT / "tests" / "lit" / "passes" / "tg-to-runtime-calls" / "calls.mlir").read_text()
    module = parse(text)
    native = compile_native(module, "outer").build({})
    assert_same_graph(native, materialize(module, module.ops.last, {}))
    # table[1] = 2, then @inner's subview at 2 of @outer's subview: A[4:6]
    assert [(r.tensor, r.offsets, r.sizes) for r in native.regions[0]] == [("A", (4,), (2,))]


def test_the_core_is_built_once_and_found_in_the_cache(capsys):
    path = library()
    assert path.exists() and native_core.build() == path
    assert capsys.readouterr().err == ""  # found: no build, nothing said


def test_no_compiler_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    monkeypatch.setenv("PTO_WSP_CACHE", str(tmp_path))
    with pytest.raises(native_core.NativeCoreError, match=r"needs a C\+\+ compiler: cannot run"):
        native_core.build()


# --------------------------------------------------------------------------- bad input

KERNELS = """
wsp.kernel @k(i: index, x: inout memref<4xf32>) unit(vector)
"""


def program_of(
    body: str, signature: str = "%n: index, %X: memref<?x4xf32>, %lens: memref<?xindex>"
):
    module = parse(KERNELS + f"tg.program @p({signature}) {{\n{body}\n}}")
    return module, compile_native(module, "p")


ROW_LOOP = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %j = memref.load %lens[%i] : memref<?xindex>
    %x = memref.subview %X[%j, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @k(%i : index) resources(%x : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector)
  }
"""


def test_a_missing_scalar_is_named():
    _, program = program_of(ROW_LOOP)
    with pytest.raises(NativeError, match=r"^@p needs a value for n \(bind\(n=\.\.\.\)\)$"):
        program.build({"lens": [0]})


def test_a_scalar_must_be_an_integer_of_64_bits():
    _, program = program_of(ROW_LOOP)
    with pytest.raises(NativeError, match=r"^@p: n = 'four' is not an integer$"):
        program.build({"n": "four", "lens": [0]})
    with pytest.raises(NativeError, match=r"^@p: n = 36893488147419103232 does not fit 64 bits$"):
        program.build({"n": 1 << 65, "lens": [0]})
    assert program.build({"n": np.int32(1), "lens": [0]}).num_tasks == 1


def test_data_the_program_reads_must_be_bound():
    _, program = program_of(ROW_LOOP)
    with pytest.raises(
        NativeError, match=r"^@p reads lens, which is not bound \(bind\(lens=\[\.\.\.\]\)\)$"
    ):
        program.build({"n": 1})


def test_a_load_outside_the_bound_data_is_located():
    _, program = program_of(ROW_LOOP)
    # (pto-opt's parser gives ops their file:line:col, which the message then starts with)
    with pytest.raises(NativeError, match=r"^@p: memref.load of lens: an index is out of the"):
        program.build({"n": 3, "lens": [0, 1]})


def test_a_division_by_zero_is_an_error_not_a_trap():
    body = ROW_LOOP.replace(
        "tg.task @k(%i : index)", "%q = arith.divui %i, %j : index\n    tg.task @k(%q : index)"
    )
    _, program = program_of(body)
    assert program.build({"n": 2, "lens": [1, 2]}).args[1] == (0,)
    with pytest.raises(NativeError, match=r"^@p: arith.divui: division by zero$"):
        program.build({"n": 2, "lens": [1, 0]})


def test_a_loop_step_that_is_not_positive_is_an_error_not_a_hang():
    loop = ROW_LOOP.replace("step %c1", "step %s")
    _, program = program_of(
        loop, "%n: index, %X: memref<?x4xf32>, %lens: memref<?xindex>, %s: index"
    )
    assert program.build({"n": 3, "s": 2, "lens": [0, 1, 2]}).num_tasks == 2
    with pytest.raises(NativeError, match=r"^@p: scf.for: the step is not positive$"):
        program.build({"n": 3, "s": 0, "lens": [0, 1, 2]})


@pytest.mark.parametrize("records", [True, False])
def test_a_region_outside_its_bound_tensor_names_the_task(records):
    _, program = program_of(ROW_LOOP)
    with pytest.raises(NativeError, match=r"^@p: task 1: its region of tensor 'X' lies outside"):
        values = {"n": 2, "lens": [0, 5], "X": np.zeros((3, 4), np.float32)}
        program.build(values, records=records)


STRIDED = """
wsp.kernel @k3(x: in memref<?x4xf32>) unit(vector)
tg.program @p(%o: index, %n: index, %s: index, %X: memref<?x4xf32>) {
  %x = memref.subview %X[%o, 0] [%n, 4] [%s, 1] : memref<?x4xf32> to memref<?x4xf32, strided<[?, 1], offset: ?>>
  tg.task @k3() resources(%x : memref<?x4xf32, strided<[?, 1], offset: ?>>) access(in) pool(vector)
}
"""


@pytest.mark.parametrize("records", [True, False])
@pytest.mark.parametrize("shape", [(5, 4), None])
def test_a_region_whose_last_index_overflows_is_outside(records, shape):
    """Rows o, o + s, ... of n rows whose last index passes int64 (the product or the sum
    wraps around): outside the tensor, of a known extent or not, never read as a small
    index."""
    program = compile_native(parse(KERNELS + STRIDED), "p")
    tensor = {} if shape is None else {"X": np.zeros(shape, np.float32)}
    for o, n, s in [(1, 3, (1 << 63) - 1), ((1 << 63) - 2, 2, 4), (0, 1 << 62, 4)]:
        with pytest.raises(NativeError, match=r"^@p: task 0: its region of tensor 'X' lies"):
            program.build({"o": o, "n": n, "s": s, **tensor}, records=records)
    assert program.build({"o": 1, "n": 2, "s": 3, **tensor}).num_tasks == 1


TILES_THEN_ROWS = """
wsp.kernel @k2(i: index, x: inout memref<2x4xf32>) unit(vector)
tg.program @p(%n: index, %m: index, %X: memref<?x4xf32>, %tiles: memref<?xindex>, %rows: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %j = memref.load %tiles[%i] : memref<?xindex>
    %x = memref.subview %X[%j, 0] [2, 4] [1, 1] : memref<?x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    tg.task @k2(%i : index) resources(%x : memref<2x4xf32, strided<[4, 1], offset: ?>>) access(out) at(i = %i) pool(vector)
  }
  scf.for %i = %c0 to %m step %c1 {
    %j = memref.load %rows[%i] : memref<?xindex>
    %x = memref.subview %X[%j, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @k(%i : index) resources(%x : memref<4xf32, strided<[1], offset: ?>>) access(in) at(i = %i) pool(vector)
  }
}
"""


@pytest.mark.parametrize("records", [True, False])
@pytest.mark.parametrize(
    "tiles, rows, task",
    [
        ([0, 2, 4], [], 2),  # a tile of the tiling whose last tile overhangs the 5 rows
        ([0, 2], [1, 4, 5], 4),  # a row inside that overhanging tile, then one past the end
        ([0, 2], [1, 7], 3),  # a row of no tile
    ],
)
def test_a_tile_outside_its_tensor_is_an_error_in_any_tiling(records, tiles, rows, task):
    """The map takes a tile of a tiling whose every tile lies inside the tensor as checked;
    X's 5 rows in tiles of 2 overhang, so their tiles and the rows read in them are checked."""
    module = parse(KERNELS + TILES_THEN_ROWS)
    program = compile_native(module, "p")
    values = {"n": len(tiles), "m": len(rows), "tiles": tiles, "rows": rows or [0]}
    with pytest.raises(NativeError, match=rf"^@p: task {task}: its region of tensor 'X' lies"):
        program.build({**values, "X": np.zeros((5, 4), np.float32)}, records=records)
    inside = {**values, "tiles": [t for t in tiles if t < 4], "rows": [r for r in rows if r < 5]}
    inside["n"], inside["m"] = len(inside["tiles"]), len(inside["rows"])
    inside["rows"] = inside["rows"] or [0]
    graph = program.build({**inside, "X": np.zeros((5, 4), np.float32)})
    assert_same_graph(graph, materialize(module, module.ops.last, inside))


@pytest.mark.parametrize("far", [7, 1 << 31])
def test_a_build_without_records_gives_them_from_a_build_again(far):
    """A build without records stores no task's scalars, coordinates or regions; reading one
    builds them again from the bindings of the build (the data it read copied then), though
    the caller has since changed that data in place."""
    module, program = program_of(ROW_LOOP)
    lens = np.array([5, far, 1])
    native = program.build({"n": 3, "lens": lens}, records=False)
    assert not {"_begin", "_values"} & set(vars(native.regions))
    lens[...] = 0
    assert [r.offsets for (r,) in native.regions] == [(5, 0), (far, 0), (1, 0)]
    assert native.coords[2] == (("i", 2),)
    reference = materialize(module, module.ops.last, {"n": 3, "lens": [5, far, 1]})
    assert_same_graph(native, reference)


def test_the_pass_and_the_core_take_the_same_ranks():
    from pto_wsp.passes import tg_to_runtime

    assert tg_to_runtime.MAX_RANK == native_core.MAX_RANK


@pytest.mark.parametrize("far, width", [((1 << 31) - 1, np.int32), (1 << 31, np.int64)])
def test_regions_beyond_32_bits_are_kept_whole(far, width):
    """Regions are stored in int32 while every value fits; the first that does not widens the
    build's regions to int64, those before it included."""
    module, program = program_of(ROW_LOOP)
    values = {"n": 3, "lens": [5, far, 7]}
    native = program.build(values)
    assert native.regions._values.dtype == width
    assert [r.offsets for (r,) in native.regions] == [(5, 0), (far, 0), (7, 0)]
    assert_same_graph(native, materialize(module, module.ops.last, values))


PLACED_LOOP = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %p = memref.load %lens[%i] : memref<?xindex>
    %x = memref.subview %X[%i, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    tg.task @k(%i : index) resources(%x : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(vector) COLUMN(%p)
  }
"""


@pytest.mark.parametrize("column, default", [("target", -1), ("stream", 0), ("priority", 0)])
def test_a_placement_column_is_stored_from_its_first_other_value(column, default):
    """While every node has the default the column is not stored (the host reads a broadcast,
    no memory); the first other value stores it, the nodes before it back-filled."""
    module, program = program_of(PLACED_LOOP.replace("COLUMN", column))
    plain = program.build({"n": 3, "lens": [default] * 3})
    assert getattr(plain, column).strides == (0,)
    assert getattr(plain, column).tolist() == [default] * 3
    values = {"n": 4, "lens": [default, default, 3, default]}
    placed = program.build(values)
    assert getattr(placed, column).tolist() == [default, default, 3, default]
    assert_same_graph(placed, materialize(module, module.ops.last, values))


def test_more_edges_than_memory_holds_is_a_memory_error(monkeypatch):
    """(fanout_begin is int32: never more than 2^31 - 1 edges, fewer on a small machine)"""
    _, program = program_of(ROW_LOOP)
    values = {"n": 4, "lens": [0, 0, 0, 0]}  # each task waits for the one before
    assert program.build(values).num_edges == 3
    assert native_core.max_edges() <= native_core.MAX_EDGES == (1 << 31) - 1
    monkeypatch.setattr(native_core, "max_edges", lambda: 2)
    with pytest.raises(MemoryError, match=r"^@p: the program creates more than 2 edges"):
        program.build(values)


def test_a_build_again_with_the_same_settings_keeps_them_in_one_call(monkeypatch):
    """The next build of the same tensors and settings starts with pto_core_again (the
    last build's tensors, no data edges, no records and limits kept); other settings start
    the core anew."""
    _, program = program_of(ROW_LOOP)
    values = {"n": 4, "lens": [0, 0, 0, 0]}  # each task waits for the one before
    api, calls = native_core._api(), []
    again = api.pto_core_again
    monkeypatch.setattr(api, "pto_core_again", lambda core: calls.append(core) or again(core))
    for _ in range(2):
        graph = program.build(values, infer_data_deps=False, records=False)
        assert graph.num_edges == 0 and "_begin" not in vars(graph.regions)
        del graph
    assert len(calls) == 1
    assert program.build(values).num_edges == 3 and len(calls) == 1
    assert program.build(values).num_edges == 3 and len(calls) == 2


def test_a_tensor_bound_again_with_another_shape_has_its_new_extents():
    _, program = program_of(ROW_LOOP)
    values = {"n": 2, "lens": [0, 2], "X": np.zeros((3, 4), np.float32)}
    assert program.build(values).num_tasks == program.build(values).num_tasks == 2
    with pytest.raises(NativeError, match=r"^@p: task 1: its region of tensor 'X' lies outside"):
        program.build({**values, "X": np.zeros((2, 4), np.float32)})


def test_programs_of_one_text_each_see_their_binding():
    """Each compile makes a NativeProgram (their code shared); each build checks its own
    binding's shape."""
    _, first = program_of(ROW_LOOP)
    _, second = program_of(ROW_LOOP)
    assert first is not second and first.engine is second.engine
    values = {"n": 2, "lens": [0, 2], "X": np.zeros((3, 4), np.float32)}
    assert first.build(values).num_tasks == 2
    with pytest.raises(NativeError, match=r"^@p: task 1: its region of tensor 'X' lies outside"):
        second.build({**values, "X": np.zeros((2, 4), np.float32)})
    assert second.build(values).num_tasks == 2


def test_a_build_again_reuses_the_memory_and_views_of_a_graph_let_go():
    """The next build runs in the last one's core: the views of its arrays are the same
    objects while the arrays have not moved; a graph still held keeps its own memory."""
    _, program = program_of(ROW_LOOP)
    values = {"n": 2, "lens": [0, 1]}
    kind = weakref.ref(program.build(values).kind)
    again = program.build(values)
    assert again.kind is kind()
    held, built = again.regions._values, list(again.regions)
    other = program.build({"n": 2, "lens": [1, 0]})
    assert other.regions._values is not held and list(again.regions) == built
    assert [r.offsets for (r,) in other.regions] == [(1, 0), (0, 0)]


def test_data_changed_in_place_is_read_by_the_next_build():
    """The packed arguments are kept while the same arrays are bound: the program reads
    their data where it is, so values changed in place are seen; an array of another type
    is converted at each build (a copy), so its changes are seen too."""
    _, program = program_of(ROW_LOOP)
    for lens in (np.array([0, 1, 2]), np.array([0, 1, 2], np.int32)):
        values = {"n": 3, "lens": lens}
        assert [r.offsets[0] for (r,) in program.build(values).regions] == [0, 1, 2]
        lens[:] = [2, 1, 0]
        assert [r.offsets[0] for (r,) in program.build(values).regions] == [2, 1, 0]
        kept = program._packed(values) is program._packed(values)
        assert kept == (lens.dtype == np.int64)  # (a converted copy is made again)
    values["lens"] = np.array([1, 1])
    values["n"] = 2
    assert [r.offsets[0] for (r,) in program.build(values).regions] == [1, 1]
    values["lens"].shape = (1, 2)  # (reshaped in place: refused as any such binding)
    with pytest.raises(NativeError, match=r"lens is bound to an array of shape \(1, 2\)"):
        program.build(values)


def test_an_array_of_the_wrong_shape_is_refused():
    _, program = program_of(ROW_LOOP)
    with pytest.raises(NativeError, match=r"X is bound to an array of shape \(3, 5\)"):
        program.build({"n": 1, "lens": [0], "X": np.zeros((3, 5))})


def test_a_pipeline_is_not_built_but_run():
    # (its processes interleave with the schedule: tests/test_native_csp.py runs pipelines)
    module = lowered(ROOT / "examples" / "megakernel.mlir")
    program = compile_native(module, "megakernel")
    assert program.is_pipeline and [p[0] for p in program.processes] == [
        "loader",
        "computer",
        "storer",
    ]
    with pytest.raises(NativeError, match=r"@megakernel is a pipeline: its tasks are made as it"):
        program.build({"num_tiles": 2})


# --------------------------------------------------------------------------- random programs

TILES = [(0, 2, 1), (2, 2, 1), (0, 4, 1), (1, 2, 2), (0, 8, 1), (3, 1, 1), (4, 4, 1), (5, 3, 1)]
ACCESS = ["in", "out", "inout"]


@st.composite
def random_programs(draw) -> str:
    """A program of nested tg.ordered scopes, loops and order points creating tasks on
    (possibly overlapping, strided) row ranges of a 16x4 tensor, each with a scalar, a
    coordinate in loops, and sometimes a placement computed from tg.seq."""
    lines = [f"  %c{i} = arith.constant {i} : index" for i in range(3)]
    depth = 0

    def statements(level: int, loop: str | None) -> None:
        nonlocal depth
        for _ in range(draw(st.integers(1, 4))):
            choice = draw(st.sampled_from(["task", "task", "ordered", "loop", "point"]))
            pad = "  " * (level + 1)
            if choice == "task" or level >= 3:
                off, size, stride = draw(st.sampled_from(TILES))
                access = draw(st.sampled_from(ACCESS))
                offset = str(off) if loop is None or draw(st.booleans()) else loop
                lines.append(
                    f"{pad}%v{len(lines)} = memref.subview %X[{offset}, 0] [{size}, 4] "
                    f"[{stride}, 1] : memref<16x4xf32> to memref<{size}x4xf32, "
                    f"strided<[{4 * stride}, 1], offset: ?>>"
                )
                view = f"%v{len(lines) - 1}"
                pool = "(any)"
                if draw(st.booleans()):  # placement computed from tg.seq, a dynamic pool
                    seq, dynamic = f"%s{len(lines)}", f"%p{len(lines)}"
                    lines.append(f"{pad}{seq} = tg.seq")
                    lines.append(f"{pad}{dynamic} = arith.remui {seq}, %c2 : index")
                    pool = f"({dynamic}) target({seq}) stream({dynamic}) priority({seq})"
                coords = f" at(i = {loop})" if loop else ""
                lines.append(
                    f"{pad}tg.task @t{size}({loop or '%c1'} : index) resources({view} : "
                    f"memref<{size}x4xf32, strided<[{4 * stride}, 1], offset: ?>>) "
                    f"access({access}){coords} pool{pool}"
                )
            elif choice == "ordered":
                lines.append(f"{pad}tg.ordered {{")
                depth += 1
                statements(level + 1, loop)
                depth -= 1
                lines.append(f"{pad}}}")
            elif choice == "loop":
                n = draw(st.integers(0, 3))
                var = f"%i{len(lines)}"
                lines.append(f"{pad}%n{len(lines)} = arith.constant {n} : index")
                lines.append(f"{pad}scf.for {var} = %c0 to %n{len(lines) - 1} step %c1 {{")
                statements(level + 1, var)
                lines.append(f"{pad}}}")
            elif depth > 0:
                lines.append(f"{pad}tg.order_point")

    statements(0, None)
    kernels = "".join(
        f"wsp.kernel @t{s}(i: index, x: inout memref<{s}x4xf32>) unit(vector)\n"
        for s in (1, 2, 3, 4, 8)
    )
    body = "\n".join(lines)
    return f"{kernels}tg.program @r(%X: memref<16x4xf32>) {{\n{body}\n}}\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_programs(), st.booleans(), st.booleans())
def test_random_programs_build_the_reference_graph(text, bind, records):
    # Accesses vary per task: the kernels declare inout, so the verifier is not run here.
    module = parse(text)
    program = next(op for op in module.ops if isinstance(op, tg.ProgramOp))
    values = {"X": np.zeros((16, 4), np.float32)} if bind else {}
    native = compile_native(module, program).build(values, records=records)
    assert_same_graph(native, materialize(module, program, values))


class _Points(GraphBuilder):
    """The reference builder, recording how many tasks preceded each ordering point."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.points: list[int] = []

    def order_point(self) -> None:
        super().order_point()
        self.points.append(self.num_tasks)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_programs())
def test_the_ordering_points_are_the_references(text):
    """batch_deps flushes at the ordering points: the core reports them as the reference's
    builder meets them (how many tasks preceded each)."""
    module = parse(text)
    program = next(op for op in module.ops if isinstance(op, tg.ProgramOp))
    native = compile_native(module, program)
    native.build({})
    points = native.order_points()
    plain = compile_sim_program(program, module).compiled
    builder = _Points({"X": [16, 4]})
    plain.function(builder, *plain.bind({}))
    assert points.tolist() == builder.points
