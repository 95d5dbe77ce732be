// RUN: pto-opt %s -p wsp-to-tg | FileCheck %s
// RUN: pto-opt %s -p wsp-to-tg | pto-opt | FileCheck %s
// RUN: pto-opt %s -p 'wsp-to-tg,tg-materialize' | FileCheck %s --check-prefix=GRAPH
// RUN: pto-opt %s -p 'wsp-to-tg,tg-materialize' | pto-opt | FileCheck %s --check-prefix=GRAPH

// Typed scalars pass through wsp-to-tg unchanged: the constants (f32, i1) are cloned into the
// program, the index_cast of the loop index stays at the task, and tg.task takes them with
// their types. tg-materialize prints each node's args with its type (index ones bare).

wsp.kernel @scale(x: in memref<16xf32>, y: out memref<16xf32>, alpha: f32, n: i32, flip: i1, i: index) unit(vector)
wsp.workload @w(%X: memref<2x16xf32>, %Y: memref<2x16xf32>) {
  %d = wsp.dense 2
  %a = arith.constant 2.500000e-01 : f32
  %t = arith.constant true
  wsp.parallel_for %i in %d named("i") : !wsp.dense<2> {
    %n = arith.index_cast %i : index to i32
    %x = wsp.view %X[%i] : memref<2x16xf32> -> memref<16xf32>
    %y = wsp.view %Y[%i] : memref<2x16xf32> -> memref<16xf32>
    wsp.task @scale(%a, %n, %t, %i : f32, i32, i1, index) resources(%x, %y : memref<16xf32>, memref<16xf32>)
  }
}

// CHECK-LABEL: tg.program @w(
// CHECK:         %[[A:.*]] = arith.constant 2.500000e-01 : f32
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK:         scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %i : index to i32
// CHECK:           tg.task @scale(%[[A]], %[[N]], %[[T]], %i : f32, i32, i1, index) resources(%{{.*}}, %{{.*}} : {{.*}}) access(in, out) at(i = %i) pool(vector)

// GRAPH-LABEL: tg.graph @w(
// GRAPH-NEXT:    tg.node 0 task @scale args(0.25 : f32, 0 : i32, true, 0) regions(%X[0, 0][1, 16][1, 1] in, %Y[0, 0][1, 16][1, 1] out) at(i = 0)
// GRAPH-NEXT:    tg.node 1 task @scale args(0.25 : f32, 1 : i32, true, 1) regions(%X[1, 0][1, 16][1, 1] in, %Y[1, 0][1, 16][1, 1] out) at(i = 1)
