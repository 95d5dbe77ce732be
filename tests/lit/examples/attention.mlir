// The example examples/attention.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/attention.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/attention.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @attention_kernel(b: index, h: index, seq_len: index, Q: in memref<64x64xf32>, K: in memref<?x64xf32>, V: in memref<?x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(4096)
// CHECK: wsp.workload @attention(%Q: memref<?x8x64x64xf32>, %K: memref<?x32768x64xf32>, %V: memref<?x32768x64xf32>, %O: memref<?x8x64x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) {
// CHECK: wsp.task @attention_kernel(%b, %h, %len : index, index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<?x64xf32>, memref<?x64xf32>, memref<64x64xf32>)
// CHECK: sched.schedule @attention_sched for @attention {
// CHECK: sched.dispatch affinity("b")
// CHECK: sched.streams 2
// CHECK: sched.timing immediate
