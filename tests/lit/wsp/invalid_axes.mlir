// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the axis types and of the ops that make axes.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// The type's own rule: a static size is >= 0.
func.func @f(%a: !wsp.dense<-2>) {
  func.return
}

// CHECK: error: !wsp.dense size must be >= 0, got -2

// -----
// CHECK: //{{ }}-----

%d = wsp.dense -1

// CHECK: error: !wsp.dense size must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

// The op's rule, reached when the result type is valid but the size property is not.
%d = "wsp.dense"() <{size = -3 : i64}> : () -> !wsp.dense<3>

// CHECK: error: 'wsp.dense' op axis size must be >= 0, got -3

// -----
// CHECK: //{{ }}-----

%d = "wsp.dense"() <{size = 3 : i64}> : () -> !wsp.dense<4>

// CHECK: error: 'wsp.dense' op result type must be !wsp.dense<size>

// -----
// CHECK: //{{ }}-----

%d = "wsp.dense"() <{size = 3 : i64}> : () -> !wsp.dense_dyn

// CHECK: error: 'wsp.dense' op result 'axis' at position 0 does not verify:
// CHECK-NEXT: !wsp.dense_dyn should be of base attribute wsp.dense

// -----
// CHECK: //{{ }}-----

%d = "wsp.dense"() <{size = 3.0 : f32}> : () -> !wsp.dense<3>

// CHECK: error: 'wsp.dense' op 3.000000e+00 : f32 should be of base attribute integer

// -----
// CHECK: //{{ }}-----

%d = "wsp.dense"() : () -> !wsp.dense<3>

// CHECK: error: 'wsp.dense' op property 'size' expected in operation 'wsp.dense'

// -----
// CHECK: //{{ }}-----

func.func @f(%n: i64) {
  %d = "wsp.dense_dyn"(%n) : (i64) -> !wsp.dense_dyn
  func.return
}

// CHECK: error: 'wsp.dense_dyn' op operand 'size' at position 0 does not verify:
// CHECK-NEXT: i64 should be of base attribute index

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index) {
  %d = "wsp.dense_dyn"(%n) : (index) -> !wsp.dense<3>
  func.return
}

// CHECK: error: 'wsp.dense_dyn' op result 'axis' at position 0 does not verify:
// CHECK-NEXT: !wsp.dense<3> should be of base attribute wsp.dense_dyn

// -----
// CHECK: //{{ }}-----

// Ragged lengths: a 1-d memref of integers or index.
func.func @f(%n: index, %l: memref<?xf32>) {
  %r = wsp.ragged %n, %l : memref<?xf32>
  func.return
}

// CHECK: error: 'wsp.ragged' op lengths must be a 1-d memref of integers or index, got memref<?xf32>

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %l: memref<4x4xi64>) {
  %r = wsp.ragged %n, %l : memref<4x4xi64>
  func.return
}

// CHECK: error: 'wsp.ragged' op lengths must be a 1-d memref of integers or index, got memref<4x4xi64>

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %l: memref<i64>) {
  %r = wsp.ragged %n, %l : memref<i64>
  func.return
}

// CHECK: error: 'wsp.ragged' op lengths must be a 1-d memref of integers or index, got memref<i64>

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %l: tensor<?xi64>) {
  %r = wsp.ragged %n, %l : tensor<?xi64>
  func.return
}

// CHECK: error: tensor<?xi64> should be of base attribute memref

// -----
// CHECK: //{{ }}-----

func.func @f(%n: i64, %l: memref<?xi64>) {
  %r = "wsp.ragged"(%n, %l) : (i64, memref<?xi64>) -> !wsp.ragged
  func.return
}

// CHECK: error: 'wsp.ragged' op operand 'outer' at position 0 does not verify:
// CHECK-NEXT: i64 should be of base attribute index

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %l: memref<?xi64>) {
  %r = "wsp.ragged"(%n, %l) : (index, memref<?xi64>) -> !wsp.sparse
  func.return
}

// CHECK: error: 'wsp.ragged' op result 'axis' at position 0 does not verify:
// CHECK-NEXT: !wsp.sparse should be of base attribute wsp.ragged

// -----
// CHECK: //{{ }}-----

// Sparse (CSR) indptr and indices: 1-d memrefs of integers or index.
func.func @f(%n: index, %p: memref<?x2xindex>, %i: memref<?xindex>) {
  %s = wsp.sparse %n, %p, %i : memref<?x2xindex>, memref<?xindex>
  func.return
}

// CHECK: error: 'wsp.sparse' op indptr must be a 1-d memref of integers or index, got memref<?x2xindex>

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %p: memref<?xindex>, %i: memref<?xf16>) {
  %s = wsp.sparse %n, %p, %i : memref<?xindex>, memref<?xf16>
  func.return
}

// CHECK: error: 'wsp.sparse' op indices must be a 1-d memref of integers or index, got memref<?xf16>

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %p: memref<?xindex>, %i: memref<?xindex>) {
  %s = "wsp.sparse"(%n, %p, %i) : (index, memref<?xindex>, memref<?xindex>) -> !wsp.ragged
  func.return
}

// CHECK: error: 'wsp.sparse' op result 'axis' at position 0 does not verify:
// CHECK-NEXT: !wsp.ragged should be of base attribute wsp.sparse
