// RUN: PTO_VERIFY_DIAG

// Shape rules: elementwise operands agree, reductions R x C -> R x 1 / 1 x C, broadcasts
// from R x 1 / 1 x C, matmul M x K times K x N -> M x N (and its accumulator and 1 x N bias),
// transpose, moves and casts keep the shape, masks match, views fit.

// Elementwise operands and result share one type (the custom syntax cannot say otherwise;
// the generic form can).
func.func @f(%a: !pto.tile<16x64xf32, vec>, %b: !pto.tile<16x32xf32, vec>) {
  %c = "pto.add"(%a, %b) : (!pto.tile<16x64xf32, vec>, !pto.tile<16x32xf32, vec>) -> !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.add' op operand 'rhs' at position 1 does not verify:
  func.return
}
// -----
// A row reduction gives R x 1 ...
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.row_sum %a : !pto.tile<16x64xf32, vec> -> !pto.tile<1x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_sum' op pto.row_sum of !pto.tile<16x64xf32, vec> gives !pto.tile<16x1xf32, vec>
  func.return
}
// -----
// ... a column reduction 1 x C ...
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.col_max %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x1xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.col_max' op pto.col_max of !pto.tile<16x64xf32, vec> gives !pto.tile<1x64xf32, vec>
  func.return
}
// -----
// ... of a 2-d tile.
func.func @f(%a: !pto.tile<64xf32, vec>) {
  %c = pto.row_min %a : !pto.tile<64xf32, vec> -> !pto.tile<1xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_min' op the operand must be a 2-d tile, got [64]
  func.return
}
// -----
// A row broadcast takes R x 1 ...
func.func @f(%a: !pto.tile<16x64xf32, vec>, %r: !pto.tile<8x1xf32, vec>) {
  %c = pto.row_expand_sub %a, %r : !pto.tile<16x64xf32, vec>, !pto.tile<8x1xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_expand_sub' op pto.row_expand_sub over !pto.tile<16x64xf32, vec> takes !pto.tile<16x1xf32, vec>, got !pto.tile<8x1xf32, vec>
  func.return
}
// -----
func.func @f(%r: !pto.tile<1x64xf32, vec>) {
  %c = pto.row_expand %r : !pto.tile<1x64xf32, vec> -> !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.row_expand' op pto.row_expand over !pto.tile<16x64xf32, vec> takes !pto.tile<16x1xf32, vec>, got !pto.tile<1x64xf32, vec>
  func.return
}
// -----
// ... a column broadcast 1 x C.
func.func @f(%a: !pto.tile<16x64xf32, vec>, %r: !pto.tile<16x1xf32, vec>) {
  %c = pto.col_expand_exp_sub %a, %r : !pto.tile<16x64xf32, vec>, !pto.tile<16x1xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.col_expand_exp_sub' op pto.col_expand_exp_sub over !pto.tile<16x64xf32, vec> takes !pto.tile<1x64xf32, vec>, got !pto.tile<16x1xf32, vec>
  func.return
}
// -----
// Matmul: M x K times K x N ...
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<16x64xf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<16x64xf16, right> -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op matmul shapes: 16x32 times 16x64: K differs
  func.return
}
// -----
// ... gives M x N ...
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<64x16xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op matmul shapes: 16x32 times 32x64 gives 16x64, got [64, 16]
  func.return
}
// -----
// ... into the accumulator it adds to ...
func.func @f(%acc: !pto.tile<16x32xf32, acc>, %a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>) {
  %c = "pto.matmul_acc"(%acc, %a, %b) : (!pto.tile<16x32xf32, acc>, !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>) -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul_acc' op result 'result' at position 0 does not verify:
  func.return
}
// -----
// ... plus a 1 x N bias.
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>, %bias: !pto.tile<16x64xf32, bias>) {
  %c = pto.matmul_bias %a, %b, %bias : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>, !pto.tile<16x64xf32, bias> -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul_bias' op the bias is 1x64xf32, got [16, 64] of f32
  func.return
}
// -----
// A transpose of R x C is C x R.
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.transpose %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.transpose' op the transpose of !pto.tile<16x64xf32, vec> is !pto.tile<64x16xf32, vec>, not !pto.tile<16x64xf32, vec>
  func.return
}
// -----
// A move and a cast keep the shape.
func.func @f(%a: !pto.tile<16x64xf32, acc>) {
  %c = pto.move %a : !pto.tile<16x64xf32, acc> -> !pto.tile<16x32xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.move' op a move keeps the shape and element type
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.cast %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x32xf16, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cast' op a cast keeps the shape, space and view: only the element type changes
  func.return
}
// -----
// A compare gives a mask of its operands' shape; select takes one.
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.cmp lt %a, %a : !pto.tile<16x64xf32, vec>, !pto.tile<16x64xf32, vec> -> !pto.tile<16x32xi1, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cmp' op pto.cmp gives an i1 mask of its operands' shape: !pto.tile<16x64xi1, vec>
  func.return
}
// -----
func.func @f(%m: !pto.tile<16x32xi1, vec>, %a: !pto.tile<16x64xf32, vec>) {
  %c = pto.sel %m, %a, %a : !pto.tile<16x32xi1, vec>, !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.sel' op the mask is an i1 tile of the operands' shape: !pto.tile<16x64xi1, vec>
  func.return
}
// -----
// Loads and stores: 0 offsets or one per dimension of the view, a tile no wider than the
// view's rank.
func.func @f(%x: memref<4x64x64xf32>, %i: index) {
  %a = pto.load %x[%i] : memref<4x64x64xf32> -> !pto.tile<64x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op load: 1 offsets for a view of rank 3
  func.return
}
// -----
func.func @f(%x: memref<64xf32>, %t: !pto.tile<8x8xf32, vec>) {
  pto.store %t, %x : !pto.tile<8x8xf32, vec>, memref<64xf32>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.store' op store: a tile of rank 2 in a view of rank 1
  func.return
}
