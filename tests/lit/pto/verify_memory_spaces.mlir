// RUN: PTO_VERIFY_DIAG

// The memory-space rules (docs/kernels.md "Memory spaces"; sources: pto-isa TLOAD, TSTORE,
// TMOV, TMATMUL and PyPTO's tile.move): loads land in vec or mat, stores leave vec, mat or
// acc, moves follow vec->vec, mat->left/right/bias, acc->mat/vec, vector ops compute in
// vec, matmul reads left and right, writes acc, adds a bias from bias.

// A load lands in vec or mat.
func.func @f(%x: memref<64x64xf32>) {
  %a = pto.load %x : memref<64x64xf32> -> !pto.tile<64x64xf32, left>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op a loaded tile must be in vec or mat, got a tile in left
  func.return
}
// -----
// A store reads vec, mat or acc.
func.func @f(%x: memref<64x64xf32>, %t: !pto.tile<64x64xf32, right>) {
  pto.store %t, %x : !pto.tile<64x64xf32, right>, memref<64x64xf32>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.store' op a stored tile must be in vec, mat or acc, got a tile in right
  func.return
}
// -----
// Moves follow the hardware's paths: not vec -> mat ...
func.func @f(%t: !pto.tile<64x64xf32, vec>) {
  %m = pto.move %t : !pto.tile<64x64xf32, vec> -> !pto.tile<64x64xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.move' op no move from vec to mat (legal: vec -> vec, mat -> left, mat -> right, mat -> bias, acc -> mat, acc -> vec)
  func.return
}
// -----
// ... nor out of left.
func.func @f(%t: !pto.tile<64x64xf32, left>) {
  %m = pto.move %t : !pto.tile<64x64xf32, left> -> !pto.tile<64x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.move' op no move from left to vec (legal: vec -> vec, mat -> left, mat -> right, mat -> bias, acc -> mat, acc -> vec)
  func.return
}
// -----
// Elementwise ops compute in vec.
func.func @f(%t: !pto.tile<64x64xf32, mat>) {
  %m = pto.add %t, %t : !pto.tile<64x64xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.add' op the operands must be in vec, got a tile in mat
  func.return
}
// -----
func.func @f(%t: !pto.tile<64x64xf32, acc>, %s: f32) {
  %m = pto.muls %t, %s : !pto.tile<64x64xf32, acc>, f32
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.muls' op the operands must be in vec, got a tile in acc
  func.return
}
// -----
func.func @f(%t: !pto.tile<64x64xf32, mat>) {
  %m = pto.exp %t : !pto.tile<64x64xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.exp' op the operands must be in vec, got a tile in mat
  func.return
}
// -----
// pto.full fills a vec tile.
func.func @f(%s: f32) {
  %m = pto.full %s : f32 -> !pto.tile<64x64xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.full' op the tile must be in vec, got a tile in mat
  func.return
}
// -----
// Reductions and expands are vector ops.
func.func @f(%t: !pto.tile<64x64xf32, mat>) {
  %m = pto.row_sum %t : !pto.tile<64x64xf32, mat> -> !pto.tile<64x1xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_sum' op the tile must be in vec, got a tile in mat
  func.return
}
// -----
func.func @f(%t: !pto.tile<64x64xf32, mat>, %r: !pto.tile<64x1xf32, mat>) {
  %m = pto.row_expand_sub %t, %r : !pto.tile<64x64xf32, mat>, !pto.tile<64x1xf32, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_expand_sub' op the tiles must be in vec, got a tile in mat
  func.return
}
// -----
// A matmul reads left and right ...
func.func @f(%a: !pto.tile<16x32xf16, mat>, %b: !pto.tile<32x16xf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, mat>, !pto.tile<32x16xf16, right> -> !pto.tile<16x16xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op a matmul's left operand must be in left, got a tile in mat
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x16xf16, left>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x16xf16, left> -> !pto.tile<16x16xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op a matmul's right operand must be in right, got a tile in left
  func.return
}
// -----
// ... writes acc ...
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x16xf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x16xf16, right> -> !pto.tile<16x16xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op a matmul's result must be in acc, got a tile in vec
  func.return
}
// -----
// ... and takes its bias from bias.
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x16xf16, right>, %bias: !pto.tile<1x16xf32, vec>) {
  %c = pto.matmul_bias %a, %b, %bias : !pto.tile<16x32xf16, left>, !pto.tile<32x16xf16, right>, !pto.tile<1x16xf32, vec> -> !pto.tile<16x16xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul_bias' op a matmul's bias must be in bias, got a tile in vec
  func.return
}
// -----
// Transposes and casts are vector ops.
func.func @f(%t: !pto.tile<16x32xf32, mat>) {
  %m = pto.transpose %t : !pto.tile<16x32xf32, mat> -> !pto.tile<32x16xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.transpose' op the tiles must be in vec, got a tile in mat
  func.return
}
// -----
func.func @f(%t: !pto.tile<16x32xf32, mat>) {
  %m = pto.cast %t : !pto.tile<16x32xf32, mat> -> !pto.tile<16x32xf16, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cast' op the tiles must be in vec, got a tile in mat
  func.return
}
// -----
func.func @f(%t: !pto.tile<16x32xf32, mat>) {
  %m = pto.cmp lt %t, %t : !pto.tile<16x32xf32, mat>, !pto.tile<16x32xf32, mat> -> !pto.tile<16x32xi1, mat>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cmp' op the operands must be in vec, got a tile in mat
  func.return
}
