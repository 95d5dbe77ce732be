// RUN: not pto-opt %s --split-input-file -p pto-plan-memory 2>&1 | FileCheck %s
// RUN: not pto-opt %s --split-input-file -p 'pto-plan-memory{soc=950}' 2>&1 | FileCheck %s --check-prefix=A950
// RUN: not pto-opt %s -p 'pto-plan-memory{soc=910A}' 2>&1 | FileCheck %s --check-prefix=SOC

// Each error of pto-plan-memory, at the op making the tile that does not fit (or the read
// that breaks an in-place update), naming the tile, its space, the need and the capacity.

// SOC: pto-opt: error: pto-plan-memory: soc must be one of 910B, 910C, 950, got '910A'

// Two 128 KB tiles live at once: 256 KB, more than the 910B's 192 KB UB; the 950's
// 248 KB UB holds them neither, but one of 96 KB more does (the next chunk).
func.func @ub(%x: memref<128x256xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<128x256xf32> -> !pto.tile<128x256xf32, vec>
  %u = pto.exp %t : !pto.tile<128x256xf32, vec>
  pto.store %u, %x : !pto.tile<128x256xf32, vec>, memref<128x256xf32>
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 4]]:8: error: 'pto.exp' op pto-plan-memory: tile %u (!pto.tile<128x256xf32, vec>, 131072 B) does not fit in vec: 131072 B live + 131072 B need 262144 B at this point, the 910B's UB holds 196608 B
// A950: error: 'pto.exp' op pto-plan-memory: tile %u (!pto.tile<128x256xf32, vec>, 131072 B) does not fit in vec: 131072 B live + 131072 B need 262144 B at this point, the 950's UB holds 253952 B

// -----

// 96 KB + 96 KB + 16 KB: too much for the 910B's UB, enough for the 950's.
func.func @ub950(%x: memref<96x256xf32>, %y: memref<16x256xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<96x256xf32> -> !pto.tile<96x256xf32, vec>
  %u = pto.exp %t : !pto.tile<96x256xf32, vec>
  %v = pto.load %y : memref<16x256xf32> -> !pto.tile<16x256xf32, vec>
  pto.store %u, %x : !pto.tile<96x256xf32, vec>, memref<96x256xf32>
  pto.store %v, %y : !pto.tile<16x256xf32, vec>, memref<16x256xf32>
  pto.store %t, %x : !pto.tile<96x256xf32, vec>, memref<96x256xf32>
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 6]]:8: error: 'pto.load' op pto-plan-memory: tile %v (!pto.tile<16x256xf32, vec>, 16384 B) does not fit in vec: 196608 B live + 16384 B need 212992 B at this point, the 910B's UB holds 196608 B
// A950: func.func @ub950({{.*}} pto.memory = {vec = 212992 : i64}}

// -----

// L0C (acc): two 256x128xf32 accumulators, 128 KB each, in the 910B's 128 KB.
func.func @l0c(%a: memref<256x16xf16>, %b: memref<16x128xf16>, %c: memref<256x128xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ma = pto.load %a : memref<256x16xf16> -> !pto.tile<256x16xf16, mat>
  %mb = pto.load %b : memref<16x128xf16> -> !pto.tile<16x128xf16, mat>
  %l = pto.move %ma : !pto.tile<256x16xf16, mat> -> !pto.tile<256x16xf16, left>
  %r = pto.move %mb : !pto.tile<16x128xf16, mat> -> !pto.tile<16x128xf16, right>
  %p = pto.matmul %l, %r : !pto.tile<256x16xf16, left>, !pto.tile<16x128xf16, right> -> !pto.tile<256x128xf32, acc>
  %q = pto.matmul %l, %r : !pto.tile<256x16xf16, left>, !pto.tile<16x128xf16, right> -> !pto.tile<256x128xf32, acc>
  pto.store %p, %c : !pto.tile<256x128xf32, acc>, memref<256x128xf32>
  pto.store %q, %c : !pto.tile<256x128xf32, acc>, memref<256x128xf32>
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 5]]:8: error: 'pto.matmul' op pto-plan-memory: tile %q (!pto.tile<256x128xf32, acc>, 131072 B) does not fit in acc: 131072 B live + 131072 B need 262144 B at this point, the 910B's L0C holds 131072 B
// A950: func.func @l0c({{.*}} pto.memory = {acc = 262144 : i64,

// -----

// A loop updates its tile in place, so the iteration argument cannot be read once the next
// value is made; a vec tile is copied (plan.mlir), an acc tile has no copy within L0C.
func.func @in_place(%c: memref<16x16xf32>, %a: !pto.tile<16x16xf32, left>, %b: !pto.tile<16x16xf32, right>, %t: !pto.tile<16x16xf32, acc>, %n: index) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (!pto.tile<16x16xf32, acc>) {
    %next = pto.matmul_acc %acc, %a, %b : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
    pto.store %acc, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
    scf.yield %next : !pto.tile<16x16xf32, acc>
  }
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 5]]:5: error: 'pto.store' op pto-plan-memory: the loop updates its carried tile %acc in place, but %acc is read after %next replaces it, and a tile in acc has no copy within its space
// A950: errors.mlir:[[# @LINE - 6]]:5: error: 'pto.store' op pto-plan-memory: the loop updates its carried tile %acc in place

// -----

// The loop updates its initial value's buffer in place, so the initial value cannot be
// read once the loop starts; an acc tile has no copy within L0C.
func.func @init_read_after(%c: memref<16x16xf32>, %a: !pto.tile<16x16xf32, left>, %b: !pto.tile<16x16xf32, right>, %n: index) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pto.matmul %a, %b : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (!pto.tile<16x16xf32, acc>) {
    %next = pto.matmul_acc %acc, %a, %b : !pto.tile<16x16xf32, left>, !pto.tile<16x16xf32, right> -> !pto.tile<16x16xf32, acc>
    scf.yield %next : !pto.tile<16x16xf32, acc>
  }
  pto.store %t, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}
// CHECK: errors.mlir:[[# @LINE - 3]]:3: error: 'pto.store' op pto-plan-memory: a loop updates %t in place (its initial value), but %t is read after the loop starts, and a tile in acc has no copy within its space
// A950: errors.mlir:[[# @LINE - 4]]:3: error: 'pto.store' op pto-plan-memory: a loop updates %t in place
