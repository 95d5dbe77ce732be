// The example examples/scan.mlir parses, verifies and round-trips (custom and generic form).
// RUN: pto-opt %S/../../../examples/scan.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir | diff %t.1.mlir -
// RUN: pto-opt %S/../../../examples/scan.mlir --print-op-generic | pto-opt | diff %t.1.mlir -
// RUN: FileCheck %s --input-file %t.1.mlir

// CHECK: wsp.kernel @scan_first(x: in memref<64xf32>, y: out memref<64xf32>) unit(vector) cost(10)
// CHECK: wsp.kernel @scan_step(i: index, prev: in memref<64xf32>, x: in memref<64xf32>, y: out memref<64xf32>) unit(vector) cost(10)
// CHECK: wsp.workload @scan(%in: memref<?x64xf32>, %out: memref<?x64xf32>, %n: index) {
// CHECK: wsp.sequential {
// CHECK: wsp.task @scan_first() resources(%x0, %y0 : memref<64xf32>, memref<64xf32>)
// CHECK: wsp.for_each %j in %steps named("j") : !wsp.dense_dyn {
// CHECK: wsp.task @scan_step(%i : index) resources(%prev, %x, %y : memref<64xf32>, memref<64xf32>, memref<64xf32>)
