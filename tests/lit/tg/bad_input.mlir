// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// Malformed task graphs that once ended in a Python exception: each is an error at its place.
// EXIT-NOT: internal error
// EXIT-NOT: Traceback

wsp.kernel @k(i: index, x: inout memref<8xf32>) unit(vector)
// A node's region is an array of 64-bit integers, as are its arguments.
tg.graph @g(%X: memref<8xf32>) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:40: error: integer constant out of range: 99999999999999999999 does not fit in 64 bits (signed)
  tg.node 0 task @k args(0) regions(%X[99999999999999999999][8][1] inout) fanin(0) fanout()
}

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index, x: inout memref<8xf32>) unit(vector)
tg.graph @g(%X: memref<8xf32>) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:36: error: integer constant out of range: -9223372036854775809 does not fit
  tg.node 0 task @k args(0) fanout(-9223372036854775809)
}

// -----
// CHECK: //{{ }}-----

// A program body is one block (its control flow is scf's).
// CHECK: bad_input.mlir:[[# @LINE + 1]]:26: error: this region takes a single block, got 2 (no ^bb labels)
tg.program @p(%n: index) {
  %c0 = arith.constant 0 : index
^bb1:
}
