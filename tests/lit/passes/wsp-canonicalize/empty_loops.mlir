// RUN: pto-opt %s --split-input-file -p wsp-canonicalize | FileCheck %s

// Loops over an axis known to have no index create no task and disappear, and so do the
// axis constructors and views left without uses.

wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
wsp.workload @empty_axes(%O: memref<8x4xf32>, %arg: !wsp.dense<0>, %lens: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %zero = wsp.dense 0
  %dyn_zero = wsp.dense_dyn %c0
  %no_rows = wsp.ragged %c0, %lens : memref<?xi64>
  wsp.parallel_for %i in %zero : !wsp.dense<0> {
    %v = wsp.view %O[%i] : memref<8x4xf32> -> memref<4xf32>
    wsp.task @k(%i : index) resources(%v : memref<4xf32>)
  }
  wsp.for_each %i in %dyn_zero : !wsp.dense_dyn {
    %v = wsp.view %O[%i] : memref<8x4xf32> -> memref<4xf32>
    wsp.task @k(%i : index) resources(%v : memref<4xf32>)
  }
  wsp.parallel_for %i in %arg : !wsp.dense<0> {
    %v = wsp.view %O[%i] : memref<8x4xf32> -> memref<4xf32>
    wsp.task @k(%i : index) resources(%v : memref<4xf32>)
  }
  wsp.for_each %r, %j in %no_rows : !wsp.ragged {
    %v = wsp.view %O[%r] : memref<8x4xf32> -> memref<4xf32>
    wsp.task @k(%j : index) resources(%v : memref<4xf32>)
  }
}

// CHECK:      wsp.workload @empty_axes(%O: memref<8x4xf32>, %arg: !wsp.dense<0>, %lens: memref<?xi64>) {
// CHECK-NEXT: }

// -----

// A loop whose body holds nothing creates no task either, whatever its axis.

wsp.workload @empty_bodies(%n: index, %s: !wsp.sparse, %row: index) {
  %a = wsp.dense_dyn %n
  wsp.parallel_for %i in %a : !wsp.dense_dyn {
  }
  wsp.for_each %i in %a : !wsp.dense_dyn {
    %unused = arith.constant 3 : index
  }
  wsp.select %e in %s[%row] : !wsp.sparse {
  }
}

// CHECK:      wsp.workload @empty_bodies(%n: index, %s: !wsp.sparse, %row: index) {
// CHECK-NEXT: }

// -----

// Must not change: non-empty static axes and axes of runtime size.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @kept(%n: index) {
  %c1 = arith.constant 1 : index
  %one = wsp.dense 1
  %dyn = wsp.dense_dyn %n
  %dyn_one = wsp.dense_dyn %c1
  wsp.parallel_for %i in %one : !wsp.dense<1> {
    wsp.task @k(%i : index) resources()
  }
  wsp.for_each %i in %dyn : !wsp.dense_dyn {
    wsp.task @k(%i : index) resources()
  }
  wsp.parallel_for %i in %dyn_one : !wsp.dense_dyn {
    wsp.task @k(%i : index) resources()
  }
}

// CHECK:      wsp.workload @kept(%n: index) {
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %one = wsp.dense 1
// CHECK-NEXT:   %dyn = wsp.dense_dyn %n
// CHECK-NEXT:   %dyn_one = wsp.dense_dyn %c1
// CHECK-NEXT:   wsp.parallel_for %i in %one named("i") : !wsp.dense<1> {
// CHECK-NEXT:     wsp.task @k(%i : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.for_each [[I1:%[a-z0-9_]+]] in %dyn named("i") : !wsp.dense_dyn {
// CHECK-NEXT:     wsp.task @k([[I1]] : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.parallel_for [[I2:%[a-z0-9_]+]] in %dyn_one named("i") : !wsp.dense_dyn {
// CHECK-NEXT:     wsp.task @k([[I2]] : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
