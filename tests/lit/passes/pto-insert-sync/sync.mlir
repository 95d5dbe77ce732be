// RUN: pto-opt %s --split-input-file -p pto-insert-sync | filecheck %s
// RUN: pto-opt %s --split-input-file -p pto-insert-sync | pto-opt --split-input-file -p pto-insert-sync | filecheck %s

// Before/after of pto-insert-sync. The second RUN checks the output parses and verifies
// (flags between two different pipes, event ids 0..7) and that a function with flags is
// left alone.

// A tile crossing pipes: the load (MTE2) feeds vector ops (V), whose result the store
// (MTE3) writes out. Ops on one pipe run in order: no flag between them.
func.func @softmax(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %m = pto.row_max %t : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
  %e = pto.row_expand_exp_sub %t, %m : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
  pto.store %e, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @softmax(
// CHECK-NEXT:   %t = pto.load %x
// CHECK-NEXT:   pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   %m = pto.row_max %t
// CHECK-NEXT:   %e = pto.row_expand_exp_sub %t, %m
// CHECK-NEXT:   pto.set_flag V -> MTE3, 0
// CHECK-NEXT:   pto.wait_flag V -> MTE3, 0
// CHECK-NEXT:   pto.store %e, %y
// CHECK-NEXT:   func.return

// -----

// The cube's pipes: loads to L1 (MTE2), moves to L0A/L0B (MTE1), matmul (M), the
// accumulator's store through the fixpipe (FIX). Two loads in flight use events 0 and 1 of
// MTE2 -> MTE1; once both are waited, a later pair may use 0 again.
func.func @matmul(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ma = pto.load %a : memref<32x32xf16> -> !pto.tile<32x32xf16, mat>
  %mb = pto.load %b : memref<32x32xf16> -> !pto.tile<32x32xf16, mat>
  %l = pto.move %ma : !pto.tile<32x32xf16, mat> -> !pto.tile<32x32xf16, left>
  %r = pto.move %mb : !pto.tile<32x32xf16, mat> -> !pto.tile<32x32xf16, right>
  %p = pto.matmul %l, %r : !pto.tile<32x32xf16, left>, !pto.tile<32x32xf16, right> -> !pto.tile<32x32xf32, acc>
  pto.store %p, %c : !pto.tile<32x32xf32, acc>, memref<32x32xf32>
  func.return
}

// CHECK:      func.func @matmul(
// CHECK-NEXT:   %ma = pto.load %a
// CHECK-NEXT:   pto.set_flag MTE2 -> MTE1, 0
// CHECK-NEXT:   %mb = pto.load %b
// CHECK-NEXT:   pto.set_flag MTE2 -> MTE1, 1
// CHECK-NEXT:   pto.wait_flag MTE2 -> MTE1, 0
// CHECK-NEXT:   %l = pto.move %ma
// CHECK-NEXT:   pto.set_flag MTE1 -> M, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> MTE1, 1
// CHECK-NEXT:   %r = pto.move %mb
// CHECK-NEXT:   pto.set_flag MTE1 -> M, 1
// CHECK-NEXT:   pto.wait_flag MTE1 -> M, 0
// CHECK-NEXT:   pto.wait_flag MTE1 -> M, 1
// CHECK-NEXT:   %p = pto.matmul %l, %r
// CHECK-NEXT:   pto.set_flag M -> FIX, 0
// CHECK-NEXT:   pto.wait_flag M -> FIX, 0
// CHECK-NEXT:   pto.store %p, %c
// CHECK-NEXT:   func.return

// -----

// Ping-pong: the load of iteration i+1 overwrites the tile the vector unit reads in
// iteration i, so V signals MTE2 after its read and MTE2 waits before the next load; a
// set before the loop and a wait after it balance the flags (one wait, one set per
// iteration); the same holds for the store (MTE3) and the next iteration's mul (V), which
// remakes the tile the store reads. A tile made before the loop is waited for before the
// loop, not in it.
func.func @stream(%x: memref<64x64xf32>, %w: memref<16x64xf32>, %y: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %wt = pto.load %w : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  scf.for %i = %c0 to %c64 step %c16 {
    %t = pto.load %x[%i, %c0] : memref<64x64xf32> -> !pto.tile<16x64xf32, vec>
    %u = pto.mul %t, %wt : !pto.tile<16x64xf32, vec>
    pto.store %u, %y[%i, %c0] : !pto.tile<16x64xf32, vec>, memref<64x64xf32>
  }
  func.return
}

// CHECK:      func.func @stream(
// CHECK:        %wt = pto.load %w
// CHECK-NEXT:   pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.set_flag V -> MTE2, 0
// CHECK-NEXT:   pto.set_flag MTE3 -> V, 0
// CHECK-NEXT:   scf.for %i = %c0 to %c64 step %c16 {
// CHECK-NEXT:     pto.wait_flag V -> MTE2, 0
// CHECK-NEXT:     %t = pto.load %x[%i, %c0]
// CHECK-NEXT:     pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:     pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:     pto.wait_flag MTE3 -> V, 0
// CHECK-NEXT:     %u = pto.mul %t, %wt
// CHECK-NEXT:     pto.set_flag V -> MTE3, 0
// CHECK-NEXT:     pto.set_flag V -> MTE2, 0
// CHECK-NEXT:     pto.wait_flag V -> MTE3, 0
// CHECK-NEXT:     pto.store %u, %y[%i, %c0]
// CHECK-NEXT:     pto.set_flag MTE3 -> V, 0
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.wait_flag MTE3 -> V, 0
// CHECK-NEXT:   pto.wait_flag V -> MTE2, 0
// CHECK-NEXT:   func.return

// -----

// Nested loops, a tile yielded from outside its loop, a while loop, an InCore scope and
// tile arguments: every set has its wait on every path. %acc2 is what the inner loop
// yielded in the previous outer iteration (a flag across outer iterations, held by event 1
// for the whole loop) or %w, loaded before the loops (waited for before them).
func.func @nested(%x: memref<16x16xf32>, %a: !pto.tile<16x16xf32, vec>, %n: index, %p: i1) -> !pto.tile<16x16xf32, vec> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (!pto.tile<16x16xf32, vec>) {
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %acc) -> (!pto.tile<16x16xf32, vec>) {
      pto.store %acc2, %x : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
      scf.yield %w : !pto.tile<16x16xf32, vec>
    }
    scf.yield %r2 : !pto.tile<16x16xf32, vec>
  }
  %q = scf.while (%arg = %r) : (!pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec> {
    scf.condition(%p) %arg : !pto.tile<16x16xf32, vec>
  } do {
  ^bb0(%b: !pto.tile<16x16xf32, vec>):
    %e = pto.exp %b : !pto.tile<16x16xf32, vec>
    scf.yield %e : !pto.tile<16x16xf32, vec>
  }
  %s = pto.incore_scope -> (!pto.tile<16x16xf32, vec>) {
    %z = pto.add %q, %w : !pto.tile<16x16xf32, vec>
    pto.store %z, %x : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
    pto.yield %z : !pto.tile<16x16xf32, vec>
  }
  func.return %s : !pto.tile<16x16xf32, vec>
}

// CHECK:      func.func @nested(
// CHECK:        %w = pto.load %x
// CHECK-NEXT:   pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.set_flag MTE2 -> MTE3, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> MTE3, 0
// CHECK-NEXT:   pto.set_flag MTE2 -> MTE3, 1
// CHECK-NEXT:   %r = scf.for
// CHECK-NEXT:     pto.wait_flag MTE2 -> MTE3, 1
// CHECK-NEXT:     %r2 = scf.for
// CHECK-NEXT:       pto.store %acc2, %x
// CHECK-NEXT:       scf.yield %w
// CHECK-NEXT:     }
// CHECK-NEXT:     pto.set_flag MTE2 -> MTE3, 1
// CHECK-NEXT:     scf.yield %r2
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.wait_flag MTE2 -> MTE3, 1
// CHECK:        pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   %s = pto.incore_scope
// CHECK-NEXT:     %z = pto.add %q, %w
// CHECK-NEXT:     pto.set_flag V -> MTE3, 0
// CHECK-NEXT:     pto.wait_flag V -> MTE3, 0
// CHECK-NEXT:     pto.store %z, %x

// -----

// Across the branches of an scf.if: its result is made by the vector pipe (exp) in one
// branch and by MTE2 (load) in the other. The store (MTE3) after the if waits for both;
// each pipe's set follows the scf.if (a pipe runs in order), so whichever branch ran, every
// set has its wait. %t, read only in the then branch, is waited for before the if.
func.func @branch(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %p: i1) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
  %c = scf.if %p -> (!pto.tile<16x64xf32, vec>) {
    %a = pto.exp %t : !pto.tile<16x64xf32, vec>
    scf.yield %a : !pto.tile<16x64xf32, vec>
  } else {
    %b = pto.load %x : memref<16x64xf32> -> !pto.tile<16x64xf32, vec>
    scf.yield %b : !pto.tile<16x64xf32, vec>
  }
  pto.store %c, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
  func.return
}

// CHECK:      func.func @branch(
// CHECK-NEXT:   %t = pto.load %x
// CHECK-NEXT:   pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   %c = scf.if %p
// CHECK-NEXT:     %a = pto.exp %t
// CHECK-NEXT:     scf.yield %a
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %b = pto.load %x
// CHECK-NEXT:     scf.yield %b
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.set_flag MTE2 -> MTE3, 0
// CHECK-NEXT:   pto.set_flag V -> MTE3, 0
// CHECK-NEXT:   pto.wait_flag V -> MTE3, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> MTE3, 0
// CHECK-NEXT:   pto.store %c, %y
// CHECK-NEXT:   func.return
