"""The AIE backend (lowering/aie): shim DMA patterns, compile_module, and
``pto_wsp.compile(..., target="aie")`` from Python."""

from __future__ import annotations

import importlib.util
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.parser import Parser

from pto_wsp.dialects import aie, aiex
from pto_wsp.lowering.aie import MappingError, compile_module, module_text
from pto_wsp.lowering.aie.analysis import Region
from pto_wsp.lowering.aie.lower import _context
from pto_wsp.lowering.aie.patterns import fit_pattern, fit_sequence, row_major_strides

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
INPUTS = ROOT / "tests" / "lit" / "aie" / "Inputs"


def parse(path: Path) -> ModuleOp:
    return Parser(_context(), path.read_text(), str(path)).parse_module()


def ops(module: ModuleOp, kind: type) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


# --------------------------------------------------------------------------- patterns


def _elements(shape, offsets, sizes, strides):
    """The linear element indices a 4-d pattern visits, in order."""
    out = []
    base = offsets[3]
    for a in range(sizes[0]):
        for b in range(sizes[1]):
            for c in range(sizes[2]):
                for d in range(sizes[3]):
                    out.append(
                        base + a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3]
                    )
    return out


def _box_elements(shape, box: Region):
    strides = row_major_strides(shape)
    out = [0]
    for o, s, st in zip(box.offsets, box.sizes, strides):
        out = [x + (o + k) * st for x in out for k in range(s)]
    return out


def test_fit_sequence_finds_the_nest():
    assert fit_sequence([5]) == []
    assert fit_sequence([0, 4, 8, 12]) == [(4, 4)]
    assert fit_sequence([0, 1, 10, 11, 20, 21]) == [(3, 10), (2, 1)]
    assert fit_sequence([0, 0, 0]) == [(3, 0)]
    with pytest.raises(ValueError):
        fit_sequence([0, 1, 3])
    with pytest.raises(ValueError):
        fit_sequence([0, 1, 2, 10, 11])


@pytest.mark.parametrize("seed", range(40))
def test_fitted_pattern_streams_exactly_the_boxes_in_order(seed: int):
    """Random box nests over random tensors: the pattern visits the boxes' elements in the
    order a core uses them (box after box, each row-major)."""
    rng = random.Random(seed)
    rank = rng.choice([1, 2, 3])
    sizes = tuple(rng.choice([1, 2, 4]) for _ in range(rank))
    counts = [rng.choice([1, 2, 3]) for _ in range(rank)]
    shape = [s * c for s, c in zip(sizes, counts)]
    order = list(range(rank))
    rng.shuffle(order)
    boxes = []

    def nest(level: int, offsets: list[int]) -> None:
        if level == rank:
            boxes.append(Region("T", tuple(offsets), sizes))
            return
        d = order[level]
        for k in range(counts[d]):
            offsets[d] = k * sizes[d]
            nest(level + 1, offsets)

    nest(0, [0] * rank)
    try:
        pattern = fit_pattern("T", shape, 4, boxes)
    except MappingError as error:
        # Only the 4-dimension limit may refuse a regular nest of boxes.
        assert "dimensions" in str(error) or "stride" in str(error)
        return
    expected = [e for box in boxes for e in _box_elements(shape, box)]
    assert _elements(shape, pattern.offsets, pattern.sizes, pattern.strides) == expected


def test_fit_pattern_errors_name_the_limit():
    box = Region("T", (0, 0), (1, 4))
    with pytest.raises(MappingError, match="not an affine nest"):
        fit_pattern(
            "the transfer of T",
            [8, 8],
            4,
            [box, Region("T", (3, 0), (1, 4)), Region("T", (4, 0), (1, 4))],
        )
    with pytest.raises(MappingError, match="innermost stride of the transfer is 8"):
        fit_pattern("T", [8, 8], 4, [Region("T", (0, 0), (8, 1))])
    with pytest.raises(MappingError, match=r"wraps at most 1023 \(verifyStridesWraps"):
        fit_pattern("T", [2, 4096], 4, [Region("T", (0, 0), (2, 2048))])


# --------------------------------------------------------------------------- compile_module


def test_megakernel_maps_three_cores_two_fifos_of_depth_two():
    source = parse(EXAMPLES / "megakernel.mlir")
    before = module_text(source)
    lowered = compile_module(source, device="npu1_1col", bind={"num_tiles": 4})
    assert module_text(source) == before  # the input is not changed
    (device,) = ops(lowered, aie.DeviceOp)
    assert device.model.name == "npu1_1col"
    cores = ops(lowered, aie.CoreOp)
    assert [c.tile.owner.coordinates for c in cores] == [(0, 2), (0, 3), (0, 4)]
    fifos = {f.sym_name.data: f for f in ops(lowered, aie.ObjectFifoCreateOp)}
    assert fifos["load_to_compute"].depths == [2, 2]
    assert fifos["compute_to_store"].depths == [2, 2]
    assert set(fifos) == {"load_to_compute", "compute_to_store", "input_loader", "output_storer"}
    memcpys = ops(lowered, aiex.NpuDmaMemcpyNdOp)
    assert [m.metadata.root_reference.data for m in memcpys] == ["output_storer", "input_loader"]
    assert [w.symbol.root_reference.data for w in ops(lowered, aiex.NpuDmaWaitOp)] == [
        "output_storer"
    ]
    # The emitted text parses back through the aie dialect and verifies.
    Parser(_context(), module_text(lowered)).parse_module().verify()


def test_devices_and_acquire_form():
    farm = parse(INPUTS / "farm.mlir")
    for device in ("npu1", "npu1_1col", "npu2", "npu2_4col"):
        lowered = compile_module(farm, device=device, bind="n=8", acquire="memref")
        assert f"aie.device({device})" in module_text(lowered)
        assert not ops(lowered, aie.ObjectFifoSubviewAccessOp)
        assert all(
            isinstance(a.subview.type, MemRefType) for a in ops(lowered, aie.ObjectFifoAcquireOp)
        )
    with pytest.raises(Exception, match="unknown device 'npu3'"):
        compile_module(farm, device="npu3", bind="n=8")


def test_unbound_size_is_an_error_naming_the_argument():
    with pytest.raises(Exception, match=r'bind it \(bind="num_tiles=\.\.\."\)'):
        compile_module(parse(EXAMPLES / "megakernel.mlir"))


# --------------------------------------------------------------------------- Python API


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"aie_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_compile_returns_the_module_text():
    import pto_wsp

    built = _example("megakernel").functional()
    text = pto_wsp.compile(built, target="aie", device="npu1_1col", bind={"num_tiles": 4})
    assert isinstance(text, str)
    assert text.startswith("builtin.module {\n  aie.device(npu1_1col) {")
    lowered = Parser(_context(), text).parse_module()
    lowered.verify()
    assert len(ops(lowered, aie.CoreOp)) == 3


def test_python_compile_errors_are_compile_errors():
    import pto_wsp
    from pto_wsp.errors import CompileError

    built = _example("megakernel").functional()
    with pytest.raises(CompileError, match="num_tiles is a runtime value") as error:
        pto_wsp.compile(built, target="aie", device="npu1_1col")
    assert error.value.loc.filename == __file__  # the user's line, not the backend's
    with pytest.raises(CompileError, match="unknown option") as error:
        pto_wsp.compile(built, target="aie", colour="red")
    assert error.value.loc.filename == __file__


def test_kernel_names_keep_their_symbol():
    """An objectfifo never takes a kernel's name: the kernel's object file defines it."""
    text = (INPUTS / "events.mlir").read_text().replace("@load", "@x_a")
    source = Parser(_context(), text).parse_module()
    lowered = compile_module(source)
    fifos = {f.sym_name.data for f in ops(lowered, aie.ObjectFifoCreateOp)}
    assert "x_a" not in fifos and "x_a_1" in fifos
    Parser(_context(), module_text(lowered)).parse_module().verify()


# --------------------------------------------------------------------------- IRON Workers


def _uses(block, counts: Counter, times: int = 1) -> Counter:
    """(fifo, port, 'acquire' | 'release') -> how often one pass over ``block`` does it,
    static inner loops multiplied out."""
    for op in block.ops:
        if isinstance(op, scf.ForOp):
            lo, hi, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
            _uses(op.body.block, counts, times * len(range(lo, hi, step)))
        elif isinstance(op, aie.ObjectFifoAcquireOp | aie.ObjectFifoReleaseOp):
            kind = "acquire" if isinstance(op, aie.ObjectFifoAcquireOp) else "release"
            counts[(op.objFifo_name.root_reference.data, op.port.value.data, kind)] += times
    return counts


@pytest.mark.parametrize(
    ("path", "options"),
    [
        (EXAMPLES / "megakernel.mlir", {"bind": {"num_tiles": 4}}),
        (INPUTS / "farm.mlir", {"bind": "n=8", "device": "npu1"}),
        (INPUTS / "matmul_2x2.mlir", {"device": "npu1"}),
        (INPUTS / "matmul_k.mlir", {"device": "npu1"}),
        (INPUTS / "matmul_k.mlir", {"device": "npu2"}),
        (INPUTS / "update.mlir", {}),
    ],
)
def test_cores_loop_over_every_invocation_of_the_runtime_sequence(path, options):
    """As IRON's Workers: each core's body is one loop to 2^63 - 1 (then aie.end) whose
    iteration takes and gives exactly what one run of the runtime sequence moves and
    releases all it acquires, so the host may invoke the sequence again and again."""
    lowered = compile_module(parse(path), **options)
    per_run: Counter = Counter()
    for core in ops(lowered, aie.CoreOp):
        *setup, loop, end = core.body.block.ops
        assert isinstance(loop, scf.ForOp) and isinstance(end, aie.EndOp)
        assert loop.ub.owner.value.value.data == (1 << 63) - 1
        assert not [op for op in setup if not isinstance(op, arith.ConstantOp)]
        uses = _uses(loop.body.block, Counter())
        for fifo, port, _ in list(uses):
            assert uses[(fifo, port, "acquire")] == uses[(fifo, port, "release")], fifo
        for (fifo, _, kind), n in uses.items():
            if kind == "acquire":  # every consumer of a broadcast takes the same elements
                assert per_run[fifo] in (0, n), fifo
                per_run[fifo] = n
    fifos = {f.sym_name.data: f for f in ops(lowered, aie.ObjectFifoCreateOp)}
    for link in ops(lowered, aie.ObjectFifoLinkOp):
        # A shim fifo into (out of) a memtile link moves one element per step of the cores
        # at its other end.
        ends = [r.root_reference.data for r in [*link.fifoIns.data, *link.fifoOuts.data]]
        steps = {per_run[name] for name in ends if per_run[name]}
        assert len(steps) == 1, ends
        (step,) = steps
        for name in ends:
            per_run[name] = per_run[name] or step
    for m in ops(lowered, aiex.NpuDmaMemcpyNdOp):
        name = m.metadata.root_reference.data
        element = math.prod(fifos[name].element_type.get_shape())
        assert math.prod(m.static_sizes.get_values()) == element * per_run[name], name
