// RUN: pto-opt %s -p wsp-to-tg | FileCheck %s

// sequential: an ordered scope with an ordering point between consecutive children;
// combine: plain code (no order); select walks one CSR row through indptr/indices;
// cond: a constant predicate is folded, a runtime one becomes scf.if.

wsp.kernel @a(i: index) unit(vector)
wsp.kernel @b(i: index) unit(cube)

// CHECK-LABEL: tg.program @seq(%n: index) {
// CHECK-NEXT:    tg.ordered {
// CHECK:           scf.for %i =
// CHECK:             tg.task @a(%i : index)
// CHECK:           }
// CHECK-NEXT:      tg.order_point
// CHECK:           scf.for %i_1 =
// CHECK:             tg.task @b(%i_1 : index) {{.*}} pool(cube)
// CHECK:           }
// CHECK-NEXT:    }
wsp.workload @seq(%n: index) {
  %ax = wsp.dense_dyn %n
  wsp.sequential {
    wsp.parallel_for %i in %ax named("i") : !wsp.dense_dyn {
      wsp.task @a(%i : index) resources()
    }
    wsp.parallel_for %i in %ax named("i") : !wsp.dense_dyn {
      wsp.task @b(%i : index) resources()
    }
  }
}

// CHECK-LABEL: tg.program @comb(%x: index) {
// CHECK-NEXT:    tg.task @a(%x : index)
// CHECK-NEXT:    tg.task @b(%x : index)
// CHECK-NEXT:  }
wsp.workload @comb(%x: index) {
  wsp.combine {
    wsp.task @a(%x : index) resources()
    wsp.task @b(%x : index) resources()
  }
}

// CHECK-LABEL: tg.program @sel(%n: index, %indptr: memref<?xindex>, %indices: memref<?xindex>, %row: index) {
// CHECK-NEXT:    %[[LO:.*]] = memref.load %indptr[%row] : memref<?xindex>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %row, %[[ONE]] : index
// CHECK-NEXT:    %[[HI:.*]] = memref.load %indptr[%[[NEXT]]] : memref<?xindex>
// CHECK:         scf.for %e_k = %[[LO]] to %[[HI]] step
// CHECK-NEXT:      %e = memref.load %indices[%e_k] : memref<?xindex>
// CHECK-NEXT:      tg.task @a(%e : index) resources() at(e = %e) pool(vector)
wsp.workload @sel(%n: index, %indptr: memref<?xindex>, %indices: memref<?xindex>, %row: index) {
  %s = wsp.sparse %n, %indptr, %indices : memref<?xindex>, memref<?xindex>
  wsp.select %e in %s[%row] named("e") : !wsp.sparse {
    wsp.task @a(%e : index) resources()
  }
}

// CHECK-LABEL: tg.program @static_cond(%x: index) {
// CHECK-NEXT:    %{{.*}} = arith.constant false
// CHECK-NEXT:    tg.task @b(%x : index)
// CHECK-NEXT:  }
wsp.workload @static_cond(%x: index) {
  %false = arith.constant false
  wsp.cond %false {
    wsp.task @a(%x : index) resources()
  } else {
    wsp.task @b(%x : index) resources()
  }
}

// CHECK-LABEL: tg.program @runtime_cond(%x: index, %p: i1) {
// CHECK-NEXT:    scf.if %p {
// CHECK-NEXT:      tg.task @a(%x : index)
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tg.task @b(%x : index)
// CHECK-NEXT:    }
wsp.workload @runtime_cond(%x: index, %p: i1) {
  wsp.cond %p {
    wsp.task @a(%x : index) resources()
  } else {
    wsp.task @b(%x : index) resources()
  }
}
