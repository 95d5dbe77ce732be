// RUN: pto-opt %s --split-input-file -p pto-cost | filecheck %s
// RUN: pto-opt %s --split-input-file -p pto-cost | pto-opt --split-input-file -p pto-cost | filecheck %s

// pto-cost writes each tile op's cycles (pto.cycles, one execution) and each tile
// function's total and per-pipe cycles (pto.cycles, pto.pipe_cycles). The numbers follow
// the model of docs/kernels.md ("Cost model"); each is worked out below.

// Vector ops: slope x elements + constant. A 16x64xf32 tile has 1024 elements, 4096 B.
//   load (GM -> UB, 100.9 GB/s at 1.85 GHz = 54.5 B/cycle): ceil(4096 / 54.54) = 76
//   row_max: 0.1094 x 1024 + 32 = 144
//   row_expand_exp_sub: expand 0.2187 x 1024 + 37 = 261, sub 0.0313 x 1024 + 26 = 58,
//     exp 0.0314 x 1024 + 31 = 63: 382
//   store (UB -> GM, 188.46 GB/s = 101.9 B/cycle): ceil(4096 / 101.87) = 41
func.func @softmax(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %m = pto.row_max %t : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %e = pto.row_expand_exp_sub %t, %m : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  pto.store %e, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @softmax({{.*}} pto.cycles = 643 : i64, pto.pipe_cycles = {MTE2 = 76 : i64, MTE3 = 41 : i64, V = 526 : i64}} {
// CHECK-NEXT:   %t = pto.load %x {pto.cycles = 76 : i64}
// CHECK-NEXT:   %m = pto.row_max %t {pto.cycles = 144 : i64}
// CHECK-NEXT:   %e = pto.row_expand_exp_sub %t, %m {pto.cycles = 382 : i64}
// CHECK-NEXT:   pto.store %e, %y {pto.cycles = 41 : i64}

// -----

// Matmul: 6 + c x ceil(M/16) x ceil(K/K0) x ceil(N/16), K0 = 32 bytes of the left type.
//   f16 64x64x64: K0 = 16, 4 x 4 x 4 = 64 fractals at 1 cycle: 70
//   f32 64x64x64: K0 = 8, 4 x 8 x 4 = 128 fractals at 2 cycles: 262
// Moves by bandwidth: 8 KB L1 -> L0A (441 GB/s = 238.4 B/cycle): 35; L1 -> L0B (220.5
// GB/s = 119.2 B/cycle): 69. The 16 KB acc store goes through the fixpipe (FIX, 70 GB/s
// = 37.8 B/cycle): 434.
func.func @matmul(%a: !pto.tile<64x64xf16, mat>, %b: !pto.tile<64x64xf16, mat>, %fa: !pto.tile<64x64xf32, left>, %fb: !pto.tile<64x64xf32, right>, %c: memref<64x64xf32>) {
  %l = pto.move %a : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, left>
  %r = pto.move %b : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, right>
  %p = pto.matmul %l, %r : !pto.tile<64x64xf16, left>, !pto.tile<64x64xf16, right> -> !pto.tile<64x64xf32, acc>
  %q = pto.matmul_acc %p, %fa, %fb : !pto.tile<64x64xf32, left>, !pto.tile<64x64xf32, right> -> !pto.tile<64x64xf32, acc>
  pto.store %q, %c : !pto.tile<64x64xf32, acc>, memref<64x64xf32>
  func.return
}

// CHECK:      func.func @matmul({{.*}}{pto.cycles = 870 : i64, pto.pipe_cycles = {FIX = 434 : i64, M = 332 : i64, MTE1 = 104 : i64}} {
// CHECK-NEXT:   %l = pto.move %a {pto.cycles = 35 : i64}
// CHECK-NEXT:   %r = pto.move %b {pto.cycles = 69 : i64}
// CHECK-NEXT:   %p = pto.matmul %l, %r {pto.cycles = 70 : i64}
// CHECK-NEXT:   %q = pto.matmul_acc %p, %fa, %fb {pto.cycles = 262 : i64}
// CHECK-NEXT:   pto.store %q, %c {pto.cycles = 434 : i64}

// -----

// Loops multiply their body by a static trip count (here 4); a dynamic one counts once.
// The costlier branch of an scf.if counts. Sync ops, pto.alloc and scalar code cost 0.
//   adds 16x16xf32: 0.0156 x 256 + 25 = 29; exp: 0.0314 x 256 + 31 = 39
//   4 x 29 (static loop) + 1 x 29 (dynamic loop) + max(39, 29) (if) = 184
func.func @loops(%t: !pto.tile<16x16xf32, vec>, %n: index, %p: i1, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %t) -> (!pto.tile<16x16xf32, vec>) {
    %y = pto.adds %x, %s : !pto.tile<16x16xf32, vec>, f32
    scf.yield %y : !pto.tile<16x16xf32, vec>
  }
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> (!pto.tile<16x16xf32, vec>) {
    %y = pto.adds %x, %s : !pto.tile<16x16xf32, vec>, f32
    scf.yield %y : !pto.tile<16x16xf32, vec>
  }
  %c = scf.if %p -> (!pto.tile<16x16xf32, vec>) {
    %y = pto.exp %b : !pto.tile<16x16xf32, vec>
    scf.yield %y : !pto.tile<16x16xf32, vec>
  } else {
    %y = pto.adds %b, %s : !pto.tile<16x16xf32, vec>, f32
    scf.yield %y : !pto.tile<16x16xf32, vec>
  }
  %u = pto.alloc : !pto.tile<16x16xf32, vec>
  pto.barrier V
  func.return
}

// CHECK:      func.func @loops({{.*}} attributes {pto.cycles = 184 : i64, pto.pipe_cycles = {V = 184 : i64}} {
// CHECK:          %y = pto.adds %x, %s {pto.cycles = 29 : i64}
// CHECK:          %y_2 = pto.exp %b {pto.cycles = 39 : i64}
// CHECK:        %u = pto.alloc : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:   pto.barrier V
