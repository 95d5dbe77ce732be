// A verifier failure is reported at the op's file:line:col, with the source line, a caret
// under the op's name and the op printed. --verify-diagnostics prints it on stdout and
// exits 0, so that lit tests can check verifier rules.
// RUN: not pto-opt %s 2>&1 | FileCheck %s
// RUN: pto-opt %s --verify-diagnostics | FileCheck %s

func.func @mismatched(%a: i32, %b: i64) -> i32 {
  %sum = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %sum : i32
}

// CHECK-NOT: Traceback
// CHECK:      verify_error.mlir:8:10: error: 'arith.addi' op operand 'rhs' at position 1 does not verify:
// CHECK-NEXT: attribute i32 expected from variable 'T', but got i64
// CHECK-NEXT: %sum = "arith.addi"(%a, %b) : (i32, i64) -> i32
// CHECK-NEXT: {{^         \^$}}
// CHECK-NEXT: verify_error.mlir:8:10: note: see current operation: %sum = "arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<none>}> : (i32, i64) -> i32
// CHECK-NOT: Traceback
