// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of wsp.view. Custom-syntax parse errors are in invalid_parse.mlir.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i, 0:8, 0] : memref<4x64xf32> -> memref<8xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view has 3 entries but the tensor has rank 2

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<f32>) {
  %v = wsp.view %Q[0] : memref<f32> -> memref<f32>
  func.return
}

// CHECK: error: 'wsp.view' op view has 1 entries but the tensor has rank 0

// -----
// CHECK: //{{ }}-----

// Out of bounds: a static slice, an index, a runtime-size slice with a static offset, and a
// static size behind a runtime offset (which is >= 0).
func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i, 0:65] : memref<4x64xf32> -> memref<65xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 1 reaches 65, beyond dimension size 64

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[4] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 0 reaches 5, beyond dimension size 4

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %n: index) {
  %v = wsp.view %Q[5:+%n] : memref<4x64xf32> -> memref<?x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 0 reaches 5, beyond dimension size 4

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: index, %o: index) {
  %v = wsp.view %Q[%i, %o:+100] : memref<4x64xf32> -> memref<100xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 1 reaches 100, beyond dimension size 64

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<0x64xf32>, %i: index) {
  %v = wsp.view %Q[%i] : memref<0x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 0 reaches 1, beyond dimension size 0

// -----
// CHECK: //{{ }}-----

// The result type is computed from the source type and the entries.
func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i, 0:32] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view result type must be memref<32xf32>, got memref<64xf32>

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %o: index, %n: index) {
  %v = wsp.view %Q[1, %o:+%n] : memref<4x64xf32> -> memref<16xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view result type must be memref<?xf32>, got memref<16xf32>

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i] : memref<4x64xf32> -> memref<64xf16>
  func.return
}

// CHECK: error: 'wsp.view' op view result type must be memref<64xf32>, got memref<64xf16>

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[] : memref<4x64xf32> -> memref<4x64xf32, strided<[64, 1]>>
  func.return
}

// CHECK: error: 'wsp.view' op view result type must be memref<4x64xf32>, got memref<4x64xf32, strided<[64, 1]>>

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = "wsp.view"(%Q, %i) <{static_offsets = array<i64: -2>, static_sizes = array<i64: -1>}> : (memref<4x64xf32>, index) -> tensor<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op result 'result' at position 0 does not verify:
// CHECK-NEXT: tensor<64xf32> should be of base attribute memref

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: tensor<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i] : tensor<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op operand 'source' at position 0 does not verify:
// CHECK-NEXT: tensor<4x64xf32> should be of base attribute memref

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: i64) {
  %v = "wsp.view"(%Q, %i) <{static_offsets = array<i64: -2>, static_sizes = array<i64: -1>}> : (memref<4x64xf32>, i64) -> memref<64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op operand 'dynamic' at position 1 does not verify:
// CHECK-NEXT: i64 should be of base attribute index

// -----
// CHECK: //{{ }}-----

// The generic form can break what the custom syntax cannot.
func.func @f(%Q: memref<4x64xf32>) {
  %v = "wsp.view"(%Q) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1>}> : (memref<4x64xf32>) -> memref<1x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op static_offsets and static_sizes must have equal length

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %o: index) {
  %v = "wsp.view"(%Q, %o) <{static_offsets = array<i64: -2>, static_sizes = array<i64: -2>}> : (memref<4x64xf32>, index) -> memref<?x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op expected 2 dynamic operands, got 1

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = "wsp.view"(%Q, %i) <{static_offsets = array<i64: 0>, static_sizes = array<i64: 1>}> : (memref<4x64xf32>, index) -> memref<1x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op expected 0 dynamic operands, got 1

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = "wsp.view"(%Q) <{static_offsets = array<i64: -5>, static_sizes = array<i64: 1>}> : (memref<4x64xf32>) -> memref<1x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 0: offset -5 is negative

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = "wsp.view"(%Q) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, -3>}> : (memref<4x64xf32>) -> memref<1x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op view entry 1: size -3 is negative

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = "wsp.view"(%Q) <{static_sizes = array<i64>}> : (memref<4x64xf32>) -> memref<4x64xf32>
  func.return
}

// CHECK: error: 'wsp.view' op property 'static_offsets' expected in operation 'wsp.view'
