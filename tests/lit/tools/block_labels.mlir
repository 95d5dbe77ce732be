// Block labels: one declared twice is an error at the second, with a note at the first,
// also when a branch used the label before its first declaration (xDSL's parser raised a
// KeyError there: an internal error); a numeric label (^64, valid MLIR) names no block
// (xDSL's parser raised a ValueError naming the block).
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>/dev/null | pto-opt --split-input-file 2>&1 | FileCheck %s --check-prefix=NUMERIC

// CHECK-NOT: internal error
// CHECK: block_labels.mlir:[[# @LINE + 6]]:1: error: re-declaration of block 'bb1'
// CHECK: block_labels.mlir:[[# @LINE + 3]]:1: note: originally declared here
func.func @forward() {
  cf.br ^bb1
^bb1:
  cf.br ^bb1
^bb1:
  func.return
}

// -----

// Declared before any use: the same.
// CHECK: block_labels.mlir:[[# @LINE + 5]]:1: error: re-declaration of block 'bb1'
func.func @backward() {
  func.return
^bb1:
  cf.br ^bb1
^bb1:
  func.return
}

// -----

// Where a block label could stand, the error says what may stand there.
// CHECK: block_labels.mlir:[[# @LINE + 3]]:3: error: expected an operation, a block label (^bb1:) or '}' closing the region
func.func @stray() {
  func.return
  )
}

// -----

// NUMERIC-LABEL: func.func @numeric
// NUMERIC-NEXT:    cf.br ^bb1
// NUMERIC-NEXT:  ^bb1:
// NUMERIC-NEXT:    cf.br ^bb2
// NUMERIC-NEXT:  ^bb2:
// NUMERIC-NEXT:    func.return
// CHECK-NOT: error
func.func @numeric() {
  cf.br ^64
^64:
  cf.br ^0
^0:
  func.return
}
