// RUN: PTO_VERIFY_DIAG

// Element-type rules: matmul input/accumulator combinations (pto-isa TMATMUL), the bias,
// casts, float-only math, no arithmetic on masks, scalar operands, loads/stores/moves.

// Matmul element types: f16 x f16, bf16 x bf16 and f32 x f32 accumulate in f32, i8 x i8 in
// i32 ...
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf32, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf32, right> -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op matmul element types f16xf32->f32 are not one of f16xf16->f32, bf16xbf16->f32, f32xf32->f32, i8xi8->i32
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right> -> !pto.tile<16x64xf16, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op matmul element types f16xf16->f16 are not one of f16xf16->f32, bf16xbf16->f32, f32xf32->f32, i8xi8->i32
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x32xi8, left>, %b: !pto.tile<32x64xi8, right>) {
  %c = pto.matmul %a, %b : !pto.tile<16x32xi8, left>, !pto.tile<32x64xi8, right> -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul' op matmul element types i8xi8->f32 are not one of f16xf16->f32, bf16xbf16->f32, f32xf32->f32, i8xi8->i32
  func.return
}
// -----
// ... and the bias has the accumulator's element type.
func.func @f(%a: !pto.tile<16x32xf16, left>, %b: !pto.tile<32x64xf16, right>, %bias: !pto.tile<1x64xf16, bias>) {
  %c = pto.matmul_bias %a, %b, %bias : !pto.tile<16x32xf16, left>, !pto.tile<32x64xf16, right>, !pto.tile<1x64xf16, bias> -> !pto.tile<16x64xf32, acc>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.matmul_bias' op the bias is 1x64xf32, got [1, 64] of f16
  func.return
}
// -----
// A cast converts numbers, never to or from i1 masks.
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.cast %a : !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xi1, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cast' op a cast converts numbers: i1 masks come from pto.cmp
  func.return
}
// -----
// exp, log, sqrt, rsqrt and recip compute on floats ...
func.func @f(%a: !pto.tile<16x64xi32, vec>) {
  %c = pto.exp %a : !pto.tile<16x64xi32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.exp' op pto.exp computes on floats, not i32
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x64xi32, vec>) {
  %c = pto.rsqrt %a : !pto.tile<16x64xi32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.rsqrt' op pto.rsqrt computes on floats, not i32
  func.return
}
// -----
// ... and no arithmetic on i1 masks.
func.func @f(%a: !pto.tile<16x64xi1, vec>) {
  %c = pto.add %a, %a : !pto.tile<16x64xi1, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.add' op pto.add computes on numbers, not i1
  func.return
}
// -----
// A scalar operand has the tile's element type.
func.func @f(%a: !pto.tile<16x64xf32, vec>, %s: f16) {
  %c = pto.adds %a, %s : !pto.tile<16x64xf32, vec>, f16
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.adds' op the scalar is f16, the tile holds f32
  func.return
}
// -----
func.func @f(%s: i32) {
  %c = pto.full %s : i32 -> !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.full' op the scalar is i32, the tile holds f32
  func.return
}
// -----
func.func @f(%a: !pto.tile<16x64xf32, vec>, %s: i32) {
  %c = pto.cmps gt %a, %s : !pto.tile<16x64xf32, vec>, i32 -> !pto.tile<16x64xi1, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cmps' op the scalar is i32, the tile holds f32
  func.return
}
// -----
// Loads, stores and moves keep the element type.
func.func @f(%x: memref<16x64xf16>) {
  %a = pto.load %x : memref<16x64xf16> -> !pto.tile<16x64xf32, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.load' op load: the view holds f16, the tile f32
  func.return
}
// -----
func.func @f(%x: memref<16x64xf16>, %t: !pto.tile<16x64xf32, acc>) {
  pto.store %t, %x : !pto.tile<16x64xf32, acc>, memref<16x64xf16>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.store' op store: the view holds f16, the tile f32
  func.return
}
// -----
func.func @f(%t: !pto.tile<16x64xf32, acc>) {
  %c = pto.move %t : !pto.tile<16x64xf32, acc> -> !pto.tile<16x64xf16, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.move' op a move keeps the shape and element type
  func.return
}
// -----
// A compare gives i1.
func.func @f(%a: !pto.tile<16x64xf32, vec>) {
  %c = pto.cmp ne %a, %a : !pto.tile<16x64xf32, vec>, !pto.tile<16x64xf32, vec> -> !pto.tile<16x64xi8, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.cmp' op pto.cmp gives an i1 mask of its operands' shape: !pto.tile<16x64xi1, vec>
  func.return
}
