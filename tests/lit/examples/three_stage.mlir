// The example examples/three_stage.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/three_stage.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/three_stage.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @load_kernel(b: index, src: in memref<256xf32>, dst: out memref<256xf32>) unit(vector) cost(50)
// CHECK: wsp.kernel @compute_kernel(b: index, x: inout memref<256xf32>) unit(vector) cost(200)
// CHECK: wsp.kernel @store_kernel(b: index, src: in memref<256xf32>, dst: out memref<256xf32>) unit(vector) cost(50)
// CHECK: wsp.workload @three_stage(%input: memref<?x256xf32>, %work: memref<?x256xf32>, %output: memref<?x256xf32>, %batch_size: index) {
// CHECK: wsp.sequential {
// CHECK: wsp.task @load_kernel(%b : index) resources(%s, %d : memref<256xf32>, memref<256xf32>)
// CHECK: wsp.task @compute_kernel(%b_1 : index) resources(%x : memref<256xf32>)
// CHECK: wsp.task @store_kernel(%b_2 : index) resources(%s_1, %d_1 : memref<256xf32>, memref<256xf32>)
