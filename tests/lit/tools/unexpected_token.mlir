// A token the parser takes without checking it first is an error at it, not xDSL's
// AssertionError as an internal error (found by pto-fuzz).
// RUN: not pto-opt %s 2>&1 | FileCheck %s

// CHECK-NOT: internal error
// CHECK: unexpected_token.mlir:[[# @LINE + 1]]:29: error: unexpected 'e'
"test.op"() {a = dense<(1, 1e-400)> : tensor<2xcomplex<i8>>} : () -> ()
