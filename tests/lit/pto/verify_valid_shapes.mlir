// RUN: PTO_VERIFY_DIAG

// Valid-shape rules: the dynamic sizes an op is given, views that hold the valid region,
// valid shapes carried through reductions, transposes and fillpad. (A valid shape larger
// than the tile is a type error: invalid_types.mlir.)

// One index operand per '?' of the valid shape of the tile an op makes: load ...
func.func @f(%x: memref<?x64xf32>, %n: index) {
  %a = pto.load %x : memref<?x64xf32> -> !pto.tile<64x64xf32, vec, valid = [?, 64]>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op 0 valid-shape operands for 1 '?' in the valid shape of !pto.tile<64x64xf32, vec, valid = [?, 64]>
  func.return
}
// -----
func.func @f(%x: memref<?x64xf32>, %n: index) {
  %a = pto.load %x valid(%n, %n) : memref<?x64xf32> -> !pto.tile<64x64xf32, vec, valid = [?, 64]>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op 2 valid-shape operands for 1 '?' in the valid shape of !pto.tile<64x64xf32, vec, valid = [?, 64]>
  func.return
}
// -----
// ... alloc ...
func.func @f(%n: index) {
  %a = pto.alloc valid(%n) : !pto.tile<64x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.alloc' op 1 valid-shape operands for 0 '?' in the valid shape of !pto.tile<64x64xf32, vec>
  func.return
}
// -----
// ... full.
func.func @f(%n: index, %s: f32) {
  %a = pto.full %s : f32 -> !pto.tile<64x64xf32, vec, valid = [?, ?]>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.full' op 0 valid-shape operands for 2 '?' in the valid shape of !pto.tile<64x64xf32, vec, valid = [?, ?]>
  func.return
}
// -----
// A static valid shape fits the view it is loaded from or stored to.
func.func @f(%x: memref<32x64xf32>) {
  %a = pto.load %x : memref<32x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op load: the tile's valid shape [64, 64] exceeds the view memref<32x64xf32>
  func.return
}
// -----
func.func @f(%x: memref<32x64xf32>, %t: !pto.tile<64x64xf32, vec, valid = [48, 64]>) {
  pto.store %t, %x : !pto.tile<64x64xf32, vec, valid = [48, 64]>, memref<32x64xf32>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.store' op store: the tile's valid shape [48, 64] exceeds the view memref<32x64xf32>
  func.return
}
// -----
// Results keep the valid rows of a row reduction, the valid columns of a transpose.
func.func @f(%a: !pto.tile<16x64xf32, vec, valid = [?, 64]>) {
  %c = pto.row_sum %a : !pto.tile<16x64xf32, vec, valid = [?, 64]> -> !pto.tile<16x1xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_sum' op pto.row_sum of !pto.tile<16x64xf32, vec, valid = [?, 64]> gives !pto.tile<16x1xf32, vec, valid = [?, 1]>
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x64xf32, vec, valid = [8, 64]>) {
  %c = pto.transpose %a : !pto.tile<16x64xf32, vec, valid = [8, 64]> -> !pto.tile<64x16xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.transpose' op the transpose of !pto.tile<16x64xf32, vec, valid = [8, 64]> is !pto.tile<64x16xf32, vec, valid = [64, 8]>, not !pto.tile<64x16xf32, vec>
  func.return
}
// -----
// fillpad makes the whole tile valid.
func.func @f(%a: !pto.tile<16x64xf32, vec, valid = [8, 64]>, %s: f32) {
  %c = pto.fillpad %a, %s : !pto.tile<16x64xf32, vec, valid = [8, 64]>, f32 -> !pto.tile<16x64xf32, vec, valid = [8, 64]>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.fillpad' op pto.fillpad gives !pto.tile<16x64xf32, vec>, not !pto.tile<16x64xf32, vec, valid = [8, 64]>
  func.return
}
