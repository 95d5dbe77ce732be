"""AICore kernel bodies emitted from a kernel's tile function (the ``pto`` dialect) as C++.

A tile kernel (``wsp.kernel ... {tile = @f}``) needs no hand-written Ascend body: its tile
function, planned and synchronized by the target first (tile_passes.py), becomes the body's
C++ against the tile API of ``pto_wsp/tile.h``. Each SSA tile is a ``TileAt<T, Space, R, C>``
at its ``pto.addr`` in one byte buffer per space, each pto op one call that writes its result
(``%c = pto.add %a, %b`` -> ``TADD(c, a, b)``), ``scf.for`` a C++ loop whose iter_args are
variables assigned at each ``scf.yield``, ``scf.if`` an if whose results are declared before
it, ``arith``/``math`` C++ expressions. What has no C++ form here is a located error naming it.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from functools import partial

from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pto_wsp.dialects import pto
from pto_wsp.passes.pto_cost import ELEMENT_BYTES
from pto_wsp.passes.pto_plan_memory import ADDR_ATTR, MEMORY_ATTR, tile_bytes

from .abi import identifier
from .errors import emission_error

_SPACES = {s: s.capitalize() for s in pto.SPACES}
_PIPES = {p: f"PIPE_{p}" for p in pto.PIPES}
_CMP = {p: f"Cmp::{p.upper()}" for p in pto.PREDICATES}

#: arith/math ops written as a C++ binary operator or call: op -> format of (a, b).
_BINARY: dict[type, str] = {
    arith.AddiOp: "{a} + {b}",
    arith.AddfOp: "{a} + {b}",
    arith.SubiOp: "{a} - {b}",
    arith.SubfOp: "{a} - {b}",
    arith.MuliOp: "{a} * {b}",
    arith.MulfOp: "{a} * {b}",
    arith.DivSIOp: "{a} / {b}",
    arith.DivfOp: "{a} / {b}",
    arith.RemSIOp: "{a} % {b}",
    arith.AndIOp: "{a} & {b}",
    arith.OrIOp: "{a} | {b}",
    arith.XOrIOp: "{a} ^ {b}",
    arith.ShLIOp: "{a} << {b}",
    arith.ShRSIOp: "{a} >> {b}",
    arith.MaxSIOp: "{a} > {b} ? {a} : {b}",
    arith.MinSIOp: "{a} < {b} ? {a} : {b}",
    arith.MaxnumfOp: "fmax({a}, {b})",
    arith.MinnumfOp: "fmin({a}, {b})",
    arith.MaximumfOp: "fmax({a}, {b})",
    arith.MinimumfOp: "fmin({a}, {b})",
    arith.CeilDivSIOp: "({a} + {b} - 1) / {b}",
    arith.FloorDivSIOp: "{a} / {b} - (({a} % {b} != 0) && (({a} < 0) != ({b} < 0)))",
}
_UNARY: dict[type, str] = {
    arith.NegfOp: "-{a}",
    math.ExpOp: "exp({a})",
    math.LogOp: "log({a})",
    math.SqrtOp: "sqrt({a})",
    math.RsqrtOp: "1 / sqrt({a})",
    math.AbsFOp: "fabs({a})",
    math.TanhOp: "tanh({a})",
}
_CASTS = (
    arith.IndexCastOp,
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.ExtSIOp,
    arith.TruncIOp,
    arith.ExtFOp,
    arith.TruncFOp,
)
#: arith.cmpi / arith.cmpf predicates (their enum numbers) as C++ operators; the unordered
#: float forms are the ordered ones (NaN compares as C++ does).
_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}
_CMPF = {1: "==", 2: ">", 3: ">=", 4: "<", 5: "<=", 6: "!=", 8: "==", 9: ">", 10: ">=",
         11: "<", 12: "<=", 13: "!="}  # fmt: skip


def scalar_cxx(type_: Attribute) -> str | None:
    """The C++ type a scalar of ``type_`` has in a body (16-bit floats compute as float)."""
    if isinstance(type_, IndexType):
        return "int64_t"
    if isinstance(type_, IntegerType):
        width = type_.width.data
        return "bool" if width == 1 else f"int{width}_t" if width in (8, 16, 32, 64) else None
    if isinstance(type_, Float16Type | BFloat16Type | Float32Type):
        return "float"
    if isinstance(type_, Float64Type):
        return "double"
    return None


_ELEMENTS = {
    "f32": "float",
    "f16": "pto::wsp::f16_t",
    "bf16": "pto::wsp::bf16_t",
    "i1": "bool",
    "i8": "int8_t",
    "i16": "int16_t",
    "i32": "int32_t",
    "i64": "int64_t",
}


class TileEmitter:
    """The C++ statements of one tile function, op by op."""

    def __init__(self, function: func.FuncOp, names: list[str]):
        self.function = function
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set(names)
        self.lines: list[str] = []
        self.depth = 1
        self.prologue: list[str] = []
        for arg, name in zip(function.body.block.args, names):
            if isinstance(arg.type, Float16Type | BFloat16Type):
                local = self.fresh(name + "_value")
                conv = "half" if isinstance(arg.type, Float16Type) else "bf16"
                self.prologue.append(
                    f"[[maybe_unused]] const float {local} = {conv}_to_float({name}.bits);"
                )
                name = local
            self.names[arg] = name
        # Memory planning's output (pto-plan-memory): peak bytes per space, pto.addr per tile.
        memory = function.attributes.get(MEMORY_ATTR)
        self.memory = dict(memory.data) if isinstance(memory, DictionaryAttr) else {}
        self.buffers: dict[str, str] = {}
        self.scale = 1
        self.flags = False

    # ---------------------------------------------------------------- names, types, lines

    def fresh(self, hint: str) -> str:
        base = identifier(hint)
        name, n = base, 0
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        return name

    def define(self, value: SSAValue) -> str:
        name = self.fresh(value.name_hint or ("t" if isinstance(value.type, pto.TileType) else "v"))
        self.names[value] = name
        return name

    def __getitem__(self, value: SSAValue) -> str:
        return self.names[value]

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def cxx_type(self, op: Operation, type_: Attribute) -> str:
        if isinstance(type_, pto.TileType):
            return self.tile_type(op, type_)
        cxx = scalar_cxx(type_)
        if cxx is None:
            emission_error(op, f"{op.name}: the Ascend tile body has no C++ type for {type_}")
        return cxx

    def tile_type(self, op: Operation, t: pto.TileType, at: bool = False) -> str:
        if t.strides.get_values() or t.offset.data:
            emission_error(
                op, f"{op.name}: a tile view (strides, offset) is not emitted for Ascend: {t}"
            )
        rows, cols = (1, t.dims[0]) if t.rank == 1 else t.dims if t.rank == 2 else (0, 0)
        if rows == 0:
            emission_error(op, f"{op.name}: Ascend tiles are 1-d or 2-d, got {t}")
        elem = _ELEMENTS[pto.type_name(t.element_type)]
        kind = "TileAt" if at else "Tile"
        return f"{kind}<{elem}, Space::{_SPACES[t.space_name]}, {rows}, {cols}>"

    def declare(self, op: Operation, value: SSAValue, valid: tuple[str, str] | None = None) -> str:
        """A tile at ``value``'s planned buffer; with ``valid`` its valid sizes (rows, cols) set."""
        name = self.define(value)
        args = ", ".join([self.placed(op, value), *(valid or ())])
        self.line(f"{self.tile_type(op, pto.tile(value), at=True)} {name}({args});")
        return name

    def placed(self, op: Operation, value: SSAValue) -> str:
        """The address of ``value``'s planned buffer (``vec_buffer + 4096``)."""
        addr = self.addr_of(value)
        space = pto.tile(value).space_name
        if addr is None or space not in self.buffers:
            # Only a plan written by hand (pto.memory given) can miss a tile.
            emission_error(
                op, f"{op.name}: the function's plan (pto.memory) does not place this tile "
                f"(no pto.addr, or no {space} buffer): leave planning to the target",
            )  # fmt: skip
        return f"{self.buffers[pto.tile(value).space_name]} + {addr * self.scale}"

    def addr_of(self, value: SSAValue) -> int | None:
        """pto.addr of the op making ``value``; a loop's or if's tile shares its buffer with
        the loop's initial value or the then-branch's yielded value (pto-plan-memory)."""
        owner = value.owner
        if isinstance(value, BlockArgument):
            loop = owner.parent_op()
            if isinstance(loop, scf.ForOp) and value.index > 0:
                return self.addr_of(loop.iter_args[value.index - 1])
            return None
        if isinstance(owner, scf.ForOp):
            return self.addr_of(owner.iter_args[value.index])
        if isinstance(owner, scf.IfOp):
            return self.addr_of(owner.true_region.block.last_op.operands[value.index])
        addr = owner.attributes.get(ADDR_ATTR)
        return addr.value.data if isinstance(addr, IntegerAttr) else None

    def valid_sizes(self, op: Operation, t: pto.TileType, dynamic: list[str]) -> tuple[str, str]:
        """(rows, cols) of the valid shape: static sizes, else the given expressions in order."""
        dims = [str(d) if d != DYNAMIC_INDEX else dynamic.pop(0) for d in t.valid_dims]
        return ("1", dims[0]) if t.rank == 1 else (dims[0], dims[1])

    # ---------------------------------------------------------------- emission

    def emit(self) -> list[str]:
        for text in self.prologue:
            self.line(text)
        self.space_buffers()
        self.block(self.function.body.block)
        if self.flags:
            self.line("TFLAGS_BALANCED();")
        return self.lines

    def space_buffers(self) -> None:
        """One byte buffer per planned space; a 16-bit float tile holds floats on the host,
        so with such tiles buffers and offsets are scaled (kHostScaleHalf)."""
        if not self.memory:
            return
        halves = any(
            isinstance(r.type, pto.TileType)
            and isinstance(r.type.element_type, Float16Type | BFloat16Type)
            for op in self.function.walk()
            for r in op.results
        )
        self.scale = 2 if halves else 1
        for space, size in self.memory.items():
            name = self.buffers[space] = self.fresh(f"{space}_buffer")
            bytes_ = size.value.data * self.scale
            self.line(f"alignas(512) uint8_t {name}[{max(bytes_, 1)}];")

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        handler = self.handler(op)
        if handler is None:
            emission_error(
                op, f"{op.name} has no Ascend tile C++ form (in tile function "
                f"@{self.function.sym_name.data})",
            )  # fmt: skip
        if op.name.startswith("pto."):
            self.check_in_place(op)
        handler(op)

    def check_in_place(self, op: Operation) -> None:
        """A planned result that overlaps a tile the op reads: only an op reading and writing
        each element at the same place (elementwise, on the same shape) computes in place."""
        if not op.results or not isinstance(op.results[0].type, pto.TileType):
            return
        result = op.results[0]
        for operand in op.operands:
            if not isinstance(operand.type, pto.TileType) or not self.overlap(result, operand):
                continue
            same = self.addr_of(result) == self.addr_of(operand) and _same_layout(
                pto.tile(result), pto.tile(operand)
            )
            if not (same and pto.computes_in_place(op, operand)):
                name = operand.name_hint or "its operand"
                emission_error(
                    op, f"{op.name}: pto-plan-memory placed its result on the buffer of "
                    f"%{name}, which it reads: not computable in place",
                )  # fmt: skip

    def overlap(self, a: SSAValue, b: SSAValue) -> bool:
        ta, tb = pto.tile(a), pto.tile(b)
        if ta.space_name != tb.space_name:
            return False
        xa, xb = self.addr_of(a), self.addr_of(b)
        if xa is None or xb is None:
            return False
        return xa < xb + tile_bytes(tb) and xb < xa + tile_bytes(ta)

    def handler(self, op: Operation) -> Callable[[Operation], None] | None:
        kind = type(op)
        if kind in _BINARY or kind in _UNARY or kind in _CASTS:
            return self.scalar_expr
        name = op.name.removeprefix("pto.")
        if op.name.startswith("pto.") and name in _TILE_CALLS:
            return self.tile_call
        method = _HANDLERS.get(kind)
        return None if method is None else partial(method, self)

    def assign(self, op: Operation, expr: str) -> None:
        result = op.results[0]
        cxx = self.cxx_type(op, result.type)
        name = self.define(result)
        self.line(f"[[maybe_unused]] const {cxx} {name} = static_cast<{cxx}>({expr});")

    def scalar_expr(self, op: Operation) -> None:
        kind = type(op)
        args = [self[v] for v in op.operands]
        if kind in _BINARY:
            self.assign(op, _BINARY[kind].format(a=args[0], b=args[1]))
        elif kind in _UNARY:
            self.assign(op, _UNARY[kind].format(a=args[0]))
        else:
            self.assign(op, args[0])

    def constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if isinstance(value, IntegerAttr):
            number = value.value.data
            text = ("true" if number else "false") if str(value.type) == "i1" else str(number)
            if abs(number) > 2**31 - 1:
                text = f"INT64_C({number})"
        elif isinstance(value, FloatAttr):
            number = value.value.data
            if pymath.isnan(number):
                text = "NAN"
            elif pymath.isinf(number):
                text = "INFINITY" if number > 0 else "-INFINITY"
            else:
                text = repr(float(number))
        else:
            emission_error(op, f"arith.constant: no Ascend tile C++ form for {value}")
        self.assign(op, text)

    def cmp(self, op: arith.CmpiOp | arith.CmpfOp) -> None:
        table = _CMPI if isinstance(op, arith.CmpiOp) else _CMPF
        symbol = table.get(op.predicate.value.data)
        if symbol is None:
            emission_error(op, f"{op.name}: predicate {op.predicate.value.data} is not emitted")
        self.assign(op, f"{self[op.lhs]} {symbol} {self[op.rhs]}")

    def select(self, op: arith.SelectOp) -> None:
        if isinstance(op.result.type, pto.TileType):
            emission_error(op, "arith.select of tiles: use pto.sel")
        self.assign(op, f"{self[op.cond]} ? {self[op.lhs]} : {self[op.rhs]}")

    def dim(self, op: memref.DimOp) -> None:
        index = op.index.owner
        if not isinstance(index, arith.ConstantOp):
            emission_error(op, "memref.dim: the dimension must be a constant")
        self.assign(op, f"{self[op.source]}.size({index.value.value.data})")

    def memref_access(self, view: SSAValue, indices) -> str:
        return f"{self[view]}({', '.join(self[i] for i in indices)})"

    def memref_load(self, op: memref.LoadOp) -> None:
        self.check_scalar_element(op, op.memref.type.element_type)
        self.assign(op, self.memref_access(op.memref, op.indices))

    def memref_store(self, op: memref.StoreOp) -> None:
        self.check_scalar_element(op, op.memref.type.element_type)
        self.line(f"{self.memref_access(op.memref, op.indices)} = {self[op.value]};")

    def check_scalar_element(self, op: Operation, element: Attribute) -> None:
        if isinstance(element, Float16Type | BFloat16Type):
            emission_error(op, f"{op.name} of {element} elements: use pto.load / pto.store")

    def ret(self, op: func.ReturnOp) -> None:
        if op.next_op is not None or op.parent_op() is not self.function:
            self.line("return;")

    # ---------------------------------------------------------------- control flow

    def loop(self, op: scf.ForOp) -> None:
        results = self.carried(op, op.res, op.iter_args)
        body = op.body.block
        iv = self.define(body.args[0])
        for arg, name in zip(body.args[1:], results):
            self.names[arg] = name
        self.line(
            f"for (int64_t {iv} = {self[op.lb]}; {iv} < {self[op.ub]}; {iv} += {self[op.step]}) {{"
        )
        self.nested(body, results)
        self.line("}")

    def branch(self, op: scf.IfOp) -> None:
        results = self.carried(op, op.output, None)
        self.line(f"if ({self[op.cond]}) {{")
        self.nested(op.true_region.block, results)
        if op.false_region.blocks:
            self.line("} else {")
            self.nested(op.false_region.block, results)
        self.line("}")

    def carried(self, op: Operation, results, inits) -> list[str]:
        """Variables for the results of a loop or if, initialized from ``inits`` if given; a
        planned tile is its shared buffer."""
        names = []
        for i, value in enumerate(results):
            if isinstance(value.type, pto.TileType):
                name = self.declare(op, value)
                if inits is not None:
                    self.line(f"TMOV({name}, {self[inits[i]]});")
            else:
                name = self.define(value)
                init = f" = {self[inits[i]]}" if inits is not None else "{}"
                self.line(f"{self.cxx_type(op, value.type)} {name}{init};")
            names.append(name)
        return names

    def nested(self, block: Block, results: list[str]) -> None:
        self.depth += 1
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                self.yield_(op, results)
            else:
                self.op(op)
        self.depth -= 1

    def yield_(self, op: scf.YieldOp, results: list[str]) -> None:
        moves = [(r, self[v], v) for r, v in zip(results, op.arguments) if r != self[v]]
        if any(name in results for _, name, _ in moves):
            # A permutation of the carried values: through copies.
            temps = []
            for r, name, value in moves:
                temp = self.fresh(r + "_next")
                if isinstance(value.type, pto.TileType):
                    self.line(f"{self.tile_type(op, pto.tile(value))} {temp};")
                    self.line(f"TMOV({temp}, {name});")
                else:
                    self.line(f"const auto {temp} = {name};")
                temps.append((r, temp, value))
            moves = temps
        for r, name, value in moves:
            tile = isinstance(value.type, pto.TileType)
            self.line(f"TMOV({r}, {name});" if tile else f"{r} = {name};")

    def unsupported_scf(self, op: Operation) -> None:
        emission_error(op, f"{op.name} has no Ascend tile C++ form: use scf.for or scf.if")

    # ---------------------------------------------------------------- tile ops

    def tile_call(self, op: Operation) -> None:
        _TILE_CALLS[op.name.removeprefix("pto.")](self, op)

    def load(self, op: pto.LoadOp) -> None:
        t = pto.tile(op.result)
        valid = self.valid_sizes(op, t, [self[v] for v in op.valid_sizes])
        name = self.declare(op, op.result, valid)
        self.line(f"TLOAD({name}, {self[op.source]}, {self.offsets(op.source, op.offsets)});")

    def store(self, op: pto.StoreOp) -> None:
        self.line(
            f"TSTORE({self[op.dest]}, {self[op.value]}, {self.offsets(op.dest, op.offsets)});"
        )

    def offsets(self, view: SSAValue, offsets) -> str:
        rank = len(view.type.get_shape())
        return "{" + ", ".join([self[v] for v in offsets] or ["0"] * rank) + "}"

    def alloc(self, op: pto.AllocOp) -> None:
        t = pto.tile(op.result)
        self.declare(op, op.result, self.valid_sizes(op, t, [self[v] for v in op.valid_sizes]))

    def full(self, op: pto.FullOp) -> None:
        t = pto.tile(op.result)
        valid = self.valid_sizes(op, t, [self[v] for v in op.valid_sizes])
        self.line(f"TEXPANDS({self.declare(op, op.result, valid)}, {self[op.value]});")

    def expand(self, op: pto.RowExpandOp | pto.ColExpandOp) -> None:
        t, vec = pto.tile(op.result), self[op.input]
        dims = list(t.valid_dims)
        axis = op.AXIS
        if dims[axis] == DYNAMIC_INDEX:
            emission_error(op, f"{op.name}: the expanded size of {t} must be static")
        rows, cols = (
            (f"{vec}.valid_rows", str(dims[1]))
            if axis == 1
            else (str(dims[0]), f"{vec}.valid_cols")
        )
        name = self.declare(op, op.result, (rows, cols))
        self.line(f"{'TROWEXPAND' if axis == 1 else 'TCOLEXPAND'}({name}, {vec});")

    def call(self, function: str, op: Operation, *extra: str) -> None:
        """``function(result, operands..., extra...)``."""
        name = self.declare(op, op.results[0])
        args = [name, *(self[v] for v in op.operands), *extra]
        self.line(f"{function}({', '.join(args)});")

    def sync(self, op: Operation) -> None:
        self.flags = True
        if isinstance(op, pto.BarrierOp):
            self.line(f"TBARRIER({_PIPES[op.pipe.value.data]});")
            return
        verb = "TSET_FLAG" if isinstance(op, pto.SetFlagOp) else "TWAIT_FLAG"
        src, dst = _PIPES[op.src_pipe.value.data], _PIPES[op.dst_pipe.value.data]
        self.line(f"{verb}({src}, {dst}, EVENT_ID{op.event.value.data});")


def _same_layout(a: pto.TileType, b: pto.TileType) -> bool:
    size = ELEMENT_BYTES[pto.type_name(a.element_type)]
    return a.dims == b.dims and size == ELEMENT_BYTES[pto.type_name(b.element_type)]


#: Ops that read each element of these operands where they write its result.
def _simple(function: str) -> Callable[[TileEmitter, Operation], None]:
    return lambda self, op: self.call(function, op)


def _compare(function: str) -> Callable[[TileEmitter, Operation], None]:
    return lambda self, op: self.call(function, op, _CMP[op.predicate.data])


_TILE_CALLS: dict[str, Callable[[TileEmitter, Operation], None]] = {
    "load": TileEmitter.load,
    "store": TileEmitter.store,
    "alloc": TileEmitter.alloc,
    "full": TileEmitter.full,
    "row_expand": TileEmitter.expand,
    "col_expand": TileEmitter.expand,
    "move": _simple("TMOV"),
    "fillpad": _simple("TFILLPAD"),
    "cast": _simple("TCVT"),
    "sel": _simple("TSEL"),
    "cmp": _compare("TCMP"),
    "cmps": _compare("TCMPS"),
    "matmul": _simple("TMATMUL"),
    "matmul_acc": _simple("TMATMUL_ACC"),
    "matmul_bias": _simple("TMATMUL_BIAS"),
    "transpose": _simple("TTRANS"),
    "set_flag": TileEmitter.sync,
    "wait_flag": TileEmitter.sync,
    "barrier": TileEmitter.sync,
    **{n: _simple("T" + n.upper()) for n in pto._BINARY},
    **{n + "s": _simple("T" + n.upper() + "S") for n in pto._BINARY},
    **{n: _simple("T" + n.upper()) for n in pto._UNARY},
    **{f"{axis}_{n}": _simple(f"T{axis.upper()}{n.upper()}")
       for axis in ("row", "col") for n in ("sum", "max", "min")},
    **{f"{axis}_expand_{n}": _simple(f"T{axis.upper()}EXPAND{n.replace('_', '').upper()}")
       for axis in ("row", "col") for n in (*pto._BINARY, "exp_sub")},
}  # fmt: skip

_HANDLERS: dict[type, Callable] = {
    arith.ConstantOp: TileEmitter.constant,
    arith.CmpiOp: TileEmitter.cmp,
    arith.CmpfOp: TileEmitter.cmp,
    arith.SelectOp: TileEmitter.select,
    memref.DimOp: TileEmitter.dim,
    memref.LoadOp: TileEmitter.memref_load,
    memref.StoreOp: TileEmitter.memref_store,
    func.ReturnOp: TileEmitter.ret,
    scf.ForOp: TileEmitter.loop,
    scf.IfOp: TileEmitter.branch,
    scf.WhileOp: TileEmitter.unsupported_scf,
}


def tile_body(signature: str, names: list[str], function: func.FuncOp) -> str:
    """The C++ definition of a kernel (``signature``, parameters ``names``) whose body is the
    tile function ``function``."""
    lines = TileEmitter(function, names).emit()
    body = "\n".join(lines)
    return f"""\
// Emitted from the tile function @{function.sym_name.data}.
#include "pto_wsp/tile.h"

__aicore__ {signature} {{
  using namespace pto::wsp::tile;
{body}
}}
"""
