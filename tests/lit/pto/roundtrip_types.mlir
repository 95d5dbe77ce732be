// RUN: PTO_ROUNDTRIP
// RUN: PTO_GENERIC_ROUNDTRIP
// RUN: pto-opt %s --split-input-file | filecheck %s --check-prefix=CHECK-ALIAS
// RUN: pto-opt %s | PTO_UPSTREAM

// Tile types: shape and element type, each memory space, seed 003's memory names (UB, L1,
// L0A, L0B, L0C) read as aliases and printed canonically; valid shapes (static, dynamic,
// the whole tile dropped); the tile view (strides, offset; either alone); every element
// type; 1-d tiles. The attributes: pipes and function types.

func.func @types(
    %vec: !pto.tile<64x64xf32, vec>, %mat: !pto.tile<64x64xf16, mat>,
    %left: !pto.tile<16x32xbf16, left>, %right: !pto.tile<32x16xi8, right>,
    %acc: !pto.tile<16x16xi32, acc>, %bias: !pto.tile<1x16xf32, bias>,
    %ub: !pto.tile<8x8xf32, UB>, %l1: !pto.tile<8x8xf32, L1>, %l0a: !pto.tile<8x8xf32, L0A>,
    %l0b: !pto.tile<8x8xf32, L0B>, %l0c: !pto.tile<8x8xf32, L0C>,
    %valid: !pto.tile<64x64xf32, vec, valid = [32, 48]>,
    %dyn: !pto.tile<64x64xf32, vec, valid = [?, 64]>,
    %whole: !pto.tile<64x64xf32, vec, valid = [64, 64]>,
    %view: !pto.tile<64x64xf32, vec, valid = [?, ?], strides = [128, 1], offset = 64>,
    %strided: !pto.tile<64x64xf32, vec, strides = [128, 1]>,
    %offset: !pto.tile<64x64xf32, vec, offset = 8>,
    %ints: !pto.tile<4x4xi16, vec>, %wide: !pto.tile<4x4xi64, vec>, %mask: !pto.tile<4x4xi1, vec>,
    %row: !pto.tile<128xf32, vec>) attributes {pipes = [#pto.pipe<S>, #pto.pipe<V>, #pto.pipe<M>, #pto.pipe<MTE1>, #pto.pipe<MTE2>, #pto.pipe<MTE3>, #pto.pipe<FIX>, #pto.pipe<ALL>], kinds = [#pto.func_type<opaque>, #pto.func_type<orchestration>, #pto.func_type<incore>]} {
  func.return
}

// CHECK:      %vec: !pto.tile<64x64xf32, vec>, %mat: !pto.tile<64x64xf16, mat>,
// CHECK-SAME: %left: !pto.tile<16x32xbf16, left>, %right: !pto.tile<32x16xi8, right>,
// CHECK-SAME: %acc: !pto.tile<16x16xi32, acc>, %bias: !pto.tile<1x16xf32, bias>,
// CHECK-SAME: %ub: !pto.tile<8x8xf32, vec>, %l1: !pto.tile<8x8xf32, mat>, %l0a: !pto.tile<8x8xf32, left>,
// CHECK-SAME: %l0b: !pto.tile<8x8xf32, right>, %l0c: !pto.tile<8x8xf32, acc>,
// CHECK-SAME: %valid: !pto.tile<64x64xf32, vec, valid = [32, 48]>,
// CHECK-SAME: %dyn: !pto.tile<64x64xf32, vec, valid = [?, 64]>,
// CHECK-SAME: %whole: !pto.tile<64x64xf32, vec>,
// CHECK-SAME: %view: !pto.tile<64x64xf32, vec, valid = [?, ?], strides = [128, 1], offset = 64>,
// CHECK-SAME: %strided: !pto.tile<64x64xf32, vec, strides = [128, 1]>,
// CHECK-SAME: %offset: !pto.tile<64x64xf32, vec, offset = 8>,
// CHECK-SAME: %ints: !pto.tile<4x4xi16, vec>, %wide: !pto.tile<4x4xi64, vec>, %mask: !pto.tile<4x4xi1, vec>,
// CHECK-SAME: %row: !pto.tile<128xf32, vec>)
// CHECK-SAME: pipes = [#pto.pipe<S>, #pto.pipe<V>, #pto.pipe<M>, #pto.pipe<MTE1>, #pto.pipe<MTE2>, #pto.pipe<MTE3>, #pto.pipe<FIX>, #pto.pipe<ALL>]
// CHECK-SAME: kinds = [#pto.func_type<opaque>, #pto.func_type<orchestration>, #pto.func_type<incore>]

// The generic form prints the same types (types have one syntax in both forms).
// CHECK-GENERIC: "func.func"() <{sym_name = "types", function_type = (!pto.tile<64x64xf32, vec>,
// CHECK-GENERIC-SAME: !pto.tile<8x8xf32, vec>, !pto.tile<8x8xf32, mat>, !pto.tile<8x8xf32, left>, !pto.tile<8x8xf32, right>, !pto.tile<8x8xf32, acc>
// CHECK-GENERIC-SAME: !pto.tile<64x64xf32, vec, valid = [?, 64]>, !pto.tile<64x64xf32, vec>,

// CHECK-ALIAS-NOT: {{UB|L1|L0A|L0B|L0C}}
