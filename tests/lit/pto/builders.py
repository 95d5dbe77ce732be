# RUN: %PYTHON %s | filecheck %s

# The ops' Python constructors infer the result types a tracer needs: an elementwise op
# the operand's type, a reduction R x 1 / 1 x C, a compare an i1 mask, a move the type in
# the new space, a matmul its accumulator (f16 x f16 -> f32), a transpose C x R, a fillpad
# the whole valid shape. The built module verifies and prints in the custom syntax.

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, ModuleOp, f16, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region

from pto_wsp.dialects import pto

vec = pto.TileType((16, 64), f32, "vec")
block = Block(
    arg_types=[
        MemRefType(f32, (16, 64)),
        MemRefType(f16, (16, 32)),
        MemRefType(f16, (32, 64)),
        IndexType(),
        f32,
    ]
)
x, a_in, b_in, n, s = block.args
for arg, hint in zip(block.args, ("x", "a", "b", "n", "s")):
    arg.name_hint = hint
b = Builder(InsertPoint.at_end(block))
t = b.insert(pto.LoadOp(x, vec)).result
d = b.insert(pto.LoadOp(x, vec.with_(valid=(DYNAMIC_INDEX, 64)), valid_sizes=[n])).result
m = b.insert(pto.RowMaxOp(t)).result
e = b.insert(pto.RowExpandExpSubOp(t, m)).result
r = b.insert(pto.RowSumOp(e)).result
o = b.insert(pto.RowExpandDivOp(e, r)).result
c = b.insert(pto.ColSumOp(o)).result
sc = b.insert(pto.MulsOp(o, s)).result
ex = b.insert(pto.ExpOp(sc)).result
sum_ = b.insert(pto.AddOp(ex, o)).result
mask = b.insert(pto.CmpsOp("gt", sum_, s)).result
sel = b.insert(pto.SelOp(mask, sum_, o)).result
pad = b.insert(pto.FillPadOp(b.insert(pto.RowMaxOp(d)).result, s)).result
tr = b.insert(pto.TransposeOp(sel)).result
h = b.insert(pto.CastOp(sel, f16)).result
a = b.insert(pto.LoadOp(a_in, pto.TileType((16, 32), f16, "mat"))).result
w = b.insert(pto.LoadOp(b_in, pto.TileType((32, 64), f16, "mat"))).result
left = b.insert(pto.MoveOp(a, "left")).result
right = b.insert(pto.MoveOp(w, "right")).result
acc = b.insert(pto.MatmulOp(left, right)).result
acc2 = b.insert(pto.MatmulAccOp(acc, left, right)).result
out = b.insert(pto.MoveOp(acc2, "vec")).result
b.insert(pto.StoreOp(out, x))
b.insert(pto.SetFlagOp("MTE2", "V", 0))
b.insert(pto.WaitFlagOp("MTE2", "V", 0))
b.insert(pto.BarrierOp("ALL"))
b.insert(ReturnOp())
func = FuncOp("k", ([arg.type for arg in block.args], []), Region(block))
func.attributes[pto.FUNC_TYPE_ATTR] = pto.FuncTypeAttr("incore")
module = ModuleOp([func])
module.verify()
print(module)

# CHECK:      %0 = pto.load %{{.*}} : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
# CHECK-NEXT: %1 = pto.load %{{.*}} valid(%{{.*}}) : memref<16x64xf32> -> !pto.tile<16x64xf32, vec, valid = [?, 64]>
# CHECK-NEXT: %2 = pto.row_max %0 : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
# CHECK-NEXT: %3 = pto.row_expand_exp_sub %0, %2 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
# CHECK-NEXT: %4 = pto.row_sum %3 : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
# CHECK-NEXT: %5 = pto.row_expand_div %3, %4 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
# CHECK-NEXT: %6 = pto.col_sum %5 : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
# CHECK-NEXT: %7 = pto.muls %5, %{{.*}} : !pto.tile<16x64xf32, vec>, f32
# CHECK-NEXT: %8 = pto.exp %7 : !pto.tile<16x64xf32, vec>
# CHECK-NEXT: %9 = pto.add %8, %5 : !pto.tile<16x64xf32, vec>
# CHECK-NEXT: %10 = pto.cmps gt %9, %{{.*}} : !pto.tile<16x64xf32, vec>, f32 -> !pto.tile<16x64xi1, vec>
# CHECK-NEXT: %11 = pto.sel %10, %9, %5 : !pto.tile<16x64xi1, vec>, !pto.tile<16x64xf32, vec>
# CHECK-NEXT: %12 = pto.row_max %1 : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<16x1xf32, vec, valid = [?, 1]>
# CHECK-NEXT: %13 = pto.fillpad %12, %{{.*}} : !pto.tile<16x1xf32, vec, valid = [?, 1]>, f32 -> !pto.tile<16x1xf32, vec>
# CHECK-NEXT: %14 = pto.transpose %11 : !pto.tile<16x64xf32, vec> -> !pto.tile<64x16xf32, vec>
# CHECK-NEXT: %15 = pto.cast %11 : !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xf16, vec>
# CHECK-NEXT: %16 = pto.load %{{.*}} : memref<16x32xf16> -> !pto.tile<16x32xf16, mat>
# CHECK-NEXT: %17 = pto.load %{{.*}} : memref<32x64xf16> -> !pto.tile<32x64xf16, mat>
# CHECK-NEXT: %18 = pto.move %16 : !pto.tile<16x32xf16, mat> -> !pto.tile<16x32xf16, left>
# CHECK-NEXT: %19 = pto.move %17 : !pto.tile<32x64xf16, mat> -> !pto.tile<32x64xf16, right>
# CHECK-NEXT: %20 = pto.matmul %18, %19 : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
# CHECK-NEXT: %21 = pto.matmul_acc %20, %18, %19 : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
# CHECK-NEXT: %22 = pto.move %21 : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf32, vec>
# CHECK-NEXT: pto.store %22, %{{.*}} : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
# CHECK-NEXT: pto.set_flag MTE2 -> V, 0
# CHECK-NEXT: pto.wait_flag MTE2 -> V, 0
# CHECK-NEXT: pto.barrier ALL
