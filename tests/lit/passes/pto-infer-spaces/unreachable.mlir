// RUN: pto-opt %s --disable-verify -p pto-infer-spaces --verify-diagnostics | filecheck %s

// A matmul operand computed in vec has no path to the cube unit (no vec -> mat move).
func.func @f(%a: memref<16x16xf32>, %c: memref<16x16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %x = pto.load %a : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %e = pto.exp %x : !pto.tile<16x16xf32, vec>
  %z = pto.matmul %e, %x : !pto.tile<16x16xf32, vec>, !pto.tile<16x16xf32, vec> -> !pto.tile<16x16xf32, acc>
  pto.store %z, %c : !pto.tile<16x16xf32, acc>, memref<16x16xf32>
  func.return
}

// CHECK: pto-infer-spaces: a matmul operand computed in vec cannot reach the cube unit (no vec -> mat move): store it and load it again
