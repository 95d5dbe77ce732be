"""pto-plan-memory + pto-insert-sync give code whose pipes never race: run with vector clocks
(each pipe in order, flags the only links between pipes), every read comes after the write it
reads, every write to a planned buffer after the earlier reads of that buffer on other pipes,
and every flag is set once and waited once (issue 23, item 2)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func, FuncOp
from xdsl.dialects.scf import Scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.parser import Parser

from pto_wsp.dialects import pto
from pto_wsp.dialects.pto import PTO
from pto_wsp.passes.pto_cost import pipe_of
from pto_wsp.passes.pto_insert_sync import InsertSyncPass
from pto_wsp.passes.pto_plan_memory import ADDR_ATTR, PlanMemoryPass, tile_bytes

LIT = Path(__file__).parent / "lit" / "passes"
ITERATIONS = 3


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTO):
        ctx.load_dialect(dialect)
    return ctx


def synchronized(text: str) -> ModuleOp:
    ctx = context()
    module = Parser(ctx, text).parse_module()
    PlanMemoryPass().apply(ctx, module)
    InsertSyncPass().apply(ctx, module)
    module.verify()
    return module


class Race(AssertionError):
    pass


class Machine:
    """Runs a function's ops in program order, loops unrolled, with a vector clock per pipe."""

    def __init__(self) -> None:
        self.clock: dict[str, dict[str, int]] = {}
        self.flags: dict[tuple[str, str, int], dict[str, int]] = {}
        self.made: dict[SSAValue, tuple[str, dict[str, int]]] = {}
        self.alias: dict[SSAValue, SSAValue] = {}
        self.reads: list[tuple[tuple[str, int, int], str, int]] = []

    def now(self, pipe: str) -> dict[str, int]:
        return self.clock.setdefault(pipe, {})

    def happened(self, pipe: str, stamp: tuple[str, dict[str, int]]) -> bool:
        src, clock = stamp
        return self.now(pipe).get(src, 0) >= clock.get(src, 0)

    def run_block(self, block: Block) -> None:
        for op in block.ops:
            self.run(op)

    def run(self, op: Operation) -> None:
        if isinstance(op, scf.ForOp):
            body = op.body.block
            for arg, init in zip(body.args[1:], op.iter_args):
                self.alias[arg] = self.resolve(init)
            for _ in range(ITERATIONS):
                self.run_block(body)
                for arg, out in zip(body.args[1:], body.last_op.operands):
                    self.alias[arg] = self.resolve(out)
            for res, arg in zip(op.results, body.args[1:]):
                self.alias[res] = self.alias[arg]
        elif isinstance(op, scf.IfOp):
            self.run_block(op.true_region.block)
            for res, out in zip(op.results, op.true_region.block.last_op.operands):
                self.alias[res] = self.resolve(out)
        elif isinstance(op, pto.SetFlagOp):
            key = (op.src_pipe.value.data, op.dst_pipe.value.data, op.event.value.data)
            if key in self.flags:
                raise Race(f"{key} set twice without a wait")
            self.flags[key] = dict(self.now(key[0]))
        elif isinstance(op, pto.WaitFlagOp):
            key = (op.src_pipe.value.data, op.dst_pipe.value.data, op.event.value.data)
            if key not in self.flags:
                raise Race(f"{key} waited without a set: deadlock")
            stamp = self.flags.pop(key)
            clock = self.now(key[1])
            for p, c in stamp.items():
                clock[p] = max(clock.get(p, 0), c)
        elif (pipe := pipe_of(op)) is not None:
            self.execute(op, pipe)

    def resolve(self, value: SSAValue) -> SSAValue:
        while value in self.alias:
            value = self.alias[value]
        return value

    def execute(self, op: Operation, pipe: str) -> None:
        clock = self.now(pipe)
        read = []
        for value in op.operands:
            if isinstance(value.type, pto.TileType):
                made = self.made.get(self.resolve(value))
                if made is not None and not self.happened(pipe, made):
                    raise Race(f"{op.name} on {pipe} reads a tile before {made[0]} made it")
                if (buf := buffer(self.resolve(value))) is not None:
                    read.append(buf)
        clock[pipe] = clock.get(pipe, 0) + 1
        for res in op.results:
            self.made[res] = (pipe, dict(clock))
            if (buf := buffer(res)) is not None:
                for other, reader, count in self.reads:
                    overlap = other[0] == buf[0] and other[1] < buf[2] and buf[1] < other[2]
                    if overlap and reader != pipe and clock.get(reader, 0) < count:
                        raise Race(f"{op.name} on {pipe} overwrites a buffer {reader} reads")
        self.reads += [(buf, pipe, clock[pipe]) for buf in read]


def buffer(value: SSAValue) -> tuple[str, int, int] | None:
    owner = getattr(value, "op", None)
    if owner is None or ADDR_ATTR not in owner.attributes:
        return None
    t = pto.tile(value)
    start = owner.attributes[ADDR_ATTR].value.data
    return t.space_name, start, start + tile_bytes(t)


def check(module: ModuleOp) -> None:
    for func in module.walk():
        if isinstance(func, FuncOp) and func.body.blocks:
            machine = Machine()
            machine.run_block(func.body.block)
            assert not machine.flags, f"flags set and never waited: {list(machine.flags)}"


def test_the_lit_inputs_run_without_races():
    for path in sorted((LIT / "pto-insert-sync").glob("*.mlir")) + [
        LIT / "pto-plan-memory" / "plan.mlir"
    ]:
        if "errors" in path.name:
            continue
        for chunk in path.read_text().split("// -----"):
            check(synchronized(chunk))


# --------------------------------------------------------------------------- random kernels

HEAD = "func.func @k(%g: memref<16x16xf32>, %h: memref<16x16xf16>, %n: index) {\n"
HEAD += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
HEAD += "  %c3 = arith.constant 3 : index\n  %one = arith.constant 1.0 : f32\n"
V = "!pto.tile<16x16xf32, vec>"


def statement(draw, tiles: list[str], fresh, depth: int) -> list[str]:
    """A random tile statement; ``tiles`` are the vec tiles in scope."""
    kinds = ["load", "exp", "add", "store", "matmul"] + (["loop"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds if tiles else ["load"]))
    name = fresh()
    if kind == "load":
        tiles.append(name)
        return [f"{name} = pto.load %g : memref<16x16xf32> -> {V}"]
    pick = st.sampled_from(list(tiles))
    if kind in ("exp", "add"):
        a, b = draw(pick), draw(pick)
        tiles.append(name)
        if kind == "exp":
            return [f"{name} = pto.exp {a} : {V}"]
        return [f"{name} = pto.add {a}, {b} : {V}"]
    if kind == "store":
        return [f"pto.store {draw(pick)}, %g : {V}, memref<16x16xf32>"]
    if kind == "matmul":
        m = f"{name}m"
        tiles.append(f"{name}v")
        return [
            f"{m} = pto.load %h : memref<16x16xf16> -> !pto.tile<16x16xf16, mat>",
            f"{name}l = pto.move {m} : !pto.tile<16x16xf16, mat> -> !pto.tile<16x16xf16, left>",
            f"{name}r = pto.move {m} : !pto.tile<16x16xf16, mat> -> !pto.tile<16x16xf16, right>",
            f"{name}a = pto.matmul {name}l, {name}r : !pto.tile<16x16xf16, left>, "
            f"!pto.tile<16x16xf16, right> -> !pto.tile<16x16xf32, acc>",
            f"{name}v = pto.move {name}a : !pto.tile<16x16xf32, acc> -> {V}",
        ]
    # A loop carrying one tile, updated in place at its end.
    init = draw(pick)
    tiles.remove(init)  # the loop updates it in place: gone once the loop starts
    inner = [*tiles, f"{name}c"]
    body = []
    for _ in range(draw(st.integers(1, 4))):
        body += statement(draw, inner, fresh, depth + 1)
    last = [t for t in inner if t not in tiles]
    out = fresh()
    body.append(f"{out} = pto.adds {last[-1]}, %one : {V}, f32")
    bound = draw(st.sampled_from(["%c3", "%n"]))
    tiles.append(name)
    return [
        f"{name} = scf.for %i{name[1:]} = %c0 to {bound} step %c1 "
        f"iter_args({name}c = {init}) -> ({V}) {{",
        *body,
        f"scf.yield {out} : {V}",
        "}",
    ]


@st.composite
def kernels(draw) -> str:
    counter = iter(range(10_000))

    def fresh() -> str:
        return f"%t{next(counter)}"

    tiles: list[str] = []
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        lines += statement(draw, tiles, fresh, 0)
    return HEAD + "\n".join(lines) + "\n  func.return\n}\n"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(kernels())
def test_random_kernels_run_without_races(text):
    try:
        module = synchronized(text)
    except Exception as error:
        # Refused by design: in-place updates of a loop tile read later; more flags pending
        # between two pipes than the 8 event ids.
        assert "in place" in str(error) or "events pending at once" in str(error), text
        return
    check(module)
