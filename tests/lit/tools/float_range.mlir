// A float literal its type cannot hold is an error at the literal, as mlir-opt reads it
// (xDSL's FloatAttr raised struct's OverflowError: an internal error).
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK-NOT: internal error
// CHECK: float_range.mlir:[[# @LINE + 2]]:23: error: floating point value too large for attribute
func.func @f16() -> f16 {
  %c = arith.constant 1.0e9 : f16
  func.return %c : f16
}

// -----

// CHECK: float_range.mlir:[[# @LINE + 2]]:23: error: floating point value too large for attribute
func.func @f32() -> f32 {
  %c = arith.constant 1.0e300 : f32
  func.return %c : f32
}
