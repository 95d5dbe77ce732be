// RUN: pto-opt %s --split-input-file -p pto-plan-memory,pto-insert-sync | filecheck %s
// RUN: pto-opt %s --split-input-file -p pto-plan-memory,pto-insert-sync | pto-opt --split-input-file | filecheck %s

// After pto-plan-memory, buffers are shared and reused: an op overwriting a buffer another
// pipe reads waits for that read (write after read).

// %t2 reuses the buffer of %v (offset 0 of vec), which the vector unit reads: the load
// (MTE2) of %t2 waits for V.
func.func @reuse(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %ta = pto.load %a : memref<64x64xf16> -> !pto.tile<64x64xf16, mat>
  %tb = pto.load %b : memref<64x64xf16> -> !pto.tile<64x64xf16, mat>
  %l = pto.move %ta : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, left>
  %r = pto.move %tb : !pto.tile<64x64xf16, mat> -> !pto.tile<64x64xf16, right>
  %p = pto.matmul %l, %r : !pto.tile<64x64xf16, left>, !pto.tile<64x64xf16, right> -> !pto.tile<64x64xf32, acc>
  %v = pto.move %p : !pto.tile<64x64xf32, acc> -> !pto.tile<64x64xf32, vec>
  %e = pto.exp %v : !pto.tile<64x64xf32, vec>
  %t2 = pto.load %c : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
  %s = pto.add %e, %t2 : !pto.tile<64x64xf32, vec>
  pto.store %s, %c : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
  func.return
}

// CHECK:      func.func @reuse(
// CHECK:        %v = pto.move %p {pto.addr = 0 : i64}
// CHECK-NEXT:   pto.set_flag FIX -> V, 0
// CHECK-NEXT:   pto.wait_flag FIX -> V, 0
// CHECK-NEXT:   %e = pto.exp %v {pto.addr = 16384 : i64}
// CHECK-NEXT:   pto.set_flag V -> MTE2, 0
// CHECK-NEXT:   pto.wait_flag V -> MTE2, 0
// CHECK-NEXT:   %t2 = pto.load %c {pto.addr = 0 : i64}
// CHECK-NEXT:   pto.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   %s = pto.add %e, %t2

// -----

// A loop-carried tile read on another pipe: the store (MTE3) of iteration i+1 reads %acc,
// which the add (V) of iteration i made, so V signals after the add and MTE3 waits before
// the store, primed before the loop and drained after it; within an iteration, the add
// overwrites the tile the store reads (the loop updates it in place).
func.func @carried(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %n: index) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 1.0 : f32
  %init = pto.full %z : f32 -> !pto.tile<16x64xf32, vec>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!pto.tile<16x64xf32, vec>) {
    pto.store %acc, %y : !pto.tile<16x64xf32, vec>, memref<16x64xf32>
    %next = pto.adds %acc, %z : !pto.tile<16x64xf32, vec>, f32
    scf.yield %next : !pto.tile<16x64xf32, vec>
  }
  func.return
}

// CHECK:      func.func @carried(
// CHECK:        %init = pto.full %z
// CHECK:        pto.set_flag V -> MTE3, 0
// CHECK-NEXT:   pto.wait_flag V -> MTE3, 0
// CHECK-NEXT:   pto.set_flag V -> MTE3, 1
// CHECK-NEXT:   %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init)
// CHECK-NEXT:     pto.wait_flag V -> MTE3, 1
// CHECK-NEXT:     pto.store %acc, %y
// CHECK-NEXT:     pto.set_flag MTE3 -> V, 0
// CHECK-NEXT:     pto.wait_flag MTE3 -> V, 0
// CHECK-NEXT:     %next = pto.adds %acc, %z
// CHECK-NEXT:     pto.set_flag V -> MTE3, 1
// CHECK-NEXT:     scf.yield %next
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.wait_flag V -> MTE3, 1
