// The example examples/megakernel.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/megakernel.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/megakernel.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, tile: out memref<64xf32>) unit(vector) cost(100)
// CHECK: wsp.kernel @compute_kernel(i: index, tile: in memref<64xf32>, result: out memref<64xf32>) unit(vector) cost(400)
// CHECK: wsp.kernel @store_kernel(i: index, result: in memref<64xf32>, dst: out memref<64xf32>) unit(vector) cost(100)
// CHECK: csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %tile_buf: memref<?x64xf32>, %result_buf: memref<?x64xf32>) {
// CHECK: csp.channel @load_to_compute : !wsp.task capacity(2)
// CHECK: csp.channel @compute_to_store : !wsp.task capacity(2)
// CHECK: csp.process @loader produces(@load_to_compute) {
// CHECK: wsp.for_each %i in %tiles named("i") : !wsp.dense_dyn {
// CHECK: csp.send @load_to_compute {
// CHECK: wsp.task @load_kernel(%i : index) resources(%src, %tile : memref<64xf32>, memref<64xf32>)
// CHECK: csp.process @computer consumes(@load_to_compute) produces(@compute_to_store) {
// CHECK: csp.consume @load_to_compute as %t : !wsp.task {
// CHECK: csp.send @compute_to_store {
// CHECK: wsp.task @compute_kernel(%i_1 : index) resources(%tile_1, %result : memref<64xf32>, memref<64xf32>)
// CHECK: csp.process @storer consumes(@compute_to_store) {
// CHECK: csp.consume @compute_to_store as %r : !wsp.task {
// CHECK: wsp.task @store_kernel(%i_2 : index) resources(%result_1, %dst : memref<64xf32>, memref<64xf32>)
// CHECK: sched.schedule @megakernel_sched for @megakernel {
// CHECK: sched.dispatch round_robin(1)
