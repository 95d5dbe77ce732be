// RUN: pto-opt %s -p wsp-to-tg | FileCheck %s
// RUN: pto-opt %s -p wsp-to-tg | pto-opt | FileCheck %s

// Loops over each axis kind become scf.for nests; parallel_for adds no order, for_each an
// ordered scope with an ordering point at the end of each iteration. A Ragged axis walks
// lengths[row] per row, never a flattened total.

wsp.kernel @k(i: index, j: index) unit(vector)

// CHECK-LABEL: tg.program @dense(
// CHECK:         %[[N:.*]] = arith.constant 4 : index
// CHECK:         %[[Z:.*]] = arith.constant 0 : index
// CHECK:         scf.for %i = %[[Z]] to %[[N]] step %{{.*}} {
// CHECK-NEXT:      tg.task @k(%i, %i : index, index) resources() at(i = %i) pool(vector)
// CHECK-NEXT:    }
// CHECK-NOT:     tg.order_point
wsp.workload @dense() {
  %a = wsp.dense 4
  wsp.parallel_for %i in %a named("i") : !wsp.dense<4> {
    wsp.task @k(%i, %i : index, index) resources()
  }
}

// CHECK-LABEL: tg.program @dyn(%n: index) {
// CHECK:         scf.for %i = %{{.*}} to %n step %{{.*}} {
wsp.workload @dyn(%n: index) {
  %a = wsp.dense_dyn %n
  wsp.parallel_for %i in %a named("i") : !wsp.dense_dyn {
    wsp.task @k(%i, %i : index, index) resources()
  }
}

// CHECK-LABEL: tg.program @for_each(%n: index) {
// CHECK-NEXT:    tg.ordered {
// CHECK:           scf.for %i = %{{.*}} to %n step %{{.*}} {
// CHECK-NEXT:        tg.task @k(%i, %i : index, index) resources() at(i = %i) pool(vector)
// CHECK-NEXT:        tg.order_point
// CHECK-NEXT:      }
// CHECK-NEXT:    }
wsp.workload @for_each(%n: index) {
  %a = wsp.dense_dyn %n
  wsp.for_each %i in %a named("i") : !wsp.dense_dyn {
    wsp.task @k(%i, %i : index, index) resources()
  }
}

// CHECK-LABEL: tg.program @ragged(%n: index, %lengths: memref<?xi64>) {
// CHECK:         scf.for %r = %{{.*}} to %n step %{{.*}} {
// CHECK-NEXT:      %[[L:.*]] = memref.load %lengths[%r] : memref<?xi64>
// CHECK-NEXT:      %[[LI:.*]] = arith.index_cast %[[L]] : i64 to index
// CHECK:           scf.for %j = %{{.*}} to %[[LI]] step %{{.*}} {
// CHECK-NEXT:        tg.task @k(%r, %j : index, index) resources() at(r = %r, j = %j) pool(vector)
wsp.workload @ragged(%n: index, %lengths: memref<?xi64>) {
  %a = wsp.ragged %n, %lengths : memref<?xi64>
  wsp.parallel_for %r, %j in %a named("r", "j") : !wsp.ragged {
    wsp.task @k(%r, %j : index, index) resources()
  }
}

// An axis passed as an argument expands into the values it needs.
// CHECK-LABEL: tg.program @axis_args(%rows: index, %s_outer: index, %s_indptr: memref<?xindex>, %s_indices: memref<?xindex>) {
// CHECK:         scf.for %r = %{{.*}} to %s_outer step %{{.*}} {
// CHECK:           %[[LO:.*]] = memref.load %s_indptr[%r] : memref<?xindex>
// CHECK:           %[[HI:.*]] = memref.load %s_indptr[%{{.*}}] : memref<?xindex>
// CHECK:           scf.for %c_k = %[[LO]] to %[[HI]] step %{{.*}} {
// CHECK-NEXT:        %c = memref.load %s_indices[%c_k] : memref<?xindex>
// CHECK-NEXT:        tg.task @k(%r, %c : index, index) resources() at(r = %r, c = %c) pool(vector)
wsp.workload @axis_args(%rows: !wsp.dense_dyn, %s: !wsp.sparse) {
  wsp.parallel_for %r, %c in %s named("r", "c") : !wsp.sparse {
    wsp.task @k(%r, %c : index, index) resources()
  }
}
