// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// A tile kernel: wsp.kernel names its tile function, an InCore func.func taking the kernel's
// parameters, which every target uses as the kernel's body.

wsp.kernel @scale(x: in memref<16x16xf32>, y: out memref<16x16xf32>, a: f32) unit(vector) attributes {tile = @scale_tile}
func.func @scale_tile(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %a: f32) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16x16xf32> -> !pto.tile<16x16xf32, vec>
  %u = pto.muls %t, %a : !pto.tile<16x16xf32, vec>, f32
  pto.store %u, %y : !pto.tile<16x16xf32, vec>, memref<16x16xf32>
  func.return
}

// CHECK: wsp.kernel @scale(x: in memref<16x16xf32>, y: out memref<16x16xf32>, a: f32) unit(vector) attributes {tile = @scale_tile}
// CHECK: func.func @scale_tile(
