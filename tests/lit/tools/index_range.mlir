// An index literal must fit in 64 bits, as mlir-opt reads it: -2^63 up to 2^64 - 1 (the
// latter a bit pattern: -1). Beyond, an error at the literal, in generic form too.
// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: error: integer constant out of range for attribute: 99999999999999999999 does not fit in an index (64 bits)
// CHECK-NEXT: %c = arith.constant 99999999999999999999 : index
// CHECK-NEXT: {{^ {22}\^{20}$}}
// ERR-NOT: Traceback
// ERR: index_range.mlir:[[# @LINE + 2]]:23: error: integer constant out of range
func.func @big() -> index {
  %c = arith.constant 99999999999999999999 : index
  func.return %c : index
}

// -----

// CHECK: error: integer constant out of range for attribute: -9223372036854775809 does not fit in an index (64 bits)
func.func @small() -> index {
  %c = arith.constant -9223372036854775809 : index
  func.return %c : index
}

// -----

// CHECK: error: integer constant out of range for attribute: 18446744073709551616 does not fit
func.func @generic() -> index {
  %c = "arith.constant"() {value = 18446744073709551616 : index} : () -> index
  func.return %c : index
}

// -----

// The extremes parse.
// CHECK: func.func @edges
// CHECK-NEXT: arith.constant -9223372036854775808 : index
// CHECK-NEXT: arith.constant 18446744073709551615 : index
// ERR-NOT: error: {{.*}}@edges
func.func @edges() -> (index, index) {
  %a = arith.constant -9223372036854775808 : index
  %b = arith.constant 18446744073709551615 : index
  func.return %a, %b : index, index
}
