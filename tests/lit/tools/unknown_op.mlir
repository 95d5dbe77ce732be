// An op its dialect does not define is an error at the op's name.
// RUN: not pto-opt %s 2>&1 | FileCheck %s

// CHECK-NOT: Traceback
// CHECK:      unknown_op.mlir:[[# @LINE + 5]]:8: error: Operation arith.frobnicate is not registered
// CHECK-NEXT: %x = arith.frobnicate : i32
// CHECK-NEXT: {{^       \^{16}$}}
// CHECK-NOT: Traceback
func.func @f() {
  %x = arith.frobnicate : i32
  func.return
}
