// The example examples/moe.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/moe.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/moe.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @expert_kernel(b: index, e: index, tokens: in memref<128xf32>, weights: in memref<128x128xf32>, out: out memref<128xf32>) unit(cube) cost(2048)
// CHECK: wsp.workload @moe(%tokens: memref<?x128xf32>, %expert_weights: memref<8x128x128xf32>, %expert_out: memref<?x8x128xf32>, %batch_size: index, %indptr: memref<?xindex>, %indices: memref<?xindex>) {
// CHECK: wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
// CHECK: wsp.task @expert_kernel(%b, %e : index, index) resources(%t, %w, %o : memref<128xf32>, memref<128x128xf32>, memref<128xf32>)
// CHECK: sched.schedule @moe_sched for @moe {
// CHECK: sched.dispatch work_steal
// CHECK: sched.streams 8
