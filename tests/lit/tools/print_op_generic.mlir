// Custom -> generic -> custom round trip of builtin, arith and func IR.
// RUN: PTO_ROUNDTRIP
// RUN: PTO_GENERIC_ROUNDTRIP
// RUN: pto-opt %s --print-op-generic | pto-opt --print-op-generic | FileCheck %s --check-prefix=CHECK-GENERIC

func.func @select(%c: i1, %a: i32, %b: i32) -> i32 {
  %one = arith.constant 1 : i32
  %sum = arith.addi %a, %one : i32
  %r = arith.select %c, %sum, %b : i32
  func.return %r : i32
}

// CHECK:      func.func @select(%c: i1, %a: i32, %b: i32) -> i32 {
// CHECK-NEXT:   %one = arith.constant 1 : i32
// CHECK-NEXT:   %sum = arith.addi %a, %one : i32
// CHECK-NEXT:   %r = arith.select %c, %sum, %b : i32
// CHECK-NEXT:   func.return %r : i32

// CHECK-GENERIC:      "func.func"() <{sym_name = "select", function_type = (i1, i32, i32) -> i32}> ({
// CHECK-GENERIC-NEXT: ^bb0(%c: i1, %a: i32, %b: i32):
// CHECK-GENERIC-NEXT:   %one = "arith.constant"() <{value = 1 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:   %sum = "arith.addi"(%a, %one) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:   %r = "arith.select"(%c, %sum, %b) : (i1, i32, i32) -> i32
// CHECK-GENERIC-NEXT:   "func.return"(%r) : (i32) -> ()
