// RUN: pto-opt %s -p wsp-canonicalize | FileCheck %s

// The greedy driver erases pure ops without uses (its trivial dead-code elimination):
// axis constructors, views and constants that a fold left behind or that nothing used.
// Ops that only feed other dead ops go too.

wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
wsp.workload @dead(%O: memref<8x4xf32>, %n: index, %lens: memref<?xi64>) {
  %c2 = arith.constant 2 : index
  %f = arith.constant false
  %d = wsp.dense 8
  %dd = wsp.dense_dyn %n
  %r = wsp.ragged %n, %lens : memref<?xi64>
  %v2 = wsp.view %O[%c2] : memref<8x4xf32> -> memref<4xf32>
  %c5 = arith.constant 5 : index
  %v5 = wsp.view %O[%c5] : memref<8x4xf32> -> memref<4xf32>
  wsp.cond %f {
    wsp.parallel_for %i in %d : !wsp.dense<8> {
      wsp.task @k(%c2 : index) resources(%v2 : memref<4xf32>)
    }
  }
  wsp.task @k(%c5 : index) resources(%v5 : memref<4xf32>)
}

// CHECK:      wsp.workload @dead(%O: memref<8x4xf32>, %n: index, %lens: memref<?xi64>) {
// CHECK-NEXT:   %c5 = arith.constant 5 : index
// CHECK-NEXT:   %v5 = wsp.view %O[%c5] : memref<8x4xf32> -> memref<4xf32>
// CHECK-NEXT:   wsp.task @k(%c5 : index) resources(%v5 : memref<4xf32>)
// CHECK-NEXT: }
