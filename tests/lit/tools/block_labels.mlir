// A block label declared twice is an error at the second, with a note at the first, also
// when a branch used the label before its first declaration (xDSL's parser raised a
// KeyError there: an internal error).
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK-NOT: internal error
// CHECK: block_redeclared.mlir:[[# @LINE + 6]]:1: error: re-declaration of block 'bb1'
// CHECK: block_redeclared.mlir:[[# @LINE + 3]]:1: note: originally declared here
func.func @forward() {
  cf.br ^bb1
^bb1:
  cf.br ^bb1
^bb1:
  func.return
}

// -----

// Declared before any use: the same.
// CHECK: block_redeclared.mlir:[[# @LINE + 5]]:1: error: re-declaration of block 'bb1'
func.func @backward() {
  func.return
^bb1:
  cf.br ^bb1
^bb1:
  func.return
}

// -----

// Where a block label could stand, the error says what may stand there.
// CHECK: block_redeclared.mlir:[[# @LINE + 3]]:3: error: expected an operation, a block label (^bb1:) or '}' closing the region
func.func @stray() {
  func.return
  )
}
