"""Spatially mapped data-parallel programs on AIE (docs/targets/aie.md).

A ``tg.program`` without processes whose ``config`` has ``spatial_map`` (a grid) and
``layouts`` (per tensor: the grid axis each dimension is sharded across, -1 = replicated):

- The grid becomes a grid of cores. Axis 0 runs up the compute rows and axis 1 across the
  columns when that fits the device; otherwise the other way round; otherwise cells fill the
  compute tiles column by column.
- Every task runs on the core that owns the block of its output tensor (owner computes): a
  written tensor must be sharded across every grid axis, so each core owns one block. A core
  runs its tasks in program order: they write its blocks and read regions within the blocks
  its core holds. An ``inout`` block an earlier task of the core wrote is accumulated in the
  core (a K loop); otherwise it is an update in place: the block also enters, and the core
  copies it into its output element first. The core acquires its output blocks once around
  its tasks; consecutive tasks of one kernel on the same tensors become one loop when their
  index arguments step by a constant (IRON's matmul worker: zero C, then for each K tile
  acquire A and B, matmul, release).
- Data movement (``staging.py``): the cores reading the same regions in the same order share
  one broadcast objectfifo out of a memtile, fed through ``objectfifo.link``; written blocks
  are joined in a memtile. One memtile per tensor, or one per column when the device's
  channel books refuse that.
- Depth: the ``pipeline_depth`` of the config, else 2 (double buffering).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby, product

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from pto_wsp.dialects import tg, wsp

from .analysis import Env, MappingError, Region, evaluate, region_of, static_loop
from .codegen import CoreBuilder
from .design import Design, Tile
from .staging import Cell, Staging, Stream, Tensor

DEFAULT_DEPTH = 2
MAX_TASKS = 4096
#: Most loop iterations the mapping enumerates to find the tasks (a loop whose iterations
#: create none, under a condition, costs its walk all the same).
MAX_STEPS = 1 << 20


@dataclass
class Instance:
    """One task execution: the op, its bound values, its regions (resource order)."""

    task: tg.TaskOp
    env: dict[SSAValue, int]
    regions: list[Region]


def _ints(attr: object) -> list[int]:
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        return [a.value.data for a in attr.data]  # type: ignore[attr-defined]
    raise TypeError(attr)


class SpatialMapper:
    """Maps one spatially mapped ``tg.program`` onto a ``Design``."""

    def __init__(
        self,
        module_ops: dict[str, Operation],
        program: tg.ProgramOp,
        env: Env,
        design: Design,
        data: dict[str, list[int]] | None = None,
    ):
        self.symbols = module_ops
        self.program = program
        self.env = dict(env)
        self.design = design
        config = program.config.data if program.config is not None else {}
        self.grid = _ints(config["spatial_map"])
        layouts = config.get("layouts")
        self.layouts: dict[str, list[int]] = {}
        if isinstance(layouts, DictionaryAttr):
            self.layouts = {k: _ints(v) for k, v in layouts.data.items()}
        depth = config.get("pipeline_depth")
        self.depth = depth.value.data if isinstance(depth, IntegerAttr) else DEFAULT_DEPTH
        self.names = [a.data for a in program.arg_names.data]
        self.shapes: dict[str, list[int]] = {}
        self.part_types: dict[str, MemRefType] = {}
        #: Per cell, the tensors whose block it updates in place from the host's value.
        self.updates: dict[Cell, list[str]] = {}
        #: Tensors joined into another's objectfifo: name -> offset in the joined element.
        self.joined: dict[str, int] = {}
        #: The bound values of tensors the cores read as runtime parameters (flat).
        self.data = data or {}

    # ------------------------------------------------------------------------------------

    def run(self) -> list[str]:
        if len(self.grid) > 2:
            raise MappingError(
                f"spatial_map grid {tuple(self.grid)} has {len(self.grid)} dimensions; the AIE "
                "array is 2-D",
                self.program,
            )
        cells = list(product(*[range(g) for g in self.grid]))
        placement = self._place(cells)
        tasks = self._owners(self._instances(), cells)
        reads, writes = self._tensors(tasks)
        for name in [*reads, *writes]:
            self._check_layout(name)
        staging = Staging(self.design, placement, self.depth, self.program)
        fifos_in, fifos_out = staging.stage(
            self._join([self._tensor(n, tasks, write=False) for n in reads], cells),
            [self._tensor(n, tasks, write=True) for n in writes],
        )
        self._strided_params(tasks)
        self.placement = placement
        for cell in cells:
            self._emit(cell, placement[cell], tasks[cell], fifos_in, fifos_out)
        return [n for n in self.names if n in reads or n in writes]

    # --- placement --------------------------------------------------------------------------

    def _place(self, cells: list[tuple[int, ...]]) -> dict[tuple[int, ...], Tile]:
        m = self.design.model
        total = len(cells)
        if total > m.columns * m.core_rows:
            raise MappingError(
                f"spatial_map grid {tuple(self.grid)} needs {total} cores, but "
                f"{self.design.describe()}",
                self.program,
            )
        first = m.first_core_row
        if len(self.grid) == 2:
            rows, cols = self.grid
            if rows <= m.core_rows and cols <= m.columns:
                return {(i, j): (j, first + i) for i, j in cells}
            if cols <= m.core_rows and rows <= m.columns:
                return {(i, j): (i, first + j) for i, j in cells}
        tiles = self.design.compute_tiles()
        return {cell: tiles[k] for k, cell in enumerate(cells)}

    # --- tasks ------------------------------------------------------------------------------

    def _instances(self) -> list[Instance]:
        out: list[Instance] = []
        self._steps = 0
        self._walk(self.program.body.block, dict(self.env), out)
        if not out:
            raise MappingError(f"@{self.program.sym_name.data} creates no task", self.program)
        return out

    def _walk(self, block: Block, env: dict[SSAValue, int], out: list[Instance]) -> None:
        for op in block.ops:
            if isinstance(op, tg.OrderedOp):
                self._walk(op.body.block, env, out)
            elif isinstance(op, scf.ForOp):
                # Every task is enumerated: bounds may use the enclosing loops' indices (a
                # Ragged or Sparse axis over constant arrays is a static set of tasks).
                loop = static_loop(op, env)
                self._steps += loop.trips  # counted before the walk: a huge loop fails at once
                if self._steps > MAX_STEPS:
                    raise MappingError(
                        f"@{self.program.sym_name.data} runs its loops more than {MAX_STEPS:,} "
                        "times; the mapping enumerates them to place the tasks",
                        op,
                    )
                for value in loop.values():
                    env[op.body.block.args[0]] = value
                    self._walk(op.body.block, env, out)
            elif isinstance(op, tg.TaskOp):
                if len(out) >= MAX_TASKS:
                    raise MappingError(
                        f"@{self.program.sym_name.data} creates more than {MAX_TASKS} tasks",
                        op,
                    )
                regions = [region_of(v, env, op) for v in op.resources]
                out.append(Instance(op, dict(env), regions))
            elif isinstance(op, scf.IfOp):
                try:
                    taken = evaluate(op.cond, env)
                except MappingError as error:
                    raise MappingError(
                        "a data-dependent condition (scf.if): which tasks exist must be static "
                        f"to place them on a grid of cores ({error})",
                        op,
                    ) from None
                region = op.true_region if taken else op.false_region
                if region.blocks:
                    self._walk(region.block, env, out)
            elif isinstance(op, tg.CallOp):
                raise MappingError(
                    "tg.call of a nested program: inline cross-level calls for AIE "
                    "(wsp-to-tg{calls=inline})",
                    op,
                )
            elif isinstance(
                op, tg.OrderPointOp | tg.SeqOp | tg.YieldOp | scf.YieldOp
            ) or op.dialect_name() in ("arith", "memref"):
                continue
            elif op.name in ("tg.event_record", "tg.event_wait"):
                continue  # order only, which the design keeps anyway (directives.py warns)
            else:
                raise MappingError(f"{op.name} has no AIE mapping", op)

    def _block(self, name: str, cell: tuple[int, ...]) -> Region:
        """The block of tensor ``name`` that core ``cell`` holds under its layout."""
        shape = self.shapes[name]
        layout = self.layouts.get(name, [-1] * len(shape))
        offsets, sizes = [], []
        for extent, axis in zip(shape, layout):
            if axis < 0:
                offsets.append(0)
                sizes.append(extent)
            else:
                size = extent // self.grid[axis]
                offsets.append(cell[axis] * size)
                sizes.append(size)
        return Region(name, tuple(offsets), tuple(sizes))

    def _owners(self, instances: list[Instance], cells: list[Cell]) -> dict[Cell, list[Instance]]:
        """Each cell's tasks in program order: a task runs on the core owning its output."""
        for name, type_ in zip(self.names, self.program.function_type.inputs.data):
            if isinstance(type_, MemRefType):
                shape = list(type_.get_shape())
                if any(d < 0 for d in shape):
                    used = [r for i in instances for r in i.regions if r.tensor == name]
                    if used:
                        raise MappingError(
                            f"tensor {name} has dynamic shape {type_}; a spatial AIE mapping "
                            "needs static tensors",
                            self.program,
                        )
                self.shapes[name] = shape
        tasks: dict[Cell, list[Instance]] = {}
        for inst in instances:
            outs = [
                r for r, a in zip(inst.regions, inst.task.access.data) if a.data in ("out", "inout")
            ]
            kernel = inst.task.kernel.root_reference.data
            if not outs:
                raise MappingError(
                    f"@{kernel} writes nothing: on a grid a task runs where its output lives",
                    inst.task,
                )
            cell = self._owner(outs[0], inst.task)
            self._kernel_types(inst)
            self._check_regions(inst, cell, tasks.get(cell, []))
            tasks.setdefault(cell, []).append(inst)
        missing = [c for c in cells if c not in tasks]
        if missing:
            raise MappingError(
                f"no task for core{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} of "
                f"the grid {tuple(self.grid)}: the program creates {len(instances)} tasks for "
                f"{len(cells)} cores",
                self.program,
            )
        return tasks

    def _check_regions(self, inst: Instance, cell: Cell, earlier: list[Instance]) -> None:
        """A task writes its core's blocks and reads within them, one region per tensor. An
        update (inout) of a block no earlier task of the core wrote takes the host's value."""
        kernel = inst.task.kernel.root_reference.data
        written = {
            r.tensor
            for i in earlier
            for r, a in zip(i.regions, i.task.access.data)
            if a.data != "in"
        }
        seen: set[str] = set()
        for region, access in zip(inst.regions, inst.task.access.data):
            block = self._block(region.tensor, cell)
            if region.tensor in seen:
                raise MappingError(
                    f"@{kernel} on core {cell} takes two regions of {region.tensor}; a core "
                    "takes one element of a tensor's objectfifo per task",
                    inst.task,
                )
            seen.add(region.tensor)
            if access.data == "in" and not _within(region, block):
                raise MappingError(
                    f"@{kernel} on core {cell} reads {_show(region)}, outside the block "
                    f"{_show(block)} the layout of {region.tensor} gives that core",
                    inst.task,
                )
            if access.data != "in" and region != block:
                raise MappingError(
                    f"@{kernel} on core {cell} writes {_show(region)}, but the layout of "
                    f"{region.tensor} gives that core {_show(block)}",
                    inst.task,
                )
            if access.data == "inout" and region.tensor not in written:
                self.updates.setdefault(cell, []).append(region.tensor)

    def _kernel_types(self, inst: Instance) -> None:
        """The element type each tensor's objectfifos carry: the kernel's parameter type."""
        kernel = self.symbols.get(inst.task.kernel.root_reference.data)
        if not isinstance(kernel, wsp.KernelOp):
            raise MappingError(
                f"@{inst.task.kernel.root_reference.data} is not a wsp.kernel", inst.task
            )
        for region, type_ in zip(inst.regions, kernel.resource_types):
            assert isinstance(type_, MemRefType)
            if any(d < 0 for d in type_.get_shape()):
                raise MappingError(
                    f"kernel @{kernel.sym_name.data} takes {type_}; an AIE kernel works on "
                    "static tiles",
                    inst.task,
                )
            static = MemRefType(type_.element_type, type_.get_shape())
            if _elements(static) != region.elements:
                raise MappingError(
                    f"kernel @{kernel.sym_name.data} takes {type_} for a region of "
                    f"{region.elements} elements of {region.tensor}",
                    inst.task,
                )
            known = self.part_types.setdefault(region.tensor, static)
            if known != static:
                raise MappingError(
                    f"{region.tensor} is passed to kernels as {known} and as {static}; one "
                    "objectfifo carries one element type",
                    inst.task,
                )

    def _owner(self, region: Region, task: tg.TaskOp) -> tuple[int, ...]:
        name = region.tensor
        layout = self.layouts.get(name)
        kernel = task.kernel.root_reference.data
        if layout is None:
            raise MappingError(
                f"@{kernel} writes {name}, which has no layout: give it one that shards it "
                "across every grid axis (sched.layout), so that each core owns a block",
                task,
            )
        missing = [g for g in range(len(self.grid)) if g not in layout]
        if missing:
            raise MappingError(
                f"{name} is written but not sharded across grid axis {missing[0]}: the cores "
                "along that axis would write the same block",
                task,
            )
        cell = [0] * len(self.grid)
        for d, axis in enumerate(layout):
            if axis >= 0:
                size = self.shapes[name][d] // self.grid[axis]
                cell[axis] = region.offsets[d] // size
        return tuple(cell)

    def _tensors(self, tasks: dict[Cell, list[Instance]]) -> tuple[list[str], list[str]]:
        """The tensors entering the array (read, or updated in place) and leaving it."""
        reads: list[str] = []
        writes: list[str] = []
        for inst in (i for insts in tasks.values() for i in insts):
            for region, access in zip(inst.regions, inst.task.access.data):
                target = reads if access.data == "in" else writes
                if region.tensor not in target:
                    target.append(region.tensor)
        both = set(reads) & set(writes)
        if both:
            raise MappingError(
                f"{sorted(both)[0]} is both read and written by the tasks of a spatial "
                "program: the AIE mapping moves each tensor one way (a kernel updating its "
                "block in place takes it inout)",
                self.program,
            )
        updated = {t for names in self.updates.values() for t in names}
        return reads + [n for n in self.names if n in updated], writes

    def _check_layout(self, name: str) -> None:
        shape = self.shapes[name]
        layout = self.layouts.get(name, [-1] * len(shape))
        if len(layout) != len(shape):
            raise MappingError(
                f"the layout of {name} has {len(layout)} entries for {len(shape)} dimensions",
                self.program,
            )
        for d, axis in enumerate(layout):
            if axis >= len(self.grid):
                raise MappingError(
                    f"the layout of {name} shards dimension {d} across grid axis {axis}, but "
                    f"the grid {tuple(self.grid)} has {len(self.grid)} axes",
                    self.program,
                )
            if axis >= 0 and shape[d] % self.grid[axis]:
                raise MappingError(
                    f"dimension {d} of {name} (extent {shape[d]}) does not split into "
                    f"{self.grid[axis]} blocks (grid axis {axis})",
                    self.program,
                )

    # --- data movement ----------------------------------------------------------------------

    def _tensor(self, name: str, tasks: dict[Cell, list[Instance]], write: bool) -> Tensor:
        """``name`` as the grid moves it: the cells reading the same regions in the same
        order share a stream; a written tensor has one stream (its block) per cell."""
        by_regions: dict[tuple[Region, ...], list[Cell]] = {}
        for cell, insts in sorted(tasks.items()):
            regions = tuple(
                r
                for inst in insts
                for r, a in zip(inst.regions, inst.task.access.data)
                if r.tensor == name and (a.data != "in") == write
            )
            if not write and name in self.updates.get(cell, []):
                regions = (self._block(name, cell),)  # the host's value of its block
            if write:
                regions = regions[:1]  # every task of a cell writes the same block
            if regions:
                by_regions.setdefault(regions, []).append(cell)
        axes = [a for a in self.layouts.get(name, [-1] * len(self.shapes[name])) if a >= 0]
        streams = sorted(
            (Stream(tuple(c[0][a] for a in axes), tuple(c), r) for r, c in by_regions.items()),
            key=lambda s: (s.key, s.cells[0]),
        )
        steps = {len(s.regions): s.cells[0] for s in streams}
        if len(steps) > 1:
            (n, a), (m, b) = sorted(steps.items())[:2]
            raise MappingError(
                f"the cores take different numbers of {name} regions per run (core {a}: {n}, "
                f"core {b}: {m}); a memtile link hands each of its objectfifos one element "
                "per step",
                self.program,
            )
        arg = self.program.function_type.inputs.data[self.names.index(name)]
        assert isinstance(arg, MemRefType)
        whole = MemRefType(arg.element_type, self.shapes[name])
        updated = not write and any(name in u for u in self.updates.values())
        label = f"{name}_in" if updated else name
        return Tensor(name, self.shapes[name], whole, self.part_types[name], streams, label)

    # --- runtime parameters -----------------------------------------------------------------

    def _runtime_load(self, value: SSAValue, env: Env) -> tuple[str, int] | None:
        """A scalar loaded from a program tensor at indices known for the task (a sequence
        length, say): its tensor and flat position; else None."""
        load = value.owner
        if not isinstance(load, memref.LoadOp) or load.memref not in self.program.body.block.args:
            return None
        name = self.names[self.program.body.block.args.index(load.memref)]
        type_ = load.memref.type
        assert isinstance(type_, MemRefType)
        shape = [max(d, 1) for d in type_.get_shape()]
        flat = 0
        for index, extent in zip(load.indices, shape):
            flat = flat * extent + evaluate(index, env)
        return name, flat

    def _rtp(
        self, b: CoreBuilder, cell: Cell, load: tuple[str, int], want: Attribute, op: Operation
    ) -> SSAValue:
        """The value from the core's runtime-parameter buffer, which the runtime sequence
        writes (``aiex.npu.rtp_write``) before it moves the data: the core's code is the
        same whatever the values, only the sequence changes."""
        name, flat = load
        if want != i32:
            raise MappingError(
                f"a runtime parameter ({name}) passes an index or i32 to a kernel, not {want}", op
            )
        values = self.data.get(name)
        if values is None or flat >= len(values):
            raise MappingError(
                f"the cores read {name}[{flat}] at run time: an AIE core gets it as a runtime "
                f"parameter, written by the runtime sequence; bind the values of {name} "
                f'(bind="{name}=i:j:...")',
                op,
            )
        buffer, slot = self.design.rtp(self.placement[cell], (name, flat), values[flat], op)
        return b.add(memref.LoadOp.get(buffer, [b.index(slot)])).results[0]

    # --- joined inputs ----------------------------------------------------------------------

    def _join(self, reads: list[Tensor], cells: list[Cell]) -> list[Tensor]:
        """When a core reads more tensors than a compute tile has input DMA channels, join
        the first read tensors every core reads (one element type, as many regions per run)
        into one objectfifo whose element holds a region of each, side by side; the core
        calls its kernel on views at their offsets. Otherwise the reads stay as they are
        (and the staging names the channel limit)."""
        channels = self.design.model.dma_channels(self.design.model.first_core_row)
        count = max(sum(any(c in s.cells for s in t.streams) for t in reads) for c in cells)
        if count <= channels:
            return reads
        updated = {t for names in self.updates.values() for t in names}
        candidates = [
            t
            for t in reads
            if t.name not in updated
            and t.part.element_type == reads[0].part.element_type
            and all(any(c in s.cells for s in t.streams) for c in cells)
            and {len(s.regions) for s in t.streams} == {len(reads[0].streams[0].regions)}
        ]
        parts = candidates[: count - channels + 1]
        if len(parts) < count - channels + 1:
            return reads
        joined = self._joined(parts, cells)
        first = reads.index(parts[0])
        return [*reads[:first], joined, *(t for t in reads[first:] if t not in parts)]

    def _joined(self, parts: list[Tensor], cells: list[Cell]) -> Tensor:
        by_regions: dict[tuple[Region, ...], list[Cell]] = {}
        keys: dict[tuple[Region, ...], tuple[int, ...]] = {}
        for cell in cells:
            mine = [next(s for s in t.streams if cell in s.cells) for t in parts]
            regions = tuple(r for step in zip(*(s.regions for s in mine)) for r in step)
            by_regions.setdefault(regions, []).append(cell)
            keys.setdefault(regions, mine[0].key)
        streams = [Stream(keys[r], tuple(c), r) for r, c in by_regions.items()]
        offset = 0
        for t in parts:
            self.joined[t.name] = offset
            offset += _elements(t.part)
        element = parts[0].part.element_type
        total = sum(_elements(t.whole) for t in parts)
        return Tensor(
            "_".join(t.name for t in parts),
            [total],
            MemRefType(element, [total]),
            MemRefType(element, [offset]),
            streams,
            parts=parts,
        )

    def _strided_params(self, tasks: dict[Cell, list[Instance]]) -> None:
        """Kernel parameters given a joined tensor take a view at an offset: their AIE type
        is strided with a dynamic offset (others passing them cast to it)."""
        for inst in (i for insts in tasks.values() for i in insts):
            kernel = self.symbols[inst.task.kernel.root_reference.data]
            assert isinstance(kernel, wsp.KernelOp)
            resources = [k for k, a in enumerate(kernel.access.data) if a.data]
            for k, region in zip(resources, inst.regions):
                if region.tensor in self.joined:
                    self.design.offset_params.setdefault(kernel.sym_name.data, set()).add(k)

    # --- cores ------------------------------------------------------------------------------

    def _emit(
        self,
        cell: Cell,
        tile: Tile,
        tasks: list[Instance],
        fifos_in: dict[str, dict[Cell, str]],
        fifos_out: dict[str, dict[Cell, str]],
    ) -> None:
        """The core of ``cell`` (IRON's matmul worker shape): acquire each output block once,
        run the tasks in order — tasks of one kernel on the same tensors whose integer
        arguments step by a constant become a loop, acquiring and releasing its inputs per
        step —, release the outputs."""
        b = CoreBuilder(self.design.core(tile, f"grid cell {cell}"), self.design.form)
        outs: dict[str, SSAValue] = {}
        for inst in tasks:
            for region, access in zip(inst.regions, inst.task.access.data):
                if access.data != "in" and region.tensor not in outs:
                    fifo = fifos_out[region.tensor][cell]
                    outs[region.tensor] = b.acquire(fifo, "Produce", self.design.fifos[fifo].type)
        for tensor in self.updates.get(cell, []):
            # The block enters through its own fifo: the update works on the output's copy.
            fifo = fifos_in[tensor][cell]
            value = b.acquire(fifo, "Consume", self.design.fifos[fifo].type)
            b.add(memref.CopyOp(value, outs[tensor]))
            b.release(fifo, "Consume")
        for _, group in groupby(tasks, key=_shape):
            for run, deltas in self._loops(list(group)):
                if len(run) == 1:
                    self._step(b, cell, run[0], fifos_in, outs)
                    continue
                body, step = b.loop(len(run), "step")
                self._step(body, cell, run[0], fifos_in, outs, (step, deltas))
                body.close()
        for tensor in outs:
            b.release(fifos_out[tensor][cell], "Produce")

    def _loops(self, run: list[Instance]) -> Iterator[tuple[list[Instance], list[int]]]:
        """Split tasks of one kernel on the same tensors into loops: maximal runs whose i32
        (index) arguments step by a constant each and whose other arguments are equal;
        with each, the step of every scalar argument."""
        kernel = self.symbols[run[0].task.kernel.root_reference.data]
        assert isinstance(kernel, wsp.KernelOp)
        decl = self.design.kernel(kernel, run[0].task)
        wants = [
            w for a, w in zip(kernel.access.data, decl.function_type.inputs.data) if not a.data
        ]
        keys = [
            [self._runtime_load(p, inst.env) or k for p, k in zip(inst.task.params, _param_keys(inst))]
            for inst in run
        ]

        def deltas(x: list, y: list) -> list[int] | None:
            out = []
            for a, b, want in zip(x, y, wants):
                if want == i32 and isinstance(a, int) and isinstance(b, int):
                    out.append(b - a)
                elif a == b:
                    out.append(0)
                else:
                    return None
            return out

        start = 0
        while start < len(run):
            end, steps = start + 1, None
            while end < len(run):
                d = deltas(keys[end - 1], keys[end])
                if d is None or steps not in (None, d):
                    break
                steps, end = d, end + 1
            yield run[start:end], steps or [0] * len(wants)
            start = end

    def _step(
        self,
        b: CoreBuilder,
        cell: Cell,
        inst: Instance,
        fifos_in: dict[str, dict[Cell, str]],
        outs: dict[str, SSAValue],
        loop: tuple[SSAValue, list[int]] | None = None,
    ) -> None:
        """One task: acquire its input elements, call its kernel, release them. In a loop
        (its index, and per scalar argument the step between iterations), ``inst`` is the
        first iteration's task."""
        task = inst.task
        kernel = self.symbols.get(task.kernel.root_reference.data)
        if not isinstance(kernel, wsp.KernelOp):
            raise MappingError(f"@{task.kernel.root_reference.data} is not a wsp.kernel", task)
        decl = self.design.kernel(kernel, task)
        params = iter(enumerate(task.params))
        resources = iter(zip(inst.regions, task.access.data))
        args: list[SSAValue] = []
        releases: list[str] = []
        held: dict[str, SSAValue] = {}
        for access, want in zip(kernel.access.data, decl.function_type.inputs.data):
            if not access.data:
                k, param = next(params)
                load = self._runtime_load(param, inst.env)
                if load is not None:
                    args.append(self._rtp(b, cell, load, want, param.owner))  # type: ignore[arg-type]
                elif loop is not None and loop[1][k]:
                    args.append(_stepped(b, evaluate(param, inst.env), loop[1][k], loop[0]))
                else:
                    args.append(scalar_arg(b, param, want, inst.env))
                continue
            region, mode = next(resources)
            if mode.data == "in":
                fifo = fifos_in[region.tensor][cell]
                element = self.design.fifos[fifo].type
                value = None
            else:
                value = outs[region.tensor]
                element = value.type
            if region.tensor in self.joined:
                element = self.part_types[region.tensor]
            if _plain(element) != _plain(want):
                raise MappingError(
                    f"@{kernel.sym_name.data} takes {want}, but core {cell} holds {element} of "
                    f"{region.tensor}",
                    task,
                )
            if value is None:
                if fifo not in held:
                    held[fifo] = b.acquire(fifo, "Consume", self.design.fifos[fifo].type)
                    releases.append(fifo)
                value = held[fifo]
                if region.tensor in self.joined:
                    value = _view(b, value, self.joined[region.tensor], want)
            if value.type != want:
                value = b.add(memref.CastOp.get(value, want)).results[0]
            args.append(value)
        b.call(kernel.sym_name.data, args)
        for fifo in releases:
            b.release(fifo, "Consume")


def _shape(inst: Instance) -> tuple:
    """The kernel and the tensors (with their access) of a task."""
    resources = tuple((r.tensor, a.data) for r, a in zip(inst.regions, inst.task.access.data))
    return inst.task.kernel.root_reference.data, resources


def _param_keys(inst: Instance) -> list:
    """A task's scalar arguments: integers where static, else the constant or the value."""
    keys = []
    for p in inst.task.params:
        try:
            keys.append(evaluate(p, inst.env))
        except MappingError:
            keys.append(p.owner.value if isinstance(p.owner, arith.ConstantOp) else p)
    return keys


def _stepped(b: CoreBuilder, first: int, delta: int, step: SSAValue) -> SSAValue:
    """``first + delta * step`` as an i32 in the core."""
    value = b.add(arith.IndexCastOp(step, i32)).results[0]
    if delta != 1:
        value = b.add(arith.MuliOp(value, b.i32(delta))).results[0]
    if first:
        value = b.add(arith.AddiOp(value, b.i32(first))).results[0]
    return value


def _plain(t: Attribute) -> Attribute:
    """A memref type without its layout (a strided parameter takes any view of its shape)."""
    if isinstance(t, MemRefType):
        return MemRefType(t.element_type, t.get_shape())
    return t


def _view(b: CoreBuilder, element: SSAValue, offset: int, want: Attribute) -> SSAValue:
    """The part of a joined element at ``offset``, as the kernel parameter's strided type."""
    assert isinstance(want, MemRefType)
    shape = list(want.get_shape())
    strides = [_elements(MemRefType(want.element_type, shape[k + 1 :])) for k in range(len(shape))]
    op = memref.ReinterpretCastOp.from_dynamic(element, [b.index(offset)], shape, strides, want)
    return b.add(op).results[0]


def _within(region: Region, block: Region) -> bool:
    return all(
        b <= o and o + n <= b + m
        for o, n, b, m in zip(region.offsets, region.sizes, block.offsets, block.sizes)
    )


def _elements(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _show(region: Region) -> str:
    parts = ", ".join(f"{o}:{o + s}" for o, s in zip(region.offsets, region.sizes))
    return f"{region.tensor}[{parts}]"


__all__ = ["SpatialMapper"]


def scalar_arg(b: CoreBuilder, value: SSAValue, want: Attribute, env: Env) -> SSAValue:
    """A scalar argument of a core's kernel call, known at compile time: an index (as i32)
    or integer evaluated for this core, a constant of another type copied in. A float the
    program computes at run time has no value to give the core: a located error."""
    owner = value.owner
    if want == i32:
        return b.i32(evaluate(value, env))
    if isinstance(owner, arith.ConstantOp):
        return b.add(owner.clone()).results[0]
    if isinstance(want, AnyFloat):
        raise MappingError(
            f"a {want} kernel argument computed at run time cannot map to an AIE core call "
            "(only a constant can)",
            owner if isinstance(owner, Operation) else None,
        )
    return b.add(arith.ConstantOp(IntegerAttr(evaluate(value, env), want))).results[0]
