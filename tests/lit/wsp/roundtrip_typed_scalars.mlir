// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// Typed scalar parameters (index, i1, i32, i64, f16, f32, f64) and the instances of a generic
// kernel: each names the kernel it instantiates (instance_of).

wsp.kernel @scale_16xf32(x: in memref<16xf32>, y: out memref<16xf32>, alpha: f64, n: i32, flip: i1) unit(vector) attributes {instance_of = "scale"}
wsp.kernel @scale_8xf16(x: in memref<8xf16>, y: out memref<8xf16>, alpha: f64, n: i32, flip: i1) unit(vector) attributes {instance_of = "scale"}
wsp.kernel @widths(a: f16, b: f32, c: i64, i: index) unit(cube)
wsp.workload @w(%X: memref<4x16xf32>, %Y: memref<4x16xf32>, %A: memref<8xf16>, %B: memref<8xf16>) {
  %d = wsp.dense 4
  %alpha = arith.constant 2.500000e+00 : f64
  %true = arith.constant true
  %h = arith.constant 1.500000e+00 : f16
  %f = arith.constant 2.500000e-01 : f32
  %c = arith.constant -7 : i64
  wsp.parallel_for %i in %d named("i") : !wsp.dense<4> {
    %n = arith.index_cast %i : index to i32
    %x = wsp.view %X[%i] : memref<4x16xf32> -> memref<16xf32>
    %y = wsp.view %Y[%i] : memref<4x16xf32> -> memref<16xf32>
    wsp.task @scale_16xf32(%alpha, %n, %true : f64, i32, i1) resources(%x, %y : memref<16xf32>, memref<16xf32>)
    wsp.task @widths(%h, %f, %c, %i : f16, f32, i64, index) resources()
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.kernel @scale_16xf32(x: in memref<16xf32>, y: out memref<16xf32>, alpha: f64, n: i32, flip: i1) unit(vector) attributes {instance_of = "scale"}
// CHECK-NEXT:   wsp.kernel @scale_8xf16(x: in memref<8xf16>, y: out memref<8xf16>, alpha: f64, n: i32, flip: i1) unit(vector) attributes {instance_of = "scale"}
// CHECK-NEXT:   wsp.kernel @widths(a: f16, b: f32, c: i64, i: index) unit(cube)
// CHECK:          wsp.task @scale_16xf32(%{{.*}}, %{{.*}}, %{{.*}} : f64, i32, i1) resources(%{{.*}}, %{{.*}} : memref<16xf32>, memref<16xf32>)
// CHECK-NEXT:     wsp.task @widths(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f16, f32, i64, index) resources()
