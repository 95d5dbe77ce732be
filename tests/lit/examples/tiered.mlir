// The example examples/tiered.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/tiered.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/tiered.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @attn_2k(b: index, len: index, X: inout memref<2048x64xf32>) unit(cube) cost(1000)
// CHECK: wsp.kernel @attn_8k(b: index, len: index, X: inout memref<8192x64xf32>) unit(cube) cost(4000)
// CHECK: wsp.kernel @attn_32k(b: index, len: index, X: inout memref<32768x64xf32>) unit(cube) cost(16000)
// CHECK: wsp.workload @tiered(%X: memref<?x32768x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) {
// CHECK: wsp.cond %short {
// CHECK: wsp.task @attn_2k(%b, %len : index, index) resources(%x : memref<2048x64xf32>)
// CHECK: wsp.cond %medium {
// CHECK: wsp.task @attn_8k(%b, %len : index, index) resources(%x_1 : memref<8192x64xf32>)
// CHECK: wsp.task @attn_32k(%b, %len : index, index) resources(%x_2 : memref<32768x64xf32>)
