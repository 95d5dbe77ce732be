"""IRON's whole-array matmul on AIE (docs/targets/aie.md, "Whole-array designs"): per-column
L2 staging of a grid too wide for one memtile, and cores that loop over K tiles
accumulating into one output block."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import aie, aie_rules, aiex
from pto_wsp.lowering.aie import compile_module, module_text
from pto_wsp.lowering.aie.lower import _context

N = 64  # A, B and C are N x N


def matmul(rows: int, cols: int, k: int, outputs: str = "C") -> str:
    """C = A @ B on a rows x cols grid, core (i, j) owning C's block (i, j): one zero task,
    then k matmul tasks accumulating into the block (A's and B's K tiles in order). Further
    names in ``outputs`` are outputs the cores only zero."""
    bm, bn, bk = N // rows, N // cols, N // k
    t = f"memref<{N}x{N}xf32>"
    outs = list(outputs)
    args = ", ".join(f"%{o}: {t}" for o in ["A", "B", *outs])
    zero = "".join(
        f"wsp.task @zero() resources(%{o.lower()} : memref<{bm}x{bn}xf32>)\n" for o in outs
    )
    mm = "".join(
        f"wsp.task @matmul() resources(%a, %b, %{o.lower()} : memref<{bm}x{bk}xf32>, "
        f"memref<{bk}x{bn}xf32>, memref<{bm}x{bn}xf32>)\n"
        for o in outs[:1]
    )
    views = "".join(
        f"%{o.lower()} = wsp.view %{o}[%io:+{bm}, %jo:+{bn}] : {t} -> memref<{bm}x{bn}xf32>\n"
        for o in outs
    )
    layouts = "".join(f'sched.layout "{o}" (shard(0), shard(1))\n' for o in outs)
    return f"""
wsp.kernel @zero(c: out memref<{bm}x{bn}xf32>) unit(vector)
wsp.kernel @matmul(a: in memref<{bm}x{bk}xf32>, b: in memref<{bk}x{bn}xf32>, c: inout memref<{bm}x{bn}xf32>) unit(cube)
wsp.workload @mm({args}) {{
  %I = wsp.dense {rows}
  %J = wsp.dense {cols}
  %K = wsp.dense {k}
  wsp.parallel_for %i in %I named("i") : !wsp.dense<{rows}> {{
    wsp.parallel_for %j in %J named("j") : !wsp.dense<{cols}> {{
      %cm = arith.constant {bm} : index
      %cn = arith.constant {bn} : index
      %ck = arith.constant {bk} : index
      %io = arith.muli %i, %cm : index
      %jo = arith.muli %j, %cn : index
      {views}
      wsp.sequential {{
        {zero}
        wsp.for_each %k in %K named("k") : !wsp.dense<{k}> {{
          %ko = arith.muli %k, %ck : index
          %a = wsp.view %A[%io:+{bm}, %ko:+{bk}] : {t} -> memref<{bm}x{bk}xf32>
          %b = wsp.view %B[%ko:+{bk}, %jo:+{bn}] : {t} -> memref<{bk}x{bn}xf32>
          {mm}
        }}
      }}
    }}
  }}
}}
sched.schedule @s for @mm {{
  sched.spatial_map grid({rows}, {cols})
  sched.layout "A" (shard(0), replicate)
  sched.layout "B" (replicate, shard(1))
  {layouts}
}}
"""


def lower(text: str, device: str) -> ModuleOp:
    return compile_module(Parser(_context(), text).parse_module(), device=device)


def ops(module: ModuleOp, kind: type) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


#: (rows, cols, k, device) -> the lowered design, built once for the module.
CASES = [
    (2, 2, 4, "npu1"),
    (2, 4, 1, "npu1"),
    (2, 4, 4, "npu1"),
    (2, 4, 4, "npu2"),
    (4, 4, 4, "npu1"),
    (4, 4, 2, "npu2"),
]


@pytest.fixture(scope="module")
def designs() -> dict:
    return {case: lower(matmul(*case[:3]), case[3]) for case in CASES}


class Books:
    """The design's fifos, tiles, links and transfers, looked up by name."""

    def __init__(self, module: ModuleOp):
        self.fifos = {f.sym_name.data: f for f in ops(module, aie.ObjectFifoCreateOp)}
        self.links = ops(module, aie.ObjectFifoLinkOp)
        self.transfers = ops(module, aiex.NpuDmaMemcpyNdOp)

    def tile(self, value) -> tuple[int, int]:
        return value.owner.col.value.data, value.owner.row.value.data

    def ends(self, name: str) -> tuple[tuple[int, int], list[tuple[int, int]]]:
        f = self.fifos[name]
        return self.tile(f.producerTile), [self.tile(t) for t in f.consumerTiles]

    def link_of(self, name: str) -> aie.ObjectFifoLinkOp:
        (link,) = [
            op
            for op in self.links
            if name in {r.root_reference.data for r in [*op.fifoIns.data, *op.fifoOuts.data]}
        ]
        return link


def _indices(m: aiex.NpuDmaMemcpyNdOp) -> np.ndarray:
    """The element indices of the host tensor a transfer visits, in order."""
    sizes = list(m.static_sizes.get_values())
    strides = np.array(m.static_strides.get_values())
    base = sum(o * s for o, s in zip(m.static_offsets.get_values(), strides))
    return base + (np.indices(sizes).reshape(4, -1) * strides[:, None]).sum(0)


def _box(r0: int, rows: int, c0: int, cols: int) -> np.ndarray:
    return (np.arange(r0, r0 + rows)[:, None] * N + np.arange(c0, c0 + cols)).ravel()


def _expected(tensor: str, cell: tuple[int, int], step: int, grid, k: int) -> np.ndarray:
    """The block of ``tensor`` core ``cell`` takes at K step ``step`` (C: its output)."""
    rows, cols = grid
    bm, bn, bk = N // rows, N // cols, N // k
    i, j = cell
    if tensor == "A":
        return _box(i * bm, bm, step * bk, bk)
    if tensor == "B":
        return _box(step * bk, bk, j * bn, bn)
    return _box(i * bm, bm, j * bn, bn)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}_k{c[2]}_{c[3]}")
def test_each_column_stages_its_share_through_its_own_memtile(designs, case):
    """A grid whose tensors do not fit one memtile's channels: every column of the grid has
    its own shim -> memtile fifo (A: the columns its row blocks were dealt to), distributes
    with destination offsets, joins C with source offsets, and its shim moves exactly the
    blocks its cores use, step by step, in link order. (A 2x2 grid fits one memtile per
    tensor and is checked the same way.)"""
    rows, cols, k, device = case
    lowered = designs[case]
    books = Books(lowered)
    Parser(_context(), module_text(lowered)).parse_module().verify()
    staged: dict[str, set[int]] = {"A": set(), "B": set(), "C": set()}
    ids: dict[int, list[int]] = {}
    for m in books.transfers:
        name = m.metadata.root_reference.data
        tensor, _, col = name.partition("_col")
        (shim, (mem,)), is_out = books.ends(name), False
        if shim[1] != 0:  # a join's fifo runs memtile -> shim
            (mem, (shim,)), is_out = books.ends(name), True
        assert shim == (mem[0], 0) and mem[1] == 1 and col in ("", str(mem[0])), name
        staged[tensor].add(mem[0])
        ids.setdefault(mem[0], []).append(m.id.value.data)
        error = aie_rules.dma_transfer_error(
            32,
            None,
            *(x.get_values() for x in (m.static_offsets, m.static_sizes, m.static_strides)),
            strict=True,
        )
        assert error is None, error
        link = books.link_of(name)
        parts = [r.root_reference.data for r in (link.fifoIns if is_out else link.fifoOuts).data]
        offsets = [o.value.data for o in (link.src_offsets if is_out else link.dst_offsets).data]
        part = math.prod(books.fifos[parts[0]].element_type.get_shape())
        assert offsets == ([p * part for p in range(len(parts))] if len(parts) > 1 else [])
        steps = 1 if is_out else k
        moved = _indices(m).reshape(steps, len(parts), part)
        for p, fifo in enumerate(parts):
            producer, consumers = books.ends(fifo)
            cores = [producer] if is_out else consumers
            for step in range(steps):
                for c, r in cores:
                    want = _expected(tensor, (r - 2, c), step, (rows, cols), k)
                    np.testing.assert_array_equal(moved[step, p], want, err_msg=f"{fifo} {step}")
    if rows * cols > 4:
        assert staged == {
            "A": set(range(min(rows, cols))),
            "B": set(range(cols)),
            "C": set(range(cols)),
        }
    else:
        assert [len(columns) for columns in staged.values()] == [1, 1, 1]
    for col, numbers in ids.items():
        assert len(numbers) == len(set(numbers)), f"buffer descriptor ids of column {col}"


def test_the_whole_tensors_cross_the_shims_exactly_once(designs):
    """Together the columns' transfers of a tensor move each of its elements once a run."""
    for lowered in designs.values():
        for tensor in "ABC":
            moved = np.concatenate(
                [
                    _indices(m)
                    for m in ops(lowered, aiex.NpuDmaMemcpyNdOp)
                    if m.metadata.root_reference.data.partition("_col")[0] == tensor
                ]
            )
            assert (np.bincount(moved, minlength=N * N) == 1).all(), tensor


def _body(core: aie.CoreOp) -> list:
    """The ops of one run of a core (its forever loop's body), without constants and
    subview accesses, loops as (trip count, their body)."""
    *_, loop, end = core.body.block.ops
    assert isinstance(loop, scf.ForOp) and isinstance(end, aie.EndOp)
    assert loop.ub.owner.value.value.data == (1 << 63) - 1

    def walk(block) -> list:
        out = []
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                trips = op.ub.owner.value.value.data - op.lb.owner.value.value.data
                out.append((trips, walk(op.body.block)))
            elif isinstance(op, aie.ObjectFifoAcquireOp | aie.ObjectFifoReleaseOp):
                kind = "acquire" if isinstance(op, aie.ObjectFifoAcquireOp) else "release"
                out.append((kind, op.objFifo_name.root_reference.data, op.port.value.data))
            elif isinstance(op, func.CallOp):
                out.append(("call", op.callee.root_reference.data))
        return out

    return walk(loop.body.block)


@pytest.mark.parametrize("case", [c for c in CASES if c[2] > 1], ids=str)
def test_cores_loop_over_k_inside_one_acquire_of_their_output_block(designs, case):
    """IRON's matmul worker: acquire the C block, zero it, loop over K (acquire A's and B's
    tiles, matmul, release them), release the C block — inside the forever loop."""
    rows, cols, k, _ = case
    lowered = designs[case]
    books = Books(lowered)
    cores = ops(lowered, aie.CoreOp)
    assert len(cores) == rows * cols
    produce, consume = aie.OBJECTFIFO_PORTS["Produce"], aie.OBJECTFIFO_PORTS["Consume"]
    for core in cores:
        c, r = books.tile(core.tile)
        i, j = r - 2, c
        a, b, out = f"A_{i}", f"B_{j}", f"C_{i}_{j}"
        assert _body(core) == [
            ("acquire", out, produce),
            ("call", "zero"),
            (
                k,
                [
                    ("acquire", a, consume),
                    ("acquire", b, consume),
                    ("call", "matmul"),
                    ("release", a, consume),
                    ("release", b, consume),
                ],
            ),
            ("release", out, produce),
        ]


def test_a_grid_fitting_one_memtile_keeps_one_memtile():
    """Per-column staging only when the books refuse one memtile: a 2x2 grid on npu1 stages
    each tensor through a single memtile, K loop and all."""
    lowered = lower(matmul(2, 2, 4), "npu1")
    shims = {f.sym_name.data for f in ops(lowered, aie.ObjectFifoCreateOp)} & {"A", "B", "C"}
    assert shims == {"A", "B", "C"}
    assert not [n for n in Books(lowered).fifos if "_col" in n]


def test_a_grid_that_fits_no_staging_is_refused_naming_the_limit():
    """Two 16-block outputs on a 4x4 grid: one memtile per column would receive A's and B's
    shares and 4 + 4 output blocks, more than its 6 S2MM channels."""
    with pytest.raises(PassFailedException) as info:
        lower(matmul(4, 4, 4, outputs="CD"), "npu1")
    message = str(info.value).splitlines()[0]
    assert "the grid's tensors fit neither one memtile each (no column has" in message
    assert "nor one memtile per column (memtile (0, 1) receives 7 objectfifos" in message
    assert "a memtile has 6 S2MM DMA channels)" in message


def test_the_documented_workload_is_the_one_the_lit_test_maps():
    """docs/targets/aie.md's K-loop workload is tests/lit/aie/Inputs/matmul_k.mlir."""
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "targets" / "aie.md").read_text()
    section = doc[doc.index("### Several tasks per core") :]
    block = re.search(r"```mlir\n(.*?)```", section, re.S).group(1)
    source = (root / "tests" / "lit" / "aie" / "Inputs" / "matmul_k.mlir").read_text()
    code = "".join(line + "\n" for line in source.splitlines() if not line.startswith("//"))
    assert block == code


def test_the_documented_python_workload_gives_the_same_design_and_numpy_results():
    """The Python version in docs/targets/aie.md compiles to the design of matmul_k.mlir on
    npu1, and its schedule on the CPU simulator computes A @ B (the block asserts it)."""
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "targets" / "aie.md").read_text()
    section = doc[doc.index("### Several tasks per core") :]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(block, "docs/targets/aie.md", "exec"), namespace)
    source = Parser(_context(), (root / "tests/lit/aie/Inputs/matmul_k.mlir").read_text())
    assert namespace["design"] == module_text(compile_module(source.parse_module(), "npu1"))


def test_a_k_loop_passes_each_step_its_own_index_arguments():
    """Tasks whose index arguments step by a constant are one loop all the same: the core
    computes each step's argument (here 2k + 1, as i32) from the loop index."""
    text = (
        matmul(2, 4, 4)
        .replace("wsp.task @zero() resources(%c : memref<32x16xf32>)", "")
        .replace("@matmul(a: in", "@matmul(n: index, a: in")
        .replace("c: inout", "c: out")
        .replace(
            "wsp.task @matmul()", "%n = arith.addi %ko2, %one : index\nwsp.task @matmul(%n : index)"
        )
        .replace(
            "%ko = arith.muli %k, %ck : index",
            "%ko = arith.muli %k, %ck : index\n%two = arith.constant 2 : index\n%one = arith.constant 1 : index\n%ko2 = arith.muli %k, %two : index",
        )
    )
    lowered = lower(text, "npu1")
    for core in ops(lowered, aie.CoreOp):
        (loop,) = [
            op
            for op in core.walk()
            if isinstance(op, scf.ForOp) and op.ub.owner.value.value.data == 4
        ]
        (call,) = [op for op in loop.body.block.ops if isinstance(op, func.CallOp)]
        add = call.arguments[0].owner
        assert isinstance(add, arith.AddiOp) and add.rhs.owner.value.value.data == 1
        mul = add.lhs.owner
        assert isinstance(mul, arith.MuliOp) and mul.rhs.owner.value.value.data == 2
        cast = mul.lhs.owner
        assert isinstance(cast, arith.IndexCastOp) and cast.input == loop.body.block.args[0]
        assert _body(core)[0][0] == "acquire" and _body(core)[1][0] == 4
