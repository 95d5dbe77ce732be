// pto-opt reads stdin when given no file or `-`, and names it <stdin> in diagnostics.
// RUN: pto-opt < %S/Inputs/add.mlir | FileCheck %s
// RUN: cat %S/Inputs/add.mlir | pto-opt - | FileCheck %s
// RUN: not pto-opt < %S/Inputs/verify_error.mlir 2>&1 | FileCheck %s --check-prefix=ERROR

// CHECK:      func.func @add(%a: i32, %b: i32) -> i32 {
// CHECK-NEXT:   %sum = arith.addi %a, %b : i32
// CHECK-NEXT:   func.return %sum : i32

// ERROR: <stdin>:2:3: error: 'func.return' op Expected arguments to have the same types as the function output types
