// The example examples/transformer_layer.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/transformer_layer.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @rms_norm_kernel(b: index, x: in memref<512xf32>, y: out memref<512xf32>) unit(vector) cost(64)
// CHECK: wsp.kernel @attn_tile(b: index, h: index, x: in memref<512xf32>, y: out memref<64xf32>) unit(cube) cost(512)
// CHECK: wsp.kernel @add_kernel(b: index, x: in memref<512xf32>, r: in memref<8x64xf32>, y: out memref<512xf32>) unit(vector) cost(32)
// CHECK: wsp.kernel @ffn_kernel(b: index, x: in memref<512xf32>, y: out memref<512xf32>) unit(cube) cost(2048)
// CHECK: wsp.workload @rms_norm(%x: memref<?x512xf32>, %x_norm: memref<?x512xf32>, %n: index) {
// CHECK: wsp.task @rms_norm_kernel(%b : index) resources(%i, %o : memref<512xf32>, memref<512xf32>)
// CHECK: wsp.workload @attn_incore(%b: index, %h: index, %x: memref<?x512xf32>, %attn: memref<?x8x64xf32>) level(npu) {
// CHECK: wsp.task @attn_tile(%b, %h : index, index) resources(%i, %o : memref<512xf32>, memref<64xf32>)
// CHECK: wsp.workload @attention(%x_norm: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %n: index) {
// CHECK: wsp.call @attn_incore(%b, %h, %x_norm, %attn : index, index, memref<?x512xf32>, memref<?x8x64xf32>)
// CHECK: wsp.workload @residual_add(%x: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %h_out: memref<?x512xf32>, %n: index) {
// CHECK: wsp.task @add_kernel(%b : index) resources(%i, %r, %o : memref<512xf32>, memref<8x64xf32>, memref<512xf32>)
// CHECK: wsp.workload @ffn(%h_in: memref<?x512xf32>, %y: memref<?x512xf32>, %n: index) {
// CHECK: wsp.task @ffn_kernel(%b : index) resources(%i, %o : memref<512xf32>, memref<512xf32>)
// CHECK: wsp.workload @transformer_layer(%x: memref<?x512xf32>, %x_norm: memref<?x512xf32>, %attn: memref<?x8x64xf32>, %h: memref<?x512xf32>, %y: memref<?x512xf32>, %n: index) {
// CHECK: wsp.combine {
// CHECK: wsp.call @rms_norm(%x, %x_norm, %n : memref<?x512xf32>, memref<?x512xf32>, index)
// CHECK: wsp.call @attention(%x_norm, %attn, %n : memref<?x512xf32>, memref<?x8x64xf32>, index)
// CHECK: wsp.call @residual_add(%x, %attn, %h, %n : memref<?x512xf32>, memref<?x8x64xf32>, memref<?x512xf32>, index)
// CHECK: wsp.call @ffn(%h, %y, %n : memref<?x512xf32>, memref<?x512xf32>, index)
