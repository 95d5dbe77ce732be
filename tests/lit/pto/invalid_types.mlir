// RUN: PTO_PARSING_DIAG

// Parse errors of the tile type and the keyword attributes and ops: a static shape of sizes
// > 0 that fit in 64 bits, the element types, the memory spaces (and their seed aliases),
// the valid shape's rank and bounds, strides and offset, the order of the optional parts,
// pipes, function types, predicates. Each is located at the offending text.

func.func @f(%t: !pto.tile<?x64xf32, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's shape is static (a runtime size goes in its valid shape)
// -----
func.func @f(%t: !pto.tile<0x64xf32, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's shape is one or more sizes > 0, got [0, 64]
// -----
func.func @f(%t: !pto.tile<f32, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's shape is one or more sizes > 0, got []
// -----
func.func @f(%t: !pto.tile<8x8xf64, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's element type is one of f16, bf16, f32, i1, i8, i16, i32, i64, got f64
// -----
func.func @f(%t: !pto.tile<8x8xf32, L2>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:37: error: expected a memory space: one of vec, mat, left, right, acc, bias, UB, L1, L0A, L0B, L0C
// -----
func.func @f(%t: !pto.tile<8x8xf32>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:35: error: Expected ','
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, valid = [8]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: the valid shape has rank 1, the tile 2
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, valid = [9, 8]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: valid shape [9, 8] exceeds the tile's shape [8, 8]
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, strides = [8]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's strides are 2 sizes > 0, got [8]
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, strides = [0, 1]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's strides are 2 sizes > 0, got [0, 1]
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, offset = -1>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's offset is >= 0, got -1
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, offset = 0, valid = [8, 8]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:54: error: expected valid, strides or offset: each at most once, in this order
// -----
func.func @f() attributes {p = #pto.pipe<VEC>}
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:42: error: expected pto.pipe: one of S, V, M, MTE1, MTE2, MTE3, FIX, ALL
// -----
func.func @f() attributes {pto.func_type = #pto.func_type<aicore>}
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:59: error: expected pto.func_type: one of opaque, orchestration, incore
// -----
func.func @f(%a: !pto.tile<8x8xf32, vec>) {
  %m = pto.cmp less %a, %a : !pto.tile<8x8xf32, vec>, !pto.tile<8x8xf32, vec> -> !pto.tile<8x8xi1, vec>
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:16: error: expected a predicate: one of eq, ne, lt, le, gt, ge
  func.return
}
// -----
func.func @f(%a: !pto.tile<8x8xf32, vec>) {
  %m = pto.cmp lt %a : !pto.tile<8x8xf32, vec> -> !pto.tile<8x8xi1, vec>
  func.return
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: pto.cmp takes two operands and their two types
}
// -----
func.func @f() {
  pto.set_flag MTE4 -> V, 0
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:16: error: expected a pipe: one of S, V, M, MTE1, MTE2, MTE3, FIX, ALL
  func.return
}
// -----
func.func @f() {
  pto.barrier
  func.return
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: expected a pipe: one of S, V, M, MTE1, MTE2, MTE3, FIX, ALL
}
// -----
func.func @f(%t: !pto.tile<99999999999999999999x8xf32, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile size does not fit in 64 bits (signed)
// -----
func.func @f(%t: !pto.tile<8x8xf32, vec, valid = [99999999999999999999, 8]>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile size does not fit in 64 bits (signed)
// -----
func.func @f(%t: !pto.tile<8x8xui8, vec>)
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:28: error: a tile's element type is one of f16, bf16, f32, i1, i8, i16, i32, i64, got ui8
