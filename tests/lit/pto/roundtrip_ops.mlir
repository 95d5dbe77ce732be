// RUN: PTO_ROUNDTRIP
// RUN: PTO_GENERIC_ROUNDTRIP
// RUN: pto-opt %s | PTO_UPSTREAM

// Every op of the pto dialect in its custom syntax, printed back as written (the CHECK lines
// are the input), also after a trip through the generic form; then the generic form of
// a few ops (properties, operand segments of pto.load).

func.func @memory(%x: memref<64x64xf32>, %big: memref<4x128x64xf32>, %h: memref<64x64xf16>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
  %b = pto.load %big[%c1, %c0, %c0] : memref<4x128x64xf32> -> !pto.tile<64x64xf32, vec>
  %d = pto.load %big[%c1, %c0, %c0] valid(%n) : memref<4x128x64xf32> -> !pto.tile<64x64xf32, vec, valid = [?, 64]>
  %m = pto.load %h {note = "to L1"} : memref<64x64xf16> -> !pto.tile<64x64xf16, mat>
  %l = pto.move %m : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, left>
  %r = pto.move %m : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, right>
  %v = pto.move %a : !pto.tile<64x64xf32, vec> -> !pto.tile<64x64xf32, vec>
  %u = pto.alloc : !pto.tile<64x64xf32, vec>
  %ud = pto.alloc valid(%n, %n) : !pto.tile<64x64xf32, vec, valid = [?, ?]>
  %f = pto.full %s : f32 -> !pto.tile<64x64xf32, vec>
  %fd = pto.full %s valid(%n) : f32 -> !pto.tile<64x64xf32, vec, valid = [64, ?]>
  %p = pto.fillpad %d, %s : !pto.tile<64x64xf32, vec, valid = [?, 64]>, f32 -> !pto.tile<64x64xf32, vec>
  pto.store %a, %x : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
  pto.store %d, %big[%c1, %c0, %c0] : !pto.tile<64x64xf32, vec, valid = [?, 64]>, memref<4x128x64xf32>
  pto.store %m, %h {note = "from L1"} : !pto.tile<64x64xf16, mat>, memref<64x64xf16>
  func.return
}
func.func @elementwise(%a: !pto.tile<16x64xf32, vec>, %b: !pto.tile<16x64xf32, vec>, %s: f32, %i: !pto.tile<16x64xi32, vec>) {
  %0 = pto.add %a, %b : !pto.tile<16x64xf32, vec>
  %1 = pto.sub %a, %b : !pto.tile<16x64xf32, vec>
  %2 = pto.mul %a, %b : !pto.tile<16x64xf32, vec>
  %3 = pto.div %a, %b : !pto.tile<16x64xf32, vec>
  %4 = pto.max %a, %b : !pto.tile<16x64xf32, vec>
  %5 = pto.min %a, %b {tag} : !pto.tile<16x64xf32, vec>
  %6 = pto.adds %a, %s : !pto.tile<16x64xf32, vec>, f32
  %7 = pto.subs %a, %s : !pto.tile<16x64xf32, vec>, f32
  %8 = pto.muls %a, %s : !pto.tile<16x64xf32, vec>, f32
  %9 = pto.divs %a, %s : !pto.tile<16x64xf32, vec>, f32
  %10 = pto.maxs %a, %s : !pto.tile<16x64xf32, vec>, f32
  %11 = pto.mins %a, %s : !pto.tile<16x64xf32, vec>, f32
  %12 = pto.exp %a : !pto.tile<16x64xf32, vec>
  %13 = pto.log %a : !pto.tile<16x64xf32, vec>
  %14 = pto.sqrt %a : !pto.tile<16x64xf32, vec>
  %15 = pto.rsqrt %a : !pto.tile<16x64xf32, vec>
  %16 = pto.recip %a : !pto.tile<16x64xf32, vec>
  %17 = pto.abs %i : !pto.tile<16x64xi32, vec>
  %18 = pto.neg %i : !pto.tile<16x64xi32, vec>
  %19 = pto.relu %a : !pto.tile<16x64xf32, vec>
  %20 = pto.cast %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xf16, vec>
  %21 = pto.cast %i : !pto.tile<16x64xi32, vec> -> !pto.tile<16x64xf32, vec>
  %22 = pto.cmp lt %a, %b : !pto.tile<16x64xf32, vec>, !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xi1, vec>
  %23 = pto.cmp eq %i, %i {tag} : !pto.tile<16x64xi32, vec>, !pto.tile<16x64xi32, vec> -> !pto.tile<16x64xi1, vec>
  %24 = pto.cmps ge %a, %s : !pto.tile<16x64xf32, vec>, f32 -> !pto.tile<16x64xi1, vec>
  %25 = pto.sel %22, %a, %b : !pto.tile<16x64xi1, vec>, !pto.tile<16x64xf32, vec>
  func.return
}
func.func @rows_and_columns(%a: !pto.tile<16x64xf32, vec>, %d: !pto.tile<16x64xf32, vec, valid = [?, 64]>) {
  %r0 = pto.row_sum %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %r1 = pto.row_max %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %r2 = pto.row_min %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %rd = pto.row_max %d : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<16x1xf32, vec, valid = [?, 1]>
  %c0 = pto.col_sum %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
  %c1 = pto.col_max %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
  %c2 = pto.col_min %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
  %e0 = pto.row_expand %r0 : !pto.tile<16x1xf32, vec> -> !pto.tile<16x64xf32, vec>
  %e1 = pto.col_expand %c0 : !pto.tile<1x64xf32, vec> -> !pto.tile<16x64xf32, vec>
  %e2 = pto.row_expand_add %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e3 = pto.row_expand_sub %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e4 = pto.row_expand_mul %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e5 = pto.row_expand_div %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e6 = pto.row_expand_max %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e7 = pto.row_expand_min %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e8 = pto.row_expand_exp_sub %a, %r1 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  %e9 = pto.row_expand_exp_sub %d, %rd : !pto.tile<16x64xf32, vec, valid = [?, 64]>, !pto.tile<16x1xf32, vec, valid = [?, 1]>
  %f0 = pto.col_expand_add %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f1 = pto.col_expand_sub %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f2 = pto.col_expand_mul %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f3 = pto.col_expand_div %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f4 = pto.col_expand_max %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f5 = pto.col_expand_min %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %f6 = pto.col_expand_exp_sub %a, %c1 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
  %t = pto.transpose %a : !pto.tile<16x64xf32, vec> -> !pto.tile<64x16xf32, vec>
  %td = pto.transpose %d : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<64x16xf32, vec, valid = [64, ?]>
  func.return
}
func.func @cube(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>, %bias: !pto.tile<1x64xf32, bias>, %qa: !pto.tile<16x32xi8, left>, %qb: !pto.tile<32x64xi8, right>, %fa: !pto.tile<16x32xf32, left>, %fb: !pto.tile<32x64xf32, right>, %ba: !pto.tile<16x32xbf16, left>, %bb: !pto.tile<32x64xbf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
  %c2 = pto.matmul_acc %c, %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
  %c3 = pto.matmul_bias %a, %b, %bias : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>, !pto.tile<1x64xf32, bias> -> !pto.tile<16x64xf32, acc>
  %q = pto.matmul %qa, %qb : !pto.tile<16x32xi8, left>, !pto.tile<32x64xi8, right> -> !pto.tile<16x64xi32, acc>
  %f = pto.matmul %fa, %fb : !pto.tile<16x32xf32, left>, !pto.tile<32x64xf32, right> -> !pto.tile<16x64xf32, acc>
  %h = pto.matmul %ba, %bb : !pto.tile<16x32xbf16, left>, !pto.tile<32x64xbf16, right> -> !pto.tile<16x64xf32, acc>
  %v = pto.move %c3 : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf32, vec>
  %m = pto.move %c3 : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf32, mat>
  %mb = pto.move %m : !pto.tile<16x64xf32, mat> -> !pto.tile<16x64xf32, bias>
  func.return
}
func.func @sync() {
  pto.set_flag MTE2 -> V, 0
  pto.wait_flag MTE2 -> V, 0
  pto.set_flag V -> MTE3, 7 {tag}
  pto.wait_flag FIX -> S, 3
  pto.set_flag M -> MTE1, 1
  pto.barrier V
  pto.barrier ALL {tag}
  func.return
}
func.func @orchestration(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %n: index) -> memref<64x64xf32> attributes {pto.func_type = #pto.func_type<orchestration>} {
  %r = pto.incore_scope -> (memref<64x64xf32>) {
    %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
    pto.store %a, %y : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
    pto.yield %y : memref<64x64xf32>
  }
  pto.incore_scope {
    pto.yield
  } {name = "empty"}
  func.return %r : memref<64x64xf32>
}
func.func @kernel(%x: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  func.return
}
func.func @host(%x: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<opaque>} {
  func.return
}

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @memory(%x: memref<64x64xf32>, %big: memref<4x128x64xf32>, %h: memref<64x64xf16>, %n: index, %s: f32) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %b = pto.load %big[%c1, %c0, %c0] : memref<4x128x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %d = pto.load %big[%c1, %c0, %c0] valid(%n) : memref<4x128x64xf32> -> !pto.tile<64x64xf32, vec, valid = [?, 64]>
// CHECK-NEXT:     %m = pto.load %h {note = "to L1"} : memref<64x64xf16> -> !pto.tile<64x64xf16, mat>
// CHECK-NEXT:     %l = pto.move %m : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, left>
// CHECK-NEXT:     %r = pto.move %m : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, right>
// CHECK-NEXT:     %v = pto.move %a : !pto.tile<64x64xf32, vec> -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %u = pto.alloc : !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %ud = pto.alloc valid(%n, %n) : !pto.tile<64x64xf32, vec, valid = [?, ?]>
// CHECK-NEXT:     %f = pto.full %s : f32 -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %fd = pto.full %s valid(%n) : f32 -> !pto.tile<64x64xf32, vec, valid = [64, ?]>
// CHECK-NEXT:     %p = pto.fillpad %d, %s : !pto.tile<64x64xf32, vec, valid = [?, 64]>, f32 -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     pto.store %a, %x : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
// CHECK-NEXT:     pto.store %d, %big[%c1, %c0, %c0] : !pto.tile<64x64xf32, vec, valid = [?, 64]>, memref<4x128x64xf32>
// CHECK-NEXT:     pto.store %m, %h {note = "from L1"} : !pto.tile<64x64xf16, mat>, memref<64x64xf16>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @elementwise(%a: !pto.tile<16x64xf32, vec>, %b: !pto.tile<16x64xf32, vec>, %s: f32, %i: !pto.tile<16x64xi32, vec>) {
// CHECK-NEXT:     %0 = pto.add %a, %b : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %1 = pto.sub %a, %b : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %2 = pto.mul %a, %b : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %3 = pto.div %a, %b : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %4 = pto.max %a, %b : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %5 = pto.min %a, %b {tag} : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %6 = pto.adds %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %7 = pto.subs %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %8 = pto.muls %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %9 = pto.divs %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %10 = pto.maxs %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %11 = pto.mins %a, %s : !pto.tile<16x64xf32, vec>, f32
// CHECK-NEXT:     %12 = pto.exp %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %13 = pto.log %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %14 = pto.sqrt %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %15 = pto.rsqrt %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %16 = pto.recip %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %17 = pto.abs %i : !pto.tile<16x64xi32, vec>
// CHECK-NEXT:     %18 = pto.neg %i : !pto.tile<16x64xi32, vec>
// CHECK-NEXT:     %19 = pto.relu %a : !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %20 = pto.cast %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xf16, vec>
// CHECK-NEXT:     %21 = pto.cast %i : !pto.tile<16x64xi32, vec> -> !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %22 = pto.cmp lt %a, %b : !pto.tile<16x64xf32, vec>, !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xi1, vec>
// CHECK-NEXT:     %23 = pto.cmp eq %i, %i {tag} : !pto.tile<16x64xi32, vec>, !pto.tile<16x64xi32, vec> -> !pto.tile<16x64xi1, vec>
// CHECK-NEXT:     %24 = pto.cmps ge %a, %s : !pto.tile<16x64xf32, vec>, f32 -> !pto.tile<16x64xi1, vec>
// CHECK-NEXT:     %25 = pto.sel %22, %a, %b : !pto.tile<16x64xi1, vec>, !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @rows_and_columns(%a: !pto.tile<16x64xf32, vec>, %d: !pto.tile<16x64xf32, vec, valid = [?, 64]>) {
// CHECK-NEXT:     %r0 = pto.row_sum %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %r1 = pto.row_max %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %r2 = pto.row_min %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %rd = pto.row_max %d : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<16x1xf32, vec, valid = [?, 1]>
// CHECK-NEXT:     %c0 = pto.col_sum %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %c1 = pto.col_max %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %c2 = pto.col_min %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %e0 = pto.row_expand %r0 : !pto.tile<16x1xf32, vec> -> !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %e1 = pto.col_expand %c0 : !pto.tile<1x64xf32, vec> -> !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %e2 = pto.row_expand_add %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e3 = pto.row_expand_sub %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e4 = pto.row_expand_mul %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e5 = pto.row_expand_div %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e6 = pto.row_expand_max %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e7 = pto.row_expand_min %a, %r0 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e8 = pto.row_expand_exp_sub %a, %r1 : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK-NEXT:     %e9 = pto.row_expand_exp_sub %d, %rd : !pto.tile<16x64xf32, vec, valid = [?, 64]>, !pto.tile<16x1xf32, vec, valid = [?, 1]>
// CHECK-NEXT:     %f0 = pto.col_expand_add %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f1 = pto.col_expand_sub %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f2 = pto.col_expand_mul %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f3 = pto.col_expand_div %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f4 = pto.col_expand_max %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f5 = pto.col_expand_min %a, %c0 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %f6 = pto.col_expand_exp_sub %a, %c1 : !pto.tile<16x64xf32, vec>, !pto.tile<1x64xf32, vec>
// CHECK-NEXT:     %t = pto.transpose %a : !pto.tile<16x64xf32, vec> -> !pto.tile<64x16xf32, vec>
// CHECK-NEXT:     %td = pto.transpose %d : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<64x16xf32, vec, valid = [64, ?]>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @cube(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>, %bias: !pto.tile<1x64xf32, bias>, %qa: !pto.tile<16x32xi8, left>, %qb: !pto.tile<32x64xi8, right>, %fa: !pto.tile<16x32xf32, left>, %fb: !pto.tile<32x64xf32, right>, %ba: !pto.tile<16x32xbf16, left>, %bb: !pto.tile<32x64xbf16, right>) {
// CHECK-NEXT:     %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
// CHECK-NEXT:     %c2 = pto.matmul_acc %c, %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf32, acc>
// CHECK-NEXT:     %c3 = pto.matmul_bias %a, %b, %bias : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>, !pto.tile<1x64xf32, bias> -> !pto.tile<16x64xf32, acc>
// CHECK-NEXT:     %q = pto.matmul %qa, %qb : !pto.tile<16x32xi8, left>, !pto.tile<32x64xi8, right> -> !pto.tile<16x64xi32, acc>
// CHECK-NEXT:     %f = pto.matmul %fa, %fb : !pto.tile<16x32xf32, left>, !pto.tile<32x64xf32, right> -> !pto.tile<16x64xf32, acc>
// CHECK-NEXT:     %h = pto.matmul %ba, %bb : !pto.tile<16x32xbf16, left>, !pto.tile<32x64xbf16, right> -> !pto.tile<16x64xf32, acc>
// CHECK-NEXT:     %v = pto.move %c3 : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf32, vec>
// CHECK-NEXT:     %m = pto.move %c3 : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf32, mat>
// CHECK-NEXT:     %mb = pto.move %m : !pto.tile<16x64xf32, mat> -> !pto.tile<16x64xf32, bias>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @sync() {
// CHECK-NEXT:     pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:     pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:     pto.set_flag V -> MTE3, 7 {tag}
// CHECK-NEXT:     pto.wait_flag FIX -> S, 3
// CHECK-NEXT:     pto.set_flag M -> MTE1, 1
// CHECK-NEXT:     pto.barrier V
// CHECK-NEXT:     pto.barrier ALL {tag}
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @orchestration(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %n: index) -> memref<64x64xf32> attributes {pto.func_type = #pto.func_type<orchestration>} {
// CHECK-NEXT:     %r = pto.incore_scope -> (memref<64x64xf32>) {
// CHECK-NEXT:       %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:       pto.store %a, %y : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
// CHECK-NEXT:       pto.yield %y : memref<64x64xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     pto.incore_scope {
// CHECK-NEXT:       pto.yield
// CHECK-NEXT:     } {name = "empty"}
// CHECK-NEXT:     func.return %r : memref<64x64xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @kernel(%x: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @host(%x: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<opaque>} {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC: %d = "pto.load"(%big, %c1, %c0, %c0, %n) <{operandSegmentSizes = array<i32: 1, 3, 1>}> : (memref<4x128x64xf32>, index, index, index, index) -> !pto.tile<64x64xf32, vec, valid = [?, 64]>
// CHECK-GENERIC: %22 = "pto.cmp"(%a, %b) <{predicate = "lt"}> : (!pto.tile<16x64xf32, vec>, !pto.tile<16x64xf32, vec>) -> !pto.tile<16x64xi1, vec>
// CHECK-GENERIC: %c2 = "pto.matmul_acc"(%c, %a, %b) : (!pto.tile<16x64xf32, acc>, !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>) -> !pto.tile<16x64xf32, acc>
// CHECK-GENERIC: "pto.set_flag"() <{src_pipe = #pto.pipe<V>, dst_pipe = #pto.pipe<MTE3>, event = 7 : i64}> {tag} : () -> ()
// CHECK-GENERIC: "pto.barrier"() <{pipe = #pto.pipe<V>}> : () -> ()
// CHECK-GENERIC: "pto.yield"(%y) : (memref<64x64xf32>) -> ()
