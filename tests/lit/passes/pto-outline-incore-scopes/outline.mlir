// RUN: pto-opt %s --split-input-file -p pto-outline-incore-scopes | filecheck %s
// RUN: pto-opt %s --split-input-file -p pto-outline-incore-scopes | pto-opt --split-input-file -p pto-outline-incore-scopes | filecheck %s

// Before/after of pto-outline-incore-scopes (seed 003 OutlineIncoreScopes); the second RUN
// checks the output parses, verifies and is a fixed point of the pass.

// Seed 003's example: `with pl.incore(): y = pl.add(x, x); return y` in main becomes
// main_incore_0(x) -> y and a call in main, which becomes an orchestration function.
func.func @main(%x: !pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec> {
  %y = pto.incore_scope -> (!pto.tile<16x16xf32, vec>) {
    %s = pto.add %x, %x : !pto.tile<16x16xf32, vec>
    pto.yield %s : !pto.tile<16x16xf32, vec>
  }
  func.return %y : !pto.tile<16x16xf32, vec>
}

// -----

// Two scopes: live-ins in order of first use (values of the function and of an enclosing
// loop, here %r; a value defined inside, the loop index inside, is not one), constants
// copied in, a taken name skipped, results used after the scope, a scope in a loop called
// in the loop.
func.func @layer(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %n: index) attributes {pto.func_type = #pto.func_type<orchestration>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %t = pto.incore_scope -> (!pto.tile<64x64xf32, vec>) {
    %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
    %b = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (!pto.tile<64x64xf32, vec>) {
      %next = pto.adds %acc, %one : !pto.tile<64x64xf32, vec>, f32
      scf.yield %next : !pto.tile<64x64xf32, vec>
    }
    pto.yield %b : !pto.tile<64x64xf32, vec>
  }
  scf.for %r = %c0 to %c64 step %c1 {
    pto.incore_scope {
      %e = pto.exp %t : !pto.tile<64x64xf32, vec>
      pto.store %e, %y[%r, %c0] : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
      pto.yield
    }
  }
  func.return
}
func.func @layer_incore_0() {
  func.return
}

// -----

// A function without scopes is left alone, whatever its type.
func.func @plain(%x: index) -> index {
  func.return %x : index
}
func.func @kernel(%x: memref<8xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @main(%x: !pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec> attributes {pto.func_type = #pto.func_type<orchestration>} {
// CHECK-NEXT:     %y = func.call @main_incore_0(%x) : (!pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec>
// CHECK-NEXT:     func.return %y : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @main_incore_0(%x: !pto.tile<16x16xf32, vec>) -> !pto.tile<16x16xf32, vec> attributes {pto.func_type = #pto.func_type<incore>} {
// CHECK-NEXT:     %s = pto.add %x, %x : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:     func.return %s : !pto.tile<16x16xf32, vec>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK: // {{-----}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @layer(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %n: index) attributes {pto.func_type = #pto.func_type<orchestration>} {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// CHECK-NEXT:     %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     %t = func.call @layer_incore_1(%x, %n) : (memref<64x64xf32>, index) -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     scf.for %r = %c0 to %c64 step %c1 {
// CHECK-NEXT:       func.call @layer_incore_2(%t, %y, %r) : (!pto.tile<64x64xf32, vec>, memref<64x64xf32>, index) -> ()
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @layer_incore_1(%x: memref<64x64xf32>, %n: index) -> !pto.tile<64x64xf32, vec> attributes {pto.func_type = #pto.func_type<incore>} {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     %b = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (!pto.tile<64x64xf32, vec>) {
// CHECK-NEXT:       %next = pto.adds %acc, %one : !pto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:       scf.yield %next : !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %b : !pto.tile<64x64xf32, vec>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @layer_incore_2(%t: !pto.tile<64x64xf32, vec>, %y: memref<64x64xf32>, %r: index) attributes {pto.func_type = #pto.func_type<incore>} {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %e = pto.exp %t : !pto.tile<64x64xf32, vec>
// CHECK-NEXT:     pto.store %e, %y[%r, %c0] : !pto.tile<64x64xf32, vec>, memref<64x64xf32>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @layer_incore_0() {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK: // {{-----}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @plain(%x: index) -> index {
// CHECK-NEXT:     func.return %x : index
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @kernel(%x: memref<8xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
