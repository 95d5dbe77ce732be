// The example examples/attention_module.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/attention_module.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/attention_module.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @attn_kernel(b: index, h: index, Q: in memref<64x64xf32>, K: in memref<64x64xf32>, V: in memref<64x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(1024)
// CHECK: wsp.kernel @load_kernel(i: index, input: in memref<64xf32>, buf: out memref<64xf32>) unit(vector) cost(100)
// CHECK: wsp.kernel @compute_kernel(i: index, buf: in memref<64xf32>, out: out memref<64xf32>) unit(vector) cost(300)
// CHECK: wsp.kernel @store_kernel(i: index, out: in memref<64xf32>, final: out memref<64xf32>) unit(vector) cost(100)
// CHECK: wsp.workload @attention(%batch: !wsp.dense_dyn, %heads: !wsp.dense<8>, %Q: memref<?x8x64x64xf32>, %K: memref<?x64x64xf32>, %V: memref<?x64x64xf32>, %O: memref<?x8x64x64xf32>) {
// CHECK: wsp.task @attn_kernel(%b, %h : index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
// CHECK: sched.schedule @attention_sched for @attention {
// CHECK: sched.dispatch affinity("b")
// CHECK: sched.streams 2
// CHECK: sched.timing immediate
// CHECK: csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %buf: memref<?x64xf32>, %out: memref<?x64xf32>, %final: memref<?x64xf32>) {
// CHECK: csp.channel @l2c : !wsp.task capacity(2)
// CHECK: csp.channel @c2s : !wsp.task capacity(2)
// CHECK: csp.process @loader produces(@l2c) {
// CHECK: wsp.for_each %i in %tiles named("i") : !wsp.dense_dyn {
// CHECK: csp.send @l2c {
// CHECK: wsp.task @load_kernel(%i : index) resources(%in, %b : memref<64xf32>, memref<64xf32>)
// CHECK: csp.process @computer consumes(@l2c) produces(@c2s) {
// CHECK: csp.consume @l2c as %tile : !wsp.task {
// CHECK: csp.send @c2s {
// CHECK: wsp.task @compute_kernel(%i_1 : index) resources(%b_1, %o : memref<64xf32>, memref<64xf32>)
// CHECK: csp.process @storer consumes(@c2s) {
// CHECK: csp.consume @c2s as %result : !wsp.task {
// CHECK: wsp.task @store_kernel(%i_2 : index) resources(%o_1, %f : memref<64xf32>, memref<64xf32>)
