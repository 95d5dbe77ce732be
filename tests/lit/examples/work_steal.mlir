// The example examples/work_steal.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/work_steal.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/work_steal.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @attn_kernel(b: index, h: index, Q: in memref<64x64xf32>, K: in memref<64x64xf32>, V: in memref<64x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(1024)
// CHECK: csp.pipeline @work_steal(%batch_size: index, %Q: memref<?x8x64x64xf32>, %K: memref<?x64x64xf32>, %V: memref<?x64x64xf32>, %O: memref<?x8x64x64xf32>) {
// CHECK: csp.channel @work_queue : !wsp.task capacity(1024)
// CHECK: csp.process @generator produces(@work_queue) {
// CHECK: wsp.for_each %b in %batch named("b") : !wsp.dense_dyn {
// CHECK: wsp.for_each %h in %heads named("h") : !wsp.dense<8> {
// CHECK: csp.send @work_queue {
// CHECK: wsp.task @attn_kernel(%b, %h : index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
// CHECK: csp.process @worker consumes(@work_queue) replicas(4) {
// CHECK: csp.consume @work_queue as %t : !wsp.task {
// CHECK: sched.schedule @work_steal_sched for @work_steal {
// CHECK: sched.dispatch dispatch_by key(%r = "replica") {
