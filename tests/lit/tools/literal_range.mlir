// Integer and float literals that their storage cannot hold, in xDSL's own attributes and
// ops, are parse errors at the literal (they were internal errors: ValueError,
// OverflowError or struct.error from packing them).
// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// ERR-NOT: internal error
// CHECK: literal_range.mlir:[[# @LINE + 4]]:28: error: integer constant out of range for the dense literal's element type
// CHECK-NEXT: %c = arith.constant dense<[1, 18446744073709551616]> : tensor<2xindex>
// CHECK-NEXT: {{^ {27}\^+$}}
func.func @dense_index() -> tensor<2xindex> {
  %c = arith.constant dense<[1, 18446744073709551616]> : tensor<2xindex>
  func.return %c : tensor<2xindex>
}

// -----

// CHECK: literal_range.mlir:[[# @LINE + 2]]:28: error: Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)
func.func @dense_i8() -> tensor<2xi8> {
  %c = arith.constant dense<[1, 300]> : tensor<2xi8>
  func.return %c : tensor<2xi8>
}

// -----

// CHECK: literal_range.mlir:[[# @LINE + 1]]:23: error: floating point value too large for the dense literal's element type
"test.op"() {a = dense<[1.0e39, 1.0]> : tensor<2xf32>} : () -> ()

// -----

// CHECK: literal_range.mlir:[[# @LINE + 1]]:23: error: integer constant out of range for the dense literal's element type
"test.op"() {a = dense<(1, 300)> : tensor<2xcomplex<i8>>} : () -> ()

// -----

// Offsets, sizes and strides of memref.subview (and xDSL's other index lists) are i64.
// CHECK: literal_range.mlir:[[# @LINE + 2]]:26: error: integer constant out of range: 18446744073709551616 does not fit in 64 bits (signed)
func.func @subview(%m: memref<64xf32>) -> memref<4xf32, strided<[1], offset: ?>> {
  %s = memref.subview %m[18446744073709551616] [4] [1] : memref<64xf32> to memref<4xf32, strided<[1], offset: ?>>
  func.return %s : memref<4xf32, strided<[1], offset: ?>>
}

// -----

// CHECK: literal_range.mlir:[[# @LINE + 2]]:30: error: integer constant out of range: -9223372036854775809 does not fit
func.func @subview_size(%m: memref<64xf32>) -> memref<?xf32, strided<[1]>> {
  %s = memref.subview %m[0] [-9223372036854775809] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  func.return %s : memref<?xf32, strided<[1]>>
}

// -----

// In range, they parse.
// CHECK: arith.constant dense<[1, -1]> : tensor<2xi8>
// CHECK: memref.subview %m[2] [4] [1]
func.func @good(%m: memref<64xf32>) -> (tensor<2xi8>, memref<4xf32, strided<[1], offset: 2>>) {
  %c = arith.constant dense<[1, 255]> : tensor<2xi8>
  %s = memref.subview %m[2] [4] [1] : memref<64xf32> to memref<4xf32, strided<[1], offset: 2>>
  func.return %c, %s : tensor<2xi8>, memref<4xf32, strided<[1], offset: 2>>
}
