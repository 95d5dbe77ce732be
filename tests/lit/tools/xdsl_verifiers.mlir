// Verifiers of xDSL's own ops that raised a bare Exception or an IndexError (an internal
// error) report a located verifier error instead (dialects/xdsl_workarounds.py).
// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// ERR-NOT: internal error
// CHECK: xdsl_verifiers.mlir:[[# @LINE + 3]]:8: error: 'memref.load' op incorrect number of indices for load, expected 1 but got 0
// ERR: xdsl_verifiers.mlir:[[# @LINE + 2]]:8: error: 'memref.load' op incorrect number
func.func @load(%m: memref<?xindex>) -> index {
  %v = memref.load %m[] : memref<?xindex>
  func.return %v : index
}

// -----

// CHECK: xdsl_verifiers.mlir:[[# @LINE + 2]]:3: error: 'memref.store' op incorrect number of indices for store, expected 2 but got 1
func.func @store(%m: memref<4x4xf32>, %i: index, %x: f32) {
  memref.store %x, %m[%i] : memref<4x4xf32>
  func.return
}

// -----

// CHECK: xdsl_verifiers.mlir:[[# @LINE + 2]]:8: error: 'scf.while' op the 'after' region's argument types (i64) do not match the op's results (i32)
func.func @while_types(%a: i32) -> i32 {
  %r = scf.while (%x = %a) : (i32) -> i32 {
    %c = arith.constant true
    scf.condition(%c) %x : i32
  } do {
  ^bb0(%y: i64):
    scf.yield %y : i64
  }
  func.return %r : i32
}

// -----

// CHECK: xdsl_verifiers.mlir:[[# @LINE + 2]]:8: error: 'scf.while' op the 'after' region's argument types (none) do not match the op's results (i32)
func.func @while_count(%a: i32) -> i32 {
  %r = scf.while (%x = %a) : (i32) -> i32 {
    %c = arith.constant true
    scf.condition(%c) %x : i32
  } do {
  ^bb0:
    scf.yield %a : i32
  }
  func.return %r : i32
}

// -----

// The op's own constraints still come first.
// CHECK: xdsl_verifiers.mlir:[[# @LINE + 2]]:8: error: 'scf.while' op Region 'before_region' at position 0 expected a single block, but got 0 blocks
func.func @while_empty(%a: i32) -> i32 {
  %r = "scf.while"(%a) ({
  }, {
  }) : (i32) -> i32
  func.return %r : i32
}

// -----

// Well-formed ones verify.
// CHECK: func.func @good
// CHECK: memref.load %m[%i] : memref<?xindex>
func.func @good(%m: memref<?xindex>, %i: index) -> index {
  memref.store %i, %m[%i] : memref<?xindex>
  %v = memref.load %m[%i] : memref<?xindex>
  func.return %v : index
}
